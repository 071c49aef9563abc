"""The book end to end: every chapter executed with the smoke profile into a temporary directory (the committed
notebooks are never touched), the book built from them with warnings as errors, and the built pages checked in
headless Chromium: plotly figures and formulas render from the book's own files, with no network, and every page is
readable (nothing wider than the text column, no nan/None in tables, every figure captioned and numbered).

``REGEMB_BOOK_HTML=_build/html pytest -m book -k readable`` runs the readability check on an already built book
(e.g. the one built from the committed notebooks) without executing any chapter."""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from book_sources import copy_book_sources
from conftest import once

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.book


@pytest.fixture(scope="session")
def book(smoke_chapters, tmp_path_factory):
    """The book built with warnings as errors from the smoke chapters (both made once per session: conftest.py)."""
    cache, notebooks = smoke_chapters

    def build(where):
        copy_book_sources(where)
        shutil.copytree(notebooks, where / "notebooks")
        subprocess.run([BIN / "jupyter-book", "build", "--warningiserror", "--keep-going", where], check=True,
                       env=dict(os.environ, REGEMB_CACHE=str(cache)))

    return once(tmp_path_factory, "smoke-book", build)


def test_chapters_ran_without_errors(book):
    executed = sorted((book / "notebooks").glob("*.ipynb"))
    assert [p.name for p in executed] == [p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    for path in executed:
        notebook = json.loads(path.read_text())
        outputs = [o for c in notebook["cells"] for o in c.get("outputs", [])]
        widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert not widgets, f"{path.name}: a progress bar was saved as a widget (REGEMB_PROGRESS=text not honoured)"
        errors = [o for o in outputs if o["output_type"] == "error"]
        assert not errors, f"{path.name}: {errors[0]['ename']}: {errors[0]['evalue']}"
        streams = "".join("".join(o["text"]) for o in outputs if o["output_type"] == "stream")
        assert "\r" not in streams, f"{path.name} keeps every progress-bar update"
        for cell in notebook["cells"]:
            kinds = [o.get("name") if o["output_type"] == "stream" else None for o in cell.get("outputs", [])]
            assert not any(a is not None and a == b for a, b in zip(kinds, kinds[1:])), \
                f"{path.name}: a stream split into many outputs"


def test_pages_load_nothing_from_the_network(book):
    pages = list((book / "_build" / "html").rglob("*.html"))
    assert pages
    for page in pages:
        external = re.findall(r'<script[^>]+src="(https?://[^"]+)"', page.read_text())
        assert not external, f"{page.name} loads scripts from {external}"


@pytest.fixture(scope="module")
def served(book):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(book / "_build" / "html"))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def rendered_dom(url: str, tmp_path: Path) -> str:
    """The page's DOM after its scripts ran, from headless Chromium."""
    from regemb_utils.study.browser import CHROMIUM_FLAGS, chromium_path

    result = subprocess.run(
        [
            chromium_path() or "chromium", *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'chromium'}", "--virtual-time-budget=20000", "--dump-dom", url,
        ],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return result.stdout


def test_formula_renders(served, tmp_path):
    dom = rendered_dom(f"{served}/intro.html", tmp_path)
    assert "<mjx-container" in dom, "MathJax did not typeset the formula on the introduction page"


def test_plotly_figure_renders(served, tmp_path):
    dom = rendered_dom(f"{served}/notebooks/01_preprocessing.html", tmp_path)
    assert 'class="main-svg"' in dom, "no plotly figure was drawn on the preprocessing chapter"
    assert "<mjx-container" in dom


def test_3d_document_map_renders(served, tmp_path):
    dom = rendered_dom(f"{served}/notebooks/05_confusion_tsne.html", tmp_path)
    assert dom.count('class="gl-container"') == 1, "chapter 5 should draw exactly one 3-D t-SNE viewer at load"
    scenes = dom.split('class="gl-container"')[1:]
    assert all("<canvas" in scene for scene in scenes), "a 3-D scene has no WebGL canvas"
    assert "WebGL is not supported" not in dom


def test_plotly_js_only_where_needed(book):
    html = book / "_build" / "html"
    for page in html.rglob("*.html"):
        text = page.read_text()
        loads = "plotly.min.js" in text
        assert loads == ("plotly-graph-div" in text), \
            f"{page.relative_to(html)} {'loads' if loads else 'does not load'} plotly.js"


def test_landing_page_leads_with_the_scorecard_headline(book):
    page = (book / "_build" / "html" / "intro.html").read_text()
    headline = page[page.index('id="the-answer-first"'):page.index('id="what-the-paper-claims"')]
    assert headline.count('class="pasted-text"') == 13, "the headline's numbers were not pasted from the scorecard"
    verdicts = headline[headline.index('<table class="regemb-table'):headline.index("</table>")]
    assert ">verdict</th>" in verdicts, "the verdict table was not pasted from the scorecard"
    links = re.findall(r'<a href="([^"#]+)#([^"]+)">', verdicts)
    assert len(links) >= 4, "every claim links to where the book shows it"
    for target, anchor in links:  # each link lands on an existing page and anchor
        linked = (book / "_build" / "html" / target).read_text()
        assert f'id="{anchor}"' in linked, f"the verdict table links to {target}#{anchor}, which does not exist"


