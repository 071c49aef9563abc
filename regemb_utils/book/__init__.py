"""The book's presentation: tables and glue, the figure style, figures, label placement and prose.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .figures import *  # noqa: F403
from .plotting import *  # noqa: F403
from .prose import *  # noqa: F403
from .style import *  # noqa: F403
from .tables import *  # noqa: F403
from . import figures, plotting, prose, style, tables

__all__ = [name for module in (figures, plotting, prose, style, tables) for name in module.__all__]
