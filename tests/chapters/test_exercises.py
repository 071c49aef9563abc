"""The computations behind the chapters' exercises (regemb_utils.chapters.exercises), each against an independent one.
(What the solutions state about the chapters' own data is checked on the smoke run: tests/exercise_claims.py.)"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result, make_problem
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors

from regemb_utils.chapters import exercises
from regemb_utils.text.datasets import Dataset, Split
from regemb_utils.chapters.scm_vs_wmd import error_reduction, error_table
from regemb_utils.text.tokenization import tokenize


def _keyed(matrix):
    kv = KeyedVectors(vector_size=matrix.shape[1])
    kv.add_vectors([f"w{i}" for i in range(len(matrix))], matrix.astype(np.float32))
    return kv


def test_nbow_weights_are_counts_over_known_tokens():
    dictionary = Dictionary([["the", "cat", "sat", "mat"]])
    text = "The cat sat on the mat; the CAT!"
    weights = exercises.nbow_weights(text, dictionary)
    counts = Counter(t for t in tokenize(text) if t in dictionary.token2id)  # "on" is not in the dictionary
    known = sum(counts.values())
    assert dict(zip(weights.word, weights["count"])) == dict(counts)
    assert weights.weight.tolist() == pytest.approx([counts[w] / known for w in weights.word])
    assert weights.word.iloc[0] == "the" and weights.weight.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no word of the document is in the dictionary"):
        exercises.nbow_weights("dog on a log", dictionary)


def test_majority_bound_uses_the_training_majority_on_both_splits():
    train = Split(["x"] * 6, np.array([0, 0, 0, 1, 1, 2]))
    test = Split(["x"] * 4, np.array([1, 1, 1, 0]))
    table = exercises.majority_bound({"toy": Dataset("toy", ("a", "b", "c"), train, train, test)})
    row = table.iloc[0]
    assert row["classes"] == 3 and row["training error"] == pytest.approx(0.5)
    assert row["bound 1 − 1/K"] == pytest.approx(2 / 3)
    assert row["test error"] == pytest.approx(0.75)  # class 0 chosen on the training split: 3 of 4 test errors


def test_hamming_cosines_of_sign_vectors_lie_on_the_lattice():
    rng = np.random.default_rng(0)
    signs = rng.choice([-1.0, 1.0], size=(300, 12)) / 3
    check = exercises.hamming_cosines(_keyed(signs), pairs=5000)
    assert check["dimensions"] == 12 and check["largest difference"] < 1e-6
    assert check["distinct cosines"] == check["distinct Hamming distances"] <= 13
    dense = exercises.hamming_cosines(_keyed(rng.normal(size=(300, 12))), pairs=5000)
    assert dense["largest difference"] > 0.1  # real-valued embeddings are not on the lattice


def test_exact_zeros_counts_orthogonal_pairs():
    rng = np.random.default_rng(1)
    signs = rng.choice([-1.0, 1.0], size=(200, 6))  # integers: float inner products are exact
    first, second = exercises._pairs(200, 3000, 0)
    expected = np.mean(np.einsum("ij,ij->i", signs[first], signs[second]) == 0)
    zeros = exercises.exact_zeros({"1-bit": _keyed(signs / 3), "32-bit": _keyed(rng.normal(size=(200, 6)))}, pairs=3000)
    shares = dict(zip(zeros.model, zeros["share exactly 0"]))
    assert shares["1-bit"] == pytest.approx(expected) and expected > 0.2  # C(6,3)/2^6 = 0.31 for random signs
    assert shares["32-bit"] == 0


@pytest.fixture(scope="module")
def grid():
    from regemb_utils.termsim.orthogonalization import MatrixGrid
    from regemb_utils.termsim.matrix import nearest_neighbours

    _, dictionary, kv = make_problem(seed=3, n_words=80, dim=8, missing=5)
    embedded = np.array([dictionary[i] in kv for i in range(len(dictionary))])
    return MatrixGrid(nearest_neighbours(kv, depth=20), dictionary), embedded


def test_density_over_c_counts_the_columns_of_s_prime(grid):
    matrices, embedded = grid
    density = exercises.density_over_c(matrices, [2, 5, 10], embedded)
    assert len(density) == 12
    for row in density.to_dict("records"):
        S = matrices.build(
            symmetric=row["Sym"], dominant=row["Dom"], idf=True, nonzero_limit=row["C"], threshold=-1.0, exponent=1.0
        ).tocsc()
        per_column = np.diff(S.indptr)[embedded]
        assert row["mean non-zeros per column"] == pytest.approx(per_column.mean())
        assert row["most non-zeros in a column"] == per_column.max() <= row["C"] + 1


def test_smallest_eigenvalues_decide_the_cholesky_factor(grid):
    from scipy.linalg import eigvalsh

    matrices, _ = grid
    eigen = exercises.smallest_eigenvalues(matrices, [3, 10])
    for row in eigen.to_dict("records"):
        S = matrices.build(
            symmetric=True, dominant=row["Dom"], idf=True, nonzero_limit=row["C"], threshold=-1.0, exponent=1.0
        )
        assert row["smallest eigenvalue"] == pytest.approx(eigvalsh(S.toarray().astype(np.float64))[0], abs=1e-9)
        assert row["Cholesky factor exists"] == (row["smallest eigenvalue"] > 1e-9)
    assert eigen[eigen.Dom]["smallest eigenvalue"].gt(0).all()


def test_largest_disagreement_is_the_pair_whose_ranks_differ_most():
    from regemb_utils.classification.methods import represent_pair
    from regemb_utils.text.documents import prepare_documents
    from regemb_utils.termsim.orthogonalization import MatrixGrid
    from regemb_utils.measures.similarity import embedding_matrix, scm_contributions
    from regemb_utils.termsim.sources import restricted
    from regemb_utils.termsim.matrix import nearest_neighbours
    from regemb_utils.measures.wmd import wmd

    _, dictionary, kv = make_problem(seed=5, n_words=60, dim=8, missing=0, with_unknown=False)
    rng = np.random.default_rng(5)
    texts = [" ".join(rng.choice([f"w{i}" for i in range(60)], size=rng.integers(3, 12))) for _ in range(40)]
    dataset = Dataset(
        "toy",
        ("a", "b"),
        Split(texts[:24], np.arange(24) % 2),
        Split(texts[24:30], np.arange(6) % 2),
        Split(texts[30:], np.arange(10) % 2),
    )
    documents = prepare_documents(dataset, dictionary)
    grid = MatrixGrid(nearest_neighbours(kv, depth=20), dictionary)
    S = grid.build(symmetric=True, dominant=True, idf=True, nonzero_limit=10, threshold=-1.0, exponent=1.0)
    rows = embedding_matrix(kv, dictionary, terms=documents.terms)
    pair = exercises.largest_disagreement(documents, "soft_vsm_ortho", S, "wmd", rows, queries=6, references=15)
    # independently: every pair's SCM and WMD, one at a time
    scm_q, scm_r = represent_pair("soft_vsm_ortho", documents, "test", "train")
    wmd_q, wmd_r = represent_pair("wmd", documents, "test", "train")
    S_terms = restricted(S, documents.terms)
    scm = np.array([[scm_contributions(scm_q[i], scm_r[j], S_terms).total for j in range(15)] for i in range(6)])
    distance = np.array([[wmd(wmd_q[i], wmd_r[j], rows) for j in range(15)] for i in range(6)])
    scm_rank = np.argsort(np.argsort(-scm, axis=1, kind="stable"), axis=1)
    wmd_rank = np.argsort(np.argsort(distance, axis=1, kind="stable"), axis=1)
    gap = np.abs(scm_rank - wmd_rank)
    assert abs(pair.scm_rank - pair.wmd_rank) == gap.max() > 0
    assert pair.scm == pytest.approx(scm[pair.query, pair.reference])
    assert pair.wmd == pytest.approx(distance[pair.query, pair.reference])
    assert pair.contributions["contribution to the SCM"].sum() == pytest.approx(pair.scm)
    assert pair.flows["cost"].sum() == pytest.approx(pair.wmd) and pair.flows["mass"].sum() == pytest.approx(1)
    shown = exercises.word_columns(pair.flows, documents, dictionary)
    assert set(shown["query word"]) <= set(dictionary.token2id)


def test_wmd_hours_on_cores_spread_batches_over_the_cores():
    costs = pd.DataFrame([{"dataset": "toy", "method": "wmd", "split": "test", "seconds per query": 3600.0}])
    hours = exercises.wmd_hours_on_cores(costs, {("toy", "wmd", "test"): 20}, cores=(1, 2, 3, 8))
    assert hours["core hours"].tolist() == [20, 20, 20, 20]
    # batches of 8, 8 and 4 queries: one core runs all 20; two run 8 then 4 beside 8; three or more run 8 at a time
    assert hours["wall hours"].tolist() == [20, 12, 8, 8]


def test_per_class_errors_weight_into_the_test_error():
    counts = np.array([[8, 2, 0], [1, 3, 0], [0, 0, 0]])
    table = exercises.per_class_errors(counts, ["a", "b", "c"])
    assert table.error.tolist()[:2] == pytest.approx([0.2, 0.25]) and np.isnan(table.error.iloc[2])
    errors = 1 - np.trace(counts) / counts.sum()
    assert np.nansum(table.share * table.error) == pytest.approx(errors)


def test_map_trustworthiness_is_one_for_the_points_themselves():
    points = np.random.default_rng(7).normal(size=(60, 2))
    distances = np.linalg.norm(points[:, None] - points[None], axis=2)
    trust = exercises.map_trustworthiness(distances, points, k=5)
    assert trust["t-SNE"] == pytest.approx(1.0) and trust["random"] < 0.8


def test_reduction_by_hand_equals_the_scorecards():
    results = {
        (d, m): fake_result(d, m, errors=wrong, n=40)
        for d, m, wrong in [
            ("bbcsport", "soft_vsm", 10),
            ("bbcsport", "soft_vsm_ortho", 6),
            ("twitter", "soft_vsm", 12),
            ("twitter", "soft_vsm_ortho", 11),
            ("bbcsport", "bow", 20),
        ]
    }
    assert exercises.reduction_by_hand(error_table(results)) == pytest.approx(100 * (1 - (6 + 11) / (10 + 12)))
    assert exercises.reduction_by_hand(error_table(results)) == pytest.approx(error_reduction(results)["reduction"])


def test_within_intervals_counts_the_papers_errors_in_ours():
    from regemb_utils import paper
    from regemb_utils.classification.statistics import agresti_coull

    results = {
        ("bbcsport", "bow"): fake_result("bbcsport", "bow", errors=14, n=60),
        ("twitter", "bow"): fake_result("twitter", "bow", errors=30, n=60),
    }
    counted = exercises.within_intervals(results, confidences=(0.5, 0.95, 0.9999))
    for row in counted.to_dict("records"):
        expected = 0
        for (dataset, method), r in results.items():
            _, lower, upper = agresti_coull(r.test_errors, len(r.truth), row["confidence"])
            expected += 100 * lower <= paper.value(paper.TEST_ERRORS, (method, dataset)) <= 100 * upper
        assert row["compared"] == 2 and row["within"] == expected
    assert counted.within.is_monotonic_increasing
