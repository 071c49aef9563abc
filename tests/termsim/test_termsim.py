"""Tests of regemb_utils.termsim.matrix (neighbour cache + fast matrix builder) and regemb_utils.termsim.cholesky."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors, TfidfModel
from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex
from scipy import sparse

from regemb_utils.termsim.cholesky import dense_orthogonalized, inner_product_errors, orthogonalized_embeddings
from regemb_utils.termsim.matrix import (
    TermSimilarityBuilder,
    column_order,
    nearest_neighbours,
    neighbours_from_gensim,
)

K = 60
_BUILDERS: dict = {}


def term_similarity_matrix(neighbours, dictionary, tfidf=None, **kwargs):
    """S' from one builder per (neighbour cache, dictionary, tf-idf model) of this module's settings."""
    key = (id(neighbours), id(dictionary), id(tfidf))
    if key not in _BUILDERS:
        _BUILDERS[key] = (neighbours, dictionary, tfidf, TermSimilarityBuilder(neighbours, dictionary, tfidf))
    return _BUILDERS[key][3].build(**kwargs)


@pytest.fixture(scope="module")
def setting():
    """Clustered random embeddings (so that similarities are large and dominance matters), a dictionary over a
    superset of the embedded words (300 words without an embedding; 100 embedded words and `</s>` outside the
    dictionary), Zipf-like documents (many idf ties) and a tf-idf model."""
    rng = np.random.default_rng(0)
    n_emb, d = 1500, 16
    centers = rng.normal(size=(40, d))
    vectors = (centers[rng.integers(0, 40, n_emb)] + 0.6 * rng.normal(size=(n_emb, d))).astype(np.float32)
    emb_words = [f"w{i}" for i in range(n_emb)]
    kv = KeyedVectors(d)
    kv.add_vectors(emb_words + ["</s>"], np.vstack([vectors, rng.normal(size=(1, d)).astype(np.float32)]))
    vocab = emb_words[:1400] + [f"x{i}" for i in range(300)]
    p = 1.0 / np.arange(1, len(vocab) + 1) ** 0.8
    p /= p.sum()
    perm = rng.permutation(len(vocab))
    docs = [[vocab[perm[j]] for j in rng.choice(len(vocab), size=30, p=p)] for _ in range(400)]
    docs.append(vocab)
    dictionary = Dictionary(docs)
    tfidf = TfidfModel(dictionary=dictionary)
    fast = nearest_neighbours(kv, list(dictionary.token2id), depth=K, progress=False)
    exact = neighbours_from_gensim(kv, list(dictionary.token2id), depth=K)

    # gensim's reference matrices, memoising kv.most_similar (its results are unchanged, only computed once)
    calls = {}
    original = kv.most_similar

    def most_similar(positive=None, topn=10, **kwargs):
        key = (positive[0], int(topn))
        if key not in calls:
            calls[key] = original(positive=positive, topn=topn, **kwargs)
        return calls[key]

    kv.most_similar = most_similar
    return dict(kv=kv, dictionary=dictionary, tfidf=tfidf, fast=fast, exact=exact)


def gensim_matrix(s, tfidf, symmetric, dominant, nonzero_limit, threshold, exponent):
    index = WordEmbeddingSimilarityIndex(s["kv"], threshold=threshold, exponent=exponent)
    return SparseTermSimilarityMatrix(
        index,
        s["dictionary"],
        tfidf,
        symmetric=symmetric,
        dominant=dominant,
        nonzero_limit=nonzero_limit,
        dtype=np.float32,
    ).matrix


def assert_same(ours, ref, atol=0.0):
    ref = ref.tocsc()
    ref.sort_indices()
    assert ours.format == "csc" and ours.dtype == np.float32 and ours.shape == ref.shape
    assert ours.nnz == ref.nnz
    assert np.array_equal(ours.indptr, ref.indptr)
    assert np.array_equal(ours.indices, ref.indices)
    np.testing.assert_allclose(ours.data, ref.data, rtol=0, atol=atol)


# ------------------------------------------------------------------------------------------------ the cache
def test_cache_equals_brute_force(setting):
    kv, fast = setting["kv"], setting["fast"]
    unit = kv.vectors / np.linalg.norm(kv.vectors, axis=1, keepdims=True)
    query = np.array([kv.key_to_index[w] for w in fast.words])
    sims = unit[query].astype(np.float64) @ unit.T.astype(np.float64)
    sims[np.arange(len(query)), query] = -np.inf
    order = np.argsort(-sims, axis=1, kind="stable")[:, :K]
    assert fast.indices.dtype == np.int32 and fast.similarities.dtype == np.float32
    assert fast.indices.shape == (len(fast.words), K)
    np.testing.assert_allclose(fast.similarities, np.take_along_axis(sims, order, 1), atol=1e-6)
    # the same neighbours, except where two similarities are closer than float32 rounding
    differ = fast.indices != order
    gaps = np.abs(np.take_along_axis(sims, fast.indices.astype(np.int64), 1) - np.take_along_axis(sims, order, 1))
    assert np.all(gaps[differ] < 1e-6)
    assert differ.mean() < 0.01
    # sorted by similarity, ties by index; never the word itself
    assert np.all(np.diff(fast.similarities, axis=1) <= 0)
    assert not np.any(fast.indices == query[:, None])


def test_cache_ties_by_index():
    kv = KeyedVectors(2)
    vectors = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [1, 1], [-1, 0]], dtype=np.float32)
    kv.add_vectors([f"t{i}" for i in range(6)], vectors)
    nb = nearest_neighbours(kv, None, depth=3, progress=False, block_size=2)
    assert nb.indices[0].tolist() == [1, 2, 4]
    assert nb.indices[1].tolist() == [0, 2, 4]
    assert nb.indices[3].tolist() == [4, 0, 1]


def test_cache_matches_gensim_most_similar(setting):
    fast, exact = setting["fast"], setting["exact"]
    assert (fast.indices == exact.indices).mean() > 0.99
    np.testing.assert_allclose(fast.similarities, exact.similarities, atol=1e-6)


# ------------------------------------------------------------------------------------------------ fill_rule="gensim"
GRID = list(itertools.product([True, False], [True, False], [1, 3, 10, 50], [-1.0, 0.0, 0.3], [1, 2, 4]))


@pytest.mark.parametrize("use_tfidf", [True, False])
def test_gensim_rule_equals_gensim_exactly(setting, use_tfidf):
    """With the cache filled by gensim's own most_similar, the matrices are identical to gensim's."""
    tfidf = setting["tfidf"] if use_tfidf else None
    for symmetric, dominant, nonzero_limit, threshold, exponent in GRID:
        ref = gensim_matrix(setting, tfidf, symmetric, dominant, nonzero_limit, threshold, exponent)
        ours = term_similarity_matrix(
            setting["exact"],
            setting["dictionary"],
            tfidf,
            nonzero_limit=nonzero_limit,
            threshold=threshold,
            exponent=exponent,
            symmetric=symmetric,
            dominant=dominant,
            fill_rule="gensim",
        )
        assert_same(ours, ref)


def test_gensim_rule_with_fast_cache_is_nearly_gensim(setting):
    """The fast cache's similarities differ from gensim's in the last float32 bit; decisions taken exactly at a
    threshold, a dominance bound or a tie may then flip, but rarely."""
    tfidf = setting["tfidf"]
    mismatched_entries = total = 0
    for symmetric, dominant, nonzero_limit, threshold, exponent in GRID[::3]:
        ref = gensim_matrix(setting, tfidf, symmetric, dominant, nonzero_limit, threshold, exponent)
        ours = term_similarity_matrix(
            setting["fast"],
            setting["dictionary"],
            tfidf,
            nonzero_limit=nonzero_limit,
            threshold=threshold,
            exponent=exponent,
            symmetric=symmetric,
            dominant=dominant,
            fill_rule="gensim",
        )
        mismatched_entries += (abs(ours - ref) > 1e-6).nnz
        total += ref.nnz
    assert mismatched_entries <= 0.01 * total


# ------------------------------------------------------------------------------------------------ fill_rule="paper"
def paper_reference(neighbours, dictionary, tfidf, symmetric, dominant, nonzero_limit, threshold, exponent):
    """A plain transcription of the fork's loop (gensim 3.7/3.8 `SparseTermSimilarityMatrix.__init__` with
    `break` on dominance), fed by the cache as `most_similar` (top `topn` over the whole vocabulary, then the
    threshold and the exponent). numpy 1.16 promoted `float32 + float` to float64, hence the explicit float()."""
    n = len(dictionary)
    rows_of = neighbours.row_of

    def most_similar(term, topn):
        if term not in rows_of:
            return []
        row = rows_of[term]
        out = []
        for index, similarity in zip(neighbours.indices[row][:topn], neighbours.similarities[row][:topn]):
            similarity = float(similarity)
            if similarity > threshold:
                out.append((neighbours.keys[index], similarity**exponent))
        return out

    if tfidf is None:
        columns = sorted(dictionary.keys())
    else:
        columns = [i for i, _ in sorted(tfidf.idfs.items(), key=lambda x: (x[1], -x[0]), reverse=True)]
    column_nonzero = np.zeros(n, dtype=np.int64)
    column_sum = np.zeros(n, dtype=np.float32)
    assigned = set()
    entries = {(i, i): 1.0 for i in range(n)}
    for t1 in columns:
        num_rows = nonzero_limit - column_nonzero[t1]
        candidates = (
            [(dictionary.token2id[t], s) for t, s in most_similar(dictionary[t1], num_rows) if t in dictionary.token2id]
            if num_rows > 0
            else []
        )
        if tfidf is None:
            rows = sorted(candidates)
        else:
            rows = sorted(candidates, key=lambda x: (tfidf.idfs[x[0]], -x[0]), reverse=True)
        for _, (t2, similarity) in zip(range(num_rows), rows):
            if dominant and float(column_sum[t1]) + abs(similarity) >= 1.0:
                break
            if symmetric:
                if (
                    column_nonzero[t2] < nonzero_limit
                    and (not dominant or float(column_sum[t2]) + abs(similarity) < 1.0)
                    and (t1, t2) not in assigned
                ):
                    assigned.add((t1, t2))
                    assigned.add((t2, t1))
                    entries[(t2, t1)] = similarity  # row t2, column t1
                    entries[(t1, t2)] = similarity
                    column_nonzero[t1] += 1
                    column_nonzero[t2] += 1
                    if dominant:
                        column_sum[t1] = float(column_sum[t1]) + abs(similarity)
                        column_sum[t2] = float(column_sum[t2]) + abs(similarity)
            else:
                entries[(t2, t1)] = similarity
                column_nonzero[t1] += 1
                if dominant:
                    column_sum[t1] = float(column_sum[t1]) + abs(similarity)
    (r, c), v = zip(*entries.keys()), list(entries.values())
    return sparse.coo_matrix((np.array(v, dtype=np.float32), (r, c)), shape=(n, n)).tocsc()


@pytest.mark.parametrize("use_tfidf", [True, False])
def test_paper_rule_equals_transcription(setting, use_tfidf):
    tfidf = setting["tfidf"] if use_tfidf else None
    for symmetric, dominant, nonzero_limit, threshold, exponent in GRID[::2] + [(True, True, 50, -1.0, 1)]:
        ref = paper_reference(
            setting["fast"], setting["dictionary"], tfidf, symmetric, dominant, nonzero_limit, threshold, exponent
        )
        ours = term_similarity_matrix(
            setting["fast"],
            setting["dictionary"],
            tfidf,
            nonzero_limit=nonzero_limit,
            threshold=threshold,
            exponent=exponent,
            symmetric=symmetric,
            dominant=dominant,
            fill_rule="paper",
        )
        assert_same(ours, ref)


def test_paper_and_gensim_rules_differ_only_with_dominance(setting):
    s = setting
    kwargs = dict(nonzero_limit=50, threshold=-1.0, exponent=1)
    for symmetric in (True, False):
        a = term_similarity_matrix(
            s["fast"], s["dictionary"], s["tfidf"], symmetric=symmetric, dominant=False, fill_rule="paper", **kwargs
        )
        b = term_similarity_matrix(
            s["fast"], s["dictionary"], s["tfidf"], symmetric=symmetric, dominant=False, fill_rule="gensim", **kwargs
        )
        assert (a != b).nnz == 0
        a = term_similarity_matrix(
            s["fast"], s["dictionary"], s["tfidf"], symmetric=symmetric, dominant=True, fill_rule="paper", **kwargs
        )
        b = term_similarity_matrix(
            s["fast"], s["dictionary"], s["tfidf"], symmetric=symmetric, dominant=True, fill_rule="gensim", **kwargs
        )
        assert a.nnz < b.nnz  # break stops a column early, continue keeps trying


# ------------------------------------------------------------------------------------------------ properties
@pytest.mark.parametrize("rule", ["paper", "gensim"])
def test_structural_properties(setting, rule):
    s = setting
    n = len(s["dictionary"])
    without_embedding = [i for t, i in s["dictionary"].token2id.items() if t not in s["kv"].key_to_index]
    assert len(without_embedding) == 300
    for symmetric, dominant, nonzero_limit in itertools.product([True, False], [True, False], [1, 10, 50]):
        S = term_similarity_matrix(
            s["fast"],
            s["dictionary"],
            s["tfidf"],
            nonzero_limit=nonzero_limit,
            threshold=-1.0,
            exponent=1,
            symmetric=symmetric,
            dominant=dominant,
            fill_rule=rule,
        )
        assert S.shape == (n, n) and S.has_sorted_indices
        assert np.all(S.diagonal() == 1.0)
        off = S - sparse.diags(S.diagonal())
        off.eliminate_zeros()
        assert np.diff(off.indptr).max() <= nonzero_limit  # nonzero_limit counts off-diagonal entries per column
        if symmetric:
            assert (S != S.T).nnz == 0
        if dominant:  # strict column diagonal dominance
            assert np.all(np.asarray(abs(off).sum(axis=0)).ravel() < 1.0)
        # words without an embedding keep only their diagonal
        sub = S[:, without_embedding]
        assert sub.nnz == len(without_embedding)
        sub = S[without_embedding, :]
        assert sub.nnz == len(without_embedding)


def test_column_order(setting):
    d, tfidf = setting["dictionary"], setting["tfidf"]
    expected = sorted(tfidf.idfs, key=lambda i: (-tfidf.idfs[i], i))
    assert column_order(d, tfidf).tolist() == expected
    assert column_order(d, None).tolist() == list(range(len(d)))


def test_builder_reuse_and_float_exponent(setting):
    s = setting
    builder = TermSimilarityBuilder(s["fast"], s["dictionary"], s["tfidf"])
    for exponent in (3, 2.5, 3):
        a = builder.build(20, 0.0, exponent, symmetric=True, dominant=True, fill_rule="gensim")
        b = builder.build(20, 0.0, exponent, symmetric=True, dominant=True, fill_rule="gensim", memoise_powers=False)
        assert_same(a, b)
        c = gensim_matrix(s, s["tfidf"], True, True, 20, 0.0, exponent)
        assert (abs(a - c) > 1e-6).nnz <= 0.01 * c.nnz


# ------------------------------------------------------------------------------------------------ the reference
SMALL_GRID = list(itertools.product([True, False], [True, False], [3, 50], [-1.0, 0.3], [1, 2.5]))
SMALL_GRID = [point for point in SMALL_GRID if not (point[3] < 0 and point[4] != int(point[4]))]


@pytest.mark.parametrize("use_tfidf", [True, False])
def test_reference_equals_gensim_and_the_transcription(setting, use_tfidf):
    """The plain definition (regemb_utils.termsim.reference) is gensim's matrix (rule "gensim", gensim's own
    similarities) and the fork's (rule "paper", the test's transcription)."""
    from regemb_utils.termsim.reference import reference_term_similarity_matrix

    tfidf = setting["tfidf"] if use_tfidf else None
    for symmetric, dominant, nonzero_limit, threshold, exponent in GRID[::7]:
        kwargs = dict(
            nonzero_limit=nonzero_limit, threshold=threshold, exponent=exponent, symmetric=symmetric, dominant=dominant
        )
        assert_same(
            reference_term_similarity_matrix(
                setting["exact"], setting["dictionary"], tfidf, fill_rule="gensim", **kwargs
            ),
            gensim_matrix(setting, tfidf, symmetric, dominant, nonzero_limit, threshold, exponent),
        )
        assert_same(
            reference_term_similarity_matrix(
                setting["fast"], setting["dictionary"], tfidf, fill_rule="paper", **kwargs
            ),
            paper_reference(
                setting["fast"], setting["dictionary"], tfidf, symmetric, dominant, nonzero_limit, threshold, exponent
            ),
        )


@pytest.mark.parametrize("rule", ["paper", "gensim"])
def test_shared_builder_equals_reference_and_a_builder_per_point(setting, rule):
    """Every point of a small grid, built one after another by one builder per dictionary (the shared column-order
    arrays, the memoised powers), equals the reference and a fresh builder's matrix for that point alone."""
    from regemb_utils.termsim.reference import reference_term_similarity_matrix

    s = setting
    shared = {
        idf: TermSimilarityBuilder(s["fast"], s["dictionary"], s["tfidf"] if idf else None) for idf in (True, False)
    }
    for idf in (True, False):
        tfidf = s["tfidf"] if idf else None
        for symmetric, dominant, nonzero_limit, threshold, exponent in SMALL_GRID:
            kwargs = dict(symmetric=symmetric, dominant=dominant, fill_rule=rule)
            ours = shared[idf].build(nonzero_limit, threshold, exponent, **kwargs)
            alone = TermSimilarityBuilder(s["fast"], s["dictionary"], tfidf).build(
                nonzero_limit, threshold, exponent, memoise_powers=False, **kwargs
            )
            assert_same(ours, alone)
            assert_same(
                ours,
                reference_term_similarity_matrix(
                    s["fast"],
                    s["dictionary"],
                    tfidf,
                    nonzero_limit=nonzero_limit,
                    threshold=threshold,
                    exponent=exponent,
                    **kwargs,
                ),
            )


