"""Word Mover's Distance and exact WMD nearest neighbours (paper §3.1, §5.4; notes §6 "WMD", §11.7).

Definition used everywhere here:

* document weights: any non-negative row of a document matrix over the common dictionary, **L1-normalised** here
  (nBOW = L1-normalised counts, as the paper and Kusner et al. 2015; TF-IDF weights give Sato et al.'s variant);
* ground distance: the Euclidean distance between the **raw** embedding rows (no normalisation), from
  :func:`regemb_utils.similarity.embedding_matrix`;
* **words without an embedding** are zero vectors: they sit at the origin and take part in the transport (the
  paper's behaviour, notes §6/§11.7; Kusner et al. removed them). Words outside the dictionary never get here;
* a document with no weight (empty, or no dictionary word) is at distance **+inf** from every document, itself
  included (the paper's similarity 1/d is then 0); it is never passed to a solver;
* exact EMD with POT (``ot.emd`` + an exactly rounded Σ fᵢⱼcᵢⱼ, network simplex on the |x| × |y| supports) or pyemd (``pyemd.emd`` on the square
  matrix over the union of both supports, the paper's library); both give the same distances (to ~1e-12).

Nearest neighbours (:func:`wmd_knn`) are exact without solving every pair ("prefetch and prune", Kusner et al.
2015): for each query, the lower bound max(WCD, RWMD, ICT) of every candidate is computed (WCD and RWMD with matrix
operations, ICT – Atasu & Mittelholzer 2019, :func:`ict_bounds` – in numba), the candidates are visited in ascending
bound order (ties by training index), exact EMD is solved for each, and the search stops as soon as the k-th best
exact distance is *strictly* smaller than the next candidate's bound (less a relative 1e-9 safety margin against
rounding). Every skipped candidate therefore has a distance larger than the k-th neighbour's, so neighbours and
distances equal brute force, including the tie rule (distance ascending, then training index ascending – the rule
of :func:`regemb_utils.knn.top_k` on ``-distance``). All k ∈ {1, 3, …, 19} come from one top-19 search.

How much pruning can save depends on how concentrated the distances are. On BBCSPORT (paper setting: nBOW, raw
vectors, words without an embedding at the origin) the 19th neighbour lies at ≈ 0.79 × a query's median distance,
RWMD is only ≈ 0.63 × WMD and ICT ≈ 0.81 × WMD; even a bound of 0.95 × WMD everywhere would leave ≈ 38 solves per
query (≈ 11× fewer than brute force), and 20× would need a bound within 0.5 % of WMD for every candidate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from scipy import sparse
from scipy.spatial.distance import cdist

__all__ = [
    "SOLVERS",
    "wmd",
    "wmd_distances",
    "word_centroid_distances",
    "relaxed_wmd",
    "ict_bounds",
    "WMDNeighbours",
    "wmd_knn",
]

SOLVERS = ("pot", "pyemd")
_MARGIN = 1e-9  # relative safety margin on the lower bounds
_NUM_ITER_MAX = 10_000_000


# ----------------------------------------------------------------------------------------------------------------
# inputs


def _weights(matrix, name: str) -> sparse.csr_matrix:
    matrix = sparse.csr_matrix(matrix, dtype=np.float64, copy=True)  # never modify the caller's matrix
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    matrix.sort_indices()
    if matrix.nnz and (matrix.data.min() < 0 or not np.all(np.isfinite(matrix.data))):
        raise ValueError(f"{name} must have finite non-negative weights")
    sums = np.asarray(matrix.sum(axis=1)).ravel()
    with np.errstate(divide="ignore"):
        factors = np.where(sums > 0, 1.0 / sums, 0.0)
    matrix.data *= np.repeat(factors, np.diff(matrix.indptr))
    return matrix


def _check_solver(solver: str) -> None:
    if solver not in SOLVERS:
        raise ValueError(f"unknown EMD solver {solver!r}; expected one of {SOLVERS}")


def _prepare(Q, T, embeddings):
    """L1-normalised CSR weights and an embedding matrix restricted to the words that occur (ids remapped)."""
    Q, T = _weights(Q, "Q"), _weights(T, "T")
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if Q.shape[1] != T.shape[1] or embeddings.shape[0] != Q.shape[1]:
        raise ValueError("Q, T and the embedding matrix must all use the common dictionary")
    used = np.union1d(Q.indices, T.indices)
    remap = np.full(Q.shape[1], -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    Q = sparse.csr_matrix((Q.data, remap[Q.indices], Q.indptr), shape=(Q.shape[0], len(used)))
    T = sparse.csr_matrix((T.data, remap[T.indices], T.indptr), shape=(T.shape[0], len(used)))
    return Q, T, np.ascontiguousarray(embeddings[used])


def _row(matrix: sparse.csr_matrix, i: int):
    start, stop = matrix.indptr[i], matrix.indptr[i + 1]
    return matrix.indices[start:stop], matrix.data[start:stop]


# ----------------------------------------------------------------------------------------------------------------
# exact EMD


def _emd(x_weights, y_weights, cost, solver: str) -> float:
    if solver == "pot":
        import ot

        plan = ot.emd(x_weights, y_weights, cost, numItermax=_NUM_ITER_MAX)
        # Σ fᵢⱼcᵢⱼ summed exactly (math.fsum): the solver's own floating-point sum can differ in the last bit
        # between calls with equal inputs at different memory addresses, which would break exact equality
        # between the pruned and the brute-force search
        return math.fsum((plan * cost).ravel())
    raise AssertionError  # pragma: no cover


def _pyemd(x_ids, x_weights, y_ids, y_weights, embeddings) -> float:
    from pyemd import emd

    union = np.union1d(x_ids, y_ids)
    hx = np.zeros(len(union))
    hy = np.zeros(len(union))
    hx[np.searchsorted(union, x_ids)] = x_weights
    hy[np.searchsorted(union, y_ids)] = y_weights
    vectors = embeddings[union]
    return float(emd(hy, hx, np.ascontiguousarray(cdist(vectors, vectors))))  # (collection, query) as the paper


def wmd(x, y, embeddings, solver: str = "pot") -> float:
    """WMD between two single documents (1-row matrices or dense weight vectors over the dictionary)."""
    _check_solver(solver)
    X = _weights(sparse.csr_matrix(np.atleast_2d(x) if not sparse.issparse(x) else x), "x")
    Y = _weights(sparse.csr_matrix(np.atleast_2d(y) if not sparse.issparse(y) else y), "y")
    if X.shape[0] != 1 or Y.shape[0] != 1:
        raise ValueError("wmd compares two single documents; use wmd_distances for matrices")
    embeddings = np.asarray(embeddings, dtype=np.float64)
    (x_ids, x_w), (y_ids, y_w) = _row(X, 0), _row(Y, 0)
    if len(x_ids) == 0 or len(y_ids) == 0:
        return float("inf")
    if solver == "pyemd":
        return _pyemd(x_ids, x_w, y_ids, y_w, embeddings)
    cost = np.ascontiguousarray(cdist(embeddings[x_ids], embeddings[y_ids]))
    return _emd(x_w, y_w, cost, solver)


# ----------------------------------------------------------------------------------------------------------------
# lower bounds


def word_centroid_distances(Q, T, embeddings) -> np.ndarray:
    """WCD ‖Σ xᵢeᵢ − Σ yⱼeⱼ‖ for all pairs (a lower bound of WMD); +inf where a document is empty."""
    Q, T, E = _prepare(Q, T, embeddings)
    return _wcd(Q, T, E)


def _wcd(Q, T, E) -> np.ndarray:
    distances = cdist(np.asarray(Q @ E), np.asarray(T @ E))
    distances[np.diff(Q.indptr) == 0, :] = np.inf
    distances[:, np.diff(T.indptr) == 0] = np.inf
    return distances


class _Collection:
    """The training documents, prepared once: their word list and the per-document segments of ``T.indices``."""

    def __init__(self, T: sparse.csr_matrix, E: np.ndarray):
        self.T = T
        self.E = E
        self.words = np.unique(T.indices)
        self.position = np.searchsorted(self.words, T.indices)  # column of each non-zero in a query's D
        lengths = np.diff(T.indptr)
        self.nonempty = np.flatnonzero(lengths > 0)
        self.starts = T.indptr[:-1][self.nonempty]

    def query_distances(self, q_ids) -> np.ndarray:
        """Euclidean distances [|q|, |collection words|] of a query's words to every collection word."""
        return cdist(self.E[q_ids], self.E[self.words])

    def rwmd(self, q_weights, D) -> np.ndarray:
        """max of the two one-sided relaxations for one query against every training document (vectorised)."""
        result = np.full(self.T.shape[0], np.inf)
        if len(self.nonempty) == 0:
            return result
        per_nonzero = D[:, self.position]  # [|q|, nnz(T)]
        # query -> document: each query word moves to its nearest word of the document
        nearest_in_doc = np.minimum.reduceat(per_nonzero, self.starts, axis=1)  # [|q|, n_nonempty]
        query_side = q_weights @ nearest_in_doc
        # document -> query: each document word moves to its nearest query word
        nearest_in_query = per_nonzero.min(axis=0) * self.T.data
        doc_side = np.add.reduceat(nearest_in_query, self.starts)
        result[self.nonempty] = np.maximum(query_side, doc_side)
        return result


