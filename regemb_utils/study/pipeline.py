"""Chapters as a pipeline: what each chapter ran with, and where the next one takes its inputs from.

Every chapter starts with ``chapter = start_chapter(name, globals())`` in its first code cell and ends with
``chapter.finish(...)``. :func:`start_chapter`

1. reads the parameters that the reader set (the notebook's Parameters cell and papermill's injected cell) and stops
   the chapter if one of them has an unknown name, with the list of allowed names;
2. validates their values (:func:`regemb_utils.study.params.chapter_parameters`);
3. checks that the artifact cache can be written (:meth:`regemb_utils.infra.cache.ArtifactCache.check_writable`);
4. finds the **record** of the previous chapter (the latest one for the profile, or the one named by the parameter
   ``previous_record``) and through it the whole lineage back to chapter 1; a missing record stops the chapter with
   the name of the chapter to run first. Parameters whose default is "inherited" (the data sets of chapters 4, 5 and
   7) take the values of the chapter they name, and the chapter's rules against its inputs run
   (:class:`regemb_utils.study.params.ChapterSpec`): the pipeline itself knows no chapter by name.

:meth:`Chapter.finish` writes the chapter's own record: the resolved parameters, the record it built on, the
artifacts it read or wrote (with their keys), small results for later chapters (``values``), the package and code
versions and the timings. Records live in ``<cache>/records/<profile>/<chapter>/<id>/``, written atomically.

The inputs a chapter takes from earlier chapters (the dictionary, the data sets, the embeddings, chapter 4's
results) come from :class:`Chapter`'s methods, which read the lineage's records: notebooks never rebuild another
chapter's settings and never build cache keys.
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import json
import os
import pickle
import secrets
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import __version__
from ..classification.engine import Measure
from ..classification.experiment import classify
from ..infra.processes import connect_scheduler, parallel_context
from ..classification.methods import METHODS
from ..classification.settings import Settings
from ..embeddings.trained import BITLEVELS, embedding_settings, trained_embeddings
from ..termsim.orthogonalization import neighbour_cache, neighbour_depth, neighbour_key
from ..termsim.sources import CachedMatrices
from ..text.corpus import corpus_dictionary
from ..text.datasets import head, load_dataset
from ..text.documents import prepare_documents
from ..book.tables import table
from ..infra.cache import ACCESSED, REPOSITORY, ArtifactCache, unpickle, write_error
from .params import (
    BOOK_SEED,
    CHAPTERS,
    INHERITED,
    SEEDED_METHODS,
    ChapterParameters,
    ParameterError,
    chapter_parameters,
)

__all__ = [
    "PipelineError",
    "given_parameters",
    "Record",
    "records",
    "Chapter",
    "run_classification",
    "run_seed_classification",
    "start_chapter",
]

ORDER = tuple(CHAPTERS)


class PipelineError(RuntimeError):
    """A chapter cannot start: an earlier chapter's record is missing or does not provide what it needs.

    Parameters
    ----------
    message : str
        What is missing and which chapter to run first.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     try:
    ...         start_chapter("02_training", {"profile": "smoke"}, ArtifactCache(folder))
    ...     except PipelineError as error:
    ...         print(type(error).__name__, "record" in str(error))
    PipelineError True
    """


# ----------------------------------------------------------------------------------------------------------------
# versions and given parameters


def code_version() -> dict[str, Any]:
    """The package version, a hash of the package's source files and, in a git checkout, the commit.

    Returns
    -------
    dict
        ``{"package": version, "code": 16 hexadecimal digits, "git": commit or None}``.

    Examples
    --------
    >>> version = code_version()
    >>> sorted(version), len(version["code"])
    (['code', 'git', 'package'], 16)
    """
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    version = {"package": __version__, "code": digest.hexdigest()[:16], "git": None}
    if (REPOSITORY / ".git").exists():
        try:
            version["git"] = subprocess.run(
                ["git", "-C", str(REPOSITORY), "rev-parse", "HEAD"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return version


def _assigned_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def given_parameters(namespace: dict[str, Any]) -> dict[str, Any]:
    """The parameters a notebook's namespace sets: every name assigned at the top level of its Parameters cell (the
    last executed cell that assigns ``profile``) and of papermill's injected cell (``# Parameters``), with its value.
    Outside IPython (no cell history) every non-private, non-callable name counts.

    Parameters
    ----------
    namespace : dict
        A notebook's global namespace (``globals()``).

    Returns
    -------
    dict
        Parameter name → value, sorted by name.

    Examples
    --------
    >>> given_parameters({"profile": "smoke", "datasets": ["twitter"], "_hidden": 1, "show": print})
    {'datasets': ['twitter'], 'profile': 'smoke'}
    """
    history = namespace.get("In")
    if isinstance(history, list) and len(history) > 1:
        names: set[str] = set()
        injected = lambda s: s.lstrip().startswith("# Parameters")  # noqa: E731
        for marker in (injected, lambda s: not injected(s) and "profile" in _assigned_names(s)):
            cell = next((s for s in reversed(history[:-1]) if isinstance(s, str) and marker(s)), None)
            if cell is not None:
                names |= _assigned_names(cell)
    else:
        names = {
            name
            for name, value in namespace.items()
            if not name.startswith("_") and not callable(value) and not hasattr(value, "__spec__")
        }
    return {name: namespace[name] for name in sorted(names) if name in namespace}


# ----------------------------------------------------------------------------------------------------------------
# records


@dataclass
class Record:
    """What one run of a chapter ran with and produced.

    Parameters
    ----------
    id : str
        The record's id (start time and a random suffix).
    chapter, profile : str
        The chapter and the profile it ran with.
    parameters : dict
        The parameters it ran with (JSON values).
    previous : str or None
        The id of the previous chapter's record it built on.
    artifacts : list of dict
        The artifacts it read or wrote (:data:`regemb_utils.infra.cache.ACCESSED`).
    versions : dict
        :func:`code_version` of the run.
    started, finished : str
        ISO 8601 times (UTC).
    seconds : float
        Its duration.
    written : int
        Bytes of the artifacts it computed and wrote.
    path : pathlib.Path
        The record's directory.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = ArtifactCache(folder)
    ...     _ = start_chapter("01_preprocessing", {"profile": "smoke"}, cache).finish(documents=120)
    ...     record = records("01_preprocessing", "smoke", cache)[-1]
    ...     print(record.chapter, record.values, record.parameter("max_documents"))
    01_preprocessing {'documents': 120} 120
    """

    id: str
    chapter: str
    profile: str
    parameters: dict[str, Any]
    previous: str | None  # the id of the previous chapter's record it built on
    artifacts: list[dict[str, Any]]
    versions: dict[str, Any]
    started: str
    finished: str
    seconds: float
    written: int = 0  # bytes of the artifacts this run computed and wrote
    path: Path = field(repr=False, default=Path())

    @property
    def values(self) -> dict[str, Any]:
        """The small results the chapter kept for later chapters."""
        return _load_values(self.path / "values.pkl")

    def parameter(self, name: str) -> Any:
        value = self.parameters[name]
        return tuple(value) if isinstance(value, list) else value


def _records_dir(cache: ArtifactCache, profile: str, chapter: str) -> Path:
    return cache.root / "records" / profile / chapter


def _read(path: Path, chapter: str | None = None, profile: str | None = None) -> Record:
    """The record in ``path``; a damaged one, or one that says it belongs to another chapter or profile than its
    place, stops with its path and what to do."""
    remedy = f"remove {path} (the record is lost; rerun its chapter if no other record of it remains)"
    try:
        data = json.loads((path / "record.json").read_text())
        record = Record(path=path, **data)
        if not isinstance(record.parameters, dict) or not isinstance(record.artifacts, list):
            raise TypeError("its parameters or artifacts have the wrong type")
    except (OSError, ValueError, TypeError) as error:
        raise PipelineError(f"the record {path} cannot be read ({type(error).__name__}: {error}): {remedy}") from None
    for field_name, expected in (("chapter", chapter), ("profile", profile)):
        if expected is not None and getattr(record, field_name) != expected:
            raise PipelineError(
                f"the record {path} says it is of {field_name} {getattr(record, field_name)!r}, but it "
                f"lies among the records of {field_name} {expected!r}: {remedy}"
            )
    if record.parameters.get("profile", profile) != record.profile:
        raise PipelineError(
            f"the record {path} ran with profile {record.parameters.get('profile')!r} but says "
            f"{record.profile!r}: {remedy}"
        )
    return record


def _load_values(path: Path) -> dict[str, Any]:
    try:
        values = unpickle(path)
        if not isinstance(values, dict):
            raise TypeError(f"it holds a {type(values).__name__}, not the chapter's values")
        return values
    except (
        OSError,
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        ImportError,
        IndexError,
    ) as error:
        raise PipelineError(
            f"the record {path.parent} cannot be read ({path.name}: {type(error).__name__}: "
            f"{error}): remove {path.parent} (the record is lost; rerun its chapter if no other record "
            "of it remains)"
        ) from None


def records(chapter: str, profile: str, cache: ArtifactCache | None = None) -> list[Record]:
    """Every complete record of ``chapter`` for ``profile``, oldest first (staging directories of records being
    written, whose names start with a dot, are never read).

    Parameters
    ----------
    chapter : str
        A chapter of :data:`regemb_utils.study.params.CHAPTERS`.
    profile : str
        The profile its runs used.
    cache : ArtifactCache, optional
        Where the records live; by default the default cache.

    Returns
    -------
    list of Record
        Oldest first; empty when the chapter never ran with this profile.

    Raises
    ------
    PipelineError
        When the records' directory cannot be listed.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = ArtifactCache(folder)
    ...     before = records("01_preprocessing", "smoke", cache)
    ...     _ = start_chapter("01_preprocessing", {"profile": "smoke"}, cache).finish()
    ...     print(len(before), len(records("01_preprocessing", "smoke", cache)))
    0 1
    """
    cache = cache or ArtifactCache()
    directory = _records_dir(cache, profile, chapter)
    for level in (directory, *directory.parents):
        if level == cache.root:
            break
        if level.exists() and not level.is_dir():
            raise PipelineError(
                f"{level} in the artifact cache is not a directory (the records of the chapters "
                f"live there): remove or rename it, or set REGEMB_CACHE to another directory"
            )
    try:
        candidates = [p for p in directory.iterdir() if not p.name.startswith(".")] if directory.is_dir() else []
    except OSError as error:
        raise PipelineError(f"the records in {directory} cannot be listed ({error.strerror or error})") from None
    found = [
        _read(p, chapter, profile) for p in candidates if (p / "record.json").is_file() and (p / "values.pkl").is_file()
    ]
    return sorted(found, key=lambda r: (r.finished, r.id))


def _size(path: Path) -> int:
    try:
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    except OSError:
        return 0


MIN_FREE = 64 * 2**20  # bytes a chapter needs free in the cache at least (its record, small artifacts)


def expected_bytes(chapter: str, params: ChapterParameters, cache: ArtifactCache) -> int:
    """What a run of ``chapter`` will write into the cache, as far as it can be told before it runs: nothing new
    (beyond :data:`MIN_FREE`) when the latest run had the same parameters and its artifacts are all still there,
    else as much as the latest run of the chapter with this profile wrote.

    Parameters
    ----------
    chapter : str
        A chapter of :data:`regemb_utils.study.params.CHAPTERS`.
    params : ChapterParameters
        The parameters the run will use.
    cache : ArtifactCache
        The cache it will write into.

    Returns
    -------
    int
        Bytes, at least :data:`MIN_FREE`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = ArtifactCache(folder)
    ...     chapter = start_chapter("01_preprocessing", {"profile": "smoke"}, cache)
    ...     _ = chapter.finish()
    ...     print(expected_bytes("01_preprocessing", chapter.params, cache) == MIN_FREE)
    True
    """
    found = records(chapter, params.profile, cache)
    if not found:
        return MIN_FREE
    latest = found[-1]
    same = {k: _jsonable(v) for k, v in params.items()} == latest.parameters
    if same and all(Path(a["path"]).is_dir() for a in latest.artifacts):
        return MIN_FREE
    return MIN_FREE + latest.written


def _previous(chapter: str) -> str | None:
    index = ORDER.index(chapter)
    return ORDER[index - 1] if index > 0 else None


def _find(chapter: str, profile: str, record_id: str | None, cache: ArtifactCache, needed_by: str) -> Record:
    found = records(chapter, profile, cache)
    if record_id is not None:
        match = [r for r in found if r.id == record_id]
        if not match:
            known = ", ".join(r.id for r in found[-5:]) or "none"
            raise PipelineError(
                f"chapter {needed_by} was asked to build on record {record_id} of chapter {chapter}, "
                f"which is not in {cache.root} for profile {profile!r} (latest: {known})"
            )
        return match[0]
    if not found:
        raise PipelineError(
            f"chapter {needed_by} takes its inputs from chapter {chapter}, which has no record for profile "
            f"{profile!r} in {cache.root}: run chapter {chapter} first, e.g. `scripts/run_chapters.py --profile "
            f"{profile} --from {chapter}` (or open notebooks/{chapter}.ipynb and run it)"
        )
    return found[-1]


def _lineage(chapter: str, profile: str, record_id: str | None, cache: ArtifactCache) -> dict[str, Record]:
    """The previous chapter's record and, through each record's ``previous``, every earlier one."""
    lineage: dict[str, Record] = {}
    current, wanted = _previous(chapter), record_id
    while current is not None:
        record = _find(current, profile, wanted, cache, chapter)
        lineage[current] = record
        current, wanted = _previous(current), record.previous
        if current is not None and wanted is None:
            raise PipelineError(f"record {record.id} of chapter {record.chapter} names no record of chapter {current}")
    return lineage


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


# ----------------------------------------------------------------------------------------------------------------
# a chapter


class Chapter:
    """One run of a chapter: its parameters, the records it builds on, and its inputs.

    Parameters
    ----------
    name : str
        The chapter, e.g. ``"04_scm_vs_wmd"``.
    params : ChapterParameters
        Its validated parameters (inherited ones filled in).
    lineage : dict
        Chapter → the :class:`Record` of an earlier chapter this run builds on.
    cache : ArtifactCache
        The artifact cache.

    Attributes
    ----------
    name, params, lineage, cache
        As given.
    started : datetime.datetime
        When the run started (UTC).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     chapter = start_chapter("01_preprocessing", {"profile": "smoke", "max_documents": 50}, ArtifactCache(folder))
    ...     record = chapter.finish(kept=50)
    ...     print(chapter.profile, chapter.params.max_documents, record.values)
    smoke 50 {'kept': 50}
    """

    def __init__(self, name: str, params: ChapterParameters, lineage: dict[str, Record], cache: ArtifactCache):
        self.name, self.params, self.lineage, self.cache = name, params, lineage, cache
        self.started = dt.datetime.now(dt.timezone.utc)
        self._clock = time.perf_counter()
        self._accessed_from = len(ACCESSED)

    @property
    def profile(self) -> str:
        return self.params.profile

    def record(self, chapter: str) -> Record:
        """The record of an earlier chapter that this run builds on."""
        if chapter not in self.lineage:
            raise PipelineError(f"chapter {self.name} does not build on chapter {chapter}")
        return self.lineage[chapter]

    def _repr_html_(self) -> str:
        rows = [{"parameter": name, "value": _shown(value)} for name, value in self.params.items()]
        shown = table(pd.DataFrame(rows), caption=f"The parameters of this run ({self.profile} profile)").html
        inputs = "".join(f"<li>chapter {c}: record <code>{r.id}</code></li>" for c, r in self.lineage.items())
        return shown + (f"<p>Inputs:</p><ul>{inputs}</ul>" if inputs else "")

    def finish(self, **values: Any) -> Record:
        """Write this run's record (with ``values`` for later chapters) and return it."""
        finished = dt.datetime.now(dt.timezone.utc)
        record_id = f"{self.started:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"
        previous = self.lineage.get(_previous(self.name)) if _previous(self.name) else None
        accessed = ACCESSED[self._accessed_from :]
        data = {
            "id": record_id,
            "chapter": self.name,
            "profile": self.profile,
            "parameters": {k: _jsonable(v) for k, v in self.params.items()},
            "previous": previous.id if previous else None,
            "artifacts": list({a["key"]: a for a in accessed}.values()),
            "versions": code_version(),
            "started": self.started.isoformat(),
            "finished": finished.isoformat(),
            "seconds": time.perf_counter() - self._clock,
            "written": sum(_size(Path(a["path"])) for a in accessed if a["computed"]),
        }
        directory = _records_dir(self.cache, self.profile, self.name)
        staging = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{record_id}.", dir=directory))
            with open(staging / "values.pkl", "wb") as f:
                pickle.dump(values, f, protocol=pickle.HIGHEST_PROTOCOL)
            (staging / "record.json").write_text(json.dumps(data, indent=1, default=repr))
            os.chmod(staging, 0o755)
            os.rename(staging, directory / record_id)
        except OSError as error:
            raise write_error(self.cache.root, directory / record_id, error) from None
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
        return _read(directory / record_id)

    # -- inputs from earlier chapters ------------------------------------------------------------------------------

    def corpus(self) -> tuple[int | None, str]:
        """Chapter 1's corpus settings: (Wikipedia articles or None for all, tokenizer)."""
        first = self.record("01_preprocessing")
        return first.parameter("corpus_articles"), first.parameter("tokenizer")

    def dictionary(self):
        """Chapter 1's common dictionary."""
        articles, tokenizer = self.corpus()
        return corpus_dictionary(articles, tokenizer, self.cache)

    def embeddings(self, seed: int = BOOK_SEED, models=tuple(BITLEVELS)) -> dict[str, tuple[Any, dict[str, Any]]]:
        """Chapter 2's ``models`` trained with ``seed`` (the book's, or one of chapter 2's ``other_seeds``), each with
        the settings that identify it (for keys of derived artifacts)."""
        articles, tokenizer = self.corpus()
        training = self.record("02_training")
        if seed != BOOK_SEED and seed not in training.parameter("other_seeds"):
            raise PipelineError(
                f"chapter 2 trained no model with seed {seed}: its other_seeds are "
                f"{list(training.parameter('other_seeds'))}"
            )
        loaded = {}
        for model in models:
            settings = embedding_settings(training.parameters, model, articles, tokenizer)
            vectors, _ = trained_embeddings(model, seed=seed, cache=self.cache, **settings)
            loaded[model] = vectors, dict(settings, model=model)
        return loaded

    def neighbour_caches(self, models, dictionary, depth: int) -> dict[str, tuple[Any, float]]:
        """The top-``depth`` neighbours of every dictionary word for each model, and the seconds each took."""
        articles, tokenizer = self.corpus()
        return {
            name: neighbour_cache(
                vectors, dictionary, depth, neighbour_key(vectors, key, articles, tokenizer), self.cache
            )
            for name, (vectors, key) in models.items()
        }

    def datasets(self, names=None, max_documents=None) -> dict[str, Any]:
        """Chapter 1's data sets (``names`` of them), each split cut to ``max_documents`` if given."""
        first = self.record("01_preprocessing")
        names = names or first.parameter("datasets")
        limit = first.parameter("max_documents")
        if max_documents is not None:
            limit = max_documents if limit is None else min(limit, max_documents)
        return {name: head(load_dataset(name), limit) for name in names}

    def documents(self, names, max_documents) -> tuple[Any, dict[str, Any]]:
        """Chapter 1's dictionary and the data sets ``names`` (cut to ``max_documents``) counted over it."""
        dictionary = self.dictionary()
        _, tokenizer = self.corpus()
        return dictionary, {
            name: prepare_documents(dataset, dictionary, tokenizer)
            for name, dataset in self.datasets(names, max_documents).items()
        }

    def method_inputs(self, method: str, classification: dict[str, Any], dictionary, documents, models):
        """(embedding rows per data set, S' builder) that ``method`` needs under chapter 4's parameters
        ``classification``: raw embedding rows for the dense SCM and the WMD; :class:`CachedMatrices` over the
        neighbour cache (chapter 3's when it is deep enough, else computed here) for the sparse SCM."""
        measure = Measure.of(method)
        vectors = models[measure.model][0] if measure.model else None
        embeddings = matrices = None
        if measure.needs_embeddings:
            embeddings = {name: measure.embeddings(vectors, dictionary, d.terms) for name, d in documents.items()}
        if measure.needs_matrices:
            articles, tokenizer = self.corpus()
            depth = neighbour_depth(classification["nonzero_limits"])
            key = neighbour_key(vectors, models[measure.model][1], articles, tokenizer)
            neighbour_cache(vectors, dictionary, depth, key, self.cache, load=False)
            matrices = CachedMatrices(
                str(self.cache.root),
                articles,
                tokenizer,
                tuple(sorted(key.items())),
                depth,
                classification["fill_rule"],
            )
        return embeddings, matrices

    def results(self) -> dict:
        """Chapter 4's results: ``{(data set, method): MethodResult}``."""
        return self.record("04_scm_vs_wmd").values["results"]