@pytest.mark.parametrize("kept_bytes", [1 << 30, 0])
def test_grid_points_sharing_matrices_equal_points_built_alone(setting, kept_bytes, monkeypatch):
    """The paper grid's order (Sym, Dom, C, t, o) on one builder, with thresholds below every neighbour's cosine
    (they filter nothing and share one matrix) and exponents that share one choice of entries without Dom: every
    point equals a fresh builder's matrix for that point alone, and changing a returned matrix changes no later
    one; also when the builder keeps no matrix but the one it derives the others from."""
    from regemb_utils.termsim import matrix

    monkeypatch.setattr(matrix, "_KEPT_BYTES", kept_bytes)
    s = setting
    builder = TermSimilarityBuilder(s["fast"], s["dictionary"], s["tfidf"])
    similarities = s["fast"].similarities
    assert similarities.min() > 0.0 and similarities[:, :3].min() < 0.6  # -1 and 0 filter nothing here; 0.6 does
    for symmetric, dominant, nonzero_limit, threshold, exponent in itertools.product(
        [True, False], [True, False], [50, 3], [-1.0, 0.0, 0.6], [1, 2, 3]
    ):
        kwargs = dict(symmetric=symmetric, dominant=dominant, fill_rule="paper")
        ours = builder.build(nonzero_limit, threshold, exponent, **kwargs)
        alone = TermSimilarityBuilder(s["fast"], s["dictionary"], s["tfidf"]).build(
            nonzero_limit, threshold, exponent, memoise_powers=False, **kwargs
        )
        assert_same(ours, alone)
        ours.data[:] = -7.0  # a caller's change stays in its copy
        ours.indices[:] = 0


