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
from regemb_utils.book.style import FIGURE_DPI, RESOLUTION, HighResolution  # noqa: E402


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
