"""The exact WMD's k nearest neighbours for many queries: in batches over the cores, each batch kept in the artifact
cache ("wmd-batch") so that a killed run resumes and a larger sample reuses a smaller one's, and the finished queries
kept in the stored results of ``results/wmd/`` (:class:`regemb_utils.classification.wmd_store.WmdStore`)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import joblib
import numpy as np
from scipy import sparse

from ..infra.cache import ArtifactCache
from ..infra.keys import computes, fingerprint
from ..infra.progress import progress_bar
from ..measures.wmd import wmd_knn
from .timing import one_core, warm_up
from .wmd_store import query_fingerprints, search_version

__all__ = ["WMD_BATCH", "STORE_EVERY", "wmd_neighbours", "base_key", "checked_stored"]

# Queries per cached WMD batch: a batch is the unit that a killed run loses and that a cluster schedules; fixed (not
# derived from the cores or the sample size) so that every run cuts the fixed query order at the same positions.
WMD_BATCH = 8


def _wmd_batch(Q, R, embeddings, k, solver):
    warm_up()
    start = time.process_time()  # CPU seconds: waiting for a core on a shared machine does not count
    with one_core():
        result = wmd_knn(Q, R, embeddings, k, solver=solver, n_jobs=1)
    return result.indices, result.solved, time.process_time() - start, result.distances


def wmd_neighbours(
    Q,
    R,
    embeddings,
    k: int,
    *,
    solver: str = "pot",
    n_jobs: int | None = 1,
    progress: bool = False,
    batch_size: int | None = None,
    description: str = "WMD",
    cache: ArtifactCache | None = None,
    key: Mapping[str, Any] | None = None,
    store=None,
):
    """Exact WMD k nearest neighbours, queries in batches through joblib; (indices, Σ seconds, EMD solves).

    With a ``cache``, the rows of ``Q`` are positions 0, 1, ... of a fixed query order and every batch is an artifact
    "wmd-batch" (see :func:`_wmd_batches`): a killed run resumes with the batches it finished, and a larger prefix of
    the same order reuses the batches of a smaller one. ``key`` adds labels to the batches' keys (data set, method,
    split). With a ``store`` (:class:`regemb_utils.classification.wmd_store.WmdStore`, needs the cache and those labels), stored
    results whose key matches are used (a sample of them recomputed and compared), the rest computed, and the file
    rewritten when the run has more queries than it held.

    Parameters
    ----------
    Q, R : scipy.sparse matrix
        nBOW queries and references over the same columns.
    embeddings : numpy.ndarray
        One row per column.
    k : int
        Neighbours per query.
    solver : str
        The EMD solver.
    n_jobs : int, optional
        joblib workers.
    progress : bool
        Show a progress bar.
    batch_size : int, optional
        Queries per batch.
    description : str
        The progress bar's label.
    cache : ArtifactCache, optional
        Keep every batch as an artifact.
    key : mapping, optional
        Labels of the batches' keys.
    store : regemb_utils.classification.wmd_store.WmdStore, optional
        Stored results to reuse and update.

    Returns
    -------
    (numpy.ndarray, float, int)
        ``[n_queries, k]`` indices of the nearest references (nearest first), the one-core seconds, and the EMD problems
        solved.

    Raises
    ------
    ValueError
        For a ``store`` without a ``cache``.

    Examples
    --------
    >>> Q = sparse.csr_matrix([[1.0, 0, 0], [0, 0, 1.0]])
    >>> R = sparse.csr_matrix([[0, 1.0, 0], [1.0, 0, 0], [0, 0.5, 0.5]])
    >>> E = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> indices, seconds, solved = wmd_neighbours(Q, R, E, k=2)
    >>> indices.tolist(), solved
    ([[1, 0], [2, 1]], 4)
    """
    Q = sparse.csr_matrix(Q)
    if cache is not None:
        return _wmd_batches(
            Q,
            R,
            embeddings,
            k,
            solver=solver,
            n_jobs=n_jobs,
            progress=progress,
            batch_size=batch_size or WMD_BATCH,
            description=description,
            cache=cache,
            key=key or {},
            store=store,
        )
    if store is not None:
        raise ValueError("stored WMD results need the artifact cache (cache=...) for the queries they lack")
    n = Q.shape[0]
    if batch_size is None:
        workers = joblib.effective_n_jobs(n_jobs)
        batch_size = int(min(64, max(1, math.ceil(n / (4 * workers)))))
    batches = [np.arange(start, min(start + batch_size, n)) for start in range(0, n, batch_size)]
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    outcomes = parallel(joblib.delayed(_wmd_batch)(Q[rows], R, embeddings, k, solver) for rows in batches)

    outcomes = list(progress_bar(outcomes, total=len(batches), disable=not progress, desc=description, unit="batch"))
    if not outcomes:
        return np.empty((0, k), dtype=np.int64), 0.0, 0
    return (
        np.concatenate([o[0] for o in outcomes]),
        float(sum(o[2] for o in outcomes)),
        int(sum(o[1].sum() for o in outcomes)),
    )


def base_key(key, R, embeddings, k, solver) -> dict:
    """The key of a run's WMD batches and stored results (without the query positions).

    Parameters
    ----------
    key : mapping
        The run's labels (data set, method, split, reference split).
    R : scipy.sparse matrix
        The reference documents (by content).
    embeddings : numpy.ndarray
        The embedding rows (by content).
    k : int
        Neighbours per query.
    solver : str
        The EMD solver.

    Returns
    -------
    dict
        The labels with the content fingerprints, k, the solver and the search's code version.

    Examples
    --------
    >>> key = base_key({"dataset": "toy"}, sparse.eye(2, format="csr"), np.eye(2), 1, "pot")
    >>> sorted(key)
    ['dataset', 'embeddings', 'k', 'reference', 'search', 'solver']
    """
    return dict(
        key,
        reference=fingerprint(sparse.csr_matrix(R)),
        embeddings=fingerprint(embeddings),
        k=int(k),
        solver=solver,
        search=search_version(),
    )


STORE_EVERY = 300.0  # seconds between writes of a long WMD run's finished queries to its stored results


def checked_stored(store, base, Q, R, embeddings, k, solver):
    """(fingerprints of the rows of Q, the stored results usable for them), a seeded sample of which is recomputed and
    compared first (:meth:`regemb_utils.classification.wmd_store.WmdStore.verify` stops the run if one differs).

    Parameters
    ----------
    store : regemb_utils.classification.wmd_store.WmdStore
        The stored results.
    base : dict
        The run's :func:`base_key`.
    Q, R : scipy.sparse matrix
        The queries in their fixed order, and the reference documents.
    embeddings : numpy.ndarray
        The embedding rows.
    k : int
        Neighbours per query.
    solver : str
        The EMD solver.

    Returns
    -------
    (numpy.ndarray, regemb_utils.classification.wmd_store.Stored)
        The queries' fingerprints and the stored results of their leading queries.

    Examples
    --------
    See ``tests/classification/test_wmd_store.py``: a run reuses, checks and extends its stored results.
    """
    fingerprints = query_fingerprints(Q)
    stored = store.load(base, fingerprints)
    if len(stored):
        checked = store.sample(stored)
        indices, _, _, distances = _wmd_batch(Q[checked], R, embeddings, k, solver)
        store.verify(stored, checked, indices, distances)
    return fingerprints, stored


@computes("wmd-batch")
def _positioned_batch(start, stop, Q, R, embeddings, k, solver):
    indices, solved, seconds, distances = _wmd_batch(Q, R, embeddings, k, solver)
    return (
        start,
        stop,
        {
            "indices": np.asarray(indices, dtype=np.int64),
            "solved": int(np.sum(solved)),
            "seconds": float(seconds),
            "distances": np.asarray(distances, dtype=np.float64),
            "solved per query": np.asarray(solved, dtype=np.int64),
        },
    )


def _wmd_batches(Q, R, embeddings, k, *, solver, n_jobs, progress, batch_size, description, cache, key, store):
    """The cached path of :func:`wmd_neighbours`.

    A batch covers positions [start, stop) of the query order; batches end at multiples of ``batch_size`` (or at the
    sample's end). Its key holds the content of its query rows, of the reference set and of the embedding rows, k,
    the solver and its positions. Before computing the batch [p, end), the largest cached batch [p, s) with
    s ≤ end is taken instead (a smaller sample's last, partial batch), and the rest is computed from s. Computed
    batches are stored by this process as they arrive (in any order), so an interrupted run keeps every finished
    batch. Loaded batches bring the one-core seconds measured when they were computed. With a ``store``, the finished
    queries from position 0 on are also written to it every :data:`STORE_EVERY` seconds and at the end, so that a
    run stopped (or whose batch cache a code change elsewhere invalidates) keeps them."""
    n = Q.shape[0]
    base = base_key(key, R, embeddings, k, solver)

    def params(start, stop):
        return dict(base, start=int(start), stop=int(stop), queries=fingerprint(Q[start:stop]))

    found: dict[int, tuple[int, dict]] = {}
    todo: list[tuple[int, int]] = []
    position = 0
    if store is not None:
        fingerprints, stored = checked_stored(store, base, Q, R, embeddings, k, solver)
        if len(stored):
            found[0] = (
                len(stored),
                {
                    "indices": stored.indices,
                    "distances": stored.distances,
                    "seconds": float(stored.seconds.sum()),
                    "solved": int(stored.solved.sum()),
                    "solved per query": stored.solved,
                    "seconds per query": stored.seconds,
                },
            )
            position = len(stored)
    while position < n:
        end = min((position // batch_size + 1) * batch_size, n)
        for stop in range(end, position, -1):
            if cache.has("wmd-batch", params(position, stop)):
                value = cache.get("wmd-batch", params(position, stop), _absent)
                found[position] = (stop, value)
                position = stop
                break
        else:
            todo.append((position, end))
            position = end
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    outcomes = parallel(
        joblib.delayed(_positioned_batch)(start, stop, Q[start:stop], R, embeddings, k, solver) for start, stop in todo
    )

    held = stored.total if store is not None else 0  # the queries the stored file holds
    saved = time.monotonic()
    for start, stop, value in progress_bar(
        outcomes, total=len(todo), disable=not progress or not todo, desc=description, unit="batch"
    ):
        cache.get("wmd-batch", params(start, stop), lambda v=value: v)
        found[start] = (stop, value)
        if store is not None and time.monotonic() - saved >= STORE_EVERY:
            held, saved = _store_prefix(store, base, fingerprints, found, held), time.monotonic()
    if not found:
        return np.empty((0, k), dtype=np.int64), 0.0, 0
    if store is not None:
        _store_prefix(store, base, fingerprints, found, held)
    batches = [found[start][1] for start in sorted(found)]
    indices = np.concatenate([b["indices"] for b in batches])
    return indices, float(sum(b["seconds"] for b in batches)), int(sum(b["solved"] for b in batches))


def _store_prefix(store, base, fingerprints, found, held: int) -> int:
    """Write the finished batches that follow each other from position 0 to ``store`` when they are more queries than
    the ``held`` it holds; the queries it holds afterwards."""
    batches, position = [], 0
    while position in found:
        stop, batch = found[position]
        batches.append(batch)
        position = stop
    if position <= held:
        return held
    seconds = [
        b.get("seconds per query", np.full(len(b["indices"]), b["seconds"] / len(b["indices"]))) for b in batches
    ]  # per query: as stored, or the batch's time spread evenly
    store.save(
        base,
        fingerprints[:position],
        np.concatenate([b["indices"] for b in batches]),
        np.concatenate([b["distances"] for b in batches]),
        np.concatenate(seconds),
        np.concatenate([b["solved per query"] for b in batches]),
    )
    return position


def _absent():  # pragma: no cover
    raise RuntimeError("a cached WMD batch vanished")
