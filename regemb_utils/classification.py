"""Chapter 4's computations: kNN classification with every method on every data set (paper §5.4–§6; notes §6–§10).

For each data set and method:

1. **model selection** on the validation split: every grid point of the method (the dtb slope for the soft VSMs, the
   whole orthogonalization grid for the sparse SCM, nothing else for BoW, TF-IDF L1 and the WMDs) is evaluated with
   the training split as the reference set, for every k at once (one top-max(k) search); the row with the highest
   validation accuracy wins, ties going to the earliest grid point, then to the smallest k (notes §8,
   :func:`regemb_utils.selection.select_best`);
2. the **test run** at the chosen grid point, with the training split as the reference set (the paper's choice,
   notes §6) or, with ``reference="train+validation"``, the training and validation splits;
3. the result (:class:`MethodResult`: the validation table, the chosen parameters, the test predictions for every k,
   the timings and the documents with xᵀS'x ≤ 0) is stored in the artifact cache, one artifact per data set and
   method.

Grid points run through :func:`regemb_utils.selection.evaluate_grid` (joblib: every local core, or a dask cluster
under ``joblib.parallel_backend("dask")``); each grid point of the sparse SCM builds S' **once** and evaluates it on
every data set, because the matrices depend on the embedding and the common dictionary only (as in the paper's code).
The worker processes load the neighbour cache and the dictionary from the artifact cache themselves
(:class:`CachedMatrices`), so a task carries only its grid point and the documents. WMD queries run in batches
through joblib too.

Timing: every similarity computation runs on **one core** (BLAS and numba limited to one thread) and is timed
without building S' and without the document representation, so Σ pairs / Σ seconds is pairs per second per core
(the paper's Figure 10; it pooled the validation grid runs and the test runs of all data sets, and so do we).

All documents are represented over the words of the common dictionary that occur in the data set (columns
``Documents.terms``); restricting the dictionary to these words changes no similarity, distance or weight.
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import joblib
import numpy as np
import pandas as pd
from scipy import sparse

from .cache import ArtifactCache
from .knn import top_k
from .representations import DtbWeighting, bow_matrix, l1_normalize, tfidf_l1_matrix
from .selection import evaluate_grid, select_best
from .similarity import cosine_similarity, dense_scm, l1_distance, sparse_scm
from .statistics import agresti_coull, benjamini_hochberg, mcnemar_exact, paper_t_test
from .text import tokenize

__all__ = [
    "Method", "METHODS", "SPARSE_KEYS", "Settings", "Documents", "prepare_documents", "term_embeddings",
    "represent_pair", "query_rows", "method_inputs", "Run", "MethodResult", "InMemoryMatrices", "CachedMatrices",
    "nearest", "wmd_neighbours", "classify", "parallel_context", "error_table", "relative_error_table", "speed_table", "optimal_parameters",
    "significance_table", "nonpositive_table", "PAPER_TEST_ERRORS", "PAPER_RELATIVE_ERRORS", "PAPER_SPEEDS",
    "PAPER_TABLE_2", "chapter_documents", "run_chapter",
]


# ----------------------------------------------------------------------------------------------------------------
# methods


@dataclass(frozen=True)
class Method:
    label: str  # the name in the paper's figures
    weighting: str  # bow | nbow | dtb | tfidf_l1 (regemb_utils.representations)
    measure: str  # cosine | dense_scm | sparse_scm | l1 | wmd
    model: str | None = None  # "32-bit" or "1-bit" embeddings
    source: str = "paper"  # "paper" (its seven configurations) or "Sato et al. 2022"


# The paper's seven configurations in its plot order (notes §6), then the baselines of Sato et al. (2022).
METHODS: dict[str, Method] = {
    "bow": Method("BoW", "bow", "cosine"),
    "soft_vsm": Method("Soft VSM", "dtb", "dense_scm", "32-bit"),
    "wmd_quantized": Method("WMD (quant.)", "nbow", "wmd", "1-bit"),
    "soft_vsm_quantized": Method("Soft VSM (quan.)", "dtb", "dense_scm", "1-bit"),
    "wmd": Method("WMD", "nbow", "wmd", "32-bit"),
    "soft_vsm_quantized_ortho": Method("Soft VSM (quan., ortho.)", "dtb", "sparse_scm", "1-bit"),
    "soft_vsm_ortho": Method("Soft VSM (ortho.)", "dtb", "sparse_scm", "32-bit"),
    "tfidf_l1": Method("TF-IDF L1", "tfidf_l1", "l1", source="Sato et al. 2022"),
    "wmd_tfidf": Method("WMD (TF-IDF)", "tfidf_l1", "wmd", "32-bit", source="Sato et al. 2022"),
}

# The orthogonalization grid's keys in the paper's order (after the slope), notes §7-§8.
SPARSE_KEYS = ("symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent")


@dataclass(frozen=True)
class Settings:
    """What a run needs besides the documents: the grid, k, and the options (from the chapter's parameters)."""

    ks: tuple[int, ...] = tuple(range(1, 20, 2))
    slopes: tuple[float, ...] = (0.0,)
    sparse_grid: tuple[tuple[str, tuple], ...] = ()  # ((key, values), ...) in SPARSE_KEYS order
    rule: str = "paper"
    reference: str = "train"
    wmd_solver: str = "pot"
    wmd_queries: tuple[tuple[str, int | None], ...] = ()  # (data set, at most this many WMD queries per split)
    n_jobs: int = 1
    progress: bool = False

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], progress: bool = True) -> "Settings":
        grid = (("symmetric", params["symmetric"]), ("dominant", params["dominant"]), ("idf", params["idf"]),
                ("nonzero_limit", params["nonzero_limits"]), ("threshold", params["thresholds"]),
                ("exponent", params["exponents"]))
        return cls(ks=tuple(params["ks"]), slopes=tuple(params["slopes"]), sparse_grid=grid, rule=params["rule"],
                   reference=params["reference"], wmd_solver=params["wmd_solver"],
                   wmd_queries=tuple(params["wmd_queries"]), n_jobs=params["n_jobs"], progress=progress)

    def points(self, method: str) -> list[dict[str, Any]]:
        """The method's grid points in the paper's order: the slope first, then the orthogonalization keys."""
        m = METHODS[method]
        if m.weighting != "dtb":
            return [{}]
        grid = [("slope", self.slopes)]
        if m.measure == "sparse_scm":
            if not self.sparse_grid:
                raise ValueError("the sparse SCM needs Settings.sparse_grid")
            grid += list(self.sparse_grid)
        keys = [key for key, _ in grid]
        return [dict(zip(keys, values)) for values in itertools.product(*(values for _, values in grid))]

    def query_limit(self, method: str, dataset: str) -> int | None:
        """At most this many queries per split for ``method`` on ``dataset`` (None: all); only WMD is limited."""
        return dict(self.wmd_queries).get(dataset) if METHODS[method].measure == "wmd" else None

    def key(self, method: str) -> dict[str, Any]:
        """The settings that change the method's results (for the artifact key)."""
        m = METHODS[method]
        key: dict[str, Any] = {"ks": list(self.ks), "reference": self.reference}
        if m.weighting == "dtb":
            key["slopes"] = list(self.slopes)
        if m.measure == "sparse_scm":
            key["sparse_grid"] = [[name, list(values)] for name, values in self.sparse_grid]
            key["rule"] = self.rule
        if m.measure == "wmd":
            key["wmd_solver"] = self.wmd_solver
        return key


