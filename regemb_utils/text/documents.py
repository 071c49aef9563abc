"""A data set's documents for chapter 4: term counts over the common dictionary, the weighting of a query/reference
pair of splits, and the queries a limited method answers.

All documents are represented over the words of the common dictionary that occur in the data set (columns
``Documents.terms``); restricting the dictionary to these words changes no similarity, distance or weight.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .tokenization import tokenize

__all__ = ["Documents", "prepare_documents", "query_rows", "stratified_order"]


def bow_matrix(documents: Iterable[Sequence[str]], dictionary, dtype=np.float64) -> sparse.csr_matrix:
    """Raw term counts of tokenised ``documents`` over ``dictionary`` (a gensim ``Dictionary``).

    Tokens that are not in the dictionary are dropped; rows are documents, columns dictionary ids, and each row's
    indices are sorted. An empty document (or one without a known word) is an all-zero row.

    Parameters
    ----------
    documents : iterable of sequence of str
        Tokenized documents.
    dictionary : gensim.corpora.Dictionary
        The columns.
    dtype : numpy dtype
        Of the counts.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``[n_documents, len(dictionary)]`` counts.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> bow_matrix([["a", "b", "a"], ["z"]], Dictionary([["a", "b"]])).toarray()
    array([[2., 1.],
           [0., 0.]])
    """
    if isinstance(documents, str):
        raise TypeError("documents must be an iterable of token lists, not a string")
    token2id = dictionary.token2id
    n_terms = len(dictionary)
    indptr = [0]
    indices: list[np.ndarray] = []
    data: list[np.ndarray] = []
    for document in documents:
        if isinstance(document, str):
            raise TypeError("each document must be a sequence of tokens, not a string")
        ids = [token2id[token] for token in document if token in token2id]
        if ids:
            uniq, counts = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        else:
            uniq = np.empty(0, dtype=np.int64)
            counts = np.empty(0, dtype=np.int64)
        indices.append(uniq)
        data.append(counts)
        indptr.append(indptr[-1] + len(uniq))
    matrix = sparse.csr_matrix(
        (
            np.concatenate(data).astype(dtype) if data else np.empty(0, dtype),
            np.concatenate(indices).astype(np.int32) if indices else np.empty(0, np.int32),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(indptr) - 1, n_terms),
    )
    matrix.has_sorted_indices = True
    return matrix


@dataclass
class Documents:
    """One data set's splits as term counts over the common-dictionary words that occur in it.

    Parameters
    ----------
    name : str
        The data set's name.
    class_names : tuple of str
        The labels' names.
    terms : numpy.ndarray
        Common-dictionary ids of the columns.
    counts : dict of str to scipy.sparse.csr_matrix
        Raw term counts per split.
    labels : dict of str to numpy.ndarray
        Integer labels per split.
    char_lengths : dict of str to numpy.ndarray
        Characters of every document's tokens, per split (the dtb weighting's document length).

    Examples
    --------
    See :func:`prepare_documents`.
    """

    name: str
    class_names: tuple[str, ...]
    terms: np.ndarray  # common-dictionary ids of the columns
    counts: dict[str, sparse.csr_matrix]  # split -> raw counts
    labels: dict[str, np.ndarray]
    char_lengths: dict[str, np.ndarray]  # split -> Σ len(token) of every document (before dictionary filtering)

    def split(self, which: str) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
        """Counts, labels and character lengths of ``which``: a split name or ``"train+validation"``."""
        names = which.split("+")
        unknown = [name for name in names if name not in self.counts]
        if unknown:
            raise ValueError(f"unknown split {which!r}; allowed: train, validation, test, train+validation")
        return (
            sparse.csr_matrix(sparse.vstack([self.counts[n] for n in names], format="csr")),
            np.concatenate([self.labels[n] for n in names]),
            np.concatenate([self.char_lengths[n] for n in names]),
        )

    @property
    def n_labels(self) -> int:
        return len(self.class_names)


def prepare_documents(dataset, dictionary, tokenizer: str = "paper") -> Documents:
    """Tokenize a :class:`regemb_utils.text.datasets.Dataset` and count its words over the common ``dictionary``.

    Parameters
    ----------
    dataset : Dataset
        Its splits are tokenized.
    dictionary : gensim.corpora.Dictionary
        The common dictionary; words outside it are dropped.
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.

    Returns
    -------
    Documents
        Term counts over the dictionary's words that occur in the data set (``Documents.terms``).

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> data = dataset_from_texts("toy", ["a b", "b c", "c d", "d a", "a a", "b b", "c c", "d d"], [0, 1] * 4,
    ...                           test_size=2)
    >>> documents = prepare_documents(data, Dictionary([["a", "b", "c"]]))
    >>> documents.terms.tolist(), documents.split("test")[0].toarray().tolist()
    ([0, 1, 2], [[0.0, 1.0, 1.0], [0.0, 2.0, 0.0]])
    """
    tokens = {name: [tokenize(text, tokenizer) for text in split.texts] for name, split in dataset.splits.items()}
    counts = {name: bow_matrix(documents, dictionary) for name, documents in tokens.items()}
    terms = np.unique(np.concatenate([m.indices for m in counts.values()])).astype(np.int64)
    counts = {name: sparse.csr_matrix(m[:, terms]) for name, m in counts.items()}
    lengths = {
        name: np.array([sum(map(len, d)) for d in documents], dtype=np.float64) for name, documents in tokens.items()
    }
    labels = {name: np.asarray(split.labels, dtype=np.int64) for name, split in dataset.splits.items()}
    return Documents(dataset.name, tuple(dataset.class_names), terms, counts, labels, lengths)


QUERY_SEED = 42


def query_rows(n: int, limit: int | None, seed: int = QUERY_SEED) -> np.ndarray:
    """The sorted rows that limited methods answer, the same for each (paired): all ``n``, or ``limit`` by ``seed``.

    Parameters
    ----------
    n, limit, seed : int

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> query_rows(5, None).tolist(), len(query_rows(100, 10)), bool((query_rows(9, 3) == query_rows(9, 3)).all())
    ([0, 1, 2, 3, 4], 10, True)
    """
    if limit is None or limit >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).permutation(n)[:limit])


def stratified_order(labels, seed: int = QUERY_SEED) -> np.ndarray:
    """A seeded, class-stratified order of a split's rows (a permutation of ``range(len(labels))``) whose every
    prefix holds each class in about its proportion: within ±1 of ``prefix length × class share``.

    Each class's rows are shuffled (seeded) and the classes are interleaved by Tijdeman's (1980) solution of the
    chairman assignment problem: with k classes and C = 1 − 1/(2(k − 1)), position t goes to the class, among those
    that may take a row now (t·share − taken ≥ 1 − C), whose next row is due first (the smallest
    (taken + C)/share; ties to a seeded random class priority). Every prefix then deviates from proportional by at
    most C < 1 row per class. A WMD method asked for fewer than all queries answers a prefix of this order: every method and every sample size gets
    the same queries, and a larger sample extends a smaller one.

    Parameters
    ----------
    labels : array_like
        The split's labels.
    seed : int
        The seed of the shuffles and of the class priority.

    Returns
    -------
    numpy.ndarray
        A permutation of the rows.

    Examples
    --------
    >>> labels = [0] * 6 + [1] * 3
    >>> order = stratified_order(labels)
    >>> sorted(order.tolist()) == list(range(9)), [labels[i] for i in order[:3]].count(1)
    (True, 1)
    """
    labels = np.asarray(labels)
    n = len(labels)
    rng = np.random.default_rng(seed)
    classes, codes = np.unique(labels, return_inverse=True)
    k = len(classes)
    queues = [rng.permutation(np.flatnonzero(codes == c)) for c in range(k)]
    sizes = np.array([len(q) for q in queues], dtype=np.int64)
    share = sizes / max(n, 1)
    bound = 1 - 1 / (2 * (k - 1)) if k > 1 else 0.0
    priority = rng.permutation(k)  # tie-break among equal deadlines
    taken = np.zeros(k, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    for t in range(1, n + 1):
        eligible = (taken < sizes) & (t * share - taken >= 1 - bound - 1e-9)
        if not eligible.any():  # pragma: no cover (Tijdeman's theorem)
            eligible = taken < sizes
        due = np.where(eligible, (taken + bound) / np.where(share > 0, share, 1), np.inf)
        best = np.flatnonzero(due <= due.min() + 1e-9)
        c = best[np.argmin(priority[best])]
        order[t - 1] = queues[c][taken[c]]
        taken[c] += 1
    return order
