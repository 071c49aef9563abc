"""The book end to end: every chapter executed with the smoke profile into a temporary directory (the committed
notebooks are never touched), the book built from them with warnings as errors, and the built pages checked in
headless Chromium: plotly figures and formulas render from the book's own files, with no network, and every page is
readable (nothing wider than the text column, no nan/None in tables, every figure captioned and numbered).

``REGEMB_BOOK_HTML=_build/html pytest -m book -k "readable or fit or formula or plotly or clean_console"`` runs the
checks of the built pages on an already built book (e.g. the one built from the committed notebooks) without
executing any chapter."""

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

import regemb_utils
from regemb_utils.book.style import RESOLUTION
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
        subprocess.run(
            [BIN / "jupyter-book", "build", "--warningiserror", "--keep-going", where],
            check=True,
            env=dict(os.environ, REGEMB_CACHE=str(cache)),
        )

    return once(tmp_path_factory, "smoke-book", build)


@pytest.fixture(scope="session")
def book_cache(smoke_chapters, tmp_path_factory):
    """A copy of the artifact cache of the smoke run the book was built from, made once per session (the explorer
    may add artifacts to it; the session's own cache stays read-only)."""
    return once(
        tmp_path_factory, "book-cache", lambda where: shutil.copytree(smoke_chapters[0], where, dirs_exist_ok=True)
    )


def test_chapters_ran_without_errors(book):
    executed = sorted((book / "notebooks").glob("*.ipynb"))
    assert [p.name for p in executed] == [p.name for p in sorted((ROOT / "notebooks").glob("0*.ipynb"))]
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
            assert not any(a is not None and a == b for a, b in zip(kinds, kinds[1:])), (
                f"{path.name}: a stream split into many outputs"
            )


def test_exercise_solutions_state_what_they_compute(book):
    from exercise_claims import check_exercise_claims

    assert check_exercise_claims(book / "notebooks") == 14


def test_pages_load_nothing_from_the_network(built_html):
    pages = list(built_html.rglob("*.html"))
    assert pages
    for page in pages:
        external = re.findall(r'<script[^>]+src="(https?://[^"]+)"', page.read_text())
        assert not external, f"{page.name} loads scripts from {external}"


