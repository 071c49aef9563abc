"""Each claim's rule on constructed evidence: holds, does not hold, open, split by data set, split by seed, and the
verdict's wording for each case."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result

from regemb_utils import paper
from regemb_utils.chapters.claims import CLAIMS, Evidence, agreement_result, judge, judgement_table
from regemb_utils.classification.knn_runs import Run
from regemb_utils.study.claims import FAILS, HOLDS, OPEN, Finding, verdict

ROOT = Path(__file__).resolve().parents[2]
N = 400  # test documents per data set: enough for the exact McNemar test to decide a gap of 10 points


def result(dataset, method, wrong, n=N, **params):
    """A method that errs on the test documents ``wrong`` (indices) of ``n``."""
    truth = np.arange(n) % 2
    predicted = truth.copy()
    predicted[list(wrong)] = 1 - truth[list(wrong)]
    return fake_result(dataset, method, truth, predicted, params=params, runs=[Run("test", pairs=100, seconds=0.5)])


def nested(errors: dict[str, int], dataset: str, **params) -> dict:
    """Each method errs on the first ``errors[method]`` documents: a method with fewer errors is right wherever one
    with more is, so every difference is all one way (the McNemar test decides a gap of 40 of 400)."""
    return {(dataset, m): result(dataset, m, range(e), **params.get(m, {})) for m, e in errors.items()}


BASE = {
    "bow": 160,
    "soft_vsm": 120,
    "wmd_quantized": 110,
    "soft_vsm_quantized": 80,
    "wmd": 100,
    "soft_vsm_quantized_ortho": 60,
    "soft_vsm_ortho": 60,
}


def by_claim(judgements):
    return {j.claim.key: j for j in judgements}


def test_a_verdict_is_worded_as_its_counts():
    d = ["BBCSPORT", "TWITTER", "OHSUMED"]
    assert verdict([Finding(HOLDS, "", x) for x in d]) == "holds on all 3 data sets"
    assert (
        verdict([Finding(FAILS, "", "TWITTER"), Finding(HOLDS, "", "BBCSPORT"), Finding(HOLDS, "", "OHSUMED")])
        == "holds on 2 of 3 data sets, does not hold on 1 (TWITTER)"
    )
    assert (
        verdict([Finding(r, "", x) for r, x in zip((HOLDS, FAILS, OPEN), d)])
        == "holds on 1 of 3 data sets (BBCSPORT), does not hold on 1 (TWITTER), open on 1 (OHSUMED)"
    )
    assert (
        verdict([Finding(OPEN, "", x) for x in d[:2]] + [Finding(HOLDS, "", d[2])])
        == "open on 2 of 3 data sets, holds on 1 (OHSUMED)"
    )
    split = [Finding(HOLDS, "", "BBCSPORT", s) for s in (1, 2, 3)] + [
        Finding(r, "", "TWITTER", s) for s, r in ((1, HOLDS), (2, OPEN), (3, HOLDS))
    ]
    # a data set whose result moves with the seed is named apart, with what it gives with which seed; the others are
    # counted once for every seed (a group that is not the majority named)
    assert verdict(split) == (
        "holds on 1 of 2 data sets (BBCSPORT), with each of the 3 seeds; depends on the seed on 1 (TWITTER: holds "
        "with seeds 1 and 3, open with seed 2)"
    )


def test_a_finding_refuses_an_unknown_result():
    with pytest.raises(ValueError, match="one of 'holds', 'does not hold', 'open'"):
        Finding("yes", "")


def test_paired_claims_are_decided_per_data_set():
    results = {
        **nested(BASE, "bbcsport"),
        **nested({**BASE, "soft_vsm_ortho": 118}, "twitter"),  # a gap of 2: not decided
        **nested({**BASE, "soft_vsm": 40, "wmd": 30}, "ohsumed"),
    }  # regularization errs more; the WMD wins
    judged = by_claim(judge(Evidence(results)))
    assert (
        judged["regularization-each"].verdict == "holds on 1 of 3 data sets (BBCSPORT), does not hold on 1 (OHSUMED), "
        "open on 1 (TWITTER)"
    )
    assert judged["scm-beats-wmd"].verdict == "holds on 2 of 3 data sets, does not hold on 1 (OHSUMED)"
    # the 1-bit WMD errs more on every data set: the WMD does not benefit from quantization
    assert judged["quantization-wmd"].verdict == "holds on all 3 data sets"


def test_a_seeded_claim_is_split_by_seed_and_an_unseeded_one_is_not():
    results = {**nested(BASE, "bbcsport"), **nested(BASE, "twitter")}
    other = nested({**BASE, "soft_vsm_ortho": 118}, "twitter")  # seed 2: no gain on TWITTER
    seed_results = {
        2: {k: v for k, v in other.items() if k[1] in ("soft_vsm", "soft_vsm_ortho")},
        3: {k: results[k] for k in results if k[1] in ("soft_vsm", "soft_vsm_ortho")},
    }
    judged = by_claim(judge(Evidence(results, seed_results)))
    assert judged["regularization-each"].verdict == (
        "holds on 1 of 2 data sets (BBCSPORT), with each of the 3 seeds; depends on the seed on 1 (TWITTER: holds "
        "with seeds 1 and 3, open with seed 2)"
    )
    assert "seed" not in judged["quantization-wmd"].verdict  # the two WMDs: one seed
    assert not any(f.seed for f in judged["quantization-wmd"].findings)
    assert "seed 2:" in judged["regularization-each"].ours
    # the landing page names the data set that moves with the seed; chapter 6 says what each seed gives
    brief = "holds on 1 of 2 data sets (BBCSPORT), with each of the 3 seeds; depends on the seed on 1 (TWITTER)"
    assert judged["regularization-each"].brief_verdict == brief
    from regemb_utils.chapters.claims import verdict_tables

    chapter, landing = verdict_tables(judgement_table(judge(Evidence(results, seed_results))))
    assert brief + "<" in landing.html and "TWITTER: holds with seeds 1 and 3" not in landing.html
    assert "TWITTER: holds with seeds 1 and 3, open with seed 2" in chapter.html


@pytest.mark.parametrize(
    "ours, lower, upper, expected",
    [
        (45.0, 40.0, 50.0, HOLDS),  # above the paper's
        (37.3, 33.0, 41.0, HOLDS),  # below it, but the interval reaches it
        (36.5, 33.0, 38.8, HOLDS),  # our interval misses it; widened √2-fold (to 39.96) it reaches it
        (35.0, 32.0, 38.0, FAILS),  # widened to 39.24: still below
    ],
)
def test_agreement_widens_our_interval_for_the_papers_sampling_error(ours, lower, upper, expected):
    assert agreement_result(ours, lower, upper, 39.43) == expected  # as many test documents as the paper


def test_agreement_widens_less_when_the_paper_had_more_test_documents():
    # 36.5 [33.0, 38.8] reaches 39.43 widened √2-fold, not √1.25-fold (the paper with four times our documents)
    assert agreement_result(36.5, 33.0, 38.8, 39.43, share=1.0) == HOLDS
    assert agreement_result(36.5, 33.0, 38.8, 39.43, share=0.25) == FAILS


def test_the_reduction_claim_is_open_at_zero_and_fails_below_the_paper():
    def judged(ortho):
        results = {}
        for d in ("bbcsport", "twitter", "ohsumed"):
            results.update(nested({**BASE, "soft_vsm": 100, "soft_vsm_ortho": ortho}, d))
        return by_claim(judge(Evidence(results)))["reduction"]

    assert judged(60).verdict == HOLDS  # 40 %
    assert judged(80).verdict == FAILS  # 20 %: a smaller reduction than the paper's, even with its error
    assert judged(99).verdict == OPEN  # 1 %: the interval reaches 0


def test_the_lowest_ratio_is_open_on_a_tie():
    results = {}
    for d in ("bbcsport", "twitter"):
        results.update(nested({**BASE, "soft_vsm_quantized_ortho": 61}, d))
    judged = by_claim(judge(Evidence(results)))["lowest-ratio"]
    assert judged.verdict == OPEN and "next Soft VSM (quan., ortho.)" in judged.ours


def test_cosine_claims_read_chapter_2s_interval():
    cosines = {"32-bit": {"mean": 0.05, "sd": 0.1, "n": 10_000}, "1-bit": {"mean": -0.001, "sd": 0.1, "n": 10_000}}
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"), cosines=cosines)))
    assert judged["positive-bias"].verdict == "holds on the 32-bit model"
    assert judged["negative-cosines"].verdict == "open on the 1-bit model"  # -0.001 ± 0.002


def test_strong_orthogonalization_is_judged_per_parameter():
    chosen = {"nonzero_limit": 100, "exponent": 4, "threshold": -1.0, "symmetric": True, "dominant": False, "idf": True}
    results = {}
    for d in ("bbcsport", "twitter", "ohsumed"):
        results.update(nested(BASE, d, soft_vsm_ortho=chosen))
    judged = by_claim(judge(Evidence(results)))
    assert judged["strong-orthogonalization"].verdict == "holds on 4 of 5 parameters, does not hold on 1 (Dom)"
    assert (
        judged["idf"].verdict == "holds"
        and judged["idf"].ours == "Idf = true on 3 of 3 data sets (BBCSPORT, TWITTER, OHSUMED)"
    )


def test_idf_is_judged_by_its_most_common_value():
    results = {}
    for d, idf in (("bbcsport", True), ("twitter", False), ("ohsumed", False)):
        chosen = {"nonzero_limit": 100, "exponent": 4, "threshold": -1.0, "symmetric": True, "dominant": True}
        results.update(nested(BASE, d, soft_vsm_ortho={**chosen, "idf": idf}))
    judged = by_claim(judge(Evidence(results)))["idf"]
    assert judged.verdict == FAILS and judged.ours == "Idf = true on 1 of 3 data sets (BBCSPORT)"


def test_a_claim_without_its_evidence_is_open():
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"))))
    assert judged["theorem-1"].verdict == "open (no evidence in this run)"


def test_every_claim_has_its_source_section_and_rule():
    table = judgement_table(judge(Evidence(nested(BASE, "bbcsport"))))
    assert len(table) == len(CLAIMS) and table["key"].is_unique
    for rule in CLAIMS:
        assert rule.claim.section and rule.claim.rule.endswith(".") and rule.claim.where
    assert paper.ERROR_REDUCTION.source in table.set_index("key").loc["reduction", "paper"]


def _anchors(chapter: str) -> set[str]:
    """The ids that a chapter's page will carry: its headings', its named figures' and its labels' (``(name)=``)."""
    from docutils.nodes import make_id

    cells = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return (
        {make_id(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
        | set(re.findall(r"^:name: (\S+)$", text, flags=re.M))
        | set(re.findall(r"^\(([\w-]+)\)=$", text, flags=re.M))
    )


@pytest.mark.parametrize("rule", CLAIMS, ids=lambda r: r.claim.key)
def test_every_claim_links_to_an_anchor_of_the_book(rule):
    page, anchor = rule.claim.where.split("#")
    assert anchor in _anchors(page.removesuffix(".html")), f"{rule.claim.where} is not an anchor of the book"


def _grid(errors, **fixed):
    """A validation table over C ∈ {100, 200} and Idf ∈ {true, false}, the dtb slope fixed at 0."""
    points = [{"nonzero_limit": c, "idf": i, "slope": 0.0, "k": 1, **fixed} for c in (100, 200) for i in (True, False)]
    return pd.DataFrame([{**p, "error": e} for p, e in zip(points, errors)])


@pytest.mark.parametrize(
    "errors, chosen, expected, shown",
    [
        ([0.1, 0.2, 0.3, 0.4], {"nonzero_limit": 100, "idf": True}, HOLDS, "2 of 2 the paper's"),
        ([0.3, 0.2, 0.1, 0.4], {"nonzero_limit": 200, "idf": True}, FAILS, "1 of 2 the paper's (C differs)"),
        ([0.2, 0.2, 0.2, 0.2], {"nonzero_limit": 100, "idf": True}, OPEN, "a complete tie: all 4 grid cells err alike"),
        # a tie that the grid's order broke: open when the paper's values tie for the lowest, else does not hold
        (
            [0.1, 0.1, 0.3, 0.4],
            {"nonzero_limit": 100, "idf": True},
            OPEN,
            "2 grid cells tie for the lowest validation "
            "error, 1 of them with the paper's values; the grid's order chose one with 2 of 2 the paper's",
        ),
        ([0.1, 0.1, 0.3, 0.4], {"nonzero_limit": 100, "idf": False}, OPEN, "1 of them with the paper's values"),
        ([0.3, 0.4, 0.1, 0.1], {"nonzero_limit": 200, "idf": True}, FAILS, "none of the 2 cells tied for the lowest"),
    ],
)
def test_table_2_counts_only_what_can_vary_and_says_what_ties_leave_open(errors, chosen, expected, shown):
    results = nested(BASE, "bbcsport")  # Table 2 for BBCSPORT: C = 100, Idf = true
    r = results["bbcsport", "soft_vsm_ortho"]
    results["bbcsport", "soft_vsm_ortho"] = fake_result(
        r.dataset,
        r.method,
        r.truth,
        r.predictions[1],
        params={**chosen, "slope": 0.0},
        validation=_grid(errors),
        runs=r.runs,
    )
    (finding,) = by_claim(judge(Evidence(results)))["table-2"].findings
    assert finding.result == expected and shown in finding.shown


def test_the_landing_page_and_chapter_6_show_the_same_judgements():
    from regemb_utils.chapters.claims import verdict_tables

    results = {**nested(BASE, "bbcsport"), **nested(BASE, "twitter")}
    before = verdict_tables(judgement_table(judge(Evidence(results))))
    results.update(nested({**BASE, "soft_vsm_ortho": 118}, "twitter"))  # one piece of evidence changes
    after = verdict_tables(judgement_table(judge(Evidence(results))))
    changed = "holds on 1 of 2 data sets (BBCSPORT), open on 1 (TWITTER)"
    for old, new in zip(before, after):  # chapter 6's table, then the landing page's
        assert changed not in old.html and changed in new.html
    assert 'href="notebooks/04_scm_vs_wmd.html#fig-significance"' in after[1].html
    assert 'href="04_scm_vs_wmd.html#fig-significance"' in after[0].html


# --------------------------------------------------------------------------------------------------------------------
# §6.1's readings of Figures 2, 4 and 6-7, the TWITTER explanation, good/bad, §5.3's analogies, §4.2's Idf, §6.4's WMD


OHSUMED_NAMES = tuple(f"C{i:02d}" for i in range(1, 11))


@pytest.mark.parametrize(
    "counts, expected",
    [
        ({"C04": 50, "C10": 30, "C06": 20}, HOLDS),
        ({"C04": 50, "C06": 30, "C10": 20}, FAILS),  # the paper's three, in another order
        ({"C01": 50, "C10": 30, "C06": 20}, FAILS),
        ({"C04": 50, "C10": 25, "C06": 25}, OPEN),  # a tie decides the order of C10 and C06
    ],
)
def test_the_most_predicted_ohsumed_classes_are_read_in_order(counts, expected):
    predictions = np.concatenate([[OHSUMED_NAMES.index(c)] * n for c, n in counts.items()])
    truth = np.arange(len(predictions)) % 10
    results = {("ohsumed", "soft_vsm"): fake_result("ohsumed", "soft_vsm", truth, predictions)}
    judged = by_claim(judge(Evidence(results, class_names={"ohsumed": OHSUMED_NAMES})))["ohsumed-most-predicted"]
    assert judged.verdict == (f"{expected} on OHSUMED" if expected != OPEN else "open on OHSUMED")
    assert judged.ours.startswith("OHSUMED predicted most: ")
    # without chapter 1's class names there is nothing to read the labels with
    assert by_claim(judge(Evidence(results)))["ohsumed-most-predicted"].verdict == "open (no evidence in this run)"


def test_the_ohsumed_gain_is_the_paired_test_on_ohsumed_only():
    results = {**nested(BASE, "bbcsport"), **nested({**BASE, "soft_vsm": 40}, "ohsumed")}
    assert by_claim(judge(Evidence(results)))["ohsumed-orthogonalized"].verdict == "does not hold on OHSUMED"
    results = {**nested(BASE, "bbcsport"), **nested(BASE, "ohsumed")}  # 120 against 60 errors of 400
    assert by_claim(judge(Evidence(results)))["ohsumed-orthogonalized"].verdict == "holds on OHSUMED"


REUTERS_NAMES = ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade")


def reuters(as_crude_before, as_crude_after, grain=100):
    """``grain`` test documents of grain and 200 of crude; the first ``as_crude_*`` grain documents predicted crude."""
    truth = np.array([3] * grain + [1] * 200)
    results = {}
    for method, n in (("soft_vsm", as_crude_before), ("soft_vsm_quantized_ortho", as_crude_after)):
        predictions = truth.copy()
        predictions[:n] = 1
        results["reuters", method] = fake_result("reuters", method, truth, predictions)
    return by_claim(judge(Evidence(results, class_names={"reuters": REUTERS_NAMES})))


@pytest.mark.parametrize(
    "before, after, as_crude, separated",
    [
        (70, 10, HOLDS, HOLDS),  # 70 % [60, 79] of grain predicted as crude; 60 fewer with regularization
        (30, 33, FAILS, OPEN),  # 30 %; 3 more, not decided
        (55, 80, OPEN, FAILS),  # 55 % [45, 65]; 25 more
    ],
)
def test_reuters_grain_as_crude_and_its_separation(before, after, as_crude, separated):
    judged = reuters(before, after)
    assert judged["reuters-grain-as-crude"].verdict == f"{as_crude} on REUTERS"
    assert judged["reuters-separated"].verdict == f"{separated} on REUTERS"
    assert f"{before} → {after} of 100" in judged["reuters-separated"].ours


def test_reuters_without_grain_test_documents_is_open():
    judged = reuters(0, 0, grain=0)
    assert (
        judged["reuters-grain-as-crude"].ours == judged["reuters-separated"].ours == "REUTERS no grain test documents"
    )
    assert judged["reuters-separated"].verdict == "open on REUTERS"


NEWS_NAMES = ("comp.graphics", "comp.os.ms-windows.misc", "rec.autos", "sci.med")


@pytest.mark.parametrize("within_before, within_after, expected", [(100, 20, HOLDS), (20, 100, FAILS), (50, 45, OPEN)])
def test_20news_errors_within_a_hierarchy_are_compared_on_the_same_messages(within_before, within_after, expected):
    truth = np.zeros(400, dtype=int)  # comp.graphics
    results = {}
    for method, within in (("soft_vsm", within_before), ("soft_vsm_quantized_ortho", within_after)):
        predictions = truth.copy()
        predictions[:within] = 1  # comp.os.ms-windows.misc: the same hierarchy
        predictions[300:330] = 3  # sci.med: errors outside it, the same for both
        results["20news", method] = fake_result("20news", method, truth, predictions)
    judged = by_claim(judge(Evidence(results, class_names={"20news": NEWS_NAMES})))["20news-hierarchies"]
    assert judged.verdict == f"{expected} on 20NEWS"
    assert judged.ours.startswith(
        f"20NEWS misclassified within their hierarchy: {within_before / 4:.1f} % → "
        f"{within_after / 4:.1f} % of 400 test messages"
    )


TWITTER_NAMES = ("positive", "neutral", "negative")


@pytest.mark.parametrize(
    "right_neutral, right_others, expected",
    [
        (150, 0, HOLDS),  # always answering neutral is right on 90 more tweets
        (240, 160, FAILS),  # the soft VSM is right on 160 tweets the baseline gets wrong
        (230, 5, OPEN),  # 10 against 5: not decided
    ],
)
def test_twitter_no_help_is_the_soft_vsm_against_the_majority_class(right_neutral, right_others, expected):
    truth = np.array([1] * 240 + [0] * 80 + [2] * 80)  # neutral is the largest class
    predictions = np.where(truth == 1, 0, 1)  # wrong everywhere ...
    predictions[:right_neutral] = 1  # ... except on these neutral tweets
    predictions[240 : 240 + right_others] = truth[240 : 240 + right_others]  # ... and these others
    results = {("twitter", "soft_vsm"): fake_result("twitter", "soft_vsm", truth, predictions)}
    majority = {"twitter": {"largest class": "neutral", "test error": 0.4}}
    judged = by_claim(judge(Evidence(results, class_names={"twitter": TWITTER_NAMES}, majority=majority)))
    assert judged["twitter-no-help"].verdict == f"{expected} on TWITTER"
    assert "always neutral 40.00 % test error on 400 tweets" in judged["twitter-no-help"].ours


def test_good_and_bad_are_judged_mutual_nearest_neighbours_per_model():
    evidence = Evidence(
        nested(BASE, "bbcsport"),
        good_bad={"32-bit": 0.584, "1-bit": 0.42},
        good_bad_ranks={"32-bit": (1, 1), "1-bit": (1, 3)},
    )
    judged = by_claim(judge(evidence))["good-bad-neighbours"]
    assert judged.verdict == "holds on 1 of 2 models (the 32-bit model), does not hold on 1 (the 1-bit model)"
    assert (
        "the 32-bit model ranks bad 1st among good's neighbours and good 1st among bad's; cosine 0.584 "
        "(the paper's 0.58); the 1-bit model ranks bad 1st among good's neighbours and good 3rd"
    ) in judged.ours  # ours with the book's precision for a cosine (chapter 2's tables), the paper's as it prints it
    # mutual nearest neighbours with another cosine than the paper's (0.61 does not round to 0.58) do not hold
    other = Evidence(nested(BASE, "bbcsport"), good_bad={"32-bit": 0.61}, good_bad_ranks={"32-bit": (1, 1)})
    assert by_claim(judge(other))["good-bad-neighbours"].verdict == "does not hold on the 32-bit model"
    assert by_claim(judge(Evidence(nested(BASE, "bbcsport"))))["good-bad-neighbours"].findings == ()


@pytest.mark.parametrize(
    "one_bit, expected",
    [
        (0.295, HOLDS),  # 0.5 ± 0.9 points: inside ±2
        (0.285, OPEN),  # 1.5 ± 0.9 points: reaches past 2
        (0.20, FAILS),  # 10 points
        (0.40, FAILS),  # −10 points
    ],
)
def test_matched_analogies_need_the_interval_inside_the_margin(one_bit, expected):
    analogies = {"32-bit": {"accuracy": 0.30, "questions": 19_544}, "1-bit": {"accuracy": one_bit, "questions": 19_544}}
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"), analogies=analogies)))["matched-analogies"]
    assert judged.verdict == expected


def idf_counts(only_with, only_without, rare_with_idf, frequent_with_idf=3000, pairs=4950):
    return {
        "words": 100,
        "numerals": 12,
        "frequent pairs": pairs,
        "frequent orthogonal with idf": frequent_with_idf,
        "frequent orthogonal without idf": frequent_with_idf - only_with + only_without,
        "frequent only with idf": only_with,
        "frequent only without idf": only_without,
        "rare pairs": pairs,
        "rare orthogonal with idf": rare_with_idf,
        "rare orthogonal without idf": rare_with_idf,
        "rare only with idf": 0,
        "rare only without idf": 0,
        "numeral pairs": 66,
        "numeral orthogonal with idf": 60,
        "numeral orthogonal without idf": 30,
        "numeral only with idf": 30,
        "numeral only without idf": 0,
    }


@pytest.mark.parametrize(
    "counts, expected",
    [
        (idf_counts(1100, 100, 2000), HOLDS),  # more frequent pairs orthogonal with Idf, and more than rare pairs
        (idf_counts(100, 1100, 2000), FAILS),  # fewer with Idf than without
        (idf_counts(1100, 100, 4000), FAILS),  # rare words' pairs more often orthogonal
        (idf_counts(10, 8, 2000), OPEN),  # Idf changes too few pairs to decide
        (idf_counts(1100, 100, 3010), OPEN),  # frequent and rare alike
    ],
)
def test_the_idf_claim_needs_both_comparisons(counts, expected):
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"), idf_orthogonality={"32-bit": counts})))
    assert judged["idf-common-orthogonal"].verdict == f"{expected} on the 32-bit model"
    assert "the 12 numerals' 90.9 % and 45.5 %" in judged["idf-common-orthogonal"].ours


def test_the_wmd_grid_is_costed_at_the_brute_force_rate():
    from dataclasses import replace

    from regemb_utils.chapters.claims import CORE_MONTH_HOURS, CORE_YEAR_HOURS, _wmd_grid_hours

    results = {**nested(BASE, "bbcsport"), **nested(BASE, "twitter"), **nested(BASE, "20news")}
    # the brute-force rates (the paper's measure): the SCM's 10⁶ pairs per second over the ratio; TWITTER's rate
    # puts its grid at three core-months, between a month and a year
    twitter = _wmd_grid_hours("twitter", 1.0) / (3 * CORE_MONTH_HOURS)
    speed = _timings({"bbcsport": 50, "twitter": 1e6 / twitter, "20news": 20_000})
    # chapter 4's pruned search, far faster, is shown beside the verdict but does not decide it
    results["20news", "wmd"] = replace(results["20news", "wmd"], runs=[Run("test", pairs=10**6, seconds=1.0)])
    judged = by_claim(judge(Evidence(results, speed=speed)))["wmd-intractable"]
    assert judged.verdict == "holds on 1 of 3 data sets (20NEWS), does not hold on 1 (BBCSPORT), open on 1 (TWITTER)"
    assert "at 50.0 pairs per second; chapter 4's pruned exact search: " in judged.ours
    assert re.search(r"pruned exact search: [\d,.]+ core-hours", judged.ours)  # with its unit
    # 20NEWS: 512 grid points × (2,259 validation + 7,528 test queries) × 9,034 training documents
    assert _wmd_grid_hours("20news", 1.0) == pytest.approx(512 * (2259 + 7528) * 9034 / 3600)
    assert _wmd_grid_hours("20news", 1 / 50) > CORE_YEAR_HOURS
    assert "≈ 0.472 pairs per second" in judged.claim.paper
    assert by_claim(judge(Evidence(results)))["wmd-intractable"].verdict.startswith("open on all 3")  # not timed


def _timings(ratios: dict[str, float]) -> pd.DataFrame:
    """Per data set, the regularized SCM 10⁶ pairs per second (three calls) and the WMD slower by the given factor
    (eight sampled queries whose times spread by ±20 %)."""
    frames = []
    for dataset, ratio in ratios.items():
        frames.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "method": "soft_vsm_quantized_ortho",
                    "query": pd.array([pd.NA] * 3, "Int64"),
                    "test queries": 100,
                    "pairs": 10_000,
                    "seconds": [0.0099, 0.01, 0.0101],
                }
            )
        )
        per_query = 100 / 1e6 * ratio  # 100 pairs per query
        frames.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "method": "wmd",
                    "query": pd.array(range(8), "Int64"),
                    "test queries": 100,
                    "pairs": 100,
                    "seconds": per_query * np.linspace(0.8, 1.2, 8),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def test_the_speed_claim_is_judged_per_data_set_on_the_papers_measure():
    results = {**nested(BASE, "bbcsport"), **nested(BASE, "twitter"), **nested(BASE, "20news")}
    speed = _timings({"bbcsport": 50_000, "twitter": 10_500, "20news": 2_000})
    judged = by_claim(judge(Evidence(results, speed=speed)))
    assert (
        judged["faster"].verdict
        == "holds on 1 of 3 data sets (BBCSPORT), does not hold on 1 (20NEWS), open on 1 (TWITTER)"
    )
    assert judged["orders-of-magnitude"].verdict == "holds on all 3 data sets"
    assert judged["wcd"].verdict == "holds on all 3 data sets"  # 2,000 / 110 > 1
    assert judged["slowdown-20news"].verdict == FAILS  # 20NEWS's ratio is the smallest here
    assert "20,000×" not in judged["faster"].ours and "50,000×" in judged["faster"].ours
    assert judged["sparse-slowdown"].verdict.startswith("open (no evidence")  # the dense soft VSM was not timed


def test_a_speed_claim_without_timings_is_open():
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"))))
    assert judged["faster"].verdict == "open (no evidence in this run)"


def test_a_slowdown_is_judged_on_the_papers_factor_not_only_its_direction():
    def calls(dataset, method, seconds):
        return pd.DataFrame(
            {
                "dataset": dataset,
                "method": method,
                "query": pd.array([pd.NA] * 3, "Int64"),
                "test queries": 100,
                "pairs": 10_000,
                "seconds": seconds * np.array([0.999, 1.0, 1.001]),
            }
        )

    # the sparse (orthogonalized) soft VSM 2.73 times as slow as the dense one on BBCSPORT, 15 times on TWITTER
    speed = pd.concat(
        [
            calls("bbcsport", "soft_vsm", 0.01),
            calls("bbcsport", "soft_vsm_ortho", 0.0273),
            calls("twitter", "soft_vsm", 0.01),
            calls("twitter", "soft_vsm_ortho", 0.15),
        ],
        ignore_index=True,
    )
    results = {**nested(BASE, "bbcsport"), **nested(BASE, "twitter")}
    judged = by_claim(judge(Evidence(results, speed=speed)))["sparse-slowdown"]
    # TWITTER's sparse route is slower too, but by another factor than the paper's 2.73: that is not the claim
    assert judged.verdict == "holds on 1 of 2 data sets (BBCSPORT), does not hold on 1 (TWITTER)"
    assert "TWITTER 15× [15×, 15×]" in judged.ours


def test_linear_complexity_rests_on_the_columns_of_s_prime():
    bound = {
        "32-bit": {"points": 128, "largest": 800, "at_limit": 800, "excess": 0},
        "1-bit": {"points": 128, "largest": 803, "at_limit": 800, "excess": 3},
    }
    judged = by_claim(judge(Evidence(nested(BASE, "bbcsport"), column_bound=bound)))["linear-complexity"]
    assert judged.verdict == "holds on 1 of 2 models (the 32-bit model), does not hold on 1 (the 1-bit model)"
    assert "the fullest column of S′ holds 803 off-diagonal non-zeros (at C = 800)" in judged.ours
    assert by_claim(judge(Evidence(nested(BASE, "bbcsport"))))["linear-complexity"].verdict.startswith("open")


def test_a_verdict_that_moves_with_the_seed_on_the_papers_documents_alone_is_counted_apart():
    """A claim whose findings over all data sets agree between the seeds, but whose findings on the paper's documents
    do not, depends on the seed on the paper's documents only (the landing page counts both)."""
    from regemb_utils.study.claims import Claim, Finding, Judgement

    claim = Claim("x", "§1", "It works", "Holds when it works.", "stated", "p.html#a")
    everywhere = Judgement(claim, (Finding(HOLDS, "4 of 6", None, 1), Finding(HOLDS, "4 of 6", None, 2)))
    there = Judgement(claim, (Finding(HOLDS, "2 of 3", None, 1), Finding(FAILS, "1 of 3", None, 2)))
    row = judgement_table([everywhere], [there]).iloc[0]
    assert not row["depends on the seed"] and row["depends on the seed on the paper's documents"]
    row = judgement_table([everywhere], [everywhere]).iloc[0]
    assert not row["depends on the seed on the paper's documents"]


def test_the_discordant_pairs_rule_is_scipys_exact_test_at_the_books_level():
    from scipy.stats import binomtest

    from regemb_utils.chapters.claims import ALPHA, _discordant_result

    assert _discordant_result(0, 0) == (OPEN, 1.0)
    for first, second, expected in ((12, 0, HOLDS), (1, 12, FAILS), (3, 2, OPEN), (9, 1, HOLDS), (8, 2, OPEN)):
        result, p = _discordant_result(first, second)
        assert p == binomtest(first, first + second).pvalue and (p < ALPHA) == (expected != OPEN)
        assert result == expected, (first, second, p)


def test_the_wmd_grid_cost_counts_every_pair_of_the_papers_splits():
    from regemb_utils.chapters.claims import _wmd_grid_hours

    # BBCSPORT: 517 training documents, 20 % of them for validation (103), 220 test documents, 512 grid points
    assert _wmd_grid_hours("bbcsport", 3600.0) == 512 * (103 + 220) * 414
