"""Labels placed beside points without overlapping (chapter 3's t-SNE maps)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from regemb_utils.study.plotting import place_labels  # noqa: E402


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
    overlapping = sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert overlapping == 0
    frame = ax.get_window_extent()
    assert all(frame.x0 - 1 <= b.x0 and b.x1 <= frame.x1 + 1 and frame.y0 - 1 <= b.y0 and b.y1 <= frame.y1 + 1
               for b in boxes)
    plt.close(fig)
