"""One kNN engine: a small measure object per method of chapter 4, used by its runs, the scikit-learn estimators, the
explorer and the benchmarks.

A :class:`Measure` knows, for one method of :data:`regemb_utils.classification.methods.METHODS`, what it needs
(:meth:`Measure.inputs`: embedding rows, or a source of S′), how it weights documents (:meth:`Measure.represent`),
its similarities (:meth:`Measure.compare`, :meth:`Measure.similarities`), its k nearest reference documents, timed
on one core (:meth:`Measure.neighbours`: chapter 4's runs, the estimators, the explorer and the benchmarks all search
with it) and their distances (:meth:`Measure.distances`). Code outside this module asks the object; it does not
branch on the measure's name (``tests/classification/test_engine.py`` scans for such branches).

The S′ of the sparse SCM comes from :func:`shared_matrices`: one neighbour search per set of embeddings, grown by
the words each new dictionary needs and deepened when a larger C asks for it, and one per-dictionary preparation
(:class:`regemb_utils.termsim.orthogonalization.MatrixGrid`) per dictionary, kept for the next fits: a grid search
over C, the threshold and the exponent (its candidates and folds) searches the neighbours and prepares each fold's
dictionary once, as chapter 4's grid does.

Examples
--------
>>> from scipy import sparse
>>> measure = Measure.of("bow")
>>> Q, R = sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [2.0, 0.0]])
>>> distances, indices = measure.kneighbours(Q, R, 1, measure.inputs())
>>> indices.tolist(), distances.tolist()
([[1]], [[0.0]])
"""

from __future__ import annotations

import time
import warnings
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from scipy import sparse

from ..measures.representations import represent
from ..measures.similarity import (
    ScmContributions,
    cosine_similarity,
    dense_scm,
    embedding_matrix,
    l1_distance,
    scm_contributions,
    sparse_scm,
)
from ..measures.wmd import WmdFlows, wmd_distances, wmd_flows
from ..termsim.matrix import Neighbours, nearest_neighbours
from ..termsim.orthogonalization import SPARSE_KEYS, MatrixGrid
from ..termsim.sources import InMemoryMatrices, restricted
from .knn import top_k
from .methods import METHODS
from .timing import Run, one_core, warm_up
from .wmd_batches import wmd_neighbours

__all__ = [
    "MissingEmbeddingsWarning",
    "MissingEmbeddings",
    "as_keyed_vectors",
    "Inputs",
    "Measure",
    "shared_matrices",
    "PairExplanation",
    "explain_pair",
]


class MissingEmbeddingsWarning(UserWarning):
    """Words of the documents have no embedding: they get a zero vector, which the SCM with S ignores, with S' makes
    similar only to itself (its diagonal 1), and the WMD places at the origin, where it takes part in the transport
    (the paper's code did the same). The message says how many, their share of the tokens and the most frequent.

    Parameters
    ----------
    message : str
        :meth:`MissingEmbeddings.message`.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     MissingEmbeddings(["tram"], 0.5, 2).warn()
    >>> [w.category.__name__ for w in caught]
    ['MissingEmbeddingsWarning']
    """


