"""How many queries the WMD methods answer (chapter 4): the power computation behind ``wmd_queries="power"``, and
the prediction of the WMD part's wall time from measured per-query costs.

**The power computation.** For each data set and WMD method, the number of test queries on which the exact
two-sided McNemar test at α = 0.05 (:func:`regemb_utils.classification.statistics.mcnemar_exact`) detects a 10-point difference in
test error between the regularized SCM (``soft_vsm_quantized_ortho``) and the WMD method with 80 % power. The two
error rates of the alternative are centred on the paper's: m ∓ 5 points, m the mean of the paper's test errors of the
two methods on the data set (Figure 8; the WMD with TF-IDF weights, which the paper did not run, takes the 32-bit
WMD's). The errors are taken as independent (phi correlation 0), which gives the most discordant documents for a
given difference and so the least power if, as for two kNN classifiers on the same documents, the errors are
positively correlated: the n is on the safe side. The power is exact (:func:`regemb_utils.classification.statistics.mcnemar_power`),
not the normal approximation. Then: test sets of at most :data:`SMALL_TEST_SET` documents are answered in full, the
32-bit and 1-bit WMD answer at least :data:`MINIMUM_QUERIES` queries (or the whole test set if smaller), and no
method answers more than the test set.

**Time.** :func:`predict_wmd_time` turns per-query one-core costs (:func:`costs_from_results` for a finished run,
:func:`costs_from_cache` for the batches in the artifact cache, also of a killed run) and sample sizes into the wall
time of the WMD part on n cores, the way chapter 4 schedules it: per method, data set and split one after the other,
the batches of :data:`WMD_BATCH` queries over the cores.
"""

from __future__ import annotations

import functools
import heapq
import json
import math
import pickle
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from .. import paper
from ..infra.cache import ArtifactCache, load_pickle
from .engine import Measure
from .wmd_batches import WMD_BATCH
from .methods import METHODS
from .settings import Settings
from .statistics import discordant_probabilities, mcnemar_power, mcnemar_sample_size

__all__ = [
    "SCM",
    "POWER",
    "MINIMUM_QUERIES",
    "SMALL_TEST_SET",
    "paper_errors",
    "power_plan",
    "power_queries",
    "query_limit",
    "costs_from_results",
    "costs_from_cache",
    "predict_wmd_time",
    "cost_extremes",
]

SCM = "soft_vsm_quantized_ortho"  # the regularized SCM that every WMD method is compared with
POWER = {"difference": 0.10, "power": 0.80, "alpha": 0.05, "correlation": 0.0}
MINIMUM_QUERIES = {"wmd": 200, "wmd_quantized": 200}  # the 32-bit and 1-bit WMD: at least this many test queries
SMALL_TEST_SET = 500  # test sets of at most this many documents are answered in full
_STAND_IN = {"wmd_tfidf": "wmd"}  # methods the paper did not run take this method's error


def paper_errors(dataset: str, method: str) -> tuple[float, float, str]:
    """(the paper's test error of the regularized SCM, of ``method`` (or its stand-in), the method whose error was
    used), as fractions: the one place where the power computation reads the paper's numbers.

    Parameters
    ----------
    dataset : str
        One of the paper's data sets.
    method : str
        A WMD method.

    Returns
    -------
    (float, float, str)
        The SCM's error, the method's (or its stand-in's) error, the method whose error was used.

    Raises
    ------
    ValueError
        When the paper has no such error (one's own data set): give ``wmd_queries`` a number instead.

    Examples
    --------
    >>> paper_errors("bbcsport", "wmd"), paper_errors("bbcsport", "wmd_tfidf")  # the paper ran no WMD with TF-IDF
    ((0.0227, 0.091, 'wmd'), (0.0227, 0.091, 'wmd'))
    >>> paper_errors("my-data", "wmd")
    Traceback (most recent call last):
    ...
    ValueError: the paper has no test error of soft_vsm_quantized_ortho and wmd on 'my-data'; give wmd_queries a number for it
    """

    def error(m):
        return paper.value(paper.TEST_ERRORS, (m, dataset))

    used = method if error(method) == error(method) else _STAND_IN.get(method, method)  # NaN: no paper value
    scm, other = error(SCM), error(used)
    if scm != scm or other != other:
        raise ValueError(
            f"the paper has no test error of {SCM} and {method} on {dataset!r}; give wmd_queries a number for it"
        )
    return scm / 100, other / 100, used


