"""The six text-classification data sets, read from the vendored files in ``data/`` and split reproducibly.

Every file is verified against ``data/SHA256SUMS`` before it is read (:func:`data_file`). Nothing is extracted to
disk: the archives are read in memory. Each loader builds the whole document list in a deterministic order, with
integer labels that index :attr:`Dataset.class_names`, and then splits it as the paper's code did
(``dataset.py`` in MIR-MU/regularized-embeddings; see ``data/README.md`` for how our files differ from the paper's):

1. train+validation vs test: ``train_test_split(train_size=N_trval, test_size=N_test, shuffle=True,
   random_state=42)``, or the data set's official split (OHSUMED, REUTERS, 20NEWS);
2. train vs validation: ``train_test_split(train_size=0.8)``, with ``shuffle=False`` (the first 80 % of an
   already permuted list) for BBCSPORT, TWITTER and AMAZON, and ``shuffle=True, random_state=42`` for OHSUMED,
   REUTERS and 20NEWS, whose lists come class-ordered or in an official order.
"""

from __future__ import annotations

import functools
import html
import json
import lzma
import numbers
import os
import re
import tarfile
from dataclasses import dataclass, replace
from pathlib import Path
from stat import S_ISBLK, S_ISCHR, S_ISDIR, S_ISFIFO, S_ISREG, S_ISSOCK

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from ..infra.cache import directory_from_environment, file_sha256

__all__ = [
    "REPOSITORY",
    "DATA_DIR",
    "DATASETS",
    "FILES",
    "DataChecksumError",
    "DataFileError",
    "data_dir",
    "data_file",
    "Split",
    "Dataset",
    "dataset_from_texts",
    "load_20newsgroups_bydate",
    "load_dataset",
    "head",
]

REPOSITORY = Path(__file__).resolve().parents[2]
DATA_DIR = REPOSITORY / "data"

DATASETS = ("bbcsport", "twitter", "ohsumed", "reuters", "amazon", "20news")

SEED = 42
VALIDATION_TRAIN_SIZE = 0.8

FILES = {
    "bbcsport": "bbcsport/bbcsport.csv.xz",
    "twitter": "twitter/full-corpus.csv.xz",
    "ohsumed": "ohsumed/ohsumed_single_23.tar.xz",
    "reuters": "reuters/r8-raw.jsonl.xz",
    "amazon": "amazon/sorted_data_acl-labeled.tar.xz",
    "20news": "20news/20news-bydate.tar.xz",
    "wikipedia": "wikipedia/enwiki-2015-wikiextractor-AA.tar.xz",
}


# ---------------------------------------------------------------------------------------------------------------------
# Locating and verifying the vendored files


class DataChecksumError(ValueError):
    """A data file exists but its SHA-256 differs from the one recorded in ``data/SHA256SUMS``.

    Parameters
    ----------
    message : str
        The file, its SHA-256, the expected one, and how to restore it.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "bbcsport").mkdir()
    ...     _ = (Path(folder) / "bbcsport" / "bbcsport.csv.xz").write_bytes(b"not the data")
    ...     try:
    ...         data_file("bbcsport/bbcsport.csv.xz", folder)
    ...     except DataChecksumError as error:
    ...         print(str(error).replace(folder, "<folder>").split(":")[0])
    data file <folder>/bbcsport/bbcsport.csv.xz is damaged
    """


class DataFileError(OSError):
    """A data file exists but cannot be read: not a regular file (a directory, a FIFO, a device) or not readable.

    Parameters
    ----------
    message : str
        The file, why it cannot be read, and how to restore it.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "bbcsport" / "bbcsport.csv.xz").mkdir(parents=True)  # a directory where the file should be
    ...     try:
    ...         data_file("bbcsport/bbcsport.csv.xz", folder)
    ...     except DataFileError as error:
    ...         print(str(error).replace(folder, "<folder>").split(". ")[0])
    data file <folder>/bbcsport/bbcsport.csv.xz is a directory, not a regular file
    """


