"""The term similarity matrices S' for a grid point of the sparse SCM: from a grid held in memory, or from the
neighbour cache and the dictionary in the artifact cache (what a joblib or dask worker loads itself)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scipy import sparse

from .cache import ArtifactCache, code_hash, fingerprint
from .methods import SPARSE_KEYS

__all__ = ["InMemoryMatrices", "CachedMatrices"]


class InMemoryMatrices:
    """S' for a grid point from neighbours and a dictionary held in memory (small cases); ``identity`` fingerprints
    both by content, and the code that builds S' from them (for the keys of results computed with them)."""

    def __init__(self, neighbours, dictionary, fill_rule: str = "paper"):
        from .orthogonalization import MatrixGrid

        self.grid = MatrixGrid(neighbours, dictionary, fill_rule)
        self.identity = fingerprint(neighbours.keys, neighbours.words, neighbours.indices, neighbours.similarities,
                                    sorted(dictionary.token2id.items()), sorted(dictionary.dfs.items()),
                                    dictionary.num_docs, fill_rule, code_hash(__name__))

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid.build(**{key: point[key] for key in SPARSE_KEYS})


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
    :func:`regemb_utils.orthogonalization.neighbour_cache` in the main process first).
    """

    root: str
    corpus_articles: int | None
    tokenizer: str
    neighbour_key: tuple[tuple[str, Any], ...]
    depth: int  # neighbours per word in the cache
    fill_rule: str = "paper"

    def grid(self):
        from .orthogonalization import MatrixGrid, neighbour_cache
        from .preprocessing import corpus_dictionary

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
        return fingerprint(self.corpus_articles, self.tokenizer, dict(self.neighbour_key), self.depth, self.fill_rule,
                           code_hash(__name__))

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid().build(**{key: point[key] for key in SPARSE_KEYS})
