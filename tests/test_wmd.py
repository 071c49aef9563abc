import numpy as np
import ot
import pytest
from scipy import sparse
from scipy.spatial.distance import cdist

from classification_fixtures import make_problem
from regemb_utils.classification.knn import top_k
from regemb_utils.measures.representations import nbow_matrix
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.measures.wmd import (
    dual_bounds, ict_bounds, relaxed_wmd, wmd, wmd_distances, wmd_knn, word_centroid_distances,
)


@pytest.fixture(scope="module")
def problem():
    documents, dictionary, kv = make_problem(seed=3, n_docs=260, n_words=200, dim=8, missing=12)
    documents[5] = []  # empty query
    documents[70] = ["unknown-token"]  # training document without a known word
    X = nbow_matrix(documents, dictionary)
    E = embedding_matrix(kv, dictionary, dtype=np.float64)
    return X[:40], X[40:], E


def test_pot_and_pyemd_agree(problem):
    Q, T, E = problem
    pot = wmd_distances(Q[:8], T[:25], E, solver="pot")
    pyemd = wmd_distances(Q[:8], T[:25], E, solver="pyemd")
    finite = np.isfinite(pot)
    assert np.array_equal(finite, np.isfinite(pyemd))
    assert np.allclose(pyemd[finite], pot[finite], rtol=1e-6, atol=0)
    assert wmd(Q[0], T[0], E) == pytest.approx(pot[0, 0], rel=1e-12)


def test_hand_computed_wmd_with_word_at_origin():
    E = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])  # word 0 has no embedding: origin
    x = sparse.csr_matrix([[1.0, 0.0, 0.0]])
    y = sparse.csr_matrix([[0.0, 1.0, 1.0]])
    # half the mass goes 5 to word 1, half 10 to word 2
    assert wmd(x, y, E) == pytest.approx(7.5)
    assert wmd(x, y, E, solver="pyemd") == pytest.approx(7.5)
    assert wmd(x, sparse.csr_matrix((1, 3)), E) == np.inf
    with pytest.raises(ValueError, match="unknown EMD solver"):
        wmd(x, y, E, solver="sinkhorn")


def test_bounds_are_lower_bounds(problem):
    Q, T, E = problem
    full = wmd_distances(Q, T, E)
    wcd = word_centroid_distances(Q, T, E)
    rwmd = relaxed_wmd(Q, T, E)
    finite = np.isfinite(full)
    assert np.all(np.isinf(full[5])) and np.all(np.isinf(full[:, 30]))  # empty query / empty training doc
    assert np.all(wcd[finite] <= full[finite] * (1 + 1e-12) + 1e-12)
    assert np.all(rwmd[finite] <= full[finite] * (1 + 1e-12) + 1e-12)
    assert np.all(rwmd[finite] >= 0) and np.array_equal(np.isfinite(rwmd), finite)


def test_pruned_knn_identical_to_brute_force(problem):
    Q, T, E = problem
    full = wmd_distances(Q, T, E)
    reference = top_k(-full, 19)
    result = wmd_knn(Q, T, E, k=19)
    assert np.array_equal(result.indices, reference)
    assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1))
    assert 0 < result.share_solved < 1 and result.n_pairs == Q.shape[0] * T.shape[0]
    parallel = wmd_knn(Q, T, E, k=19, n_jobs=2, chunk_size=5, progress=True)
    assert np.array_equal(parallel.indices, reference) and parallel.n_solved == result.n_solved
    brute = wmd_knn(Q, T, E, k=19, prune=False)
    assert np.array_equal(brute.indices, reference)
    with pytest.raises(ValueError):
        wmd_knn(Q, T, E, k=T.shape[0] + 1)


def test_ict_between_rwmd_and_wmd(problem):
    Q, T, E = problem
    full = wmd_distances(Q[:12], T, E)
    rwmd = relaxed_wmd(Q[:12], T, E)
    ict = ict_bounds(Q[:12], T, E)
    finite = np.isfinite(full)
    assert np.array_equal(np.isfinite(ict), finite)
    assert np.all(ict[finite] <= full[finite] * (1 + 1e-12) + 1e-12)
    assert np.all(ict[finite] >= rwmd[finite] * (1 - 1e-12) - 1e-12)
    assert np.mean(ict[finite] > rwmd[finite] + 1e-9) > 0.5  # strictly tighter on most pairs


def test_hand_computed_ict():
    # x: 0.9 on word 0 at 0, 0.1 on word 3 at 2.9; y: 0.5 on word 1 at 1, 0.5 on word 2 at 3 (all on a line).
    # RWMD: x→y 0.9·1 + 0.1·0.1 = 0.91, y→x 0.5·1 + 0.5·0.1 = 0.55. ICT: word 1 takes at most its 0.5 from word 0,
    # the other 0.4 goes on to word 2: 0.5·1 + 0.4·3 + 0.1·0.1 = 1.71, which is the WMD here
    E = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [2.9, 0.0]])
    x = sparse.csr_matrix([[0.9, 0.0, 0.0, 0.1]])
    y = sparse.csr_matrix([[0.0, 0.5, 0.5, 0.0]])
    assert relaxed_wmd(x, y, E)[0, 0] == pytest.approx(0.91)
    assert ict_bounds(x, y, E)[0, 0] == pytest.approx(1.71)
    assert wmd(x, y, E) == pytest.approx(1.71)


