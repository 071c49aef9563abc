"""Benchmark: how long a built book page takes to load and draw its plotly figures in headless Chromium.

Serves a built book (``_build/html``) on 127.0.0.1 and opens the page in Debian's headless Chromium with software
WebGL (SwiftShader; flags in ``CHROMIUM_FLAGS`` of ``tests/browser.py``), a fresh profile per load (nothing cached).
For each load it measures, in the page's own clock (milliseconds from the start of navigation):

* **load**: the page's load event (every script, style sheet, font and image of the HTML loaded);
* **figures**: the first moment at which the document is parsed and every plotly figure has drawn (each
  ``.plotly-graph-div`` has its SVG layers, and each 3-D scene its WebGL canvas);
* **ready**: the later of the two, when a reader has the whole page;

and the bytes the server sent for the page until it was ready and the network had been quiet for half a second, by
kind (``tests/browser.py``'s ``page_weight``): the page's HTML, the shared assets (style sheets, scripts, fonts),
plotly.js (and how many times it was fetched), the figures' data and the images. By default every page of the book
is measured (``--page`` picks one), each with its figure count; the last lines give the largest load time against
:data:`LOAD_SECONDS`, and the heaviest HTML and shared assets against the budgets of ``tests/test_book.py``
(``HTML_BYTES``, ``SHARED_BYTES``). The reference page (default: the introduction, which has a formula and no
figure) is measured in the same run, and the RATIO line divides each page's median ready time by the reference's.

Run:  .venv/bin/python benchmarks/bench_page_load.py [--page notebooks/05_confusion_tsne.html] [--repeat 3]
      (build the book first: ``jupyter-book build .``; ``--book`` points elsewhere)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import Chromium, page_weight, serve  # noqa: E402
from test_book import HTML_BYTES, SHARED_BYTES, book_pages  # noqa: E402

LOAD_SECONDS = 1.0  # every page's load event, cold cache

# Installed before the page's own scripts: polls every 10 ms and records when all plotly figures have drawn.
_PROBE = r"""
(() => {
  window.__bench = {figures: null, count: 0, webglMissing: false};
  const drawn = (gd) => {
    if (!gd._fullLayout || !gd.querySelector('.main-svg')) return false;
    for (const id of (gd._fullLayout._subplots || {}).gl3d || []) {  // each 3-D scene needs its WebGL canvas
      const scene = gd._fullLayout[id] && gd._fullLayout[id]._scene;
      if (!scene || !scene.container || !scene.container.querySelector('canvas')) return false;
    }
    return true;
  };
  const poll = () => {
    if (document.readyState !== 'loading') {
      const figures = document.querySelectorAll('.plotly-graph-div');
      window.__bench.count = figures.length;
      if (document.body && document.body.innerText.includes('WebGL is not supported')) window.__bench.webglMissing = true;
      if (figures.length === 0 || Array.from(figures).every(drawn)) {
        window.__bench.figures = figures.length ? performance.now() : 0;
        return;
      }
    }
    setTimeout(poll, 10);
  };
  poll();
})();
"""

_RESULT = """
new Promise((resolve, reject) => {
  const started = Date.now();
  const check = () => {
    const nav = performance.getEntriesByType('navigation')[0];
    if (window.__bench.figures !== null && nav && nav.loadEventEnd > 0) {
      resolve({load: nav.loadEventStart, figures: window.__bench.figures, count: window.__bench.count,
               webglMissing: window.__bench.webglMissing});
    } else if (Date.now() - started > %d) {
      reject(new Error('the figures did not draw in time: ' + JSON.stringify(window.__bench)));
    } else {
      setTimeout(check, 20);
    }
  };
  check();
})
"""


def measure(server, page: str, timeout: float) -> dict:
    """One load of ``page`` in a fresh browser: times in ms and the bytes served."""
    with Chromium(timeout=timeout) as browser:
        browser.add_script_on_new_document(_PROBE)
        server.bytes_sent, server.requests = 0, []
        browser.navigate(f"{server.url}/{page}", timeout=timeout)
        result = browser.evaluate(_RESULT % int(1000 * timeout), await_promise=True, timeout=timeout)
        # let late requests (fonts, the figures' data) finish: wait until nothing was served for 0.5 s
        last = (-1, time.monotonic())
        while time.monotonic() - last[1] < 0.5:
            time.sleep(0.1)
            if len(server.requests) != last[0]:
                last = (len(server.requests), time.monotonic())
    result["ready"] = max(result["load"], result["figures"])
    result["bytes"] = server.bytes_sent
    result["requests"] = len(server.requests)
    result.update(page_weight(page, server.requests))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--book", type=Path, default=ROOT / "_build" / "html", help="the built book's HTML folder")
    parser.add_argument("--page", default=None, help="one page to measure, relative to --book (default: every page)")
    parser.add_argument("--reference", default="intro.html", help="reference page measured in the same run")
    parser.add_argument("--repeat", type=int, default=3, help="loads of each page (the median is reported)")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds allowed for one load")
    args = parser.parse_args()
    pages = [args.page] if args.page else book_pages(args.book)
    for page in (*pages, args.reference):
        if not (args.book / page).is_file():
            parser.error(f"{args.book / page} does not exist; build the book first (jupyter-book build .)")

    with serve(args.book) as server:
        medians = {}
        for page in dict.fromkeys((args.reference, *pages)):
            runs = [measure(server, page, args.timeout) for _ in range(args.repeat)]
            for run in runs:
                if run["webglMissing"]:
                    sys.exit(f"{page}: Chromium reports that WebGL is not supported; the 3-D figures cannot draw")
            kinds = ("load", "figures", "ready", "bytes", "html", "shared", "plotly", "figure_data", "images")
            median = {key: statistics.median(run[key] for run in runs) for key in kinds}
            medians[page] = median
            print(
                f"{page}: {runs[0]['count']} plotly figures; load event {median['load'] / 1000:.2f} s, figures drawn "
                f"{median['figures'] / 1000:.2f} s, ready {median['ready'] / 1000:.2f} s (median of {args.repeat}: "
                f"{', '.join(format(r['ready'] / 1000, '.2f') for r in runs)} s); "
                f"{median['bytes'] / 1e6:.2f} MB in {runs[0]['requests']} requests: "
                f"HTML {median['html'] / 1e3:.0f} KB, shared {median['shared'] / 1e3:.0f} KB, "
                f"plotly.js {median['plotly'] / 1e3:.0f} KB "
                f"({runs[0]['plotly_loads']} loads), figures' data {median['figure_data'] / 1e3:.0f} KB, images "
                f"{median['images'] / 1e3:.0f} KB"
            )
    for page in pages:
        ratio = medians[page]["ready"] / medians[args.reference]["ready"]
        print(f"RATIO ready time {page} / {args.reference}: {ratio:.1f}x")
    slowest = max(pages, key=lambda p: medians[p]["load"])
    print(f"SLOWEST load event: {slowest} {medians[slowest]['load'] / 1000:.2f} s (budget {LOAD_SECONDS:.1f} s)")
    for kind, budget in (("html", HTML_BYTES), ("shared", SHARED_BYTES)):
        heaviest = max(medians, key=lambda p: medians[p][kind])
        print(f"HEAVIEST {kind}: {heaviest} {medians[heaviest][kind] / 1e3:.0f} KB (budget {budget / 1e3:.0f} KB)")


if __name__ == "__main__":
    main()
