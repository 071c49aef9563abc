"""Document representations over the common dictionary (paper §5.4; the appendix on the paper's code, "Weighting").

Every function returns a ``scipy.sparse.csr_matrix`` with one row per document and one column per id of the common
gensim ``Dictionary``. Words outside the dictionary are dropped for every method; a document with no known word is an
all-zero row (never an error), and every similarity/distance in :mod:`regemb_utils.measures.similarity` and
:mod:`regemb_utils.measures.wmd` defines its value for such rows.

Weightings
----------
``bow``
    raw term counts (:func:`regemb_utils.text.documents.bow_matrix`); the paper's BoW baseline L2-normalises them (the cosine does that).
``nbow``
    L1-normalised counts (:func:`nbow_matrix`), the WMD weights of Kusner et al. (2015).
``dtb``
    the SMART ``dtb`` weighting exactly as the paper's code computed it (:class:`DtbWeighting`):

    * ``d`` = 1 + log2(1 + log2 tf) (the fork of gensim used base 2, textbook SMART uses ln);
    * ``t`` = log2(N / df) with N and df over the **training split**; terms that no training document contains
      (df = 0) and terms that every training document contains (idf = 0) are dropped, as gensim's ``TfidfModel``
      (``smartirs='dtn'``, training-split dictionary) did;
    * ``b``: each weight is divided by ``1 - s + s * doclen / avgdl`` where ``avgdl`` is the training split's mean
      *character* length (Σ len(token) over a document's tokens) and ``doclen`` is, because of a bug in the paper's
      code, ``sum(len(t) for t in document)`` over the document's *(id, weight) tuples*, i.e. 2 × the number of
      weighted terms. Both SCMs normalise every document afterwards, so this positive per-document factor, and with
      it the slope ``s``, cancels (:func:`regemb_utils.measures.similarity.slope_effect_on_scm` shows it).

    One small difference: the paper's code computed ``doclen`` before translating the document to the common
    dictionary, so terms of the dataset's own dictionary that the common dictionary lacks were counted too. Pass
    ``doc_lengths`` to :meth:`DtbWeighting.transform` to reproduce that; it cancels anyway.
``tfidf_l1``
    TF-IDF with L1 normalisation, the baseline of Sato et al. (2022, "Re-evaluating Word Mover's Distance"):
    scikit-learn's ``TfidfTransformer`` defaults (raw tf, smoothed idf ln((1 + N) / (1 + df)) + 1 fitted on the
    training split), then each row divided by its L1 norm (:func:`tfidf_l1_matrix`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse

from ..text.documents import bow_matrix

__all__ = ["WEIGHTINGS", "nbow_matrix", "l1_normalize", "l2_normalize", "DtbWeighting", "tfidf_l1_matrix", "represent"]

WEIGHTINGS = ("bow", "nbow", "dtb", "tfidf_l1")


def _row_scale(matrix: sparse.csr_matrix, factors: np.ndarray) -> sparse.csr_matrix:
    matrix = sparse.csr_matrix(matrix, copy=True)
    matrix.data *= np.repeat(factors.astype(matrix.dtype), np.diff(matrix.indptr))
    return matrix


def l1_normalize(matrix: sparse.spmatrix) -> sparse.csr_matrix:
    """Divide every row by its L1 norm; all-zero rows stay zero.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        Documents.

    Returns
    -------
    scipy.sparse.csr_matrix
        Each non-zero row divided by its L1 norm.

    Examples
    --------
    >>> l1_normalize(sparse.csr_matrix([[2.0, 0.0, 2.0]])).toarray()
    array([[0.5, 0. , 0.5]])
    """
    matrix = sparse.csr_matrix(matrix)
    norms = np.asarray(abs(matrix).sum(axis=1), dtype=np.float64).ravel()
    with np.errstate(divide="ignore"):
        factors = np.where(norms > 0, 1.0 / norms, 0.0)
    return _row_scale(matrix, factors)


def l2_normalize(matrix: sparse.spmatrix) -> sparse.csr_matrix:
    """Divide every row by its L2 norm (gensim ``unitvec``); all-zero rows stay zero.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        Documents.

    Returns
    -------
    scipy.sparse.csr_matrix
        Each non-zero row divided by its L2 norm.

    Examples
    --------
    >>> l2_normalize(sparse.csr_matrix([[0.0, 3.0, 4.0]])).toarray()
    array([[0. , 0.6, 0.8]])
    """
    matrix = sparse.csr_matrix(matrix)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1), dtype=np.float64).ravel())
    with np.errstate(divide="ignore"):
        factors = np.where(norms > 0, 1.0 / norms, 0.0)
    return _row_scale(matrix, factors)


def nbow_matrix(documents: Iterable[Sequence[str]], dictionary, dtype=np.float64) -> sparse.csr_matrix:
    """nBOW: L1-normalised term counts (the WMD weights); a document without a known word is a zero row.

    Parameters
    ----------
    documents : iterable of sequence of str
    dictionary : gensim.corpora.Dictionary
    dtype : numpy dtype

    Returns
    -------
    scipy.sparse.csr_matrix

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> nbow_matrix([["a", "a", "b"]], Dictionary([["a", "b"]])).toarray().round(4)
    array([[0.6667, 0.3333]])
    """
    return l1_normalize(bow_matrix(documents, dictionary, dtype=dtype))


def mean_character_length(documents: Iterable[Sequence[str]]) -> float:
    """The paper's ``avgdl``: mean over documents of Σ len(token) over all tokens (before dictionary filtering).

    Parameters
    ----------
    documents : iterable of sequence of str
        Tokenized documents.

    Returns
    -------
    float
        The mean over documents of the characters of their tokens.

    Examples
    --------
    >>> mean_character_length([["ab", "c"], ["abcd"]])
    3.5
    """
    lengths = [sum(len(token) for token in document) for document in documents]
    if not lengths:
        raise ValueError("mean_character_length needs at least one document")
    return float(np.mean(lengths))


class DtbWeighting:
    """SMART ``dtb`` weights as the paper's code computed them (see the module docstring).

    Parameters
    ----------
    train_counts
        raw counts (:func:`regemb_utils.text.documents.bow_matrix`) of the **training split** over the common dictionary; gives N and df.
    avgdl
        the training split's mean character length (:func:`mean_character_length` of its token lists).

    Examples
    --------
    >>> counts = sparse.csr_matrix([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    >>> weighting = DtbWeighting(counts, avgdl=12.0)
    >>> weighting.idf.round(4)  # log2(3 documents / 2 containing each word)
    array([0.585, 0.585, 0.585])
    >>> weighting.transform(counts, 0.2).toarray().round(3)
    array([[1.35 , 0.675, 0.   ],
           [0.   , 0.675, 1.6  ],
           [0.675, 0.   , 0.675]])
    """

    def __init__(self, train_counts: sparse.spmatrix, avgdl: float):
        train_counts = sparse.csr_matrix(train_counts)
        if train_counts.shape[0] == 0:
            raise ValueError("the training split has no documents")
        if not avgdl > 0:
            raise ValueError(f"avgdl must be positive, got {avgdl!r}")
        self.n_docs = train_counts.shape[0]
        self.avgdl = float(avgdl)
        self.df = np.bincount(train_counts.indices[train_counts.data > 0], minlength=train_counts.shape[1])
        with np.errstate(divide="ignore"):
            idf = np.log2(self.n_docs / self.df.astype(np.float64))
        idf[self.df == 0] = 0.0  # not in the training dictionary: dropped
        self.idf = idf

    def dtn(self, counts: sparse.spmatrix) -> sparse.csr_matrix:
        """``d`` × ``t`` weights (no normalisation); zero weights (df = 0 or idf = 0) are removed."""
        counts = sparse.csr_matrix(counts, dtype=np.float64)
        if counts.shape[1] != len(self.idf):
            raise ValueError(f"counts have {counts.shape[1]} columns, the weighting {len(self.idf)}")
        weights = sparse.csr_matrix(counts, copy=True)
        tf = weights.data
        local = np.zeros_like(tf)
        positive = tf > 0
        local[positive] = 1.0 + np.log2(1.0 + np.log2(tf[positive]))
        weights.data = local * self.idf[weights.indices]
        weights.data[np.abs(weights.data) <= 1e-12] = 0.0  # gensim's TfidfModel drops |w| <= eps
        weights.eliminate_zeros()
        return weights

    def transform(self, counts: sparse.spmatrix, slope: float = 0.0, doc_lengths=None) -> sparse.csr_matrix:
        """``dtb`` weights with pivot slope ``slope`` (0 ≤ s ≤ 1); ``doc_lengths`` overrides 2 × nnz per row."""
        if not 0.0 <= slope <= 1.0:
            raise ValueError(f"slope must lie in [0, 1], got {slope!r}")
        weights = self.dtn(counts)
        if doc_lengths is None:
            doc_lengths = 2.0 * np.diff(weights.indptr)  # len() of each (id, weight) tuple is 2
        doc_lengths = np.asarray(doc_lengths, dtype=np.float64)
        if doc_lengths.shape != (weights.shape[0],):
            raise ValueError("doc_lengths must have one value per document")
        pivot = 1.0 - slope + slope * doc_lengths / self.avgdl
        with np.errstate(divide="ignore"):
            factors = np.where(pivot > 0, 1.0 / pivot, 0.0)
        return _row_scale(weights, factors)


def tfidf_l1_matrix(counts: sparse.spmatrix, train_counts: sparse.spmatrix) -> sparse.csr_matrix:
    """TF-IDF (scikit-learn defaults, idf fitted on ``train_counts``) with L1-normalised rows (Sato et al. 2022).

    Parameters
    ----------
    counts : scipy.sparse matrix
        Raw counts of the documents to weight.
    train_counts : scipy.sparse matrix
        Raw counts of the reference set (the document frequencies).

    Returns
    -------
    scipy.sparse.csr_matrix
        TF-IDF rows, L1-normalised.

    Examples
    --------
    >>> tfidf_l1_matrix(sparse.csr_matrix([[1.0, 1.0]]), sparse.csr_matrix([[1.0, 0.0], [1.0, 1.0]])).toarray().round(4)
    array([[0.4157, 0.5843]])
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    transformer = TfidfTransformer(norm="l1", use_idf=True, smooth_idf=True, sublinear_tf=False)
    transformer.fit(sparse.csr_matrix(train_counts))
    return sparse.csr_matrix(transformer.transform(sparse.csr_matrix(counts)), dtype=np.float64)


def represent(
    weighting: str,
    counts: sparse.spmatrix,
    *,
    train_counts: sparse.spmatrix | None = None,
    avgdl: float | None = None,
    slope: float = 0.0,
) -> sparse.csr_matrix:
    """Raw term ``counts`` (:func:`regemb_utils.text.documents.bow_matrix`) weighted by ``weighting`` ∈ :data:`WEIGHTINGS`.

    ``dtb`` and ``tfidf_l1`` fit their document frequencies on ``train_counts`` (the reference set); ``dtb`` also
    needs ``avgdl``, the reference set's mean character length (:func:`mean_character_length`), and the ``slope``.

    Parameters
    ----------
    weighting : {"bow", "nbow", "dtb", "tfidf_l1"}
        The method's weighting (``Method.weighting``).
    counts : scipy.sparse matrix
        Raw term counts of the documents to weight.
    train_counts : scipy.sparse matrix, optional
        Raw term counts of the reference set (``dtb``, ``tfidf_l1``).
    avgdl : float, optional
        The reference set's mean character length (``dtb``).
    slope : float
        The dtb pivot slope s.

    Returns
    -------
    scipy.sparse.csr_matrix
        The weighted documents.

    Examples
    --------
    >>> from scipy import sparse
    >>> represent("nbow", sparse.csr_matrix([[2.0, 1.0, 1.0]])).toarray()
    array([[0.5 , 0.25, 0.25]])
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"unknown weighting {weighting!r}; expected one of {WEIGHTINGS}")
    counts = sparse.csr_matrix(counts)
    if weighting == "bow":
        return counts
    if weighting == "nbow":
        return l1_normalize(counts)
    if train_counts is None:
        raise ValueError(f"weighting {weighting!r} needs train_counts")
    if weighting == "tfidf_l1":
        return tfidf_l1_matrix(counts, train_counts)
    if avgdl is None:
        raise ValueError("weighting 'dtb' needs avgdl")
    return DtbWeighting(train_counts, avgdl).transform(counts, slope)