@dataclass(frozen=True)
class MissingEmbeddings:
    """The words of some documents without an embedding, with their share of the tokens.

    Parameters
    ----------
    words : list of str
        The words without an embedding, most frequent first (ties: alphabetical).
    share : float
        Their share of the documents' tokens (of the weight, for documents given as weights).
    n_words : int
        The documents' distinct words.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> dictionary = Dictionary([["cat", "tram", "bus"]])
    >>> counts = sparse.csr_matrix([[1.0, 3.0, 0.0]])  # bus 1, cat 3, tram absent (ids in alphabetical order)
    >>> report = MissingEmbeddings.of(as_keyed_vectors({"cat": [1.0]}), dictionary, counts)
    >>> report.words, report.share, report.n_words
    (['bus'], 0.25, 2)
    """

    words: list[str]
    share: float
    n_words: int

    @classmethod
    def of(cls, vectors: KeyedVectors, dictionary, counts) -> "MissingEmbeddings":
        """The report for the documents ``counts`` (rows over ``dictionary``'s ids)."""
        totals = np.asarray(sparse.csr_matrix(counts).sum(axis=0)).ravel()
        used = np.flatnonzero(totals > 0)
        missing = Counter(
            {dictionary[int(i)]: float(totals[i]) for i in used if dictionary[int(i)] not in vectors.key_to_index}
        )
        words = sorted(missing, key=lambda word: (-missing[word], word))
        total = float(totals.sum())
        return cls(words, float(sum(missing.values()) / total) if total else 0.0, int(len(used)))

    def message(self, what: str = "the training documents") -> str:
        return (
            f"{len(self.words)} of the {self.n_words} words of {what} have no embedding "
            f"({100 * self.share:.1f} % of the tokens), the most frequent {self.words[:5]}; they get a zero vector "
            "(the SCM with S ignores them, with S' each is similar only to itself, the WMD places them at the "
            "origin)"
        )

    def warn(self, what: str = "the training documents", stacklevel: int = 3) -> None:
        if self.words:
            warnings.warn(self.message(what), MissingEmbeddingsWarning, stacklevel=stacklevel)


def as_keyed_vectors(vectors, name: str = "vectors") -> KeyedVectors:
    """``vectors`` as a gensim ``KeyedVectors``: a ``KeyedVectors`` itself, the ``.wv`` of a trained gensim
    ``Word2Vec``/``FastText``, or a mapping word → vector (one length, finite numbers).

    Parameters
    ----------
    vectors : KeyedVectors, gensim model with ``.wv`` or Mapping[str, array-like]
    name : the parameter's name, for the error messages

    Returns
    -------
    KeyedVectors

    Examples
    --------
    >>> as_keyed_vectors({"a": [1.0, 0.0], "b": [0.0, 1.0]}).index_to_key
    ['a', 'b']
    """
    if isinstance(vectors, KeyedVectors):
        return vectors
    if isinstance(getattr(vectors, "wv", None), KeyedVectors):
        return vectors.wv
    if isinstance(vectors, Mapping):
        if not vectors:
            raise ValueError(f"{name} is an empty mapping; give word → vector pairs")
        words = list(vectors)
        if not all(isinstance(word, str) for word in words):
            raise TypeError(
                f"{name} must map words (str) to vectors, got a key {next(w for w in words if not isinstance(w, str))!r}"
            )
        rows = [np.asarray(vectors[word], dtype=np.float32) for word in words]
        shapes = {row.shape for row in rows}
        if len(shapes) != 1 or len(next(iter(shapes))) != 1:
            raise ValueError(f"{name} must map every word to a 1-D vector of one length, got shapes {sorted(shapes)}")
        matrix = np.stack(rows)
        if not np.all(np.isfinite(matrix)):
            raise ValueError(f"{name} contains non-finite vector entries")
        kv = KeyedVectors(vector_size=matrix.shape[1])
        kv.add_vectors(words, matrix)
        return kv
    hint = " (a NumPy array has no words: pass {word: row})" if isinstance(vectors, np.ndarray) else ""
    raise TypeError(
        f"{name} must be a gensim KeyedVectors or a mapping word → vector, got {type(vectors).__name__}{hint}"
    )


# ---------------------------------------------------------------------------------------------------------------------
# S′: one neighbour search per set of embeddings, one preparation per dictionary

_SHARED: dict[str, Any] = {}  # "vectors": the last KeyedVectors, "neighbours": its search, "grids": per dictionary
_GRIDS_KEPT = 6  # a 5-fold grid search and its refit: six dictionaries


