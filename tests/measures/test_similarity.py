import numpy as np
import pytest
from gensim.similarities import SparseTermSimilarityMatrix
from scipy import sparse

from classification_fixtures import make_problem, random_term_matrix
from regemb_utils.text.documents import bow_matrix
from regemb_utils.measures.similarity import (
    cosine_similarity,
    dense_scm,
    embedding_matrix,
    l1_distance,
    sparse_scm,
    unit_rows,
)


def _corpus(matrix):
    matrix = sparse.csr_matrix(matrix)
    return [list(zip(row.indices.tolist(), row.data.tolist())) for row in matrix]


def test_cosine_matches_definition_and_empty_rows():
    documents, dictionary, _ = make_problem(seed=0)
    documents[3] = []
    X = bow_matrix(documents, dictionary)
    sims = cosine_similarity(X[:10], X[10:])
    dense = X.toarray()
    norms = np.linalg.norm(dense, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.nan_to_num(dense[:10] @ dense[10:].T / norms[:10, None] / norms[None, 10:])
    assert np.allclose(sims, expected) and np.all(sims[3] == 0)


def test_dense_scm_equals_explicit_soft_cosine():
    documents, dictionary, kv = make_problem(seed=1, missing=15)
    X = bow_matrix(documents, dictionary)
    E = embedding_matrix(kv, dictionary, dtype=np.float64)
    missing = [i for i, word in dictionary.items() if word not in kv.key_to_index]
    assert len(missing) == 15 and np.all(E[missing] == 0)  # words without embeddings: zero rows
    terms = np.array([missing[0], 7, 3])
    np.testing.assert_array_equal(embedding_matrix(kv, dictionary, dtype=np.float64, terms=terms), E[terms])
    U = unit_rows(E)
    S = U @ U.T  # S_ij = cos(e_i, e_j); zero rows/columns (and diagonal 0) for words without embedding
    x, y = X[:20].toarray(), X[20:].toarray()
    numerator = x @ S @ y.T
    nx = np.sqrt(np.einsum("ij,jk,ik->i", x, S, x))
    ny = np.sqrt(np.einsum("ij,jk,ik->i", y, S, y))
    expected = numerator / nx[:, None] / ny[None, :]
    assert np.allclose(dense_scm(X[:20], X[20:], E, dtype=np.float64), expected, atol=1e-10)
    assert np.allclose(dense_scm(X[:20], X[20:], E), expected, atol=1e-5)  # float32 default


@pytest.mark.parametrize("symmetric", [True, False])
def test_sparse_scm_equals_gensim(symmetric):
    documents, dictionary, _ = make_problem(seed=2, n_docs=80)
    rng = np.random.default_rng(3)
    S = random_term_matrix(rng, len(dictionary), per_column=8)
    if not symmetric:
        S = (S + sparse.random(len(dictionary), len(dictionary), density=0.02, random_state=4) * 0.01).tocsc()
        S = S.astype(np.float32)
    X = bow_matrix(documents, dictionary)
    X = X.multiply(rng.uniform(0.5, 2.0, size=X.shape[1])[None, :]).tocsr()  # non-integer weights
    gensim = SparseTermSimilarityMatrix(S)
    expected = np.asarray(gensim.inner_product(_corpus(X[:30]), _corpus(X[30:]), normalized=(True, True)).todense())
    ours = sparse_scm(X[:30], X[30:], S, clip=True)
    assert np.allclose(ours, expected, atol=2e-6)
    # the dense-GEMM split for frequent terms must not change the values
    everything_dense = sparse_scm(X[:30], X[30:], S, dense_cost_ratio=0.0)
    no_dense = sparse_scm(X[:30], X[30:], S, dense_cost_ratio=None)
    assert np.allclose(everything_dense, no_dense, atol=1e-12)
    assert np.allclose(sparse_scm(X[:30], X[30:], gensim), no_dense)  # accepts gensim's object
    # both paths (dense rows of X S' with the gather product, sparse scatter) and float32 agree with gensim
    for method in ("gather", "scatter"):
        assert np.allclose(sparse_scm(X[:30], X[30:], S, clip=True, method=method), expected, atol=2e-6)
    assert np.allclose(sparse_scm(X[:30], X[30:], S, clip=True, dtype=np.float32), expected, atol=1e-5)


def test_sparse_scm_many_blocks_equals_gensim():
    # more than one 64-row block, a frequent term in the dense GEMM part, terms only X or only Y uses
    documents, dictionary, _ = make_problem(seed=5, n_docs=230)
    rng = np.random.default_rng(6)
    S = random_term_matrix(rng, len(dictionary), per_column=4)
    X = bow_matrix(documents, dictionary).tolil()
    X[:150, 0] = 0.0  # term 0 only in the collection, term 1 only in the queries
    X[150:, 1] = 0.0
    X = X.tocsr()
    X.eliminate_zeros()
    queries, collection = X[:150], X[150:]
    expected = np.asarray(
        SparseTermSimilarityMatrix(S)
        .inner_product(_corpus(queries), _corpus(collection), normalized=(True, True))
        .todense()
    )
    for method in ("auto", "gather", "scatter"):
        sims, info = sparse_scm(queries, collection, S, clip=True, method=method, return_info=True)
        assert np.allclose(sims, expected, atol=2e-6)
    assert info.n_dense_terms > 0
    with pytest.raises(ValueError, match="unknown method"):
        sparse_scm(queries, collection, S, method="dense")


def test_sparse_scm_nonpositive_documents_are_zero_and_counted():
    dictionary_size = 6
    # S' not positive definite: x = e0 - e1 has xᵀS'x = 1 + 1 - 2*1.5 = -1 < 0
    S = sparse.csc_matrix(
        np.array(
            [
                [1.0, 1.5, 0, 0, 0, 0],
                [1.5, 1.0, 0, 0, 0, 0],
                [0, 0, 1.0, 0.2, 0, 0],
                [0, 0, 0.2, 1.0, 0, 0],
                [0, 0, 0, 0, 1.0, 0],
                [0, 0, 0, 0, 0, 1.0],
            ]
        )
    )
    X = sparse.csr_matrix(np.array([[1.0, -1.0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1.0, 1.0, 0, 0]]))
    Y = sparse.csr_matrix(np.array([[0, 0, 1.0, 0, 0, 0], [1.0, 1.0, 0, 0, 0, 0], [0] * dictionary_size]))
    sims, info = sparse_scm(X, Y, S, return_info=True)
    for method in ("gather", "scatter"):
        other, other_info = sparse_scm(X, Y, S, return_info=True, method=method)
        assert np.allclose(other, sims) and list(other_info.x_nonpositive) == [0, 1]
        assert other_info.x_negative == 1 and list(other_info.y_nonpositive) == [2]
    assert sparse_scm(X[:0], Y, S).shape == (0, 3) and sparse_scm(X, Y[:0], S).shape == (3, 0)
    assert np.all(np.isfinite(sims))
    assert np.all(sims[0] == 0) and np.all(sims[1] == 0) and np.all(sims[:, 2] == 0)
    assert list(info.x_nonpositive) == [0, 1] and list(info.y_nonpositive) == [2]
    assert info.x_negative == 1 and info.y_negative == 0
    expected = (1.0 + 0.2) / np.sqrt(2 + 0.4)  # x2 = e2 + e3, y0 = e2
    assert sims[2, 0] == pytest.approx(expected)


def test_l1_distance_equals_scikit_learn_on_random_documents():
    from sklearn.metrics.pairwise import manhattan_distances

    rng = np.random.default_rng(3)
    X = sparse.random(40, 300, density=0.05, format="csr", random_state=rng)
    Y = sparse.random(70, 300, density=0.08, format="csr", random_state=rng)
    X[3] = 0  # an empty document: its distance is ‖y‖₁
    X.eliminate_zeros()
    np.testing.assert_allclose(l1_distance(X, Y), manhattan_distances(X, Y), rtol=0, atol=1e-12)
    self_distances = l1_distance(Y, Y)
    assert self_distances.min() >= 0 and np.diag(self_distances).max() <= 1e-12  # no rounding residue below zero
    signed = X.copy()
    signed.data[::2] *= -1  # negative entries: the scikit-learn path
    np.testing.assert_allclose(l1_distance(signed, Y), manhattan_distances(signed, Y), atol=1e-12)


def test_l1_distance_of_a_pair_and_of_an_empty_document():
    X = sparse.csr_matrix(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]]))
    Y = sparse.csr_matrix(np.array([[0.0, 0.5, 0.5]]))
    assert np.allclose(l1_distance(X, Y), [[1.0], [1.0]])
    with pytest.raises(ValueError, match="columns"):
        cosine_similarity(X, sparse.csr_matrix((1, 4)))


