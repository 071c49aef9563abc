"""Every number attributed to the paper has a source, and the tables and the scorecard read it from paper.py."""

from __future__ import annotations

import pandas as pd
import pytest
from classification_fixtures import fake_result

from regemb_utils import paper
from regemb_utils.text.datasets import DATASETS
from regemb_utils.classification.knn_runs import Run
from regemb_utils.classification.methods import METHODS
from regemb_utils.paper import KINDS, PaperValue
from regemb_utils.chapters.scm_vs_wmd import error_table, optimal_parameters, relative_error_table, speed_table
from regemb_utils.chapters.claims import Evidence, judge
from regemb_utils.chapters.scorecard import headline, scorecard


def test_every_value_has_a_source_and_a_kind():
    values = paper.all_values()
    assert len(values) > 150
    for name, item in values:
        assert isinstance(item.source, str) and item.source.strip(), name
        assert item.kind in KINDS, name
        assert item.value is not None, name
    with pytest.raises(ValueError, match="unknown kind"):
        PaperValue(1.0, "§1", "hearsay")


def test_the_tables_cover_the_papers_methods_and_data_sets():
    paper_methods = [m for m in METHODS if METHODS[m].source == "paper"]
    assert set(paper.TEST_ERRORS) == {(m, d) for m in paper_methods for d in DATASETS}
    assert set(paper.RELATIVE_ERRORS) == set(paper.SPEEDS) == set(paper_methods)
    assert list(paper.table_1().index) == list(paper.table_2().index) == list(DATASETS)
    # the sources say which figure is which: Figure 9 is the speed, Figure 10 the relative error
    assert all(v.source.startswith("Figure 9") for v in paper.SPEEDS.values())
    assert all("Figure 10" in v.source for v in paper.RELATIVE_ERRORS.values())
    # exact test errors of the soft VSMs stand in the confusion-matrix captions (Figures 2-7), TWITTER's only in
    # the notebook (the paper leaves its figure out)
    assert paper.TEST_ERRORS["soft_vsm", "ohsumed"].source == "Figure 2 caption"
    assert paper.TEST_ERRORS["soft_vsm_quantized_ortho", "20news"].source == "Figure 7 caption"
    assert paper.TEST_ERRORS["soft_vsm", "twitter"].kind == "paper's notebook"
    # the stated claims, and their consistency with the figures
    assert paper.LOWEST_RELATIVE_ERROR.value == paper.RELATIVE_ERRORS["soft_vsm_ortho"].value == 48.86
    ratio = paper.LOWEST_RELATIVE_ERROR.value / paper.RELATIVE_ERRORS["soft_vsm"].value
    assert abs(100 * ratio - paper.REGULARIZED_ERROR_RATIO.value) < 0.02
    assert paper.ERROR_REDUCTION.value == pytest.approx(100 - paper.REGULARIZED_ERROR_RATIO.value)
    bars = paper.SPEEDS["soft_vsm_quantized_ortho"].value / paper.SPEEDS["wmd"].value
    assert bars == pytest.approx(paper.SPEED_RATIO.value, rel=1e-3)  # the bars agree with §6.3 to 0.1 %
    assert paper.PAPER_GRID["threshold"] == (-1.0, -0.5, 0.0, 0.5) != paper.TEXT_THRESHOLDS.value


def _timings():
    """measure_speed's rows: the regularized SCM's repeated calls and the WMD's sampled queries on BBCSPORT."""
    return pd.DataFrame(
        {
            "dataset": "bbcsport",
            "method": ["soft_vsm_quantized_ortho"] * 2 + ["wmd"] * 2,
            "query": pd.array([pd.NA, pd.NA, 0, 1], "Int64"),
            "test queries": 100,
            "pairs": [10_000, 10_000, 100, 100],
            "seconds": [0.01, 0.012, 1.0, 2.0],
        }
    )


