"""scikit-learn estimators for the paper's measures: kNN classifiers on raw texts (or term counts) and the weighted
bag of words they compare.

The estimators are thin: tokenization (:func:`regemb_utils.text.tokenization.tokenize`), the gensim ``Dictionary`` and
the term counts (:func:`regemb_utils.text.documents.bow_matrix`); everything else is chapter 4's engine, the measure
object of the estimator's method (:class:`regemb_utils.classification.engine.Measure`): its weighting, its inputs
(embedding rows; S′ from :func:`regemb_utils.classification.engine.shared_matrices`, whose neighbour search and
per-dictionary preparation the fits of a grid search share), its similarities, and its neighbours by the search
chapter 4 runs (:meth:`regemb_utils.classification.engine.Measure.neighbours`); the vote is :func:`regemb_utils.classification.knn.knn_votes`.

=============================  ============================  ==================================================
estimator                      chapter 4's methods           measure
=============================  ============================  ==================================================
:class:`CosineClassifier`      ``bow``                       cosine of term counts
:class:`TfidfL1Classifier`     ``tfidf_l1``                  L1 distance of L1-normalised TF-IDF (Sato et al.)
:class:`SoftCosineClassifier`  ``soft_vsm*``                 SCM with S (cosines) or S′ (``orthogonalized=True``)
:class:`WMDClassifier`         ``wmd*``, ``wmd_tfidf``       exact Word Mover's Distance
=============================  ============================  ==================================================

``X`` is a list of texts (the usual case: the classifier weights them as the paper does) or a matrix of non-negative
document vectors already weighted, e.g. by :class:`WeightedBagOfWords` with the classifier's ``weighting`` (dense or
SciPy sparse), whose column ``j`` is the word ``dictionary[j]`` (a gensim ``Dictionary`` passed as ``dictionary=``),
a ``pandas.DataFrame``'s column name, or else ``x0``, ``x1``, … (scikit-learn's default feature names). ``y`` holds any labels (strings
included); :attr:`classes_` lists them sorted, and ``predict`` returns them as given. Words of later documents that
the dictionary lacks are dropped, as in the paper; so are, under the SCMs' dtb weighting, words that no training
document contains (their idf is undefined).

The kNN rules are the paper's (:mod:`regemb_utils.classification.knn`): the ``k`` most similar training documents, ties to the lower
training index; the label with the most votes, ties to the first label of :attr:`classes_`. ``k`` is odd, as in the
paper's grid {1, 3, …, 19}. The dtb weighting's pivot slope is left out: both SCMs normalise every document, so the
slope cancels (:func:`regemb_utils.measures.similarity.slope_effect_on_scm`).

Examples
--------
>>> from regemb_utils.classification.estimators import SoftCosineClassifier
>>> vectors = {"cat": [1.0, 0.1], "dog": [0.9, 0.2], "car": [0.0, 1.0], "bus": [0.1, 0.9]}
>>> model = SoftCosineClassifier(vectors=vectors, k=1).fit(["cat", "dog", "car bus"], ["pets", "pets", "cars"])
>>> model.predict(["my dog", "a bus"]).tolist()
['pets', 'cars']
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, column_or_1d, validate_data

from ..infra.constraints import BOOLEAN, checked, either, integer, literal, one_of, real
from ..measures.representations import WEIGHTINGS, represent
from ..measures.wmd import SOLVERS
from ..termsim.matrix import FILL_RULES
from ..text.documents import bow_matrix
from ..text.tokenization import TOKENIZERS, tokenize
from .engine import Measure, MissingEmbeddings, MissingEmbeddingsWarning, as_keyed_vectors
from .knn import K, knn_votes

__all__ = [
    "MissingEmbeddingsWarning",
    "as_keyed_vectors",
    "WeightedBagOfWords",
    "CosineClassifier",
    "TfidfL1Classifier",
    "SoftCosineClassifier",
    "WMDClassifier",
]


# ---------------------------------------------------------------------------------------------------------------------
# parameters: what each allows (infra.constraints), checked at fit

_TOKENIZER = one_of(TOKENIZERS)


def _check_constraints(estimator) -> None:
    """Every parameter of ``estimator`` that its ``_constraints`` name, checked (a ``ValueError`` names the first
    refused one and what it allows)."""
    checked(estimator.get_params(deep=False), estimator._constraints)


# ---------------------------------------------------------------------------------------------------------------------
# documents: texts or counts → term counts over a dictionary


def _is_texts(X) -> bool:
    if isinstance(X, (str, bytes)):
        raise TypeError("X must be a list of texts (or a term-count matrix), not a single string")
    if sparse.issparse(X) or hasattr(X, "columns"):
        return False
    if isinstance(X, np.ndarray):
        return X.ndim == 1 and X.size > 0 and all(isinstance(x, str) for x in X)
    try:
        items = list(X)
    except TypeError:
        return False
    return len(items) > 0 and all(isinstance(x, str) for x in items)


def _dictionary_of_columns(words, counts: sparse.csr_matrix) -> Dictionary:
    """A gensim ``Dictionary`` with ``words`` at ids 0, 1, … and the document frequencies of ``counts`` (a column
    that no document contains gets df 1, so that idf orders stay finite)."""
    dictionary = Dictionary()
    dictionary.token2id = {str(word): i for i, word in enumerate(words)}
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    dictionary.dfs = {i: max(int(d), 1) for i, d in enumerate(df)}
    dictionary.cfs = {i: int(c) for i, c in enumerate(np.asarray(counts.sum(axis=0)).ravel())}
    dictionary.num_docs = int(counts.shape[0])
    dictionary.num_pos = int(counts.sum())
    return dictionary


class _Documents:
    """Texts or a count matrix → raw term counts over ``dictionary_`` (the fitted state lives on the estimator)."""

    def _fit_counts(self, X, y=None):
        tokenizer = _TOKENIZER.check(self.tokenizer, "tokenizer")
        if self.dictionary is not None and not isinstance(self.dictionary, Dictionary):
            raise TypeError(f"dictionary must be a gensim Dictionary or None, got {type(self.dictionary).__name__}")
        self.input_ = "texts" if _is_texts(X) else "counts"
        if self.input_ == "texts":
            if hasattr(self, "n_features_in_"):
                del self.n_features_in_
            tokens = [tokenize(text, tokenizer) for text in X]
            self.dictionary_ = self.dictionary if self.dictionary is not None else Dictionary(tokens)
            counts = bow_matrix(tokens, self.dictionary_)
            if y is not None:
                y = column_or_1d(y, warn=True)
                if len(y) != counts.shape[0]:
                    raise ValueError(f"{counts.shape[0]} texts but {len(y)} labels in y")
        else:
            if y is None:
                counts = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
            else:
                counts, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
            counts = self._nonnegative(counts)
            if self.dictionary is not None:
                if len(self.dictionary) != counts.shape[1]:
                    raise ValueError(
                        f"X has {counts.shape[1]} columns but dictionary has {len(self.dictionary)} ids; "
                        "column j of a count matrix is the word dictionary[j]"
                    )
                self.dictionary_ = self.dictionary
            else:
                words = getattr(self, "feature_names_in_", [f"x{j}" for j in range(counts.shape[1])])
                self.dictionary_ = _dictionary_of_columns(words, counts)
        return counts, y

    def _nonnegative(self, counts):
        counts = sparse.csr_matrix(counts, dtype=np.float64)
        check_non_negative(counts, type(self).__name__)
        counts.eliminate_zeros()
        return counts

    def _counts(self, X) -> sparse.csr_matrix:
        check_is_fitted(self, "dictionary_")
        texts = _is_texts(X)
        if texts != (self.input_ == "texts"):
            raise ValueError(
                f"fitted on {self.input_}: X must be {'a list of texts' if self.input_ == 'texts' else 'a term-count matrix'} too"
            )
        if texts:
            return bow_matrix([tokenize(text, self.tokenizer) for text in X], self.dictionary_)
        return self._nonnegative(validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """The words of the columns: ``dictionary_[0]``, ``dictionary_[1]``, …"""
        check_is_fitted(self, "dictionary_")
        return np.array([self.dictionary_[i] for i in range(len(self.dictionary_))], dtype=object)


class WeightedBagOfWords(_Documents, TransformerMixin, BaseEstimator):
    """Texts → the paper's weighted bag of words over a gensim ``Dictionary`` (a scikit-learn transformer).

    Parameters
    ----------
    weighting : {"bow", "nbow", "dtb", "tfidf_l1"}
        raw counts (BoW), L1-normalised counts (the WMD's nBOW), SMART dtb as the paper's code computed it (the
        SCMs; idf over the fitted texts), or L1-normalised TF-IDF (Sato et al. 2022); see
        :mod:`regemb_utils.measures.representations`.
    tokenizer : {"paper", "gensim"}
        :func:`regemb_utils.text.tokenization.tokenize`.
    dictionary : gensim Dictionary or None
        the columns; None builds one from the fitted texts (words of later texts that it lacks are dropped).

    Attributes
    ----------
    dictionary_ : Dictionary
    reference_counts_ : scipy.sparse.csr_matrix
        term counts of the fitted documents (idf and document frequencies come from them).

    Examples
    --------
    >>> bag = WeightedBagOfWords("bow").fit(["a cat sat", "a dog"])
    >>> bag.transform(["cat cat dog"]).toarray().tolist(), list(bag.get_feature_names_out())
    ([[0.0, 2.0, 0.0, 1.0]], ['a', 'cat', 'sat', 'dog'])
    """

    _constraints = {"weighting": one_of(WEIGHTINGS), "tokenizer": _TOKENIZER}

    def __init__(self, weighting: str = "dtb", tokenizer: str = "paper", dictionary: Dictionary | None = None):
        self.weighting = weighting
        self.tokenizer = tokenizer
        self.dictionary = dictionary

    def fit(self, X, y=None):
        """Build (or take) the dictionary and fit the weighting's document frequencies on ``X`` (texts, or a
        term-count matrix)."""
        _check_constraints(self)
        self.reference_counts_ = self._checked(self._fit_counts(X)[0])
        return self

    def transform(self, X) -> sparse.csr_matrix:
        """Weighted term matrix ``[n_documents, len(dictionary_)]`` (float64 CSR)."""
        return represent(self.weighting, self._checked(self._counts(X)), train_counts=self.reference_counts_, avgdl=1.0)

    def _checked(self, counts):
        if self.weighting == "dtb" and counts.nnz and counts.data.min() < 1:
            raise ValueError(
                "X must hold term counts for the dtb weighting, whose 1 + log2(1 + log2 tf) is defined "
                f"for tf ≥ 1; got values in (0, 1) such as {counts.data[counts.data < 1][0]:g}"
            )
        return counts

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.requires_fit = True
        return tags

    def __sklearn_clone__(self):
        return _clone_sharing(self, ("dictionary",))


def _clone_sharing(estimator, shared):
    """An unfitted copy whose ``shared`` parameters (embeddings, dictionaries: read, never changed) are the same
    objects, not deep copies: a grid search does not copy the embeddings for every candidate."""
    params = estimator.get_params(deep=False)
    kept = {name: params.pop(name) for name in shared}
    return type(estimator)(**{name: clone(value, safe=False) for name, value in params.items()}, **kept)


# ---------------------------------------------------------------------------------------------------------------------
# the kNN classifiers


class _KNeighbours(_Documents, ClassifierMixin, BaseEstimator):
    """fit / predict / predict_proba / kneighbors / score over a measure defined by the subclass."""

    _shared = ("dictionary",)
    _constraints = {"k": K, "tokenizer": _TOKENIZER}

    def _check_params(self) -> None:
        _check_constraints(self)

    def fit(self, X, y):
        """Remember the training documents (texts or term counts) and their labels ``y`` (any labels).

        Parameters
        ----------
        X : list of str, or array-like / sparse matrix [n_documents, n_terms] of weighted document vectors
        y : array-like [n_documents]

        Returns
        -------
        self
        """
        self._check_params()
        counts, y = self._fit_counts(X, y)
        check_classification_targets(y)
        self.classes_, self._codes = np.unique(y, return_inverse=True)
        if counts.shape[0] < self.k:
            raise ValueError(f"k={self.k} needs at least {self.k} training documents, got {counts.shape[0]}")
        self.measure_ = Measure.of(self._method())
        self.reference_counts_ = counts
        self._reference = self._weighted(counts) if self.input_ == "texts" else counts
        self._inputs, self._term_similarity = self._prepare()
        return self

    def _method(self) -> str:
        """The key of chapter 4's method (:data:`regemb_utils.classification.methods.METHODS`) this estimator runs."""
        raise NotImplementedError

    def _prepare(self):
        """The measure's fitted inputs (:class:`regemb_utils.classification.engine.Inputs`) and S′ (or None)."""
        return self.measure_.inputs(), None

    def _weighted(self, counts) -> sparse.csr_matrix:
        # avgdl only scales the dtb pivot, whose slope is 0 here (it cancels in both SCMs)
        return self.measure_.represent(counts, self.reference_counts_, avgdl=1.0)

    def _represent(self, X) -> sparse.csr_matrix:
        return self._weighted(self._counts(X)) if self.input_ == "texts" else self._counts(X)

    def similarity(self, X) -> np.ndarray:
        """Similarities [n_queries, n_training]: the cosine, the SCM (documents with xᵀSx ≤ 0: 0 to every document),
        the negated L1 distance; the WMD has distances only (:meth:`kneighbors`)."""
        check_is_fitted(self, "classes_")
        return self.measure_.similarities(self._represent(X), self._reference, self._inputs, self._term_similarity)

    def kneighbors(self, X, n_neighbors: int | None = None, return_distance: bool = True):
        """The ``n_neighbors`` (default ``k``) nearest training documents of every document of ``X``.

        Returns
        -------
        distances : ndarray [n_queries, n_neighbors]
            1 − similarity for the cosine and the SCM, the L1 distance, the WMD; only with ``return_distance``.
        indices : ndarray [n_queries, n_neighbors]
            rows of the training documents, nearest first (ties: the lower row).
        """
        check_is_fitted(self, "classes_")
        k = self.k if n_neighbors is None else integer(1).check(n_neighbors, "n_neighbors")
        if k > self._reference.shape[0]:
            raise ValueError(f"n_neighbors={k} exceeds the {self._reference.shape[0]} training documents")
        distances, indices = self.measure_.kneighbours(
            self._represent(X),
            self._reference,
            k,
            self._inputs,
            self._term_similarity,
            return_distance=return_distance,
            **self._search_options(),
        )
        return (distances, indices) if return_distance else indices

    def _search_options(self) -> dict:
        return {}

    def _votes(self, X) -> np.ndarray:
        indices = self.kneighbors(X, return_distance=False)
        return self._codes[indices]

    def predict(self, X) -> np.ndarray:
        """The majority label of the ``k`` nearest training documents (ties: the first label of ``classes_``)."""
        codes = self._votes(X)
        return self.classes_[knn_votes(codes, (self.k,), n_labels=len(self.classes_))[0]]

    def predict_proba(self, X) -> np.ndarray:
        """The share of each class (columns in ``classes_`` order) among the ``k`` nearest training documents."""
        codes = self._votes(X)
        counts = np.zeros((codes.shape[0], len(self.classes_)))
        np.add.at(counts, (np.arange(codes.shape[0])[:, None], codes), 1.0)
        return counts / self.k

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags

    def __sklearn_clone__(self):
        return _clone_sharing(self, self._shared)


