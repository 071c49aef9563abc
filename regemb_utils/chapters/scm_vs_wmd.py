"""Chapter 4's result tables: test errors, relative errors, speeds, chosen parameters, significance, xᵀS'x ≤ 0."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from ..text.datasets import DATASETS
from ..classification.engine import Measure
from ..classification.knn_runs import MethodResult
from ..classification.wmd_store import default_folder
from ..classification.methods import METHODS
from ..classification.speed import COLUMNS as _SPEED_COLUMNS, measure_speed, speed_rates, speed_ratios
from ..termsim.sources import restricted
from ..infra.processes import parallel_context
from .. import paper
from ..classification.statistics import (
    agresti_coull,
    benjamini_hochberg,
    mcnemar_exact,
    paired_difference_interval,
    paper_t_test,
)

__all__ = [
    "error_table",
    "relative_error_table",
    "speed_table",
    "optimal_parameters",
    "paired_predictions",
    "significance_table",
    "nonpositive_table",
    "paired_wmd_table",
    "decided_counts",
    "decided_datasets",
    "error_reduction",
    "left_out",
    "speed_sample",
    "measured_speed",
    "speed_ranking",
    "speed_ratio",
    "EXACT_RATE",
    "SEARCH_RATE",
]

EXACT_RATE = "exact evaluations per second per core"  # speed_table's columns
SEARCH_RATE = "pairs per second per core"

_WMDS = ("wmd", "wmd_quantized", "wmd_tfidf")
# What each comparison needs among chapter 4's methods: (in words, every one of, at least one of)
NEEDS = {
    "significance": ("a method besides BoW", (), tuple(m for m in METHODS if m != "bow")),
    "parameters": ("a sparse soft VSM", (), ("soft_vsm_ortho", "soft_vsm_quantized_ortho")),
    "nonpositive": ("a sparse soft VSM", (), ("soft_vsm_ortho", "soft_vsm_quantized_ortho")),
    "paired": ("the regularized SCM and a WMD", ("soft_vsm_quantized_ortho",), _WMDS),
    "wmd": ("a WMD", (), _WMDS),
    "reduction": ("both 32-bit soft VSMs", ("soft_vsm", "soft_vsm_ortho"), ()),
    "speed ratio": ("the WMD and the regularized SCM", ("wmd", "soft_vsm_quantized_ortho"), ()),
}


def left_out(what: str, methods: Sequence[str]) -> str | None:
    """None when chapter 4's ``methods`` allow the comparison ``what`` (a key of :data:`NEEDS`), else a sentence that
    says that this run leaves it out and which methods it would need.

    Parameters
    ----------
    what : str
        A comparison, a key of :data:`NEEDS`.
    methods : sequence of str
        The methods chapter 4 ran.

    Returns
    -------
    str or None
        None when the comparison can be made, else the sentence to show instead.

    Examples
    --------
    >>> left_out("reduction", ["soft_vsm", "soft_vsm_ortho"]) is None
    True
    >>> left_out("reduction", ["bow"])
    'This run leaves this out: it needs both 32-bit soft VSMs (soft_vsm and soft_vsm_ortho), and chapter 4 ran only bow.'
    """
    words, every, some = NEEDS[what]
    if all(m in methods for m in every) and (not some or any(m in methods for m in some)):
        return None
    needed = " and ".join([*every, *([" or ".join(some)] if some else [])])
    shown = f" ({needed})" if len(every) + len(some) <= 4 else ""
    return f"This run leaves this out: it needs {words}{shown}, and chapter 4 ran only {', '.join(methods)}."


def _ordered(results: Mapping[tuple[str, str], MethodResult]):
    datasets = [d for d in DATASETS if any(r.dataset == d for r in results.values())]
    datasets += sorted({r.dataset for r in results.values()} - set(datasets))
    methods = [m for m in METHODS if any(r.method == m for r in results.values())]
    return [(d, m) for d in datasets for m in methods if (d, m) in results]


def error_table(results: Mapping[tuple[str, str], MethodResult], confidence: float = 0.95) -> pd.DataFrame:
    """Figure 8: test error (%) with its Agresti–Coull interval for every (data set, method), the paper's beside
    (column ``paper``, only when some row is one of the paper's data sets).

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    confidence : float
        The intervals' confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, method): k, test documents, errors, error, lower, upper (%) and ``paper``.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> table = error_table(results)
    >>> table[["method", "errors", "error", "paper"]].values.tolist()
    [['bow', 4, 40.0, 23.0], ['soft_vsm', 2, 20.0, 21.82], ['wmd', 3, 30.0, 9.1], ['soft_vsm_ortho', 1, 10.0, 2.3]]
    >>> print(round(table["lower"][0], 2), round(table["upper"][0], 2))
    16.71 68.84
    """
    rows = []
    for dataset, method in _ordered(results):
        r = results[dataset, method]
        _, lower, upper = agresti_coull(r.test_errors, len(r.truth), confidence)
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "label": METHODS[method].label,
                "k": r.k,
                "test documents": len(r.truth),
                "errors": r.test_errors,
                "error": 100 * r.test_error,
                "lower": 100 * lower,
                "upper": 100 * upper,
                "paper": paper.value(paper.TEST_ERRORS, (method, dataset)),
                "paper read off a figure": paper.read_off(paper.TEST_ERRORS, (method, dataset)),
                "paper decimals": paper.decimals(paper.TEST_ERRORS, (method, dataset)),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty or set(table["dataset"]) & set(DATASETS):
        return table
    return table.drop(columns=["paper", "paper read off a figure", "paper decimals"])


def relative_error_table(errors: pd.DataFrame) -> pd.DataFrame:
    """Figure 10: mean test error over the data sets relative to BoW's (a ratio of means, %), the paper's beside.

    Only the data sets on which BoW and every listed method ran are averaged.

    Parameters
    ----------
    errors : pandas.DataFrame
        :func:`error_table`'s table.

    Returns
    -------
    pandas.DataFrame
        One row per method: its relative error (%), the paper's, and the number of data sets averaged.

    Raises
    ------
    ValueError
        Without BoW.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> relative_error_table(error_table(results))[["method", "relative error"]].values.tolist()
    [['bow', 100.0], ['soft_vsm', 50.0], ['wmd', 75.0], ['soft_vsm_ortho', 25.0]]
    """
    wide = errors.pivot(index="dataset", columns="method", values="error")
    if "bow" not in wide:
        raise ValueError("the relative error needs the BoW baseline")
    wide = wide.dropna()
    methods = [m for m in METHODS if m in wide]
    ours = 100 * wide[methods].mean() / wide["bow"].mean()
    return pd.DataFrame(
        {
            "method": methods,
            "label": [METHODS[m].label for m in methods],
            "relative error": ours.values,
            "paper": [paper.value(paper.RELATIVE_ERRORS, m) for m in methods],
            "paper read off a figure": [paper.read_off(paper.RELATIVE_ERRORS, m) for m in methods],
            "data sets": len(wide),
        }
    )


def speed_table(results: Mapping[tuple[str, str], MethodResult]) -> pd.DataFrame:
    """Figure 9: speed on one core over every validation and test run of every data set, measured two ways.

    * ``"pairs per second per core"``: Σ pairs / Σ seconds, the kNN search rate. A WMD pair that a lower bound
      excludes counts as compared (the search finds the same neighbours as a brute-force one).
    * ``"exact evaluations per second per core"``: Σ pairs evaluated exactly / Σ seconds, the paper's measure (its
      code computed every WMD). For the WMD only the pairs whose EMD was solved count, and the seconds include the
      bounds; every other method evaluates every pair, so both rates agree.
    * ``"exact rate by data set"``: the exact-evaluation rate of each data set, ``{data set: rate}`` (its spread).

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).

    Returns
    -------
    pandas.DataFrame
        One row per method: runs, pairs, seconds, both rates, the share solved exactly, the paper's speed and the rate by
        data set.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> print(*speed_table(results).loc[0, ["method", "pairs", "seconds", "pairs per second per core"]])
    bow 100 0.5 200.0
    """
    rows = []
    for method in [m for m in METHODS if any(k[1] == m for k in results)]:
        runs = [run for (d, m), r in results.items() if m == method for run in r.runs]
        pairs, seconds = sum(run.pairs for run in runs), sum(run.seconds for run in runs)
        solved = [run.solved for run in runs if run.solved is not None]
        exact = sum(solved) if solved else pairs
        by_dataset = {}  # the same rate per data set: its spread over the data sets
        for (d, m), r in results.items():
            spent = sum(run.seconds for run in r.runs)
            if m == method and spent > 0:
                by_dataset[d] = sum(run.pairs if run.solved is None else run.solved for run in r.runs) / spent
        rows.append(
            {
                "method": method,
                "label": METHODS[method].label,
                "runs": len(runs),
                "pairs": pairs,
                "seconds": seconds,
                SEARCH_RATE: pairs / seconds if seconds > 0 else np.nan,
                "exact evaluations": exact,
                EXACT_RATE: exact / seconds if seconds > 0 else np.nan,
                "share of pairs solved exactly": exact / pairs if pairs else np.nan,
                "paper": paper.value(paper.SPEEDS, method),
                "paper read off a figure": paper.read_off(paper.SPEEDS, method),
                "exact rate by data set": by_dataset,
            }
        )
    return pd.DataFrame(rows)


def speed_ratio(
    speeds: pd.DataFrame, rate: str = EXACT_RATE, scm: str = "soft_vsm_quantized_ortho", wmd: str = "wmd"
) -> float:
    """How many times as many document pairs per second per core the ``scm`` evaluates as the ``wmd`` in chapter 4's kNN
    runs (``speeds``: :func:`speed_table`), by ``rate``: :data:`EXACT_RATE` (exact evaluations: the paper's count, timed
    without the weighting) or :data:`SEARCH_RATE` (the kNN search rate, a pair that a lower bound excludes counted as
    compared).

    Parameters
    ----------
    speeds : pandas.DataFrame
    rate, scm, wmd : str

    Returns
    -------
    float

    Examples
    --------
    >>> speed_ratio(pd.DataFrame({"method": ["soft_vsm_quantized_ortho", "wmd"], EXACT_RATE: [1e5, 2.0]}))
    50000.0
    """
    table = speeds.set_index("method")
    return float(table.loc[scm, rate] / table.loc[wmd, rate])


def error_reduction(
    results: Mapping[tuple[str, str], MethodResult],
    regularized: str = "soft_vsm_ortho",
    baseline: str = "soft_vsm",
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    datasets: Sequence[str] | None = None,
) -> dict[str, float]:
    """The paper's §6.2 reduction: 100 (1 − mean test error of ``regularized`` / mean test error of ``baseline``),
    the means over the data sets both ran on (the ratio of their Figure 10 values, BoW's mean cancels), with a
    percentile bootstrap interval; ``datasets`` restricts the data sets (e.g. to those whose documents are the
    paper's).

    Both methods are compared on the test queries that both answered (all of them by default; a WMD method
    asked for fewer answers a prefix of one seeded order, chapter 4). Each resample draws every data set's queries with replacement,
    the same draw for both methods, so the interval reflects the test sets' sampling error, paired. Returns
    ``reduction``, ``lower``, ``upper``, ``datasets`` and ``queries`` (the compared queries summed over the data
    sets).

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    regularized, baseline : str
        The two methods compared.
    confidence : float
        The bootstrap interval's confidence level.
    resamples : int
        Bootstrap resamples.
    seed : int
        The bootstrap's seed.
    datasets : sequence of str, optional
        Only these data sets.

    Returns
    -------
    dict
        ``reduction``, ``lower``, ``upper`` (%), ``datasets`` and ``queries``.

    Raises
    ------
    ValueError
        When the two methods share no data set or no test query.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> reduction = error_reduction(results)  # 1 error instead of 2
    >>> reduction["reduction"], reduction["datasets"], reduction["queries"]
    (50.0, 1, 10)
    """
    chosen = [
        d
        for d, m in _ordered(results)
        if m == regularized and (d, baseline) in results and (datasets is None or d in datasets)
    ]
    if not chosen:
        raise ValueError(f"error_reduction needs {regularized!r} and {baseline!r} on a common data set")
    rng = np.random.default_rng(seed)
    wrong, draws, queries = [], [], 0
    for dataset in chosen:
        pa, pb, truth = paired_predictions(results[dataset, regularized], results[dataset, baseline])
        if not len(truth):
            raise ValueError(f"{regularized} and {baseline} answered no common test query on {dataset}")
        pair = np.stack([pa != truth, pb != truth]).astype(np.float64)
        queries += len(truth)
        wrong.append(pair.mean(axis=1))
        index = rng.integers(0, pair.shape[1], size=(resamples, pair.shape[1]))
        draws.append(np.stack([pair[0][index].mean(axis=1), pair[1][index].mean(axis=1)], axis=1))
    point = np.mean(wrong, axis=0)
    sampled = np.mean(draws, axis=0)  # resamples × 2: mean error over the data sets
    with np.errstate(divide="ignore", invalid="ignore"):
        reductions = 100 * (1 - sampled[:, 0] / sampled[:, 1])
    alpha = 1 - confidence
    lower, upper = np.nanquantile(reductions, [alpha / 2, 1 - alpha / 2])
    return {
        "reduction": float(100 * (1 - point[0] / point[1])) if point[1] > 0 else np.nan,
        "lower": float(lower),
        "upper": float(upper),
        "datasets": len(chosen),
        "queries": int(queries),
    }


def optimal_parameters(
    results: Mapping[tuple[str, str], MethodResult],
    methods: Sequence[str] = ("soft_vsm_ortho", "soft_vsm_quantized_ortho"),
) -> pd.DataFrame:
    """Table 2: the chosen parameters of the sparse SCMs per data set; the paper's (32-bit) in the rows "paper".

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    methods : sequence of str
        The methods whose chosen parameters are shown.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, method), and a row of the paper's Table 2 after the 32-bit sparse SCM's.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> results["bbcsport", "soft_vsm_ortho"] = result("soft_vsm_ortho", 1, nonzero_limit=200, threshold=0.0)
    >>> optimal_parameters(results)[["source", "nonzero_limit", "threshold", "k"]].values.tolist()
    [['Soft VSM (ortho.)', 200, 0.0, 1], ['paper: Soft VSM (ortho.)', 100, -1.0, 1]]
    """
    table_2 = paper.table_2()
    columns = list(table_2.columns)
    rows = []
    for dataset, method in _ordered(results):
        if method in methods:
            rows.append(
                {
                    "dataset": dataset,
                    "source": METHODS[method].label,
                    **{c: results[dataset, method].params.get(c) for c in columns},
                }
            )
            if method == "soft_vsm_ortho" and dataset in table_2.index:
                rows.append(
                    {"dataset": dataset, "source": "paper: Soft VSM (ortho.)", **table_2.loc[dataset].to_dict()}
                )
    return pd.DataFrame(rows, columns=["dataset", "source", *columns])


def paired_predictions(a: MethodResult, b: MethodResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two methods' test predictions (at their chosen k) and the truth, aligned on the test queries both answered.

    Parameters
    ----------
    a, b : MethodResult

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> truth = np.array([0, 1, 0, 1])
    >>> every = MethodResult("bbcsport", "bow", {"k": 1}, pd.DataFrame(), truth, {1: np.array([0, 0, 0, 1])})
    >>> some = MethodResult("bbcsport", "wmd", {"k": 1}, pd.DataFrame(), truth[[1, 3]], {1: np.array([1, 0])},
    ...                     test_rows=np.array([1, 3]))  # a WMD method may answer a sample
    >>> [x.tolist() for x in paired_predictions(every, some)]
    [[0, 1], [1, 0], [1, 1]]
    """
    common = np.intersect1d(a.rows(), b.rows())
    at, bt = np.searchsorted(a.rows(), common), np.searchsorted(b.rows(), common)
    return a.predictions[a.k][at], b.predictions[b.k][bt], a.truth[at]


def significance_table(
    results: Mapping[tuple[str, str], MethodResult], test: str = "mcnemar", alpha: float = 0.05
) -> pd.DataFrame:
    """Every pair of methods on every data set: p-value, BH q-value over all the tests, and the verdict.

    Each pair is compared on the test queries both answered (the WMD methods may answer a subsample).
    ``test="mcnemar"``: the exact McNemar test on the paired test predictions (two-sided), significant when
    q < α. ``test="paper_t_test"``: the paper's "t-test" (:func:`regemb_utils.classification.statistics.paper_t_test`) with the
    more accurate method first (its p-value is one-sided; we assume the paper's order put the better method first,
    since otherwise half its tests could not have come out significant), significant when q < α/2 as in the paper.

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    test : {"mcnemar", "paper_t_test"}
        The test.
    alpha : float
        The significance level.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, pair of methods): queries, both errors (%), (McNemar: the discordant counts), p, q and
        significant.

    Raises
    ------
    ValueError
        For an unknown test.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> table = significance_table(results)
    >>> print(*table.loc[2, ["a", "b", "only a right", "only b right", "p"]], sep=" | ")
    BoW | Soft VSM (ortho.) | 0 | 3 | 0.25
    >>> int(table["significant"].sum())
    0
    """
    if test not in ("mcnemar", "paper_t_test"):
        raise ValueError(f"unknown test {test!r}; allowed: mcnemar, paper_t_test")
    order = _ordered(results)
    rows = []
    for dataset in dict.fromkeys(d for d, _ in order):
        methods = [m for d, m in order if d == dataset]
        for a, b in itertools.combinations(methods, 2):
            pa, pb, truth = paired_predictions(results[dataset, a], results[dataset, b])
            error_a, error_b = float(np.mean(pa != truth)), float(np.mean(pb != truth))
            row = {
                "dataset": dataset,
                "a": METHODS[a].label,
                "b": METHODS[b].label,
                "queries": len(truth),
                "error a": 100 * error_a,
                "error b": 100 * error_b,
            }
            if test == "mcnemar":
                outcome = mcnemar_exact(pa, pb, truth)
                row.update(
                    {
                        "only a right": outcome.only_a_correct,
                        "only b right": outcome.only_b_correct,
                        "p": outcome.pvalue,
                    }
                )
            else:
                n = len(truth)
                accuracies = sorted([1 - error_a, 1 - error_b], reverse=True)
                row.update({"p": paper_t_test(accuracies[0], n, accuracies[1], n, alpha).pvalue})
            rows.append(row)
    columns = [
        "dataset",
        "a",
        "b",
        "queries",
        "error a",
        "error b",
        *(["only a right", "only b right"] if test == "mcnemar" else []),
        "p",
    ]
    table = pd.DataFrame(rows, columns=columns)
    table["q"] = benjamini_hochberg(table["p"].to_numpy()) if len(table) else pd.Series(dtype=float)
    table["significant"] = table["q"] < (alpha if test == "mcnemar" else alpha / 2)
    return table


def nonpositive_table(results: Mapping[tuple[str, str], MethodResult]) -> pd.DataFrame:
    """Documents with xᵀS'x ≤ 0 (similarity 0 to every document) summed over each sparse SCM's runs.

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).

    Returns
    -------
    pandas.DataFrame
        One row per (data set, sparse SCM): runs, documents with xᵀS'x ≤ 0, of which < 0, and those of the test run.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> results["bbcsport", "soft_vsm_ortho"].runs[0] = Run("test", pairs=100, seconds=0.5, nonpositive=3, negative=1)
    >>> print(*nonpositive_table(results).iloc[0])
    bbcsport Soft VSM (ortho.) 1 3 1 3
    """
    rows = []
    for dataset, method in _ordered(results):
        if not Measure.of(method).needs_matrices:
            continue
        runs = results[dataset, method].runs
        rows.append(
            {
                "dataset": dataset,
                "method": METHODS[method].label,
                "runs": len(runs),
                "documents with xᵀS'x ≤ 0": sum(r.nonpositive for r in runs),
                "of which xᵀS'x < 0": sum(r.negative for r in runs),
                "in the test run": runs[-1].nonpositive,
            }
        )
    return pd.DataFrame(
        rows, columns=["dataset", "method", "runs", "documents with xᵀS'x ≤ 0", "of which xᵀS'x < 0", "in the test run"]
    )


def paired_wmd_table(
    results: Mapping[tuple[str, str], MethodResult],
    scm: str = "soft_vsm_quantized_ortho",
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """The regularized SCM against every WMD method on every data set, on the test queries both answered.

    Per row: the WMD's test error (%) on the queries it answered with its Agresti–Coull interval and their number;
    the SCM's error on the same queries; the paired difference WMD − SCM (points; positive: the SCM errs less) with
    Newcombe's (1998, method 10) interval for paired proportions
    (:func:`regemb_utils.classification.statistics.paired_difference_interval`); the discordant counts, the exact McNemar p-value,
    the Benjamini–Hochberg q-value over this table's comparisons, and the verdict: "SCM better" or "WMD better" when
    q < ``alpha``, else "not decided".

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    scm : str
        The regularized SCM.
    confidence : float
        The intervals' confidence level.
    alpha : float
        The level of the q-values' verdict.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, WMD method).

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> row = paired_wmd_table(results, scm="soft_vsm_ortho").iloc[0]
    >>> print(*row[["method", "WMD error", "SCM error", "difference", "only SCM right", "p", "verdict"]])
    wmd 30.0 10.0 20.0 2 0.5 not decided
    """
    rows = []
    for dataset, method in _ordered(results):
        if not Measure.of(method).transport or (dataset, scm) not in results:
            continue
        rs, rw = results[dataset, scm], results[dataset, method]
        ps, pw, truth = paired_predictions(rs, rw)
        wrong_s, wrong_w = ps != truth, pw != truth
        _, lower, upper = agresti_coull(rw.test_errors, len(rw.truth), confidence)
        interval = paired_difference_interval(
            int(np.sum(wrong_w & ~wrong_s)),
            int(np.sum(wrong_s & ~wrong_w)),
            int(np.sum(wrong_w & wrong_s)),
            int(np.sum(~wrong_w & ~wrong_s)),
            confidence,
        )
        test = mcnemar_exact(ps, pw, truth)
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "label": METHODS[method].label,
                "queries": len(truth),
                "WMD queries": len(rw.truth),
                "test documents": len(rs.truth),
                "WMD error": 100 * rw.test_error,
                "WMD lower": 100 * lower,
                "WMD upper": 100 * upper,
                "SCM error": 100 * float(np.mean(wrong_s)) if len(truth) else np.nan,
                "difference": 100 * interval.difference,
                "difference lower": 100 * interval.lower,
                "difference upper": 100 * interval.upper,
                "only SCM right": test.only_a_correct,
                "only WMD right": test.only_b_correct,
                "p": test.pvalue,
            }
        )
    table = pd.DataFrame(
        rows,
        columns=[
            "dataset",
            "method",
            "label",
            "queries",
            "WMD queries",
            "test documents",
            "WMD error",
            "WMD lower",
            "WMD upper",
            "SCM error",
            "difference",
            "difference lower",
            "difference upper",
            "only SCM right",
            "only WMD right",
            "p",
        ],
    )
    table["q"] = benjamini_hochberg(table["p"].to_numpy()) if len(table) else pd.Series(dtype=float)
    decided = table["q"] < alpha
    table["verdict"] = np.where(
        decided & (table["difference"] > 0),
        "SCM better",
        np.where(decided & (table["difference"] < 0), "WMD better", "not decided"),
    )
    return table


