import errno
import importlib
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from regemb_utils.study import cache as cache_module
from regemb_utils.study.cache import ArtifactCache, CacheError, artifact_key, fingerprint


def test_key_depends_on_parameters_and_the_kind_version(monkeypatch):
    a = artifact_key("knn", {"n": 1, "m": 2})
    assert a == artifact_key("knn", {"m": 2, "n": 1})  # order does not matter
    assert a != artifact_key("knn", {"n": 2, "m": 2})
    assert a != artifact_key("neighbours", {"n": 1, "m": 2})
    monkeypatch.setitem(cache_module.ARTIFACT_VERSIONS, "knn", cache_module.ARTIFACT_VERSIONS["knn"] + 1)
    assert a != artifact_key("knn", {"n": 1, "m": 2})  # a bumped computation never reads the old artifact
    with pytest.raises(KeyError, match="unknown artifact kind 'thing'"):
        artifact_key("thing", {})


_CACHED_RUN = """
import sys
from regemb_utils.study.cache import ACCESSED, ArtifactCache
value = ArtifactCache(sys.argv[1]).get("knn", {"n": 1}, lambda: sys.argv[2])
print(value, ACCESSED[-1]["computed"])
"""


def _defining(package: Path, function: str) -> Path:
    return next(p for p in sorted(package.rglob("*.py")) if f"def {function}(" in p.read_text())


def test_a_code_change_recomputes_and_a_change_elsewhere_reuses(tmp_path):
    """The package copied into a temporary directory and changed there: a result of the kNN runs is recomputed after
    a change to the function that counts the votes, and read back after a change to a module the runs never import
    or to a docstring."""
    import shutil

    from regemb_utils.study.cache import computing_module, dependencies

    _, source = cache_module._package_root()
    copy = tmp_path / "src"
    shutil.copytree(source, copy / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    package = copy / source.name

    def run(label):
        done = subprocess.run([sys.executable, "-c", _CACHED_RUN, str(tmp_path / "cache"), label], cwd=tmp_path,
                              env=dict(os.environ, PYTHONPATH=str(copy)), capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert run("first") == ["first", "True"]
    assert run("second") == ["first", "False"]  # nothing changed: read back
    votes = _defining(package, "knn_votes")
    text = votes.read_text()
    votes.write_text(text.replace('    """', '    """A changed docstring. ', 1))
    assert run("third") == ["first", "False"]  # a docstring is not code
    runs = computing_module("knn")
    unrelated = sorted(m for m in cache_module._package_modules() if m not in dependencies(runs))
    assert unrelated, "every module of the package feeds the kNN runs"
    elsewhere = package.joinpath(*unrelated[0].split(".")[1:]).with_suffix(".py")
    if not elsewhere.exists():
        elsewhere = elsewhere.with_suffix("") / "__init__.py"
    elsewhere.write_text(elsewhere.read_text() + "\n\ndef _added_elsewhere():\n    return 0\n")
    assert run("fourth") == ["first", "False"]  # a module the runs never import
    # every vote to class 0, as a broken change would do: the old results must not be served
    votes.write_text(text.replace("def knn_votes(", "def _votes(", 1) + (
        "\n\ndef knn_votes(neighbour_labels, ks=K_VALUES, n_labels=None):\n"
        "    return 0 * _votes(neighbour_labels, ks, n_labels)\n"))
    assert run("fifth") == ["fifth", "True"]


def test_every_artifact_kind_is_computed_in_one_module():
    """The module that declares a kind in ARTIFACTS is the one that asks the cache for it (its code is hashed)."""
    for name in cache_module.ARTIFACT_VERSIONS:
        module = importlib.import_module(cache_module.computing_module(name))
        assert name in module.ARTIFACTS
        assert f'.get("{name}",' in Path(module.__file__).read_text(), f"{module.__name__} does not compute {name}"
    with pytest.raises(KeyError, match="declared in 0 modules"):
        cache_module.computing_module("thing")


def test_fingerprint_is_by_content():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert fingerprint(x) == fingerprint(x.copy()) == fingerprint(np.asfortranarray(x))
    assert fingerprint(x) != fingerprint(x.astype(np.float32))
    y = x.copy()
    y[2, 3] += 1e-12
    assert fingerprint(x) != fingerprint(y)
    m = sparse.random(20, 30, density=0.2, random_state=0, format="csr")
    assert fingerprint(m) == fingerprint(m.tocsc())
    assert fingerprint(m) == fingerprint(sparse.csr_matrix(m.toarray()))
    labels = np.arange(20)
    assert fingerprint(m, labels) != fingerprint(m, labels[::-1])
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})


def test_computes_once_then_loads(tmp_path):
    cache = ArtifactCache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return {"value": 42}

    assert cache.get("knn", {"n": 1}, compute) == {"value": 42}
    assert cache.get("knn", {"n": 1}, compute) == {"value": 42}
    assert len(calls) == 1
    assert cache.get("knn", {"n": 2}, compute) == {"value": 42}
    assert len(calls) == 2


