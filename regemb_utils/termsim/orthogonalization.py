"""Chapter 3's computations: neighbour caches, the paper's grid of orthogonalized matrices S', and the Cholesky check."""
from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np
import pandas as pd
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors, TfidfModel
from scipy import sparse

from ..study.cache import ArtifactCache, fingerprint
from ..study.progress import progress_bar
from .cholesky import inner_product_errors, orthogonalized_embeddings
from .matrix import Neighbours, TermSimilarityBuilder, is_binary, nearest_neighbours

ARTIFACTS = ("neighbours",)  # the artifact kinds computed here (their keys hash this code: study.cache)


def common_tfidf(dictionary: Dictionary) -> TfidfModel:
    """The paper's ``TfidfModel(dictionary=common_dictionary, smartirs='dtn')``: used only to order S' by idf.

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
        The common dictionary.

    Returns
    -------
    gensim.models.TfidfModel
        Its ``dtn`` model.

    Examples
    --------
    >>> model = common_tfidf(Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]))
    >>> {word: round(float(model.idfs[i]), 4) for word, i in model.id2word.token2id.items()}  # the rarer, the larger
    {'a': 0.415, 'b': 1.0, 'c': 2.0}
    """
    return TfidfModel(dictionary=dictionary, smartirs="dtn")


def neighbour_key(vectors: KeyedVectors, model_key: dict, corpus_articles: int | None, tokenizer: str) -> dict:
    """What identifies a neighbour cache: the embeddings (their settings and their content) and the dictionary.

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.
    model_key : dict
        The parameters that produced them.
    corpus_articles : int or None
        Chapter 1's corpus size (the dictionary).
    tokenizer : str
        Chapter 1's tokenizer (the dictionary).

    Returns
    -------
    dict
        The key of the neighbour cache.

    Examples
    --------
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b"], np.array([[1.0, -1.0], [-1.0, 1.0]]))
    >>> key = neighbour_key(kv, {"model": "1-bit"}, 200, "paper")
    >>> key["bit_operations"], key["vectors"] == fingerprint(kv.vectors), sorted(key)
    (True, True, ['bit_operations', 'corpus_articles', 'dictionary_tokenizer', 'model', 'vectors'])
    """
    return dict(model_key, corpus_articles=corpus_articles, dictionary_tokenizer=tokenizer,
                bit_operations=is_binary(vectors.vectors), vectors=fingerprint(vectors.vectors))


def neighbour_cache(vectors: KeyedVectors, dictionary: Dictionary, depth: int, key: dict,
                    cache: ArtifactCache | None = None, *, load: bool = True) -> tuple[Neighbours, float] | None:
    """The top-``depth`` neighbours of every dictionary word with an embedding, and the seconds it took to compute.

    ``key`` identifies the embeddings and the dictionary (the parameters that produced them). ``load=False`` only
    makes sure the artifact exists (computing it if missing) and returns None: for callers whose workers load it.

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors or None
        The embeddings (None: the artifact must exist; ``key`` then needs ``bit_operations``).
    dictionary : gensim.corpora.Dictionary
        Whose words get neighbours.
    depth : int
        Neighbours per word.
    key : dict
        The parameters that produced the embeddings and the dictionary (:func:`neighbour_key`).
    cache : ArtifactCache, optional
        Where the artifact is kept.
    load : bool
        Return the cache (or only make sure it exists).

    Returns
    -------
    (Neighbours, float) or None
        The cache and the seconds its computation took.

    Examples
    --------
    >>> import tempfile
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> with tempfile.TemporaryDirectory() as root:
    ...     neighbours, seconds = neighbour_cache(kv, Dictionary([["a", "b", "c"]]), 2, {"model": "toy"},
    ...                                           ArtifactCache(root))
    >>> neighbours.depth
    2
    """
    def compute():
        start = time.perf_counter()
        neighbours = nearest_neighbours(vectors, list(dictionary.token2id), depth=depth)
        return neighbours, time.perf_counter() - start

    def save(value, directory: Path):
        value[0].save(directory / "neighbours.npz")
        (directory / "seconds.txt").write_text(repr(value[1]))

    def load_artifact(directory: Path):
        return Neighbours.load(directory / "neighbours.npz"), float((directory / "seconds.txt").read_text())

    # 1-bit vectors take the exact bit-operation path (exact ties), which orders ties differently from BLAS rounding.
    # Without the vectors (a worker loading an existing cache) the key must say which path built it.
    params = dict(key, k=depth)  # the key's name "k" keeps existing caches valid
    if vectors is not None:
        params["bit_operations"] = is_binary(vectors.vectors)
    elif "bit_operations" not in params:
        raise ValueError("without vectors, the key must contain 'bit_operations'")
    cache = cache or ArtifactCache()
    if not load and cache.has("neighbours", params):
        return None
    return cache.get("neighbours", params, compute, save, load_artifact)


