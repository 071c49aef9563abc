import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from scipy import sparse

from regemb_utils.document_maps import (
    confusion_counts, map_figure_3d, map_sample, plot_confusion, row_normalized, scm_dissimilarities, tsne_map,
)
from regemb_utils.similarity import sparse_scm


def test_confusion_counts_and_rows_on_hand_made_predictions():
    truth = [0, 0, 0, 1, 1, 2]
    predicted = [0, 1, 0, 1, 0, 2]
    counts = confusion_counts(truth, predicted, 4)  # class 3 has no documents
    expected = np.array([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(counts, expected)
    rows = row_normalized(counts)
    np.testing.assert_allclose(rows[0], [2 / 3, 1 / 3, 0, 0])
    np.testing.assert_allclose(rows[1], [0.5, 0.5, 0, 0])
    np.testing.assert_array_equal(rows[3], 0)  # no division by zero
    assert np.trace(counts) == 4  # the correct predictions


def test_confusion_counts_refuse_bad_labels():
    with pytest.raises(ValueError, match="outside 0 … 1"):
        confusion_counts([0, 2], [0, 1], 2)
    with pytest.raises(ValueError, match="one length"):
        confusion_counts([0, 1], [0], 2)


def test_plot_confusion_puts_class_names_on_both_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plot_confusion(np.array([[3, 1], [0, 2]]), ["crude", "grain"], ax, normalized=True)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["crude", "grain"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["crude", "grain"]
    assert [t.get_text() for t in ax.texts] == ["0.75", "0.25", "0.00", "1.00"]
    plt.close(fig)


def test_dissimilarities_are_distances_between_orthogonalized_document_vectors():
    rng = np.random.default_rng(0)
    n_terms = 30
    A = rng.normal(size=(n_terms, n_terms))
    S = A @ A.T + n_terms * np.eye(n_terms)
    S /= np.sqrt(np.outer(np.diag(S), np.diag(S)))  # unit diagonal, positive definite
    L = np.linalg.cholesky(S)
    X = sparse.random(12, n_terms, density=0.3, format="csr", random_state=rng)
    X = X + sparse.csr_matrix((np.ones(12), (np.arange(12), np.zeros(12, int))), shape=X.shape)  # no empty row
    sims = sparse_scm(X, X, sparse.csc_matrix(S), dtype=np.float64)
    vectors = X.toarray() @ L  # rows: Lᵀx
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = np.linalg.norm(vectors[:, None, :] - vectors[None, :, :], axis=2)
    D = scm_dissimilarities(sims)
    np.testing.assert_allclose(D, expected, atol=1e-6)
    assert np.all(np.diag(D) == 0) and np.array_equal(D, D.T)
    with pytest.raises(ValueError, match="square"):
        scm_dissimilarities(np.zeros((2, 3)))


def test_tsne_keeps_separated_classes_apart_and_is_seeded():
    rng = np.random.default_rng(1)
    centres = np.eye(3) * 10
    points = np.concatenate([c + rng.normal(size=(20, 3)) for c in centres])
    labels = np.repeat(np.arange(3), 20)
    D = np.linalg.norm(points[:, None] - points[None], axis=2)
    for dimensions in (2, 3):
        Y = tsne_map(D, dimensions, perplexity=10)
        assert Y.shape == (60, dimensions)
        nearest = np.argsort(np.linalg.norm(Y[:, None] - Y[None], axis=2), axis=1)[:, 1]
        assert np.all(labels[nearest] == labels)
    np.testing.assert_array_equal(tsne_map(D, 2, perplexity=10), tsne_map(D, 2, perplexity=10))
    with pytest.raises(ValueError, match="2 or 3"):
        tsne_map(D, 4)


def test_map_sample_and_3d_figure_hover():
    rows = map_sample(50, 10)
    assert len(rows) == 10 and np.all(np.diff(rows) > 0) and np.array_equal(rows, map_sample(50, 10))
    assert np.array_equal(map_sample(5, None), np.arange(5))
    coordinates = np.arange(12, dtype=float).reshape(4, 3)
    figure = map_figure_3d(coordinates, [0, 1, 1, 0], ["earn", "acq"], ["a b  c", "d", "e" * 300, "f"], snippet=50)
    assert [trace.name for trace in figure.data] == ["earn", "acq"]
    assert list(figure.data[0].text) == ["a b c", "f"] and len(figure.data[1].text[1]) == 50
    assert "earn" in figure.data[0].hovertemplate
