"""Sphinx extension: the book's formulas typeset once, at build time, as SVG; no page loads MathJax.

MathJax's browser component (``tex-chtml.js``, 1.2 MB, and its web fonts) made up a third of every page with a
formula. When the HTML build finishes, this collects every formula Sphinx wrote for MathJax
(``<span class="math">\\(...\\)</span>`` and ``<div class="math">\\[...\\]</div>``), typesets them all in one run of
MathJax 3 under node (``_ext/tex2svg.js``, with the MathJax files that ``make setup`` puts into
``assets/mathjax/node``), writes each SVG in place with MathJax's own style sheet (with its TeX source as the
SVG's accessible name, ``aria-label``, and as visually hidden text that in-page search and copying see), and removes
the MathJax script tags and ``_static/mathjax`` (the build output only; ``assets/`` keeps its files). The formulas
share their glyphs: each SVG refers to a glyph by id (MathJax's global font cache), and a page carries the path of
each glyph it uses once, in a hidden ``<svg>`` at the start of its body. A formula MathJax cannot typeset fails the
build. Registered in ``_config.yml`` (``sphinx: local_extensions``).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.errors import ExtensionError

NODE_MAIN = Path("assets") / "mathjax" / "node" / "es5" / "node-main.js"
_FORMULA = re.compile(r'(<(span|div) class="math notranslate nohighlight">)\s*\\[(\[](.*?)\\[)\]]\s*(</\2>)', re.S)
_SCRIPTS = re.compile(
    r'\s*<script>window\.MathJax = .*?</script>|\s*<script[^>]*src="[^"]*_static/mathjax/[^"]*"'
    r"[^>]*></script>",
    re.S,
)
_STYLE = "regemb-static-math"
_TEXT = "regemb-math-text"
_GLYPHS = "regemb-math-glyphs"  # hidden (assets/regemb.css)
_GLYPH_USE = re.compile(r'<use[^>]*xlink:href="#([^"]+)"')
_BODY = re.compile(r"<body[^>]*>")


def typeset(formulas: list[tuple[str, bool]], node_main: Path) -> tuple[str, list[str], dict[str, str]]:
    """(style sheet, one SVG per formula, {glyph id: its ``<path>``}) for ``formulas`` [(TeX, display), ...], typeset
    by MathJax in node."""
    script = Path(__file__).with_name("tex2svg.js")
    done = subprocess.run(
        ["node", str(script), str(node_main.resolve())], input=json.dumps(formulas), capture_output=True, text=True
    )
    if done.returncode:
        raise ExtensionError(f"MathJax could not typeset the book's formulas: {done.stderr.strip()}")
    result = json.loads(done.stdout)
    return result["css"], result["svg"], result["glyphs"]


def glyph_defs(page: str, glyphs: dict[str, str]) -> str:
    """The hidden ``<svg>`` holding the paths of the glyphs that ``page``'s formulas use, each once ('' if none).

    >>> glyph_defs('<use xlink:href="#G-x"></use><use xlink:href="#G-x"></use>', {"G-x": '<path id="G-x"></path>',
    ...                                                                               "G-y": '<path id="G-y"></path>'})
    '<svg class="regemb-math-glyphs" aria-hidden="true"><defs><path id="G-x"></path></defs></svg>'
    """
    used = dict.fromkeys(_GLYPH_USE.findall(page))
    if not used:
        return ""
    return f'<svg class="{_GLYPHS}" aria-hidden="true"><defs>{"".join(glyphs[g] for g in used)}</defs></svg>'


def static_math(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    node_main = Path(app.srcdir) / NODE_MAIN
    if not node_main.is_file():
        raise ExtensionError(f"{node_main} is missing: run `make setup` (it copies MathJax's node files there)")
    pages = {page: page.read_text(encoding="utf-8") for page in out.rglob("*.html")}
    found = {}
    for text in pages.values():
        for match in _FORMULA.finditer(text):
            found.setdefault((html.unescape(match.group(3)).strip(), match.group(2) == "div"), len(found))
    css, svgs, glyphs = typeset(list(found), node_main) if found else ("", [], {})
    style = f'<style id="{_STYLE}">{css}</style>'

    def replace(match):
        tex = html.unescape(match.group(3)).strip()
        svg = svgs[found[tex, match.group(2) == "div"]]
        label = html.escape(" ".join(tex.split()), quote=True)
        svg = svg.replace('role="img"', f'role="img" aria-label="{label}"', 1)  # the formula's accessible name
        # and its TeX as text that in-page search and copying see, visually hidden (assets/regemb.css)
        return f'{match.group(1)}{svg}<span class="{_TEXT}">{html.escape(tex)}</span>{match.group(4)}'

    for page, text in pages.items():
        typeset_text, formulas = _FORMULA.subn(replace, text)
        typeset_text = _SCRIPTS.sub("", typeset_text)
        if formulas:
            typeset_text = typeset_text.replace("</head>", f"{style}\n</head>", 1)
            defs = glyph_defs(typeset_text, glyphs)
            typeset_text = _BODY.sub(lambda body: body.group(0) + defs, typeset_text, count=1)
        if typeset_text != text:
            page.write_text(typeset_text, encoding="utf-8")
    shutil.rmtree(out / "_static" / "mathjax", ignore_errors=True)


def setup(app):
    app.connect("build-finished", static_math)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
