"""Chapter 7's linear models (regemb_utils.classification.linear, regemb_utils.chapters.baselines): agreement with a
direct scikit-learn route, Theorem 1 on real documents, the comparison's tests, and the chapter's parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result
from gensim.corpora import Dictionary
from gensim.models import Word2Vec
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from regemb_utils.chapters import exercises
from regemb_utils.chapters.baselines import (
    ORTHOGONALIZED,
    comparison_table,
    displayed,
    kernel_comparison,
    sparse_point,
    verdict_counts,
    verdict_sentence,
    verdicts,
)
from regemb_utils.classification.knn_runs import Run
from regemb_utils.classification.linear import fit_linear, orthogonalized_features
from regemb_utils.classification.methods import represent_pair
from regemb_utils.classification.statistics import agresti_coull, benjamini_hochberg, mcnemar_exact
from regemb_utils.measures.representations import l2_normalize
from regemb_utils.measures.similarity import sparse_scm
from regemb_utils.study.params import ParameterError, chapter_parameters
from regemb_utils.termsim.sources import InMemoryMatrices, restricted
from regemb_utils.text.datasets import head, load_dataset
from regemb_utils.text.documents import prepare_documents
from regemb_utils.text.tokenization import tokenize


@pytest.fixture(autouse=True)
def one_thread():
    """One BLAS thread, as the chapter fits: on a shared machine more threads make scikit-learn's solvers crawl."""
    with threadpool_limits(1):
        yield


POINT = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=10, threshold=0.0, exponent=1.0, slope=0.0)


@pytest.fixture(scope="module")
def reuters():
    """60 documents per split of REUTERS (R8), counted over their own words; word2vec trained on them (seeded)."""
    dataset = head(load_dataset("reuters"), 60)
    tokens = [tokenize(t) for split in dataset.splits.values() for t in split.texts]
    dictionary = Dictionary(tokens)
    vectors = Word2Vec(tokens, vector_size=16, min_count=1, seed=1, workers=1, epochs=2).wv
    return prepare_documents(dataset, dictionary), dictionary, vectors


@pytest.mark.parametrize(
    "method, estimator",
    [
        ("tfidf_svm", lambda C: LinearSVC(C=C, random_state=0)),
        ("tfidf_logistic", lambda C: LogisticRegression(C=C, max_iter=2000)),
    ],
)
def test_tfidf_models_agree_with_a_scikit_learn_grid_search(reuters, method, estimator):
    """C chosen by GridSearchCV over a predefined train/validation split, the pipeline refitted on the training
    split: the same C, validation errors and test predictions."""
    documents = reuters[0]
    grid = (0.01, 0.1, 1.0, 10.0)
    result = fit_linear(method, documents, "train", grid)
    X, y = documents.split("train+validation")[:2]
    fold = np.r_[np.full(documents.labels["train"].size, -1), np.zeros(documents.labels["validation"].size)]
    search = GridSearchCV(
        make_pipeline(TfidfTransformer(), estimator(1.0)),
        {f"{type(estimator(1.0)).__name__.lower()}__C": list(grid)},
        cv=PredefinedSplit(fold),
        scoring="accuracy",
        refit=False,
    ).fit(X, y)
    chosen = list(search.best_params_.values())[0]
    assert result.params["C"] == chosen
    assert result.validation["validation error (%)"].to_numpy() == pytest.approx(
        100 * (1 - search.cv_results_["mean_test_score"])
    )
    direct = make_pipeline(TfidfTransformer(), estimator(chosen)).fit(*documents.split("train")[:2])
    assert np.array_equal(result.predictions, direct.predict(documents.split("test")[0]))
    assert result.test_errors == int(np.sum(direct.predict(documents.split("test")[0]) != documents.labels["test"]))
    assert result.fit_seconds > 0 and result.predict_seconds >= 0


