import pytest

from regemb_utils.study.params import CHAPTERS, DATASETS, ParameterError, chapter_parameters


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
        (
            {"max_documents": 0},
            'max_documents must be a positive integer (documents kept from the start of each split) or "all"',
        ),
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


def test_chapter_4_profiles():
    smoke = chapter_parameters("04_scm_vs_wmd", "smoke")
    paper = chapter_parameters("04_scm_vs_wmd", "paper")
    assert paper.max_documents is None and paper.ks == tuple(range(1, 20, 2))
    assert paper.symmetric == paper.dominant == paper.idf == (True, False)
    assert paper.nonzero_limits == (100, 200, 400, 800) and paper.thresholds == (-1.0, -0.5, 0.0, 0.5)
    assert paper.exponents == (1.0, 2.0, 3.0, 4.0)
    assert len(paper.methods) == 9 and paper.reference == "train" and paper.significance_test == "mcnemar"
    assert smoke.max_documents >= max(smoke.ks)
    p = chapter_parameters("04_scm_vs_wmd", "smoke", symmetric=[False, True], thresholds=[0, -1], ks=[5, 1])
    assert p.symmetric == (True, False) and p.thresholds == (-1.0, 0.0) and p.ks == (1, 5)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"methods": ["lsi"]}, "methods must be a non-empty list drawn from ['bow', 'soft_vsm'"),
        ({"ks": [2]}, "ks must be a non-empty list drawn from [1, 3, 5, ..., 19]"),
        ({"symmetric": [1]}, "symmetric must be a non-empty list drawn from [True, False]"),
        ({"thresholds": [1.5]}, "thresholds must be a non-empty list of numbers in [-1, 1]"),
        ({"exponents": [0]}, "exponents=[0] is not allowed"),
        ({"exponents": [1.5]}, "with a negative threshold every exponent must be an integer"),
        ({"reference": "test"}, "reference must be one of ['train', 'train+validation']"),
        ({"significance_test": "t"}, "significance_test must be one of ['mcnemar', 'paper_t_test']"),
        ({"scheduler": "yarn"}, "scheduler must be 'local'"),
        ({"n_jobs": 0}, "n_jobs=0 is not allowed"),
        ({"max_documents": 5}, "max_documents must be at least the largest k (9)"),
        ({"nonzero_limit": 3}, "unknown parameter(s) nonzero_limit for chapter 04_scm_vs_wmd"),
    ],
)
def test_chapter_4_bad_parameters(kwargs, message):
    with pytest.raises(ParameterError) as error:
        chapter_parameters("04_scm_vs_wmd", "smoke", **kwargs)
    assert message in str(error.value)


def test_wmd_queries_take_all_a_number_or_a_mapping_per_data_set():
    assert chapter_parameters("04_scm_vs_wmd", "smoke").wmd_queries == tuple((d, None) for d in DATASETS)
    assert chapter_parameters("04_scm_vs_wmd", "smoke", wmd_queries=7).wmd_queries == tuple((d, 7) for d in DATASETS)
    given = chapter_parameters("04_scm_vs_wmd", "smoke", wmd_queries={"twitter": "all", "20news": 3})
    assert given.wmd_queries == (("20news", 3), ("twitter", None))
    for bad in (0, -1, "some", {"bbc": 3}, {"twitter": 0}):
        with pytest.raises(ParameterError, match="wmd_queries=.* is not allowed; wmd_queries must be"):
            chapter_parameters("04_scm_vs_wmd", "smoke", wmd_queries=bad)


def test_map_and_scorecard_parameters():
    maps = chapter_parameters("05_confusion_tsne", "paper")
    assert maps.map_documents == 1000 and maps.perplexity == 30.0
    assert chapter_parameters("05_confusion_tsne", "smoke").map_documents is None
    assert chapter_parameters("05_confusion_tsne", "smoke", map_documents="all").map_documents is None
    with pytest.raises(ParameterError, match="perplexity=0 is not allowed; perplexity must be a number in"):
        chapter_parameters("05_confusion_tsne", "smoke", perplexity=0)
    with pytest.raises(ParameterError, match="unknown parameter"):
        chapter_parameters("06_scorecard", "smoke", datasets=["twitter"])


