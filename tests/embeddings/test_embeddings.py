import numpy as np
import pytest
from gensim.models import KeyedVectors

from regemb_utils.embeddings.trained import cosine_summary, sample_cosines, trained_embeddings, word_pair_table
from regemb_utils.infra.cache import ArtifactCache


@pytest.fixture(scope="module")
def vectors():
    rng = np.random.default_rng(1)
    kv = KeyedVectors(8)
    kv.add_vectors([f"w{i}" for i in range(30)] + ["good", "bad"], rng.standard_normal((32, 8)).astype(np.float32))
    return kv


def test_sampled_cosines_are_pairs_of_distinct_words(vectors):
    cosines = sample_cosines(vectors, 20_000, batch=3_000)
    unit = vectors.get_normed_vectors()
    all_pairs = (unit @ unit.T)[np.triu_indices(len(unit), 1)]
    assert cosines.max() < 0.9999  # never a word with itself
    # a large uniform sample has the mean and spread of all pairs
    assert abs(cosines.mean() - all_pairs.mean()) < 0.01
    assert abs(cosines.std() - all_pairs.std()) < 0.01
    np.testing.assert_array_equal(cosines, sample_cosines(vectors, 20_000, batch=7_000))  # batching changes nothing


def test_cosine_summary():
    assert cosine_summary(np.array([0.0, 1.0, 2.0])) == {
        "mean": 1.0,
        "sd": pytest.approx(np.sqrt(2 / 3)),
        "min": 0.0,
        "median": 1.0,
        "max": 2.0,
        "n": 3,
    }


def test_word_pair_table_ranks(vectors):
    table = word_pair_table(vectors, [("good", "bad"), ("good", "unknown")])
    assert list(table.pair) == ["good, bad"]  # pairs with an unknown word are left out
    row = table.iloc[0]
    assert row.cosine == pytest.approx(float(vectors.similarity("good", "bad")))
    similar = [w for w, _ in vectors.most_similar("good", topn=31)]
    assert row["rank of 2nd among 1st's neighbours"] == similar.index("bad") + 1


def test_unknown_model():
    with pytest.raises(ValueError, match="unknown model '2-bit'; allowed: 32-bit, 1-bit"):
        trained_embeddings(
            "2-bit",
            size=10,
            corpus_articles=1,
            tokenizer="paper",
            epochs=1,
            window=1,
            negative=1,
            sample=0,
            min_count=1,
            workers=1,
        )


# ---------------------------------------------------------------------------------------------------------------------
# the 1-bit cosine lattice (chapter 2's histogram) and the signs of the cosines

from regemb_utils.embeddings.trained import (  # noqa: E402
    cosine_histogram_bins,
    cosine_lattice_step,
    cosine_signs,
    lattice_bins,
    neighbour_table,
)


@pytest.fixture(scope="module")
def quantized():
    """1-bit embeddings: every coordinate +-1/3, d = 10."""
    rng = np.random.default_rng(2)
    kv = KeyedVectors(10)
    kv.add_vectors([f"q{i}" for i in range(40)], (np.sign(rng.standard_normal((40, 10))) / 3).astype(np.float32))
    return kv


def test_cosine_lattice_step_of_quantized_embeddings(quantized, vectors):
    assert cosine_lattice_step(quantized) == pytest.approx(2 / 10)
    assert cosine_lattice_step(vectors) is None  # full precision: no lattice
    # every cosine of two 1-bit words is 1 - h * 2/d for the Hamming distance h of their signs
    unit = quantized.get_normed_vectors()
    cosines = (unit @ unit.T)[np.triu_indices(len(unit), 1)]
    h = (1 - cosines) / 0.2
    np.testing.assert_allclose(h, np.round(h), atol=1e-5)
    signs = np.sign(quantized.vectors)
    hamming = (signs[:, None, :] != signs[None, :, :]).sum(-1)[np.triu_indices(len(unit), 1)]
    np.testing.assert_allclose(cosines, (10 - 2 * hamming) / 10, atol=1e-6)


