"""Confusion matrices and t-SNE document maps of the kNN classifiers (paper Figures 2–7).

* :func:`confusion_counts` – counts[true class, predicted class]; :func:`row_normalized` – each row divided by its
  class size (the recall of every class on the diagonal); :func:`plot_confusion` – a seaborn heat map of either.
* :func:`similarities_of_test_documents` – the SCM between the test documents of one data set under a chapter-4 method at its
  selected parameters (the soft VSM with the dense S, or with the orthogonalized S' of the selected grid point).
* :func:`scm_dissimilarities` – √(max(0, 2 − 2·SCM)): the Euclidean distance between the documents' unit vectors in
  the SCM's inner-product space. When S' = L Lᵀ (Sym + Dom, chapter 3) this is the distance between the normalized
  document vectors Lᵀx/‖Lᵀx‖ over the orthogonalized embeddings, which is what the paper's maps used (it forced Sym
  and Dom and took Cholesky factors; the appendix on the paper's code). A document with xᵀSx ≤ 0 has SCM 0 to every
  document, so it sits at
  √2 from all of them.
* :func:`tsne_map` – scikit-learn's t-SNE on those precomputed dissimilarities, in 2 or 3 dimensions.
* :func:`map_figure_2d`, :func:`map_figure_3d` – a matplotlib scatter and an interactive plotly scatter coloured by
  the true class (hover: the class and the start of the text).

What the figures show, in numbers (chapter 5's prose is built from these):

* :func:`largest_confusions` – the largest off-diagonal cells of one confusion matrix (non-regularized) beside the same
  cells of another (regularized): counts, shares of the true class and the change.
* :func:`confusion_between`, :func:`prediction_shares`, :func:`errors_within_groups` – one named confusion (REUTERS:
  grain predicted as crude), how much of all predictions named classes take (OHSUMED: the most common classes), and
  how many errors stay inside a group of classes (20NEWS: a Usenet hierarchy, :func:`usenet_hierarchy`).
* :func:`map_neighbour_agreement` – how well a map separates the classes: the mean share of each document's nearest
  neighbours on the map that share its class.
* :data:`PAPER_OBSERVATIONS` – what the paper says it sees in Figures 2–7, in words; :func:`observations_markdown`
  puts it beside our numbers for one data set.
* :func:`confusion_figure`, :func:`maps_figure_2d`, :func:`absent_figure`, :func:`map_viewer_3d` – the chapter's
  figures: both methods' confusion matrices, both 2-D maps, a placeholder for a data set a run leaves out, and one
  3-D viewer (a single WebGL scene) with a selector over data sets and methods.
* :func:`tsne_coordinates`, :func:`dataset_page`, :func:`absent_page`, :func:`summary_table` – what chapter 5 shows
  for one data set (its observations, caption, largest confusions and both figures) and for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..classification.engine import Inputs, Measure
from ..classification.methods import METHODS, represent_pair
from ..text.documents import query_rows
from ..book.style import FIGURE_DPI, FIGURE_WIDTH_IN, MIN_FONT_PT, absent_figure
from ..book.tables import table
from ..paper import DIFFERENT_DATA

__all__ = [
    "confusion_counts",
    "confusions_table",
    "map_sample",
    "similarities_of_test_documents",
    "scm_dissimilarities",
    "tsne_map",
    "usenet_hierarchy",
    "class_styles",
    "absent_figure",
    "map_viewer_3d",
    "MIN_FONT_PT",
    "summary_markdown",
    "tsne_coordinates",
    "absent_page",
    "dataset_page",
    "summary_table",
]


def confusion_counts(truth, predicted, n_labels: int) -> np.ndarray:
    """counts[i, j] = how many documents of true class i were predicted as class j (classes 0 … n_labels − 1).

    Parameters
    ----------
    truth, predicted : array-like of int
        True and predicted labels, one per document.
    n_labels : int
        The number of classes.

    Returns
    -------
    numpy.ndarray of shape (n_labels, n_labels)
        The counts.

    Raises
    ------
    ValueError
        For arrays of different shapes or labels outside 0 … n_labels − 1.

    Examples
    --------
    >>> confusion_counts([0, 1, 1, 2], [0, 1, 2, 2], 3)
    array([[1, 0, 0],
           [0, 1, 1],
           [0, 0, 1]])
    """
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
    """Each row of confusion counts divided by its sum: the shares of each true class (an empty class keeps zeros).

    Parameters
    ----------
    counts : array-like of shape (n, n)

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> row_normalized(np.array([[1, 3], [0, 0]])).tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """
    counts = np.asarray(counts, dtype=np.float64)
    sums = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, sums, out=np.zeros_like(counts), where=sums > 0)


def plot_confusion(counts: np.ndarray, class_names: Sequence[str], ax, *, normalized: bool = False, title: str = ""):
    """A seaborn heat map of ``counts`` (or of its rows normalized), class names on both axes.

    Parameters
    ----------
    counts : numpy.ndarray
        Confusion counts.
    class_names : sequence of str
        The classes, in label order.
    ax : matplotlib.axes.Axes
        Where to draw.
    normalized : bool
        Show the rows' shares instead of the counts.
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, ax = plt.subplots()
    >>> ax = plot_confusion(np.array([[8, 2], [3, 7]]), ["crude", "grain"], ax, normalized=True)
    >>> [text.get_text() for text in ax.texts], ax.get_xlabel()
    (['0.80', '0.20', '0.30', '0.70'], 'predicted class')
    >>> plt.close(figure)
    """
    import seaborn as sns

    values = row_normalized(counts) if normalized else counts
    frame = pd.DataFrame(values, index=list(class_names), columns=list(class_names))
    small = len(class_names) <= 10
    sns.heatmap(
        frame,
        ax=ax,
        cmap="Blues",
        square=True,
        cbar=False,
        annot=small,
        fmt=".2f" if normalized else "d",
        vmin=0,
        vmax=1 if normalized else None,
        annot_kws={"fontsize": 9},
    )
    ax.set(xlabel="predicted class", ylabel="true class", title=title)
    ax.tick_params(labelsize=9)
    return ax


def map_sample(n: int, limit: int | None, seed: int = 42) -> np.ndarray:
    """The sorted rows of the test documents a map shows: all ``n`` (``limit`` None), or ``limit`` drawn with ``seed``.

    Parameters
    ----------
    n, limit, seed : int

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> map_sample(4, None).tolist(), len(map_sample(1000, 300)), bool((map_sample(9, 3) == map_sample(9, 3)).all())
    ([0, 1, 2, 3], 300, True)
    """
    return query_rows(n, limit, seed)


def similarities_of_test_documents(
    method: str, result, documents, *, embeddings=None, matrices=None, rows=None
) -> np.ndarray:
    """SCM [n, n] between the test documents ``rows`` (all if None) of one data set, under ``method`` at the
    parameters that chapter 4 selected (``result`` is its :class:`regemb_utils.classification.knn_runs.MethodResult`); the
    idf is the training split's, as in the test run.

    Parameters
    ----------
    method : str
        A soft-VSM method of :data:`regemb_utils.classification.methods.METHODS`.
    result : MethodResult
        Chapter 4's result of the method on the data set (its selected parameters).
    documents : regemb_utils.text.documents.Documents
        The data set's documents.
    embeddings : numpy.ndarray, optional
        One row per dictionary term, for the dense SCM.
    matrices : regemb_utils.termsim.orthogonalization.MatrixGrid, optional
        The grid of S', for the sparse SCM.
    rows : array-like of int, optional
        The test documents (all if None).

    Returns
    -------
    numpy.ndarray
        ``[n, n]`` similarities.

    Raises
    ------
    ValueError
        For a method that is not a soft VSM, or without the input it needs.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.classification.knn_runs import MethodResult
    >>> from regemb_utils.measures.similarity import cosine_similarity
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> data = dataset_from_texts("toy", ["a b", "b c", "c d", "d a", "a a", "b b", "c c", "d d"], [0, 1] * 4,
    ...                           test_size=3)
    >>> documents = prepare_documents(data, Dictionary([["a", "b", "c", "d"]]))
    >>> result = MethodResult("toy", "soft_vsm", {"k": 1}, pd.DataFrame(), np.zeros(3), {1: np.zeros(3)})
    >>> S = similarities_of_test_documents("soft_vsm", result, documents, embeddings=np.eye(4))  # orthogonal words: the cosine
    >>> Q, _ = represent_pair("soft_vsm", documents, "test", "train", 0.0)
    >>> S.shape, bool(np.allclose(S, cosine_similarity(Q, Q)))
    ((3, 3), True)
    """
    measure = Measure.of(method)
    if not measure.soft:
        raise ValueError(f"maps are drawn for the soft VSMs; {method!r} is measured by {METHODS[method].measure}")
    Q, _ = represent_pair(method, documents, "test", "train", result.params.get("slope", 0.0))
    if rows is not None:
        Q = Q[rows]
    measure.check(embeddings, matrices)
    inputs = Inputs(embeddings, matrices)
    return measure.similarities(Q, Q, inputs, measure.term_similarity(inputs, result.params, documents.terms))


def scm_dissimilarities(similarities: np.ndarray) -> np.ndarray:
    """√(max(0, 2 − 2·s)) with a zero diagonal and exact symmetry (t-SNE's precomputed input).

    Parameters
    ----------
    similarities : numpy.ndarray
        Square SCM similarities.

    Returns
    -------
    numpy.ndarray
        The dissimilarities, symmetric with a zero diagonal.

    Raises
    ------
    ValueError
        For a matrix that is not square.

    Examples
    --------
    >>> scm_dissimilarities(np.array([[1.0, 0.5], [0.5, 1.0]]))
    array([[0., 1.],
           [1., 0.]])
    """
    s = np.asarray(similarities, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"similarities must be square, got {s.shape}")
    s = (s + s.T) / 2
    distances = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * s))
    np.fill_diagonal(distances, 0.0)
    return distances


def tsne_map(
    dissimilarities: np.ndarray, dimensions: int = 2, *, perplexity: float = 30.0, seed: int = 42
) -> np.ndarray:
    """t-SNE coordinates [n, dimensions] from precomputed dissimilarities (scikit-learn, random init, seeded).

    Parameters
    ----------
    dissimilarities : numpy.ndarray
        Square dissimilarities (:func:`scm_dissimilarities`).
    dimensions : {2, 3}
        The map's dimensions.
    perplexity : float
        t-SNE's perplexity, below the number of documents.
    seed : int
        t-SNE's seed.

    Returns
    -------
    numpy.ndarray
        ``[n, dimensions]`` coordinates.

    Raises
    ------
    ValueError
        For other dimensions, fewer than 3 documents, or a perplexity outside (0, n).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> points = np.vstack([rng.normal(0, 0.1, (5, 4)), rng.normal(3, 0.1, (5, 4))])  # two well separated classes
    >>> coordinates = tsne_map(np.linalg.norm(points[:, None] - points[None], axis=-1), perplexity=3)
    >>> coordinates.shape, map_neighbour_agreement(coordinates, [0] * 5 + [1] * 5, k=4)
    ((10, 2), 1.0)
    """
    from sklearn.manifold import TSNE

    n = dissimilarities.shape[0]
    if dimensions not in (2, 3):
        raise ValueError(f"dimensions must be 2 or 3, got {dimensions}")
    if n < 3:
        raise ValueError(f"t-SNE needs at least 3 documents, got {n}")
    if not 0 < perplexity < n:
        raise ValueError(
            f"perplexity={perplexity} is not allowed; it must lie in (0, {n}), below the number of documents on the map"
        )
    tsne = TSNE(n_components=dimensions, metric="precomputed", init="random", random_state=seed, perplexity=perplexity)
    return tsne.fit_transform(dissimilarities)


_MARKERS = ("o", "s", "^", "D", "v", "P")  # the markers within one colour (matplotlib's names)
_SYMBOLS_3D = {"o": "circle", "s": "square", "^": "diamond-open", "D": "diamond", "v": "square-open", "P": "cross"}


def class_styles(class_names: Sequence[str]) -> list[tuple[str, str]]:
    """A (colour, marker) per class that a reader can tell apart: up to ten classes, ten colours (tab10) and one
    marker; more classes that share a hierarchy (:func:`usenet_hierarchy`, as 20NEWS's ``comp.graphics``), one colour
    per hierarchy and a marker per class within it; otherwise ten colours, each with up to six markers.

    Parameters
    ----------
    class_names : sequence of str
        The classes, in label order.

    Returns
    -------
    list of (str, str)
        A hex colour and a matplotlib marker per class.

    Examples
    --------
    >>> class_styles(["crude", "grain"])
    [('#1f77b4', 'o'), ('#ff7f0e', 'o')]
    >>> names = ["alt.atheism", "comp.graphics", "comp.windows.x", "misc.forsale"] + [
    ...     f"{g}.{i}" for g in ("rec", "sci") for i in range(4)]
    >>> styles = class_styles(names)
    >>> styles[1][0] == styles[2][0] != styles[0][0], styles[1][1] != styles[2][1], len(set(styles)) == len(names)
    (True, True, True)
    """
    import seaborn as sns

    colours = sns.color_palette("tab10", 10).as_hex()
    n = len(class_names)
    if n <= 10:
        return [(colours[i], _MARKERS[0]) for i in range(n)]
    groups = [usenet_hierarchy(name) for name in class_names]
    order = list(dict.fromkeys(groups))
    if len(order) <= 10 and max(groups.count(g) for g in order) <= len(_MARKERS):
        seen: dict[str, int] = {}
        styles = []
        for g in groups:
            styles.append((colours[order.index(g)], _MARKERS[seen.get(g, 0)]))
            seen[g] = seen.get(g, 0) + 1
        return styles
    return [(colours[i % 10], _MARKERS[(i // 10) % len(_MARKERS)]) for i in range(n)]


def map_figure_2d(coordinates: np.ndarray, labels, class_names: Sequence[str], ax, title: str = ""):
    """A static scatter of 2-D coordinates, the true class by colour and marker (:func:`class_styles`).

    Parameters
    ----------
    coordinates : numpy.ndarray
        ``[n, 2]`` coordinates.
    labels : array-like of int
        The true classes.
    class_names : sequence of str
        The classes, in label order.
    ax : matplotlib.axes.Axes
        Where to draw.
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``, one scatter per class.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, ax = plt.subplots()
    >>> ax = map_figure_2d(np.array([[0, 0], [1, 1], [2, 0]]), [0, 1, 1], ["crude", "grain"], ax)
    >>> [len(c.get_offsets()) for c in ax.collections]
    [1, 2]
    >>> plt.close(figure)
    """
    styles = class_styles(class_names)
    labels = np.asarray(labels)
    size = float(np.clip(4000 / max(len(labels), 1), 10, 30))  # small markers for many documents, still legible
    for label, name in enumerate(class_names):
        points = coordinates[labels == label]
        colour, marker = styles[label]
        ax.scatter(points[:, 0], points[:, 1], s=size, color=colour, marker=marker, label=name, alpha=0.8, linewidths=0)
    ax.set(title=title, xticks=[], yticks=[])
    return ax


def map_figure_3d(
    coordinates: np.ndarray,
    labels,
    class_names: Sequence[str],
    texts: Sequence[str],
    title: str = "",
    snippet: int = 120,
):
    """An interactive plotly 3-D scatter coloured by the true class; hovering shows the class and the text's start.

    Parameters
    ----------
    coordinates : numpy.ndarray
        ``[n, 3]`` coordinates.
    labels : array-like of int
        The true classes.
    class_names : sequence of str
        The classes, in label order.
    texts : sequence of str
        The documents' texts.
    title : str
        The figure's title.
    snippet : int
        Characters of each text shown on hover.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per class that has a document.

    Examples
    --------
    >>> figure = map_figure_3d(np.zeros((3, 3)), [0, 1, 1], ["crude", "grain"], ["oil up", "wheat", "corn"])
    >>> [(trace.name, len(trace.x)) for trace in figure.data], figure.data[1].text
    ([('crude', 1), ('grain', 2)], ('wheat', 'corn'))
    """
    import plotly.graph_objects as go

    styles = class_styles(class_names)
    labels = np.asarray(labels)
    figure = go.Figure()
    for label, name in enumerate(class_names):
        mask = labels == label
        if not mask.any():
            continue
        starts = [" ".join(str(t).split())[:snippet] for t, m in zip(texts, mask) if m]
        figure.add_trace(
            go.Scatter3d(
                x=coordinates[mask, 0],
                y=coordinates[mask, 1],
                z=coordinates[mask, 2],
                mode="markers",
                name=name,
                marker={"size": 2.5, "color": styles[label][0], "symbol": _SYMBOLS_3D[styles[label][1]]},
                text=starts,
                hovertemplate=f"<b>{name}</b><br>%{{text}}<extra></extra>",
            )
        )
    figure.update_layout(
        title=title,
        height=560,
        margin={"l": 0, "r": 0, "t": 40, "b": 0},
        legend={"itemsizing": "constant"},
        scene={axis: {"showticklabels": False, "title": ""} for axis in ("xaxis", "yaxis", "zaxis")},
    )
    return figure


# ---------------------------------------------------------------------------------------------------------------------
# What the figures show, in numbers


METHOD_LABELS = ("non-regularized", "regularized")


def _check_pair(before: np.ndarray, after: np.ndarray, class_names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    before, after = np.asarray(before, dtype=np.int64), np.asarray(after, dtype=np.int64)
    n = len(class_names)
    if before.shape != (n, n) or after.shape != (n, n):
        raise ValueError(
            f"confusion matrices must be {n} x {n} (one row per class), got {before.shape} and {after.shape}"
        )
    if not np.array_equal(before.sum(axis=1), after.sum(axis=1)):
        raise ValueError("the two confusion matrices count different test documents (their row sums differ)")
    return before, after


def _share(count, size) -> float:
    return count / size if size else float("nan")


def largest_confusions(
    before, after, class_names: Sequence[str], top: int = 3, labels: tuple[str, str] = METHOD_LABELS
) -> pd.DataFrame:
    """The ``top`` largest off-diagonal cells of ``before`` (true class i predicted as j, i ≠ j; ties: the larger
    cell of ``after`` first, then class order) with the same cells of ``after`` on the same test documents: counts,
    shares of the true class's test documents and the change in count. Cells with no error in ``before`` are left
    out, so the frame may have fewer rows (none when ``before`` has no errors).

    Parameters
    ----------
    before, after : array-like of shape (n_classes, n_classes)
        The non-regularized and the regularized SCM's confusion counts on the same test documents.
    class_names : sequence of str
        The classes, in label order.
    top : int
        The most cells shown.
    labels : (str, str)
        The names of the two methods' columns.

    Returns
    -------
    pandas.DataFrame
        Columns true class, predicted as, class size, both methods' counts and shares, change.

    Raises
    ------
    ValueError
        For matrices of the wrong shape or with different row sums.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> largest_confusions(before, after, names, top=2).values.tolist()
    [['comp.os', 'comp.graphics', 10, 3, 0.3, 1, 0.1, -2], ['comp.graphics', 'comp.os', 10, 2, 0.2, 1, 0.1, -1]]
    """
    before, after = _check_pair(before, after, class_names)
    sizes = before.sum(axis=1)
    cells = [(i, j) for i in range(len(class_names)) for j in range(len(class_names)) if i != j and before[i, j] > 0]
    cells.sort(key=lambda ij: (-before[ij], -after[ij], ij))
    a, b = labels
    rows = [
        {
            "true class": class_names[i],
            "predicted as": class_names[j],
            "class size": int(sizes[i]),
            a: int(before[i, j]),
            f"{a} share": _share(before[i, j], sizes[i]),
            b: int(after[i, j]),
            f"{b} share": _share(after[i, j], sizes[i]),
            "change": int(after[i, j] - before[i, j]),
        }
        for i, j in cells[:top]
    ]
    columns = ["true class", "predicted as", "class size", a, f"{a} share", b, f"{b} share", "change"]
    return pd.DataFrame(rows, columns=columns)


def confusion_between(counts, class_names: Sequence[str], true: str, predicted: str) -> dict:
    """How many test documents of class ``true`` were predicted as ``predicted``: count, class size and share.

    Parameters
    ----------
    counts : array-like
        Confusion counts.
    class_names : sequence of str
        The classes, in label order.
    true, predicted : str
        The two classes.

    Returns
    -------
    dict
        ``count``, ``size`` (of the true class) and ``share``.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> found = confusion_between(before, names, "comp.os", "comp.graphics")
    >>> found["count"], found["size"], float(found["share"])
    (3, 10, 0.3)
    """
    counts = np.asarray(counts)
    i, j = list(class_names).index(true), list(class_names).index(predicted)
    size = int(counts[i].sum())
    return {"count": int(counts[i, j]), "size": size, "share": _share(counts[i, j], size)}


def prediction_shares(counts, class_names: Sequence[str], names: Sequence[str]) -> dict:
    """The share of all test documents that are predicted as one of ``names`` (``predicted``) and that truly
    belong to one of them (``true``); a classifier that answers the common classes regardless of the text has a
    ``predicted`` share well above ``true``.

    Parameters
    ----------
    counts : array-like
        Confusion counts.
    class_names : sequence of str
        The classes, in label order.
    names : sequence of str
        The classes counted.

    Returns
    -------
    dict
        ``predicted``, ``true`` (shares of all test documents) and ``documents``.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> shares = prediction_shares(before, names, ["comp.graphics"])  # 11 of 30 predicted, 10 of 30 true
    >>> round(float(shares["predicted"]), 4), round(float(shares["true"]), 4), shares["documents"]
    (0.3667, 0.3333, 30)
    """
    counts = np.asarray(counts)
    index = [list(class_names).index(name) for name in names]
    total = int(counts.sum())
    return {
        "predicted": _share(counts[:, index].sum(), total),
        "true": _share(counts[index, :].sum(), total),
        "documents": total,
    }


def usenet_hierarchy(newsgroup: str) -> str:
    """The top-level Usenet hierarchy of a newsgroup: ``comp.graphics`` → ``comp`` (``rec.sport.*`` is in ``rec``).

    Parameters
    ----------
    newsgroup : str

    Returns
    -------
    str

    Examples
    --------
    >>> usenet_hierarchy("comp.sys.mac.hardware"), usenet_hierarchy("rec.sport.hockey")
    ('comp', 'rec')
    """
    return newsgroup.split(".", 1)[0]


def errors_within_groups(counts, groups: Sequence[str]) -> dict:
    """Errors (off-diagonal counts) and how many of them predict another class of the true class's group.

    Parameters
    ----------
    counts : array-like
        Confusion counts.
    groups : sequence of str
        The group of each class (e.g. :func:`usenet_hierarchy`).

    Returns
    -------
    dict
        ``errors``, ``within``, ``share`` (within / errors) and ``documents``.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> errors_within_groups(before, [usenet_hierarchy(name) for name in names])  # 5 of 8 errors stay in comp
    {'errors': 8, 'within': 5, 'share': 0.625, 'documents': 30}
    """
    counts = np.asarray(counts)
    groups = np.asarray(groups)
    same = groups[:, None] == groups[None, :]
    off = ~np.eye(len(groups), dtype=bool)
    errors, within = int(counts[off].sum()), int(counts[off & same].sum())
    return {"errors": errors, "within": within, "share": _share(within, errors), "documents": int(counts.sum())}


MAP_MARGIN = 0.05  # neighbour agreements of two t-SNE layouts within this of each other are not told apart


def map_neighbour_agreement(coordinates: np.ndarray, labels, k: int = 10) -> float:
    """The mean, over documents, of the share of their ``k`` nearest neighbours on the map (Euclidean, the document
    itself left out) that have their true class: 1 when the classes form separate islands, about Σ pᵢ² (pᵢ the class
    shares) when the map mixes them at random.

    Parameters
    ----------
    coordinates : numpy.ndarray
        ``[n, d]`` map coordinates.
    labels : array-like
        The true classes.
    k : int
        Neighbours per document (at most n − 1).

    Returns
    -------
    float
        The mean share in [0, 1].

    Raises
    ------
    ValueError
        For as many points as labels differ, or fewer than 2 documents.

    Examples
    --------
    >>> separated = np.array([[0.0, 0], [0, 1], [9, 9], [9, 8]])
    >>> map_neighbour_agreement(separated, [0, 0, 1, 1], k=1), map_neighbour_agreement(separated, [0, 1, 0, 1], k=1)
    (1.0, 0.0)
    """
    from sklearn.neighbors import NearestNeighbors

    coordinates = np.asarray(coordinates, dtype=np.float64)
    labels = np.asarray(labels)
    n = len(labels)
    if coordinates.shape[0] != n:
        raise ValueError(f"{coordinates.shape[0]} points but {n} labels")
    k = min(k, n - 1)
    if k < 1:
        raise ValueError("a map needs at least 2 documents")
    neighbours = NearestNeighbors(n_neighbors=k).fit(coordinates).kneighbors(return_distance=False)
    return float((labels[neighbours] == labels[:, None]).mean())


SCORECARD = "06_scorecard.ipynb"  # chapter 6, which tests the paper's claims on these figures (a link from chapter 5)

# What the paper says it sees in its Figures 2–7 (§6.1), in its own terms; no numbers (those live in paper.py).
PAPER_OBSERVATIONS = {
    "ohsumed": {
        "figure": "Figure 2",
        "says": "with non-regularized embeddings the classifier predicts most documents as class C04, followed by "
        "C10 and C06, the three most common classes, as a nearly random representation would; orthogonalized "
        "embeddings make the true class much easier to predict (medical terms are specific, so only highly "
        "similar words should count as similar)",
        "classes": ("C04", "C10", "C06"),
    },
    "bbcsport": {
        "figure": "Figure 3",
        "says": "the figure shows both methods' confusion matrices and maps; the text names no class that either "
        "method confuses",
    },
    "reuters": {
        "figure": "Figure 4",
        "says": "with non-regularized embeddings most documents of the class grain are misclassified as the more "
        "common class crude; with regularized embeddings the two classes are separated (both are "
        "commodities, so their documents share many similar words)",
        "pair": ("grain", "crude"),
    },
    "amazon": {
        "figure": "Figure 5",
        "says": "the figure shows both methods' confusion matrices and maps; the text names no class that either "
        "method confuses",
    },
    "20news": {
        "figure": "Figures 6 and 7",
        "says": "with non-regularized embeddings messages are often misclassified as another newsgroup of the same "
        "Usenet hierarchy, and the hierarchies comp.\\*, rec.\\* and rec.sport.\\* form visible clusters in "
        "the map and the confusion matrix; with regularized embeddings the clusters are separated",
    },
    "twitter": {
        "figure": None,
        "says": "there is no TWITTER figure among the paper's Figures 2–7 (a TWITTER figure in its LaTeX source is "
        "commented out of the published text), but §6.1 argues that on TWITTER word embeddings do not help separate "
        "positive and negative tweets, since words of opposite sentiment get similar embeddings; "
        f"[chapter 6]({SCORECARD}) tests that claim against always answering the largest class",
    },
}

_NBSP = "\u00a0"


def _pct(value: float, digits: int = 1) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{100 * value:.{digits}f}{_NBSP}%"


def _count_change(before: int, after: int) -> str:
    """ "falls from a to b / rises from a to b / stays at a": a change in a count, stated without a reading."""
    if after < before:
        return f"falls from {before:,} to {after:,}"
    if after > before:
        return f"rises from {before:,} to {after:,}"
    return f"stays at {before:,}"


def _half(share: float) -> str:
    return "more than half" if share > 0.5 else "half" if share == 0.5 else "fewer than half"


def observations_markdown(
    name: str,
    before,
    after,
    class_names: Sequence[str],
    *,
    errors: tuple[float, float],
    ks: tuple[int, int],
    agreement: tuple[float, float] | None = None,
    map_documents: int | None = None,
) -> str:
    """Markdown paragraphs for one data set: the paper's observation on its figure, in words, and what our
    confusion matrices and maps show, in numbers: the named confusion or classes where the paper names them (with a
    link to chapter 6, which tests the paper's claims), our largest confusion of the non-regularized SCM and the
    regularized SCM's count in the same cell, and the maps' neighbour agreement. Changes are stated as counts, never
    as a verdict: nothing here tests them. ``errors`` are the two test errors (fractions), ``ks`` the selected k,
    ``agreement`` the two values of :func:`map_neighbour_agreement` on ``map_documents`` documents.

    Parameters
    ----------
    name : str
        The data set.
    before, after : array-like of shape (n_classes, n_classes)
        The non-regularized and the regularized SCM's confusion counts on the same test documents.
    class_names : sequence of str
        The classes, in label order.
    errors : (float, float)
        Both methods' test errors (fractions).
    ks : (int, int)
        Both methods' selected k.
    agreement : (float, float), optional
        Both maps' :func:`map_neighbour_agreement`.
    map_documents : int, optional
        The documents on the maps.

    Returns
    -------
    str
        Markdown paragraphs: the paper's observation; ours on what the paper names, where it names a confusion or
        classes; our largest confusion and the maps (one paragraph with our test errors where the paper names
        nothing).

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> text = observations_markdown("reuters", before, after, names, errors=(0.27, 0.13), ks=(1, 3))
    >>> print(text.split("\\n\\n")[1].replace("\\xa0", " "))
    **Here:** the test error is 27.00 % (k = 1) non-regularized and 13.00 % (k = 3) regularized (our REUTERS documents are not the paper's; chapter 1). The non-regularized SCM's largest confusion is comp.os predicted as comp.graphics: 3 of 10 documents (30.0 %); the regularized SCM predicts 1 of them (10.0 %) that way. These are counts, not a test, and the cell was picked as the non-regularized SCM's largest, which by itself favours a lower count for the other method.
    """
    before, after = _check_pair(before, after, class_names)
    paper = PAPER_OBSERVATIONS.get(name, {"figure": None, "says": "the paper shows no figure for this data set"})
    label = name.upper()
    if paper["figure"]:
        said = f"**The paper ({paper['figure']}):** {paper['says']}."
    else:
        said = f"**The paper:** {paper['says'][0].upper()}{paper['says'][1:]}."
    ours = [
        f"**Here:** the test error is {_pct(errors[0], 2)} (k = {ks[0]}) non-regularized and "
        f"{_pct(errors[1], 2)} (k = {ks[1]}) regularized"
        + (f" (our {label} documents are not the paper's; chapter 1)." if name in DIFFERENT_DATA else ".")
    ]
    if "pair" in paper:
        true, predicted = paper["pair"]
        if true in class_names and predicted in class_names:
            b = confusion_between(before, class_names, true, predicted)
            a = confusion_between(after, class_names, true, predicted)
            if b["size"] == 0:
                ours.append(
                    f"This run's test documents hold no {true} document, so the paper's confusion cannot be checked."
                )
            else:
                ours.append(
                    f"The non-regularized SCM predicts {b['count']:,} of the {b['size']:,} {true} test "
                    f"documents ({_pct(b['share'])}) as {predicted}, {_half(b['share'])} (the paper: most of them); "
                    f"with the regularized SCM the count {_count_change(b['count'], a['count'])} "
                    f"({_pct(a['share'])}). [Chapter 6]({SCORECARD}) tests whether the first share lies above half "
                    "and whether the change exceeds chance."
                )
    if "classes" in paper:
        named = [c for c in paper["classes"] if c in class_names]
        if named:
            sizes = before.sum(axis=1)
            common = [class_names[i] for i in np.argsort(-sizes, kind="stable")[: len(named)]]
            same = set(common) == set(named)
            b, a = prediction_shares(before, class_names, named), prediction_shares(after, class_names, named)
            listed = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
            ours.append(
                f"Our {len(named)} most common test classes are {', '.join(common)}"
                f"{' (the same as the paper’s)' if same else ''}. {listed} hold {_pct(b['true'])} of the test "
                f"documents; the non-regularized SCM assigns {_pct(b['predicted'])} of the documents to them and the "
                f"regularized SCM {_pct(a['predicted'])}. [Chapter 6]({SCORECARD}) judges the paper's claims on this "
                "figure: which classes the non-regularized SCM predicts most, and whether the regularized SCM errs "
                "less."
            )
    if name == "20news":
        groups = [usenet_hierarchy(c) for c in class_names]
        b, a = errors_within_groups(before, groups), errors_within_groups(after, groups)
        ours.append(
            f"Of the non-regularized SCM's {b['errors']:,} errors, {b['within']:,} ({_pct(b['share'])}) "
            f"predict another newsgroup of the true one's hierarchy (its top-level name: comp, rec with rec.sport, sci, "
            f"talk; alt, misc and soc hold one newsgroup each); of the regularized SCM's "
            f"{a['errors']:,} errors, {a['within']:,} ({_pct(a['share'])}). [Chapter 6]({SCORECARD}) tests whether "
            "the change in that count exceeds chance. The maps' neighbour agreement below counts newsgroups, not "
            "hierarchies, so the paper's clusters of hierarchies on the map are not measured here."
        )
    rest = []
    table = largest_confusions(before, after, class_names, top=1)
    if table.empty:
        rest.append("The non-regularized SCM confuses no two classes on these test documents.")
    else:
        row = table.iloc[0]
        rest.append(
            f"The non-regularized SCM's largest confusion is {row['true class']} predicted as "
            f"{row['predicted as']}: {row[METHOD_LABELS[0]]:,} of {row['class size']:,} documents "
            f"({_pct(row[METHOD_LABELS[0] + ' share'])}); the regularized SCM predicts {row[METHOD_LABELS[1]]:,} "
            f"of them ({_pct(row[METHOD_LABELS[1] + ' share'])}) that way. These are counts, not a test, and the "
            "cell was picked as the non-regularized SCM's largest, which by itself favours a lower count for the "
            "other method."
        )
    if agreement is not None:
        on = f" ({map_documents:,} documents)" if map_documents else ""
        rest.append(
            f"On the 2-D maps{on}, a document's 10 nearest neighbours share its class "
            f"{_pct(agreement[0])} of the time non-regularized and {_pct(agreement[1])} regularized: the "
            f"regularized map {'agrees more' if agreement[1] > agreement[0] else 'does not agree more'} (one t-SNE "
            f"layout each"
            + (", so a difference this small says little)." if abs(agreement[1] - agreement[0]) <= MAP_MARGIN else ").")
        )
    if len(ours) == 1:  # no confusion that the paper names: the test errors and our own numbers make one paragraph
        return "\n\n".join([said, " ".join(ours + rest)])
    return "\n\n".join([said, " ".join(ours), " ".join(rest)])


# ---------------------------------------------------------------------------------------------------------------------
# The chapter's figures


def _heatmap(counts: np.ndarray, class_names: Sequence[str], ax, *, numbered: bool, rotate: bool, title: str):
    import seaborn as sns

    shares = pd.DataFrame(row_normalized(counts), index=list(class_names), columns=list(class_names))
    shown = np.where(np.asarray(counts) > 0, np.asarray(counts).astype(str), "")  # a 0 stays blank
    sns.heatmap(
        shares,
        ax=ax,
        cmap="Blues",
        vmin=0,
        vmax=1,
        cbar=False,
        annot=shown,
        fmt="",
        annot_kws={"fontsize": MIN_FONT_PT},
        linewidths=0.5,
        linecolor="white",
    )
    ax.set_title(title, fontsize=MIN_FONT_PT + 1)
    ax.set_xlabel("predicted class", fontsize=MIN_FONT_PT + 1)
    ax.set_ylabel("true class", fontsize=MIN_FONT_PT + 1)
    positions = np.arange(len(class_names)) + 0.5
    names = [str(i + 1) for i in range(len(class_names))] if numbered else list(class_names)
    ax.set_yticks(positions, names, rotation=0)
    if rotate:
        ax.set_xticks(positions, names, rotation=45, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticks(positions, names, rotation=0)
    ax.tick_params(labelsize=MIN_FONT_PT)
    return ax


_CHARACTER_IN = 0.08  # the width of one character of a MIN_FONT_PT label, in inches (generous)
_KEY_COLUMNS = 3


def confusion_figure(before, after, class_names: Sequence[str], titles: tuple[str, str]):
    """Both methods' confusion matrices, one above the other: colour is the share of the true class (each row sums
    to 1), the numbers in the cells are counts (a 0 is left blank). Every cell is wide enough for its count, every
    text at least :data:`MIN_FONT_PT` points at the figure's natural size (:data:`FIGURE_WIDTH_IN` wide), and the
    colour bar sits below both matrices. With more than 10 classes (20NEWS) the rows and columns are numbered and a
    key below the figure names the classes, so that the cells get the width.

    Parameters
    ----------
    before, after : array-like of shape (n_classes, n_classes)
        The non-regularized and the regularized SCM's confusion counts on the same test documents.
    class_names : sequence of str
        The classes, in label order.
    titles : (str, str)
        The two matrices' titles.

    Returns
    -------
    matplotlib.figure.Figure
        Two heat maps and a colour bar (and, with more than 10 classes, a key).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> figure = confusion_figure(before, after, names, ("non-regularized", "regularized"))
    >>> [ax.get_title() for ax in figure.axes[:2]], [t.get_text() for t in figure.axes[0].texts][:3]
    (['non-regularized', 'regularized'], ['8', '2', ''])
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    before, after = _check_pair(before, after, class_names)
    n = len(class_names)
    numbered = n > 10
    longest = len(str(n)) if numbered else max((len(c) for c in class_names), default=1)
    names_in = _CHARACTER_IN * longest + 0.45  # the row labels and the axis label
    cell = min((FIGURE_WIDTH_IN - names_in - 0.15) / n, 0.9)
    rotate = _CHARACTER_IN * longest > 0.9 * cell
    below_in = (0.75 * _CHARACTER_IN * longest if rotate else 0.2) + 0.35  # column labels and axis label
    panel = n * min(cell, 0.45) + below_in + 0.3  # cells no taller than they need, the title
    key_rows = -(-n // _KEY_COLUMNS) if numbered else 0
    key_in = 0.2 * key_rows + 0.1 if numbered else 0.0
    fig, axes = plt.subplots(
        3 if numbered else 2,
        1,
        figsize=(FIGURE_WIDTH_IN, 2 * panel + 0.75 + key_in),
        dpi=FIGURE_DPI,
        layout="constrained",
        height_ratios=[panel, panel, key_in] if numbered else None,
    )
    matrices = axes[:2]
    for ax, counts, title in zip(matrices, (before, after), titles):
        _heatmap(counts, class_names, ax, numbered=numbered, rotate=rotate, title=title)
    bar = fig.colorbar(
        ScalarMappable(Normalize(0, 1), "Blues"), ax=list(matrices), location="bottom", shrink=0.5, aspect=30
    )
    bar.set_label("share of the true class", fontsize=MIN_FONT_PT)
    bar.ax.tick_params(labelsize=MIN_FONT_PT)
    if numbered:  # the key: number -> class name, in columns
        key = axes[2]
        key.set_axis_off()
        for i, name in enumerate(class_names):
            column, row = divmod(i, key_rows)
            key.text(
                column / _KEY_COLUMNS,
                1 - (row + 0.5) / key_rows,
                f"{i + 1}  {name}",
                fontsize=MIN_FONT_PT,
                va="center",
                ha="left",
                transform=key.transAxes,
            )
    return fig


def maps_figure_2d(
    coordinates: tuple[np.ndarray, np.ndarray], labels, class_names: Sequence[str], titles: tuple[str, str]
):
    """Both methods' 2-D maps side by side, coloured by the true class, one legend below them.

    Parameters
    ----------
    coordinates : (numpy.ndarray, numpy.ndarray)
        Both methods' ``[n, 2]`` coordinates.
    labels : array-like of int
        The true classes.
    class_names : sequence of str
        The classes, in label order.
    titles : (str, str)
        The two maps' titles.

    Returns
    -------
    matplotlib.figure.Figure
        Two scatters and one legend.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> points = np.array([[0, 0], [1, 1], [2, 0]])
    >>> figure = maps_figure_2d((points, points), [0, 1, 1], ["crude", "grain"], ("non-regularized", "regularized"))
    >>> len(figure.axes), [t.get_text() for t in figure.legends[0].get_texts()]
    (2, ['crude', 'grain'])
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    n = len(class_names)
    longest = max((len(c) for c in class_names), default=1)
    columns = max(1, min(n, int(60 // (longest + 4))))
    legend_rows = -(-n // columns)
    fig, axes = plt.subplots(
        1, 2, figsize=(FIGURE_WIDTH_IN, 3.6 + 0.2 * legend_rows), dpi=FIGURE_DPI, layout="constrained"
    )
    for ax, points, title in zip(axes, coordinates, titles):
        map_figure_2d(points, labels, class_names, ax, title=title)
        ax.title.set_fontsize(10)
    handles = [
        Line2D([], [], marker=marker, linestyle="", color=colour, label=name)
        for (colour, marker), name in zip(class_styles(class_names), class_names)
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=columns,
        fontsize=MIN_FONT_PT,
        frameon=False,
        handletextpad=0.2,
        columnspacing=1.0,
    )
    return fig


def map_viewer_3d(views: Sequence[dict], snippet: int = 60, height: int = 600):
    """One interactive 3-D t-SNE viewer for many maps: a single plotly scene (one WebGL context) whose dropdown shows
    one map at a time. Each view is a dict with ``title``, ``coordinates`` [n, 3], ``labels``, ``class_names`` and
    ``texts``; the first view is shown when the page opens, the others' traces are hidden until chosen.

    Parameters
    ----------
    views : sequence of dict
        The maps (see above).
    snippet : int
        Characters of each text shown on hover (the texts are most of the page's data: 60 characters keep chapter
        5's page within the book's size budget).
    height : int
        The figure's height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        All maps' traces, the first map's visible, and a dropdown.

    Raises
    ------
    ValueError
        Without a view.

    Examples
    --------
    >>> view = {"coordinates": np.zeros((3, 3)), "labels": [0, 1, 1], "class_names": ["x", "y"], "texts": ["a", "b", "c"]}
    >>> figure = map_viewer_3d([dict(view, title="A"), dict(view, title="B")])
    >>> [trace.visible for trace in figure.data], [button.label for button in figure.layout.updatemenus[0].buttons]
    ([True, True, False, False], ['A', 'B'])
    """
    import plotly.graph_objects as go

    if not views:
        raise ValueError("the viewer needs at least one map")
    figure = go.Figure()
    owner = []
    for number, view in enumerate(views):
        part = map_figure_3d(
            np.asarray(view["coordinates"], dtype=np.float32),
            view["labels"],
            view["class_names"],
            view["texts"],
            snippet=snippet,
        )
        for trace in part.data:
            trace.visible = number == 0
            trace.legendgroup = f"view{number}"
            figure.add_trace(trace)
            owner.append(number)
    owner = np.asarray(owner)
    buttons = [
        {
            "label": view["title"],
            "method": "update",
            "args": [{"visible": (owner == number).tolist()}, {"title.text": view["title"]}],
        }
        for number, view in enumerate(views)
    ]
    figure.update_layout(
        title={"text": views[0]["title"], "x": 0.5, "xanchor": "center", "y": 0.97, "font": {"size": 15}},
        height=height,
        margin={"l": 0, "r": 0, "t": 90, "b": 0},
        legend={"itemsizing": "constant", "font": {"size": 13}},
        font={"size": 13},
        scene={axis: {"showticklabels": False, "title": ""} for axis in ("xaxis", "yaxis", "zaxis")},
        updatemenus=[
            {
                "buttons": buttons,
                "direction": "down",
                "showactive": True,
                "active": 0,
                "x": 0,
                "xanchor": "left",
                "y": 1.0,
                "yanchor": "bottom",
                "pad": {"t": 4, "b": 4},
                "font": {"size": 13},
            }
        ],
    )
    return figure


def summary_row(name: str, before, after, class_names: Sequence[str], agreement: tuple[float, float]) -> dict:
    """One data set's line of the chapter's closing table: the non-regularized SCM's largest confusion and both
    methods' counts of it, and both maps' neighbour agreement.

    Parameters
    ----------
    name : str
        The data set.
    before, after : array-like of shape (n_classes, n_classes)
        The non-regularized and the regularized SCM's confusion counts on the same test documents.
    class_names : sequence of str
        The classes, in label order.
    agreement : (float, float)
        Both maps' :func:`map_neighbour_agreement`.

    Returns
    -------
    dict
        The closing table's columns.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> summary_row("20news", before, after, names, (0.6, 0.7))
    {'data set': '20NEWS', 'largest confusion': 'comp.os → comp.graphics', 'non-regularized': 3, 'regularized': 1, 'map agreement, non-regularized': 0.6, 'map agreement, regularized': 0.7}
    """
    table = largest_confusions(before, after, class_names, top=1)
    row = {"data set": name.upper(), "largest confusion": None, "non-regularized": None, "regularized": None}
    if not table.empty:
        first = table.iloc[0]
        row.update(
            {
                "largest confusion": f"{first['true class']} → {first['predicted as']}",
                "non-regularized": int(first[METHOD_LABELS[0]]),
                "regularized": int(first[METHOD_LABELS[1]]),
            }
        )
    row.update({"map agreement, non-regularized": agreement[0], "map agreement, regularized": agreement[1]})
    return row


def summary_markdown(rows: Sequence[dict]) -> str:
    """A sentence over the data sets of a run: on how many the regularized SCM puts fewer test documents than the
    non-regularized SCM into the non-regularized SCM's largest confusion (counts, not a test) and on how many its
    map's neighbour agreement is higher by more than :data:`MAP_MARGIN`.

    Parameters
    ----------
    rows : sequence of dict
        :func:`summary_row` of each data set.

    Returns
    -------
    str
        One sentence.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])  # regularized, the same test documents
    >>> names = ["comp.graphics", "comp.os", "rec.autos"]
    >>> print(summary_markdown([summary_row("20news", before, after, names, (0.6, 0.5))]))
    In this run (1 data set), the regularized SCM's count in the non-regularized SCM's largest confusion is lower on 1 of the 1 data sets where there is one (20NEWS), and its 2-D map's neighbour agreement is higher by more than 5 points (a smaller difference between two single t-SNE layouts says little) on 0 of 1 (none).
    """
    with_errors = [r for r in rows if r["largest confusion"] is not None]
    lower = [r["data set"] for r in with_errors if r["regularized"] < r["non-regularized"]]
    separated = [
        r["data set"]
        for r in rows
        if r["map agreement, regularized"] > r["map agreement, non-regularized"] + MAP_MARGIN
    ]

    def listed(names):
        return ", ".join(names) if names else "none"

    return (
        f"In this run ({len(rows)} data set{'s' if len(rows) != 1 else ''}), the regularized SCM's count in the "
        f"non-regularized SCM's largest confusion is lower on {len(lower)} of the {len(with_errors)} data sets where "
        f"there is one ({listed(lower)}), and its 2-D map's neighbour agreement is higher by more than "
        f"{100 * MAP_MARGIN:.0f} points (a smaller difference between two single t-SNE layouts says little) on "
        f"{len(separated)} of {len(rows)} ({listed(separated)})."
    )


# ----------------------------------------------------------------------------------------------------------------
# chapter 5's pages


def confusions_table(confusions: pd.DataFrame, **options):
    """:func:`largest_confusions` as a book table narrow enough for a desktop's text column: each method's count and
    share of the true class in one column ("153 (23.7 %)"), the change with a true minus sign; class names whole. The
    CSV download (``download=...``) holds ``confusions`` as computed, its columns separate.

    Parameters
    ----------
    confusions : pandas.DataFrame
        :func:`largest_confusions`.
    **options
        Passed to :func:`regemb_utils.book.tables.table`.

    Returns
    -------
    regemb_utils.book.tables.Table
        The table.

    Examples
    --------
    >>> before = np.array([[8, 2, 0], [3, 5, 2], [0, 1, 9]])  # counts[true, predicted], non-regularized
    >>> after = np.array([[9, 1, 0], [1, 8, 1], [0, 1, 9]])
    >>> shown = confusions_table(largest_confusions(before, after, ["a", "b", "c"], top=1), download="x")
    >>> ">3 (30.0\u00a0%)<" in shown.html, ">1 (10.0\u00a0%)<" in shown.html, ">−2<" in shown.html
    (True, True, True)
    >>> shown.csv.splitlines()[0]
    'true class,predicted as,class size,non-regularized,non-regularized share,regularized,regularized share,change'
    """
    methods = [c for c in confusions.columns if f"{c} share" in confusions.columns]
    short = {"non-regularized": "non-reg.", "regularized": "reg."}  # narrow headers: the table fits the text column
    shown = confusions[["true class", "predicted as", "class size"]].copy()
    for method in methods:
        shown[f"{short.get(method, method)} (% of class)"] = [
            f"{count:,} ({_pct(share, 1)})" if np.isfinite(share) else f"{count:,}"
            for count, share in zip(confusions[method], confusions[f"{method} share"])
        ]
    shown["change"] = confusions["change"]  # a number, aligned right, with a true minus sign
    signed = {"change": lambda change: f"{int(change):+,d}".replace("-", "\u2212")}
    return table(shown, signed, csv_frame=confusions, **options)


def tsne_coordinates(methods: Sequence[str], results, documents, inputs, rows, *, perplexity: float) -> dict:
    """Each method's 2-D and 3-D t-SNE coordinates of the test documents ``rows`` of one data set.

    Parameters
    ----------
    methods : sequence of str
        Soft-VSM methods of chapter 4.
    results : dict
        ``{method: MethodResult}`` of chapter 4 on the data set.
    documents : Documents
        The data set's documents.
    inputs : dict
        ``{method: (embedding rows of the data set or None, S' source or None)}``.
    rows : numpy.ndarray
        The test documents on the maps (:func:`map_sample`).
    perplexity : float
        t-SNE's perplexity.

    Returns
    -------
    dict
        ``{method: {2: [n, 2] coordinates, 3: [n, 3] coordinates}}``.

    Examples
    --------
    >>> tsne_coordinates([], {}, None, {}, np.arange(3), perplexity=2.0)
    {}
    """
    out = {}
    for method in methods:
        embeddings, matrices = inputs[method]
        similarities = similarities_of_test_documents(
            method, results[method], documents, rows=rows, matrices=matrices, embeddings=embeddings
        )
        distances = scm_dissimilarities(similarities)
        out[method] = {dims: tsne_map(distances, dims, perplexity=perplexity) for dims in (2, 3)}
    return out


def methods_left_out(shown: Mapping[str, str], methods: Sequence[str], record: str) -> str | None:
    """Why chapter 5 leaves out its figures, or None: chapter 4 (``record``) did not run every method of ``shown``.

    Parameters
    ----------
    shown : mapping of str to str
        The methods chapter 5 compares (``{method: kind}``).
    methods : sequence of str
        The methods chapter 4 ran.
    record : str
        Chapter 4's record id.

    Returns
    -------
    str or None
        A sentence naming the missing methods and what to do, or None when chapter 4 ran them all.

    Examples
    --------
    >>> methods_left_out({"soft_vsm": "non-regularized"}, ["bow"], "20261125T000000-abcdef")[:60]
    'Chapter 4 (record 20261125T000000-abcdef) did not run Soft V'
    >>> methods_left_out({"soft_vsm": "non-regularized"}, ["bow", "soft_vsm"], "20261125T000000-abcdef") is None
    True
    """
    missing = [METHODS[m].label for m in shown if m not in methods]
    if not missing:
        return None
    return (
        f"Chapter 4 (record {record}) did not run {' and '.join(missing)}, so this run leaves out the confusion "
        "matrices and maps, which compare the two soft VSMs: rerun chapter 4 with both methods to see them."
    )


def absent_summary(reason: str) -> dict:
    """What chapter 5 shows in place of its 3-D viewer and summary when it leaves its figures out (``reason``).

    Parameters
    ----------
    reason : str
        Why (:func:`methods_left_out`).

    Returns
    -------
    dict
        ``map_viewer`` (a placeholder figure), ``summary_sentence`` and ``summary_table``, for glueing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> sorted(absent_summary("Chapter 4 did not run Soft VSM."))
    ['map_viewer', 'summary_sentence', 'summary_table']
    >>> plt.close("all")
    """
    from IPython.display import HTML, Markdown

    return {
        "map_viewer": absent_figure("", reason.split(",")[0]),
        "summary_sentence": Markdown(f"*{reason}*"),
        "summary_table": HTML("<p></p>"),
    }


def absent_page(name: str, datasets: Sequence[str], reason: str | None = None) -> dict:
    """What chapter 5 shows for a data set that its run leaves out: a note and placeholder figures.

    Parameters
    ----------
    name : str
        The data set left out.
    datasets : sequence of str
        The run's data sets.
    reason : str, optional
        Why a data set of the run is left out (:func:`methods_left_out`); by default: it is not among them.

    Returns
    -------
    dict
        ``observations``, ``caption``, ``confusions``, ``confusion`` and ``map``, for glueing as ``{name}_{key}``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> page = absent_page("twitter", ["bbcsport"])
    >>> page["caption"].data
    "TWITTER is not among this run's data sets (BBCSPORT)."
    >>> plt.close("all")
    """
    from IPython.display import HTML, Markdown

    if reason is not None and name in datasets:
        absent, short = reason, reason.split(",")[0]
    else:
        absent, short = (
            f"{name.upper()} is not among this run's data sets ({', '.join(n.upper() for n in datasets)}).",
            None,
        )
    return {
        "observations": Markdown(f"*{absent}*"),
        "caption": Markdown(absent),
        "confusions": HTML("<p></p>"),
        "confusion": absent_figure(name, short),
        "map": absent_figure(name, short),
    }


def dataset_page(name: str, methods: Mapping[str, str], results, documents, coordinates, rows, texts):
    """What chapter 5 shows for one data set, both methods side by side.

    Parameters
    ----------
    name : str
        The data set.
    methods : mapping of str to str
        ``{method: "non-regularized" | "regularized"}``, in that order.
    results : dict
        ``{method: MethodResult}`` of chapter 4 on the data set.
    documents : Documents
        The data set's documents.
    coordinates : dict
        :func:`tsne_coordinates` of ``rows``.
    rows : numpy.ndarray
        The test documents on the maps.
    texts : sequence of str
        Their texts.

    Returns
    -------
    (dict, list of dict, dict)
        The page (``observations``, ``caption``, ``confusions``, ``confusion``, ``map``: glued as ``{name}_{key}``),
        the data set's views for :func:`map_viewer_3d`, and its :func:`summary_row`.

    Examples
    --------
    Chapter 5 glues each entry of the page where its prose names it::

        page, views, row = dataset_page("bbcsport", {"soft_vsm": "non-regularized",
                                                     "soft_vsm_quantized_ortho": "regularized"}, ...)
        for key, value in page.items():
            glue(f"bbcsport_{key}", value, display=False)
    """
    from IPython.display import Markdown

    d = documents
    runs = [results[method] for method in methods]
    kinds = tuple(methods.values())
    before, after = (confusion_counts(r.truth, r.predictions[r.k], d.n_labels) for r in runs)
    errors, ks = tuple(r.test_error for r in runs), tuple(r.k for r in runs)
    titles = tuple(f"{kind}: {100 * e:.2f} % error (k = {k})" for kind, e, k in zip(kinds, errors, ks))
    labels = d.labels["test"][rows]
    agreement = tuple(map_neighbour_agreement(coordinates[method][2], labels) for method in methods)
    page = {
        "observations": Markdown(
            observations_markdown(
                name, before, after, d.class_names, errors=errors, ks=ks, agreement=agreement, map_documents=len(rows)
            )
        ),
        "caption": Markdown(
            f"{int(before.sum()):,} test documents, {len(rows):,} of them on the maps; test error "
            f"{100 * errors[0]:.2f} % (k = {ks[0]}) non-regularized, {100 * errors[1]:.2f} % (k = {ks[1]}) "
            "regularized."
        ),
        "confusions": confusions_table(
            largest_confusions(before, after, d.class_names, top=5),
            collapsed=f"The largest confusions of the non-regularized SCM on {name.upper()}",
            download=f"{name}_largest_confusions",
        ),
        "confusion": confusion_figure(before, after, d.class_names, titles),
        "map": maps_figure_2d(tuple(coordinates[method][2] for method in methods), labels, d.class_names, titles),
    }
    views = [
        {
            "title": f"{name.upper()}, {kind} ({100 * e:.2f} % error)",
            "coordinates": coordinates[method][3],
            "labels": labels,
            "class_names": d.class_names,
            "texts": texts,
        }
        for (method, kind), e in zip(methods.items(), errors)
    ]
    return page, views, summary_row(name, before, after, d.class_names, agreement)


def summary_table(summary: Sequence[dict]):
    """Chapter 5's summary over the data sets (:func:`summary_row` of each) as a book table.

    Parameters
    ----------
    summary : sequence of dict
        One :func:`summary_row` per data set.

    Returns
    -------
    regemb_utils.book.tables.Table
        The table.

    Examples
    --------
    >>> counts = np.array([[5, 2], [0, 3]])
    >>> row = summary_row("bbcsport", counts, np.array([[6, 1], [0, 3]]), ["athletics", "cricket"], (0.8, 0.9))
    >>> "athletics → cricket" in summary_table([row]).html
    True
    """
    return table(
        pd.DataFrame(summary).rename(
            columns={
                "largest confusion": "largest confusion (true → predicted)",
                "non-regularized": "non-reg. errors",
                "regularized": "reg. errors",
                "map agreement, non-regularized": "non-reg. map agreement",
                "map agreement, regularized": "reg. map agreement",
            }
        ),
        {"non-reg. map agreement": "percent", "reg. map agreement": "percent"},
    )
