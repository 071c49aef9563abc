import itertools
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from regemb_utils.classification.knn_runs import MethodResult, Run
from regemb_utils.classification.methods import METHODS
from regemb_utils import paper
from regemb_utils.chapters.scm_vs_wmd import (error_reduction, error_table, optimal_parameters, paired_wmd_table,
                                        relative_error_table, speed_table)
from regemb_utils.chapters.scorecard import (CORPUS_DIFFERS, SPEED_MARGIN, SEARCH_RATE, VERDICTS, claim_verdicts,
                                          footnoted, headline, on_paper_documents, paper_reduction, scorecard, shown_bounds,
                                          speed_ratio, speed_ratio_interval, verdicts)
from regemb_utils.text.datasets import DATASETS

ROOT = Path(__file__).resolve().parents[2]


def _result(dataset, method, errors, n, params=None, runs=()):
    truth = np.zeros(n, dtype=int)
    predicted = truth.copy()
    predicted[:errors] = 1
    return MethodResult(dataset, method, {"k": 1, **(params or {})}, pd.DataFrame(), truth, {1: predicted},
                        list(runs))


@pytest.fixture
def synthetic():
    # BBCSPORT (n = 220, the paper's size): Soft VSM 48 errors = 21.82 % (the paper's exact value); the regularized
    # SCM 30 errors = 13.6 %, far from the paper's 2.27 %; BoW 50 errors.
    table_2 = paper.table_2().loc["bbcsport"].to_dict()
    table_2["nonzero_limit"] = 200  # one parameter differs from the paper's
    return {
        ("bbcsport", "bow"): _result("bbcsport", "bow", 50, 220, runs=[Run("test", 10**6, 1000.0)]),
        ("bbcsport", "soft_vsm"): _result("bbcsport", "soft_vsm", 48, 220, runs=[Run("test", 10**6, 2000.0)]),
        ("bbcsport", "soft_vsm_ortho"): _result("bbcsport", "soft_vsm_ortho", 30, 220, table_2,
                                                runs=[Run("test", 10**6, 4000.0)]),
        ("bbcsport", "soft_vsm_quantized_ortho"): _result("bbcsport", "soft_vsm_quantized_ortho", 30, 220,
                                                          runs=[Run("test", 10**6, 4000.0)]),
        ("bbcsport", "wmd"): _result("bbcsport", "wmd", 20, 100, runs=[Run("test", 10**6, 10**6, solved=10**4)]),
    }


def test_test_errors_are_checked_against_our_interval(synthetic):
    card = scorecard(errors=error_table(synthetic))
    rows = card.set_index("method")
    assert rows.loc["Soft VSM", "paper within our interval"]  # 21.82 % is our point estimate
    assert rows.loc["Soft VSM", "difference"] == pytest.approx(100 * 48 / 220 - 21.82)
    assert not rows.loc["Soft VSM (quan., ortho.)", "paper within our interval"]  # 2.27 % is far below [9.7, 18.8]
    lower, upper = rows.loc["Soft VSM (quan., ortho.)", ["lower", "upper"]]
    assert lower > 2.27 and lower < 100 * 30 / 220 < upper
    assert rows.loc["WMD", "upper"] - rows.loc["WMD", "lower"] > rows.loc["Soft VSM", "upper"] - rows.loc["Soft VSM", "lower"]
    assert rows.loc["BoW", "data"] == "same"  # no embeddings, BBCSPORT's documents are the paper's
    assert CORPUS_DIFFERS in rows.loc["Soft VSM", "data"]


