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

import numbers

import numpy as np

__all__ = ["K_VALUES", "ODD_K", "is_odd_k", "top_k", "knn_votes"]

K_VALUES = tuple(range(1, 20, 2))  # the paper's k ∈ {1, 3, …, 19}
ODD_K = "an odd positive integer (the paper's k ∈ {1, 3, …, 19}: odd, so that two classes never tie)"


def is_odd_k(k) -> bool:
    """Whether ``k`` is a kNN's k as the paper's rule needs it: :data:`ODD_K` (the one place that says so; the
    estimators and :class:`regemb_utils.classification.methods.Settings` refuse other values with that text).

    Parameters
    ----------
    k : object
        A candidate k.

    Returns
    -------
    bool
        True for an odd positive integer (not a bool).

    Examples
    --------
    >>> is_odd_k(3), is_odd_k(4), is_odd_k(True), is_odd_k(3.0)
    (True, False, False, False)
    """
    return not isinstance(k, (bool, np.bool_)) and isinstance(k, numbers.Integral) and k >= 1 and k % 2 == 1


def _similarities(similarities) -> np.ndarray:
    similarities = np.asarray(similarities)
    if similarities.ndim != 2:
        raise ValueError("similarities must be a 2-D array [n_queries, n_train]")
    if not np.issubdtype(similarities.dtype, np.floating):
        similarities = similarities.astype(np.float64)
    if np.isnan(similarities).any():
        raise ValueError("similarities contain NaN; define the similarity of every pair first")
    return similarities


def top_k(similarities, k: int) -> np.ndarray:
    """Indices ``[n_queries, k]`` of the ``k`` most similar training documents, best first.

    Ranked by (similarity descending, training index ascending): an argpartition finds the k-th largest value of
    each row, then only rows with a tie that straddles the k-th place are re-ranked exactly.

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
    if n_queries == 0:
        return np.empty((0, k), dtype=np.int64)
    if k == n_train:
        candidates = np.broadcast_to(np.arange(n_train), (n_queries, n_train))
    else:
        candidates = np.argpartition(-similarities, k - 1, axis=1)[:, :k]
    values = np.take_along_axis(similarities, candidates, axis=1)
    # stable order inside the candidate set: by value descending, then index ascending
    order = np.lexsort((candidates, -values), axis=1)
    result = np.take_along_axis(candidates, order, axis=1).astype(np.int64)
    if k == n_train:
        return result
    # rows where some non-selected document ties with the k-th value need the exact rule
    kth = np.take_along_axis(similarities, result[:, -1:], axis=1)
    n_at_least = np.sum(similarities >= kth, axis=1)
    for row in np.flatnonzero(n_at_least > k):
        values_row = similarities[row]
        above = np.flatnonzero(values_row > kth[row, 0])
        tied = np.flatnonzero(values_row == kth[row, 0])
        above = above[np.lexsort((above, -values_row[above]))]
        result[row] = np.concatenate([above, tied[: k - len(above)]])
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
