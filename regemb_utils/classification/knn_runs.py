"""Chapter 4's timed kNN runs: one method on every data set, with model selection (paper §5.4–§6; the appendix on
the paper's code).

For each data set and method:

1. **model selection** on the validation split: every grid point of the method (the dtb slope for the soft VSMs, the
   whole orthogonalization grid for the sparse SCM, nothing else for BoW, TF-IDF L1 and the WMDs) is evaluated with
   the training split as the reference set, for every k at once (one top-max(k) search); the row with the highest
   validation accuracy wins, ties going to the earliest grid point, then to the smallest k (the appendix on the
   paper's code, :func:`regemb_utils.classification.selection.select_grid`);
2. the **test run** at the chosen grid point, with the training split as the reference set (the paper's choice;
   the appendix on the paper's code, "The reference set at test time") or, with ``reference="train+validation"``,
   the training and validation splits;
3. the result (:class:`MethodResult`: the validation table, the chosen parameters, the test predictions for every k,
   the timings and the documents with xᵀS'x ≤ 0) is stored in the artifact cache, one artifact per data set and
   method.

Grid points run through :func:`regemb_utils.classification.selection.evaluate_grid_in_batches` (joblib: every local core, or a dask cluster
under ``joblib.parallel_backend("dask")``); each grid point of the sparse SCM builds S' **once** and evaluates it on
every data set, because the matrices depend on the embedding and the common dictionary only (as in the paper's code).
The worker processes load the neighbour cache and the dictionary from the artifact cache themselves
(:class:`regemb_utils.termsim.sources.CachedMatrices`), so a task carries only its grid point and the documents. WMD
queries run in batches through joblib too.

Timing: every similarity computation runs on **one core** (BLAS and numba limited to one thread) and is timed in
CPU seconds of its process (``time.process_time``: time spent waiting for a core on a shared machine does not count)
without building S' and without the document representation, so Σ pairs / Σ seconds is pairs per second per core
(the paper's Figure 9; it pooled the validation grid runs and the test runs of all data sets, and so do we).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..infra.cache import ArtifactCache
from ..infra.keys import computes
from ..termsim.sources import restricted
from ..text.documents import Documents, query_rows, stratified_order
from .engine import Inputs, Measure
from .knn import knn_votes
from .methods import represent_pair
from .selection import evaluate_grid_in_batches, select_grid
from .settings import Settings
from .timing import Run  # also where the results pickled before Run had its own module find it
from .wmd_batches import base_key, checked_stored
from .wmd_store import WmdStore

__all__ = ["MethodResult"]


@dataclass
class _Task:
    """Everything a grid point needs; picklable (joblib and dask ship it to their workers)."""

    method: str
    documents: dict[str, Documents]
    embeddings: dict[str, np.ndarray] | None
    matrices: Any  # InMemoryMatrices | CachedMatrices | None
    ks: tuple[int, ...]
    solver: str = "pot"
    n_jobs: int | None = 1  # inside a run (WMD batches); 1 inside grid-point workers
    progress: bool = False
    query_limits: dict[str, Any] = field(default_factory=dict)  # data set -> {split: at most this many queries}
    cache: ArtifactCache | None = None  # where the WMD batches are kept (None: not kept)
    store: Any = None  # regemb_utils.classification.wmd_store.WmdStore: stored WMD results (None: not used)

    def _limit(self, name: str, split: str) -> int | None:
        limit = self.query_limits.get(name)
        return limit.get(split) if isinstance(limit, Mapping) else limit

    def _wmd_queries(self, name: str, queries: str, reference: str):
        """WMD: (Q, R, the rows of the query split in the order they are answered) – a prefix of the fixed,
        class-stratified order."""
        documents = self.documents[name]
        Q, R = represent_pair(self.method, documents, queries, reference, 0.0)
        limit = self._limit(name, queries)
        order = stratified_order(documents.split(queries)[1])
        chosen = order if limit is None else order[:limit]
        return Q[chosen], R, chosen

    def _batch_key(self, name: str, queries: str, reference: str) -> dict:
        return {"dataset": name, "method": self.method, "split": queries, "reference_split": reference}

    def check_stored(self, name: str, queries: str, reference: str) -> None:
        """Recompute a seeded sample of the stored WMD results of one split and stop if one differs (a run whose
        results come from the artifact cache checks its stored results too)."""
        Q, R, _ = self._wmd_queries(name, queries, reference)
        base = base_key(self._batch_key(name, queries, reference), R, self.embeddings[name], max(self.ks), self.solver)
        checked_stored(self.store, base, Q, R, self.embeddings[name], max(self.ks), self.solver)

    def run(self, name: str, point: Mapping[str, Any], queries: str, reference: str, S=None):
        """kNN votes for every k, the timed run, and the rows of the query split that were answered (sorted)."""
        documents = self.documents[name]
        measure = Measure.of(self.method)
        wmd = measure.transport
        if wmd:  # a prefix of the fixed, class-stratified order; answered in that order, then sorted back
            Q, R, chosen = self._wmd_queries(name, queries, reference)
        else:
            Q, R = represent_pair(self.method, documents, queries, reference, point.get("slope", 0.0))
            limit = self._limit(name, queries)
            rows = query_rows(Q.shape[0], limit)
            if len(rows) < Q.shape[0]:
                Q = Q[rows]
        if S is not None:
            S = restricted(S, documents.terms)
        indices, run = measure.neighbours(
            Q,
            R,
            max(self.ks),
            Inputs(embeddings=None if self.embeddings is None else self.embeddings[name]),
            S,
            split=queries,
            solver=self.solver,
            n_jobs=self.n_jobs,
            progress=self.progress,
            description=f"{self.method} {name} {queries}",
            cache=self.cache if wmd else None,
            batch_key=self._batch_key(name, queries, reference),
            store=self.store if wmd else None,
        )
        if wmd:
            sort = np.argsort(chosen, kind="stable")
            rows, indices = chosen[sort], indices[sort]
        reference_labels = documents.split(reference)[1]
        votes = knn_votes(reference_labels[indices], self.ks, n_labels=documents.n_labels)
        return dict(zip(self.ks, votes)), run, rows


def _validation_point(task: _Task, point: dict[str, Any]) -> dict[str, tuple[dict[int, float], Run]]:
    """Error rates per k on the validation split of every data set at one grid point (S' built once for all)."""
    S = task.matrices.build(point) if Measure.of(task.method).needs_matrices else None
    outcome = {}
    for name, documents in task.documents.items():
        votes, run, rows = task.run(name, point, "validation", "train", S)
        truth = documents.labels["validation"][rows]
        outcome[name] = ({k: int(np.sum(v != truth)) / len(truth) for k, v in votes.items()}, run)
    return outcome


@dataclass
class MethodResult:
    """One method on one data set: model selection, the test run, and their cost.

    Parameters
    ----------
    dataset, method : str
        Which.
    params : dict
        The chosen grid point and k.
    validation : pandas.DataFrame
        One row per (grid point, k).
    truth : numpy.ndarray
        Test labels of the answered queries.
    predictions : dict of int to numpy.ndarray
        Test predictions for every k.
    runs : list of Run
        Every validation grid run, then the test run.
    test_rows : numpy.ndarray or None
        The answered rows of the test split (None: all).

    Examples
    --------
    See :func:`regemb_utils.classification.experiment.classify`.
    """

    dataset: str
    method: str
    params: dict[str, Any]  # the chosen grid point and k
    validation: pd.DataFrame  # one row per (grid point, k): its parameters, errors, error
    truth: np.ndarray  # test labels of the answered queries
    predictions: dict[int, np.ndarray]  # test predictions for every k at the chosen grid point
    runs: list[Run] = field(default_factory=list)  # every validation grid run, then the test run
    test_rows: np.ndarray | None = None  # the answered rows of the test split (None: all of them)

    def rows(self) -> np.ndarray:
        return np.arange(len(self.truth)) if self.test_rows is None else self.test_rows

    @property
    def k(self) -> int:
        return int(self.params["k"])

    @property
    def test_errors(self) -> int:
        return int(np.sum(self.predictions[self.k] != self.truth))

    @property
    def test_error(self) -> float:
        return self.test_errors / len(self.truth)


def _store(method: str, settings: Settings):
    """The stored WMD results that ``settings`` use for ``method`` (None: none)."""
    if not Measure.of(method).transport or settings.wmd_store is None:
        return None
    return WmdStore(settings.wmd_store)


@computes("knn", version=3)  # 3: exact WMD on the reduced problem (merged locations, shared mass cancelled)
def _compute(
    method: str, documents: dict[str, Documents], settings: Settings, embeddings, matrices, limits, cache=None
):
    points = settings.points(method)
    cache = cache if Measure.of(method).transport else None
    store = _store(method, settings)

    def task(n_jobs, progress):
        return _Task(
            method,
            documents,
            embeddings,
            matrices,
            settings.ks,
            settings.wmd_solver,
            n_jobs,
            progress,
            limits,
            cache,
            store,
        )

    if len(points) == 1:  # no grid: one run per data set (WMD parallel over query batches)
        outcomes = [_validation_point(task(settings.n_jobs, settings.progress), points[0])]
    else:
        outcomes = evaluate_grid_in_batches(
            partial(_validation_point, task(1, False)),
            points,
            n_jobs=settings.n_jobs,
            progress=settings.progress,
            description=f"{method} grid",
        )
    results = {}
    for name in documents:
        best = select_grid(points, [outcome[name][0] for outcome in outcomes])
        chosen, table, runs = best.best_params, pd.DataFrame(best.table), [outcome[name][1] for outcome in outcomes]
        point = {key: value for key, value in chosen.items() if key != "k"}
        S = matrices.build(point) if Measure.of(method).needs_matrices else None
        predictions, run, rows = task(settings.n_jobs, settings.progress).run(
            name, point, "test", settings.reference, S
        )
        all_rows = len(rows) == len(documents[name].labels["test"])
        results[name] = MethodResult(
            name,
            method,
            chosen,
            table,
            documents[name].labels["test"][rows],
            predictions,
            runs + [run],
            None if all_rows else rows,
        )
    return results