def test_reduction_speed_ratio_and_parameters(synthetic):
    errors = error_table(synthetic)
    card = scorecard(errors=errors, relative=relative_error_table(errors), speeds=speed_table(synthetic),
                     parameters=optimal_parameters(synthetic))
    top = headline(card)
    assert top["reduction"] == pytest.approx(100 * (1 - 30 / 48))  # one data set: a ratio of errors
    assert top["paper_reduction"] == 39.43  # §6.2
    # the paper's measure: pairs evaluated exactly (the WMD solved 10 of its 1,000 pairs in 1,000 s)
    assert top["speed_ratio"] == pytest.approx((1000 / 4.0) / (10 / 1000.0))
    assert top["paper_speed_ratio"] == 819_496  # §6.3, not a ratio of bars read off Figure 9
    assert (top["errors_within"], top["errors_compared"]) == (2, 5)  # the soft VSM (21.82 %) and BoW (23 % ∈ [17.6, 28.6])
    table_2 = card[card["section"] == "Table 2"].set_index("quantity")
    assert not table_2.loc["selected nonzero_limit", "exact match"]
    assert table_2.loc["selected nonzero_limit", "difference"] == 100
    assert table_2.drop("selected nonzero_limit")["exact match"].all()


def test_table_1_sizes_need_exact_matches_and_differing_data_are_marked():
    ours = pd.DataFrame({"train": [517, 2000], "test": [220, 1632], "E[p]": [200.0, 95.0], "classes": [5, 10],
                         "E[p] in corpus dictionary": [181.0, 88.0]}, index=["bbcsport", "ohsumed"])
    paper = pd.DataFrame({"train": [517, 3999], "test": [220, 5153], "E[p]": [181.0, 89.4], "classes": [5, 10]},
                         index=["bbcsport", "ohsumed"])
    card = scorecard(table_1=pd.concat({"ours": ours, "paper": paper}, axis=1),
                     cosines={"32-bit": {"mean": 0.2, "sd": 0.1}})
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
    return MethodResult(dataset, method, {"k": 1}, pd.DataFrame(), truth, {1: predicted})


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


@pytest.mark.parametrize("scm_seconds, verdict", [(0.01, "holds"), (10.0, "not decided"),
                                                  (400.0, "does not hold")])
def test_the_speed_verdict_survives_a_machine_twice_as_fast_or_slow(synthetic, scm_seconds, verdict):
    """Two runs on a shared machine: one of the two methods timed up to twice as fast or as slow as in the other run.
    The ratio moves, the verdict does not."""
    from regemb_utils.chapters.scorecard import SPEED_MARGIN

    assert SPEED_MARGIN > 2
    found = set()
    for factor in (0.5, 1.0, 2.0):
        results = dict(synthetic)
        results["bbcsport", "soft_vsm_quantized_ortho"] = _result("bbcsport", "soft_vsm_quantized_ortho", 30, 220,
                                                                  runs=[Run("test", 10**6, 1000 * scm_seconds * factor)])
        claims = verdicts(speeds=speed_table(results)).set_index("where")
        found.add(claims.loc["04_scm_vs_wmd.html#fig-speed", "verdict"])
    assert found == {verdict}


def test_verdicts_follow_the_stated_rules(synthetic):
    errors = error_table(synthetic)
    card = scorecard(errors=errors, parameters=optimal_parameters(synthetic))
    found = verdicts(reduction={"reduction": 38.0, "lower": 30.0, "upper": 45.0, "datasets": 6, "queries": 100},
                     speeds=speed_table(synthetic), card=card,
                     theorem_1={"32-bit": {"max |⟨e'_i, e'_j⟩ - s'_ij|": 2e-7, "max |s'_ij - cos(e_i, e_j)|": 3e-8,
                                           "words": 500}},
                     paired=paired_wmd_table(synthetic)).set_index("where")
    assert set(found["verdict"]) <= set(VERDICTS)
    assert found.loc["04_scm_vs_wmd.html#fig-relative-error", "verdict"] == "holds within the interval"
    # 25,000x by exact evaluations: above 10,000x, but within the margin that timings on a shared machine need
    assert found.loc["04_scm_vs_wmd.html#fig-speed", "verdict"] == "not decided"
    assert "25,000×" in found.loc["04_scm_vs_wmd.html#fig-speed", "ours"]
    assert "25,000× to 25,000× over 1 data sets" in found.loc["04_scm_vs_wmd.html#fig-speed", "ours"]
    assert found.loc["03_orthogonalization.html#theorem-1-checked", "verdict"] == "holds"
    assert found.loc["04_scm_vs_wmd.html#table-2-the-selected-parameters", "verdict"] == "does not hold"  # C differs
    # on the 100 paired queries the SCM errs on 30 (its first 30 of 220), the WMD on 20, a subset: McNemar 10 vs 0
    assert found.loc["04_scm_vs_wmd.html#fig-paired-wmd", "verdict"] == "does not hold"
    assert "worse on 1" in found.loc["04_scm_vs_wmd.html#fig-paired-wmd", "ours"]
    below = verdicts(reduction={"reduction": 20.0, "lower": 10.0, "upper": 30.0, "datasets": 6, "queries": 100})
    assert below["verdict"].item() == "does not hold"
    around_zero = verdicts(reduction={"reduction": 5.0, "lower": -3.0, "upper": 12.0, "datasets": 6, "queries": 100})
    assert around_zero["verdict"].item() == "not decided"
    broken = verdicts(theorem_1={"1-bit": {"max |⟨e'_i, e'_j⟩ - s'_ij|": 0.3, "max |s'_ij - cos(e_i, e_j)|": 0.0,
                                           "words": 500}})
    assert broken["verdict"].item() == "does not hold"


