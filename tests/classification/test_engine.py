"""The measure objects: one kNN engine for chapter 4's runs, the estimators, the chapters and the apps, which all
search with ``Measure.neighbours``; no other module branches on a measure's kind."""

import ast
from pathlib import Path

import numpy as np
import pytest
from gensim.corpora import Dictionary
from scipy import sparse

from regemb_utils.classification import engine
from regemb_utils.classification.engine import Inputs, Measure, MissingEmbeddings, as_keyed_vectors, shared_matrices
from regemb_utils.classification.methods import METHODS
from regemb_utils.termsim.matrix import nearest_neighbours
from regemb_utils.termsim.orthogonalization import MatrixGrid

ROOT = Path(__file__).resolve().parents[2]
KINDS = {m.measure for m in METHODS.values()}  # cosine, dense_scm, sparse_scm, l1, wmd


def _strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(set(), *(_strings(e) for e in node.elts))
    return set()


def measure_branches(path: Path):
    """(qualified function, line) of every comparison (==, !=, in, not in) with a measure kind's name or with a
    ``.measure`` attribute in the module at ``path``."""
    found = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
            if isinstance(child, ast.Compare) and all(
                isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in child.ops
            ):
                operands = [child.left, *child.comparators]
                if any(_strings(o) & KINDS for o in operands) or any(
                    isinstance(o, ast.Attribute) and o.attr == "measure" for o in operands
                ):
                    found.append((inner, child.lineno))
            visit(child, inner)

    visit(ast.parse(path.read_text()), "")
    return found


def test_no_module_branches_on_a_measure_kind_outside_the_measure_objects():
    outside = {}
    for path in sorted((ROOT / "regemb_utils").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name == "regemb_utils/classification/engine.py":
            continue
        stray = measure_branches(path)
        if stray:
            outside[name] = stray
    assert not outside, f"branches on a measure's kind outside the measure objects: {outside}"


def test_the_scan_finds_a_branch(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(
        "def f(method):\n    if METHODS[method].measure == 'x':\n        return measure in ('wmd', 'cosine')\n"
    )
    assert measure_branches(path) == [("f", 2), ("f", 3)]


def test_every_method_has_its_measure_object_and_unknown_ones_are_refused():
    for method, m in METHODS.items():
        measure = Measure.of(method)
        assert measure.weighting == m.weighting and measure.model == m.model
        assert measure.needs_embeddings == (m.measure in ("dense_scm", "wmd"))
        assert measure.needs_matrices == (m.measure == "sparse_scm")
        assert measure.transport == (m.measure == "wmd")
    with pytest.raises(ValueError, match="unknown method 'lsi'; allowed: bow, soft_vsm"):
        Measure.of("lsi")
    with pytest.raises(ValueError, match="method 'wmd' needs embeddings"):
        Measure.of("wmd").check()
    with pytest.raises(ValueError, match="method 'soft_vsm_ortho' needs matrices"):
        Measure.of("soft_vsm_ortho").check(embeddings=np.eye(2))


def test_each_measure_compares_with_its_own_function_and_says_what_it_lacks():
    from regemb_utils.measures.similarity import cosine_similarity, dense_scm, l1_distance, sparse_scm

    X = sparse.csr_matrix(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]]))
    Y = sparse.csr_matrix(np.array([[0.0, 0.5, 0.5]]))
    E = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    S = sparse.csc_matrix(E @ E.T)
    assert np.array_equal(Measure.of("tfidf_l1").compare(X, Y)[0], -l1_distance(X, Y))
    assert np.array_equal(Measure.of("bow").compare(X, Y)[0], cosine_similarity(X, Y))
    assert Measure.of("bow").compare(X, Y)[1] is None
    np.testing.assert_array_equal(Measure.of("soft_vsm").compare(X, Y, E)[0], dense_scm(X, Y, E))
    similarities, info = Measure.of("soft_vsm_ortho").compare(X, Y, term_similarity=S)
    np.testing.assert_array_equal(similarities, sparse_scm(X, Y, S))
    assert info.n_nonpositive == 1  # the empty query
    with pytest.raises(ValueError, match="method 'soft_vsm' needs embeddings"):
        Measure.of("soft_vsm").compare(X, Y)
    with pytest.raises(ValueError, match="method 'soft_vsm_ortho' needs its term similarity matrix"):
        Measure.of("soft_vsm_ortho").compare(X, Y)
    with pytest.raises(ValueError, match="method 'wmd' has distances, not similarities"):
        Measure.of("wmd").compare(X, Y, E)