def relaxed_wmd(Q, T, embeddings) -> np.ndarray:
    """RWMD for all pairs: max of the two one-sided relaxations (a lower bound of WMD); +inf for empty documents."""
    return _all_pairs(Q, T, embeddings, lambda collection, q_w, D: collection.rwmd(q_w, D))


def _all_pairs(Q, T, embeddings, bound) -> np.ndarray:
    """``bound(collection, query weights, query-to-collection word distances)`` for every query; +inf if empty."""
    Q, T, E = _prepare(Q, T, embeddings)
    collection = _Collection(T, E)
    result = np.full((Q.shape[0], T.shape[0]), np.inf)
    for i in range(Q.shape[0]):
        q_ids, q_w = _row(Q, i)
        if len(q_ids):
            result[i] = bound(collection, q_w, collection.query_distances(q_ids))
    return result


@numba.njit(cache=True)
def _one_sided_ict(D, rows, row_weights, cols, col_weights, transpose):  # pragma: no cover - numba
    """min Σ fᵢⱼ cᵢⱼ s.t. Σⱼ fᵢⱼ = pᵢ and 0 ≤ fᵢⱼ ≤ qⱼ (every row's mass goes to its nearest columns, each column taking
    at most its own weight from every row): separable by row, solved greedily. cᵢⱼ = D[rows[i], cols[j]] (or
    D[cols[j], rows[i]] when ``transpose``)."""
    n_cols = len(cols)
    costs = np.empty(n_cols)
    used = np.zeros(n_cols, dtype=np.bool_)
    total = 0.0
    for i in range(len(rows)):
        for j in range(n_cols):
            costs[j] = D[cols[j], rows[i]] if transpose else D[rows[i], cols[j]]
            used[j] = False
        remaining = row_weights[i]
        while remaining > 0.0:
            best = -1
            for j in range(n_cols):
                if not used[j] and (best < 0 or costs[j] < costs[best]):
                    best = j
            if best < 0:
                break
            used[best] = True
            moved = min(remaining, col_weights[best])
            total += moved * costs[best]
            remaining -= moved
    return total


