"""The scikit-learn estimators: scikit-learn's own checks, brute-force neighbours (NumPy, SciPy), gensim's SCM, POT's WMD,
a grid search that shares S′'s preparation and changes no result."""

import warnings

import numpy as np
import ot
import pytest
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors, TfidfModel
from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex
from scipy import sparse
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from regemb_utils.text.datasets import Dataset, Split
from regemb_utils.classification.estimators import (
    CosineClassifier,
    MissingEmbeddingsWarning,
    SoftCosineClassifier,
    TfidfL1Classifier,
    WeightedBagOfWords,
    WMDClassifier,
    as_keyed_vectors,
)
from regemb_utils.text.tokenization import tokenize

_RNG = np.random.default_rng(0)
_CHECK_VECTORS = {f"x{j}": _RNG.normal(size=8) for j in range(40)}  # the checks' columns are x0, x1, ...

# dtb's local weight 1 + log2(1 + log2 tf) is defined for term counts (tf ≥ 1): the transformer refuses the checks'
# random reals in (0, 1) with a ValueError naming this, so every check that fits on such data fails by design.
_DTB_ON_REALS = "dtb weights term counts (tf >= 1); the check fits on random reals in (0, 1), which are refused"
_DTB_EXPECTED = {
    name: _DTB_ON_REALS
    for name in (
        "check_dict_unchanged",
        "check_dont_overwrite_parameters",
        "check_dtype_object",
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag",
        "check_estimators_dtypes",
        "check_estimators_fit_returns_self",
        "check_estimators_nan_inf",
        "check_estimators_overwrite_params",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_fit2d_1feature",
        "check_fit2d_1sample",
        "check_fit2d_predict1d",
        "check_fit_check_is_fitted",
        "check_fit_idempotent",
        "check_fit_score_takes_y",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_n_features_in",
        "check_n_features_in_after_fitting",
        "check_pipeline_consistency",
        "check_readonly_memmap_input",
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_preserve_dtypes",
    )
}


def _expected_failed_checks(estimator):
    if isinstance(estimator, WeightedBagOfWords) and estimator.weighting == "dtb":
        return _DTB_EXPECTED
    return {}


