"""Chapters 4 and 6 for every subset of methods that validation accepts: each table and comparison is either built
from the methods that ran or left out with a sentence that says what it needs (results built here, not run; one
chapter run for a subset is in tests/study/test_rerun.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from classification_fixtures import fake_result

from regemb_utils.book.tables import table
from regemb_utils.classification.knn_runs import Run
from regemb_utils.classification.methods import METHODS
from regemb_utils.study.params import chapter_parameters
from regemb_utils.chapters.scm_vs_wmd import (
    NEEDS,
    decided_counts,
    error_reduction,
    error_table,
    left_out,
    nonpositive_table,
    speed_ratio,
    optimal_parameters,
    paired_wmd_table,
    relative_error_table,
    significance_table,
    speed_table,
)
from regemb_utils.chapters.claims import Evidence, judge
from regemb_utils.chapters.scorecard import scorecard

SUBSETS = [
    ["bow"],
    ["bow", "wmd"],
    ["bow", "soft_vsm", "soft_vsm_quantized_ortho"],
    ["bow", "tfidf_l1"],
    ["bow", "soft_vsm", "soft_vsm_ortho"],
    ["bow", "wmd_tfidf", "soft_vsm_quantized_ortho"],
    list(METHODS),
]
DATASETS = ("bbcsport", "twitter")


def _results(methods, seed=0):
    """Results as chapter 4 returns them for ``methods`` on two data sets: random predictions, the WMD on a sample of
    the test queries, the sparse SCMs with a grid point and xᵀS'x counts."""
    rng = np.random.default_rng(seed)
    results = {}
    for dataset, n in zip(DATASETS, (60, 45)):
        truth = rng.integers(0, 3, size=n)
        for method in methods:
            measure = METHODS[method].measure
            rows = np.sort(rng.choice(n, size=n // 2, replace=False)) if measure == "wmd" else None
            answered = truth if rows is None else truth[rows]
            predicted = np.where(rng.random(len(answered)) < 0.7, answered, (answered + 1) % 3)
            params = {"k": 3}
            if measure == "sparse_scm":
                params.update(
                    symmetric=True, dominant=True, idf=True, nonzero_limit=100, threshold=-1.0, exponent=1.0, slope=0.0
                )
            runs = [
                Run(
                    "validation",
                    400,
                    0.5,
                    nonpositive=2,
                    negative=1,
                    solved=300 if measure == "wmd" else None,
                    queries=20 if measure == "wmd" else None,
                ),
                Run(
                    "test",
                    300,
                    0.4,
                    nonpositive=1,
                    solved=200 if measure == "wmd" else None,
                    queries=len(answered) if measure == "wmd" else None,
                ),
            ]
            results[dataset, method] = fake_result(
                dataset, method, answered, predicted, k=3, params=params, runs=runs, rows=rows
            )
    return results


def test_every_allowed_subset_is_a_valid_chapter_4_parameter():
    for methods in SUBSETS:
        assert chapter_parameters("04_scm_vs_wmd", "smoke", methods=methods).methods == tuple(
            m for m in METHODS if m in methods
        )


@pytest.mark.parametrize("methods", SUBSETS, ids="+".join)
def test_each_comparison_is_built_or_said_to_be_left_out(methods):
    results = _results(methods)
    ran = tuple(m for m in METHODS if m in methods)
    errors = error_table(results)
    assert set(errors["method"]) == set(ran) and len(errors) == len(ran) * len(DATASETS)
    relative = relative_error_table(errors)
    assert list(relative["method"]) == list(ran) and relative.set_index("method").loc["bow", "relative error"] == 100
    speeds = speed_table(results)
    assert list(speeds["method"]) == list(ran)
    built = {
        "significance": significance_table(results),
        "parameters": optimal_parameters(results),
        "nonpositive": nonpositive_table(results),
        "paired": paired_wmd_table(results),
        "wmd": speeds[[METHODS[m].measure == "wmd" for m in speeds["method"]]],
    }
    for what, frame in built.items():  # a table has rows exactly where the run has what it needs
        note = left_out(what, ran)
        assert (note is None) == (len(frame) > 0), (what, ran)
        if note is None:
            table(frame)  # the book can show it
        else:
            assert note.startswith("This run leaves this out: it needs ") and f"ran only {', '.join(ran)}." in note
    assert list(built["paired"].columns)[:3] == ["dataset", "method", "label"]  # columns even when empty
    assert {"dataset", "a", "b", "p", "q", "significant"} <= set(built["significance"].columns)
    assert len(significance_table(results, test="paper_t_test")) == len(built["significance"])
    assert set(decided_counts(built["paired"]).columns) >= {"data sets", "SCM better", "WMD better", "not decided"}
    # the comparisons that are numbers, not tables
    if left_out("reduction", ran) is None:
        assert set(error_reduction(results)) >= {"reduction", "lower", "upper"}
    else:
        with pytest.raises(ValueError, match="needs 'soft_vsm_ortho' and 'soft_vsm'"):
            error_reduction(results)
    if left_out("speed ratio", ran) is None:
        assert speed_ratio(speeds) > 0
    # chapter 6: the scorecard and the verdicts from whatever chapter 4 ran
    reduction = error_reduction(results) if left_out("reduction", ran) is None else None
    card = scorecard(errors=errors, relative=relative, parameters=built["parameters"], paired=built["paired"])
    compared = set(errors.loc[np.isfinite(errors["paper"]), "label"])  # the methods the paper has errors of
    assert "BoW" in compared and set(card.loc[card["section"] == "Figure 8", "method"]) == compared
    judged = {j.claim.key: bool(j.findings) for j in judge(Evidence(results))}
    expected = {
        "reduction": reduction is not None,
        "scm-beats-wmd": "wmd" in ran and left_out("paired", ran) is None,
        "idf": "soft_vsm_ortho" in ran,
    }
    for key, has_evidence in expected.items():  # a claim whose methods did not run is open, with no evidence
        assert judged[key] == has_evidence, key


def test_left_out_names_what_is_missing():
    assert left_out("paired", ("bow", "wmd")) == (
        "This run leaves this out: it needs the regularized SCM and a WMD (soft_vsm_quantized_ortho and wmd or "
        "wmd_quantized or wmd_tfidf), and chapter 4 ran only bow, wmd."
    )
    assert left_out("significance", ("bow",)).startswith("This run leaves this out: it needs a method besides BoW,")
    for what, (_, every, some) in NEEDS.items():  # the full run leaves nothing out
        assert left_out(what, tuple(METHODS)) is None
        for m in itertools.chain(every, some):
            assert m in METHODS
