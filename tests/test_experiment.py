"""The package as a library: chapter 4's methods on a data set of one's own."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from classification_fixtures import separable_dataset

from regemb_utils.study.cache import ArtifactCache
from regemb_utils.text.documents import prepare_documents
from regemb_utils.classification.experiment import run_methods
from regemb_utils.classification.knn_runs import classify
from regemb_utils.classification.methods import Settings
from regemb_utils.measures.similarity import embedding_matrix

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def toy():
    dataset, dictionary, kv = separable_dataset()
    return dataset, dictionary, kv


def test_run_methods_is_chapter_4s_route(toy, tmp_path):
    dataset, dictionary, kv = toy
    settings = Settings(ks=(1, 3), sparse_grid=(("symmetric", (True,)), ("dominant", (True,)), ("idf", (True,)),
                                                ("nonzero_limit", (2, 4)), ("threshold", (0.0,)), ("exponent", (1.0,))))
    ours = run_methods(dataset, ["bow", "soft_vsm", "soft_vsm_ortho", "wmd"], settings, vectors={"32-bit": kv},
                       dictionary=dictionary, cache=ArtifactCache(tmp_path / "a"))
    documents = {dataset.name: prepare_documents(dataset, dictionary)}
    rows = {dataset.name: embedding_matrix(kv, dictionary, terms=documents[dataset.name].terms)}
    for method in ("bow", "soft_vsm", "wmd"):
        direct = classify(method, documents, settings, embeddings=rows, cache=ArtifactCache(tmp_path / "b"))
        np.testing.assert_array_equal(ours[dataset.name, method].predictions[1], direct[dataset.name].predictions[1])
    assert all(r.test_error == 0 for r in ours.values())  # the problem is separable


@pytest.mark.parametrize("kwargs, message", [
    (dict(methods=["lsi"]), "unknown or no methods ['lsi']"),
    (dict(methods=["wmd_quantized"]), "need vectors for ['1-bit']"),
    (dict(settings=Settings(ks=(1,), wmd_queries=(("toys", 5),))), "settings.wmd_queries names ['toys']"),
    (dict(settings=Settings(ks=(1, 99))), "fewer reference documents than the largest k (99)"),
    (dict(methods=["soft_vsm_ortho"]), "the sparse SCM needs settings.sparse_grid"),
    (dict(datasets=[]), "datasets must be a Dataset or a non-empty collection"),
])
def test_bad_input_is_refused_before_any_work(toy, tmp_path, kwargs, message):
    dataset, dictionary, kv = toy
    arguments = dict(datasets=dataset, methods=["bow", "wmd"], settings=Settings(ks=(1,))) | kwargs
    with pytest.raises(ValueError) as error:
        run_methods(arguments.pop("datasets"), arguments.pop("methods"), arguments.pop("settings"),
                    vectors={"32-bit": kv}, dictionary=dictionary, cache=ArtifactCache(tmp_path))
    assert message in str(error.value)


@pytest.mark.book
def test_the_example_runs_from_an_install_outside_the_repository(tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target",
                    target, ROOT], check=True, capture_output=True)
    assert (target / "regemb_utils").is_dir() and not (target / "data").exists()
    env = {k: v for k, v in os.environ.items() if k not in ("REGEMB_CACHE", "REGEMB_DATA", "PYTHONPATH")}
    env.update(PYTHONPATH=str(target), XDG_CACHE_HOME=str(tmp_path / "user-cache"), REGEMB_PROGRESS="text")
    script = tmp_path / "own_dataset.py"
    script.write_text((ROOT / "examples" / "own_dataset.py").read_text())
    missing = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert missing.returncode != 0 and "set REGEMB_DATA to the repository's data/ folder" in missing.stderr
    done = subprocess.run([sys.executable, script], cwd=tmp_path, env=dict(env, REGEMB_DATA=str(ROOT / "data")),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Soft VSM (quan., ortho.)" in done.stdout and "WMD" in done.stdout
    cached = list((tmp_path / "user-cache" / "regemb").glob("knn-*"))
    assert len(cached) == 4  # the results went to the user's cache directory, one per method
