"""Small matplotlib helpers for the chapters' figures."""
from __future__ import annotations

import numpy as np

__all__ = ["place_labels", "error_figure", "paper_vs_ours_figure"]

# where a label may go relative to its point, in order of preference: right, above, left, below, the diagonals
_DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1),
               (1, 0.5), (-1, 0.5), (-1, -0.5), (1, -0.5), (0.5, 1), (-0.5, 1), (-0.5, -1), (0.5, -1))
_RADII = (3, 8, 14, 22, 32, 44, 58, 75, 95, 120, 150)  # pixels between the point and the label's nearest edge


def _overlaps(box, boxes) -> bool:
    x0, y0, x1, y1 = box
    return any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes)


def place_labels(ax, xy, labels, fontsize: float, pad: float = 1.0) -> list:
    """Write ``labels`` next to the points ``xy`` (data coordinates) of ``ax`` so that no two labels overlap and no
    label covers a point, where the axes leave room: each label goes to the first free spot in a ring of positions
    around its point, nearest first (a thin line joins a label placed farther away to its point); a label that finds
    no free spot is written beside its point anyway. Returns the texts.

    The placement is measured in the figure's pixels: the figure is drawn first (so that a layout engine has placed
    the axes) and its layout engine is then switched off, so that the axes, and with them the labels, stay where they
    were measured."""
    figure = ax.figure
    figure.canvas.draw()
    figure.set_layout_engine("none")
    ax.set_xlim(ax.get_xlim())  # the leader lines must not rescale the axes
    ax.set_ylim(ax.get_ylim())
    renderer = figure.canvas.get_renderer()
    points = ax.transData.transform(np.asarray(xy, dtype=float))
    frame = ax.get_window_extent(renderer)
    taken = [(x - 2.5, y - 2.5, x + 2.5, y + 2.5) for x, y in points]  # the markers themselves
    texts = []
    for (x, y), label in zip(points, labels):
        text = ax.annotate(label, (0, 0), xycoords="figure pixels", fontsize=fontsize, ha="left", va="bottom")
        extent = text.get_window_extent(renderer)
        width, height = extent.width + 2 * pad, extent.height + 2 * pad
        choice = None
        for radius in _RADII:
            for dx, dy in _DIRECTIONS:
                # a full step (+-1) puts the box wholly on that side; 0 or +-0.5 shifts it partly across
                left = x + dx * radius - (width * (1 - dx) / 2 if abs(dx) < 1 else width if dx < 0 else 0)
                bottom = y + dy * radius - (height * (1 - dy) / 2 if abs(dy) < 1 else height if dy < 0 else 0)
                box = (left, bottom, left + width, bottom + height)
                inside = (box[0] >= frame.x0 and box[2] <= frame.x1 and box[1] >= frame.y0 and box[3] <= frame.y1)
                if inside and not _overlaps(box, taken):
                    choice = (box, radius)
                    break
            if choice:
                break
        if choice is None:
            box, radius = (x + 3, y - height / 2, x + 3 + width, y + height / 2), 3
        else:
            box, radius = choice
        taken.append(box)
        text.remove()
        position = ax.transData.inverted().transform((box[0] + pad, box[1] + pad))
        placed = ax.annotate(label, tuple(position), fontsize=fontsize, ha="left", va="bottom",
                             annotation_clip=False)
        if radius > _RADII[1]:  # far from its point: a leader line to the label's nearest edge
            edge = (min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3]))
            (x0, y0), (x1, y1) = ax.transData.inverted().transform([(x, y), edge])
            ax.plot([x0, x1], [y0, y1], color="0.6", linewidth=0.6, zorder=1)
        texts.append(placed)
    return texts


def _method_colour(label: str) -> str:
    return "tab:orange" if "ortho" in label else "tab:blue" if "WMD" in label else "tab:gray"


