"""Fixtures that several test modules share: every chapter run once with the smoke profile, for all the tests that
read the executed chapters (the book's build and checks, the reruns).

`make test` runs the suite on every core with pytest-xdist (``-n auto --dist load --maxschedchunk 1``: each worker
takes the next test when it finishes one); the end-to-end tests (marked ``book``) come first, so that the two chapter
runs from empty caches (this session's and test_rerun.py's second one) start at once on two workers, the other long
tests follow on whichever worker is free, and the unit tests fill in."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# One BLAS and one OpenMP thread per process, and OpenMP threads that sleep when idle instead of spinning: the suite runs
# a process per core (pytest-xdist) besides the chapters' kernels, so more threads only spin on busy cores (gensim's
# analogy benchmark took 22 s of CPU with OpenBLAS's threads and 1.4 s without, scikit-learn's t-SNE 13 s and 1.1 s).
# Set before NumPy loads; the workers and every subprocess (chapters, book build) inherit them. Numba keeps its own
# thread count, so its parallel code still runs on several threads.
for _name, _value in (("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1"), ("OMP_WAIT_POLICY", "PASSIVE")):
    os.environ.setdefault(_name, _value)


def pytest_collection_modifyitems(config, items):
    """The slow end-to-end tests first (stable otherwise): with several workers, the longest work starts first."""
    items.sort(key=lambda item: item.get_closest_marker("book") is None)


def run_chapters(cache: Path, output: Path, *args: str) -> subprocess.CompletedProcess:
    """``scripts/run_chapters.py --profile smoke`` into ``output`` with the artifact cache ``cache``."""
    env = dict(os.environ, REGEMB_CACHE=str(cache))
    return subprocess.run(
        [sys.executable, ROOT / "scripts" / "run_chapters.py", "--profile", "smoke", "--output", output, *args],
        env=env,
        capture_output=True,
        text=True,
    )


def _digest(paths):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def once(tmp_path_factory, name: str, make) -> Path:
    """The directory ``name`` in the session's temporary directory, filled by ``make(directory)`` once per test
    session, also when pytest-xdist's workers share the session: the first worker that asks makes it, the others wait
    for it (a lock file) and reuse it."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    where, finished = shared / name, shared / f"{name}.finished"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not finished.exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir(parents=True)
            make(where)
            finished.touch()
    return where


@pytest.fixture(scope="session")
def smoke_chapters(tmp_path_factory) -> tuple[Path, Path]:
    """(artifact cache, executed notebooks): every chapter run once with the smoke profile from an empty cache.

    Made once per test session (:func:`once`). Read-only: a test that runs chapters again works on a copy of the
    cache (:func:`smoke_cache`)."""

    def make(where):
        (where / "cache").mkdir()
        committed = sorted((ROOT / "notebooks").glob("*.ipynb"))
        before = _digest(committed)
        done = run_chapters(where / "cache", where / "notebooks")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert _digest(committed) == before, "running the chapters changed the committed notebooks"

    where = once(tmp_path_factory, "smoke-chapters", make)
    return where / "cache", where / "notebooks"


@pytest.fixture
def smoke_cache(smoke_chapters, tmp_path) -> Path:
    """A copy of the smoke chapters' artifact cache (records and artifacts) that a test may run chapters on."""
    copy = tmp_path / "smoke-cache"
    shutil.copytree(smoke_chapters[0], copy)
    return copy
