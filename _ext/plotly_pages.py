"""Sphinx extension: load plotly.js only on the pages that show a plotly figure.

plotly.js is 4.9 MB. The chapters' figures are written without it (``regemb_utils.study.book.OfflinePlotly``), so a page
needs it exactly when its body holds a ``plotly-graph-div``; this adds ``plotly.min.js`` (served from the book's own
``_static``, copied there from ``assets/``) to those pages only. Registered in ``_config.yml``
(``sphinx: local_extensions``).
"""
from __future__ import annotations

PLOTLY_JS = "plotly.min.js"
MARKER = "plotly-graph-div"


def add_plotly_where_needed(app, pagename, templatename, context, doctree):
    # Sphinx resets per-page script files after each page, so this adds the script to this page only.
    if MARKER in context.get("body", ""):
        app.add_js_file(PLOTLY_JS)


def setup(app):
    app.connect("html-page-context", add_plotly_where_needed)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
