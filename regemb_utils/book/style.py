"""The book's figure style: sizes and the smallest text, the same on every page, and the placeholder for a figure a
run leaves out."""

from __future__ import annotations

__all__ = ["MIN_FONT_PT", "FIGURE_DPI", "FIGURE_WIDTH_IN", "absent_figure"]

MIN_FONT_PT = 9.0  # no text on the book's figures is smaller (the PNGs are shown at their natural size)
FIGURE_DPI = 100
FIGURE_WIDTH_IN = 6.5  # 650 px at FIGURE_DPI (about 660 px with the tight margins): within the book's 672 px figure column, so nothing is scaled down


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
