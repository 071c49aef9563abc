"""Chapter 4's timed kNN runs: one method on every data set, with model selection (paper §5.4–§6; the appendix on
the paper's code).

For each data set and method:

1. **model selection** on the validation split: every grid point of the method (the dtb slope for the soft VSMs, the
   whole orthogonalization grid for the sparse SCM, nothing else for BoW, TF-IDF L1 and the WMDs) is evaluated with
   the training split as the reference set, for every k at once (one top-max(k) search); the row with the highest
   validation accuracy wins, ties going to the earliest grid point, then to the smallest k (the appendix on the
   paper's code, :func:`regemb_utils.classification.selection.select_grid`);
2. the **test run** at the chosen grid point, with the training split as the reference set (the paper's choice;
   the appendix on the paper's code, "The reference set at test time") or, with ``reference="train+validation"``,
   the training and validation splits;
3. the result (:class:`MethodResult`: the validation table, the chosen parameters, the test predictions for every k,
   the timings and the documents with xᵀS'x ≤ 0) is stored in the artifact cache, one artifact per data set and
   method.

Grid points run through :func:`regemb_utils.classification.selection.evaluate_grid_in_batches` (joblib: every local core, or a dask cluster
under ``joblib.parallel_backend("dask")``); each grid point of the sparse SCM builds S' **once** and evaluates it on
every data set, because the matrices depend on the embedding and the common dictionary only (as in the paper's code).
The worker processes load the neighbour cache and the dictionary from the artifact cache themselves
(:class:`regemb_utils.termsim.sources.CachedMatrices`), so a task carries only its grid point and the documents. WMD
queries run in batches through joblib too.

Timing: every similarity computation runs on **one core** (BLAS and numba limited to one thread) and is timed in
CPU seconds of its process (``time.process_time``: time spent waiting for a core on a shared machine does not count)
without building S' and without the document representation, so Σ pairs / Σ seconds is pairs per second per core
(the paper's Figure 9; it pooled the validation grid runs and the test runs of all data sets, and so do we).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import joblib
import numpy as np
import pandas as pd
from scipy import sparse

from ..measures.similarity import similarity_matrix, sparse_scm
from ..measures.wmd import dual_bounds, wmd_knn
from ..infra.cache import ArtifactCache
from ..infra.keys import changes_no_result, computes, fingerprint
from ..infra.progress import progress_bar
from ..termsim.sources import restricted
from ..text.documents import Documents, query_rows, stratified_order
from .knn import knn_votes, top_k
from .methods import METHODS, Settings, represent_pair
from .selection import evaluate_grid_in_batches, select_grid
from .wmd_store import WmdStore, query_fingerprints, search_version

__all__ = ["Run", "nearest", "wmd_neighbours", "MethodResult", "WMD_BATCH"]

# Queries per cached WMD batch: a batch is the unit that a killed run loses and that a cluster schedules; fixed (not
# derived from the cores or the sample size) so that every run cuts the fixed query order at the same positions.
WMD_BATCH = 8


@dataclass(frozen=True)
class Run:
    """One similarity computation: its split, size and time, and what went wrong or was saved.

    Parameters
    ----------
    split : {"validation", "test"}
        Which split's queries.
    pairs : int
        (query, reference) pairs compared.
    seconds : float
        One-core seconds.
    nonpositive : int
        Documents (queries and references) with xᵀS'x ≤ 0.
    negative : int
        Of those, documents with xᵀS'x < 0.
    solved : int, optional
        WMD: exact EMD problems solved.
    queries : int, optional
        WMD: queries answered.

    Examples
    --------
    >>> run = Run("test", pairs=100, seconds=0.5, solved=12)
    >>> run.pairs / run.seconds, run.solved, run.nonpositive
    (200.0, 12, 0)
    """

    split: str  # "validation" or "test"
    pairs: int
    seconds: float
    nonpositive: int = 0  # documents (queries + reference) with xᵀS'x ≤ 0 (similarity 0 to all)
    negative: int = 0  # of those, xᵀS'x < 0
    solved: int | None = None  # WMD: exact EMD problems solved
    queries: int | None = None  # WMD: queries answered (None where not recorded)


@contextmanager
def _one_core():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def _wmd_batch(Q, R, embeddings, k, solver):
    _warm_up()
    start = time.process_time()  # CPU seconds: waiting for a core on a shared machine does not count
    with _one_core():
        result = wmd_knn(Q, R, embeddings, k, solver=solver, n_jobs=1)
    return result.indices, result.solved, time.process_time() - start, result.distances


def wmd_neighbours(
    Q,
    R,
    embeddings,
    k: int,
    *,
    solver: str = "pot",
    n_jobs: int | None = 1,
    progress: bool = False,
    batch_size: int | None = None,
    description: str = "WMD",
    cache: ArtifactCache | None = None,
    key: Mapping[str, Any] | None = None,
    store=None,
):
    """Exact WMD k nearest neighbours, queries in batches through joblib; (indices, Σ seconds, EMD solves).

    With a ``cache``, the rows of ``Q`` are positions 0, 1, ... of a fixed query order and every batch is an artifact
    "wmd-batch" (see :func:`_wmd_batches`): a killed run resumes with the batches it finished, and a larger prefix of
    the same order reuses the batches of a smaller one. ``key`` adds labels to the batches' keys (data set, method,
    split). With a ``store`` (:class:`regemb_utils.classification.wmd_store.WmdStore`, needs the cache and those labels), stored
    results whose key matches are used (a sample of them recomputed and compared), the rest computed, and the file
    rewritten when the run has more queries than it held.

    Parameters
    ----------
    Q, R : scipy.sparse matrix
        nBOW queries and references over the same columns.
    embeddings : numpy.ndarray
        One row per column.
    k : int
        Neighbours per query.
    solver : str
        The EMD solver.
    n_jobs : int, optional
        joblib workers.
    progress : bool
        Show a progress bar.
    batch_size : int, optional
        Queries per batch.
    description : str
        The progress bar's label.
    cache : ArtifactCache, optional
        Keep every batch as an artifact.
    key : mapping, optional
        Labels of the batches' keys.
    store : regemb_utils.classification.wmd_store.WmdStore, optional
        Stored results to reuse and update.

    Returns
    -------
    (numpy.ndarray, float, int)
        ``[n_queries, k]`` indices of the nearest references (nearest first), the one-core seconds, and the EMD problems
        solved.

    Raises
    ------
    ValueError
        For a ``store`` without a ``cache``.

    Examples
    --------
    >>> Q = sparse.csr_matrix([[1.0, 0, 0], [0, 0, 1.0]])
    >>> R = sparse.csr_matrix([[0, 1.0, 0], [1.0, 0, 0], [0, 0.5, 0.5]])
    >>> E = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> indices, seconds, solved = wmd_neighbours(Q, R, E, k=2)
    >>> indices.tolist(), solved
    ([[1, 0], [2, 1]], 4)
    """
    Q = sparse.csr_matrix(Q)
    if cache is not None:
        return _wmd_batches(
            Q,
            R,
            embeddings,
            k,
            solver=solver,
            n_jobs=n_jobs,
            progress=progress,
            batch_size=batch_size or WMD_BATCH,
            description=description,
            cache=cache,
            key=key or {},
            store=store,
        )
    if store is not None:
        raise ValueError("stored WMD results need the artifact cache (cache=...) for the queries they lack")
    n = Q.shape[0]
    if batch_size is None:
        workers = joblib.effective_n_jobs(n_jobs)
        batch_size = int(min(64, max(1, math.ceil(n / (4 * workers)))))
    batches = [np.arange(start, min(start + batch_size, n)) for start in range(0, n, batch_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    outcomes = parallel(joblib.delayed(_wmd_batch)(Q[rows], R, embeddings, k, solver) for rows in batches)

    outcomes = list(progress_bar(outcomes, total=len(batches), disable=not progress, desc=description, unit="batch"))
    if not outcomes:
        return np.empty((0, k), dtype=np.int64), 0.0, 0
    return (
        np.concatenate([o[0] for o in outcomes]),
        float(sum(o[2] for o in outcomes)),
        int(sum(o[1].sum() for o in outcomes)),
    )


def _base_key(key, R, embeddings, k, solver) -> dict:
    """The key of a run's WMD batches and stored results (without the query positions)."""
    return dict(
        key,
        reference=fingerprint(sparse.csr_matrix(R)),
        embeddings=fingerprint(embeddings),
        k=int(k),
        solver=solver,
        search=search_version(),
    )


