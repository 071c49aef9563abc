"""The artifact cache: what one chapter computes and another reads.

An artifact is a directory ``<root>/<name>-<key>``. The key hashes the artifact's kind (``name``), the code that
computes it, the version of its data format and the parameters that produced it;
parameters that stand for data (documents, labels, embedding rows, S') enter by content, through
:func:`regemb_utils.infra.keys.fingerprint`.

The code: the function that computes a kind declares it and its format version (``@computes("knn", version=3)``),
and the key hashes that function's
code and everything of the package it reaches (:func:`regemb_utils.infra.keys.code_hash`): a change to that code
gives new keys, so changed code never reads a result of the old, while moving code between modules, import lines,
docstrings, comments and code the computation never reaches keep them. Objects that build an input inside the
computation (S' from the neighbour cache) carry the hash of their own code in their ``identity``.

Writing is atomic: an artifact is written into a staging directory beside it (``.<name>-<key>.<host>.<pid>.*``),
with a ``manifest.json`` that records every file's size and SHA-256, and renamed into place only when complete.
Staging directories left by a killed process are removed by the next run on the same host. Reading checks the
manifest: a damaged artifact (a file truncated, changed or missing) is reported with its path, removed and
recomputed.

Where the cache lives: ``$REGEMB_CACHE`` if set; else ``artifacts/`` in the repository when the package runs from a
source checkout; else the user's cache directory (``$XDG_CACHE_HOME/regemb``, by default ``~/.cache/regemb``).
:meth:`ArtifactCache.check_writable` finds a location that cannot be written before any computation starts.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pickle
import shutil
import socket
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .keys import code_hash, computation

__all__ = [
    "REPOSITORY",
    "ACCESSED",
    "CacheError",
    "directory_from_environment",
    "artifact_key",
    "rekey",
    "unpickle",
    "load_pickle",
    "file_sha256",
    "write_error",
    "ArtifactCache",
]

REPOSITORY = Path(__file__).resolve().parents[2]

_MANIFEST = "manifest.json"
_CHECKSUM_LIMIT = 256 * 2**20  # artifacts up to this size are checksummed on every read; larger ones by size only

# Every artifact this process read or wrote, in order ({"name", "key", "path", "computed"}); chapters list them in
# their records (regemb_utils.study.pipeline).
ACCESSED: list[dict[str, Any]] = []


class CacheError(RuntimeError):
    """The artifact cache cannot be used (not writable, damaged beyond repair, badly configured).

    Parameters
    ----------
    message : str
        What went wrong and what to do about it (the location, ``REGEMB_CACHE``).

    Examples
    --------
    >>> issubclass(CacheError, RuntimeError)
    True
    >>> print(CacheError("the artifact cache /x cannot be written"))
    the artifact cache /x cannot be written
    """


def directory_from_environment(variable: str) -> Path | None:
    """``$variable`` as an absolute path, or None when it is unset; one rule for ``REGEMB_CACHE`` and ``REGEMB_DATA``.

    An empty value is refused (:class:`ValueError`). A relative path is taken relative to the directory where the user
    ran the command: ``$PWD``, which a kernel started by papermill or JupyterLab inherits, while its working
    directory is ``notebooks/``.

    Parameters
    ----------
    variable : str
        The environment variable's name, e.g. ``"REGEMB_CACHE"``.

    Returns
    -------
    pathlib.Path or None
        The absolute, resolved directory, or None when the variable is unset.

    Raises
    ------
    ValueError
        When the variable is set but empty.

    Examples
    --------
    >>> import os
    >>> os.environ["REGEMB_DOCTEST_DIR"] = "/tmp/../tmp/regemb"
    >>> directory_from_environment("REGEMB_DOCTEST_DIR")
    PosixPath('/tmp/regemb')
    >>> del os.environ["REGEMB_DOCTEST_DIR"]
    >>> directory_from_environment("REGEMB_DOCTEST_DIR") is None
    True
    """
    value = os.environ.get(variable)
    if value is None:
        return None
    if not value.strip():
        raise ValueError(
            f"{variable} is set but empty; unset it (to use the default location) or set it to a directory"
        )
    path = Path(value).expanduser()
    if not path.is_absolute():
        invoked = os.environ.get("PWD", "")
        path = (Path(invoked) if os.path.isabs(invoked) and os.path.isdir(invoked) else Path.cwd()) / path
    return path.resolve()


def default_root() -> Path:
    """``$REGEMB_CACHE``; else ``artifacts/`` in a source checkout; else the user's cache directory.

    Returns
    -------
    pathlib.Path
        The directory that holds the artifacts.

    Raises
    ------
    CacheError
        When ``REGEMB_CACHE`` is set but empty.

    Examples
    --------
    >>> import os, tempfile
    >>> saved = os.environ.get("REGEMB_CACHE")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.environ["REGEMB_CACHE"] = folder
    ...     print(default_root() == Path(folder).resolve())
    True
    >>> _ = os.environ.pop("REGEMB_CACHE") if saved is None else os.environ.update(REGEMB_CACHE=saved)
    """
    try:
        configured = directory_from_environment("REGEMB_CACHE")
    except ValueError as error:
        raise CacheError(str(error)) from None
    if configured is not None:
        return configured
    if (REPOSITORY / "pyproject.toml").is_file() and (REPOSITORY / "regemb_utils").is_dir():
        return REPOSITORY / "artifacts"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "regemb"


def _describe_root(root: Path) -> str:
    source = (
        "REGEMB_CACHE" if os.environ.get("REGEMB_CACHE") else "the default location (set REGEMB_CACHE to change it)"
    )
    return f"the artifact cache {root} ({source})"


# ----------------------------------------------------------------------------------------------------------------
# keys


def artifact_key(name: str, params: dict[str, Any]) -> str:
    """The key of the artifact of kind ``name`` computed with ``params``: a hash of the kind, its format version and
    computing code (declared with :func:`regemb_utils.infra.keys.computes`) and the parameters.

    Parameters
    ----------
    name : str
    params : dict
        JSON-serializable (other objects enter by ``repr``; data through :func:`regemb_utils.infra.keys.fingerprint`).

    Returns
    -------
    str
        16 hexadecimal digits.

    Raises
    ------
    KeyError
        For a kind that no imported function computes.

    Examples
    --------
    >>> from regemb_utils.infra.keys import computes
    >>> @computes("doctest-sum")
    ... def total(values):
    ...     return sum(values)
    >>> key = artifact_key("doctest-sum", {"k": 1})
    >>> key == artifact_key("doctest-sum", {"k": 1}), key == artifact_key("doctest-sum", {"k": 2})
    (True, False)
    """
    function, version = computation(name)
    return _key(name, params, version, code_hash(function))


def _key(name: str, params: Any, version: int, code: str) -> str:
    blob = json.dumps({"name": name, "params": params, "version": version, "code": code}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def rekey(root: str | os.PathLike, codes: Mapping[str, str | tuple[str, ...]]) -> list[tuple[str, str]]:
    """Rename the artifacts under ``root`` whose keys were made with the code hashes ``codes`` to the keys of the code
    now: the one-off step after a change that moves a kind's code hash but not its results (a restructure that the
    tests check), so that nothing is recomputed. The parameters come from each artifact's manifest (they enter the
    key as JSON, so they read back as they were hashed); an artifact whose key was not made with ``codes`` (another
    code's, or damaged) is left as it is.

    Parameters
    ----------
    root : path
        The artifact cache's directory.
    codes : mapping of str to str or tuple of str
        Artifact kind -> the code hash (:func:`regemb_utils.infra.keys.code_hash`) its stored keys were made with, or
        several.

    Returns
    -------
    list of (str, str)
        The (old, new) directory names of the artifacts renamed.

    Examples
    --------
    >>> import tempfile
    >>> from regemb_utils.infra.keys import computes
    >>> @computes("doctest-rekey")
    ... def total(values):
    ...     return sum(values)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     stored = ArtifactCache(folder).get("doctest-rekey", {"values": [1, 2]}, lambda: 3)
    ...     print(rekey(folder, {"doctest-rekey": code_hash(total)}))  # stored with the code now: nothing to do
    []
    """
    renamed = []
    for directory in sorted(Path(root).iterdir()):
        kind, _, key = directory.name.rpartition("-")
        if kind not in codes or not directory.is_dir() or damage(directory) is not None:
            continue
        params = json.loads((directory / _MANIFEST).read_text())["params"]
        function, version = computation(kind)
        before = (codes[kind],) if isinstance(codes[kind], str) else tuple(codes[kind])
        if all(_key(kind, params, version, code) != key for code in before):
            continue
        new = directory.with_name(f"{kind}-{_key(kind, params, version, code_hash(function))}")
        if new != directory and not new.exists():
            os.rename(directory, new)
            renamed.append((directory.name, new.name))
    return renamed


# ----------------------------------------------------------------------------------------------------------------
# files


def save_pickle(obj: Any, directory: Path) -> None:
    """Pickle ``obj`` into ``directory/artifact.pkl`` (the default way :meth:`ArtifactCache.get` saves).

    Parameters
    ----------
    obj : object
    directory : pathlib.Path

    Returns
    -------
    None

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_pickle({"errors": [3, 1]}, Path(folder))
    ...     print(sorted(p.name for p in Path(folder).iterdir()), load_pickle(Path(folder)))
    ['artifact.pkl'] {'errors': [3, 1]}
    """
    with open(directory / "artifact.pkl", "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def unpickle(path: Path) -> Any:
    """The object pickled in the file ``path``.

    Parameters
    ----------
    path : pathlib.Path

    Returns
    -------
    object

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "x.pkl").write_bytes(pickle.dumps([1, 2]))
    ...     print(unpickle(Path(folder) / "x.pkl"))
    [1, 2]
    """
    with open(path, "rb") as f:
        return pickle.load(f)


def load_pickle(directory: Path) -> Any:
    """The object that :func:`save_pickle` wrote into ``directory`` (the default way :meth:`ArtifactCache.get` loads).

    Parameters
    ----------
    directory : pathlib.Path

    Returns
    -------
    object

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_pickle([0, 1, 2], Path(folder))
    ...     print(load_pickle(Path(folder)))
    [0, 1, 2]
    """
    return unpickle(directory / "artifact.pkl")


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file ``path``, read in chunks of 1 MiB.

    Parameters
    ----------
    path : pathlib.Path
        A file.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "a").write_bytes(b"abc")
    ...     print(file_sha256(Path(folder) / "a")[:16])
    ba7816bf8f01cfea
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.name != _MANIFEST)


def write_manifest(directory: Path, params: dict[str, Any]) -> None:
    """Write ``manifest.json`` into ``directory``: the parameters and every file's size and SHA-256 (what :func:`damage` checks).

    Parameters
    ----------
    directory : pathlib.Path
        An artifact's (staging) directory with its files.
    params : dict
        The parameters that produced the artifact.

    Returns
    -------
    None

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "a").write_bytes(b"abc")
    ...     write_manifest(Path(folder), {"k": 3})
    ...     manifest = json.loads((Path(folder) / "manifest.json").read_text())
    >>> manifest["params"], manifest["files"]["a"]["size"]
    ({'k': 3}, 3)
    """
    files = {
        p.relative_to(directory).as_posix(): {"size": p.stat().st_size, "sha256": file_sha256(p)}
        for p in _files(directory)
    }
    (directory / _MANIFEST).write_text(
        json.dumps({"params": params, "files": files}, sort_keys=True, indent=1, default=repr)
    )


def damage(directory: Path) -> str | None:
    """Why the artifact in ``directory`` cannot be trusted, or None when its files match its manifest.

    Parameters
    ----------
    directory : pathlib.Path
        An artifact's directory.

    Returns
    -------
    str or None
        The reason (a missing manifest or file, a wrong size, a wrong checksum), or None when it is intact.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "a").write_bytes(b"abc")
    ...     write_manifest(Path(folder), {})
    ...     print(damage(Path(folder)))
    ...     _ = (Path(folder) / "a").write_bytes(b"abd")
    ...     print(damage(Path(folder)))
    ...     _ = (Path(folder) / "a").write_bytes(b"ab")
    ...     print(damage(Path(folder)))
    None
    a does not match its SHA-256
    a has 2 bytes, its manifest says 3
    """
    try:
        manifest = json.loads((directory / _MANIFEST).read_text())
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return "its manifest is missing or unreadable"
    present = {p.relative_to(directory).as_posix() for p in _files(directory)}
    if set(files) - present:
        return f"missing file(s): {', '.join(sorted(set(files) - present))}"
    for name, expected in files.items():
        size = (directory / name).stat().st_size
        if size != expected["size"]:
            return f"{name} has {size:,} bytes, its manifest says {expected['size']:,}"
    if sum(f["size"] for f in files.values()) <= _CHECKSUM_LIMIT:
        for name, expected in files.items():
            if file_sha256(directory / name) != expected["sha256"]:
                return f"{name} does not match its SHA-256"
    return None


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _host() -> str:
    return socket.gethostname().replace(".", "_")


def _group_readable(path: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, (0o777 & ~umask) | 0o750)


def write_error(root: Path, target: Path, error: OSError) -> CacheError:
    """A :class:`CacheError` for a failed write of ``target`` into the cache ``root``, naming both and
    ``REGEMB_CACHE``.

    Parameters
    ----------
    root : pathlib.Path
        The cache directory.
    target : pathlib.Path
        What could not be written.
    error : OSError
        The error the write raised.

    Returns
    -------
    CacheError
        The error to raise, with what to do (free space, or set ``REGEMB_CACHE``).

    Examples
    --------
    >>> import errno
    >>> error = write_error(Path("/c"), Path("/c/knn-1"), OSError(errno.ENOSPC, "No space left on device"))
    >>> str(error).split(".")[0]
    '/c/knn-1 could not be written into the artifact cache /c (the default location (set REGEMB_CACHE to change it)): the disk is full'
    """
    reason = "the disk is full" if error.errno in (errno.ENOSPC, errno.EDQUOT) else (error.strerror or str(error))
    return CacheError(
        f"{target} could not be written into {_describe_root(root)}: {reason}. Free some space, or set "
        "REGEMB_CACHE to a directory with free space, and rerun the chapter (finished artifacts are "
        "kept)."
    )


def _warn(message: str) -> None:
    print(f"regemb cache: {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------------------------
# the cache


class ArtifactCache:
    """The artifacts in one directory: :meth:`get` loads an intact artifact or computes, stores (atomically, with a manifest) and returns it.

    Parameters
    ----------
    root : str or os.PathLike, optional
        The cache directory; by default :func:`default_root`.

    Attributes
    ----------
    root : pathlib.Path
        The cache directory, absolute.

    Examples
    --------
    >>> import tempfile
    >>> from regemb_utils.infra.keys import computes
    >>> @computes("doctest-list")
    ... def listed(*values):
    ...     return list(values)
    >>> calls = []
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = ArtifactCache(folder)
    ...     first = cache.get("doctest-list", {"doctest": 1}, lambda: calls.append(1) or [4, 2])
    ...     again = cache.get("doctest-list", {"doctest": 1}, lambda: calls.append(1) or [0])
    ...     print(first, again, len(calls), cache.has("doctest-list", {"doctest": 2}))
    [4, 2] [4, 2] 1 False
    """

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root).expanduser().resolve() if root is not None else default_root()

    def path(self, name: str, params: dict[str, Any]) -> Path:
        return self.root / f"{name}-{artifact_key(name, params)}"

    def check_writable(self) -> None:
        """Create the cache directory if needed and write (then remove) a probe file; raise :class:`CacheError`
        naming the location and ``REGEMB_CACHE`` if that fails. Also removes staging directories of killed runs."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.root, prefix=".probe-") as probe:
                probe.write(b"\0" * 2**20)
                probe.flush()
                os.fsync(probe.fileno())
        except OSError as error:
            reason = error.strerror or str(error)
            if error.errno == errno.ENOSPC:
                reason = "the disk is full"
            raise CacheError(
                f"{_describe_root(self.root)} cannot be written: {reason}. Set REGEMB_CACHE to a "
                "writable directory with free space."
            ) from None
        self.remove_stale_staging()

    def check_free_space(self, needed: int, what: str) -> None:
        """Raise :class:`CacheError` naming the cache and ``REGEMB_CACHE`` when its disk has less than ``needed``
        bytes free (``what`` says what needs them)."""
        free = shutil.disk_usage(self.root).free
        if free < needed:
            raise CacheError(
                f"{_describe_root(self.root)} has {free / 2**20:,.0f} MiB free; {what} needs about "
                f"{needed / 2**20:,.0f} MiB. Free some space, or set REGEMB_CACHE to a directory on a disk "
                "with more."
            )

    def remove_stale_staging(self) -> list[Path]:
        """Remove the staging directories that processes of this host left behind when they were killed."""
        host = _host()
        removed = []
        for path in self.root.glob(".*.stage-*"):
            try:
                _, owner, pid, _ = path.name.rsplit(".", 3)
            except ValueError:
                continue
            if owner == f"stage-{host}" and pid.isdigit() and not _process_alive(int(pid)):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        return removed

    def has(self, name: str, params: dict[str, Any]) -> bool:
        """Whether an intact artifact exists (a damaged one is removed and reported)."""
        target = self.path(name, params)
        if not target.is_dir():
            return False
        reason = damage(target)
        if reason is not None:
            self._discard(target, reason)
            return False
        return True

    def _discard(self, target: Path, reason: str) -> None:
        _warn(f"the artifact {target} is damaged ({reason}); it is removed and will be recomputed")
        trash = target.with_name(f".{target.name}.damaged-{os.getpid()}")
        try:
            os.rename(target, trash)
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def get(
        self,
        name: str,
        params: dict[str, Any],
        compute: Callable[[], Any],
        save: Callable[[Any, Path], None] = save_pickle,
        load: Callable[[Path], Any] = load_pickle,
    ) -> Any:
        """Load artifact ``name`` made with ``params``; compute, save atomically and return it if absent or
        damaged."""
        target = self.path(name, params)
        if self.has(name, params):
            try:
                value = load(target)
            except (pickle.UnpicklingError, EOFError, zipfile.BadZipFile, ValueError) as error:
                self._discard(target, f"it cannot be read: {type(error).__name__}: {error}")
            else:
                ACCESSED.append({"name": name, "key": target.name, "path": str(target), "computed": False})
                return value
        value = compute()
        self._store(name, params, value, save, target)
        ACCESSED.append({"name": name, "key": target.name, "path": str(target), "computed": True})
        return value

    def _store(self, name, params, value, save, target: Path) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.stage-{_host()}.{os.getpid()}.", dir=self.root))
        except OSError as error:
            _warn(
                f"{_describe_root(self.root)} cannot be written ({error.strerror or error}); the {name} artifact "
                "is used now but not kept"
            )
            return
        try:
            save(value, staging)
            write_manifest(staging, params)
            _group_readable(staging)
            try:
                os.rename(staging, target)
            except OSError:  # another process finished the same artifact first; theirs is as good as ours
                if not target.is_dir():
                    raise
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                raise write_error(self.root, target, error) from None
            _warn(
                f"the {name} artifact could not be written to {target} ({error.strerror or error}); it is used "
                "now but not kept"
            )
        finally:
            shutil.rmtree(staging, ignore_errors=True)