def decided_counts(paired: pd.DataFrame) -> pd.DataFrame:
    """For every WMD method of :func:`paired_wmd_table`: on how many data sets the comparison with the SCM is
    decided in the SCM's favour, in the WMD's, and not decided.

    Parameters
    ----------
    paired : pandas.DataFrame
        :func:`paired_wmd_table`'s table.

    Returns
    -------
    pandas.DataFrame
        One row per WMD method: data sets, SCM better, WMD better, not decided.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, **params):  # a method that errs on the first ``wrong`` of 10 test documents
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1, **params}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=0.5)])
    >>> results = {("bbcsport", m): result(m, wrong)
    ...            for m, wrong in [("bow", 4), ("soft_vsm", 2), ("soft_vsm_ortho", 1), ("wmd", 3)]}
    >>> print(*decided_counts(paired_wmd_table(results, scm="soft_vsm_ortho")).iloc[0])
    wmd WMD 1 0 0 1
    """
    rows = []
    for method in dict.fromkeys(paired["method"]) if len(paired) else ():
        verdicts = paired.loc[paired["method"] == method, "verdict"]
        rows.append(
            {
                "method": method,
                "label": METHODS[method].label,
                "data sets": len(verdicts),
                "SCM better": int((verdicts == "SCM better").sum()),
                "WMD better": int((verdicts == "WMD better").sum()),
                "not decided": int((verdicts == "not decided").sum()),
            }
        )
    return pd.DataFrame(rows, columns=["method", "label", "data sets", "SCM better", "WMD better", "not decided"])


