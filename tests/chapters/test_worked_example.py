"""Chapter 4's opening example (regemb_utils.chapters.worked_example) on small embeddings with the example's words."""

from __future__ import annotations

import numpy as np
import pytest
from gensim.corpora import Dictionary
from gensim.models import KeyedVectors

from regemb_utils.measures.similarity import dense_scm, embedding_matrix
from regemb_utils.termsim.matrix import nearest_neighbours
from regemb_utils.chapters.worked_example import (
    SENTENCES,
    FONT_PX,
    compare_sentences,
    example_figure,
    setting_markdown,
    table_2_matrix,
)

PAIRS = (("obama", "president"), ("speaks", "addresses"), ("media", "press"), ("illinois", "chicago"))
OTHERS = ("to", "the", "in", "band", "river", "album", "goal")


def _setting(without=(), outside=()):
    """Embeddings where each of the paper's word pairs is close, a dictionary of every word (less ``outside``), the
    embeddings lacking the words ``without``."""
    rng = np.random.default_rng(0)
    words, rows = [], []
    for first, second in PAIRS:
        centre = rng.normal(size=8)
        words += [first, second]
        rows += [centre + 0.3 * rng.normal(size=8), centre + 0.3 * rng.normal(size=8)]
    words += list(OTHERS)
    rows += list(rng.normal(size=(len(OTHERS), 8)))
    kv = KeyedVectors(vector_size=8)
    kept = [i for i, w in enumerate(words) if w not in without]
    kv.add_vectors([words[i] for i in kept], np.asarray(rows, dtype=np.float32)[kept])
    dictionary = Dictionary([[w for w in words if w not in outside], ["the", "in", "band"], ["river", "goal"]])
    neighbours = nearest_neighbours(kv, list(dictionary.token2id), depth=6, progress=False)
    return dictionary, kv, neighbours


@pytest.fixture(scope="module")
def example():
    dictionary, kv, neighbours = _setting()
    S_prime, point, paper_c = table_2_matrix(neighbours, dictionary, "bbcsport")
    return compare_sentences(*SENTENCES, dictionary, kv, S_prime), dictionary, kv, (S_prime, point, paper_c)


def test_bow_cosine_is_zero_without_stop_words_only(example):
    pair, *_ = example
    assert pair.bow_cosine == 0.0
    # with the stop words: "the" (1 × 2) and "in" (1 × 1) are shared; ‖x‖ = √7, ‖y‖ = √9
    assert pair.bow_cosine_with_stop_words == pytest.approx(3 / (np.sqrt(7) * 3))
    assert pair.stop_words == (("to", "the", "in"), ("the", "the", "in"))
    assert pair.words == ("obama", "speaks", "media", "illinois", "president", "addresses", "press", "chicago")


def test_measures_agree_with_their_parts(example):
    pair, dictionary, kv, (S_prime, point, paper_c) = example
    assert (
        point
        == {"symmetric": True, "dominant": True, "idf": True, "nonzero_limit": 6, "threshold": -1.0, "exponent": 2.0}
        and paper_c == 100
    )  # Table 2's BBCSPORT row, C capped at the cache's depth
    assert setting_markdown(point, paper_c) == (
        "Sym, Dom, Idf, *C* = 6 (the paper's 100, capped at the depth of "
        "chapter 3's neighbour cache), *t* = −1, *o* = 2"
    )
    unsymmetric = setting_markdown(dict(point, symmetric=False, nonzero_limit=100), paper_c)
    assert unsymmetric.startswith("no Sym, Dom, Idf, *C* = 100,") and "capped" not in unsymmetric
    for name in ("S", "S'"):
        assert pair.contributions[name].total == pytest.approx(pair.scm[name], abs=1e-12)
    assert pair.flows.total == pytest.approx(pair.wmd, rel=1e-10)
    # the same SCM over the whole dictionary (the chapter's documents) as over the example's columns
    x = np.zeros(len(dictionary))
    y = np.zeros(len(dictionary))
    for word in pair.words[:4]:
        x[dictionary.token2id[word]] = 1
    for word in pair.words[4:]:
        y[dictionary.token2id[word]] = 1
    E = embedding_matrix(kv, dictionary, dtype=np.float64)
    assert float(dense_scm(x[None], y[None], E, dtype=np.float64)[0, 0]) == pytest.approx(pair.scm["S"], abs=1e-12)
    # each paper pair is the closest: the WMD moves every word to its partner, the SCM is carried by those pairs
    assert [(a, b) for a, b, _, _ in pair.moves()] == list(PAIRS)
    assert all(mass == pytest.approx(0.25) for _, _, mass, _ in pair.moves())
    assert pair.nonzero_pairs("S'") < pair.nonzero_pairs("S") == 16
    assert (pair.strongest_pair("S")[:2]) in PAIRS
    summary = pair.summary()
    assert summary["pairs"] == 16 and summary["bow_cosine"] == 0.0 and "→" in summary["moves"]
    assert pair.notes() == ""


