"""Word embeddings: the Word2Bits trainer with quantization, and the paper's two trained embeddings.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .original import *  # noqa: F403
from .trained import *  # noqa: F403
from .word2bits import *  # noqa: F403
from . import original, trained, word2bits

__all__ = [name for module in (original, trained, word2bits) for name in module.__all__]