def test_tables_and_scorecard_read_the_paper_values_from_paper_py(monkeypatch):
    source = dict(source="a test", kind="paper text")
    monkeypatch.setitem(paper.TEST_ERRORS, ("bow", "bbcsport"), PaperValue(12.34, **source))
    monkeypatch.setitem(paper.RELATIVE_ERRORS, "soft_vsm", PaperValue(55.5, **source))
    monkeypatch.setitem(paper.SPEEDS, "wmd", PaperValue(7.0, **source))
    monkeypatch.setitem(paper.TABLE_2, ("bbcsport", "nonzero_limit"), PaperValue(777, **source))
    monkeypatch.setitem(paper.TABLE_1, ("bbcsport", "test"), PaperValue(221, **source))
    monkeypatch.setitem(paper.COSINES, ("32-bit", "mean"), PaperValue(0.5, **source))
    monkeypatch.setattr(paper, "ERROR_REDUCTION", PaperValue(11.0, **source))
    monkeypatch.setattr(paper, "SPEED_RATIO", PaperValue(3.0, **source))
    chosen = {
        "slope": 0.0,
        "symmetric": True,
        "dominant": True,
        "idf": True,
        "nonzero_limit": 100,
        "threshold": -1.0,
        "exponent": 2.0,
    }
    results = {
        ("bbcsport", m): fake_result("bbcsport", m, errors=e, n=220, runs=[Run("test", 10**6, s)], params=chosen)
        for m, e, s in (
            ("bow", 50, 1.0),
            ("soft_vsm", 48, 1.0),
            ("soft_vsm_ortho", 30, 1.0),
            ("soft_vsm_quantized_ortho", 30, 1.0),
            ("wmd", 20, 100.0),
        )
    }
    errors = error_table(results)
    assert errors.set_index("method").loc["bow", "paper"] == 12.34
    relative = relative_error_table(errors)
    assert relative.set_index("method").loc["soft_vsm", "paper"] == 55.5
    speeds = speed_table(results)
    assert speeds.set_index("method").loc["wmd", "paper"] == 7.0
    parameters = optimal_parameters(results)
    assert parameters[parameters["source"].str.startswith("paper")].iloc[0]["nonzero_limit"] == 777
    ours = pd.DataFrame({"train": [517], "test": [220], "E[p]": [181.0], "classes": [5]}, index=["bbcsport"])
    card = scorecard(
        table_1=pd.concat({"ours": ours}, axis=1),
        cosines={"32-bit": {"mean": 0.2, "sd": 0.1}},
        errors=errors,
        relative=relative,
        timings=_timings(),
        parameters=parameters,
    )
    rows = card.set_index("quantity")
    assert rows.loc["test documents", "paper"] == 221
    cosine_mean = next(q for q in rows.index if str(q).startswith("cosine of word pairs, mean"))
    assert rows.loc[cosine_mean, "paper"] == 0.5
    assert headline(card)["paper_reduction"] == 11.0
    speed = card[card["section"] == "Figure 9"].set_index("method")
    assert (speed.loc["WMD", "paper"], speed.loc["Soft VSM (quan., ortho.) / WMD", "paper"]) == (7.0, 3.0)
    assert card[card["quantity"] == "test error (%)"].set_index("method").loc["BoW", "paper"] == 12.34
    # on one data set the paper's reduction is the one its Figure 8 values give there, read from paper.py when judged
    monkeypatch.setitem(paper.TEST_ERRORS, ("soft_vsm", "bbcsport"), PaperValue(20.0, **source))
    monkeypatch.setitem(paper.TEST_ERRORS, ("soft_vsm_ortho", "bbcsport"), PaperValue(10.0, **source))
    reduction = next(j for j in judge(Evidence(results)) if j.claim.key == "reduction")
    assert "(paper: 50.00 %;" in reduction.ours


def test_the_paper_profile_trains_with_the_settings_paper_py_attributes_to_the_paper():
    from regemb_utils.study.params import chapter_parameters

    training = chapter_parameters("02_training", "paper")
    for name in ("window", "negative", "sample", "min_count", "epochs"):
        assert getattr(training, name) == paper.TRAINING_SETTINGS[name].value, name
    assert training.dimensions == paper.DIMENSIONS["32-bit"].value
    assert training.quantized_dimensions == paper.DIMENSIONS["1-bit"].value
    assert training.epochs == paper.EPOCHS.value
    assert chapter_parameters("03_orthogonalization", "paper").tsne_words == paper.FIGURE_1_WORDS.value
    assert chapter_parameters("03_orthogonalization", "paper").nonzero_limits == paper.PAPER_GRID["nonzero_limit"]


def test_word2bits_learns_at_the_rate_paper_py_attributes_to_the_papers_code():
    import inspect

    from regemb_utils.embeddings import word2bits

    defaults = [
        p.default
        for name, f in inspect.getmembers(word2bits, inspect.isfunction)
        for p in inspect.signature(f).parameters.values()
        if p.name == "alpha" and p.default is not p.empty
    ]
    assert defaults and set(defaults) == {paper.TRAINING_SETTINGS["alpha"].value}


def test_one_table_says_how_each_kind_of_paper_value_is_marked_in_every_chapter(monkeypatch):
    """paper.PROVENANCE alone decides a kind's mark, where it goes, its caption note and its words in prose: chapter
    1's table and the scorecard's footnotes change with it."""
    from dataclasses import replace

    from regemb_utils.chapters import scorecard as scorecard_module
    from regemb_utils.chapters.preprocessing import majority_class_table, marked_paper_errors

    assert tuple(paper.PROVENANCE) == paper.KINDS  # every kind worded, in the order of KINDS
    kind = "paper's result files"
    monkeypatch.setitem(paper.PROVENANCE, kind, replace(paper.PROVENANCE[kind], mark="§", note="a test's note"))
    value = paper.TEST_ERRORS["bow", "ohsumed"]
    assert value.kind == kind
    majority = pd.DataFrame(
        {"largest class": ["C04"], "share of training split": [0.3], "test error": [0.6]}, index=["ohsumed"]
    )
    table, note = marked_paper_errors(majority_class_table(majority))
    assert table.loc["OHSUMED", "paper: highest test error"].endswith("%§")
    assert "§ a test's note" in note
    assert scorecard_module._not_printed(value) == "the paper's value: a test's note"
    assert paper.origin(value) == paper.PROVENANCE[kind].origin
