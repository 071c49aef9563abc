"""Chapter 4's result tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result

from regemb_utils.chapters.scm_vs_wmd import error_table, optimal_parameters, relative_error_table, significance_table
from regemb_utils.classification.statistics import mcnemar_exact


def test_error_table_has_the_agresti_coull_interval():
    truth = np.zeros(50, dtype=int)
    predicted = truth.copy()
    predicted[:10] = 1  # 10 errors of 50
    table = error_table({("bbcsport", "bow"): fake_result("bbcsport", "bow", truth, predicted)})
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
    errors = pd.DataFrame(
        [
            {"dataset": "a", "method": "bow", "error": 40.0},
            {"dataset": "b", "method": "bow", "error": 20.0},
            {"dataset": "a", "method": "soft_vsm", "error": 10.0},
            {"dataset": "b", "method": "soft_vsm", "error": 20.0},
        ]
    )
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
            results[dataset, method] = fake_result(dataset, method, truth, predicted)
    table = significance_table(results)
    assert len(table) == 2 * 3
    first = table.iloc[0]
    expected = mcnemar_exact(
        results["bbcsport", "bow"].predictions[1], results["bbcsport", "soft_vsm"].predictions[1], truth
    )
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
    result = fake_result(
        "bbcsport",
        "soft_vsm_ortho",
        np.zeros(3, int),
        np.zeros(3, int),
        k=3,
        params={
            "slope": 0.0,
            "symmetric": True,
            "dominant": True,
            "idf": True,
            "nonzero_limit": 200,
            "threshold": 0.0,
            "exponent": 4.0,
        },
    )
    table = optimal_parameters({("bbcsport", "soft_vsm_ortho"): result})
    assert list(table["source"]) == ["Soft VSM (ortho.)", "paper: Soft VSM (ortho.)"]
    assert table.iloc[0]["nonzero_limit"] == 200 and table.iloc[1]["nonzero_limit"] == 100


def _speed_rows(dataset, method, seconds, pairs, whole):
    query = pd.array([pd.NA] * len(seconds) if whole else range(len(seconds)), dtype="Int64")
    return pd.DataFrame(
        {"dataset": dataset, "method": method, "query": query, "test queries": 10, "pairs": pairs, "seconds": seconds}
    )


def test_measured_speed_pools_all_data_sets_and_the_papers_documents_apart():
    from regemb_utils.chapters.scm_vs_wmd import measured_speed

    rows = [
        _speed_rows("bbcsport", "soft_vsm_quantized_ortho", [0.01, 0.01], 1000, True),
        _speed_rows("bbcsport", "wmd", [1.0, 1.0], 100, False),  # 1,000 pairs in 10 s: ratio 1,000
        _speed_rows("amazon", "soft_vsm_quantized_ortho", [0.01, 0.01], 1000, True),
        _speed_rows("amazon", "wmd", [3.0, 3.0], 100, False),
    ]  # 1,000 pairs in 30 s: ratio 3,000
    found = measured_speed(pd.concat(rows), ["soft_vsm_quantized_ortho", "wmd"])
    values = found["values"]
    assert values["measured_ratio"] == pytest.approx(2000.0)  # 2,000 pairs in 40 s against 2,000 in 0.02 s
    assert values["measured_own_ratio"] == pytest.approx(1000.0)  # BBCSPORT alone: AMAZON's documents differ
    assert values["own_datasets"] == "BBCSPORT" and values["measured_datasets"] == 2
    assert found["table"]["WMD s / query"].tolist() == [1.0, 3.0] and found["note"] is None
    assert "needs the WMD and the regularized SCM" in measured_speed(pd.concat(rows), ["bow", "wmd"])["note"]


@pytest.mark.parametrize(
    "methods",
    [["bow"], ["bow", "wmd"], ["bow", "tfidf_l1"], ["bow", "soft_vsm", "soft_vsm_quantized_ortho", "wmd"]],
    ids="+".join,
)
def test_the_speed_section_is_built_or_said_to_be_left_out(methods):
    from regemb_utils.book.figures import speed_ratio_figure
    from regemb_utils.book.tables import table
    from regemb_utils.chapters.scm_vs_wmd import measured_speed, speed_ranking
    from regemb_utils.classification.methods import METHODS

    timed = [m for m in methods if METHODS[m].source == "paper"]  # what speed_sample times
    rows = [
        _speed_rows(d, m, [1.0, 2.0] if m == "wmd" else [0.01, 0.02], 100 if m == "wmd" else 1000, m != "wmd")
        for d in ("bbcsport", "twitter")
        for m in timed
    ]
    found = measured_speed(pd.concat(rows), methods)
    complete = {"wmd", "soft_vsm_quantized_ortho"} <= set(methods)
    assert (found["note"] is None) == complete and (len(found["ratios"]) == 3) == complete
    speed_ratio_figure(found["ratios"])
    if complete:
        table(found["table"])
    ranking, values = speed_ranking(pd.concat(rows), pd.DataFrame(columns=["method", "pairs per second per core"]))
    assert set(ranking["method"]) == set(timed) and ranking["rank"].tolist() == list(range(1, len(timed) + 1))
    assert "wmd" not in timed or ranking["method"].iloc[-1] == "wmd"  # 50 pairs per second, the others 66,667
    assert np.isnan(values["rate_dense_over_bow"]) == ("soft_vsm" not in methods)
