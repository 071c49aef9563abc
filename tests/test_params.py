import pytest

from regemb_utils.params import DATASETS, ParameterError, chapter_parameters


def test_profile_defaults():
    smoke = chapter_parameters("01_preprocessing", "smoke")
    paper = chapter_parameters("01_preprocessing", "paper")
    assert smoke.datasets == paper.datasets == DATASETS
    assert paper.max_documents is None and paper.corpus_articles is None  # the paper's settings: everything
    assert smoke.max_documents < 1000 and smoke.corpus_articles < 1000


def test_overrides_are_normalised():
    p = chapter_parameters("01_preprocessing", "smoke", datasets=["20news", "bbcsport"], max_documents="all")
    assert p.datasets == ("bbcsport", "20news")  # canonical order
    assert p.max_documents is None
    assert chapter_parameters("01_preprocessing", datasets="twitter").datasets == ("twitter",)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"profile": "fast"}, "unknown profile 'fast'; allowed: smoke, paper"),
        ({"datasets": ["bbc"]}, "datasets=['bbc'] is not allowed; datasets must be a non-empty list drawn from"),
        ({"datasets": []}, "datasets=[] is not allowed"),
        ({"datasets": ["twitter", "twitter"]}, "is not allowed"),
        ({"max_documents": 0}, 'max_documents must be a positive integer (documents kept from the start of each split) or "all"'),
        ({"max_documents": 2.5}, "max_documents=2.5 is not allowed"),
        ({"max_documents": True}, "max_documents=True is not allowed"),
        ({"corpus_articles": -3}, "corpus_articles=-3 is not allowed"),
        ({"tokenizer": "nltk"}, "tokenizer must be one of ['paper', 'gensim']"),
        ({"foo": 1}, "unknown parameter(s) foo for chapter 01_preprocessing; allowed: profile, datasets,"),
    ],
)
def test_bad_parameters_say_what_is_allowed(kwargs, message):
    with pytest.raises(ParameterError) as error:
        chapter_parameters("01_preprocessing", **kwargs)
    assert message in str(error.value)


def test_unknown_chapter():
    with pytest.raises(ParameterError, match="unknown chapter '99_x'; allowed: 01_preprocessing"):
        chapter_parameters("99_x")
