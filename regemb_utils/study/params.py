"""Chapter parameters: one validated structure per chapter, with a default for each profile.

Each chapter is declared once, in :data:`CHAPTERS`, as a :class:`ChapterSpec`: its parameters, the rules across
them, and the rules against the records of the chapters it builds on. A new chapter is one entry here (and its
notebook, its module and its line in ``_toc.yml``); the pipeline has no branch for it.

A chapter's papermill ``parameters`` cell sets ``profile`` and leaves every other parameter at ``None``, which means
"the profile's default" (or, for a parameter whose default is :data:`INHERITED`, "what the chapter before used":
:mod:`regemb_utils.study.pipeline` fills those in from that chapter's record). :func:`chapter_parameters` checks everything
at the start of the chapter and stops it with a message that names the parameter and what is allowed.

List- and mapping-valued parameters may be given as Python values (papermill ``-y``) or as a JSON string (papermill
``-p datasets '["bbcsport"]'``). Each parameter declares what it allows as a constraint of
:mod:`regemb_utils.infra.constraints`, the mechanism the estimators and chapter 4's settings use too; every list
parameter follows one rule (:func:`regemb_utils.infra.constraints.list_of`): a list, or one bare value for a list of
one; a mapping or a set is refused, and so is a value given twice.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..classification.knn import K_VALUES
from ..classification.linear import LINEAR_MODELS
from ..classification.methods import METHODS
from ..infra.constraints import BOOLEAN, Constraint, either, integer, list_of, literal, one_of, real
from ..text.datasets import DATASETS
from ..text.tokenization import TOKENIZERS

__all__ = [
    "BOOK_SEED",
    "SEEDED_MODELS",
    "SEEDED_METHODS",
    "PROFILES",
    "INHERITED",
    "ParameterError",
    "Parameter",
    "ChapterSpec",
    "CHAPTERS",
    "ChapterParameters",
    "chapter_parameters",
]

# The seed study (chapters 2, 4 and 6): the book's seed, and the model and methods that other seeds rerun.
BOOK_SEED = 1  # the seed of the book's models (trained_embeddings' default)
SEEDED_MODELS = ("32-bit", "1-bit")
# the two SCMs of the 39 % claim (32-bit) and the two 1-bit soft VSMs of the quantization claims; not the WMD (hours)
SEEDED_METHODS = ("soft_vsm", "soft_vsm_ortho", "soft_vsm_quantized", "soft_vsm_quantized_ortho")


PROFILES = ("smoke", "paper")
INHERITED = "inherited"  # a default that the pipeline takes from the previous chapter's record


class ParameterError(ValueError):
    """A chapter parameter has an unknown name or a value outside what is allowed.

    Parameters
    ----------
    message : str
        The parameter, the value given and what is allowed.

    Examples
    --------
    >>> try:
    ...     chapter_parameters("01_preprocessing", "smoke", max_documents=0)
    ... except ParameterError as error:
    ...     print(error)
    max_documents=0 is not allowed; max_documents must be a positive integer (documents kept from the start of each split) or "all"
    """


@dataclass(frozen=True)
class Parameter:
    """One chapter parameter: its name, its default in each profile, and what is allowed (a constraint).

    Parameters
    ----------
    name : str
        The papermill parameter's name.
    defaults : dict
        Profile (``"smoke"``, ``"paper"``) → default value (:data:`INHERITED` for one taken from the chapter before).
    constraint : regemb_utils.infra.constraints.Constraint
        What a reader may pass: in words (quoted by :class:`ParameterError`) and as a test.
    inherited_from : str, optional
        For a list parameter whose default is :data:`INHERITED`: the earlier chapter whose value it takes, and
        within whose values a given one must lie.

    Examples
    --------
    >>> epochs = Parameter("epochs", {"smoke": 1, "paper": 10}, integer(1, allowed="a positive integer"))
    >>> epochs.defaults["paper"], epochs.allowed, epochs.constraint.check(3, "epochs")
    (10, 'a positive integer', 3)
    """

    name: str
    defaults: dict[str, Any]  # profile -> value
    constraint: Constraint
    inherited_from: str | None = None  # the earlier chapter whose value an INHERITED default takes

    @property
    def allowed(self) -> str:
        """What a reader may pass, in words."""
        return self.constraint.allowed


def _subset_of(choices, allowed: str) -> Constraint:
    """A non-empty list drawn from ``choices``, stored in their order."""
    return list_of(one_of(choices), order=lambda values: tuple(c for c in choices if c in values), allowed=allowed)


def _all_or(constraint: Constraint, allowed: str) -> Constraint:
    """``constraint``, or "all" for no limit (stored as None)."""
    return either(constraint, literal("all", stored=None), allowed=allowed)


def _booleans(allowed: str) -> Constraint:
    """A non-empty list drawn from True and False, stored in the paper's order (True first)."""
    return list_of(BOOLEAN, order=lambda values: tuple(v for v in (True, False) if v in values), allowed=allowed)


