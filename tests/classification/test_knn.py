import numpy as np
import pytest

from regemb_utils.classification.knn import K_VALUES, knn_votes, top_k, top_k_by_partition


def test_top_k_ties_prefer_lower_training_index():
    sims = np.array([[0.5, 0.9, 0.5, 0.5, 0.1], [1.0, 1.0, 1.0, 1.0, 1.0], [np.inf, 0.0, -np.inf, np.inf, 0.0]])
    assert top_k(sims, 2).tolist() == [[1, 0], [0, 1], [0, 3]]
    assert top_k(sims, 3).tolist() == [[1, 0, 2], [0, 1, 2], [0, 3, 1]]
    assert top_k(sims, 5).tolist()[0] == [1, 0, 2, 3, 4]
    with pytest.raises(ValueError, match="NaN"):
        top_k(np.array([[np.nan, 1.0]]), 1)
    with pytest.raises(ValueError):
        top_k(sims, 6)


@pytest.mark.parametrize("top", [top_k, top_k_by_partition])
def test_both_rankings_refuse_nan_and_a_k_outside_1_to_n_train(top):
    with pytest.raises(ValueError, match="similarities contain NaN"):
        top(np.array([[0.0, 1.0], [np.nan, 1.0]]), 1)
    with pytest.raises(ValueError, match=r"k must lie in \[1, n_train = 2\], got 3"):
        top(np.zeros((1, 2)), 3)
    with pytest.raises(ValueError, match="2-D"):
        top(np.zeros(3), 1)


@pytest.mark.parametrize("seed", range(6))
def test_the_one_pass_ranking_equals_the_partition_reference(seed):
    rng = np.random.default_rng(seed)
    n_queries, n_train = rng.integers(0, 40), rng.integers(1, 300)
    levels = rng.choice([2, 5, 1000])  # few distinct values: ties at the k-th place in most rows
    sims = rng.integers(0, levels, size=(n_queries, n_train)).astype(rng.choice([np.float32, np.float64]))
    sims[rng.random(sims.shape) < 0.02] = np.inf
    sims[rng.random(sims.shape) < 0.02] = -np.inf
    for k in {1, 2, min(19, n_train), n_train}:
        assert np.array_equal(top_k(sims, k), top_k_by_partition(sims, k)), k
    ints = rng.integers(-3, 3, size=(5, 40))  # integer input is ranked as float64 by both
    assert np.array_equal(top_k(ints, 7), top_k_by_partition(ints, 7))
    columns = np.asfortranarray(sims)  # any memory layout
    assert np.array_equal(top_k(columns, 1), top_k_by_partition(columns, 1))


def test_top_k_matches_stable_sort_on_random_ties():
    rng = np.random.default_rng(0)
    sims = rng.integers(0, 4, size=(50, 30)).astype(float)  # many ties
    expected = np.argsort(-sims, axis=1, kind="stable")[:, :19]
    assert np.array_equal(top_k(sims, 19), expected)


def test_votes_and_tie_to_lowest_label():
    labels = np.array([[2, 1, 1, 2, 0]])
    votes = knn_votes(labels, ks=(1, 2, 3, 4, 5))
    # k=1: 2; k=2: tie 1/2 -> 1; k=3: 1; k=4: tie 1/2 -> 1; k=5: 1 and 2 have 2 votes -> 1
    assert votes[:, 0].tolist() == [2, 1, 1, 1, 1]
    assert knn_votes(np.array([[3, 0]]), ks=(2,)).tolist() == [[0]]


def test_predictions_for_all_k_from_one_search():
    sims = np.array([[0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.4]])
    train_labels = np.array([0, 1, 1, 0])
    predictions = knn_votes(train_labels[top_k(sims, 3)], ks=(1, 3))
    assert predictions[0].tolist() == [0, 0] and predictions[1].tolist() == [1, 1]
    assert K_VALUES == (1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
    with pytest.raises(ValueError, match=r"every k must lie in \[1, 3\]"):
        knn_votes(train_labels[top_k(sims, 3)], ks=(5,))