@numba.njit(cache=True)
def _ict_all(D, q_weights, t_indptr, position, t_data):  # pragma: no cover - numba
    """ICT lower bound (both directions, their max) of one query against every training document (+inf if empty)."""
    n = len(t_indptr) - 1
    result = np.full(n, np.inf)
    q_rows = np.arange(D.shape[0])
    for j in range(n):
        a, b = t_indptr[j], t_indptr[j + 1]
        if b == a or D.shape[0] == 0:
            continue
        cols = position[a:b]
        forward = _one_sided_ict(D, q_rows, q_weights, cols, t_data[a:b], False)
        backward = _one_sided_ict(D, cols, t_data[a:b], q_rows, q_weights, True)
        result[j] = max(forward, backward)
    return result


def _ict(collection: "_Collection", q_weights, D) -> np.ndarray:
    return _ict_all(
        np.ascontiguousarray(D), q_weights, collection.T.indptr.astype(np.int64), collection.position.astype(np.int64),
        collection.T.data,
    )


def ict_bounds(Q, T, embeddings) -> np.ndarray:
    """ICT ("iterative constrained transfers", Atasu & Mittelholzer 2019) for all pairs: a lower bound of WMD at
    least as tight as RWMD. One-sided: each word's mass moves to the other document's words in order of distance, a
    word taking at most its own weight from each word (the constraint RWMD drops); the bound is the max of both
    directions. +inf for empty documents."""
    return _all_pairs(Q, T, embeddings, _ict)