def test_data_differences_become_footnote_marks():
    card = scorecard(table_1=pd.concat({"ours": pd.DataFrame({"train": [517, 2000], "test": [220, 1632],
                                                              "E[p]": [181.0, 88.0], "classes": [5, 10]},
                                                             index=["bbcsport", "ohsumed"])}, axis=1),
                     cosines={"32-bit": {"mean": 0.2, "sd": 0.1}})
    marked, notes = footnoted(card)
    assert "data" not in marked and len(marked) == len(card)
    assert notes == {"a": CORPUS_DIFFERS, "b": f"ohsumed: {paper.DIFFERENT_DATA['ohsumed']}"}
    by_row = dict(zip(zip(marked["quantity"], marked["dataset"].fillna("")), marked["notes"]))
    assert by_row["training documents", "bbcsport"] == ""  # the paper's data: no mark
    assert by_row["E[p] (unique corpus words per document)", "bbcsport"] == "a"
    assert by_row["E[p] (unique corpus words per document)", "ohsumed"] == "b, a"


# ---------------------------------------------------------------------------------------------------------------------
# The claims beyond the headline (issue 21): each rule on constructed numbers, every row linking to an existing anchor


def _significance(not_significant, drop=0):
    rows = [{"dataset": d, "a": METHODS[a].label, "b": METHODS[b].label,
             "significant": (d, a, b) not in not_significant and (d, b, a) not in not_significant}
            for d in DATASETS for a, b in itertools.combinations(list(METHODS)[:7], 2)]
    return pd.DataFrame(rows[drop:])


def test_significance_rule_compares_the_not_significant_pairs_with_the_papers_five():
    five = set(paper.NOT_SIGNIFICANT_PAIRS.value)
    assert len(five) == paper.NOT_SIGNIFICANT.value
    assert len(_significance(five)) == paper.SIGNIFICANCE_TESTS.value

    def verdict(table, datasets=None):
        return verdicts(significance=table, datasets=datasets).iloc[0]

    holds = verdict(_significance(five))
    assert holds["verdict"] == "holds" and "121 of 126 comparisons significant" in holds["ours"]
    more = five | {("20news", "bow", "wmd")}
    assert verdict(_significance(more))["verdict"] == "does not hold"
    assert verdict(_significance(five - {("ohsumed", "soft_vsm_quantized_ortho", "soft_vsm_ortho")}))["verdict"] \
        == "does not hold"
    assert verdict(_significance(five, drop=1))["verdict"] == "not decided"  # 125 of 126 ran
    own = _significance(five)
    own = own[own["dataset"].isin(paper.PAPER_DOCUMENTS)]
    assert verdict(own, paper.PAPER_DOCUMENTS)["verdict"] == "holds"  # 4 of the 5 are on BBCSPORT and TWITTER


