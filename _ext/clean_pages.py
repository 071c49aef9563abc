"""Sphinx extension: pages whose console stays clean.

* **No thebe.** Jupyter Book always loads sphinx-thebe, which puts its configuration script on every page twice (the
  second copy throws "Identifier 'THEBE_JS_URL' has already been declared"), names thebe's CDN address, and links a
  style sheet and a script; the book runs no live code (``launch_buttons: thebe: false``). When the HTML build
  finishes, this removes those tags from every page and the two files from ``_static``; a build in which no page
  carried them fails, so that a Jupyter Book upgrade that changes them is noticed.
* **Whole tokens in tables.** A browser may break a line after a hyphen, a slash or a vertical bar, which splits
  "TF-IDF" or "non-regularized" across two lines of a table cell; every such token of a cell's text is wrapped in
  ``<span class="regemb-token">`` (``white-space: nowrap``, ``assets/regemb.css``), so a table wraps only between
  tokens (a wider table scrolls in its own box). A number stays on the line of the "≈" before it and of the "%"
  after it (a non-breaking space).
* **A valid colour mode.** The theme reads the reader's saved mode or else ``default_mode``, which Jupyter Book leaves
  empty ("Got invalid theme mode"); it is set to ``auto`` (the system's setting).

Registered in ``_config.yml`` (``sphinx: local_extensions``); the favicon is ``html: favicon``.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.errors import ExtensionError

_TAGS = (
    re.compile(r'\s*<link[^>]*href="[^"]*_static/sphinx-thebe\.css[^"]*"[^>]*/?>'),
    re.compile(r"\s*<script>const THEBE_JS_URL = [^<]*</script>"),
    re.compile(r'\s*<script[^>]*src="[^"]*_static/sphinx-thebe\.js[^"]*"[^>]*></script>'),
    re.compile(r'\s*<script type="text/x-thebe-config">.*?</script>', re.S),
)


_CELL = re.compile(r"(<t[dh]\b[^>]*>)(.*?)(</t[dh]>)", re.S)
_TAG = re.compile(r"(<[^>]+>)")
_TOKEN = re.compile(r"[^\s<>]+")
_BREAKS_AFTER = re.compile(r"[-|/\u2010\u2013](?=[^\s<>])")  # a browser may break a line after these
# one unit each: "≈ 80.7", "95 %", "q = 3e-55", "Figure 10", "Chapter 2", "Table 1"
_GLUED = re.compile(
    r"(?<=≈) (?=[^\s<>])|(?<=\d) (?=%)|(?<==) (?=[^\s<>])|(?<=[^\s<>]) (?==)"
    r"|(?<=Figure) (?=\d)|(?<=Chapter) (?=\d)|(?<=Table) (?=\d)"
)


def whole_tokens(page: str) -> str:
    """``page`` with every token of a table cell's text that a browser could break inside (after a hyphen, a slash or
    a vertical bar) kept on one line.

    >>> whole_tokens('<td class="x">TF-IDF <b>non-zero</b> |⟨e′ᵢ, 3 - 2</td><p>a-b</p>')
    '<td class="x"><span class="regemb-token">TF-IDF</span> <b><span class="regemb-token">non-zero</span></b> <span class="regemb-token">|⟨e′ᵢ,</span> 3 - 2</td><p>a-b</p>'
    >>> whole_tokens('<th>lower (95 %)</th><td>≈ 3,430,000 (q = 3e-55), Figure 10</td><p>≈ 1</p>').replace("\u00a0", "~")
    '<th>lower (95~%)</th><td>≈~3,430,000 (q~=~<span class="regemb-token">3e-55),</span> Figure~10</td><p>≈ 1</p>'
    """

    def cell(match):
        parts = _TAG.split(match.group(2))  # text, tag, text, ...: only the text is touched
        text = "".join(part if i % 2 else _TOKEN.sub(_kept, _GLUED.sub("\u00a0", part)) for i, part in enumerate(parts))
        return match.group(1) + text + match.group(3)

    return _CELL.sub(cell, page)


def _kept(token: re.Match) -> str:
    text = token.group(0)
    return f'<span class="regemb-token">{text}</span>' if _BREAKS_AFTER.search(text) else text


def default_mode(app, config):
    config.html_context = dict(config.html_context or {}, default_mode="auto")  # pydata-sphinx-theme reads it there


def drop_thebe(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    pages = 0
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        found = 0
        for tag in _TAGS:
            text, n = tag.subn("", text)
            found += n
        if found:
            page.write_text(text, encoding="utf-8")
            pages += 1
    if not pages:
        raise ExtensionError("no page carries sphinx-thebe's tags: Jupyter Book changed; update _ext/clean_pages.py")
    for path in (out / "_static").glob("sphinx-thebe.*"):
        path.unlink()


def keep_tokens_whole(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        kept = whole_tokens(text)
        if kept != text:
            page.write_text(kept, encoding="utf-8")


def setup(app):
    app.connect("config-inited", default_mode)
    app.connect("build-finished", drop_thebe)
    app.connect("build-finished", keep_tokens_whole)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
