"""The artifact cache: what one chapter computes and another reads.

An artifact is a directory ``<root>/<name>-<key>``. The key hashes the artifact's kind (``name``), the code that
computes it, the version of its data format (:data:`ARTIFACT_VERSIONS`) and the parameters that produced it;
parameters that stand for data (documents, labels, embedding rows, S') enter by content, through :func:`fingerprint`.

The code: the module that computes a kind declares it (a top-level ``ARTIFACTS = ("knn", ...)``), and the key hashes
the source of that module and of every module of the package it imports, directly or through others, at the top
level or inside a function (:func:`code_hash`, read from the package's files once per process). Any change to that
code gives new keys, so changed code never reads a result of the old; a change elsewhere (a plot, the book's tables,
a docstring or a comment, which are not hashed) keeps them. Objects that build an input inside the computation (S'
from the neighbour cache) carry the hash of their own code in their ``identity``.

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

import ast
import errno
import functools
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

import numpy as np
from scipy import sparse

REPOSITORY = Path(__file__).resolve().parents[2]

# One data-format version per kind of artifact: bump it when what is stored (files, their layout) changes. Changes to
# the computation need no bump: the key hashes the code (code_hash).
ARTIFACT_VERSIONS = {
    "corpus-dictionary": 2,
    "word2bits": 2,
    "neighbours": 2,
    "knn": 3,  # 3: exact WMD on the reduced problem (merged locations, shared mass cancelled)
    "wmd-batch": 1,
}

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
        raise ValueError(f"{variable} is set but empty; unset it (to use the default location) or set it to a "
                         "directory")
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
    source = "REGEMB_CACHE" if os.environ.get("REGEMB_CACHE") else "the default location (set REGEMB_CACHE to change it)"
    return f"the artifact cache {root} ({source})"


# ----------------------------------------------------------------------------------------------------------------
# keys


def _feed(digest, obj: Any) -> None:
    if isinstance(obj, np.ndarray):
        array = np.ascontiguousarray(obj)
        digest.update(f"ndarray{array.dtype.str}{array.shape}".encode())
        digest.update(array.view(np.uint8).reshape(-1) if array.size else b"")
    elif sparse.issparse(obj):
        matrix = sparse.csr_matrix(obj)
        matrix.sum_duplicates()
        matrix.sort_indices()
        digest.update(f"csr{matrix.shape}".encode())
        for part in (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data):
            _feed(digest, part)
    elif isinstance(obj, Mapping):
        digest.update(b"{")
        for key in sorted(obj, key=repr):
            _feed(digest, key)
            _feed(digest, obj[key])
        digest.update(b"}")
    elif isinstance(obj, (list, tuple)):
        digest.update(b"[")
        for item in obj:
            _feed(digest, item)
        digest.update(b"]")
    elif isinstance(obj, np.generic):
        _feed(digest, obj.item())
    elif obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        digest.update(f"{type(obj).__name__}:{obj!r}".encode())
    elif hasattr(obj, "__dict__"):  # a dataclass or a plain object: its fields
        digest.update(type(obj).__qualname__.encode())
        _feed(digest, vars(obj))
    else:
        raise TypeError(f"cannot fingerprint a {type(obj).__name__}")


def fingerprint(*objects: Any) -> str:
    """A content hash of arrays, sparse matrices, mappings, sequences and scalars (for artifact keys).

    Parameters
    ----------
    *objects : object
        Arrays, sparse matrices, mappings (in key order), lists and tuples, NumPy and Python scalars, strings, None, and
        objects with a ``__dict__`` (their fields).

    Returns
    -------
    str
        24 hexadecimal digits of a SHA-256 over the objects' types, shapes and contents.

    Raises
    ------
    TypeError
        For an object it cannot hash.

    Examples
    --------
    >>> fingerprint(np.array([1, 2, 3])) == fingerprint(np.array([1, 2, 3]))
    True
    >>> fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    True
    >>> fingerprint(np.array([1, 2, 3])) == fingerprint(np.array([1, 2, 4]))
    False
    >>> len(fingerprint([1, 2, 3]))
    24
    """
    digest = hashlib.sha256()
    for obj in objects:
        _feed(digest, obj)
    return digest.hexdigest()[:24]


# Modules whose changes never change a result: how results are shown (tables, figures, the browser check), progress
# bars, and this module (what it stores is versioned by ARTIFACT_VERSIONS).
PRESENTATION = ("book", "browser", "figures", "plotting", "progress", "cache")


def _package_root() -> tuple[str, Path]:
    package = __name__.split(".")[0]
    return package, Path(sys.modules[package].__file__).resolve().parent


def _module_name(package: str, root: Path, path: Path) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """The package modules (of ``modules``) that ``module``'s source imports, anywhere in it: ``from .a import b``
    is module ``a.b`` when that is a module, else (``b`` a name defined in ``a``) module ``a``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            for alias in node.names:
                names.add(f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem)
    return names & modules


class _Stripped(ast.NodeTransformer):
    """Docstrings removed (comments are not in the tree): neither changes what the code computes."""

    def _body(self, node):
        self.generic_visit(node)
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        return node

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _body