@pytest.mark.parametrize("group", [1, 2, 3, 7])
def test_lattice_bins_hold_the_same_number_of_lattice_points(group):
    step = 2 / 1000
    edges = lattice_bins(-0.27, 0.66, step, group)
    assert edges[0] <= -0.27 and edges[-1] >= 0.66 and np.all(np.diff(edges) > 0)
    np.testing.assert_allclose(np.diff(edges), group * step)
    lattice = 1 - np.arange(0, 1001) * step  # every value a 1000-d 1-bit cosine can take
    inside = lattice[(lattice > edges[0]) & (lattice < edges[-1])]
    # no lattice point is near an edge, so rounding cannot move a cosine across one
    assert np.min(np.abs(inside[:, None] - edges[None, :])) == pytest.approx(step / 2)
    counts, _ = np.histogram(inside, bins=edges)
    assert set(counts[1:-1]) == {group}  # every inner bin catches the same number of values: no comb
    # 200 equal bins over the same range alias: their counts differ
    aliased, _ = np.histogram(inside, bins=np.linspace(edges[0], edges[-1], 201))
    assert len(set(aliased[1:-1])) > 1


def test_cosine_histogram_bins_follow_the_finest_lattice(quantized, vectors):
    cosines = {"32-bit": np.array([-0.3, 0.1, 0.5]), "1-bit": np.array([-0.2, 0.0, 0.4])}
    edges, step, group = cosine_histogram_bins(cosines, {"32-bit": None, "1-bit": 0.002}, target_bins=100)
    assert step == 0.002 and group == 4  # (0.5 + 0.3) / 100 / 0.002 = 4 steps per bin
    assert edges[0] <= -0.3 and edges[-1] >= 0.5
    np.testing.assert_allclose(np.diff(edges), 0.008)
    edges, step, group = cosine_histogram_bins(cosines, {"32-bit": None, "1-bit": None}, target_bins=10)
    assert step is None and len(edges) == 11 and edges[0] == -0.3 and edges[-1] == 0.5


def test_cosine_signs():
    assert cosine_signs(np.array([-0.5, 0.0, 0.2, 0.3])) == {"negative": 0.25, "zero": 0.25, "positive": 0.5}
    # with a lattice step, a zero computed with rounding error counts as zero
    assert cosine_signs(np.array([-1e-7, 2e-7, 0.002, -0.002]), step=0.002) == {
        "negative": 0.25,
        "zero": 0.5,
        "positive": 0.25,
    }


def test_neighbour_table(vectors):
    table = neighbour_table({"a": vectors, "b": vectors}, ["good", "unknown"], topn=3)
    assert list(table.columns) == ["word", "model", "nearest neighbours (cosine)"]
    assert list(zip(table.word, table.model)) == [("good", "a"), ("good", "b")]  # unknown words are left out
    first, cosine = vectors.most_similar("good", topn=1)[0]
    # the book's precision for a cosine, as in its tables
    assert table.iloc[0, 2].startswith(f"{first} ({cosine:.3f}), ")
    assert table.iloc[0, 2].count("(") == 3


def test_a_model_can_be_read_without_training_it(tmp_path):
    """train=False reads a cached model and refuses to train a missing one (the WMD benchmark's paper embeddings)."""
    settings = dict(
        size=4,
        corpus_articles=1,
        tokenizer="paper",
        epochs=1,
        window=2,
        negative=2,
        sample=0.0,
        min_count=5,
        workers=1,
        cache=ArtifactCache(tmp_path),
    )
    with pytest.raises(LookupError, match="run chapter 2"):
        trained_embeddings("1-bit", train=False, **settings)
    trained, _ = trained_embeddings("1-bit", **settings)
    read, _ = trained_embeddings("1-bit", train=False, **settings)
    assert read.index_to_key == trained.index_to_key and (read.vectors == trained.vectors).all()