def test_orthogonalized_vectors_carry_the_sparse_scm(reuters):
    """Theorem 1 on real documents: ⟨E′ᵀx̂, E′ᵀŷ⟩ equals the sparse SCM of chapter 4's kNN, up to rounding, for
    every test-train pair."""
    documents, dictionary, vectors = reuters
    S = InMemoryMatrices(vectors, dictionary, depth=10).build(POINT)
    features, info = orthogonalized_features(documents, S, "train")
    assert info.ok and features["test"].shape == (documents.labels["test"].size, documents.terms.size)
    Q, R = represent_pair("soft_vsm_ortho", documents, "test", "train")
    scm = np.asarray(sparse_scm(Q, R, restricted(S, documents.terms)))
    products = (features["test"] @ features["train"].T).toarray()
    cosine = (l2_normalize(Q) @ l2_normalize(R).T).toarray()
    assert np.abs(scm - cosine).max() > 0.05  # S' is not the identity: the SCM is not the plain cosine
    assert np.abs(products - scm).max() < 1e-10
    check = exercises.kernel_check(documents, S, POINT)
    assert check["largest difference"] < 1e-10 and check["pairs"] == scm.size


def test_the_scm_models_fit_on_e_prime(reuters):
    documents, dictionary, vectors = reuters
    S = InMemoryMatrices(vectors, dictionary, depth=10).build(POINT)
    result = fit_linear("scm_logistic", documents, "train", (0.1, 1.0), S=S, point=POINT)
    features, _ = orthogonalized_features(documents, S, "train")
    direct = LogisticRegression(C=result.params["C"], max_iter=2000).fit(features["train"], documents.labels["train"])
    assert np.array_equal(result.predictions, direct.predict(features["test"]))
    assert result.factor["words"] == documents.terms.size and result.params["nonzero_limit"] == 10
    not_dominant = InMemoryMatrices(vectors, dictionary, depth=10).build(dict(POINT, dominant=False, threshold=-1.0))
    if np.linalg.eigvalsh(restricted(not_dominant, documents.terms).toarray())[0] < 0:
        with pytest.raises(ValueError, match="has no Cholesky factor"):
            orthogonalized_features(documents, not_dominant, "train")


def test_the_validation_split_chooses_c(reuters):
    documents = reuters[0]
    over_c = exercises.error_over_penalty(documents, "tfidf_svm", (0.01, 1.0, 100.0))
    result = fit_linear("tfidf_svm", documents, "train", (0.01, 1.0, 100.0))
    assert over_c["validation error (%)"].tolist() == pytest.approx(result.validation["validation error (%)"].tolist())
    chosen = over_c.loc[over_c["C"] == result.params["C"], "test error (%)"].item()
    assert chosen == pytest.approx(100 * result.test_errors / result.truth.size)
    assert over_c["test error (%)"].min() <= chosen


def _knn(method, truth, wrong, rows=None, params=None):
    answered = truth if rows is None else truth[rows]
    predicted = np.where(np.arange(answered.size) < wrong, (answered + 1) % 2, answered)
    return fake_result(
        "twitter",
        method,
        answered,
        predicted,
        params=params,
        runs=[Run("validation", 100, 2.0), Run("validation", 100, 1.0), Run("test", 50, 0.5)],
        rows=rows,
    )


def test_comparison_pairs_each_model_with_the_orthogonalized_scm_knn():
    from regemb_utils.classification.linear import LinearResult

    truth = np.array([0, 1] * 20)
    rows = np.arange(0, 40, 2)  # a WMD that answered every other query
    knn = {
        ("twitter", ORTHOGONALIZED): _knn(ORTHOGONALIZED, truth, 10),
        ("twitter", "wmd"): _knn("wmd", truth, 2, rows),
    }
    svm = LinearResult(
        "twitter",
        "tfidf_svm",
        {"C": 1.0},
        pd.DataFrame(),
        truth,
        np.where(np.arange(40) >= 35, 1 - truth, truth),
        0.3,
        0.01,
    )
    table = comparison_table({("twitter", "tfidf_svm"): svm}, knn).set_index("method")
    assert table.loc[ORTHOGONALIZED, "fit s"] == 3.0 and table.loc[ORTHOGONALIZED, "predict s"] == 0.5
    assert table.loc["tfidf_svm", "p"] == pytest.approx(
        mcnemar_exact(svm.predictions, knn["twitter", ORTHOGONALIZED].predictions[1], truth).pvalue
    )
    anchor = knn["twitter", ORTHOGONALIZED].predictions[1][rows]
    assert table.loc["wmd", "p"] == pytest.approx(
        mcnemar_exact(knn["twitter", "wmd"].predictions[1], anchor, truth[rows]).pvalue
    )
    assert (
        table.loc["wmd", "test documents"] == 20 and table.loc["wmd", "Sato et al."] != table.loc["wmd", "Sato et al."]
    )
    tested = table["p"].notna()
    assert table.loc[tested, "q"].tolist() == pytest.approx(benjamini_hochberg(table.loc[tested, "p"].to_numpy()))
    _, lower, upper = agresti_coull(5, 40)
    assert (table.loc["tfidf_svm", "lower"], table.loc["tfidf_svm", "upper"]) == pytest.approx(
        (100 * lower, 100 * upper)
    )
    verdict = verdicts(table.reset_index()).iloc[0]
    assert verdict["best other model"] == "WMD kNN" and verdict["verdict"].startswith("WMD kNN wins")


