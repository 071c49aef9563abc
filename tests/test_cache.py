import os

import pytest

from regemb_utils import cache as cache_module
from regemb_utils.cache import ArtifactCache, artifact_key


def test_key_depends_on_parameters_and_version(monkeypatch):
    a = artifact_key("x", {"n": 1, "m": 2})
    assert a == artifact_key("x", {"m": 2, "n": 1})  # order does not matter
    assert a != artifact_key("x", {"n": 2, "m": 2})
    assert a != artifact_key("y", {"n": 1, "m": 2})
    monkeypatch.setattr(cache_module, "__version__", "999")
    assert a != artifact_key("x", {"n": 1, "m": 2})


def test_computes_once_then_loads(tmp_path):
    cache = ArtifactCache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return {"value": 42}

    assert cache.get("thing", {"n": 1}, compute) == {"value": 42}
    assert cache.get("thing", {"n": 1}, compute) == {"value": 42}
    assert len(calls) == 1
    assert cache.get("thing", {"n": 2}, compute) == {"value": 42}
    assert len(calls) == 2


def test_interrupted_write_leaves_no_artifact(tmp_path):
    cache = ArtifactCache(tmp_path)

    def crashing_save(value, directory):
        (directory / "half.bin").write_bytes(b"half")
        raise KeyboardInterrupt  # the run is stopped in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        cache.get("thing", {"n": 1}, lambda: 1, save=crashing_save)
    assert not cache.has("thing", {"n": 1})
    assert os.listdir(tmp_path) == []  # the staging directory is gone too
    assert cache.get("thing", {"n": 1}, lambda: 7) == 7  # and the next run computes it whole


def test_root_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("REGEMB_CACHE", str(tmp_path / "elsewhere"))
    assert ArtifactCache().root == tmp_path / "elsewhere"