class CosineClassifier(_KNeighbours):
    """kNN with the cosine of term counts: the paper's BoW baseline (chapter 4's ``bow``).

    Parameters
    ----------
    k : odd int
        neighbours that vote.
    tokenizer : {"paper", "gensim"}
    dictionary : gensim Dictionary or None
        the words counted; None builds it from the training texts.

    Attributes
    ----------
    classes_ : ndarray
        the labels, sorted.
    dictionary_ : Dictionary

    Examples
    --------
    >>> CosineClassifier(k=1).fit(["red apple", "blue sky"], ["fruit", "sky"]).predict(["an apple"]).tolist()
    ['fruit']
    """

    def __init__(self, k: int = 1, tokenizer: str = "paper", dictionary: Dictionary | None = None):
        self.k = k
        self.tokenizer = tokenizer
        self.dictionary = dictionary

    def _method(self) -> str:
        return "bow"


class TfidfL1Classifier(_KNeighbours):
    """kNN with the L1 distance of L1-normalised TF-IDF (Sato et al. 2022; chapter 4's ``tfidf_l1``).

    Parameters
    ----------
    k : odd int
    tokenizer : {"paper", "gensim"}
    dictionary : gensim Dictionary or None

    Examples
    --------
    >>> TfidfL1Classifier(k=1).fit(["red apple", "blue sky"], ["fruit", "sky"]).predict(["blue"]).tolist()
    ['sky']
    """

    def __init__(self, k: int = 1, tokenizer: str = "paper", dictionary: Dictionary | None = None):
        self.k = k
        self.tokenizer = tokenizer
        self.dictionary = dictionary

    def _method(self) -> str:
        return "tfidf_l1"


