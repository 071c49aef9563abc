"""Document similarities for all (query, collection) pairs at once (paper §3, §5.4; notes §6).

All functions take document matrices as produced by :mod:`regemb_utils.representations` (rows = documents, columns
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
* :func:`l1_distance` – the L1 distance (e.g. over TF-IDF L1 rows, Sato et al. 2022); use ``-distance`` as a
  similarity for kNN.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np
from numba import prange
from scipy import sparse

from .representations import l2_normalize

__all__ = [
    "ScmInfo",
    "cosine_similarity",
    "embedding_matrix",
    "unit_rows",
    "dense_scm",
    "scm_quadratic_forms",
    "sparse_scm",
    "l1_distance",
    "similarity_matrix",
    "MEASURES",
]

MEASURES = ("cosine", "dense_scm", "sparse_scm", "l1")


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
    """Cosine similarity of every row of ``X`` with every row of ``Y`` (all-zero rows: 0)."""
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    return np.asarray((l2_normalize(X) @ l2_normalize(Y).T).toarray(), dtype=dtype)


# ----------------------------------------------------------------------------------------------------------------
# dense soft VSM


def embedding_matrix(keyed_vectors, dictionary, dtype=np.float32) -> np.ndarray:
    """Rows of ``keyed_vectors`` in dictionary-id order; words without an embedding get a zero row.

    The rows are the *raw* vectors (WMD uses them as they are; :func:`dense_scm` normalises them).
    """
    matrix = np.zeros((len(dictionary), keyed_vectors.vector_size), dtype=dtype)
    key_to_index = keyed_vectors.key_to_index
    rows = [(term_id, key_to_index[word]) for term_id, word in dictionary.items() if word in key_to_index]
    if rows:
        target, source = map(np.asarray, zip(*rows))
        matrix[target] = keyed_vectors.vectors[source]
    return matrix


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm; zero rows stay zero."""
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


# ----------------------------------------------------------------------------------------------------------------
# sparse SCM


@dataclass(frozen=True)
class ScmInfo:
    """Documents whose quadratic form xᵀS'x is ≤ 0 (similarity 0 to everything)."""

    x_nonpositive: np.ndarray  # row indices of X
    y_nonpositive: np.ndarray  # row indices of Y
    x_negative: int  # how many of them had xᵀS'x < 0 (only possible when S' is not positive semi-definite)
    y_negative: int
    n_dense_terms: int = 0  # terms handled by the dense GEMM part (a speed detail, see sparse_scm)

    @property
    def n_nonpositive(self) -> int:
        return len(self.x_nonpositive) + len(self.y_nonpositive)


@numba.njit(parallel=True, cache=True)
def _quadratic_forms(indptr, indices, data, s_indptr, s_indices, s_data, n_terms, n_threads):  # pragma: no cover - numba
    n_docs = len(indptr) - 1
    result = np.zeros(n_docs)
    for thread in prange(n_threads):
        dense = np.zeros(n_terms)
        for i in range(thread, n_docs, n_threads):
            for p in range(indptr[i], indptr[i + 1]):
                dense[indices[p]] = data[p]
            total = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                w = indices[p]
                partial = 0.0
                for q in range(s_indptr[w], s_indptr[w + 1]):
                    partial += s_data[q] * dense[s_indices[q]]
                total += data[p] * partial
            result[i] = total
            for p in range(indptr[i], indptr[i + 1]):
                dense[indices[p]] = 0.0
    return result


@numba.njit(parallel=True, cache=True)
def _scm_all_pairs(
    x_indptr, x_indices, x_data,  # X in CSR
    s_indptr, s_indices, s_data,  # S'[:, terms] in CSR (row w: the scatter terms v with S'[w, v] != 0)
    yt_indptr, yt_indices, yt_data,  # Y[:, terms] in CSC (column v: the documents containing v)
    x_scale, y_scale, out, n_threads,
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


def scm_quadratic_forms(X, term_similarity, *, n_threads: int | None = None) -> np.ndarray:
    """xᵀS'x for every row x of ``X`` (float64)."""
    X = _csr(X, "X")
    S = _term_matrix_csr(term_similarity, X.shape[1])
    with _numba_threads(n_threads):
        return _quadratic_forms(
            X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64),
            S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data, X.shape[1], numba.get_num_threads(),
        )


