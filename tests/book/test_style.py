"""Figures at the book's resolution: drawn at RESOLUTION × their dpi, shown at their natural size."""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from IPython.core.formatters import format_display_data  # noqa: E402
from PIL import Image  # noqa: E402

from regemb_utils.book import tables  # noqa: E402
from regemb_utils.book.style import (  # noqa: E402
    COLOUR_BAR_LEVELS,
    FIGURE_DPI,
    RESOLUTION,
    HighResolution,
    colour_bar_colours,
)


@pytest.fixture
def heatmap():
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots(figsize=(4, 3), dpi=FIGURE_DPI, layout="constrained")
    shown = ax.imshow(rng.random((12, 12)), cmap="viridis")
    fig.colorbar(shown)
    ax.scatter([2, 9], [3, 8], s=4, color=["red", "magenta"])  # two rare colours: a few pixels each
    ax.set_title("a heatmap with text", fontsize=9)
    yield fig
    plt.close(fig)


def test_a_figure_is_drawn_at_the_resolution_and_shown_at_its_natural_size(heatmap):
    data, metadata = format_display_data(HighResolution(heatmap))
    image = Image.open(io.BytesIO(base64.b64decode(data["image/png"])))
    natural = io.BytesIO()
    heatmap.savefig(natural, format="png", bbox_inches="tight")  # what Jupyter's inline backend shows
    width, height = Image.open(natural).size
    shown = metadata["image/png"]
    assert abs(shown["width"] - width) <= 3 and abs(shown["height"] - height) <= 3  # the tight box, rounded
    assert abs(image.width - RESOLUTION * shown["width"]) <= RESOLUTION
    assert abs(image.height - RESOLUTION * shown["height"]) <= RESOLUTION
    assert image.mode == "P"  # a 256-colour palette


def test_the_palette_keeps_the_colours_close(heatmap):
    png, _, _ = HighResolution(heatmap).png()
    reduced = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    full = io.BytesIO()
    heatmap.savefig(full, format="png", dpi=RESOLUTION * FIGURE_DPI, bbox_inches="tight")
    exact = np.asarray(Image.open(full).convert("RGB"), dtype=float)
    assert reduced.shape == exact.shape
    error = np.abs(reduced - exact)
    assert error.mean() < 2.0 and error.max() <= 24  # every pixel near its colour, the rare ones too


def test_glue_shows_a_matplotlib_figure_at_the_resolution(heatmap, monkeypatch):
    glued = {}
    monkeypatch.setattr(tables.myst_nb, "glue", lambda name, value, display: glued.update({name: value}))
    tables.glue("figure", heatmap)
    tables.glue("number", np.float64(1.5))
    assert isinstance(glued["figure"], HighResolution) and glued["figure"].figure is heatmap
    assert glued["number"] == 1.5 and type(glued["number"]) is float


def _colour_bar_line(figure, png: bytes) -> np.ndarray:
    """The pixels along the middle of ``figure``'s colour bar in ``png`` (drawn as HighResolution draws it)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    tight = figure.get_tightbbox(renderer).padded(0.1)  # savefig's bbox_inches="tight", pad_inches=0.1
    (bar,) = [ax for ax in figure.axes if getattr(ax, "_colorbar", None) is not None]
    box = bar.get_window_extent(renderer)
    scale = RESOLUTION * figure.dpi
    x0, x1 = (box.x0 / figure.dpi - tight.x0) * scale, (box.x1 / figure.dpi - tight.x0) * scale
    y0, y1 = (tight.y1 - box.y1 / figure.dpi) * scale, (tight.y1 - box.y0 / figure.dpi) * scale
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    if box.width > box.height:
        return image[round((y0 + y1) / 2), int(x0) + 4 : int(x1) - 4]
    return image[int(y0) + 4 : int(y1) - 4, round((x0 + x1) / 2)]


def _levels(line: np.ndarray) -> int:
    return len(np.unique(line, axis=0))


def test_a_colour_bar_keeps_enough_distinct_levels(heatmap):
    png, _, _ = HighResolution(heatmap).png()
    full = io.BytesIO()
    heatmap.savefig(full, format="png", dpi=RESOLUTION * FIGURE_DPI, bbox_inches="tight")
    assert _levels(_colour_bar_line(heatmap, full.getvalue())) >= 200  # the line found is the bar: viridis' 256
    line = _colour_bar_line(heatmap, png)
    # max coverage alone left this bar in 78 bands; its own palette entries leave steps of a few pixels
    assert _levels(line) >= COLOUR_BAR_LEVELS
    steps = np.flatnonzero(np.any(line[1:] != line[:-1], axis=1))
    assert np.diff(steps).max() <= 3 * len(line) / COLOUR_BAR_LEVELS  # no band much wider than the rest


def test_a_discrete_colour_bar_keeps_its_colours_exactly():
    from matplotlib.colors import BoundaryNorm

    fig, ax = plt.subplots(figsize=(4, 3), dpi=FIGURE_DPI, layout="constrained")
    steps = plt.get_cmap("viridis", 7)
    shown = ax.imshow(np.arange(49).reshape(7, 7) % 7, cmap=steps, norm=BoundaryNorm(np.arange(-0.5, 7), 7))
    fig.colorbar(shown, orientation="horizontal")
    png, _, _ = HighResolution(fig).png()
    expected = np.round(255 * steps(np.arange(7))[:, :3]).astype(np.uint8)
    line = _colour_bar_line(fig, png)
    found = np.unique(line, axis=0)
    plt.close(fig)
    assert {tuple(c) for c in expected} <= {tuple(c) for c in found}
    assert len(colour_bar_colours(fig)) == 7