def test_the_verdict_sentence_counts_the_kinds_of_verdict():
    table = pd.DataFrame(
        {
            "verdict": [
                "TF-IDF + linear SVM wins (decided)",
                "E′ᵀx + linear SVM wins (decided)",
                "the orthogonalized SCM kNN is the best choice (open)",
            ]
        }
    )
    assert verdict_sentence(verdict_counts(table)) == (
        "Another model wins on 2 of the 3 data sets (each decided); the orthogonalized SCM kNN is the best choice "
        "on 1 (open)."
    )
    assert verdict_sentence(verdict_counts(table.iloc[:2])) == "Another model wins on all 2 data sets, each decided."


def test_the_kernel_comparison_tests_against_the_knn_only_and_the_page_names_data_sets_in_upper_case():
    table = pd.DataFrame(
        {
            "dataset": ["amazon"] * 3 + ["twitter"] * 3,
            "method": ["scm_svm", ORTHOGONALIZED, "tfidf_svm"] * 2,
            "error": [6.46, 9.17, 6.75, 24.36, 31.01, 24.25],
            "q": [1e-6, np.nan, 0.5, 1e-7, np.nan, 0.5],
        }
    )
    kernel = kernel_comparison(table)
    assert kernel["lower than both"].tolist() == [True, False]  # a point estimate below TF-IDF's, not a test
    assert kernel["q"].tolist() == [1e-6, 1e-7]  # the SVM on E′ᵀx against the kNN
    shown = displayed(kernel)
    assert shown["data set"].tolist() == ["AMAZON", "TWITTER"] and kernel["dataset"].tolist() == ["amazon", "twitter"]


def test_sparse_point_keeps_chapter_4s_choice_when_it_has_a_factor():
    table = pd.DataFrame([dict(POINT, k=1, error=0.2), dict(POINT, symmetric=False, k=1, error=0.1)])
    chosen = _knn(ORTHOGONALIZED, np.array([0, 1]), 0, params=dict(POINT, nonzero_limit=20))
    chosen.validation = table
    assert sparse_point(chosen)["nonzero_limit"] == 20
    chosen.params = dict(POINT, symmetric=False, k=1)
    assert sparse_point(chosen) == POINT  # the best symmetric, dominant row of the validation table
    chosen.validation = table.iloc[1:]
    with pytest.raises(ValueError, match="no symmetric, dominant S'"):
        sparse_point(chosen)


@pytest.mark.parametrize(
    "given, message",
    [
        (
            {"methods": ["fasttext"]},
            "methods must be a non-empty list drawn from ['tfidf_svm', 'tfidf_logistic', 'scm_svm', 'scm_logistic']",
        ),
        ({"regularization": [0.0, 1.0]}, "regularization must be a non-empty list of positive numbers"),
        ({"regularization": []}, "regularization=[] is not allowed (the list is empty)"),
        (
            {"k": 3},
            "unknown parameter(s) k for chapter 07_baselines; allowed: profile, datasets, methods, regularization",
        ),
    ],
)
def test_bad_parameters_are_refused_with_what_is_allowed(given, message):
    with pytest.raises(ParameterError) as error:
        chapter_parameters("07_baselines", "smoke", **given)
    assert message in str(error.value)


