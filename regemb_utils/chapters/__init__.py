"""What each chapter computes and shows: one module per notebook (chapter 4 with its worked example and parameter
study), and the exercises' solutions.

Every name listed in a module's ``__all__`` is importable from the package too."""

import sys

from .baselines import *  # noqa: F403
from .claims import *  # noqa: F403
from .confusion_tsne import *  # noqa: F403
from .exercises import *  # noqa: F403
from .orthogonalization import *  # noqa: F403
from .parameter_study import *  # noqa: F403
from .preprocessing import *  # noqa: F403
from .scm_vs_wmd import *  # noqa: F403
from .scorecard import *  # noqa: F403
from .training import *  # noqa: F403
from .worked_example import *  # noqa: F403
from . import (
    baselines,
    claims,
    confusion_tsne,
    exercises,
    orthogonalization,
    parameter_study,
    preprocessing,
    scm_vs_wmd,
    training,
    worked_example,
)

scorecard = sys.modules[f"{__name__}.scorecard"]  # the module (as in __all__): the star import
# bound its function scorecard() here
__all__ = [
    name
    for module in (
        baselines,
        claims,
        confusion_tsne,
        exercises,
        orthogonalization,
        parameter_study,
        preprocessing,
        scm_vs_wmd,
        scorecard,
        training,
        worked_example,
    )
    for name in module.__all__
]