@pytest.mark.parametrize("exponent", [1.0, 2.0, 3.0, 4.0, 2.5])
def test_powers_remembered_by_cosine_equal_python_pow(exponent):
    """The powers of the cosines, remembered per cosine (few distinct 1-bit cosines, many distinct float ones that
    share a slot, the unit diagonal), equal CPython's ``float(s) ** exponent`` bit for bit."""
    from regemb_utils.termsim.matrix import _powers, _raised

    rng = np.random.default_rng(1)
    lattice = ((1000 - 2 * rng.integers(0, 1001, 3000)) / 1000).astype(np.float32)  # 1-bit cosines, repeated
    floats = rng.uniform(-1.0, 1.0, 3000).astype(np.float32)
    cosines = np.concatenate([lattice, floats, np.float32([1.0, -1.0, 0.0])])
    if exponent != int(exponent):
        cosines = np.abs(cosines)
    expected = np.array([float(s) ** exponent for s in cosines])
    for remember in (True, False):
        assert np.array_equal(_powers(cosines.reshape(-1, 1), exponent, remember).ravel(), expected)
        assert np.array_equal(_raised(cosines, exponent, np.empty_like(cosines), remember), expected.astype(np.float32))


def test_builder_with_few_neighbours_in_the_dictionary():
    """Most neighbours outside the dictionary (as with a large embedding vocabulary), idf ties, a word whose
    neighbours are all outside: the fast builder equals the reference at every C of the cache."""
    from regemb_utils.termsim.reference import reference_term_similarity_matrix

    rng = np.random.default_rng(5)
    n_emb, d = 600, 8
    kv = KeyedVectors(d)
    kv.add_vectors([f"e{i}" for i in range(n_emb)], rng.normal(size=(n_emb, d)).astype(np.float32))
    words = [f"e{i}" for i in range(0, n_emb, 5)] + ["missing"]
    docs = [list(rng.choice(words, size=6)) for _ in range(50)] + [words]
    dictionary = Dictionary(docs)
    tfidf = TfidfModel(dictionary=dictionary)
    neighbours = nearest_neighbours(kv, list(dictionary.token2id), depth=40, progress=False)
    for idf in (True, False):
        builder = TermSimilarityBuilder(neighbours, dictionary, tfidf if idf else None)
        for symmetric, dominant, nonzero_limit, rule in itertools.product(
            [True, False], [True, False], [1, 5, 40], ["paper", "gensim"]
        ):
            kwargs = dict(
                nonzero_limit=nonzero_limit,
                threshold=-1.0,
                exponent=1.0,
                symmetric=symmetric,
                dominant=dominant,
                fill_rule=rule,
            )
            assert_same(
                builder.build(nonzero_limit, -1.0, 1.0, symmetric=symmetric, dominant=dominant, fill_rule=rule),
                reference_term_similarity_matrix(neighbours, dictionary, tfidf if idf else None, **kwargs),
            )


