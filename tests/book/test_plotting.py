"""Labels placed beside points without overlapping (chapter 3's t-SNE maps)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from regemb_utils.book.plotting import place_labels  # noqa: E402


def test_crowded_labels_do_not_overlap():
    rng = np.random.default_rng(0)
    xy = np.vstack([rng.normal(0, 0.05, (25, 2)), rng.uniform(-3, 3, (10, 2))])  # a dense cluster and a spread
    labels = [f"word{i}" for i in range(len(xy))]
    fig, ax = plt.subplots(figsize=(4, 4), dpi=100, layout="constrained")
    ax.scatter(xy[:, 0], xy[:, 1], s=6)
    ax.margins(0.15)
    limits = ax.get_xlim(), ax.get_ylim()
    texts = place_labels(ax, xy, labels, fontsize=9)
    fig.canvas.draw()
    assert (ax.get_xlim(), ax.get_ylim()) == limits  # leader lines do not rescale the axes
    boxes = [t.get_window_extent() for t in texts]
    assert [t.get_text() for t in texts] == labels and all(t.get_fontsize() == 9 for t in texts)
    overlapping = sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    assert overlapping == 0
    frame = ax.get_window_extent()
    assert all(
        frame.x0 - 1 <= b.x0 and b.x1 <= frame.x1 + 1 and frame.y0 - 1 <= b.y0 and b.y1 <= frame.y1 + 1 for b in boxes
    )
    plt.close(fig)


def _errors():
    rows = []
    for d, dataset in enumerate(("bbcsport", "twitter", "20news")):
        for m, label in enumerate(("BoW", "Soft VSM", "WMD", "Soft VSM (ortho.)")):
            error = 10.0 + 7 * m + d
            rows.append(
                {
                    "dataset": dataset,
                    "label": label,
                    "error": error,
                    "lower": error - 3,
                    "upper": error + 3,
                    "paper": error + 1 if label != "WMD" else np.nan,
                    "test documents": 220 if label != "WMD" else 96,
                    "method": label.lower(),
                }
            )
    return pd.DataFrame(rows)


def test_chapter_figures_are_drawn_at_the_column_width_with_legible_text():
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from regemb_utils.chapters.confusion_tsne import MIN_FONT_PT
    from regemb_utils.book.figures import figure_8 as error_figure, paper_vs_ours_figure

    errors = _errors()
    card = errors.drop(columns="method").rename(columns={"label": "method", "error": "ours"}).dropna(subset=["paper"])
    for fig in (error_figure(errors, ["BoW", "Soft VSM", "WMD", "Soft VSM (ortho.)"]), paper_vs_ours_figure(card)):
        fig.canvas.draw()
        sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_text().strip() and t.get_visible()]
        assert sizes and min(sizes) >= MIN_FONT_PT
        assert fig.get_figwidth() * fig.dpi <= 660  # shown at its natural size in the 672 px column
        plt.close(fig)


def test_figure_8_legend_has_the_colours_of_the_bars():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    from regemb_utils.book.figures import figure_8 as error_figure

    fig = error_figure(_errors(), ["BoW", "Soft VSM", "WMD", "Soft VSM (ortho.)"])
    legend = fig.legends[0]
    colours = {
        text.get_text(): to_rgb(patch.get_facecolor())
        for text, patch in zip(legend.get_texts(), legend.legend_handles)
        if hasattr(patch, "get_facecolor")
    }
    bars = fig.axes[0].patches  # BoW, Soft VSM, WMD, Soft VSM (ortho.)
    assert colours["ours: orthogonalized SCM"] == to_rgb(bars[3].get_facecolor())
    assert colours["ours: WMD"] == to_rgb(bars[2].get_facecolor())
    assert colours["ours: the other methods"] == to_rgb(bars[0].get_facecolor())
    assert len({to_rgb(bar.get_facecolor()) for bar in bars}) == 3
    plt.close(fig)
