"""The study: the chapters' parameters and the pipeline that runs them and keeps their records.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .claims import *  # noqa: F403
from .params import *  # noqa: F403
from .pipeline import *  # noqa: F403
from . import claims, params, pipeline

__all__ = [name for module in (claims, params, pipeline) for name in module.__all__]
