"""A data set's documents: counts over the common dictionary, the weighting of a split pair, the answered queries."""

from __future__ import annotations

import numpy as np
import pytest
from classification_fixtures import separable_dataset

from regemb_utils.classification.methods import represent_pair
from regemb_utils.text.documents import prepare_documents, query_rows


@pytest.fixture(scope="module")
def documents():
    dataset, dictionary, _ = separable_dataset()
    return prepare_documents(dataset, dictionary)


def test_reference_set_with_the_validation_split(documents):
    Q, R = represent_pair("tfidf_l1", documents, "test", "train+validation")
    assert R.shape[0] == len(documents.labels["train"]) + len(documents.labels["validation"])
    np.testing.assert_allclose(np.asarray(R.sum(axis=1)).ravel(), 1.0)  # L1 rows
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        documents.split("dev")


def test_a_document_without_known_words_is_an_empty_row():
    dataset, dictionary, kv = separable_dataset()
    dataset.test.texts[0] = "unknownword another"
    documents = prepare_documents(dataset, dictionary)
    assert documents.counts["test"][0].nnz == 0
    Q, R = represent_pair("soft_vsm", documents, "test", "train")
    assert Q[0].nnz == 0


def test_query_rows_are_a_seeded_sorted_subsample():
    rows = query_rows(12, 5)
    assert len(set(rows)) == 5 and np.all(np.diff(rows) > 0)
    np.testing.assert_array_equal(query_rows(12, 5), rows)  # seeded
    np.testing.assert_array_equal(query_rows(12, 12), np.arange(12))
    np.testing.assert_array_equal(query_rows(12, None), np.arange(12))
