"""The term similarity matrices S' for a grid point of the sparse SCM: from a grid held in memory, or from the
neighbour cache and the dictionary in the artifact cache (what a joblib or dask worker loads itself)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scipy import sparse

from ..infra.cache import ArtifactCache
from ..infra.keys import code_hash, fingerprint
from ..text.corpus import corpus_dictionary
from .matrix import nearest_neighbours
from .orthogonalization import SPARSE_KEYS, MatrixGrid, neighbour_cache

__all__ = ["InMemoryMatrices", "CachedMatrices", "restricted"]


class InMemoryMatrices:
    """S' for a grid point from embeddings and a dictionary held in memory (a library user's data set).

    The neighbour search (the top-``depth`` neighbours of the dictionary's words with an embedding) runs on the first
    :meth:`build`, so a result answered from the artifact cache never runs it; ``identity`` fingerprints the
    embeddings, the dictionary, ``depth`` and the fill rule by content, and the code that builds S' from them (for the
    keys of results computed with them).
    Pickling (a joblib worker) builds the source first, so it is computed once, by the caller.

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S'.
    depth : int
        Neighbours per word (the grid's largest C).
    fill_rule : str
        How a dominance violation is handled.
    progress : bool
        Show the neighbour search's progress bar.

    Examples
    --------
    >>> import numpy as np
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> matrices = InMemoryMatrices(kv, Dictionary([["a", "b", "c"]]), depth=1)
    >>> point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=1, threshold=0.0, exponent=1.0)
    >>> matrices.build(point).shape
    (3, 3)
    """

    def __init__(self, vectors, dictionary, depth: int, fill_rule: str = "paper", progress: bool = False):
        self.vectors, self.dictionary, self.depth, self.fill_rule, self.progress = (
            vectors,
            dictionary,
            int(depth),
            fill_rule,
            progress,
        )
        self._grid = None
        self.identity = fingerprint(
            list(vectors.index_to_key),
            vectors.vectors,
            sorted(dictionary.token2id.items()),
            sorted(dictionary.dfs.items()),
            dictionary.num_docs,
            self.depth,
            fill_rule,
            code_hash(InMemoryMatrices),
        )

    def grid(self) -> MatrixGrid:
        """The S' source, from the neighbour search on the first call."""
        if self._grid is None:
            words = [word for word in self.dictionary.token2id if word in self.vectors.key_to_index]
            neighbours = nearest_neighbours(self.vectors, words, depth=self.depth, progress=self.progress)
            self._grid = MatrixGrid(neighbours, self.dictionary, self.fill_rule)
        return self._grid

    def __getstate__(self):
        self.grid()
        return dict(self.__dict__, vectors=None)

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid().build(**{key: point[key] for key in SPARSE_KEYS})


_LOADED: dict = {}  # per process: the last CachedMatrices' MatrixGrid


def _allow_kept_memory(limit: int = 16 * 2**30) -> None:
    """joblib's loky workers restart themselves when their memory grows by 300 MB (a leak check); a worker that keeps
    its S' source (≈ 2 GB for the paper's dictionary) on purpose would restart, and reload it, after every grid
    point. Raise the check's limit in this worker (loky reads it on every check)."""
    try:
        from joblib.externals.loky import process_executor
    except ImportError:  # pragma: no cover
        return
    process_executor._MAX_MEMORY_LEAK_SIZE = max(process_executor._MAX_MEMORY_LEAK_SIZE, limit)


@dataclass(frozen=True)
class CachedMatrices:
    """S' for a grid point, from the neighbour cache and the dictionary in the artifact cache.

    Pickles to a few strings; each process (a joblib or dask worker) loads the cache and prepares its builders once
    and keeps only the last source in memory. The neighbour cache must already exist (chapter 3 makes it; call
    :func:`regemb_utils.termsim.orthogonalization.neighbour_cache` in the main process first).

    Parameters
    ----------
    root : str
        The artifact cache's directory.
    corpus_articles : int or None
        The corpus dictionary's articles (None: all).
    tokenizer : str
        The corpus dictionary's tokenizer.
    neighbour_key : tuple of (str, object) pairs
        The neighbour cache's key (:func:`regemb_utils.termsim.orthogonalization.neighbour_key`), sorted.
    depth : int
        Neighbours per word in the cache.
    fill_rule : str
        How a dominance violation is handled.

    Examples
    --------
    >>> source = CachedMatrices("/tmp/cache", None, "paper", (("model", "32-bit"),), 800)
    >>> source.identity == CachedMatrices("/elsewhere", None, "paper", (("model", "32-bit"),), 800).identity
    True
    """

    root: str
    corpus_articles: int | None
    tokenizer: str
    neighbour_key: tuple[tuple[str, Any], ...]
    depth: int  # neighbours per word in the cache
    fill_rule: str = "paper"

    def grid(self):
        if self not in _LOADED:
            _LOADED.clear()
            cache = ArtifactCache(self.root)
            dictionary = corpus_dictionary(self.corpus_articles, self.tokenizer, cache)
            neighbours, _ = neighbour_cache(None, dictionary, self.depth, dict(self.neighbour_key), cache)
            _LOADED[self] = MatrixGrid(neighbours, dictionary, self.fill_rule)
            _allow_kept_memory()
        return _LOADED[self]

    @property
    def identity(self) -> str:
        """The S' source by content: the neighbour cache's key fingerprints the embeddings and names the dictionary;
        with the code that builds S' from them; where the cache lives does not matter."""
        return fingerprint(
            self.corpus_articles,
            self.tokenizer,
            dict(self.neighbour_key),
            self.depth,
            self.fill_rule,
            code_hash(CachedMatrices),
        )

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid().build(**{key: point[key] for key in SPARSE_KEYS})


def restricted(S, terms) -> sparse.csc_matrix:
    """``S[terms][:, terms]``: S' on the dictionary ids ``terms`` only, in that order (e.g. ``Documents.terms``: one
    data set's words).

    Parameters
    ----------
    S : scipy.sparse matrix
    terms : array_like of int

    Returns
    -------
    scipy.sparse.csc_matrix

    Examples
    --------
    >>> restricted(sparse.csc_matrix([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]]), [2, 1]).toarray().tolist()
    [[1.0, 0.2], [0.2, 1.0]]
    """
    return sparse.csc_matrix(S[:, terms])[terms, :]
