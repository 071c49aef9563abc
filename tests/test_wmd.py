import numpy as np
import pytest
from scipy import sparse

from classification_fixtures import make_problem
from regemb_utils.knn import top_k
from regemb_utils.representations import nbow_matrix
from regemb_utils.similarity import embedding_matrix
from regemb_utils.wmd import ict_bounds, relaxed_wmd, wmd, wmd_distances, wmd_knn, word_centroid_distances


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