def _alternative(dataset: str, method: str) -> tuple[float, float]:
    scm, wmd, _ = paper_errors(dataset, method)
    half = POWER["difference"] / 2
    low = min(max((scm + wmd) / 2 - half, 0.0), 1.0 - 2 * half)
    return low, low + 2 * half


@functools.lru_cache(maxsize=None)
def power_queries(dataset: str, method: str, test_size: int) -> int:
    """The test queries of ``method`` on ``dataset`` under the power rule (module docstring).

    Parameters
    ----------
    dataset : str
        One of the paper's data sets.
    method : str
        A WMD method.
    test_size : int
        Test documents.

    Returns
    -------
    int
        Test queries to answer.

    Examples
    --------
    >>> power_queries("bbcsport", "wmd", 220), power_queries("20news", "wmd", 7532)
    (220, 377)
    """
    if test_size <= SMALL_TEST_SET:
        return test_size
    scm, wmd = _alternative(dataset, method)
    p10, p01 = discordant_probabilities(scm, wmd, POWER["correlation"])
    n = mcnemar_sample_size(p10, p01, POWER["power"], POWER["alpha"])
    return min(test_size, max(n, MINIMUM_QUERIES.get(method, 0)))


def power_plan(
    test_sizes: Mapping[str, int], methods: Iterable[str] = ("wmd_quantized", "wmd", "wmd_tfidf")
) -> pd.DataFrame:
    """The power computation for every data set (``{name: test documents}``) and WMD method: the paper's errors,
    the alternative, the n that reaches the power, the rule's n and the exact power at the rule's n.

    Parameters
    ----------
    test_sizes : mapping
        Data set → its test documents.
    methods : iterable of str
        The WMD methods.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, method).

    Examples
    --------
    >>> row = power_plan({"20news": 7532}, ["wmd"]).iloc[0]
    >>> int(row["queries"]), round(float(row["power at the queries"]), 3), bool(row["all"])
    (377, 0.801, False)
    """
    rows = []
    for dataset, size in test_sizes.items():
        for method in methods:
            scm, wmd, used = paper_errors(dataset, method)
            low, high = _alternative(dataset, method)
            p10, p01 = discordant_probabilities(low, high, POWER["correlation"])
            needed = mcnemar_sample_size(p10, p01, POWER["power"], POWER["alpha"])
            chosen = power_queries(dataset, method, size)
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "label": METHODS[method].label,
                    "test documents": size,
                    "paper SCM error": 100 * scm,
                    "paper WMD error": 100 * wmd,
                    "paper WMD error of": used,
                    "alternative SCM error": 100 * low,
                    "alternative WMD error": 100 * high,
                    "discordant share": 100 * (p10 + p01),
                    "queries for the power": needed,
                    "queries": chosen,
                    "power at the queries": mcnemar_power(chosen, p10, p01, POWER["alpha"]),
                    "all": chosen == size,
                }
            )
    return pd.DataFrame(rows)


def query_limit(
    settings: Settings, method: str, dataset: str, split: str = "test", size: int | None = None
) -> int | None:
    """At most this many queries of ``split`` for ``method`` on ``dataset`` under ``settings`` (None: all); only
    the WMD methods are limited (their callers ask :attr:`regemb_utils.classification.engine.Measure.transport`).

    ``size`` is the split's number of documents; it resolves ``"power"`` (:func:`power_queries`, for the test split)
    and turns a limit of at least ``size`` into None. A data set without a ``wmd_validation_queries`` entry takes its
    ``wmd_queries`` number on the validation split (all of it where that is ``"power"``).

    Parameters
    ----------
    settings : Settings
        Its ``wmd_queries`` and ``wmd_validation_queries``.
    method : str
        A key of :data:`regemb_utils.classification.methods.METHODS`.
    dataset : str
        The data set's name.
    split : {"test", "validation"}
        The query split.
    size : int, optional
        Its documents.

    Returns
    -------
    int or None
        At most this many queries; None: all.

    Examples
    --------
    >>> from regemb_utils.classification.settings import Settings
    >>> settings = Settings(wmd_queries=(("toy", 5),))
    >>> query_limit(settings, "wmd", "toy", size=100), query_limit(settings, "wmd", "toy", size=4)
    (5, None)
    """
    test = dict(settings.wmd_queries).get(dataset)
    value = (
        test
        if split == "test"
        else dict(settings.wmd_validation_queries).get(dataset, None if test == "power" else test)
    )
    if size is None:
        if value == "power":
            raise ValueError("wmd_queries='power' needs the size of the test split")
        return value
    if value == "power":
        value = power_queries(dataset, method, size)
    return None if value is None or value >= size else int(value)