# ----------------------------------------------------------------------------------------------------------------
# exact distances and neighbours


def _exact(collection: _Collection, q_ids, q_w, D, j: int, solver: str) -> float:
    t_ids, t_w = _row(collection.T, j)
    if len(t_ids) == 0 or len(q_ids) == 0:
        return float("inf")
    if solver == "pyemd":
        return _pyemd(q_ids, q_w, t_ids, t_w, collection.E)
    start, stop = collection.T.indptr[j], collection.T.indptr[j + 1]
    cost = np.ascontiguousarray(D[:, collection.position[start:stop]])
    return _emd(q_w, t_w, cost, solver)


def _chunk(Q, collection: _Collection, rows, k, solver, prune, bound_kind="ict"):
    """Neighbours, distances and the number of EMD solves for the queries ``rows``."""
    n_train = collection.T.shape[0]
    wcd = _wcd(Q[rows], collection.T, collection.E) if prune else None
    neighbours = np.empty((len(rows), k), dtype=np.int64)
    distances = np.empty((len(rows), k))
    full = None if prune else np.empty((len(rows), n_train))
    solved = 0
    for r, i in enumerate(rows):
        q_ids, q_w = _row(Q, i)
        D = collection.query_distances(q_ids) if len(q_ids) else np.zeros((0, len(collection.words)))
        if prune:
            if len(q_ids):
                bound = np.maximum(wcd[r], collection.rwmd(q_w, D))
                if bound_kind == "ict":
                    bound = np.maximum(bound, _ict(collection, q_w, D))
            else:
                bound = np.full(n_train, np.inf)
            order = np.lexsort((np.arange(n_train), bound))
            with np.errstate(invalid="ignore"):
                safe = np.where(np.isfinite(bound), bound - _MARGIN * np.abs(bound) - 1e-12, bound)
        else:
            order = np.arange(n_train)
        best_d = np.full(k, np.inf)
        best_j = np.full(k, np.iinfo(np.int64).max)
        for j in order:
            if prune and safe[j] > best_d[-1]:
                break  # every remaining candidate is strictly farther than the k-th neighbour
            if len(q_ids) and collection.T.indptr[j + 1] > collection.T.indptr[j]:
                d = _exact(collection, q_ids, q_w, D, j, solver)
                solved += 1
            else:
                d = float("inf")
            if full is not None:
                full[r, j] = d
            # insert (d, j) if it ranks before the current k-th by (distance, index)
            if d < best_d[-1] or (d == best_d[-1] and j < best_j[-1]):
                position = k - 1
                while position > 0 and (
                    d < best_d[position - 1] or (d == best_d[position - 1] and j < best_j[position - 1])
                ):
                    best_d[position] = best_d[position - 1]
                    best_j[position] = best_j[position - 1]
                    position -= 1
                best_d[position] = d
                best_j[position] = j
        neighbours[r] = best_j
        distances[r] = best_d
    return neighbours, distances, solved, full