# ------------------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(nonzero_limit=0), "nonzero_limit must be at least 1"),
        (dict(nonzero_limit=K + 1), "exceeds the neighbour cache"),
        (dict(exponent=0), "exponent must be positive"),
        (dict(exponent=-1.0), "exponent must be positive"),
        (dict(fill_rule="fork"), "unknown fill rule 'fork'; allowed: paper, gensim"),
        (dict(threshold=1.5), r"threshold must lie in \[-1, 1\]"),
        (dict(threshold=-1.01), r"threshold must lie in \[-1, 1\]"),
        (dict(threshold=-0.5, exponent=1.5), "non-integer exponent"),
    ],
)
def test_bad_parameters(setting, kwargs, message):
    kwargs = {"nonzero_limit": 10, **kwargs}
    with pytest.raises(ValueError, match=message):
        term_similarity_matrix(setting["fast"], setting["dictionary"], setting["tfidf"], **kwargs)


def test_cache_must_cover_dictionary(setting):
    partial = nearest_neighbours(setting["kv"], ["w1", "w2"], depth=5, progress=False)
    with pytest.raises(ValueError, match="no row in the neighbour cache"):
        term_similarity_matrix(partial, setting["dictionary"], setting["tfidf"], nonzero_limit=5)


# ------------------------------------------------------------------------------------------------ Cholesky
@pytest.fixture(scope="module")
def theorem_matrix(setting):
    return term_similarity_matrix(
        setting["fast"],
        setting["dictionary"],
        setting["tfidf"],
        nonzero_limit=50,
        threshold=-1.0,
        exponent=1,
        symmetric=True,
        dominant=True,
        fill_rule="paper",
    )