@parametrize_with_checks(
    [
        WeightedBagOfWords("bow"),
        WeightedBagOfWords("nbow"),
        WeightedBagOfWords("tfidf_l1"),
        WeightedBagOfWords("dtb"),
        CosineClassifier(),
        TfidfL1Classifier(),
        SoftCosineClassifier(_CHECK_VECTORS),
        SoftCosineClassifier(_CHECK_VECTORS, orthogonalized=True, C=5),
        WMDClassifier(_CHECK_VECTORS),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_scikit_learn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        check(estimator)


# ---------------------------------------------------------------------------------------------------------------------
# a small data set with overlapping classes (three topics sharing words), words without an embedding, unknown words


def _topics(seed=1, n_words=60, dim=12, missing=6):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    centres = rng.normal(size=(3, dim))
    kv = KeyedVectors(vector_size=dim)
    topic_of = rng.integers(0, 3, size=n_words)
    vectors = centres[topic_of] + rng.normal(scale=1.2, size=(n_words, dim))
    kv.add_vectors(words[: n_words - missing], vectors[: n_words - missing].astype(np.float32))

    def split(n, offset):
        labels = rng.integers(0, 3, size=n)
        texts = []
        for label in labels:
            own = [w for w, t in zip(words, topic_of) if t == label]
            tokens = list(rng.choice(own, size=5)) + list(rng.choice(words, size=5))
            if rng.random() < 0.2:
                tokens.append("neverseen")
            texts.append(" ".join(tokens))
        return Split(texts, labels)

    dataset = Dataset("topics", ("art", "bio", "car"), split(45, 0), split(24, 1), split(30, 2))
    return dataset, kv


@pytest.fixture(scope="module")
def topics():
    return _topics()


def _dense(matrix):
    return np.asarray(matrix.todense(), dtype=np.float64)


def _cosines(X, Y):
    X, Y = _dense(X), _dense(Y)
    norms = np.linalg.norm(X, axis=1)[:, None] * np.linalg.norm(Y, axis=1)[None, :]
    return np.divide(X @ Y.T, norms, out=np.zeros(norms.shape), where=norms > 0)


def _reference(name, kv, dictionary, Q, R):
    """Brute-force similarities (NumPy, SciPy) of the estimator ``name``: queries Q against references R."""
    if name == "cosine":
        return _cosines(Q, R)
    if name == "l1":
        return -cdist(_dense(Q), _dense(R), "cityblock")
    # the SCM with S = the embeddings' cosines (a zero vector for a word without one): xᵀSy / √(xᵀSx · yᵀSy)
    E = np.array(
        [
            kv[dictionary[i]] if dictionary[i] in kv.key_to_index else np.zeros(kv.vector_size)
            for i in range(len(dictionary))
        ],
        dtype=np.float64,
    )
    unit = np.divide(
        E,
        np.linalg.norm(E, axis=1, keepdims=True),
        out=np.zeros_like(E),
        where=np.linalg.norm(E, axis=1, keepdims=True) > 0,
    )
    return _cosines(sparse.csr_matrix(_dense(Q) @ unit), sparse.csr_matrix(_dense(R) @ unit))


@pytest.mark.parametrize(
    "name, estimator, weighting, distance",
    [
        ("cosine", CosineClassifier, "bow", lambda s: 1 - s),
        ("l1", TfidfL1Classifier, "tfidf_l1", lambda s: -s),
        ("scm", SoftCosineClassifier, "dtb", lambda s: 1 - s),
    ],
)
def test_neighbours_and_distances_equal_a_brute_force_computation(topics, name, estimator, weighting, distance):
    dataset, kv = topics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        model = (estimator(kv, k=7) if name == "scm" else estimator(k=7)).fit(dataset.train.texts, dataset.train.labels)
    bag = WeightedBagOfWords(weighting, dictionary=model.dictionary_).fit(dataset.train.texts)
    Q, R = bag.transform(dataset.test.texts), bag.transform(dataset.train.texts)
    expected = _reference(name, kv, model.dictionary_, Q, R)
    distances, indices = model.kneighbors(dataset.test.texts)
    np.testing.assert_allclose(model.similarity(dataset.test.texts), expected, atol=1e-5)
    # the k most similar, nearest first (equal to the last float32 bit: the order of near-ties may differ)
    np.testing.assert_allclose(
        np.take_along_axis(expected, indices, axis=1), -np.sort(-expected, axis=1)[:, :7], atol=1e-6
    )
    np.testing.assert_allclose(distances, distance(np.take_along_axis(expected, indices, axis=1)), atol=1e-5)
    votes = model.classes_[
        np.apply_along_axis(lambda row: np.bincount(row, minlength=3).argmax(), 1, dataset.train.labels[indices])
    ]
    np.testing.assert_array_equal(model.predict(dataset.test.texts), votes)


def test_a_grid_search_shares_the_neighbour_search_and_changes_no_result(topics, monkeypatch):
    """GridSearchCV over C, the threshold, the exponent and k: one neighbour search per depth (not one per fit), and
    every candidate's score equal to that of a fit on its own with nothing shared."""
    from regemb_utils.classification import engine
    from regemb_utils.termsim import matrix

    dataset, kv = topics
    texts = dataset.train.texts + dataset.validation.texts
    labels = np.concatenate([dataset.train.labels, dataset.validation.labels])
    fold = PredefinedSplit([-1] * len(dataset.train) + [0] * len(dataset.validation))
    grid = {"C": [2, 4], "threshold": [0.0, 0.2], "exponent": [1.0, 2.0], "k": [1, 3]}
    searches = []
    monkeypatch.setattr(
        engine,
        "nearest_neighbours",
        lambda *a, **kw: searches.append(kw["depth"]) or matrix.nearest_neighbours(*a, **kw),
    )
    engine._SHARED.clear()
    search = GridSearchCV(SoftCosineClassifier(kv, orthogonalized=True), grid, cv=fold, error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        search.fit(texts, labels)
        assert len(searches) <= 2 * len(grid["C"])  # per depth: the fold's words, then the refit's new ones
        for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
            engine._SHARED.clear()
            alone = SoftCosineClassifier(kv, orthogonalized=True, **params).fit(
                dataset.train.texts, dataset.train.labels
            )
            assert alone.score(dataset.validation.texts, dataset.validation.labels) == pytest.approx(score)
    assert len(set(np.round(search.cv_results_["mean_test_score"], 9))) > 1  # the grid is not one tie


def test_soft_cosine_similarities_equal_gensims_inner_product(topics):
    dataset, kv = topics
    point = dict(C=4, threshold=0.1, exponent=2.0, symmetric=True, dominant=True)
    model = SoftCosineClassifier(kv, orthogonalized=True, idf=True, fill_rule="gensim", **point)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        model.fit(dataset.train.texts, dataset.train.labels)
    dictionary = model.dictionary_
    S = SparseTermSimilarityMatrix(
        WordEmbeddingSimilarityIndex(kv, threshold=point["threshold"], exponent=point["exponent"]),
        dictionary,
        TfidfModel(dictionary=dictionary, smartirs="dtn"),
        symmetric=True,
        dominant=True,
        nonzero_limit=point["C"],
    )
    # the same entries; values equal up to the last float32 bit of the neighbours' cosines (regemb_utils.termsim)
    np.testing.assert_array_equal((S.matrix != 0).toarray(), (model.term_similarity_ != 0).toarray())
    np.testing.assert_allclose(S.matrix.toarray(), model.term_similarity_.toarray(), atol=1e-6)
    bag = WeightedBagOfWords("dtb", dictionary=dictionary).fit(dataset.train.texts)

    def corpus(matrix):
        return [list(zip(row.indices, row.data)) for row in matrix]

    queries, reference = bag.transform(dataset.test.texts), bag.transform(dataset.train.texts)
    expected = np.asarray(S.inner_product(corpus(queries), corpus(reference), normalized=(True, True)).todense())
    np.testing.assert_allclose(model.similarity(dataset.test.texts), expected, atol=1e-6)


def test_wmd_neighbours_equal_brute_force_with_pot(topics):
    dataset, kv = topics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        model = WMDClassifier(kv, k=5).fit(dataset.train.texts, dataset.train.labels)
    distances, indices = model.kneighbors(dataset.test.texts)
    bag = WeightedBagOfWords("nbow", dictionary=model.dictionary_).fit(dataset.train.texts)
    Q, R = bag.transform(dataset.test.texts), bag.transform(dataset.train.texts)
    E = np.array(
        [kv[w] if w in kv.key_to_index else np.zeros(kv.vector_size) for w in bag.get_feature_names_out()],
        dtype=np.float64,
    )
    brute = np.array([[ot.emd2(q.data, r.data, cdist(E[q.indices], E[r.indices])) for r in R] for q in Q])
    expected = np.lexsort((np.broadcast_to(np.arange(R.shape[0]), brute.shape), brute), axis=1)[:, :5]
    np.testing.assert_allclose(distances, np.take_along_axis(brute, expected, axis=1), rtol=1e-6)
    np.testing.assert_array_equal(indices, expected)


# ---------------------------------------------------------------------------------------------------------------------
# the API a user relies on


def test_string_labels_new_texts_probabilities_and_a_pipeline(topics):
    dataset, kv = topics
    names = np.array(["sport", "art", "cars"], dtype=object)
    y = names[dataset.train.labels]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingEmbeddingsWarning)
        model = SoftCosineClassifier(kv, k=np.int64(5)).fit(dataset.train.texts, y)
        # a pipeline of the layers: the words of the matrix's columns are the dictionary's, given to both steps
        dictionary = Dictionary(tokenize(text) for text in dataset.train.texts)
        piped = make_pipeline(
            WeightedBagOfWords("dtb", dictionary=dictionary), SoftCosineClassifier(kv, k=5, dictionary=dictionary)
        ).fit(dataset.train.texts, y)
    assert list(model.classes_) == ["art", "cars", "sport"]
    assert clone(model).vectors is kv and clone(model).get_params()["k"] == 5  # a grid search shares the embeddings
    new = ["w1 w2 w3 w40", "w7 w8 never seen words"]
    predicted = model.predict(new)
    assert set(predicted) <= set(names)
    probabilities = model.predict_proba(dataset.test.texts)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[probabilities.argmax(axis=1)], model.predict(dataset.test.texts))
    # the vectorizer's dtb rows are the classifier's own weighting: the pipeline decides the same
    np.testing.assert_array_equal(piped.predict(dataset.test.texts), model.predict(dataset.test.texts))
    assert model.score(dataset.test.texts, names[dataset.test.labels]) == pytest.approx(
        np.mean(model.predict(dataset.test.texts) == names[dataset.test.labels])
    )


def test_words_without_an_embedding_are_reported_once_with_their_share_and_the_most_frequent():
    dataset, kv = _topics()  # embeddings of their own: the report comes once per set of embeddings
    tokens = [t for text in dataset.train.texts for t in text.split()]
    expected = {t for t in tokens if t not in kv.key_to_index}
    frequency = {word: tokens.count(word) for word in expected}
    most = sorted(expected, key=lambda word: (-frequency[word], word))
    share = sum(t in expected for t in tokens) / len(tokens)
    with pytest.warns(MissingEmbeddingsWarning) as caught:
        model = SoftCosineClassifier(kv).fit(dataset.train.texts, dataset.train.labels)
        grid = GridSearchCV(SoftCosineClassifier(kv), {"k": [1, 3]}, cv=3).fit(
            dataset.train.texts, dataset.train.labels
        )
    assert [str(w.message) for w in caught] == [
        f"{len(expected)} of the {len(set(tokens))} words of the training documents have no embedding "
        f"({100 * share:.1f} % of the tokens), the most frequent {most[:5]}; they get a zero vector (the SCM with S "
        "ignores them, with S' each is similar only to itself, the WMD places them at the origin)"
    ]
    assert model.missing_words_ == most and model.n_missing_words_ == len(expected)
    assert model.missing_share_ == pytest.approx(share)
    assert grid.best_estimator_.missing_words_ == most  # every fit has the report; only the first warns


@pytest.mark.parametrize(
    "estimator, message",
    [
        (CosineClassifier(k=4), "k=4 is not allowed; k must be an odd positive integer"),
        (CosineClassifier(k=2.0), "k=2.0 is not allowed"),
        (CosineClassifier(k=True), "k=True is not allowed"),
        (
            CosineClassifier(tokenizer="spacy"),
            "tokenizer='spacy' is not allowed; tokenizer must be one of 'paper', 'gensim'",
        ),
        (SoftCosineClassifier({"w1": [1.0]}, C=0), "C=0 is not allowed; C must be an integer ≥ 1"),
        (
            SoftCosineClassifier({"w1": [1.0]}, threshold=2),
            "threshold=2 is not allowed; threshold must be a number in [-1, 1]",
        ),
        (SoftCosineClassifier({"w1": [1.0]}, exponent=0), "exponent=0 is not allowed"),
        (SoftCosineClassifier({"w1": [1.0]}, threshold=-0.5, exponent=1.5), "exponent must be an integer"),
        (
            SoftCosineClassifier({"w1": [1.0]}, symmetric="yes"),
            "symmetric='yes' is not allowed; symmetric must be True",
        ),
        (SoftCosineClassifier({"w1": [1.0]}, fill_rule="fast"), "fill_rule='fast' is not allowed"),
        (SoftCosineClassifier(), "vectors is required: a gensim KeyedVectors or a mapping word → vector"),
        (
            WMDClassifier(np.eye(3)),
            "vectors must be a gensim KeyedVectors or a mapping word → vector, got ndarray (a NumPy array has no words",
        ),
        (
            WMDClassifier({"w1": [1.0]}, solver="sinkhorn"),
            "solver='sinkhorn' is not allowed; solver must be one of 'pot', 'pyemd'",
        ),
        (WMDClassifier({"w1": [1.0], "w2": [1.0, 2.0]}), "vectors must map every word to a 1-D vector of one length"),
        (CosineClassifier(k=99), "k=99 needs at least 99 training documents, got 4"),
    ],
)
def test_bad_parameters_are_refused_at_fit_naming_the_parameter(estimator, message):
    with pytest.raises((ValueError, TypeError)) as error:
        estimator.fit(["w1 w2", "w2 w3", "w1", "w3"], ["a", "b", "a", "b"])
    assert message in str(error.value)


def test_inputs_are_checked():
    model = CosineClassifier().fit(["a b", "c d"], ["x", "y"])
    with pytest.raises(TypeError, match="not a single string"):
        model.predict("a b")
    with pytest.raises(ValueError, match="fitted on texts: X must be a list of texts too"):
        model.predict(np.ones((1, 4)))
    with pytest.raises(ValueError, match="2 texts but 3 labels"):
        CosineClassifier().fit(["a", "b"], ["x", "y", "z"])
    assert as_keyed_vectors({"a": np.ones(2)}).index_to_key == ["a"]
