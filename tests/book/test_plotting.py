"""Labels placed beside points without overlapping (chapter 3's t-SNE maps)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

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


# plotly: plotly.js draws its toolbar over the top right corner of every figure, on top of what is there


def test_every_shown_plotly_figure_has_a_strip_for_the_toolbar():
    import json

    import plotly.graph_objects as go

    from regemb_utils.book.tables import TOOLBAR_PX, OfflinePlotly

    titled = go.Figure(
        go.Scatter(y=[1, 2]),
        layout={"height": 400, "margin": {"t": 90}, "title": {"text": "a long title", "y": 0.97}},
    )
    legend = dict(orientation="h", x=0, y=1, xref="container", yref="container", yanchor="top")
    for figure, top, title_px in (
        (titled, 90, 0.03 * 400),  # a title 12 px from the top (chapter 5's viewer)
        (go.Figure(layout={"title": {"text": "auto"}}), 100, 50),  # plotly's: the middle of its 100 px top margin
        (go.Figure(layout={"height": 300, "margin": {"t": 40}, "legend": legend}), 40, None),
    ):
        before = figure.to_json()
        layout = OfflinePlotly(figure)._repr_mimebundle_()["application/vnd.plotly.v1+json"]["layout"]
        assert figure.to_json() == before  # the figure itself is left as it was
        height = figure.layout.height or 450
        assert layout["height"] == height + TOOLBAR_PX and layout["margin"]["t"] == top + TOOLBAR_PX
        if title_px is not None:  # the title's distance from the top: the strip and its own
            assert (1 - layout["title"]["y"]) * layout["height"] == pytest.approx(TOOLBAR_PX + title_px)
        else:  # a legend at the top of the whole figure moves below the strip
            assert (1 - layout["legend"]["y"]) * layout["height"] == pytest.approx(TOOLBAR_PX)
    html = OfflinePlotly(titled)._repr_mimebundle_()["text/html"]  # what the book shows: the same layout
    assert f'<div style="height:{400 + TOOLBAR_PX}px;' in html
    assert json.dumps({"t": 90 + TOOLBAR_PX}).replace(" ", "")[1:-1] in html.replace(" ", "")


def test_the_sparsity_panels_stand_in_two_columns_with_spaced_ticks():
    """Four columns of panels left a phone's screen 55 px per panel: their titles and their values of C collided."""
    import itertools

    from regemb_utils.book.figures import sparsity_figure

    rows = [
        dict(model=m, symmetric=s, dominant=d, idf=i, exponent=o, nonzero_limit=c, nonzeros_per_column=c ** (0.3 * o))
        for m, s, d, i, o, c in itertools.product(
            ["32-bit", "1-bit"], [True, False], [True, False], [True, False], [1.0, 4.0], [100, 200, 400, 800]
        )
    ]
    figure = sparsity_figure(pd.DataFrame(rows), ["32-bit", "1-bit"])
    layout = figure.layout
    x_domains = {tuple(layout[name].domain) for name in layout if name.startswith("xaxis")}
    y_domains = {tuple(layout[name].domain) for name in layout if name.startswith("yaxis")}
    assert len(x_domains) == 2 and len(y_domains) == 4
    assert all(d[1] - d[0] >= 0.45 for d in x_domains)  # each column about half the width
    ticks = layout.yaxis.tickvals
    assert len(ticks) <= 1 + 1.2 * np.log10(max(ticks) / min(ticks))  # about one per decade over 3.5 decades
    titles = [a.text for a in layout.annotations if a.textangle != -90]
    assert set(titles) == {"32-bit", "1-bit", "Sym, Dom", "Sym only", "Dom only", "neither"}