@pytest.mark.parametrize("lower, upper, expected", [(-12.0, -2.0, "holds"), (1.0, 9.0, "does not hold"),
                                                    (-4.0, 3.0, "not decided")])
def test_wmd_quantization_rule(lower, upper, expected):
    found = {"reduction": (lower + upper) / 2, "lower": lower, "upper": upper, "datasets": 6, "queries": 900}
    row = verdicts(wmd_quantization=found).iloc[0]
    assert row["verdict"] == expected
    assert "+8.3 %" in row["paper"]  # 1 − 76.02 / 70.18: the paper's quantized WMD errs more


@pytest.mark.parametrize("mean, n, expected", [(-0.01, 10_000, "holds"), (0.028, 10_000, "does not hold"),
                                               (0.001, 100, "not decided")])
def test_negative_cosine_rule(mean, n, expected):
    row = verdicts(cosines={"1-bit": {"mean": mean, "sd": 0.04, "n": n, "negative": 0.3}}).iloc[0]
    assert row["verdict"] == expected and f"{n:,} random word pairs" in row["ours"]
    older = verdicts(cosines={"1-bit": {"mean": mean, "sd": 0.04}}).iloc[0]  # a record without the sample size
    assert older["verdict"] == "not decided"


def _ratio(ratio, lower, upper, pairs=10**7):
    return {"ratio": ratio, "lower": lower, "upper": upper, "runs": 10, "pairs": pairs}


@pytest.mark.parametrize("name", ["sparse", "quantization", "wcd"])
@pytest.mark.parametrize("interval, expected", [((2.0, 1.5, 2.6), "holds"), ((0.5, 0.4, 0.7), "does not hold"),
                                                ((1.05, 0.9, 1.2), "not decided")])
def test_speed_rules_judge_the_direction_beyond_the_margin(name, interval, expected):
    row = verdicts(speed_ratios={name: _ratio(*interval)}).iloc[0]
    assert row["verdict"] == expected and row["where"] == "04_scm_vs_wmd.html#fig-speed"
    assert verdicts(speed_ratios={name: None}).iloc[0]["verdict"] == "not decided"


@pytest.mark.parametrize("twenty, expected", [((5e5, 4e5, 6e5), "holds"), ((5e4, 4e4, 6e4), "does not hold"),
                                              ((2e5, 1e5, 3e5), "not decided")])
def test_20news_speed_rule_compares_with_the_average(twenty, expected):
    row = verdicts(speed_ratios={"20news": _ratio(*twenty), "average": _ratio(2e5, 1.5e5, 2.5e5)}).iloc[0]
    assert row["verdict"] == expected


def test_speed_ratio_interval_widens_the_bootstrap_by_the_speed_margin(synthetic):
    found = speed_ratio_interval(synthetic, "soft_vsm_quantized_ortho", "wmd")
    assert found["ratio"] == pytest.approx(speed_ratio(speed_table(synthetic)))  # one run each: 25,000×
    assert found["lower"] == pytest.approx(found["ratio"] / SPEED_MARGIN)
    assert found["upper"] == pytest.approx(found["ratio"] * SPEED_MARGIN)
    assert speed_ratio_interval(synthetic, "soft_vsm_quantized", "wmd") is None


def _parameters(**columns):
    table = pd.DataFrame({"dataset": list(DATASETS), "source": METHODS["soft_vsm_ortho"].label,
                          **paper.table_2().reset_index(drop=True).to_dict("list")})
    for column, values in columns.items():
        table[column] = values
    return table


def test_parameter_rules_apply_the_papers_argument_to_our_selection():
    paper_own = verdicts(parameters=_parameters()).set_index("claim")["verdict"]
    assert list(paper_own) == ["holds", "holds"]  # the paper's own Table 2 passes its own argument
    no_idf = verdicts(parameters=_parameters(idf=[True, False, False, False, True, False])).iloc[0]
    assert no_idf["verdict"] == "does not hold"
    assert verdicts(parameters=_parameters(idf=[True, False] * 3)).iloc[0]["verdict"] == \
        "not decided"
    weak = verdicts(parameters=_parameters(nonzero_limit=[800] * 6)).iloc[1]
    assert weak["verdict"] == "does not hold" and "C = 800 (6 of 6)" in weak["ours"]
    tie = verdicts(parameters=_parameters(exponent=[4.0, 4.0, 4.0, 1.0, 1.0, 1.0])).iloc[1]
    assert tie["verdict"] == "not decided" and "o = tie" in tie["ours"]