def run_classification(chapter: Chapter, *, seed: int = BOOK_SEED, methods=None, progress: bool = True) -> dict:
    """Chapter 4: every method of ``chapter.params`` (or ``methods``) on every data set, with chapter 2's models
    trained with ``seed``: ``{(data set, method): MethodResult}``.

    The dictionary and the data sets are chapter 1's, the embeddings chapter 2's; methods run one after the other and,
    inside each, the grid points (or WMD batches) run in parallel where ``params.scheduler`` says. Every result comes
    from the artifact cache when its inputs (by content) and settings are there.

    Parameters
    ----------
    chapter : Chapter
        Chapter 4's run (its parameters and the records of chapters 1 and 2).
    seed : int
        The training seed of the models: the book's, or one of chapter 2's ``other_seeds``.
    methods : sequence of str, optional
        The methods to run (default: ``chapter.params.methods``).
    progress : bool
        Whether to show progress bars.

    Returns
    -------
    dict
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult`.
    """
    params = chapter.params
    methods = params.methods if methods is None else methods
    dictionary, documents = chapter.documents(params.datasets, params.max_documents)
    models = chapter.embeddings(seed, models=tuple(m for m in BITLEVELS if any(METHODS[n].model == m for n in methods)))
    settings = Settings.from_parameters(params, progress=progress)
    results = {}
    with parallel_context(params.scheduler, params.n_jobs):
        for method in methods:
            embeddings, matrices = chapter.method_inputs(method, params, dictionary, documents, models)
            for name, result in classify(
                method, documents, settings, embeddings=embeddings, matrices=matrices, cache=chapter.cache
            ).items():
                results[name, method] = result
    return results


