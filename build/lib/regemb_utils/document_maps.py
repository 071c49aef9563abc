"""Confusion matrices and t-SNE document maps of the kNN classifiers (paper Figures 2–7).

* :func:`confusion_counts` – counts[true class, predicted class]; :func:`row_normalized` – each row divided by its
  class size (the recall of every class on the diagonal); :func:`plot_confusion` – a seaborn heat map of either.
* :func:`test_similarities` – the SCM between the test documents of one data set under a chapter-4 method at its
  selected parameters (the soft VSM with the dense S, or with the orthogonalized S' of the selected grid point).
* :func:`scm_dissimilarities` – √(max(0, 2 − 2·SCM)): the Euclidean distance between the documents' unit vectors in
  the SCM's inner-product space. When S' = L Lᵀ (Sym + Dom, chapter 3) this is the distance between the normalized
  document vectors Lᵀx/‖Lᵀx‖ over the orthogonalized embeddings, which is what the paper's maps used (it forced Sym
  and Dom and took Cholesky factors, notes §7). A document with xᵀSx ≤ 0 has SCM 0 to every document, so it sits at
  √2 from all of them.
* :func:`tsne_map` – scikit-learn's t-SNE on those precomputed dissimilarities, in 2 or 3 dimensions.
* :func:`map_figure_2d`, :func:`map_figure_3d` – a matplotlib scatter and an interactive plotly scatter coloured by
  the true class (hover: the class and the start of the text).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "confusion_counts",
    "row_normalized",
    "plot_confusion",
    "map_sample",
    "test_similarities",
    "scm_dissimilarities",
    "tsne_map",
    "map_figure_2d",
    "map_figure_3d",
]


def confusion_counts(truth, predicted, n_labels: int) -> np.ndarray:
    """counts[i, j] = how many documents of true class i were predicted as class j (classes 0 … n_labels − 1)."""
    truth, predicted = np.asarray(truth), np.asarray(predicted)
    if truth.shape != predicted.shape or truth.ndim != 1:
        raise ValueError(f"truth and predictions must be 1-D of one length, got {truth.shape} and {predicted.shape}")
    for name, labels in (("truth", truth), ("predictions", predicted)):
        if labels.size and (labels.min() < 0 or labels.max() >= n_labels):
            raise ValueError(f"{name} hold labels outside 0 … {n_labels - 1}")
    counts = np.zeros((n_labels, n_labels), dtype=np.int64)
    np.add.at(counts, (truth, predicted), 1)
    return counts


def row_normalized(counts: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (a class without documents keeps a row of zeros)."""
    counts = np.asarray(counts, dtype=np.float64)
    sums = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, sums, out=np.zeros_like(counts), where=sums > 0)


def plot_confusion(counts: np.ndarray, class_names: Sequence[str], ax, *, normalized: bool = False, title: str = ""):
    """A seaborn heat map of ``counts`` (or of its rows normalized), class names on both axes."""
    import seaborn as sns

    values = row_normalized(counts) if normalized else counts
    frame = pd.DataFrame(values, index=list(class_names), columns=list(class_names))
    small = len(class_names) <= 10
    sns.heatmap(frame, ax=ax, cmap="Blues", square=True, cbar=False, annot=small, fmt=".2f" if normalized else "d",
                vmin=0, vmax=1 if normalized else None, annot_kws={"fontsize": 7})
    ax.set(xlabel="predicted class", ylabel="true class", title=title)
    ax.tick_params(labelsize=7)
    return ax


def map_sample(n: int, limit: int | None, seed: int = 42) -> np.ndarray:
    """The test documents a map shows: all ``n``, or a seeded random ``limit`` of them (sorted)."""
    from .documents import query_rows

    return query_rows(n, limit, seed)