def decided_datasets(paired: pd.DataFrame) -> str:
    """:func:`decided_counts` by name: for every WMD method of :func:`paired_wmd_table`, the data sets on which the
    comparison with the SCM is decided for the SCM, for the WMD, and not decided, as one Markdown bullet each.

    Parameters
    ----------
    paired : pandas.DataFrame
        :func:`paired_wmd_table`'s table.

    Returns
    -------
    str
        Markdown, one bullet per WMD method ("" for an empty table).

    Examples
    --------
    >>> paired = pd.DataFrame({"method": ["wmd", "wmd", "wmd"], "label": ["WMD"] * 3,
    ...                        "dataset": ["bbcsport", "twitter", "reuters"],
    ...                        "verdict": ["SCM better", "not decided", "not decided"]})
    >>> print(decided_datasets(paired))
    - against the WMD: the SCM is decidedly better on BBCSPORT; not decided on TWITTER and REUTERS.
    """

    def names(datasets) -> str:
        datasets = [dataset.upper() for dataset in datasets]
        return ", ".join(datasets[:-1]) + " and " + datasets[-1] if len(datasets) > 1 else datasets[0]

    phrases = {
        "SCM better": "the SCM is decidedly better on {}",
        "WMD better": "the WMD is decidedly better on {}",
        "not decided": "not decided on {}",
    }
    bullets = []
    for method in dict.fromkeys(paired["method"]) if len(paired) else ():
        rows = paired[paired["method"] == method]
        parts = [
            phrase.format(names(rows.loc[rows["verdict"] == verdict, "dataset"]))
            for verdict, phrase in phrases.items()
            if (rows["verdict"] == verdict).any()
        ]
        bullets.append(f"- against the {rows['label'].iloc[0]}: {'; '.join(parts)}.")
    return "\n".join(bullets)