def run_seed_classification(chapter: Chapter, *, progress: bool = True) -> dict[int, dict]:
    """Chapter 4's protocol for the :data:`regemb_utils.chapters.training.SEEDED_METHODS` that ``chapter.params`` runs,
    once per seed of chapter 2's ``other_seeds`` (:func:`run_classification` with that seed's 32-bit model).

    Parameters
    ----------
    chapter : Chapter
        Chapter 4's run (its parameters and the records of chapters 1 and 2).
    progress : bool

    Returns
    -------
    dict
        ``{seed: {(data set, method): MethodResult}}``; empty when chapter 2 trained no other seed or chapter 4 runs
        neither seeded method.
    """
    methods = [m for m in SEEDED_METHODS if m in chapter.params.methods]
    seeds = chapter.record("02_training").parameter("other_seeds") if methods else ()
    return {seed: run_classification(chapter, seed=seed, methods=methods, progress=progress) for seed in seeds}


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return ", ".join(f"{k}: {'all' if v is None else v}" for k, v in value)
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value)


def _inherit(name: str, values: dict[str, Any], given: dict[str, Any], lineage: dict[str, Record]) -> None:
    """Fill the parameters that default to an earlier chapter's values (checking given ones against them), then run
    the chapter's rules against the records it builds on (:class:`regemb_utils.study.params.ChapterSpec`)."""
    spec = CHAPTERS[name]
    for p in spec.parameters:
        if p.inherited_from is None:
            continue
        source = lineage[p.inherited_from]
        available = source.parameter(p.name)
        if values[p.name] == INHERITED:
            values[p.name] = tuple(available)
        elif set(values[p.name]) - set(available):
            raise ParameterError(
                f"{p.name}={list(values[p.name])} is not allowed; chapter {source.chapter} (record "
                f"{source.id}) ran only {list(available)}: choose among those, or rerun chapter "
                f"{source.chapter} with the others"
            )
    for check in spec.input_checks:
        check(values, given, lineage)


