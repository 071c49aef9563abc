"""Document measures: representations over the common dictionary, the cosine, the L1 distance, the soft cosine
measure (SCM) and the Word Mover's Distance (WMD).

Every name listed in a module's ``__all__`` is importable from the package too."""

import sys

from .representations import *  # noqa: F403
from .similarity import *  # noqa: F403
from .wmd import *  # noqa: F403
from . import representations, similarity

wmd = sys.modules[f"{__name__}.wmd"]  # the module (as in __all__): the star import bound its function wmd() here
__all__ = [name for module in (representations, similarity, wmd) for name in module.__all__]