SEARCH_BENCHMARK = "wmd_search.csv"  # in the checkout's results/ folder, written by benchmarks/bench_wmd.py --record


def search_benchmark(path=None) -> pd.DataFrame | None:
    """The exact WMD kNN search's one-core CPU seconds per test query, before and after the search that answers every
    query (issue 20), beside brute force, per data set and embedding: what ``benchmarks/bench_wmd.py --real
    --paper-embeddings --record`` measured (the first test queries of chapter 4's stratified order against the
    train+validation split, k = 19; "before" is the search of the commit named in the column ``before``).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The CSV file (default: ``results/wmd_search.csv`` of the source checkout).

    Returns
    -------
    pandas.DataFrame or None
        One row per data set and embedding: queries, brute-force queries, the three CPU seconds per query and the
        ratios before / after and brute force / after; None where there is no such file (an installed package).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     csv = pathlib.Path(folder) / "wmd_search.csv"
    ...     _ = csv.write_text("dataset,embeddings,queries,brute-force queries,before (s / query),after (s / query),"
    ...                        "brute force (s / query),before,measured\\n"
    ...                        "20news,32-bit,10,1,2.0,0.5,8.0,\\"d5acaef, bound=dual\\",2026-11-26\\n")
    ...     print(*search_benchmark(csv).loc[0, ["dataset", "before / after", "brute force / after"]])
    20news 4.0 16.0
    >>> search_benchmark(pathlib.Path("no-such-file.csv")) is None
    True
    """
    folder = default_folder()
    path = path if path is not None else (folder.parent / SEARCH_BENCHMARK if folder is not None else None)
    if path is None or not Path(path).exists():
        return None
    rows = pd.read_csv(path)
    order = {name: i for i, name in enumerate(DATASETS)}
    rows = rows.sort_values(
        ["dataset", "embeddings"], key=lambda c: c.map(order) if c.name == "dataset" else c, ignore_index=True
    )
    rows["before / after"] = rows["before (s / query)"] / rows["after (s / query)"]
    rows["brute force / after"] = rows["brute force (s / query)"] / rows["after (s / query)"]
    return rows


