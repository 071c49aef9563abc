"""The book end to end: every chapter executed with the smoke profile into a temporary directory (the committed
notebooks are never touched), the book built from them with warnings as errors, and the built pages checked in
headless Chromium: plotly figures and formulas render from the book's own files, with no network."""
from __future__ import annotations

import functools
import hashlib
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

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.book


def _digest(paths):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    committed = sorted((ROOT / "notebooks").glob("*.ipynb"))
    before = _digest(committed)
    book = tmp_path_factory.mktemp("book")
    for name in ("_config.yml", "_toc.yml", "intro.md"):
        shutil.copy(ROOT / name, book / name)
    shutil.copytree(ROOT / "assets", book / "assets")
    env = dict(os.environ, REGEMB_CACHE=str(tmp_path_factory.mktemp("artifacts")))
    subprocess.run(
        [sys.executable, ROOT / "scripts" / "run_chapters.py", "--profile", "smoke", "--output", book / "notebooks"],
        check=True, env=env,
    )
    subprocess.run([BIN / "jupyter-book", "build", "--warningiserror", "--keep-going", book], check=True, env=env)
    assert _digest(committed) == before, "running the chapters changed the committed notebooks"
    return book


def test_chapters_ran_without_errors(book):
    executed = sorted((book / "notebooks").glob("*.ipynb"))
    assert [p.name for p in executed] == [p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    for path in executed:
        notebook = json.loads(path.read_text())
        outputs = [o for c in notebook["cells"] for o in c.get("outputs", [])]
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
    result = subprocess.run(
        [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
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
    assert dom.count('class="gl-container"') >= 2, "no interactive 3-D t-SNE scene was drawn on chapter 5"
    scenes = dom.split('class="gl-container"')[1:]
    assert all("<canvas" in scene for scene in scenes), "a 3-D scene has no WebGL canvas"
    assert "WebGL is not supported" not in dom


def test_landing_page_leads_with_the_scorecard_headline(book):
    page = (book / "_build" / "html" / "intro.html").read_text()
    headline = page[page.index('id="the-answer-first"'):page.index('id="what-the-paper-claims"')]
    assert headline.count('class="pasted-text"') == 8, "the headline's numbers were not pasted from the scorecard"