class _Embedded(_KNeighbours):
    """A measure over word embeddings: checks ``vectors`` and reports the words without one."""

    _shared = ("vectors", "dictionary")

    def _keyed_vectors(self) -> KeyedVectors:
        if self.vectors is None:
            raise ValueError("vectors is required: a gensim KeyedVectors or a mapping word → vector")
        return _keyed(self.vectors)

    def _prepare(self):
        kv = self._keyed_vectors()
        report = MissingEmbeddings.of(kv, self.dictionary_, self.reference_counts_)
        self.missing_words_, self.missing_share_ = report.words, report.share
        self.n_missing_words_ = len(report.words)
        if _REPORTED.get("vectors") is not self.vectors:  # once per set of embeddings (a grid search's fits share it)
            _REPORTED["vectors"] = self.vectors
            report.warn(stacklevel=5)
        inputs = self.measure_.inputs(
            kv, self.dictionary_, depth=self._depth(kv), fill_rule=self._fill_rule(), shared=True
        )
        return inputs, self.measure_.term_similarity(inputs, self._point(kv))

    def _depth(self, kv) -> int:
        return 0

    def _fill_rule(self) -> str:
        return "paper"

    def _point(self, kv) -> dict | None:
        return None


_REPORTED: dict = {}  # the embeddings whose missing words were last reported
_CONVERTED: dict = {}  # the last mapping word → vector converted, and its KeyedVectors