def _grown(vectors: KeyedVectors, neighbours: Neighbours | None, words, depth: int) -> Neighbours:
    """``neighbours`` holding ``words`` at ``depth`` or deeper: searched again (all words) when too shallow, else
    with rows added for the words it lacks."""
    if neighbours is None or neighbours.depth < min(depth, len(vectors) - 1):
        searched = words if neighbours is None else list(dict.fromkeys([*neighbours.words, *words]))
        return nearest_neighbours(vectors, searched, depth=depth, progress=False)
    new = [word for word in words if word not in neighbours.row_of]
    if not new:
        return neighbours
    more = nearest_neighbours(vectors, new, depth=neighbours.depth, progress=False)
    return Neighbours(
        neighbours.keys,
        [*neighbours.words, *more.words],
        np.vstack([neighbours.indices, more.indices]),
        np.vstack([neighbours.similarities, more.similarities]),
    )


class _SharedSource:
    """S′ at a grid point from a kept :class:`MatrixGrid` (the protocol of
    :class:`regemb_utils.termsim.sources.InMemoryMatrices`)."""

    def __init__(self, grid: MatrixGrid):
        self.grid = grid

    def build(self, point: Mapping[str, Any]) -> sparse.csc_matrix:
        return self.grid.build(**{key: point[key] for key in SPARSE_KEYS})


def shared_matrices(vectors: KeyedVectors, dictionary, depth: int, fill_rule: str = "paper") -> _SharedSource:
    """S′ for any grid point over ``dictionary`` from the top-``depth`` neighbours of its words with an embedding.

    The neighbour search is kept per process for the last ``vectors`` object (grown by new words, searched again when a
    deeper one is asked for; deeper neighbours give the same S′ for a smaller C) and the per-dictionary preparation
    for the last few dictionaries (by content), so that the fits of a grid search share them.

    Parameters
    ----------
    vectors : KeyedVectors
        The embeddings (read, never changed: the search is kept for this object).
    dictionary : gensim.corpora.Dictionary
        The rows and columns of S′, and its idf order.
    depth : int
        Neighbours per word needed (the largest C).
    fill_rule : str
        How a dominance violation is handled.

    Returns
    -------
    object with ``build(point)``
        S′ at a grid point (:data:`regemb_utils.termsim.orthogonalization.SPARSE_KEYS`).

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> kv = as_keyed_vectors({"a": [1.0, 0.0], "b": [0.8, 0.6], "c": [0.0, 1.0]})
    >>> source = shared_matrices(kv, Dictionary([["a", "b", "c"]]), 1)
    >>> source.grid is shared_matrices(kv, Dictionary([["a", "b", "c"]]), 1).grid
    True
    """
    if _SHARED.get("vectors") is not vectors:
        _SHARED.clear()
        _SHARED.update(vectors=vectors, neighbours=None, grids=OrderedDict())
    words = [word for word in dictionary.token2id if word in vectors.key_to_index]
    before = _SHARED["neighbours"]
    neighbours = _SHARED["neighbours"] = _grown(vectors, before, words, depth)
    if before is not None and neighbours.depth != before.depth:
        _SHARED["grids"].clear()
    # by content (not a fingerprint: hashing the pairs one by one costs more than the preparation it saves)
    key = (
        tuple(sorted(dictionary.token2id.items())),
        tuple(sorted(dictionary.dfs.items())),
        dictionary.num_docs,
        fill_rule,
    )
    grids = _SHARED["grids"]
    if key not in grids:
        grids[key] = _SharedSource(MatrixGrid(neighbours, dictionary, fill_rule))
        while len(grids) > _GRIDS_KEPT:
            grids.popitem(last=False)
    grids.move_to_end(key)
    return grids[key]


# ---------------------------------------------------------------------------------------------------------------------
# the measure objects