# ----------------------------------------------------------------------------------------------------------------
# documents


@dataclass
class Documents:
    """One data set's splits as term counts over the common-dictionary words that occur in it."""

    name: str
    class_names: tuple[str, ...]
    terms: np.ndarray  # common-dictionary ids of the columns
    counts: dict[str, sparse.csr_matrix]  # split -> raw counts
    labels: dict[str, np.ndarray]
    char_lengths: dict[str, np.ndarray]  # split -> Σ len(token) of every document (before dictionary filtering)

    def split(self, which: str) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
        """Counts, labels and character lengths of ``which``: a split name or ``"train+validation"``."""
        names = which.split("+")
        unknown = [name for name in names if name not in self.counts]
        if unknown:
            raise ValueError(f"unknown split {which!r}; allowed: train, validation, test, train+validation")
        return (sparse.csr_matrix(sparse.vstack([self.counts[n] for n in names], format="csr")),
                np.concatenate([self.labels[n] for n in names]),
                np.concatenate([self.char_lengths[n] for n in names]))

    @property
    def n_labels(self) -> int:
        return len(self.class_names)


def prepare_documents(dataset, dictionary, tokenizer: str = "paper") -> Documents:
    """Tokenize a :class:`regemb_utils.data.Dataset` and count its words over the common ``dictionary``."""
    tokens = {name: [tokenize(text, tokenizer) for text in split.texts] for name, split in dataset.splits.items()}
    counts = {name: bow_matrix(documents, dictionary) for name, documents in tokens.items()}
    terms = np.unique(np.concatenate([m.indices for m in counts.values()])).astype(np.int64)
    counts = {name: sparse.csr_matrix(m[:, terms]) for name, m in counts.items()}
    lengths = {name: np.array([sum(map(len, d)) for d in documents], dtype=np.float64)
               for name, documents in tokens.items()}
    labels = {name: np.asarray(split.labels, dtype=np.int64) for name, split in dataset.splits.items()}
    return Documents(dataset.name, tuple(dataset.class_names), terms, counts, labels, lengths)