def _file_kind(mode: int) -> str:
    for test, kind in (
        (S_ISDIR, "a directory"),
        (S_ISFIFO, "a FIFO (named pipe)"),
        (S_ISCHR, "a character device"),
        (S_ISBLK, "a block device"),
        (S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def data_dir() -> Path:
    """The folder the data files are read from: ``$REGEMB_DATA`` if set (empty is refused; a relative path starts
    where the user ran the command: :func:`regemb_utils.cache.directory_from_environment`), else the repository's
    ``data/``.

    Installed outside the repository, the package has no ``data/`` beside it: set ``REGEMB_DATA`` to a copy of the
    repository's ``data/`` folder (with its ``SHA256SUMS``).

    Returns
    -------
    pathlib.Path
        The data folder.

    Examples
    --------
    >>> data_dir().name
    'data'
    """
    override = directory_from_environment("REGEMB_DATA")
    if override is not None:
        if not override.is_dir():
            raise FileNotFoundError(
                f"REGEMB_DATA names {override}, which is not a directory: set it to a copy of the "
                "repository's data/ folder (relative paths start where you ran the command)"
            )
        return override
    if not DATA_DIR.is_dir():
        raise FileNotFoundError(
            f"the data folder {DATA_DIR} does not exist (the package is installed outside its "
            "repository?): set REGEMB_DATA to the repository's data/ folder"
        )
    return DATA_DIR


def _expected_checksums() -> dict[str, str]:
    """The repository's ``data/SHA256SUMS`` in a checkout, wherever the files are read from; installed outside the
    repository, the one in ``$REGEMB_DATA``."""
    repository = DATA_DIR / "SHA256SUMS"
    return _checksums(repository if repository.is_file() else data_dir() / "SHA256SUMS")


@functools.lru_cache(maxsize=None)
def _checksums(path: Path) -> dict[str, str]:
    sums = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        digest, name = line.split(maxsplit=1)
        sums[name.lstrip("*").strip()] = digest.lower()
    return sums


def _restore_hint(relative_path: str) -> str:
    return (
        f"Restore it with `git checkout -- data/{relative_path}` in the repository, or copy it from the shared raw "
        f"data (see data/README.md for its source)."
    )


_VERIFIED: dict[tuple[str, int, int], str] = {}  # (resolved path, size, mtime_ns) -> SHA-256 found


def data_file(relative_path: str, directory: str | os.PathLike | None = None) -> Path:
    """Return the path of ``relative_path`` (e.g. ``"bbcsport/bbcsport.csv.xz"``) after checking its SHA-256.

    The file is looked up in ``directory``, else in :func:`data_dir`. The hash is computed once per process for each
    (path, size, modification time). Raises :class:`FileNotFoundError` if the file is missing and
    :class:`DataChecksumError` if its checksum is wrong; both messages say how to restore it.

    Parameters
    ----------
    relative_path : str
        The file's path inside the data folder, as ``SHA256SUMS`` lists it.
    directory : path-like, optional
        Another data folder.

    Returns
    -------
    pathlib.Path
        The verified file.

    Examples
    --------
    >>> data_file("bbcsport/bbcsport.csv.xz").name
    'bbcsport.csv.xz'
    """
    relative_path = Path(relative_path).as_posix()
    expected = _expected_checksums().get(relative_path)
    if expected is None:
        known = ", ".join(sorted(_expected_checksums()))
        raise KeyError(f"{relative_path!r} is not listed in the data checksums; known files: {known}")
    path = Path(directory) if directory is not None else data_dir()
    path = path / relative_path
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"data file {path} is missing (expected SHA-256 {expected}). {_restore_hint(relative_path)}"
        ) from None
    except OSError as error:
        raise DataFileError(
            f"data file {path} cannot be read ({error.strerror or error}). {_restore_hint(relative_path)}"
        ) from None
    if not S_ISREG(stat.st_mode):  # a directory, a FIFO (whose read would wait forever), a device, a socket
        raise DataFileError(
            f"data file {path} is {_file_kind(stat.st_mode)}, not a regular file. Remove it and "
            f"{_restore_hint(relative_path)[0].lower()}{_restore_hint(relative_path)[1:]}"
        )
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    actual = _VERIFIED.get(key)
    if actual is None:
        try:
            actual = _VERIFIED[key] = file_sha256(path)
        except OSError as error:
            raise DataFileError(
                f"data file {path} cannot be read ({error.strerror or error}): make it readable "
                f"(chmod a+r), or {_restore_hint(relative_path)[0].lower()}"
                f"{_restore_hint(relative_path)[1:]}"
            ) from None
    if actual != expected:
        raise DataChecksumError(
            f"data file {path} is damaged: its SHA-256 is {actual}, expected {expected}. {_restore_hint(relative_path)}"
        )
    return path


# ---------------------------------------------------------------------------------------------------------------------
# Data classes


@dataclass(frozen=True, eq=False)
class Split:
    """Documents and their integer labels (indices into :attr:`Dataset.class_names`).

    Parameters
    ----------
    texts : list of str
        The documents.
    labels : numpy.ndarray
        One integer label per document.

    Examples
    --------
    >>> Split(["a text", "another"], np.array([0, 1])).labels.tolist()
    [0, 1]
    """

    texts: list[str]
    labels: np.ndarray

    def __post_init__(self):
        if len(self.texts) != len(self.labels):
            raise ValueError(f"{len(self.texts)} texts but {len(self.labels)} labels")

    def __len__(self) -> int:
        return len(self.texts)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set's name, class names and its train, validation and test splits.

    Parameters
    ----------
    name : str
        The name.
    class_names : tuple of str
        The labels' names; a label indexes them.
    train, validation, test : Split
        The splits.

    Examples
    --------
    See :func:`load_dataset` and :func:`dataset_from_texts`.
    """

    name: str
    class_names: tuple[str, ...]
    train: Split
    validation: Split
    test: Split

    @property
    def splits(self) -> dict[str, Split]:
        return {"train": self.train, "validation": self.validation, "test": self.test}


# ---------------------------------------------------------------------------------------------------------------------
# Splitting


def _split(
    texts, labels, train_size, test_size, seed: int = SEED
) -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
    """Seeded train+validation vs test split, as the paper's code did it."""
    trval_texts, test_texts, trval_labels, test_labels = train_test_split(
        texts,
        np.asarray(labels, dtype=np.int64),
        train_size=train_size,
        test_size=test_size,
        shuffle=True,
        random_state=seed,
    )
    return list(trval_texts), trval_labels, list(test_texts), test_labels


def _make_dataset(name, class_names, trval_texts, trval_labels, test_texts, test_labels, shuffle_validation: bool):
    trval_labels = np.asarray(trval_labels, dtype=np.int64)
    if shuffle_validation:
        kwargs = dict(shuffle=True, random_state=SEED)
    else:
        kwargs = dict(shuffle=False)
    train_texts, val_texts, train_labels, val_labels = train_test_split(
        list(trval_texts), trval_labels, train_size=VALIDATION_TRAIN_SIZE, **kwargs
    )
    return Dataset(
        name=name,
        class_names=tuple(class_names),
        train=Split(list(train_texts), np.asarray(train_labels, dtype=np.int64)),
        validation=Split(list(val_texts), np.asarray(val_labels, dtype=np.int64)),
        test=Split(list(test_texts), np.asarray(test_labels, dtype=np.int64)),
    )


def dataset_from_texts(
    name: str,
    texts,
    labels,
    *,
    test_size: int | float = 0.3,
    class_names=None,
    test_texts=None,
    test_labels=None,
    random_state: int = SEED,
) -> Dataset:
    """A data set of one's own, split by the paper's rule: a seeded shuffle (``random_state``, the paper's 42) into
    train + validation and test (``test_size`` documents, or that fraction), then the last 20 % of train + validation
    as the validation split (unshuffled, as for BBCSPORT and TWITTER).

    With ``test_texts`` and ``test_labels`` the test split is fixed: ``texts`` and ``labels`` are train +
    validation (split by the same 80/20 rule) and ``test_size`` is not used.
    ``labels`` may be any values; ``class_names`` (default: the sorted distinct labels) fixes their order.

    Parameters
    ----------
    name : str
        The data set's name (it keys cached results).
    texts : sequence of str
        The documents (with ``test_texts``: the training and validation documents).
    labels : sequence
        One label per document, of any hashable type.
    test_size : int or float
        Test documents: a number, or a fraction of all documents (NumPy numbers too).
    class_names : sequence, optional
        The labels in the order of their integer codes.
    test_texts, test_labels : sequence, optional
        A fixed test split.
    random_state : int
        The seed of the train + validation vs test shuffle (the paper's 42).

    Returns
    -------
    Dataset
        Train, validation and test :class:`Split` s whose labels index ``class_names``.

    Examples
    --------
    >>> d = dataset_from_texts("toy", [f"text {i}" for i in range(10)], ["a", "b"] * 5, test_size=2)
    >>> [len(d.train.texts), len(d.validation.texts), len(d.test.texts)], d.class_names
    ([6, 2, 2], ('a', 'b'))
    >>> d = dataset_from_texts("pets", ["a cat", "a dog"] * 5, ["cat", "dog"] * 5, test_texts=["my cat"],
    ...                        test_labels=["cat"])
    >>> (len(d.train), len(d.validation), d.test.texts, d.class_names)
    (8, 2, ['my cat'], ('cat', 'dog'))
    """
    texts = list(texts)
    labels = list(labels)
    if not isinstance(name, str) or not name:
        raise ValueError("name must be a non-empty string")
    if (test_texts is None) != (test_labels is None):
        raise ValueError("test_texts and test_labels go together: give both for a fixed test split, or neither")
    fixed = test_texts is not None
    test_texts, test_labels = (list(test_texts), list(test_labels)) if fixed else ([], [])
    for which, (t, l) in {"": (texts, labels), "test_": (test_texts, test_labels)}.items():
        if len(t) != len(l):
            raise ValueError(f"{len(t)} {which}texts but {len(l)} {which}labels")
        if not all(isinstance(x, str) for x in t):
            raise ValueError(f"every {which}text must be a string")
    names = tuple(sorted(set(labels + test_labels), key=str)) if class_names is None else tuple(class_names)
    unknown = set(labels + test_labels) - set(names)
    if unknown:
        raise ValueError(f"labels {sorted(map(str, unknown))} are not among class_names {list(names)}")
    if len(names) < 2:
        raise ValueError("a classification data set needs at least two classes")
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise ValueError(f"random_state={random_state!r} is not allowed; give an integer seed")
    index = {label: i for i, label in enumerate(names)}
    codes = [index[label] for label in labels]
    if fixed:
        if not test_texts or len(texts) < 5:
            raise ValueError("a fixed split needs at least one test text and 5 texts for training and validation")
        return _make_dataset(
            name, names, texts, codes, test_texts, [index[label] for label in test_labels], shuffle_validation=False
        )
    integral = isinstance(test_size, numbers.Integral) and not isinstance(test_size, (bool, np.bool_))
    fraction = isinstance(test_size, numbers.Real) and not integral and not isinstance(test_size, (bool, np.bool_))
    n_test = int(test_size) if integral else round(float(test_size) * len(texts)) if fraction else None
    if n_test is None or not 1 <= n_test <= len(texts) - 5:
        raise ValueError(
            f"test_size={test_size!r} is not allowed; give a number of test documents, or a fraction, "
            f"that leaves at least 5 of the {len(texts)} documents for training and validation"
        )
    return _make_dataset(
        name, names, *_split(texts, codes, len(texts) - n_test, n_test, int(random_state)), shuffle_validation=False
    )


# ---------------------------------------------------------------------------------------------------------------------
# The loaders


BBCSPORT_CLASSES = ("athletics", "cricket", "football", "rugby", "tennis")


def _load_bbcsport(path: Path) -> Dataset:
    """BBCSPORT: 737 articles (title, blank line, body), 517 train+validation / 220 test.

    The paper's code globbed ``<class>/*.txt`` without sorting, so its document order (and so its exact split)
    depended on the file system. Here the list is sorted by (class index, text) before the seeded split, which gives
    a deterministic, equally valid split.
    """
    frame = pd.read_csv(path, encoding="utf-8", dtype=str, keep_default_na=False)
    index = {name: i for i, name in enumerate(BBCSPORT_CLASSES)}
    documents = sorted((index[topic], text) for text, topic in zip(frame["text"], frame["topic"]))
    labels = [label for label, _ in documents]
    texts = [text for _, text in documents]
    return _make_dataset("bbcsport", BBCSPORT_CLASSES, *_split(texts, labels, 517, 220), shuffle_validation=False)


TWITTER_CLASSES = ("positive", "neutral", "negative")


def _load_twitter(path: Path) -> Dataset:
    """TWITTER (Sanders): the tweets whose sentiment is not ``irrelevant``, in file order; 2176 / 932 of the 3,424.

    The CSV is UTF-8 (it decodes strictly). Tweets are kept verbatim, HTML entities such as ``&amp;`` included, as
    the paper's code read them with ``csv.DictReader``.
    """
    frame = pd.read_csv(path, encoding="utf-8", dtype=str, keep_default_na=False)
    frame = frame[frame["Sentiment"] != "irrelevant"]
    index = {name: i for i, name in enumerate(TWITTER_CLASSES)}
    labels = [index[s] for s in frame["Sentiment"]]
    texts = list(frame["TweetText"])
    return _make_dataset("twitter", TWITTER_CLASSES, *_split(texts, labels, 2176, 932), shuffle_validation=False)


OHSUMED_CLASSES = tuple(f"C{i:02d}" for i in range(1, 11))


def _load_ohsumed(path: Path) -> Dataset:
    """OHSUMED: single-label abstracts of C01–C10 from Moschitti's ``ohsumed_single_23`` distribution.

    A document is kept if its file id occurs in exactly one of the C01–C10 folders of its split (as the paper's
    code did; membership in C11–C23 is ignored). Paths are sorted. The distribution's own training part is the
    train+validation set and its test part the test set: 1,249 / 1,632 documents (the paper had 3,999 / 5,153).
    """
    documents: dict[str, list[tuple[str, str, str, str]]] = {"training": [], "test": []}
    with tarfile.open(path, "r|xz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if not member.isfile() or len(parts) != 4 or parts[2] not in OHSUMED_CLASSES:
                continue
            _, split, category, file_id = parts
            text = tar.extractfile(member).read().decode("utf-8")
            documents[split].append((member.name, category, file_id, text))
    parts = {}
    for split, docs in documents.items():
        docs.sort()
        folders_per_id: dict[str, int] = {}
        for _, _, file_id, _ in docs:
            folders_per_id[file_id] = folders_per_id.get(file_id, 0) + 1
        kept = [
            (OHSUMED_CLASSES.index(category), text)
            for _, category, file_id, text in docs
            if folders_per_id[file_id] == 1
        ]
        parts[split] = ([text for _, text in kept], [label for label, _ in kept])
    return _make_dataset("ohsumed", OHSUMED_CLASSES, *parts["training"], *parts["test"], shuffle_validation=True)


REUTERS_CLASSES = ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade")


def _reuters_text(record: dict) -> str:
    title, body = record["title"].strip(), record["body"].strip()
    if title and body:
        return f"{title}\n{body}"
    if title or body:
        return title or body
    # 36 documents of TYPE="UNPROC" have neither a <TITLE> nor a <BODY>: their text is the whole fragment.
    return record["text"].strip()


def _load_reuters(path: Path) -> Dataset:
    """REUTERS (R8): the official ApteMod split, 5,485 train+validation / 2,189 test.

    Text = title + newline + body. 622 "brief" documents have only a title (their body is empty; the SGML says
    "Blah blah blah."), and 36 unprocessed ones have neither, for which the raw text of the fragment is used.
    Each split is ordered by class, then by file order (the NEWID order of the JSON lines).
    """
    records = {"train": [], "test": []}
    with lzma.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            records[record["split"]].append(record)
    parts = {}
    for split, recs in records.items():
        ordered = sorted(range(len(recs)), key=lambda i: (REUTERS_CLASSES.index(recs[i]["label"]), i))
        parts[split] = (
            [_reuters_text(recs[i]) for i in ordered],
            [REUTERS_CLASSES.index(recs[i]["label"]) for i in ordered],
        )
    return _make_dataset("reuters", REUTERS_CLASSES, *parts["train"], *parts["test"], shuffle_validation=True)


_REVIEW_TEXT = re.compile(r"<review_text>(.*?)</review_text>", re.S)


def _load_amazon(path: Path) -> Dataset:
    """AMAZON (Blitzer et al., 2007): 4 categories x 2,000 reviews, 5,600 train+validation / 2,400 test.

    The ``.review`` files are pseudo-XML (unescaped ``&`` and ``<`` occur), so ``<review_text>`` is cut out with a
    regular expression and HTML-unescaped. The files are UTF-8. Order: category, then file name (``negative`` before
    ``positive``), then record order. The sentiment is not used: the class is the product category.
    """
    by_file: dict[str, list[str]] = {}
    with tarfile.open(path, "r|xz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".review"):
                content = tar.extractfile(member).read().decode("utf-8")
                by_file[member.name] = [html.unescape(m.strip()) for m in _REVIEW_TEXT.findall(content)]
    class_names = tuple(sorted({name.split("/")[1] for name in by_file}))
    texts, labels = [], []
    for name in sorted(by_file, key=lambda n: (n.split("/")[1], n.split("/")[2])):
        texts.extend(by_file[name])
        labels.extend([class_names.index(name.split("/")[1])] * len(by_file[name]))
    return _make_dataset("amazon", class_names, *_split(texts, labels, 5600, 2400), shuffle_validation=False)


TWENTY_NEWS_TRVAL, TWENTY_NEWS_TEST = 11293, 7528


def load_20newsgroups_bydate(path: Path) -> dict[str, tuple[list[str], np.ndarray, list[str], list[str]]]:
    """Exactly what ``fetch_20newsgroups(subset=s, shuffle=True, random_state=42, remove=())`` returns, for each s.

    Read straight from the bydate tar in memory. Per subset: ``load_files(<subset folder>, encoding="latin1")``
    (group folders sorted, files sorted by name within each folder, then shuffled with ``check_random_state(0)``),
    followed by ``fetch_20newsgroups``' own shuffle with ``check_random_state(42)``.
    Returns ``{subset: (data, target, target_names, filenames)}`` with file names relative to the archive.

    Parameters
    ----------
    path : pathlib.Path
        The ``20news-bydate.tar.xz`` archive.

    Returns
    -------
    dict
        ``{"train": (data, target, target_names, filenames), "test": (...)}``.

    Examples
    --------
    >>> import io, tempfile
    >>> posts = [("train", "sci.space", "1", "orbit"), ("train", "rec.autos", "2", "engine"),
    ...          ("train", "rec.autos", "3", "wheel"), ("test", "sci.space", "4", "moon"), ("test", "rec.autos", "5", "car")]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "20news-bydate.tar.xz"
    ...     with tarfile.open(path, "w:xz") as tar:
    ...         for subset, group, name, text in posts:
    ...             info = tarfile.TarInfo(f"20news-bydate-{subset}/{group}/{name}")
    ...             info.size = len(text)
    ...             tar.addfile(info, io.BytesIO(text.encode()))
    ...     subsets = load_20newsgroups_bydate(path)
    >>> data, target, names, files = subsets["train"]
    >>> data, target.tolist(), names  # scikit-learn's order: load_files' shuffle, then fetch_20newsgroups'
    (['orbit', 'wheel', 'engine'], [1, 0, 0], ['rec.autos', 'sci.space'])
    """
    files: dict[str, dict[str, dict[str, bytes]]] = {"train": {}, "test": {}}
    with tarfile.open(path, "r|xz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if len(parts) < 2 or not parts[0].startswith("20news-bydate-"):
                continue
            subset = parts[0].removeprefix("20news-bydate-")
            if member.isdir() and len(parts) == 2:
                files[subset].setdefault(parts[1], {})
            elif len(parts) == 3:
                group = files[subset].setdefault(parts[1], {})
                group[parts[2]] = tar.extractfile(member).read() if member.isfile() else None
    result = {}
    for subset, groups in files.items():
        target_names = sorted(groups)
        filenames, target, contents = [], [], []
        for label, group in enumerate(target_names):
            for name in sorted(groups[group]):
                filenames.append(f"20news-bydate-{subset}/{group}/{name}")
                target.append(label)
                contents.append(groups[group][name])
        order = np.arange(len(filenames))
        check_random_state(0).shuffle(order)  # load_files(shuffle=True, random_state=0)
        shuffle = np.arange(len(filenames))
        check_random_state(42).shuffle(shuffle)  # fetch_20newsgroups(shuffle=True, random_state=42)
        order = order[shuffle]
        data = [contents[i].decode("latin1") for i in order]
        result[subset] = (data, np.asarray(target)[order], target_names, [filenames[i] for i in order])
    return result


def _load_20news(path: Path) -> Dataset:
    """20NEWS (bydate, headers kept): the first 11,293 of sklearn's shuffled train list and the first 7,528 of test."""
    subsets = load_20newsgroups_bydate(path)
    train_data, train_target, class_names, _ = subsets["train"]
    test_data, test_target, test_names, _ = subsets["test"]
    assert class_names == test_names
    return _make_dataset(
        "20news",
        class_names,
        train_data[:TWENTY_NEWS_TRVAL],
        train_target[:TWENTY_NEWS_TRVAL],
        test_data[:TWENTY_NEWS_TEST],
        test_target[:TWENTY_NEWS_TEST],
        shuffle_validation=True,
    )


_LOADERS = {
    "bbcsport": _load_bbcsport,
    "twitter": _load_twitter,
    "ohsumed": _load_ohsumed,
    "reuters": _load_reuters,
    "amazon": _load_amazon,
    "20news": _load_20news,
}


@functools.lru_cache(maxsize=None)
def _load_cached(name: str, path: str, size: int, mtime_ns: int) -> Dataset:
    return _LOADERS[name](Path(path))


def _copy_split(split: Split) -> Split:
    return Split(list(split.texts), split.labels.copy())


def load_dataset(name: str) -> Dataset:
    """Load data set ``name`` (one of :data:`DATASETS`) with its reference train / validation / test split.

    The file is verified against ``data/SHA256SUMS`` on every call; the parsed data set is memoised in the process
    (keyed by the file's path, size and modification time), and each call returns fresh lists and arrays.

    Parameters
    ----------
    name : str
        ``"bbcsport"``, ``"twitter"``, ``"ohsumed"``, ``"reuters"``, ``"amazon"`` or ``"20news"``.

    Returns
    -------
    Dataset
        Its train, validation and test :class:`Split` s and class names.

    Examples
    --------
    >>> d = load_dataset("bbcsport")
    >>> len(d.train.texts), len(d.validation.texts), len(d.test.texts), len(d.class_names)
    (413, 104, 220, 5)
    """
    if name not in _LOADERS:
        raise ValueError(f"unknown data set {name!r}; allowed: {', '.join(DATASETS)}")
    path = data_file(FILES[name])
    stat = path.stat()
    dataset = _load_cached(name, str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    return Dataset(
        name=dataset.name,
        class_names=dataset.class_names,
        train=_copy_split(dataset.train),
        validation=_copy_split(dataset.validation),
        test=_copy_split(dataset.test),
    )


def head(dataset: Dataset, n: int | None) -> Dataset:
    """The first ``n`` documents of each split (all of them for ``None``): the smoke profile's slices.

    Parameters
    ----------
    dataset : Dataset
        The data set.
    n : int or None
        Documents kept per split.

    Returns
    -------
    Dataset
        The cut data set (the same one for ``None``).

    Examples
    --------
    >>> from regemb_utils.text.datasets import load_dataset
    >>> small = head(load_dataset("bbcsport"), 3)
    >>> len(small.train.texts), len(small.test.texts)
    (3, 3)
    """
    if n is None:
        return dataset

    def cut(split: Split) -> Split:
        return Split(split.texts[:n], split.labels[:n])

    return replace(dataset, train=cut(dataset.train), validation=cut(dataset.validation), test=cut(dataset.test))
