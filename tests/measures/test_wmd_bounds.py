"""The pruned WMD search's bounds are lower bounds of the exact WMD, and brute force is its own small definition.

Every bound the search uses is checked against the exact distances on seeded random problems (words at the origin,
words sharing a point, duplicates, disjoint vocabularies, empty documents) and on small real-looking documents with
Zipfian word frequencies; the search's result is checked bit for bit against brute force, ties included.
"""

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial.distance import cdist

from classification_fixtures import make_problem
from regemb_utils.measures import wmd as W
from regemb_utils.measures.representations import nbow_matrix
from regemb_utils.measures.similarity import embedding_matrix


def _random_case(seed):
    """Random counts over 30 words (5 at the origin, 3 at one point), with duplicates, an empty document and a
    document of origin words only; the queries are the first 8 documents."""
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(30, int(rng.integers(2, 9)))) * rng.uniform(0.1, 10)
    E[25:] = 0.0
    E[[3, 4, 5]] = E[3]
    counts = rng.poisson(rng.uniform(0.2, 1.5), size=(40, 30)).astype(float)
    counts[7] = 2.0 * counts[12]  # a rescaled duplicate
    counts[9] = 0.0  # empty
    counts[10] = 0.0
    counts[10, 25:] = 1.0  # words at the origin only
    X = sparse.csr_matrix(counts)
    return X[:8], X, E


def _zipf_case(seed=0):
    documents, dictionary, kv = make_problem(seed=seed, n_docs=150, n_words=150, dim=10, missing=15)
    documents[3] = []
    X = nbow_matrix(documents + [documents[20], documents[20]], dictionary)  # exact ties at the end
    return X[:12], X[12:], embedding_matrix(kv, dictionary, dtype=np.float64)


CASES = [_random_case(seed) for seed in range(6)] + [_zipf_case(0), _zipf_case(1)]


def _setting(Q, T, E, i):
    Qp, Tp, points = W._prepare(Q, T, E)
    collection = W._Collection(Tp, points)
    q_ids, q_w = W._row(Qp, i)
    return collection, q_ids, q_w


@pytest.mark.parametrize("case", range(len(CASES)))
def test_lower_costs_are_below_cdist(case):
    Q, T, E = CASES[case]
    for i in range(Q.shape[0]):
        collection, q_ids, q_w = _setting(Q, T, E, i)
        if len(q_ids):
            costs = W._QueryCosts(collection, q_ids)
            assert np.all(costs.lower.astype(np.float64) <= collection.query_distances(q_ids))
            exact, slots = costs.rows(np.arange(len(collection.words))[::-1].copy())
            assert np.array_equal(exact[slots], collection.query_distances(q_ids)[::-1])  # cdist's rows, bit for bit


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
@pytest.mark.parametrize("dim", [1, 7, 300])
def test_single_precision_lower_costs_are_below_cdist_and_tight(scale, dim):
    """The lower costs come from a float32 matrix product: still ≤ cdist's distances for vectors that float32 cannot
    represent, of any scale and dimension, near-duplicates (the product's cancellation is worst there) and words at
    the origin; and within 10⁻³ relative of them where the distance is not tiny against the norms."""
    rng = np.random.default_rng(dim)
    base = rng.normal(size=(40, dim)) * scale * (1 + rng.random((40, 1)))
    E = np.vstack(
        [
            base,
            base * (1 + 1e-7),
            base + scale * 1e-9 * rng.normal(size=base.shape),
            np.zeros((2, dim)),
            base[:5] + scale * rng.normal(size=(5, dim)) * 1e-3,
        ]
    )
    X = sparse.csr_matrix(np.eye(len(E)))
    for i in (0, 3, 41, 85, 120, 123):
        collection, q_ids, _ = _setting(X[i : i + 3], X, E, 0)
        exact = collection.query_distances(q_ids)
        lower = W._QueryCosts(collection, q_ids).lower.astype(np.float64)
        assert np.all(lower <= exact) and np.all(lower >= 0)
        norms = np.linalg.norm(collection.points, axis=1)[:, None] + np.linalg.norm(collection.E[q_ids], axis=1)
        large = exact > 0.05 * norms
        assert np.all(lower[large] >= exact[large] * (1 - 1e-3))


def test_reduce_dense_is_reduce():
    rng = np.random.default_rng(0)
    for _ in range(300):
        q = np.sort(rng.choice(20, int(rng.integers(1, 10)), replace=False))
        t = np.sort(rng.choice(20, int(rng.integers(1, 10)), replace=False))
        q_w, t_w = rng.dirichlet(np.ones(len(q))), rng.dirichlet(np.ones(len(t)))
        if rng.random() < 0.3:
            shared = np.intersect1d(q, t)
            q_w[np.isin(q, shared)] = 0.1  # equal shared weights: cancelled on both sides
            t_w[np.isin(t, shared)] = 0.1
        rows, a, cols, b = W._reduce(q, q_w, t, t_w)
        dense, dense_cols, dense_b = W._reduce_dense(q, q_w, t, t_w)
        assert np.array_equal(np.flatnonzero(dense > 0), rows) and np.array_equal(dense[rows], a)
        assert np.array_equal(dense_cols, cols) and np.array_equal(dense_b, b)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("iterations", [0, 1, 10])