# ----------------------------------------------------------------------------------------------------------------
# one pair, word pair by word pair (chapter 4's example)


def test_scm_contributions_sum_to_dense_scm_and_gensim():
    from gensim.similarities import SoftCosineSimilarity

    from regemb_utils.measures.similarity import cosine_term_similarity, scm_contributions

    documents, dictionary, kv = make_problem(seed=7, n_words=50, dim=6, missing=5)
    X = bow_matrix([documents[0] + ["w47"], documents[1]], dictionary)  # w47 has no embedding
    x, y = X[0], X[1]
    E = embedding_matrix(kv, dictionary, dtype=np.float64)
    S = cosine_term_similarity(E)
    missing, embedded = dictionary.token2id["w47"], dictionary.token2id["w3"]
    assert S[missing, missing] == 0 and S[embedded, embedded] == pytest.approx(1.0)
    part = scm_contributions(x, y, S)
    assert part.total == pytest.approx(float(dense_scm(x, y, E, dtype=np.float64)[0, 0]), abs=1e-12)
    gensim = SparseTermSimilarityMatrix(sparse.csc_matrix(S))
    assert part.total == pytest.approx(
        float(gensim.inner_product(_corpus(x)[0], _corpus(y)[0], normalized=(True, True))), abs=1e-9
    )
    assert part.total == pytest.approx(float(SoftCosineSimilarity(_corpus(y), gensim)[_corpus(x)[0]][0]), abs=1e-6)
    i, j = 1, 2  # one entry by the definition
    xd, yd = x.toarray().ravel(), y.toarray().ravel()
    expected = (
        xd[x.indices[i]]
        * S[x.indices[i], y.indices[j]]
        * yd[y.indices[j]]
        / np.sqrt(xd @ S @ xd)
        / np.sqrt(yd @ S @ yd)
    )
    assert part.contributions[i, j] == pytest.approx(expected, rel=1e-12)
    assert np.all(part.contributions[list(x.indices).index(missing)] == 0)  # no embedding: no share under S


