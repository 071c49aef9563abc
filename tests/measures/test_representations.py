import math

import numpy as np
import pytest
from gensim.corpora import Dictionary
from scipy import sparse

from classification_fixtures import make_problem, random_term_matrix
from regemb_utils.measures.representations import (
    DtbWeighting,
    bow_matrix,
    l1_normalize,
    mean_character_length,
    nbow_matrix,
    represent,
    tfidf_l1_matrix,
)
from regemb_utils.measures.similarity import slope_effect_on_scm


def test_bow_counts_and_unknown_words():
    dictionary = Dictionary([["a", "b", "c"]])
    X = bow_matrix([["a", "a", "b", "zzz"], [], ["zzz"]], dictionary)
    assert X.shape == (3, 3) and X.dtype == np.float64
    assert X[0, dictionary.token2id["a"]] == 2 and X[0, dictionary.token2id["b"]] == 1
    assert X[1].nnz == 0 and X[2].nnz == 0  # empty document and no known word: zero rows
    N = nbow_matrix([["a", "a", "b"], []], dictionary)
    assert np.isclose(N[0].sum(), 1.0) and N[1].nnz == 0
    with pytest.raises(TypeError):
        bow_matrix("not tokenised", dictionary)


def test_dtb_as_the_paper_computed_it():
    dictionary = Dictionary([["a", "b", "c", "d"]])
    a, b, c, d = (dictionary.token2id[t] for t in "abcd")
    train = [["a", "a", "a", "a", "b"], ["a", "c"], ["a", "b", "b"]]  # a in every doc: idf 0, dropped
    weighting = DtbWeighting(bow_matrix(train, dictionary), mean_character_length(train))
    assert weighting.avgdl == pytest.approx((5 + 2 + 3) / 3)
    W = weighting.transform(bow_matrix([["a", "b", "b", "b", "b", "c", "d"]], dictionary), slope=0.0)
    # d is unseen in training (dropped); b: tf 4 -> 1 + log2(1 + log2 4) = 1 + log2 3; idf log2(3/2)
    assert W[0, a] == 0 and W[0, d] == 0
    assert W[0, b] == pytest.approx((1 + math.log2(3)) * math.log2(3 / 2))
    assert W[0, c] == pytest.approx(1.0 * math.log2(3))
    # pivot: 1 - s + s * doclen / avgdl with doclen = 2 * (number of weighted terms) = 4
    W1 = weighting.transform(bow_matrix([["a", "b", "b", "b", "b", "c", "d"]], dictionary), slope=1.0)
    assert W1[0, c] == pytest.approx(math.log2(3) / (4 / weighting.avgdl))
    with pytest.raises(ValueError):
        weighting.transform(W, slope=1.5)


def test_slope_cancels_after_scm_normalisation():
    documents, dictionary, _ = make_problem(seed=1)
    counts = bow_matrix(documents, dictionary)
    weighting = DtbWeighting(counts[:40], mean_character_length(documents[:40]))
    S = random_term_matrix(np.random.default_rng(2), len(dictionary))
    assert slope_effect_on_scm(counts[40:], weighting, S, slopes=(0.0, 0.3, 0.7, 1.0)) < 1e-12


def test_tfidf_l1_rows_sum_to_one():
    documents, dictionary, _ = make_problem(seed=2)
    counts = bow_matrix(documents, dictionary)
    W = tfidf_l1_matrix(counts[30:], counts[:30])
    sums = np.asarray(W.sum(axis=1)).ravel()
    nonempty = np.diff(counts[30:].indptr) > 0
    assert np.allclose(sums[nonempty], 1.0) and np.all(sums[~nonempty] == 0)


def test_represent_dispatch_and_errors():
    documents, dictionary, _ = make_problem(seed=3)
    counts, train = bow_matrix(documents[:5], dictionary), bow_matrix(documents[5:], dictionary)
    avgdl = mean_character_length(documents[5:])
    expected = {
        "bow": counts,
        "nbow": nbow_matrix(documents[:5], dictionary),
        "dtb": DtbWeighting(train, avgdl).transform(counts, 0.5),
        "tfidf_l1": tfidf_l1_matrix(counts, train),
    }
    for weighting, matrix in expected.items():
        X = represent(weighting, counts, train_counts=train, avgdl=avgdl, slope=0.5)
        assert sparse.isspmatrix_csr(X) and X.shape == (5, len(dictionary))
        np.testing.assert_array_equal(X.toarray(), matrix.toarray())
    with pytest.raises(ValueError, match="unknown weighting"):
        represent("bm25", counts)
    with pytest.raises(ValueError, match="train_counts"):
        represent("dtb", counts)
    with pytest.raises(ValueError, match="avgdl"):
        represent("dtb", counts, train_counts=train)
    assert np.allclose(l1_normalize(sparse.csr_matrix([[0.0, 0.0], [1.0, 3.0]])).toarray(), [[0, 0], [0.25, 0.75]])