# ---------------------------------------------------------------------------------------------------------------------
# Readability of every built page, measured in the browser's layout (1280 x 1000 window, the theme's desktop layout)

# Inside the page: the article column, then three kinds of problem. Elements inside a horizontally scrolling container
# count too (a table that has to be scrolled is wider than the column); only the outermost offender is reported.
_READABILITY_PROBE = r"""
(() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const column = article.getBoundingClientRect();
  const describe = (el) => {
    const figure = el.closest('figure');
    const caption = figure && figure.querySelector('.caption-number');
    const section = el.closest('section');
    const heading = section && section.querySelector('h1, h2, h3');
    const where = caption ? caption.textContent.trim() : (heading ? heading.textContent.replace('#', '').trim() : '');
    const text = (el.innerText || el.getAttribute('alt') || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ?
      '.' + el.className.trim().split(/\s+/).join('.') : ''} in "${where}": "${text}"`;
  };
  const ignored = (el) => el.closest('.margin, .sidebar, aside, mjx-assistive-mml, .headerlink, .copybtn');
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const problems = {overflow: [], missing: [], uncaptioned: [], wide_code: []};
  // 1. horizontal overflow of the text column. Code listings (<pre>) scroll in their own box by design: a long code
  // line is reported once per listing under "wide_code", which the test does not count as a failure.
  const offenders = new Set(), listings = new Set();
  const extent = (el) => { const r = el.getBoundingClientRect(); return [r.left - column.left, r.right - column.left]; };
  for (const el of article.querySelectorAll('*')) {
    if (ignored(el) || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.left < column.left - 1 || r.right > column.right + 1) {
      const listing = el.closest('pre');
      if (listing && listing !== el) {
        if (!listings.has(listing)) {
          listings.add(listing);
          problems.wide_code.push(`${describe(listing)} has a line wider than the column`);
        }
        continue;
      }
      let outer = el.parentElement, covered = false;
      while (outer && outer !== article) { if (offenders.has(outer)) { covered = true; break; } outer = outer.parentElement; }
      offenders.add(el);
      const [left, right] = extent(el);
      if (!covered) problems.overflow.push(`${describe(el)} spans ${Math.round(left)} to ${Math.round(right)} px ` +
                                            `of a ${Math.round(column.width)} px column`);
    }
  }
  // 2. nan / NaN / None shown in a table cell
  for (const cell of article.querySelectorAll('table td, table th')) {
    const text = cell.innerText.trim();
    if (/\b(nan|NaN|None)\b/.test(text)) problems.missing.push(`${describe(cell)}`);
  }
  // 3. figures (images and plotly figures) without a numbered caption
  const figures = [...article.querySelectorAll('img, .plotly-graph-div')].filter(el => !ignored(el) &&
    !(el.tagName === 'IMG' && el.closest('.plotly-graph-div')));
  for (const el of figures) {
    const figure = el.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    if (!caption || !caption.querySelector('.caption-number') || !caption.innerText.replace(/^\s*Fig\.\s*[\d.]+\s*/, '').trim()) {
      problems.uncaptioned.push(describe(el));
    }
  }
  return problems;
})()
"""


def readability_problems(browser, url: str) -> dict[str, list[str]]:
    """What makes the page at ``url`` hard to read: elements wider than the text column ("overflow"), table cells
    showing nan/NaN/None ("missing"), and images or plotly figures without a numbered caption ("uncaptioned")."""
    browser.navigate(url)
    browser.evaluate("document.fonts.ready.then(() => new Promise(r => setTimeout(r, 500)))", await_promise=True)
    return browser.evaluate(_READABILITY_PROBE)


def book_pages(html: Path) -> list[str]:
    """The reader's pages of a built book (not the search page, the index or the redirect)."""
    skip = {"search.html", "genindex.html", "index.html"}
    return sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html")
                  if p.name not in skip and "_static" not in p.parts and "_sources" not in p.parts)


@pytest.fixture(scope="module")
def built_html(request):
    """The built book's HTML: ``$REGEMB_BOOK_HTML`` if set (no chapter is run), else the smoke build."""
    given = os.environ.get("REGEMB_BOOK_HTML")
    if given:
        return Path(given).resolve()
    return request.getfixturevalue("book") / "_build" / "html"


def test_every_page_is_readable(built_html):
    from regemb_utils.study.browser import Chromium, serve

    report = []
    with serve(built_html) as server, Chromium() as browser:
        for page in book_pages(built_html):
            problems = readability_problems(browser, f"{server.url}/{page}")
            for kind, found in problems.items():
                if kind != "wide_code":
                    report += [f"{page}: {kind}: {item}" for item in found]
    assert not report, f"{len(report)} readability problems:\n" + "\n".join(report)
