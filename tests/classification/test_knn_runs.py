"""Chapter 4's timed kNN runs: model selection, test runs, caching, subsamples and parallel backends."""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import separable_dataset

from regemb_utils.classification import engine, wmd_batches
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.text.documents import prepare_documents, stratified_order
from regemb_utils.classification import experiment
from regemb_utils.classification.experiment import classify
from regemb_utils.classification.engine import Inputs, Measure
from regemb_utils.classification.knn_runs import MethodResult
from regemb_utils.infra.processes import parallel_context
from regemb_utils.classification.methods import METHODS, represent_pair
from regemb_utils.classification.settings import Settings
from regemb_utils.classification.wmd_samples import query_limit
from regemb_utils.chapters.scm_vs_wmd import significance_table, speed_table
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.termsim.sources import InMemoryMatrices

SPARSE_GRID = (
    ("symmetric", (True, False)),
    ("dominant", (True,)),
    ("idf", (True,)),
    ("nonzero_limit", (2, 4)),
    ("threshold", (-1.0,)),
    ("exponent", (1.0,)),
)


# ------------------------------------------------------------------------------------------------------------
# a synthetic problem whose answer is known


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    dataset, dictionary, kv = separable_dataset()
    documents = {"toy": prepare_documents(dataset, dictionary)}
    embeddings = {"toy": embedding_matrix(kv, dictionary, terms=documents["toy"].terms)}
    matrices = InMemoryMatrices(kv, dictionary, 4, "paper")
    settings = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, n_jobs=1)
    cache = ArtifactCache(tmp_path_factory.mktemp("artifacts"))
    results = {}
    for method in METHODS:
        for name, result in classify(
            method, documents, settings, embeddings=embeddings, matrices=matrices, cache=cache
        ).items():
            results[name, method] = result
    return dict(
        results=results, documents=documents, settings=settings, cache=cache, embeddings=embeddings, matrices=matrices
    )


def test_every_method_classifies_the_separable_problem_exactly(toy):
    for (dataset, method), result in toy["results"].items():
        assert result.test_error == 0.0, method
        # every point and k is perfect, so the tie rule picks the first grid point and k = 1
        assert result.params["k"] == 1
        assert {k: v for k, v in result.params.items() if k != "k"} == toy["settings"].points(method)[0]
        assert set(result.predictions) == {1, 3, 5}
        np.testing.assert_array_equal(result.predictions[1], result.truth)


def test_runs_are_timed_and_counted(toy):
    results = toy["results"]
    sparse = results["toy", "soft_vsm_ortho"]
    assert len(sparse.runs) == len(toy["settings"].points("soft_vsm_ortho")) + 1  # every grid point, then the test
    assert [r.split for r in sparse.runs[-1:]] == ["test"]
    assert all(r.pairs == 12 * 24 for r in sparse.runs[:-1]) and sparse.runs[-1].pairs == 12 * 24
    assert all(r.nonpositive == 0 for r in sparse.runs)
    wmd = results["toy", "wmd"]
    assert all(r.solved is not None and 0 < r.solved <= r.pairs for r in wmd.runs)
    assert all(r.seconds > 0 for r in wmd.runs)
    table = speed_table(results)
    row = table.set_index("method").loc["wmd"]
    assert row["pairs"] == sum(r.pairs for r in wmd.runs)
    assert math.isclose(row["pairs per second per core"], row["pairs"] / sum(r.seconds for r in wmd.runs))


def test_results_come_from_the_cache_the_second_time(toy, monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("recomputed a cached result")

    monkeypatch.setattr(experiment, "_compute", fail)
    again = classify("soft_vsm_ortho", toy["documents"], toy["settings"], matrices=toy["matrices"], cache=toy["cache"])
    np.testing.assert_array_equal(again["toy"].predictions[1], toy["results"]["toy", "soft_vsm_ortho"].predictions[1])
    changed = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, fill_rule="gensim")
    with pytest.raises(AssertionError, match="recomputed"):  # another rule is another artifact
        classify("soft_vsm_ortho", toy["documents"], changed, matrices=toy["matrices"], cache=toy["cache"])


def test_changed_labels_or_documents_under_the_same_name_are_not_served_from_the_cache(toy):
    import dataclasses

    documents = toy["documents"]["toy"]
    first = toy["results"]["toy", "bow"]
    permuted = dict(documents.labels, test=np.random.default_rng(0).permutation(documents.labels["test"]))
    relabelled = dataclasses.replace(documents, labels=permuted)
    result = classify("bow", {"toy": relabelled}, toy["settings"], cache=toy["cache"])["toy"]
    np.testing.assert_array_equal(result.truth, permuted["test"])  # recomputed with the new labels
    assert result.test_error == float(np.mean(first.predictions[first.k] != permuted["test"])) > 0
    fewer = dataclasses.replace(
        documents,
        counts=dict(documents.counts, train=documents.counts["train"][:-2]),
        labels=dict(documents.labels, train=documents.labels["train"][:-2]),
        char_lengths=dict(documents.char_lengths, train=documents.char_lengths["train"][:-2]),
    )
    result = classify("bow", {"toy": fewer}, toy["settings"], cache=toy["cache"])["toy"]
    assert result.runs[-1].pairs == 12 * 22  # a new reference set, not the cached run