def term_embeddings(vectors, dictionary, terms: np.ndarray) -> np.ndarray:
    """Raw embedding rows (float32) of the dictionary ids ``terms``; a word without an embedding gets a zero row."""
    matrix = np.zeros((len(terms), vectors.vector_size), dtype=np.float32)
    index = vectors.key_to_index
    for row, term in enumerate(terms):
        position = index.get(dictionary[int(term)])
        if position is not None:
            matrix[row] = vectors.vectors[position]
    return matrix


def represent_pair(method: str, documents: Documents, queries: str, reference: str, slope: float = 0.0):
    """Weighted query and reference matrices for ``method``; idf and avgdl come from the reference set."""
    weighting = METHODS[method].weighting
    q_counts, _, _ = documents.split(queries)
    r_counts, _, r_lengths = documents.split(reference)
    if weighting == "bow":
        return q_counts, r_counts
    if weighting == "nbow":
        return l1_normalize(q_counts), l1_normalize(r_counts)
    if weighting == "tfidf_l1":
        return tfidf_l1_matrix(q_counts, r_counts), tfidf_l1_matrix(r_counts, r_counts)
    if weighting == "dtb":
        dtb = DtbWeighting(r_counts, float(np.mean(r_lengths)) if np.mean(r_lengths) > 0 else 1.0)
        return dtb.transform(q_counts, slope), dtb.transform(r_counts, slope)
    raise ValueError(f"unknown weighting {weighting!r}")  # pragma: no cover


# ----------------------------------------------------------------------------------------------------------------
# the term similarity matrices S'


class InMemoryMatrices:
    """S' for a grid point from a :class:`regemb_utils.orthogonalization.MatrixGrid` held in memory (small cases)."""

    def __init__(self, grid):
        self.grid = grid

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid.build(**{key: point[key] for key in SPARSE_KEYS})


_LOADED: dict = {}  # per process: the last CachedMatrices' MatrixGrid


def _allow_kept_memory(limit: int = 16 * 2**30) -> None:
    """joblib's loky workers restart themselves when their memory grows by 300 MB (a leak check); a worker that keeps
    its S' source (≈ 2 GB for the paper's dictionary) on purpose would restart, and reload it, after every grid
    point. Raise the check's limit in this worker (loky reads it on every check)."""
    try:
        from joblib.externals.loky import process_executor
    except ImportError:  # pragma: no cover
        return
    process_executor._MAX_MEMORY_LEAK_SIZE = max(process_executor._MAX_MEMORY_LEAK_SIZE, limit)


@dataclass(frozen=True)
class CachedMatrices:
    """S' for a grid point, from the neighbour cache and the dictionary in the artifact cache.

    Pickles to a few strings; each process (a joblib or dask worker) loads the cache and prepares its builders once
    and keeps only the last source in memory. The neighbour cache must already exist (chapter 3 makes it; call
    :func:`regemb_utils.orthogonalization.neighbour_cache` in the main process first).
    """

    root: str
    corpus_articles: int | None
    tokenizer: str
    neighbour_key: tuple[tuple[str, Any], ...]
    k: int
    rule: str = "paper"

    def grid(self):
        from .orthogonalization import MatrixGrid, neighbour_cache
        from .preprocessing import corpus_dictionary

        if self not in _LOADED:
            _LOADED.clear()
            cache = ArtifactCache(self.root)
            dictionary = corpus_dictionary(self.corpus_articles, self.tokenizer, cache)
            neighbours, _ = neighbour_cache(None, dictionary, self.k, dict(self.neighbour_key), cache)
            _LOADED[self] = MatrixGrid(neighbours, dictionary, self.rule)
            _allow_kept_memory()
        return _LOADED[self]

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid().build(**{key: point[key] for key in SPARSE_KEYS})


# ----------------------------------------------------------------------------------------------------------------
# similarities and neighbours, on one core, timed


QUERY_SEED = 42


def query_rows(n: int, limit: int | None, seed: int = QUERY_SEED) -> np.ndarray:
    """The queries of a split that a limited method answers: all ``n``, or a seeded random ``limit`` of them
    (sorted). The same seed gives the same rows to every limited method, so their predictions stay paired."""
    if limit is None or limit >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).permutation(n)[:limit])


@dataclass(frozen=True)
class Run:
    """One similarity computation: its split, size and time, and what went wrong or was saved."""

    split: str  # "validation" or "test"
    pairs: int
    seconds: float
    nonpositive: int = 0  # documents (queries + reference) with xᵀS'x ≤ 0 (similarity 0 to all)
    negative: int = 0  # of those, xᵀS'x < 0
    solved: int | None = None  # WMD: exact EMD problems solved


