"""Chapter 3's count for §4.2's Idf claim against a pair-by-pair count on the same matrices."""

import itertools

import numpy as np
import pytest
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors

from regemb_utils.chapters.orthogonalization import idf_orthogonality
from regemb_utils.termsim.matrix import nearest_neighbours
from regemb_utils.termsim.orthogonalization import MatrixGrid

POINT = dict(symmetric=True, dominant=True, nonzero_limit=4, threshold=-1.0, exponent=1.0)


def toy(seed=0, words=30):
    """Random embeddings of ``words`` words (every seventh a numeral; the last without an embedding) and documents in
    which word i appears in the first words - i of them, so that the earlier words are the more frequent."""
    rng = np.random.default_rng(seed)
    names = [str(i) if i % 7 == 0 else f"w{i}" for i in range(words)]
    kv = KeyedVectors(5)
    kv.add_vectors(names[:-1], rng.normal(size=(words - 1, 5)))
    dictionary = Dictionary([names[: words - d] for d in range(words)])
    embedded = np.array([dictionary[i] in kv for i in range(len(dictionary))])
    return MatrixGrid(nearest_neighbours(kv, depth=8, progress=False), dictionary), dictionary, embedded


def test_the_counts_agree_with_a_pair_by_pair_count():
    grid, dictionary, embedded = toy()
    counted = idf_orthogonality(grid, dictionary, POINT, embedded, n=8)
    ranked = sorted((i for i in range(len(dictionary)) if embedded[i]), key=lambda i: -dictionary.dfs[i])
    groups = {"frequent": ranked[:8], "rare": ranked[-8:], "numeral": [i for i in ranked if dictionary[i].isdigit()]}
    for idf, label in ((True, "with idf"), (False, "without idf")):
        S = grid.build(**POINT, idf=idf).toarray()
        for group, members in groups.items():
            orthogonal = sum(S[i, j] == 0 and S[j, i] == 0 for i, j in itertools.combinations(members, 2))
            assert counted[f"{group} orthogonal {label}"] == orthogonal, (group, label)
            assert counted[f"{group} pairs"] == len(members) * (len(members) - 1) // 2
    assert counted["numerals"] == len(groups["numeral"]) == 5  # 0, 7, 14, 21 and 28
    # the pairs that change: orthogonal with Idf minus without equals only-with minus only-without
    for group in groups:
        assert (
            counted[f"{group} orthogonal with idf"] - counted[f"{group} orthogonal without idf"]
            == counted[f"{group} only with idf"] - counted[f"{group} only without idf"]
        )


def test_too_few_words_are_refused():
    grid, dictionary, embedded = toy(words=4)
    with pytest.raises(ValueError, match="at least 2 words per group"):
        idf_orthogonality(grid, dictionary, POINT, embedded, n=5)
