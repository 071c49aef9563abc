import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result

from regemb_utils.classification.knn_runs import Run
from regemb_utils import paper
from regemb_utils.chapters.scm_vs_wmd import (
    SEARCH_RATE,
    error_reduction,
    error_table,
    optimal_parameters,
    relative_error_table,
    speed_ratio,
    speed_table,
)
from regemb_utils.chapters.scorecard import (
    COSINE_PAIRS,
    CORPUS_DIFFERS,
    SPEED,
    SPEED_RATIO,
    footnoted,
    headline,
    scorecard,
)


@pytest.fixture
def synthetic():
    # BBCSPORT (n = 220, the paper's size): Soft VSM 48 errors = 21.82 % (the paper's exact value); the regularized
    # SCM 30 errors = 13.6 %, far from the paper's 2.27 %; BoW 50 errors.
    table_2 = paper.table_2().loc["bbcsport"].to_dict()
    table_2["nonzero_limit"] = 200  # one parameter differs from the paper's
    return {
        ("bbcsport", "bow"): fake_result("bbcsport", "bow", errors=50, n=220, runs=[Run("test", 10**6, 1000.0)]),
        ("bbcsport", "soft_vsm"): fake_result(
            "bbcsport", "soft_vsm", errors=48, n=220, runs=[Run("test", 10**6, 2000.0)]
        ),
        ("bbcsport", "soft_vsm_ortho"): fake_result(
            "bbcsport", "soft_vsm_ortho", errors=30, n=220, params=table_2, runs=[Run("test", 10**6, 4000.0)]
        ),
        ("bbcsport", "soft_vsm_quantized_ortho"): fake_result(
            "bbcsport", "soft_vsm_quantized_ortho", errors=30, n=220, runs=[Run("test", 10**6, 4000.0)]
        ),
        ("bbcsport", "wmd"): fake_result(
            "bbcsport", "wmd", errors=20, n=100, runs=[Run("test", 10**6, 10**6, solved=10**4)]
        ),
    }


def timings(scm_seconds=(0.009, 0.01, 0.011), wmd_seconds=(1.0, 3.0, 2.0, 2.0)):
    """measure_speed's rows on BBCSPORT: the regularized SCM's repeated calls over 100 test queries × 100 reference
    documents, and the WMD's sampled queries (100 pairs each)."""
    scm = pd.DataFrame(
        {
            "dataset": "bbcsport",
            "method": "soft_vsm_quantized_ortho",
            "query": pd.array([pd.NA] * len(scm_seconds), "Int64"),
            "test queries": 100,
            "pairs": 10_000,
            "seconds": list(scm_seconds),
        }
    )
    wmd = pd.DataFrame(
        {
            "dataset": "bbcsport",
            "method": "wmd",
            "query": pd.array(range(len(wmd_seconds)), "Int64"),
            "test queries": 100,
            "pairs": 100,
            "seconds": list(wmd_seconds),
        }
    )
    return pd.concat([scm, wmd], ignore_index=True)


def test_test_errors_are_checked_against_our_interval(synthetic):
    card = scorecard(errors=error_table(synthetic))
    rows = card.set_index("method")
    assert rows.loc["Soft VSM", "paper within our interval"]  # 21.82 % is our point estimate
    assert rows.loc["Soft VSM", "difference"] == pytest.approx(100 * 48 / 220 - 21.82)
    assert not rows.loc["Soft VSM (quan., ortho.)", "paper within our interval"]  # 2.27 % is far below [9.7, 18.8]
    lower, upper = rows.loc["Soft VSM (quan., ortho.)", ["lower", "upper"]]
    assert lower > 2.27 and lower < 100 * 30 / 220 < upper
    assert (
        rows.loc["WMD", "upper"] - rows.loc["WMD", "lower"]
        > rows.loc["Soft VSM", "upper"] - rows.loc["Soft VSM", "lower"]
    )
    assert rows.loc["BoW", "data"] == "same"  # no embeddings, BBCSPORT's documents are the paper's
    assert CORPUS_DIFFERS in rows.loc["Soft VSM", "data"]


