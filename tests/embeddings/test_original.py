"""The original Word2Bits tool beside the book's trainer (regemb_utils.embeddings.original): same vocabulary, same
quantization, the same structure learned; a clear refusal without a compiler and for bad chapter parameters."""

from __future__ import annotations

import os
import inspect
import shutil

import numpy as np
import pytest

from regemb_utils.chapters import training as training_module
from regemb_utils.chapters.training import Trainings, check_prose
from regemb_utils.embeddings import original
from regemb_utils.embeddings.original import ToolUnavailable, build_word2bits, run_word2bits, write_token_stream
from regemb_utils.embeddings.word2bits import ONE_THIRD, build_vocabulary, train_word2bits
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.study.params import ParameterError, chapter_parameters
from regemb_utils.text.corpus import WikipediaCorpus

needs_compiler = pytest.mark.skipif(shutil.which(original.COMPILER) is None, reason="no C++ compiler")


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    return build_word2bits(tmp_path_factory.mktemp("tools"))


def _purity(vectors, topn=5):
    """The share of each word's ``topn`` nearest neighbours from its own group (the first letter)."""
    return float(
        np.mean(
            [word[0] == other[0] for word in vectors.index_to_key for other, _ in vectors.most_similar(word, topn=topn)]
        )
    )


@needs_compiler
def test_both_trainers_learn_the_same_structure_with_two_valued_1_bit_vectors(tool, tmp_path):
    # two groups of ten words that never share an article: every word's neighbours should be its own group's
    rng = np.random.default_rng(0)
    groups = [[f"a{i}" for i in range(10)], [f"b{i}" for i in range(10)]]
    corpus = [list(rng.choice(groups[j % 2], 100)) for j in range(200)]
    write_token_stream(corpus, tmp_path / "toy.txt")
    settings = dict(size=20, bitlevel=1, window=3, negative=5, sample=0.0, epochs=5, min_count=1)
    theirs, summary = run_word2bits(tool, tmp_path / "toy.txt", threads=1, **settings)
    ours = train_word2bits(corpus, workers=1, progress=False, **settings).vectors
    assert dict(zip(theirs.index_to_key, theirs.expandos["count"])) == dict(
        zip(ours.index_to_key, ours.expandos["count"])
    )
    assert summary.training_words == sum(map(len, corpus))
    for vectors in (theirs, ours):  # every coordinate is +1/3 or -1/3: two values per dimension
        assert set(np.unique(vectors.vectors)) == {-ONE_THIRD, ONE_THIRD}
    # a random model's purity is 9/19 ≈ 0.47; both trainers find the groups, within 0.05 of each other
    assert _purity(ours) >= 0.95 and _purity(theirs) >= 0.95
    assert abs(_purity(ours) - _purity(theirs)) <= 0.05


@needs_compiler
def test_the_tool_reads_our_token_stream_into_our_vocabulary(tool, tmp_path):
    corpus = list(WikipediaCorpus(20, "paper"))
    write_token_stream(corpus, tmp_path / "wiki.txt")
    theirs, _ = run_word2bits(
        tool,
        tmp_path / "wiki.txt",
        size=8,
        bitlevel=0,
        window=5,
        negative=2,
        sample=1e-4,
        epochs=1,
        min_count=5,
        threads=1,
    )
    vocabulary = build_vocabulary(corpus, 5)
    assert "</s>" not in theirs.key_to_index  # the tool's line break is left out
    assert dict(zip(theirs.index_to_key, theirs.expandos["count"].tolist())) == dict(
        zip(vocabulary.words, vocabulary.counts.tolist())
    )
    assert theirs.vectors.dtype == np.float32 and len(np.unique(theirs.vectors)) > 2  # 32-bit: not quantized


def test_the_tool_is_trained_with_our_trainers_learning_rate():
    ours = inspect.signature(train_word2bits).parameters["alpha"].default
    assert inspect.signature(run_word2bits).parameters["alpha"].default == ours


