"""Variation from training (regemb_utils.chapters.training): the other seeds' models, the 32-bit soft VSMs rerun with each,
and the verdicts that move with the seed (judged per seed by regemb_utils.chapters.claims)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from regemb_utils.classification.experiment import classify
from regemb_utils.classification.settings import Settings
from regemb_utils.embeddings.trained import embedding_settings, trained_embeddings
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.study.params import ParameterError, chapter_parameters
from regemb_utils.study.pipeline import records, start_chapter
from regemb_utils.chapters.scm_vs_wmd import error_reduction
from regemb_utils.chapters.claims import Evidence, judge
from regemb_utils.chapters.training import BOOK_SEED, SEEDED_METHODS, seed_errors, seed_reductions
from regemb_utils.study.claims import FAILS


@pytest.mark.parametrize("given, expected", [("none", ()), ([3, 2], (2, 3)), (5, (5,))])
def test_other_seeds_accepts_a_list_of_seeds_or_none(given, expected):
    assert chapter_parameters("02_training", "smoke", other_seeds=given).other_seeds == expected


@pytest.mark.parametrize(
    "given, message",
    [
        ([1, 2], "other_seeds must be a list of distinct integers of at least 2"),
        ([2, 2], "2 given more than once"),
        (["2"], "other_seeds must be"),
        ([], "the list is empty"),
    ],
)
def test_other_seeds_refuses_the_books_seed_repeats_and_non_integers(given, message):
    with pytest.raises(ParameterError, match=message):
        chapter_parameters("02_training", "smoke", other_seeds=given)


@pytest.fixture()
def chapter_4(smoke_chapters):
    cache = ArtifactCache(smoke_chapters[0])
    return cache, records("04_scm_vs_wmd", "smoke", cache)[-1], records("02_training", "smoke", cache)[-1]


def test_each_other_seed_reruns_the_32_bit_soft_vsms_with_its_own_model(chapter_4, tmp_path):
    cache, record, training = chapter_4
    results, seed_results = record.values["results"], record.values["seed_results"]
    seeds = training.parameter("other_seeds")
    assert seeds and sorted(seed_results) == list(seeds)
    datasets = sorted({d for d, _ in results})
    for chosen in seed_results.values():
        assert sorted(chosen) == sorted((d, m) for d in datasets for m in SEEDED_METHODS)
    # the seed's model is another model, and its results are chapter 4's protocol run directly on it (a fresh cache)
    first = record.parameter("datasets")[0]
    chapter = start_chapter("04_scm_vs_wmd", {"profile": "smoke"}, cache=cache)
    dictionary, documents = chapter.documents([first], chapter.params.max_documents)
    articles, tokenizer = chapter.corpus()
    settings = embedding_settings(training.parameters, "32-bit", articles, tokenizer)
    book, _ = trained_embeddings("32-bit", cache=cache, **settings)
    other, _ = trained_embeddings("32-bit", seed=seeds[0], cache=cache, **settings)
    assert not np.allclose(book.vectors, other.vectors)
    rows = {first: embedding_matrix(other, dictionary, terms=documents[first].terms)}
    direct = classify(
        "soft_vsm",
        documents,
        Settings.from_parameters(chapter.params, progress=False),
        embeddings=rows,
        cache=ArtifactCache(tmp_path / "fresh"),
    )[first]
    stored = seed_results[seeds[0]][first, "soft_vsm"]
    assert direct.params == stored.params
    for k in direct.predictions:
        np.testing.assert_array_equal(direct.predictions[k], stored.predictions[k])


def test_seed_errors_and_reductions_read_each_seeds_results(chapter_4):
    _, record, _ = chapter_4
    results, seed_results = record.values["results"], record.values["seed_results"]
    table = seed_errors(results, seed_results)
    for seed, chosen in seed_results.items():
        for r in table.to_dict("records"):
            assert r[f"seed {seed} (%)"] == pytest.approx(100 * chosen[r["dataset"], r["method"]].test_error)
            assert r[f"seed {BOOK_SEED} (%)"] == pytest.approx(100 * results[r["dataset"], r["method"]].test_error)
    columns = [c for c in table.columns if c.startswith("seed ")]
    np.testing.assert_allclose(table["spread (points)"], table[columns].max(axis=1) - table[columns].min(axis=1))
    reductions = seed_reductions(results, seed_results).set_index("seed")
    assert reductions.loc[BOOK_SEED, "reduction (%)"] == pytest.approx(error_reduction(results)["reduction"])


def _all_wrong(result):
    return dataclasses.replace(result, predictions={k: np.full_like(p, -1) for k, p in result.predictions.items()})


def test_a_seed_that_changes_nothing_splits_no_verdict_and_one_that_does_is_judged_per_seed(chapter_4):
    _, record, training = chapter_4
    results = record.values["results"]
    same = {key: r for key, r in results.items() if key[1] in SEEDED_METHODS}
    judged = judge(Evidence(results, {2: same}, cosines=training.values["cosines"]))
    assert not any(j.depends_on_seed for j in judged)
    worse = {key: _all_wrong(r) if key[1] == "soft_vsm_ortho" else r for key, r in same.items()}
    reduction = next(j for j in judge(Evidence(results, {2: worse})) if j.claim.key == "reduction")
    by_seed = {f.seed: f.result for f in reduction.findings}
    assert by_seed[2] == FAILS  # every answer of the orthogonalized SCM wrong: no reduction
    assert reduction.depends_on_seed == (by_seed[BOOK_SEED] != FAILS)
    assert "with seed 2" in reduction.verdict or not reduction.depends_on_seed


def test_a_rerun_timed_differently_splits_no_verdict(chapter_4):
    _, record, training = chapter_4
    results = record.values["results"]
    slower = {
        key: dataclasses.replace(r, runs=[dataclasses.replace(run, seconds=50 * run.seconds) for run in r.runs])
        for key, r in results.items()
        if key[1] in SEEDED_METHODS
    }
    # the same predictions, 50 times the seconds: no verdict differs between the seeds
    assert not any(j.depends_on_seed for j in judge(Evidence(results, {2: slower}, cosines=training.values["cosines"])))