@pytest.mark.parametrize("factor, cosine, expected", [(2e-7, 3e-8, "holds"), (2e-7, 0.2, "does not hold"),
                                                      (0.3, 1e-8, "does not hold")])
def test_theorem_1_needs_the_stored_entries_to_be_the_cosines(factor, cosine, expected):
    checked = {"32-bit": {"max |⟨e'_i, e'_j⟩ - s'_ij|": factor, "max |s'_ij - cos(e_i, e_j)|": cosine, "words": 500}}
    row = verdicts(theorem_1=checked).iloc[0]
    assert row["verdict"] == expected and "strictly diagonally dominant" in row["claim"]


def _full_results():
    """Every method of the paper and Sato et al. on every data set: 40 test queries, 2 timed runs each."""
    rng = np.random.default_rng(0)
    results = {}
    for d in DATASETS:
        for i, m in enumerate(METHODS):
            truth = rng.integers(0, 3, 40)
            predicted = np.where(rng.random(40) < 0.2 + 0.05 * i, (truth + 1) % 3, truth)
            wmd = METHODS[m].measure == "wmd"
            runs = [Run("validation", 400, 0.01 if not wmd else 40.0, solved=100 if wmd else None),
                    Run("test", 800, 0.02 if not wmd else 80.0, solved=200 if wmd else None)]
            params = {**paper.table_2().loc[d].to_dict(), "k": 1} if "ortho" in m else {"k": 1}
            results[d, m] = MethodResult(d, m, params, pd.DataFrame(), truth, {1: predicted}, runs)
    return results


