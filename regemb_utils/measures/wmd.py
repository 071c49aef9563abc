"""Word Mover's Distance and exact WMD nearest neighbours (paper §3.1, §5.4; the appendix on the paper's code, "Words
without an embedding").

Definition used everywhere here:

* document weights: any non-negative row of a document matrix over the common dictionary, **L1-normalised** here
  (nBOW = L1-normalised counts, as the paper and Kusner et al. 2015; TF-IDF weights give Sato et al.'s variant);
* ground distance: the Euclidean distance between the **raw** embedding rows (no normalisation), from
  :func:`regemb_utils.measures.similarity.embedding_matrix`;
* **words without an embedding** are zero vectors: they sit at the origin and take part in the transport (the
  paper's code's behaviour, as the appendix on the paper's code says; Kusner et al. removed them). Words outside the
  dictionary never get here;
* a document with no weight (empty, or no dictionary word) is at distance **+inf** from every document, itself
  included (the paper's similarity 1/d is then 0); it is never passed to a solver;
* words at identical coordinates (all the words without an embedding, at the origin) are **one location** with the
  sum of their weights – exact, as moving mass between them costs 0 (:func:`_prepare`);
* exact EMD with POT (``ot.emd``, network simplex, + an exactly rounded Σ fᵢⱼcᵢⱼ over the plan's non-zeros) on the
  **reduced** problem: the mass both documents hold at a location, min(xᵢ, yᵢ), is cancelled first (exact for a
  metric ground distance: by Kantorovich–Rubinstein duality the EMD depends only on x − y; identical documents are at
  0), leaving two disjoint supports; or pyemd (``pyemd.emd`` on the square matrix over the union of both supports,
  the paper's library). Both give the same distances (to ~1e-12).

The definition is :func:`_prepare` and :func:`_pair_wmd` (one pair, the costs from ``cdist``); brute force
(:func:`wmd_distances`, :func:`wmd`) is that on every pair and shares no code with the search below, which computes
the same solve with the same inputs for the candidates it cannot rule out, so the search and brute force agree bit
for bit (``cdist`` computes every entry alone, so its rows give the same numbers in any shape).

Nearest neighbours (:func:`wmd_knn`) are exact without solving every pair ("prefetch and prune", Kusner et al.
2015), by lower bounds of increasing cost, each valid, so that a candidate is skipped only when its distance is
certainly larger than the k-th neighbour's. Per query:

1. **Costs.** A lower bound of every collection location's distance to every query location, from one
   single-precision matrix product (d² = ‖x‖² + ‖y‖² − 2x·y less a bound on its rounding, stored in float32,
   :class:`_QueryCosts`); the exact distances (``cdist``, as brute force) only for the rows that exact solves need.
   Every bound below uses the lower costs (a transport problem with smaller costs has a smaller EMD).
2. **Query potentials bound every candidate at once** (:func:`_potential_bounds`). Any potential f over the query's
   locations gives, with its c-transform gⱼ = minᵢ cᵢⱼ − fᵢ at *every* collection location, a dual-feasible pair for
   every document, so Σ aᵢfᵢ + Σ bⱼgⱼ ≤ WMD (weak duality) for all documents by one pass over the costs and one sparse
   product. f = 0 is the one-sided RWMD (every document word to its nearest query word): the first k candidates by
   it are solved exactly ("seeds": a k-th distance), and each exact solve's optimal dual (POT), turned into a
   potential over all the query's locations, bounds the documents that resemble the solved one tightly. Each
   candidate keeps its best potential.
3. **Best first** (a heap): the candidate with the smallest bound is refined, one level at a time, until the smallest
   bound exceeds the k-th distance: a global bound becomes a **pair bound** – the double c-transform of the
   candidate's best potential on its reduced problem, read straight from the rows of Dᵀ, the first c-transform taken
   from the potential's c-transform at every location wherever its minimum lies at a query location with remaining
   mass (a few microseconds, no cost matrix); a pair bound becomes an **entropic bound** (:func:`dual_bounds`:
   Sinkhorn iterations at ε = 0.05 × the current k-th distance, started from the pair bound's potentials, stopped
   as soon as the certified value passes the k-th distance, at most 10; after each iteration the potentials are made
   feasible by two exact float64 c-transforms and Σ aᵢfᵢ + Σ bⱼgⱼ, less a generous bound on its rounding error, is
   ≤ the EMD by weak duality, whatever the vectorised, approximate iterations did); an entropic bound becomes the
   **exact distance** (POT). So the nearest candidates are solved first and the k-th distance is tight early; a
   candidate is solved only when no bound of it passes the k-th distance.

A candidate whose bound, less a safety margin against rounding (relative 1e-9, absolute 1e-12), exceeds the current
k-th distance is strictly farther than the k-th neighbour; the search stops when the smallest bound left does. So
neighbours and distances equal brute force, including the tie rule (distance ascending, then training index
ascending – the rule of :func:`regemb_utils.classification.knn.top_k` on ``-distance``). All k ∈ {1, 3, …, 19} come
from one top-19 search. The result records the one-core CPU seconds of each phase (:data:`PHASES`).

How much pruning can save depends on how concentrated the distances are: on 20NEWS the median candidate is only
≈ 5 % farther than the 19th neighbour, the global bounds (≈ 0.9–0.97 × the k-th distance) leave ≈ 1,400–5,900
candidates per query to per-candidate bounds, and ≈ 45 documents per query are solved exactly (at least k = 19 must
be). Measured with ``benchmarks/bench_wmd.py --dataset 20news --queries 10 --brute-queries 2`` (10 test queries
against 11,293 documents, 200-d embeddings trained 3 epochs on the vendored Wikipedia corpus and their 1-bit
quantization, one core, CPU seconds per query with the one-time preparation, on a shared, busy machine, two runs):
the previous search (ab76922: the same bounds from a float64 cost table, with scalar minima) 0.46–0.48 s (32-bit)
and 0.46–0.52 s (1-bit); this search 0.32 s and 0.31–0.32 s (1.4–1.6× less), of which pair bounds ≈ 26–32 %, exact
solves ≈ 22 %, the seeds' potential bounds ≈ 19 %, the costs' matrix product ≈ 9 %, entropic bounds ≈ 5–10 %; brute
force 13–16 s (41–49× this search); the same neighbours and distances throughout. The exact solves alone (≈ 45 per
query, ≈ 1–2.5 ms each) cost ≈ 0.085 s per query; POT's warm start (``potentials_init``) saves time only from exact
duals and may return another optimal plan, whose exactly rounded cost can differ from brute force's in the last bit.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np
from scipy import sparse
from scipy.spatial.distance import cdist

from ..infra.keys import same_result_as
from ..infra.progress import progress_bar

__all__ = [
    "SOLVERS",
    "wmd",
    "WmdFlows",
    "wmd_flows",
    "wmd_distances",
    "dual_bounds",
    "WMDNeighbours",
    "wmd_knn",
    "nearest_by_brute_force",
]

SOLVERS = ("pot", "pyemd")
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
    new = np.ones(n, dtype=bool)
    new[1:] = key[order][1:] != key[order][:-1]
    same_key = np.flatnonzero(~new[1:]) + 1  # rows compared in full only where the projections agree
    new[same_key] = np.any(points[order[same_key]] != points[order[same_key - 1]], axis=1)
    location = np.empty(n, dtype=np.int64)
    location[order] = np.cumsum(new) - 1
    return location, np.ascontiguousarray(points[order[new]])


def _merge(matrix: sparse.csr_matrix, remap: np.ndarray, n: int) -> sparse.csr_matrix:
    merged = sparse.csr_matrix(
        (matrix.data.copy(), remap[matrix.indices], matrix.indptr.copy()), shape=(matrix.shape[0], n)
    )
    merged.sum_duplicates()  # adds the weights of words at one location and sorts the indices
    return merged


def _prepare(Q, T, embeddings):
    """L1-normalised CSR weights over the *locations* of the words that occur, and the locations' coordinates.

    Words at identical coordinates (the words without an embedding all sit at the origin) become one location
    carrying the sum of their weights. This is exact for the EMD: moving mass between two words at one point costs 0,
    so any transport plan of the merged problem splits into one of the original problem with the same cost and
    vice versa. The bounds of the search stay bounds of the same EMD.
    """
    Q, T = _weights(Q, "Q"), _weights(T, "T")
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 2 or Q.shape[1] != T.shape[1] or embeddings.shape[0] != Q.shape[1]:
        raise ValueError("Q, T and the embedding matrix must all use the common dictionary")
    used = np.flatnonzero(np.bincount(np.concatenate([Q.indices, T.indices]), minlength=Q.shape[1]))  # ascending
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
        frequency = np.bincount(T.indices, minlength=T.shape[1])
        self.words = np.flatnonzero(frequency)  # the locations that occur, the most frequent first (the rows of Dᵀ
        self.words = self.words[np.argsort(-frequency[self.words], kind="stable")]  # that most bounds read stay cached)
        self.points = np.ascontiguousarray(E[self.words])  # gathered once, not per query
        self.points32 = self.points.astype(np.float32)  # for the lower bounds' matrix product
        self.norms = np.sqrt(np.einsum("ij,ij->i", self.points, self.points))
        row = np.zeros(T.shape[1], dtype=np.int64)
        row[self.words] = np.arange(len(self.words))
        self.position = row[T.indices]  # row of each non-zero in Dᵀ
        self.indptr = T.indptr.astype(np.int64)
        self.indices = T.indices.astype(np.int64)
        self.sizes = np.diff(self.indptr)
        self.masses = np.asarray(T.sum(axis=1)).ravel()

    def query_distances(self, q_ids) -> np.ndarray:
        """Dᵀ: Euclidean distances [|collection locations|, |q|] of every collection location to a query's locations
        (one contiguous row per collection location, so a document's cost matrix is gathered from whole rows)."""
        return np.ascontiguousarray(cdist(self.points, self.E[q_ids]))


class _QueryCosts:
    """A query's ground distances to the collection's locations: the exact ones (``cdist``, the costs of every exact
    solve) row by row on demand, and a lower bound of all of them at once (``lower``) for the bounds.

    The lower bound comes from one single-precision matrix product (twice as fast as double): d² = ‖x‖² + ‖y‖² − 2x·y
    with x·y from the float32-rounded vectors, summed in float32 (off by at most (dim + 3)·2⁻²⁴·‖x‖‖y‖ in any order),
    and the squared norms in float64, is off by at most γ·(‖x‖ + ‖y‖)² with γ = (dim + 8)·2⁻²³, so
    √max(0, d² − γ(‖x‖ + ‖y‖)²)·(1 − γ), even rounded to float32 (relative 2⁻²⁴ ≪ γ) for a table half the size, is
    ≤ the distance that ``cdist`` returns (itself within (dim + 2)·2⁻⁵³ relative of the true one); the bounds lose
    ≈ 10⁻⁴ relative, nothing against the spread of the distances. A transport problem with smaller costs has a
    smaller EMD, so every bound computed with ``lower`` is a bound of the exact WMD."""

    def __init__(self, collection: _Collection, q_ids):
        self.collection = collection
        self.Y = np.ascontiguousarray(collection.E[q_ids])
        self.exact = np.empty((256, len(q_ids)))  # the exact rows computed so far, in the order computed
        self.slot = np.full(len(collection.words), -1, dtype=np.int64)  # each location's row there (-1: none yet)
        self.used = 0
        gamma = (collection.E.shape[1] + 8) * 2.0**-23
        q_norms = np.sqrt(np.einsum("ij,ij->i", self.Y, self.Y))
        self.lower = _lower_distances(
            collection.points32 @ self.Y.T.astype(np.float32), collection.norms, q_norms, gamma
        )

    def rows(self, positions):
        """(exact distances, the row there of each location ``positions``): cdist's rows, each computed once."""
        missing = positions[self.slot[positions] < 0]  # a document's locations are distinct
        if len(missing):
            if self.used + len(missing) > len(self.exact):
                self.exact = np.concatenate(
                    [self.exact, np.empty((max(len(self.exact), len(missing)), self.exact.shape[1]))]
                )
            self.exact[self.used : self.used + len(missing)] = cdist(self.collection.points[missing], self.Y)
            self.slot[missing] = np.arange(self.used, self.used + len(missing))
            self.used += len(missing)
        return self.exact, self.slot[positions]


@numba.njit(cache=True)
def _lower_distances(products, norms, q_norms, gamma):  # pragma: no cover - numba
    """√max(0, ‖x‖² + ‖y‖² − 2x·y − γ(‖x‖ + ‖y‖)²)·(1 − γ), computed in float64 from the products x·y and stored in
    float32 (see :class:`_QueryCosts`)."""
    lower = np.empty(products.shape, dtype=np.float32)
    for w in range(products.shape[0]):
        for i in range(products.shape[1]):
            x, y = norms[w], q_norms[i]
            squared = x * x + y * y - 2.0 * np.float64(products[w, i]) - gamma * (x + y) * (x + y)
            lower[w, i] = math.sqrt(squared) * (1.0 - gamma) if squared > 0.0 else 0.0
    return lower


# ----------------------------------------------------------------------------------------------------------------
# exact EMD


@numba.njit(cache=True)
def _cancel_shared(q_nodes, q_w, t_nodes, t_w):  # pragma: no cover - numba
    """Both documents' weights with min(xᵢ, yᵢ) removed at every location they share (locations sorted)."""
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
    return a, b


@numba.njit(cache=True)
def _reduce(q_nodes, q_w, t_nodes, t_w):  # pragma: no cover - numba
    """Cancel the mass two documents share: min(xᵢ, yᵢ) at every common location is removed from both sides; returns
    (query positions, remaining weights, document positions, remaining weights), zeros dropped.

    Exact for a metric (or pseudo-metric) ground distance: by Kantorovich–Rubinstein duality the EMD depends only on
    x − y, which the cancellation keeps. Both sides keep the same total mass (up to rounding; POT rescales)."""
    a, b = _cancel_shared(q_nodes, q_w, t_nodes, t_w)
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


def _emd(x_weights, y_weights, cost, duals: bool = False):
    """The EMD (and, with ``duals``, the optimal dual potential of the second side)."""
    import ot

    plan, log = ot.emd(x_weights, y_weights, cost, numItermax=_NUM_ITER_MAX, log=True)
    # Σ fᵢⱼcᵢⱼ over the plan's non-zeros, summed exactly (math.fsum, so independent of order): the solver's own
    # floating-point sum can differ in the last bit between calls with equal inputs at different memory addresses,
    # which would break exact equality between the pruned and the brute-force search
    flows = plan.nonzero()
    distance = math.fsum(plan[flows] * cost[flows])
    return (distance, log["v"]) if duals else distance


def _pyemd(x_ids, x_weights, y_ids, y_weights, embeddings) -> float:
    from pyemd import emd

    union = np.union1d(x_ids, y_ids)
    hx = np.zeros(len(union))
    hy = np.zeros(len(union))
    hx[np.searchsorted(union, x_ids)] = x_weights
    hy[np.searchsorted(union, y_ids)] = y_weights
    vectors = embeddings[union]
    return float(emd(hy, hx, np.ascontiguousarray(cdist(vectors, vectors))))  # (collection, query) as the paper


def _pair_wmd(q_ids, q_w, t_ids, t_w, distances, points, solver: str) -> float:
    """**The definition** of one WMD, on prepared inputs (:func:`_prepare`: locations ``q_ids``/``t_ids``, ascending,
    with L1-normalised weights; ``distances`` = ``cdist(points[q_ids], points)``, the ground distances of the query's
    locations to every location): +inf if either document is empty; else POT's EMD of the reduced problem (the mass both
    hold at a location cancelled, :func:`_reduce`) with the ground distances between the remaining locations and the
    exactly rounded cost sum (:func:`_emd`), 0 when nothing is left to move; or pyemd on the union of both supports.
    Brute force (:func:`wmd_distances`) is this function on every pair; the pruned search computes the same solve
    with the same inputs (its own rows of the same ``cdist``, whose every entry is computed alone), so both agree
    bit for bit."""
    if len(t_ids) == 0 or len(q_ids) == 0:
        return float("inf")
    if solver == "pyemd":
        return _pyemd(q_ids, q_w, t_ids, t_w, points)
    rows, a, cols, b = _reduce(q_ids, q_w, t_ids, t_w)
    if len(rows) == 0 or len(cols) == 0:
        return 0.0  # identical documents (or a remainder of rounding size on one side only)
    return _emd(a, b, distances[np.ix_(rows, t_ids[cols])])


def _brute_force_rows(Q, T, points, rows, solver: str) -> np.ndarray:
    """All WMDs of the queries ``rows`` (prepared) against every training document: :func:`_pair_wmd` on every pair."""
    result = np.empty((len(rows), T.shape[0]))
    for r, i in enumerate(rows):
        q_ids, q_w = _row(Q, i)
        distances = cdist(points[q_ids], points) if len(q_ids) and solver == "pot" else None
        for j in range(T.shape[0]):
            t_ids, t_w = _row(T, j)
            result[r, j] = _pair_wmd(q_ids, q_w, t_ids, t_w, distances, points, solver)
    return result


def _exact(collection: _Collection, q_ids, q_w, Dt, positions, j: int, solver: str, potentials=None) -> float:
    """The search's exact solve of a query and training document ``j``: the same computation as :func:`_pair_wmd`
    (the same reduced problem and solver, the costs gathered from the exact rows ``Dt[positions]`` of the same
    ``cdist``, one row per location of the document). With
    POT and a list ``potentials``, a dual potential over all the query's locations is appended."""
    t_ids, t_w = _row(collection.T, j)
    if len(t_ids) == 0 or len(q_ids) == 0:
        return float("inf")
    if solver == "pyemd":
        return _pyemd(q_ids, q_w, t_ids, t_w, collection.E)
    rows, a, cols, b = _reduce(q_ids, q_w, collection.indices[collection.indptr[j] : collection.indptr[j + 1]], t_w)
    if len(rows) == 0 or len(cols) == 0:
        return 0.0  # identical documents (or a remainder of rounding size on one side only)
    if potentials is None:
        return _emd(a, b, _pair_costs(Dt, positions, rows, cols))
    distance, g = _emd(a, b, _pair_costs(Dt, positions, rows, cols), duals=True)
    potentials.append(np.min(Dt[positions[cols]] - g[:, None], axis=0))  # fᵢ = minⱼ cᵢⱼ − gⱼ over all i
    return distance


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
    Euclidean distance between their raw embeddings; ``total`` = Σ fᵢⱼcᵢⱼ is the WMD.

    Parameters
    ----------
    x_terms, y_terms : numpy.ndarray
        Column ids of each document's words (weight > 0), ascending.
    x_weights, y_weights : numpy.ndarray
        Their L1-normalized weights.
    flows : numpy.ndarray
        ``[len(x_terms), len(y_terms)]`` masses moved.
    distances : numpy.ndarray
        ``[len(x_terms), len(y_terms)]`` Euclidean distances.

    Examples
    --------
    >>> from scipy import sparse
    >>> E = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]])
    >>> plan = wmd_flows(sparse.csr_matrix([[1.0, 1.0, 0.0]]), sparse.csr_matrix([[0.0, 0.0, 2.0]]), E)
    >>> plan.flows.tolist(), plan.distances.tolist(), plan.total  # half the mass travels 5
    ([[0.5], [0.5]], [[0.0], [5.0]], 2.5)
    """

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
        raise ValueError(
            f"x has {X.shape[1]} columns, y {Y.shape[1]} and the embedding matrix "
            f"{embeddings.shape[0] if embeddings.ndim == 2 else embeddings.shape} rows: all must use "
            "the common dictionary"
        )
    X, Y = _weights(X, "x"), _weights(Y, "y")
    for name, matrix in (("x", X), ("y", Y)):
        if matrix.nnz == 0:
            raise ValueError(
                f"{name} has no word with a weight (no word of the document is in the dictionary): "
                "its WMD to any document is +inf and there is no transport plan"
            )
    (x_terms, x_weights), (y_terms, y_weights) = _row(X, 0), _row(Y, 0)
    points_x, points_y = embeddings[x_terms], embeddings[y_terms]
    if not (np.all(np.isfinite(points_x)) and np.all(np.isfinite(points_y))):
        raise ValueError("the embeddings of the words that occur must be finite")
    distances = np.ascontiguousarray(cdist(points_x, points_y))
    flows = ot.emd(x_weights, y_weights, distances, numItermax=_NUM_ITER_MAX)
    return WmdFlows(x_terms.copy(), y_terms.copy(), x_weights.copy(), y_weights.copy(), np.asarray(flows), distances)


# ----------------------------------------------------------------------------------------------------------------
# lower bounds


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


@numba.njit(cache=True)
def _certified_value(C, Ct, a, b, f0, u, eps, largest_cost):  # pragma: no cover - numba
    """Σ aᵢfᵢ + Σ bⱼgⱼ for the dual-feasible pair made from the Sinkhorn potentials f0 + ε log u by two exact
    c-transforms (gⱼ = minᵢ cᵢⱼ − fᵢ, then fᵢ = minⱼ cᵢⱼ − gⱼ, from Ct = Cᵀ), less a bound on its rounding error
    (``largest_cost`` ≥ every cᵢⱼ); −inf if a scaling over- or underflowed. Weak duality makes it a lower bound of the
    EMD whatever the potentials were."""
    n, m = C.shape
    f = np.empty(n)
    g = np.empty(m)
    for i in range(n):
        if not (u[i] > 0.0 and u[i] < np.inf):
            return -np.inf
        f[i] = f0[i] + eps * math.log(u[i])
    _column_minima(C, f, g)
    _column_minima(Ct, g, f)
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


# The c-transforms and the Sinkhorn steps run with fastmath so that their loops vectorise. The c-transforms take
# finite inputs (checked before) and each entry is one correctly rounded subtraction; a minimum is exact in any order.
# The Sinkhorn steps only steer the potentials: the certified value (exact c-transforms, bounded rounding) makes any
# potentials a valid bound.


@numba.njit(cache=True, fastmath=True)
def _column_minima(C, f, g):  # pragma: no cover - numba
    """g[j] = minᵢ C[i, j] − f[i] (finite inputs, C non-empty), an element-wise minimum over the rows (written as a
    selection, so that it vectorises; the row minima are the column minima of Cᵀ)."""
    n, m = C.shape
    for j in range(m):
        g[j] = C[0, j] - f[0]
    for i in range(1, n):
        row = C[i]
        fi = f[i]
        for j in range(m):
            x = row[j] - fi
            g[j] = x if x < g[j] else g[j]


@numba.njit(cache=True, fastmath=True)
def _stabilised_kernel(C, f0, g0, eps):  # pragma: no cover - numba
    """≈ exp((f0ᵢ + g0ⱼ − cᵢⱼ)/ε): the Gibbs kernel, stabilised by a feasible pair (f0, g0) (exponents ≤ 0). The
    exponential is computed as (Taylor polynomial of exp(x/256))²⁵⁶ with x clamped at −64, which vectorises (relative
    error ~1e-8; it only steers the Sinkhorn iterations)."""
    n, m = C.shape
    K = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            x = max((f0[i] + g0[j] - C[i, j]) / eps, -64.0) * (1.0 / 256.0)
            e = 1.0 + x * (
                1.0
                + x
                * (
                    0.5
                    + x
                    * (
                        1.0 / 6
                        + x * (1.0 / 24 + x * (1.0 / 120 + x * (1.0 / 720 + x * (1.0 / 5040 + x * (1.0 / 40320)))))
                    )
                )
            )
            for _ in range(8):
                e = e * e
            K[i, j] = e
    return K


@numba.njit(cache=True, fastmath=True)
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
def _entropic_bound(C, a, b, eps, target, max_iter, start, largest_cost):  # pragma: no cover - numba
    """A certified lower bound of the EMD between a and b (equal masses, costs C, all ≤ ``largest_cost``): the best of
    0 and the certified values after each of at most ``max_iter`` Sinkhorn iterations at regularisation ``eps``;
    stops once it exceeds ``target``. The kernel is stabilised by a feasible pair (f0, g0) – ``start`` (a potential
    over the rows), its c-transform g0 and g0's c-transform f0 – so every entry is ≤ 1 and every row and column holds
    a 1; only the scalings u, v are iterated."""
    n, m = C.shape
    Ct = np.ascontiguousarray(C.T)
    f0 = start.copy()
    g0 = np.empty(m)
    _column_minima(C, f0, g0)
    _column_minima(Ct, g0, f0)
    u = np.ones(n)
    best_value = 0.0  # costs are non-negative
    K = _stabilised_kernel(C, f0, g0, eps)
    v = np.ones(m)
    column = np.empty(m)
    for _ in range(max_iter):
        _sinkhorn_iteration(K, a, b, u, v, column)
        value = _certified_value(C, Ct, a, b, f0, u, eps, largest_cost)
        if value == -np.inf:
            break  # a scaling over- or underflowed (ε far too small for these costs): the exact solve decides
        best_value = max(best_value, value)
        if best_value > target:
            break
    return best_value


@numba.njit(cache=True)
def _reduce_dense(q_nodes, q_w, t_nodes, t_w):  # pragma: no cover - numba
    """:func:`_reduce`, with the query's remaining weights over all its locations (zeros where the shared mass
    cancelled them): (remaining query weights, document positions, their remaining weights). The same numbers as
    :func:`_reduce`."""
    a, b = _cancel_shared(q_nodes, q_w, t_nodes, t_w)
    cols = np.flatnonzero(b > 0.0)
    return a, cols, b[cols]


_INACTIVE = -1e300  # the potential of a query location without remaining mass: never the minimum of cᵢⱼ − fᵢ


@numba.njit(cache=True, fastmath=True)
def _row_c_transforms(Dt, rows_of, a, f_start, f, g, G, A, p):  # pragma: no cover - numba
    """The double c-transform of a query potential on one reduced problem, straight from the rows of Dᵀ (no cost
    matrix gathered): gⱼ = min over the query's locations with remaining mass (aᵢ > 0) of Dᵀ[rows_of[j], i] − f_startᵢ,
    then fᵢ = minⱼ Dᵀ[rows_of[j], i] − gⱼ (for every i; only those with aᵢ > 0 count).
    Where the c-transform of f_start over *all* the query's locations is given (G[:, p], attained at A[:, p]) and its
    minimum is attained at a location with remaining mass, gⱼ is that (the same number); otherwise it is computed.
    Every entry is one correctly rounded subtraction and a minimum is exact in any order (``fastmath`` only lets the
    loops vectorise: the second one is an element-wise minimum, written as a selection so that it does); the masked
    locations get the finite potential ``_INACTIVE``, so they never attain a minimum."""
    n = len(a)
    masked = np.empty(n)
    for i in range(n):
        masked[i] = f_start[i] if a[i] > 0.0 else _INACTIVE
        f[i] = np.inf
    given = G.shape[0] > 0
    for j in range(len(rows_of)):
        w = rows_of[j]
        if given and a[A[w, p]] > 0.0:
            g[j] = G[w, p]
            continue
        row = Dt[w]
        best = row[0] - masked[0]
        for i in range(1, n):
            best = min(best, row[i] - masked[i])
        g[j] = best
    for j in range(len(rows_of)):
        row = Dt[rows_of[j]]
        gj = g[j]
        for i in range(n):
            x = row[i] - gj
            f[i] = x if x < f[i] else f[i]


@numba.njit(cache=True)
def _pair_value(a, f, b, g, largest_cost):  # pragma: no cover - numba
    """Σ aᵢfᵢ + Σ bⱼgⱼ over the locations with mass, less the bound on its rounding error of :func:`_certified_value`
    (for a pair made feasible by exact c-transforms)."""
    value = 0.0
    scale = 0.0
    mass_a = 0.0
    mass_b = 0.0
    largest_g = 0.0
    n = 0
    for i in range(len(a)):
        if a[i] > 0.0:
            value += a[i] * f[i]
            scale += a[i] * abs(f[i])
            mass_a += a[i]
            n += 1
    for j in range(len(b)):
        value += b[j] * g[j]
        scale += b[j] * abs(g[j])
        mass_b += b[j]
        largest_g = max(largest_g, abs(g[j]))
    error = (n + len(b) + 4) * _ULP * (scale + max(mass_a, mass_b) * (largest_cost + largest_g))
    error += abs(mass_a - mass_b) * largest_g
    return value - error


@numba.njit(cache=True)
def _dual_block(
    Dt, largest, q_nodes, q_w, indptr, nodes, position, data, candidates, eps, target, max_iter, F, which, G, A
):  # pragma: no cover - numba
    """Lower bounds of one query's WMD to the training documents ``candidates`` (non-empty), each on its reduced
    problem (shared mass cancelled, as the exact solve); 0 for identical documents. First the double c-transform of
    the query potential F[which[c]] (0 where which[c] < 0) on the reduced problem, read from the rows of Dᵀ (a few
    microseconds); where that does not pass ``target``, :func:`_entropic_bound` started from it. ``largest`` ≥ every
    entry of Dᵀ (for the rounding error)."""
    result = np.empty(len(candidates))
    n = len(q_nodes)
    zero = np.zeros(n)
    f = np.empty(n)
    g = np.empty(0)
    for c in range(len(candidates)):
        start, stop = indptr[candidates[c]], indptr[candidates[c] + 1]
        a, cols, b = _reduce_dense(q_nodes, q_w, nodes[start:stop], data[start:stop])
        if len(cols) == 0 or not np.any(a > 0.0):
            result[c] = 0.0
            continue
        if len(g) < len(cols):
            g = np.empty(2 * len(cols))
        rows_of = position[start:stop][cols]
        if which[c] >= 0:
            _row_c_transforms(Dt, rows_of, a, F[which[c]], f, g, G, A, which[c])
        else:
            _row_c_transforms(Dt, rows_of, a, zero, f, g, G[:0], A[:0], 0)
        value = max(0.0, _pair_value(a, f, b, g[: len(cols)], largest))
        if value > target or max_iter == 0:
            result[c] = value
            continue
        rows = np.flatnonzero(a > 0.0)
        C = _pair_costs(Dt, position[start:stop], rows, cols)
        result[c] = max(value, _entropic_bound(C, a[rows], b, eps, target, max_iter, f[rows], largest))
    return result


def _dual(
    collection: _Collection,
    q_ids,
    q_w,
    Dt,
    candidates,
    eps,
    target,
    max_iter,
    F=None,
    which=None,
    G=None,
    A=None,
    largest_cost=None,
) -> np.ndarray:
    """Pair bounds (``max_iter`` = 0) or entropic bounds of ``candidates``, started from the query potentials
    F[which] (none: 0); G and A, the potentials' c-transforms at every collection location and where they are
    attained (:func:`_c_transforms`), save the first c-transform of each pair bound; ``largest_cost`` ≥ every entry
    of Dt (computed if not given)."""
    candidates = np.asarray(candidates, dtype=np.int64)
    if F is None:
        F, which = np.empty((0, len(q_ids))), np.full(len(candidates), -1, dtype=np.int64)
    if G is None:
        G, A = np.empty((0, 0)), np.empty((0, 0), dtype=np.int32)
    largest_cost = Dt.max(initial=0.0) if largest_cost is None else largest_cost
    return _dual_block(
        Dt,
        float(largest_cost),
        q_ids.astype(np.int64),
        q_w,
        collection.indptr,
        collection.indices,
        collection.position,
        collection.T.data,
        candidates,
        float(eps),
        float(target),
        int(max_iter),
        F,
        np.asarray(which, dtype=np.int64),
        G,
        A,
    )


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


@numba.njit(cache=True, fastmath=True)
def _c_transforms(Dt, Ft):  # pragma: no cover - numba
    """G[w, p] = minᵢ (Dᵀ[w, i] − Ft[i, p]): the c-transform of each potential (a column of Ft, over the query's
    locations) at every collection location w, and A[w, p], an i that attains it (all finite; ``fastmath`` only lets
    the minima vectorise over the potentials, each difference is still one correctly rounded subtraction and a
    minimum is exact in any order)."""
    n_words, n = Dt.shape
    P = Ft.shape[1]
    G = np.empty((n_words, P))
    A = np.zeros((n_words, P), dtype=np.int32)
    if P == 1:  # one potential: a minimum along each row
        f = Ft[:, 0]
        for w in range(n_words):
            row = Dt[w]
            best = row[0] - f[0]
            where = 0
            for i in range(1, n):
                x = row[i] - f[i]
                if x < best:
                    best = x
                    where = i
            G[w, 0] = best
            A[w, 0] = where
        return G, A
    for w in range(n_words):
        g = G[w]
        at = A[w]
        row = Dt[w]
        for p in range(P):
            g[p] = row[0] - Ft[0, p]
        for i in range(1, n):
            d = row[i]
            f = Ft[i]
            for p in range(P):
                x = d - f[p]
                if x < g[p]:
                    g[p] = x
                    at[p] = i
    return G, A


@numba.njit(cache=True)
def _document_sums(indptr, position, data, G):  # pragma: no cover - numba
    """values[d, p] = Σ bⱼ G[position j, p] over the non-zeros j of document d (T·G, vectorised over p)."""
    values = np.zeros((len(indptr) - 1, G.shape[1]))
    for d in range(len(indptr) - 1):
        row = values[d]
        for j in range(indptr[d], indptr[d + 1]):
            weight = data[j]
            g = G[position[j]]
            for p in range(G.shape[1]):
                row[p] += weight * g[p]
    return values


def _potential_bounds(collection: _Collection, q_w, Dt, F, largest_cost=None):
    """Certified lower bounds of the WMD of the query and **every** training document at once, from query-side dual
    potentials F [n_potentials, |q|]: for each f, g = its c-transform at every collection location (gⱼ = minᵢ cᵢⱼ − fᵢ,
    so fᵢ + gⱼ ≤ cᵢⱼ for every pair of any document) and Σ aᵢfᵢ + Σ bⱼgⱼ ≤ EMD by weak duality (on the unreduced
    problem, which has the same EMD); one sparse product T·G for all documents. The best over the potentials, less a
    generous bound on the rounding (each c-transform entry one subtraction, sums of |q| + |doc| terms, unequal
    masses); +inf for empty documents. f = 0 gives the one-sided RWMD (every document word to its nearest query
    word); the optimal potentials of exactly solved documents give bounds that are tight for similar documents.
    Returns (bound, the best potential, G = the c-transforms, A = where they are attained); ``largest_cost`` ≥ every
    entry of Dt (computed if not given)."""
    G, A = _c_transforms(Dt, np.ascontiguousarray(F.T))
    values = _document_sums(collection.indptr, collection.position, collection.T.data, G) + F @ q_w
    # Σ bⱼ|gⱼ| + Σ aᵢ|fᵢ| ≤ (both masses) × (max|g| + max|f|); every cᵢⱼ − fᵢ rounds by ≤ ulp·(max c + max|f|)
    largest = (
        (Dt.max(initial=0.0) if largest_cost is None else largest_cost)
        + np.abs(F).max(initial=0.0)
        + np.abs(G).max(initial=0.0)
    )
    mass = q_w.sum()
    terms = (collection.sizes + len(q_w) + 4) * _ULP
    error = terms * 3 * largest * np.maximum(collection.masses, mass) + np.abs(collection.masses - mass) * largest
    certified = values - error[:, None]
    best = np.argmax(certified, axis=1)
    bound = np.maximum(certified[np.arange(len(best)), best], 0.0)  # costs are non-negative: 0 is a bound too
    bound[collection.sizes == 0] = np.inf
    return bound, best, G, A


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
    epsilon: float
    max_iterations: int
    block: int
    seeds: int


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


PHASES = (
    "preparation",
    "setup",
    "cheap bounds",
    "seed solves",
    "potential bounds",
    "pair bounds",
    "entropic bounds",
    "exact solves",
)


class _Clock:
    """One-core CPU seconds per phase of the search (:data:`PHASES`)."""

    def __init__(self):
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self._phase, self._start = None, 0.0

    def __call__(self, phase: str | None) -> None:
        now = time.process_time()
        if self._phase is not None:
            self.seconds[self._phase] += now - self._start
        self._phase, self._start = phase, now


def _query(collection: _Collection, q_ids, q_w, search: _Search, clock: _Clock):
    """Neighbours of one query: (best, exact solves, candidates certified by the entropic bound)."""
    n_train = collection.T.shape[0]
    best = _Best(search.k)
    solved = certified = 0
    if not len(q_ids):  # a query without weight: +inf from every document, the first k by the tie rule
        for j in range(search.k):
            best.add(float("inf"), j)
        return best, solved, certified
    clock("setup")
    costs = _QueryCosts(collection, q_ids)
    Dt = costs.lower  # lower bounds of the distances: for every bound below

    def exact(j, potentials=None):
        nonlocal solved
        if collection.indptr[j + 1] == collection.indptr[j]:
            return float("inf")
        solved += 1
        exact_rows, slots = costs.rows(collection.position[collection.indptr[j] : collection.indptr[j + 1]])
        return _exact(collection, q_ids, q_w, exact_rows, slots, j, search.solver, potentials)

    # 1. a cheap bound of every candidate: the one-sided RWMD (every document word to its nearest query location)
    clock("cheap bounds")
    largest_cost = Dt.max(initial=0.0)
    lower, _, G, A = _potential_bounds(collection, q_w, Dt, np.zeros((1, len(q_ids))), largest_cost)
    order = np.lexsort((np.arange(n_train), lower))
    # 2. the most promising candidates exactly: a tight k-th distance, and their optimal dual potentials
    clock("seed solves")
    potentials = []
    seeds = order[: search.seeds]
    for j in seeds:
        best.add(exact(j, potentials if search.solver == "pot" else None), j)
    # 3. every candidate's bound from those potentials (one c-transform and one sparse product per potential)
    clock("potential bounds")
    F = np.array(potentials).reshape(-1, len(q_ids))
    which = np.zeros(n_train, dtype=np.int64)  # each candidate's best potential, here the zero one
    if len(F):
        bound, which, G_F, A_F = _potential_bounds(collection, q_w, Dt, F, largest_cost)
        which = np.where(bound > lower, which + 1, 0)
        lower = np.maximum(lower, bound)
        G, A = np.hstack([G, G_F]), np.hstack([A, A_F])  # the zero potential and the solved documents' ones
    F = np.vstack([np.zeros((1, len(q_ids))), F])
    safe = _safe(lower)
    candidate = safe <= best.kth
    candidate[seeds] = False  # solved already
    left = np.flatnonzero(candidate)
    left = left[np.lexsort((left, lower[left]))]
    left_safe = safe[left]  # ascending, as lower
    # 4. the rest best first: always refine the candidate with the smallest bound – a block of global bounds into
    #    pair bounds (the double c-transform, a few microseconds each), a pair bound into an entropic bound, an
    #    entropic bound into the exact distance – until the smallest bound exceeds the k-th distance
    import heapq

    pending = []  # (safe bound, training index, level: 1 = pair bound, 2 = entropic bound)
    position = 0
    while True:
        kth = best.kth
        next_global = safe[left[position]] if position < len(left) else np.inf
        next_pending = pending[0][0] if pending else np.inf
        if min(next_global, next_pending) > kth:
            break  # every remaining candidate is strictly farther than the k-th neighbour
        if not 0 < kth < np.inf:  # no k-th distance to beat yet (or 0): solve in bound order
            clock("exact solves")
            if next_global <= next_pending:
                j = left[position]
                position += 1
            else:
                j = heapq.heappop(pending)[1]
            best.add(exact(j), j)
            continue
        target = (kth + _ABSOLUTE_MARGIN) / (1 - _MARGIN)  # a value whose _safe exceeds kth
        if next_global <= next_pending:  # a block of global bounds into pair bounds (ascending: up to the k-th)
            clock("pair bounds")
            stop = (
                position
                + 1
                + int(np.searchsorted(left_safe[position + 1 : position + search.block], kth, side="right"))
            )
            block = left[position:stop]
            position = stop
            values = _safe(
                _dual(
                    collection,
                    q_ids,
                    q_w,
                    Dt,
                    block,
                    search.epsilon * kth,
                    target,
                    0,
                    F,
                    which[block],
                    G,
                    A,
                    largest_cost,
                )
            )
            undecided = values <= kth
            certified += len(block) - int(undecided.sum())
            for j, value in zip(block[undecided].tolist(), np.maximum(values, safe[block])[undecided].tolist()):
                heapq.heappush(pending, (value, j, 1))
            continue
        batch = []  # pair bounds into entropic bounds, the smallest first; an entropic bound into a solve
        while pending and pending[0][0] <= min(kth, next_global) and len(batch) < 16:
            if pending[0][2] == 2:
                if not batch:
                    clock("exact solves")
                    j = heapq.heappop(pending)[1]
                    best.add(exact(j), j)
                break
            batch.append(heapq.heappop(pending))
        if batch:
            clock("entropic bounds")
            block = np.array([item[1] for item in batch], dtype=np.int64)
            values = _safe(
                _dual(
                    collection,
                    q_ids,
                    q_w,
                    Dt,
                    block,
                    search.epsilon * kth,
                    target,
                    search.max_iterations,
                    F,
                    which[block],
                    G,
                    A,
                    largest_cost,
                )
            )
            for (bound, j, _), value in zip(batch, values.tolist()):
                if value > best.kth:
                    certified += 1
                else:
                    heapq.heappush(pending, (max(value, bound), j, 2))
    certified += len(pending)  # ruled out by their pair or entropic bound
    clock(None)
    return best, solved, certified


def _chunk(Q, collection: _Collection, rows, search: _Search):
    """Neighbours, distances, solves and certified candidates per query, and the CPU seconds per phase, for the
    queries ``rows``."""
    neighbours = np.empty((len(rows), search.k), dtype=np.int64)
    distances = np.empty((len(rows), search.k))
    solved = np.zeros(len(rows), dtype=np.int64)
    certified = np.zeros(len(rows), dtype=np.int64)
    clock = _Clock()
    for r, i in enumerate(rows):
        q_ids, q_w = _row(Q, i)
        best, solved[r], certified[r] = _query(collection, q_ids, q_w, search, clock)
        neighbours[r] = best.indices
        distances[r] = best.distances
    return neighbours, distances, solved, certified, clock.seconds


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
        ``[n_queries]`` candidates ruled out by a pair or entropic dual bound per query.
    n_train : int
        Training documents.
    phases : dict
        One-core CPU seconds per phase of the search (:data:`PHASES`), summed over the queries.

    Examples
    --------
    See :func:`wmd_knn`.
    """

    indices: np.ndarray  # [n_queries, k] training indices, nearest first (ties: lower index first)
    distances: np.ndarray  # [n_queries, k] their exact WMDs
    solved: np.ndarray  # [n_queries] exact EMD problems solved per query
    certified: np.ndarray  # [n_queries] candidates ruled out by a pair or entropic bound per query
    n_train: int
    phases: dict  # one-core CPU seconds per phase of the search (PHASES), summed over the queries

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


