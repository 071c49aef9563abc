import numpy as np
import pytest
from gensim.models import KeyedVectors

from regemb_utils.embeddings import cosine_summary, sample_cosines, trained_embeddings, word_pair_table


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
    assert cosine_summary(np.array([0.0, 1.0, 2.0])) == {"mean": 1.0, "sd": pytest.approx(np.sqrt(2 / 3)),
                                                         "min": 0.0, "median": 1.0, "max": 2.0}


def test_word_pair_table_ranks(vectors):
    table = word_pair_table(vectors, [("good", "bad"), ("good", "unknown")])
    assert list(table.pair) == ["good, bad"]  # pairs with an unknown word are left out
    row = table.iloc[0]
    assert row.cosine == pytest.approx(float(vectors.similarity("good", "bad")))
    similar = [w for w, _ in vectors.most_similar("good", topn=31)]
    assert row["rank of 2nd among 1st's neighbours"] == similar.index("bad") + 1


def test_unknown_model():
    with pytest.raises(ValueError, match="unknown model '2-bit'; allowed: 32-bit, 1-bit"):
        trained_embeddings("2-bit", size=10, corpus_articles=1, tokenizer="paper", epochs=1, window=1, negative=1,
                           sample=0, min_count=1, workers=1)
