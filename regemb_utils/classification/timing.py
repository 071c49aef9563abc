"""What a kNN search costs: one timed similarity computation (:class:`Run`), timed on one core (:func:`one_core`)
in CPU seconds of the process, after the kernels were compiled and the solvers imported (:func:`warm_up`)."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..infra.keys import changes_no_result
from ..measures.similarity import sparse_scm
from ..measures.wmd import dual_bounds, wmd_knn

__all__ = ["Run", "one_core", "warm_up"]


@dataclass(frozen=True)
class Run:
    """One similarity computation: its split, size and time, and what went wrong or was saved.

    Parameters
    ----------
    split : {"validation", "test"}
        Which split's queries.
    pairs : int
        (query, reference) pairs compared.
    seconds : float
        One-core seconds.
    nonpositive : int
        Documents (queries and references) with xᵀS'x ≤ 0.
    negative : int
        Of those, documents with xᵀS'x < 0.
    solved : int, optional
        WMD: exact EMD problems solved.
    queries : int, optional
        WMD: queries answered.

    Examples
    --------
    >>> run = Run("test", pairs=100, seconds=0.5, solved=12)
    >>> run.pairs / run.seconds, run.solved, run.nonpositive
    (200.0, 12, 0)
    """

    split: str  # "validation" or "test"
    pairs: int
    seconds: float
    nonpositive: int = 0  # documents (queries + reference) with xᵀS'x ≤ 0 (similarity 0 to all)
    negative: int = 0  # of those, xᵀS'x < 0
    solved: int | None = None  # WMD: exact EMD problems solved
    queries: int | None = None  # WMD: queries answered (None where not recorded)


@contextmanager
def one_core():
    """BLAS and numba limited to one thread inside the block (threadpoolctl): the one-core clock of every timing.

    Returns
    -------
    contextlib.AbstractContextManager

    Examples
    --------
    >>> import time
    >>> with one_core():
    ...     start = time.process_time()
    ...     seconds = time.process_time() - start
    >>> seconds >= 0
    True
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


_WARM = []


@changes_no_result
def warm_up() -> None:
    """Compile (or load) the numba kernels and import the EMD solvers once per process, outside the timings.

    Returns
    -------
    None

    Examples
    --------
    >>> warm_up()  # the second call returns at once
    """
    if _WARM:
        return

    X = sparse.csr_matrix(np.array([[1.0, 0.0], [0.5, 0.5]]))
    sparse_scm(X, X, sparse.identity(2, format="csc"), n_threads=1)
    for solver in ("pot", "pyemd"):
        wmd_knn(X, X, np.eye(2), 1, solver=solver, n_jobs=1)
    T = sparse.csr_matrix(np.eye(3))  # distinct documents at distinct distances: the entropic bound's kernels run
    dual_bounds(sparse.csr_matrix([[0.5, 0.5, 0.0]]), T, np.diag([1.0, 2.0, 4.0]), epsilon=0.1)
    _WARM.append(True)
