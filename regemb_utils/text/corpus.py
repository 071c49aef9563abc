"""The word-embedding training corpus: the first 102.7 MB of a 2015 English Wikipedia dump, as WikiExtractor wrote it.

This stands in for the paper's corpus, enwik8 (the first 10^8 bytes of a 2006 dump) filtered by a modified
``wikifil.pl`` into one lower-case article per line (see ``data/README.md``). The archive holds
``text/AA/wiki_00`` … ``wiki_99``, 6,514 articles in all, each written as::

    <doc id="12" url="http://en.wikipedia.org/wiki?curid=12" title="Anarchism">
    Anarchism
    <BLANKLINE>
    Anarchism is a political philosophy ...
    </doc>

The archive is read as a stream (``tarfile`` mode ``"r|xz"``), one line at a time, so only one article is held in
memory at once (besides the current ~1 MB member).
"""

from __future__ import annotations

import dataclasses
import html
import io
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

from gensim.corpora import Dictionary

from ..infra.cache import ArtifactCache
from ..infra.keys import computes
from .datasets import FILES, data_file
from .tokenization import TOKENIZERS, tokenize

__all__ = [
    "WIKIPEDIA_ARTICLES",
    "wikipedia_articles",
    "WikipediaCorpus",
    "frequent_words",
    "corpus_dictionary",
    "corpus_statistics",
]


WIKIPEDIA_ARTICLES = 6514

_DOC_START = re.compile(r'<doc id="[^"]*" url="[^"]*" title="([^"]*)">\s*$')
_MEMBER = re.compile(r"text/AA/wiki_\d\d")


def _check_max_articles(max_articles: int | None) -> int | None:
    if max_articles is None:
        return None
    if isinstance(max_articles, bool) or not isinstance(max_articles, int) or max_articles < 1:
        raise ValueError(f"max_articles must be a positive integer or None, not {max_articles!r}")
    return max_articles


def wikipedia_articles(max_articles: int | None = None) -> Iterator[tuple[str, str]]:
    """Yield ``(title, text)`` for each article in file order, at most ``max_articles`` of them.

    ``text`` is everything between the ``<doc …>`` and ``</doc>`` lines (WikiExtractor repeats the title as its
    first line), without the surrounding newlines. The archive's checksum is verified first.

    Parameters
    ----------
    max_articles : int, optional
        At most this many (None: all).

    Yields
    ------
    (str, str)
        The title and the text of each article.

    Examples
    --------
    >>> title, text = next(wikipedia_articles(1))
    >>> title
    'Anarchism'
    """
    max_articles = _check_max_articles(max_articles)
    path = data_file(FILES["wikipedia"])
    count = 0
    title: str | None = None
    lines: list[str] = []
    with tarfile.open(path, "r|xz") as tar:
        for member in tar:
            if not member.isfile() or not _MEMBER.fullmatch(member.name):
                continue
            # A member is about 1 MB; a streamed tar member is not seekable, so it is read whole and split.
            for line in io.StringIO(tar.extractfile(member).read().decode("utf-8")):  # lines end at "\n" only
                if title is None:
                    match = _DOC_START.match(line)
                    if match:
                        title, lines = html.unescape(match.group(1)), []
                    elif line.strip():
                        raise ValueError(f"{path}: {member.name}: text outside a <doc>: {line[:80]!r}")
                elif line.rstrip("\n") == "</doc>":
                    yield title, "".join(lines).strip("\n")
                    title, lines = None, []
                    count += 1
                    if max_articles is not None and count >= max_articles:
                        return
                else:
                    lines.append(line)
    if title is not None:
        raise ValueError(f"{path}: the last article, {title!r}, has no </doc>")