def _check(search: _Search, n_train: int) -> None:
    _check_solver(search.solver)
    if (
        not (search.epsilon > 0 and math.isfinite(search.epsilon))
        or min(search.max_iterations, search.block, search.seeds) < 1
    ):
        raise ValueError(
            "epsilon must be a positive number, max_iterations, the block size and the seeds positive integers"
        )
    if not 1 <= search.k <= n_train:
        raise ValueError(f"k must lie in [1, n_train = {n_train}], got {search.k}")


def _run(Q, T, embeddings, search: _Search, n_jobs, progress, chunk_size) -> WMDNeighbours:
    """The pruned search (:func:`wmd_knn` with ``prune``)."""
    import joblib

    preparation = time.process_time()
    _check(search, sparse.csr_matrix(T).shape[0])
    Q, T, E = _prepare(Q, T, embeddings)
    n_train = T.shape[0]
    collection = _Collection(T, E)
    preparation = time.process_time() - preparation
    chunks = [np.arange(start, min(start + chunk_size, Q.shape[0])) for start in range(0, Q.shape[0], chunk_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    results = parallel(joblib.delayed(_chunk)(Q, collection, rows, search) for rows in chunks)
    results = list(progress_bar(results, total=len(chunks), disable=not progress, desc="WMD queries", unit="chunk"))
    if not results:
        empty = np.empty((0, search.k))
        none = np.zeros(0, dtype=np.int64)
        return WMDNeighbours(empty.astype(np.int64), empty, none, none, n_train, dict.fromkeys(PHASES, 0.0))
    phases = {phase: sum(r[4][phase] for r in results) for phase in PHASES}
    phases["preparation"] += preparation
    return WMDNeighbours(*(np.concatenate([r[column] for r in results]) for column in range(4)), n_train, phases)


@same_result_as("nearest_by_brute_force")
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
    epsilon: float = 0.05,
    max_iterations: int = 10,
    block: int = 64,
    seeds: int | None = None,
) -> WMDNeighbours:
    """Exact k nearest training documents (by WMD) of every query, with prefetch-and-prune.

    ``Q`` [n_queries, n_terms] and ``T`` [n_train, n_terms] are document weight matrices (e.g. nBOW),
    ``embeddings`` the raw ``[n_terms, dim]`` matrix (zero rows for words without an embedding). ``prune=False``
    solves every pair (brute force). Queries are processed in chunks of ``chunk_size`` through
    ``joblib.Parallel(n_jobs)`` with a tqdm progress bar when ``progress``.

    The search (module docstring) solves the ``seeds`` (default k) candidates with the smallest one-sided RWMD
    first, bounds every candidate by their dual potentials, and then refines always the smallest bound: pair bounds
    (``block`` candidates per call), entropic dual bounds (at most ``max_iterations`` Sinkhorn iterations at
    regularisation ``epsilon`` × the current k-th distance), exact solves. These settings change only the time,
    never the result. ``prune=False`` is brute force (:func:`wmd_distances`) and its k smallest. The result records
    per query the exact EMD solves (``solved``) and the candidates ruled out by a pair or entropic bound
    (``certified``), and the CPU seconds per phase (``phases``).

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Queries and training documents (non-negative weights over the columns of ``embeddings``).
    embeddings : numpy.ndarray
        Raw word vectors, one row per column.
    k : int
        Neighbours per query.
    solver, prune, n_jobs, progress, chunk_size, epsilon, max_iterations, block, seeds
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
    search = _Search(k, solver, prune, epsilon, max_iterations, block, k if seeds is None else seeds)
    if prune:
        return _run(Q, T, embeddings, search, n_jobs, progress, chunk_size)
    _check(search, sparse.csr_matrix(T).shape[0])
    cpu = time.process_time()
    indices, distances = nearest_by_brute_force(
        Q, T, embeddings, k, solver=solver, n_jobs=n_jobs, progress=progress, chunk_size=chunk_size
    )
    phases = dict.fromkeys(PHASES, 0.0)
    phases["exact solves"] = time.process_time() - cpu
    Qn, Tn = _weights(Q, "Q"), _weights(T, "T")
    solved = np.diff(Qn.indptr).astype(bool).astype(np.int64) * int(np.count_nonzero(np.diff(Tn.indptr)))
    return WMDNeighbours(indices, distances, solved, np.zeros(len(indices), dtype=np.int64), Tn.shape[0], phases)


def nearest_by_brute_force(
    Q,
    T,
    embeddings,
    k: int,
    *,
    solver: str = "pot",
    n_jobs: int | None = 1,
    progress: bool = False,
    chunk_size: int = 8,
) -> tuple[np.ndarray, np.ndarray]:
    """The definition of the WMD's k nearest neighbours: every exact WMD (:func:`wmd_distances`), the k smallest of
    each row by distance, ties to the lower index. :func:`wmd_knn`'s search gives exactly this (the tests check it),
    so the keys of stored results hash this definition, not the search (:func:`regemb_utils.infra.keys.same_result_as`).

    Parameters
    ----------
    Q, T : scipy.sparse matrix
        Queries and training documents (non-negative weights over the columns of ``embeddings``).
    embeddings : numpy.ndarray
        Raw word vectors, one row per column.
    k : int
        Neighbours per query.
    solver, n_jobs, progress, chunk_size
        As for :func:`wmd_distances`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``[n_queries, k]`` indices of the nearest training documents, nearest first, and their WMDs.

    Examples
    --------
    >>> E = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    >>> indices, distances = nearest_by_brute_force(sparse.csr_matrix([[0.0, 1.0, 0.0]]), sparse.csr_matrix(np.eye(3)),
    ...                                             E, 2)
    >>> indices.tolist(), distances.tolist()
    ([[1, 0]], [[0.0, 1.0]])
    """
    full = wmd_distances(Q, T, embeddings, solver=solver, n_jobs=n_jobs, progress=progress, chunk_size=chunk_size)
    order = np.lexsort((np.broadcast_to(np.arange(full.shape[1]), full.shape), full), axis=1)[:, :k]
    return order, np.take_along_axis(full, order, axis=1)


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
    import joblib

    _check_solver(solver)
    Q, T, points = _prepare(Q, T, embeddings)
    chunks = [np.arange(start, min(start + chunk_size, Q.shape[0])) for start in range(0, Q.shape[0], chunk_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    results = parallel(joblib.delayed(_brute_force_rows)(Q, T, points, rows, solver) for rows in chunks)
    results = list(progress_bar(results, total=len(chunks), disable=not progress, desc="WMD queries", unit="chunk"))
    return np.concatenate(results) if results else np.empty((0, T.shape[0]))