@pytest.mark.parametrize("symmetric", [True, False])
def test_scm_contributions_sum_to_sparse_scm_and_gensim(symmetric):
    from regemb_utils.measures.similarity import scm_contributions

    documents, dictionary, _ = make_problem(seed=8, n_words=60)
    rng = np.random.default_rng(9)
    S = random_term_matrix(rng, len(dictionary), per_column=6).astype(np.float64)
    if not symmetric:
        S = (S + sparse.random(len(dictionary), len(dictionary), density=0.05, random_state=10) * 0.05).tocsc()
    X = bow_matrix(documents[:2], dictionary).multiply(rng.uniform(0.5, 2.0, size=len(dictionary))).tocsr()
    part = scm_contributions(X[0], X[1], S)
    assert part.total == pytest.approx(float(sparse_scm(X[0], X[1], S)[0, 0]), abs=1e-12)
    gensim = SparseTermSimilarityMatrix(S)
    assert part.total == pytest.approx(
        float(gensim.inner_product(_corpus(X[0])[0], _corpus(X[1])[0], normalized=(True, True))), abs=1e-6
    )
    assert scm_contributions(X[0], X[1], gensim).total == pytest.approx(part.total, abs=1e-12)  # gensim's object
    assert np.count_nonzero(part.contributions) < part.contributions.size  # a sparse S' zeroes pairs


def test_scm_contributions_refuse_bad_input():
    from regemb_utils.measures.similarity import cosine_term_similarity, scm_contributions

    documents, dictionary, kv = make_problem(seed=7, n_words=50, dim=6, missing=5)
    X = bow_matrix([documents[0], documents[1], ["w46", "w48"], []], dictionary)  # w45-w49: no embedding
    S = cosine_term_similarity(embedding_matrix(kv, dictionary, dtype=np.float64))
    with pytest.raises(ValueError, match="no word with a weight"):
        scm_contributions(X[3], X[1], S)
    with pytest.raises(ValueError, match="xᵀSx = 0"):
        scm_contributions(X[2], X[1], S)  # only words without an embedding
    with pytest.raises(ValueError, match="shape"):
        scm_contributions(X[0], X[1], S[:-1, :-1])
    with pytest.raises(ValueError, match="columns"):
        scm_contributions(X[0], X[1][:, :-1], S)