@dataclass(frozen=True)
class Inputs:
    """What a measure compares documents with: embedding rows over the documents' columns (dense SCM, WMD) or a
    source of S′ (sparse SCM: ``matrices.build(point)``, with :data:`SPARSE_KEYS` in ``point``); None where not
    needed.

    Parameters
    ----------
    embeddings : numpy.ndarray, optional
        One row per column of the documents.
    matrices : object with ``build(point)``, optional
        S′ for a grid point.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> Measure.of("wmd").inputs(as_keyed_vectors({"a": [3.0, 4.0]}), Dictionary([["b", "a"]])).embeddings.tolist()
    [[3.0, 4.0], [0.0, 0.0]]
    """

    embeddings: np.ndarray | None = None
    matrices: Any = None


@dataclass(frozen=True)
class Measure:
    """One method of chapter 4 as an object: its weighting, inputs, similarities and neighbours.

    Parameters
    ----------
    method : str
        A key of :data:`regemb_utils.classification.methods.METHODS`.

    Examples
    --------
    >>> Measure.of("soft_vsm_ortho").needs_matrices, Measure.of("wmd").needs_embeddings
    (True, True)
    """

    method: str
    needs_embeddings: ClassVar[bool] = False  # embedding rows (dense SCM, WMD)
    needs_matrices: ClassVar[bool] = False  # a source of S′ (sparse SCM)
    soft: ClassVar[bool] = False  # a soft cosine measure (dtb weights, a term similarity matrix)
    transport: ClassVar[bool] = False  # a transport distance (the WMD): no similarity matrix; exact EMDs whose cost
    # is recorded per query, and samples of the queries (regemb_utils.classification.wmd_samples)

    @staticmethod
    def of(method: str) -> "Measure":
        """The measure object of ``method`` (a key of ``METHODS``), or a ``ValueError`` listing them.

        Parameters
        ----------
        method : str

        Returns
        -------
        Measure

        Examples
        --------
        >>> Measure.of("tfidf_l1").weighting
        'tfidf_l1'
        """
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; allowed: {', '.join(METHODS)}")
        return _KINDS[METHODS[method].measure](method)

    @property
    def weighting(self) -> str:
        return METHODS[self.method].weighting

    @property
    def model(self) -> str | None:
        return METHODS[self.method].model

    @property
    def label(self) -> str:
        return METHODS[self.method].label

    def inputs(
        self,
        vectors: KeyedVectors | None = None,
        dictionary=None,
        terms=None,
        *,
        depth: int = 0,
        fill_rule: str = "paper",
        progress: bool = False,
        shared: bool = False,
    ) -> Inputs:
        """What :meth:`neighbours` needs for documents over ``dictionary`` (its ids ``terms``, default all):
        :meth:`embeddings` and :meth:`matrices`."""
        return Inputs(
            self.embeddings(vectors, dictionary, terms),
            self.matrices(vectors, dictionary, depth=depth, fill_rule=fill_rule, progress=progress, shared=shared),
        )

    def embeddings(self, vectors: KeyedVectors | None, dictionary, terms=None) -> np.ndarray | None:
        """Embedding rows of the dictionary ids ``terms`` (default all) where the measure needs them (dense SCM,
        WMD: :func:`regemb_utils.measures.similarity.embedding_matrix`), else None."""
        return None

    def matrices(
        self,
        vectors: KeyedVectors | None,
        dictionary,
        *,
        depth: int,
        fill_rule: str = "paper",
        progress: bool = False,
        shared: bool = False,
    ):
        """A source of S′ over the whole ``dictionary`` from the top-``depth`` neighbours of its words where the
        measure needs one (sparse SCM: ``shared``: :func:`shared_matrices`, else
        :class:`regemb_utils.termsim.sources.InMemoryMatrices`), else None."""
        return None

    def check(self, embeddings=None, matrices=None) -> None:
        """A ``ValueError`` naming what the measure needs and lacks (``embeddings``, ``matrices``)."""
        if self.needs_embeddings and embeddings is None:
            raise ValueError(f"method {self.method!r} needs embeddings")
        if self.needs_matrices and matrices is None:
            raise ValueError(f"method {self.method!r} needs matrices")

    def _require(self, vectors, dictionary) -> None:
        if vectors is None or dictionary is None:
            raise ValueError(f"method {self.method!r} needs embeddings: give vectors and a dictionary")

    def represent(self, counts, reference_counts, *, avgdl: float = 1.0, slope: float = 0.0) -> sparse.csr_matrix:
        """``counts`` weighted as the method weights them, idf from ``reference_counts``
        (:func:`regemb_utils.measures.representations.represent`)."""
        return represent(self.weighting, counts, train_counts=reference_counts, avgdl=avgdl, slope=slope)

    def term_similarity(self, inputs: Inputs, point: Mapping[str, Any] | None = None, terms=None):
        """S′ at the grid ``point`` (sparse SCM), restricted to the dictionary ids ``terms``; None for the others."""
        return None

    def compare(self, Q, R, embeddings=None, term_similarity=None, n_threads: int | None = None):
        """(``[n_Q, n_R]`` similarities, larger: more similar; the sparse SCM's
        :class:`regemb_utils.measures.similarity.ScmInfo`, None for the others): the cosine of the weighted vectors
        (:func:`regemb_utils.measures.similarity.cosine_similarity`); ``n_threads``: the numba kernels' threads."""
        return cosine_similarity(Q, R), None

    def similarities(self, Q, R, inputs: Inputs, term_similarity=None) -> np.ndarray:
        """``[n_Q, n_R]`` similarities (:meth:`compare`)."""
        return self.compare(Q, R, inputs.embeddings, term_similarity)[0]

    def neighbours(
        self,
        Q,
        R,
        k: int,
        inputs: Inputs,
        term_similarity=None,
        *,
        split: str = "query",
        solver: str = "pot",
        n_jobs: int | None = 1,
        progress: bool = False,
        description: str | None = None,
        cache=None,
        batch_key: Mapping[str, Any] | None = None,
        store=None,
    ):
        """(indices ``[n_Q, k]`` of the k nearest rows of ``R``, nearest first, ties to the lower row; the timed
        :class:`regemb_utils.classification.timing.Run` of the queries' ``split``): every similarity computed on one
        core and timed in CPU seconds (without the weighting and without building S′), then the top k. A transport
        measure searches instead (:meth:`_Wmd.neighbours`, with ``solver``, ``n_jobs``, ``progress``,
        ``description``, and the batch ``cache``, ``batch_key`` and ``store`` of
        :func:`regemb_utils.classification.wmd_batches.wmd_neighbours`).

        Examples
        --------
        >>> Q, R = sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0], [2.0, 0.0]])
        >>> indices, run = Measure.of("bow").neighbours(Q, R, 1, Inputs(), split="test")
        >>> indices.tolist(), run.split, run.pairs
        ([[1]], 'test', 2)
        """
        Q, R = self._prepared(Q, R, k)
        with one_core():
            start = time.process_time()  # CPU seconds, as for the WMD batches
            similarities, info = self.compare(Q, R, inputs.embeddings, term_similarity, n_threads=1)
            seconds = time.process_time() - start
        nonpositive, negative = (info.n_nonpositive, info.x_negative + info.y_negative) if info else (0, 0)
        return top_k(similarities, k), Run(split, Q.shape[0] * R.shape[0], seconds, nonpositive, negative)

    @staticmethod
    def _prepared(Q, R, k: int):
        warm_up()
        Q, R = sparse.csr_matrix(Q), sparse.csr_matrix(R)
        if not 1 <= k <= R.shape[0]:
            raise ValueError(f"k = {k} needs at least {k} reference documents, there are {R.shape[0]}")
        return Q, R

    def distances(self, Q, R, indices, inputs: Inputs, term_similarity=None, *, solver: str = "pot") -> np.ndarray:
        """The distances ``[n_Q, k]`` of the pairs (row of ``Q``, ``indices``): 1 − similarity (cosine, SCMs),
        the L1 distance, the WMD."""
        similarities = self.similarities(Q, R, inputs, term_similarity).astype(np.float64)
        return self._distance(np.take_along_axis(similarities, indices, axis=1))

    @staticmethod
    def _distance(similarities):
        return 1.0 - similarities

    def kneighbours(
        self,
        Q,
        R,
        k: int,
        inputs: Inputs,
        term_similarity=None,
        *,
        solver: str = "pot",
        n_jobs: int | None = 1,
        return_distance: bool = True,
    ):
        """(distances, indices) of the ``k`` nearest rows of ``R`` (:meth:`neighbours`, :meth:`distances`)."""
        indices, _ = self.neighbours(Q, R, k, inputs, term_similarity, solver=solver, n_jobs=n_jobs)
        if not return_distance:
            return None, indices
        return self.distances(Q, R, indices, inputs, term_similarity, solver=solver), indices


