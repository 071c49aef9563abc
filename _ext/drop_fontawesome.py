"""Sphinx extension: the book's pages without the theme's fontawesome.js (1.5 MB on every page).

pydata-sphinx-theme adds ``_static/scripts/fontawesome.js`` to every page "so that users can add custom icons": it
replaces ``<i class="fa-...">`` elements with inline SVG. The book adds no icon of its own, and the theme's style sheet
already draws its few icons (menu, contents, search) from Font Awesome's web fonts, which it ships and which stay. The
script has no configuration option, so when the HTML build finishes this removes its ``<script>`` tag from every page
and the file (and its source map) from ``_static``; a build in which no page carried the tag fails, so that a theme
upgrade that moves it is noticed. Registered in ``_config.yml`` (``sphinx: local_extensions``).
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.errors import ExtensionError

SCRIPT = "fontawesome.js"
_TAG = re.compile(r'\s*<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>')


def drop_fontawesome(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    pages = 0
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lean, found = _TAG.subn("", text)
        if found:
            page.write_text(lean, encoding="utf-8")
            pages += 1
    if not pages:
        raise ExtensionError(f"no page loads {SCRIPT}: the theme changed; update _ext/drop_fontawesome.py")
    for path in (out / "_static" / "scripts").glob(f"{SCRIPT}*"):
        path.unlink()


def setup(app):
    app.connect("build-finished", drop_fontawesome)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
