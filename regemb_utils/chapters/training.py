"""Variation from training: the 32-bit model trained with other seeds (chapter 2), the two 32-bit soft VSMs classified
with each (chapter 4), and the claims whose verdict depends on the seed (chapter 6).

The bootstrap intervals of chapters 4 and 6 describe the sampling of test queries for *one* trained model. Training
is random too (the initial vectors, the negative samples, the sub-sampling): chapter 2's parameter ``other_seeds``
trains more 32-bit models with the same settings and other seeds (the book's models use seed 1), and chapter 4
reruns its whole protocol (the grid, k chosen on the validation split, the test split) for the two SCMs whose ratio
is the paper's headline 39 %, :data:`SEEDED_METHODS`, with each of them. The WMD and the 1-bit methods are not rerun:
the full WMD protocol takes hours per model (chapter 4's cost table).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors

from ..classification.knn_runs import MethodResult
from ..embeddings.trained import (TrainingSummary, cosine_summary, embedding_settings, sample_cosines,
                                  trained_embeddings, word_benchmarks)
from ..infra.cache import ArtifactCache
from ..study.params import BOOK_SEED, SEEDED_METHODS, SEEDED_MODEL
from .scm_vs_wmd import error_reduction, error_table

__all__ = ["BOOK_SEED", "SEEDED_MODEL", "SEEDED_METHODS", "train_seeds", "seed_quality", "seeded_results",
           "seed_errors", "seed_reductions"]


Results = Mapping[tuple[str, str], MethodResult]


def train_seeds(training: Mapping, corpus_articles: int | None, tokenizer: str, seeds: Sequence[int],
                cache: ArtifactCache | None = None) -> dict[int, tuple[KeyedVectors, TrainingSummary]]:
    """The 32-bit model trained with each of ``seeds`` under chapter 2's settings ``training``, all at the same time
    (each with ``training["workers"]`` threads), or loaded from the cache.

    Parameters
    ----------
    training : mapping
        Chapter 2's parameters (:func:`regemb_utils.embeddings.trained.embedding_settings`).
    corpus_articles : int or None
        Chapter 1's corpus: its first articles (None: all).
    tokenizer : str
        Chapter 1's tokenizer.
    seeds : sequence of int
        The training seeds.
    cache : ArtifactCache, optional
        Where the models are kept.

    Returns
    -------
    dict of int to (gensim.models.KeyedVectors, TrainingSummary)
        Per seed, the vectors and what their training measured.

    Examples
    --------
    >>> import tempfile
    >>> from regemb_utils.infra.cache import ArtifactCache
    >>> training = dict(dimensions=8, quantized_dimensions=16, epochs=1, window=2, negative=2, sample=1e-3,
    ...                 min_count=5, workers=1)
    >>> with tempfile.TemporaryDirectory() as root:
    ...     models = train_seeds(training, 200, "paper", [2, 3], ArtifactCache(root))
    >>> sorted(models), models[2][0].vector_size
    ([2, 3], 8)
    >>> bool((models[2][0].vectors != models[3][0].vectors).any())  # another seed, other vectors
    True
    """
    settings = embedding_settings(training, SEEDED_MODEL, corpus_articles, tokenizer)
    with ThreadPoolExecutor(max_workers=max(1, len(seeds))) as pool:
        futures = {seed: pool.submit(trained_embeddings, SEEDED_MODEL, seed=seed, cache=cache, **settings)
                   for seed in seeds}
        return {seed: future.result() for seed, future in futures.items()}


def seed_quality(models: Mapping[int, KeyedVectors], pairs: int) -> pd.DataFrame:
    """Chapter 2's measures of one model, per training seed: the word benchmarks, the mean and standard deviation of
    the cosine of ``pairs`` random word pairs, and cos(good, bad).

    Parameters
    ----------
    models : mapping of int to gensim.models.KeyedVectors
        The 32-bit model per seed.
    pairs : int
        Random word pairs (:func:`regemb_utils.embeddings.trained.sample_cosines`, the same draw for every seed).

    Returns
    -------
    pandas.DataFrame
        One row per seed: ``seed``, ``analogies (%)``, ``WordSim353 ρ``, ``SimLex-999 ρ``, ``cosine mean``,
        ``cosine sd``, ``cos(good, bad)`` (NaN when a word has no vector).

    Examples
    --------
    Two random "models" over a few words of the benchmarks:

    >>> from gensim.models import KeyedVectors
    >>> words = "good bad tiger cat love sex old new smart intelligent king queen man woman".split()
    >>> rng = np.random.default_rng(0)
    >>> models = {}
    >>> for seed in (1, 2):
    ...     models[seed] = KeyedVectors(4)
    ...     models[seed].add_vectors(words, rng.normal(size=(len(words), 4)))
    >>> table = seed_quality(models, pairs=100)
    >>> table["seed"].tolist()
    [1, 2]
    >>> [round(float(models[s].similarity("good", "bad")), 6) == round(g, 6) for s, g in zip(table["seed"],
    ...                                                                                       table["cos(good, bad)"])]
    [True, True]
    """
    rows = []
    for seed, vectors in models.items():
        benchmarks = word_benchmarks(vectors)
        cosines = cosine_summary(sample_cosines(vectors, pairs))
        good_bad = float(vectors.similarity("good", "bad")) if {"good", "bad"} <= set(vectors.key_to_index) else np.nan
        rows.append({"seed": seed, "analogies (%)": 100 * benchmarks["analogy accuracy"],
                     "WordSim353 ρ": benchmarks["WordSim353 Spearman"], "SimLex-999 ρ": benchmarks["SimLex-999 Spearman"],
                     "cosine mean": cosines["mean"], "cosine sd": cosines["sd"], "cos(good, bad)": good_bad})
    return pd.DataFrame(rows)


def seeded_results(results: Results, seed_results: Results) -> dict[tuple[str, str], MethodResult]:
    """Chapter 4's ``results`` with the (data set, method) entries of another seed's ``seed_results`` in their place:
    the whole experiment as it would read had the seeded model been trained with that seed.

    Parameters
    ----------
    results : mapping of (str, str) to MethodResult
        Chapter 4's results (seed 1).
    seed_results : mapping of (str, str) to MethodResult
        The :data:`SEEDED_METHODS` with another seed's model.

    Returns
    -------
    dict of (str, str) to MethodResult
        ``results``, updated.

    Examples
    --------
    >>> seeded_results({("a", "bow"): 1, ("a", "soft_vsm"): 2}, {("a", "soft_vsm"): 3})
    {('a', 'bow'): 1, ('a', 'soft_vsm'): 3}
    """
    return {**results, **{key: value for key, value in seed_results.items() if key in results}}


def seed_errors(results: Results, seed_results: Mapping[int, Results]) -> pd.DataFrame:
    """The test error of each :data:`SEEDED_METHODS` method on each data set, per training seed, beside seed 1's
    Agresti–Coull interval.

    Parameters
    ----------
    results : mapping of (str, str) to MethodResult
        Chapter 4's results (seed :data:`BOOK_SEED`).
    seed_results : mapping of int to mapping of (str, str) to MethodResult
        Per other seed, the :data:`SEEDED_METHODS` run with that seed's model.

    Returns
    -------
    pandas.DataFrame
        One row per data set and method: ``dataset``, ``method``, ``label``, ``seed 1 (%)`` with ``lower (%)`` and
        ``upper (%)`` (its 95 % interval), ``seed s (%)`` per other seed, ``spread (points)`` (the largest error
        minus the smallest over the seeds) and ``within seed 1's interval`` (whether every other seed's error is).

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult
    >>> def result(wrong):
    ...     truth = np.zeros(100, dtype=int)
    ...     predicted = np.r_[np.ones(wrong, int), np.zeros(100 - wrong, int)]  # class 1 is wrong
    ...     return MethodResult("toy", "soft_vsm", {"k": 1}, None, truth, {1: predicted})
    >>> table = seed_errors({("toy", "soft_vsm"): result(20)}, {2: {("toy", "soft_vsm"): result(24)}})
    >>> table[["seed 1 (%)", "seed 2 (%)", "spread (points)", "within seed 1's interval"]].values.tolist()
    [[20.0, 24.0, 4.0, True]]
    """
    base = error_table({key: r for key, r in results.items() if key[1] in SEEDED_METHODS})
    if base.empty:
        return pd.DataFrame()
    table = base[["dataset", "method", "label", "error", "lower", "upper"]].rename(
        columns={"error": f"seed {BOOK_SEED} (%)", "lower": "lower (%)", "upper": "upper (%)"})
    columns = [f"seed {BOOK_SEED} (%)"]
    for seed, chosen in seed_results.items():
        other = error_table({key: r for key, r in chosen.items() if key[1] in SEEDED_METHODS})
        column = f"seed {seed} (%)"
        table = table.merge(other[["dataset", "method", "error"]].rename(columns={"error": column}),
                            on=["dataset", "method"], how="left")
        columns.append(column)
    errors = table[columns]
    others = errors[columns[1:]]
    return table.assign(**{
        "spread (points)": errors.max(axis=1) - errors.min(axis=1),
        f"within seed {BOOK_SEED}'s interval": (others.ge(table["lower (%)"], axis=0)
                                                & others.le(table["upper (%)"], axis=0)).all(axis=1)})


def seed_reductions(results: Results, seed_results: Mapping[int, Results]) -> pd.DataFrame:
    """The paper's §6.2 reduction (the 39 %: :func:`regemb_utils.chapters.scm_vs_wmd.error_reduction` of the orthogonalized
    32-bit SCM against the non-regularized one) per training seed, with its bootstrap interval over test queries.

    Parameters
    ----------
    results : mapping of (str, str) to MethodResult
        Chapter 4's results (seed :data:`BOOK_SEED`).
    seed_results : mapping of int to mapping of (str, str) to MethodResult
        Per other seed, the :data:`SEEDED_METHODS` run with that seed's model.

    Returns
    -------
    pandas.DataFrame
        One row per seed: ``seed``, ``reduction (%)``, ``lower (%)``, ``upper (%)``, ``data sets``.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult
    >>> def result(method, wrong):
    ...     truth = np.zeros(100, dtype=int)
    ...     predicted = np.r_[np.ones(wrong, int), np.zeros(100 - wrong, int)]  # class 1 is wrong
    ...     return MethodResult("toy", method, {"k": 1}, None, truth, {1: predicted})
    >>> book = {("toy", "soft_vsm"): result("soft_vsm", 40), ("toy", "soft_vsm_ortho"): result("soft_vsm_ortho", 20)}
    >>> other = {("toy", "soft_vsm"): result("soft_vsm", 40), ("toy", "soft_vsm_ortho"): result("soft_vsm_ortho", 30)}
    >>> seed_reductions(book, {2: other})["reduction (%)"].round(6).tolist()
    [50.0, 25.0]
    """
    rows = []
    for seed, chosen in {BOOK_SEED: results, **seed_results}.items():
        reduction = error_reduction(seeded_results(results, chosen))
        rows.append({"seed": seed, "reduction (%)": reduction["reduction"], "lower (%)": reduction["lower"],
                     "upper (%)": reduction["upper"], "data sets": reduction["datasets"]})
    return pd.DataFrame(rows)
