"""The book's figure style: sizes and the smallest text, the same on every page, the resolution a figure is drawn at,
and the placeholder for a figure a run leaves out."""

from __future__ import annotations

import base64
import io

import numpy as np

__all__ = [
    "MIN_FONT_PT",
    "FIGURE_DPI",
    "FIGURE_WIDTH_IN",
    "RESOLUTION",
    "PALETTE_SIZE",
    "COLOUR_BAR_LEVELS",
    "HighResolution",
    "colour_bar_colours",
    "absent_figure",
]

MIN_FONT_PT = 9.0  # no text on the book's figures is smaller (the PNGs are shown at their natural size)
FIGURE_DPI = 100
FIGURE_WIDTH_IN = 6.5  # 650 px at FIGURE_DPI (about 660 px with the tight margins): within the book's 672 px figure column, so nothing is scaled down
RESOLUTION = (
    2  # PNG pixels per CSS pixel: a figure is drawn at RESOLUTION × FIGURE_DPI and shown at its size at FIGURE_DPI
)
PALETTE_SIZE = 256  # the colours of a figure's PNG (a PNG palette holds at most 256)
# palette entries kept for a figure's colour bars (all of them together): a continuous colour map shows this many
# steps, each at most a few pixels long, not the 30-55 bands that a palette chosen by coverage alone leaves it
COLOUR_BAR_LEVELS = 128


def colour_bar_colours(figure, levels: int = COLOUR_BAR_LEVELS) -> np.ndarray:
    """The colours that ``figure``'s colour bars show, as drawn on white, at most ``levels`` of them (all colour bars
    together, shared evenly; a colour bar with more is sampled evenly along its length, so that its steps stay even).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    levels : int
        The most colours returned.

    Returns
    -------
    numpy.ndarray of shape (n, 3), dtype uint8
        RGB colours, n ≤ ``levels`` (0 without a colour bar).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = fig.colorbar(ax.imshow([[0.0, 1.0]], cmap="viridis"))
    >>> colour_bar_colours(fig).shape, colour_bar_colours(fig, 10).shape  # viridis has 256 colours
    ((128, 3), (10, 3))
    >>> plt.close(fig)
    """
    bars = [ax._colorbar for ax in figure.axes if getattr(ax, "_colorbar", None) is not None]
    solids = [bar.solids for bar in bars if bar.solids is not None]
    if not solids:
        return np.zeros((0, 3), dtype=np.uint8)
    share = max(1, levels // len(solids))
    chosen = []
    for mesh in solids:
        rgba = mesh.to_rgba(np.asarray(mesh.get_array()).ravel(), alpha=mesh.get_alpha())
        rgb = rgba[:, :3] * rgba[:, 3:] + (1 - rgba[:, 3:])  # on white
        colours = np.round(255 * rgb).astype(np.uint8)
        _, first = np.unique(colours, axis=0, return_index=True)
        colours = colours[np.sort(first)]  # distinct, in the bar's order
        if len(colours) > share:
            colours = colours[np.round(np.linspace(0, len(colours) - 1, share)).astype(int)]
        chosen.append(colours)
    return np.concatenate(chosen)[:levels]


def _nearest(colours: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """The index of the nearest ``palette`` entry (Euclidean in RGB) of each of ``colours``."""
    palette = palette.astype(np.int32)
    out = np.empty(len(colours), dtype=np.uint8)
    for start in range(0, len(colours), 4096):
        block = colours[start : start + 4096].astype(np.int32)
        out[start : start + 4096] = (((block[:, None, :] - palette[None, :, :]) ** 2).sum(axis=2)).argmin(axis=1)
    return out


def _reduce(image, reserved: np.ndarray):
    """``image`` (RGB) as a palette image of :data:`PALETTE_SIZE` colours: ``reserved`` and the rest chosen by max
    coverage of ``image``; every pixel becomes the nearest of them."""
    from PIL import Image

    rest = PALETTE_SIZE - len(reserved)
    covered = image.quantize(rest, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    used = len(covered.getcolors(PALETTE_SIZE) or ())
    palette = np.asarray(covered.getpalette()[: 3 * used], dtype=np.uint8).reshape(-1, 3)
    if not len(reserved):
        return covered
    palette = np.unique(np.concatenate([reserved, palette]), axis=0)[:PALETTE_SIZE]
    pixels = np.asarray(image, dtype=np.uint8)
    packed = (pixels[..., 0].astype(np.uint32) << 16) | (pixels[..., 1].astype(np.uint32) << 8) | pixels[..., 2]
    distinct, inverse = np.unique(packed.ravel(), return_inverse=True)
    colours = np.stack([(distinct >> 16) & 255, (distinct >> 8) & 255, distinct & 255], axis=1)
    indices = _nearest(colours, palette)[inverse].reshape(packed.shape)
    reduced = Image.frombytes("P", image.size, indices.tobytes())
    reduced.putpalette(palette.ravel().tolist())
    return reduced


class HighResolution:
    """A matplotlib figure as the book shows it: a PNG drawn at :data:`RESOLUTION` × its dpi (sharp on high-density
    screens and when zoomed), shown at its natural size (the output's ``width``/``height`` metadata, which MyST-NB
    and JupyterLab honour), its colours reduced to a 256-colour palette (a chart has few colours but many
    anti-aliasing shades; the palette keeps the file near the size of a 1× drawing) in which every pixel stays
    within a few levels of its colour. A figure with a colour bar keeps :data:`COLOUR_BAR_LEVELS` of the palette's
    entries for the colours its colour bars show (:func:`colour_bar_colours`), so that a continuous colour map stays
    smooth; the rest are chosen by max coverage.

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
        # median cut merges rare colours into common ones. A colour bar's gradient is many colours of few pixels
        # each: max coverage alone leaves it in bands, so its colours have entries of their own
        palette = _reduce(image, colour_bar_colours(self.figure))
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
