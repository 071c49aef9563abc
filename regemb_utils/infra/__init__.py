"""The plumbing every layer may use and that changes no result: the artifact cache and its keys, progress bars,
where parallel work runs, and what a parameter allows.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .cache import *  # noqa: F403
from .constraints import *  # noqa: F403
from .keys import *  # noqa: F403
from .processes import *  # noqa: F403
from .progress import *  # noqa: F403
from . import cache, constraints, keys, processes, progress

__all__ = [name for module in (cache, constraints, keys, processes, progress) for name in module.__all__]