_LIMIT = either(integer(1), literal("all", stored=None))  # at most this many (None: all)
_WMD_LIMIT = either(_LIMIT, literal("power"))  # or chapter 4's power computation


def _per_dataset(entry: Constraint, allowed: str) -> Constraint:
    """``entry``, or a mapping data set → ``entry`` (data sets left out: "all"); stored as a tuple of (data set,
    entry) pairs, sorted, over every data set for a single value."""

    def accepts(value) -> bool:
        if isinstance(value, Mapping):
            return set(value) <= set(DATASETS) and all(entry.accepts(v) for v in value.values())
        return entry.accepts(value)

    def convert(value) -> tuple:
        if isinstance(value, Mapping):
            return tuple(sorted((name, entry.convert(v)) for name, v in value.items()))
        return tuple((name, entry.convert(value)) for name in DATASETS)

    return Constraint(allowed, accepts, convert)


def _methods(allowed: str) -> Constraint:
    """Chapter 4's methods: a non-empty list of :data:`regemb_utils.classification.methods.METHODS` with BoW."""
    chosen = _subset_of(_METHOD_NAMES, allowed)
    return Constraint(
        allowed, lambda value: chosen.accepts(value) and "bow" in chosen.convert(value), chosen.convert, chosen.why
    )


def _scheduler(allowed: str) -> Constraint:
    return Constraint(
        allowed,
        lambda value: isinstance(value, str) and (value in ("local", "dask-local") or value.startswith("tcp://")),
    )


def _n_jobs(allowed: str) -> Constraint:
    return either(integer(1, os.cpu_count() or 1), literal(-1), allowed=allowed)


def _record_id(allowed: str) -> Constraint:
    return Constraint(
        allowed, lambda value: isinstance(value, str) and re.fullmatch(r"\d{8}T\d{6}-[0-9a-f]{6}", value) is not None
    )


def _seeds(allowed: str) -> Constraint:
    """Training seeds other than the book's (1): distinct integers of at least 2, or "none" (stored as ())."""
    return either(literal("none", stored=()), list_of(integer(2)), allowed=allowed)


_DATASETS = Parameter(
    "datasets",
    {"smoke": DATASETS, "paper": DATASETS},
    _subset_of(DATASETS, f"a non-empty list drawn from {list(DATASETS)}"),
)
_MAX_DOCUMENTS = Parameter(
    "max_documents",
    {"smoke": 120, "paper": None},
    _all_or(integer(1), 'a positive integer (documents kept from the start of each split) or "all"'),
)
_CORPUS_ARTICLES = Parameter(
    "corpus_articles",
    {"smoke": 200, "paper": None},
    _all_or(
        integer(200),
        "an integer of at least 200 (Wikipedia articles read from the start of the corpus; fewer leave too few words "
        'for the word benchmarks of chapter 2) or "all"',
    ),
)
_TOKENIZER = Parameter(
    "tokenizer", {"smoke": "paper", "paper": "paper"}, one_of(TOKENIZERS, allowed=f"one of {list(TOKENIZERS)}")
)


