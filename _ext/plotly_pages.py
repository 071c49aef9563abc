"""Sphinx extension: plotly.js only on the pages that show a plotly figure, once, after the page has loaded; the
figures' data outside the page's HTML.

``plotly.min.js`` is a partial bundle with only the trace types the book draws (``_ext/plotly_bundle.js``, built by
``make setup``; 1.7 MB where the full plotly.js is 4.9 MB). The chapters' figures are written without it
(``regemb_utils.book.tables.OfflinePlotly``), so a page needs it exactly when its body holds a ``plotly-graph-div``. On
those pages each figure's drawing script (``Plotly.newPlot`` with the figure's data, up to 1.3 MB for chapter 5's 3-D
viewer) is taken out of the HTML into one file per page, ``_figures/<page>.js``, and a small loader fetches
``plotly.min.js`` (served from the book's own ``_static``, copied there from ``assets/``) after the page's load event,
then that file: the text, tables and formulas are there at once, the figures draw, fully interactive, a moment later.
A list of hover texts that a figure repeats (chapter 5's viewer shows each data set's documents under two maps) is
written once in that file and shared by the traces that show it. Registered in ``_config.yml``
(``sphinx: local_extensions``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

PLOTLY_JS = "plotly.min.js"
MARKER = "plotly-graph-div"
FIGURES = "_figures"  # the figures' scripts, one file per page: _figures/<pagename>.js
# the script that plotly's to_html writes after each figure's div: it calls Plotly.newPlot
_FIGURE_SCRIPT = re.compile(r'<script(?: type="text/javascript")?>(\s*window\.PLOTLYENV.*?)</script>', re.S)
_TEXTS = re.compile(r'"text":(\[(?:"(?:[^"\\]|\\.)*",?)+\])')
_SHARED_TEXTS = 10_000  # characters: a shorter list stays where it is
_LOADER = """window.addEventListener('load', () => {
  const load = (src, then) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = then;
    document.head.appendChild(script);
  };
  load(%s, () => load(%s));
});"""


def share_texts(script: str) -> str:
    """``script`` (one figure's) as a block in which each list of hover texts longer than ``_SHARED_TEXTS`` characters
    that it repeats is one constant, written once.

    >>> texts = '["' + 'a' * _SHARED_TEXTS + '"]'
    >>> shared = share_texts(f'Plotly.newPlot("f", [{{"text":{texts}}}, {{"text":{texts}}}, {{"text":["b"]}}])')
    >>> shared.count(texts), shared.replace(texts, "T")
    (1, '{const texts0 = T;\\nPlotly.newPlot("f", [{"text":texts0}, {"text":texts0}, {"text":["b"]}])}')
    """
    found = [match.group(1) for match in _TEXTS.finditer(script)]
    repeated = [t for t in dict.fromkeys(found) if len(t) > _SHARED_TEXTS and found.count(t) > 1]
    if not repeated:
        return script
    names = {texts: f"texts{i}" for i, texts in enumerate(repeated)}
    body = _TEXTS.sub(lambda m: f'"text":{names[m.group(1)]}' if m.group(1) in names else m.group(0), script)
    return "{" + "".join(f"const {name} = {texts};\n" for texts, name in names.items()) + body + "}"


def take_figures(body: str) -> tuple[str, str]:
    """(``body`` without its plotly figures' drawing scripts, those scripts as one script in page order).

    >>> take_figures('<div class="plotly-graph-div"></div><script>window.PLOTLYENV={}; Plotly.newPlot(1)</script>')
    ('<div class="plotly-graph-div"></div>', 'window.PLOTLYENV={}; Plotly.newPlot(1);\\n')
    """
    scripts = [share_texts(match.group(1).strip()) + ";\n" for match in _FIGURE_SCRIPT.finditer(body)]
    return _FIGURE_SCRIPT.sub("", body), "".join(scripts)


def add_plotly_where_needed(app, pagename, templatename, context, doctree):
    # Sphinx resets per-page script files after each page, so this adds the loader to this page only.
    if MARKER in context.get("body", ""):
        context["body"], scripts = take_figures(context["body"])
        figures = Path(app.outdir) / FIGURES / f"{pagename}.js"
        figures.parent.mkdir(parents=True, exist_ok=True)
        figures.write_text(scripts, encoding="utf-8")
        urls = (context["pathto"](f"_static/{PLOTLY_JS}", 1), context["pathto"](f"{FIGURES}/{pagename}.js", 1))
        app.add_js_file(None, body=_LOADER % tuple(map(json.dumps, urls)))


def setup(app):
    app.connect("html-page-context", add_plotly_where_needed)
    return {"version": "1.2", "parallel_read_safe": True, "parallel_write_safe": True}
