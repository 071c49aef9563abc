"""The speed measurement with the paper's measure: brute force against the pruned search on real documents, what the
clock covers, and the ratio's bootstrap interval on constructed timings."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from gensim.corpora import Dictionary

from regemb_utils.classification import speed
from regemb_utils.classification.methods import represent_pair
from regemb_utils.classification.speed import measure_speed, speed_rates, speed_ratios
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.measures.wmd import wmd_knn
from regemb_utils.text.datasets import head, load_dataset
from regemb_utils.text.documents import prepare_documents, stratified_order
from regemb_utils.text.tokenization import tokenize


@pytest.fixture(scope="module")
def bbcsport():
    """BBCSPORT's first 60 documents per split over their own words, with random embeddings; words seen in one
    document only have none (zero rows, at the origin, as in the paper's code)."""
    dataset = head(load_dataset("bbcsport"), 60)
    texts = [t for split in dataset.splits.values() for t in split.texts]
    dictionary = Dictionary(tokenize(t) for t in texts)
    documents = prepare_documents(dataset, dictionary)
    rng = np.random.default_rng(0)
    E = rng.normal(size=(len(documents.terms), 20))
    E[np.array([dictionary.dfs[int(i)] for i in documents.terms]) < 2] = 0.0
    return documents, E


def test_brute_force_sample_agrees_with_the_pruned_search(bbcsport, tmp_path):
    documents, E = bbcsport
    timings = measure_speed("wmd", documents, embeddings=E, queries=8, k=7, cache=ArtifactCache(tmp_path))
    chosen = stratified_order(documents.labels["test"])[:8]
    assert timings["query"].tolist() == chosen.tolist()
    Q, R = represent_pair("wmd", documents, "test", "train")
    search = wmd_knn(Q[chosen], R, E, 7)
    assert np.array_equal(np.array(timings["neighbours"].tolist()), search.indices)
    assert (timings["pairs"] == R.shape[0]).all() and (timings["test queries"] == Q.shape[0]).all()
    assert (timings["seconds"] > 0).all()
    again = measure_speed("wmd", documents, embeddings=E, queries=8, k=7, cache=ArtifactCache(tmp_path))
    assert again["seconds"].tolist() == timings["seconds"].tolist()  # the stored measurement, not a new one


def test_a_brute_force_that_disagrees_with_the_search_stops_the_measurement(bbcsport, tmp_path, monkeypatch):
    documents, E = bbcsport
    real = speed.wmd_knn

    def shifted(*args, **kwargs):
        result = real(*args, **kwargs)
        result.indices[0] = result.indices[0][::-1]
        return result

    monkeypatch.setattr(speed, "wmd_knn", shifted)
    with pytest.raises(RuntimeError, match="brute force and the pruned search find other WMD neighbours"):
        measure_speed("wmd", documents, embeddings=E, queries=3, k=5, cache=ArtifactCache(tmp_path))


def test_the_weighting_is_timed_with_the_similarities(bbcsport, tmp_path, monkeypatch):
    documents, E = bbcsport
    plain = measure_speed("soft_vsm", documents, embeddings=E, repeats=2, cache=ArtifactCache(tmp_path / "plain"))
    real = speed.represent_pair

    def slow_weighting(*args, **kwargs):  # 0.2 s of CPU on top of the weighting
        start = time.process_time()
        while time.process_time() - start < 0.2:
            pass
        return real(*args, **kwargs)

    monkeypatch.setattr(speed, "represent_pair", slow_weighting)
    slowed = measure_speed("soft_vsm", documents, embeddings=E, repeats=2, cache=ArtifactCache(tmp_path / "slow"))
    assert (slowed["seconds"] >= 0.2).all() and (plain["seconds"] < 0.2).all()
    assert slowed["query"].isna().all() and (slowed["pairs"] == 60 * 60).all()


def test_measure_speed_refuses_bad_input(bbcsport, tmp_path):
    documents, E = bbcsport
    cache = ArtifactCache(tmp_path)
    with pytest.raises(ValueError, match="unknown method 'svm'"):
        measure_speed("svm", documents, cache=cache)
    with pytest.raises(ValueError, match="needs embeddings"):
        measure_speed("wmd", documents, cache=cache)
    with pytest.raises(ValueError, match="needs term_similarity"):
        measure_speed("soft_vsm_ortho", documents, cache=cache)
    with pytest.raises(ValueError, match="queries=1 is not allowed"):
        measure_speed("wmd", documents, embeddings=E, queries=1, cache=cache)
    with pytest.raises(ValueError, match="repeats=1 is not allowed"):
        measure_speed("bow", documents, repeats=1, cache=cache)
    with pytest.raises(ValueError, match=r"k=61 is not allowed; it must lie in \[1, 60\]"):
        measure_speed("wmd", documents, embeddings=E, k=61, cache=cache)


def _timings(dataset, slow_seconds, fast_seconds, n_reference, n_test, fast="soft_vsm_quantized_ortho"):
    """Constructed rows: ``slow_seconds`` per sampled WMD query, ``fast_seconds`` per call over every test query."""
    slow = pd.DataFrame(
        {
            "dataset": dataset,
            "method": "wmd",
            "query": pd.array(range(len(slow_seconds)), dtype="Int64"),
            "test queries": n_test,
            "pairs": n_reference,
            "seconds": slow_seconds,
        }
    )
    quick = pd.DataFrame(
        {
            "dataset": dataset,
            "method": fast,
            "query": pd.array([pd.NA] * len(fast_seconds), "Int64"),
            "test queries": n_test,
            "pairs": n_reference * n_test,
            "seconds": fast_seconds,
        }
    )
    return pd.concat([slow, quick], ignore_index=True)


def test_ratio_is_known_and_inside_its_interval():
    rng = np.random.default_rng(5)
    slow = rng.lognormal(np.log(2.0), 0.4, size=25)  # seconds per query against 1,000 documents
    fast = rng.normal(0.05, 0.002, size=4)  # seconds per call: 500 queries × 1,000 documents
    timings = _timings("20news", slow, fast, 1000, 500)
    row = speed_ratios(timings).set_index("dataset").loc["20news"]
    expected = (500 * 1000 / fast.mean()) / (1000 / slow.mean())
    assert row["ratio"] == pytest.approx(expected)
    assert row["fast rate"] == pytest.approx(500 * 1000 / fast.mean())
    assert row["slow rate"] == pytest.approx(1000 / slow.mean())
    assert row["lower"] < expected < row["upper"]
    assert (row["fast timings"], row["slow timings"]) == (4, 25)
    # the interval reflects the spread of the queries: equal costs give a much narrower one
    flat = speed_ratios(_timings("20news", np.full(25, slow.mean()), fast, 1000, 500)).iloc[0]
    assert flat["upper"] - flat["lower"] < 0.5 * (row["upper"] - row["lower"])


def test_pooled_ratio_weighs_each_data_set_by_its_whole_test_split():
    a = _timings("bbcsport", [1.0, 3.0], [0.010, 0.030], n_reference=100, n_test=10)  # WMD 2 s / query
    b = _timings("20news", [10.0, 30.0], [1.0, 3.0], n_reference=1000, n_test=100)  # WMD 20 s / query
    table = speed_ratios(pd.concat([a, b])).set_index("dataset")
    # whole test splits: bbcsport 1,000 pairs in 20 s (WMD) and 0.02 s; 20news 100,000 pairs in 2,000 s and 2 s
    assert table.loc["bbcsport", "ratio"] == pytest.approx(1000.0)
    assert table.loc["20news", "ratio"] == pytest.approx(1000.0)
    assert table.loc["pooled", "slow rate"] == pytest.approx(101_000 / 2020)
    assert table.loc["pooled", "fast rate"] == pytest.approx(101_000 / 2.02)
    assert table.loc["pooled", "ratio"] == pytest.approx(1000.0)
    only = speed_ratios(pd.concat([a, b]), datasets=["bbcsport"])
    assert only["dataset"].tolist() == ["bbcsport", "pooled"]
    rates = speed_rates(pd.concat([a, b])).set_index("method")
    assert rates.loc["wmd", "pooled"] == pytest.approx(101_000 / 2020)
    assert rates.loc["wmd", "20news"] == pytest.approx(50.0) and rates.loc["wmd", "data sets"] == 2


def test_the_interval_is_seeded():
    rng = np.random.default_rng(7)
    timings = _timings("twitter", rng.uniform(0.5, 2.0, 20), rng.uniform(0.01, 0.02, 3), 500, 200)
    first, again = speed_ratios(timings, seed=3), speed_ratios(timings, seed=3)
    other = speed_ratios(timings, seed=4)
    assert first[["lower", "upper"]].equals(again[["lower", "upper"]])
    assert not first[["lower", "upper"]].equals(other[["lower", "upper"]])
    assert first["ratio"].equals(other["ratio"])


def test_speed_ratios_refuse_bad_input():
    timings = _timings("twitter", [1.0, 2.0, 3.0], [0.01, 0.02], 500, 200)
    with pytest.raises(ValueError, match=r"lack the columns \['seconds'\]"):
        speed_ratios(timings.drop(columns="seconds"))
    with pytest.raises(ValueError, match="no timings of 'wmd_quantized'.*hold"):
        speed_ratios(timings, slow="wmd_quantized")
    with pytest.raises(ValueError, match="positive seconds and pairs"):
        speed_ratios(timings.assign(seconds=timings["seconds"].where(timings.index != 0, 0.0)))
    with pytest.raises(ValueError, match="has one timing; an interval needs at least 2"):
        speed_ratios(timings.drop(index=4))
    with pytest.raises(ValueError, match=r"confidence=1.5 is not allowed; give a number in \(0, 1\)"):
        speed_ratios(timings, confidence=1.5)
    with pytest.raises(ValueError, match="resamples=10 is not allowed"):
        speed_ratios(timings, resamples=10)
    with pytest.raises(ValueError, match="other pairs"):  # another reference set for one method
        speed_ratios(timings.assign(pairs=np.where(timings["method"] == "wmd", 400, timings["pairs"])))
    with pytest.raises(ValueError, match="no data set has timings of both"):
        other = _timings("bbcsport", [1.0, 2.0], [0.01, 0.02], 50, 20)
        speed_ratios(pd.concat([timings[timings["method"] == "wmd"], other[other["method"] != "wmd"]]))
    with pytest.raises(ValueError, match="compare two methods"):
        speed_ratios(timings, fast="wmd")