def speed_sample(chapter, results: Mapping[tuple[str, str], MethodResult], queries: int) -> pd.DataFrame:
    """Chapter 4's speed with the paper's measure (:mod:`regemb_utils.classification.speed`): every method of the
    paper's Figure 9 that this run ran, on every data set, at the parameters that model selection chose (its S'
    built first, not timed), with the run's reference set, the largest k and the WMD's solver; a WMD by brute force on
    ``queries`` test queries. Each (data set, method) is an artifact (kind ``"speed"``) of ``chapter.cache``, measured on
    one core; the run's ``n_jobs`` measurements run at once (with its ``scheduler``), longest first.

    Parameters
    ----------
    chapter : regemb_utils.study.pipeline.Chapter
        Chapter 4's run (its parameters, the records of chapters 1–3 and the cache).
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results: the
        chosen parameters).
    queries : int
        A WMD's test queries per data set (at least 2).

    Returns
    -------
    pandas.DataFrame
        :func:`regemb_utils.classification.speed.measure_speed`'s rows of every data set and method, concatenated
        (empty, with its columns, when the run has none of Figure 9's methods).
    """
    params = chapter.params
    methods = [m for m in params.methods if METHODS[m].source == "paper"]
    dictionary, documents = chapter.documents(params.datasets, params.max_documents)
    models = chapter.embeddings(models=tuple(dict.fromkeys(METHODS[m].model for m in methods if METHODS[m].model)))
    jobs = []
    for method in methods:
        embeddings, matrices = chapter.method_inputs(method, params, dictionary, documents, models)
        built = {}  # S' of each chosen grid point, built once for the data sets that chose it
        for name, d in documents.items():
            point = {key: value for key, value in results[name, method].params.items() if key != "k"}
            S = None
            if matrices is not None:
                point_key = tuple(sorted((key, value) for key, value in point.items() if key != "slope"))
                if point_key not in built:
                    built[point_key] = matrices.build(point)
                S = restricted(built[point_key], d.terms)
            # the WMD's (brute force, by far the longest) first, then the larger data sets
            longest_first = (not Measure.of(method).transport, -d.labels["test"].shape[0])
            jobs.append(
                (
                    longest_first,
                    joblib.delayed(measure_speed)(
                        method,
                        d,
                        reference=params.reference,
                        slope=point.get("slope", 0.0),
                        embeddings=None if embeddings is None else embeddings[name],
                        term_similarity=S,
                        queries=queries,
                        k=max(params.ks),
                        solver=params.wmd_solver,
                        cache=chapter.cache,
                    ),
                )
            )
    if not jobs:
        return pd.DataFrame(columns=[*_SPEED_COLUMNS, "neighbours"])
    # each measurement runs on one core and is its own artifact: as many at once as the run has workers, longest
    # first so that no core idles at the end; the rows come back in the jobs' order
    order = sorted(range(len(jobs)), key=lambda i: (*jobs[i][0], i))
    with parallel_context(params.scheduler, params.n_jobs):
        frames = joblib.Parallel(n_jobs=params.n_jobs)(jobs[i][1] for i in order)
    by_job = dict(zip(order, frames))
    return pd.concat([by_job[i] for i in range(len(jobs))], ignore_index=True)