# The orthogonalization grid's keys in the paper's order (after the slope), notes §7-§8: MatrixGrid.build's arguments.
SPARSE_KEYS = ("symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent")


def neighbour_depth(nonzero_limits) -> int:
    """Neighbours per word that a neighbour cache needs for S' at every C of ``nonzero_limits``: the largest C.

    Parameters
    ----------
    nonzero_limits : iterable of int
        The grid's values of C (``nonzero_limit``); may be empty.

    Returns
    -------
    int
        The largest of them, 0 for none.

    Examples
    --------
    >>> neighbour_depth((100, 200, 400, 800))
    800
    """
    return max((int(c) for c in nonzero_limits), default=0)


class MatrixGrid:
    """Builds S' for any grid point over one dictionary, with and without idf ordering.

    Parameters
    ----------
    neighbours : Neighbours
        The neighbour cache, at least as deep as the grid's largest C.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'.
    fill_rule : str
        How a dominance violation is handled.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from .matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=1, progress=False), Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]))
    >>> grid.build(symmetric=True, dominant=True, idf=True, nonzero_limit=1, threshold=0.0, exponent=1.0).toarray().round(2)
    array([[1. , 0. , 0. ],
           [0. , 1. , 0.6],
           [0. , 0.6, 1. ]], dtype=float32)
    """

    def __init__(self, neighbours: Neighbours, dictionary: Dictionary, fill_rule: str = "paper"):
        self.fill_rule = fill_rule
        self.builders = {True: TermSimilarityBuilder(neighbours, dictionary, common_tfidf(dictionary)),
                         False: TermSimilarityBuilder(neighbours, dictionary, None)}

    def build(self, symmetric, dominant, idf, nonzero_limit, threshold, exponent) -> sparse.csc_matrix:
        return self.builders[idf].build(nonzero_limit, threshold, exponent, symmetric=symmetric, dominant=dominant,
                                        fill_rule=self.fill_rule)


def most_frequent(dictionary: Dictionary, n: int) -> Dictionary:
    """The dictionary restricted to its ``n`` words of highest document frequency (ties by id).

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
        The whole dictionary (not changed).
    n : int
        Words kept.

    Returns
    -------
    gensim.corpora.Dictionary
        A copy with the ``n`` most frequent words.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> most_frequent(Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]), 2).token2id
    {'a': 0, 'b': 1}
    """
    restricted = copy.deepcopy(dictionary)
    restricted.filter_extremes(no_below=1, no_above=1.0, keep_n=n)
    return restricted


def sparsity_table(grid: MatrixGrid, points: list[dict], embedded: np.ndarray) -> pd.DataFrame:
    """Off-diagonal non-zeros per column of S' (over the words with an embedding) and build time, per grid point.

    Parameters
    ----------
    grid : MatrixGrid
        Builds S'.
    points : list of dict
        Grid points (the keyword arguments of :meth:`MatrixGrid.build`).
    embedded : numpy.ndarray
        The columns of the words with an embedding.

    Returns
    -------
    pandas.DataFrame
        One row per point: its parameters, nonzeros_per_column and seconds.

    Examples
    --------
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> dictionary = Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=2, threshold=-1.0, exponent=1.0)
    >>> table = sparsity_table(grid, [dict(point, nonzero_limit=c) for c in (1, 2)], np.arange(3))
    >>> table[["nonzero_limit", "nonzeros_per_column"]].round(4).values.tolist()
    [[1.0, 0.6667], [2.0, 1.3333]]
    """
    rows = []
    for point in progress_bar(points, desc="S' grid", unit="matrix"):
        start = time.perf_counter()
        S = grid.build(**point)
        seconds = time.perf_counter() - start
        off_diagonal = np.diff(S.indptr)[embedded] - 1
        rows.append(dict(point, nonzeros_per_column=float(off_diagonal.mean()), seconds=seconds))
    return pd.DataFrame(rows)


def positive_definite_table(grid: MatrixGrid, points: list[dict]) -> pd.DataFrame:
    """Whether S' at each grid point is symmetric positive definite (CHOLMOD, supernodal), with the reason if not.

    Parameters
    ----------
    grid : MatrixGrid
        Builds S'.
    points : list of dict
        Grid points (the keyword arguments of :meth:`MatrixGrid.build`).

    Returns
    -------
    pandas.DataFrame
        One row per point: its parameters, positive_definite and reason.

    Examples
    --------
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> dictionary = Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=2, threshold=-1.0, exponent=1.0)
    >>> table = positive_definite_table(grid, [dict(point, dominant=dominant) for dominant in (True, False)])
    >>> table[["dominant", "positive_definite", "reason"]].values.tolist()
    [[True, True, ''], [False, False, 'not positive definite']]
    """
    rows = []
    for point in progress_bar(points, desc="Cholesky", unit="matrix"):
        _, info = orthogonalized_embeddings(grid.build(**point))
        rows.append(dict(point, positive_definite=info.ok, reason=(info.reason or "").split(":")[0]))
    return pd.DataFrame(rows)