def test_reduction_speed_ratio_and_parameters(synthetic):
    errors = error_table(synthetic)
    card = scorecard(
        errors=errors,
        relative=relative_error_table(errors),
        timings=timings(),
        parameters=optimal_parameters(synthetic),
    )
    top = headline(card)
    assert top["reduction"] == pytest.approx(100 * (1 - 30 / 48))  # one data set: a ratio of errors
    assert top["paper_reduction"] == 39.43  # §6.2
    # Figure 9 from the timings with the paper's measure (not from the kNN runs' clocks): 10⁶ against 50 pairs / s
    speed = card[card["section"] == "Figure 9"].set_index("quantity")
    ratio = speed.loc[SPEED_RATIO]
    assert ratio["ours"] == pytest.approx(20_000) and ratio["paper"] == 819_496  # §6.3, not a ratio of read-off bars
    assert ratio["lower"] < 20_000 < ratio["upper"] and ratio["paper within our interval"] is False
    rates = speed.loc[[SPEED]].set_index("method")["ours"]
    assert rates.to_dict() == pytest.approx({"WMD": 50.0, "Soft VSM (quan., ortho.)": 1e6})
    assert np.isnan(speed["difference"].astype(float)).all()  # speeds measured on other hardware: no difference
    assert (top["errors_within"], top["errors_compared"]) == (
        2,
        5,
    )  # the soft VSM (21.82 %) and BoW (23 % ∈ [17.6, 28.6])
    table_2 = card[card["section"] == "Table 2"].set_index("quantity")
    assert not table_2.loc["selected C", "exact match"]
    assert table_2.loc["selected C", "difference"] == 100
    assert table_2.drop("selected C")["exact match"].all()


def test_table_1_sizes_need_exact_matches_and_differing_data_are_marked():
    ours = pd.DataFrame(
        {
            "train": [517, 2000],
            "test": [220, 1632],
            "E[p]": [200.0, 95.0],
            "classes": [5, 10],
            "E[p] in corpus dictionary": [181.0, 88.0],
        },
        index=["bbcsport", "ohsumed"],
    )
    paper = pd.DataFrame(
        {"train": [517, 3999], "test": [220, 5153], "E[p]": [181.0, 89.4], "classes": [5, 10]},
        index=["bbcsport", "ohsumed"],
    )
    card = scorecard(
        table_1=pd.concat({"ours": ours, "paper": paper}, axis=1), cosines={"32-bit": {"mean": 0.2, "sd": 0.1}}
    )
    sizes = card[(card["section"] == "Table 1") & (card["quantity"] == "training documents")].set_index("dataset")
    assert sizes.loc["bbcsport", "exact match"] and not sizes.loc["ohsumed", "exact match"]
    assert sizes.loc["ohsumed", "data"].startswith("ohsumed:")
    mean_words = card[card["quantity"].str.startswith("E[p]")].set_index("dataset")
    assert mean_words.loc["bbcsport", "difference"] == pytest.approx(0.0)  # the corpus-dictionary E[p] is compared
    cosine = card[card["quantity"].str.startswith("cosine of word pairs, mean")].iloc[0]
    assert cosine["paper"] == pytest.approx(0.1532) and cosine["difference"] == pytest.approx(0.2 - 0.1532)
    assert card["paper within our interval"].isna().all()  # no intervals for these


def test_speed_is_measured_both_ways(synthetic):
    speeds = speed_table(synthetic).set_index("method")
    assert speeds.loc["wmd", "pairs per second per core"] == pytest.approx(1000 / 1000.0)  # the search rate
    assert speeds.loc["wmd", "exact evaluations per second per core"] == pytest.approx(10 / 1000.0)
    assert speeds.loc["bow", "exact evaluations per second per core"] == speeds.loc["bow", "pairs per second per core"]
    assert speed_ratio(speeds.reset_index(), SEARCH_RATE) == pytest.approx(250.0)


def _predicted(dataset, method, wrong, n=400):
    truth = np.zeros(n, dtype=int)
    predicted = truth.copy()
    predicted[wrong] = 1
    return fake_result(dataset, method, truth, predicted)


