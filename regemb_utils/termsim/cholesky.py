"""Orthogonalized word embeddings: the Cholesky factor of a term-similarity matrix (paper §4.2, Theorem 1).

CHOLMOD factors ``S[P][:, P] = L Lᵀ`` with a fill-reducing permutation ``P``. Undoing it, ``E' = L[P⁻¹]`` (row ``P[i]``
of ``E'`` is row ``i`` of ``L``) satisfies ``E' E'ᵀ = S`` in the original word order, so row ``w`` of ``E'`` is the
orthogonalized embedding of word ``w``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = [
    "CholeskyInfo",
    "orthogonalized_embeddings",
    "inner_product_errors",
    "dense_orthogonalized",
]


@dataclass
class CholeskyInfo:
    """What a factorization found and cost (:func:`orthogonalized_embeddings`).

    Parameters
    ----------
    ok : bool
        Whether a factor was produced.
    reason : str or None
        Why not (None when ``ok``).
    n : int
        Rows of S.
    nnz_S, nnz_factor : int
        Stored entries of S and of the factor.
    seconds : float
        The factorization's time.

    Examples
    --------
    See :func:`orthogonalized_embeddings`.
    """

    ok: bool
    reason: str | None  # why no factor was produced (None when ok)
    n: int
    nnz_S: int
    nnz_factor: int = 0
    seconds: float = 0.0


def orthogonalized_embeddings(S, *, mode: str = "supernodal", check_symmetric: bool = True):
    """Factor a symmetric positive-definite ``S`` and return ``(E_prime, info)`` with ``E_prime @ E_prime.T == S``.

    ``E_prime`` is a float64 CSR matrix (one row per word). If ``S`` is not symmetric or not positive definite, the
    result is ``(None, info)`` with ``info.ok == False`` and ``info.reason`` saying why; nothing is raised.

    Parameters
    ----------
    S : scipy.sparse matrix
        A term-similarity matrix.
    mode : {"supernodal", "simplicial"}
        CHOLMOD's factorization.
    check_symmetric : bool
        Check the symmetry first.

    Returns
    -------
    (scipy.sparse.csr_matrix or None, CholeskyInfo)
        E' and what the factorization found and cost.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> S = sparse.csc_matrix(np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> E, info = orthogonalized_embeddings(S)
    >>> info.ok, np.allclose((E @ E.T).toarray(), S.toarray())
    (True, True)
    """
    from time import perf_counter

    from sksparse.cholmod import CholmodError, CholmodNotPositiveDefiniteError, cholesky

    S = sparse.csc_matrix(S, dtype=np.float64)
    S.sum_duplicates()
    n = S.shape[0]
    info = CholeskyInfo(ok=False, reason=None, n=n, nnz_S=int(S.nnz))
    if S.shape[0] != S.shape[1]:
        info.reason = f"not square: {S.shape}"
        return None, info
    if check_symmetric:
        asym = abs(S - S.T)
        if asym.nnz and asym.max() > 0:
            info.reason = f"not symmetric (max |S - S^T| = {asym.max():.3g}); CHOLMOD would read only one triangle"
            return None, info
    start = perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factor = cholesky(S, mode=mode)
            L = factor.L()
    except CholmodNotPositiveDefiniteError as error:
        info.reason = f"not positive definite: {error}"
        info.seconds = perf_counter() - start
        return None, info
    except CholmodError as error:  # any other CHOLMOD failure is also a result, not a crash
        info.reason = f"CHOLMOD failed: {error}"
        info.seconds = perf_counter() - start
        return None, info
    P = factor.P()
    inverse = np.empty_like(P)
    inverse[P] = np.arange(P.size)
    E_prime = sparse.csr_matrix(L)[inverse]
    info.seconds = perf_counter() - start
    if not np.all(np.isfinite(E_prime.data)):
        info.reason = "not positive definite: the factor has non-finite entries"
        return None, info
    info.ok = True
    info.nnz_factor = int(E_prime.nnz)
    return E_prime, info


def _stored_inner_products(S, X, block: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """For every stored entry (i, j) of S: (⟨x_i, x_j⟩, s_ij), with X dense or sparse (rows = words)."""
    S = sparse.coo_matrix(S)
    rows, cols, values = S.row, S.col, S.data.astype(np.float64)
    products = np.empty(rows.size, dtype=np.float64)
    if sparse.issparse(X):
        X = sparse.csr_matrix(X, dtype=np.float64)
        for start in range(0, rows.size, block * 64):
            stop = min(start + block * 64, rows.size)
            products[start:stop] = np.asarray(X[rows[start:stop]].multiply(X[cols[start:stop]]).sum(axis=1)).ravel()
    else:
        X = np.asarray(X, dtype=np.float64)
        for start in range(0, rows.size, block * 64):
            stop = min(start + block * 64, rows.size)
            products[start:stop] = np.einsum("ij,ij->i", X[rows[start:stop]], X[cols[start:stop]])
    return products, values


def inner_product_errors(S, X) -> dict:
    """How well the rows of ``X`` keep the inner products stored in ``S``: ``|⟨x_i, x_j⟩ − s_ij|`` over the stored
    entries (i, j) of S, its maximum (``"max"``), mean (``"mean"``) and the number of entries (``"entries"``).

    For the orthogonalized embeddings ``X = E'`` Theorem 1 says the maximum is 0 up to rounding; for dense reduced
    embeddings (:func:`dense_orthogonalized`) it measures what the reduction loses.

    Parameters
    ----------
    S : scipy.sparse matrix
        The term similarities.
    X : numpy.ndarray or scipy.sparse matrix
        One row per word.

    Returns
    -------
    dict
        ``{"max": float, "mean": float, "entries": int}``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> inner_product_errors(sparse.csr_matrix(np.array([[1.0, 0.5], [0.5, 1.0]])), np.eye(2))
    {'max': 0.5, 'mean': 0.25, 'entries': 4}
    """
    products, values = _stored_inner_products(S, X)
    errors = np.abs(products - values)
    return {
        "max": float(errors.max()) if errors.size else 0.0,
        "mean": float(errors.mean()) if errors.size else 0.0,
        "entries": int(errors.size),
    }


def dense_orthogonalized(E_prime, dims: int, *, random_state: int = 0, n_iter: int = 5) -> np.ndarray:
    """Reduce the sparse orthogonalized embeddings to ``dims`` dense dimensions with truncated SVD (rows = words).

    Returns ``U Σ`` (the TruncatedSVD transform), whose inner products approximate ``E' E'ᵀ = S``.

    Parameters
    ----------
    E_prime : scipy.sparse matrix
        The orthogonalized embeddings (rows = words).
    dims : int
        Dense dimensions.
    random_state : int
        The randomized SVD's seed.
    n_iter : int
        Its power iterations.

    Returns
    -------
    numpy.ndarray
        ``float32 [n_words, dims]``.

    Examples
    --------
    >>> E = dense_orthogonalized(sparse.identity(5, format="csr"), 2)
    >>> E.shape, E.dtype
    ((5, 2), dtype('float32'))
    """
    from sklearn.decomposition import TruncatedSVD

    if not 1 <= dims < min(E_prime.shape):
        raise ValueError(f"dims must lie in [1, {min(E_prime.shape) - 1}], got {dims}")
    svd = TruncatedSVD(n_components=dims, algorithm="randomized", n_iter=n_iter, random_state=random_state)
    return svd.fit_transform(sparse.csr_matrix(E_prime)).astype(np.float32)