def test_similarities(method: str, result, documents, *, embeddings=None, matrices=None, rows=None) -> np.ndarray:
    """SCM [n, n] between the test documents ``rows`` (all if None) of one data set, under ``method`` at the
    parameters that chapter 4 selected (``result`` is its :class:`regemb_utils.knn_runs.MethodResult`); the
    idf is the training split's, as in the test run."""
    from scipy import sparse

    from .documents import represent_pair
    from .methods import METHODS, SPARSE_KEYS
    from .similarity import dense_scm, sparse_scm

    measure = METHODS[method].measure
    if measure not in ("dense_scm", "sparse_scm"):
        raise ValueError(f"maps are drawn for the soft VSMs; {method!r} is measured by {measure}")
    Q, _ = represent_pair(method, documents, "test", "train", result.params.get("slope", 0.0))
    if rows is not None:
        Q = Q[rows]
    if measure == "dense_scm":
        if embeddings is None:
            raise ValueError(f"method {method!r} needs embeddings")
        return dense_scm(Q, Q, embeddings)
    if matrices is None:
        raise ValueError(f"method {method!r} needs matrices")
    S = matrices.build({key: result.params[key] for key in SPARSE_KEYS})
    S = sparse.csc_matrix(S[:, documents.terms])[documents.terms, :]
    return sparse_scm(Q, Q, S)


def scm_dissimilarities(similarities: np.ndarray) -> np.ndarray:
    """√(max(0, 2 − 2·s)) with a zero diagonal and exact symmetry (t-SNE's precomputed input)."""
    s = np.asarray(similarities, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"similarities must be square, got {s.shape}")
    s = (s + s.T) / 2
    distances = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * s))
    np.fill_diagonal(distances, 0.0)
    return distances


def tsne_map(dissimilarities: np.ndarray, dimensions: int = 2, *, perplexity: float = 30.0, seed: int = 42) -> np.ndarray:
    """t-SNE coordinates [n, dimensions] from precomputed dissimilarities (scikit-learn, random init, seeded)."""
    from sklearn.manifold import TSNE

    n = dissimilarities.shape[0]
    if dimensions not in (2, 3):
        raise ValueError(f"dimensions must be 2 or 3, got {dimensions}")
    if n < 3:
        raise ValueError(f"t-SNE needs at least 3 documents, got {n}")
    if not 0 < perplexity < n:
        raise ValueError(f"perplexity={perplexity} is not allowed; it must lie in (0, {n}), below the number of "
                         "documents on the map")
    tsne = TSNE(n_components=dimensions, metric="precomputed", init="random", random_state=seed,
                perplexity=perplexity)
    return tsne.fit_transform(dissimilarities)


def _palette(n: int) -> list[str]:
    import seaborn as sns

    return sns.color_palette("tab20" if n > 10 else "tab10", n).as_hex()


def map_figure_2d(coordinates: np.ndarray, labels, class_names: Sequence[str], ax, title: str = ""):
    """A static scatter of 2-D coordinates coloured by the true class."""
    colours = _palette(len(class_names))
    labels = np.asarray(labels)
    size = float(np.clip(4000 / max(len(labels), 1), 4, 30))  # small dots for many documents
    for label, name in enumerate(class_names):
        points = coordinates[labels == label]
        ax.scatter(points[:, 0], points[:, 1], s=size, color=colours[label], label=name, alpha=0.8, linewidths=0)
    ax.set(title=title, xticks=[], yticks=[])
    return ax


def map_figure_3d(coordinates: np.ndarray, labels, class_names: Sequence[str], texts: Sequence[str], title: str = "",
                  snippet: int = 120):
    """An interactive plotly 3-D scatter coloured by the true class; hovering shows the class and the text's start."""
    import plotly.graph_objects as go

    colours = _palette(len(class_names))
    labels = np.asarray(labels)
    figure = go.Figure()
    for label, name in enumerate(class_names):
        mask = labels == label
        if not mask.any():
            continue
        starts = [" ".join(str(t).split())[:snippet] for t, m in zip(texts, mask) if m]
        figure.add_trace(go.Scatter3d(
            x=coordinates[mask, 0], y=coordinates[mask, 1], z=coordinates[mask, 2], mode="markers", name=name,
            marker={"size": 2.5, "color": colours[label]}, text=starts,
            hovertemplate=f"<b>{name}</b><br>%{{text}}<extra></extra>"))
    figure.update_layout(title=title, height=560, margin={"l": 0, "r": 0, "t": 40, "b": 0}, legend={"itemsizing": "constant"},
                         scene={axis: {"showticklabels": False, "title": ""} for axis in ("xaxis", "yaxis", "zaxis")})
    return figure