def test_error_reduction_has_a_paired_bootstrap_interval():
    rng = np.random.default_rng(1)
    results = {}
    for dataset in ("bbcsport", "twitter"):
        base = rng.random(400) < 0.3
        results[dataset, "soft_vsm"] = _predicted(dataset, "soft_vsm", base)
        results[dataset, "soft_vsm_ortho"] = _predicted(dataset, "soft_vsm_ortho", base & (rng.random(400) < 0.6))
    found = error_reduction(results, resamples=4000)
    mean = lambda m: np.mean([np.mean(results[d, m].predictions[1] != 0) for d in ("bbcsport", "twitter")])
    assert found["reduction"] == pytest.approx(100 * (1 - mean("soft_vsm_ortho") / mean("soft_vsm")))
    assert found["lower"] < found["reduction"] < found["upper"]
    assert found["upper"] - found["lower"] < 15  # paired: the regularized errors are a subset of the baseline's
    assert (found["datasets"], found["queries"]) == (2, 800)
    assert error_reduction(results, resamples=500, seed=3) == error_reduction(results, resamples=500, seed=3)
    with pytest.raises(ValueError, match="common data set"):
        error_reduction(results, regularized="soft_vsm_quantized_ortho")


def test_data_differences_become_footnote_marks():
    card = scorecard(
        table_1=pd.concat(
            {
                "ours": pd.DataFrame(
                    {"train": [517, 2000], "test": [220, 1632], "E[p]": [181.0, 88.0], "classes": [5, 10]},
                    index=["bbcsport", "ohsumed"],
                )
            },
            axis=1,
        ),
        cosines={"32-bit": {"mean": 0.2, "sd": 0.1}},
    )
    marked, notes = footnoted(card)
    assert "data" not in marked and len(marked) == len(card)
    assert notes == {"a": CORPUS_DIFFERS, "b": f"ohsumed: {paper.DIFFERENT_DATA['ohsumed']}", "c": COSINE_PAIRS}
    by_row = dict(zip(zip(marked["quantity"], marked["dataset"].fillna("")), marked["notes"]))
    assert by_row["training documents", "bbcsport"] == ""  # the paper's data: no mark
    assert by_row["E[p] (unique corpus words per document)", "bbcsport"] == "a"
    assert by_row["E[p] (unique corpus words per document)", "ohsumed"] == "b, a"
    # how the two sides counted is a footnote too, not words repeated in every row's quantity
    assert by_row["cosine of word pairs, mean", ""] == "a, c"


# ---------------------------------------------------------------------------------------------------------------------
# One precision per quantity; the paper's rounding


def test_a_quantity_is_shown_with_one_precision_in_every_table(synthetic):
    from regemb_utils.chapters.scorecard import section_table, shown_numbers

    errors = error_table(synthetic)
    card = scorecard(
        errors=errors,
        timings=timings(),
        cosines={"1-bit": {"mean": 0.0123456, "sd": 0.081}, "32-bit": {"mean": 0.15, "sd": 0.08}},
    )
    full = shown_numbers(card)
    for section in ("Figure 8", "Figure 9", "Chapter 2"):
        html = section_table(card, section).html
        for value in full.loc[full["section"] == section, "ours"]:
            assert f">{value}<" in html, f"{section}: {value} is shown otherwise in its section's table"
    assert "0.0123" in set(full["ours"]) and "13.64" in set(full["ours"])
    # the paper's cosines with the four decimals its notebook prints (a float drops 0.0810's last zero)
    assert paper.COSINES["32-bit", "sd"].value == 0.081
    assert ">0.0810<" in section_table(card, "Chapter 2").html


def test_the_papers_value_stands_for_every_number_that_rounds_to_it():
    from regemb_utils.chapters.scorecard import _row

    # 39.53 % (two decimals) may be 39.532 %, inside [39.5305, 41.75]; a bar label 40 stands for 39.5 to 40.5
    assert _row("Figure 8", "test error (%)", 39.53, 40.6, lower=39.5305, upper=41.75)["paper within our interval"]
    assert _row("Figure 8", "test error (%)", 40.0, 41.0, lower=40.4, upper=41.6)["paper within our interval"]
    assert not _row("Figure 8", "test error (%)", 40.0, 41.0, lower=40.6, upper=41.6)["paper within our interval"]
    assert not _row("Figure 8", "test error (%)", 39.53, 40.6, lower=39.54, upper=41.75)["paper within our interval"]


