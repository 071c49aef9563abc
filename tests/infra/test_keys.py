"""Artifact keys depend on what the code does, not on where it lives (regemb_utils.infra.keys).

The package is copied into a temporary directory and changed there; a subprocess prints the code hash of every
artifact kind's computation (and the WMD store's search version), and the test compares them with the unchanged
copy's.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from regemb_utils.infra import keys
from regemb_utils.infra.keys import code_hash, computes, same_result_as

SOURCE = Path(keys.__file__).resolve().parents[1]

_HASHES = """
import json
import regemb_utils.classification.knn_runs, regemb_utils.embeddings.trained, regemb_utils.termsim.orthogonalization
import regemb_utils.text.corpus
from regemb_utils.classification.wmd_store import search_version
from regemb_utils.infra.keys import _COMPUTING, code_hash
hashes = {kind: code_hash(function) for kind, (function, _) in _COMPUTING.items()}
hashes["wmd search"] = search_version()
print(json.dumps(hashes))
"""


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """A function that copies the package and returns (its folder, a function printing its hashes)."""

    def copy():
        folder = tmp_path_factory.mktemp("src")
        shutil.copytree(SOURCE, folder / SOURCE.name, ignore=shutil.ignore_patterns("__pycache__"))

        def hashes():
            done = subprocess.run(
                [sys.executable, "-c", _HASHES],
                cwd=folder,
                capture_output=True,
                text=True,
                env=dict(os.environ, PYTHONPATH=str(folder), NUMBA_DISABLE_JIT="0"),
                check=True,
            )
            return json.loads(done.stdout)

        return folder / SOURCE.name, hashes

    return copy


@pytest.fixture(scope="module")
def original(copies):
    _, hashes = copies()
    found = hashes()
    assert set(found) == {
        "corpus-dictionary",
        "word2bits",
        "word2bits-check",
        "neighbours",
        "knn",
        "wmd-batch",
        "speed",
        "linear-model",
        "wmd search",
    }
    return found


def _rewrite(package: Path, pattern: str, replacement: str) -> int:
    changed = 0
    for path in package.rglob("*.py"):
        text = path.read_text()
        new = re.sub(pattern, replacement, text, flags=re.MULTILINE)
        if new != text:
            path.write_text(new)
            changed += 1
    return changed


def test_moving_a_module_and_rewriting_imports_changes_no_key(copies, original):
    package, hashes = copies()
    # the kNN rules move from classification/knn.py to measures/ranking.py; every import follows
    ranking = package / "measures" / "ranking.py"
    (package / "classification" / "knn.py").rename(ranking)
    ranking.write_text(ranking.read_text().replace("from .reference import", "from ..classification.reference import"))
    assert _rewrite(package, r"^from \.knn import", "from ..measures.ranking import") >= 2
    # the packages' faces follow: classification no longer has the module, measures has it
    assert _rewrite(package, r"\bknn,\s+", "") == 1  # classification/__init__.py: its module lists
    faces = package / "measures" / "__init__.py"
    faces.write_text(
        faces.read_text()
        .replace("from .wmd import *", "from .ranking import *  # noqa: F403\nfrom .wmd import *")
        .replace("(representations, similarity, wmd)", "(ranking, representations, similarity, wmd)")
        .replace("from . import representations", "from . import ranking, representations")
    )
    # and the import lines of the kNN runs are rewritten: one per name, in another order
    runs = package / "classification" / "knn_runs.py"
    text = runs.read_text()
    text = text.replace(
        "from .methods import represent_pair\n",
        "from . import methods\nrepresent_pair = methods.represent_pair\n",
    )
    runs.write_text(text)
    assert hashes() == original


def test_docstrings_comments_and_the_papers_numbers_change_no_key(copies, original):
    package, hashes = copies()
    votes = package / "classification" / "knn.py"
    votes.write_text(
        votes.read_text()
        .replace('    """', '    """A changed docstring. ', 1)
        .replace("\ndef ", "\n# a comment\ndef ", 1)
    )
    paper = package / "paper.py"
    text = paper.read_text()
    changed = re.sub(r"\b39\.43\b", "41.00", text)
    assert changed != text
    paper.write_text(changed)
    assert hashes() == original


def test_a_change_to_code_a_computation_runs_changes_its_key(copies, original):
    package, hashes = copies()
    votes = package / "classification" / "knn.py"
    text = votes.read_text()
    # every vote to class 0, as a broken change would do: the old results must not be served
    votes.write_text(
        text.replace("def knn_votes(", "def _votes(", 1)
        + (
            "\n\ndef knn_votes(neighbour_labels, ks=K_VALUES, n_labels=None):\n"
            "    return 0 * _votes(neighbour_labels, ks, n_labels)\n"
        )
    )
    changed = hashes()
    assert changed["knn"] != original["knn"]
    assert changed["word2bits"] == original["word2bits"]  # training never counts votes
    assert changed["corpus-dictionary"] == original["corpus-dictionary"]


def test_a_module_level_value_enters_by_its_definition_not_its_state():
    """``_LOADED``, the per-process store of the last S' source, changes while a process runs; the code hash of the
    class that reads it does not."""
    from regemb_utils.termsim import sources

    before = code_hash(sources.CachedMatrices)
    sources._LOADED["a source"] = "loaded"
    try:
        assert code_hash(sources.CachedMatrices) == before
    finally:
        sources._LOADED.pop("a source")


def test_same_result_as_hashes_as_the_reference_and_computes_refuses_a_second_function():
    def reference(values):
        return sorted(values)[:1]

    @same_result_as(reference)
    def faster(values):
        return [min(values)]

    assert code_hash(faster) == code_hash(reference)
    computes("test-kind")(reference)
    computes("test-kind")(reference)  # the same function again: allowed (a module imported twice)
    with pytest.raises(ValueError, match="is computed by"):
        computes("test-kind")(faster)
    with pytest.raises(KeyError, match="unknown artifact kind 'no-such-kind'"):
        keys.computation("no-such-kind")


def test_every_artifact_kind_is_declared_by_the_function_its_module_computes_it_with():
    """The function declared with @computes for a kind is the one a module of the package passes to the cache for it."""
    import regemb_utils.classification.knn_runs  # noqa: F401
    import regemb_utils.embeddings.trained  # noqa: F401
    import regemb_utils.termsim.orthogonalization  # noqa: F401
    import regemb_utils.text.corpus  # noqa: F401

    import regemb_utils.chapters.baselines  # noqa: F401  (the linear models' cache)
    import regemb_utils.classification.experiment  # noqa: F401  (chapter 4's cache of the knn kind)

    modules = {
        name: Path(module.__file__).read_text()
        for name, module in list(sys.modules.items())
        if name.startswith("regemb_utils.") and getattr(module, "__file__", None)
    }
    for kind, (function, version) in keys._COMPUTING.items():
        if kind.startswith(("test-", "doctest-")):
            continue
        callers = [text for text in modules.values() if re.search(rf'\.get\(\s*"{re.escape(kind)}",', text)]
        assert callers and any(f"{function.__name__}(" in text for text in callers), kind
        assert version >= 1


def test_a_faster_exact_search_keeps_the_keys_and_a_new_definition_changes_them(copies, original):
    """The WMD search (wmd_knn) hashes as its definition, brute force (nearest_by_brute_force): a change to the
    search's machinery keeps every key and the stored results' search version; a change to the WMD of one pair
    changes the WMD's keys."""
    package, hashes = copies()
    wmd = package / "measures" / "wmd.py"
    text = wmd.read_text()
    assert "\ndef _run(" in text and "\ndef _pair_wmd(" in text
    wmd.write_text(
        text.replace("\ndef _run(", "\ndef _run_unused():\n    return 0\n\n\ndef _run(", 1).replace(
            "    preparation = time.process_time()\n", "    preparation = time.process_time() + 0\n", 1
        )
    )
    assert hashes() == original
    wmd.write_text(
        text.replace("\ndef _pair_wmd(", "\ndef _pair_wmd_exact(", 1)
        + ("\n\ndef _pair_wmd(*args, **kwargs):\n    return 2 * _pair_wmd_exact(*args, **kwargs)\n")
    )
    changed = hashes()
    assert changed["wmd search"] != original["wmd search"] and changed["wmd-batch"] != original["wmd-batch"]
    assert changed["knn"] != original["knn"] and changed["word2bits"] == original["word2bits"]


