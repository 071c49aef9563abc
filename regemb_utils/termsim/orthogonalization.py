"""The orthogonalization as the paper runs it: neighbour caches of every dictionary word (cached), and the grid of
orthogonalized matrices S' over one dictionary, ordered by idf or not (chapter 3's tables of them:
:mod:`regemb_utils.chapters.orthogonalization`)."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors, TfidfModel
from scipy import sparse

from ..infra.cache import ArtifactCache
from ..infra.keys import computes, fingerprint
from .matrix import Neighbours, TermSimilarityBuilder, is_binary, nearest_neighbours

__all__ = ["neighbour_key", "neighbour_cache", "SPARSE_KEYS", "neighbour_depth", "MatrixGrid", "most_frequent"]


def common_tfidf(dictionary: Dictionary) -> TfidfModel:
    """The paper's ``TfidfModel(dictionary=common_dictionary, smartirs='dtn')``: used only to order S' by idf.

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary

    Returns
    -------
    gensim.models.TfidfModel

    Examples
    --------
    >>> [round(float(idf), 3) for idf in common_tfidf(Dictionary([["a", "b", "c"], ["a", "b"], ["a"]])).idfs.values()]
    [0.415, 1.0, 2.0]
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
    return dict(
        model_key,
        corpus_articles=corpus_articles,
        dictionary_tokenizer=tokenizer,
        bit_operations=is_binary(vectors.vectors),
        vectors=fingerprint(vectors.vectors),
    )


def neighbour_cache(
    vectors: KeyedVectors,
    dictionary: Dictionary,
    depth: int,
    key: dict,
    cache: ArtifactCache | None = None,
    *,
    load: bool = True,
) -> tuple[Neighbours, float] | None:
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
    return cache.get("neighbours", params, lambda: _neighbours(vectors, dictionary, depth), save, load_artifact)


@computes("neighbours", version=2)
def _neighbours(vectors: KeyedVectors, dictionary: Dictionary, depth: int) -> tuple[Neighbours, float]:
    start = time.perf_counter()
    neighbours = nearest_neighbours(vectors, list(dictionary.token2id), depth=depth)
    return neighbours, time.perf_counter() - start


# The orthogonalization grid's keys in the paper's order (after the slope; the appendix on the paper's code, "The parameter
# grid"): MatrixGrid.build's arguments.
SPARSE_KEYS = ("symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent")


def neighbour_depth(nonzero_limits) -> int:
    """Neighbours per word that a neighbour cache needs for S' at every C of ``nonzero_limits``: the largest (or 0).

    Parameters
    ----------
    nonzero_limits : iterable of int

    Returns
    -------
    int

    Examples
    --------
    >>> neighbour_depth((100, 200, 400, 800)), neighbour_depth(())
    (800, 0)
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
        self.builders = {
            True: TermSimilarityBuilder(neighbours, dictionary, common_tfidf(dictionary)),
            False: TermSimilarityBuilder(neighbours, dictionary, None),
        }

    def build(self, symmetric, dominant, idf, nonzero_limit, threshold, exponent) -> sparse.csc_matrix:
        return self.builders[idf].build(
            nonzero_limit, threshold, exponent, symmetric=symmetric, dominant=dominant, fill_rule=self.fill_rule
        )


def most_frequent(dictionary: Dictionary, n: int) -> Dictionary:
    """A copy of ``dictionary`` restricted to its ``n`` words of highest document frequency (ties by id).

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
    n : int

    Returns
    -------
    gensim.corpora.Dictionary

    Examples
    --------
    >>> most_frequent(Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]), 2).token2id
    {'a': 0, 'b': 1}
    """
    restricted = copy.deepcopy(dictionary)
    restricted.filter_extremes(no_below=1, no_above=1.0, keep_n=n)
    return restricted