def test_pruned_knn_with_both_bounds_identical_to_brute_force(problem):
    Q, T, E = problem
    full = wmd_distances(Q, T, E)
    reference = top_k(-full, 7)
    tight = wmd_knn(Q, T, E, k=7)
    loose = wmd_knn(Q, T, E, k=7, bound="rwmd")
    for result in (tight, loose):
        assert np.array_equal(result.indices, reference)
        assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1))
    assert tight.n_solved <= loose.n_solved
    with pytest.raises(ValueError, match="unknown bound"):
        wmd_knn(Q, T, E, k=7, bound="exact")


# ---------------------------------------------------------------------------------------------------------------
# the entropic dual bound and the search that uses it


def _pot_reference(Q, T, E):
    """Every WMD straight from POT on the full |x| × |y| problem (no merged locations, no cancelled mass)."""
    Q, T = sparse.csr_matrix(Q), sparse.csr_matrix(T)
    result = np.full((Q.shape[0], T.shape[0]), np.inf)
    for i in range(Q.shape[0]):
        x = Q[i]
        for j in range(T.shape[0]):
            y = T[j]
            if x.nnz and y.nnz:
                a, b = x.data / x.data.sum(), y.data / y.data.sum()
                result[i, j] = ot.emd2(a, b, cdist(E[x.indices], E[y.indices]), numItermax=10_000_000)
    return result


def _hard_cases(seed=0):
    """Random documents over 40 words (8 of them without an embedding, 3 more sharing one non-zero point) with
    duplicates (also rescaled), disjoint vocabularies, documents made of words at the origin only, an empty one."""
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(40, 5))
    E[32:] = 0.0  # words without an embedding
    E[[5, 6, 7]] = E[5]  # three words at one point
    counts = rng.poisson(0.6, size=(30, 40)).astype(float)
    counts[:, :20][::2] = 0.0  # even documents use words 20-39 only, odd ones ...
    counts[1::2, 20:] = 0.0  # ... words 0-19 only: disjoint vocabularies
    counts[3] = counts[4] = 0.0
    counts[3, 0] = counts[4, 1] = 1.0  # one word each, different words
    counts[5] = 0.0
    counts[5, 32:] = 1.0  # only words at the origin
    counts[6] = 3.0 * counts[7]  # a duplicate, rescaled
    counts[8] = 0.0  # empty
    counts[9, [5, 6]] = [1.0, 2.0]  # words at one point, mixed
    counts[9, 7:] = 0.0
    counts[10] = counts[9]
    counts[10, [5, 6, 7]] = [0.0, 0.0, 3.0]  # the same point through another word
    X = sparse.csr_matrix(counts)
    return X[:15], X, E


@pytest.mark.parametrize("epsilon_scale", [1e-3, 0.1, 10.0])
def test_dual_bound_is_a_lower_bound_of_pot(epsilon_scale):
    Q, T, E = _hard_cases()
    reference = _pot_reference(Q, T, E)
    finite = np.isfinite(reference)
    exact = wmd_distances(Q, T, E)
    assert np.array_equal(np.isfinite(exact), finite)
    assert np.allclose(exact[finite], reference[finite], rtol=1e-9, atol=1e-12)
    assert exact[6, 7] == 0 and exact[9, 10] == 0 and np.all(np.diag(exact[:15])[np.isfinite(np.diag(exact))] == 0)
    epsilon = epsilon_scale * np.median(reference[finite])
    for iterations in (1, 10, 60):
        bounds = dual_bounds(Q, T, E, epsilon=epsilon, iterations=iterations)
        assert np.array_equal(np.isfinite(bounds), finite)
        assert np.all(bounds[finite] <= reference[finite])  # no margin: the error term is already subtracted
    tight = dual_bounds(Q, T, E, epsilon=0.01 * np.median(reference[finite]), iterations=200)
    assert np.mean(tight[finite]) > np.mean(ict_bounds(Q, T, E)[finite])  # tighter than ICT on average
    with pytest.raises(ValueError, match="epsilon"):
        dual_bounds(Q, T, E, epsilon=0.0)


def test_search_with_dual_bound_on_hard_cases():
    Q, T, E = _hard_cases(seed=1)
    full = wmd_distances(Q, T, E)
    for k in (1, 7, 19):
        reference = top_k(-full, k)
        for bound in ("dual", "ict", "rwmd"):
            result = wmd_knn(Q, T, E, k=k, bound=bound)
            assert np.array_equal(result.indices, reference), (k, bound)
            assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1)), (k, bound)