def _same(value):
    return {"smoke": value, "paper": value}


_TRAINING = (
    Parameter(
        "dimensions", {"smoke": 50, "paper": 200}, integer(1, allowed="a positive integer (the 32-bit model's size)")
    ),
    Parameter(
        "quantized_dimensions",
        {"smoke": 100, "paper": 1000},
        integer(1, allowed="a positive integer (the 1-bit model's size)"),
    ),
    Parameter("epochs", {"smoke": 1, "paper": 10}, integer(1, allowed="a positive integer")),
    Parameter("window", _same(10), integer(1, allowed="a positive integer")),
    Parameter("negative", _same(24), integer(1, allowed="a positive integer")),
    Parameter("sample", _same(1e-4), real(0, 1, high_open=True, allowed="a number in [0, 1)")),
    Parameter("min_count", _same(5), integer(1, allowed="a positive integer")),
    Parameter(
        "workers",
        _same(1),
        integer(
            1,
            allowed="a positive integer (training threads per model; 1 is deterministic, more threads "
            "give lock-free updates in a varying order and so other vectors on every run)",
        ),
    ),
)


MAX_FACTOR_WORDS = 10_000  # a factor of S' over more words fills in towards a dense N x N matrix (chapter 3)


_ORTHOGONALIZATION = (
    Parameter(
        "fill_rule",
        _same("paper"),
        one_of(
            ("paper", "gensim"),
            allowed="one of ['paper', 'gensim'] (a dominance violation ends the column, or skips the candidate)",
        ),
    ),
    Parameter(
        "nonzero_limits",
        {"smoke": (10, 20, 40), "paper": (100, 200, 400, 800)},
        list_of(integer(1), allowed="a non-empty list of positive integers (the grid's C)"),
    ),
    Parameter(
        "factor_words",
        {"smoke": 300, "paper": 2000},
        integer(
            2,
            MAX_FACTOR_WORDS,
            allowed=f"an integer in [2, {MAX_FACTOR_WORDS:,}] (the N most frequent words on which S' is factorized)",
        ),
    ),
    Parameter(
        "factor_sizes",
        {"smoke": (100, 200, 300), "paper": (1000, 2000, 4000, 8000)},
        list_of(
            integer(1, MAX_FACTOR_WORDS),
            allowed=f"a non-empty list of integers in [1, {MAX_FACTOR_WORDS:,}] (vocabulary sizes N for the fill-in study)",
        ),
    ),
    Parameter(
        "svd_dimensions",
        {"smoke": 20, "paper": 200},
        integer(1, allowed="a positive integer smaller than factor_words (dense orthogonalized embeddings)"),
    ),
    Parameter(
        "tsne_words",
        _same(40),
        integer(2, allowed="an integer of at least 2 and at most factor_words (most common words shown in Figure 1)"),
    ),
)


# WMD queries in the paper profile: every test query, and every validation query to choose the WMD's k, as the other
# methods (the paper's protocol). "power" (regemb_utils.classification.wmd_samples: the paired exact McNemar test against the
# regularized SCM detects a 10-point difference with 80 % power) stays available as a value, not the default. Any
# limit is a prefix of one class-stratified order (regemb_utils.text.documents.stratified_order), so a larger run extends
# a smaller one. The smoke profile keeps its documents few through max_documents.
_PAPER_WMD_QUERIES = "all"
_PAPER_WMD_VALIDATION_QUERIES = "all"
_WMD_QUERIES = _per_dataset(
    _WMD_LIMIT,
    '"power", "all", a positive integer, or a mapping from data set to one of these: how many test queries the WMD '
    'methods answer per data set ("power": chapter 4\'s power computation; a prefix of a seeded, class-stratified '
    "order; the other methods answer every query)",
)
_WMD_VALIDATION_QUERIES = _per_dataset(
    _LIMIT,
    '"all", a positive integer, or a mapping from data set to either: how many validation queries the WMD methods '
    "answer per data set to choose their k (a prefix of the same kind of order)",
)