def test_missing_words_are_reported_and_the_figure_still_draws():
    dictionary, kv, neighbours = _setting(without=("illinois",), outside=("addresses",))
    S_prime, _, _ = table_2_matrix(neighbours, dictionary, "twitter")
    pair = compare_sentences(*SENTENCES, dictionary, kv, S_prime)
    assert pair.not_in_dictionary == ("addresses",) and "addresses" not in pair.words
    assert pair.without_embedding == ("illinois",)
    assert "*addresses*" in pair.notes() and "*illinois*" in pair.notes()
    assert np.all(pair.contributions["S"].contributions[pair.words.index("illinois")] == 0)
    assert pair.flows.flows.shape == (4, 3) and pair.flows.total == pytest.approx(pair.wmd, rel=1e-10)
    figure = example_figure(pair)
    assert len(figure.data) == 3 and [t.visible for t in figure.data[1:]] == [True, False]
    assert "illinois*" in figure.data[0].y
    sizes = (
        [figure.layout.font.size]
        + [t.textfont.size for t in figure.data]
        + [a.font.size for a in figure.layout.annotations]
        + [figure.layout.updatemenus[0].font.size]
    )
    assert min(sizes) >= FONT_PX >= 12  # ≥ 9 pt at the figure's natural size


def test_bad_input_is_refused():
    dictionary, kv, neighbours = _setting(outside=("obama", "speaks", "media", "illinois"))
    S_prime, _, _ = table_2_matrix(neighbours, dictionary)
    with pytest.raises(ValueError, match="no word left"):
        compare_sentences(*SENTENCES, dictionary, kv, S_prime)
    with pytest.raises(ValueError, match="no word left"):
        compare_sentences("to the in", SENTENCES[1], dictionary, kv, S_prime)
    with pytest.raises(ValueError, match="whole dictionary"):
        compare_sentences(*SENTENCES, dictionary, kv, S_prime[:-1, :-1])


def test_the_panels_stack_so_that_their_titles_cannot_collide_on_a_phone():
    """Side by side, each panel's title had half of a 368 px screen and the two overlapped (figure 4.1 at 400 px):
    stacked, each panel and its title have the whole width, and the S / S' buttons sit between the panels, above
    the SCM's."""
    dictionary, kv, neighbours = _setting()
    S_prime, _, _ = table_2_matrix(neighbours, dictionary)
    figure = example_figure(compare_sentences(*SENTENCES, dictionary, kv, S_prime))
    layout = figure.layout
    assert list(layout.xaxis.domain) == [0.0, 1.0] and list(layout.xaxis2.domain) == [0.0, 1.0]
    wmd, scm = layout.yaxis.domain, layout.yaxis2.domain
    assert scm[1] < wmd[0]  # the SCM below the WMD, with a gap
    titles = [a.y for a in layout.annotations[:2]]
    assert titles == [wmd[1], scm[1]] and all(a.yanchor == "bottom" for a in layout.annotations[:2])
    (menu,) = layout.updatemenus
    assert menu.y == scm[1] and menu.yanchor == "bottom" and menu.pad.b >= FONT_PX + 10  # above the SCM's title
    gap_px = (wmd[0] - scm[1]) * (layout.height - layout.margin.t - layout.margin.b)
    assert gap_px >= menu.pad.b + 30  # the buttons (about 30 px) and the title fit between the panels
    assert [t.xaxis for t in figure.data] == ["x", "x2", "x2"] and [t.yaxis for t in figure.data] == ["y", "y2", "y2"]