def _anchors(chapter: str) -> set[str]:
    """The ids that a chapter's page will carry: its headings', its named figures' and its labels' (``(name)=``)."""
    from docutils.nodes import make_id

    cells = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return ({make_id(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
            | set(re.findall(r"^:name: (\S+)$", text, flags=re.M)) | set(re.findall(r"^\(([\w-]+)\)=$", text, flags=re.M)))


def test_every_claim_has_a_row_that_links_to_an_existing_anchor():
    results = _full_results()
    cosines = {"1-bit": {"mean": 0.03, "sd": 0.04, "n": 1000}, "32-bit": {"mean": 0.15, "sd": 0.08, "n": 1000}}
    theorem = {"32-bit": {"max |⟨e'_i, e'_j⟩ - s'_ij|": 1e-7, "max |s'_ij - cos(e_i, e_j)|": 1e-8, "words": 300}}
    card = scorecard(parameters=optimal_parameters(results))
    claims = claim_verdicts(results, cosines=cosines, theorem_1=theorem, card=card)
    expected = ["39 %", "outperforms the WMD", "outperforms the WMD (quant.)", "10,000×", "Theorem 1",
                "optimal parameters", "except five", "does not benefit from quantization", "negative cosine",
                "Sparse instead of dense", "Quantization slows", "20NEWS", "WCD", "Idf is important",
                "Strong orthogonalization"]
    for words in expected:
        assert claims["claim"].str.contains(words, regex=False).any(), f"no verdict row for {words!r}"
    assert set(claims["verdict"]) <= set(VERDICTS)
    for where in claims["where"]:
        page, anchor = where.split("#")
        assert anchor in _anchors(page.removesuffix(".html")), f"{where} is not an anchor of the book"
    own = claim_verdicts(results, cosines=cosines, theorem_1=theorem, card=card, datasets=paper.PAPER_DOCUMENTS)
    both = on_paper_documents(claims, own).set_index("claim")
    assert both.filter(like="Theorem 1", axis=0)["ours, paper's documents"].item() == "same"
    assert "of 63 comparisons" in both.filter(like="except five", axis=0)["ours, paper's documents"].item()
    assert "3 data sets" in both.filter(like="39 %", axis=0)["ours, paper's documents"].item()


def test_bounds_show_enough_digits_to_differ_from_the_papers_value():
    rows = pd.DataFrame({"paper": [7.22, 21.82, 9.1], "lower": [7.2204, 15.6312, np.nan], "upper": [9.5, 21.82, 12.0]})
    shown = shown_bounds(rows)
    assert list(shown["lower"]) == ["7.2204", "15.63", None]  # 7.22 would read as the paper's value
    assert list(shown["upper"]) == ["9.50", "21.82", "12.00"]  # equal to the paper's: two decimals are right


def test_speeds_measured_on_other_hardware_have_no_difference(synthetic):
    card = scorecard(speeds=speed_table(synthetic))
    assert card.loc[card["section"] == "Figure 9", "difference"].isna().all()


def test_strong_orthogonalization_is_read_from_table_2():
    from regemb_utils.chapters.scorecard import strong_orthogonalization

    assert strong_orthogonalization() == {"C": 100, "o": 4.0, "Sym": True, "Dom": True}  # §6.4's words


def test_shown_verdicts_put_the_papers_documents_in_a_second_line():
    from regemb_utils.chapters.scorecard import shown_verdicts

    claims = pd.DataFrame({"claim": ["a", "b"], "paper": ["1", "2"], "ours": ["x", "y"], "verdict": ["holds", "holds"],
                           "where": ["p.html#a", "p.html#b"], "ours, paper's documents": ["same", "z"],
                           "verdict, paper's documents": ["holds", "does not hold"]})
    shown = shown_verdicts(claims)
    assert list(shown.columns) == ["claim", "paper", "ours", "verdict"]
    assert list(shown["ours"]) == ["x", "y. On the paper's documents (BBCSPORT, TWITTER, 20NEWS): z"]
    assert list(shown["verdict"]) == ["holds", "holds; the paper's documents: does not hold"]


@pytest.mark.parametrize("name", ["sparse", "quantization", "wcd"])
def test_a_speed_measured_on_few_pairs_is_not_decided(name, synthetic):
    """The smoke profile's runs evaluate a few thousand pairs in milliseconds: two runs on a shared machine differ by
    more than the margin, so such a ratio is never judged, whatever it is (a count of work decides, the same on every
    run); the note says why."""
    from regemb_utils.chapters.scorecard import MIN_TIMED_PAIRS

    short = verdicts(speed_ratios={name: _ratio(2.0, 1.5, 2.6, pairs=MIN_TIMED_PAIRS - 1)}).iloc[0]
    assert short["verdict"] == "not decided"
    assert f"under the {MIN_TIMED_PAIRS:,} that a verdict needs" in short["ours"]
    assert "under the" not in verdicts(speed_ratios={name: _ratio(2.0, 1.5, 2.6)}).iloc[0]["ours"]
    results = dict(synthetic)  # the headline: 25,000 times as fast, but on a thousand pairs each
    results["bbcsport", "soft_vsm_quantized_ortho"] = _result("bbcsport", "soft_vsm_quantized_ortho", 30, 220,
                                                              runs=[Run("test", 1000, 4.0)])
    results["bbcsport", "wmd"] = _result("bbcsport", "wmd", 20, 100, runs=[Run("test", 1000, 1000.0, solved=10)])
    assert speed_ratio(speed_table(results)) == pytest.approx(25_000)
    row = verdicts(speeds=speed_table(results)).set_index("where").loc["04_scm_vs_wmd.html#fig-speed"]
    assert row["verdict"] == "not decided"
    assert speed_ratio_interval(results, "soft_vsm_quantized_ortho", "wmd")["pairs"] == 1000


def test_the_papers_significance_claim_is_corrected_over_the_papers_comparisons_only():
    """§6.1's 126 comparisons: Sato et al.'s baselines (more tests) must not change the Benjamini–Hochberg q-values."""
    results = _full_results()
    seven = {key: r for key, r in results.items() if key[1] in tuple(METHODS)[:7]}

    def row(found):
        return claim_verdicts(found).set_index("claim").filter(like="except five", axis=0).iloc[0]

    assert "of 126 comparisons" in row(results)["ours"]
    assert row(results).to_dict() == row(seven).to_dict()


def test_the_speed_verdict_needs_both_rates(synthetic):
    """The synthetic WMD solves 10 of its 1,000 pairs exactly: an SCM 100,000x faster by exact evaluations but only
    1,000x by the search rate is not decided (the paper's measure, every pair solved, lies between the two)."""
    results = dict(synthetic)
    results["bbcsport", "soft_vsm_quantized_ortho"] = _result("bbcsport", "soft_vsm_quantized_ortho", 30, 220,
                                                              runs=[Run("test", 10**6, 1000.0)])
    speeds = speed_table(results)
    assert speed_ratio(speeds) == pytest.approx(100_000) and speed_ratio(speeds, SEARCH_RATE) == pytest.approx(1_000)
    row = verdicts(speeds=speeds).iloc[0]
    assert row["verdict"] == "not decided" and "lies between the" in row["ours"]


def test_an_interval_around_zero_decides_nothing_even_if_it_holds_the_papers_value():
    wide = verdicts(reduction={"reduction": 20.0, "lower": -5.0, "upper": 45.0, "datasets": 6, "queries": 100})
    assert wide["verdict"].item() == "not decided"


def test_the_reduction_on_part_of_the_data_sets_is_judged_against_the_papers_values_there():
    from regemb_utils import paper
    own = ["bbcsport", "twitter", "20news"]
    expected = 100 * (1 - sum(paper.TEST_ERRORS["soft_vsm_ortho", d].value for d in own)
                      / sum(paper.TEST_ERRORS["soft_vsm", d].value for d in own))
    assert paper_reduction(own) == pytest.approx(expected) and paper_reduction(own) < 36  # below §6.2's 39.43
    interval = {"reduction": 33.0, "lower": 29.0, "upper": 37.0, "datasets": 3, "queries": 100}
    assert verdicts(reduction=interval)["verdict"].item() == "does not hold"  # all six: 39.43 % lies above it
    there = verdicts(reduction=interval, datasets=own).iloc[0]
    assert there["verdict"] == "holds within the interval" and f"{paper_reduction(own):.1f} %" in there["ours"]


def test_the_theorem_needs_the_unstored_pairs_orthogonal():
    checked = {"max |⟨e'_i, e'_j⟩ - s'_ij|": 2e-7, "max |s'_ij - cos(e_i, e_j)|": 3e-8, "words": 500}
    assert verdicts(theorem_1={"32-bit": {**checked, "max |⟨e'_i, e'_j⟩|, unstored": 1e-8}})["verdict"].item() == "holds"
    leaky = verdicts(theorem_1={"32-bit": {**checked, "max |⟨e'_i, e'_j⟩|, unstored": 0.2}}).iloc[0]
    assert leaky["verdict"] == "does not hold" and "does not store: 2.0e-01 (32-bit)" in leaky["ours"]


def test_the_papers_value_stands_for_every_number_that_rounds_to_it():
    from regemb_utils.chapters.scorecard import _row
    # 39.53 % (two decimals) may be 39.532 %, inside [39.5305, 41.75]; a bar label 40 stands for 39.5 to 40.5
    assert _row("Figure 8", "test error (%)", 39.53, 40.6, lower=39.5305, upper=41.75)["paper within our interval"]
    assert _row("Figure 8", "test error (%)", 40.0, 41.0, lower=40.4, upper=41.6)["paper within our interval"]
    assert not _row("Figure 8", "test error (%)", 40.0, 41.0, lower=40.6, upper=41.6)["paper within our interval"]
    assert not _row("Figure 8", "test error (%)", 39.53, 40.6, lower=39.54, upper=41.75)["paper within our interval"]