class _L1(Measure):
    def compare(self, Q, R, embeddings=None, term_similarity=None, n_threads=None):
        return -l1_distance(Q, R, n_threads=n_threads), None

    @staticmethod
    def _distance(similarities):
        return -similarities


class _Embedded(Measure):
    needs_embeddings = True
    soft = True

    def embeddings(self, vectors, dictionary, terms=None):
        self._require(vectors, dictionary)
        return embedding_matrix(vectors, dictionary, terms=terms)

    def compare(self, Q, R, embeddings=None, term_similarity=None, n_threads=None):
        if embeddings is None:
            raise ValueError(f"method {self.method!r} needs embeddings")
        return dense_scm(Q, R, embeddings), None


class _SparseScm(Measure):
    needs_matrices = True
    soft = True

    def matrices(self, vectors, dictionary, *, depth, fill_rule="paper", progress=False, shared=False):
        self._require(vectors, dictionary)
        if shared:
            return shared_matrices(vectors, dictionary, depth, fill_rule)
        return InMemoryMatrices(vectors, dictionary, depth, fill_rule, progress)

    def term_similarity(self, inputs, point=None, terms=None):
        S = inputs.matrices.build(point)
        return S if terms is None else restricted(S, terms)

    def compare(self, Q, R, embeddings=None, term_similarity=None, n_threads=None):
        if term_similarity is None:
            raise ValueError(f"method {self.method!r} needs its term similarity matrix (term_similarity=)")
        return sparse_scm(Q, R, term_similarity, n_threads=n_threads, return_info=True)


