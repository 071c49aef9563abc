"""Speed with the paper's measure (its §6.3, Figure 9 and abstract): document pairs evaluated exactly per second on
one core, every similarity computed and every WMD solved, the weighting timed with them (the appendix on the paper's
code, "Speed").

The paper's code timed one call per split: the weighting of the queries and of the reference set (``doc2bow``,
tf-idf, the pivot), the normalization and the similarities of every (query, reference) pair; for the WMD it solved
every pair exactly (PyEMD, 64 workers, the wall time × 64). Chapter 4's runs time only the similarities and prune the
WMD's search (:func:`regemb_utils.measures.wmd.wmd_knn`), so their rates are not the paper's measure. Here, per data
set, on the test split against the reference set:

* every method other than a WMD: one call over **every test query**, timed as the paper's code timed it
  (:func:`regemb_utils.classification.methods.represent_pair`, the weighting of both sides, then
  :meth:`regemb_utils.classification.engine.Measure.compare`, the normalization and every pair), repeated
  ``repeats`` times; the time to build S' is not counted (the paper's code subtracted it);
* a WMD: **brute force** (:func:`regemb_utils.measures.wmd.nearest_by_brute_force`, every pair solved exactly) on
  the first ``queries`` test queries of the seeded, class-stratified order
  (:func:`regemb_utils.text.documents.stratified_order`, the order of chapter 4's WMD samples), one query at a time;
  each query's seconds add its share (1 / the number of test queries) of one timed weighting of the whole split, as
  one call per split would. Brute force's neighbours are then checked against the pruned search's on the same
  queries; a difference stops the measurement (both must find the same neighbours and distances).

Every timing is in CPU seconds of the process (``time.process_time``) with BLAS and numba on one thread. The
result (:func:`measure_speed`) is a tidy table, one row per timed unit: ``dataset``, ``method``, ``query`` (the test
split's row; ``<NA>`` for a call over every test query), ``test queries`` (the split's size), ``pairs`` and
``seconds``; WMD rows also hold their ``neighbours`` (training indices, nearest first).

:func:`speed_ratios` turns such a table into rate ratios, e.g. the regularized SCM's pairs per second over the WMD's,
per data set and pooled over the data sets (Σ pairs / Σ seconds of the whole test splits, as the paper pooled its
runs; a WMD's whole-split seconds estimated from its sample), each with a seeded percentile bootstrap interval that
resamples the WMD's sampled queries and the repeated calls: the spread of what was measured, with no widening.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..infra.cache import ArtifactCache
from ..infra.keys import computes, fingerprint
from ..measures.wmd import nearest_by_brute_force, wmd_knn
from ..text.documents import Documents, stratified_order
from .engine import Measure
from .methods import METHODS, represent_pair
from .timing import one_core, warm_up

__all__ = ["COLUMNS", "REPEATS", "measure_speed", "speed_ratios", "speed_rates"]

COLUMNS = ["dataset", "method", "query", "test queries", "pairs", "seconds"]
REPEATS = 3  # timed calls over every test query per data set and method (other than a WMD)


def _timed(function, *args, **kwargs):
    """(the result of ``function``, its CPU seconds on one core)."""
    with one_core():
        start = time.process_time()
        result = function(*args, **kwargs)
        return result, time.process_time() - start


@computes("speed")
def _measure(
    method: str,
    documents: Documents,
    reference: str,
    slope: float,
    embeddings,
    term_similarity,
    queries: int,
    k: int,
    solver: str,
    repeats: int,
) -> pd.DataFrame:
    warm_up()
    n_test = documents.labels["test"].shape[0]
    rows = []
    measure = Measure.of(method)
    if not measure.transport:
        for _ in range(repeats):
            (Q, R), weighting = _timed(represent_pair, method, documents, "test", reference, slope)
            _, comparing = _timed(measure.compare, Q, R, embeddings, term_similarity, n_threads=1)
            rows.append(
                {"query": pd.NA, "pairs": Q.shape[0] * R.shape[0], "seconds": weighting + comparing, "neighbours": None}
            )
    else:
        (Q, R), weighting = _timed(represent_pair, method, documents, "test", reference, slope)
        chosen = stratified_order(documents.labels["test"])[:queries]
        found = []
        for query in chosen:
            (indices, distances), seconds = _timed(
                nearest_by_brute_force, Q[[query]], R, embeddings, k, solver=solver, n_jobs=1
            )
            found.append((indices[0], distances[0]))
            rows.append(
                {
                    "query": int(query),
                    "pairs": R.shape[0],
                    "seconds": seconds + weighting / n_test,
                    "neighbours": tuple(int(i) for i in indices[0]),
                }
            )
        search = wmd_knn(Q[chosen], R, embeddings, k, solver=solver, n_jobs=1)
        for position, (indices, distances) in enumerate(found):
            if not (
                np.array_equal(indices, search.indices[position])
                and np.array_equal(distances, search.distances[position])
            ):
                raise RuntimeError(
                    f"{documents.name}, {method}: brute force and the pruned search find other WMD "
                    f"neighbours for test query {chosen[position]}; the speed measurement stops"
                )
    frame = pd.DataFrame(rows, columns=["query", "pairs", "seconds", "neighbours"])
    frame.insert(0, "dataset", documents.name)
    frame.insert(1, "method", method)
    frame.insert(3, "test queries", n_test)
    frame["query"] = frame["query"].astype("Int64")
    return frame


def measure_speed(
    method: str,
    documents: Documents,
    *,
    reference: str = "train",
    slope: float = 0.0,
    embeddings: np.ndarray | None = None,
    term_similarity=None,
    queries: int = 25,
    k: int = 19,
    solver: str = "pot",
    repeats: int = REPEATS,
    cache: ArtifactCache | None = None,
) -> pd.DataFrame:
    """The one-core cost of ``method`` on one data set's test split, timed as the paper's code timed it (module
    docstring): from the artifact cache (kind ``"speed"``) when measured before with the same inputs, else measured
    and stored.

    Parameters
    ----------
    method : str
        A key of :data:`regemb_utils.classification.methods.METHODS`.
    documents : Documents
        The data set.
    reference : {"train", "train+validation"}
        The reference set.
    slope : float
        The dtb pivot slope (the soft VSMs).
    embeddings : numpy.ndarray, optional
        The rows of ``documents.terms`` (dense SCM, WMD).
    term_similarity : scipy.sparse matrix, optional
        S' over ``documents.terms`` (sparse SCM), built beforehand (not timed).
    queries : int
        A WMD's test queries, timed one by one (the first of the stratified order; at most the split's).
    k : int
        A WMD's neighbours per query (checked against the pruned search).
    solver : {"pot", "pyemd"}
        The WMD's exact EMD solver.
    repeats : int
        Every other method's timed calls over every test query.
    cache : ArtifactCache, optional
        Where the measurement is kept (default: the package's cache location).

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS` and ``neighbours``: one row per sampled query (a WMD) or per call (every other method).

    Raises
    ------
    ValueError
        For an unknown method, a missing input, fewer than 2 queries or repeats, or a k larger than the reference
        set.

    Examples
    --------
    >>> import tempfile
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> embeddings = np.eye(len(documents.terms))
    >>> with tempfile.TemporaryDirectory() as root:
    ...     bow = measure_speed("bow", documents, cache=ArtifactCache(root))
    ...     wmd = measure_speed("wmd", documents, embeddings=embeddings, queries=3, k=3, cache=ArtifactCache(root))
    >>> bow[["method", "query", "test queries", "pairs"]].values.tolist()[0], len(bow)
    (['bow', <NA>, 4, 48], 3)
    >>> wmd[["query", "pairs"]].values.tolist(), bool((wmd["seconds"] > 0).all())
    ([[3, 12], [2, 12], [1, 12]], True)
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(METHODS)}")
    measure = Measure.of(method)
    if measure.needs_embeddings and embeddings is None:
        raise ValueError(f"method {method!r} needs embeddings (the rows of documents.terms)")
    if measure.needs_matrices and term_similarity is None:
        raise ValueError(f"method {method!r} needs term_similarity (S' over documents.terms)")
    for name, value in (("queries", queries), ("repeats", repeats)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
            raise ValueError(
                f"{name}={value!r} is not allowed; give an integer of at least 2 (an interval needs two timings)"
            )
    n_reference = documents.split(reference)[0].shape[0]
    if measure.transport and not 1 <= k <= n_reference:
        raise ValueError(f"k={k!r} is not allowed; it must lie in [1, {n_reference}] (the reference documents)")
    queries = min(int(queries), documents.labels["test"].shape[0])
    cache = cache or ArtifactCache()
    wmd = measure.transport
    key = {
        "dataset": documents.name,
        "method": method,
        "documents": fingerprint(documents),
        "reference": reference,
        "slope": float(slope),
        "embeddings": None if embeddings is None else fingerprint(np.asarray(embeddings)),
        "term_similarity": None if term_similarity is None else fingerprint(term_similarity),
        "queries": queries if wmd else None,
        "k": int(k) if wmd else None,
        "solver": solver if wmd else None,
        "repeats": None if wmd else int(repeats),
    }
    return cache.get(
        "speed",
        key,
        lambda: _measure(
            method,
            documents,
            reference,
            float(slope),
            embeddings,
            term_similarity,
            queries,
            int(k),
            solver,
            int(repeats),
        ),
    )


def _checked(timings: pd.DataFrame, methods: Sequence[str], datasets: Sequence[str] | None) -> pd.DataFrame:
    missing = [c for c in COLUMNS if c not in timings.columns]
    if missing:
        raise ValueError(f"the timings lack the columns {missing}; they need {COLUMNS} (measure_speed's table)")
    rows = timings if datasets is None else timings[timings["dataset"].isin(list(datasets))]
    for method in methods:
        if not (rows["method"] == method).any():
            raise ValueError(
                f"no timings of {method!r}"
                + ("" if datasets is None else f" on {list(datasets)}")
                + f"; the timings hold {sorted(set(timings['method']))}"
            )
    rows = rows[rows["method"].isin(list(methods))]
    bad = rows[~(np.asarray(rows["seconds"], dtype=float) > 0) | ~(np.asarray(rows["pairs"], dtype=float) > 0)]
    if len(bad):
        raise ValueError(
            f"every timing needs positive seconds and pairs; {len(bad)} do not (first: "
            f"{bad.iloc[0][['dataset', 'method', 'pairs', 'seconds']].to_dict()})"
        )
    small = rows.groupby(["dataset", "method"]).size()
    if (small < 2).any():
        first = small[small < 2].index[0]
        raise ValueError(
            f"{first[1]} on {first[0]} has one timing; an interval needs at least 2 per data set and "
            "method (queries of a WMD, repeated calls of the others)"
        )
    return rows


def _cells(rows: pd.DataFrame, method: str, dataset: str) -> tuple[np.ndarray, float]:
    """(the seconds of each timing, the pairs of the whole test split per second of their mean): the cost of one
    data set's whole test split is ``weight × mean(seconds)``."""
    cell = rows[(rows["method"] == method) & (rows["dataset"] == dataset)]
    whole = cell["query"].isna().to_numpy()
    if whole.any() and not whole.all():
        raise ValueError(f"{method} on {dataset} mixes calls over every test query with single queries")
    seconds = cell["seconds"].to_numpy(dtype=float)
    test_queries = float(cell["test queries"].iloc[0])
    return seconds, 1.0 if whole.all() else test_queries  # a sampled query stands for 1 / test queries of the split


def _whole_pairs(rows: pd.DataFrame, method: str, dataset: str) -> float:
    cell = rows[(rows["method"] == method) & (rows["dataset"] == dataset)]
    pairs = float(cell["pairs"].iloc[0])
    return pairs if cell["query"].isna().all() else pairs * float(cell["test queries"].iloc[0])


def speed_ratios(
    timings: pd.DataFrame,
    fast: str = "soft_vsm_quantized_ortho",
    slow: str = "wmd",
    *,
    datasets: Sequence[str] | None = None,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """How many times as many document pairs per second ``fast`` evaluates as ``slow``, per data set and pooled,
    with a percentile bootstrap interval (:func:`scipy.stats.bootstrap`, seeded).

    A method's rate on a data set is its pairs of the whole test split per second: for calls over every test query
    the mean of their seconds; for sampled queries (a WMD), the split's size × their mean seconds (each query is
    compared with every reference document). The pooled rate is Σ pairs / Σ seconds over the data sets' whole test
    splits, as the paper pooled its runs. Each bootstrap resample draws, independently for every data set and
    method, its timings with replacement (the WMD's sampled queries, the other method's repeated calls), so the
    interval holds the spread of the queries' costs and of the repeated timings; nothing is widened.

    Parameters
    ----------
    timings : pandas.DataFrame
        :func:`measure_speed`'s rows (any number of data sets and methods, concatenated).
    fast, slow : str
        The two methods compared: the ratio is the rate of ``fast`` over the rate of ``slow``.
    datasets : sequence of str, optional
        Only these data sets (default: every data set on which both were timed).
    confidence : float
        The interval's confidence level, in (0, 1).
    resamples : int
        Bootstrap resamples (at least 100).
    seed : int
        The bootstrap's seed.

    Returns
    -------
    pandas.DataFrame
        One row per data set, then ``"pooled"``: ``dataset``, ``fast``, ``slow``, ``fast rate`` and ``slow rate``
        (pairs per second), ``ratio``, ``lower``, ``upper``, ``fast timings`` and ``slow timings`` (how many), and
        ``confidence``.

    Raises
    ------
    ValueError
        For missing columns, a method without timings, a data set with fewer than 2 timings of a method,
        non-positive seconds or pairs, a confidence outside (0, 1), fewer than 100 resamples, or no data set with
        both methods.

    Examples
    --------
    Constructed timings: the fast method evaluates 10,000 pairs in 0.01 s (10⁶ pairs per second, three repeated
    calls), the slow one 100 pairs per query in 1 to 3 s (50 pairs per second), a ratio of 20,000:

    >>> fast = pd.DataFrame({"dataset": "bbcsport", "method": "soft_vsm", "query": pd.array([pd.NA] * 3, "Int64"),
    ...                      "test queries": 100, "pairs": 10_000, "seconds": [0.009, 0.01, 0.011]})
    >>> slow = pd.DataFrame({"dataset": "bbcsport", "method": "wmd", "query": pd.array([0, 1, 2, 3], "Int64"),
    ...                      "test queries": 100, "pairs": 100, "seconds": [1.0, 3.0, 2.0, 2.0]})
    >>> row = speed_ratios(pd.concat([fast, slow]), fast="soft_vsm").iloc[0]
    >>> print(row["dataset"], row["ratio"], row["lower"] < 20_000 < row["upper"])
    bbcsport 20000.0 True
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r} is not allowed; give a number in (0, 1)")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 100:
        raise ValueError(f"resamples={resamples!r} is not allowed; give an integer of at least 100")
    if fast == slow:
        raise ValueError(f"fast and slow are both {fast!r}; compare two methods")
    rows = _checked(timings, (fast, slow), datasets)
    both = [
        d
        for d in dict.fromkeys(rows["dataset"])
        if ((rows["dataset"] == d) & (rows["method"] == fast)).any()
        and ((rows["dataset"] == d) & (rows["method"] == slow)).any()
    ]
    if not both:
        raise ValueError(f"no data set has timings of both {fast!r} and {slow!r}")
    cells = {(d, m): _cells(rows, m, d) for d in both for m in (fast, slow)}
    pairs = {(d, m): _whole_pairs(rows, m, d) for d in both for m in (fast, slow)}
    for d in both:
        if pairs[d, fast] != pairs[d, slow]:
            raise ValueError(
                f"{fast} and {slow} on {d} cover other pairs ({pairs[d, fast]:,.0f} and "
                f"{pairs[d, slow]:,.0f} per test split): other documents or another reference set"
            )

    def ratio_of(chosen):
        order = [(d, m) for d in chosen for m in (fast, slow)]
        weights = np.array([cells[c][1] for c in order])
        total = {m: sum(pairs[d, m] for d in chosen) for m in (fast, slow)}

        def statistic(*samples, axis=-1):
            seconds = {c: w * np.mean(s, axis=axis) for c, w, s in zip(order, weights, samples)}
            spent = {m: sum(seconds[d, m] for d in chosen) for m in (fast, slow)}
            return (total[fast] / spent[fast]) / (total[slow] / spent[slow])

        samples = [cells[c][0] for c in order]
        interval = stats.bootstrap(
            samples,
            statistic,
            n_resamples=resamples,
            confidence_level=confidence,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        spent = {m: sum(cells[d, m][1] * np.mean(cells[d, m][0]) for d in chosen) for m in (fast, slow)}
        rates = {m: total[m] / spent[m] for m in (fast, slow)}
        return {
            "fast rate": rates[fast],
            "slow rate": rates[slow],
            "ratio": rates[fast] / rates[slow],
            "lower": float(interval.confidence_interval.low),
            "upper": float(interval.confidence_interval.high),
            "fast timings": int(sum(len(cells[d, fast][0]) for d in chosen)),
            "slow timings": int(sum(len(cells[d, slow][0]) for d in chosen)),
        }

    table = [{"dataset": d, **ratio_of([d])} for d in both] + [{"dataset": "pooled", **ratio_of(both)}]
    table = pd.DataFrame(table)
    table.insert(1, "fast", fast)
    table.insert(2, "slow", slow)
    table["confidence"] = confidence
    return table


def speed_rates(timings: pd.DataFrame, *, datasets: Sequence[str] | None = None) -> pd.DataFrame:
    """Every timed method's pairs per second, per data set and pooled over the data sets (as :func:`speed_ratios`
    computes them): the speed ranking.

    Parameters
    ----------
    timings : pandas.DataFrame
        :func:`measure_speed`'s rows, concatenated.
    datasets : sequence of str, optional
        Only these data sets.

    Returns
    -------
    pandas.DataFrame
        One row per method (in :data:`regemb_utils.classification.methods.METHODS` order): ``method``, ``label``,
        ``pooled`` (pairs per second over the data sets it was timed on), ``data sets``, and one column per data set.

    Examples
    --------
    >>> timings = pd.DataFrame({"dataset": "bbcsport", "method": ["bow", "bow", "wmd", "wmd"],
    ...                         "query": pd.array([pd.NA, pd.NA, 0, 1], "Int64"), "test queries": 10,
    ...                         "pairs": [200, 200, 20, 20], "seconds": [0.001, 0.003, 1.0, 3.0]})
    >>> speed_rates(timings)[["method", "pooled", "bbcsport"]].values.tolist()
    [['bow', 100000.0, 100000.0], ['wmd', 10.0, 10.0]]
    """
    methods = [m for m in METHODS if (timings["method"] == m).any()]
    methods += sorted(set(timings["method"]) - set(methods))
    rows = _checked(timings, methods, datasets)
    table = []
    for method in methods:
        sets = list(dict.fromkeys(rows.loc[rows["method"] == method, "dataset"]))
        spent = {d: (lambda s, w: w * float(np.mean(s)))(*_cells(rows, method, d)) for d in sets}
        pairs = {d: _whole_pairs(rows, method, d) for d in sets}
        table.append(
            {
                "method": method,
                "label": METHODS[method].label if method in METHODS else method,
                "pooled": sum(pairs.values()) / sum(spent.values()),
                "data sets": len(sets),
                **{d: pairs[d] / spent[d] for d in sets},
            }
        )
    return pd.DataFrame(table)