def test_cholesky_reconstructs_S(theorem_matrix):
    S = theorem_matrix
    E, info = orthogonalized_embeddings(S)
    assert info.ok and info.reason is None and E is not None
    assert E.shape == S.shape
    assert abs(E @ E.T - S).max() < 1e-6


def test_theorem_1(setting, theorem_matrix):
    """t=-1, o=1, Sym, Dom: ⟨e'_i, e'_j⟩ = s'_ij = ⟨e_i, e_j⟩ (unit embeddings) for every stored entry."""
    S = theorem_matrix
    E, info = orthogonalized_embeddings(S)
    assert inner_product_errors(S, E)["max"] < 1e-6
    kv, d = setting["kv"], setting["dictionary"]
    unit = kv.vectors / np.linalg.norm(kv.vectors, axis=1, keepdims=True)
    coo = sparse.triu(S, k=1).tocoo()
    vi = unit[[kv.key_to_index[d[i]] for i in coo.row]]
    vj = unit[[kv.key_to_index[d[j]] for j in coo.col]]
    np.testing.assert_allclose(coo.data, np.einsum("ij,ij->i", vi, vj), atol=1e-6)


def test_not_positive_definite_is_reported(setting):
    S = term_similarity_matrix(
        setting["fast"],
        setting["dictionary"],
        setting["tfidf"],
        nonzero_limit=50,
        threshold=0.0,
        exponent=1,
        symmetric=True,
        dominant=False,
        fill_rule="paper",
    )
    E, info = orthogonalized_embeddings(S)
    assert E is None and not info.ok and "not positive definite" in info.reason
    asymmetric = term_similarity_matrix(
        setting["fast"], setting["dictionary"], setting["tfidf"], nonzero_limit=5, symmetric=False
    )
    E, info = orthogonalized_embeddings(asymmetric)
    assert E is None and "not symmetric" in info.reason