_METHOD_NAMES = tuple(METHODS)  # the paper's seven configurations in its plot order, then the two baselines


def _inherited_datasets(source: str) -> Parameter:
    return Parameter(
        "datasets",
        _same(INHERITED),
        _subset_of(DATASETS, f"a non-empty list drawn from {list(DATASETS)} and from chapter {source}'s"),
        inherited_from=source,
    )


_CLASSIFICATION = (
    _inherited_datasets("01_preprocessing"),
    Parameter(
        "max_documents",
        {"smoke": 20, "paper": None},
        _all_or(
            integer(1),
            "a positive integer, at least the largest k (documents kept from the start of each split of chapter "
            '1\'s), or "all"',
        ),
    ),
    Parameter(
        "methods",
        _same(_METHOD_NAMES),
        _methods(
            f"a non-empty list drawn from {list(_METHOD_NAMES)} that includes 'bow' (the baseline of the relative errors)"
        ),
    ),
    Parameter(
        "ks",
        {"smoke": (1, 3, 5, 7, 9), "paper": K_VALUES},
        list_of(one_of(K_VALUES), allowed="a non-empty list drawn from [1, 3, 5, ..., 19] (kNN's k)"),
    ),
    Parameter(
        "slopes",
        _same((0.0,)),
        list_of(real(0.0, 1.0), allowed="a non-empty list of numbers in [0, 1] (the dtb pivot slope s; it cancels)"),
    ),
    Parameter(
        "symmetric",
        {"smoke": (True, False), "paper": (True, False)},
        _booleans("a non-empty list drawn from [True, False] (Sym)"),
    ),
    Parameter(
        "dominant",
        {"smoke": (True,), "paper": (True, False)},
        _booleans("a non-empty list drawn from [True, False] (Dom)"),
    ),
    Parameter(
        "idf", {"smoke": (True,), "paper": (True, False)}, _booleans("a non-empty list drawn from [True, False] (Idf)")
    ),
    Parameter(
        "nonzero_limits",
        {"smoke": (10, 40), "paper": (100, 200, 400, 800)},
        list_of(integer(1), allowed="a non-empty list of positive integers (the grid's C)"),
    ),
    Parameter(
        "thresholds",
        {"smoke": (-1.0, 0.0), "paper": (-1.0, -0.5, 0.0, 0.5)},
        list_of(real(-1.0, 1.0), allowed="a non-empty list of numbers in [-1, 1] (the grid's t)"),
    ),
    Parameter(
        "exponents",
        {"smoke": (1.0, 4.0), "paper": (1.0, 2.0, 3.0, 4.0)},
        list_of(
            real(0.0, 1e6, low_open=True),
            allowed="a non-empty list of positive numbers (the grid's o; integers when a threshold is negative)",
        ),
    ),
    Parameter(
        "fill_rule",
        _same("paper"),
        one_of(("paper", "gensim"), allowed="one of ['paper', 'gensim'] (how S' handles a dominance violation)"),
    ),
    Parameter(
        "reference",
        _same("train"),
        one_of(
            ("train", "train+validation"), allowed="one of ['train', 'train+validation'] (the test run's reference set)"
        ),
    ),
    Parameter(
        "significance_test",
        _same("mcnemar"),
        one_of(("mcnemar", "paper_t_test"), allowed="one of ['mcnemar', 'paper_t_test'] (the significance test)"),
    ),
    Parameter(
        "wmd_queries",
        {"smoke": _WMD_QUERIES.convert("all"), "paper": _WMD_QUERIES.convert(_PAPER_WMD_QUERIES)},
        _WMD_QUERIES,
    ),
    Parameter(
        "wmd_validation_queries",
        {
            "smoke": _WMD_VALIDATION_QUERIES.convert("all"),
            "paper": _WMD_VALIDATION_QUERIES.convert(_PAPER_WMD_VALIDATION_QUERIES),
        },
        _WMD_VALIDATION_QUERIES,
    ),
    Parameter(
        "wmd_solver", _same("pot"), one_of(("pot", "pyemd"), allowed="one of ['pot', 'pyemd'] (the exact EMD solver)")
    ),
    Parameter(
        "n_jobs",
        _same(os.cpu_count() or 1),
        _n_jobs(
            f"an integer in [1, {os.cpu_count() or 1}] (parallel worker processes, at most this machine's cores) or "
            "-1 (all cores)"
        ),
    ),
    Parameter(
        "scheduler",
        _same("local"),
        _scheduler(
            "'local' (joblib on this machine), 'dask-local' (a dask LocalCluster) or a 'tcp://host:port' address "
            "of a dask scheduler"
        ),
    ),
)