@functools.cache
def _package_modules() -> dict[str, tuple[frozenset[str], str, tuple[str, ...]]]:
    """Per module of the package: (the package modules it imports, a hash of its code, the artifact kinds it
    declares in ``ARTIFACTS``)."""
    package, root = _package_root()
    sources = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        sources[_module_name(package, root, path)] = tree, path.name == "__init__.py"
    modules = {}
    for name, (tree, is_package) in sources.items():
        declared = ()
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ARTIFACTS"
                                                     for t in node.targets)):
                declared = tuple(ast.literal_eval(node.value))
        imports = frozenset(_imported(tree, name, is_package, set(sources))) - {name}
        code = hashlib.sha256(ast.dump(_Stripped().visit(tree)).encode()).hexdigest()
        modules[name] = imports, code, declared
    return modules


def computing_module(name: str) -> str:
    """The module of the package that declares the artifact kind ``name`` in its ``ARTIFACTS``.

    Parameters
    ----------
    name : str
        An artifact kind of :data:`ARTIFACT_VERSIONS`.

    Returns
    -------
    str
        The dotted name of the module that computes it.

    Raises
    ------
    KeyError
        When no module, or more than one, declares the kind.

    Examples
    --------
    >>> computing_module("knn")
    'regemb_utils.classification.knn_runs'
    """
    declaring = [module for module, (_, _, kinds) in _package_modules().items() if name in kinds]
    if len(declaring) != 1:
        raise KeyError(f"the artifact kind {name!r} is declared in {len(declaring)} modules' ARTIFACTS "
                       f"({', '.join(declaring) or 'none'}); exactly one module must compute it")
    return declaring[0]


def dependencies(module: str) -> set[str]:
    """``module`` and every package module it imports, directly or through others.

    Parameters
    ----------
    module : str
        A module of the package, by its dotted name.

    Returns
    -------
    set of str
        The module itself and every package module it reaches by imports.

    Examples
    --------
    >>> sorted(dependencies("regemb_utils.text.tokenization"))
    ['regemb_utils.text.tokenization']
    >>> "regemb_utils.text.tokenization" in dependencies("regemb_utils.text.corpus")
    True
    """
    modules = _package_modules()
    reached, todo = set(), [module]
    while todo:
        current = todo.pop()
        if current in reached or current not in modules:
            continue
        reached.add(current)
        todo.extend(modules[current][0])
    return reached


@functools.cache
def code_hash(module: str) -> str:
    """A hash of the code of ``module`` and of its :func:`dependencies` (docstrings, comments and
    :data:`PRESENTATION` modules left out).

    Parameters
    ----------
    module : str
        A module of the package, by its dotted name.

    Returns
    -------
    str
        16 hexadecimal digits.

    Examples
    --------
    >>> code_hash("regemb_utils.text.corpus") == code_hash("regemb_utils.text.corpus")
    True
    >>> code_hash("regemb_utils.text.corpus") == code_hash("regemb_utils.text.tokenization")
    False
    """
    modules = _package_modules()
    hashed = sorted(modules[m][1] for m in dependencies(module) if m.rsplit(".", 1)[-1] not in PRESENTATION)
    return hashlib.sha256("".join(hashed).encode()).hexdigest()[:16]