def measured_speed(
    timings: pd.DataFrame, methods: Sequence[str], fast: str = "soft_vsm_quantized_ortho", slow: str = "wmd"
) -> dict[str, Any]:
    """The speed ratio of :func:`speed_sample`'s timings (:func:`regemb_utils.classification.speed.speed_ratios`),
    over every data set and over those whose documents are the paper's
    (:data:`regemb_utils.paper.PAPER_DOCUMENTS`), and the values that chapter 4's prose glues.

    Parameters
    ----------
    timings : pandas.DataFrame
        :func:`speed_sample`'s rows.
    methods : sequence of str
        The methods chapter 4 ran (without ``fast`` and ``slow`` there is no ratio).
    fast, slow : str
        The two methods compared.

    Returns
    -------
    dict
        ``ratios`` and ``ratios_own`` (the two tables, empty without a ratio), ``table`` (per data set, for display:
        the WMD's seconds per query beside the rates and the ratio), ``note`` (None, or the sentence that says why
        there is no ratio) and ``values`` (name → number or text, for the prose).

    Examples
    --------
    >>> fast = pd.DataFrame({"dataset": "twitter", "method": "soft_vsm_quantized_ortho",
    ...                      "query": pd.array([pd.NA] * 2, "Int64"), "test queries": 10, "pairs": 1000,
    ...                      "seconds": [0.001, 0.001]})
    >>> slow = pd.DataFrame({"dataset": "twitter", "method": "wmd", "query": pd.array([0, 1], "Int64"),
    ...                      "test queries": 10, "pairs": 100, "seconds": [1.0, 3.0]})
    >>> found = measured_speed(pd.concat([fast, slow]), ["soft_vsm_quantized_ortho", "wmd"])
    >>> found["values"]["measured_ratio"], found["values"]["own_datasets"], found["table"]["WMD s / query"].tolist()
    (20000.0, 'TWITTER', [2.0])
    >>> found["values"]["measured_below"]  # data sets whose whole interval lies below the abstract's 10,000
    'none of them'
    >>> measured_speed(pd.concat([fast, slow.assign(seconds=[0.2, 0.6])]), ["soft_vsm_quantized_ortho", "wmd"])[
    ...     "values"]["measured_below"]
    'TWITTER (4,000×, 2,000 to 6,000)'
    >>> measured_speed(pd.concat([fast, slow]), ["bow"])["note"][:30]
    'This run leaves this out: it n'
    """
    note = left_out("speed ratio", methods)
    own = [d for d in paper.PAPER_DOCUMENTS if d in set(timings["dataset"])]
    ratios = speed_ratios(timings, fast, slow) if note is None else pd.DataFrame()
    ratios_own = speed_ratios(timings, fast, slow, datasets=own) if note is None and own else pd.DataFrame()
    values: dict[str, Any] = {
        "measured_datasets": len(ratios) - 1 if len(ratios) else 0,
        "own_datasets": ", ".join(d.upper() for d in own) or "none in this run",
    }
    for name, frame in (("measured", ratios), ("measured_own", ratios_own)):
        pooled = frame.set_index("dataset").loc["pooled"] if len(frame) else pd.Series(dtype=float)
        values.update({f"{name}_{key}": float(pooled.get(key, np.nan)) for key in ("ratio", "lower", "upper")})
    table = ratios[ratios["dataset"] != "pooled"].copy() if len(ratios) else pd.DataFrame()
    below = table[table["upper"] < paper.FASTER_THAN.value] if len(table) else table
    values["measured_below"] = (
        "; ".join(
            f"{r.dataset.upper()} ({r.ratio:,.0f}×, {r.lower:,.0f} to {r.upper:,.0f})" for r in below.itertuples()
        )
        or "none of them"
    )
    if len(table):
        per_query = timings[timings["method"] == slow].groupby("dataset")["seconds"].mean()
        table.insert(1, "WMD s / query", [float(per_query[d]) for d in table["dataset"]])
    return {"ratios": ratios, "ratios_own": ratios_own, "table": table, "note": note, "values": values}