def _inverse_norms(forms: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(forms > 0, 1.0 / np.sqrt(np.where(forms > 0, forms, 1.0)), 0.0)


def _heavy_terms(X, Y, S, dense_cost_ratio):
    """Terms whose sparse scatter cost would exceed their share of a dense GEMM (see :func:`sparse_scm`)."""
    n_x, n_y = X.shape[0], Y.shape[0]
    df_x = np.bincount(X.indices, minlength=X.shape[1]).astype(np.float64)
    df_y = np.bincount(Y.indices, minlength=Y.shape[1]).astype(np.float64)
    pattern = sparse.csr_matrix((np.ones_like(S.data), S.indices, S.indptr), shape=S.shape)
    touched = np.minimum(pattern.T @ df_x, n_x)  # ≈ how many rows of X S' have a non-zero in column v
    sparse_cost = touched * df_y
    dense_cost = dense_cost_ratio * n_x * n_y
    return np.flatnonzero(sparse_cost > dense_cost)


def sparse_scm(
    X,
    Y,
    term_similarity,
    *,
    clip: bool = False,
    dtype=np.float64,
    n_threads: int | None = None,
    return_info: bool = False,
    dense_cost_ratio: float | None = 0.02,
    block_rows: int = 2048,
):
    """SCM of every row of ``X`` with every row of ``Y`` under the sparse term-similarity matrix S'.

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
        of the result; float64 accumulates everything in float64, float32 runs the dense part (below) in float32.
    n_threads
        numba threads for this call (default: numba's current setting).
    return_info
        also return a :class:`ScmInfo` naming the documents with xᵀS'x ≤ 0 (similarity 0 to all).
    dense_cost_ratio
        the numerator X S' Yᵀ is split by the terms v of Y: for frequent terms (long columns of Y, e.g. stop-word
        like words under a Zipfian distribution) a dense GEMM (X S'[:, H]) · Y[:, H]ᵀ is cheaper than scattering,
        for the rest a numba scatter kernel is. A term goes to the dense part when (estimated non-zeros of column v
        of X S') × df_Y(v) > ``dense_cost_ratio`` × n_X × n_Y. ``None`` disables the dense part.
    block_rows
        rows of X per dense block (bounds the memory of the dense part to ``block_rows`` × |H| values).
    """
    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    n_terms = X.shape[1]
    S = _term_matrix_csr(term_similarity, n_terms)
    s_arrays = (S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data)
    dense_dtype = np.float32 if np.dtype(dtype) == np.float32 else np.float64
    heavy = np.empty(0, dtype=np.int64) if dense_cost_ratio is None else _heavy_terms(X, Y, S, dense_cost_ratio)
    Yc = sparse.csc_matrix(Y, dtype=np.float64, copy=True)
    Yc.sort_indices()
    light = np.ones(n_terms, dtype=bool)
    if len(heavy):
        Y_heavy = np.asarray(Yc[:, heavy].toarray(), dtype=dense_dtype)
        S_heavy = sparse.csc_matrix(S[:, heavy])
        light[heavy] = False
    # the scatter kernel only needs the light terms that some document of Y contains: renumber them 0..m-1
    light &= np.diff(Yc.indptr) > 0
    scatter_terms = np.flatnonzero(light)
    S_scatter = sparse.csr_matrix(S[:, scatter_terms])
    S_scatter.sort_indices()
    Yc = sparse.csc_matrix(Yc[:, scatter_terms])
    Yc.sort_indices()
    with _numba_threads(n_threads):
        threads = numba.get_num_threads()
        x_forms = _quadratic_forms(
            X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64), *s_arrays, n_terms,
            threads,
        )
        y_forms = _quadratic_forms(
            Y.indptr.astype(np.int64), Y.indices.astype(np.int64), Y.data.astype(np.float64), *s_arrays, n_terms,
            threads,
        )
        x_scale, y_scale = _inverse_norms(x_forms), _inverse_norms(y_forms)
        out = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
        _scm_all_pairs(
            X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64),
            S_scatter.indptr.astype(np.int64), S_scatter.indices.astype(np.int64), S_scatter.data,
            Yc.indptr.astype(np.int64), Yc.indices.astype(np.int64), Yc.data,
            x_scale, y_scale, out, threads,
        )
    if len(heavy):
        y_scaled_heavy = Y_heavy * y_scale.astype(dense_dtype)[:, None]
        for start in range(0, X.shape[0], block_rows):
            stop = min(start + block_rows, X.shape[0])
            block = X[start:stop]
            expanded = np.asarray((block @ S_heavy).toarray(), dtype=dense_dtype)
            expanded *= x_scale[start:stop, None].astype(dense_dtype)
            out[start:stop] += expanded @ y_scaled_heavy.T
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


# ----------------------------------------------------------------------------------------------------------------
# L1 distance


def l1_distance(X, Y) -> np.ndarray:
    """L1 distance of every row of ``X`` to every row of ``Y`` (e.g. TF-IDF L1 vectors; Sato et al. 2022)."""
    from sklearn.metrics.pairwise import manhattan_distances

    X, Y = _csr(X, "X"), _csr(Y, "Y")
    _check_columns(X, Y)
    return np.asarray(manhattan_distances(X.astype(np.float64), Y.astype(np.float64)))


def similarity_matrix(measure: str, X, Y, **kwargs) -> np.ndarray:
    """Dispatch by name: ``cosine``, ``dense_scm`` (needs ``embeddings=``), ``sparse_scm`` (needs
    ``term_similarity=``) or ``l1`` (returns ``-distance`` so that larger means more similar)."""
    if measure == "cosine":
        return cosine_similarity(X, Y, **kwargs)
    if measure == "dense_scm":
        return dense_scm(X, Y, **kwargs)
    if measure == "sparse_scm":
        return sparse_scm(X, Y, **kwargs)
    if measure == "l1":
        return -l1_distance(X, Y)
    raise ValueError(f"unknown measure {measure!r}; expected one of {MEASURES}")