def test_a_function_replaced_at_run_time_is_seen_and_its_restoration_too():
    """The cached hash rests on the namespaces it read: replacing a function the computation reaches (a monkeypatch)
    gives another hash, and putting it back gives the first again (no stale cache)."""
    from regemb_utils.classification.wmd_store import search_version
    from regemb_utils.measures import wmd

    before = search_version()
    original = wmd._pair_wmd
    try:
        wmd._pair_wmd = lambda *args: 0.0
        assert search_version() != before
    finally:
        wmd._pair_wmd = original
    assert search_version() == before


def test_a_worker_process_computes_the_same_keys_as_the_main_process():
    """Chapters compute some artifacts in joblib's worker processes, whose settings differ from the main process's
    (numba's default number of threads, the BLAS threads): every kind's code hash is the same there."""
    import joblib

    here = _every_kind_hash()
    there = joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(_every_kind_hash)() for _ in range(2))
    assert there == [here, here]


def _every_kind_hash() -> dict:
    import regemb_utils.chapters.baselines  # noqa: F401  (the modules that declare the kinds)
    import regemb_utils.chapters.training  # noqa: F401
    import regemb_utils.classification.speed  # noqa: F401
    import regemb_utils.study.pipeline  # noqa: F401
    from regemb_utils.infra import keys as declared

    return {
        kind: declared.code_hash(function)
        for kind, (function, _) in sorted(declared._COMPUTING.items())
        if function.__module__.startswith("regemb_utils.")  # not the kinds other tests declare
    }
