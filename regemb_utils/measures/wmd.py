"""Word Mover's Distance and exact WMD nearest neighbours (paper §3.1, §5.4; notes §6 "WMD", §11.7).

Definition used everywhere here:

* document weights: any non-negative row of a document matrix over the common dictionary, **L1-normalised** here
  (nBOW = L1-normalised counts, as the paper and Kusner et al. 2015; TF-IDF weights give Sato et al.'s variant);
* ground distance: the Euclidean distance between the **raw** embedding rows (no normalisation), from
  :func:`regemb_utils.measures.similarity.embedding_matrix`;
* **words without an embedding** are zero vectors: they sit at the origin and take part in the transport (the
  paper's behaviour, notes §6/§11.7; Kusner et al. removed them). Words outside the dictionary never get here;
* a document with no weight (empty, or no dictionary word) is at distance **+inf** from every document, itself
  included (the paper's similarity 1/d is then 0); it is never passed to a solver;
* words at identical coordinates (all the words without an embedding, at the origin) are **one location** with the
  sum of their weights – exact, as moving mass between them costs 0 (:func:`_prepare`);
* exact EMD with POT (``ot.emd``, network simplex, + an exactly rounded Σ fᵢⱼcᵢⱼ over the plan's non-zeros) on the
  **reduced** problem: the mass both documents hold at a location, min(xᵢ, yᵢ), is cancelled first (exact for a
  metric ground distance: by Kantorovich–Rubinstein duality the EMD depends only on x − y; identical documents are at
  0), leaving two disjoint supports; or pyemd (``pyemd.emd`` on the square matrix over the union of both supports,
  the paper's library). Both give the same distances (to ~1e-12); every function here uses the same exact solve, so
  the searches and brute force agree bit for bit.

Nearest neighbours (:func:`wmd_knn`) are exact without solving every pair ("prefetch and prune", Kusner et al.
2015). For each query, the distances Dᵀ from every collection location to the query's locations are computed once
(each document's cost matrix is gathered from its rows), then the lower bound max(WCD, ICT) of every candidate (WCD
with matrix operations; ICT – Atasu & Mittelholzer 2019, :func:`ict_bounds` – in numba; ICT ≥ RWMD on both sides).
The candidates are visited in ascending bound order (ties by training index) and the search stops as soon as the
k-th best exact distance is *strictly* smaller than the next candidate's bound less a safety margin against rounding
(relative 1e-9, absolute 1e-12). With ``bound="dual"`` (the default), a visited candidate is not solved at once:
blocks of up to 64 candidates (those the bound does not rule out) first get an **entropic dual bound**
(:func:`dual_bounds`): on the reduced problem, Sinkhorn iterations at ε = 0.1 × the current k-th distance, with a
kernel stabilised by the feasible pair (row minima, their c-transform); after each iteration the potentials
(f = f0 + ε log u) are made feasible by two exact float64 c-transforms (gⱼ = minᵢ cᵢⱼ − fᵢ, fᵢ = minⱼ cᵢⱼ − gⱼ), and
Σ aᵢfᵢ + Σ bⱼgⱼ, less a generous bound on its rounding error, is ≤ the EMD by weak duality, whatever the iterations
did. A candidate whose bound (less the same margins) exceeds the k-th distance is strictly farther than the k-th
neighbour and skipped ("certified"); the others (at most 10 iterations) are solved exactly. ``bound="ict"`` solves
every visited candidate (today's behaviour before the dual bound); ``"rwmd"`` orders by max(WCD, RWMD).
Every skipped candidate has a distance larger than the k-th neighbour's, so neighbours and distances equal brute force,
including the tie rule (distance ascending, then training index ascending – the rule of
:func:`regemb_utils.classification.knn.top_k` on ``-distance``). All k ∈ {1, 3, …, 19} come from one top-19 search.

How much pruning can save depends on how concentrated the distances are. On BBCSPORT (paper setting: nBOW, raw
vectors, words without an embedding at the origin) the 19th neighbour lies at ≈ 0.79 × a query's median distance,
RWMD is only ≈ 0.63 × WMD and ICT ≈ 0.81 × WMD; even a bound of 0.95 × WMD everywhere would leave ≈ 38 solves per
query (≈ 11× fewer than brute force). On 20NEWS the bounds are weaker still: ICT pruning solved ≈ 54 % of the
pairs (≈ 6,100 of 11,293 per test query). The entropic bound is much tighter (≈ 0.94–0.97 × WMD after 10 iterations
at ε = 0.1 × the k-th distance) and cheap (one Gibbs kernel and a few matrix–vector products per pair, against a
network simplex of ≈ 100 × 140 nodes), so it certifies almost every candidate the ICT leaves: ≈ 40 exact solves
per 20NEWS query remain (the 19 neighbours and those within a few per cent of the k-th distance). The time then
goes to the ICT of every candidate, the dual bounds and Dᵀ. Measured with ``benchmarks/bench_wmd.py --dataset 20news``
(3 test queries against 11,293 documents, 200-d embeddings trained 3 epochs on the vendored Wikipedia corpus, one
core, CPU seconds on a shared, busy machine): the module before the dual bound (ICT pruning, unreduced problems)
13.5 s per query with 6,138 solves; ``bound="ict"`` 6.0 s (6,009 solves); ``bound="dual"`` 1.35 s (37 solves, 5,972
certified), 10× faster than before; brute force 9.9 s; the same neighbours and distances throughout.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from scipy import sparse
from scipy.spatial.distance import cdist
from ..study.progress import progress_bar

__all__ = [
    "SOLVERS",
    "BOUNDS",
    "wmd",
    "WmdFlows",
    "wmd_flows",
    "wmd_distances",
    "word_centroid_distances",
    "relaxed_wmd",
    "ict_bounds",
    "dual_bounds",
    "WMDNeighbours",
    "wmd_knn",
]

SOLVERS = ("pot", "pyemd")
BOUNDS = ("dual", "ict", "rwmd")
_MARGIN = 1e-9  # relative safety margin on the lower bounds
_ABSOLUTE_MARGIN = 1e-12  # and an absolute one
_NUM_ITER_MAX = 10_000_000
_ULP = 2.0**-52


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


def _locations(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(location of every row, coordinates of every location): rows with identical coordinates – all the words without
    an embedding, at the origin – share one location. Rows are sorted by a fixed random projection and neighbours
    compared exactly, so two rows share a location only if they are equal."""
    n = len(points)
    if n == 0 or points.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), np.zeros((min(n, 1), points.shape[1]))
    key = points @ np.random.default_rng(0).standard_normal(points.shape[1])
    order = np.argsort(key, kind="stable")
    ordered = points[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (key[order][1:] != key[order][:-1]) | np.any(ordered[1:] != ordered[:-1], axis=1)
    location = np.empty(n, dtype=np.int64)
    location[order] = np.cumsum(new) - 1
    return location, np.ascontiguousarray(ordered[new])


def _merge(matrix: sparse.csr_matrix, remap: np.ndarray, n: int) -> sparse.csr_matrix:
    merged = sparse.csr_matrix((matrix.data.copy(), remap[matrix.indices], matrix.indptr.copy()),
                               shape=(matrix.shape[0], n))
    merged.sum_duplicates()  # adds the weights of words at one location and sorts the indices
    return merged


def _prepare(Q, T, embeddings):
    """L1-normalised CSR weights over the *locations* of the words that occur, and the locations' coordinates.

    Words at identical coordinates (the words without an embedding all sit at the origin) become one location
    carrying the sum of their weights. This is exact for the EMD: moving mass between two words at one point costs 0,
    so any transport plan of the merged problem splits into one of the original problem with the same cost and
    vice versa. WCD and RWMD do not change; ICT can only get tighter (and stays a lower bound of the same EMD).
    """
    Q, T = _weights(Q, "Q"), _weights(T, "T")
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 2 or Q.shape[1] != T.shape[1] or embeddings.shape[0] != Q.shape[1]:
        raise ValueError("Q, T and the embedding matrix must all use the common dictionary")
    used = np.union1d(Q.indices, T.indices)
    points = embeddings[used]
    if not np.all(np.isfinite(points)):
        raise ValueError("the embeddings of the words that occur must be finite")
    location, points = _locations(points)
    remap = np.full(Q.shape[1], -1, dtype=np.int64)
    remap[used] = location
    return _merge(Q, remap, len(points)), _merge(T, remap, len(points)), points


def _row(matrix: sparse.csr_matrix, i: int):
    start, stop = matrix.indptr[i], matrix.indptr[i + 1]
    return matrix.indices[start:stop], matrix.data[start:stop]


class _Collection:
    """The training documents, prepared once: their locations and the per-document segments of ``T.indices``."""

    def __init__(self, T: sparse.csr_matrix, E: np.ndarray):
        self.T = T
        self.E = E
        self.words = np.unique(T.indices)
        self.position = np.searchsorted(self.words, T.indices).astype(np.int64)  # row of each non-zero in Dᵀ
        self.indptr = T.indptr.astype(np.int64)
        self.indices = T.indices.astype(np.int64)

    def query_distances(self, q_ids) -> np.ndarray:
        """Dᵀ: Euclidean distances [|collection locations|, |q|] of every collection location to a query's locations
        (one contiguous row per collection location, so a document's cost matrix is gathered from whole rows)."""
        return np.ascontiguousarray(cdist(self.E[self.words], self.E[q_ids]))


# ----------------------------------------------------------------------------------------------------------------
# exact EMD


@numba.njit(cache=True)
def _reduce(q_nodes, q_w, t_nodes, t_w):  # pragma: no cover - numba
    """Cancel the mass two documents share: min(xᵢ, yᵢ) at every common location is removed from both sides; returns
    (query positions, remaining weights, document positions, remaining weights), zeros dropped.

    Exact for a metric (or pseudo-metric) ground distance: by Kantorovich–Rubinstein duality the EMD depends only on
    x − y, which the cancellation keeps. Both sides keep the same total mass (up to rounding; POT rescales)."""
    a = q_w.copy()
    b = t_w.copy()
    i = 0
    j = 0
    while i < len(a) and j < len(b):
        if q_nodes[i] == t_nodes[j]:
            shared = min(a[i], b[j])
            a[i] -= shared
            b[j] -= shared
            i += 1
            j += 1
        elif q_nodes[i] < t_nodes[j]:
            i += 1
        else:
            j += 1
    rows = np.flatnonzero(a > 0.0)
    cols = np.flatnonzero(b > 0.0)
    return rows, a[rows], cols, b[cols]


@numba.njit(cache=True)
def _pair_costs(Dt, position, rows, cols):  # pragma: no cover - numba
    """C[i, j] = Dᵀ[position[cols[j]], rows[i]]: the cost matrix of one (reduced) pair, gathered from rows of Dᵀ."""
    C = np.empty((len(rows), len(cols)))
    for j in range(len(cols)):
        distances = Dt[position[cols[j]]]
        for i in range(len(rows)):
            C[i, j] = distances[rows[i]]
    return C


def _emd(x_weights, y_weights, cost) -> float:
    import ot

    plan = ot.emd(x_weights, y_weights, cost, numItermax=_NUM_ITER_MAX)
    # Σ fᵢⱼcᵢⱼ over the plan's non-zeros, summed exactly (math.fsum, so independent of order): the solver's own
    # floating-point sum can differ in the last bit between calls with equal inputs at different memory addresses,
    # which would break exact equality between the pruned and the brute-force search
    flows = plan.nonzero()
    return math.fsum(plan[flows] * cost[flows])


def _pyemd(x_ids, x_weights, y_ids, y_weights, embeddings) -> float:
    from pyemd import emd

    union = np.union1d(x_ids, y_ids)
    hx = np.zeros(len(union))
    hy = np.zeros(len(union))
    hx[np.searchsorted(union, x_ids)] = x_weights
    hy[np.searchsorted(union, y_ids)] = y_weights
    vectors = embeddings[union]
    return float(emd(hy, hx, np.ascontiguousarray(cdist(vectors, vectors))))  # (collection, query) as the paper


def _exact(collection: _Collection, q_ids, q_w, Dt, j: int, solver: str) -> float:
    """The WMD of a query and training document ``j``: +inf if either is empty, else the EMD (POT on the reduced
    problem, 0 when nothing is left to move, or pyemd on the union of both supports)."""
    t_ids, t_w = _row(collection.T, j)
    if len(t_ids) == 0 or len(q_ids) == 0:
        return float("inf")
    if solver == "pyemd":
        return _pyemd(q_ids, q_w, t_ids, t_w, collection.E)
    rows, a, cols, b = _reduce(q_ids, q_w, collection.indices[collection.indptr[j]:collection.indptr[j + 1]], t_w)
    if len(rows) == 0 or len(cols) == 0:
        return 0.0  # identical documents (or a remainder of rounding size on one side only)
    start = collection.indptr[j]
    return _emd(a, b, _pair_costs(Dt, collection.position[start:start + len(t_ids)], rows, cols))


def wmd(x, y, embeddings, solver: str = "pot") -> float:
    """WMD between two single documents (1-row matrices or dense weight vectors over the dictionary).

    Parameters
    ----------
    x, y : scipy.sparse matrix or array_like
        Non-negative weights of the two documents (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.
    solver : {"pot", "pyemd"}
        The exact EMD solver.

    Returns
    -------
    float
        The Word Mover's Distance.

    Examples
    --------
    >>> import numpy as np
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> wmd(np.array([1.0, 0.0]), np.array([0.0, 2.0]), E)
    5.0
    """
    _check_solver(solver)
    X = sparse.csr_matrix(np.atleast_2d(x) if not sparse.issparse(x) else x)
    Y = sparse.csr_matrix(np.atleast_2d(y) if not sparse.issparse(y) else y)
    if X.shape[0] != 1 or Y.shape[0] != 1:
        raise ValueError("wmd compares two single documents; use wmd_distances for matrices")
    return float(wmd_distances(X, Y, embeddings, solver=solver)[0, 0])


@dataclass(frozen=True)
class WmdFlows:
    """The optimal transport plan of one WMD, over the words of the two documents.

    ``flows[i, j]`` is the mass that word ``x_terms[i]`` of the first document sends to word ``y_terms[j]`` of the
    second (rows sum to the first document's nBOW weights, columns to the second's), ``distances[i, j]`` the
    Euclidean distance between their raw embeddings; ``total`` = Σ fᵢⱼcᵢⱼ is the WMD."""

    x_terms: np.ndarray  # column ids of the first document's words (weight > 0), ascending
    y_terms: np.ndarray
    x_weights: np.ndarray  # their L1-normalised weights
    y_weights: np.ndarray
    flows: np.ndarray  # [len(x_terms), len(y_terms)]
    distances: np.ndarray  # [len(x_terms), len(y_terms)]

    @property
    def total(self) -> float:
        used = self.flows.nonzero()
        return math.fsum(self.flows[used] * self.distances[used])


def wmd_flows(x, y, embeddings) -> WmdFlows:
    """The WMD of two single documents with its transport plan: which word sends how much mass to which word.

    Same definition as :func:`wmd` (weights L1-normalised, Euclidean distances between the raw rows of
    ``embeddings``, words without an embedding at the origin), solved by POT's ``ot.emd`` on the full problem over
    both supports (not the reduced one of :func:`wmd`, so that the plan shows every word's mass, also the mass a
    word shared by both documents keeps in place); ``total`` equals :func:`wmd` up to rounding. A document without
    any weight has no plan: ``ValueError``.

    Parameters
    ----------
    x, y : scipy.sparse matrix or array_like
        Non-negative weights of the two documents (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.

    Returns
    -------
    WmdFlows
        The terms, weights, the optimal flows and the distances between the terms.

    Examples
    --------
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> flows = wmd_flows(np.array([1.0, 0.0]), np.array([0.0, 2.0]), E)
    >>> flows.flows, flows.distances
    (array([[1.]]), array([[5.]]))
    """
    import ot

    X = sparse.csr_matrix(np.atleast_2d(x) if not sparse.issparse(x) else x)
    Y = sparse.csr_matrix(np.atleast_2d(y) if not sparse.issparse(y) else y)
    if X.shape[0] != 1 or Y.shape[0] != 1:
        raise ValueError("wmd_flows compares two single documents")
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 2 or X.shape[1] != Y.shape[1] or embeddings.shape[0] != X.shape[1]:
        raise ValueError(f"x has {X.shape[1]} columns, y {Y.shape[1]} and the embedding matrix "
                         f"{embeddings.shape[0] if embeddings.ndim == 2 else embeddings.shape} rows: all must use "
                         "the common dictionary")
    X, Y = _weights(X, "x"), _weights(Y, "y")
    for name, matrix in (("x", X), ("y", Y)):
        if matrix.nnz == 0:
            raise ValueError(f"{name} has no word with a weight (no word of the document is in the dictionary): "
                             "its WMD to any document is +inf and there is no transport plan")
    (x_terms, x_weights), (y_terms, y_weights) = _row(X, 0), _row(Y, 0)
    points_x, points_y = embeddings[x_terms], embeddings[y_terms]
    if not (np.all(np.isfinite(points_x)) and np.all(np.isfinite(points_y))):
        raise ValueError("the embeddings of the words that occur must be finite")
    distances = np.ascontiguousarray(cdist(points_x, points_y))
    flows = ot.emd(x_weights, y_weights, distances, numItermax=_NUM_ITER_MAX)
    return WmdFlows(x_terms.copy(), y_terms.copy(), x_weights.copy(), y_weights.copy(), np.asarray(flows), distances)


# ----------------------------------------------------------------------------------------------------------------
# lower bounds


def word_centroid_distances(Q, T, embeddings) -> np.ndarray:
    """WCD ‖Σ xᵢeᵢ − Σ yⱼeⱼ‖ for all pairs (a lower bound of WMD); +inf where a document is empty.

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Non-negative document weights (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.

    Returns
    -------
    numpy.ndarray
        ``[n_Q, n_T]`` distances.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> word_centroid_distances(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [0.5, 0.5]]), E)
    array([[5. , 2.5]])
    """
    Q, T, E = _prepare(Q, T, embeddings)
    return _wcd(Q, T, E)


def _wcd(Q, T, E) -> np.ndarray:
    distances = cdist(np.asarray(Q @ E), np.asarray(T @ E))
    distances[np.diff(Q.indptr) == 0, :] = np.inf
    distances[:, np.diff(T.indptr) == 0] = np.inf
    return distances


@numba.njit(cache=True)
def _transfer(C, row_weights, col_weights, forward, capped):  # pragma: no cover - numba
    """min Σ fᵢⱼ cᵢⱼ s.t. Σⱼ fᵢⱼ = pᵢ, fᵢⱼ ≥ 0 and, when ``capped``, fᵢⱼ ≤ qⱼ (each column taking at most its own
    weight from every row): separable by row and solved greedily (every row's mass goes to its nearest columns), which
    is exact for this relaxation. cᵢⱼ = C[i, j] when ``forward``, else C[j, i]. Uncapped, it is one side of RWMD."""
    n_cols = len(col_weights)
    costs = np.empty(n_cols)
    used = np.zeros(n_cols, dtype=np.bool_)
    total = 0.0
    for i in range(len(row_weights)):
        for j in range(n_cols):
            costs[j] = C[i, j] if forward else C[j, i]
        if not capped:
            total += row_weights[i] * costs.min()
            continue
        used[:] = False
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
def _relaxed_all(Dt, q_w, indptr, position, data, capped):  # pragma: no cover - numba
    """max of both one-sided relaxations (RWMD, or ICT when ``capped``) of one query against every training document
    (+inf if either is empty); each document's cost matrix is gathered once from rows of Dᵀ."""
    n = len(indptr) - 1
    n_q = Dt.shape[1]
    result = np.full(n, np.inf)
    if n_q == 0:
        return result
    q_rows = np.arange(n_q)
    for j in range(n):
        start, stop = indptr[j], indptr[j + 1]
        if stop == start:
            continue
        C = _pair_costs(Dt, position[start:stop], q_rows, np.arange(stop - start))
        t_w = data[start:stop]
        result[j] = max(_transfer(C, q_w, t_w, True, capped), _transfer(C, t_w, q_w, False, capped))
    return result


def _relaxed(collection: _Collection, q_w, Dt, capped: bool) -> np.ndarray:
    return _relaxed_all(Dt, q_w, collection.indptr, collection.position, collection.T.data, capped)


def _all_pairs(Q, T, embeddings, bound) -> np.ndarray:
    """``bound(collection, query locations, query weights, Dᵀ)`` for every query; +inf where a document is empty."""
    Q, T, E = _prepare(Q, T, embeddings)
    collection = _Collection(T, E)
    result = np.full((Q.shape[0], T.shape[0]), np.inf)
    for i in range(Q.shape[0]):
        q_ids, q_w = _row(Q, i)
        if len(q_ids):
            result[i] = bound(collection, q_ids, q_w, collection.query_distances(q_ids))
    return result


def relaxed_wmd(Q, T, embeddings) -> np.ndarray:
    """RWMD for all pairs: max of the two one-sided relaxations (a lower bound of WMD); +inf for empty documents.

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Non-negative document weights (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.

    Returns
    -------
    numpy.ndarray
        ``[n_Q, n_T]`` lower bounds.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> relaxed_wmd(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [0.5, 0.5]]), E)
    array([[5. , 2.5]])
    """
    return _all_pairs(Q, T, embeddings, lambda collection, q_ids, q_w, Dt: _relaxed(collection, q_w, Dt, False))


def ict_bounds(Q, T, embeddings) -> np.ndarray:
    """ICT ("iterative constrained transfers", Atasu & Mittelholzer 2019) for all pairs: a lower bound of WMD at
    least as tight as RWMD. One-sided: each word's mass moves to the other document's words in order of distance, a
    word taking at most its own weight from each word (the constraint RWMD drops); the bound is the max of both
    directions. +inf for empty documents.

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Non-negative document weights (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.

    Returns
    -------
    numpy.ndarray
        ``[n_Q, n_T]`` lower bounds of the WMD.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> ict_bounds(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [0.5, 0.5]]), E)
    array([[5. , 2.5]])
    """
    return _all_pairs(Q, T, embeddings, lambda collection, q_ids, q_w, Dt: _relaxed(collection, q_w, Dt, True))


@numba.njit(cache=True)
def _certified_value(C, a, b, f0, u, eps):  # pragma: no cover - numba
    """Σ aᵢfᵢ + Σ bⱼgⱼ for the dual-feasible pair made from the Sinkhorn potentials f0 + ε log u by two exact
    c-transforms (gⱼ = minᵢ cᵢⱼ − fᵢ, then fᵢ = minⱼ cᵢⱼ − gⱼ), less a bound on its rounding error; −inf if a scaling
    over- or underflowed. Weak duality makes it a lower bound of the EMD whatever the potentials were."""
    n, m = C.shape
    f = np.empty(n)
    g = np.empty(m)
    for i in range(n):
        if not (u[i] > 0.0 and u[i] < np.inf):
            return -np.inf
        f[i] = f0[i] + eps * math.log(u[i])
    for j in range(m):
        best = np.inf
        for i in range(n):
            best = min(best, C[i, j] - f[i])
        g[j] = best
    largest_cost = 0.0
    for i in range(n):
        best = np.inf
        for j in range(m):
            best = min(best, C[i, j] - g[j])
            largest_cost = max(largest_cost, C[i, j])
        f[i] = best
    value = 0.0
    scale = 0.0
    mass_a = 0.0
    mass_b = 0.0
    largest_g = 0.0
    for i in range(n):
        value += a[i] * f[i]
        scale += a[i] * abs(f[i])
        mass_a += a[i]
    for j in range(m):
        value += b[j] * g[j]
        scale += b[j] * abs(g[j])
        mass_b += b[j]
        largest_g = max(largest_g, abs(g[j]))
    # rounding: each c-transform entry is one subtraction (fᵢ + gⱼ ≤ cᵢⱼ + ulp·(|cᵢⱼ| + |gⱼ|)), the sum has n + m
    # terms, and POT rescales b to a's total mass (|Σa − Σb| · max|gⱼ|); all generously over-estimated
    error = (n + m + 4) * _ULP * (scale + max(mass_a, mass_b) * (largest_cost + largest_g))
    error += abs(mass_a - mass_b) * largest_g
    return value - error


@numba.njit(cache=True)
def _stabilised_kernel(C, f0, g0, eps):  # pragma: no cover - numba
    """exp((f0ᵢ + g0ⱼ − cᵢⱼ)/ε): the Gibbs kernel, stabilised by a feasible pair (f0, g0)."""
    n, m = C.shape
    K = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            K[i, j] = math.exp((f0[i] + g0[j] - C[i, j]) / eps)
    return K


@numba.njit(cache=True)
def _sinkhorn_iteration(K, a, b, u, v, column):  # pragma: no cover - numba
    """One Sinkhorn iteration in place: u = a / Kv, then v = b / Kᵀu."""
    n, m = K.shape
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += K[i, j] * v[j]
        u[i] = a[i] / s
    column[:] = 0.0
    for i in range(n):
        for j in range(m):
            column[j] += K[i, j] * u[i]
    for j in range(m):
        v[j] = b[j] / column[j]


@numba.njit(cache=True)
def _entropic_bound(C, a, b, eps, target, max_iter):  # pragma: no cover - numba
    """A certified lower bound of the EMD between a and b (equal masses, costs C): the best of 0 and the certified
    values after each of at most ``max_iter`` Sinkhorn iterations at regularisation ``eps``; stops once it exceeds
    ``target``. The kernel is stabilised by the feasible pair (row minima, their c-transform), so every entry is
    ≤ 1 and every row and column holds a 1; only the scalings u, v are iterated."""
    n, m = C.shape
    f0 = np.empty(n)
    g0 = np.empty(m)
    for i in range(n):
        f0[i] = C[i].min()
    for j in range(m):
        best = np.inf
        for i in range(n):
            best = min(best, C[i, j] - f0[i])
        g0[j] = best
    K = _stabilised_kernel(C, f0, g0, eps)
    u = np.ones(n)
    v = np.ones(m)
    column = np.empty(m)
    best_value = 0.0  # costs are non-negative
    for _ in range(max_iter):
        _sinkhorn_iteration(K, a, b, u, v, column)
        value = _certified_value(C, a, b, f0, u, eps)
        if value == -np.inf:
            break  # a scaling over- or underflowed (ε far too small for these costs): the exact solve decides
        best_value = max(best_value, value)
        if best_value > target:
            break
    return best_value


@numba.njit(cache=True)
def _dual_block(Dt, q_nodes, q_w, indptr, nodes, position, data, candidates, eps, target,
                max_iter):  # pragma: no cover - numba
    """:func:`_entropic_bound` of one query against the training documents ``candidates`` (non-empty), each on its
    reduced problem (shared mass cancelled, as the exact solve); 0 for identical documents."""
    result = np.empty(len(candidates))
    for c in range(len(candidates)):
        start, stop = indptr[candidates[c]], indptr[candidates[c] + 1]
        rows, a, cols, b = _reduce(q_nodes, q_w, nodes[start:stop], data[start:stop])
        if len(rows) == 0 or len(cols) == 0:
            result[c] = 0.0
            continue
        C = _pair_costs(Dt, position[start:stop], rows, cols)
        result[c] = _entropic_bound(C, a, b, eps, target, max_iter)
    return result


def _dual(collection: _Collection, q_ids, q_w, Dt, candidates, eps, target, max_iter) -> np.ndarray:
    return _dual_block(Dt, q_ids.astype(np.int64), q_w, collection.indptr, collection.indices, collection.position,
                       collection.T.data, np.asarray(candidates, dtype=np.int64), float(eps), float(target),
                       int(max_iter))


def dual_bounds(Q, T, embeddings, *, epsilon: float, iterations: int = 20) -> np.ndarray:
    """Entropic dual lower bounds of WMD for all pairs: ``iterations`` Sinkhorn iterations at regularisation
    ``epsilon`` (in units of the ground distance), then exact c-transforms give a dual-feasible pair (f, g),
    fᵢ + gⱼ ≤ cᵢⱼ, whose value Σ aᵢfᵢ + Σ bⱼgⱼ is ≤ the EMD by weak duality (less a bound on its rounding error);
    the best value after any iteration. +inf for empty documents, 0 for identical ones.

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Non-negative document weights (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.
    epsilon : float
        The entropic regularisation.
    iterations : int
        Sinkhorn iterations at most.

    Returns
    -------
    numpy.ndarray
        ``[n_Q, n_T]`` certified lower bounds of the WMD.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> bounds = dual_bounds(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [0.5, 0.5]]), E, epsilon=0.1)
    >>> bool((bounds <= np.array([[5.0, 2.5]]) + 1e-9).all())
    True
    """
    if not epsilon > 0 or not math.isfinite(epsilon):
        raise ValueError(f"epsilon must be a positive number, got {epsilon}")
    if iterations < 1:
        raise ValueError(f"iterations must be positive, got {iterations}")

    def bound(collection, q_ids, q_w, Dt):
        result = np.full(collection.T.shape[0], np.inf)
        nonempty = np.flatnonzero(np.diff(collection.indptr) > 0)
        result[nonempty] = _dual(collection, q_ids, q_w, Dt, nonempty, epsilon, np.inf, iterations)
        return result

    return _all_pairs(Q, T, embeddings, bound)


def _safe(bound):
    """A lower bound less the safety margins (relative and absolute) against rounding."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(bound), bound - _MARGIN * np.abs(bound) - _ABSOLUTE_MARGIN, bound)


# ----------------------------------------------------------------------------------------------------------------
# exact distances and neighbours


@dataclass(frozen=True)
class _Search:
    k: int
    solver: str
    prune: bool
    bound: str
    epsilon: float
    max_iterations: int
    block: int


class _Best:
    """The k best (distance, training index) pairs so far, ordered by distance, then index."""

    def __init__(self, k: int):
        self.distances = np.full(k, np.inf)
        self.indices = np.full(k, np.iinfo(np.int64).max)

    @property
    def kth(self) -> float:
        return self.distances[-1]

    def add(self, d: float, j: int) -> None:
        best_d, best_j = self.distances, self.indices
        if d < best_d[-1] or (d == best_d[-1] and j < best_j[-1]):
            position = len(best_d) - 1
            while position > 0 and (
                d < best_d[position - 1] or (d == best_d[position - 1] and j < best_j[position - 1])
            ):
                best_d[position] = best_d[position - 1]
                best_j[position] = best_j[position - 1]
                position -= 1
            best_d[position] = d
            best_j[position] = j


def _query(collection: _Collection, q_ids, q_w, wcd_row, search: _Search, full_row):
    """Neighbours of one query: (best, exact solves, candidates certified by the entropic bound)."""
    n_train = collection.T.shape[0]
    Dt = collection.query_distances(q_ids) if len(q_ids) else np.zeros((len(collection.words), 0))
    best = _Best(search.k)
    solved = certified = 0

    def exact(j):
        nonlocal solved
        if len(q_ids) and collection.indptr[j + 1] > collection.indptr[j]:
            solved += 1
            return _exact(collection, q_ids, q_w, Dt, j, search.solver)
        return float("inf")

    if not search.prune:
        for j in range(n_train):
            full_row[j] = d = exact(j)
            best.add(d, j)
        return best, solved, certified
    if len(q_ids):
        bound = np.maximum(wcd_row, _relaxed(collection, q_w, Dt, capped=search.bound != "rwmd"))
    else:
        bound = np.full(n_train, np.inf)
    order = np.lexsort((np.arange(n_train), bound))
    safe = _safe(bound)
    position = 0
    while position < n_train:
        kth = best.kth
        if safe[order[position]] > kth:
            break  # every remaining candidate is strictly farther than the k-th neighbour
        if search.bound == "dual" and 0 < kth < np.inf:
            # the next candidates whose bound does not rule them out: entropic bounds first, exact EMD for the rest
            stop = position + 1
            while stop < min(position + search.block, n_train) and safe[order[stop]] <= kth:
                stop += 1
            block = order[position:stop]
            target = (kth + _ABSOLUTE_MARGIN) / (1 - _MARGIN)  # a value whose _safe exceeds kth
            lower = _safe(_dual(collection, q_ids, q_w, Dt, block, search.epsilon * kth, target,
                                search.max_iterations))
            for j, lb in zip(block, lower):
                if lb > best.kth:
                    certified += 1  # strictly farther than the k-th neighbour
                else:
                    best.add(exact(j), j)
            position = stop
        else:
            j = order[position]
            best.add(exact(j), j)
            position += 1
    return best, solved, certified


def _chunk(Q, collection: _Collection, rows, search: _Search):
    """Neighbours, distances, solves and certified candidates per query, and all distances (brute force), for the
    queries ``rows``."""
    n_train = collection.T.shape[0]
    wcd = _wcd(Q[rows], collection.T, collection.E) if search.prune else None
    neighbours = np.empty((len(rows), search.k), dtype=np.int64)
    distances = np.empty((len(rows), search.k))
    solved = np.zeros(len(rows), dtype=np.int64)
    certified = np.zeros(len(rows), dtype=np.int64)
    full = None if search.prune else np.empty((len(rows), n_train))
    for r, i in enumerate(rows):
        q_ids, q_w = _row(Q, i)
        best, solved[r], certified[r] = _query(collection, q_ids, q_w, None if wcd is None else wcd[r], search,
                                               None if full is None else full[r])
        neighbours[r] = best.indices
        distances[r] = best.distances
    return neighbours, distances, solved, certified, full


@dataclass(frozen=True)
class WMDNeighbours:
    """The exact WMD neighbours of every query and the work their search did (:func:`wmd_knn`).

    Parameters
    ----------
    indices : numpy.ndarray
        ``[n_queries, k]`` training indices, nearest first (ties: lower index first).
    distances : numpy.ndarray
        ``[n_queries, k]`` their exact WMDs.
    solved : numpy.ndarray
        ``[n_queries]`` exact EMD problems solved per query.
    certified : numpy.ndarray
        ``[n_queries]`` candidates ruled out by the entropic dual bound per query (``bound="dual"``).
    n_train : int
        Training documents.

    Examples
    --------
    See :func:`wmd_knn`.
    """

    indices: np.ndarray  # [n_queries, k] training indices, nearest first (ties: lower index first)
    distances: np.ndarray  # [n_queries, k] their exact WMDs
    solved: np.ndarray  # [n_queries] exact EMD problems solved per query
    certified: np.ndarray  # [n_queries] candidates ruled out by the entropic dual bound per query (bound="dual")
    n_train: int

    @property
    def n_solved(self) -> int:
        return int(self.solved.sum())

    @property
    def n_certified(self) -> int:
        return int(self.certified.sum())

    @property
    def n_pairs(self) -> int:  # n_queries × n_train
        return len(self.solved) * self.n_train

    @property
    def share_solved(self) -> float:
        return self.n_solved / self.n_pairs if self.n_pairs else 0.0

    @property
    def share_certified(self) -> float:
        return self.n_certified / self.n_pairs if self.n_pairs else 0.0


def _run(Q, T, embeddings, search: _Search, n_jobs, progress, chunk_size):
    import joblib

    _check_solver(search.solver)
    if search.bound not in BOUNDS:
        raise ValueError(f"unknown bound {search.bound!r}; expected one of {BOUNDS}")
    if not (search.epsilon > 0 and math.isfinite(search.epsilon)) or search.max_iterations < 1 or search.block < 1:
        raise ValueError("epsilon must be a positive number, max_iterations and the block size positive integers")
    Q, T, E = _prepare(Q, T, embeddings)
    n_train = T.shape[0]
    if not 1 <= search.k <= n_train:
        raise ValueError(f"k must lie in [1, n_train = {n_train}], got {search.k}")
    collection = _Collection(T, E)
    chunks = [np.arange(start, min(start + chunk_size, Q.shape[0])) for start in range(0, Q.shape[0], chunk_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    results = parallel(joblib.delayed(_chunk)(Q, collection, rows, search) for rows in chunks)
    results = list(progress_bar(results, total=len(chunks), disable=not progress, desc="WMD queries", unit="chunk"))
    if not results:
        empty = np.empty((0, search.k))
        none = np.zeros(0, dtype=np.int64)
        return WMDNeighbours(empty.astype(np.int64), empty, none, none, n_train), np.empty((0, n_train))
    neighbours = WMDNeighbours(*(np.concatenate([r[column] for r in results]) for column in range(4)), n_train)
    full = None if search.prune else np.concatenate([r[4] for r in results])
    return neighbours, full


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
    bound: str = "dual",
    epsilon: float = 0.1,
    max_iterations: int = 10,
    block: int = 64,
) -> WMDNeighbours:
    """Exact k nearest training documents (by WMD) of every query, with prefetch-and-prune.

    ``Q`` [n_queries, n_terms] and ``T`` [n_train, n_terms] are document weight matrices (e.g. nBOW),
    ``embeddings`` the raw ``[n_terms, dim]`` matrix (zero rows for words without an embedding). ``prune=False``
    solves every pair (brute force). Queries are processed in chunks of ``chunk_size`` through
    ``joblib.Parallel(n_jobs)`` with a tqdm progress bar when ``progress``.

    ``bound``: ``"dual"`` (default) visits the candidates in ascending max(WCD, ICT) and rules out those whose
    entropic dual bound (at most ``max_iterations`` Sinkhorn iterations at regularisation ``epsilon`` × the current
    k-th distance, ``block`` candidates per call) already exceeds the k-th distance before solving the rest exactly;
    ``"ict"`` solves every candidate that max(WCD, ICT) does not rule out, ``"rwmd"`` prunes with max(WCD, RWMD)
    only. The neighbours and distances are the same; the result records per query the exact EMD solves (``solved``)
    and the candidates ruled out by the dual bound (``certified``).

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Queries and training documents (non-negative weights over the columns of ``embeddings``).
    embeddings : numpy.ndarray
        Raw word vectors, one row per column.
    k : int
        Neighbours per query.
    solver, prune, n_jobs, progress, chunk_size, bound, epsilon, max_iterations, block
        As described above.

    Returns
    -------
    WMDNeighbours
        ``indices`` and ``distances`` ``[n_queries, k]``, nearest first, and the work done.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    >>> T = sparse.csr_matrix(np.eye(3))
    >>> wmd_knn(sparse.csr_matrix([[0.0, 1.0, 0.0]]), T, E, k=2).indices.tolist()
    [[1, 0]]
    """
    search = _Search(k, solver, prune, bound, epsilon, max_iterations, block)
    return _run(Q, T, embeddings, search, n_jobs, progress, chunk_size)[0]


def wmd_distances(
    Q, T, embeddings, *, solver: str = "pot", n_jobs: int | None = 1, progress: bool = False, chunk_size: int = 8
) -> np.ndarray:
    """All exact WMDs [n_queries, n_train] (brute force; +inf involving an empty document).

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Non-negative document weights (L1-normalised here).
    embeddings : numpy.ndarray
        One row per column.
    solver : {"pot", "pyemd"}
        The exact EMD solver.
    n_jobs : int, optional
        joblib workers.
    progress : bool
        Show a progress bar.
    chunk_size : int
        Queries per joblib task.

    Returns
    -------
    numpy.ndarray
        ``[n_Q, n_T]`` Word Mover's Distances.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> wmd_distances(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [0.5, 0.5]]), E)
    array([[5. , 2.5]])
    """
    T_rows = sparse.csr_matrix(T).shape[0]
    if T_rows == 0:
        return np.empty((sparse.csr_matrix(Q).shape[0], 0))
    search = _Search(1, solver, False, "ict", 0.1, 1, 1)
    return _run(Q, T, embeddings, search, n_jobs, progress, chunk_size)[1]
