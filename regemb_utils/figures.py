"""Figures that render offline, in the built book and in JupyterLab."""
from __future__ import annotations

import json

import plotly.io as pio


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