class WikipediaCorpus:
    """The Wikipedia articles as token lists, re-iterable (e.g. once per training epoch, or for a gensim Dictionary).

    Each iteration streams the archive anew and yields ``tokenize(text, tokenizer)`` for each article.

    Parameters
    ----------
    max_articles : int, optional
        At most this many articles (None: all).
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.

    Examples
    --------
    >>> next(iter(WikipediaCorpus(1)))[:5]
    ['anarchism', 'anarchism', 'is', 'a', 'political']
    """

    def __init__(self, max_articles: int | None = None, tokenizer: str = "paper"):
        self.max_articles = _check_max_articles(max_articles)
        if tokenizer not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {tokenizer!r}; allowed: {', '.join(TOKENIZERS)}")
        self.tokenizer = tokenizer

    def __iter__(self) -> Iterator[list[str]]:
        for _, text in wikipedia_articles(self.max_articles):
            yield tokenize(text, self.tokenizer)

    def __len__(self) -> int:
        return WIKIPEDIA_ARTICLES if self.max_articles is None else min(self.max_articles, WIKIPEDIA_ARTICLES)

    def __repr__(self) -> str:
        return f"WikipediaCorpus(max_articles={self.max_articles!r}, tokenizer={self.tokenizer!r})"


def frequent_words(dictionary: Dictionary, min_count: int) -> set[str]:
    """The ``dictionary``'s words that occur at least ``min_count`` times in the corpus: the words that chapter 2's
    embeddings (trained on the same corpus with that ``min_count``) give a vector.

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
    min_count : int

    Returns
    -------
    set of str

    Examples
    --------
    >>> frequent_words(Dictionary([["a", "b", "a"], ["a", "c"]]), min_count=2)
    {'a'}
    """
    return {dictionary[i] for i, count in dictionary.cfs.items() if count >= min_count}


@dataclasses.dataclass(frozen=True)
class CorpusStatistics:
    """The size of the corpus dictionary's corpus (:func:`corpus_statistics`).

    Parameters
    ----------
    articles, tokens, vocabulary, vocabulary_min_count_5 : int
        Articles, tokens, distinct words, and distinct words that occur at least 5 times.

    Examples
    --------
    See :func:`corpus_statistics`.
    """

    articles: int
    tokens: int
    vocabulary: int
    vocabulary_min_count_5: int


def corpus_dictionary(
    max_articles: int | None, tokenizer: str = "paper", cache: ArtifactCache | None = None
) -> Dictionary:
    """The common dictionary: every token of the Wikipedia corpus (``prune_at=None``, no filtering), as the paper.

    Parameters
    ----------
    max_articles : int or None
        The corpus's first articles (None: all).
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.
    cache : ArtifactCache, optional
        Where the dictionary is kept.

    Returns
    -------
    gensim.corpora.Dictionary
        Every token of those articles.

    Examples
    --------
    >>> import tempfile
    >>> from regemb_utils.infra.cache import ArtifactCache
    >>> with tempfile.TemporaryDirectory() as root:
    ...     dictionary = corpus_dictionary(1, cache=ArtifactCache(root))
    >>> dictionary.num_docs, "anarchism" in dictionary.token2id
    (1, True)
    """
    cache = cache or ArtifactCache()

    def save(dictionary: Dictionary, directory: Path) -> None:
        dictionary.save(str(directory / "dictionary.gensim"))

    def load(directory: Path) -> Dictionary:
        return Dictionary.load(str(directory / "dictionary.gensim"))

    params = {"corpus": "enwiki-2015-wikiextractor-AA", "max_articles": max_articles, "tokenizer": tokenizer}
    return cache.get("corpus-dictionary", params, lambda: _dictionary(max_articles, tokenizer), save, load)


@computes("corpus-dictionary", version=2)
def _dictionary(max_articles: int | None, tokenizer: str) -> Dictionary:
    return Dictionary(WikipediaCorpus(max_articles=max_articles, tokenizer=tokenizer), prune_at=None)


def corpus_statistics(dictionary: Dictionary) -> CorpusStatistics:
    """The articles, tokens and vocabulary of a dictionary's corpus.

    Parameters
    ----------
    dictionary : gensim.corpora.Dictionary
        A corpus dictionary (:func:`corpus_dictionary`).

    Returns
    -------
    CorpusStatistics
        Its sizes.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> corpus_statistics(Dictionary([["a", "b", "a"], ["a"]]))
    CorpusStatistics(articles=2, tokens=4, vocabulary=2, vocabulary_min_count_5=0)
    """
    return CorpusStatistics(
        articles=dictionary.num_docs,
        tokens=dictionary.num_pos,
        vocabulary=len(dictionary),
        vocabulary_min_count_5=sum(1 for count in dictionary.cfs.values() if count >= 5),
    )
