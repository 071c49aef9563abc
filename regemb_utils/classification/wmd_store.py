"""Finished WMD neighbours kept in the repository (``results/wmd/``), so that the WMD part of chapter 4 can span
sessions and machines (paper §5.4: every test query, k chosen on every validation query).

One file per data set, method and split, ``<data set>-<method>-<split>.npz`` (NumPy ``savez_compressed``):

* ``key`` – a JSON text: data set, method, split, reference split, the fingerprints (:func:`regemb_utils.infra.keys.fingerprint`)
  of the reference documents' weight matrix and of the embedding rows, k, the EMD solver and :func:`search_version`
  (a hash of the code that defines the neighbours);
* ``queries`` – uint64 [n]: a fingerprint of every stored query's weight row (a prefix of the fixed, class-stratified
  query order of :func:`regemb_utils.text.documents.stratified_order`);
* ``indices`` – int32 [n, k]: the k nearest reference documents of each query (nearest first, ties: lower index);
* ``distances`` – float64 [n, k]: their exact WMDs;
* ``seconds`` – float64 [n]: one-core seconds per query when it was computed (batch time spread evenly);
* ``solved`` – int32 [n]: exact EMD problems solved per query.

A stored result is used only when its ``key`` equals the run's key and only for the leading queries whose fingerprints
equal the run's queries at the same positions; anything else is recomputed (and the file rewritten with the run's
results). Every time stored results are used, a seeded random sample of them (:data:`CHECKED` queries per file) is
recomputed and compared exactly (indices and distances); a difference stops the run with an error naming the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

from ..measures import wmd
from ..infra.keys import code_hash

__all__ = ["StoredWmdMismatch", "WmdStore", "default_folder", "search_version", "query_fingerprints"]

CHECKED = 5  # stored queries recomputed per file on every run that uses them


class StoredWmdMismatch(RuntimeError):
    """A stored WMD result differs from its recomputation.

    Parameters
    ----------
    message : str
        The file, the query positions that differ, and what to do.

    Examples
    --------
    >>> stored = Stored(Path("twitter-wmd-test.npz"), np.array([[0, 1]]), np.array([[0.1, 0.2]]), np.zeros(1),
    ...                 np.ones(1, int), 1)
    >>> try:
    ...     WmdStore.verify(stored, [0], np.array([[1, 0]]), np.array([[0.1, 0.2]]))
    ... except StoredWmdMismatch as error:
    ...     print(str(error).split(":")[0])
    the stored WMD results in twitter-wmd-test.npz differ from their recomputation at query position(s) [0] of the stratified order
    """


def search_version() -> str:
    """The WMD search's code version (16 hex digits): :func:`regemb_utils.infra.keys.code_hash` of
    :func:`regemb_utils.measures.wmd.wmd_knn`, which hashes as the definition it equals,
    :func:`regemb_utils.measures.wmd.nearest_by_brute_force` (its code and the package code it reaches, not docstrings,
    comments or imports). A change to what the WMD or its neighbours are makes stored results stale; a faster exact
    search, a move or new documentation does not (every run still rechecks a sample of stored queries exactly).

    Returns
    -------
    str

    Examples
    --------
    >>> search_version() == code_hash(wmd.wmd_knn), len(search_version())
    (True, 16)
    """
    return code_hash(wmd.wmd_knn)


def query_fingerprints(Q) -> np.ndarray:
    """uint64 [n]: a fingerprint of every row of ``Q`` (its column indices and weights, exactly).

    Parameters
    ----------
    Q : scipy.sparse matrix
        The queries.

    Returns
    -------
    numpy.ndarray
        One uint64 per row; equal rows have equal fingerprints.

    Examples
    --------
    >>> fingerprints = query_fingerprints(sparse.csr_matrix([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    >>> fingerprints.dtype, fingerprints[0] == fingerprints[1], fingerprints[0] == fingerprints[2]
    (dtype('uint64'), np.True_, np.False_)
    """
    Q = sparse.csr_matrix(Q)
    result = np.empty(Q.shape[0], dtype=np.uint64)
    for i in range(Q.shape[0]):
        start, stop = Q.indptr[i], Q.indptr[i + 1]
        digest = hashlib.sha256(
            Q.indices[start:stop].astype(np.int64).tobytes() + Q.data[start:stop].astype(np.float64).tobytes()
        ).digest()
        result[i] = np.frombuffer(digest[:8], dtype=np.uint64)[0]
    return result


def default_folder() -> Path | None:
    """``results/wmd`` of the source checkout the package runs from (None when it runs from elsewhere: an installed
    package has no stored results).

    Returns
    -------
    pathlib.Path or None
        The folder of the stored results.

    Examples
    --------
    >>> folder = default_folder()
    >>> folder is None or folder.parts[-2:] == ("results", "wmd")
    True
    """
    here = Path(__file__).resolve().parent
    for folder in here.parents:
        if (folder / "pyproject.toml").exists() and (folder / "regemb_utils").is_dir():
            return folder / "results" / "wmd"
    return None


@dataclass
class Stored:
    """The usable prefix of a stored file: positions [0, n) of the run's query order.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    indices, distances : numpy.ndarray
        ``[n, k]`` neighbours and their WMDs, of the usable prefix.
    seconds : numpy.ndarray
        One-core seconds of each query.
    solved : numpy.ndarray
        EMD problems solved for each query.
    total : int
        The queries in the file.

    Examples
    --------
    >>> stored = Stored(Path("x.npz"), np.zeros((2, 3), int), np.zeros((2, 3)), np.zeros(2), np.zeros(2, int), 5)
    >>> len(stored), stored.total
    (2, 5)
    """

    path: Path
    indices: np.ndarray
    distances: np.ndarray
    seconds: np.ndarray
    solved: np.ndarray
    total: int  # the queries in the file

    def __len__(self) -> int:
        return len(self.indices)


class WmdStore:
    """The folder of stored WMD results (module docstring).

    Parameters
    ----------
    folder : str or pathlib.Path
        The folder of the ``.npz`` files (one per data set, method and split).

    Attributes
    ----------
    folder : pathlib.Path
        As given.

    Examples
    --------
    >>> import tempfile
    >>> key = {"dataset": "twitter", "method": "wmd", "split": "test", "k": 2}
    >>> fingerprints = query_fingerprints(sparse.csr_matrix([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     store = WmdStore(folder)
    ...     path = store.save(key, fingerprints, [[0, 1], [1, 0], [1, 0]], [[0.1, 0.2]] * 3, [0.5] * 3, [2] * 3)
    ...     prefix = store.load(key, fingerprints[:2])  # the run's first two queries are stored
    ...     other = store.load(dict(key, k=3), fingerprints)  # another key: nothing usable
    >>> path.name, len(prefix), prefix.total, prefix.indices.tolist(), len(other)
    ('twitter-wmd-test.npz', 2, 3, [[0, 1], [1, 0]], 0)
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    def path(self, key: dict) -> Path:
        return self.folder / f"{key['dataset']}-{key['method']}-{key['split']}.npz"

    def load(self, key: dict, fingerprints: np.ndarray) -> Stored:
        """The stored results for ``key`` whose query fingerprints match ``fingerprints`` from position 0 on (none
        when there is no file, its key differs, or its first query differs)."""
        path = self.path(key)
        k = int(key["k"])
        nothing = Stored(path, np.empty((0, k), dtype=np.int64), np.empty((0, k)), np.empty(0), np.empty(0, int), 0)
        if not path.exists():
            return nothing
        with np.load(path, allow_pickle=False) as data:
            if json.loads(str(data["key"])) != _jsonable(key):
                return nothing
            stored = data["queries"]
            n = min(len(stored), len(fingerprints))
            same = np.flatnonzero(stored[:n] != fingerprints[:n])
            n = int(same[0]) if len(same) else n
            return Stored(
                path,
                data["indices"][:n].astype(np.int64),
                data["distances"][:n].copy(),
                data["seconds"][:n].copy(),
                data["solved"][:n].astype(np.int64),
                len(stored),
            )

    def save(self, key: dict, fingerprints, indices, distances, seconds, solved) -> Path:
        """Store (replace) the results for ``key``: written to a temporary file, then renamed."""
        path = self.path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(
            temporary,
            key=np.array(json.dumps(_jsonable(key), sort_keys=True)),
            queries=np.asarray(fingerprints, dtype=np.uint64),
            indices=np.asarray(indices, dtype=np.int32),
            distances=np.asarray(distances, np.float64),
            seconds=np.asarray(seconds, dtype=np.float64),
            solved=np.asarray(solved, np.int32),
        )
        temporary.replace(path)
        return path

    @staticmethod
    def sample(stored: Stored, seed: int = 0) -> np.ndarray:
        """The positions recomputed on this run: :data:`CHECKED` of them (all if fewer), seeded by the file name."""
        rng = np.random.default_rng([seed, int(hashlib.sha256(stored.path.name.encode()).hexdigest()[:8], 16)])
        return np.sort(rng.choice(len(stored), size=min(CHECKED, len(stored)), replace=False))

    @staticmethod
    def verify(stored: Stored, positions, indices, distances) -> None:
        """Stop with :class:`StoredWmdMismatch` naming the file if the recomputed ``indices`` and ``distances`` of
        ``positions`` differ from the stored ones."""
        differ = ~(
            np.all(stored.indices[positions] == indices, axis=1)
            & np.all(stored.distances[positions] == distances, axis=1)
        )
        if np.any(differ):
            bad = np.asarray(positions)[differ].tolist()
            raise StoredWmdMismatch(
                f"the stored WMD results in {stored.path} differ from their recomputation at query position(s) {bad} "
                "of the stratified order: the file is corrupt or was made by other code. Restore it from git "
                "(git checkout -- <file>) or delete it to recompute those results"
            )


def _jsonable(key: dict) -> dict:
    return json.loads(json.dumps(key, sort_keys=True, default=str))