_MAPS = (
    _inherited_datasets("04_scm_vs_wmd"),
    Parameter(
        "map_documents",
        {"smoke": None, "paper": 1000},
        _all_or(
            integer(3),
            'an integer of at least 3 or "all" (test documents per data set on a t-SNE map: a seeded random sample)',
        ),
    ),
    Parameter(
        "perplexity",
        {"smoke": 5.0, "paper": 30.0},
        real(
            1,
            100,
            allowed="a number in [1, 100] (t-SNE's perplexity), smaller than the number of documents on every map",
        ),
    ),
)

_BASELINES = (
    _inherited_datasets("04_scm_vs_wmd"),
    Parameter(
        "methods",
        _same(tuple(LINEAR_MODELS)),
        _subset_of(tuple(LINEAR_MODELS), f"a non-empty list drawn from {list(LINEAR_MODELS)} (the linear models)"),
    ),
    Parameter(
        "regularization",
        {"smoke": (0.1, 1.0, 10.0), "paper": (0.01, 0.1, 1.0, 10.0, 100.0)},
        list_of(
            real(0.0, 1e6, low_open=True),
            allowed="a non-empty list of positive numbers (the values of C tried on the validation split)",
        ),
    ),
)


_PREVIOUS_RECORD = Parameter(
    "previous_record",
    _same(None),
    _record_id(
        "None (the latest record of the previous chapter for this profile) or a record "
        "id such as 20261123T221500-1a2b3c, as printed by that chapter"
    ),
)

# ----------------------------------------------------------------------------------------------------------------
# rules across parameters, and against the records of the chapters a run builds on

MIN_VOCABULARY = 50  # words with an embedding that chapters 2-5 need at least (benchmarks, neighbours, maps)


def _svd_below_factor_words(values):
    if values["svd_dimensions"] >= values["factor_words"]:
        raise ParameterError(
            f"svd_dimensions={values['svd_dimensions']} is not allowed; svd_dimensions must be "
            f"smaller than factor_words={values['factor_words']}"
        )


def _tsne_words_among_factor_words(values):
    if values["tsne_words"] > values["factor_words"]:
        raise ParameterError(
            f"tsne_words={values['tsne_words']} is not allowed; Figure 1 shows words among the "
            f"factor_words={values['factor_words']} most frequent ones: give at most that many"
        )


def _documents_for_the_largest_k(values):
    if values["max_documents"] is not None and values["max_documents"] < max(values["ks"]):
        raise ParameterError(
            f"max_documents={values['max_documents']} is not allowed; max_documents must be at least "
            f'the largest k ({max(values["ks"])}) or "all"'
        )


def _integer_exponents_below_zero(values):
    if min(values["thresholds"]) < 0 and any(o != int(o) for o in values["exponents"]):
        raise ParameterError(
            f"exponents={list(values['exponents'])} is not allowed; with a negative threshold every "
            "exponent must be an integer (a negative similarity to a fractional power is complex)"
        )


