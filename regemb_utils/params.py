"""Chapter parameters: one validated structure per chapter, with a default for each profile.

A chapter's papermill ``parameters`` cell sets ``profile`` and leaves every other parameter at ``None``, which means
"the profile's default". :func:`chapter_parameters` checks everything at the start of the chapter and stops it with a
message that names the parameter and what is allowed.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .data import DATASETS
from .text import TOKENIZER_RULES

PROFILES = ("smoke", "paper")


class ParameterError(ValueError):
    """A chapter parameter has an unknown name or a value outside what is allowed."""


@dataclass(frozen=True)
class Parameter:
    name: str
    defaults: dict[str, Any]  # profile -> value
    allowed: str  # what a reader may pass, in words
    check: Callable[[Any], Any]  # returns the normalised value or raises ValueError


def _one_of(choices):
    def check(value):
        if value not in choices:
            raise ValueError
        return value

    return check


def _subset_of(choices):
    def check(value):
        values = (value,) if isinstance(value, str) else tuple(value)
        if not values or any(v not in choices for v in values) or len(set(values)) != len(values):
            raise ValueError
        return tuple(v for v in choices if v in values)  # canonical order

    return check


def _limit(value):
    """A positive integer, or "all" for no limit (stored as None)."""
    if value == "all":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError
    return value


_DATASETS = Parameter(
    "datasets", {"smoke": DATASETS, "paper": DATASETS}, f"a non-empty list drawn from {list(DATASETS)}", _subset_of(DATASETS)
)
_MAX_DOCUMENTS = Parameter(
    "max_documents",
    {"smoke": 120, "paper": None},
    'a positive integer (documents kept from the start of each split) or "all"',
    _limit,
)
_CORPUS_ARTICLES = Parameter(
    "corpus_articles",
    {"smoke": 200, "paper": None},
    'a positive integer (Wikipedia articles read from the start of the corpus) or "all"',
    _limit,
)
_TOKENIZER = Parameter(
    "tokenizer", {"smoke": "paper", "paper": "paper"}, f"one of {list(TOKENIZER_RULES)}", _one_of(TOKENIZER_RULES)
)

def _positive_int(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError
    return value


def _unit_interval(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ValueError
    return float(value)


def _same(value):
    return {"smoke": value, "paper": value}


_TRAINING = (
    Parameter("dimensions", {"smoke": 50, "paper": 200}, "a positive integer (the 32-bit model's size)", _positive_int),
    Parameter("quantized_dimensions", {"smoke": 100, "paper": 1000}, "a positive integer (the 1-bit model's size)",
              _positive_int),
    Parameter("epochs", {"smoke": 1, "paper": 10}, "a positive integer", _positive_int),
    Parameter("window", _same(10), "a positive integer", _positive_int),
    Parameter("negative", _same(24), "a positive integer", _positive_int),
    Parameter("sample", _same(1e-4), "a number in [0, 1)", _unit_interval),
    Parameter("min_count", _same(5), "a positive integer", _positive_int),
    Parameter("workers", _same(os.cpu_count() or 1), "a positive integer (threads)", _positive_int),
)

def _sizes(value):
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ValueError
    return tuple(sorted(set(values)))


_ORTHOGONALIZATION = (
    Parameter("rule", _same("paper"), "one of ['paper', 'gensim'] (a dominance violation ends the column, or skips "
              "the candidate)", _one_of(("paper", "gensim"))),
    Parameter("nonzero_limits", {"smoke": (10, 20, 40), "paper": (100, 200, 400, 800)},
              "a non-empty list of positive integers (the grid's C)", _sizes),
    Parameter("factor_words", {"smoke": 300, "paper": 2000},
              "a positive integer (the N most frequent words on which S' is factorized)", _positive_int),
    Parameter("factor_sizes", {"smoke": (100, 200, 300), "paper": (1000, 2000, 4000, 8000)},
              "a non-empty list of positive integers (vocabulary sizes N for the fill-in study)", _sizes),
    Parameter("svd_dimensions", {"smoke": 20, "paper": 200},
              "a positive integer smaller than factor_words (dense orthogonalized embeddings)", _positive_int),
    Parameter("tsne_words", _same(40), "a positive integer (most common words shown in Figure 1)", _positive_int),
)

CHAPTERS: dict[str, tuple[Parameter, ...]] = {
    "01_preprocessing": (_DATASETS, _MAX_DOCUMENTS, _CORPUS_ARTICLES, _TOKENIZER),
    "02_training": (_CORPUS_ARTICLES, _TOKENIZER, *_TRAINING, Parameter(
        "cosine_pairs", {"smoke": 200_000, "paper": 10_000_000}, "a positive integer (word pairs sampled)",
        _positive_int)),
    "03_orthogonalization": _ORTHOGONALIZATION,
}


class ChapterParameters(Mapping):
    """A read-only mapping of parameter values that also allows ``params.name``."""

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


def chapter_parameters(chapter: str, profile: str = "paper", **given: Any) -> ChapterParameters:
    """Validate a chapter's parameters; ``None`` means the profile's default."""
    if chapter not in CHAPTERS:
        raise ParameterError(f"unknown chapter {chapter!r}; allowed: {', '.join(CHAPTERS)}")
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
    spec = {p.name: p for p in CHAPTERS[chapter]}
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
            values[name] = p.check(value)
        except (ValueError, TypeError):
            raise ParameterError(f"{name}={value!r} is not allowed; {name} must be {p.allowed}") from None
    if chapter == "03_orthogonalization" and values["svd_dimensions"] >= values["factor_words"]:
        raise ParameterError(f"svd_dimensions={values['svd_dimensions']} is not allowed; svd_dimensions must be "
                             f"smaller than factor_words={values['factor_words']}")
    return ChapterParameters(values)