def start_chapter(name: str, namespace: dict[str, Any], cache: ArtifactCache | None = None) -> Chapter:
    """Check the chapter's parameters, the cache and its inputs before any computation; see the module docstring.

    Parameters
    ----------
    name : str
        The chapter, e.g. ``"01_preprocessing"``.
    namespace : dict
        The notebook's global namespace (``globals()``), whose parameters :func:`given_parameters` reads.
    cache : ArtifactCache, optional
        The artifact cache; by default the default cache.

    Returns
    -------
    Chapter
        The run, with its parameters validated and its inputs found.

    Raises
    ------
    ParameterError
        For a parameter that is not allowed.
    PipelineError
        When an earlier chapter's record is missing.
    CacheError
        When the cache cannot be written or has too little free space.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     chapter = start_chapter("01_preprocessing", {"profile": "smoke", "datasets": ["twitter"]}, ArtifactCache(folder))
    >>> chapter.name, chapter.params.datasets, chapter.lineage
    ('01_preprocessing', ('twitter',), {})
    """
    given = given_parameters(namespace)
    profile = given.pop("profile", "paper")
    params = chapter_parameters(name, profile, **given)  # unknown names and bad values stop here
    cache = cache or ArtifactCache()
    cache.check_writable()
    lineage = _lineage(name, params.profile, params.get("previous_record"), cache)
    values = dict(params)
    _inherit(name, values, given, lineage)
    params = ChapterParameters(values)
    if str(params.get("scheduler", "")).startswith("tcp://"):  # reached now, not at the first classification
        connect_scheduler(params.scheduler).close()
    cache.check_free_space(expected_bytes(name, params, cache), f"chapter {name} (as much as its last run wrote)")
    return Chapter(name, params, lineage, cache)
