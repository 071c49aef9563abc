"""Small random inputs shared by the classification-core tests (not a test module)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors
from scipy import sparse

from regemb_utils.classification.knn_runs import MethodResult
from regemb_utils.text.datasets import Dataset, Split


def random_documents(rng, n_docs, vocabulary, min_len=1, max_len=30, zipf=1.1):
    """Token lists drawn from ``vocabulary`` with Zipfian word frequencies."""
    ranks = np.arange(1, len(vocabulary) + 1)
    probabilities = ranks**-zipf
    probabilities /= probabilities.sum()
    documents = []
    for _ in range(n_docs):
        length = int(rng.integers(min_len, max_len + 1))
        documents.append([vocabulary[i] for i in rng.choice(len(vocabulary), size=length, p=probabilities)])
    return documents


def make_problem(seed=0, n_words=120, dim=16, n_docs=60, missing=10, with_unknown=True):
    """(documents, dictionary, keyed_vectors): the last ``missing`` dictionary words have no embedding."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(n_words)]
    documents = random_documents(rng, n_docs, vocabulary)
    dictionary = Dictionary([vocabulary])  # every word in the dictionary, ids in order
    if with_unknown:  # tokens outside the dictionary, dropped by every method
        for document in documents[::7]:
            document.append("unknown-token")
    kv = KeyedVectors(vector_size=dim)
    embedded = vocabulary[: n_words - missing]
    kv.add_vectors(embedded, rng.normal(size=(len(embedded), dim)).astype(np.float32))
    return documents, dictionary, kv


def random_term_matrix(rng, n_terms, per_column=5, positive_definite=True, negative=False):
    """Random symmetric sparse S' with unit diagonal (CSC); strictly diagonally dominant if ``positive_definite``."""
    rows, cols, vals = [], [], []
    for j in range(n_terms):
        for i in rng.choice(n_terms, size=per_column, replace=False):
            if i == j:
                continue
            value = rng.uniform(-1.0 if negative else 0.0, 1.0)
            rows += [i, j]
            cols += [j, i]
            vals += [value, value]
    off = sparse.coo_matrix((vals, (rows, cols)), shape=(n_terms, n_terms)).tocsc()
    off.sum_duplicates()
    if positive_definite:  # scale every column so that Σ|off-diagonal| < 1
        column_sums = np.asarray(abs(off).sum(axis=0)).ravel()
        scale = 0.9 / max(column_sums.max(), 1e-12)
        off = off * scale
    matrix = (off + sparse.identity(n_terms, format="csc")).tocsc()
    return matrix.astype(np.float32)


def separable_dataset(seed=0, n_per_class=12, length=8):
    """Two classes with disjoint words whose embeddings form two orthogonal clusters: every method is exact."""
    rng = np.random.default_rng(seed)
    words = {0: [f"a{i}" for i in range(10)], 1: [f"b{i}" for i in range(10)]}

    def split(n):
        labels = np.tile([0, 1], n)
        texts = [" ".join(rng.choice(words[label], size=length)) for label in labels]
        return Split(texts, labels)

    dataset = Dataset("toy", ("A", "B"), split(n_per_class), split(n_per_class // 2), split(n_per_class // 2))
    dictionary = Dictionary([t.split() for t in dataset.train.texts + dataset.validation.texts] + [["zzz"]])
    kv = KeyedVectors(vector_size=8)
    centre = {0: np.eye(8)[0] * 3, 1: np.eye(8)[1] * 3}
    kv.add_vectors(
        words[0] + words[1],
        np.array([centre[c] + rng.normal(scale=0.3, size=8) for c in (0, 1) for _ in words[c]], dtype=np.float32),
    )
    return dataset, dictionary, kv


def fake_result(
    dataset,
    method,
    truth=None,
    predicted=None,
    *,
    errors=None,
    n=None,
    k=1,
    params=None,
    validation=None,
    runs=(),
    rows=None,
):
    """A kNN result built by hand, nothing run: a ``MethodResult`` with test labels ``truth`` and the predictions
    ``predicted`` at ``k`` (None: no predictions), or, given ``errors`` instead, ``n`` documents of label 0 whose first
    ``errors`` are predicted 1 (wrong). The chosen parameters are ``{"k": k, **params}`` (a "k" in ``params`` wins),
    the validation table ``validation`` (None: an empty one), then the ``runs`` and the answered test ``rows``."""
    if errors is not None:
        if truth is not None or predicted is not None:
            raise ValueError("give truth and predicted, or errors and n, not both")
        truth = np.zeros(n, dtype=int)
        predicted = truth.copy()
        predicted[:errors] = 1
    predictions = {} if predicted is None else {k: np.asarray(predicted)}
    validation = pd.DataFrame() if validation is None else validation
    return MethodResult(
        dataset, method, {"k": k, **(params or {})}, validation, np.asarray(truth), predictions, list(runs), rows
    )
