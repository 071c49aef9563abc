"""The definition of S' (both fill rules) as a plain Python loop over a neighbour cache: slow, small and obvious.

:mod:`regemb_utils.termsim.matrix` computes the same matrices fast (shared column-order arrays, numba kernels, a
parallel CSC assembly); the tests check it against :func:`reference_term_similarity_matrix` entry for entry, and
this function against gensim's ``SparseTermSimilarityMatrix`` (``fill_rule="gensim"``) and a transcription of the
paper's fork (``fill_rule="paper"``). See the docstring of :mod:`regemb_utils.termsim.matrix` for the semantics.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["reference_term_similarity_matrix"]


def _power(similarity: float, exponent: float) -> float:
    """CPython's ``similarity ** exponent`` (float64), what gensim's ``WordEmbeddingSimilarityIndex`` computes."""
    return similarity**exponent


def reference_term_similarity_matrix(
    neighbours,
    dictionary,
    tfidf=None,
    *,
    nonzero_limit: int = 100,
    threshold: float = 0.0,
    exponent: float = 2.0,
    symmetric: bool = True,
    dominant: bool = False,
    fill_rule: str = "paper",
) -> sparse.csc_matrix:
    """S' by the greedy column-filling loop, one column and one candidate at a time (float32 CSC, sorted indices).

    Parameters
    ----------
    neighbours : regemb_utils.termsim.matrix.Neighbours
        The neighbour cache (``most_similar`` of every dictionary word with an embedding).
    dictionary : gensim.corpora.Dictionary
        The rows and columns.
    tfidf : gensim.models.TfidfModel, optional
        Orders the columns (and each column's candidates) by idf descending, ties by id; None: by id.
    nonzero_limit, threshold, exponent, symmetric, dominant, fill_rule
        As :meth:`regemb_utils.termsim.matrix.TermSimilarityBuilder.build`.

    Returns
    -------
    scipy.sparse.csc_matrix
        S'.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from .matrix import nearest_neighbours
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> S = reference_term_similarity_matrix(nearest_neighbours(kv, depth=2, progress=False),
    ...                                      Dictionary([["a", "b", "c"]]), nonzero_limit=1, exponent=1.0)
    >>> S.toarray().round(2)
    array([[1. , 0.8, 0. ],
           [0.8, 1. , 0. ],
           [0. , 0. , 1. ]], dtype=float32)
    """
    paper = fill_rule == "paper"
    n = len(dictionary)
    token2id = dictionary.token2id
    if tfidf is None:

        def key(term_id):
            return term_id
    else:

        def key(term_id):
            return (-tfidf.idfs[term_id], term_id)

    columns = sorted(range(n), key=key)

    def most_similar(term_id, topn):
        """(term id, similarity ** exponent) of the top ``topn`` neighbours in the dictionary, above the threshold."""
        row = neighbours.row_of.get(dictionary[term_id])
        if row is None:
            return []
        found = []
        for index, similarity in zip(neighbours.indices[row][:topn], neighbours.similarities[row][:topn]):
            word = neighbours.keys[index]
            similarity = float(similarity)
            if word in token2id and similarity > threshold:
                found.append((token2id[word], _power(similarity, exponent)))
        return found

    nonzero = [0] * n  # off-diagonal entries per column
    column_sum = np.zeros(n, dtype=np.float32)  # the dominance sums, float32 as in gensim and the fork
    entries = {}  # (row, column) -> float32 value
    for t1 in columns:
        topn = nonzero_limit - nonzero[t1]
        if topn <= 0:
            continue
        for t2, value in sorted(most_similar(t1, topn), key=lambda candidate: key(candidate[0])):
            magnitude = abs(value)
            if paper:  # the fork: numpy 1.16 summed float32 + float in float64; a violation of t1 ends the column
                if dominant and float(column_sum[t1]) + magnitude >= 1.0:
                    break
                room = not symmetric or (
                    nonzero[t2] < nonzero_limit and (not dominant or float(column_sum[t2]) + magnitude < 1.0)
                )
            else:  # gensim 4 (numpy 2: float32 + float is float32): any violation skips the candidate
                one, magnitude32 = np.float32(1.0), np.float32(magnitude)
                room = nonzero[t1] < nonzero_limit and not (dominant and column_sum[t1] + magnitude32 >= one)
                if symmetric:
                    room = (
                        room and nonzero[t2] < nonzero_limit and not (dominant and column_sum[t2] + magnitude32 >= one)
                    )
            if not room or (t2, t1) in entries:
                continue
            pairs = ((t2, t1), (t1, t2)) if symmetric else ((t2, t1),)
            for row, column in pairs:
                entries[row, column] = np.float32(value)
                nonzero[column] += 1
                if dominant and paper:
                    column_sum[column] = np.float32(float(column_sum[column]) + magnitude)
                elif dominant:
                    column_sum[column] = column_sum[column] + np.float32(magnitude)
    for term_id in range(n):
        entries[term_id, term_id] = np.float32(1.0)
    (rows, cols), values = zip(*entries), np.array(list(entries.values()), dtype=np.float32)
    matrix = sparse.csc_matrix((values, (np.array(rows), np.array(cols))), shape=(n, n), dtype=np.float32)
    matrix.sort_indices()
    return matrix
