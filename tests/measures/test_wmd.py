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
    PHASES,
    dual_bounds,
    wmd,
    wmd_distances,
    wmd_knn,
)
from regemb_utils.embeddings.word2bits import quantize_array
from regemb_utils.measures import wmd as wmd_module


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


def _potential_bounds(Q, T, E, potentials):
    """The search's bound of every pair from query potentials ``potentials(q_w, exact costs)`` (lists of vectors over
    the query's locations), with the search's lower costs; +inf for an empty query."""
    Qp, Tp, points = wmd_module._prepare(Q, T, E)
    collection = wmd_module._Collection(Tp, points)
    result = np.full((Q.shape[0], T.shape[0]), np.inf)
    for i in range(Q.shape[0]):
        q_ids, q_w = wmd_module._row(Qp, i)
        if len(q_ids):
            costs = wmd_module._QueryCosts(collection, q_ids)
            exact = collection.query_distances(q_ids)
            assert np.all(costs.lower <= exact)  # the BLAS costs are lower bounds of cdist's
            F = np.array(potentials(q_w, exact))
            result[i] = wmd_module._potential_bounds(collection, q_w, costs.lower, F)[0]
    return result


@pytest.mark.parametrize("seed", [0, 1])
def test_potential_bounds_are_lower_bounds_of_pot(problem, seed):
    rng = np.random.default_rng(seed)
    for Q, T, E in (problem, _hard_cases(seed)):
        reference = wmd_distances(Q, T, E)
        finite = np.isfinite(reference)
        assert np.array_equal(np.isfinite(_pot_reference(Q[:3], T, E)), finite[:3])

        def potentials(q_w, exact):  # zero (the one-sided RWMD), random, and optimal ones of single documents
            return [
                np.zeros(len(q_w)),
                rng.normal(scale=exact.mean(), size=len(q_w)),
                exact.min(axis=0),
                exact[:7].max(axis=0),
            ]

        bounds = _potential_bounds(Q, T, E, potentials)
        assert np.array_equal(np.isfinite(bounds), finite)
        assert np.all(bounds[finite] <= reference[finite])  # no margin: the rounding term is already subtracted
        assert np.all(bounds[finite] >= 0) and np.mean(bounds[finite] > 0) > 0.5
    Q, T, E = problem
    assert np.all(np.isinf(wmd_distances(Q, T, E)[5]))  # the empty query
    assert np.all(np.isinf(wmd_distances(Q, T, E)[:, 30]))  # the empty training document


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


def test_search_settings_identical_to_brute_force_and_bad_settings_rejected(problem):
    Q, T, E = problem
    full = wmd_distances(Q, T, E)
    reference = top_k(-full, 7)
    for settings in ({}, {"seeds": 1}, {"seeds": 200, "block": 3}, {"epsilon": 1.0, "max_iterations": 1}):
        result = wmd_knn(Q, T, E, k=7, **settings)
        assert np.array_equal(result.indices, reference), settings
        assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1)), settings
        assert set(result.phases) == set(PHASES) and all(v >= 0 for v in result.phases.values())
    with pytest.raises(ValueError, match="seeds"):
        wmd_knn(Q, T, E, k=7, seeds=0)
    with pytest.raises(ValueError, match="epsilon"):
        wmd_knn(Q, T, E, k=7, epsilon=-1.0)


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
    assert np.mean(tight[finite]) > 0.9 * np.mean(reference[finite])  # tight on average
    with pytest.raises(ValueError, match="epsilon"):
        dual_bounds(Q, T, E, epsilon=0.0)


def test_search_with_dual_bound_on_hard_cases():
    Q, T, E = _hard_cases(seed=1)
    full = wmd_distances(Q, T, E)
    for k in (1, 7, 19):
        reference = top_k(-full, k)
        for seeds in (1, None, 30):
            result = wmd_knn(Q, T, E, k=k, seeds=seeds)
            assert np.array_equal(result.indices, reference), (k, seeds)
            assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1)), (k, seeds)


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
    seen = {word for document in train for word in document}
    unseen = [word for document in queries for word in document if word not in seen]
    queries[2] = unseen[:8]  # a query that shares no word with any training document
    assert len(queries[2]) == 8
    dictionary = Dictionary(train + queries)
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(len(dictionary), 20))
    E[np.array([dictionary.dfs[i] for i in range(len(dictionary))]) < 2] = 0.0
    return nbow_matrix(queries, dictionary), nbow_matrix(train, dictionary), E