def _frequent_term_problem(seed, n_docs=300, n_terms=400):
    """Documents with a few terms in most of them (the dense part), a long tail, unsorted indices in X."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_terms + 1)
    p /= p.sum()
    rows, cols = [], []
    for i in range(n_docs):
        terms = np.unique(rng.choice(n_terms, size=25, p=p))
        rows += [i] * len(terms)
        cols += terms.tolist()
    data = rng.uniform(0.5, 3.0, size=len(rows))
    X = sparse.csr_matrix((data, (rows, cols)), shape=(n_docs, n_terms))
    X[5] = 0.0  # an empty document
    X.eliminate_zeros()
    S = random_term_matrix(rng, n_terms, per_column=12)
    return X, S


def test_sparse_scm_equals_the_reference_with_any_threads():
    """Both paths, float64 and float32, one and two threads, against the definition (reference_sparse_scm); the
    thread count never changes a value (bit for bit); unsorted indices of X give the same values up to rounding."""
    from regemb_utils.measures.similarity import reference_sparse_scm

    X, S = _frequent_term_problem(7)
    queries, collection = X[:200], X[200:]
    expected = reference_sparse_scm(queries, collection, S)
    for method in ("auto", "gather", "scatter"):
        results = {}
        for n_threads in (1, 2):
            ours, info = sparse_scm(queries, collection, S, method=method, n_threads=n_threads, return_info=True)
            assert np.allclose(ours, expected, atol=1e-12)
            single = sparse_scm(queries, collection, S, method=method, n_threads=n_threads, dtype=np.float32)
            assert single.dtype == np.float32 and np.allclose(single, expected, atol=2e-6)
            results[n_threads] = (ours, single)
        assert np.array_equal(results[1][0], results[2][0]) and np.array_equal(results[1][1], results[2][1])
    assert info.n_dense_terms > 0 and info.x_nonpositive.tolist() == [5]
    shuffled = queries.copy()
    for i in range(shuffled.shape[0]):  # reverse every row's stored order
        a, b = shuffled.indptr[i], shuffled.indptr[i + 1]
        shuffled.indices[a:b] = shuffled.indices[a:b][::-1].copy()
        shuffled.data[a:b] = shuffled.data[a:b][::-1].copy()
    shuffled.has_sorted_indices = False
    assert np.allclose(sparse_scm(shuffled, collection, S, method="gather"), expected, atol=1e-12)


def test_sparse_scm_chunks_of_terms_change_no_value(monkeypatch):
    """The gather path forms and reads Zᵀ one chunk of terms at a time: with chunks of a few terms (many chunks of
    heavy, light and X-only terms) every value is the same, bit for bit, as with one chunk, and the definition's."""
    from regemb_utils.measures import similarity
    from regemb_utils.measures.similarity import reference_sparse_scm

    X, S = _frequent_term_problem(9)
    queries, collection = X[:150], X[150:260]  # the later documents' terms include some that only X uses
    expected = reference_sparse_scm(queries, collection, S)
    for dtype in (np.float64, np.float32):
        whole = sparse_scm(queries, collection, S, dtype=dtype, method="gather")
        for chunk in (1, 7):  # terms per chunk
            monkeypatch.setattr(similarity, "_CHUNK_BYTES", chunk * 64 * np.dtype(dtype).itemsize)
            for n_threads in (1, 2):
                assert np.array_equal(
                    sparse_scm(queries, collection, S, dtype=dtype, method="gather", n_threads=n_threads), whole
                )
            monkeypatch.undo()
        assert np.allclose(whole, expected, atol=1e-12 if dtype == np.float64 else 2e-6)


def test_sparse_scm_dense_part_equals_no_dense_part():
    """The heavy terms' dense product (numba, registers) and the gather over the same terms agree."""
    X, S = _frequent_term_problem(8)
    for dtype, atol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        dense = sparse_scm(X[:100], X[100:], S, dtype=dtype, dense_cost_ratio=0.0, method="gather")
        sparse_only = sparse_scm(X[:100], X[100:], S, dtype=dtype, dense_cost_ratio=None, method="gather")
        assert np.allclose(dense, sparse_only, atol=atol)
