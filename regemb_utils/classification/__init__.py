"""Classification: kNN from similarities, the methods and their settings, model selection on the validation
split, chapter 4's kNN runs, chapter 7's linear models and statistics of test errors.

Every name listed in a module's ``__all__`` is importable from the package too."""

from .engine import *  # noqa: F403
from .estimators import *  # noqa: F403
from .experiment import *  # noqa: F403
from .knn import *  # noqa: F403
from .knn_runs import *  # noqa: F403
from .linear import *  # noqa: F403
from .methods import *  # noqa: F403
from .reference import *  # noqa: F403
from .selection import *  # noqa: F403
from .speed import *  # noqa: F403
from .statistics import *  # noqa: F403
from .wmd_samples import *  # noqa: F403
from .wmd_store import *  # noqa: F403
from . import (
    engine,
    estimators,
    experiment,
    knn,
    knn_runs,
    linear,
    methods,
    reference,
    selection,
    speed,
    statistics,
    wmd_samples,
    wmd_store,
)

__all__ = [
    name
    for module in (
        engine,
        estimators,
        experiment,
        knn,
        knn_runs,
        linear,
        methods,
        reference,
        selection,
        speed,
        statistics,
        wmd_samples,
        wmd_store,
    )
    for name in module.__all__
]
