"""Chapter 4's orchestration: model selection, test runs, caching and the result tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors

from regemb_utils import classification as cl
from regemb_utils.cache import ArtifactCache
from regemb_utils.classification import (
    METHODS, InMemoryMatrices, MethodResult, Run, Settings, classify, error_table, optimal_parameters,
    prepare_documents, query_rows, relative_error_table, represent_pair, significance_table, speed_table,
    term_embeddings,
)
from regemb_utils.data import Dataset, Split
from regemb_utils.orthogonalization import MatrixGrid
from regemb_utils.params import _METHOD_NAMES
from regemb_utils.selection import select_best
from regemb_utils.statistics import mcnemar_exact
from regemb_utils.termsim import nearest_neighbours

SPARSE_GRID = (("symmetric", (True, False)), ("dominant", (True,)), ("idf", (True,)), ("nonzero_limit", (2, 4)),
               ("threshold", (-1.0,)), ("exponent", (1.0,)))


def test_method_names_match_the_parameters():
    assert tuple(METHODS) == _METHOD_NAMES


# ------------------------------------------------------------------------------------------------------------
# selection


def test_selection_ties_go_to_the_earliest_point_then_the_smallest_k():
    table = [
        {"C": 100, "k": 1, "error": 0.30}, {"C": 100, "k": 3, "error": 0.20}, {"C": 100, "k": 5, "error": 0.20},
        {"C": 200, "k": 1, "error": 0.20}, {"C": 200, "k": 3, "error": 0.25},
    ]
    best = select_best(table)
    assert best.best_params == {"C": 100, "k": 3} and best.best_error == 0.20
    table[0]["error"] = 0.10  # a strictly better later row would win, and so does the first row here
    assert select_best(table).best_params == {"C": 100, "k": 1}
    table[4]["error"] = 0.05
    assert select_best(table).best_params == {"C": 200, "k": 3}


def test_select_rows_from_outcomes_in_grid_order():
    points = [{"slope": 0.0, "nonzero_limit": 100}, {"slope": 0.0, "nonzero_limit": 200}]
    run = Run("validation", 10, 1.0)
    # equal best error (2 of 10) at (point 0, k=3) and (point 1, k=1): the earlier point wins although its k is larger
    outcomes = [{"d": ({1: 4, 3: 2, 5: 3}, 10, run)}, {"d": ({1: 2, 3: 2, 5: 2}, 10, run)}]
    chosen, table, runs = cl._select(points, outcomes, "d")
    assert chosen == {"slope": 0.0, "nonzero_limit": 100, "k": 3}
    assert len(table) == 6 and list(table["error"]) == [0.4, 0.2, 0.3, 0.2, 0.2, 0.2]
    assert runs == [run, run]


def test_grid_order_puts_the_slope_first_and_follows_the_paper():
    settings = Settings(slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID)
    points = settings.points("soft_vsm_ortho")
    assert len(points) == 2 * 2 * 2
    assert points[0] == {"slope": 0.0, "symmetric": True, "dominant": True, "idf": True, "nonzero_limit": 2,
                         "threshold": -1.0, "exponent": 1.0}
    assert points[1]["nonzero_limit"] == 4 and points[2]["symmetric"] is False and points[4]["slope"] == 0.5
    assert settings.points("soft_vsm") == [{"slope": 0.0}, {"slope": 0.5}]
    assert settings.points("wmd") == settings.points("bow") == [{}]


# ------------------------------------------------------------------------------------------------------------
# a synthetic problem whose answer is known


def _synthetic(seed=0, n_per_class=12, length=8):
    """Two classes with disjoint words whose embeddings form two orthogonal clusters: every method is exact."""
    rng = np.random.default_rng(seed)
    words = {0: [f"a{i}" for i in range(10)], 1: [f"b{i}" for i in range(10)]}

    def split(n):
        labels = np.tile([0, 1], n)
        texts = [" ".join(rng.choice(words[label], size=length)) for label in labels]
        return Split(texts, labels)

    dataset = Dataset("toy", ("A", "B"), split(n_per_class), split(n_per_class // 2), split(n_per_class // 2))
    dictionary = Dictionary([t.split() for t in dataset.train.texts + dataset.validation.texts] + [["zzz"]])
    kv = KeyedVectors(vector_size=8)
    centre = {0: np.eye(8)[0] * 3, 1: np.eye(8)[1] * 3}
    kv.add_vectors(words[0] + words[1],
                   np.array([centre[c] + rng.normal(scale=0.3, size=8) for c in (0, 1) for _ in words[c]],
                            dtype=np.float32))
    return dataset, dictionary, kv


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    dataset, dictionary, kv = _synthetic()
    documents = {"toy": prepare_documents(dataset, dictionary)}
    embeddings = {"toy": term_embeddings(kv, dictionary, documents["toy"].terms)}
    neighbours = nearest_neighbours(kv, [w for w in dictionary.token2id if w in kv], k=4)
    matrices = InMemoryMatrices(MatrixGrid(neighbours, dictionary, "paper"))
    settings = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, n_jobs=1)
    cache = ArtifactCache(tmp_path_factory.mktemp("artifacts"))
    results = {}
    for method in METHODS:
        for name, result in classify(method, documents, settings, key={"data": "toy"}, embeddings=embeddings,
                                     matrices=matrices, cache=cache).items():
            results[name, method] = result
    return dict(results=results, documents=documents, settings=settings, cache=cache, embeddings=embeddings,
                matrices=matrices)


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

    monkeypatch.setattr(cl, "_compute", fail)
    again = classify("soft_vsm_ortho", toy["documents"], toy["settings"], key={"data": "toy"},
                     matrices=toy["matrices"], cache=toy["cache"])
    np.testing.assert_array_equal(again["toy"].predictions[1], toy["results"]["toy", "soft_vsm_ortho"].predictions[1])
    changed = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, rule="gensim")
    with pytest.raises(AssertionError, match="recomputed"):  # another rule is another artifact
        classify("soft_vsm_ortho", toy["documents"], changed, key={"data": "toy"}, matrices=toy["matrices"],
                 cache=toy["cache"])


def test_wmd_answers_a_seeded_subsample_of_queries_paired_with_the_full_run(toy):
    limited = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, wmd_queries=(("toy", 5),))
    assert limited.query_limit("wmd", "toy") == 5 and limited.query_limit("soft_vsm", "toy") is None
    sub = classify("wmd", toy["documents"], limited, key={"data": "toy"}, embeddings=toy["embeddings"],
                   cache=toy["cache"])["toy"]  # another limit is another artifact: computed, not the full one
    full = toy["results"]["toy", "wmd"]
    rows = query_rows(12, 5)
    np.testing.assert_array_equal(sub.test_rows, rows)
    assert len(set(rows)) == 5 and np.all(np.diff(rows) > 0)
    np.testing.assert_array_equal(query_rows(12, 5), rows)  # seeded
    np.testing.assert_array_equal(query_rows(12, 12), np.arange(12))
    np.testing.assert_array_equal(sub.truth, toy["documents"]["toy"].labels["test"][rows])
    np.testing.assert_array_equal(sub.predictions[1], full.predictions[1][rows])  # exact WMD: same neighbours
    assert [r.pairs for r in sub.runs] == [5 * 24, 5 * 24]  # 5 validation and 5 test queries against 24
    # paired tests use the common queries: a method that errs only outside them ties with the subsample
    other = toy["results"]["toy", "bow"]
    wrong = {k: v.copy() for k, v in other.predictions.items()}
    outside = np.setdiff1d(np.arange(12), rows)
    wrong[1][outside] = (wrong[1][outside] + 1) % toy["documents"]["toy"].n_labels
    results = {("toy", "wmd"): sub, ("toy", "bow"): MethodResult("toy", "bow", {"k": 1}, pd.DataFrame(),
                                                                 other.truth, wrong)}
    row = significance_table(results).iloc[0]
    assert row["queries"] == 5 and row["error a"] == 0 and row["error b"] == 0 and row["p"] == 1.0


def test_missing_inputs_and_unknown_methods_are_refused(toy):
    with pytest.raises(ValueError, match="unknown method 'lsi'"):
        classify("lsi", toy["documents"], toy["settings"], key={}, cache=toy["cache"])
    with pytest.raises(ValueError, match="needs embeddings"):
        classify("wmd", toy["documents"], toy["settings"], key={"other": 1}, cache=toy["cache"])
    with pytest.raises(ValueError, match="needs matrices"):
        classify("soft_vsm_ortho", toy["documents"], toy["settings"], key={"other": 1}, cache=toy["cache"])
    with pytest.raises(ValueError, match="k = 30 needs at least 30 reference documents"):
        Q, R = represent_pair("bow", toy["documents"]["toy"], "test", "train")
        cl.nearest("bow", Q, R, 30, "test")


def test_reference_set_with_the_validation_split(toy):
    documents = toy["documents"]["toy"]
    Q, R = represent_pair("tfidf_l1", documents, "test", "train+validation")
    assert R.shape[0] == len(documents.labels["train"]) + len(documents.labels["validation"])
    np.testing.assert_allclose(np.asarray(R.sum(axis=1)).ravel(), 1.0)  # L1 rows
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        documents.split("dev")


def test_a_document_without_known_words_is_an_empty_row():
    dataset, dictionary, kv = _synthetic()
    dataset.test.texts[0] = "unknownword another"
    documents = prepare_documents(dataset, dictionary)
    assert documents.counts["test"][0].nnz == 0
    Q, R = represent_pair("soft_vsm", documents, "test", "train")
    assert Q[0].nnz == 0


# ------------------------------------------------------------------------------------------------------------
# tables


def _result(dataset, method, truth, predicted, k=1, runs=()):
    return MethodResult(dataset, method, {"k": k}, pd.DataFrame(), np.asarray(truth), {k: np.asarray(predicted)},
                        list(runs))


def test_error_table_has_the_agresti_coull_interval():
    truth = np.zeros(50, dtype=int)
    predicted = truth.copy()
    predicted[:10] = 1  # 10 errors of 50
    table = error_table({("bbcsport", "bow"): _result("bbcsport", "bow", truth, predicted)})
    row = table.iloc[0]
    z = 1.959963984540054
    n_tilde = 50 + z * z
    p_tilde = (10 + z * z / 2) / n_tilde
    radius = z * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    assert row["errors"] == 10 and row["error"] == pytest.approx(20.0)
    assert row["lower"] == pytest.approx(100 * (p_tilde - radius))
    assert row["upper"] == pytest.approx(100 * (p_tilde + radius))
    assert row["paper"] == 23  # the paper's BoW on BBCSPORT


def test_relative_error_is_a_ratio_of_means():
    errors = pd.DataFrame([
        {"dataset": "a", "method": "bow", "error": 40.0}, {"dataset": "b", "method": "bow", "error": 20.0},
        {"dataset": "a", "method": "soft_vsm", "error": 10.0}, {"dataset": "b", "method": "soft_vsm", "error": 20.0},
    ])
    table = relative_error_table(errors).set_index("method")
    assert table.loc["soft_vsm", "relative error"] == pytest.approx(100 * 15 / 30)  # not the mean of 25 % and 100 %
    assert table.loc["bow", "relative error"] == pytest.approx(100.0)


def test_significance_uses_paired_predictions_and_bh_over_all_tests():
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 200)
    results = {}
    for dataset in ("bbcsport", "twitter"):
        for method, noise in (("bow", 0.4), ("soft_vsm", 0.2), ("wmd", 0.1)):
            predicted = np.where(rng.random(200) < noise, (truth + 1) % 3, truth)
            results[dataset, method] = _result(dataset, method, truth, predicted)
    table = significance_table(results)
    assert len(table) == 2 * 3
    first = table.iloc[0]
    expected = mcnemar_exact(results["bbcsport", "bow"].predictions[1], results["bbcsport", "soft_vsm"].predictions[1],
                             truth)
    assert (first["a"], first["b"]) == ("BoW", "Soft VSM") and first["p"] == pytest.approx(expected.pvalue)
    m = len(table)
    order = np.argsort(table["p"].to_numpy())
    assert table["q"].to_numpy()[order[-1]] == pytest.approx(table["p"].to_numpy()[order[-1]])  # largest p: q = p
    assert table["q"].min() <= table["p"].min() * m + 1e-12
    paper = significance_table(results, test="paper_t_test")
    assert (paper["p"] <= 0.5).all()  # one-sided with the better method first
    assert paper["significant"].sum() >= table["significant"].sum()  # the paper's test is the more liberal
    with pytest.raises(ValueError, match="unknown test"):
        significance_table(results, test="t")


def test_optimal_parameters_put_the_papers_table_2_beside():
    result = MethodResult("bbcsport", "soft_vsm_ortho", {"slope": 0.0, "symmetric": True, "dominant": True,
                          "idf": True, "nonzero_limit": 200, "threshold": 0.0, "exponent": 4.0, "k": 3},
                          pd.DataFrame(), np.zeros(3, int), {3: np.zeros(3, int)})
    table = optimal_parameters({("bbcsport", "soft_vsm_ortho"): result})
    assert list(table["source"]) == ["Soft VSM (ortho.)", "paper: Soft VSM (ortho.)"]
    assert table.iloc[0]["nonzero_limit"] == 200 and table.iloc[1]["nonzero_limit"] == 100


def test_parallel_context_refuses_an_unknown_scheduler():
    with pytest.raises(ValueError, match="unknown scheduler 'yarn'"):
        with cl.parallel_context("yarn"):
            pass


def test_dask_cluster_gives_the_local_results(toy):
    """The grid points and WMD batches of a small problem on a dask LocalCluster equal the local run."""
    settings = Settings(ks=(1, 3, 5), slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID, n_jobs=2)
    for method in ("soft_vsm_ortho", "wmd"):
        local = toy["results"]["toy", method]
        with cl.parallel_context("dask-local", 2):
            remote = classify(method, toy["documents"], settings, key={"on": "dask"}, embeddings=toy["embeddings"],
                              matrices=toy["matrices"], cache=toy["cache"])["toy"]
        assert remote.params == local.params
        pd.testing.assert_frame_equal(remote.validation, local.validation)
        for k in local.predictions:
            np.testing.assert_array_equal(remote.predictions[k], local.predictions[k])