class _Wmd(_Embedded):
    soft = False
    transport = True

    def compare(self, Q, R, embeddings=None, term_similarity=None, n_threads=None):
        raise ValueError(f"method {self.method!r} has distances, not similarities: use distances() or neighbours()")

    def neighbours(
        self,
        Q,
        R,
        k,
        inputs,
        term_similarity=None,
        *,
        split="query",
        solver="pot",
        n_jobs=1,
        progress=False,
        description=None,
        cache=None,
        batch_key=None,
        store=None,
    ):
        Q, R = self._prepared(Q, R, k)
        indices, seconds, solved = wmd_neighbours(
            Q,
            R,
            inputs.embeddings,
            k,
            solver=solver,
            n_jobs=n_jobs,
            progress=progress,
            description=description or f"{self.method} {split}",
            cache=cache,
            key=batch_key,
            store=store,
        )
        return indices, Run(split, Q.shape[0] * R.shape[0], seconds, solved=solved, queries=Q.shape[0])

    def distances(self, Q, R, indices, inputs, term_similarity=None, *, solver="pot"):
        Q, R = sparse.csr_matrix(Q), sparse.csr_matrix(R)
        return np.vstack(
            [wmd_distances(Q[i], R[row], inputs.embeddings, solver=solver) for i, row in enumerate(np.asarray(indices))]
        ).reshape(np.shape(indices))


_KINDS: dict[str, type[Measure]] = {
    "cosine": Measure,
    "l1": _L1,
    "dense_scm": _Embedded,
    "sparse_scm": _SparseScm,
    "wmd": _Wmd,
}


# ---------------------------------------------------------------------------------------------------------------------
# one document pair explained: the SCM's word-pair contributions and the WMD's flows


