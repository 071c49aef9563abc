"""Grid search on the validation split through joblib (paper §5.4; the appendix on the paper's code, "The parameter
grid").

:func:`evaluate_grid` evaluates every grid point with ``joblib.Parallel`` under the *active* backend, so the same
call runs locally (loky/threads) or on a dask cluster, and :func:`select_grid` picks the best row::

    points = parameter_grid({"slope": [0.0, 0.5], "nonzero_limit": [100, 200]})
    with joblib.parallel_backend("dask"):      # after dask.distributed.Client(LocalCluster(...))
        outcomes = evaluate_grid(evaluate, points)
    best = select_grid(points, outcomes)

``evaluate(params)`` computes the validation similarities once and returns either one error rate or a mapping
``{k: error}`` for all k at once (from :func:`regemb_utils.classification.knn.top_k` and
:func:`regemb_utils.classification.knn.knn_votes`). It must be picklable for process backends (a module-level
function or a ``functools.partial`` of one).

Selection rule: the lowest validation error; ties go to the first grid point in grid order, then to the smallest k
(the paper's ``max`` over accuracies kept the first maximum, with k ascending inside each grid point).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import joblib

from ..infra.keys import same_result_as
from ..infra.progress import progress_bar

__all__ = [
    "parameter_grid",
    "GridSearchResult",
    "evaluate_grid",
    "evaluate_grid_in_batches",
    "select_best",
    "select_grid",
]


def parameter_grid(specification: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Cartesian product of a ``{name: values}`` mapping, in key order then value order (the paper's order).

    Parameters
    ----------
    specification : mapping of str to sequence
        Each parameter's values.

    Returns
    -------
    list of dict
        The grid points.

    Examples
    --------
    >>> parameter_grid({"C": [100, 200], "idf": [True]})
    [{'C': 100, 'idf': True}, {'C': 200, 'idf': True}]
    """
    if not specification:
        return [{}]
    keys = list(specification)
    for key in keys:
        if isinstance(specification[key], (str, bytes)) or len(specification[key]) == 0:
            raise ValueError(f"grid dimension {key!r} needs a non-empty sequence of values")
    return [dict(zip(keys, values)) for values in itertools.product(*(specification[key] for key in keys))]


@dataclass(frozen=True)
class GridSearchResult:
    """The outcome of a grid search (:func:`select_grid`).

    Parameters
    ----------
    best_params : dict
        The best grid point, with ``"k"`` when the errors were per k.
    best_error : float
        Its validation error.
    table : list of dict
        One row per (grid point, k): the parameters, ``"k"`` (if any) and ``"error"``.

    Examples
    --------
    See :func:`select_grid`.
    """

    best_params: dict[str, Any]  # includes "k" when evaluate returned errors per k
    best_error: float
    table: list[dict[str, Any]]  # one row per (grid point, k): the parameters, "k" (if any) and "error"


def _rows(params: dict[str, Any], outcome) -> list[dict[str, Any]]:
    if isinstance(outcome, Mapping):
        if not outcome:
            raise ValueError(f"evaluate returned no errors for {params}")
        return [{**params, "k": k, "error": float(error)} for k, error in sorted(outcome.items())]
    return [{**params, "error": float(outcome)}]


def evaluate_grid(
    evaluate: Callable[[dict[str, Any]], Any],
    points: Sequence[Mapping[str, Any]],
    *,
    n_jobs: int | None = None,
    verbose: int = 0,
    progress: bool = False,
    description: str = "grid points",
) -> list[Any]:
    """``[evaluate(point) for point in points]`` through ``joblib.Parallel`` (active backend), in grid order.

    With ``progress`` a tqdm bar counts the finished grid points (results arrive in order, so the bar advances as the
    earliest unfinished point completes). ``evaluate`` may return anything picklable.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(point)``, picklable.
    points : sequence of mapping
        The grid points.
    n_jobs : int, optional
        joblib workers (None: the active backend's default).
    verbose : int
        joblib's verbosity.
    progress : bool
        Show a progress bar.
    description : str
        The bar's label.

    Returns
    -------
    list
        ``evaluate(point)`` for every point, in order.

    Examples
    --------
    >>> evaluate_grid(len, [{"a": 1}, {"a": 1, "b": 2}])
    [1, 2]
    """
    points = [dict(point) for point in points]
    parallel = joblib.Parallel(n_jobs=n_jobs, verbose=verbose, return_as="generator")
    outcomes = parallel(joblib.delayed(evaluate)(point) for point in points)
    return list(progress_bar(outcomes, total=len(points), disable=not progress, desc=description, unit="point"))