def speed_ranking(timings: pd.DataFrame, speeds: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every method of :func:`speed_sample`'s timings ranked by its pooled rate, beside the paper's Figure 9, and
    the ratios that chapter 4's prose uses to explain the ranking.

    Parameters
    ----------
    timings : pandas.DataFrame
        :func:`speed_sample`'s rows.
    speeds : pandas.DataFrame
        :func:`speed_table` (chapter 4's runs: the WMD's pruned-search rate).

    Returns
    -------
    (pandas.DataFrame, dict)
        One row per method, fastest first: ``label``, ``pooled`` (pairs per second), ``rank``, ``paper`` (with
        ``paper read off a figure``) and ``paper's rank``; and name → number or text for the prose (ratios of rates; NaN where a method is missing).

    Examples
    --------
    >>> timings = pd.DataFrame({"dataset": "bbcsport", "method": ["bow", "bow", "soft_vsm", "soft_vsm"],
    ...                         "query": pd.array([pd.NA] * 4, "Int64"), "test queries": 10, "pairs": 1000,
    ...                         "seconds": [0.002, 0.002, 0.001, 0.001]})
    >>> ranking, values = speed_ranking(timings, pd.DataFrame(columns=["method", "pairs per second per core"]))
    >>> ranking[["label", "rank", "paper's rank"]].values.tolist(), values["rate_dense_over_bow"]
    ([['Soft VSM', 1, 2], ['BoW', 2, 1]], 2.0)
    """
    rates = speed_rates(timings)
    by = rates.set_index("method")["pooled"]
    ranking = rates[["method", "label", "pooled"]].assign(
        paper=[paper.value(paper.SPEEDS, m) for m in rates["method"]],
        **{"paper read off a figure": [paper.read_off(paper.SPEEDS, m) for m in rates["method"]]},
    )
    ranking = ranking.sort_values("pooled", ascending=False, ignore_index=True)
    ranking.insert(3, "rank", range(1, len(ranking) + 1))
    ranking["paper's rank"] = ranking["paper"].rank(ascending=False, method="min").astype("Int64")

    def times(a, b):  # how many times as many pairs per second a evaluates as b
        return float(by[a] / by[b]) if a in by and b in by else np.nan

    values: dict[str, Any] = {
        f"rate_{key}": times(a, b)
        for key, (a, b) in {
            "dense_over_bow": ("soft_vsm", "bow"),
            "dense_over_sparse": ("soft_vsm", "soft_vsm_ortho"),
            "dense_over_quantized": ("soft_vsm", "soft_vsm_quantized"),
            "ortho_over_quantized_ortho": ("soft_vsm_ortho", "soft_vsm_quantized_ortho"),
            "wmd_quantized_over_wmd": ("wmd_quantized", "wmd"),
        }.items()
    }
    values["paper_bow_over_dense"] = paper.SPEEDS["bow"].value / paper.SPEEDS["soft_vsm"].value
    values["paper_wmd_quantized_over_wmd"] = paper.SPEEDS["wmd_quantized"].value / paper.SPEEDS["wmd"].value
    values["ranking_ours"] = ", ".join(ranking["label"])
    values["ranking_paper"] = ", ".join(ranking.dropna(subset=["paper"]).sort_values("paper's rank")["label"])
    search = speeds.set_index("method")[SEARCH_RATE] if len(speeds) else pd.Series(dtype=float)
    values["search_over_brute"] = float(search.get("wmd", np.nan) / by.get("wmd", np.nan))
    brute = timings[timings["method"].eq("wmd")].groupby("dataset")["seconds"].mean()  # the 32-bit WMD's queries
    values.update(
        {
            "brute_low": float(brute.min()) if len(brute) else np.nan,
            "brute_high": float(brute.max()) if len(brute) else np.nan,
            "brute_low_dataset": brute.idxmin().upper() if len(brute) else "—",
            "brute_high_dataset": brute.idxmax().upper() if len(brute) else "—",
        }
    )
    return ranking, values