def _vocabulary_for_min_count(values, given, lineage):
    counts = lineage["01_preprocessing"].values.get("word_counts")
    if counts is not None and int((counts >= values["min_count"]).sum()) < MIN_VOCABULARY:
        raise ParameterError(
            f"min_count={values['min_count']} is not allowed; chapter 1's corpus has "
            f"{int((counts >= values['min_count']).sum())} words that occur that often, and the later chapters need "
            f"{MIN_VOCABULARY}: give at most {int(counts[MIN_VOCABULARY - 1]) if len(counts) >= MIN_VOCABULARY else 1}"
        )


def _check_articles_within_the_corpus(values, given, lineage):
    """A given check_articles at most chapter 1's corpus (the profile's default reads at most all of it)."""
    first = lineage["01_preprocessing"]
    corpus, wanted = first.parameter("corpus_articles"), given.get("check_articles")
    if corpus is not None and wanted is not None and (wanted == "all" or wanted > corpus):
        raise ParameterError(
            f"check_articles={wanted!r} is not allowed; chapter 01_preprocessing (record {first.id}) "
            f"read {corpus:,} articles: give at most {corpus}, or rerun chapter 1 with more"
        )


def _nonzero_limits_below_vocabulary(values, given, lineage):
    training = lineage["02_training"]
    vocabulary = min(training.values.get("vocabulary", {"": float("inf")}).values())
    if max(values["nonzero_limits"]) >= vocabulary:
        raise ParameterError(
            f"nonzero_limits={list(values['nonzero_limits'])} is not allowed; every C must be "
            f"smaller than the embeddings' vocabulary ({vocabulary:,} words, chapter 02_training, "
            f"record {training.id})"
        )


def _documents_kept_by_chapter_1(values, given, lineage):
    """max_documents at most what chapter 1 kept (the profile's default is cut to it), and at least the largest k."""
    first = lineage["01_preprocessing"]
    limit, wanted = first.parameter("max_documents"), values["max_documents"]
    if limit is not None and (wanted is None or wanted > limit):
        if given.get("max_documents") is not None:
            raise ParameterError(
                f"max_documents={given['max_documents']!r} is not allowed; chapter "
                f"01_preprocessing (record {first.id}) kept {limit} documents per split: give at "
                f"most {limit}, or rerun chapter 1 with more"
            )
        values["max_documents"] = limit  # the profile's default, cut to what chapter 1 kept
    if values["max_documents"] is not None and values["max_documents"] < max(values["ks"]):
        source = (
            ""
            if given.get("max_documents") is not None
            else f" (taken from chapter 01_preprocessing, record {first.id}, which kept that many documents per split)"
        )
        raise ParameterError(
            f"max_documents={values['max_documents']}{source} is not allowed; it must be at least "
            f"the largest k ({max(values['ks'])}): give smaller ks, or rerun chapter 1 with more "
            "documents"
        )


def _wmd_queries_of_classified_datasets(values, given, lineage):
    for name in ("wmd_queries", "wmd_validation_queries"):
        unused = sorted({d for d, _ in values[name]} - set(values["datasets"]))
        if isinstance(_parsed(given.get(name)), Mapping) and unused:
            raise ParameterError(
                f"{name}={given[name]!r} is not allowed; it names data sets this run does not "
                f"classify ({', '.join(unused)}; datasets={list(values['datasets'])}): name only "
                "those, or add them to datasets"
            )


def _perplexity_below_map_documents(values, given, lineage):
    fourth = lineage["04_scm_vs_wmd"]
    results = fourth.values["results"]
    for dataset in values["datasets"]:
        shown = len(results[dataset, "bow"].truth)  # every method but the WMD answers every test query
        if values["map_documents"] is not None:
            shown = min(shown, values["map_documents"])
        if shown < 3 or values["perplexity"] >= shown:
            raise ParameterError(
                f"perplexity={values['perplexity']} is not allowed; it must be smaller than the "
                f"number of documents on every map, and {dataset} has {shown} test documents "
                f"on its map (at least 3 are needed; chapter 04_scm_vs_wmd, record {fourth.id})"
            )


