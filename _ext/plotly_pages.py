"""Sphinx extension: plotly.js only on the pages that show a plotly figure, and only after the page has loaded.

plotly.js is 4.9 MB. The chapters' figures are written without it (``regemb_utils.book.tables.OfflinePlotly``), so a page
needs it exactly when its body holds a ``plotly-graph-div``. On those pages the figures' scripts are kept as inert
``<script type="text/x-regemb-plotly">`` blocks, and a small loader fetches ``plotly.min.js`` (served from the book's
own ``_static``, copied there from ``assets/``) after the page's load event, then runs them: the text, tables and
formulas are there at once, the figures draw, fully interactive, a moment later. Registered in ``_config.yml``
(``sphinx: local_extensions``).
"""
from __future__ import annotations

import json
import re

PLOTLY_JS = "plotly.min.js"
MARKER = "plotly-graph-div"
DEFERRED = "text/x-regemb-plotly"
# the script that plotly's to_html writes after each figure's div: it calls Plotly.newPlot
_FIGURE_SCRIPT = re.compile(r'<script(?: type="text/javascript")?>(?=\s*window\.PLOTLYENV)')
_LOADER = """window.addEventListener('load', () => {
  const plotly = document.createElement('script');
  plotly.src = %s;
  plotly.onload = () => {
    for (const deferred of document.querySelectorAll('script[type="%s"]')) {
      const figure = document.createElement('script');
      figure.text = deferred.text;
      deferred.replaceWith(figure);
    }
  };
  document.head.appendChild(plotly);
});"""


def defer_figures(body: str) -> str:
    """``body`` with every plotly figure's drawing script made inert (run later by the loader)."""
    return _FIGURE_SCRIPT.sub(f'<script type="{DEFERRED}">', body)


def add_plotly_where_needed(app, pagename, templatename, context, doctree):
    # Sphinx resets per-page script files after each page, so this adds the loader to this page only.
    if MARKER in context.get("body", ""):
        context["body"] = defer_figures(context["body"])
        url = context["pathto"](f"_static/{PLOTLY_JS}", 1)
        app.add_js_file(None, body=_LOADER % (json.dumps(url), DEFERRED))


def setup(app):
    app.connect("html-page-context", add_plotly_where_needed)
    return {"version": "1.1", "parallel_read_safe": True, "parallel_write_safe": True}