def test_without_a_compiler_the_check_says_why_and_the_chapter_goes_on(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # no g++ on it (patching the code would change keys)
    with pytest.raises(ToolUnavailable, match="no C\\+\\+ compiler: g\\+\\+ is not on the PATH"):
        build_word2bits(tmp_path)
    training = chapter_parameters("02_training", "smoke", check_epochs=2)  # the check's own models differ
    trainings = Trainings(training, 200, "paper", cache=ArtifactCache(tmp_path))
    check, reason = trainings.check()
    assert check is None and "no C++ compiler" in reason
    assert set(trainings.models()) == {"32-bit", "1-bit"}  # the chapter goes on with the book's models
    trained = [p.name for p in tmp_path.iterdir() if p.name.startswith("word2bits")]
    assert len(trained) == 2, trained  # the book's two models: the check trained nothing before the refusal
    assert "did not run here: no C++ compiler" in check_prose(check, reason, 10.8, 10, 2, 16_000_000)


@pytest.mark.parametrize("given", [0, 11, 1.5, True, "2"])
def test_check_epochs_refuses_what_is_not_an_integer_from_1_to_10(given):
    with pytest.raises(ParameterError, match=r"check_epochs must be an integer in \[1, 10\]"):
        chapter_parameters("02_training", "smoke", check_epochs=given)


def test_check_epochs_defaults_to_a_stated_smaller_setting_in_the_paper_profile():
    assert chapter_parameters("02_training", "paper").check_epochs == 2
    assert chapter_parameters("02_training", "smoke", check_epochs=3).check_epochs == 3


def _check(ours_32, tool_32, ours_1, tool_1):
    import pandas as pd

    return pd.DataFrame(
        {
            "model": ["32-bit", "32-bit", "1-bit", "1-bit"],
            "trainer": ["ours", "Word2Bits", "ours", "Word2Bits"],
            "analogies (%)": [ours_32, tool_32, ours_1, tool_1],
            "minutes": [1.0, 3.0, 4.0, 17.0],
            "training words": [4_000_000] * 4,
        }
    )


@pytest.mark.parametrize(
    "scores, expected",
    [
        ((32.0, 31.0, 21.8, 20.5), "the gap is not our trainer's"),  # the tool shows 10.5 points, ours 10.2
        ((32.0, 25.6, 21.8, 20.5), "the gap is not our trainer's"),  # 5.1 of 10.2: exactly half still counts
        ((32.0, 25.0, 21.8, 20.5), "our trainer accounts for 5.7 points"),  # 4.5 of 10.2: less than half
        ((0.5, 0.4, 0.1, 0.2), "cannot say where"),  # no gap to explain
    ],
)
def test_the_account_blames_our_trainer_only_when_the_tool_shows_less_than_half_our_gap(scores, expected):
    text = check_prose(_check(*scores), None, 10.8, 10, 2, 16_000_000)
    assert expected in text
    assert "answer 10.8 points fewer analogies" in text  # the chapter's own gap is carried in every case
    assert ("where only our trainer ran" in text) == expected.startswith("the gap is not")  # the check trained less
    assert "not from our trainer" not in text  # a smaller check does not rule our trainer out at the chapter's setting


def test_the_account_scales_the_tools_time_by_epochs_and_words_and_says_both():
    text = check_prose(_check(32.0, 31.0, 21.8, 20.5), None, 10.8, 10, 2, 16_000_000)
    # the tool took 3 + 17 minutes for 2 epochs of 4 M words; the chapter trains 10 epochs of 16 M: x 20
    assert "2 epochs of 4,000,000 words for both trainers (the chapter's models: 10 epochs of 16,000,000" in text
    assert "would take the tool about 400 minutes" in text
    same = check_prose(_check(32.0, 31.0, 21.8, 20.5), None, 10.8, 2, 2, 4_000_000)
    assert "would take" not in same and "only our trainer ran" not in same  # the check is the chapter's training
    assert "so it is not from our trainer" in same


@pytest.mark.parametrize("given", [0, 199, 1.5, True, "200"])
def test_check_articles_refuses_what_is_not_an_integer_of_at_least_200(given):
    with pytest.raises(ParameterError, match=r'check_articles must be an integer of at least 200 .* or "all"'):
        chapter_parameters("02_training", "smoke", check_articles=given)


def test_the_check_reads_the_first_check_articles_of_the_chapters_corpus_and_no_more(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(
        training_module,
        "trainer_comparison",
        lambda model, **settings: asked.append((model, settings["corpus_articles"], settings["epochs"])) or {},
    )
    monkeypatch.setattr(training_module, "trained_embeddings", lambda *args, **settings: None)
    for corpus, check_articles, expected in (
        (200, None, 200),
        (300, 250, 250),
        (None, 250, 250),
        (200, 250, 200),
        (None, None, None),
    ):
        asked.clear()
        training = chapter_parameters("02_training", "smoke", check_articles=check_articles, check_epochs=3)
        Trainings(training, corpus, "paper", cache=ArtifactCache(tmp_path)).check()
        assert sorted(asked) == [("1-bit", expected, 3), ("32-bit", expected, 3)]
    assert chapter_parameters("02_training", "paper").check_articles == 1_500