def _regularized_scm_in_chapter_4(values, given, lineage):
    fourth = lineage["04_scm_vs_wmd"]
    wanted = [m for m in values["methods"] if LINEAR_MODELS[m].features == "orthogonalized"]
    if wanted and "soft_vsm_ortho" not in fourth.parameter("methods"):
        if given.get("methods") is None:  # the default: the models that chapter 4's run allows (the chapter says so)
            values["methods"] = tuple(m for m in values["methods"] if m not in wanted)
            return
        raise ParameterError(
            f"methods={list(values['methods'])} is not allowed; {', '.join(wanted)} use the S' of "
            f"chapter 4's regularized SCM (soft_vsm_ortho), which chapter 04_scm_vs_wmd (record "
            f"{fourth.id}) did not run: leave them out, or rerun chapter 4 with soft_vsm_ortho"
        )


@dataclass(frozen=True)
class ChapterSpec:
    """What a chapter accepts: its parameters and the rules that relate them, as data the pipeline reads.

    Parameters
    ----------
    parameters : tuple of Parameter
        The chapter's parameters (``profile`` aside).
    checks : tuple of callable
        ``check(values)`` for rules across the chapter's own values; raises :class:`ParameterError`
        (:func:`chapter_parameters` runs them).
    input_checks : tuple of callable
        ``check(values, given, lineage)`` for rules against the records of the chapters the run builds on (chapter →
        record): may fill a default from them, raises :class:`ParameterError`
        (:func:`regemb_utils.study.pipeline.start_chapter` runs them, after the inherited parameters are filled in).

    Examples
    --------
    >>> [p.name for p in CHAPTERS["06_scorecard"].parameters], CHAPTERS["06_scorecard"].checks
    (['previous_record'], ())
    """

    parameters: tuple[Parameter, ...]
    checks: tuple[Callable[[dict], None], ...] = ()
    input_checks: tuple[Callable[[dict, dict, Mapping], None], ...] = ()


# The book's chapters in their order (each builds on the one before it: regemb_utils.study.pipeline).
CHAPTERS: dict[str, ChapterSpec] = {
    "01_preprocessing": ChapterSpec((_DATASETS, _MAX_DOCUMENTS, _CORPUS_ARTICLES, _TOKENIZER)),
    "02_training": ChapterSpec(
        (
            *_TRAINING,
            Parameter(
                "other_seeds",
                {"smoke": (2,), "paper": (2, 3)},
                _seeds(
                    "a list of distinct integers of at least 2 (the seeds of "
                    'extra 32-bit and 1-bit models, trained with the same settings; the book\'s models use seed 1) or "none"'
                ),
            ),
            Parameter(
                "check_epochs",
                {"smoke": 1, "paper": 2},
                integer(
                    1,
                    10,
                    allowed="an integer in [1, 10] (epochs of the check against the original Word2Bits tool, both trainers)",
                ),
            ),
            Parameter(
                "check_articles",
                {"smoke": None, "paper": 1_500},
                _all_or(
                    integer(200),
                    "an integer of at least 200 (the first articles "
                    'of chapter 1\'s corpus that the check against the original Word2Bits tool trains on) or "all"',
                ),
            ),
            Parameter(
                "cosine_pairs",
                {"smoke": 200_000, "paper": 10_000_000},
                integer(1, 100_000_000, allowed="an integer in [1, 100,000,000] (word pairs sampled)"),
            ),
            _PREVIOUS_RECORD,
        ),
        input_checks=(_vocabulary_for_min_count, _check_articles_within_the_corpus),
    ),
    "03_orthogonalization": ChapterSpec(
        (*_ORTHOGONALIZATION, _PREVIOUS_RECORD),
        checks=(_svd_below_factor_words, _tsne_words_among_factor_words),
        input_checks=(_nonzero_limits_below_vocabulary,),
    ),
    "04_scm_vs_wmd": ChapterSpec(
        (
            *_CLASSIFICATION,
            Parameter(
                "speed_queries",
                {"smoke": 3, "paper": 25},
                integer(
                    2,
                    allowed="an integer of at least 2 (test queries per data set on which "
                    "each WMD is timed by brute force, every pair solved, for the paper's speed measure)",
                ),
            ),
            _PREVIOUS_RECORD,
        ),
        checks=(_documents_for_the_largest_k, _integer_exponents_below_zero),
        input_checks=(
            _nonzero_limits_below_vocabulary,
            _documents_kept_by_chapter_1,
            _wmd_queries_of_classified_datasets,
        ),
    ),
    "05_confusion_tsne": ChapterSpec((*_MAPS, _PREVIOUS_RECORD), input_checks=(_perplexity_below_map_documents,)),
    "06_scorecard": ChapterSpec((_PREVIOUS_RECORD,)),
    "07_baselines": ChapterSpec((*_BASELINES, _PREVIOUS_RECORD), input_checks=(_regularized_scm_in_chapter_4,)),
    "07_own_data": ChapterSpec(()),
}


