"""Linear classifiers on document features: the supervised baselines of chapter 7 ("Where it stands today").

* :data:`LINEAR_MODELS` – TF-IDF with a linear SVM or logistic regression (scikit-learn), and the same two
  classifiers on the orthogonalized SCM's document vectors E′ᵀx (:func:`orthogonalized_features`).
* :func:`fit_linear` – one model on one data set: its regularization strength C chosen on the validation split (the
  lowest validation error, ties to the smaller C, as chapter 4 chooses k), refitted on the reference split, with its
  one-core fit and predict seconds; an artifact (``@computes("linear-model")``).

By Theorem 1 (chapter 3) S′ = E′E′ᵀ, so the normalized vectors E′ᵀx/‖E′ᵀx‖ have as inner products the soft cosine
x̂ᵀS′ŷ: a linear model on them uses the orthogonalized SCM as its kernel.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from ..infra.keys import computes
from ..measures.representations import l2_normalize
from ..termsim.cholesky import orthogonalized_embeddings
from ..termsim.sources import restricted
from ..text.documents import Documents
from .methods import represent_pair

__all__ = [
    "LinearModel",
    "LINEAR_MODELS",
    "classifier",
    "tfidf_features",
    "orthogonalized_features",
    "LinearResult",
    "fit_linear",
]


@dataclass(frozen=True)
class LinearModel:
    """A linear model: its label, its document features and its classifier.

    Parameters
    ----------
    label : str
        The name in the tables.
    features : {"tfidf", "orthogonalized"}
        TF-IDF rows, or the orthogonalized SCM's normalized document vectors E′ᵀx.
    classifier : {"svm", "logistic"}
        scikit-learn's ``LinearSVC`` or ``LogisticRegression``.

    Examples
    --------
    >>> LINEAR_MODELS["tfidf_svm"]
    LinearModel(label='TF-IDF + linear SVM', features='tfidf', classifier='svm')
    """

    label: str
    features: str
    classifier: str


LINEAR_MODELS: dict[str, LinearModel] = {
    "tfidf_svm": LinearModel("TF-IDF + linear SVM", "tfidf", "svm"),
    "tfidf_logistic": LinearModel("TF-IDF + logistic regression", "tfidf", "logistic"),
    "scm_svm": LinearModel("E′ᵀx + linear SVM", "orthogonalized", "svm"),
    "scm_logistic": LinearModel("E′ᵀx + logistic regression", "orthogonalized", "logistic"),
}


def classifier(kind: str, C: float):
    """The scikit-learn classifier ``kind`` with regularization strength ``C``: ``LinearSVC`` (one-vs-rest, seeded)
    or multinomial ``LogisticRegression`` (lbfgs).

    Parameters
    ----------
    kind : {"svm", "logistic"}
        Which.
    C : float
        The inverse regularization strength.

    Returns
    -------
    sklearn estimator

    Examples
    --------
    >>> classifier("svm", 0.5)
    LinearSVC(C=0.5, random_state=0)
    """
    if kind == "svm":
        return LinearSVC(C=C, random_state=0)
    if kind == "logistic":
        return LogisticRegression(C=C, max_iter=2000)
    raise ValueError(f"unknown classifier {kind!r}; allowed: svm, logistic")


_SPLITS = ("train", "validation", "test")


def tfidf_features(documents: Documents, reference: str) -> dict[str, sparse.csr_matrix]:
    """TF-IDF rows (scikit-learn's defaults: smoothed idf, L2-normalized rows) of every split and of ``reference``,
    the idf fitted on ``reference``.

    Parameters
    ----------
    documents : Documents
        One data set's term counts (chapter 4's).
    reference : {"train", "train+validation"}
        The split the final model is fitted on (chapter 4's ``reference``).

    Returns
    -------
    dict
        Split name (``"train"``, ``"validation"``, ``"test"`` and ``reference``) → features.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> features = tfidf_features(documents, "train")
    >>> sorted(features), features["test"].shape
    (['test', 'train', 'validation'], (4, 6))
    """
    transformer = TfidfTransformer().fit(documents.split(reference)[0])
    return {
        split: sparse.csr_matrix(transformer.transform(documents.split(split)[0]))
        for split in dict.fromkeys((*_SPLITS, reference))
    }


def orthogonalized_features(documents: Documents, S, reference: str, slope: float = 0.0):
    """The orthogonalized SCM's document vectors E′ᵀx/‖E′ᵀx‖ of every split, with E′ the Cholesky factor of S′ on the
    data set's words (Theorem 1: E′E′ᵀ = S′) and x the soft VSM's dtb weights (document frequencies and mean length
    from ``reference``, as chapter 4's test run).

    Parameters
    ----------
    documents : Documents
        One data set's term counts.
    S : scipy.sparse matrix
        S′ over the whole dictionary (symmetric and diagonally dominant, so positive definite).
    reference : str
        The split that gives the dtb weighting its document frequencies and mean length.
    slope : float
        The dtb pivot slope.

    Returns
    -------
    (dict, CholeskyInfo)
        Split name → rows E′ᵀx, L2-normalized (a document with xᵀS′x = 0 stays 0); the factorization's info.

    Raises
    ------
    ValueError
        When S′ restricted to the data set's words has no Cholesky factor.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> features, info = orthogonalized_features(documents, sparse.identity(6, format="csc"), "train")
    >>> info.ok, np.round(sparse.linalg.norm(features["test"], axis=1), 6).tolist()  # S' = I: E' = I, unit rows
    (True, [1.0, 1.0, 1.0, 1.0])
    """
    E, info = orthogonalized_embeddings(restricted(S, documents.terms))
    if E is None:
        raise ValueError(f"S' on the words of {documents.name} has no Cholesky factor: {info.reason}")
    features = {}
    for split in dict.fromkeys((*_SPLITS, reference)):
        X = represent_pair("soft_vsm_ortho", documents, split, reference, slope)[0]
        features[split] = l2_normalize(sparse.csr_matrix(X @ E))
    return features, info


@dataclass
class LinearResult:
    """One linear model on one data set: its validation errors, the chosen C, its test predictions and its costs.

    Parameters
    ----------
    dataset, method : str
        Which.
    params : dict
        The chosen ``C`` (and, for E′ᵀx, S′'s grid point and the dtb slope).
    validation : pandas.DataFrame
        Validation error (%) for each C.
    truth, predictions : numpy.ndarray
        Test labels and predictions.
    fit_seconds, predict_seconds : float
        One-core CPU seconds of choosing C and fitting the final model, and of predicting the test split, with the
        features prepared beforehand (as chapter 4 times its similarities without building S′).
    prepare_seconds : float
        The features' preparation (for E′ᵀx: the Cholesky factorization and the projections).
    factor : dict
        For E′ᵀx: the factor's ``words`` and ``nonzeros``.

    Examples
    --------
    >>> result = LinearResult("toy", "tfidf_svm", {"C": 1.0}, pd.DataFrame(), np.array([0, 1, 1]),
    ...                       np.array([0, 1, 0]), 0.1, 0.01)
    >>> result.test_errors
    1
    """

    dataset: str
    method: str
    params: dict[str, Any]
    validation: pd.DataFrame
    truth: np.ndarray
    predictions: np.ndarray
    fit_seconds: float
    predict_seconds: float
    prepare_seconds: float = 0.0
    factor: dict[str, int] = field(default_factory=dict)

    @property
    def test_errors(self) -> int:
        return int(np.sum(self.predictions != self.truth))


@computes("linear-model")
def fit_linear(
    method: str,
    documents: Documents,
    reference: str,
    regularization: Sequence[float],
    *,
    S=None,
    point: Mapping[str, Any] | None = None,
) -> LinearResult:
    """``method`` (:data:`LINEAR_MODELS`) on one data set: C chosen on the validation split (models fitted on the
    training split), then the model fitted on ``reference`` with that C, and its test predictions, with their
    one-core CPU seconds.

    Parameters
    ----------
    method : str
        A key of :data:`LINEAR_MODELS`.
    documents : Documents
        The data set (chapter 4's).
    reference : {"train", "train+validation"}
        What the final model is fitted on (chapter 4's reference set).
    regularization : sequence of float
        The values of C tried.
    S : scipy.sparse matrix, optional
        S′ over the dictionary (E′ᵀx models).
    point : mapping, optional
        S′'s grid point and the dtb ``slope`` (E′ᵀx models).

    Returns
    -------
    LinearResult

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> result = fit_linear("tfidf_svm", documents, "train", (0.1, 1.0))
    >>> result.test_errors, result.params["C"]
    (0, 0.1)
    """
    model = LINEAR_MODELS[method]
    labels = {split: documents.split(split)[1] for split in dict.fromkeys((*_SPLITS, reference))}
    start = time.process_time()
    with threadpool_limits(1):
        factor = {}
        if model.features == "tfidf":
            features = tfidf_features(documents, reference)
        else:
            features, info = orthogonalized_features(documents, S, reference, point.get("slope", 0.0))
            factor = {"words": info.n, "nonzeros": info.nnz_factor}
        prepared = time.process_time()
        errors = []
        for C in regularization:
            fitted = classifier(model.classifier, C).fit(features["train"], labels["train"])
            errors.append(100 * float(np.mean(fitted.predict(features["validation"]) != labels["validation"])))
        best = regularization[int(np.argmin(errors))]  # ties: the first, the smallest C
        fitted = classifier(model.classifier, best).fit(features[reference], labels[reference])
        trained = time.process_time()
        predictions = fitted.predict(features["test"])
        predicted = time.process_time()
    params = {"C": best, **(dict(point) if model.features == "orthogonalized" else {})}
    return LinearResult(
        documents.name,
        method,
        params,
        pd.DataFrame({"C": list(regularization), "validation error (%)": errors}),
        labels["test"],
        predictions,
        trained - prepared,
        predicted - trained,
        prepared - start,
        factor,
    )
