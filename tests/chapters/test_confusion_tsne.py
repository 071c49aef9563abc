import matplotlib
import matplotlib.text

matplotlib.use("Agg")

import numpy as np
import pytest
from scipy import sparse

from regemb_utils.chapters.confusion_tsne import (
    confusion_counts,
    map_figure_3d,
    map_sample,
    plot_confusion,
    row_normalized,
    scm_dissimilarities,
    tsne_map,
)
from regemb_utils.measures.similarity import sparse_scm


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


# ---------------------------------------------------------------------------------------------------------------------
# What the figures show, in numbers

from regemb_utils.chapters.confusion_tsne import (  # noqa: E402
    MIN_FONT_PT,
    absent_figure,
    confusion_between,
    confusion_figure,
    errors_within_groups,
    largest_confusions,
    map_neighbour_agreement,
    map_viewer_3d,
    maps_figure_2d,
    observations_markdown,
    prediction_shares,
    usenet_hierarchy,
)

NAMES = ["acq", "crude", "earn", "grain"]
# rows: true class; grain (10 documents) mostly predicted as crude before, mostly right after
BEFORE = np.array([[50, 2, 3, 0], [1, 20, 0, 1], [4, 0, 60, 0], [0, 6, 1, 3]])
AFTER = np.array([[52, 1, 2, 0], [0, 22, 0, 0], [2, 0, 62, 0], [0, 1, 0, 9]])


def test_largest_confusions_rank_the_non_regularized_errors_and_pair_them_with_the_regularized():
    table = largest_confusions(BEFORE, AFTER, NAMES, top=3)
    assert list(zip(table["true class"], table["predicted as"])) == [
        ("grain", "crude"),
        ("earn", "acq"),
        ("acq", "earn"),
    ]
    first = table.iloc[0]
    assert (first["class size"], first["non-regularized"], first["regularized"], first["change"]) == (10, 6, 1, -5)
    assert first["non-regularized share"] == pytest.approx(0.6) and first["regularized share"] == pytest.approx(0.1)
    # every off-diagonal error of BEFORE when top is large; none when BEFORE is diagonal
    assert len(largest_confusions(BEFORE, AFTER, NAMES, top=100)) == np.count_nonzero(BEFORE - np.diag(np.diag(BEFORE)))
    assert largest_confusions(np.diag(BEFORE.sum(1)), AFTER, NAMES).empty
    with pytest.raises(ValueError, match="different test documents"):
        largest_confusions(BEFORE, AFTER + np.eye(4, dtype=int), NAMES)
    with pytest.raises(ValueError, match="4 x 4"):
        largest_confusions(BEFORE[:3, :3], AFTER[:3, :3], NAMES)


def test_ties_are_broken_by_the_regularized_count_then_class_order():
    before = np.array([[5, 1, 1], [1, 5, 0], [0, 0, 5]])
    after = np.array([[5, 0, 2], [0, 6, 0], [0, 0, 5]])
    table = largest_confusions(before, after, ["a", "b", "c"], top=3)
    assert list(zip(table["true class"], table["predicted as"])) == [("a", "c"), ("a", "b"), ("b", "a")]


def test_named_confusion_prediction_shares_and_hierarchy_errors():
    assert confusion_between(BEFORE, NAMES, "grain", "crude") == {"count": 6, "size": 10, "share": 0.6}
    shares = prediction_shares(np.array([[8, 2], [9, 1]]), ["common", "rare"], ["common"])
    assert shares == {"predicted": 17 / 20, "true": 10 / 20, "documents": 20}
    names = ["comp.graphics", "comp.windows.x", "rec.autos", "rec.sport.hockey", "sci.med"]
    assert [usenet_hierarchy(n) for n in names] == ["comp", "comp", "rec", "rec", "sci"]
    counts = np.diag([10] * 5)
    counts[0, 1], counts[0, 4], counts[2, 3], counts[4, 2] = 3, 1, 2, 4
    result = errors_within_groups(counts, [usenet_hierarchy(n) for n in names])
    assert result == {"errors": 10, "within": 5, "share": 0.5, "documents": 60}


def test_map_neighbour_agreement_is_one_for_islands_and_low_for_a_random_mix():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 30)
    islands = np.eye(3)[labels] * 100 + rng.normal(size=(90, 3))
    assert map_neighbour_agreement(islands[:, :2], labels) == 1.0
    mixed = rng.normal(size=(90, 2))
    assert map_neighbour_agreement(mixed, labels) < 0.5
    assert map_neighbour_agreement(np.zeros((2, 2)) + [[0, 0], [1, 1]], [0, 1], k=10) == 0.0  # k capped at n - 1
    with pytest.raises(ValueError, match="labels"):
        map_neighbour_agreement(mixed, labels[:10])


