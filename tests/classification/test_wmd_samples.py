"""Chapter 4's WMD samples: the stratified query order, cached and resumable WMD batches, the power computation, the
paired results and the time prediction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result, separable_dataset
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar
from statsmodels.stats.proportion import proportion_confint

from regemb_utils.infra import cache as cache_module
from regemb_utils.classification import wmd_batches
from regemb_utils.infra import processes
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.infra.keys import same_result_as
from regemb_utils.text.documents import prepare_documents, stratified_order
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.classification.experiment import classify
from regemb_utils.classification.knn_runs import MethodResult
from regemb_utils.classification.settings import Settings
from regemb_utils.chapters.scm_vs_wmd import decided_counts, decided_datasets, paired_wmd_table
from regemb_utils.chapters.scorecard import scorecard
from regemb_utils.classification.statistics import (
    discordant_probabilities,
    mcnemar_power,
    mcnemar_sample_size,
    paired_difference_interval,
)
from regemb_utils.classification.wmd_samples import (
    MINIMUM_QUERIES,
    SMALL_TEST_SET,
    costs_from_cache,
    costs_from_results,
    power_plan,
    power_queries,
    predict_wmd_time,
)

# ------------------------------------------------------------------------------------------------------------
# the order


@pytest.mark.parametrize("seed", range(12))
def test_stratified_order_is_a_seeded_permutation_with_proportional_prefixes(seed):
    rng = np.random.default_rng(seed)
    classes = int(rng.integers(1, 21))
    labels = rng.choice(classes, size=int(rng.integers(1, 1500)), p=rng.dirichlet(np.full(classes, 0.7)))
    order = stratified_order(labels)
    np.testing.assert_array_equal(np.sort(order), np.arange(len(labels)))
    np.testing.assert_array_equal(stratified_order(labels), order)  # seeded
    assert not np.array_equal(stratified_order(labels, seed=7), order) or len(labels) < 3
    present = np.unique(labels)
    taken = np.cumsum(labels[order][:, None] == present[None, :], axis=0)
    expected = np.arange(1, len(labels) + 1)[:, None] * np.mean(labels[:, None] == present[None, :], axis=0)
    assert np.all(np.abs(taken - expected) <= 1)  # every prefix within ±1 of proportional, per class


def test_a_larger_prefix_extends_a_smaller_one():
    labels = np.random.default_rng(3).integers(0, 5, size=400)
    order = stratified_order(labels)
    assert list(order[:50]) == list(stratified_order(labels)[:200][:50])


# ------------------------------------------------------------------------------------------------------------
# cached, resumable WMD batches


@pytest.fixture()
def problem():
    dataset, dictionary, kv = separable_dataset(seed=4, n_per_class=24)  # 48 train, 24 validation, 24 test
    documents = {"toy": prepare_documents(dataset, dictionary)}
    embeddings = {"toy": embedding_matrix(kv, dictionary, terms=documents["toy"].terms)}
    return documents, embeddings


class Killed(RuntimeError):
    pass


_ORIGINAL_BATCH = wmd_batches._wmd_batch


def _counting(monkeypatch, fail_after=None):
    calls = []
    original = _ORIGINAL_BATCH

    def batch(Q, R, embeddings, k, solver):
        if fail_after is not None and len(calls) >= fail_after:
            raise Killed
        calls.append(Q.shape[0])
        return original(Q, R, embeddings, k, solver)

    monkeypatch.setattr(wmd_batches, "_wmd_batch", same_result_as(original)(batch))  # a spy: the keys stay the same
    return calls


def _same(a: MethodResult, b: MethodResult):
    assert a.params == b.params
    pd.testing.assert_frame_equal(a.validation, b.validation)
    np.testing.assert_array_equal(a.rows(), b.rows())
    for k in a.predictions:
        np.testing.assert_array_equal(a.predictions[k], b.predictions[k])
    assert [(r.pairs, r.solved, r.queries) for r in a.runs] == [(r.pairs, r.solved, r.queries) for r in b.runs]


def test_a_killed_run_resumes_with_its_finished_batches_and_gives_the_uninterrupted_result(
    problem, tmp_path, monkeypatch
):
    documents, embeddings = problem
    settings = Settings(ks=(1, 3, 5), wmd_queries=(("toy", 20),), wmd_validation_queries=(("toy", 17),))
    reference = classify("wmd", documents, settings, embeddings=embeddings, cache=ArtifactCache(tmp_path / "a"))
    cache = ArtifactCache(tmp_path / "b")
    calls = _counting(monkeypatch, fail_after=3)
    with pytest.raises(Killed):
        classify("wmd", documents, settings, embeddings=embeddings, cache=cache)
    kept = sorted(cache.root.glob("wmd-batch-*"))
    assert 1 <= len(kept) <= 3 and not list(cache.root.glob("knn-*"))
    calls = _counting(monkeypatch)
    start = len(cache_module.ACCESSED)
    resumed = classify("wmd", documents, settings, embeddings=embeddings, cache=cache)
    batches = [a for a in cache_module.ACCESSED[start:] if a["name"] == "wmd-batch"]
    loaded = {a["path"] for a in batches if not a["computed"]}
    assert loaded == {str(p) for p in kept}  # the finished batches were loaded, not recomputed
    # validation 17 queries: batches of 8, 8, 1; test 20: 8, 8, 4 — six in all, the kept ones not again
    assert len(calls) == 6 - len(kept)
    _same(resumed["toy"], reference["toy"])


def test_a_larger_sample_extends_a_smaller_one_and_reuses_its_batches(problem, tmp_path, monkeypatch):
    documents, embeddings = problem
    cache = ArtifactCache(tmp_path)
    validation = (("toy", 12),)
    small = classify(
        "wmd",
        documents,
        Settings(ks=(1, 3), wmd_queries=(("toy", 10),), wmd_validation_queries=validation),
        embeddings=embeddings,
        cache=cache,
    )["toy"]
    calls = _counting(monkeypatch)
    large = classify(
        "wmd",
        documents,
        Settings(ks=(1, 3), wmd_queries=(("toy", "power"),), wmd_validation_queries=validation),
        embeddings=embeddings,
        cache=cache,
    )["toy"]
    assert large.test_rows is None  # "power": a test set this small is answered in full
    assert calls == [6, 8]  # [0, 8) and [8, 10) from the smaller run (its last batch partial); [10, 16), [16, 24) new
    order = stratified_order(documents["toy"].labels["test"])
    np.testing.assert_array_equal(small.rows(), np.sort(order[:10]))
    for k in small.predictions:
        np.testing.assert_array_equal(large.predictions[k][small.rows()], small.predictions[k])
    np.testing.assert_array_equal(large.truth[small.rows()], small.truth)
    costs = costs_from_cache(cache)
    assert set(costs["split"]) == {"validation", "test"} and (costs["seconds per query"] > 0).all()
    assert int(costs.set_index("split").loc["test", "queries"]) == 24  # batches [0, 8), [8, 10), [10, 16), [16, 24)
    measured = costs_from_results({("toy", "wmd"): large})
    assert set(measured["queries"]) == {12, 24}


def test_dask_local_gives_the_cached_local_result(problem, tmp_path):
    documents, embeddings = problem
    settings = Settings(ks=(1, 3), wmd_queries=(("toy", 12),), n_jobs=2)
    local = classify("wmd", documents, settings, embeddings=embeddings, cache=ArtifactCache(tmp_path / "a"))
    with processes.parallel_context("dask-local", 2):
        remote = classify("wmd", documents, settings, embeddings=embeddings, cache=ArtifactCache(tmp_path / "b"))
    _same(local["toy"], remote["toy"])
    assert len(list((tmp_path / "b").glob("wmd-batch-*"))) == 4  # 12 validation and 12 test queries: 8 + 4 each


# ------------------------------------------------------------------------------------------------------------
# power


def test_exact_power_equals_an_enumeration_with_scipys_test():
    n, p10, p01 = 25, 0.25, 0.08
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            probability = stats.multinomial.pmf([b, c, n - b - c], n, [p10, p01, 1 - p10 - p01])
            if b + c and stats.binomtest(b, b + c, 0.5).pvalue <= 0.05:
                total += probability
    assert mcnemar_power(n, p10, p01) == pytest.approx(total, abs=1e-10)


def test_the_sample_size_reaches_the_power_and_is_monotone():
    p10, p01 = discordant_probabilities(0.30, 0.40)
    n = mcnemar_sample_size(p10, p01)
    assert mcnemar_power(n, p10, p01) >= 0.8 > mcnemar_power(n - 1, p10, p01) - 0.05
    assert mcnemar_power(int(0.8 * n), p10, p01) < 0.8
    # a simulation with an independent exact McNemar test (statsmodels) agrees with the exact power
    rng = np.random.default_rng(0)
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=3000)
    rejected = np.mean([statsmodels_mcnemar([[0, b], [c, 0]], exact=True).pvalue <= 0.05 for b, c, _ in counts])
    assert abs(rejected - mcnemar_power(n, p10, p01)) < 4 * np.sqrt(0.8 * 0.2 / 3000)
    sizes = [mcnemar_sample_size(*discordant_probabilities(0.30, 0.30 + d)) for d in (0.05, 0.10, 0.15, 0.20)]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4  # larger differences need fewer
    powers = [mcnemar_sample_size(p10, p01, power=w) for w in (0.5, 0.7, 0.8, 0.9)]
    assert powers == sorted(powers) and len(set(powers)) == 4  # more power needs more
    assert mcnemar_sample_size(*discordant_probabilities(0.30, 0.40, 0.5)) < n  # correlated errors: fewer


def test_power_rule_for_the_papers_data_sets():
    sizes = {"bbcsport": 220, "twitter": 932, "ohsumed": 1632, "reuters": 2189, "amazon": 2400, "20news": 7528}
    plan = power_plan(sizes)
    for r in plan.to_dict("records"):
        size = sizes[r["dataset"]]
        assert r["queries"] == power_queries(r["dataset"], r["method"], size) <= size
        if size <= SMALL_TEST_SET:
            assert r["queries"] == size
        else:
            assert r["queries"] >= min(size, MINIMUM_QUERIES.get(r["method"], 0))
            assert r["power at the queries"] >= 0.8
            assert r["alternative WMD error"] - r["alternative SCM error"] == pytest.approx(10)


# ------------------------------------------------------------------------------------------------------------
# paired results


def test_paired_difference_interval_against_newcombe_and_an_independent_computation():
    # Newcombe (1998, Stat. Med. 17:2635), method 10 for his example a = 36, b = 12, c = 2, d = 0: 0.0569 to 0.3404
    interval = paired_difference_interval(12, 2, 36, 0)
    assert (round(interval.lower, 4), round(interval.upper, 4)) == (0.0569, 0.3404)
    rng = np.random.default_rng(1)
    for _ in range(50):
        a, b = rng.random(80) < rng.uniform(0.05, 0.6), rng.random(80) < rng.uniform(0.05, 0.6)
        a = np.where(rng.random(80) < 0.4, b, a)  # correlated
        n = len(a)
        l1, u1 = proportion_confint(a.sum(), n, method="wilson")
        l2, u2 = proportion_confint(b.sum(), n, method="wilson")
        phi = np.corrcoef(a, b)[0, 1] if a.std() > 0 and b.std() > 0 else 0.0
        pa, pb = a.mean(), b.mean()
        lower = pa - pb - np.sqrt((pa - l1) ** 2 - 2 * phi * (pa - l1) * (u2 - pb) + (u2 - pb) ** 2)
        upper = pa - pb + np.sqrt((u1 - pa) ** 2 - 2 * phi * (u1 - pa) * (pb - l2) + (pb - l2) ** 2)
        got = paired_difference_interval(
            int(np.sum(a & ~b)), int(np.sum(b & ~a)), int(np.sum(a & b)), int(np.sum(~a & ~b))
        )
        assert got.difference == pytest.approx(pa - pb)
        assert (got.lower, got.upper) == pytest.approx((lower, upper), abs=1e-9)


def test_paired_table_and_decided_counts_on_a_constructed_example():
    truth = np.zeros(300, dtype=int)
    results = {}
    # d1: the SCM is right everywhere, the WMD wrong on 60 (decided for the SCM); d2: the reverse on 40 of the
    # WMD's 200 queries (decided for the WMD); d3: each wrong on 3 others (not decided)
    scm_wrong = {"d1": [], "d2": range(0, 300, 5), "d3": [0, 1, 2]}
    wmd_wrong = {"d1": range(60), "d2": [], "d3": [10, 11, 12]}
    for d in ("d1", "d2", "d3"):
        scm = truth.copy()
        scm[list(scm_wrong[d])] = 1
        rows = np.arange(200) if d == "d2" else None
        wmd = truth.copy()
        wmd[list(wmd_wrong[d])] = 1
        results[d, "soft_vsm_quantized_ortho"] = fake_result(d, "soft_vsm_quantized_ortho", truth, scm)
        results[d, "wmd"] = fake_result(
            d, "wmd", truth if rows is None else truth[rows], wmd if rows is None else wmd[rows], rows=rows
        )
    table = paired_wmd_table(results).set_index("dataset")
    assert list(table["verdict"]) == ["SCM better", "WMD better", "not decided"]
    assert table.loc["d2", "queries"] == 200 and table.loc["d2", "SCM error"] == pytest.approx(20.0)
    assert table.loc["d1", "difference"] == pytest.approx(20.0)
    assert table.loc["d1", "difference lower"] > 0 > table.loc["d2", "difference upper"]
    assert table.loc["d3", "difference lower"] < 0 < table.loc["d3", "difference upper"]
    assert (table["q"] >= table["p"]).all()
    counts = decided_counts(paired_wmd_table(results)).iloc[0]
    assert (counts["data sets"], counts["SCM better"], counts["WMD better"], counts["not decided"]) == (3, 1, 1, 1)
    assert decided_datasets(paired_wmd_table(results)) == (
        "- against the WMD: the SCM is decidedly better on D1; the WMD is decidedly better on D2; not decided on D3."
    )
    card = scorecard(paired=paired_wmd_table(results))
    assert sorted(card["ours"]) == [1, 1, 1]


def test_predicted_time_is_the_makespan_of_the_batches():
    costs = pd.DataFrame([{"dataset": "a", "method": "wmd", "split": "test", "seconds per query": 2.0}])
    table = predict_wmd_time(costs, {("a", "wmd", "test"): 20}, cores=2, batch_size=8, show=False)
    # batches of 8, 8, 4 queries (16, 16, 8 s) on two cores: 16 and 16 + 8
    assert table["wall seconds"].iloc[0] == pytest.approx(24.0) and table["core seconds"].iloc[0] == 40.0
    done = predict_wmd_time(
        costs, {("a", "wmd", "test"): 20}, cores=2, batch_size=8, done={("a", "wmd", "test"): 10}, show=False
    )
    # 10 done: [10, 16) and [16, 20) remain, 12 s and 8 s on two cores
    assert done["wall seconds"].iloc[0] == pytest.approx(12.0) and done["to compute"].iloc[0] == 10
