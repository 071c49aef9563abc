"""Sphinx extension: pages whose console stays clean.

* **No thebe.** Jupyter Book always loads sphinx-thebe, which puts its configuration script on every page twice (the
  second copy throws "Identifier 'THEBE_JS_URL' has already been declared"), names thebe's CDN address, and links a
  style sheet and a script; the book runs no live code (``launch_buttons: thebe: false``). When the HTML build
  finishes, this removes those tags from every page and the two files from ``_static``; a build in which no page
  carried them fails, so that a Jupyter Book upgrade that changes them is noticed.
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
    re.compile(r'\s*<script>const THEBE_JS_URL = [^<]*</script>'),
    re.compile(r'\s*<script[^>]*src="[^"]*_static/sphinx-thebe\.js[^"]*"[^>]*></script>'),
    re.compile(r'\s*<script type="text/x-thebe-config">.*?</script>', re.S),
)


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


def setup(app):
    app.connect("config-inited", default_mode)
    app.connect("build-finished", drop_thebe)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