def test_observations_state_the_papers_confusion_as_counts_and_point_to_chapter_6():
    text = observations_markdown(
        "reuters", BEFORE, AFTER, NAMES, errors=(0.1, 0.05), ks=(9, 19), agreement=(0.6, 0.8), map_documents=171
    )
    assert "Figure 4" in text and "grain" in text
    assert "6 of the 10 grain test documents (60.0\u00a0%) as crude, more than half (the paper: most of them)" in text
    assert "the count falls from 6 to 1" in text and "[Chapter 6](06_scorecard.ipynb) tests whether" in text
    assert "10.00\u00a0% (k = 9)" in text and "5.00\u00a0% (k = 19)" in text
    assert "regularized map agrees more" in text and "171 documents" in text
    # the same confusion the other way round
    worse = observations_markdown("reuters", AFTER, BEFORE, NAMES, errors=(0.05, 0.1), ks=(1, 1))
    assert "fewer than half (the paper: most of them)" in worse and "the count rises from 1 to 6" in worse
    # no verdict of chapter 5's own: chapter 6 judges the paper's claims
    for verdict in ("reduces", "increases", "unlike the paper", "as in the paper", "nan"):
        assert verdict not in text + worse
    assert len(text.split("\n\n")) == 3  # the paper; what it names; our largest confusion and the maps


def test_observations_for_twitter_say_the_paper_has_no_figure_and_handle_no_errors():
    names = ["positive", "neutral", "negative"]
    perfect = np.diag([3, 5, 2])
    text = observations_markdown("twitter", perfect, perfect, names, errors=(0.0, 0.0), ks=(1, 1))
    assert "no TWITTER figure among the paper's Figures 2–7" in text and "Figure 2)" not in text
    assert "§6.1 argues" in text and "[chapter 6](06_scorecard.ipynb) tests that claim" in text
    assert "no observation of the paper's" not in text
    assert "confuses no two classes" in text
    assert "leaves" not in text and len(text.split("\n\n")) == 2


def test_observations_for_ohsumed_and_20news():
    names = ["C01", "C04", "C06", "C10"]
    before = np.array([[1, 3, 1, 0], [0, 20, 0, 0], [0, 6, 4, 0], [0, 5, 0, 5]])  # everything drifts to C04
    after = np.array([[3, 1, 1, 0], [0, 20, 0, 0], [0, 1, 9, 0], [0, 1, 0, 9]])
    text = observations_markdown("ohsumed", before, after, names, errors=(0.4, 0.1), ks=(9, 9))
    assert "Figure 2" in text and "C04, C06, C10 (the same as the paper’s)" in text
    assert "hold 88.9\u00a0% of the test documents" in text
    assert "assigns 97.8\u00a0% of the documents to them and the regularized SCM 93.3\u00a0%." in text
    assert "closer" not in text and "over-predicts" not in text and "(06_scorecard.ipynb) judges" in text
    groups = ["comp.graphics", "comp.windows.x", "sci.med"]
    before = np.array([[5, 5, 0], [4, 6, 0], [1, 0, 9]])
    after = np.array([[8, 2, 0], [1, 9, 0], [1, 0, 9]])
    text = observations_markdown("20news", before, after, groups, errors=(0.33, 0.13), ks=(1, 1))
    assert "Figures 6 and 7" in text and "9 (90.0\u00a0%) predict another newsgroup" in text
    assert "of the regularized SCM's 4 errors, 3 (75.0\u00a0%)." in text and "reduces" not in text
    assert "not hierarchies" in text


def _texts(fig):
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip() and t.get_visible()]


@pytest.mark.parametrize("n", [3, 8, 20])
def test_figures_have_no_text_below_the_minimum_size(n):
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(n)
    names = [f"comp.class.{i}" for i in range(n)]
    before = rng.integers(0, 30, size=(n, n))
    after = before.copy()
    labels = rng.integers(0, n, size=60)
    maps = (rng.normal(size=(60, 2)), rng.normal(size=(60, 2)))
    for fig in (
        confusion_figure(before, after, names, ("non-regularized", "regularized")),
        maps_figure_2d(maps, labels, names, ("non-regularized", "regularized")),
        absent_figure("amazon"),
    ):
        assert fig.axes  # IPython shows a figure without axes as text, not as an image
        sizes = [t.get_fontsize() for t in _texts(fig)]
        assert sizes and min(sizes) >= MIN_FONT_PT
        assert fig.get_figwidth() * fig.dpi <= 660  # shown at its natural size in the 672 px figure column
        plt.close(fig)


def test_map_viewer_shows_one_map_at_a_time_in_one_scene():
    views = [
        {
            "title": f"view {v}",
            "coordinates": np.arange(12.0).reshape(4, 3) + v,
            "labels": labels,
            "class_names": ["a", "b", "c"],
            "texts": ["w"] * 4,
        }
        for v, labels in enumerate(([0, 1, 1, 0], [2, 2, 2, 2], [0, 1, 2, 2]))
    ]
    figure = map_viewer_3d(views)
    assert len(figure.data) == 2 + 1 + 3
    assert [trace.visible for trace in figure.data] == [True, True, False, False, False, False]
    assert {trace.scene for trace in figure.data} == {"scene"} or {trace.scene for trace in figure.data} == {None}
    buttons = figure.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["view 0", "view 1", "view 2"]
    assert buttons[1].args[0]["visible"] == [False, False, True, False, False, False]
    assert buttons[2].args[0]["visible"] == [False, False, False, True, True, True]
    assert buttons[2].args[1] == {"title.text": "view 2"}
    with pytest.raises(ValueError, match="at least one"):
        map_viewer_3d([])


