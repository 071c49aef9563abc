"""How chapters show results: numbers glued into the prose, and figures that render offline."""
from __future__ import annotations

import json

import myst_nb
import numpy as np
import plotly.io as pio


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` for numbers in the prose; numpy scalars become Python numbers, so that a format spec such as
    ``{glue:text}`name:.1f``` works (numpy 2 writes them as ``np.float64(...)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    return myst_nb.glue(name, value, display=display)


class OfflinePlotly:
    """Display a plotly figure without a CDN.

    The HTML output carries no plotly.js: the book loads it once from its own ``_static`` (``html_js_files`` in
    ``_config.yml``). JupyterLab renders the plotly JSON output with plotly's own extension.
    """

    def __init__(self, figure):
        self.figure = figure

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            "application/vnd.plotly.v1+json": json.loads(self.figure.to_json()),
            "text/html": pio.to_html(self.figure, include_plotlyjs=False, full_html=False),
        }
