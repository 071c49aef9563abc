"""Chapter 3's tables: how sparse the orthogonalized S' gets over the paper's grid, at which grid points it is
positive definite, Theorem 1 checked on it, and how its Cholesky factor fills in with the vocabulary size.

Each builds S' with :class:`regemb_utils.termsim.orthogonalization.MatrixGrid` and factorizes it with
:func:`regemb_utils.termsim.cholesky.orthogonalized_embeddings` (CHOLMOD).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors
from scipy import sparse

from ..termsim.cholesky import inner_product_errors, orthogonalized_embeddings
from ..termsim.matrix import Neighbours, nearest_neighbours
from ..termsim.orthogonalization import MatrixGrid, most_frequent
from ..infra.progress import progress_bar

__all__ = [
    "sparsity_table",
    "column_bound",
    "positive_definite_table",
    "theorem_table",
    "THEOREM_HEADERS",
    "factorization_table",
    "idf_orthogonality",
]

# theorem_table's keys (plain text: they name the record's values) as the book's table heads them, in mathematical type
THEOREM_HEADERS = {
    "max |⟨e'_i, e'_j⟩ - s'_ij|": "max |⟨e′ᵢ, e′ⱼ⟩ − s′ᵢⱼ|",
    "max |⟨e'_i, e'_j⟩|, unstored": "max |⟨e′ᵢ, e′ⱼ⟩| where s′ᵢⱼ = 0",
    "max |s'_ij - cos(e_i, e_j)|": "max |s′ᵢⱼ − cos(eᵢ, eⱼ)|",
    "nnz(L)": "non-zeros of E′",
}


def _example():
    """Three words on a quarter circle, their neighbours and a dictionary in which "a" is the most frequent."""
    kv = KeyedVectors(2)
    kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    dictionary = Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])
    return kv, nearest_neighbours(kv, depth=2, progress=False), dictionary


def sparsity_table(grid: MatrixGrid, points: list[dict], embedded: np.ndarray) -> pd.DataFrame:
    """Off-diagonal non-zeros per column of S' (over the words with an embedding) and the build time, per grid point.

    Parameters
    ----------
    grid : MatrixGrid
        Builds S' over one dictionary.
    points : list of dict
        Grid points (``symmetric``, ``dominant``, ``idf``, ``nonzero_limit``, ``threshold``, ``exponent``).
    embedded : numpy.ndarray
        Boolean, per dictionary word: whether it has an embedding (the columns averaged).

    Returns
    -------
    pandas.DataFrame
        One row per point: its parameters, ``nonzeros_per_column`` (the mean), ``largest_per_column`` (the fullest
        column's) and ``seconds``.

    Examples
    --------
    >>> kv, neighbours, dictionary = _example()
    >>> point = dict(symmetric=True, dominant=False, idf=False, threshold=0.0, exponent=1.0)
    >>> table = sparsity_table(MatrixGrid(neighbours, dictionary), [dict(point, nonzero_limit=c) for c in (1, 2)],
    ...                        np.ones(3, dtype=bool))
    >>> table["nonzeros_per_column"].round(3).tolist()  # C bounds the neighbours of each word
    [0.667, 1.333]
    >>> table["largest_per_column"].tolist()
    [1, 2]
    """
    rows = []
    for point in progress_bar(points, desc="S' grid", unit="matrix"):
        start = time.perf_counter()
        S = grid.build(**point)
        seconds = time.perf_counter() - start
        off_diagonal = np.diff(S.indptr)[embedded] - 1
        rows.append(
            dict(
                point,
                nonzeros_per_column=float(off_diagonal.mean()),
                largest_per_column=int(off_diagonal.max(initial=0)),
                seconds=seconds,
            )
        )
    return pd.DataFrame(rows)


def column_bound(sparsity: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per model, what bounds the SCM's work per word under S': over the grid points of :func:`sparsity_table` (with
    a ``model`` column), their number, the fullest column's off-diagonal non-zeros and its C, and the most by which a
    column exceeds C (at most 0 when no word is coupled with more than C others).

    Parameters
    ----------
    sparsity : pandas.DataFrame
        :func:`sparsity_table` rows of every model, with a ``model`` column.

    Returns
    -------
    dict
        Model → ``points``, ``largest``, ``at_limit`` and ``excess``.

    Examples
    --------
    >>> rows = pd.DataFrame({"model": "32-bit", "nonzero_limit": [100, 800], "largest_per_column": [100, 640]})
    >>> column_bound(rows)
    {'32-bit': {'points': 2, 'largest': 640, 'at_limit': 800, 'excess': 0}}
    """
    bound = {}
    for model, rows in sparsity.groupby("model", sort=False):
        fullest = rows.loc[rows["largest_per_column"].idxmax()]
        bound[str(model)] = {
            "points": len(rows),
            "largest": int(fullest["largest_per_column"]),
            "at_limit": int(fullest["nonzero_limit"]),
            "excess": int((rows["largest_per_column"] - rows["nonzero_limit"]).max()),
        }
    return bound


def positive_definite_table(grid: MatrixGrid, points: list[dict]) -> pd.DataFrame:
    """Whether S' at each grid point is symmetric positive definite (CHOLMOD, supernodal), with the reason if not.

    Parameters
    ----------
    grid : MatrixGrid
        Builds S' over one dictionary.
    points : list of dict
        Grid points.

    Returns
    -------
    pandas.DataFrame
        One row per point: its parameters, ``positive_definite`` and ``reason`` (empty when it is).

    Examples
    --------
    >>> kv, neighbours, dictionary = _example()
    >>> point = dict(symmetric=True, idf=False, nonzero_limit=2, threshold=0.0, exponent=1.0)
    >>> table = positive_definite_table(MatrixGrid(neighbours, dictionary),
    ...                                 [dict(point, dominant=True), dict(point, dominant=False)])
    >>> table["positive_definite"].tolist()  # without dominance, 0.8 + 0.6 + 0.48 exceed what S' can hold
    [True, False]
    """
    rows = []
    for point in progress_bar(points, desc="Cholesky", unit="matrix"):
        _, info = orthogonalized_embeddings(grid.build(**point))
        rows.append(dict(point, positive_definite=info.ok, reason=(info.reason or "").split(":")[0]))
    return pd.DataFrame(rows)


def theorem_table(S: sparse.spmatrix, E_prime, vectors: KeyedVectors, dictionary: Dictionary) -> dict[str, float]:
    """Theorem 1 on S': ``max |⟨e'_i, e'_j⟩ - s'_ij|`` over the stored entries, ``max |⟨e'_i, e'_j⟩|`` over the pairs
    that S' does not store (orthogonal up to rounding), and, for t = -1 and o = 1, ``max |s'_ij - cos(e_i, e_j)|``
    over the stored off-diagonal entries between words with an embedding.

    The unstored pairs need all inner products of E' (a sparse product), so this is meant for a small vocabulary.

    Parameters
    ----------
    S : scipy.sparse matrix
        S' over ``dictionary``.
    E_prime : scipy.sparse matrix or numpy.ndarray
        Its Cholesky rows (:func:`regemb_utils.termsim.cholesky.orthogonalized_embeddings`).
    vectors : gensim.models.KeyedVectors
        The embeddings whose cosines S' stores.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'.

    Returns
    -------
    dict of str to float
        The three largest differences and ``stored entries`` (nnz of S').

    Examples
    --------
    >>> kv, neighbours, dictionary = _example()
    >>> S = MatrixGrid(neighbours, dictionary).build(symmetric=True, dominant=True, idf=False, nonzero_limit=1,
    ...                                              threshold=-1.0, exponent=1.0)
    >>> E_prime, info = orthogonalized_embeddings(S)
    >>> checked = theorem_table(S, E_prime, kv, dictionary)
    >>> checked["max |s'_ij - cos(e_i, e_j)|"] < 1e-6, checked["stored entries"]  # S' stores cos(a, b) = 0.8
    (True, 5)
    >>> checked["max |⟨e'_i, e'_j⟩|, unstored"] < 1e-12  # a and c: not stored, orthogonal in E'
    True
    """
    coo = sparse.coo_matrix(S)
    off = coo.row != coo.col
    words = [dictionary[i] for i in range(len(dictionary))]
    unit = vectors.get_normed_vectors()
    index = np.array([vectors.key_to_index.get(w, -1) for w in words])
    rows, cols, values = coo.row[off], coo.col[off], coo.data[off]
    cosines = np.einsum("ij,ij->i", unit[index[rows]], unit[index[cols]])
    E = sparse.csr_matrix(E_prime, dtype=np.float64)
    products = sparse.csr_matrix(E @ E.T)
    stored = sparse.csr_matrix((np.ones(coo.nnz), (coo.row, coo.col)), shape=S.shape)
    unstored = abs(products - products.multiply(stored))
    return {
        "max |⟨e'_i, e'_j⟩ - s'_ij|": inner_product_errors(S, E_prime)["max"],
        "max |⟨e'_i, e'_j⟩|, unstored": float(unstored.max()) if unstored.nnz else 0.0,
        "max |s'_ij - cos(e_i, e_j)|": float(np.max(np.abs(values - cosines))) if values.size else 0.0,
        "stored entries": int(S.nnz),
    }


def factorization_table(
    neighbours: Neighbours, dictionary: Dictionary, sizes, point: dict, fill_rule: str = "paper"
) -> pd.DataFrame:
    """nnz(S'), nnz(L), time and memory of the Cholesky factorization against the vocabulary size N.

    Parameters
    ----------
    neighbours : Neighbours
        The neighbour cache.
    dictionary : gensim.corpora.Dictionary
        The whole dictionary; each size keeps its most frequent words (:func:`most_frequent`).
    sizes : iterable of int
        The vocabulary sizes N.
    point : dict
        The grid point of S'.
    fill_rule : str
        How a dominance violation is handled.

    Returns
    -------
    pandas.DataFrame
        One row per N: ``N``, ``nnz(S')``, ``nnz(L)``, ``density of L``, ``seconds``, ``memory of L (MiB)`` and
        ``positive definite``.

    Examples
    --------
    >>> kv, neighbours, dictionary = _example()
    >>> point = dict(symmetric=True, dominant=True, idf=False, nonzero_limit=2, threshold=0.0, exponent=1.0)
    >>> factorization_table(neighbours, dictionary, [2, 3], point)[["N", "nnz(S')", "nnz(L)"]].values.tolist()
    [[2, 4, 3], [3, 5, 4]]

    (L holds the lower triangle of S': no fill-in on three words.)
    """
    rows = []
    for n in progress_bar(sizes, desc="Cholesky vs N", unit="size"):
        restricted = most_frequent(dictionary, n)
        S = MatrixGrid(neighbours, restricted, fill_rule).build(**point)
        E_prime, info = orthogonalized_embeddings(S)
        rows.append(
            {
                "N": len(restricted),
                "nnz(S')": info.nnz_S,
                "nnz(L)": info.nnz_factor,
                "density of L": info.nnz_factor / (len(restricted) * (len(restricted) + 1) / 2),
                "seconds": info.seconds,
                "memory of L (MiB)": info.nnz_factor * 12 / 2**20,
                "positive definite": info.ok,
            }
        )
    return pd.DataFrame(rows)


def idf_orthogonality(
    grid: MatrixGrid, dictionary: Dictionary, point: dict, embedded: np.ndarray, n: int
) -> dict[str, int]:
    """§4.2's "with Idf = true, common words ... are more likely to be mutually orthogonal than rare words", counted:
    the pairs of words that S' does not store (mutually orthogonal in E′, Theorem 1) among the ``n`` words of highest
    document frequency (``frequent``), the ``n`` of lowest (``rare``) and the words of digits (``numeral``), in S'
    built at ``point`` ordered by idf and not.

    Only words with an embedding count: a word without one has no neighbours to store.

    Parameters
    ----------
    grid : MatrixGrid
        Builds S' over ``dictionary``.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'; its document frequencies rank the words.
    point : dict
        The grid point; its ``idf`` is set to each value in turn.
    embedded : numpy.ndarray
        Boolean, per dictionary word: whether it has an embedding.
    n : int
        Words per frequency group (at most half of the words with an embedding).

    Returns
    -------
    dict of str to int
        ``words`` (the n used) and ``numerals``, and per group ``{group} pairs``, ``{group} orthogonal with idf``,
        ``{group} orthogonal without idf``, ``{group} only with idf`` and ``{group} only without idf`` (pairs
        orthogonal in one ordering and stored in the other).

    Raises
    ------
    ValueError
        For fewer than 2 words per group.

    Examples
    --------
    Two common words ``a``, ``b`` (in every document) close to each other, each with a rare word nearby; each column
    of S' holds one neighbour (C = 1). Ordered by idf, the rare words take the common words' places first, so ``a``
    and ``b`` stay orthogonal; in the dictionary's order ``a`` takes ``b``:

    >>> from gensim.corpora import Dictionary
    >>> from ..termsim.matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c", "d"], np.array([[1.0, 0.1], [1.0, 0.3], [1.0, -0.3], [1.0, 0.7]]))
    >>> dictionary = Dictionary([["a", "b", "c"], ["a", "b", "d"], ["a", "b"]])
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=3, progress=False), dictionary)
    >>> point = dict(symmetric=True, dominant=False, nonzero_limit=1, threshold=-1.0, exponent=1.0)
    >>> counted = idf_orthogonality(grid, dictionary, point, np.ones(4, dtype=bool), 2)
    >>> [counted[f"frequent {k}"] for k in ("pairs", "orthogonal with idf", "orthogonal without idf", "only with idf")]
    [1, 1, 0, 1]
    """
    ids = np.flatnonzero(embedded)
    n = min(int(n), len(ids) // 2)
    if n < 2:
        raise ValueError(
            f"idf_orthogonality needs at least 2 words per group, got {n} (words with an embedding: {len(ids)})"
        )
    dfs = np.array([dictionary.dfs.get(int(i), 0) for i in ids])
    order = ids[np.argsort(-dfs, kind="stable")]
    groups = {
        "frequent": order[:n],
        "rare": order[len(order) - n :],
        "numeral": np.array([i for i in order if dictionary[int(i)].isdigit()], dtype=int),
    }
    orthogonal = {}
    for idf in (True, False):
        S = sparse.csr_matrix(grid.build(**{**point, "idf": idf}))
        for group, members in groups.items():
            block = abs(S[members][:, members]).toarray() if len(members) else np.zeros((0, 0))
            unstored = (block + block.T) == 0
            orthogonal[group, idf] = unstored[np.triu_indices(len(members), 1)]
    counted = {"words": n, "numerals": len(groups["numeral"])}
    for group in groups:
        with_idf, without = orthogonal[group, True], orthogonal[group, False]
        counted.update(
            {
                f"{group} pairs": int(with_idf.size),
                f"{group} orthogonal with idf": int(with_idf.sum()),
                f"{group} orthogonal without idf": int(without.sum()),
                f"{group} only with idf": int(np.sum(with_idf & ~without)),
                f"{group} only without idf": int(np.sum(without & ~with_idf)),
            }
        )
    return counted
