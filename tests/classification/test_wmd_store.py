"""Stored WMD results (results/wmd): used only under their key, checked on every run, resumable."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from classification_fixtures import separable_dataset
from test_wmd_samples import Killed, _counting, _same

from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.text.documents import prepare_documents, stratified_order
from regemb_utils.classification.experiment import classify
from regemb_utils.classification.settings import Settings
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.measures.wmd import wmd_distances
from regemb_utils.classification.wmd_store import (
    CHECKED,
    StoredWmdMismatch,
    WmdStore,
    default_folder,
    query_fingerprints,
    search_version,
)

N_VALIDATION, N_TEST = 17, 20  # batches of 8: validation 8, 8, 1; test 8, 8, 4


@pytest.fixture()
def problem():
    dataset, dictionary, kv = separable_dataset(seed=4, n_per_class=24)  # 48 train, 24 validation, 24 test
    documents = {"toy": prepare_documents(dataset, dictionary)}
    embeddings = {"toy": embedding_matrix(kv, dictionary, terms=documents["toy"].terms)}
    return documents, embeddings


def _settings(folder, ks=(1, 3, 5)):
    return Settings(
        ks=ks, wmd_queries=(("toy", N_TEST),), wmd_validation_queries=(("toy", N_VALIDATION),), wmd_store=str(folder)
    )


def _run(documents, embeddings, settings, cache_folder):
    return classify("wmd", documents, settings, embeddings=embeddings, cache=ArtifactCache(cache_folder))["toy"]


def test_stored_results_hold_the_exact_neighbours_and_are_used_with_a_checked_sample(problem, tmp_path, monkeypatch):
    documents, embeddings = problem
    store = tmp_path / "store"
    first = _run(documents, embeddings, _settings(store), tmp_path / "a")
    files = sorted(p.name for p in store.iterdir())
    assert files == ["toy-wmd-test.npz", "toy-wmd-validation.npz"]
    with np.load(store / "toy-wmd-test.npz") as data:
        key = json.loads(str(data["key"]))
        assert key["k"] == 5 and key["split"] == "test" and key["search"] == search_version()
        assert data["indices"].dtype == np.int32 and data["distances"].dtype == np.float64
        assert data["indices"].shape == data["distances"].shape == (N_TEST, 5)
        indices, distances = data["indices"], data["distances"]
    # the stored neighbours and distances are brute force's
    d = documents["toy"]
    from regemb_utils.classification.methods import represent_pair

    Q, R = represent_pair("wmd", d, "test", "train")
    order = stratified_order(d.labels["test"])[:N_TEST]
    full = wmd_distances(Q[order], R, embeddings["toy"])
    np.testing.assert_array_equal(np.take_along_axis(full, indices.astype(np.int64), axis=1), distances)
    assert np.all(np.diff(distances, axis=1) >= 0)
    # a new machine (empty cache): only the checked sample is computed, CHECKED queries per file
    calls = _counting(monkeypatch)
    again = _run(documents, embeddings, _settings(store), tmp_path / "b")
    assert calls == [CHECKED, CHECKED]
    _same(again, first)


@pytest.mark.parametrize("change", ["embeddings", "documents", "k"])
def test_a_stored_result_under_another_key_is_never_used(problem, tmp_path, monkeypatch, change):
    documents, embeddings = problem
    store = tmp_path / "store"
    _run(documents, embeddings, _settings(store), tmp_path / "a")
    for path in store.iterdir():  # garbage under the old key: would be caught if it were checked, wrong if used
        with np.load(path) as data:
            content = dict(data)
        content["distances"] = content["distances"] + 1.0
        content["indices"] = content["indices"][:, ::-1].copy()
        np.savez_compressed(path, **content)
    settings = _settings(store)
    if change == "embeddings":
        embeddings = {"toy": embeddings["toy"] * 1.5}
    elif change == "documents":
        dataset, dictionary, kv = separable_dataset(seed=5, n_per_class=24)
        documents = {"toy": prepare_documents(dataset, dictionary)}
        embeddings = {"toy": embedding_matrix(kv, dictionary, terms=documents["toy"].terms)}
    else:
        settings = _settings(store, ks=(1, 3, 7))
    calls = _counting(monkeypatch)
    result = _run(documents, embeddings, settings, tmp_path / "b")  # neither checked nor used: no error
    assert sum(calls) == N_VALIDATION + N_TEST  # everything computed
    reference = classify(
        "wmd",
        documents,
        Settings(
            ks=settings.ks, wmd_queries=settings.wmd_queries, wmd_validation_queries=settings.wmd_validation_queries
        ),
        embeddings=embeddings,
        cache=ArtifactCache(tmp_path / "c"),
    )["toy"]
    _same(result, reference)
    with np.load(store / "toy-wmd-test.npz") as data:  # the file now holds this run's results, under its key
        assert json.loads(str(data["key"]))["k"] == max(settings.ks)


@pytest.mark.parametrize("cached", [False, True])
def test_a_tampered_stored_result_stops_the_run_naming_the_file(problem, tmp_path, cached):
    documents, embeddings = problem
    store = tmp_path / "store"
    _run(documents, embeddings, _settings(store), tmp_path / "a")
    path = store / "toy-wmd-test.npz"
    with np.load(path) as data:
        content = dict(data)
    stored = WmdStore(store).load(json.loads(str(content["key"])), content["queries"])
    position = WmdStore.sample(stored)[2]  # one of the queries the check recomputes
    content["distances"][position, 3] = np.nextafter(content["distances"][position, 3], np.inf)  # one ulp
    np.savez_compressed(path, **content)
    # a new cache recomputes the rest; the same cache has the whole result, and checks the stored files all the same
    with pytest.raises(StoredWmdMismatch, match=f"{path}.*position\\(s\\) \\[{position}\\]"):
        _run(documents, embeddings, _settings(store), tmp_path / ("a" if cached else "b"))


def test_a_killed_run_with_stored_results_resumes_to_the_uninterrupted_result(problem, tmp_path, monkeypatch):
    documents, embeddings = problem
    uninterrupted = _run(documents, embeddings, _settings(tmp_path / "store-a"), tmp_path / "a")
    store = tmp_path / "store-b"
    shutil.copytree(tmp_path / "store-a", store)
    (store / "toy-wmd-test.npz").unlink()  # the validation results stored, the test results not yet
    _counting(monkeypatch, fail_after=3)
    with pytest.raises(Killed):
        _run(documents, embeddings, _settings(store), tmp_path / "b")
    assert not (store / "toy-wmd-test.npz").exists()  # written once the split is finished
    calls = _counting(monkeypatch)
    resumed = _run(documents, embeddings, _settings(store), tmp_path / "b")
    assert sum(calls) < CHECKED + N_TEST  # the finished batches of the killed run were kept
    _same(resumed, uninterrupted)
    for name in ("toy-wmd-validation.npz", "toy-wmd-test.npz"):
        with np.load(store / name) as a, np.load(tmp_path / "store-a" / name) as b:
            for field in ("key", "queries", "indices", "distances"):
                np.testing.assert_array_equal(a[field], b[field])


def test_query_fingerprints_tell_rows_apart():
    from scipy import sparse

    X = sparse.csr_matrix(np.array([[1.0, 0.0, 2.0], [1.0, 0.0, 2.0], [2.0, 0.0, 1.0], [0.0, 0.0, 0.0]]))
    f = query_fingerprints(X)
    assert f[0] == f[1] and len({f[0], f[2], f[3]}) == 3


def test_the_paper_profile_uses_the_checkouts_results_folder_and_smoke_none():
    from pathlib import Path

    from regemb_utils.study.params import chapter_parameters

    paper = Settings.from_parameters(chapter_parameters("04_scm_vs_wmd", "paper", datasets=["bbcsport"]))
    smoke = Settings.from_parameters(chapter_parameters("04_scm_vs_wmd", "smoke", datasets=["bbcsport"]))
    root = Path(__file__).resolve().parents[2]
    assert paper.wmd_store == str(root / "results" / "wmd") and (root / "results" / "wmd" / "README.md").exists()
    assert smoke.wmd_store is None


def test_a_long_run_writes_its_finished_queries_to_the_store_as_it_goes(problem, tmp_path, monkeypatch):
    """A run stopped mid-split keeps its finished prefix in the stored results, not only in the batch cache: a new
    machine (empty cache) checks that prefix and computes only the rest."""
    from regemb_utils.classification import wmd_batches

    documents, embeddings = problem
    uninterrupted = _run(documents, embeddings, _settings(tmp_path / "store-a"), tmp_path / "a")
    store = tmp_path / "store-b"
    monkeypatch.setattr(wmd_batches, "STORE_EVERY", 0.0)  # write after every batch
    _counting(monkeypatch, fail_after=4)  # validation: 8, 8, 1; test: 8, then killed
    with pytest.raises(Killed):
        _run(documents, embeddings, _settings(store), tmp_path / "b")
    with np.load(store / "toy-wmd-test.npz") as data:
        assert len(data["queries"]) == 8
    calls = _counting(monkeypatch)
    resumed = _run(documents, embeddings, _settings(store), tmp_path / "c")  # a new machine: no batch cache
    assert calls == [CHECKED, CHECKED, 8, N_TEST - 16]
    _same(resumed, uninterrupted)
    with np.load(store / "toy-wmd-test.npz") as a, np.load(tmp_path / "store-a" / "toy-wmd-test.npz") as b:
        for field in ("key", "queries", "indices", "distances"):
            np.testing.assert_array_equal(a[field], b[field])


def test_every_stored_file_carries_the_current_search_version():
    """The stored results of results/wmd/ are used by a run only if their key's search version is the code's: a
    change that moves it (a change to the WMD's definition) must come with recomputed files, and a move of code or a
    faster exact search must not move it."""
    folder = default_folder()
    files = sorted(folder.glob("*.npz"))
    assert len(files) == 36  # six data sets, three WMD methods, two splits
    for path in files:
        with np.load(path, allow_pickle=False) as data:
            key = json.loads(str(data["key"]))
            assert key["search"] == search_version(), path.name
            assert len(data["queries"]) == len(data["indices"]) == len(data["distances"]) > 0
