"""Document similarities for all (query, collection) pairs at once (paper §3, §5.4).

All functions take document matrices as produced by :mod:`regemb_utils.measures.representations` (rows = documents, columns
= common dictionary ids) and return a dense ``numpy`` array ``[n_X, n_Y]``: rows are the first argument (queries,
e.g. the test or validation split), columns the second (the collection, i.e. the training split). None of them ever
returns NaN.

* :func:`cosine_similarity` – the BoW baseline (cosine of raw counts); an all-zero row has similarity 0 to everything.
* :func:`dense_scm` – the "Soft VSM" without regularisation: the SCM with S = cosines of the embeddings, computed as
  the cosine of the weighted sums of **unit** word vectors (X·E_unit). Dictionary words without an embedding have a
  zero row in ``E`` and so contribute nothing (their diagonal in S is effectively 0, as in the paper's code).
* :func:`sparse_scm` – the SCM with a sparse term-similarity matrix S': X S' Yᵀ divided by √(xᵀS'x)√(yᵀS'y), in one
  numba pass (no intermediate X S' matrix is formed).  **Documents with xᵀS'x ≤ 0** (an empty document, a document
  without a known word, or – with a non-positive-definite S' – a document whose quadratic form is negative) get
  similarity **0 to every document**, and are counted in :class:`ScmInfo`. The paper's code gave 0 for xᵀS'x = 0
  (its ``inf`` was zeroed) but NaN for xᵀS'x < 0 (``sqrt`` of a negative number); gensim 4 raises an assertion.
  With ``clip=True`` the values are clipped to [-1, 1] as gensim's ``inner_product(..., normalized=(True, True))``
  does; the paper's batch code did not clip (default ``clip=False``).
* :func:`scm_contributions` – one pair of documents word pair by word pair: xᵢSᵢⱼyⱼ/(√(xᵀSx)√(yᵀSy)), which sum to
  the SCM, for the dense S (:func:`cosine_term_similarity`) or a sparse S'.
* :func:`l1_distance` – the L1 distance (e.g. over TF-IDF L1 rows, Sato et al. 2022); use ``-distance`` as a
  similarity for kNN.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic
from scipy import sparse

from ..infra.keys import changes_no_result, same_result_as
from .representations import l2_normalize

__all__ = [
    "ScmInfo",
    "cosine_similarity",
    "embedding_matrix",
    "unit_rows",
    "dense_scm",
    "cosine_term_similarity",
    "ScmContributions",
    "scm_contributions",
    "slope_effect_on_scm",
    "sparse_scm",
    "reference_sparse_scm",
    "l1_distance",
]


# ----------------------------------------------------------------------------------------------------------------
# helpers


def _csr(matrix, name: str) -> sparse.csr_matrix:
    if not sparse.issparse(matrix):
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise ValueError(f"{name} must be a 2-D document matrix")
    matrix = sparse.csr_matrix(matrix)
    if matrix.dtype not in (np.float32, np.float64):
        matrix = matrix.astype(np.float64)
    if not np.all(np.isfinite(matrix.data)):
        raise ValueError(f"{name} contains non-finite weights")
    return matrix


def _check_columns(X, Y) -> None:
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} columns and Y {Y.shape[1]}: both must use the common dictionary")


@contextmanager
@changes_no_result  # how many threads compute: not what (and numba's default differs between processes)
def _numba_threads(n_threads: int | None):
    if n_threads is None:
        yield
        return
    if n_threads < 1:
        raise ValueError("n_threads must be at least 1")
    previous = numba.get_num_threads()
    numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


# ----------------------------------------------------------------------------------------------------------------
# cosine (BoW)


def cosine_similarity(X, Y, dtype=np.float64) -> np.ndarray:
    """The ``[n_X, n_Y]`` cosines of the rows of ``X`` and ``Y`` (documents over the same columns; a zero row: 0).

    Parameters
    ----------
    X, Y : scipy.sparse matrix or array_like
    dtype : numpy dtype

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> cosine_similarity(sparse.csr_matrix([[1.0, 0.0], [0.0, 0.0]]), [[1.0, 1.0]]).round(4).tolist()
    [[0.7071], [0.0]]
    """
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    return np.asarray((l2_normalize(X) @ l2_normalize(Y).T).toarray(), dtype=dtype)


# ----------------------------------------------------------------------------------------------------------------
# dense soft VSM


def embedding_matrix(keyed_vectors, dictionary, dtype=np.float32, terms=None) -> np.ndarray:
    """Rows of ``keyed_vectors`` for the dictionary ids ``terms`` (default: every id, in id order); words without an
    embedding get a zero row.

    The rows are the *raw* vectors (WMD uses them as they are; :func:`dense_scm` normalises them).

    Parameters
    ----------
    keyed_vectors : gensim.models.KeyedVectors
        The embeddings.
    dictionary : gensim.corpora.Dictionary
        Maps ids to words.
    dtype : numpy dtype
        Of the rows.
    terms : array_like of int, optional
        Dictionary ids (e.g. ``Documents.terms``).

    Returns
    -------
    numpy.ndarray
        ``[len(terms), vector_size]``.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a"], np.array([[3.0, 4.0]]))
    >>> embedding_matrix(kv, Dictionary([["a", "z"]]))
    array([[3., 4.],
           [0., 0.]], dtype=float32)
    """
    terms = range(len(dictionary)) if terms is None else [int(term) for term in terms]
    matrix = np.zeros((len(terms), keyed_vectors.vector_size), dtype=dtype)
    key_to_index = keyed_vectors.key_to_index
    words = ((row, dictionary[term]) for row, term in enumerate(terms))
    rows = [(row, key_to_index[word]) for row, word in words if word in key_to_index]
    if rows:
        target, source = map(np.asarray, zip(*rows))
        matrix[target] = keyed_vectors.vectors[source]
    return matrix


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm; zero rows stay zero.

    Parameters
    ----------
    matrix : numpy.ndarray
        Rows of vectors.

    Returns
    -------
    numpy.ndarray
        The unit rows.

    Examples
    --------
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    matrix = np.asarray(matrix)
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(norms > 0, matrix / norms, 0.0)
    return scaled.astype(matrix.dtype, copy=False)


def dense_scm(X, Y, embeddings: np.ndarray, *, normalized_embeddings: bool = False, dtype=np.float32) -> np.ndarray:
    """SCM with S = cos(e_i, e_j): cosines of X·E_unit and Y·E_unit.

    ``embeddings`` is the ``[len(dictionary), dim]`` matrix of :func:`embedding_matrix` (zero rows for words without
    an embedding). Pass ``normalized_embeddings=True`` when the rows are already unit (saves a copy). A document
    whose weighted vector sum is zero (empty, or only words without embeddings) has similarity 0 to everything.

    Parameters
    ----------
    X, Y : scipy.sparse matrix
        Weighted documents over the columns of ``embeddings``.
    embeddings : numpy.ndarray
        One row per column (:func:`embedding_matrix`).
    normalized_embeddings : bool
        The rows are unit vectors already.
    dtype : numpy dtype
        Of the products.

    Returns
    -------
    numpy.ndarray
        ``[n_X, n_Y]`` soft cosines.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> E = np.array([[1.0, 0.0], [0.6, 0.8]])  # cos(e_0, e_1) = 0.6
    >>> dense_scm(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0]]), E).round(4)
    array([[0.6]], dtype=float32)
    """
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    embeddings = np.asarray(embeddings)
    if embeddings.shape[0] != X.shape[1]:
        raise ValueError(f"embeddings have {embeddings.shape[0]} rows, the dictionary {X.shape[1]} ids")
    unit = embeddings.astype(dtype, copy=False) if normalized_embeddings else unit_rows(embeddings.astype(dtype))
    x_vectors = unit_rows(np.asarray(X.astype(dtype) @ unit))
    y_vectors = unit_rows(np.asarray(Y.astype(dtype) @ unit))
    return x_vectors @ y_vectors.T


def cosine_term_similarity(embeddings: np.ndarray) -> np.ndarray:
    """Sᵢⱼ = cos(eᵢ, eⱼ) of the rows of ``embeddings`` (0 for a zero row): :func:`dense_scm`'s S, for a few words.

    Parameters
    ----------
    embeddings : numpy.ndarray

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> cosine_term_similarity(np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 0.0]])).round(4).tolist()
    [[1.0, 0.6, 0.0], [0.6, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    unit = unit_rows(np.asarray(embeddings, dtype=np.float64))
    return unit @ unit.T


@dataclass(frozen=True)
class ScmContributions:
    """The SCM of one pair of documents, word pair by word pair: ``contributions[i, j]`` =
    xᵢSᵢⱼyⱼ / (√(xᵀSx) √(yᵀSy)) for word ``x_terms[i]`` of the first document and ``y_terms[j]`` of the second;
    ``total`` (their sum) is the SCM.

    Parameters
    ----------
    x_terms, y_terms : numpy.ndarray
        Column ids of each document's words (weight ≠ 0), ascending.
    contributions : numpy.ndarray
        ``[len(x_terms), len(y_terms)]`` shares of the SCM.
    x_form, y_form : float
        xᵀSx and yᵀSy.

    Examples
    --------
    >>> from scipy import sparse
    >>> S = sparse.csr_matrix(np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> parts = scm_contributions(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 2.0]]), S)
    >>> parts.contributions.tolist(), parts.x_form, parts.y_form, parts.total  # 1 * 0.5 * 2 / (1 * 2)
    ([[0.5]], 1.0, 4.0, 0.5)
    """

    x_terms: np.ndarray  # column ids of the first document's words (weight ≠ 0), ascending
    y_terms: np.ndarray
    contributions: np.ndarray  # [len(x_terms), len(y_terms)]
    x_form: float  # xᵀSx
    y_form: float  # yᵀSy

    @property
    def total(self) -> float:
        return float(self.contributions.sum())


def scm_contributions(x, y, term_similarity) -> ScmContributions:
    """Each word pair's share of the SCM of two single documents ``x`` and ``y`` (1-row matrices or weight vectors
    over the same columns as ``term_similarity``).

    ``term_similarity`` is S as a dense array (e.g. :func:`cosine_term_similarity`), a scipy sparse matrix (S' of
    chapter 3) or a gensim ``SparseTermSimilarityMatrix``; S need not be symmetric (the value is xᵀSy). A document
    with xᵀSx ≤ 0 (no word with a weight, or only words without an embedding under the dense S) has SCM 0 to every
    document in :func:`dense_scm` and :func:`sparse_scm`, but no contributions: ``ValueError``.

    Parameters
    ----------
    x, y : scipy.sparse matrix
        The two documents (one row each) over the columns of ``term_similarity``.
    term_similarity : numpy.ndarray, scipy.sparse matrix or gensim SparseTermSimilarityMatrix
        S or S'.

    Returns
    -------
    ScmContributions
        Each pair of terms' share of the SCM and the two quadratic forms.

    Examples
    --------
    >>> from scipy import sparse
    >>> S = cosine_term_similarity(np.array([[1.0, 0.0], [0.6, 0.8]]))
    >>> scm_contributions(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0]]), S).contributions
    array([[0.6]])
    """
    X, Y = (
        _csr(np.atleast_2d(x) if not sparse.issparse(x) else x, "x"),
        _csr(np.atleast_2d(y) if not sparse.issparse(y) else y, "y"),
    )
    if X.shape[0] != 1 or Y.shape[0] != 1:
        raise ValueError("scm_contributions compares two single documents")
    _check_columns(X, Y)
    n_terms = X.shape[1]
    matrix = getattr(term_similarity, "matrix", term_similarity)
    if sparse.issparse(matrix):
        S = _term_matrix_csr(matrix, n_terms)
    else:
        S = np.asarray(matrix, dtype=np.float64)
        if S.shape != (n_terms, n_terms):
            raise ValueError(f"term similarity matrix has shape {S.shape}, the documents {n_terms} columns")
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    X.eliminate_zeros()
    Y.eliminate_zeros()
    X.sort_indices()
    Y.sort_indices()
    x_terms, y_terms = X.indices.astype(np.int64), Y.indices.astype(np.int64)
    x_weights, y_weights = X.data, Y.data

    def block(rows, columns):
        part = S[rows][:, columns]
        return part.toarray() if sparse.issparse(part) else np.asarray(part)

    forms = {}
    for name, terms, weights in (("x", x_terms, x_weights), ("y", y_terms, y_weights)):
        if not len(terms):
            raise ValueError(
                f"{name} has no word with a weight (no word of the document is in the dictionary): its "
                "SCM is 0 to every document and no pair contributes"
            )
        forms[name] = float(weights @ block(terms, terms) @ weights)
        if not forms[name] > 0:
            raise ValueError(
                f"{name} has {name}ᵀS{name} = {forms[name]:g} ≤ 0 (e.g. under the dense S, no word of "
                "the document has an embedding): its SCM is 0 to every document and no pair contributes"
            )
    contributions = (
        x_weights[:, None] * block(x_terms, y_terms) * y_weights[None, :] / (np.sqrt(forms["x"]) * np.sqrt(forms["y"]))
    )
    return ScmContributions(x_terms, y_terms, contributions, forms["x"], forms["y"])


# ----------------------------------------------------------------------------------------------------------------
# sparse SCM


@dataclass(frozen=True)
class ScmInfo:
    """Documents whose quadratic form xᵀS'x is ≤ 0 (similarity 0 to everything).

    Parameters
    ----------
    x_nonpositive, y_nonpositive : numpy.ndarray
        Rows of X and of Y with xᵀS'x ≤ 0.
    x_negative, y_negative : int
        How many of them have xᵀS'x < 0.
    n_dense_terms : int
        Terms handled by the dense part of :func:`sparse_scm`.

    Examples
    --------
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix([[1.0, 0.0], [1.0, 1.0]])
    >>> S = sparse.csr_matrix(np.array([[1.0, -2.0], [-2.0, 1.0]]))  # not positive definite: (1, 1) S (1, 1)ᵀ = -2
    >>> similarities, info = sparse_scm(X, X, S, return_info=True)
    >>> info.x_nonpositive.tolist(), info.x_negative, info.n_nonpositive, bool((similarities[1] == 0).all())
    ([1], 1, 2, True)
    """

    x_nonpositive: np.ndarray  # row indices of X
    y_nonpositive: np.ndarray  # row indices of Y
    x_negative: int  # how many of them had xᵀS'x < 0 (only possible when S' is not positive semi-definite)
    y_negative: int
    n_dense_terms: int = 0  # terms handled by the dense product (a speed detail, see sparse_scm)

    @property
    def n_nonpositive(self) -> int:
        return len(self.x_nonpositive) + len(self.y_nonpositive)


@numba.njit(parallel=True, cache=True)
def _quadratic_forms(
    indptr, indices, data, s_indptr, s_indices, s_data, n_terms, n_threads
):  # pragma: no cover - numba
    """xᵀS'x of every row: the row as a dense vector, read through each of its terms' rows of S'. A bit set of the
    row's terms (a few KiB, in L1) skips the entries of S' outside the row, whose products with the dense row are
    zeros that would leave the sums as they are: only the large dense vector is not touched for them."""
    n_docs = len(indptr) - 1
    result = np.zeros(n_docs)
    one = np.uint64(1)
    six = np.uint64(6)
    low = np.uint64(63)
    for thread in prange(n_threads):
        dense = np.zeros(n_terms)
        bits = np.zeros((n_terms >> 6) + 1, dtype=np.uint64)
        for i in range(thread, n_docs, n_threads):
            for p in range(indptr[i], indptr[i + 1]):
                w = np.uint64(indices[p])
                dense[indices[p]] = data[p]
                bits[w >> six] |= one << (w & low)
            total = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                w = indices[p]
                partial = 0.0
                for q in range(s_indptr[w], s_indptr[w + 1]):
                    v = np.uint64(s_indices[q])
                    if bits[v >> six] & (one << (v & low)):
                        partial += s_data[q] * dense[s_indices[q]]
                total += data[p] * partial
            result[i] = total
            for p in range(indptr[i], indptr[i + 1]):
                w = np.uint64(indices[p])
                dense[indices[p]] = 0.0
                bits[w >> six] = np.uint64(0)
    return result


@numba.njit(parallel=True, cache=True)
def _scm_all_pairs(
    x_indptr,
    x_indices,
    x_data,  # X in CSR
    s_indptr,
    s_indices,
    s_data,  # S'[:, terms] in CSR (row w: the scatter terms v with S'[w, v] != 0)
    yt_indptr,
    yt_indices,
    yt_data,  # Y[:, terms] in CSC (column v: the documents containing v)
    x_scale,
    y_scale,
    out,
    n_threads,
):  # pragma: no cover - numba
    n_x = len(x_indptr) - 1
    n_y = out.shape[1]
    n_terms = len(yt_indptr) - 1
    for thread in prange(n_threads):
        expanded = np.zeros(n_terms)  # xᵀ S' restricted to the touched terms
        touched = np.empty(n_terms, dtype=np.int64)
        marked = np.zeros(n_terms, dtype=np.bool_)
        row = np.zeros(n_y)
        for i in range(thread, n_x, n_threads):
            scale = x_scale[i]
            if scale == 0.0:
                for j in range(n_y):
                    out[i, j] = 0.0
                continue
            n_touched = 0
            for p in range(x_indptr[i], x_indptr[i + 1]):
                w = x_indices[p]
                xw = x_data[p]
                for q in range(s_indptr[w], s_indptr[w + 1]):
                    v = s_indices[q]
                    if not marked[v]:
                        marked[v] = True
                        touched[n_touched] = v
                        n_touched += 1
                    expanded[v] += xw * s_data[q]
            for r in range(n_touched):
                v = touched[r]
                a = expanded[v]
                expanded[v] = 0.0
                marked[v] = False
                for q in range(yt_indptr[v], yt_indptr[v + 1]):
                    row[yt_indices[q]] += a * yt_data[q]
            for j in range(n_y):
                out[i, j] = row[j] * scale * y_scale[j]
                row[j] = 0.0


def _term_matrix_csr(term_similarity, n_terms: int) -> sparse.csr_matrix:
    matrix = getattr(term_similarity, "matrix", term_similarity)  # gensim SparseTermSimilarityMatrix
    if not sparse.issparse(matrix):
        raise TypeError("term_similarity must be a scipy sparse matrix or a gensim SparseTermSimilarityMatrix")
    if matrix.shape != (n_terms, n_terms):
        raise ValueError(f"term similarity matrix has shape {matrix.shape}, the dictionary {n_terms} ids")
    matrix = sparse.csr_matrix(matrix, dtype=np.float64, copy=True)
    matrix.sum_duplicates()
    return matrix


def _inverse_norms(forms: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(forms > 0, 1.0 / np.sqrt(np.where(forms > 0, forms, 1.0)), 0.0)


# --- the gather path (dense rows of X̂ S', multiplied with the sparse Ŷ) -------------------------------------------

_LANES = 64  # rows of X per block of the gather path: a compile-time constant, so that LLVM keeps the accumulator
# of :func:`_gather_chunk` in vector registers (a runtime width or a column offset makes it 2-3x slower)
_CHUNK_BYTES = 512 << 10  # the columns of Zᵀ formed and read at a time: half a core's L2 cache


@numba.njit(cache=True)
def _scatter_chunk(
    x_indptr, x_indices, x_data, start, stop, s_indptr, s_indices, s_data, v0, v1, cursor, ZT, zx
):  # pragma: no cover - numba
    """ZT[v - v0, c] = (x_{start+c}ᵀ S')[v] for the terms v0 ≤ v < v1 (ZT zeroed before), and zx[p] = the same
    row's value at the term of x's non-zero p where that term is one of them.

    The rows of S' are sorted by term and ``cursor[p]`` is where row ``x_indices[p]`` of S' continues (the chunks come
    in increasing order of terms): every entry of Z = X_block S' receives its products in the order of x's non-zeros,
    as a dense row per document would."""
    base = x_indptr[start]
    for c in range(stop - start):
        i = start + c
        for p in range(x_indptr[i], x_indptr[i + 1]):
            a = x_data[p]
            w = x_indices[p]
            q = cursor[p - base]
            end = s_indptr[w + 1]
            while q < end and s_indices[q] < v1:
                ZT[s_indices[q] - v0, c] += a * s_data[q]
                q += 1
            cursor[p - base] = q
        for p in range(x_indptr[i], x_indptr[i + 1]):
            v = x_indices[p]
            if v0 <= v < v1:
                zx[p - base] = ZT[v - v0, c]


@numba.njit(fastmath=True, cache=True)
def _gather_chunk(rows_j, row_ptr, first, last, e_indices, e_data, ZT, init):  # pragma: no cover - numba
    """init[j, c] += Σ_p e_data[p] · ZT[e_indices[p], c] over the non-zeros p of Ŷ's row j in one chunk of terms, for
    the rows ``rows_j[first:last]`` of the chunk's CSR (``row_ptr``) that have any.

    ZT has exactly ``_LANES`` columns: every non-zero of Ŷ costs ``_LANES`` vectorised FMAs on a contiguous row of ZT
    (a chunk small enough to stay in the core's cache); each sum runs in the order of Ŷ's non-zeros."""
    for r in range(first, last):
        j = rows_j[r]
        acc = numba.carray(_stack_empty(_LANES, ZT.dtype), _LANES)
        for c in range(_LANES):
            acc[c] = init[j, c]
        for p in range(row_ptr[r], row_ptr[r + 1]):
            a = e_data[p]
            v = e_indices[p]
            for c in range(_LANES):
                acc[c] += a * ZT[v, c]
        for c in range(_LANES):
            init[j, c] = acc[c]


@intrinsic
def _stack_empty(typingctx, size, dtype):
    """A pointer to ``size`` uninitialised values of ``dtype`` on the stack (for a fixed-size accumulator that LLVM
    can keep in vector registers, which a heap array of numba's is not)."""

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(dtype.dtype), size=args[0])

    return types.CPointer(dtype.dtype)(types.intp, dtype), codegen


@numba.njit(fastmath=True, cache=True)
def _dense_block(y_heavy, ZT_heavy, init):  # pragma: no cover - numba
    """init[j, c] = Σ_h y_heavy[j, h] · ZT_heavy[h, c]: the dense product over the heavy terms (a GEMM), in numba's
    threads rather than BLAS's (which would compete with them for the cores): four rows of Ŷ at a time, their
    4 × ``_LANES`` accumulators in registers, each sum in the order of h."""
    n_y = y_heavy.shape[0]
    n_heavy = y_heavy.shape[1]
    for b in range((n_y + 3) // 4):
        j0 = 4 * b
        if j0 + 4 <= n_y:
            acc0 = numba.carray(_stack_empty(_LANES, ZT_heavy.dtype), _LANES)
            acc1 = numba.carray(_stack_empty(_LANES, ZT_heavy.dtype), _LANES)
            acc2 = numba.carray(_stack_empty(_LANES, ZT_heavy.dtype), _LANES)
            acc3 = numba.carray(_stack_empty(_LANES, ZT_heavy.dtype), _LANES)
            for c in range(_LANES):
                acc0[c] = 0.0
                acc1[c] = 0.0
                acc2[c] = 0.0
                acc3[c] = 0.0
            for h in range(n_heavy):
                a0 = y_heavy[j0, h]
                a1 = y_heavy[j0 + 1, h]
                a2 = y_heavy[j0 + 2, h]
                a3 = y_heavy[j0 + 3, h]
                for c in range(_LANES):
                    z = ZT_heavy[h, c]
                    acc0[c] += a0 * z
                    acc1[c] += a1 * z
                    acc2[c] += a2 * z
                    acc3[c] += a3 * z
            for c in range(_LANES):
                init[j0, c] = acc0[c]
                init[j0 + 1, c] = acc1[c]
                init[j0 + 2, c] = acc2[c]
                init[j0 + 3, c] = acc3[c]
        else:
            for j in range(j0, n_y):
                acc = numba.carray(_stack_empty(_LANES, ZT_heavy.dtype), _LANES)
                for c in range(_LANES):
                    acc[c] = 0.0
                for h in range(n_heavy):
                    a = y_heavy[j, h]
                    for c in range(_LANES):
                        acc[c] += a * ZT_heavy[h, c]
                for c in range(_LANES):
                    init[j, c] = acc[c]


@numba.njit(parallel=True, cache=True)
def _gather_blocks(
    x_indptr,
    x_indices,
    x_data,
    s_indptr,
    s_indices,
    s_data,
    bounds,
    y_heavy,
    chunk_rows,
    rows_j,
    row_ptr,
    e_indices,
    e_data,
    starts,
    ZTs,
    inits,
    cursors,
    zxs,
    x_forms,
    out,
):  # pragma: no cover
    """The gather path's blocks of 64 rows of X, one block per task of a thread, each thread with its own buffers
    (``ZTs[t]``, ``inits[t]``, ``cursors[t]``, ``zxs[t]``, a few MiB: they stay in the core's caches) in a single
    parallel region (no barrier). A block runs over the chunks of terms ``bounds``: the heavy terms (the dense
    product), Ŷ's light terms in chunks of ``ZTs.shape[1]`` (the gather), the terms only X uses (its forms); each
    chunk's columns of Zᵀ = (X_block S')ᵀ are formed in place, never the whole of Z."""
    n_x = len(x_indptr) - 1
    n_y = out.shape[1]
    n_heavy = y_heavy.shape[1]
    n_light_chunks = len(chunk_rows) - 1
    first_light = 1 if n_heavy else 0
    for b in prange(len(starts)):
        t = numba.get_thread_id()
        ZT = ZTs[t]
        init = inits[t]
        cursor = cursors[t]
        zx = zxs[t]
        start = starts[b]
        stop = min(start + _LANES, n_x)
        base = x_indptr[start]
        for p in range(base, x_indptr[stop]):
            cursor[p - base] = s_indptr[x_indices[p]]
        if not n_heavy:
            init[:, :] = 0.0
        for k in range(len(bounds) - 1):
            v0 = bounds[k]
            v1 = bounds[k + 1]
            for v in range(v1 - v0):
                for c in range(_LANES):
                    ZT[v, c] = 0.0
            _scatter_chunk(
                x_indptr, x_indices, x_data, start, stop, s_indptr, s_indices, s_data, v0, v1, cursor, ZT, zx
            )
            if k < first_light:
                _dense_block(y_heavy, ZT, init)
            elif k - first_light < n_light_chunks:
                light = k - first_light
                _gather_chunk(rows_j, row_ptr, chunk_rows[light], chunk_rows[light + 1], e_indices, e_data, ZT, init)
        scale = np.zeros(_LANES, dtype=ZT.dtype)
        for c in range(stop - start):
            i = start + c
            total = 0.0
            for p in range(x_indptr[i], x_indptr[i + 1]):
                total += x_data[p] * zx[p - base]
            x_forms[i] = total
            if total > 0:
                scale[c] = 1.0 / math.sqrt(total)
        for j in range(n_y):
            for c in range(stop - start):
                out[start + c, j] = init[j, c] * scale[c]


# relative throughputs of the kernels (operations per second, one core; measured on the 20NEWS-sized benchmark,
# only their ratios matter) for the per-block choice between the gather and the scatter path
_RATE_SCATTER = 0.2e9  # (touched term, document of Y) pairs of _scm_all_pairs
_RATE_GATHER = 4.0e9  # FMAs of _gather_block
_RATE_GEMM = 30.0e9  # FMAs of the dense product (_dense_block)
_RATE_MEMORY = 2.0e9  # dense values zeroed, filled and transposed per row of Z


@same_result_as("reference_sparse_scm")  # exact: equal values, bit for bit (tests)
def sparse_scm(
    X,
    Y,
    term_similarity,
    *,
    clip: bool = False,
    dtype=np.float64,
    n_threads: int | None = None,
    return_info: bool = False,
    dense_cost_ratio: float | None = 0.1,
    method: str = "auto",
):
    """SCM of every row of ``X`` with every row of ``Y`` under the sparse term-similarity matrix S'.

    The value is x̂ᵀS'ŷ with x̂ = x/√(xᵀS'x), computed for all pairs at once in blocks of 64 rows of X:

    * **gather path** (the default for realistic S'): Zᵀ = (X_block S')ᵀ is formed one chunk of terms at a time
      (a numba scatter; xᵀS'x is read off the same values, so the norms come from the same product), and each
      chunk is used at once: Z Ŷᵀ is a dense product (a GEMM written in numba, accumulators in registers) over
      the terms that are frequent in Y (document frequency > ``dense_cost_ratio`` × n_Y) plus a sparse × dense
      product over the other terms (every non-zero of Ŷ costs 64 vectorised FMAs on a contiguous row of the
      chunk). A chunk (512 KiB) and the block's accumulators stay in the core's caches, so threads do not compete
      for the shared cache and memory. Each thread takes whole blocks with its own buffers, in one parallel region
      (no BLAS threads, no barrier between a block's steps); the values do not depend on the number of threads,
      nor on the chunks (every sum runs in the same order);
    * **scatter path**, for blocks whose rows of X S' are so sparse that scattering each touched term into the
      documents of Y that contain it is cheaper (estimated from the sparsity patterns; e.g. a nearly diagonal S').

    Parameters
    ----------
    X, Y
        document matrices over the same dictionary (any weights; e.g. ``dtb``).
    term_similarity
        S' as a scipy sparse matrix ``[n_terms, n_terms]`` (any format; CSC from termsim is fine) or a gensim
        ``SparseTermSimilarityMatrix``. S' need not be symmetric: the value is xᵀS'y.
    clip
        clip to [-1, 1] like gensim (only matters when S' is not positive semi-definite).
    dtype
        of the result and of the dense blocks: float64 (default) computes everything in float64; float32 runs the
        products in float32 (about twice as fast; the quadratic forms are summed in float64 either way).
    n_threads
        numba threads for this call (default: numba's current setting). The gather path keeps a chunk of Zᵀ and
        an n_Y × 64 block of results per thread.
    return_info
        also return a :class:`ScmInfo` naming the documents with xᵀS'x ≤ 0 (similarity 0 to all).
    dense_cost_ratio
        a term v of Y goes to the dense GEMM of the gather path when df_Y(v) > ``dense_cost_ratio`` × n_Y
        (``0.0``: every term of Y; ``None``: none). Only a speed setting: the values do not depend on it beyond
        rounding.
    method
        ``"auto"`` (choose per block), ``"gather"`` or ``"scatter"`` (force one path; for tests and benchmarks).

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, ScmInfo)
        ``[n_X, n_Y]`` soft cosines (with the :class:`ScmInfo` when ``return_info``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> S = sparse.csc_matrix(np.array([[1.0, 0.6], [0.6, 1.0]]))
    >>> sparse_scm(sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0]]), S).round(4)
    array([[0.6]])
    """
    if method not in ("auto", "gather", "scatter"):
        raise ValueError(f"unknown method {method!r}; expected 'auto', 'gather' or 'scatter'")
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    n_terms = X.shape[1]
    n_x, n_y = X.shape[0], Y.shape[0]
    S = _term_matrix_csr(term_similarity, n_terms)
    S.sort_indices()
    s_arrays = (S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data)
    work = np.float32 if np.dtype(dtype) == np.float32 else np.float64
    out = np.zeros((n_x, n_y), dtype=dtype)
    x_forms = np.zeros(n_x)
    y_forms = np.zeros(n_y)
    with _numba_threads(n_threads):
        threads = numba.get_num_threads()
        df_y = np.bincount(Y.indices, minlength=n_terms)
        heavy = (
            np.empty(0, dtype=np.int64)
            if dense_cost_ratio is None
            else np.flatnonzero((df_y > dense_cost_ratio * n_y) & (df_y > 0))
        )
        heavy = heavy[np.argsort(-df_y[heavy], kind="stable")]
        gather_rows, scatter_rows = _choose_paths(X, Y, S, df_y, len(heavy), method)
        if len(gather_rows) and n_y:
            _gather_path(X, Y, S, gather_rows, heavy, df_y, y_forms, work, out, x_forms, threads)
        else:
            y_forms = _quadratic_forms(
                Y.indptr.astype(np.int64),
                Y.indices.astype(np.int64),
                Y.data.astype(np.float64),
                *s_arrays,
                n_terms,
                threads,
            )
            scatter_rows = np.arange(0, n_x, _LANES)
        if len(scatter_rows):
            _scatter_path(X, Y, S, s_arrays, scatter_rows, _inverse_norms(y_forms), out, x_forms, threads)
    if clip:
        np.clip(out, -1.0, 1.0, out=out)
    if not return_info:
        return out
    info = ScmInfo(
        x_nonpositive=np.flatnonzero(~(x_forms > 0)),
        y_nonpositive=np.flatnonzero(~(y_forms > 0)),
        x_negative=int(np.sum(x_forms < 0)),
        y_negative=int(np.sum(y_forms < 0)),
        n_dense_terms=len(heavy),
    )
    return out, info


def reference_sparse_scm(X, Y, term_similarity) -> np.ndarray:
    """The sparse SCM by its definition, with scipy's sparse products (float64): x̂ᵀS'ŷ with x̂ = x/√(xᵀS'x), and 0
    for a document with xᵀS'x ≤ 0. :func:`sparse_scm` computes the same values fast; the tests compare the two.

    Parameters
    ----------
    X, Y : scipy.sparse matrix
        Documents over the same columns.
    term_similarity : scipy.sparse matrix or gensim SparseTermSimilarityMatrix
        S'.

    Returns
    -------
    numpy.ndarray
        ``[n_X, n_Y]`` soft cosines.

    Examples
    --------
    >>> S = sparse.csc_matrix(np.array([[1.0, 0.6], [0.6, 1.0]]))
    >>> reference_sparse_scm(sparse.csr_matrix([[1.0, 0.0], [0.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0]]), S)
    array([[0.6],
           [0. ]])
    """
    X, Y = _csr(X, "X").astype(np.float64), _csr(Y, "Y").astype(np.float64)
    _check_columns(X, Y)
    S = _term_matrix_csr(term_similarity, X.shape[1])
    x_scale = _inverse_norms(np.asarray((X @ S).multiply(X).sum(axis=1)).ravel())
    y_scale = _inverse_norms(np.asarray((Y @ S).multiply(Y).sum(axis=1)).ravel())
    return np.asarray((X @ S @ Y.T).toarray()) * x_scale[:, None] * y_scale[None, :]


def slope_effect_on_scm(counts, weighting, term_similarity, slopes=(0.0, 0.1, 0.5, 1.0)) -> float:
    """Largest absolute change of the sparse SCM between all pairs of ``counts`` when the ``dtb`` slope varies.

    ``weighting`` is a :class:`regemb_utils.measures.representations.DtbWeighting`.

    Shows that the pivot slope ``s`` cancels after the SCM's normalisation (the result is ~1e-16, rounding only).

    Parameters
    ----------
    counts : scipy.sparse matrix
        Raw counts of some documents.
    weighting : regemb_utils.measures.representations.DtbWeighting
        The ``dtb`` weighting.
    term_similarity : scipy.sparse matrix
        S'.
    slopes : sequence of float
        The slopes compared.

    Returns
    -------
    float
        The largest absolute change.

    Examples
    --------
    >>> from scipy import sparse
    >>> from regemb_utils.measures.representations import DtbWeighting
    >>> counts = sparse.csr_matrix([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    >>> S = sparse.csr_matrix(np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> slope_effect_on_scm(counts, DtbWeighting(counts, avgdl=12.0), S) < 1e-12
    True
    """
    reference = None
    largest = 0.0
    for slope in slopes:
        weights = weighting.transform(counts, slope)
        sims = sparse_scm(weights, weights, term_similarity)
        if reference is None:
            reference = sims
        else:
            largest = max(largest, float(np.max(np.abs(sims - reference))) if sims.size else 0.0)
    return largest


def _choose_paths(X, Y, S, df_y, n_heavy, method):
    """Block starts (multiples of 64) for the gather and the scatter path, by the estimated cost of each block."""
    starts = np.arange(0, X.shape[0], _LANES)
    if method != "auto" or len(starts) == 0 or Y.shape[0] == 0:
        empty = np.empty(0, dtype=np.int64)
        return (empty, starts) if method == "scatter" else (starts, empty)
    n_y = Y.shape[0]
    pattern_s = sparse.csr_matrix((np.ones(S.nnz), S.indices, S.indptr), shape=S.shape)
    pattern_x = sparse.csr_matrix((np.ones(X.nnz), X.indices, X.indptr), shape=X.shape)
    # scatter: Σ over the terms v touched by xᵀS' of df_Y(v) (an upper bound: overlaps are counted twice)
    scatter = np.minimum(pattern_x @ (pattern_s @ df_y.astype(np.float64)), Y.nnz) / _RATE_SCATTER
    light_nnz = Y.nnz - np.sort(df_y)[::-1][:n_heavy].sum()
    gather = (n_y * n_heavy / _RATE_GEMM + light_nnz / _RATE_GATHER + 3 * X.shape[1] / _RATE_MEMORY) * np.ones(
        X.shape[0]
    )
    block_scatter = np.add.reduceat(scatter, starts)
    block_gather = np.add.reduceat(gather, starts)
    use_scatter = block_scatter < block_gather
    return starts[~use_scatter], starts[use_scatter]


def _renumbered_rows(S: sparse.csr_matrix, order: np.ndarray, new_id: np.ndarray, dtype) -> tuple:
    """CSR arrays (int32 ids) of S'[order][:, order]: rows and columns in the new numbering, other columns dropped
    (each row keeps its entries' order)."""
    return _renumber(S.indptr.astype(np.int64), S.indices, S.data, order, new_id, np.dtype(dtype).type(0))


@numba.njit(parallel=True, cache=True)
def _renumber(indptr, indices, data, order, new_id, zero):  # pragma: no cover - numba
    n_rows = len(order)
    sizes = np.zeros(n_rows + 1, dtype=np.int64)
    for r in prange(n_rows):
        w = order[r]
        kept = 0
        for q in range(indptr[w], indptr[w + 1]):
            if new_id[indices[q]] >= 0:
                kept += 1
        sizes[r + 1] = kept
    out_indptr = np.cumsum(sizes)
    out_indices = np.empty(out_indptr[n_rows], dtype=np.int32)
    out_data = np.empty(out_indptr[n_rows], dtype=type(zero))
    for r in prange(n_rows):
        w = order[r]
        e = out_indptr[r]
        for q in range(indptr[w], indptr[w + 1]):
            v = new_id[indices[q]]
            if v >= 0:
                out_indices[e] = v
                out_data[e] = data[q]
                e += 1
    return out_indptr, out_indices, out_data


def _gather_path(X, Y, S, starts, heavy, df_y, y_forms_out, work, out, x_forms, threads):
    """The gather path for the blocks starting at ``starts``; also fills ``y_forms_out`` (xᵀS'x of Y)."""
    n_terms = X.shape[1]
    n_y = Y.shape[0]
    df_x = np.bincount(X.indices, minlength=n_terms)
    is_heavy = np.zeros(n_terms, dtype=bool)
    is_heavy[heavy] = True
    light = np.flatnonzero((df_y > 0) & ~is_heavy)
    x_only = np.flatnonzero((df_x > 0) & (df_y == 0))
    # the columns of Z: heavy terms (for the GEMM), light terms of Y (for the gather), terms only X uses (forms);
    # within each group by decreasing document frequency, so that the often used rows of Zᵀ lie together
    light = light[np.argsort(-df_y[light], kind="stable")]
    order = np.concatenate([heavy, light, x_only]).astype(np.int64)
    n_heavy, n_light, n_cols = len(heavy), len(light), len(order)
    new_id = np.full(n_terms, -1, dtype=np.int64)
    new_id[order] = np.arange(n_cols)
    ss = _renumbered_rows(S, order, new_id, work)
    xs = (X.indptr.astype(np.int64), new_id[X.indices].astype(np.int32), X.data.astype(work))
    ys = (Y.indptr.astype(np.int64), new_id[Y.indices].astype(np.int32), Y.data.astype(work))
    y_forms_out[:] = _quadratic_forms(*ys, *ss, n_cols, threads)
    y_scale = _inverse_norms(y_forms_out).astype(work)
    Yn = sparse.csr_matrix((ys[2] * np.repeat(y_scale, np.diff(Y.indptr)), ys[1], ys[0]), shape=(n_y, n_cols))  # Ŷ
    y_heavy = np.ascontiguousarray(Yn[:, :n_heavy].toarray())  # [n_y, n_heavy]
    # chunks of terms whose columns of Zᵀ fit a core's cache: the heavy terms, the light ones, those only X uses
    chunk = _CHUNK_BYTES // (_LANES * np.dtype(work).itemsize)
    bounds = np.unique(
        np.concatenate(
            [
                [0, n_heavy],
                np.arange(n_heavy, n_heavy + n_light, chunk),
                [n_heavy + n_light],
                np.arange(n_heavy + n_light, n_cols, chunk),
                [n_cols],
            ]
        )
    )
    light_bounds = bounds[(bounds >= n_heavy) & (bounds <= n_heavy + n_light)]
    rows_j, row_ptr, e_indices, e_data, chunk_rows = [], [np.zeros(1, dtype=np.int64)], [], [], [0]
    for v0, v1 in zip(light_bounds[:-1], light_bounds[1:]):  # Ŷ's light non-zeros chunk by chunk (a CSR each)
        part = sparse.csr_matrix(Yn[:, v0:v1])
        part.sort_indices()
        nonempty = np.flatnonzero(np.diff(part.indptr))
        rows_j.append(nonempty)
        row_ptr.append(row_ptr[-1][-1] + np.cumsum(np.diff(part.indptr)[nonempty]))
        e_indices.append(part.indices.astype(np.int32))
        e_data.append(part.data)
        chunk_rows.append(chunk_rows[-1] + len(nonempty))
    sorted_s = sparse.csr_matrix((ss[2], ss[1], ss[0]), shape=(n_cols, n_cols))  # rows by term: chunk after chunk
    sorted_s.sort_indices()
    threads = min(threads, len(starts))
    widest = int(np.max(np.add.reduceat(np.diff(X.indptr), starts))) if len(starts) else 0  # non-zeros of a block
    _gather_blocks(
        *xs,
        sorted_s.indptr.astype(np.int64),
        sorted_s.indices,
        sorted_s.data,
        bounds.astype(np.int64),
        y_heavy,
        np.asarray(chunk_rows, dtype=np.int64),
        np.concatenate(rows_j or [np.empty(0, np.int64)]).astype(np.int64),
        np.concatenate(row_ptr),
        np.concatenate(e_indices or [np.empty(0, np.int32)]),
        np.concatenate(e_data or [np.empty(0, work)]).astype(work),
        starts.astype(np.int64),
        np.empty((threads, max(chunk, n_heavy), _LANES), dtype=work),
        np.empty((threads, n_y, _LANES), dtype=work),
        np.empty((threads, widest), dtype=np.int64),
        np.empty((threads, widest), dtype=work),
        x_forms,
        out,
    )


def _scatter_path(X, Y, S, s_arrays, starts, y_scale, out, x_forms, threads):
    n_terms = X.shape[1]
    rows = np.concatenate([np.arange(s, min(s + _LANES, X.shape[0])) for s in starts])
    Xb = X[rows]
    forms = _quadratic_forms(
        Xb.indptr.astype(np.int64),
        Xb.indices.astype(np.int64),
        Xb.data.astype(np.float64),
        *s_arrays,
        n_terms,
        threads,
    )
    x_forms[rows] = forms
    Yc = sparse.csc_matrix(Y, dtype=np.float64, copy=True)
    used = np.flatnonzero(np.diff(Yc.indptr) > 0)  # renumber the terms of Y 0..m-1
    S_scatter = sparse.csr_matrix(S[:, used])
    S_scatter.sort_indices()
    Yc = sparse.csc_matrix(Yc[:, used])
    Yc.sort_indices()
    block = np.empty((len(rows), Y.shape[0]))
    _scm_all_pairs(
        Xb.indptr.astype(np.int64),
        Xb.indices.astype(np.int64),
        Xb.data.astype(np.float64),
        S_scatter.indptr.astype(np.int64),
        S_scatter.indices.astype(np.int64),
        S_scatter.data,
        Yc.indptr.astype(np.int64),
        Yc.indices.astype(np.int64),
        Yc.data,
        _inverse_norms(forms),
        y_scale,
        block,
        threads,
    )
    out[rows] = block


# ----------------------------------------------------------------------------------------------------------------
# L1 distance


@numba.njit(cache=True, parallel=True)
def _common_minima(x_indptr, x_indices, x_data, yt_indptr, yt_indices, yt_data, out):  # pragma: no cover - numba
    """out[i, j] = Σ_t min(x_it, y_jt) over the terms both rows hold, through an inverted index of Y."""
    for i in prange(len(x_indptr) - 1):
        row = out[i]
        for p in range(x_indptr[i], x_indptr[i + 1]):
            t, v = x_indices[p], x_data[p]
            for q in range(yt_indptr[t], yt_indptr[t + 1]):
                w = yt_data[q]
                row[yt_indices[q]] += v if v < w else w


def l1_distance(X, Y, *, n_threads: int | None = None) -> np.ndarray:
    """L1 distance of every row of ``X`` to every row of ``Y`` (e.g. TF-IDF L1 rows, Sato et al. 2022).

    For non-negative rows, ``|x − y| = x + y − 2·min(x, y)`` term by term, so ‖x − y‖₁ = ‖x‖₁ + ‖y‖₁ − 2 Σ min(x_t, y_t),
    where only the terms both documents hold contribute to the sum: one pass over an inverted index, as fast as a
    sparse product. Rows with a negative entry fall back to scikit-learn's ``manhattan_distances``.

    Parameters
    ----------
    X, Y : scipy.sparse matrix
        Documents over the same columns.
    n_threads : int, optional
        numba threads (None: numba's default).

    Returns
    -------
    numpy.ndarray
        ``[n_X, n_Y]`` distances.

    Examples
    --------
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix([[1.0, 0.0], [0.0, 2.0]])
    >>> l1_distance(X, X)
    array([[0., 3.],
           [3., 0.]])
    """
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    if (X.nnz and X.data.min() < 0) or (Y.nnz and Y.data.min() < 0):
        from sklearn.metrics.pairwise import manhattan_distances

        return np.asarray(manhattan_distances(X, Y))
    Yt = sparse.csr_matrix(Y.T)
    minima = np.zeros((X.shape[0], Y.shape[0]))
    with _numba_threads(n_threads):
        _common_minima(X.indptr, X.indices, X.data, Yt.indptr, Yt.indices, Yt.data, minima)
    x_sums, y_sums = np.asarray(X.sum(axis=1)).ravel(), np.asarray(Y.sum(axis=1)).ravel()
    return np.maximum(x_sums[:, None] + y_sums[None, :] - 2 * minima, 0.0)