def test_interrupted_write_leaves_no_artifact(tmp_path):
    cache = ArtifactCache(tmp_path)

    def crashing_save(value, directory):
        (directory / "half.bin").write_bytes(b"half")
        raise KeyboardInterrupt  # the run is stopped in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        cache.get("knn", {"n": 1}, lambda: 1, save=crashing_save)
    assert not cache.has("knn", {"n": 1})
    assert os.listdir(tmp_path) == []  # the staging directory is gone too
    assert cache.get("knn", {"n": 1}, lambda: 7) == 7  # and the next run computes it whole


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete"])
def test_a_damaged_artifact_is_reported_and_recomputed(tmp_path, capfd, damage):
    cache = ArtifactCache(tmp_path)
    cache.get("knn", {"n": 1}, lambda: list(range(1000)))
    target = cache.path("knn", {"n": 1})
    data = (target / "artifact.pkl").read_bytes()
    if damage == "truncate":
        (target / "artifact.pkl").write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        (target / "artifact.pkl").write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    else:
        (target / "artifact.pkl").unlink()
    assert cache.get("knn", {"n": 1}, lambda: "recomputed") == "recomputed"
    err = capfd.readouterr().err
    assert str(target) in err and "damaged" in err
    assert cache.get("knn", {"n": 1}, lambda: "again") == "recomputed"  # the recomputed artifact is intact


def test_root_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("REGEMB_CACHE", str(tmp_path / "elsewhere"))
    assert ArtifactCache().root == tmp_path / "elsewhere"
    # relative: from the directory where the user ran the command ($PWD), not the process's working directory
    # (a kernel started by papermill or JupyterLab works in notebooks/ but inherits $PWD)
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.setenv("REGEMB_CACHE", "relative")
    assert ArtifactCache().root == tmp_path / "relative"
    monkeypatch.delenv("PWD")
    assert ArtifactCache().root == tmp_path / "notebooks" / "relative"  # no $PWD: the working directory


def test_empty_environment_variable_is_refused(monkeypatch):
    monkeypatch.setenv("REGEMB_CACHE", "")
    with pytest.raises(CacheError, match="REGEMB_CACHE is set but empty"):
        ArtifactCache()


def test_unwritable_location_fails_early_with_its_name(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("REGEMB_CACHE", str(blocker / "cache"))
    with pytest.raises(CacheError) as error:
        ArtifactCache().check_writable()
    assert "REGEMB_CACHE" in str(error.value) and str(blocker / "cache") in str(error.value)


def test_full_disk_fails_early(tmp_path, monkeypatch):
    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module.os, "fsync", no_space)
    with pytest.raises(CacheError, match="the disk is full"):
        ArtifactCache(tmp_path).check_writable()


def test_staging_of_a_killed_run_is_removed_and_artifacts_are_group_readable(tmp_path):
    cache = ArtifactCache(tmp_path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = cache_module._host()
    stale = tmp_path / f".knn-0123456789abcdef.stage-{host}.{dead.pid}.abcd1234"
    alive = tmp_path / f".knn-0123456789abcdef.stage-{host}.{os.getpid()}.abcd1234"
    other_host = tmp_path / f".knn-0123456789abcdef.stage-elsewhere.{dead.pid}.abcd1234"
    for path in (stale, alive, other_host):
        path.mkdir()
    cache.check_writable()
    assert not stale.exists() and alive.exists() and other_host.exists()
    cache.get("knn", {"n": 1}, lambda: 1)
    mode = cache.path("knn", {"n": 1}).stat().st_mode
    assert mode & stat.S_IRGRP and mode & stat.S_IXGRP


def test_artifacts_pickled_before_the_subpackages_load(tmp_path):
    """An artifact stored when the package was flat (``regemb_utils.knn_runs``, ...) keeps its key and loads."""
    from regemb_utils.classification.methods import Settings
    from regemb_utils.text.corpus import CorpusStatistics
    from regemb_utils.text.datasets import Split

    value = {"split": Split(["a b", "c"], np.array([0, 1])), "settings": Settings(ks=(1, 3)),
             "corpus": CorpusStatistics(2, 4, 2, 0)}
    text = pickle.dumps(value, protocol=0)  # the module of each class is a line of its own
    assert b"regemb_utils.text.datasets\n" in text and b"regemb_utils.classification.methods\n" in text
    old = text.replace(b"regemb_utils.text.datasets\n", b"regemb_utils.data\n").replace(
        b"regemb_utils.classification.methods\n", b"regemb_utils.methods\n").replace(
        b"regemb_utils.text.corpus\nCorpusStatistics", b"regemb_utils.preprocessing\nCorpusStatistics")
    cache = ArtifactCache(tmp_path)
    cache.get("knn", {"n": 1}, lambda: None, save=lambda value, d: (d / "artifact.pkl").write_bytes(old))
    loaded = cache.get("knn", {"n": 1}, lambda: pytest.fail("recomputed"))
    assert loaded["split"].texts == ["a b", "c"] and list(loaded["split"].labels) == [0, 1]
    assert loaded["settings"] == value["settings"] and loaded["corpus"] == value["corpus"]
    modules = {f"regemb_utils.{p.parent.name}.{p.stem}" for p in (cache_module.REPOSITORY / "regemb_utils").glob("*/*.py")
               if p.stem != "__init__"}
    assert set(cache_module._MOVED_MODULES.values()) <= modules  # every old module maps onto one that exists
