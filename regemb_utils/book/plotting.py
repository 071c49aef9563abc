"""Small matplotlib helpers for the chapters' figures."""

from __future__ import annotations

import numpy as np

__all__ = ["place_labels"]

# where a label may go relative to its point, in order of preference: right, above, left, below, the diagonals
_DIRECTIONS = (
    (1, 0),
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
    (1, -1),
    (1, 0.5),
    (-1, 0.5),
    (-1, -0.5),
    (1, -0.5),
    (0.5, 1),
    (-0.5, 1),
    (-0.5, -1),
    (0.5, -1),
)
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
    were measured.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes with the points.
    xy : array-like of shape (n, 2)
        The points, in data coordinates.
    labels : sequence of str
        One label per point.
    fontsize : float
        The labels' font size in points.
    pad : float
        Pixels kept free around each label.

    Returns
    -------
    list of matplotlib.text.Annotation
        The labels, in the order of the points.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, ax = plt.subplots(figsize=(3, 3))
    >>> _ = ax.scatter([0, 0.01, 1], [0, 0, 1])
    >>> texts = place_labels(ax, [(0, 0), (0.01, 0), (1, 1)], ["a", "b", "c"], fontsize=9)
    >>> boxes = [t.get_window_extent() for t in texts]
    >>> [t.get_text() for t in texts], bool(boxes[0].overlaps(boxes[1]))
    (['a', 'b', 'c'], False)
    >>> plt.close(figure)
    """
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
                inside = box[0] >= frame.x0 and box[2] <= frame.x1 and box[1] >= frame.y0 and box[3] <= frame.y1
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
        placed = ax.annotate(label, tuple(position), fontsize=fontsize, ha="left", va="bottom", annotation_clip=False)
        if radius > _RADII[1]:  # far from its point: a leader line to the label's nearest edge
            edge = (min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3]))
            (x0, y0), (x1, y1) = ax.transData.inverted().transform([(x, y), edge])
            ax.plot([x0, x1], [y0, y1], color="0.6", linewidth=0.6, zorder=1)
        texts.append(placed)
    return texts