def theorem_table(S: sparse.spmatrix, E_prime, vectors: KeyedVectors, dictionary: Dictionary) -> dict[str, float]:
    """Theorem 1 on S': ``max |⟨e'_i, e'_j⟩ - s'_ij|`` over the stored entries, and, for t = -1 and o = 1,
    ``max |s'_ij - cos(e_i, e_j)|`` over the stored off-diagonal entries between words with an embedding.

    Parameters
    ----------
    S : scipy.sparse matrix
        S'.
    E_prime : scipy.sparse matrix
        Its Cholesky factor (:func:`regemb_utils.termsim.cholesky.orthogonalized_embeddings`).
    vectors : gensim.models.KeyedVectors
        The embeddings.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'.

    Returns
    -------
    dict
        Both largest differences and the stored entries of S'.

    Examples
    --------
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> dictionary = Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=2, threshold=-1.0, exponent=1.0)
    >>> from regemb_utils.termsim.cholesky import orthogonalized_embeddings
    >>> S = grid.build(**point)
    >>> E_prime, _ = orthogonalized_embeddings(S)
    >>> found = theorem_table(S, E_prime, kv, dictionary)
    >>> [value < 1e-6 for value in found.values()][:2], found["stored entries"]
    ([True, True], 7)
    """
    coo = sparse.coo_matrix(S)
    off = coo.row != coo.col
    words = [dictionary[i] for i in range(len(dictionary))]
    unit = vectors.get_normed_vectors()
    index = np.array([vectors.key_to_index.get(w, -1) for w in words])
    rows, cols, values = coo.row[off], coo.col[off], coo.data[off]
    cosines = np.einsum("ij,ij->i", unit[index[rows]], unit[index[cols]])
    return {"max |⟨e'_i, e'_j⟩ - s'_ij|": inner_product_errors(S, E_prime)["max"],
            "max |s'_ij - cos(e_i, e_j)|": float(np.max(np.abs(values - cosines))) if values.size else 0.0,
            "stored entries": int(S.nnz)}


def factorization_table(neighbours: Neighbours, dictionary: Dictionary, sizes, point: dict, fill_rule: str = "paper"):
    """nnz(S'), nnz(L), time and memory of the Cholesky factorization against the vocabulary size N.

    Parameters
    ----------
    neighbours : regemb_utils.termsim.matrix.Neighbours
        The neighbour cache.
    dictionary : gensim.corpora.Dictionary
        The whole dictionary.
    sizes : iterable of int
        The vocabulary sizes N (the most frequent words).
    point : dict
        The grid point.
    fill_rule : str
        How a dominance violation is handled.

    Returns
    -------
    pandas.DataFrame
        One row per N: nnz(S'), nnz(L), density of L, seconds, memory of L (MiB), positive definite.

    Examples
    --------
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> dictionary = Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=2, threshold=-1.0, exponent=1.0)
    >>> table = factorization_table(nearest_neighbours(kv, depth=2, progress=False), dictionary, [2, 3], point)
    >>> table[["N", "nnz(S')", "nnz(L)", "density of L", "positive definite"]].values.tolist()
    [[2, 4, 3, 1.0, True], [3, 7, 6, 1.0, True]]
    """
    rows = []
    for n in progress_bar(sizes, desc="Cholesky vs N", unit="size"):
        restricted = most_frequent(dictionary, n)
        S = MatrixGrid(neighbours, restricted, fill_rule).build(**point)
        E_prime, info = orthogonalized_embeddings(S)
        rows.append({"N": len(restricted), "nnz(S')": info.nnz_S, "nnz(L)": info.nnz_factor,
                     "density of L": info.nnz_factor / (len(restricted) * (len(restricted) + 1) / 2),
                     "seconds": info.seconds, "memory of L (MiB)": info.nnz_factor * 12 / 2**20,
                     "positive definite": info.ok})
    return pd.DataFrame(rows)


def inner_product_fidelity(S, X) -> dict[str, float]:
    """:func:`regemb_utils.termsim.cholesky.inner_product_errors` with chapter 3's labels.

    Parameters
    ----------
    S : scipy.sparse matrix
        S'.
    X : matrix
        The embeddings whose inner products should equal S' (e.g. its Cholesky factor).

    Returns
    -------
    dict
        The largest and the mean difference.

    Examples
    --------
    >>> S = sparse.csr_matrix(np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> inner_product_fidelity(S, np.eye(2))  # the identity misses the off-diagonal 0.5 (2 of 4 entries)
    {"max |⟨x_i, x_j⟩ - s'_ij|": 0.5, "mean |⟨x_i, x_j⟩ - s'_ij|": 0.25}
    """
    errors = inner_product_errors(S, X)
    return {"max |⟨x_i, x_j⟩ - s'_ij|": errors["max"], "mean |⟨x_i, x_j⟩ - s'_ij|": errors["mean"]}
