"""Sparse term-similarity matrices (the paper's "orthogonalization", §4.2), built fast from a nearest-neighbour cache.

Two steps:

1. :func:`nearest_neighbours` computes, once per embedding, the top-``depth`` most cosine-similar words of every word
   over the whole embedding vocabulary (exact, blockwise BLAS products of unit-normalised float32 vectors).
2. :class:`TermSimilarityBuilder` prepares one dictionary (and tf-idf model) once; its :meth:`~TermSimilarityBuilder.build`
   runs the greedy column-filling algorithm of gensim's ``SparseTermSimilarityMatrix`` in a numba loop over the
   cache, in well under a second per grid point. A grid over both Idf values goes through
   :class:`regemb_utils.termsim.orthogonalization.MatrixGrid`, the entry the chapters use. The plain definition it must equal entry for entry is
   :func:`regemb_utils.termsim.reference.reference_term_similarity_matrix`.

Two fill rules are implemented (:data:`FILL_RULES`):

``fill_rule="gensim"``
    exactly gensim 4.4's ``SparseTermSimilarityMatrix(WordEmbeddingSimilarityIndex(kv, threshold, exponent),
    dictionary, tfidf, symmetric, dominant, nonzero_limit, dtype=np.float32)`` (``_create_source``): a candidate that
    would break strict diagonal dominance, overfill a column or hit an already assigned cell is skipped
    (``continue``). Dominance sums are float32 (numpy 2 / NEP 50: ``float32 + python float`` is float32).
``fill_rule="paper"``
    the loop of the fork that the paper used (``Witiko/gensim@regularized-embeddings``, gensim 3.7/3.8 code): the same,
    except that a dominance violation of the current column *ends* that column (``break``). The fork ran on numpy
    1.16, where ``float32 scalar + python float`` is float64, so dominance sums are compared in float64 and stored
    back into a float32 array; this is reproduced.

Common semantics (both rules, read from the gensim sources):

* Columns are processed in descending idf order, ties broken by the smaller term id (``key=(-idf, id)``); without a
  tf-idf model, in term-id order.
* Column ``t1`` asks ``kv.most_similar(t1, topn=nonzero_limit - nnz(t1))`` where ``nnz`` counts the off-diagonal
  entries already in the column (the diagonal is not counted); the neighbours are ranked over the whole embedding
  vocabulary and only then filtered to the dictionary and to ``similarity > threshold``; the value is
  ``similarity ** exponent`` (float64, stored as float32).
* The surviving candidates are visited in the column order above (idf descending, then id), *not* by similarity.
* ``nonzero_limit`` bounds the number of off-diagonal non-zeros in every column.
* Symmetric: a pair is placed at (t1, t2) and (t2, t1) only when column t2 has room, would stay strictly diagonally
  dominant (if ``dominant``) and the cell is not yet assigned.
* Words of the dictionary without an embedding keep only their diagonal 1.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic
from scipy import sparse

from ..infra.keys import same_result_as
from ..infra.progress import progress_bar
from .reference import reference_term_similarity_matrix

FILL_RULES = ("paper", "gensim")

__all__ = ["Neighbours", "nearest_neighbours", "TermSimilarityBuilder", "FILL_RULES"]


# --------------------------------------------------------------------------------------------------------------
# 1. nearest-neighbour cache
# --------------------------------------------------------------------------------------------------------------
@dataclass
class Neighbours:
    """Top-``depth`` cosine neighbours of ``words`` over the embedding vocabulary ``keys``.

    ``indices[i, j]`` is the index into ``keys`` of the ``j``-th most similar word to ``words[i]`` (the word itself
    excluded) and ``similarities[i, j]`` its cosine similarity (float32). Rows are sorted by descending similarity,
    ties by ascending index.

    Parameters
    ----------
    keys : list of str
        The embedding vocabulary (``kv.index_to_key``).
    words : list of str
        The words whose neighbours are held, one row each.
    indices : numpy.ndarray
        ``int32 [len(words), depth]`` indices into ``keys``.
    similarities : numpy.ndarray
        ``float32 [len(words), depth]`` cosines.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> neighbours = nearest_neighbours(kv, depth=1, progress=False)
    >>> neighbours.depth, [neighbours.keys[i] for i in neighbours.indices[:, 0]]
    (1, ['b', 'a', 'b'])
    """

    keys: list[str]
    words: list[str]
    indices: np.ndarray  # int32 [n_words, depth]
    similarities: np.ndarray  # float32 [n_words, depth]
    _row_of: dict[str, int] | None = field(default=None, repr=False, compare=False)

    @property
    def depth(self) -> int:
        """Neighbours per word."""
        return int(self.indices.shape[1])

    @property
    def row_of(self) -> dict[str, int]:
        if self._row_of is None:
            self._row_of = {word: row for row, word in enumerate(self.words)}
        return self._row_of

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_row_of"] = None
        return state

    def save(self, path) -> None:
        np.savez(
            path,
            keys=np.array(self.keys, dtype=object),
            words=np.array(self.words, dtype=object),
            indices=self.indices,
            similarities=self.similarities,
        )

    @classmethod
    def load(cls, path) -> "Neighbours":
        with np.load(path, allow_pickle=True) as f:
            return cls(list(f["keys"]), list(f["words"]), f["indices"], f["similarities"])


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    return vectors / norms[:, None]


def is_binary(vectors: np.ndarray) -> bool:
    """Whether each row's entries share one magnitude (Word2Bits: ±1/3), so cos = (d − 2h) / d for Hamming distance h.

    Parameters
    ----------
    vectors : numpy.ndarray

    Returns
    -------
    bool

    Examples
    --------
    >>> is_binary(np.array([[1.0, -1.0], [-0.5, 0.5]])), is_binary(np.array([[1.0, 0.5]]))
    (True, False)
    """
    magnitude = np.abs(vectors[:, :1])
    return bool(np.all(magnitude > 0) and np.all(np.abs(vectors) == magnitude))


def _sign_bits(vectors: np.ndarray) -> np.ndarray:
    """Sign bits (x >= 0 gives 1, as Word2Bits' quantizer), packed into uint64 words, zero-padded."""
    bits = np.packbits(vectors >= 0, axis=1)
    padded = np.zeros((len(vectors), -(-bits.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, : bits.shape[1]] = bits
    return padded.view(np.uint64)


@intrinsic
def _popcount(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@numba.njit(parallel=True, cache=True)
def _binary_top_k(packed, query, k, dimensions, indices, similarities):  # pragma: no cover - numba
    """For each query row, the ``k`` rows of smallest Hamming distance (ties: smaller index), by counting sort."""
    n, words = packed.shape
    for r in numba.prange(len(query)):
        q = query[r]
        distance = np.empty(n, np.int32)
        counts = np.zeros(dimensions + 2, np.int64)
        for j in range(n):
            h = 0
            for w in range(words):
                h += _popcount(packed[q, w] ^ packed[j, w])
            distance[j] = h
        distance[q] = dimensions + 1  # never one's own neighbour
        for j in range(n):
            counts[distance[j]] += 1
        cut, before = 0, 0  # all rows with distance < cut are taken, then the first (k - before) at distance == cut
        while before + counts[cut] < k:
            before += counts[cut]
            cut += 1
        offsets = np.empty(cut + 1, np.int64)
        position = 0
        for h in range(cut + 1):
            offsets[h] = position
            position += counts[h]
        for j in range(n):  # ascending j: ties come out in index order
            h = distance[j]
            if h <= cut and offsets[h] < k:
                indices[r, offsets[h]] = j
                similarities[r, offsets[h]] = (dimensions - 2.0 * h) / dimensions
                offsets[h] += 1


def nearest_neighbours(
    kv,
    words: Sequence[str] | None = None,
    depth: int = 800,
    *,
    block_size: int | None = None,
    progress: bool = True,
    bits: bool | None = None,
) -> Neighbours:
    """Exact top-``depth`` cosine neighbours of every word of ``words`` that has an embedding in ``kv``.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
    words : the words to compute neighbours for (default: the whole embedding vocabulary). Words without an
        embedding are dropped.
    depth : neighbours per word (the paper's largest C is 800); capped at ``len(kv) - 1``.
    block_size : query rows per step (a BLAS product: by default one block of similarities is about 256 MiB; bit
        operations: 2,048 rows by default).
    progress : show a tqdm progress bar.
    bits : compute with bit operations (XOR and popcount of packed sign bits), exact for vectors whose entries all
        have one magnitude per row, such as 1-bit quantized ones; ``None`` (default) does so when they have. Their
        similarities are then the exact ``(d - 2h) / d`` rounded to float32, and ties are exact.

    Returns
    -------
    Neighbours
        The cache, one row per word with an embedding.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> nearest_neighbours(kv, depth=1, progress=False).similarities.astype(float).round(2).tolist()
    [[0.8], [0.8], [0.6]]
    """
    keys = list(kv.index_to_key)
    n_keys = len(keys)
    if n_keys < 2:
        raise ValueError("the embedding vocabulary needs at least two words")
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    depth = min(int(depth), n_keys - 1)
    if words is None:
        words = keys
    words = [word for word in words if word in kv.key_to_index]
    query = np.fromiter((kv.key_to_index[word] for word in words), dtype=np.int64, count=len(words))

    binary = is_binary(kv.vectors)
    if bits is None:
        bits = binary
    elif bits and not binary:
        raise ValueError("bits=True needs vectors whose entries all have the same magnitude within a row")
    indices = np.empty((len(words), depth), dtype=np.int32)
    similarities = np.empty((len(words), depth), dtype=np.float32)
    if bits:
        packed = _sign_bits(kv.vectors)
        block_size = block_size or 2048
    else:
        unit = _unit_rows(kv.vectors)
        block_size = block_size or max(1, min(4096, (256 << 20) // (4 * n_keys)))

    starts = range(0, len(words), block_size)
    if progress:
        starts = progress_bar(starts, desc="nearest neighbours", unit="block")
    for start in starts:
        stop = min(start + block_size, len(words))
        if bits:
            _binary_top_k(
                packed, query[start:stop], depth, kv.vector_size, indices[start:stop], similarities[start:stop]
            )
        else:
            indices[start:stop], similarities[start:stop] = _blas_top_k(unit, query[start:stop], depth)
    return Neighbours(keys=keys, words=list(words), indices=indices, similarities=similarities)


def _blas_top_k(unit: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    n_keys = len(unit)
    rows = np.arange(len(query))
    block = unit[query] @ unit.T  # [b, n_keys] float32
    block[rows, query] = -np.inf  # never one's own neighbour
    top = np.argpartition(block, n_keys - k, axis=1)[:, n_keys - k :]
    top_sims = np.take_along_axis(block, top, axis=1)
    # exact order: similarity descending, then index ascending
    order = np.lexsort((top, -top_sims), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    top_sims = np.take_along_axis(top_sims, order, axis=1)
    # ties at the cut-off: argpartition chose arbitrarily among equal values; take the smallest indices among
    # them instead (quantized embeddings have few distinct cosines, so this is the common case for them)
    kth = top_sims[:, -1]
    ambiguous = np.flatnonzero(np.count_nonzero(block >= kth[:, None], axis=1) > k)
    for row in ambiguous:
        above = np.flatnonzero(block[row] > kth[row])
        tied = np.flatnonzero(block[row] == kth[row])[: k - above.size]
        chosen = np.concatenate([above[np.lexsort((above, -block[row, above]))], tied])
        top[row] = chosen
        top_sims[row] = block[row, chosen]
    return top, top_sims


def neighbours_from_gensim(kv, words: Sequence[str] | None = None, depth: int = 800) -> Neighbours:
    """The same cache, filled by ``kv.most_similar(word, topn=depth)`` one word at a time (slow; for checking).

    Its similarities are bit-identical to the ones gensim's ``WordEmbeddingSimilarityIndex`` sees, so matrices built
    from it match gensim's even where a float32 rounding difference of the fast cache would flip a comparison.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embeddings.
    words : sequence of str, optional
        The words (default: the vocabulary); words without an embedding are dropped.
    depth : int
        Neighbours per word; capped at ``len(kv) - 1``.

    Returns
    -------
    Neighbours
        The cache.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> neighbours_from_gensim(kv, depth=1).indices.tolist()
    [[1], [0], [1]]
    """
    keys = list(kv.index_to_key)
    depth = min(int(depth), len(keys) - 1)
    if words is None:
        words = keys
    words = [word for word in words if word in kv.key_to_index]
    indices = np.empty((len(words), depth), dtype=np.int32)
    similarities = np.empty((len(words), depth), dtype=np.float32)
    for row, word in enumerate(words):
        result = kv.most_similar(positive=[word], topn=depth)
        indices[row] = [kv.key_to_index[key] for key, _ in result]
        similarities[row] = [similarity for _, similarity in result]
    return Neighbours(keys=keys, words=words, indices=indices, similarities=similarities)


# --------------------------------------------------------------------------------------------------------------
# 2. the matrix builder
# --------------------------------------------------------------------------------------------------------------
def column_order(dictionary, tfidf=None) -> np.ndarray:
    """Term ids in the order gensim processes the columns: ``sorted(ids, key=lambda i: (-idf[i], i))`` or id order.

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
        The columns.
    tfidf : gensim.models.TfidfModel, optional
        Its idf orders the columns (None: by id).

    Returns
    -------
    numpy.ndarray
        Dictionary ids in processing order.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> column_order(Dictionary([["a", "b"], ["a"]]))
    array([0, 1])
    """
    n = len(dictionary)
    if tfidf is None:
        return np.arange(n, dtype=np.int64)
    idfs = tfidf.idfs
    if len(idfs) != n or any(i not in idfs for i in range(n)):
        raise ValueError(
            "the tf-idf model must have an idf for every term id of the dictionary "
            "(e.g. TfidfModel(dictionary=dictionary))"
        )
    idf = np.fromiter((idfs[i] for i in range(n)), dtype=np.float64, count=n)
    ids = np.arange(n, dtype=np.int64)
    return np.lexsort((ids, -idf))


@numba.njit(cache=True, nogil=True, inline="always")
def _value(s, power, have_power, exponent, integral, odd):
    """similarity ** exponent as CPython computes it (float64); ``power`` is the memoised value if ``have_power``."""
    if have_power:
        return power
    if exponent == 1.0:
        return s
    if exponent == 2.0:
        return s * s  # exact for a float32 s, hence equal to pow(s, 2)
    if s < 0.0 and integral:  # CPython: pow(|s|, y), negated for odd integer y
        v = math.pow(-s, exponent)
        return -v if odd else v
    return math.pow(s, exponent)


@numba.njit(cache=True, nogil=True, parallel=True)
def _column_order_arrays(nbr_idx, nbr_sim, sorted_pos, id_pos, kv2comp):
    """The candidates of every cache row in column order, computed once per dictionary and shared by every grid
    point: ``cand`` (compact ids), ``cand_pos`` (rank among the word's neighbours, for the ``topn`` cut),
    ``cand_sim`` (the cosines), ``n_cand`` (how many are dictionary words: they come first, the others are never
    used) and ``id_order`` (the same candidates' indices in column order, listed by ascending id)."""
    m = nbr_idx.shape[0]
    k = nbr_idx.shape[1]
    cand = np.full((m, k), -1, dtype=np.int32)
    cand_pos = np.zeros((m, k), dtype=sorted_pos.dtype)
    cand_sim = np.zeros((m, k), dtype=np.float32)
    id_order = np.zeros((m, k), dtype=sorted_pos.dtype)
    n_cand = np.zeros(m, dtype=np.int32)
    for c in numba.prange(m):
        j_of_pos = np.empty(k, dtype=np.int64)
        n = 0
        for j in range(k):
            pos = sorted_pos[c, j]
            c2 = kv2comp[nbr_idx[c, pos]]
            if c2 < 0:  # words outside the dictionary sort last
                break
            cand[c, j] = c2
            cand_pos[c, j] = pos
            cand_sim[c, j] = nbr_sim[c, pos]
            j_of_pos[pos] = j
            n += 1
        n_cand[c] = n
        for i in range(n):  # id order lists the same n dictionary words first
            id_order[c, i] = j_of_pos[id_pos[c, i]]
    return cand, cand_pos, cand_sim, id_order, n_cand


@numba.njit(cache=True, nogil=True)
def _fill_symmetric(
    process,
    cand,
    cand_pos,
    cand_sim,
    n_cand,
    powers,
    limit,
    threshold,
    exponent,
    dominant,
    paper,
    chosen,
    received,
    values,
):
    """The greedy loop for a symmetric S' over the shared column-order arrays. Columns depend on the columns
    processed before them, so this loop is sequential; it writes little: a flag per accepted candidate of the
    column being processed (``chosen[c1, j]``, its own entries) and, for a partner not yet processed, c1 into the
    partner's list of received rows (read back only for the "cell already assigned" check when the partner is
    processed).

    powers: [m, k] float64 similarity**exponent in column order, or a [0, 0] array to compute them here.
    chosen: uint8 [m, k] zeros, received: int32 [m, limit] (allocated by the caller: numpy advises huge pages for
    them, which the scattered writes need); values: float32 [m, k] receiving each chosen entry's value when
    ``powers`` are given (later passes read them instead of the float64 powers), else [0, 0]. Returns ``chosen``,
    ``count`` (entries per column, own and received) and ``n_own``.
    """
    m = cand.shape[0]
    n_own = np.zeros(m, dtype=np.int32)
    # what a candidate's partner c2 is read for, in one cache line per word: its entries so far, the column whose
    # candidate it last was as a received row ("cell already assigned"), whether it was processed, its dominance sum
    state = np.zeros((m, 4), dtype=np.int32)
    colsums = state.view(np.float32)  # column 3: the dominance sum (float32 bits; 0 is 0.0)
    for c in range(m):
        state[c, 1] = -1
    one32 = np.float32(1.0)
    have_powers = powers.shape[0] > 0
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    for step in range(process.shape[0]):
        c1 = process[step]
        state[c1, 2] = 1  # processed
        count1 = state[c1, 0]
        p = limit - count1  # num_rows: neighbours requested from most_similar
        if p <= 0:
            continue
        for e in range(count1):  # every entry so far was received
            state[received[c1, e], 1] = c1
        colsum1 = colsums[c1, 3]
        own = 0
        for j in range(n_cand[c1]):  # candidates in column order (idf desc, id asc)
            if cand_pos[c1, j] >= p:
                continue
            s = np.float64(cand_sim[c1, j])
            if not (s > threshold):
                continue
            c2 = cand[c1, j]
            count2 = state[c2, 0]
            v = 0.0
            a = 0.0
            if dominant or have_powers:
                v = _value(s, powers[c1, j] if have_powers else 0.0, have_powers, exponent, integral, odd)
                a = abs(v)
            a32 = np.float32(a)
            if paper:  # a dominance violation of the column ends it
                if dominant and np.float64(colsum1) + a >= 1.0:
                    break
                accept = count2 < limit and (not dominant or np.float64(colsums[c2, 3]) + a < 1.0)
            else:  # any violation skips the candidate
                accept = (
                    count1 < limit
                    and count2 < limit
                    and not (dominant and (colsum1 + a32 >= one32 or colsums[c2, 3] + a32 >= one32))
                )
            if not accept or state[c2, 1] == c1:
                continue
            chosen[c1, j] = 1
            if have_powers:
                values[c1, j] = np.float32(v)
            own += 1
            count1 += 1
            if state[c2, 2] == 0:  # not processed yet: c2 will need to know
                received[c2, count2] = c1
            state[c2, 0] = count2 + 1
            if dominant and paper:  # the fork's float64 sums, stored back into float32
                colsum1 = np.float32(np.float64(colsum1) + a)
                colsums[c2, 3] = np.float32(np.float64(colsums[c2, 3]) + a)
            elif dominant:
                colsum1 = colsum1 + a32
                colsums[c2, 3] = colsums[c2, 3] + a32
        state[c1, 0] = count1
        colsums[c1, 3] = colsum1
        n_own[c1] = own
    return chosen, state[:, 0].copy(), n_own


@numba.njit(cache=True, nogil=True, parallel=True)
def _fill_independent(
    process, cand, cand_pos, cand_sim, n_cand, powers, limit, threshold, exponent, dominant, paper, chosen, values
):
    """The greedy loop for a non-symmetric S': every column depends only on its own candidates, so the columns run
    in parallel. Same arguments and results as :func:`_fill_symmetric` (every entry is its column's own)."""
    m = cand.shape[0]
    count = np.zeros(m, dtype=np.int32)
    one32 = np.float32(1.0)
    have_powers = powers.shape[0] > 0
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    for step in numba.prange(process.shape[0]):
        c1 = process[step]
        n_chosen = 0
        colsum = np.float32(0.0)
        for j in range(n_cand[c1]):  # candidates in column order (idf desc, id asc)
            if cand_pos[c1, j] >= limit:
                continue
            s = np.float64(cand_sim[c1, j])
            if not (s > threshold):
                continue
            v = _value(s, powers[c1, j] if have_powers else 0.0, have_powers, exponent, integral, odd)
            a = abs(v)
            if paper:
                if dominant and np.float64(colsum) + a >= 1.0:
                    break
                if dominant:
                    colsum = np.float32(np.float64(colsum) + a)
            else:
                if dominant and colsum + np.float32(a) >= one32:
                    continue
                if n_chosen == limit:
                    continue
                if dominant:
                    colsum = colsum + np.float32(a)
            chosen[c1, j] = 1
            if have_powers:
                values[c1, j] = np.float32(v)
            n_chosen += 1
        count[c1] = n_chosen
    return chosen, count, count.copy()


@numba.njit(cache=True, nogil=True, inline="always")
def _chosen_value(c, j, cand_sim, powers, have_powers, exponent, integral, odd):
    """The float32 value of candidate j of column c (the same computation as in the fills)."""
    return np.float32(
        _value(np.float64(cand_sim[c, j]), powers[c, j] if have_powers else 0.0, have_powers, exponent, integral, odd)
    )


@numba.njit(cache=True, nogil=True, parallel=True)
def _transpose_own(chosen, cand, cand_sim, n_cand, powers, exponent, received_start, n_parts, rows, vals):
    """The transposed own entries of a symmetric fill: for every column r, the columns c whose own entries hold r,
    in ascending c, with their values (``rows[received_start[r]:received_start[r + 1]]``). Parallel over ``n_parts``
    ranges of source columns, each writing from its own per-column offsets (a counting pass first)."""
    m = cand.shape[0]
    have_powers = powers.shape[0] > 0
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    bounds = np.empty(n_parts + 1, dtype=np.int64)
    for t in range(n_parts + 1):
        bounds[t] = (m * t) // n_parts
    offsets = np.zeros((n_parts, m), dtype=np.int64)
    for t in numba.prange(n_parts):
        for c in range(bounds[t], bounds[t + 1]):
            for j in range(n_cand[c]):
                if chosen[c, j]:
                    offsets[t, cand[c, j]] += 1
    for r in numba.prange(m):
        position = received_start[r]
        for t in range(n_parts):
            size = offsets[t, r]
            offsets[t, r] = position
            position += size
    for t in numba.prange(n_parts):
        for c in range(bounds[t], bounds[t + 1]):
            for j in range(n_cand[c]):
                if chosen[c, j]:
                    r = cand[c, j]
                    position = offsets[t, r]
                    offsets[t, r] = position + 1
                    rows[position] = c
                    vals[position] = _chosen_value(c, j, cand_sim, powers, have_powers, exponent, integral, odd)


@numba.njit(cache=True, nogil=True, parallel=True)
def _assemble_csc(
    comp_of_dict,
    dict_of_comp,
    chosen,
    cand,
    cand_sim,
    id_order,
    n_cand,
    powers,
    exponent,
    received_start,
    received_rows,
    received_vals,
    indptr,
    indices,
    data,
):
    """CSC arrays of S' (unit diagonal) into ``indices`` and ``data`` at ``indptr`` (allocated by the caller), columns
    in parallel: each column merges its own entries (flags of ``chosen`` read in id order), the entries it received
    (ascending already) and the diagonal."""
    have_powers = powers.shape[0] > 0
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    for d in numba.prange(len(comp_of_dict)):
        out = indptr[d]
        c = comp_of_dict[d]
        if c < 0:
            indices[out] = d
            data[out] = 1.0
            continue
        q = received_start[c]
        q_end = received_start[c + 1]
        next_received = received_rows[q] if q < q_end else 2147483647
        diagonal_done = False
        for i in range(n_cand[c]):  # own entries by ascending row
            j = id_order[c, i]
            if not chosen[c, j]:
                continue
            r = cand[c, j]
            while next_received < r:
                if not diagonal_done and c < next_received:
                    indices[out] = d
                    data[out] = 1.0
                    out += 1
                    diagonal_done = True
                indices[out] = dict_of_comp[next_received]
                data[out] = received_vals[q]
                out += 1
                q += 1
                next_received = received_rows[q] if q < q_end else 2147483647
            if not diagonal_done and c < r:
                indices[out] = d
                data[out] = 1.0
                out += 1
                diagonal_done = True
            indices[out] = dict_of_comp[r]
            data[out] = _chosen_value(c, j, cand_sim, powers, have_powers, exponent, integral, odd)
            out += 1
        while q < q_end:
            r = received_rows[q]
            if not diagonal_done and c < r:
                indices[out] = d
                data[out] = 1.0
                out += 1
                diagonal_done = True
            indices[out] = dict_of_comp[r]
            data[out] = received_vals[q]
            out += 1
            q += 1
        if not diagonal_done:
            indices[out] = d
            data[out] = 1.0


_SLOTS = 4096  # powers remembered by cosine, per thread (more than the d + 1 cosines of 1-bit d-dimensional vectors)


@numba.njit(cache=True, nogil=True, inline="always")
def _remembered_value(s, exponent, integral, odd, keys, values, remember):
    """float64(s) ** exponent (:func:`_value`) for a float32 cosine s, with ``remember`` from a small table indexed by
    the cosine when the same cosine came before (1-bit embeddings have few distinct cosines; the same cosine has the
    same power)."""
    if not remember or not (s >= -1.0 and s <= 1.0):
        return _value(np.float64(s), 0.0, False, exponent, integral, odd)
    slot = int((np.float64(s) + 1.0) * (_SLOTS // 2 - 1))
    if keys[slot] == s:
        return values[slot]
    v = _value(np.float64(s), 0.0, False, exponent, integral, odd)
    keys[slot] = s
    values[slot] = v
    return v


@numba.njit(cache=True, nogil=True, parallel=True)
def _powers(sims, exponent, remember=False):
    """float64(s) ** exponent as CPython computes it (:func:`_value`) for every cosine of ``sims`` (2-D);
    ``remember``: through a table per thread (for few distinct cosines)."""
    out = np.empty(sims.shape, dtype=np.float64)
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    m = sims.shape[0]
    parts = min(m, 256)
    for t in numba.prange(parts):
        keys = np.full(_SLOTS, np.nan, dtype=np.float32)
        values = np.empty(_SLOTS, dtype=np.float64)
        for r in range(m * t // parts, m * (t + 1) // parts):
            for j in range(sims.shape[1]):
                out[r, j] = _remembered_value(sims[r, j], exponent, integral, odd, keys, values, remember)
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _smallest_similarity(cand_pos, cand_sim, n_cand, limit):
    """The smallest cosine among the candidates that a fill with ``nonzero_limit=limit`` can visit (rank below
    ``limit``; +inf for none): a threshold below it filters nothing."""
    m = cand_sim.shape[0]
    smallest = np.full(m, np.inf)
    for c in numba.prange(m):
        low = np.inf
        for j in range(n_cand[c]):
            if cand_pos[c, j] < limit and cand_sim[c, j] < low:
                low = cand_sim[c, j]
        smallest[c] = low
    return smallest.min() if m else np.inf


@numba.njit(cache=True, nogil=True, parallel=True)
def _raised(similarities, exponent, out, remember=False):
    """out = float32(similarity ** exponent) entry by entry (the value of every entry of S', its unit diagonal
    included: 1 ** exponent is 1), computed as the fills and the assembly compute it (``remember``: as
    :func:`_powers`)."""
    integral = exponent == math.floor(exponent)
    odd = integral and exponent * 0.5 != math.floor(exponent * 0.5)
    n = len(similarities)
    parts = min(n, 256)
    for t in numba.prange(parts):
        keys = np.full(_SLOTS, np.nan, dtype=np.float32)
        values = np.empty(_SLOTS, dtype=np.float64)
        for i in range(n * t // parts, n * (t + 1) // parts):
            out[i] = np.float32(_remembered_value(similarities[i], exponent, integral, odd, keys, values, remember))
    return out


@numba.njit(cache=True, nogil=True)
def _sort_positions(keys, out):
    """For every row, the positions 0..k-1 sorted by (key, position): a stable argsort per row."""
    for r in range(keys.shape[0]):
        out[r] = np.argsort(keys[r], kind="mergesort")
    return out


_KEPT_BYTES = 768 << 20  # the last matrices a builder keeps for the next grid points (bytes of their arrays)


def _copy(matrix: sparse.csc_matrix) -> sparse.csc_matrix:
    """A copy of a kept matrix (callers may change theirs), its indices sorted as the original's."""
    copy = sparse.csc_matrix((matrix.data.copy(), matrix.indices.copy(), matrix.indptr.copy()), shape=matrix.shape)
    copy.has_sorted_indices = True
    return copy


@same_result_as(reference_term_similarity_matrix)  # exact: every grid point's S' equals the reference's (tests)
class TermSimilarityBuilder:
    """Builds many term-similarity matrices over one dictionary (and tf-idf model) from one neighbour cache.

    The constructor does the per-dictionary work once and shares it with every grid point: token mapping, column
    order, and every cache row's candidates gathered in column order (ids, ranks, cosines, and their id order);
    similarity**exponent is memoised per exponent. :meth:`build` is then a numba fill that reads those arrays
    sequentially and marks the accepted candidates (sequential for a symmetric S', parallel otherwise), a parallel
    transpose of the marks (symmetric) and a parallel CSC assembly that merges each column's own and received
    entries in row order (no sorting). :func:`regemb_utils.termsim.reference.reference_term_similarity_matrix`
    defines the result.

    Parameters
    ----------
    neighbours : Neighbours
        The neighbour cache.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'.
    tfidf : gensim.models.TfidfModel, optional
        Orders the columns by idf (the paper's Idf); None keeps the dictionary's order.

    Attributes
    ----------
    neighbours, dictionary, tfidf
        As given.
    n : int
        The dictionary's size.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> builder = TermSimilarityBuilder(nearest_neighbours(kv, depth=2, progress=False), Dictionary([["a", "b", "c"]]))
    >>> builder.build(1, -1.0, 1.0, symmetric=True, dominant=False).toarray().round(2)
    array([[1. , 0.8, 0. ],
           [0.8, 1. , 0. ],
           [0. , 0. , 1. ]], dtype=float32)
    """

    def __init__(self, neighbours: Neighbours, dictionary, tfidf=None):
        self.neighbours = neighbours
        self.dictionary = dictionary
        self.tfidf = tfidf
        n = len(dictionary)
        if n == 0:
            raise ValueError("the dictionary must not be empty")
        self.n = n
        order = column_order(dictionary, tfidf)
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)

        row_of = neighbours.row_of
        key_index = {key: i for i, key in enumerate(neighbours.keys)}
        kv2dict = np.full(len(neighbours.keys), -1, dtype=np.int64)
        embedded = np.zeros(n, dtype=bool)
        cache_row = np.full(n, -1, dtype=np.int64)
        missing = []
        for token, term_id in dictionary.token2id.items():
            i = key_index.get(token)
            if i is None:
                continue
            kv2dict[i] = term_id
            embedded[term_id] = True
            row = row_of.get(token)
            if row is None:
                missing.append(token)
            else:
                cache_row[term_id] = row
        if missing:
            raise ValueError(
                f"{len(missing)} dictionary words have an embedding but no row in the neighbour cache, "
                f"e.g. {missing[:5]}; compute the cache over these words"
            )
        dict_of_comp = np.flatnonzero(embedded).astype(np.int64)
        comp_of_dict = np.full(n, -1, dtype=np.int64)
        comp_of_dict[dict_of_comp] = np.arange(dict_of_comp.size)
        self.dict_of_comp = dict_of_comp
        self.comp_of_dict = comp_of_dict
        self.kv2comp = np.where(kv2dict >= 0, comp_of_dict[np.maximum(kv2dict, 0)], -1).astype(np.int64)
        self.process = comp_of_dict[order[embedded[order]]]

        # each cache row used, in column order (shared by every grid point: the fills read them sequentially)
        rows_used = cache_row[dict_of_comp]
        nbr_idx = np.ascontiguousarray(neighbours.indices[rows_used])
        big = np.int64(n)  # non-dictionary neighbours sort last
        pos_dtype = np.int16 if nbr_idx.shape[1] <= np.iinfo(np.int16).max else np.int32
        rank_of_kv = np.where(kv2dict >= 0, rank[np.maximum(kv2dict, 0)], big)
        sorted_pos = _sort_positions(rank_of_kv[nbr_idx], np.empty(nbr_idx.shape, dtype=pos_dtype))
        if tfidf is None:
            id_pos = sorted_pos
        else:
            id_of_kv = np.where(kv2dict >= 0, kv2dict, big)
            id_pos = _sort_positions(id_of_kv[nbr_idx], np.empty(nbr_idx.shape, dtype=pos_dtype))
        self.cand, self.cand_pos, self.cand_sim, self.id_order, self.n_cand = _column_order_arrays(
            nbr_idx, np.ascontiguousarray(neighbours.similarities[rows_used]), sorted_pos, id_pos, self.kv2comp
        )
        del nbr_idx, sorted_pos, id_pos
        self._powers_exponent = None
        self._powers = None
        self._smallest: dict[int, float] = {}  # C -> the smallest cosine a fill with that C can visit
        # few distinct cosines (1-bit embeddings: at most d + 1): their powers are remembered rather than recomputed
        self._few_cosines = bool(np.unique(self.cand_sim[:64]).size <= _SLOTS // 4)
        self._built: OrderedDict = OrderedDict()  # the last matrices built, by what determines them

    def powers(self, exponent: float) -> np.ndarray:
        """similarity ** exponent over the cache in column order (float64), memoised for the last exponent (Python's
        float pow)."""
        if exponent != self._powers_exponent:
            self._powers = None  # free the old one first
            self._powers = _powers(self.cand_sim, float(exponent), self._few_cosines)
            self._powers_exponent = exponent
        return self._powers

    def build(
        self,
        nonzero_limit: int = 100,
        threshold: float = 0.0,
        exponent: float = 2.0,
        *,
        symmetric: bool = True,
        dominant: bool = False,
        fill_rule: str = "paper",
        memoise_powers: bool = True,
    ) -> sparse.csc_matrix:
        """The sparse term-similarity matrix S' (float32 CSC over the dictionary's ids); see the module docstring.

        Grid points share what they can: a threshold below every cosine that the fill can visit (the candidates of
        rank below C) filters nothing, so all such thresholds give one matrix; without Dom the exponent changes no
        choice, only the values, so S' at any exponent is the matrix of cosines (exponent 1) with every entry
        raised (:func:`_raised`); the last matrices built are kept (:data:`_KEPT_BYTES`) and copied.

        Parameters
        ----------
        nonzero_limit : int
            C, the most non-zero entries per column besides the diagonal (at most the neighbour cache's depth).
        threshold : float
            t, the smallest similarity kept.
        exponent : float
            o, similarities are raised to it.
        symmetric, dominant : bool
            Sym and Dom.
        fill_rule : str
            How a dominance violation is handled (:data:`FILL_RULES`).
        memoise_powers : bool
            Keep similarity**exponent for the whole cache between calls (m × k float64) when the exponent is
            neither 1 nor 2 and the fill needs it (Dom).

        Returns
        -------
        scipy.sparse.csc_matrix
            S', float32.
        """
        nonzero_limit, threshold, exponent = _validate(
            nonzero_limit, threshold, exponent, fill_rule, self.neighbours.depth
        )
        if nonzero_limit not in self._smallest:
            self._smallest[nonzero_limit] = float(
                _smallest_similarity(self.cand_pos, self.cand_sim, self.n_cand, nonzero_limit)
            )
        filters = not self._smallest[nonzero_limit] > threshold
        choice = (bool(symmetric), bool(dominant), fill_rule, nonzero_limit, threshold if filters else None)
        if dominant:
            return _copy(
                self._kept(
                    choice + (exponent,),
                    lambda: self._fill(
                        nonzero_limit, threshold, exponent, symmetric, dominant, fill_rule, memoise_powers
                    ),
                )
            )
        cosines = self._kept(
            choice + (1.0,), lambda: self._fill(nonzero_limit, threshold, 1.0, symmetric, False, fill_rule, False)
        )
        if exponent == 1.0:
            return _copy(cosines)

        def raised():  # kept matrices are never handed out (only copies), so they may share the cosines' indices
            matrix = sparse.csc_matrix(
                (
                    _raised(cosines.data, exponent, np.empty_like(cosines.data), self._few_cosines),
                    cosines.indices,
                    cosines.indptr,
                ),
                shape=cosines.shape,
            )
            matrix.has_sorted_indices = True
            return matrix

        return _copy(self._kept(choice + (exponent,), raised, keep=choice + (1.0,)))

    def _kept(self, key, build, keep=None) -> sparse.csc_matrix:
        """The matrix of ``key`` from the last ones built, or ``build()`` kept (the oldest but ``keep`` dropped
        beyond :data:`_KEPT_BYTES`)."""
        matrix = self._built.get(key)
        if matrix is None:
            matrix = build()
            self._built[key] = matrix
            for old in [k for k in self._built if k not in (key, keep)]:
                if sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in self._built.values()) <= _KEPT_BYTES:
                    break
                del self._built[old]
        self._built.move_to_end(key)
        return matrix

    def _fill(self, nonzero_limit, threshold, exponent, symmetric, dominant, fill_rule, memoise_powers):
        """S' at one grid point by the fill, the transpose and the assembly."""
        if memoise_powers and exponent not in (1.0, 2.0):
            powers = self.powers(exponent)
        else:
            powers = np.empty((0, 0), dtype=np.float64)
        arguments = (
            self.process,
            self.cand,
            self.cand_pos,
            self.cand_sim,
            self.n_cand,
            powers,
            nonzero_limit,
            threshold,
            exponent,
            bool(dominant),
            fill_rule == "paper",
        )
        # the large arrays come from numpy, which advises huge pages for them (fewer page faults and TLB misses)
        chosen = np.zeros(self.cand.shape, dtype=np.uint8)
        values = np.empty(self.cand.shape if powers.shape[0] else (0, 0), dtype=np.float32)
        if symmetric:
            received = np.empty((len(self.cand), nonzero_limit), dtype=np.int32)
            chosen, count, n_own = _fill_symmetric(*arguments, chosen, received, values)
            del received
        else:
            chosen, count, n_own = _fill_independent(*arguments, chosen, values)
        if powers.shape[0]:  # the later passes read the chosen values (float32) rather than the powers (float64)
            powers = values
        received_start = np.zeros(len(count) + 1, dtype=np.int64)
        np.cumsum(count - n_own, out=received_start[1:])
        received_rows = np.empty(received_start[-1], dtype=np.int32)
        received_vals = np.empty(received_start[-1], dtype=np.float32)
        if symmetric:
            _transpose_own(
                chosen,
                self.cand,
                self.cand_sim,
                self.n_cand,
                powers,
                exponent,
                received_start,
                numba.get_num_threads(),
                received_rows,
                received_vals,
            )
        indptr = np.ones(self.n + 1, dtype=np.int64)
        indptr[0] = 0
        embedded = self.comp_of_dict >= 0
        indptr[1:][embedded] += count[self.comp_of_dict[embedded]]
        np.cumsum(indptr, out=indptr)
        indices = np.empty(indptr[-1], dtype=np.int32)
        data = np.empty(indptr[-1], dtype=np.float32)
        _assemble_csc(
            self.comp_of_dict,
            self.dict_of_comp,
            chosen,
            self.cand,
            self.cand_sim,
            self.id_order,
            self.n_cand,
            powers,
            exponent,
            received_start,
            received_rows,
            received_vals,
            indptr,
            indices,
            data,
        )
        matrix = sparse.csc_matrix((data, indices, indptr), shape=(self.n, self.n))
        matrix.has_sorted_indices = True
        return matrix


def _validate(nonzero_limit, threshold, exponent, fill_rule, depth):
    if fill_rule not in FILL_RULES:
        raise ValueError(f"unknown fill rule {fill_rule!r}; allowed: {', '.join(FILL_RULES)}")
    if isinstance(nonzero_limit, bool) or not isinstance(nonzero_limit, (int, np.integer)):
        raise TypeError(f"nonzero_limit must be an integer, got {nonzero_limit!r}")
    if nonzero_limit < 1:
        raise ValueError(f"nonzero_limit must be at least 1, got {nonzero_limit}")
    if nonzero_limit > depth:
        raise ValueError(
            f"nonzero_limit={nonzero_limit} exceeds the neighbour cache's depth={depth}; "
            f"recompute the cache with depth >= {nonzero_limit}"
        )
    threshold = float(threshold)
    if not -1.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must lie in [-1, 1], got {threshold}")
    exponent = float(exponent)
    if not exponent > 0 or not math.isfinite(exponent):
        raise ValueError(f"exponent must be positive and finite, got {exponent}")
    if threshold < 0 and exponent != math.floor(exponent):
        raise ValueError(
            f"a negative threshold ({threshold}) admits negative similarities, which a non-integer "
            f"exponent ({exponent}) would make complex"
        )
    return int(nonzero_limit), threshold, exponent