@same_result_as(evaluate_grid)
def evaluate_grid_in_batches(
    evaluate: Callable[[dict[str, Any]], Any],
    points: Sequence[Mapping[str, Any]],
    *,
    n_jobs: int | None = None,
    verbose: int = 0,
    progress: bool = False,
    description: str = "grid points",
) -> list[Any]:
    """:func:`evaluate_grid`, with neighbouring grid points sent to a worker together: batches of consecutive points,
    about four per worker, so that a worker's points share what it keeps between them (S′ of one Sym, Dom, Idf and
    C at several thresholds and exponents: :class:`regemb_utils.termsim.matrix.TermSimilarityBuilder`); one joblib
    task per point would scatter each group of neighbours over the workers.

    Parameters
    ----------
    evaluate, points, n_jobs, verbose, progress, description
        As :func:`evaluate_grid` takes them.

    Returns
    -------
    list
        ``evaluate(point)`` for every point, in order (as :func:`evaluate_grid`).

    Examples
    --------
    >>> evaluate_grid_in_batches(len, [{"a": 1}, {"a": 1, "b": 2}, {}], n_jobs=1)
    [1, 2, 0]
    """
    points = [dict(point) for point in points]
    workers = joblib.effective_n_jobs(n_jobs)
    batch = max(1, len(points) // (4 * workers))
    parallel = joblib.Parallel(n_jobs=n_jobs, verbose=verbose, return_as="generator", batch_size=batch)
    outcomes = parallel(joblib.delayed(evaluate)(point) for point in points)
    return list(progress_bar(outcomes, total=len(points), disable=not progress, desc=description, unit="point"))


def select_best(table: Sequence[Mapping[str, Any]]) -> GridSearchResult:
    """The row of ``table`` (in grid order, k ascending inside a point) with the lowest ``error``; ties: the first.

    The lowest error is the highest accuracy; the first row among equals is the earliest grid point, then the
    smallest k (the appendix on the paper's code, "The parameter grid"). A NaN error raises ``ValueError``.

    Parameters
    ----------
    table : sequence of mapping
        Rows with the parameters and ``"error"``.

    Returns
    -------
    GridSearchResult
        The best row's parameters and error, and the table.

    Examples
    --------
    >>> select_best([{"C": 1, "error": 0.2}, {"C": 2, "error": 0.1}]).best_params
    {'C': 2}
    """
    table = [dict(row) for row in table]
    if not table:
        raise ValueError("the grid is empty")
    for row in table:
        if row["error"] != row["error"]:
            raise ValueError(f"evaluate returned NaN for {row}")
    best = min(range(len(table)), key=lambda index: (table[index]["error"], index))  # first minimum
    best_row = dict(table[best])
    best_error = best_row.pop("error")
    return GridSearchResult(best_params=best_row, best_error=best_error, table=table)


def select_grid(points: Sequence[Mapping[str, Any]], outcomes: Sequence[Any]) -> GridSearchResult:
    """The best of grid ``points`` by validation ``outcomes`` (errors or ``{k: error}``; ties: :func:`select_best`).

    Parameters
    ----------
    points, outcomes : sequence

    Returns
    -------
    GridSearchResult

    Examples
    --------
    >>> select_grid([{"C": 100}, {"C": 200}], [{1: 0.3, 3: 0.2}, {1: 0.2}]).best_params
    {'C': 100, 'k': 3}
    """
    return select_best([row for point, outcome in zip(points, outcomes) for row in _rows(dict(point), outcome)])