def _problem(seed=0, n_words=30, dim=6):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    kv = as_keyed_vectors({w: rng.normal(size=dim) for w in words})
    docs = [list(rng.choice(words, size=6)) for _ in range(40)]
    dictionary = Dictionary(docs)
    counts = sparse.csr_matrix(
        [[doc.count(dictionary[i]) for i in range(len(dictionary))] for doc in docs], dtype=np.float64
    )
    return kv, dictionary, counts


@pytest.mark.parametrize("method", list(METHODS))
def test_neighbours_are_the_brute_force_ranking_of_the_distances(method):
    kv, dictionary, counts = _problem()
    measure = Measure.of(method)
    inputs = (
        measure.inputs(kv, dictionary, depth=5, shared=True)
        if measure.needs_embeddings or measure.needs_matrices
        else measure.inputs()
    )
    point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=5, threshold=0.0, exponent=2.0)
    S = measure.term_similarity(inputs, point)
    Q, R = measure.represent(counts[:8], counts[8:]), measure.represent(counts[8:], counts[8:])
    distances, indices = measure.kneighbours(Q, R, 5, inputs, S)
    every = measure.distances(Q, R, np.tile(np.arange(R.shape[0]), (Q.shape[0], 1)), inputs, S)
    # the five smallest distances in ascending order, ties to the lower row
    expected = np.lexsort((np.broadcast_to(np.arange(R.shape[0]), every.shape), np.round(every, 6)), axis=1)[:, :5]
    np.testing.assert_allclose(distances, np.take_along_axis(every, expected, axis=1), atol=1e-6)
    np.testing.assert_allclose(np.take_along_axis(every, indices, axis=1), distances, atol=1e-6)


def test_shared_matrices_equal_s_prime_built_afresh_and_grow_with_new_words():
    kv, dictionary, counts = _problem()
    engine._SHARED.clear()
    smaller = Dictionary([[dictionary[i] for i in range(10)]])
    point = dict(symmetric=True, dominant=True, idf=True, nonzero_limit=3, threshold=0.0, exponent=2.0)
    first = shared_matrices(kv, smaller, 3).build(point)
    deeper = shared_matrices(kv, dictionary, 6)  # new words and a deeper search: the smaller S′ stays the same
    words = [w for w in dictionary.token2id if w in kv.key_to_index]
    fresh = MatrixGrid(nearest_neighbours(kv, words, depth=6, progress=False), dictionary)
    np.testing.assert_array_equal(deeper.build(point).toarray(), fresh.build(**point).toarray())
    np.testing.assert_array_equal(shared_matrices(kv, smaller, 3).build(point).toarray(), first.toarray())
    assert engine._SHARED["neighbours"].depth == 6 and set(engine._SHARED["neighbours"].words) == set(words)


def test_the_missing_word_report_counts_tokens():
    kv, dictionary, counts = _problem()
    kept = as_keyed_vectors({w: kv[w] for w in kv.index_to_key if w not in ("w1", "w2")})
    report = MissingEmbeddings.of(kept, dictionary, counts)
    totals = np.asarray(counts.sum(axis=0)).ravel()
    ids = [dictionary.token2id[w] for w in ("w1", "w2") if w in dictionary.token2id]
    assert set(report.words) == {dictionary[i] for i in ids}
    assert report.share == pytest.approx(totals[ids].sum() / totals.sum())
    assert [totals[dictionary.token2id[w]] for w in report.words] == sorted(totals[ids], reverse=True)
    assert Inputs().embeddings is None