def test_agreement_allows_for_both_studies_sampling_error():
    """Two independent estimates of the same error agree about 95 % of the time by this rule, where "the paper's
    value inside our interval" holds far less often (about 83 %)."""
    from regemb_utils.chapters.scorecard import agrees
    from regemb_utils.classification.statistics import agresti_coull

    rng = np.random.default_rng(0)
    n, truth = 500, 0.2
    agreed = inside = 0
    trials = 2000
    for _ in range(trials):
        paper_errors, our_errors = rng.binomial(n, truth, 2)
        paper_value = round(100 * paper_errors / n, 2)
        _, lower, upper = agresti_coull(int(our_errors), n)
        agreed += agrees(paper_value, 100 * our_errors / n, 100 * lower, 100 * upper, n)
        inside += 100 * lower <= paper_value <= 100 * upper
    assert 0.93 < agreed / trials < 0.975
    assert inside / trials < 0.88


def test_values_the_paper_does_not_print_are_marked_and_read_off_values_differ_as_shown(synthetic):
    from regemb_utils.chapters.scm_vs_wmd import error_table

    results = {**synthetic, ("20news", "bow"): fake_result("20news", "bow", errors=4400, n=7532)}
    card = scorecard(errors=error_table(results))
    row = card[(card["dataset"] == "20news") & (card["method"] == "BoW")].iloc[0]
    assert paper.TEST_ERRORS["bow", "20news"].kind == "paper's result files"
    assert "preliminary result files" in row["data"] and row["paper"] == 58.66
    bbcsport = card[(card["dataset"] == "bbcsport") & (card["method"] == "BoW")].iloc[0]
    assert "result files" not in bbcsport["data"]  # a bar label the paper prints
    # Figure 10's soft VSM, read off a blurry label (80.66) and shown as ≈ 80.7: the difference is to what is shown
    relative = pd.DataFrame(
        {
            "method": ["soft_vsm"],
            "label": ["Soft VSM"],
            "paper": [paper.RELATIVE_ERRORS["soft_vsm"].value],
            "relative error": [78.45],
        }
    )
    row = scorecard(relative=relative).iloc[0]
    assert row["paper read off a figure"] and row["difference"] == pytest.approx(78.45 - 80.7)


def test_all_numbers_table_is_narrow_and_its_differences_are_those_shown():
    """The 144-number table: seven columns (section and notes join the quantity, the interval joins ours), so that it
    fits a desktop's text column; ours − paper is the difference of the two values as shown: AMAZON's BoW errs on 891
    of 2,400 queries, 37.125 %, shown 37.12, against the paper's 29.29: 7.83 (the unrounded 7.835 shows as 7.84)."""
    import re

    from regemb_utils.chapters.scorecard import all_numbers_table

    card = pd.DataFrame(
        {
            "section": ["Figure 8", "Figure 8", "Table 1"],
            "quantity": ["test error (%)", "test error (%)", "classes"],
            "dataset": ["amazon", "ohsumed", "amazon"],
            "method": ["BoW", "Soft VSM (quan.)", None],
            "paper": [29.29, 44.40, 4.0],
            "paper read off a figure": [False, False, False],
            "paper decimals": [None, 2, None],
            "ours": [100 * 891 / 2400, 48.2199, 4.0],
            "difference": [100 * 891 / 2400 - 29.29, 48.2199 - 44.40, 0.0],
            "lower": [35.21, 45.81, np.nan],
            "upper": [39.08, 50.65, np.nan],
            "paper within our interval": [False, False, None],
            "agrees": [False, False, None],
            "exact match": [None, None, True],
            "data": ["same", "split", "same"],
        }
    )
    html = all_numbers_table(card, download="scorecard").html
    header = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    assert header == ["quantity", "dataset", "method", "paper", "ours [95 % interval]", "ours − paper", "agrees"]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", html)[1:]]
    assert rows[0][3:6] == ["29.29", "37.12 [35.21, 39.08]", "7.83"]
    assert rows[1][0] == "Figure 8: test error (%); notes a" and rows[1][3:6] == [
        "44.40",
        "48.22 [45.81, 50.65]",
        "3.82",
    ]
    assert rows[2][4:] == ["4", "0", "yes"]
    assert "<figcaption" in html and "(a) split" in html