def _keyed(vectors) -> KeyedVectors:
    """``vectors`` as a KeyedVectors; a mapping's conversion is kept for the same mapping object (the clones of a
    grid search share it), so that they share S′'s neighbour search too."""
    if isinstance(vectors, Mapping) and _CONVERTED.get("mapping") is vectors:
        return _CONVERTED["vectors"]
    kv = as_keyed_vectors(vectors)
    if isinstance(vectors, Mapping):
        _CONVERTED.update(mapping=vectors, vectors=kv)
    return kv


class SoftCosineClassifier(_Embedded):
    """kNN with the soft cosine measure (SCM) of dtb-weighted documents (chapter 4's ``soft_vsm*`` methods).

    With ``orthogonalized=False`` the term similarity matrix S holds the cosines of the word embeddings (the SCM is
    then the cosine of the documents' weighted sums of unit word vectors, :func:`regemb_utils.measures.similarity.dense_scm`).
    With ``orthogonalized=True`` it is the paper's sparse S′ (§4.2): for every word, in descending idf order, its
    ``C`` most similar words above ``threshold``, raised to ``exponent``, kept ``symmetric`` and strictly diagonally
    ``dominant`` (:mod:`regemb_utils.termsim.matrix`, built from the exact nearest neighbours of the dictionary's words).

    Parameters
    ----------
    vectors : gensim KeyedVectors or Mapping[str, array-like]
        word embeddings (the 32-bit or the 1-bit ones of chapter 2, or any others); read, never changed.
    k : odd int
        neighbours that vote.
    orthogonalized : bool
        S′ instead of S.
    C : int
        S′: at most this many off-diagonal non-zeros per column (the paper's nonzero limit, 100–800).
    threshold : float in [-1, 1]
        S′: only word similarities above it.
    exponent : float > 0
        S′: similarity ** exponent (an integer when ``threshold`` < 0).
    symmetric, dominant : bool
        S′: symmetric; strictly diagonally dominant.
    idf : bool
        S′: columns in descending idf order (else in dictionary-id order).
    fill_rule : {"paper", "gensim"}
        S′: what a dominance violation does (:data:`regemb_utils.termsim.matrix.FILL_RULES`).
    tokenizer : {"paper", "gensim"}
    dictionary : gensim Dictionary or None
        the words counted and, for S′, their idf order; None builds it from the training texts.

    Attributes
    ----------
    classes_ : ndarray
    dictionary_ : Dictionary
    term_similarity_ : scipy.sparse.csc_matrix or None
        S′ over ``dictionary_`` (``orthogonalized=True``).
    missing_words_ : list of str
        words of the training documents without an embedding, most frequent first (a
        :class:`MissingEmbeddingsWarning` says how many, their share and the most frequent, once per set of
        embeddings: a grid search's fits share them); ``n_missing_words_`` counts them and ``missing_share_`` is
        their share of the training documents' tokens (texts) or weight (matrices).

    Examples
    --------
    >>> vectors = {"cat": [1.0, 0.1], "dog": [0.9, 0.2], "car": [0.0, 1.0], "bus": [0.1, 0.9]}
    >>> model = SoftCosineClassifier(vectors, orthogonalized=True, C=1, threshold=0.5)
    >>> model.fit(["cat", "dog", "car bus"], ["pets", "pets", "cars"]).predict(["dog", "bus"]).tolist()
    ['pets', 'cars']
    """

    def __init__(
        self,
        vectors=None,
        k: int = 1,
        orthogonalized: bool = False,
        C: int = 100,
        threshold: float = 0.0,
        exponent: float = 1.0,
        symmetric: bool = True,
        dominant: bool = True,
        idf: bool = True,
        fill_rule: str = "paper",
        tokenizer: str = "paper",
        dictionary: Dictionary | None = None,
    ):
        self.vectors = vectors
        self.k = k
        self.orthogonalized = orthogonalized
        self.C = C
        self.threshold = threshold
        self.exponent = exponent
        self.symmetric = symmetric
        self.dominant = dominant
        self.idf = idf
        self.fill_rule = fill_rule
        self.tokenizer = tokenizer
        self.dictionary = dictionary

    _constraints = {
        **_Embedded._constraints,
        "orthogonalized": BOOLEAN,
        "C": integer(1),
        "threshold": real(-1.0, 1.0),
        "exponent": real(0.0, np.inf, low_open=True),
        "symmetric": BOOLEAN,
        "dominant": BOOLEAN,
        "idf": BOOLEAN,
        "fill_rule": one_of(FILL_RULES),
    }

    def _check_params(self) -> None:
        super()._check_params()
        threshold, exponent = float(self.threshold), float(self.exponent)
        if threshold < 0 and exponent != int(exponent):
            raise ValueError(
                f"exponent={self.exponent!r} is not allowed with threshold={self.threshold!r}; a negative "
                "threshold admits negative similarities, so exponent must be an integer"
            )
        self._keyed_vectors()

    def _method(self) -> str:
        return {False: "soft_vsm", True: "soft_vsm_ortho"}[bool(self.orthogonalized)]

    def _depth(self, kv) -> int:
        # C beyond the other words' count limits nothing: cap it (and the neighbour search) there
        return max(1, min(int(self.C), len(kv) - 1))

    def _fill_rule(self) -> str:
        return self.fill_rule

    def _point(self, kv) -> dict:
        return dict(
            symmetric=bool(self.symmetric),
            dominant=bool(self.dominant),
            idf=bool(self.idf),
            nonzero_limit=self._depth(kv),
            threshold=float(self.threshold),
            exponent=float(self.exponent),
        )

    def _prepare(self):
        inputs, self.term_similarity_ = super()._prepare()
        return inputs, self.term_similarity_