# ----------------------------------------------------------------------------------------------------------------
# time


def costs_from_results(results) -> pd.DataFrame:
    """Per-query one-core seconds of every WMD run of chapter 4's results (``{(data set, method): MethodResult}``):
    one row per data set, method and split, with the queries and seconds measured.

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult`.

    Returns
    -------
    pandas.DataFrame
        Columns dataset, method, split, queries, seconds, seconds per query (the WMD methods only).

    Examples
    --------
    >>> import numpy as np
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.zeros(4, int)
    >>> runs = [Run("validation", pairs=80, seconds=10.0, queries=20), Run("test", pairs=40, seconds=6.0)]
    >>> result = MethodResult("twitter", "wmd", {"k": 1}, pd.DataFrame(), truth, {1: truth}, runs)
    >>> costs_from_results({("twitter", "wmd"): result}).values.tolist()  # the test run answered all 4 queries
    [['twitter', 'wmd', 'validation', 20, 10.0, 0.5], ['twitter', 'wmd', 'test', 4, 6.0, 1.5]]
    """
    rows = []
    for (dataset, method), result in results.items():
        if not Measure.of(method).transport:
            continue
        for run in result.runs:
            queries = (
                run.queries
                if getattr(run, "queries", None) is not None
                else (len(result.truth) if run.split == "test" else None)
            )
            if queries:
                rows.append(
                    {
                        "dataset": dataset,
                        "method": method,
                        "split": run.split,
                        "queries": queries,
                        "seconds": run.seconds,
                    }
                )
    return _per_query(rows)


def costs_from_cache(cache=None) -> pd.DataFrame:
    """Per-query one-core seconds from the WMD batches in the artifact cache (also those of a killed run).

    Parameters
    ----------
    cache : ArtifactCache, optional
        The artifact cache (default: the default one).

    Returns
    -------
    pandas.DataFrame
        As :func:`costs_from_results`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     costs = costs_from_cache(ArtifactCache(folder))
    >>> len(costs), costs.columns.tolist()
    (0, ['dataset', 'method', 'split', 'queries', 'seconds', 'seconds per query'])
    """
    root = Path((cache or ArtifactCache()).root)
    rows = []
    for directory in sorted(root.glob("wmd-batch-*")):
        try:
            params = json.loads((directory / "manifest.json").read_text())["params"]
            batch = load_pickle(directory)
        except (OSError, ValueError, KeyError, pickle.UnpicklingError, EOFError):
            continue
        rows.append(
            {
                "dataset": params["dataset"],
                "method": params["method"],
                "split": params["split"],
                "queries": params["stop"] - params["start"],
                "seconds": batch["seconds"],
            }
        )
    return _per_query(rows)


def _per_query(rows) -> pd.DataFrame:
    columns = ["dataset", "method", "split", "queries", "seconds", "seconds per query"]
    if not rows:
        return pd.DataFrame(columns=columns)
    table = (
        pd.DataFrame(rows)
        .groupby(["dataset", "method", "split"], sort=False, as_index=False)[["queries", "seconds"]]
        .sum()
    )
    table["seconds per query"] = table["seconds"] / table["queries"]
    return table[columns]


def _makespan(batches: list[float], cores: int) -> float:
    """Wall time of ``batches`` (seconds each, in dispatch order) on ``cores`` workers: each next batch goes to the
    first free worker (joblib's dispatch)."""
    free = [0.0] * max(1, cores)
    for cost in batches:
        heapq.heapreplace(free, free[0] + cost)
    return max(free)


