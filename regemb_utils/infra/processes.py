"""Process plumbing: where joblib runs the work (local processes or a dask cluster), and worker processes that end
with the process that started them."""

from __future__ import annotations

import ctypes
import os
import signal
from contextlib import contextmanager

import joblib

__all__ = ["parallel_context", "connect_scheduler"]


def end_with_parent(parent: int) -> None:
    """A worker process's initializer: the kernel asks Linux to kill it when the process that started it (``parent``)
    dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so that no worker outlives a chapter whose kernel was killed (by the
    out-of-memory killer, or by hand). Elsewhere than on Linux it does nothing.

    Parameters
    ----------
    parent : int
        The process id of the process that started the worker.

    Returns
    -------
    None

    Examples
    --------
    >>> from concurrent.futures import ProcessPoolExecutor
    >>> with ProcessPoolExecutor(1, initializer=end_with_parent, initargs=(os.getpid(),)) as pool:
    ...     print(pool.submit(os.getppid).result() == os.getpid())
    True
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(1)


@contextmanager
def parallel_context(scheduler: str = "local", n_jobs: int = 1):
    """Where joblib runs the grid points and WMD batches: ``local`` (joblib's processes), ``dask-local`` (a dask
    ``LocalCluster`` with ``n_jobs`` single-threaded workers) or a ``tcp://`` address of a dask scheduler.

    Parameters
    ----------
    scheduler : str
        ``"local"``, ``"dask-local"`` or ``"tcp://host:port"``.
    n_jobs : int
        Workers of ``dask-local``.

    Returns
    -------
    contextlib.AbstractContextManager
        Inside the ``with`` block, joblib uses that backend.

    Raises
    ------
    ValueError
        For another scheduler.

    Examples
    --------
    >>> with parallel_context("local"):
    ...     print(type(joblib.parallel.get_active_backend()[0]).__name__)
    LokyBackend
    >>> with parallel_context("slurm"):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: unknown scheduler 'slurm'; allowed: local, dask-local, tcp://host:port
    """
    if scheduler == "local":  # joblib's loky workers, each ended when this process dies (see end_with_parent)
        with joblib.parallel_config(backend="loky", initializer=end_with_parent, initargs=(os.getpid(),)):
            yield
        return
    from dask.distributed import Client, LocalCluster

    if scheduler == "dask-local":
        workers = joblib.effective_n_jobs(n_jobs)
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster),
            joblib.parallel_backend("dask"),
        ):
            yield
        return
    if not scheduler.startswith("tcp://"):
        raise ValueError(f"unknown scheduler {scheduler!r}; allowed: local, dask-local, tcp://host:port")
    with connect_scheduler(scheduler), joblib.parallel_backend("dask"):
        yield


SCHEDULER_TIMEOUT = 10  # seconds to reach a dask scheduler


def connect_scheduler(address: str, timeout: float | None = None):
    """A dask ``Client`` of the scheduler at ``address``; a scheduler that does not answer within ``timeout`` seconds
    (default :data:`SCHEDULER_TIMEOUT`) raises :class:`ConnectionError` naming the address and what to do.

    Parameters
    ----------
    address : str
        ``tcp://host:port``.
    timeout : float, optional
        Seconds to wait.

    Returns
    -------
    dask.distributed.Client
        The connected client.

    Raises
    ------
    ConnectionError
        When the scheduler does not answer in time.

    Examples
    --------
    >>> try:
    ...     connect_scheduler("tcp://127.0.0.1:9", timeout=0.5)  # nothing listens there
    ... except ConnectionError as error:
    ...     print(str(error).split(" (")[0])
    the dask scheduler tcp://127.0.0.1:9 did not answer within 0.5 s
    """
    from dask.distributed import Client

    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
    try:
        return Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as error:
        raise ConnectionError(
            f"the dask scheduler {address} did not answer within {timeout:g} s "
            f"({type(error).__name__}: {error}): start it (`dask scheduler`, then `dask worker "
            f"{address}`), or give scheduler='local' or 'dask-local'"
        ) from None