def _one_bit(E):
    """Word2Bits' 1-bit quantization (±1/3) of the rows with an embedding; the others stay at the origin."""
    result = quantize_array(E.astype(np.float32), 1).astype(np.float64)
    result[~np.any(E != 0, axis=1)] = 0.0
    return result


@pytest.mark.parametrize("bits", [32, 1])
@pytest.mark.parametrize("name, n_queries, n_train", [("bbcsport", 6, 150), ("twitter", 60, 400)])
def test_search_identical_to_brute_force_on_real_documents(name, n_queries, n_train, bits):
    Q, T, E = _real_problem(name, n_queries, n_train)
    if bits == 1:
        E = _one_bit(E)
    full = wmd_distances(Q, T, E)
    reference = top_k(-full, 19)
    result = wmd_knn(Q, T, E, k=19)
    assert np.array_equal(result.indices, reference)
    assert np.array_equal(result.distances, np.take_along_axis(full, reference, axis=1))
    assert result.distances[0, 0] == 0 and result.distances[1, 0] == 0  # copies of training documents
    assert np.all(np.isfinite(result.distances[2]))  # a disjoint vocabulary: finite, found like any other
    assert result.n_solved < 0.5 * np.sum(np.isfinite(full))  # pruning at work
    assert result.solved.shape == result.certified.shape == (Q.shape[0],)
    assert np.all(result.solved + result.certified <= T.shape[0])
    # brute force itself against POT on the full problems (no merged locations, no cancelled mass)
    pot = _pot_reference(Q[2:4], T, E)
    finite = np.isfinite(pot)
    assert np.allclose(full[2:4][finite], pot[finite], rtol=1e-9, atol=1e-12)
    # the entropic bound against POT, at the search's regularisation
    bounds = dual_bounds(Q[2:4], T, E, epsilon=0.05 * np.median(result.distances[:, -1]), iterations=10)
    assert np.array_equal(np.isfinite(bounds), finite) and np.all(bounds[finite] <= pot[finite])


@pytest.mark.parametrize("bits", [32, 1])
def test_search_bounds_are_lower_bounds_on_real_documents(bits):
    """Every bound of the search, from its single-precision lower costs – the one-sided RWMD and the seed potentials'
    bounds of every document, the pair bounds and entropic bounds from them – is ≤ the exact WMD on real documents
    (32-bit random vectors and their 1-bit quantization, whose distances tie often)."""
    from regemb_utils.measures import wmd as W

    Q, T, E = _real_problem("bbcsport", 6, 150)
    if bits == 1:
        E = _one_bit(E)
    full = wmd_distances(Q, T, E)
    Qp, Tp, points = W._prepare(Q, T, E)
    collection = W._Collection(Tp, points)
    nonempty = np.flatnonzero(collection.sizes > 0)
    for i in range(Q.shape[0]):
        q_ids, q_w = W._row(Qp, i)
        costs = W._QueryCosts(collection, q_ids)
        lower = costs.lower
        assert np.all(lower.astype(np.float64) <= collection.query_distances(q_ids))
        potentials = []
        for j in np.argsort(full[i])[:5]:  # the nearest documents' optimal potentials, as the search's seeds
            exact_rows, slots = costs.rows(collection.position[collection.indptr[j] : collection.indptr[j + 1]])
            W._exact(collection, q_ids, q_w, exact_rows, slots, j, "pot", potentials)
        F = np.vstack([np.zeros(len(q_ids))] + potentials)
        bound, which, G, A = W._potential_bounds(collection, q_w, lower, F)
        assert np.all(bound <= full[i])
        kth = np.sort(full[i])[18]
        for iterations in (0, 10):
            pair = W._dual(
                collection, q_ids, q_w, lower, nonempty, 0.05 * kth, np.inf, iterations, F, which[nonempty], G, A
            )
            assert np.all(pair <= full[i, nonempty])


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