def test_pair_and_entropic_bounds_are_lower_bounds(case, iterations):
    """The double c-transform of any query potential on the reduced problem (iterations = 0), and the entropic bound
    started from it, with the search's lower costs, never exceed the exact WMD."""
    Q, T, E = CASES[case]
    exact = W.wmd_distances(Q, T, E)
    rng = np.random.default_rng(case)
    for i in range(Q.shape[0]):
        collection, q_ids, q_w = _setting(Q, T, E, i)
        if not len(q_ids):
            continue
        lower = W._QueryCosts(collection, q_ids).lower
        scale = float(lower.max()) + 1.0
        F = np.vstack(
            [
                np.zeros(len(q_ids)),
                rng.normal(scale=scale, size=(3, len(q_ids))),
                collection.query_distances(q_ids).min(axis=0),
            ]
        )
        nonempty = np.flatnonzero(collection.sizes > 0)
        for p in range(-1, len(F)):
            which = np.full(len(nonempty), p, dtype=np.int64)
            finite = exact[i, nonempty]
            for epsilon in (0.01 * scale, scale):
                bounds = W._dual(collection, q_ids, q_w, lower, nonempty, epsilon, np.inf, iterations, F, which)
                assert np.all(bounds >= 0) and np.all(bounds <= finite), (i, p, epsilon)
        # the global potential bounds (the search's first stage) too, and the pair bounds that reuse their
        # c-transforms (G, attained at A): the same numbers as computing them
        bound, best, G, A = W._potential_bounds(collection, q_w, lower, F)
        assert np.all(bound[nonempty] <= exact[i, nonempty]) and np.all(np.isinf(bound[collection.sizes == 0]))
        assert np.array_equal(
            G[np.arange(len(G))[:, None], np.arange(len(F))], np.min(lower[:, None, :] - F[None, :, :], axis=2)
        )
        assert np.array_equal(
            np.take_along_axis(lower[:, None, :] - F[None, :, :], A[:, :, None].astype(np.int64), axis=2)[:, :, 0], G
        )
        which = best[nonempty]
        for iterations_ in {0, iterations}:
            reused = W._dual(collection, q_ids, q_w, lower, nonempty, scale, np.inf, iterations_, F, which, G, A)
            computed = W._dual(collection, q_ids, q_w, lower, nonempty, scale, np.inf, iterations_, F, which)
            assert np.array_equal(reused, computed) and np.all(reused <= exact[i, nonempty])


@pytest.mark.parametrize("case", range(len(CASES)))
def test_search_identical_to_brute_force(case):
    Q, T, E = CASES[case]
    full = W.wmd_distances(Q, T, E)
    for k in (1, 3, 7, 19):
        k = min(k, T.shape[0])
        order = np.lexsort((np.broadcast_to(np.arange(T.shape[0]), full.shape), full), axis=1)[:, :k]
        for settings in ({}, {"seeds": 1, "block": 2}, {"seeds": 40, "max_iterations": 1}, {"epsilon": 5.0}):
            result = W.wmd_knn(Q, T, E, k=k, **settings)
            assert np.array_equal(result.indices, order), (k, settings)
            assert np.array_equal(result.distances, np.take_along_axis(full, order, axis=1)), (k, settings)
        brute = W.wmd_knn(Q, T, E, k=k, prune=False)
        assert np.array_equal(brute.indices, order) and np.array_equal(brute.distances, result.distances)


def test_brute_force_is_its_own_code(monkeypatch):
    """wmd_distances and wmd use only the definition (_prepare, _pair_wmd): none of the search's machinery."""
    Q, T, E = CASES[0]
    expected = W.wmd_distances(Q, T, E)
    for name in ("_Collection", "_QueryCosts", "_query", "_run", "_exact", "_dual", "_potential_bounds"):
        monkeypatch.setattr(W, name, None)
    assert np.array_equal(W.wmd_distances(Q, T, E), expected)
    assert W.wmd(Q[0], T[1], E) == expected[0, 1]
    # and the definition is POT on the reduced problem, with cdist's distances
    Qp, Tp, points = W._prepare(Q, T, E)
    q_ids, q_w = W._row(Qp, 0)
    t_ids, t_w = W._row(Tp, 1)
    distances = cdist(points[q_ids], points)
    assert W._pair_wmd(q_ids, q_w, t_ids, t_w, distances, points, "pot") == expected[0, 1]
