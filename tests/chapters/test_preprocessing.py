"""Chapter 1's computations: the majority-class baseline, the Table 1 comparison, the class-distribution figure."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from gensim.corpora import Dictionary

from regemb_utils import paper
from regemb_utils.chapters.preprocessing import (
    class_distribution,
    class_distribution_figure,
    dataset_statistics,
    e_p_gaps,
    majority_class_error,
    majority_class_table,
    table_1_comparison,
)
from regemb_utils.text.corpus import frequent_words
from regemb_utils.text.datasets import Dataset, Split


def _split(labels, text="w"):
    return Split([text] * len(labels), np.asarray(labels, dtype=np.int64))


@pytest.fixture
def datasets():
    # twitter: training split 6 x neutral (1), 3 x positive (0), 1 x negative (2); test: 4 neutral of 10
    twitter = Dataset(
        "twitter",
        ("positive", "neutral", "negative"),
        _split([1] * 6 + [0] * 3 + [2]),
        _split([0, 1]),
        _split([1] * 4 + [0] * 5 + [2]),
    )
    # bbcsport: a tie in the training split (2 x class 0, 2 x class 1) goes to the lower id; test: 1 of 4 is class 0
    bbcsport = Dataset(
        "bbcsport", ("athletics", "cricket", "football"), _split([1, 0, 1, 0]), _split([2]), _split([0, 1, 2, 2])
    )
    return {"twitter": twitter, "bbcsport": bbcsport}


def test_majority_class_error_by_hand(datasets):
    majority = majority_class_error(datasets)
    assert list(majority.index) == ["twitter", "bbcsport"]
    assert majority.loc["twitter", "largest class"] == "neutral"
    assert majority.loc["twitter", "share of training split"] == pytest.approx(0.6)
    assert majority.loc["twitter", "test error"] == pytest.approx(0.6)  # 6 of the 10 test tweets are not neutral
    assert majority.loc["bbcsport", "largest class"] == "athletics"  # the tie goes to the lower class id
    assert majority.loc["bbcsport", "test error"] == pytest.approx(0.75)


def test_majority_class_table_sets_the_papers_errors_beside(datasets):
    shown = majority_class_table(majority_class_error(datasets))
    assert list(shown.index) == ["TWITTER", "BBCSPORT"] and shown.index.name == "data set"
    twitter = [v.value for (_, d), v in paper.TEST_ERRORS.items() if d == "twitter"]
    assert shown.loc["TWITTER", "paper: lowest test error"] == pytest.approx(min(twitter) / 100)
    assert shown.loc["TWITTER", "paper: highest test error"] == pytest.approx(max(twitter) / 100)
    assert shown.loc["TWITTER", "majority-class test error"] == pytest.approx(0.6)


def test_class_distribution_figure_has_one_readable_panel_per_data_set(datasets):
    classes = class_distribution(datasets)
    figure = class_distribution_figure(classes, majority_class_error(datasets))
    titles = [a.text for a in figure.layout.annotations]
    assert len(titles) == 2 and "TWITTER" in titles[0] and "60.0" in titles[0] and "neutral" in titles[0]
    assert {t.name for t in figure.data} == {"train", "validation", "test"}
    assert len(figure.data) == 3 * 2  # three splits per panel
    # the counts: twitter's training split has 6 neutral tweets
    train = next(t for t in figure.data if t.name == "train" and t.xaxis == "x")
    assert dict(zip(train.y, train.x))["neutral"] == 6
    # nothing smaller than 12 px (9 pt)
    assert figure.layout.font.size >= 12
    assert all(a.font.size >= 12 for a in figure.layout.annotations)
    # taller panels for more classes
    domains = [figure.layout[f"yaxis{i if i > 1 else ''}"].domain for i in (1, 2)]
    assert domains[0][1] - domains[0][0] == pytest.approx(domains[1][1] - domains[1][0])  # 3 classes each
    # readable on a phone (368 px): a title's lines short enough (on one line 20NEWS' ran past the screen), and
    # the legend one split per line (in a row, plotly wrapped it onto the first title)
    lines = [re.sub("<[^>]+>", "", line) for title in titles for line in title.split("<br>")]
    assert max(map(len, lines)) <= 40 and all(a.align == "left" for a in figure.layout.annotations)
    assert figure.layout.legend.orientation == "v" and figure.layout.legend.tracegroupgap == 0


@pytest.fixture
def dictionary():
    # "alpha" 6 times, "beta" 5 times, "gamma" twice, "delta" once
    return Dictionary([["alpha"] * 3 + ["beta"] * 3 + ["gamma"], ["alpha"] * 3 + ["beta"] * 2 + ["gamma", "delta"]])


def test_frequent_words(dictionary):
    assert frequent_words(dictionary, 5) == {"alpha", "beta"}
    assert frequent_words(dictionary, 1) == {"alpha", "beta", "gamma", "delta"}


def test_dataset_statistics_count_e_p_three_ways(dictionary):
    texts = ["alpha beta gamma unknown", "alpha alpha delta"]  # unique words: 4 and 2
    data = {"bbcsport": Dataset("bbcsport", ("a", "b"), _split([0], texts[0]), _split([], ""), _split([1], texts[1]))}
    statistics = dataset_statistics(data, "paper", dictionary, min_count=5)
    ours = statistics.loc["bbcsport", "ours"]
    assert ours["E[p]"] == 3.0  # (4 + 2) / 2
    assert ours["E[p] in corpus dictionary"] == 2.5  # (3 + 2) / 2: "unknown" is not in the corpus
    assert ours["E[p] with an embedding"] == 1.5  # (2 + 1) / 2: gamma and delta occur fewer than 5 times
    shown = table_1_comparison(statistics)
    assert list(shown.columns) == [
        "train / test (paper's if different)",
        "classes",
        "E[p]: all words",
        "E[p]: in corpus dictionary",
        "E[p]: with an embedding",
        "paper: E[p]",
    ]
    nbsp = "\u00a0"
    assert (
        shown.loc["BBCSPORT", "train / test (paper's if different)"] == f"1{nbsp}/{nbsp}1 (paper: 517{nbsp}/{nbsp}220)"
    )
    assert shown.loc["BBCSPORT", "classes"] == "2 (paper: 5)"
    gaps = e_p_gaps(statistics)
    assert gaps["E[p] in corpus dictionary"] == pytest.approx(181.0 - 2.5)


def test_e_p_gaps_leave_out_the_data_sets_whose_documents_differ():
    columns = pd.MultiIndex.from_tuples([("ours", "E[p]"), ("ours", "E[p] in corpus dictionary"), ("paper", "E[p]")])
    table = pd.DataFrame([[10.0, 9.0, 8.0], [100.0, 100.0, 0.0]], index=["twitter", "amazon"], columns=columns)
    gaps = e_p_gaps(table)
    assert gaps["E[p]"] == 2.0 and gaps["E[p] in corpus dictionary"] == 1.0  # AMAZON's documents are not the paper's


def test_table_1_comparison_names_the_papers_sizes_only_where_they_differ():
    columns = pd.MultiIndex.from_tuples(
        [("ours", c) for c in ("train", "test", "E[p]", "classes")]
        + [("paper", c) for c in ("train", "test", "E[p]", "classes")]
    )
    table = pd.DataFrame([[517, 220, 185.5, 5, 517, 220, 181.0, 5]], index=["bbcsport"], columns=columns)
    shown = table_1_comparison(table)
    assert shown.loc["BBCSPORT", "train / test (paper's if different)"] == "517\u00a0/\u00a0220"
    assert shown.loc["BBCSPORT", "classes"] == "5"
    assert list(shown.columns) == ["train / test (paper's if different)", "classes", "E[p]: all words", "paper: E[p]"]
