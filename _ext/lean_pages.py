"""Sphinx extension: pages that load only what they use.

When the HTML build finishes (after the other extensions have written the pages):

* **The search index only where search runs.** pydata-sphinx-theme puts ``searchtools.js``, ``language_data.js`` and
  ``searchindex.js`` (220 KB) on every page for its search-as-you-type option, which the book leaves off: its search
  box sends the query to ``search.html``, which loads them itself. They are removed from every other page; a build in
  which no page carried them fails, so that a theme upgrade that changes them is noticed.
* **Only the style rules that the book can use.** Every style sheet in ``_static`` loses the rules whose selectors all
  name a class that appears nowhere in the book: not as a word of any page (the HTML) nor of any script in
  ``_static`` (scripts that add classes, e.g. Bootstrap's ``show``). What a class inside ``:not(...)``, ``:is(...)``
  or ``:has(...)`` needs is not judged (such selectors stay). This drops most of Bootstrap's utilities and Font
  Awesome's 2,000 icon rules from the theme's style sheet (397 KB to 180 KB).
* **Only the icons used.** The icon fonts (Font Awesome's, 156 KB for the solid one) are cut to the glyphs that the
  remaining rules name (``content: "\\f0c9"``, the characters of the theme's ``--pst-icon-...`` variables), as WOFF
  (fontTools), and
  their ``@font-face`` rules point to those files; the original WOFF2 and TrueType files are not shipped.
* **No files no page reads:** source maps (and the comments that name them) and the theme's translations
  (``_static/locales``: the pages are translated at build time).
* **Figures recompressed.** Every PNG in ``_images`` is saved again with Pillow's strongest lossless compression
  where that is smaller: the same pixels in fewer bytes (about 3 %).
* **Notebooks to download without their outputs.** The pages' download button offers each chapter's notebook
  (``_sources/notebooks/*.ipynb``); its outputs are the page itself (the figures' data twice, 5.9 MB in all), so the
  copy offered has the chapter's code and text with its outputs cleared (0.3 MB), ready to run.

Registered in ``_config.yml`` (``sphinx: local_extensions``).
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

from sphinx.errors import ExtensionError

SEARCH_PAGE = "search.html"
_SEARCH_TAGS = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)"'
    r"></script>"
)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")  # an innermost rule: selectors { declarations }
_EMPTY_BLOCK = re.compile(r"@(?:media|supports)[^{}]*\{\s*\}")
_PREFIX = re.compile(r"^(?:\s*(?:@[^;{}]*;|/\*.*?\*/))*\s*", re.S)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_FUNCTIONAL = re.compile(r":(?:not|is|where|has)\([^()]*\)")
_CLASS = re.compile(r"\.(-?[_a-zA-Z][_a-zA-Z0-9-]*)")
_WORD = re.compile(r"[_a-zA-Z][_a-zA-Z0-9-]*")
_SOURCE_MAP = re.compile(r"\n?(?://# sourceMappingURL=\S+|/\*# sourceMappingURL=\S+ ?\*/)\s*$")
_FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
_FONT_URL = re.compile(r"url\(([^)]*?/webfonts/([^)/]+?))\.woff2\)")
_CODEPOINT = re.compile(r"\\([0-9a-fA-F]{4,6})(?![0-9a-fA-F])")


def _selectors(group: str) -> list[str]:
    """The selectors of a comma-separated group (commas inside parentheses or brackets do not separate)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(group):
        depth += char in "([" and 1 or char in ")]" and -1 or 0
        if char == "," and depth == 0:
            parts.append(group[start:i])
            start = i + 1
    return [*parts, group[start:]]


def purge_css(css: str, words: set[str]) -> str:
    """``css`` without the rules whose every selector names a class that is not in ``words``.

    >>> purge_css("@import url(x.css);/* c */.a{x:1}.b,.c:is(.b,.c){y:2}@media (min-width:1px){.d:not(.e){z:3}.f{w:4}}",
    ...           {"a", "c", "d"})
    '@import url(x.css);/* c */.a{x:1}.c:is(.b,.c){y:2}@media (min-width:1px){.d:not(.e){z:3}}'
    """

    def keep(match):
        group, body = match.group(1), match.group(2)
        prefix = _PREFIX.match(group).group(0)  # at-statements and comments before the rule stay
        rest = group[len(prefix) :]
        if not rest or rest.startswith("@") or "\\" in rest:  # an at-rule's block, or an escaped class name
            return match.group(0)
        alive = [
            s.strip()
            for s in _selectors(_COMMENT.sub("", rest))
            if all(name in words for name in _CLASS.findall(_FUNCTIONAL.sub("", s)))
        ]
        return f"{prefix}{','.join(alive)}{{{body}}}" if alive else prefix

    purged = _RULE.sub(keep, css)
    while (emptied := _EMPTY_BLOCK.sub("", purged)) != purged:
        purged = emptied
    return purged