def test_the_chapter_runs_in_the_pipeline_with_a_method_subset(tmp_path):
    """The chapter's first cell on records of chapters 1-6: bad values and a model that chapter 4's run cannot feed
    are refused there; a subset of the models runs on chapter 4's documents and is answered from the cache again."""
    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.study.pipeline import run_classification, start_chapter

    cache = ArtifactCache(tmp_path)

    def run(name, **given):
        return start_chapter(name, {"profile": "smoke", **given}, cache)

    run("01_preprocessing", datasets=["twitter"], max_documents=30).finish()
    run("02_training").finish()
    run("03_orthogonalization").finish()
    fourth = run("04_scm_vs_wmd", methods=["bow"], ks=[1], n_jobs=1)
    fourth.finish(results=run_classification(fourth, progress=False))
    run("05_confusion_tsne").finish()
    run("06_scorecard").finish()
    with pytest.raises(
        ParameterError,
        match=r"scm_svm use the S' of chapter 4's regularized SCM \(soft_vsm_ortho\), "
        r"which chapter 04_scm_vs_wmd .* did not run",
    ):
        run("07_baselines", methods=["tfidf_svm", "scm_svm"])
    with pytest.raises(ParameterError, match=r"datasets=\['reuters'\] is not allowed; chapter 04_scm_vs_wmd"):
        run("07_baselines", datasets=["reuters"])
    from regemb_utils.chapters.baselines import run_linear_models

    chapter = run("07_baselines", methods=["tfidf_logistic"])
    assert chapter.params.datasets == ("twitter",)
    results = run_linear_models(chapter, chapter.params.methods, chapter.params.regularization)
    assert set(results) == {("twitter", "tfidf_logistic")}
    knn = chapter.results()["twitter", "bow"]  # chapter 4 cut the splits to 20 documents: the same test documents
    assert np.array_equal(results["twitter", "tfidf_logistic"].truth, knn.truth) and knn.truth.size == 20
    again = run_linear_models(chapter, chapter.params.methods, chapter.params.regularization)
    assert again["twitter", "tfidf_logistic"].fit_seconds == results["twitter", "tfidf_logistic"].fit_seconds
    table = comparison_table(results, chapter.results())
    assert list(table["method"]) == ["tfidf_logistic", "bow"] and table["p"].isna().all()  # no SCM kNN to test against


@pytest.mark.book
def test_the_chapter_notebook_runs_with_a_method_subset(smoke_cache, tmp_path):
    """Chapter 7 rerun on the smoke chapters with TF-IDF + logistic regression only: it runs to the end, shows only
    that linear model beside chapter 4's, and a bad value stops it at the first cell with what is allowed."""
    import json

    from conftest import run_chapters

    done = run_chapters(smoke_cache, tmp_path, "--only", "07_baselines", "-y", "methods: [tfidf_logistic]")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = (tmp_path / "07_baselines.ipynb").read_text()
    assert "TF-IDF + logistic regression" in text and "E′ᵀx + linear SVM" not in text
    assert not [o for c in json.loads(text)["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    refused = run_chapters(smoke_cache, tmp_path / "bad", "--only", "07_baselines", "-y", "regularization: [-1]")
    assert refused.returncode != 0
    assert "regularization must be a non-empty list of positive numbers" in refused.stdout + refused.stderr


def test_the_error_grid_shows_sato_et_al_with_their_own_digits():
    """Our test errors with two decimals, Sato et al.'s (2022) as they print them: 5.5 and 4.0, not 5.50 and 4.00."""
    import re

    from regemb_utils.chapters.baselines import error_grid_table

    errors = pd.DataFrame(
        {
            "dataset": ["reuters", "reuters"],
            "method": ["tfidf_svm", "tfidf_l1"],
            "model": ["TF-IDF + linear SVM", "TF-IDF L1 kNN"],
            "error": [2.7866, 5.2],
        }
    )
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", error_grid_table(errors).html)
    assert cells[:4] == ["TF-IDF + linear SVM", "2.79", "TF-IDF L1 kNN", "5.20"]
    assert cells[4:] == ["TF-IDF L1 kNN, Sato et al. (2022)", "5.5", "WMD (TF-IDF) kNN, Sato et al. (2022)", "4.0"]