@dataclass(frozen=True)
class PairExplanation:
    """Why two documents are similar under the SCM and close under the WMD.

    Parameters
    ----------
    contributions : ScmContributions
        The SCM's word pairs; their sum is the SCM (:func:`regemb_utils.measures.similarity.scm_contributions`).
    flows : WmdFlows
        The WMD's transport plan; its cost is the WMD (:func:`regemb_utils.measures.wmd.wmd_flows`).

    Examples
    --------
    See :func:`explain_pair`.
    """

    contributions: ScmContributions
    flows: WmdFlows

    @property
    def scm(self) -> float:
        return self.contributions.total

    @property
    def wmd(self) -> float:
        return self.flows.total

    def contribution_table(self, words=None) -> pd.DataFrame:
        """(query word, reference word, contribution to the SCM) of the non-zero pairs, largest \\|contribution\\|
        first; ``words`` maps column indices to words (default: the indices)."""
        part = self.contributions
        i, j = np.nonzero(part.contributions)
        table = pd.DataFrame(
            {
                "query word": _named(part.x_terms[i], words),
                "reference word": _named(part.y_terms[j], words),
                "contribution to the SCM": part.contributions[i, j],
            }
        )
        order = table["contribution to the SCM"].abs().sort_values(ascending=False, kind="stable").index
        return table.loc[order].reset_index(drop=True)

    def flow_table(self, words=None) -> pd.DataFrame:
        """(query word, reference word, mass, distance, cost) of the flows, largest cost first."""
        plan = self.flows
        i, j = np.nonzero(plan.flows)
        table = pd.DataFrame(
            {
                "query word": _named(plan.x_terms[i], words),
                "reference word": _named(plan.y_terms[j], words),
                "mass": plan.flows[i, j],
                "distance": plan.distances[i, j],
            }
        )
        table["cost"] = table["mass"] * table["distance"]
        return table.sort_values("cost", ascending=False, kind="stable").reset_index(drop=True)


def _named(columns, words):
    return columns if words is None else words(columns)


def explain_pair(scm_x, scm_y, term_similarity, wmd_x, wmd_y, embeddings) -> PairExplanation:
    """One document pair explained: the SCM of the weighted rows ``scm_x``, ``scm_y`` under ``term_similarity`` as
    word-pair contributions, and the WMD of ``wmd_x``, ``wmd_y`` (their own weights) over ``embeddings`` as flows.

    Parameters
    ----------
    scm_x, scm_y : scipy.sparse matrix
        One row each: the SCM's weights.
    term_similarity : scipy.sparse matrix or numpy.ndarray
        S or S′ over the columns.
    wmd_x, wmd_y : scipy.sparse matrix
        One row each: the WMD's weights.
    embeddings : numpy.ndarray
        One row per column.

    Returns
    -------
    PairExplanation

    Raises
    ------
    ValueError
        Saying which measure is undefined for the pair (a document without any weighted word).

    Examples
    --------
    >>> x, y = sparse.csr_matrix([[1.0, 0.0]]), sparse.csr_matrix([[0.0, 1.0]])
    >>> pair = explain_pair(x, y, np.array([[1.0, 0.6], [0.6, 1.0]]), x, y, np.array([[0.0, 0.0], [3.0, 4.0]]))
    >>> round(pair.scm, 3), pair.wmd, pair.flow_table(lambda columns: [["a", "b"][c] for c in columns]).values.tolist()
    (0.6, 5.0, [['a', 'b', 1.0, 5.0, 5.0]])
    """
    try:
        contributions = scm_contributions(scm_x, scm_y, term_similarity)
    except ValueError as error:
        raise ValueError(f"the SCM of these documents is undefined: {error}") from None
    try:
        flows = wmd_flows(wmd_x, wmd_y, embeddings)
    except ValueError as error:
        raise ValueError(f"the WMD of these documents is undefined: {error}") from None
    return PairExplanation(contributions, flows)
