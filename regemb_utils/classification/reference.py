"""The NumPy definition of the kNN ranking that :func:`regemb_utils.classification.knn.top_k` computes in one
compiled pass: kept as the reference that the tests compare it with and that defines the keys of stored results
(:func:`regemb_utils.infra.keys.same_result_as`; a definition hashes with its name, so it keeps the name ``top_k``
here)."""

from __future__ import annotations

import numpy as np

__all__: list[str] = []  # the package's top_k is knn's


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