def test_wmd_answers_a_seeded_subsample_of_queries_paired_with_the_full_run(toy):
    limited = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, wmd_queries=(("toy", 5),))
    assert query_limit(limited, "wmd", "toy") == 5
    sub = classify("wmd", toy["documents"], limited, embeddings=toy["embeddings"], cache=toy["cache"])[
        "toy"
    ]  # another limit is another artifact: computed, not the full one
    full = toy["results"]["toy", "wmd"]
    rows = np.sort(stratified_order(toy["documents"]["toy"].labels["test"])[:5])  # a prefix of the fixed order
    np.testing.assert_array_equal(sub.test_rows, rows)
    assert len(set(rows)) == 5 and np.all(np.diff(rows) > 0)
    np.testing.assert_array_equal(sub.truth, toy["documents"]["toy"].labels["test"][rows])
    np.testing.assert_array_equal(sub.predictions[1], full.predictions[1][rows])  # exact WMD: same neighbours
    assert [r.pairs for r in sub.runs] == [5 * 24, 5 * 24]  # 5 validation and 5 test queries against 24
    # paired tests use the common queries: a method that errs only outside them ties with the subsample
    other = toy["results"]["toy", "bow"]
    wrong = {k: v.copy() for k, v in other.predictions.items()}
    outside = np.setdiff1d(np.arange(12), rows)
    wrong[1][outside] = (wrong[1][outside] + 1) % toy["documents"]["toy"].n_labels
    results = {
        ("toy", "wmd"): sub,
        ("toy", "bow"): MethodResult("toy", "bow", {"k": 1}, pd.DataFrame(), other.truth, wrong),
    }
    row = significance_table(results).iloc[0]
    assert row["queries"] == 5 and row["error a"] == 0 and row["error b"] == 0 and row["p"] == 1.0


def test_missing_inputs_and_unknown_methods_are_refused(toy):
    with pytest.raises(ValueError, match="unknown method 'lsi'"):
        classify("lsi", toy["documents"], toy["settings"], cache=toy["cache"])
    with pytest.raises(ValueError, match="needs embeddings"):
        classify("wmd", toy["documents"], toy["settings"], cache=toy["cache"])
    with pytest.raises(ValueError, match="needs matrices"):
        classify("soft_vsm_ortho", toy["documents"], toy["settings"], cache=toy["cache"])
    with pytest.raises(ValueError, match="k = 30 needs at least 30 reference documents"):
        Q, R = represent_pair("bow", toy["documents"]["toy"], "test", "train")
        Measure.of("bow").neighbours(Q, R, 30, Inputs(), split="test")


def test_parallel_context_refuses_an_unknown_scheduler():
    with pytest.raises(ValueError, match="unknown scheduler 'yarn'"):
        with parallel_context("yarn"):
            pass


def test_dask_cluster_gives_the_local_results(toy):
    """The grid points and WMD batches of a small problem on a dask LocalCluster equal the local run."""
    settings = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, n_jobs=2)
    for method in ("soft_vsm_ortho", "wmd"):
        local = toy["results"]["toy", method]
        with parallel_context("dask-local", 2):
            remote = classify(
                method,
                toy["documents"],
                settings,
                embeddings=toy["embeddings"],
                matrices=toy["matrices"],
                cache=toy["cache"],
            )["toy"]
        assert remote.params == local.params
        pd.testing.assert_frame_equal(remote.validation, local.validation)
        for k in local.predictions:
            np.testing.assert_array_equal(remote.predictions[k], local.predictions[k])


_KERNEL = """
import os, sys, time
import joblib
from regemb_utils.infra.processes import parallel_context

def worker(_):
    time.sleep(0.3)
    return os.getpid()

with parallel_context("local", 2):
    pids = set(joblib.Parallel(n_jobs=2)(joblib.delayed(worker)(i) for i in range(6)))
    print(" ".join(map(str, sorted(pids))), flush=True)
    time.sleep(300)  # still at work when it is killed; loky keeps its idle workers meanwhile
"""


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a killed worker that nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers' end rests on Linux's prctl")
def test_workers_end_when_their_kernel_is_killed():
    import signal
    import subprocess
    import time

    kernel = subprocess.Popen([sys.executable, "-c", _KERNEL], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in kernel.stdout.readline().split()]
        assert workers and all(_running(p) for p in workers) and kernel.pid not in workers
        os.kill(kernel.pid, signal.SIGKILL)  # the kernel alone, as the out-of-memory killer would
        kernel.wait(timeout=30)
        deadline = time.monotonic() + 20
        while any(_running(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [p for p in workers if _running(p)], "worker processes survived their killed kernel"
    finally:
        kernel.kill()


@pytest.mark.parametrize("method", ["wmd", "soft_vsm"])
def test_time_off_the_core_is_not_timed(toy, monkeypatch, method):
    """On a shared machine a computation waits for a core; the runs count CPU seconds, so the wait (here a sleep, which
    uses no CPU) does not make a measure look slower."""
    import time

    module, name = (wmd_batches, "wmd_knn") if method == "wmd" else (engine, "dense_scm")
    original = getattr(module, name)

    def waiting(*args, **kwargs):
        time.sleep(0.5)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, waiting)
    Q, R = represent_pair(method, toy["documents"]["toy"], "test", "train")
    wall = time.perf_counter()
    inputs = Inputs(embeddings=toy["embeddings"]["toy"])
    _, run = Measure.of(method).neighbours(Q[:2], R, 1, inputs, split="test")
    assert time.perf_counter() - wall >= 0.5 and 0 < run.seconds < 0.25
