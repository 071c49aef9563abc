"""The plumbing every layer may use and that changes no result: the artifact cache and its keys, progress bars,
and where parallel work runs.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .cache import *  # noqa: F403
from .keys import *  # noqa: F403
from .processes import *  # noqa: F403
from .progress import *  # noqa: F403
from . import cache, keys, processes, progress

__all__ = [name for module in (cache, keys, processes, progress) for name in module.__all__]