def test_wmd_queries_default_to_every_query_and_the_power_computation_stays_a_choice():
    paper = chapter_parameters("04_scm_vs_wmd", "paper")
    assert paper.wmd_queries == tuple((d, None) for d in DATASETS)  # every test query, as the paper
    assert paper.wmd_validation_queries == tuple((d, None) for d in DATASETS)  # k chosen on every validation query
    given = chapter_parameters(
        "04_scm_vs_wmd", "paper", wmd_queries={"20news": "power", "twitter": 50}, wmd_validation_queries=100
    )
    assert given.wmd_queries == (("20news", "power"), ("twitter", 50))
    assert given.wmd_validation_queries == tuple((d, 100) for d in DATASETS)
    with pytest.raises(ParameterError, match="wmd_validation_queries=.* is not allowed"):
        chapter_parameters("04_scm_vs_wmd", "paper", wmd_validation_queries="power")


@pytest.mark.parametrize(
    "chapter, kwargs, message",
    [
        ("04_scm_vs_wmd", {"n_jobs": 1000}, "n_jobs must be an integer in [1, "),
        ("02_training", {"cosine_pairs": 10**9}, "cosine_pairs must be an integer in [1, 100,000,000]"),
        ("03_orthogonalization", {"factor_words": 20_000}, "factor_words must be an integer in [2, 10,000]"),
        (
            "03_orthogonalization",
            {"factor_sizes": [1000, 50_000]},
            "factor_sizes must be a non-empty list of integers in",
        ),
        ("03_orthogonalization", {"tsne_words": 1}, "tsne_words must be an integer of at least 2"),
        ("01_preprocessing", {"corpus_articles": 1}, "corpus_articles must be an integer of at least 200"),
        ("01_preprocessing", {"datasets": '["bbcsport",'}, "datasets must be a non-empty list drawn from"),
        ("04_scm_vs_wmd", {"methods": '["wmd"]'}, "that includes 'bow'"),
        ("05_confusion_tsne", {"map_documents": 2}, "map_documents must be an integer of at least 3"),
        ("03_orthogonalization", {"previous_record": "yesterday"}, "previous_record must be None"),
    ],
)
def test_values_that_would_fail_later_are_refused_at_the_start(chapter, kwargs, message):
    with pytest.raises(ParameterError) as error:
        chapter_parameters(chapter, "smoke", **kwargs)
    assert message in str(error.value)


def test_json_strings_are_read_as_lists_and_mappings():
    p = chapter_parameters("04_scm_vs_wmd", "smoke", ks="[3, 1]", wmd_queries='{"bbcsport": 5}')
    assert p.ks == (1, 3) and dict(p.wmd_queries)["bbcsport"] == 5


LIST_PARAMETERS = [
    (chapter, p.name) for chapter, spec in CHAPTERS.items() for p in spec.parameters if "list" in p.allowed
]


@pytest.mark.parametrize("chapter, name", LIST_PARAMETERS, ids=lambda v: v)
def test_one_rule_for_every_list_parameter(chapter, name):
    """A mapping is not a list (its keys would be taken), a set is not either, and a value given twice is refused
    rather than merged; the default's own values, given as a list, are accepted."""
    default = chapter_parameters(chapter, "smoke")[name]
    if default == "inherited":
        default = DATASETS
    values = list(default)
    assert chapter_parameters(chapter, "smoke", **{name: values})[name] == tuple(default)
    for bad, reason in (
        ({v: 1 for v in values}, "a mapping is not a list"),
        (set(values), "a set is not a list"),
        (values + values[:1], "given more than once"),
        ([], "the list is empty"),
    ):
        with pytest.raises(ParameterError) as error:
            chapter_parameters(chapter, "smoke", **{name: bad})
        assert f"{name}={bad!r} is not allowed ({reason}" in str(error.value) or (
            reason == "given more than once" and "given more than once" in str(error.value)
        ), str(error.value)
        assert f"{name} must be " in str(error.value)


def test_tsne_words_cannot_exceed_the_factorized_words():
    assert chapter_parameters("03_orthogonalization", "smoke", tsne_words=300).tsne_words == 300
    with pytest.raises(
        ParameterError,
        match="tsne_words=301 is not allowed; Figure 1 shows words among the "
        "factor_words=300 most frequent ones: give at most that many",
    ):
        chapter_parameters("03_orthogonalization", "smoke", tsne_words=301)
