"""The book's figure style: sizes and the smallest text, the same on every page, the resolution a figure is drawn at,
and the placeholder for a figure a run leaves out."""

from __future__ import annotations

import base64
import io

__all__ = ["MIN_FONT_PT", "FIGURE_DPI", "FIGURE_WIDTH_IN", "RESOLUTION", "HighResolution", "absent_figure"]

MIN_FONT_PT = 9.0  # no text on the book's figures is smaller (the PNGs are shown at their natural size)
FIGURE_DPI = 100
FIGURE_WIDTH_IN = 6.5  # 650 px at FIGURE_DPI (about 660 px with the tight margins): within the book's 672 px figure column, so nothing is scaled down
RESOLUTION = (
    2  # PNG pixels per CSS pixel: a figure is drawn at RESOLUTION × FIGURE_DPI and shown at its size at FIGURE_DPI
)


class HighResolution:
    """A matplotlib figure as the book shows it: a PNG drawn at :data:`RESOLUTION` × its dpi (sharp on high-density
    screens and when zoomed), shown at its natural size (the output's ``width``/``height`` metadata, which MyST-NB
    and JupyterLab honour), its colours reduced to a 256-colour palette (a chart has few colours but many
    anti-aliasing shades; the palette keeps the file near the size of a 1× drawing) in which every pixel stays
    within a few levels of its colour.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure, drawn with ``bbox_inches="tight"`` as Jupyter's inline backend draws it.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 1), dpi=FIGURE_DPI)
    >>> data, metadata = HighResolution(fig)._repr_mimebundle_()
    >>> sorted(data), sorted(metadata["image/png"])
    (['image/png', 'text/plain'], ['height', 'width'])
    >>> plt.close(fig)
    """

    def __init__(self, figure):
        self.figure = figure

    def png(self) -> tuple[bytes, int, int]:
        """The PNG and the size it is shown at (CSS pixels)."""
        from PIL import Image

        drawn = io.BytesIO()
        self.figure.savefig(drawn, format="png", dpi=RESOLUTION * self.figure.dpi, bbox_inches="tight")
        image = Image.open(drawn).convert("RGB")
        # max coverage keeps every colour near its own (a rare one too: a small class, the top of a colour bar);
        # median cut merges rare colours into common ones
        palette = image.quantize(256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
        out = io.BytesIO()
        palette.save(out, format="png", optimize=True)
        return out.getvalue(), round(image.width / RESOLUTION), round(image.height / RESOLUTION)

    def _repr_mimebundle_(self, include=None, exclude=None):
        png, width, height = self.png()
        data = {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": f"<Figure {width}×{height} px>"}
        return data, {"image/png": {"width": width, "height": height}}


def absent_figure(name: str, reason: str | None = None):
    """A small placeholder for a figure this run leaves out (the page keeps its numbered figures): data set ``name``
    is not among the run's, or ``reason`` says why it is left out.

    Parameters
    ----------
    name : str
        The data set.
    reason : str, optional
        Why it is left out.

    Returns
    -------
    matplotlib.figure.Figure
        A figure with one line of text.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure = absent_figure("amazon")
    >>> figure.axes[0].texts[0].get_text()
    "AMAZON is not among this run's data sets"
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.6), dpi=FIGURE_DPI)  # an axes: IPython draws no empty figure
    ax.set_axis_off()
    text = (
        f"{name.upper()}: {reason}"
        if name and reason
        else reason or f"{name.upper()} is not among this run's data sets"
    )
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=11, color="0.35", transform=ax.transAxes)
    return fig