class ChapterParameters(Mapping):
    """A read-only mapping of parameter values that also allows ``params.name``.

    Parameters
    ----------
    values : dict
        Parameter name → validated value (``profile`` included).

    Examples
    --------
    >>> params = ChapterParameters({"profile": "smoke", "max_documents": 120})
    >>> params.max_documents, params["profile"], len(params)
    (120, 'smoke', 2)
    """

    def __init__(self, values: dict[str, Any]):
        self._values = dict(values)

    def __getitem__(self, name):
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"ChapterParameters({self._values!r})"


def _parsed(value: Any) -> Any:
    """A JSON list or mapping given as a string (papermill ``-p``) becomes the list or mapping (a string that is not
    JSON stays a string, which no list or mapping parameter allows)."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def chapter_parameters(chapter: str, profile: str = "paper", **given: Any) -> ChapterParameters:
    """Validate a chapter's parameters; ``None`` means the profile's default.

    Parameters
    ----------
    chapter : str
        A chapter of :data:`CHAPTERS`, e.g. ``"01_preprocessing"``.
    profile : {"paper", "smoke"}
        Whose defaults fill the parameters not given.
    **given : object
        The chapter's parameters; None (or absent) means the profile's default. Lists and mappings may come as JSON
        strings.

    Returns
    -------
    ChapterParameters
        Every parameter of the chapter, validated and normalized, with ``profile``.

    Raises
    ------
    ParameterError
        For an unknown chapter, profile or parameter, or a value that is not allowed; the message says what is.

    Examples
    --------
    >>> params = chapter_parameters("01_preprocessing", "smoke", datasets='["twitter", "bbcsport"]')
    >>> params.datasets, params.max_documents, params.corpus_articles
    (('bbcsport', 'twitter'), 120, 200)
    >>> chapter_parameters("01_preprocessing", "paper").max_documents is None
    True
    """
    if chapter not in CHAPTERS:
        raise ParameterError(f"unknown chapter {chapter!r}; allowed: {', '.join(CHAPTERS)}")
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
    spec = {p.name: p for p in CHAPTERS[chapter].parameters}
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ParameterError(
            f"unknown parameter(s) {', '.join(unknown)} for chapter {chapter}; allowed: profile, {', '.join(spec)}"
        )
    values: dict[str, Any] = {"profile": profile}
    for name, p in spec.items():
        value = given.get(name)
        if value is None:
            values[name] = p.defaults[profile]
            continue
        try:
            values[name] = p.constraint.check(_parsed(value), name, shown=value)
        except ValueError as error:
            raise ParameterError(str(error)) from None
    for check in CHAPTERS[chapter].checks:
        check(values)
    return ChapterParameters(values)