def test_dense_orthogonalized(theorem_matrix):
    S = theorem_matrix
    E, _ = orthogonalized_embeddings(S)
    errors = {}
    for dims in (50, 400):
        X = dense_orthogonalized(E, dims)
        assert X.shape == (S.shape[0], dims)
        errors[dims] = inner_product_errors(S, X)
        assert 0 <= errors[dims]["mean"] <= errors[dims]["max"]
    assert errors[400]["mean"] < errors[50]["mean"]


def test_neighbour_ties_of_quantized_vectors_take_the_smallest_indices():
    """1-bit vectors have few distinct cosines, so most rows tie at the k-th place. With 64 dimensions every
    cosine is exact in float32, so the cache must equal a stable brute-force sort (similarity, then index)."""
    from gensim.models import KeyedVectors

    from regemb_utils.termsim.matrix import nearest_neighbours

    rng = np.random.default_rng(0)
    n, d, k = 3000, 64, 25
    vectors = np.where(rng.standard_normal((n, d)) >= 0, 1 / 3, -1 / 3).astype(np.float32)
    kv = KeyedVectors(d)
    kv.add_vectors([f"w{i}" for i in range(n)], vectors)
    cache = nearest_neighbours(kv, depth=k, block_size=512, progress=False)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(0, n, 7):
        similarities = unit[i] @ unit.T
        similarities[i] = -np.inf
        expected = np.lexsort((np.arange(n), -similarities))[:k]
        np.testing.assert_array_equal(cache.indices[i], expected)


