"""Chapter 4's opening example: two sentences without a shared word, compared word by word (paper §3).

The paper borrows its example from Kusner et al. (2015): the BoW cosine of "Obama speaks to the media in Illinois" and
"The President greets the press in Chicago" is 0 once stop words are disregarded, whereas the WMD and the SCM see
that the sentences say nearly the same thing. The book's 32-bit model has no embedding for "greets" (the WMD would
move its mass to the origin), so :data:`SENTENCES` say "addresses" instead, a word the model has. :func:`compare_sentences` computes every measure for such a pair with
the book's own code paths and conventions, and :func:`example_figure` shows where the WMD moves each word's mass and
which word pairs make up the SCM.

* Tokens are the book's (:func:`regemb_utils.text.tokenization.tokenize`); words outside the common dictionary are dropped, as
  for every method. The book's documents keep their stop words (paper §5.2); the example removes them, as the
  paper's sentence says, with gensim's list (:data:`gensim.parsing.preprocessing.STOPWORDS`). The BoW cosine with
  the stop words kept is reported too.
* The SCM weights are the words' counts (each word occurs once; the SCM's normalization makes any per-document
  scale irrelevant, and a pair of sentences has no collection for the chapter's idf). With S, the cosines of the
  32-bit embeddings (:func:`regemb_utils.measures.similarity.dense_scm`), a word without an embedding contributes nothing;
  with S' (chapter 3) it keeps its unit diagonal.
* The WMD uses nBOW weights and the Euclidean distance between the raw embeddings; a word without an embedding
  sits at the origin (:mod:`regemb_utils.measures.wmd`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..classification.engine import explain_pair
from ..measures.representations import nbow_matrix
from ..text.documents import bow_matrix
from ..measures.similarity import (
    ScmContributions,
    cosine_similarity,
    cosine_term_similarity,
    dense_scm,
    embedding_matrix,
    sparse_scm,
)
from ..measures.wmd import WmdFlows, wmd
from ..termsim.orthogonalization import SPARSE_KEYS, MatrixGrid
from ..text.tokenization import tokenize
from ..paper import table_2

__all__ = ["SENTENCES", "SentencePair", "compare_sentences", "table_2_matrix", "setting_markdown", "example_figure"]

SENTENCES = ("Obama speaks to the media in Illinois", "The President addresses the press in Chicago")
FONT_PX = 13  # the smallest text on the figure: 13 px ≈ 9.75 pt at its natural size
_CELL_PX = 48  # a row of a heat map of example_figure: two lines of text (mass, distance)
_TITLE_PX = 28  # a panel's title, above it
_TOP_PX = _TITLE_PX + 6
_GAP_PX = 36 + _TITLE_PX  # the S / S' buttons and the SCM panel's title


@dataclass(frozen=True)
class SentencePair:
    """Two sentences compared by every measure of chapter 4; see :func:`compare_sentences`.

    Parameters
    ----------
    sentences : (str, str)
        The two sentences.
    stop_words : (tuple of str, tuple of str)
        The tokens removed from each.
    not_in_dictionary : tuple of str
        Content words outside the common dictionary (dropped).
    words : tuple of str
        The columns: the first sentence's kept words in order, then the second's new ones.
    without_embedding : tuple of str
        Kept words that the embeddings lack.
    bow_cosine, bow_cosine_with_stop_words : float
        The BoW cosine without and with the stop words.
    scm : mapping
        ``{"S": ..., "S'": ...}``, the SCM under each matrix.
    contributions : mapping
        The SCM's word-pair contributions under each matrix (:class:`regemb_utils.measures.similarity.ScmContributions`).
    wmd : float
        The WMD.
    flows : regemb_utils.measures.wmd.WmdFlows
        The WMD's flows.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> words = ["obama", "president", "speaks", "addresses", "media", "press", "illinois", "chicago"]
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(words, np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [0.7, 0.7], [0.6, 0.8],
    ...                                 [1.0, -0.5], [0.9, -0.6]]))
    >>> dictionary = Dictionary([words])
    >>> S_prime, point, paper_c = table_2_matrix(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> pair = compare_sentences(*SENTENCES, dictionary, kv, S_prime)
    >>> pair.strongest_pair("S")[:2], pair.moves()[0][:2], pair.summary()["pairs"]
    (('obama', 'president'), ('obama', 'president'), 16)
    """

    sentences: tuple[str, str]
    stop_words: tuple[tuple[str, ...], tuple[str, ...]]  # the tokens removed from each sentence
    not_in_dictionary: tuple[str, ...]  # content words outside the common dictionary (dropped)
    words: tuple[str, ...]  # the columns: the first sentence's kept words in order, then the second's new ones
    without_embedding: tuple[str, ...]  # kept words that the embeddings lack
    bow_cosine: float  # without stop words
    bow_cosine_with_stop_words: float
    scm: Mapping[str, float]  # {"S": dense_scm, "S'": sparse_scm}
    contributions: Mapping[str, ScmContributions]  # over the columns ``words``
    wmd: float  # regemb_utils.measures.wmd.wmd
    flows: WmdFlows  # over the columns ``words``

    def row_words(self, terms) -> list[str]:
        return [self.words[t] for t in terms]

    def strongest_pair(self, matrix: str = "S") -> tuple[str, str, float]:
        """The word pair with the largest contribution to the SCM under ``matrix`` and that contribution."""
        part = self.contributions[matrix]
        i, j = np.unravel_index(np.argmax(part.contributions), part.contributions.shape)
        return self.words[part.x_terms[i]], self.words[part.y_terms[j]], float(part.contributions[i, j])

    def nonzero_pairs(self, matrix: str) -> int:
        """How many word pairs (one word from each sentence) contribute to the SCM under ``matrix``."""
        return int(np.count_nonzero(self.contributions[matrix].contributions))

    def moves(self) -> list[tuple[str, str, float, float]]:
        """Every flow of the WMD: (from word, to word, mass, distance), in the first sentence's word order."""
        f = self.flows
        return [
            (self.words[f.x_terms[i]], self.words[f.y_terms[j]], float(f.flows[i, j]), float(f.distances[i, j]))
            for i, j in zip(*np.nonzero(f.flows))
        ]

    def summary(self) -> dict[str, object]:
        """The numbers and words the chapter's prose states, by name (for ``glue``)."""
        first, second, value = self.strongest_pair("S")
        first_p, second_p, value_p = self.strongest_pair("S'")
        total = self.scm["S'"]
        carrier = (
            f"its largest share comes from *{first_p}*–*{second_p}* ({100 * value_p / total:.0f} % of it)"
            if value_p > 0 and total > 0
            else "no pair of the two sentences adds to it"
        )
        moves = self.moves()
        longest = max(moves, key=lambda move: move[3])
        return {
            "bow_cosine": self.bow_cosine,
            "bow_cosine_stop_words": self.bow_cosine_with_stop_words,
            "scm_dense": self.scm["S"],
            "scm_sparse": self.scm["S'"],
            "wmd": self.wmd,
            "pairs": len(self.flows.x_terms) * len(self.flows.y_terms),
            "pairs_dense": self.nonzero_pairs("S"),
            "pairs_sparse": self.nonzero_pairs("S'"),
            "top_pair_dense": f"*{first}*–*{second}*",
            "top_share_dense": 100 * value / self.scm["S"],
            "sparse_carrier": carrier,
            "moves": "; ".join(f"*{a}* → *{b}* ({m:.2f} at distance {d:.2f})" for a, b, m, d in moves),
            "longest_move": f"*{longest[0]}* → *{longest[1]}*",
            "longest_distance": longest[3],
        }

    def notes(self) -> str:
        """Markdown: which words the example dropped or could not embed (empty when all were kept and embedded)."""
        lines = []
        if self.not_in_dictionary:
            lines.append(
                f"Not in the common dictionary (dropped, as for every method): {_listed(self.not_in_dictionary)}."
            )
        if self.without_embedding:
            lines.append(
                f"Without an embedding (at the origin for the WMD, no similarity to any word under S, only "
                f"their unit diagonal under S'; marked * in the figure): {_listed(self.without_embedding)}."
            )
        return "\n\n".join(lines)


def _listed(words) -> str:
    return ", ".join(f"*{w}*" for w in words)


def compare_sentences(
    first: str,
    second: str,
    dictionary,
    vectors,
    orthogonalized,
    *,
    tokenizer: str = "paper",
    stop_words: Collection[str] | None = None,
) -> SentencePair:
    """The BoW cosine, the SCM with S and with S', and the WMD of two sentences, with the SCM's word-pair
    contributions and the WMD's flows.

    ``dictionary`` is the common gensim ``Dictionary``, ``vectors`` the embeddings (``KeyedVectors``; S and the WMD
    use them), ``orthogonalized`` S' over the whole dictionary (scipy sparse, e.g. from
    :class:`regemb_utils.termsim.orthogonalization.MatrixGrid`). ``stop_words`` defaults to gensim's list. A sentence left
    without a word (all stop words or outside the dictionary) has no comparison: ``ValueError``.

    Parameters
    ----------
    first, second : str
        The two sentences.
    dictionary : gensim.corpora.Dictionary
        The common dictionary.
    vectors : gensim.models.KeyedVectors
        The embeddings.
    orthogonalized : scipy.sparse matrix
        S' over the whole dictionary.
    tokenizer : str
        A tokenizer of :data:`regemb_utils.text.tokenization.TOKENIZERS`.
    stop_words : collection of str, optional
        The stop words removed (default: gensim's list).

    Returns
    -------
    SentencePair
        Every measure, the contributions and the flows.

    Raises
    ------
    ValueError
        For an S' of the wrong shape, or a sentence left without a word.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> words = ["obama", "president", "speaks", "addresses", "media", "press", "illinois", "chicago"]
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(words, np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [0.7, 0.7], [0.6, 0.8],
    ...                                 [1.0, -0.5], [0.9, -0.6]]))
    >>> dictionary = Dictionary([words])
    >>> S_prime, point, paper_c = table_2_matrix(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> pair = compare_sentences(*SENTENCES, dictionary, kv, S_prime)
    >>> pair.bow_cosine, round(pair.scm["S"], 3), round(pair.scm["S'"], 3), round(pair.wmd, 3)  # no shared word
    (0.0, 0.999, 0.414, 0.141)
    >>> pair.stop_words
    (('to', 'the', 'in'), ('the', 'the', 'in'))
    """
    if stop_words is None:
        from gensim.parsing.preprocessing import STOPWORDS as stop_words
    S_prime = getattr(orthogonalized, "matrix", orthogonalized)
    if not sparse.issparse(S_prime) or S_prime.shape != (len(dictionary), len(dictionary)):
        raise ValueError(
            f"S' must be a sparse matrix over the whole dictionary ({len(dictionary):,} ids), not "
            f"{getattr(S_prime, 'shape', type(S_prime).__name__)}"
        )
    tokens = [tokenize(text, tokenizer) for text in (first, second)]
    content = [[t for t in sentence if t not in stop_words] for sentence in tokens]
    removed = tuple(tuple(t for t in sentence if t in stop_words) for sentence in tokens)
    with_stop_words = bow_matrix(tokens, dictionary)
    counts = bow_matrix(content, dictionary)
    bow_all = float(cosine_similarity(with_stop_words[0], with_stop_words[1])[0, 0])
    bow = float(cosine_similarity(counts[0], counts[1])[0, 0])

    token2id = dictionary.token2id
    missing = tuple(dict.fromkeys(t for sentence in content for t in sentence if t not in token2id))
    for sentence, kept in zip((first, second), content):
        if not any(t in token2id for t in kept):
            raise ValueError(
                f"{sentence!r} has no word left after removing stop words and words outside the "
                "dictionary: there is nothing to compare"
            )
    words = tuple(dict.fromkeys(t for sentence in content for t in sentence if t in token2id))
    terms = np.array([token2id[w] for w in words], dtype=np.int64)
    counts = sparse.csr_matrix(counts[:, terms])  # the columns in sentence order
    x, y = counts[0], counts[1]
    E = embedding_matrix(vectors, dictionary, terms=terms)
    S = cosine_term_similarity(E)
    S_local = sparse.csr_matrix(S_prime)[terms][:, terms]
    scm = {"S": float(dense_scm(x, y, E, dtype=np.float64)[0, 0]), "S'": float(sparse_scm(x, y, S_local)[0, 0])}
    nbow = nbow_matrix(content, dictionary)[:, terms]
    pairs = {name: explain_pair(x, y, matrix, nbow[0], nbow[1], E) for name, matrix in (("S", S), ("S'", S_local))}
    return SentencePair(
        sentences=(first, second),
        stop_words=removed,
        not_in_dictionary=missing,
        words=words,
        without_embedding=tuple(w for w in words if w not in vectors.key_to_index),
        bow_cosine=bow,
        bow_cosine_with_stop_words=bow_all,
        scm=scm,
        contributions={name: p.contributions for name, p in pairs.items()},
        wmd=wmd(nbow[0], nbow[1], E),
        flows=pairs["S'"].flows,
    )


def table_2_matrix(neighbours, dictionary, dataset: str = "bbcsport", fill_rule: str = "paper"):
    """S' over the whole dictionary at the paper's Table 2 parameters for ``dataset`` (its selected Sym, Dom, Idf,
    C, t and o), built by chapter 3's :class:`regemb_utils.termsim.orthogonalization.MatrixGrid` from a neighbour cache;
    C is capped at the cache's depth (only small caches, e.g. the ``smoke`` profile's, are shallower). Returns
    (S', the grid point used, the paper's C).

    Parameters
    ----------
    neighbours : regemb_utils.termsim.matrix.Neighbours
        A neighbour cache over the dictionary's words.
    dictionary : gensim.corpora.Dictionary
        The common dictionary.
    dataset : str
        Whose Table 2 parameters.
    fill_rule : str
        How a dominance violation is handled.

    Returns
    -------
    (scipy.sparse.csc_matrix, dict, int)
        S', the grid point used, the paper's C.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> words = ["obama", "president", "speaks", "addresses", "media", "press", "illinois", "chicago"]
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(words, np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [0.7, 0.7], [0.6, 0.8],
    ...                                 [1.0, -0.5], [0.9, -0.6]]))
    >>> dictionary = Dictionary([words])
    >>> S_prime, point, paper_c = table_2_matrix(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> S_prime.shape, point["nonzero_limit"], paper_c, point["exponent"]
    ((8, 8), 2, 100, 2.0)
    """
    row = table_2().loc[dataset]
    point = {key: row[key].item() if hasattr(row[key], "item") else row[key] for key in SPARSE_KEYS}
    paper_c = int(point["nonzero_limit"])
    point["nonzero_limit"] = min(paper_c, int(neighbours.depth))
    return MatrixGrid(neighbours, dictionary, fill_rule).build(**point), point, paper_c


def setting_markdown(point: Mapping[str, object], paper_c: int | None = None) -> str:
    """An S' grid point in the paper's notation (Markdown without math, for ``{glue:md}``), e.g. "Sym, Dom, Idf,
    *C* = 100, *t* = −1, *o* = 2"; ``paper_c``, when larger than the point's C, is named as the C it was capped
    from.

    Parameters
    ----------
    point : mapping
        A grid point (:data:`regemb_utils.termsim.orthogonalization.SPARSE_KEYS`).
    paper_c : int, optional
        The C the point's C was capped from.

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> point = {"symmetric": True, "dominant": False, "idf": True, "nonzero_limit": 100, "threshold": -1.0, "exponent": 2.0}
    >>> setting_markdown(point)
    'Sym, no Dom, Idf, *C* = 100, *t* = −1, *o* = 2'
    >>> setting_markdown(dict(point, nonzero_limit=2), paper_c=100).split(", ")[3]
    "*C* = 2 (the paper's 100"
    """
    flags = [
        name if point[key] else f"no {name}"
        for key, name in (("symmetric", "Sym"), ("dominant", "Dom"), ("idf", "Idf"))
    ]
    c = f"*C* = {point['nonzero_limit']:,}"
    if paper_c is not None and paper_c > point["nonzero_limit"]:
        c += f" (the paper's {paper_c:,}, capped at the depth of chapter 3's neighbour cache)"
    return ", ".join(flags + [c, f"*t* = {point['threshold']:g}".replace("-", "−"), f"*o* = {point['exponent']:g}"])


def _labels(pair: SentencePair, words) -> list[str]:
    return [f"{w}*" if w in pair.without_embedding else w for w in words]


def example_figure(pair: SentencePair, *, labels: Mapping[str, str] | None = None, height: int | None = None):
    """Two heat maps over (word of the first sentence, word of the second), one above the other (side by side, their
    titles would collide on a phone's screen): above, the mass the WMD moves between them and at what distance;
    below, each pair's contribution to the SCM, with buttons between S and S' just above it. A pair without flow or
    without contribution (e.g. one that S' sets to 0) is left blank.

    ``labels`` names the two matrices on the menu's buttons (default ``{"S": "S: cosines",
    "S'": "S': orthogonalized"}``). Every text is at least :data:`FONT_PX` pixels.

    Parameters
    ----------
    pair : SentencePair
        :func:`compare_sentences`' result.
    labels : mapping, optional
        The menu's button labels for ``"S"`` and ``"S'"``.
    height : int, optional
        The figure's height in pixels (default: 48 px per row of each heat map and the room for the titles,
        the buttons and the words of the second sentence).

    Returns
    -------
    plotly.graph_objects.Figure
        The WMD's heat map and the SCM's, one trace per matrix, with a menu.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> words = ["obama", "president", "speaks", "addresses", "media", "press", "illinois", "chicago"]
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(words, np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [0.7, 0.7], [0.6, 0.8],
    ...                                 [1.0, -0.5], [0.9, -0.6]]))
    >>> dictionary = Dictionary([words])
    >>> S_prime, point, paper_c = table_2_matrix(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> figure = example_figure(compare_sentences(*SENTENCES, dictionary, kv, S_prime))
    >>> len(figure.data), [button.label for button in figure.layout.updatemenus[0].buttons]
    (3, ['S: cosines', "S': orthogonalized"])
    >>> figure.layout.annotations[0].text
    'WMD = 0.14: mass moved'
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    labels = {"S": "S: cosines", "S'": "S': orthogonalized", **(labels or {})}
    f = pair.flows
    rows, columns = _labels(pair, pair.row_words(f.x_terms)), _labels(pair, pair.row_words(f.y_terms))
    flow_text = np.where(f.flows > 0, np.vectorize(lambda m, d: f"{m:.2f}<br>d = {d:.2f}")(f.flows, f.distances), "")
    hover = np.vectorize(lambda m, d: f"mass {m:.3f}<br>distance {d:.3f}<br>cost {m * d:.3f}")(f.flows, f.distances)
    names = list(pair.contributions)

    def title(name):
        return f"SCM with {name} = {pair.scm[name]:.2f}: word pairs"

    scm_rows = max(len(pair.contributions[name].x_terms) for name in names)
    panels_px = _CELL_PX * (len(rows) + scm_rows)
    # below: the second sentence's words (turned upright on a narrow screen) and the axis title
    bottom_px = round(0.6 * FONT_PX * max(map(len, columns))) + 45
    height = height or _TOP_PX + panels_px + _GAP_PX + bottom_px
    inside = height - _TOP_PX - bottom_px  # the plot area: the panels and the gap between them
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,  # one row of the second sentence's words, at the bottom (plotly makes room for it)
        vertical_spacing=_GAP_PX / inside,
        row_heights=[len(rows), scm_rows],
        subplot_titles=(f"WMD = {pair.wmd:.2f}: mass moved", title(names[0])),
    )
    figure.add_trace(
        go.Heatmap(
            z=f.flows,
            x=columns,
            y=rows,
            text=flow_text,
            texttemplate="%{text}",
            customdata=hover,
            colorscale="Blues",
            zmin=0,
            zmax=float(f.flows.max()),
            showscale=False,
            xgap=2,
            ygap=2,
            hovertemplate="%{y} → %{x}<br>%{customdata}<extra>WMD</extra>",
            textfont={"size": FONT_PX},
        ),
        1,
        1,
    )
    largest = max(float(np.abs(c.contributions).max()) for c in pair.contributions.values()) or 1.0
    for number, name in enumerate(names):
        part = pair.contributions[name]
        figure.add_trace(
            go.Heatmap(
                z=part.contributions,
                x=_labels(pair, pair.row_words(part.y_terms)),
                y=_labels(pair, pair.row_words(part.x_terms)),
                visible=number == 0,
                texttemplate="%{text}",
                text=np.where(part.contributions != 0, np.char.mod("%.3f", part.contributions), ""),  # zeroed: blank
                colorscale="RdBu",
                zmid=0,
                zmin=-largest,
                zmax=largest,
                showscale=False,
                xgap=2,
                ygap=2,
                hovertemplate=f"%{{y}} · %{{x}}<br>contribution %{{z:.4f}} of {pair.scm[name]:.4f}<extra>SCM with "
                f"{name}</extra>",
                textfont={"size": FONT_PX},
            ),
            2,
            1,
        )

    buttons = [
        {
            "label": labels[name],
            "method": "update",
            "args": [{"visible": [True] + [other == name for other in names]}, {"annotations[1].text": title(name)}],
        }
        for name in names
    ]
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": _TOP_PX, "b": bottom_px},
        font={"size": FONT_PX},
        updatemenus=[
            {  # just above the SCM's panel, whose matrix they choose, and its title
                "buttons": buttons,
                "direction": "right",
                "type": "buttons",
                "showactive": True,
                "active": 0,
                "x": 0.0,
                "xanchor": "left",
                "y": figure.layout.yaxis2.domain[1],
                "yanchor": "bottom",
                "pad": {"b": _TITLE_PX},
                "font": {"size": FONT_PX},
            }
        ],
    )
    figure.update_annotations(font={"size": FONT_PX + 1})  # the panels' titles
    figure.update_yaxes(autorange="reversed", tickfont={"size": FONT_PX})
    figure.update_yaxes(title={"text": "first sentence", "font": {"size": FONT_PX}})
    figure.update_xaxes(tickfont={"size": FONT_PX})
    figure.update_xaxes(title={"text": "second sentence", "font": {"size": FONT_PX}}, row=2, col=1)
    return figure