STORE_EVERY = 300.0  # seconds between writes of a long WMD run's finished queries to its stored results


def _checked_stored(store, base, Q, R, embeddings, k, solver):
    """(fingerprints of the rows of Q, the stored results usable for them), a seeded sample of which is recomputed and
    compared first (:meth:`regemb_utils.classification.wmd_store.WmdStore.verify` stops the run if one differs)."""
    fingerprints = query_fingerprints(Q)
    stored = store.load(base, fingerprints)
    if len(stored):
        checked = store.sample(stored)
        indices, _, _, distances = _wmd_batch(Q[checked], R, embeddings, k, solver)
        store.verify(stored, checked, indices, distances)
    return fingerprints, stored


@computes("wmd-batch")
def _positioned_batch(start, stop, Q, R, embeddings, k, solver):
    indices, solved, seconds, distances = _wmd_batch(Q, R, embeddings, k, solver)
    return (
        start,
        stop,
        {
            "indices": np.asarray(indices, dtype=np.int64),
            "solved": int(np.sum(solved)),
            "seconds": float(seconds),
            "distances": np.asarray(distances, dtype=np.float64),
            "solved per query": np.asarray(solved, dtype=np.int64),
        },
    )


def _wmd_batches(Q, R, embeddings, k, *, solver, n_jobs, progress, batch_size, description, cache, key, store):
    """The cached path of :func:`wmd_neighbours`.

    A batch covers positions [start, stop) of the query order; batches end at multiples of ``batch_size`` (or at the
    sample's end). Its key holds the content of its query rows, of the reference set and of the embedding rows, k,
    the solver and its positions. Before computing the batch [p, end), the largest cached batch [p, s) with
    s ≤ end is taken instead (a smaller sample's last, partial batch), and the rest is computed from s. Computed
    batches are stored by this process as they arrive (in any order), so an interrupted run keeps every finished
    batch. Loaded batches bring the one-core seconds measured when they were computed. With a ``store``, the finished
    queries from position 0 on are also written to it every :data:`STORE_EVERY` seconds and at the end, so that a
    run stopped (or whose batch cache a code change elsewhere invalidates) keeps them."""
    n = Q.shape[0]
    base = _base_key(key, R, embeddings, k, solver)

    def params(start, stop):
        return dict(base, start=int(start), stop=int(stop), queries=fingerprint(Q[start:stop]))

    found: dict[int, tuple[int, dict]] = {}
    todo: list[tuple[int, int]] = []
    position = 0
    if store is not None:
        fingerprints, stored = _checked_stored(store, base, Q, R, embeddings, k, solver)
        if len(stored):
            found[0] = (
                len(stored),
                {
                    "indices": stored.indices,
                    "distances": stored.distances,
                    "seconds": float(stored.seconds.sum()),
                    "solved": int(stored.solved.sum()),
                    "solved per query": stored.solved,
                    "seconds per query": stored.seconds,
                },
            )
            position = len(stored)
    while position < n:
        end = min((position // batch_size + 1) * batch_size, n)
        for stop in range(end, position, -1):
            if cache.has("wmd-batch", params(position, stop)):
                value = cache.get("wmd-batch", params(position, stop), _absent)
                found[position] = (stop, value)
                position = stop
                break
        else:
            todo.append((position, end))
            position = end
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    outcomes = parallel(
        joblib.delayed(_positioned_batch)(start, stop, Q[start:stop], R, embeddings, k, solver) for start, stop in todo
    )

    held = stored.total if store is not None else 0  # the queries the stored file holds
    saved = time.monotonic()
    for start, stop, value in progress_bar(
        outcomes, total=len(todo), disable=not progress or not todo, desc=description, unit="batch"
    ):
        cache.get("wmd-batch", params(start, stop), lambda v=value: v)
        found[start] = (stop, value)
        if store is not None and time.monotonic() - saved >= STORE_EVERY:
            held, saved = _store_prefix(store, base, fingerprints, found, held), time.monotonic()
    if not found:
        return np.empty((0, k), dtype=np.int64), 0.0, 0
    if store is not None:
        _store_prefix(store, base, fingerprints, found, held)
    batches = [found[start][1] for start in sorted(found)]
    indices = np.concatenate([b["indices"] for b in batches])
    return indices, float(sum(b["seconds"] for b in batches)), int(sum(b["solved"] for b in batches))


def _store_prefix(store, base, fingerprints, found, held: int) -> int:
    """Write the finished batches that follow each other from position 0 to ``store`` when they are more queries than
    the ``held`` it holds; the queries it holds afterwards."""
    batches, position = [], 0
    while position in found:
        stop, batch = found[position]
        batches.append(batch)
        position = stop
    if position <= held:
        return held
    seconds = [
        b.get("seconds per query", np.full(len(b["indices"]), b["seconds"] / len(b["indices"]))) for b in batches
    ]  # per query: as stored, or the batch's time spread evenly
    store.save(
        base,
        fingerprints[:position],
        np.concatenate([b["indices"] for b in batches]),
        np.concatenate([b["distances"] for b in batches]),
        np.concatenate(seconds),
        np.concatenate([b["solved per query"] for b in batches]),
    )
    return position


def _absent():  # pragma: no cover
    raise RuntimeError("a cached WMD batch vanished")


_WARM = []


@changes_no_result
def _warm_up() -> None:
    """Compile (or load) the numba kernels and import the EMD solvers once per process, outside the timings."""
    if _WARM:
        return

    X = sparse.csr_matrix(np.array([[1.0, 0.0], [0.5, 0.5]]))
    sparse_scm(X, X, sparse.identity(2, format="csc"), n_threads=1)
    for solver in ("pot", "pyemd"):
        wmd_knn(X, X, np.eye(2), 1, solver=solver, n_jobs=1)
    T = sparse.csr_matrix(np.eye(3))  # distinct documents at distinct distances: the entropic bound's kernels run
    dual_bounds(sparse.csr_matrix([[0.5, 0.5, 0.0]]), T, np.diag([1.0, 2.0, 4.0]), epsilon=0.1)
    _WARM.append(True)


def nearest(
    method: str,
    Q,
    R,
    k: int,
    split: str,
    *,
    embeddings=None,
    term_similarity=None,
    solver: str = "pot",
    n_jobs: int | None = 1,
    progress: bool = False,
    description: str = "",
    cache: ArtifactCache | None = None,
    batch_key: Mapping[str, Any] | None = None,
    store=None,
) -> tuple[np.ndarray, Run]:
    """Indices [n_queries, k] of the k most similar reference documents (ties: lower index) and the timed run.

    Parameters
    ----------
    method : str
        A key of :data:`regemb_utils.classification.methods.METHODS`.
    Q, R : scipy.sparse matrix
        Weighted queries and reference documents (:func:`regemb_utils.classification.methods.represent_pair`).
    k : int
        Neighbours per query.
    split : str
        The queries' split (recorded in the run).
    embeddings, term_similarity
        What the method's measure needs (:func:`regemb_utils.measures.similarity.similarity_matrix`).
    solver, n_jobs, progress, description, cache, batch_key, store
        The WMD's solver, workers, progress bar, batch cache and stored results
        (:class:`regemb_utils.classification.wmd_store.WmdStore`).

    Returns
    -------
    (numpy.ndarray, Run)
        ``[n_queries, k]`` indices into ``R`` and the timed run.

    Examples
    --------
    >>> from scipy import sparse
    >>> Q = sparse.csr_matrix([[1.0, 0.0]])
    >>> R = sparse.csr_matrix([[0.0, 1.0], [2.0, 0.0]])
    >>> nearest("bow", Q, R, 1, "test")[0].tolist()
    [[1]]
    """
    measure = METHODS[method].measure
    _warm_up()
    pairs = Q.shape[0] * R.shape[0]
    if not 1 <= k <= R.shape[0]:
        raise ValueError(f"k = {k} needs at least {k} reference documents, there are {R.shape[0]}")
    if measure == "wmd":
        indices, seconds, solved = wmd_neighbours(
            Q,
            R,
            embeddings,
            k,
            solver=solver,
            n_jobs=n_jobs,
            progress=progress,
            description=description or f"{method} {split}",
            cache=cache,
            key=batch_key,
            store=store,
        )
        return indices, Run(split, pairs, seconds, solved=solved, queries=Q.shape[0])
    with _one_core():
        start = time.process_time()  # CPU seconds, as for the WMD batches
        similarities, info = similarity_matrix(
            measure, Q, R, embeddings=embeddings, term_similarity=term_similarity, n_threads=1, return_info=True
        )
        seconds = time.process_time() - start
    nonpositive, negative = (info.n_nonpositive, info.x_negative + info.y_negative) if info else (0, 0)
    return top_k(similarities, k), Run(split, pairs, seconds, nonpositive, negative)


@dataclass
class _Task:
    """Everything a grid point needs; picklable (joblib and dask ship it to their workers)."""

    method: str
    documents: dict[str, Documents]
    embeddings: dict[str, np.ndarray] | None
    matrices: Any  # InMemoryMatrices | CachedMatrices | None
    ks: tuple[int, ...]
    solver: str = "pot"
    n_jobs: int | None = 1  # inside a run (WMD batches); 1 inside grid-point workers
    progress: bool = False
    query_limits: dict[str, Any] = field(default_factory=dict)  # data set -> {split: at most this many queries}
    cache: ArtifactCache | None = None  # where the WMD batches are kept (None: not kept)
    store: Any = None  # regemb_utils.classification.wmd_store.WmdStore: stored WMD results (None: not used)

    def _limit(self, name: str, split: str) -> int | None:
        limit = self.query_limits.get(name)
        return limit.get(split) if isinstance(limit, Mapping) else limit

    def _wmd_queries(self, name: str, queries: str, reference: str):
        """WMD: (Q, R, the rows of the query split in the order they are answered) – a prefix of the fixed,
        class-stratified order."""
        documents = self.documents[name]
        Q, R = represent_pair(self.method, documents, queries, reference, 0.0)
        limit = self._limit(name, queries)
        order = stratified_order(documents.split(queries)[1])
        chosen = order if limit is None else order[:limit]
        return Q[chosen], R, chosen

    def _batch_key(self, name: str, queries: str, reference: str) -> dict:
        return {"dataset": name, "method": self.method, "split": queries, "reference_split": reference}

    def check_stored(self, name: str, queries: str, reference: str) -> None:
        """Recompute a seeded sample of the stored WMD results of one split and stop if one differs (a run whose
        results come from the artifact cache checks its stored results too)."""
        Q, R, _ = self._wmd_queries(name, queries, reference)
        base = _base_key(self._batch_key(name, queries, reference), R, self.embeddings[name], max(self.ks), self.solver)
        _checked_stored(self.store, base, Q, R, self.embeddings[name], max(self.ks), self.solver)

    def run(self, name: str, point: Mapping[str, Any], queries: str, reference: str, S=None):
        """kNN votes for every k, the timed run, and the rows of the query split that were answered (sorted)."""
        documents = self.documents[name]
        wmd = METHODS[self.method].measure == "wmd"
        if wmd:  # a prefix of the fixed, class-stratified order; answered in that order, then sorted back
            Q, R, chosen = self._wmd_queries(name, queries, reference)
        else:
            Q, R = represent_pair(self.method, documents, queries, reference, point.get("slope", 0.0))
            limit = self._limit(name, queries)
            rows = query_rows(Q.shape[0], limit)
            if len(rows) < Q.shape[0]:
                Q = Q[rows]
        if S is not None:
            S = restricted(S, documents.terms)
        indices, run = nearest(
            self.method,
            Q,
            R,
            max(self.ks),
            queries,
            term_similarity=S,
            embeddings=None if self.embeddings is None else self.embeddings[name],
            solver=self.solver,
            n_jobs=self.n_jobs,
            progress=self.progress,
            description=f"{self.method} {name} {queries}",
            cache=self.cache if wmd else None,
            batch_key=self._batch_key(name, queries, reference),
            store=self.store if wmd else None,
        )
        if wmd:
            sort = np.argsort(chosen, kind="stable")
            rows, indices = chosen[sort], indices[sort]
        reference_labels = documents.split(reference)[1]
        votes = knn_votes(reference_labels[indices], self.ks, n_labels=documents.n_labels)
        return dict(zip(self.ks, votes)), run, rows


def _validation_point(task: _Task, point: dict[str, Any]) -> dict[str, tuple[dict[int, float], Run]]:
    """Error rates per k on the validation split of every data set at one grid point (S' built once for all)."""
    S = task.matrices.build(point) if METHODS[task.method].measure == "sparse_scm" else None
    outcome = {}
    for name, documents in task.documents.items():
        votes, run, rows = task.run(name, point, "validation", "train", S)
        truth = documents.labels["validation"][rows]
        outcome[name] = ({k: int(np.sum(v != truth)) / len(truth) for k, v in votes.items()}, run)
    return outcome


@dataclass
class MethodResult:
    """One method on one data set: model selection, the test run, and their cost.

    Parameters
    ----------
    dataset, method : str
        Which.
    params : dict
        The chosen grid point and k.
    validation : pandas.DataFrame
        One row per (grid point, k).
    truth : numpy.ndarray
        Test labels of the answered queries.
    predictions : dict of int to numpy.ndarray
        Test predictions for every k.
    runs : list of Run
        Every validation grid run, then the test run.
    test_rows : numpy.ndarray or None
        The answered rows of the test split (None: all).

    Examples
    --------
    See :func:`regemb_utils.classification.experiment.classify`.
    """

    dataset: str
    method: str
    params: dict[str, Any]  # the chosen grid point and k
    validation: pd.DataFrame  # one row per (grid point, k): its parameters, errors, error
    truth: np.ndarray  # test labels of the answered queries
    predictions: dict[int, np.ndarray]  # test predictions for every k at the chosen grid point
    runs: list[Run] = field(default_factory=list)  # every validation grid run, then the test run
    test_rows: np.ndarray | None = None  # the answered rows of the test split (None: all of them)

    def rows(self) -> np.ndarray:
        return np.arange(len(self.truth)) if self.test_rows is None else self.test_rows

    @property
    def k(self) -> int:
        return int(self.params["k"])

    @property
    def test_errors(self) -> int:
        return int(np.sum(self.predictions[self.k] != self.truth))

    @property
    def test_error(self) -> float:
        return self.test_errors / len(self.truth)


def _store(method: str, settings: Settings):
    """The stored WMD results that ``settings`` use for ``method`` (None: none)."""
    if METHODS[method].measure != "wmd" or settings.wmd_store is None:
        return None
    return WmdStore(settings.wmd_store)


@computes("knn", version=3)  # 3: exact WMD on the reduced problem (merged locations, shared mass cancelled)
def _compute(
    method: str, documents: dict[str, Documents], settings: Settings, embeddings, matrices, limits, cache=None
):
    points = settings.points(method)
    cache = cache if METHODS[method].measure == "wmd" else None
    store = _store(method, settings)

    def task(n_jobs, progress):
        return _Task(
            method,
            documents,
            embeddings,
            matrices,
            settings.ks,
            settings.wmd_solver,
            n_jobs,
            progress,
            limits,
            cache,
            store,
        )

    if len(points) == 1:  # no grid: one run per data set (WMD parallel over query batches)
        outcomes = [_validation_point(task(settings.n_jobs, settings.progress), points[0])]
    else:
        outcomes = evaluate_grid_in_batches(
            partial(_validation_point, task(1, False)),
            points,
            n_jobs=settings.n_jobs,
            progress=settings.progress,
            description=f"{method} grid",
        )
    results = {}
    for name in documents:
        best = select_grid(points, [outcome[name][0] for outcome in outcomes])
        chosen, table, runs = best.best_params, pd.DataFrame(best.table), [outcome[name][1] for outcome in outcomes]
        point = {key: value for key, value in chosen.items() if key != "k"}
        S = matrices.build(point) if METHODS[method].measure == "sparse_scm" else None
        predictions, run, rows = task(settings.n_jobs, settings.progress).run(
            name, point, "test", settings.reference, S
        )
        all_rows = len(rows) == len(documents[name].labels["test"])
        results[name] = MethodResult(
            name,
            method,
            chosen,
            table,
            documents[name].labels["test"][rows],
            predictions,
            runs + [run],
            None if all_rows else rows,
        )
    return results