def artifact_key(name: str, params: dict[str, Any]) -> str:
    """The key of the artifact of kind ``name`` computed with ``params``: a hash of the kind, its format version, its computing code (:func:`code_hash`) and the parameters.

    Parameters
    ----------
    name : str
        An artifact kind of :data:`ARTIFACT_VERSIONS`.
    params : dict
        The parameters that produced it (JSON-serializable; other objects enter by ``repr``; data enter through
        :func:`fingerprint`).

    Returns
    -------
    str
        16 hexadecimal digits.

    Raises
    ------
    KeyError
        For an unknown kind.

    Examples
    --------
    >>> artifact_key("knn", {"k": 11}) == artifact_key("knn", {"k": 11})
    True
    >>> artifact_key("knn", {"k": 11}) == artifact_key("knn", {"k": 13})
    False
    >>> artifact_key("tables", {})
    Traceback (most recent call last):
    ...
    KeyError: "unknown artifact kind 'tables'; known: corpus-dictionary, word2bits, neighbours, knn, wmd-batch"
    """
    if name not in ARTIFACT_VERSIONS:
        raise KeyError(f"unknown artifact kind {name!r}; known: {', '.join(ARTIFACT_VERSIONS)}")
    blob = json.dumps({"name": name, "params": params, "version": ARTIFACT_VERSIONS[name],
                       "code": code_hash(computing_module(name))}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------------------------------------------
# files


def save_pickle(obj: Any, directory: Path) -> None:
    """Pickle ``obj`` into ``directory/artifact.pkl`` (the default way :meth:`ArtifactCache.get` saves).

    Parameters
    ----------
    obj : object
        Any picklable object.
    directory : pathlib.Path
        An existing directory.

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_pickle({"errors": [3, 1]}, Path(folder))
    ...     print(sorted(p.name for p in Path(folder).iterdir()), load_pickle(Path(folder)))
    ['artifact.pkl'] {'errors': [3, 1]}
    """
    with open(directory / "artifact.pkl", "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


# Where the modules of the flat package (before issue 18's subpackages) went: artifacts and chapter records pickled
# before the move name the old modules, and their keys did not change.
_MOVED_MODULES = {f"regemb_utils.{old}": f"regemb_utils.{new}" for old, new in (
    ("text", "text.tokenization"), ("preprocessing", "study.preprocessing"), ("corpus", "text.corpus"),
    ("data", "text.datasets"), ("documents", "text.documents"), ("word2bits", "embeddings.word2bits"),
    ("embeddings", "embeddings.trained"), ("termsim", "termsim.matrix"),
    ("orthogonalization", "termsim.orthogonalization"), ("term_matrices", "termsim.sources"),
    ("cholesky", "termsim.cholesky"), ("similarity", "measures.similarity"), ("wmd", "measures.wmd"),
    ("representations", "measures.representations"), ("knn", "classification.knn"),
    ("knn_runs", "classification.knn_runs"), ("selection", "classification.selection"),
    ("statistics", "classification.statistics"), ("methods", "classification.methods"),
    ("experiment", "classification.experiment"), ("wmd_samples", "classification.wmd_samples"),
    ("params", "study.params"), ("pipeline", "study.pipeline"), ("cache", "study.cache"), ("paper", "study.paper"),
    ("book", "study.book"), ("plotting", "study.plotting"), ("document_maps", "study.document_maps"),
    ("results", "study.results"), ("scorecard", "study.scorecard"), ("worked_example", "study.worked_example"),
    ("browser", "study.browser"), ("progress", "study.progress"))}


# Classes that left their module in the move.
_MOVED_CLASSES = {("regemb_utils.preprocessing", "CorpusStatistics"): "regemb_utils.text.corpus"}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(_MOVED_CLASSES.get((module, name)) or _MOVED_MODULES.get(module, module), name)


def unpickle(path: Path) -> Any:
    """The object pickled in the file ``path`` (also one pickled before the package's modules moved).

    Parameters
    ----------
    path : pathlib.Path
        A pickle file.

    Returns
    -------
    object
        The unpickled object; classes of the package's old flat modules are found where they moved.

    Examples
    --------
    >>> import pickle, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "x.pkl").write_bytes(pickle.dumps([1, 2]))
    ...     print(unpickle(Path(folder) / "x.pkl"))
    [1, 2]
    """
    with open(path, "rb") as f:
        return _Unpickler(f).load()


def load_pickle(directory: Path) -> Any:
    """The object that :func:`save_pickle` wrote into ``directory`` (the default way :meth:`ArtifactCache.get` loads).

    Parameters
    ----------
    directory : pathlib.Path
        An artifact's directory, with its ``artifact.pkl``.

    Returns
    -------
    object
        The unpickled object.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_pickle(np.arange(3), Path(folder))
    ...     print(load_pickle(Path(folder)))
    [0 1 2]
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
    files = {p.relative_to(directory).as_posix(): {"size": p.stat().st_size, "sha256": file_sha256(p)}
             for p in _files(directory)}
    (directory / _MANIFEST).write_text(json.dumps({"params": params, "files": files}, sort_keys=True, indent=1,
                                                  default=repr))


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
    return CacheError(f"{target} could not be written into {_describe_root(root)}: {reason}. Free some space, or set "
                      "REGEMB_CACHE to a directory with free space, and rerun the chapter (finished artifacts are "
                      "kept).")


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
    >>> calls = []
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = ArtifactCache(folder)
    ...     first = cache.get("knn", {"doctest": 1}, lambda: calls.append(1) or [4, 2])
    ...     again = cache.get("knn", {"doctest": 1}, lambda: calls.append(1) or [0])
    ...     print(first, again, len(calls), cache.has("knn", {"doctest": 2}))
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
            raise CacheError(f"{_describe_root(self.root)} cannot be written: {reason}. Set REGEMB_CACHE to a "
                             "writable directory with free space.") from None
        self.remove_stale_staging()

    def check_free_space(self, needed: int, what: str) -> None:
        """Raise :class:`CacheError` naming the cache and ``REGEMB_CACHE`` when its disk has less than ``needed``
        bytes free (``what`` says what needs them)."""
        free = shutil.disk_usage(self.root).free
        if free < needed:
            raise CacheError(f"{_describe_root(self.root)} has {free / 2**20:,.0f} MiB free; {what} needs about "
                             f"{needed / 2**20:,.0f} MiB. Free some space, or set REGEMB_CACHE to a directory on a disk "
                             "with more.")

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
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.stage-{_host()}.{os.getpid()}.",
                                            dir=self.root))
        except OSError as error:
            _warn(f"{_describe_root(self.root)} cannot be written ({error.strerror or error}); the {name} artifact "
                  "is used now but not kept")
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
            _warn(f"the {name} artifact could not be written to {target} ({error.strerror or error}); it is used "
                  "now but not kept")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
