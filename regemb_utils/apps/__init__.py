"""Applications on the chapters' artifacts: the explorer.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .explorer import *  # noqa: F403
from . import explorer

__all__ = [name for module in (explorer,) for name in module.__all__]
