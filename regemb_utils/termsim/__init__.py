"""Term similarity: nearest-neighbour caches, the sparse term-similarity matrices S', their grid, and the
orthogonalized embeddings from S' by Cholesky (paper §4.2).

Every name listed in a module's ``__all__`` is importable from the package too."""

from .cholesky import *  # noqa: F403
from .matrix import *  # noqa: F403
from .orthogonalization import *  # noqa: F403
from .reference import *  # noqa: F403
from .sources import *  # noqa: F403
from . import cholesky, matrix, orthogonalization, reference, sources

__all__ = [name for module in (cholesky, matrix, orthogonalization, reference, sources) for name in module.__all__]