def predict_wmd_time(
    costs: pd.DataFrame,
    sizes: Mapping[tuple[str, str, str], int],
    cores: int = 2,
    batch_size: int | None = None,
    done: Mapping[tuple[str, str, str], int] | None = None,
    show: bool = True,
) -> pd.DataFrame:
    """Predicted wall time of the WMD part of chapter 4 on ``cores`` cores.

    ``costs``: per-query one-core seconds (:func:`costs_from_results`, :func:`costs_from_cache` or a timing sample)
    with a row per (data set, method, split), or per (data set, method) for both splits; ``sizes``: ``{(data set,
    method, split): queries}`` to answer; ``done``: queries already in the cache (a prefix of the order), which cost
    nothing. Each (method, data set, split) runs after the other with its batches spread over the cores, so its wall
    time is the makespan of its batches. Prints the table and the total (``show``) and returns the table.

    Parameters
    ----------
    costs : pandas.DataFrame
        Per-query one-core seconds.
    sizes : mapping
        ``(data set, method, split)`` → queries to answer.
    cores : int
        Workers.
    batch_size : int, optional
        Queries per batch (default :data:`WMD_BATCH`).
    done : mapping, optional
        Queries already in the cache.
    show : bool
        Print the table and the total.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, method, split): queries, to compute, seconds per query, core seconds, wall seconds.

    Examples
    --------
    >>> costs = pd.DataFrame({"dataset": ["twitter"], "method": ["wmd"], "split": ["test"], "seconds per query": [2.0]})
    >>> table = predict_wmd_time(costs, {("twitter", "wmd", "test"): 20}, cores=2, batch_size=8,
    ...                          done={("twitter", "wmd", "test"): 4}, show=False)
    >>> table.values.tolist()  # batches of 4, 8 and 4 queries on 2 cores: 16 s wall
    [['twitter', 'wmd', 'test', 20, 16, 2.0, 32.0, 16.0]]
    """
    batch_size = batch_size or WMD_BATCH
    per = {}
    for r in costs.to_dict("records"):
        per[(r["dataset"], r["method"], r.get("split"))] = float(r["seconds per query"])
    rows = []
    for (dataset, method, split), n in sizes.items():
        cost = per.get((dataset, method, split), per.get((dataset, method, None), math.nan))
        start = (done or {}).get((dataset, method, split), 0)
        todo = max(0, n - start)
        # batches aligned to multiples of the batch size in the fixed order, as wmd_batches computes them
        edges = sorted({start, n, *range((start // batch_size + 1) * batch_size, n, batch_size)}) if todo else []
        batches = [cost * (b - a) for a, b in zip(edges, edges[1:])]
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "split": split,
                "queries": n,
                "to compute": todo,
                "seconds per query": cost,
                "core seconds": cost * todo,
                "wall seconds": _makespan(batches, cores) if batches else 0.0,
            }
        )
    table = pd.DataFrame(rows)
    if show:
        total = table["wall seconds"].sum() if len(table) else 0.0
        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print(table.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
        print(
            f"WMD part on {cores} core(s): {total / 60:,.1f} minutes wall time "
            f"({table['core seconds'].sum() / 3600 if len(table) else 0:,.2f} core-hours)"
        )
    return table


def cost_extremes(prediction: pd.DataFrame, method: str = "wmd") -> dict[str, tuple[str, float]]:
    """The data sets on which one test query of ``method`` costs least and most on one core, from
    :func:`predict_wmd_time`'s table: ``{"low": (NAME, seconds), "high": (NAME, seconds)}``, ``("—", nan)`` where the
    table has no row of ``method``.

    Parameters
    ----------
    prediction : pandas.DataFrame
        :func:`predict_wmd_time`'s table (dataset, method, seconds per query).
    method : str
        The WMD method.

    Returns
    -------
    dict
        ``{"low": (NAME, seconds), "high": (NAME, seconds)}``.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["twitter", "20news", "bbcsport"], "method": ["wmd", "wmd", "wmd_quantized"],
    ...                       "seconds per query": [0.05, 31.0, 9.0]})
    >>> cost_extremes(table)
    {'low': ('TWITTER', 0.05), 'high': ('20NEWS', 31.0)}
    >>> cost_extremes(table, "wmd_tfidf")
    {'low': ('—', nan), 'high': ('—', nan)}
    """
    rows = prediction[prediction["method"] == method] if len(prediction) else prediction
    if not len(rows):
        return {"low": ("—", math.nan), "high": ("—", math.nan)}
    per_query = rows.set_index("dataset")["seconds per query"]
    return {
        end: (str(name).upper(), float(per_query[name]))
        for end, name in (("low", per_query.idxmin()), ("high", per_query.idxmax()))
    }
