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

from regemb_utils.infra import cache as cache_module
from regemb_utils.infra.cache import ArtifactCache, CacheError, artifact_key
from regemb_utils.infra import keys
from regemb_utils.infra.keys import computes, fingerprint


@computes("test-value", version=1)
def _value(x):
    return x


@computes("test-other")
def _other(x):
    return [x]


def test_key_depends_on_parameters_and_the_kind_version(monkeypatch):
    a = artifact_key("test-value", {"n": 1, "m": 2})
    assert a == artifact_key("test-value", {"m": 2, "n": 1})  # order does not matter
    assert a != artifact_key("test-value", {"n": 2, "m": 2})
    assert a != artifact_key("test-other", {"n": 1, "m": 2})
    monkeypatch.setitem(keys._COMPUTING, "test-value", (_value, 2))
    assert a != artifact_key("test-value", {"n": 1, "m": 2})  # a bumped format never reads the old artifact
    with pytest.raises(KeyError, match="unknown artifact kind 'thing'"):
        artifact_key("thing", {})


def test_rekey_carries_artifacts_across_a_code_change_that_keeps_results(tmp_path, monkeypatch):
    cache = ArtifactCache(tmp_path)
    params = {"n": 1, "grid": [(0.5, True), ("a", None)], "x": np.float64(0.1)}  # tuples and a repr'd number
    cache.get("test-value", params, lambda: "stored")
    cache.get("test-value", {"n": 2}, lambda: "kept")
    cache.get("test-other", {"n": 1}, lambda: "other kind")
    before = {"test-value": keys.code_hash(_value), "test-other": keys.code_hash(_other)}
    damaged = cache.path("test-value", {"n": 3})
    cache.get("test-value", {"n": 3}, lambda: "damaged")
    (damaged / "manifest.json").write_text("{}")

    def restructured(x):  # new code, the same results
        y = x
        return y

    monkeypatch.setitem(keys._COMPUTING, "test-value", (restructured, 1))
    assert keys.code_hash(restructured) != before["test-value"]
    stale = set(tmp_path.iterdir())
    assert not cache.has("test-value", params)  # the new code's key finds nothing ...
    renamed = cache_module.rekey(tmp_path, {"test-value": ("1" * 16, before["test-value"]), "test-other": "0" * 16})
    assert len(renamed) == 2 and all(old.startswith("test-value-") for old, _ in renamed)
    computed = []
    assert cache.get("test-value", params, lambda: computed.append(1)) == "stored"  # ... until rekeyed
    assert cache.get("test-value", {"n": 2}, lambda: computed.append(1)) == "kept" and not computed
    assert cache.get("test-other", {"n": 1}, lambda: computed.append(1)) == "other kind"  # not its code: untouched
    assert damaged in stale and damaged.exists()  # a damaged artifact is left for the cache to report
    assert cache_module.rekey(tmp_path, {"test-value": before["test-value"]}) == []  # once only


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

    assert cache.get("test-value", {"n": 1}, compute) == {"value": 42}
    assert cache.get("test-value", {"n": 1}, compute) == {"value": 42}
    assert len(calls) == 1
    assert cache.get("test-value", {"n": 2}, compute) == {"value": 42}
    assert len(calls) == 2


def test_interrupted_write_leaves_no_artifact(tmp_path):
    cache = ArtifactCache(tmp_path)

    def crashing_save(value, directory):
        (directory / "half.bin").write_bytes(b"half")
        raise KeyboardInterrupt  # the run is stopped in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        cache.get("test-value", {"n": 1}, lambda: 1, save=crashing_save)
    assert not cache.has("test-value", {"n": 1})
    assert os.listdir(tmp_path) == []  # the staging directory is gone too
    assert cache.get("test-value", {"n": 1}, lambda: 7) == 7  # and the next run computes it whole


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete"])
def test_a_damaged_artifact_is_reported_and_recomputed(tmp_path, capfd, damage):
    cache = ArtifactCache(tmp_path)
    cache.get("test-value", {"n": 1}, lambda: list(range(1000)))
    target = cache.path("test-value", {"n": 1})
    data = (target / "artifact.pkl").read_bytes()
    if damage == "truncate":
        (target / "artifact.pkl").write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        (target / "artifact.pkl").write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    else:
        (target / "artifact.pkl").unlink()
    assert cache.get("test-value", {"n": 1}, lambda: "recomputed") == "recomputed"
    err = capfd.readouterr().err
    assert str(target) in err and "damaged" in err
    assert cache.get("test-value", {"n": 1}, lambda: "again") == "recomputed"  # the recomputed artifact is intact


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
    cache.get("test-value", {"n": 1}, lambda: 1)
    mode = cache.path("test-value", {"n": 1}).stat().st_mode
    assert mode & stat.S_IRGRP and mode & stat.S_IXGRP