def error_figure(errors, labels):
    """The paper's Figure 8 with ours: one panel per data set (two columns, the methods named once per row), each
    method's test error with its 95 % interval as a bar coloured by kind (orange: orthogonalized SCM, blue: WMD,
    grey: the rest; the legend shows the same colours), the paper's value as a black diamond, and the number of test
    queries beside every WMD bar. ``errors``: :func:`regemb_utils.results.error_table`; ``labels``: the methods'
    labels in plot order."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .document_maps import FIGURE_DPI, FIGURE_WIDTH_IN, MIN_FONT_PT

    names = list(dict.fromkeys(errors["dataset"]))
    columns = min(2, len(names))
    rows_n = -(-len(names) // columns)
    fig, axes = plt.subplots(rows_n, columns, figsize=(FIGURE_WIDTH_IN, rows_n * (0.24 * len(labels) + 0.55) + 0.9),
                             dpi=FIGURE_DPI, squeeze=False, sharex=True, sharey=True, layout="constrained")
    y = np.arange(len(labels))
    for ax, name in zip(axes.flat, names):
        rows = errors[errors["dataset"] == name].set_index("label").reindex(labels)
        ax.barh(y, rows["error"], xerr=[rows["error"] - rows["lower"], rows["upper"] - rows["error"]],
                color=[_method_colour(label) for label in labels], alpha=0.8, capsize=2)
        ax.plot(rows["paper"], y, "kD", markersize=4)
        for position, label, n, upper in zip(y, labels, rows["test documents"], rows["upper"]):
            if "WMD" in label and np.isfinite(n):  # a WMD method answers a sample of the test queries
                ax.text(min(upper + 2, 72), position, f"n = {n:,.0f}", va="center", fontsize=MIN_FONT_PT)
        ax.set_title(name.upper(), fontsize=MIN_FONT_PT + 1)
        ax.set_xlim(0, 100)
        ax.tick_params(labelsize=MIN_FONT_PT)
    axes[0, 0].set_yticks(y, labels)
    axes[0, 0].invert_yaxis()
    for ax in axes[-1]:
        ax.set_xlabel("test error (%)", fontsize=MIN_FONT_PT + 1)
    for ax in list(axes.flat)[len(names):]:
        ax.set_axis_off()
    handles = [Patch(color=_method_colour(kind), alpha=0.8, label=text) for kind, text in
               (("ortho", "ours: orthogonalized SCM"), ("WMD", "ours: WMD"), ("", "ours: the other methods"))]
    handles.append(Line2D([], [], marker="D", color="k", linestyle="", markersize=4, label="the paper"))
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=MIN_FONT_PT, frameon=False)
    return fig


def paper_vs_ours_figure(rows):
    """Each method's test error on each data set, the paper's (horizontal) against ours with its interval (vertical):
    colour tells the method, the marker the data set, with a legend for each. ``rows``: the scorecard's Figure 8 rows
    (:func:`regemb_utils.scorecard.scorecard`)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from .document_maps import FIGURE_DPI, FIGURE_WIDTH_IN, MIN_FONT_PT

    markers = dict(zip(dict.fromkeys(rows["dataset"]), "osD^vP*X"))
    colours = {method: f"C{i}" for i, method in enumerate(dict.fromkeys(rows["method"]))}
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 6.2), dpi=FIGURE_DPI, layout="constrained")
    for r in rows.itertuples(index=False):
        ax.errorbar(r.paper, r.ours, yerr=[[r.ours - r.lower], [r.upper - r.ours]], fmt=markers[r.dataset],
                    color=colours[r.method], markersize=6, capsize=2, alpha=0.85)
    top = 5 + max(rows["paper"].max(), rows["upper"].max()) if len(rows) else 100
    ax.plot([0, top], [0, top], color="0.5", lw=0.8, ls="--")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("the paper's test error (%)", fontsize=MIN_FONT_PT + 1)
    ax.set_ylabel("our test error (%), 95 % interval", fontsize=MIN_FONT_PT + 1)
    ax.tick_params(labelsize=MIN_FONT_PT)
    methods = [Line2D([], [], marker="o", linestyle="", color=c, label=m) for m, c in colours.items()]
    datasets = [Line2D([], [], marker=m, linestyle="", color="0.3", label=d.upper()) for d, m in markers.items()]
    first = ax.legend(handles=methods, title="method", fontsize=MIN_FONT_PT, title_fontsize=MIN_FONT_PT,
                      loc="upper left")
    ax.add_artist(first)
    ax.legend(handles=datasets, title="data set", fontsize=MIN_FONT_PT, title_fontsize=MIN_FONT_PT,
              loc="lower right")
    return fig