def _real_problem(name, n_queries, n_train, seed=0):
    """The first documents of a real data set (paper tokenizer, nBOW over their own words) with random vectors; words
    seen in only one document have no embedding (zero rows). Two training documents are repeated at the end and two
    queries are copies of training documents, so exact ties and zero distances occur."""
    from gensim.corpora import Dictionary

    from regemb_utils.text.datasets import load_dataset
    from regemb_utils.text.tokenization import tokenize

    dataset = load_dataset(name)
    texts = dataset.train.texts[:n_train] + dataset.test.texts[:n_queries]
    documents = [tokenize(text) for text in texts]
    train, queries = documents[:n_train], documents[n_train:]
    train += [train[3], train[10]]
    queries[:2] = [train[3], train[7]]
    dictionary = Dictionary(train + queries)
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(len(dictionary), 20))
    E[np.array([dictionary.dfs[i] for i in range(len(dictionary))]) < 2] = 0.0
    return nbow_matrix(queries, dictionary), nbow_matrix(train, dictionary), E


@pytest.mark.parametrize("name, n_queries, n_train", [("bbcsport", 10, 150), ("twitter", 80, 400)])
def test_dual_search_identical_to_brute_force_on_real_documents(name, n_queries, n_train):
    Q, T, E = _real_problem(name, n_queries, n_train)
    full = wmd_distances(Q, T, E)
    reference = top_k(-full, 19)
    result = wmd_knn(Q, T, E, k=19)
    assert np.array_equal(result.indices, reference)
    assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1))
    assert result.distances[0, 0] == 0 and result.distances[1, 0] == 0
    ict = wmd_knn(Q, T, E, k=19, bound="ict")
    assert np.array_equal(ict.indices, reference) and np.array_equal(ict.distances, result.distances)
    assert result.n_certified > 0 and result.n_solved < ict.n_solved and ict.n_certified == 0
    assert result.solved.shape == result.certified.shape == (Q.shape[0],)
    assert np.all(result.solved + result.certified <= T.shape[0])
    # the bound itself against POT on the full problems, at the search's regularisation
    epsilon = 0.1 * np.median(result.distances[:, -1])
    bounds = dual_bounds(Q[:4], T, E, epsilon=epsilon, iterations=10)
    pot = _pot_reference(Q[:4], T, E)
    finite = np.isfinite(pot)
    assert np.array_equal(np.isfinite(bounds), finite) and np.all(bounds[finite] <= pot[finite])
    assert np.allclose(full[:4][finite], pot[finite], rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# the transport plan of one pair (chapter 4's example)


def _nbow_pair(seed=11):
    documents, dictionary, kv = make_problem(seed=seed, n_words=40, dim=6, missing=0, with_unknown=False)
    first = ["w1", "w2", "w2", "w5", "w9"]  # repeated words, one word shared with the second document
    second = ["w3", "w5", "w7", "w7", "w7", "w11"]
    X = nbow_matrix([first, second], dictionary)
    return first, second, X[0], X[1], embedding_matrix(kv, dictionary, dtype=np.float64), kv


def test_flows_cost_equals_wmd_and_gensim_with_exact_marginals():
    from regemb_utils.measures.wmd import wmd_flows

    first, second, x, y, E, kv = _nbow_pair()
    plan = wmd_flows(x, y, E)
    assert plan.total == pytest.approx(wmd(x, y, E), rel=1e-10)
    assert plan.total == pytest.approx(wmd(x, y, E, solver="pyemd"), rel=1e-6)
    assert plan.total == pytest.approx(kv.wmdistance(first, second, norm=False), rel=1e-6)
    assert np.array_equal(plan.x_terms, x.indices) and np.array_equal(plan.y_terms, y.indices)
    assert np.all(plan.flows >= 0)
    np.testing.assert_allclose(plan.flows.sum(axis=1), x.data, atol=1e-12)  # every word sends all its mass
    np.testing.assert_allclose(plan.flows.sum(axis=0), y.data, atol=1e-12)  # and every word receives its own
    np.testing.assert_allclose(plan.distances, cdist(E[x.indices], E[y.indices]))
    assert plan.x_weights.sum() == pytest.approx(1.0) and plan.y_weights.sum() == pytest.approx(1.0)


def test_flows_hand_computed_with_word_at_origin():
    from regemb_utils.measures.wmd import wmd_flows

    E = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])  # word 0 has no embedding: origin
    plan = wmd_flows(np.array([2.0, 0.0, 0.0]), np.array([0.0, 1.0, 1.0]), E)  # raw counts are L1-normalised
    np.testing.assert_allclose(plan.flows, [[0.5, 0.5]])
    np.testing.assert_allclose(plan.distances, [[5.0, 10.0]])
    assert plan.total == pytest.approx(7.5)


def test_flows_refuse_bad_input():
    from regemb_utils.measures.wmd import wmd_flows

    _, _, x, y, E, _ = _nbow_pair()
    with pytest.raises(ValueError, match="no word with a weight"):
        wmd_flows(sparse.csr_matrix(x.shape), y, E)
    with pytest.raises(ValueError, match="common dictionary"):
        wmd_flows(x, y, E[:-1])
    with pytest.raises(ValueError, match="common dictionary"):
        wmd_flows(x, y[:, :-1], E)
    with pytest.raises(ValueError, match="single documents"):
        wmd_flows(sparse.vstack([x, y]), y, E)