@pytest.mark.parametrize("dimensions", [64, 130, 1000])
def test_bit_operations_give_the_exact_neighbours_of_1bit_vectors(dimensions):
    """The XOR/popcount path equals an integer Hamming-distance reference (cosine = (d - 2h) / d, ties by index);
    at 64 dimensions, where every float32 cosine is exact, it also equals the BLAS path."""
    from gensim.models import KeyedVectors

    from regemb_utils.termsim.matrix import nearest_neighbours

    rng = np.random.default_rng(dimensions)
    n, k = 700, 40
    vectors = np.where(rng.standard_normal((n, dimensions)) >= 0, 1 / 3, -1 / 3).astype(np.float32)
    kv = KeyedVectors(dimensions)
    kv.add_vectors([f"w{i}" for i in range(n)], vectors)
    words = [f"w{i}" for i in range(0, n, 3)]
    cache = nearest_neighbours(kv, words, depth=k, block_size=100, progress=False)
    signs = (vectors >= 0).astype(np.int64)
    query = np.arange(0, n, 3)
    hamming = signs[query] @ (1 - signs).T + (1 - signs[query]) @ signs.T
    hamming[np.arange(len(query)), query] = dimensions + 1
    expected = np.lexsort((np.broadcast_to(np.arange(n), hamming.shape), hamming), axis=1)[:, :k]
    np.testing.assert_array_equal(cache.indices, expected)
    exact = (dimensions - 2 * np.take_along_axis(hamming, expected, 1)) / dimensions
    np.testing.assert_array_equal(cache.similarities, exact.astype(np.float32))
    if dimensions == 64:
        blas = nearest_neighbours(kv, words, depth=k, progress=False, bits=False)
        np.testing.assert_array_equal(blas.indices, cache.indices)
        np.testing.assert_array_equal(blas.similarities, cache.similarities)