def test_summary_counts_the_data_sets_where_the_count_is_lower():
    from regemb_utils.chapters.confusion_tsne import summary_markdown, summary_row

    rows = [
        summary_row("reuters", BEFORE, AFTER, NAMES, (0.5, 0.7)),
        summary_row("amazon", AFTER, BEFORE, NAMES, (0.6, 0.4)),
        summary_row("twitter", np.diag([1, 2, 3, 4]), np.diag([1, 2, 3, 4]), NAMES, (0.9, 0.9)),
        summary_row("bbcsport", np.diag([1, 2, 3, 4]), np.diag([1, 2, 3, 4]), NAMES, (0.50, 0.53)),
    ]
    assert rows[0]["largest confusion"] == "grain → crude" and rows[0]["regularized"] == 1
    assert rows[2]["largest confusion"] is None and rows[2]["non-regularized"] is None
    text = summary_markdown(rows)
    assert "largest confusion is lower on 1 of the 2 data sets where there is one (REUTERS)" in text
    assert "reduces" not in text
    # BBCSPORT's 3 points more are within what two t-SNE layouts are not told apart by
    assert "higher by more than 5 points" in text and "on 1 of 4 (REUTERS)" in text


def test_observations_give_the_largest_confusion_as_counts_picked_not_tested():
    text = observations_markdown("amazon", BEFORE, BEFORE, NAMES, errors=(0.1, 0.1), ks=(1, 1))
    assert "Figure 5" in text and "the regularized SCM predicts 6 of them (60.0\u00a0%) that way" in text
    assert "These are counts, not a test" in text and "unchanged" not in text


@pytest.mark.parametrize(
    "n, longest", [(4, "electronics"), (5, "athletics"), (10, "C10"), (20, "comp.sys.ibm.pc.hardware")]
)
def test_confusion_counts_fit_their_cells_and_nothing_collides(n, longest):
    """AMAZON and BBCSPORT (few classes, long counts, long names) and 20NEWS (20 classes): every count inside its
    cell, no two tick labels overlapping, and the colour bar clear of every title and label."""
    import matplotlib.pyplot as plt

    names = [f"{longest[:-1]}{chr(97 + i)}" for i in range(n)]
    before = np.full((n, n), 37)
    np.fill_diagonal(before, 1888 if n < 10 else 388)  # four-digit counts where the cells are few
    fig = confusion_figure(before, before, names, ("non-regularized SCM (k = 11): 21.82 %", "regularized SCM"))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes[:2]:
        cell = ax.transData.transform([(0, 0), (1, 1)])
        width, height = abs(cell[1] - cell[0])
        counts = [t for t in ax.texts if t.get_text()]
        assert len(counts) == n * n
        for text in counts:
            box = text.get_window_extent(renderer)
            assert box.width < width and box.height < height, f"{text.get_text()} spills out of its cell"
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [label.get_window_extent(renderer) for label in labels]
            assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:])), "tick labels collide"
    bar = fig.axes[-1] if n <= 10 else fig.axes[3]
    assert bar.get_label() == "<colorbar>"
    bar_box = bar.get_window_extent(renderer)
    for ax in fig.axes[:2]:
        for text in (ax.title, ax.xaxis.label, *ax.get_xticklabels()):
            assert not bar_box.overlaps(text.get_window_extent(renderer)), "the colour bar covers a text"
    assert fig.get_figwidth() * fig.dpi <= 660
    plt.close(fig)


def test_the_confusions_table_fits_in_six_columns():
    """Chapter 5's largest confusions: each method's count and share of the class in one cell, so that the table of
    AMAZON's and 20NEWS's long class names fits a desktop's column; the CSV keeps the separate columns."""
    import re

    from regemb_utils.chapters.confusion_tsne import confusions_table, largest_confusions

    before = np.array([[500, 153, 0], [37, 520, 3], [0, 1, 599]])
    after = np.array([[593, 60, 0], [32, 525, 3], [0, 1, 599]])
    names = ["books", "dvd", "kitchen_&_housewares"]
    shown = confusions_table(largest_confusions(before, after, names, top=2), download="x")
    header = re.findall(r"<th[^>]*>([^<]*)</th>", shown.html)
    assert header == [
        "true class",
        "predicted as",
        "class size",
        "non-reg. (% of class)",
        "reg. (% of class)",
        "change",
    ]
    first = re.findall(r"<td[^>]*>([^<]*)</td>", shown.html)[:6]
    assert first == ["books", "dvd", "653", "153 (23.4\u00a0%)", "60 (9.2\u00a0%)", "\u221293"]
    assert shown.csv.splitlines()[0].split(",")[3:] == [
        "non-regularized",
        "non-regularized share",
        "regularized",
        "regularized share",
        "change",
    ]
