"""Classification: kNN from similarities, the methods, their measure objects (the one kNN engine) and the settings of
a run, model selection on the validation split, the WMD's batched search, chapter 4's kNN runs, chapter 7's linear
models and statistics of test errors.

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
from .settings import *  # noqa: F403
from .speed import *  # noqa: F403
from .statistics import *  # noqa: F403
from .timing import *  # noqa: F403
from .wmd_batches import *  # noqa: F403
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
    settings,
    speed,
    statistics,
    timing,
    wmd_batches,
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
        settings,
        speed,
        statistics,
        timing,
        wmd_batches,
        wmd_samples,
        wmd_store,
    )
    for name in module.__all__
]