def test_bit_operations_need_1bit_vectors(setting):
    from regemb_utils.termsim.matrix import nearest_neighbours

    with pytest.raises(ValueError, match="same magnitude"):
        nearest_neighbours(setting["kv"], depth=5, progress=False, bits=True)


def test_theorem_table_reports_every_pair(setting, theorem_matrix):
    """Chapter 3's check: stored entries equal E'E'ᵀ and the cosines, unstored pairs are orthogonal in E'; the plain
    (unit) embeddings, which are not orthogonalized, fail the unstored check by their largest dropped cosine."""
    from regemb_utils.chapters.orthogonalization import theorem_table

    kv, d = setting["kv"], setting["dictionary"]
    S = theorem_matrix
    E, _ = orthogonalized_embeddings(S)
    checked = theorem_table(S, E, kv, d)
    assert checked["max |⟨e'_i, e'_j⟩ - s'_ij|"] < 1e-6 and checked["max |s'_ij - cos(e_i, e_j)|"] < 1e-6
    assert checked["max |⟨e'_i, e'_j⟩|, unstored"] < 1e-6 and checked["stored entries"] == S.nnz
    normed = kv.get_normed_vectors()
    unit = np.array(
        [normed[kv.key_to_index[d[i]]] if d[i] in kv.key_to_index else np.zeros(kv.vector_size) for i in range(len(d))]
    )  # words without an embedding: zero rows
    cosines = unit @ unit.T
    unstored = np.asarray(sparse.csr_matrix(S).toarray() == 0)
    plain = theorem_table(S, unit, kv, d)
    assert plain["max |⟨e'_i, e'_j⟩|, unstored"] == pytest.approx(np.abs(cosines[unstored]).max(), abs=1e-6)
    assert plain["max |⟨e'_i, e'_j⟩|, unstored"] > 0.05