def subset_font(source: Path, target: Path, codepoints: set[int]) -> None:
    """``source`` cut to the glyphs of ``codepoints`` (those it has), written as WOFF to ``target``."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # not a line per table into the build's log
    font = TTFont(source)
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=codepoints & set(font.getBestCmap()))
    subsetter.subset(font)
    font.flavor = "woff"
    font.save(target)


def without_outputs(notebook: dict) -> dict:
    """``notebook`` (nbformat's JSON) with every code cell's outputs and execution count cleared.

    >>> code = {"cell_type": "code", "source": "1", "outputs": [{"data": {}}], "execution_count": 3}
    >>> without_outputs({"cells": [code, {"cell_type": "markdown", "source": "text"}]})["cells"][0]
    {'cell_type': 'code', 'source': '1', 'outputs': [], 'execution_count': None}
    """
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
    return notebook


def recompress_png(path: Path) -> None:
    """Save the PNG at ``path`` again with Pillow's strongest lossless compression, if that makes it smaller (the
    pixels stay the same)."""
    import io

    from PIL import Image

    data = path.read_bytes()
    with Image.open(io.BytesIO(data)) as image:
        smaller = io.BytesIO()
        image.save(smaller, format="PNG", optimize=True)
    if smaller.tell() < len(data):
        path.write_bytes(smaller.getvalue())


def lean_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    pages = {page: page.read_text(encoding="utf-8") for page in out.rglob("*.html") if static not in page.parents}
    searching = 0
    for page, text in pages.items():
        if page.name != SEARCH_PAGE or page.parent != out:
            text, found = _SEARCH_TAGS.subn("", text)
            if found:
                page.write_text(text, encoding="utf-8")
                pages[page] = text
                searching += 1
    if not searching:
        raise ExtensionError("no page loads the search index: the theme changed; update _ext/lean_pages.py")

    for image in (out / "_images").glob("*.png"):
        recompress_png(image)
    for source in (out / "_sources").rglob("*.ipynb"):
        notebook = without_outputs(json.loads(source.read_text(encoding="utf-8")))
        source.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(static / "locales", ignore_errors=True)
    for path in static.rglob("*.map"):
        path.unlink()
    scripts = [p.read_text(encoding="utf-8", errors="replace") for p in static.rglob("*.js")]
    words = {word for text in (*pages.values(), *scripts) for word in _WORD.findall(text)}
    sheets = {}
    for sheet in static.rglob("*.css"):
        sheets[sheet] = purge_css(_SOURCE_MAP.sub("", sheet.read_text(encoding="utf-8")), words)
    for script in static.rglob("*.js"):
        text = script.read_text(encoding="utf-8", errors="replace")
        if _SOURCE_MAP.search(text):
            script.write_text(_SOURCE_MAP.sub("", text), encoding="utf-8")

    # the icon fonts: the characters that the remaining rules outside @font-face name, as escapes ("\f0c9") or as
    # themselves (the theme's variables, e.g. --pst-icon-bell, hold the private-use character)
    codepoints = set()
    for css in sheets.values():
        rules = _FONT_FACE.sub("", css)
        codepoints |= {int(code, 16) for code in _CODEPOINT.findall(rules)} | {ord(c) for c in rules if ord(c) > 127}
    for sheet, css in sheets.items():

        def lean_face(face):
            found = _FONT_URL.search(face.group(0))
            if not found:
                return face.group(0)
            font = (sheet.parent / found.group(1)).resolve()  # fontTools reads the TrueType file (WOFF2 needs brotli)
            subset_font(font.with_suffix(".ttf"), font.with_suffix(".woff"), codepoints)
            return re.sub(r"src:[^;}]*", f'src:url({found.group(1)}.woff) format("woff")', face.group(0))

        sheets[sheet] = _FONT_FACE.sub(lean_face, css)
    for sheet, css in sheets.items():
        sheet.write_text(css, encoding="utf-8")
    for font in static.rglob("webfonts/*"):
        if font.suffix in (".woff2", ".ttf"):
            font.unlink()


def setup(app):
    app.connect("build-finished", lean_pages, priority=900)  # after the extensions that write the pages
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