@pytest.fixture(scope="module")
def served(built_html):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_html))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def rendered_dom(url: str, tmp_path: Path) -> str:
    """The page's DOM after its scripts ran, from headless Chromium."""
    from browser import CHROMIUM_FLAGS, chromium_path

    result = subprocess.run(
        [
            chromium_path() or "chromium",
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'chromium'}",
            "--virtual-time-budget=20000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
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


def test_plotly_js_only_where_needed(built_html):
    html = built_html
    for page in html.rglob("*.html"):
        text = page.read_text()
        loads = "plotly.min.js" in text
        assert loads == ("plotly-graph-div" in text), (
            f"{page.relative_to(html)} {'loads' if loads else 'does not load'} plotly.js"
        )


def test_landing_page_leads_with_the_scorecard_headline(book):
    page = (book / "_build" / "html" / "intro.html").read_text()
    headline = page[page.index('id="the-answer-first"') : page.index('id="what-the-paper-claims"')]
    source = (ROOT / "intro.md").read_text()  # every number of these sections is a glue reference
    glued = source[source.index("## The answer, first") : source.index("## What the paper claims")].count("{glue:text}")
    assert glued >= 10 and headline.count('class="pasted-text"') == glued, (
        "the headline's numbers were not pasted from the scorecard"
    )
    verdicts = headline[headline.index('<table class="regemb-table') : headline.index("</table>")]
    assert ">verdict</th>" in verdicts, "the verdict table was not pasted from the scorecard"
    links = re.findall(r'<a href="([^"#]+)#([^"]+)">', verdicts)
    assert len(links) >= 4, "every claim links to where the book shows it"
    version = regemb_utils.__version__
    assert f"This is version {version} of the book" in page, "the landing page shows the package's version"
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
  const problems = {overflow: [], missing: [], uncaptioned: [], wide_code: [], wide_table: []};
  // 1. horizontal overflow of the text column. Code listings (<pre>) and the book's tables scroll in their own box by
  // design (a table never breaks a word to fit): each is reported once under "wide_code" or "wide_table", which the
  // test does not count as a failure.
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
      const box = el.closest('table.regemb-table');  // a book table scrolls in its own box (display: block)
      if (box && box !== el) {
        if (!listings.has(box)) {
          listings.add(box);
          problems.wide_table.push(`${describe(box)} is wider than the column and scrolls in its own box`);
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


_FIGURES_DRAWN = """new Promise(resolve => { const t0 = Date.now(); const check = () => {
    const figures = [...document.querySelectorAll('.plotly-graph-div')];
    if (figures.every(f => f.querySelector('.main-svg')) || Date.now() - t0 > 60000) resolve(true);
    else setTimeout(check, 100); }; check(); })"""


def _settle(browser, server) -> None:
    """Wait until the page's plotly figures have drawn (plotly.js arrives after the load event: _ext/plotly_pages.py),
    nothing more was requested for half a second, and its fonts are ready."""
    import time

    browser.evaluate(_FIGURES_DRAWN, await_promise=True, timeout=90)
    seen, quiet = -1, time.monotonic()
    while time.monotonic() - quiet < 0.5:
        time.sleep(0.1)
        if len(server.requests) != seen:
            seen, quiet = len(server.requests), time.monotonic()
    browser.evaluate("document.fonts.ready.then(() => new Promise(r => setTimeout(r, 500)))", await_promise=True)


def book_pages(html: Path) -> list[str]:
    """The reader's pages of a built book (not the search page, the index or the redirect)."""
    skip = {"search.html", "genindex.html", "index.html"}
    return sorted(
        p.relative_to(html).as_posix()
        for p in html.rglob("*.html")
        if p.name not in skip and "_static" not in p.parts and "_sources" not in p.parts
    )


@pytest.fixture(scope="module")
def built_html(request):
    """The built book's HTML: ``$REGEMB_BOOK_HTML`` if set (no chapter is run), else the smoke build."""
    given = os.environ.get("REGEMB_BOOK_HTML")
    if given:
        return Path(given).resolve()
    return request.getfixturevalue("book") / "_build" / "html"


@pytest.fixture(scope="module")
def desktop_visits(built_html) -> dict[str, dict]:
    """Every page of the book, and the search page, opened once at 1280 px with the browser's cache off and left to
    settle (:func:`_settle`): what its console and network showed ("console"), its readability problems
    ("readability", :data:`_READABILITY_PROBE`), its fit ("fit", :data:`_FIT_PROBE`, which opens every fold) and its
    weight ("weight", :func:`browser.page_weight` with the paths it requested and the plotly trace types it used and
    bundled). The checks below read these visits."""
    from browser import Chromium, page_weight, serve

    visits = {}
    with serve(built_html) as server, Chromium() as browser:
        browser.call("Network.enable")
        browser.call("Network.setCacheDisabled", cacheDisabled=True)
        for page in [*book_pages(built_html), "search.html"]:
            server.requests = []
            browser.record()
            browser.navigate(f"{server.url}/{page}")
            _settle(browser, server)
            visit = {"console": browser.recorded_problems(server.url)}
            visit["readability"] = browser.evaluate(_READABILITY_PROBE)
            paths = [path.split("?", 1)[0].lstrip("/") for path, _ in server.requests]
            visit["weight"] = dict(
                page_weight(page, server.requests),
                paths=paths,
                **browser.evaluate("""({
                used: [...document.querySelectorAll('.plotly-graph-div')]
                    .flatMap(f => (f.data || []).map(t => t.type || 'scatter')),
                bundled: window.Plotly ? Object.keys(Plotly.PlotSchema.get().traces) : []})"""),
            )
            visit["fit"] = browser.evaluate(_FIT_PROBE)
            visits[page] = visit
    return visits


def test_every_page_is_readable(built_html, desktop_visits):
    report = []
    for page in book_pages(built_html):
        for kind, found in desktop_visits[page]["readability"].items():
            if kind not in ("wide_code", "wide_table"):
                report += [f"{page}: {kind}: {item}" for item in found]
    assert not report, f"{len(report)} readability problems:\n" + "\n".join(report)


def test_every_image_says_what_it_shows(built_html):
    """Every image of the book has alt text that describes it (not its file name, which Sphinx gives by default)."""
    missing = []
    for page in book_pages(built_html):
        for tag in re.findall(r"<img\b[^>]*>", (built_html / page).read_text()):
            alt = re.search(r'\balt="([^"]*)"', tag)
            if alt is None or len(alt.group(1).split()) < 5 or re.search(r"\.(png|jpe?g|svg)$", alt.group(1)):
                missing.append(f"{page}: {tag[:120]}")
    assert not missing, f"{len(missing)} images without alt text:\n" + "\n".join(missing)


def test_every_page_has_a_clean_console(built_html, desktop_visits):
    """No page throws, logs an error, fails a request or asks for anything outside the book's own server (thebe is
    dropped, the favicon and the colour mode are set: _ext/clean_pages.py)."""
    report = [f"{page}: {problem}" for page, visit in desktop_visits.items() for problem in visit["console"]]
    assert not report, f"{len(report)} console problems:\n" + "\n".join(report)


# ---------------------------------------------------------------------------------------------------------------------
# The explorer (notebooks/explorer.ipynb) on the smoke run's artifacts: its numbers against the measures computed
# directly, and the page as `make explore` serves it (Voila), driven in headless Chromium


def test_explorer_view_agrees_with_the_measures(book, book_cache):
    import numpy as np

    from regemb_utils.classification.methods import represent_pair
    from regemb_utils.measures.similarity import embedding_matrix, sparse_scm
    from regemb_utils.measures.wmd import wmd, wmd_distances
    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.apps.explorer import Explorer, ExplorerSettings
    from regemb_utils.termsim.sources import restricted

    explorer = Explorer(ArtifactCache(book_cache))
    settings = ExplorerSettings(
        profile="smoke", dataset="twitter", query=3, reference=5, nonzero_limit=20, dominant=False
    )
    view = explorer.view(settings)
    S = explorer.matrix(settings)
    chapter = explorer.chapter("smoke")
    dictionary, documents = chapter.documents(["twitter"], None)
    documents = documents["twitter"]
    vectors = chapter.embeddings()["32-bit"][0]
    embedded = np.array([dictionary[i] in vectors for i in range(len(dictionary))])
    assert view.words == embedded.sum()
    assert view.nonzeros_per_column == pytest.approx(np.diff(S.tocsc().indptr)[embedded].mean())
    S_terms = restricted(S, documents.terms)
    scm_q, scm_r = represent_pair("soft_vsm_ortho", documents, "test", "train")
    wmd_q, wmd_r = represent_pair("wmd", documents, "test", "train")
    rows = embedding_matrix(vectors, dictionary, terms=documents.terms)
    similarities = sparse_scm(scm_q[3], scm_r[: view.references], S_terms)[0]
    distances = wmd_distances(wmd_q[3], wmd_r[: view.references], rows)[0]
    assert view.scm == pytest.approx(similarities[5]) and view.wmd == pytest.approx(wmd(wmd_q[3], wmd_r[5], rows))
    assert view.contributions["contribution to the SCM"].sum() == pytest.approx(view.scm)
    assert view.flows["cost"].sum() == pytest.approx(view.wmd)
    assert view.scm_neighbours["SCM"].tolist() == pytest.approx(sorted(similarities, reverse=True)[:5])
    assert view.wmd_neighbours["WMD"].tolist() == pytest.approx(sorted(distances)[:5])


@pytest.fixture(scope="module")
def explorer_url(book, book_cache):
    """The explorer served as `make explore PROFILE=smoke` serves it, on the smoke run's artifacts."""
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, REGEMB_CACHE=str(book_cache), REGEMB_PROFILE="smoke", JUPYTER_PATH=str(ROOT))
    server = subprocess.Popen(
        [
            BIN / "voila",
            ROOT / "notebooks" / "explorer.ipynb",
            "--template=regemb",
            "--no-browser",
            f"--port={port}",
            "--Voila.ip=127.0.0.1",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "voila/static/voila.js", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Voila did not start") from None
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)


def _shown(browser) -> dict[str, str]:
    """The explorer's numbers (and error message) as the page shows them."""
    return browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#explorer-view [data-value]')]"
        ".map(e => [e.dataset.value, e.textContent]))"
    )


def _until(browser, condition, timeout: float = 90):
    """Wait until ``condition(shown values)`` holds; returns the values."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        shown = _shown(browser)
        if condition(shown):
            return shown
        assert time.monotonic() < deadline, f"the explorer did not update; it shows {shown}"
        time.sleep(0.1)


def _set(browser, control: str, value) -> None:
    """Set a dropdown or a number field of the explorer as a user does (the change event)."""
    browser.evaluate(f"""(() => {{
      const e = document.querySelector('.explorer-{control} select, .explorer-{control} input');
      e.value = {json.dumps(str(value))};
      e.dispatchEvent(new Event('change', {{bubbles: true}}));
    }})()""")


def _expected(view) -> dict[str, str]:
    return {
        "nonzeros-per-column": f"{view.nonzeros_per_column:.3f}",
        "words": f"{view.words:,d}",
        "off-diagonal": f"{view.off_diagonal:,d}",
        "scm": f"{view.scm:.4f}",
        "wmd": f"{view.wmd:.4f}",
    }


def _open_explorer(browser, url):
    browser.call("Network.enable")
    browser.navigate(url, timeout=120)
    return _until(browser, lambda shown: "scm" in shown)


def test_explorer_answers_a_change_with_the_right_values(explorer_url, book_cache):
    from dataclasses import replace

    from browser import Chromium
    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.apps.explorer import Explorer, ExplorerSettings

    explorer = Explorer(ArtifactCache(book_cache))
    first = ExplorerSettings(profile="smoke")
    with Chromium() as browser:
        shown = _open_explorer(browser, explorer_url)
        assert {k: shown[k] for k in _expected(explorer.view(first))} == _expected(explorer.view(first))
        # a larger C without dominance: S' fills up, the SCM changes, the WMD (which has no S') does not
        wider = replace(first, nonzero_limit=40)
        _set(browser, "nonzero-limit", 40)
        shown = _until(
            browser, lambda s: s.get("nonzeros-per-column") == _expected(explorer.view(wider))["nonzeros-per-column"]
        )
        browser.evaluate("document.querySelector('.explorer-dominant input').click()")
        free = replace(wider, dominant=False)
        expected = _expected(explorer.view(free))
        shown = _until(browser, lambda s: s.get("nonzeros-per-column") == expected["nonzeros-per-column"])
        assert {k: shown[k] for k in expected} == expected
        assert (
            float(expected["nonzeros-per-column"]) > 10 * float(_expected(explorer.view(first))["nonzeros-per-column"])
            and shown["wmd"] == _expected(explorer.view(first))["wmd"]
        )
        # another test document: both measures and the neighbour tables follow it
        _set(browser, "query", 7)
        expected = _expected(explorer.view(replace(free, query=7)))
        shown = _until(browser, lambda s: s.get("wmd") == expected["wmd"])
        assert {k: shown[k] for k in expected} == expected
        table = browser.evaluate(
            "[...document.querySelectorAll('[data-table=scm-neighbours] tr')].slice(1).map(r => r.cells[0].textContent)"
        )
        assert table == [str(i) for i in explorer.view(replace(free, query=7)).scm_neighbours["training document"]]
        requested = {
            event["params"]["request"]["url"].split("/")[2]
            for event in browser._events
            if event["method"] == "Network.requestWillBeSent" and event["params"]["request"]["url"].startswith("http")
        }
        assert requested == {explorer_url.split("/")[2]}, f"the explorer loads from {requested}"


def test_explorer_shows_bad_input_as_a_message(explorer_url, book_cache):
    from browser import Chromium
    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.apps.explorer import Explorer

    n_test = Explorer(ArtifactCache(book_cache)).chapter("smoke").datasets(["bbcsport"])["bbcsport"].test.labels.size
    with Chromium() as browser:
        _open_explorer(browser, explorer_url)
        _set(browser, "query", 99999)
        shown = _until(browser, lambda s: "error" in s)
        assert shown["error"] == (
            f"test document 99999 is out of range: the test split of BBCSPORT has {n_test} "
            f"documents, numbered 0 to {n_test - 1}"
        )
        _set(browser, "query", 2)
        _until(browser, lambda s: "scm" in s)  # back to a view
        _set(browser, "profile", "paper")  # never built in this cache
        shown = _until(browser, lambda s: "error" in s)
        assert shown["error"].startswith("the paper profile was never built in ")
        assert "Traceback" not in browser.evaluate("document.body.innerText")


# A phone (400 px) and a desktop (1280 px): no page scrolls sideways, and no figure text is shown below 9 pt

_FIT_PROBE = r"""
(() => {
  const RESOLUTION = __RESOLUTION__;
  document.querySelectorAll('details').forEach(d => { d.open = true; });  // every fold open, as a reader may
  const width = document.documentElement.clientWidth;
  const found = {sideways: document.documentElement.scrollWidth > width + 1 ? [document.documentElement.scrollWidth] : [],
                 scaled: [], coarse: [], squashed: [], small: [], broken: []};
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  // a word, number or identifier of a table cell laid out on more than one line
  for (const cell of article.querySelectorAll('table td, table th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) found.broken.push(`"${m[0].slice(0, 40)}"`);
      }
    }
  }
  for (const img of article.querySelectorAll('figure img')) {
    // a matplotlib figure is drawn with no text under 9 pt at its natural size (tests/book/test_plotting.py and
    // tests/chapters/test_confusion_tsne.py assert it), so it must not be shown smaller; its PNG holds RESOLUTION
    // pixels per CSS pixel (regemb_utils.book.style.HighResolution)
    const drawn = img.naturalWidth / RESOLUTION;
    if (img.naturalWidth && img.clientWidth < drawn - 1)
      found.scaled.push(`${img.getAttribute('src')}: ${img.clientWidth} of ${drawn} px`);
    if (img.naturalWidth && img.naturalWidth < RESOLUTION * img.clientWidth - RESOLUTION)
      found.coarse.push(`${img.getAttribute('src')}: ${img.naturalWidth} px shown at ${img.clientWidth} px`);
    // a narrow screen shrinks a figure with its proportions kept, never squashed
    if (img.naturalWidth && img.clientHeight &&
        Math.abs(img.clientWidth / img.clientHeight - img.naturalWidth / img.naturalHeight) > 0.02 * img.naturalWidth / img.naturalHeight)
      found.squashed.push(`${img.getAttribute('src')}: ${img.clientWidth}×${img.clientHeight} px of ${img.naturalWidth}×${img.naturalHeight}`);
  }
  for (const text of article.querySelectorAll('.plotly-graph-div svg text')) {  // plotly: measured in the page
    const size = parseFloat(getComputedStyle(text).fontSize);
    if (text.textContent.trim() && size < 12) found.small.push(`"${text.textContent.trim().slice(0, 30)}": ${size} px`);
  }
  return found;
})()
""".replace("__RESOLUTION__", str(RESOLUTION))


def _fit_report(page: str, found: dict, width: int) -> list[str]:
    """The problems :data:`_FIT_PROBE` found on ``page`` shown ``width`` px wide, as lines of the test's report."""
    report = [f"{page}: the page scrolls sideways ({found['sideways'][0]} px wide)"] if found["sideways"] else []
    if found["broken"]:
        report.append(
            f"{page}: {len(found['broken'])} tokens broken inside table cells, e.g. " + ", ".join(found["broken"][:5])
        )
    report += [f"{page}: figure out of proportion: {item}" for item in found["squashed"]]
    if width == 1280:  # at 400 px a figure is scaled to the screen; the reader zooms
        report += [f"{page}: figure shown smaller than drawn: {item}" for item in found["scaled"]]
        report += [
            f"{page}: figure drawn under {RESOLUTION}× the pixels it is shown at: {item}" for item in found["coarse"]
        ]
        report += [f"{page}: plotly text under 9 pt: {item}" for item in found["small"][:5]]
    return report


def test_pages_fit_the_desktop_and_figures_keep_their_size(built_html, desktop_visits):
    report = [line for page in book_pages(built_html) for line in _fit_report(page, desktop_visits[page]["fit"], 1280)]
    assert not report, "\n".join(report)


def test_pages_fit_a_phone(built_html):
    from browser import Chromium, serve

    report = []
    with serve(built_html) as server, Chromium(width=400) as browser:
        for page in book_pages(built_html):
            browser.navigate(f"{server.url}/{page}")
            browser.evaluate(_FIGURES_DRAWN, await_promise=True, timeout=90)
            report += _fit_report(page, browser.evaluate(_FIT_PROBE), 400)
    assert not report, "\n".join(report)


# Every plotly figure at both widths: no text (title, panel title, menu, legend entry, axis title, tick label) on
# another, none under plotly's toolbar (the modebar, drawn over the figure's top right corner), none past the
# figure's edges. At 400 px chapter 4's worked example had its two panels' titles on each other, chapter 5's viewer
# its title under the toolbar, chapter 3's sparsity panels their titles and values of C on each other.

_PLOTLY_TEXT_PROBE = r"""
(() => {
  // every plotly figure: texts that overlap one another or plotly's toolbar, or run past the figure's edges
  const problems = [];
  const figures = [...document.querySelectorAll('.plotly-graph-div')];
  figures.forEach((figure, number) => {
    const frame = figure.getBoundingClientRect();
    const texts = [];
    const add = (kind, el) => {
      const r = el.getBoundingClientRect();
      const label = (el.textContent || '').trim().slice(0, 30);
      if (r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && label) texts.push({kind, label, r, el});
    };
    figure.querySelectorAll('.gtitle').forEach(el => add('title', el));
    figure.querySelectorAll('.annotation-text-g').forEach(el => add('annotation', el));
    figure.querySelectorAll('.updatemenu-header-group, .updatemenu-container .updatemenu-button').forEach(el => {
      if (!el.closest('.updatemenu-dropdown-button-group')) add('menu', el); });
    figure.querySelectorAll('.legend .legendtext').forEach(el => add('legend', el));
    figure.querySelectorAll('.g-xtitle, .g-ytitle, .g-x2title').forEach(el => add('axis title', el));
    figure.querySelectorAll('.xtick text, .ytick text').forEach(el => add('tick', el));
    const bar = figure.querySelector('.modebar');
    const inside = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const name = `figure ${number + 1}`;
    if (bar && bar.getBoundingClientRect().width > 0) {
      const m = bar.getBoundingClientRect();
      for (const t of texts) if (inside(m, t.r)) problems.push(`${name}: the toolbar covers ${t.kind} "${t.label}"`);
    }
    for (let i = 0; i < texts.length; i++) {
      const t = texts[i];
      if (t.r.left < frame.left - 1 || t.r.right > frame.right + 1)
        problems.push(`${name}: ${t.kind} "${t.label}" runs past the figure's edge`);
      for (let j = i + 1; j < texts.length; j++)
        if (!t.el.contains(texts[j].el) && !texts[j].el.contains(t.el) && inside(t.r, texts[j].r)) problems.push(`${name}: ${t.kind} "${t.label}" overlaps ${texts[j].kind} "${texts[j].label}"`);
    }
  });
  return problems;
})()
"""


@pytest.mark.parametrize("width", [400, 1280])
def test_plotly_texts_are_clear_of_each_other_and_the_toolbar(built_html, width):
    from browser import Chromium, serve

    report = []
    with serve(built_html) as server, Chromium(width=width) as browser:
        for page in book_pages(built_html):
            if "plotly-graph-div" not in (built_html / page).read_text():
                continue
            browser.navigate(f"{server.url}/{page}")
            browser.evaluate(
                """new Promise(resolve => { const t0 = Date.now(); const check = () => {
                const figures = [...document.querySelectorAll('.plotly-graph-div')];
                if (figures.every(f => f.querySelector('.main-svg')) || Date.now() - t0 > 60000) resolve(true);
                else setTimeout(check, 100); }; check(); })""",
                await_promise=True,
                timeout=90,
            )
            report += [f"{page}: {problem}" for problem in browser.evaluate(_PLOTLY_TEXT_PROBE)]
    assert not report, "\n".join(report)


# Tables (regemb_utils.book.tables.table): a caption wraps at the column's width, outside the box in which a wide table
# scrolls; at 1280 px the tables made narrow enough for a desktop (their header names them) fit without scrolling

_TABLE_PROBE = r"""
(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const column = article.getBoundingClientRect();
  const found = {inside: [], wide: [], scrolled: [], scrolls: [], narrow: 0};
  for (const caption of article.querySelectorAll('table.regemb-table caption')) found.inside.push(caption.innerText.slice(0, 50));
  for (const caption of article.querySelectorAll('.regemb-table-caption')) {
    const r = caption.getBoundingClientRect(), text = caption.innerText.slice(0, 50);
    if (r.width > 0 && (r.left < column.left - 1 || r.right > column.right + 1)) found.wide.push(text);
    for (let box = caption.parentElement; box && box !== article; box = box.parentElement)
      if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible') { found.scrolled.push(text); break; }
  }
  for (const table of article.querySelectorAll('table.regemb-table')) {
    const header = [...table.querySelectorAll('th')].map(th => th.innerText.replace(/\s+/g, ' ').trim()).join(' | ');
    if (!__NARROW__.some(h => header.includes(h))) continue;
    found.narrow += 1;
    if (table.scrollWidth > table.clientWidth + 1) found.scrolls.push(`${header.slice(0, 80)}: ${table.scrollWidth} px in ${table.clientWidth}`);
  }
  return found;
})()
"""
# headers of the tables made to fit a desktop's column: chapter 6's 144 numbers, chapter 4's tests and paired
# comparisons, chapter 5's largest confusions
NARROW_TABLES = ["ours − paper", "only a right", "WMD − SCM", "non-reg. (% of class)"]


@pytest.mark.parametrize("width", [400, 1280])
def test_table_captions_wrap_at_the_column_and_narrow_tables_fit(built_html, width):
    from browser import Chromium, serve

    probe = _TABLE_PROBE.replace("__NARROW__", json.dumps(NARROW_TABLES))
    report, narrow = [], 0
    with serve(built_html) as server, Chromium(width=width) as browser:
        for page in book_pages(built_html):
            browser.navigate(f"{server.url}/{page}")
            browser.evaluate(
                "document.fonts.ready.then(() => new Promise(r => setTimeout(r, 300)))", await_promise=True
            )
            found = browser.evaluate(probe)
            narrow += found["narrow"]
            report += [f"{page}: a caption inside its table (it scrolls with it): {t}" for t in found["inside"]]
            report += [f"{page}: a caption wider than the column: {t}" for t in found["wide"]]
            report += [f"{page}: a caption inside a scrolling box: {t}" for t in found["scrolled"]]
            if width == 1280:
                report += [f"{page}: a table made to fit scrolls at 1280 px: {t}" for t in found["scrolls"]]
    assert narrow >= len(NARROW_TABLES), f"only {narrow} tables with the headers {NARROW_TABLES} were found"
    assert not report, "\n".join(report)


def test_plotly_figures_wait_for_the_load_event(built_html):
    """plotly.js is fetched after the load event, then the page's figures (their scripts are not in the HTML)."""
    html = built_html
    page = (html / "notebooks" / "05_confusion_tsne.html").read_text()
    assert 'src="../_static/plotly.min.js' not in page, "plotly.js is loaded before the load event"
    assert "addEventListener('load'" in page and "Plotly.newPlot" not in page
    loader = page[page.index("addEventListener('load'") :]
    assert loader.index('"../_static/plotly.min.js"') < loader.index('"../_figures/notebooks/05_confusion_tsne.js"')
    figures = (html / "_figures" / "notebooks" / "05_confusion_tsne.js").read_text()
    assert figures.count("Plotly.newPlot(") == page.count('class="plotly-graph-div"') > 0


def test_theme_fontawesome_script_is_not_shipped(built_html):
    html = built_html
    assert not (html / "_static" / "scripts" / "fontawesome.js").exists()
    assert not any("fontawesome.js" in page.read_text() for page in html.rglob("*.html"))
    css = (html / "_static" / "styles" / "pydata-sphinx-theme.css").read_text()
    fonts = re.findall(r"url\((\.\./vendor/fontawesome/webfonts/fa-solid-900\.woff)\)", css)
    assert fonts, "the theme's icons need Font Awesome's web fonts"
    assert (html / "_static" / "styles" / fonts[0]).is_file()


def test_formulas_are_typeset_at_build_time(built_html):
    html = built_html
    assert not (html / "_static" / "mathjax").exists(), "MathJax's files were shipped"
    for page in html.rglob("*.html"):
        text = page.read_text()
        assert "_static/mathjax/" not in text and "window.MathJax" not in text, f"{page.name} loads MathJax"
        assert not re.search(r'class="math notranslate nohighlight">\s*\\[(\[]', text), f"{page.name}: TeX left"
    intro = (html / "intro.html").read_text()
    assert intro.count("<mjx-container") >= 10 and 'display="true"' in intro and "<svg" in intro
    for page in html.rglob("*.html"):  # every formula has an accessible name and searchable text: its TeX
        text = page.read_text()
        formulas = re.findall(r"<mjx-container[^>]*>\s*<svg[^>]*>", text)
        unnamed = [f for f in formulas if 'aria-label="' not in f]
        assert not unnamed, f"{page.name}: {len(unnamed)} of {len(formulas)} formulas have no accessible name"
        assert text.count('class="regemb-math-text"') == len(formulas), f"{page.name}: a formula without its text"


# ---------------------------------------------------------------------------------------------------------------------
# Weight (issue 30, point 5): what each page transfers, measured in the browser with its cache off

SHARED_BYTES = 500_000  # the style sheets, scripts and fonts that a page loads whatever its length
HTML_BYTES = 600_000  # a page's own HTML
BOOK_BYTES = 10_000_000  # the whole built book (_build/html)


def test_pages_fit_the_weight_budgets(built_html, desktop_visits):
    """Every page (and the search page) loads at most SHARED_BYTES of shared assets (only the style rules and icons
    the book uses; the search index, counted apart, on the search page only), its HTML is at most HTML_BYTES, a page
    with figures fetches plotly.js once (after its load event, with the figures' data), and plotly.js holds exactly
    the trace types the book's figures use."""
    weights = {page: visit["weight"] for page, visit in desktop_visits.items()}
    report = []
    for page, weight in weights.items():
        if weight["shared"] > SHARED_BYTES:
            report.append(f"{page}: {weight['shared'] / 1e3:.0f} KB of shared assets (budget {SHARED_BYTES / 1e3:.0f})")
        if weight["html"] > HTML_BYTES:
            report.append(f"{page}: {weight['html'] / 1e3:.0f} KB of HTML (budget {HTML_BYTES / 1e3:.0f})")
        figures = 'class="plotly-graph-div"' in (built_html / page).read_text()
        if weight["plotly_loads"] != figures:
            with_figures = "with" if figures else "without"
            report.append(f"{page}: plotly.js loaded {weight['plotly_loads']} times, {with_figures} figures")
    used = {kind for weight in weights.values() for kind in weight["used"]}
    bundled = {kind for weight in weights.values() for kind in weight["bundled"]}
    assert used, "no page drew a plotly figure"
    if used != bundled:
        report.append(f"plotly.js bundles the trace types {sorted(bundled)}; the book's figures use {sorted(used)}")
    searching = [page for page, weight in weights.items() if "searchindex.js" in weight["paths"]]
    if searching != ["search.html"]:
        report.append(f"the search index is loaded by {searching}, not by the search page alone")
    assert not report, "\n".join(report)


def test_book_fits_its_size_budget_and_formulas_share_their_glyphs(built_html):
    """The built book is at most BOOK_BYTES; a formula's glyph paths are written once per page, not per formula."""
    size = sum(path.stat().st_size for path in built_html.rglob("*") if path.is_file())
    assert size <= BOOK_BYTES, f"_build/html is {size / 1e6:.1f} MB (budget {BOOK_BYTES / 1e6:.0f} MB)"
    for page in book_pages(built_html):
        text = (built_html / page).read_text()
        glyphs = re.findall(r'<path id="(MJX-[^"]+)"', text)
        assert len(glyphs) == len(set(glyphs)), f"{page}: a glyph's path is written more than once"
        uses = set(re.findall(r'<use[^>]*xlink:href="#([^"]+)"', text))
        missing = sorted(uses - set(glyphs))
        assert not missing, f"{page}: formulas use glyphs the page does not hold: {missing[:5]}"
