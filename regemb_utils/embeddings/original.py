"""The original Word2Bits tool (Lam, 2018) beside the book's trainer: compiled from its published source, trained on
the same token stream with the same flags, evaluated the same way.

The paper trained its embeddings with ``agnusmaximus/Word2Bits`` (``src/word2bits.cpp``, vendored unchanged with its
licence in ``third_party/word2bits/``). When a C++ compiler is present, :func:`build_word2bits` compiles it with its
``Makefile``'s flags (once per source and machine, into a folder of the artifact cache; nothing is downloaded), and
:func:`trainer_comparison` trains it and :func:`regemb_utils.embeddings.trained.trained_embeddings` on one corpus
and scores both with :func:`regemb_utils.embeddings.trained.word_benchmarks`. Without a compiler
:func:`build_word2bits` raises :class:`ToolUnavailable`, which says why.

What the tool does that the book's trainer does not (``regemb_utils.embeddings.word2bits`` lists every detail): its
vocabulary has the extra entry ``</s>`` (a line break), which is never trained as a context or target word and is
left out here, so that both vocabularies are the same words; its random streams, its tabulated sigmoid and its
1e8-entry table of negatives differ, so the vectors are not equal, only drawn from the same training.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from gensim.models import KeyedVectors

from .. import paper
from ..infra.cache import ArtifactCache
from ..infra.keys import computes
from ..text.corpus import WikipediaCorpus
from .trained import BITLEVELS, TrainingSummary, trained_embeddings, word_benchmarks

__all__ = [
    "TRAINERS",
    "ToolUnavailable",
    "build_word2bits",
    "write_token_stream",
    "run_word2bits",
    "trainer_comparison",
]

SOURCE = Path(__file__).resolve().parents[2] / "third_party" / "word2bits" / "word2bits.cpp"
UPSTREAM_COMMIT = "d029cca3fac2c06e1928d2a71462530b2cbe54cd"  # agnusmaximus/Word2Bits, the vendored snapshot
COMPILE_FLAGS = ("-O3", "-march=native", "-pthread", "-Wno-unused-result")  # the upstream Makefile's CFLAGS
COMPILER = "g++"  # the upstream Makefile's CC_MIKOLOV
SENTENCE_END = "</s>"  # word2vec's entry for a line break
TRAINERS = ("ours", "Word2Bits")  # the book's trainer, the original C++ tool


class ToolUnavailable(RuntimeError):
    """The original Word2Bits tool cannot be built here (no C++ compiler, or no vendored source).

    Parameters
    ----------
    message : str
        Why, and what would make it available.

    Examples
    --------
    See :func:`build_word2bits`.
    """


def _source_hash(source: Path = SOURCE) -> str:
    return hashlib.sha256(source.read_bytes()).hexdigest()[:16]


def build_word2bits(directory: str | os.PathLike, source: str | os.PathLike = SOURCE) -> Path:
    """The Word2Bits executable compiled from ``source`` with the upstream ``Makefile``'s compiler and flags, built
    once into ``directory`` (a name made of the source's hash and this machine's architecture: ``-march=native``
    code is not portable) and reused after that.

    Parameters
    ----------
    directory : path-like
        Where built executables are kept.
    source : path-like
        ``word2bits.cpp``.

    Returns
    -------
    pathlib.Path
        The executable.

    Raises
    ------
    ToolUnavailable
        When the source is missing, no ``g++`` is on the PATH, or compilation fails (with the compiler's message).

    Examples
    --------
    >>> try:
    ...     build_word2bits(tempfile.gettempdir(), source="missing/word2bits.cpp")
    ... except ToolUnavailable as error:
    ...     print(str(error)[:53])
    the Word2Bits source missing/word2bits.cpp is missing
    """
    source = Path(source)
    if not source.is_file():
        raise ToolUnavailable(
            f"the Word2Bits source {source} is missing (it is vendored in third_party/word2bits/ of "
            "the repository; an installed package without the repository has no copy)"
        )
    compiler = shutil.which(COMPILER)
    if compiler is None:
        raise ToolUnavailable(
            f"no C++ compiler: {COMPILER} is not on the PATH, so the original Word2Bits tool cannot "
            "be built (install g++ to run the check)"
        )
    directory = Path(directory)
    binary = directory / f"word2bits-{_source_hash(source)}-{platform.machine()}"
    if binary.is_file():
        return binary
    directory.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=f".{binary.name}.", dir=directory)  # unique: threads build at once
    os.close(handle)
    staging = Path(staging)
    done = subprocess.run(
        [compiler, *COMPILE_FLAGS, str(source), "-o", str(staging), "-lm"], capture_output=True, text=True
    )
    if done.returncode != 0:
        staging.unlink(missing_ok=True)
        raise ToolUnavailable(f"{COMPILER} could not compile {source}: {done.stderr.strip()[-2000:]}")
    staging.chmod(0o755)
    staging.replace(binary)  # atomic: a concurrent build finds a complete file or none
    return binary


def write_token_stream(corpus: Iterable[Sequence[str]], path: str | os.PathLike) -> int:
    """Write ``corpus`` as the tool reads it: one article per line (a line break is the tool's sentence end, where
    our trainer's contexts stop too), tokens separated by spaces.

    Parameters
    ----------
    corpus : iterable of sequence of str
        Token lists, one per article.
    path : path-like
        The text file.

    Returns
    -------
    int
        The tokens written.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     n = write_token_stream([["a", "b"], ["c"]], Path(folder) / "corpus.txt")
    ...     text = (Path(folder) / "corpus.txt").read_text()
    >>> n, text
    (3, 'a b\\nc\\n')
    """
    tokens = 0
    with open(path, "w", encoding="utf-8") as out:
        for article in corpus:
            if any(not word or any(c.isspace() for c in word) for word in article):
                raise ValueError("a token is empty or contains white space, which the tool would split")
            out.write(" ".join(article) + "\n")
            tokens += len(article)
    return tokens


def run_word2bits(
    binary: str | os.PathLike,
    train_file: str | os.PathLike,
    *,
    size: int,
    bitlevel: int,
    window: int,
    negative: int,
    sample: float,
    epochs: int,
    min_count: int,
    threads: int,
    alpha: float = paper.TRAINING_SETTINGS["alpha"].value,
) -> tuple[KeyedVectors, TrainingSummary]:
    """Train the tool on ``train_file`` with the paper's flags, and load its vectors (without ``</s>``) and counts.

    Parameters
    ----------
    binary : path-like
        The executable (:func:`build_word2bits`).
    train_file : path-like
        The token stream (:func:`write_token_stream`).
    size, bitlevel, window, negative, sample, epochs, min_count, threads, alpha
        The tool's ``-size -bitlevel -window -negative -sample -iter -min-count -threads -alpha``.

    Returns
    -------
    (gensim.models.KeyedVectors, TrainingSummary)
        The vectors, in the tool's vocabulary order, with their corpus counts; the summary's loss is empty (the tool
        prints an unnormalized sum) and its time is the tool's wall time.

    Examples
    --------
    Compiling takes seconds; ``tests/embeddings/test_original.py`` trains the tool beside our trainer on a toy
    corpus and on the first Wikipedia articles.
    """
    with tempfile.TemporaryDirectory() as folder:
        vectors_file = Path(folder) / "vectors.bin"
        flags = dict(
            size=size,
            bitlevel=bitlevel,
            window=window,
            negative=negative,
            sample=sample,
            iter=epochs,
            threads=threads,
            alpha=alpha,
        )
        command = [
            str(binary),
            "-train",
            str(train_file),
            "-output",
            str(vectors_file),
            "-binary",
            "1",
            "-debug",
            "0",
            "-min-count",
            str(min_count),
            *(part for name, value in flags.items() for part in (f"-{name}", repr(value))),
        ]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0 or not vectors_file.is_file():
            raise RuntimeError(f"Word2Bits failed ({done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
        loaded = KeyedVectors.load_word2vec_format(vectors_file, binary=True)
    with open(train_file, encoding="utf-8") as text:  # the tool saves no counts (its -save-vocab is not parsed)
        counted = Counter(word for line in text for word in line.split())
    words = [w for w in loaded.index_to_key if w != SENTENCE_END]
    vectors = KeyedVectors(loaded.vector_size)
    vectors.add_vectors(words, loaded[words])
    counts = np.array([counted[w] for w in words], dtype=np.int64)
    vectors.expandos["count"] = counts
    training_words = int(counts.sum())
    return vectors, TrainingSummary(len(words), training_words, seconds, epochs * training_words / seconds, [])


def trainer_comparison(
    model: str,
    *,
    size: int,
    corpus_articles: int | None,
    tokenizer: str,
    epochs: int,
    window: int,
    negative: int,
    sample: float,
    min_count: int,
    workers: int,
    cache: ArtifactCache | None = None,
) -> dict[str, dict[str, float]]:
    """Model ``model`` ("32-bit" or "1-bit") trained by our trainer and by the original tool (``workers`` threads
    each, the same flags, the same token stream), both scored by
    :func:`regemb_utils.embeddings.trained.word_benchmarks`; cached as the artifact ``word2bits-check`` (its key holds
    the tool's source hash), our model as chapter 2's ``word2bits`` artifact.

    Parameters
    ----------
    model : {"32-bit", "1-bit"}
        The bit level.
    size, corpus_articles, tokenizer, epochs, window, negative, sample, min_count, workers
        As for :func:`regemb_utils.embeddings.trained.trained_embeddings`.
    cache : ArtifactCache, optional
        Where the result is kept (and the executable built, in its folder ``tools``).

    Returns
    -------
    dict
        Per trainer (:data:`TRAINERS`): the benchmarks, ``vocabulary``, ``training words`` and ``minutes`` (the
        training's wall time).

    Raises
    ------
    ToolUnavailable
        When the tool cannot be built and the cache does not hold the result.

    Examples
    --------
    Chapter 2 runs it for both models through :func:`regemb_utils.chapters.training.trainer_check`.
    """
    if model not in BITLEVELS:
        raise ValueError(f"unknown model {model!r}; allowed: {', '.join(BITLEVELS)}")
    cache = cache or ArtifactCache()
    settings = dict(size=size, epochs=epochs, window=window, negative=negative, sample=sample, min_count=min_count)
    params = dict(
        settings,
        model=model,
        corpus_articles=corpus_articles,
        tokenizer=tokenizer,
        workers=workers,
        source=_source_hash() if SOURCE.is_file() else None,
        compile_flags=list(COMPILE_FLAGS),
    )
    if not cache.has("word2bits-check", params):
        build_word2bits(cache.root / "tools")  # fail early, with the reason, before training our model
    return cache.get(
        "word2bits-check", params, lambda: _compare(model, corpus_articles, tokenizer, workers, settings, cache)
    )


@computes("word2bits-check")
def _compare(
    model: str, corpus_articles: int | None, tokenizer: str, workers: int, settings: dict, cache: ArtifactCache
) -> dict[str, dict[str, float]]:
    ours = trained_embeddings(
        model, corpus_articles=corpus_articles, tokenizer=tokenizer, workers=workers, cache=cache, **settings
    )
    binary = build_word2bits(cache.root / "tools")
    with tempfile.TemporaryDirectory() as folder:
        stream = Path(folder) / "corpus.txt"
        write_token_stream(WikipediaCorpus(corpus_articles, tokenizer), stream)
        tool = run_word2bits(binary, stream, bitlevel=BITLEVELS[model], threads=workers, **settings)
    return {
        trainer: {
            **word_benchmarks(vectors),
            "vocabulary": summary.vocabulary,
            "training words": summary.training_words,
            "minutes": summary.seconds / 60,
        }
        for trainer, (vectors, summary) in zip(TRAINERS, (ours, tool))
    }
