"""Text and data sets: tokenization, the six vendored data sets, the training corpus, data-set statistics and a
data set's documents over the common dictionary.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .corpus import *  # noqa: F403
from .datasets import *  # noqa: F403
from .documents import *  # noqa: F403
from .tokenization import *  # noqa: F403
from . import corpus, datasets, documents, tokenization

__all__ = [name for module in (corpus, datasets, documents, tokenization) for name in module.__all__]