@dataclass(frozen=True)
class WMDNeighbours:
    indices: np.ndarray  # [n_queries, k] training indices, nearest first (ties: lower index first)
    distances: np.ndarray  # [n_queries, k] their exact WMDs
    n_solved: int  # exact EMD problems solved
    n_pairs: int  # n_queries × n_train

    @property
    def share_solved(self) -> float:
        return self.n_solved / self.n_pairs if self.n_pairs else 0.0


def _run(Q, T, embeddings, k, solver, prune, n_jobs, progress, chunk_size, bound_kind="ict"):
    import joblib
    from .progress import progress_bar

    _check_solver(solver)
    if bound_kind not in ("ict", "rwmd"):
        raise ValueError(f"unknown bound {bound_kind!r}; expected 'ict' or 'rwmd'")
    Q, T, E = _prepare(Q, T, embeddings)
    n_train = T.shape[0]
    if not 1 <= k <= n_train:
        raise ValueError(f"k must lie in [1, n_train = {n_train}], got {k}")
    collection = _Collection(T, E)
    chunks = [np.arange(start, min(start + chunk_size, Q.shape[0])) for start in range(0, Q.shape[0], chunk_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    results = parallel(joblib.delayed(_chunk)(Q, collection, rows, k, solver, prune, bound_kind) for rows in chunks)
    results = list(progress_bar(results, total=len(chunks), disable=not progress, desc="WMD queries", unit="chunk"))
    if not results:
        empty = np.empty((0, k))
        return WMDNeighbours(empty.astype(np.int64), empty, 0, 0), np.empty((0, n_train))
    indices = np.concatenate([r[0] for r in results])
    distances = np.concatenate([r[1] for r in results])
    solved = sum(r[2] for r in results)
    full = None if prune else np.concatenate([r[3] for r in results])
    return WMDNeighbours(indices, distances, solved, Q.shape[0] * n_train), full


def wmd_knn(
    Q,
    T,
    embeddings,
    k: int = 19,
    *,
    solver: str = "pot",
    prune: bool = True,
    n_jobs: int | None = 1,
    progress: bool = False,
    chunk_size: int = 8,
    bound: str = "ict",
) -> WMDNeighbours:
    """Exact k nearest training documents (by WMD) of every query, with prefetch-and-prune.

    ``Q`` [n_queries, n_terms] and ``T`` [n_train, n_terms] are document weight matrices (e.g. nBOW),
    ``embeddings`` the raw ``[n_terms, dim]`` matrix (zero rows for words without an embedding). ``prune=False``
    solves every pair (brute force). Queries are processed in chunks of ``chunk_size`` through
    ``joblib.Parallel(n_jobs)`` with a tqdm progress bar when ``progress``. ``n_solved`` counts EMD solves.
    ``bound``: ``"ict"`` (default) prunes with max(WCD, RWMD, ICT), ``"rwmd"`` with max(WCD, RWMD) only; the
    neighbours are the same, only the number of solves differs.
    """
    return _run(Q, T, embeddings, k, solver, prune, n_jobs, progress, chunk_size, bound)[0]


def wmd_distances(
    Q, T, embeddings, *, solver: str = "pot", n_jobs: int | None = 1, progress: bool = False, chunk_size: int = 8
) -> np.ndarray:
    """All exact WMDs [n_queries, n_train] (brute force; +inf involving an empty document)."""
    T_rows = sparse.csr_matrix(T).shape[0]
    if T_rows == 0:
        return np.empty((sparse.csr_matrix(Q).shape[0], 0))
    return _run(Q, T, embeddings, 1, solver, False, n_jobs, progress, chunk_size)[1]
