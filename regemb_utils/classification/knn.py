"""k-nearest-neighbour classification from a similarity matrix (paper Algorithm 1, §5.4).

One top-``max(ks)`` search per query, then majority votes for every k at once.

Tie rules (both deterministic):

* **Equal similarities at the k-th place**: neighbours are ranked by similarity (descending) and, among equal
  similarities, by **training index (ascending)** – the lower training index wins. The paper's code used
  ``np.argpartition``, whose choice among ties is arbitrary; this rule makes the result reproducible.
* **Equal votes**: the label with the **lowest label id** wins among the labels with the most votes – the rule of
  ``scipy.stats.mode`` that the paper's code used.

Similarities may contain ±inf (e.g. 1/WMD with a zero distance) but not NaN. For a distance, pass ``-distance``.
"""

from __future__ import annotations

import numba
import numpy as np

from ..infra.constraints import integer
from ..infra.keys import same_result_as
from .reference import _similarities
from .reference import top_k as top_k_by_partition

__all__ = ["K_VALUES", "K", "top_k", "knn_votes"]

K_VALUES = tuple(range(1, 20, 2))  # the paper's k ∈ {1, 3, …, 19}
# "k is odd", said once: the estimators, Settings and chapter 4's parameters check k with it
K = integer(
    1, odd=True, allowed="an odd positive integer (the paper's k ∈ {1, 3, …, 19}: odd, so that two classes never tie)"
)


@numba.njit(nogil=True, cache=True)
def _top_k_rows(similarities, k, out):  # pragma: no cover - numba
    """One pass over each row, keeping its best k so far in (value descending, index ascending) order: a later
    element enters only with a larger value than the k-th (an equal one has the larger index, so it ranks after),
    and goes after every kept element of at least its value."""
    values = np.empty(k, dtype=similarities.dtype)
    for q in range(similarities.shape[0]):
        kept = 0
        for j in range(similarities.shape[1]):
            v = similarities[q, j]
            if kept == k:
                if not v > values[k - 1]:
                    continue
                p = k - 1
            else:
                p = kept
                kept += 1
            while p > 0 and values[p - 1] < v:
                values[p] = values[p - 1]
                out[q, p] = out[q, p - 1]
                p -= 1
            values[p] = v
            out[q, p] = j


@same_result_as(top_k_by_partition)  # exact: the same indices (tests), in one pass instead of a partition and a sort
def top_k(similarities, k: int) -> np.ndarray:
    """Indices ``[n_queries, k]`` of the ``k`` most similar training documents, best first.

    Ranked by (similarity descending, training index ascending), in one pass over each row (a compiled loop that
    keeps the best k so far; ``top_k_by_partition``, :mod:`regemb_utils.classification.reference`'s ``top_k``, is
    the NumPy definition it equals).

    Parameters
    ----------
    similarities : array_like
        ``[n_queries, n_train]``; larger is more similar, no NaN.
    k : int
        Neighbours per query.

    Returns
    -------
    numpy.ndarray
        ``[n_queries, k]`` training indices.

    Examples
    --------
    >>> top_k([[0.5, 0.9, 0.5]], 2).tolist()
    [[1, 0]]
    """
    similarities = _similarities(similarities)
    n_queries, n_train = similarities.shape
    if not 1 <= k <= n_train:
        raise ValueError(f"k must lie in [1, n_train = {n_train}], got {k}")
    result = np.empty((n_queries, k), dtype=np.int64)
    _top_k_rows(np.ascontiguousarray(similarities), k, result)
    return result


def knn_votes(neighbour_labels: np.ndarray, ks=K_VALUES, n_labels: int | None = None) -> np.ndarray:
    """Predictions ``[len(ks), n_queries]`` from neighbour labels ``[n_queries, ≥ max(ks)]`` (best first).

    Parameters
    ----------
    neighbour_labels : numpy.ndarray
        Labels of the neighbours, best first (e.g. ``train_labels[top_k(similarities, max(ks))]``).
    ks : sequence of int
        The k to vote with.
    n_labels : int, optional
        Labels are ``0 .. n_labels - 1``.

    Returns
    -------
    numpy.ndarray
        ``[len(ks), n_queries]`` predicted labels.

    Examples
    --------
    >>> knn_votes([[2, 1, 1]], ks=(1, 3)).tolist()
    [[2], [1]]
    """
    neighbour_labels = np.asarray(neighbour_labels)
    if neighbour_labels.ndim != 2:
        raise ValueError("neighbour_labels must be 2-D")
    if neighbour_labels.size and neighbour_labels.min() < 0:
        raise ValueError("labels must be non-negative integers")
    ks = tuple(int(k) for k in ks)
    if not ks or min(ks) < 1 or max(ks) > neighbour_labels.shape[1]:
        raise ValueError(f"every k must lie in [1, {neighbour_labels.shape[1]}], got {ks}")
    if n_labels is None:
        n_labels = int(neighbour_labels.max()) + 1 if neighbour_labels.size else 1
    n_queries, depth = neighbour_labels.shape
    one_hot = np.zeros((n_queries, depth, n_labels), dtype=np.int32)
    one_hot[np.arange(n_queries)[:, None], np.arange(depth)[None, :], neighbour_labels] = 1
    counts = np.cumsum(one_hot, axis=1)  # counts[:, k - 1, label] = votes among the first k neighbours
    # argmax returns the first maximum, i.e. the lowest label id among tied votes
    return np.stack([np.argmax(counts[:, k - 1, :], axis=1) for k in ks])