@contextmanager
def _one_core():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def _wmd_batch(Q, R, embeddings, k, solver):
    from .wmd import wmd_knn

    _warm_up()
    start = time.perf_counter()
    with _one_core():
        result = wmd_knn(Q, R, embeddings, k, solver=solver, n_jobs=1)
    return result.indices, result.n_solved, time.perf_counter() - start


def wmd_neighbours(Q, R, embeddings, k: int, *, solver: str = "pot", n_jobs: int | None = 1, progress: bool = False,
                   batch_size: int | None = None, description: str = "WMD"):
    """Exact WMD k nearest neighbours, queries in batches through joblib; (indices, Σ seconds, EMD solves)."""
    Q = sparse.csr_matrix(Q)
    n = Q.shape[0]
    if batch_size is None:
        workers = joblib.effective_n_jobs(n_jobs)
        batch_size = int(min(64, max(1, math.ceil(n / (4 * workers)))))
    batches = [np.arange(start, min(start + batch_size, n)) for start in range(0, n, batch_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    outcomes = parallel(joblib.delayed(_wmd_batch)(Q[rows], R, embeddings, k, solver) for rows in batches)
    from tqdm.auto import tqdm

    outcomes = list(tqdm(outcomes, total=len(batches), disable=not progress, desc=description, unit="batch"))
    if not outcomes:
        return np.empty((0, k), dtype=np.int64), 0.0, 0
    return (np.concatenate([o[0] for o in outcomes]), float(sum(o[2] for o in outcomes)),
            int(sum(o[1] for o in outcomes)))


_WARM = []


def _warm_up() -> None:
    """Compile (or load) the numba kernels and import the EMD solvers once per process, outside the timings."""
    if _WARM:
        return
    from .wmd import wmd_knn

    X = sparse.csr_matrix(np.array([[1.0, 0.0], [0.5, 0.5]]))
    sparse_scm(X, X, sparse.identity(2, format="csc"), n_threads=1)
    for solver in ("pot", "pyemd"):
        wmd_knn(X, X, np.eye(2), 1, solver=solver, n_jobs=1)
    _WARM.append(True)


def nearest(method: str, Q, R, k: int, split: str, *, embeddings=None, term_similarity=None, solver: str = "pot",
            n_jobs: int | None = 1, progress: bool = False, description: str = "") -> tuple[np.ndarray, Run]:
    """Indices [n_queries, k] of the k most similar reference documents (ties: lower index) and the timed run."""
    measure = METHODS[method].measure
    _warm_up()
    pairs = Q.shape[0] * R.shape[0]
    if not 1 <= k <= R.shape[0]:
        raise ValueError(f"k = {k} needs at least {k} reference documents, there are {R.shape[0]}")
    if measure == "wmd":
        indices, seconds, solved = wmd_neighbours(Q, R, embeddings, k, solver=solver, n_jobs=n_jobs,
                                                  progress=progress, description=description or f"{method} {split}")
        return indices, Run(split, pairs, seconds, solved=solved)
    nonpositive = negative = 0
    with _one_core():
        start = time.perf_counter()
        if measure == "cosine":
            similarities = cosine_similarity(Q, R)
        elif measure == "l1":
            similarities = -l1_distance(Q, R, n_threads=1)
        elif measure == "dense_scm":
            similarities = dense_scm(Q, R, embeddings)
        elif measure == "sparse_scm":
            similarities, info = sparse_scm(Q, R, term_similarity, n_threads=1, return_info=True)
            nonpositive, negative = info.n_nonpositive, info.x_negative + info.y_negative
        else:  # pragma: no cover
            raise ValueError(f"unknown measure {measure!r}")
        seconds = time.perf_counter() - start
    return top_k(similarities, k), Run(split, pairs, seconds, nonpositive, negative)


# ----------------------------------------------------------------------------------------------------------------
# one method on several data sets


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
    query_limits: dict[str, int | None] = field(default_factory=dict)  # data set -> at most this many queries

    def run(self, name: str, point: Mapping[str, Any], queries: str, reference: str, S=None):
        """kNN votes for every k, the timed run, and the rows of the query split that were answered."""
        documents = self.documents[name]
        Q, R = represent_pair(self.method, documents, queries, reference, point.get("slope", 0.0))
        rows = query_rows(Q.shape[0], self.query_limits.get(name))
        if len(rows) < Q.shape[0]:  # a subsample (WMD); no copy of the whole split at every grid point
            Q = Q[rows]
        if S is not None:
            S = sparse.csc_matrix(S[:, documents.terms])[documents.terms, :]
        indices, run = nearest(self.method, Q, R, max(self.ks), queries, term_similarity=S,
                               embeddings=None if self.embeddings is None else self.embeddings[name],
                               solver=self.solver, n_jobs=self.n_jobs, progress=self.progress,
                               description=f"{self.method} {name} {queries}")
        reference_labels = documents.split(reference)[1]
        votes = _votes(reference_labels[indices], self.ks, documents.n_labels)
        return votes, run, rows


def _votes(neighbour_labels, ks, n_labels) -> dict[int, np.ndarray]:
    from .knn import knn_votes

    return dict(zip(ks, knn_votes(neighbour_labels, ks, n_labels=n_labels)))


def _validation_point(task: _Task, point: dict[str, Any]) -> dict[str, tuple[dict[int, int], int, Run]]:
    """Errors per k on the validation split of every data set at one grid point (S' built once for all)."""
    S = task.matrices.build(point) if METHODS[task.method].measure == "sparse_scm" else None
    outcome = {}
    for name, documents in task.documents.items():
        votes, run, rows = task.run(name, point, "validation", "train", S)
        truth = documents.labels["validation"][rows]
        outcome[name] = ({k: int(np.sum(v != truth)) for k, v in votes.items()}, len(truth), run)
    return outcome


@dataclass
class MethodResult:
    """One method on one data set: model selection, the test run, and their cost."""

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


def _select(points, outcomes, name) -> tuple[dict[str, Any], pd.DataFrame, list[Run]]:
    rows, runs = [], []
    for point, outcome in zip(points, outcomes):
        errors, n, run = outcome[name]
        rows += [{**point, "k": k, "errors": e, "error": e / n} for k, e in sorted(errors.items())]
        runs.append(run)
    best = select_best(rows)
    chosen = {key: value for key, value in best.best_params.items() if key != "errors"}
    return chosen, pd.DataFrame(best.table), runs


def _compute(method: str, documents: dict[str, Documents], settings: Settings, embeddings, matrices):
    points = settings.points(method)
    limits = {name: settings.query_limit(method, name) for name in documents}
    task = _Task(method, documents, embeddings, matrices, settings.ks, settings.wmd_solver, 1, False, limits)
    if len(points) == 1:  # no grid: one run per data set (WMD parallel over query batches)
        inner = _Task(method, documents, embeddings, matrices, settings.ks, settings.wmd_solver, settings.n_jobs,
                      settings.progress, limits)
        outcomes = [_validation_point(inner, points[0])]
    else:
        outcomes = evaluate_grid(partial(_validation_point, task), points, n_jobs=settings.n_jobs,
                                 progress=settings.progress, description=f"{method} grid")
    results = {}
    for name in documents:
        chosen, table, runs = _select(points, outcomes, name)
        point = {key: value for key, value in chosen.items() if key != "k"}
        test_task = _Task(method, documents, embeddings, matrices, settings.ks, settings.wmd_solver, settings.n_jobs,
                          settings.progress, limits)
        S = matrices.build(point) if METHODS[method].measure == "sparse_scm" else None
        predictions, run, rows = test_task.run(name, point, "test", settings.reference, S)
        all_rows = len(rows) == len(documents[name].labels["test"])
        results[name] = MethodResult(name, method, chosen, table, documents[name].labels["test"][rows], predictions,
                                     runs + [run], None if all_rows else rows)
    return results


def classify(method: str, documents: dict[str, Documents], settings: Settings, *, key: Mapping[str, Any],
             embeddings: dict[str, np.ndarray] | None = None, matrices=None,
             cache: ArtifactCache | None = None) -> dict[str, MethodResult]:
    """``method`` on every data set of ``documents``: from the artifact cache, or computed (jointly) and stored.

    ``key`` identifies the documents and embeddings (e.g. max_documents, corpus, tokenizer, the embedding's
    settings); ``embeddings`` maps each data set to :func:`term_embeddings` rows (dense SCM and WMD); ``matrices``
    builds S' for a grid point (sparse SCM: :class:`CachedMatrices` or :class:`InMemoryMatrices`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(METHODS)}")
    m = METHODS[method]
    if m.measure in ("dense_scm", "wmd") and embeddings is None:
        raise ValueError(f"method {method!r} needs embeddings")
    if m.measure == "sparse_scm" and matrices is None:
        raise ValueError(f"method {method!r} needs matrices")
    cache = cache or ArtifactCache()
    keys = {name: dict(key, dataset=name, method=method, **settings.key(method)) for name in documents}
    for name in documents:
        if settings.query_limit(method, name) is not None:
            keys[name]["query_limit"] = settings.query_limit(method, name)
    missing = {name: documents[name] for name in documents if not cache.has("knn", keys[name])}
    computed = _compute(method, missing, settings, embeddings, matrices) if missing else {}

    def never():
        raise RuntimeError("artifact vanished")  # pragma: no cover

    return {name: cache.get("knn", keys[name], (lambda n=name: computed[n]) if name in computed else never)
            for name in documents}


@contextmanager
def parallel_context(scheduler: str = "local", n_jobs: int = 1):
    """Where joblib runs the grid points and WMD batches: ``local`` (joblib's processes), ``dask-local`` (a dask
    ``LocalCluster`` with ``n_jobs`` single-threaded workers) or a ``tcp://`` address of a dask scheduler."""
    if scheduler == "local":
        with nullcontext():
            yield
        return
    from dask.distributed import Client, LocalCluster

    if scheduler == "dask-local":
        workers = joblib.effective_n_jobs(n_jobs)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster), joblib.parallel_backend("dask"):
            yield
        return
    if not scheduler.startswith("tcp://"):
        raise ValueError(f"unknown scheduler {scheduler!r}; allowed: local, dask-local, tcp://host:port")
    with Client(scheduler), joblib.parallel_backend("dask"):
        yield


# ----------------------------------------------------------------------------------------------------------------
# the paper's numbers (notes §10)

_DATASET_ORDER = ("bbcsport", "twitter", "ohsumed", "reuters", "amazon", "20news")

# Figure 8, test error (%): exact values where the notes have them (captions, Feb-2019 pickles), else bar labels.
PAPER_TEST_ERRORS: dict[str, dict[str, float]] = {
    method: dict(zip(_DATASET_ORDER, values)) for method, values in {
        "bow": (23, 32, 54.73, 8.8, 29.29, 58.66),
        "soft_vsm": (21.82, 31.22, 50.71, 10.19, 10.04, 42.53),
        "wmd_quantized": (11, 33, 49, 5.9, 14, 44),
        "soft_vsm_quantized": (22.27, 31.12, 44.40, 9.4, 8.96, 39.53),
        "wmd": (9.1, 31, 50, 5.5, 11, 40),
        "soft_vsm_quantized_ortho": (2.27, 31.01, 24.14, 7.22, 6.33, 29.97),
        "soft_vsm_ortho": (2.3, 31, 24, 7.4, 6.6, 30),
    }.items()
}
# Figure 9: mean test error relative to BoW (%), read from the figure.
PAPER_RELATIVE_ERRORS = {"bow": 100.0, "soft_vsm": 80.66, "wmd_quantized": 76.02, "soft_vsm_quantized": 75.42,
                         "wmd": 70.18, "soft_vsm_quantized_ortho": 48.90, "soft_vsm_ortho": 48.86}
# Figure 10: document pairs per second per core (one Intel Xeon X7560 core), read from the figure.
PAPER_SPEEDS = {"bow": 3_434_600, "soft_vsm": 1_462_366, "wmd_quantized": 0.89, "soft_vsm_quantized": 811_964,
                "wmd": 0.472, "soft_vsm_quantized_ortho": 386_825, "soft_vsm_ortho": 536_641}
# Table 2: optimal parameters of Soft VSM (ortho.), 32-bit.
PAPER_TABLE_2 = pd.DataFrame(
    [("bbcsport", True, True, True, 100, -1.0, 2.0, 0.0, 1), ("twitter", True, False, True, 400, -1.0, 2.0, 0.0, 13),
     ("ohsumed", False, True, True, 200, -1.0, 4.0, 0.0, 11), ("reuters", True, True, True, 100, -1.0, 4.0, 0.0, 19),
     ("amazon", True, True, True, 100, -1.0, 4.0, 0.0, 17), ("20news", False, False, True, 100, -1.0, 3.0, 0.0, 1)],
    columns=["dataset", "symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent", "slope", "k"],
).set_index("dataset")


# ----------------------------------------------------------------------------------------------------------------
# result tables


def _ordered(results: Mapping[tuple[str, str], MethodResult]):
    datasets = [d for d in _DATASET_ORDER if any(r.dataset == d for r in results.values())]
    datasets += sorted({r.dataset for r in results.values()} - set(datasets))
    methods = [m for m in METHODS if any(r.method == m for r in results.values())]
    return [(d, m) for d in datasets for m in methods if (d, m) in results]


def error_table(results: Mapping[tuple[str, str], MethodResult], confidence: float = 0.95) -> pd.DataFrame:
    """Figure 8: test error (%) with its Agresti–Coull interval for every (data set, method), the paper's beside."""
    rows = []
    for dataset, method in _ordered(results):
        r = results[dataset, method]
        _, lower, upper = agresti_coull(r.test_errors, len(r.truth), confidence)
        rows.append({"dataset": dataset, "method": method, "label": METHODS[method].label, "k": r.k,
                     "test documents": len(r.truth), "errors": r.test_errors, "error": 100 * r.test_error,
                     "lower": 100 * lower, "upper": 100 * upper,
                     "paper": PAPER_TEST_ERRORS.get(method, {}).get(dataset, np.nan)})
    return pd.DataFrame(rows)


def relative_error_table(errors: pd.DataFrame) -> pd.DataFrame:
    """Figure 9: mean test error over the data sets relative to BoW's (a ratio of means, %), the paper's beside.

    Only the data sets on which BoW and every listed method ran are averaged."""
    wide = errors.pivot(index="dataset", columns="method", values="error")
    if "bow" not in wide:
        raise ValueError("the relative error needs the BoW baseline")
    wide = wide.dropna()
    methods = [m for m in METHODS if m in wide]
    ours = 100 * wide[methods].mean() / wide["bow"].mean()
    return pd.DataFrame({"method": methods, "label": [METHODS[m].label for m in methods],
                         "relative error": ours.values,
                         "paper": [PAPER_RELATIVE_ERRORS.get(m, np.nan) for m in methods],
                         "data sets": len(wide)})


def speed_table(results: Mapping[tuple[str, str], MethodResult]) -> pd.DataFrame:
    """Figure 10: Σ pairs / Σ seconds (one core) over every validation and test run of every data set."""
    rows = []
    for method in [m for m in METHODS if any(k[1] == m for k in results)]:
        runs = [run for (d, m), r in results.items() if m == method for run in r.runs]
        pairs, seconds = sum(run.pairs for run in runs), sum(run.seconds for run in runs)
        solved = [run.solved for run in runs if run.solved is not None]
        rows.append({"method": method, "label": METHODS[method].label, "runs": len(runs), "pairs": pairs,
                     "seconds": seconds, "pairs per second per core": pairs / seconds if seconds > 0 else np.nan,
                     "share of pairs solved exactly": sum(solved) / pairs if solved and pairs else np.nan,
                     "paper": PAPER_SPEEDS.get(method, np.nan)})
    return pd.DataFrame(rows)


def optimal_parameters(results: Mapping[tuple[str, str], MethodResult],
                       methods: Sequence[str] = ("soft_vsm_ortho", "soft_vsm_quantized_ortho")) -> pd.DataFrame:
    """Table 2: the chosen parameters of the sparse SCMs per data set; the paper's (32-bit) in the rows "paper"."""
    columns = list(PAPER_TABLE_2.columns)
    rows = []
    for dataset, method in _ordered(results):
        if method in methods:
            rows.append({"dataset": dataset, "source": METHODS[method].label,
                         **{c: results[dataset, method].params.get(c) for c in columns}})
            if method == "soft_vsm_ortho" and dataset in PAPER_TABLE_2.index:
                rows.append({"dataset": dataset, "source": "paper: Soft VSM (ortho.)",
                             **PAPER_TABLE_2.loc[dataset].to_dict()})
    return pd.DataFrame(rows, columns=["dataset", "source", *columns])


def significance_table(results: Mapping[tuple[str, str], MethodResult], test: str = "mcnemar",
                       alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of methods on every data set: p-value, BH q-value over all the tests, and the verdict.

    Each pair is compared on the test queries both answered (the WMD methods may answer a subsample).
    ``test="mcnemar"``: the exact McNemar test on the paired test predictions (two-sided), significant when
    q < α. ``test="paper_t_test"``: the paper's "t-test" (:func:`regemb_utils.statistics.paper_t_test`) with the
    more accurate method first (its p-value is one-sided; we assume the paper's order put the better method first,
    since otherwise half its tests could not have come out significant), significant when q < α/2 as in the paper.
    """
    if test not in ("mcnemar", "paper_t_test"):
        raise ValueError(f"unknown test {test!r}; allowed: mcnemar, paper_t_test")
    order = _ordered(results)
    rows = []
    for dataset in dict.fromkeys(d for d, _ in order):
        methods = [m for d, m in order if d == dataset]
        for a, b in itertools.combinations(methods, 2):
            ra, rb = results[dataset, a], results[dataset, b]
            common = np.intersect1d(ra.rows(), rb.rows())  # paired: the test queries both methods answered
            at, bt = np.searchsorted(ra.rows(), common), np.searchsorted(rb.rows(), common)
            pa, pb, truth = ra.predictions[ra.k][at], rb.predictions[rb.k][bt], ra.truth[at]
            error_a, error_b = float(np.mean(pa != truth)), float(np.mean(pb != truth))
            row = {"dataset": dataset, "a": METHODS[a].label, "b": METHODS[b].label, "queries": len(common),
                   "error a": 100 * error_a, "error b": 100 * error_b}
            if test == "mcnemar":
                outcome = mcnemar_exact(pa, pb, truth)
                row.update({"only a right": outcome.only_a_correct, "only b right": outcome.only_b_correct,
                            "p": outcome.pvalue})
            else:
                n = len(common)
                accuracies = sorted([1 - error_a, 1 - error_b], reverse=True)
                row.update({"p": paper_t_test(accuracies[0], n, accuracies[1], n, alpha).pvalue})
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["q"] = benjamini_hochberg(table["p"].to_numpy())
    table["significant"] = table["q"] < (alpha if test == "mcnemar" else alpha / 2)
    return table


def nonpositive_table(results: Mapping[tuple[str, str], MethodResult]) -> pd.DataFrame:
    """Documents with xᵀS'x ≤ 0 (similarity 0 to every document) summed over each sparse SCM's runs."""
    rows = []
    for dataset, method in _ordered(results):
        if METHODS[method].measure != "sparse_scm":
            continue
        runs = results[dataset, method].runs
        rows.append({"dataset": dataset, "method": METHODS[method].label, "runs": len(runs),
                     "documents with xᵀS'x ≤ 0": sum(r.nonpositive for r in runs),
                     "of which xᵀS'x < 0": sum(r.negative for r in runs),
                     "in the test run": runs[-1].nonpositive})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------------------------
# the whole chapter


def chapter_documents(params, cache: ArtifactCache | None = None):
    """The common dictionary (chapter 1) and every chosen data set, cut to ``max_documents`` and counted over it."""
    from .data import load_dataset
    from .params import chapter_parameters
    from .preprocessing import corpus_dictionary, head

    preprocessing = chapter_parameters("01_preprocessing", params["profile"])
    dictionary = corpus_dictionary(preprocessing.corpus_articles, preprocessing.tokenizer, cache)
    documents = {name: prepare_documents(head(load_dataset(name), params["max_documents"]), dictionary,
                                         preprocessing.tokenizer) for name in params["datasets"]}
    return dictionary, documents


def method_inputs(method: str, params, dictionary, documents, models, cache: ArtifactCache | None = None):
    """(embeddings per data set, S' builder) that ``method`` needs: raw embedding rows for the dense SCM and the WMD,
    :class:`CachedMatrices` over chapter 3's neighbour cache (computed here if missing) for the sparse SCM."""
    from .orthogonalization import neighbour_cache
    from .params import chapter_parameters
    from .termsim import is_binary

    cache = cache or ArtifactCache()
    m = METHODS[method]
    vectors = models[m.model][0] if m.model else None
    embeddings = matrices = None
    if m.measure in ("dense_scm", "wmd"):
        embeddings = {name: term_embeddings(vectors, dictionary, d.terms) for name, d in documents.items()}
    if m.measure == "sparse_scm":
        preprocessing = chapter_parameters("01_preprocessing", params["profile"])
        k = max(params["nonzero_limits"])
        neighbour_key = dict(models[m.model][1], corpus_articles=preprocessing.corpus_articles,
                             dictionary_tokenizer=preprocessing.tokenizer, bit_operations=is_binary(vectors.vectors))
        neighbour_cache(vectors, dictionary, k, neighbour_key, cache, load=False)  # chapter 3's, or computed now
        matrices = CachedMatrices(str(cache.root.resolve()), preprocessing.corpus_articles, preprocessing.tokenizer,
                                  tuple(sorted(neighbour_key.items())), k, params["rule"])
    return embeddings, matrices


def run_chapter(params, *, cache: ArtifactCache | None = None, progress: bool = True):
    """Every method of ``params`` (chapter 4's parameters) on every data set: ``{(dataset, method): MethodResult}``.

    The dictionary and the embeddings are chapter 1's and chapter 2's (from the artifact cache), the neighbour caches
    chapter 3's (computed here if missing). Methods run one after the other; inside each, the grid points (or WMD
    batches) run in parallel where ``params.scheduler`` says.
    """
    from .embeddings import profile_embeddings
    from .params import chapter_parameters

    cache = cache or ArtifactCache()
    preprocessing = chapter_parameters("01_preprocessing", params["profile"])
    dictionary, documents = chapter_documents(params, cache)
    models = profile_embeddings(params["profile"], cache)
    settings = Settings.from_parameters(params, progress=progress)
    base = {"max_documents": params["max_documents"], "corpus_articles": preprocessing.corpus_articles,
            "tokenizer": preprocessing.tokenizer}
    results: dict[tuple[str, str], MethodResult] = {}
    with parallel_context(params["scheduler"], params["n_jobs"]):
        for method in params["methods"]:
            model_key = models[METHODS[method].model][1] if METHODS[method].model else None
            embeddings, matrices = method_inputs(method, params, dictionary, documents, models, cache)
            key = dict(base, embeddings=model_key)
            for name, result in classify(method, documents, settings, key=key, embeddings=embeddings,
                                         matrices=matrices, cache=cache).items():
                results[name, method] = result
    return results