class WMDClassifier(_Embedded):
    """kNN with the exact Word Mover's Distance (chapter 4's ``wmd``, ``wmd_quantized`` and ``wmd_tfidf``), by the
    package's pruned search: candidates in ascending lower bound, the exact EMD only where a bound cannot rule a
    candidate out (:func:`regemb_utils.measures.wmd.wmd_knn`); the neighbours are those of the brute-force search.

    Parameters
    ----------
    vectors : gensim KeyedVectors or Mapping[str, array-like]
    k : odd int
    weighting : {"nbow", "tfidf_l1"}
        the word weights: L1-normalised counts (Kusner et al. 2015) or L1-normalised TF-IDF (Sato et al. 2022).
    solver : {"pot", "pyemd"}
        the exact EMD solver.
    n_jobs : int or None
        joblib workers over chunks of queries.
    tokenizer : {"paper", "gensim"}
    dictionary : gensim Dictionary or None

    Attributes
    ----------
    classes_, dictionary_, missing_words_ : see :class:`SoftCosineClassifier`

    Examples
    --------
    >>> vectors = {"cat": [1.0, 0.1], "dog": [0.9, 0.2], "car": [0.0, 1.0], "bus": [0.1, 0.9]}
    >>> WMDClassifier(vectors).fit(["cat", "dog", "car bus"], ["pets", "pets", "cars"]).predict(["dog", "bus"]).tolist()
    ['pets', 'cars']
    """

    def __init__(
        self,
        vectors=None,
        k: int = 1,
        weighting: str = "nbow",
        solver: str = "pot",
        n_jobs: int | None = 1,
        tokenizer: str = "paper",
        dictionary: Dictionary | None = None,
    ):
        self.vectors = vectors
        self.k = k
        self.weighting = weighting
        self.solver = solver
        self.n_jobs = n_jobs
        self.tokenizer = tokenizer
        self.dictionary = dictionary

    _constraints = {
        **_Embedded._constraints,
        "weighting": one_of(("nbow", "tfidf_l1")),
        "solver": one_of(SOLVERS),
        "n_jobs": either(literal(None), integer(high=-1), integer(1), allowed="None or a non-zero integer"),
    }

    def _check_params(self) -> None:
        super()._check_params()
        self._keyed_vectors()

    def _method(self) -> str:
        return {"nbow": "wmd", "tfidf_l1": "wmd_tfidf"}[self.weighting]

    def _search_options(self) -> dict:
        return dict(solver=self.solver, n_jobs=None if self.n_jobs is None else int(self.n_jobs))
