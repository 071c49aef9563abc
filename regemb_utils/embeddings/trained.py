"""Chapter 2's computations: the paper's two Word2Bits embeddings, cached, and how good they are."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from gensim.test.utils import datapath

from ..infra.cache import ArtifactCache
from ..infra.keys import computes
from ..text.corpus import WikipediaCorpus
from .word2bits import load_vectors, save_vectors, train_word2bits

__all__ = [
    "BITLEVELS",
    "COSINE_FORMAT",
    "TrainingSummary",
    "trained_embeddings",
    "word_benchmarks",
    "sample_cosines",
    "cosine_summary",
    "cosine_signs",
    "cosine_lattice_step",
    "cosine_histogram_bins",
    "neighbour_table",
    "word_pair_table",
    "embedding_settings",
]


# The paper's two models: full precision ("32-bit") and 1-bit quantized.
BITLEVELS = {"32-bit": 0, "1-bit": 1}


@dataclass(frozen=True)
class TrainingSummary:
    """What the training of one model measured (:func:`trained_embeddings`).

    Parameters
    ----------
    vocabulary : int
        Words with a vector.
    training_words : int
        In-vocabulary words of the corpus (one epoch).
    seconds : float
        The training time.
    words_per_second : float
        Words read per second.
    loss_per_epoch : list of float
        The mean loss of each epoch.

    Examples
    --------
    See :func:`trained_embeddings`.
    """

    vocabulary: int
    training_words: int
    seconds: float
    words_per_second: float
    loss_per_epoch: list[float]


def trained_embeddings(
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
    seed: int = 1,
    cache: ArtifactCache | None = None,
    train: bool = True,
) -> tuple[KeyedVectors, TrainingSummary]:
    """Model ``model`` ("32-bit" or "1-bit") trained on the Wikipedia corpus, or loaded from the artifact cache.

    ``workers`` is part of the artifact's key: one thread gives the same vectors on every run, several threads
    update without locks in a varying order and so give other vectors each time.

    Parameters
    ----------
    model : {"32-bit", "1-bit"}
        The bit level (0 or 1 in Word2Bits' terms).
    size, epochs, window, negative, sample, min_count, workers, seed
        Word2Bits' training settings (:func:`regemb_utils.embeddings.word2bits.train_word2bits`).
    corpus_articles : int or None
        The corpus's first articles (None: all).
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.
    cache : ArtifactCache, optional
        Where the vectors are kept.
    train : bool
        Train the model when the cache does not hold it (otherwise raise :class:`LookupError`).

    Returns
    -------
    (gensim.models.KeyedVectors, TrainingSummary)
        The vectors and what their training measured.

    Raises
    ------
    LookupError
        With ``train=False``, when the cache does not hold the model.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     vectors, summary = trained_embeddings("1-bit", size=4, corpus_articles=1, tokenizer="paper", epochs=1,
    ...                                           window=2, negative=2, sample=0.0, min_count=5, workers=1,
    ...                                           cache=ArtifactCache(root))
    >>> vectors.vector_size, float(np.abs(vectors.vectors).max()).__round__(4)
    (4, 0.3333)
    """
    if model not in BITLEVELS:
        raise ValueError(f"unknown model {model!r}; allowed: {', '.join(BITLEVELS)}")
    bitlevel = BITLEVELS[model]
    settings = dict(
        size=size,
        bitlevel=bitlevel,
        window=window,
        negative=negative,
        sample=sample,
        epochs=epochs,
        min_count=min_count,
        seed=seed,
    )
    params = dict(settings, corpus_articles=corpus_articles, tokenizer=tokenizer, workers=workers)

    def save(value, directory: Path):
        vectors, summary = value
        save_vectors(vectors, directory / "vectors", bitlevel)
        (directory / "training.json").write_text(json.dumps(asdict(summary)))

    def load(directory: Path):
        summary = TrainingSummary(**json.loads((directory / "training.json").read_text()))
        return load_vectors(directory / "vectors"), summary

    cache = cache or ArtifactCache()
    if not train and not cache.has("word2bits", params):
        raise LookupError(
            f"the {model} model with these settings is not in {cache.root}: run chapter 2 with them into "
            "that cache first"
        )
    return cache.get("word2bits", params, lambda: _train(corpus_articles, tokenizer, workers, settings), save, load)


@computes("word2bits", version=2)
def _train(
    corpus_articles: int | None, tokenizer: str, workers: int, settings: dict
) -> tuple[KeyedVectors, TrainingSummary]:
    result = train_word2bits(WikipediaCorpus(corpus_articles, tokenizer), workers=workers, **settings)
    summary = TrainingSummary(
        len(result.vectors), result.training_words, result.seconds, result.words_per_second, result.loss_per_epoch
    )
    return result.vectors, summary


def word_benchmarks(vectors: KeyedVectors, restrict_vocab: int = 30_000) -> dict[str, float]:
    """Analogy accuracy (gensim's questions-words.txt over the ``restrict_vocab`` most frequent words) and Spearman
    correlations with human judgements (WordSim353, SimLex-999; pairs with an unknown word are left out).

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.
    restrict_vocab : int
        The analogy questions use only this many most frequent words.

    Returns
    -------
    dict
        ``analogy accuracy`` (a fraction) and ``analogy questions`` (those asked: every word in the
        ``restrict_vocab``), and for WordSim353 and SimLex-999 the Spearman correlation and the share of
        pairs left out (%).

    Examples
    --------
    >>> words = {"man": [1, 0, 0, 0], "woman": [1, 1, 0, 0], "boy": [1, 0, 0, 1], "girl": [1, 1, 0, 1],
    ...          "king": [1, 0, 1, 0], "queen": [1, 1, 1, 0], "father": [1, 0, 0.5, 0], "uncle": [1, 0, 0.3, 0.3],
    ...          "child": [1, 0.5, 0, 1], "cabbage": [-1, 0, 0, 0]}
    >>> kv = KeyedVectors(4)
    >>> kv.add_vectors(list(words), np.array(list(words.values()), dtype=float))
    >>> {name: round(value, 3) for name, value in word_benchmarks(kv).items()}  # queen - king = woman - man = girl - boy
    {'analogy accuracy': 1.0, 'analogy questions': 6, 'WordSim353 Spearman': 1.0, 'WordSim353 pairs left out (%)': 99.15, 'SimLex-999 Spearman': 0.657, 'SimLex-999 pairs left out (%)': 99.399}
    """
    analogy, sections = vectors.evaluate_word_analogies(datapath("questions-words.txt"), restrict_vocab=restrict_vocab)
    total = next(s for s in sections if s["section"] == "Total accuracy")
    result = {"analogy accuracy": float(analogy), "analogy questions": len(total["correct"]) + len(total["incorrect"])}
    for name, file in (("WordSim353", "wordsim353.tsv"), ("SimLex-999", "simlex999.txt")):
        _, spearman, oov = vectors.evaluate_word_pairs(datapath(file), restrict_vocab=len(vectors))
        result[f"{name} Spearman"] = float(spearman.statistic)
        result[f"{name} pairs left out (%)"] = float(oov)
    return result


def sample_cosines(vectors: KeyedVectors, pairs: int, seed: int = 0, batch: int = 100_000) -> np.ndarray:
    """Cosine similarities of ``pairs`` word pairs drawn uniformly from all pairs of distinct words.

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.
    pairs : int
        Pairs drawn.
    seed : int
        The draw's seed.
    batch : int
        Pairs per step.

    Returns
    -------
    numpy.ndarray
        The cosines.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(4)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1, 1, 1, 1], [1, 1, 1, -1], [-1, -1, 1, 1]], dtype=float) / 3)
    >>> sample_cosines(kv, 3, seed=0).tolist()
    [0.0, 0.5, 0.5]
    """
    unit = vectors.get_normed_vectors()
    rng = np.random.default_rng(seed)
    first = rng.integers(0, len(unit), pairs)
    second = rng.integers(0, len(unit) - 1, pairs)
    second += second >= first  # uniform over the other words
    out = np.empty(pairs, dtype=np.float32)
    for start in range(0, pairs, batch):  # bounded memory: batch x dimensions floats at a time
        i, j = first[start : start + batch], second[start : start + batch]
        out[start : start + batch] = np.einsum("ij,ij->i", unit[i], unit[j])
    return out


def cosine_summary(cosines: np.ndarray) -> dict[str, float]:
    """The mean, standard deviation, minimum, median and maximum of some cosines.

    Parameters
    ----------
    cosines : numpy.ndarray
        The cosines (e.g. :func:`sample_cosines`).

    Returns
    -------
    dict of str to float
        ``mean``, ``sd``, ``min``, ``median``, ``max``.

    Examples
    --------
    >>> cosine_summary(np.array([0.0, 0.5, 1.0]))["median"]
    0.5
    """
    return {
        "mean": float(cosines.mean()),
        "sd": float(cosines.std()),
        "min": float(cosines.min()),
        "median": float(np.median(cosines)),
        "max": float(cosines.max()),
        "n": int(cosines.size),
    }


def cosine_signs(cosines: np.ndarray, step: float | None = None) -> dict[str, float]:
    """The shares of word pairs whose cosine is negative, zero and positive (fractions that sum to 1).

    ``step``: the lattice step of quantized embeddings (:func:`cosine_lattice_step`); a cosine within a quarter step
    of 0 is then the lattice value 0 computed with rounding error, and counts as zero. Without it, only an exact 0
    does.

    Parameters
    ----------
    cosines : numpy.ndarray
        Cosines of word pairs.
    step : float, optional
        The lattice step of quantized embeddings.

    Returns
    -------
    dict
        ``negative``, ``zero`` and ``positive`` shares.

    Examples
    --------
    >>> cosines = np.array([-0.5, 0.0, 0.01, 0.5])
    >>> cosine_signs(cosines), cosine_signs(cosines, step=0.1)  # 0.01 is within a quarter step of the lattice's 0
    ({'negative': 0.25, 'zero': 0.25, 'positive': 0.5}, {'negative': 0.25, 'zero': 0.5, 'positive': 0.25})
    """
    cosines = np.asarray(cosines)
    n = max(cosines.size, 1)
    tolerance = step / 4 if step else 0.0
    return {
        "negative": float(np.count_nonzero(cosines < -tolerance)) / n,
        "zero": float(np.count_nonzero(np.abs(cosines) <= tolerance)) / n,
        "positive": float(np.count_nonzero(cosines > tolerance)) / n,
    }


def cosine_lattice_step(vectors: KeyedVectors) -> float | None:
    """The spacing of the values that the cosine of two words can take, for quantized embeddings: when every
    coordinate of every vector is ±c (1-bit embeddings, c = 1/3), the cosine of two words is (d - 2h) / d for the
    Hamming distance h of their signs, a multiple of 2/d away from 1, so the step is 2/d. ``None`` for embeddings
    whose coordinates are not all ±c (full-precision ones), whose cosines take any value.

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.

    Returns
    -------
    float or None
        2/d, or None.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(4)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1, 1, 1, 1], [1, 1, 1, -1], [-1, -1, 1, 1]], dtype=float) / 3)
    >>> cosine_lattice_step(kv)
    0.5
    """
    matrix = vectors.vectors
    if matrix.size == 0:
        return None
    magnitude = np.abs(matrix)
    c = magnitude.flat[0]
    if c == 0 or not np.all(magnitude == c):
        return None
    return 2.0 / matrix.shape[1]


def lattice_bins(low: float, high: float, step: float, group: int = 1, origin: float = 1.0) -> np.ndarray:
    """Histogram bin edges, ascending, that cover [low, high] and are aligned to the lattice ``origin - h * step``
    (h = 0, 1, 2, ...): every bin is ``group * step`` wide and holds exactly ``group`` lattice points, none of them on
    an edge (edges lie half a step between lattice points). Bins of any other width alias with the lattice: some
    catch one lattice point more than their neighbours, which draws a comb over the histogram.

    Parameters
    ----------
    low, high : float
        The range to cover.
    step : float
        The lattice step.
    group : int
        Lattice points per bin.
    origin : float
        A lattice point.

    Returns
    -------
    numpy.ndarray
        The bin edges, ascending.

    Raises
    ------
    ValueError
        For a step that is not positive or a group below 1.

    Examples
    --------
    >>> lattice_bins(-0.3, 0.3, 0.25)  # the lattice 1, 0.75, ..., -0.25: each bin holds one point, none on an edge
    array([-0.375, -0.125,  0.125,  0.375])
    """
    if step <= 0 or group < 1:
        raise ValueError("step must be positive and group at least 1")
    width = group * step
    top = origin + step / 2  # the edge above the lattice point at origin
    first = int(np.floor((top - high) / width))  # bins counted down from top; bin j spans [top-(j+1)w, top-jw]
    last = int(np.ceil((top - low) / width))
    return top - np.arange(last, first - 1, -1) * width


def cosine_histogram_bins(
    cosines: dict[str, np.ndarray], steps: dict[str, float | None], target_bins: int = 150
) -> tuple[np.ndarray, float | None, int]:
    """Common histogram bins for the cosine distributions of several models: ``(edges, step, group)``.

    When a model's cosines lie on a lattice (``steps``, from :func:`cosine_lattice_step`), the bins follow the
    finest such lattice (:func:`lattice_bins`), each ``group`` lattice steps wide, with ``group`` chosen so that the
    range of all cosines gets about ``target_bins`` bins; otherwise ``target_bins`` equal bins (``step`` None).

    Parameters
    ----------
    cosines : dict
        Model → its cosines.
    steps : dict
        Model → its lattice step, or None.
    target_bins : int
        About how many bins.

    Returns
    -------
    (numpy.ndarray, float or None, int)
        The edges, the lattice step used and the lattice points per bin.

    Examples
    --------
    >>> edges, step, group = cosine_histogram_bins({"1-bit": np.array([-0.5, 0.5]), "32-bit": np.array([-0.2, 0.9])},
    ...                                           {"1-bit": 0.25, "32-bit": None}, target_bins=4)
    >>> edges.tolist(), step, group
    ([-0.625, -0.375, -0.125, 0.125, 0.375, 0.625, 0.875, 1.125], 0.25, 1)
    >>> cosine_histogram_bins({"32-bit": np.array([-0.2, 0.9])}, {"32-bit": None}, target_bins=4)[0].round(3).tolist()
    [-0.2, 0.075, 0.35, 0.625, 0.9]
    """
    values = [np.asarray(c) for c in cosines.values() if np.size(c)]
    low = min(float(c.min()) for c in values)
    high = max(float(c.max()) for c in values)
    lattice = [s for s in steps.values() if s]
    if not lattice:
        return np.linspace(low, high, target_bins + 1), None, 1
    step = min(lattice)
    group = max(1, int(round((high - low) / target_bins / step)))
    return lattice_bins(low, high, step, group), step, group


# How the book shows a cosine (three decimals): said here, where cosines are made, and read by
# regemb_utils.book.tables.PRECISION for every page
COSINE_FORMAT = ".3f"


def neighbour_table(models: dict[str, KeyedVectors], words, topn: int = 8) -> pd.DataFrame:
    """The ``topn`` nearest neighbours of each of ``words`` (those every model knows) in each model, one row per
    word and model, the neighbours as text with their cosine, with the book's precision for a cosine
    (:data:`COSINE_FORMAT`): "bad (0.674), ...".

    Parameters
    ----------
    models : dict
        Model → :class:`gensim.models.KeyedVectors`.
    words : iterable of str
        The words (those a model lacks are left out).
    topn : int
        Neighbours per word.

    Returns
    -------
    pandas.DataFrame
        Columns word, model, nearest neighbours (cosine).

    Examples
    --------
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["good", "bad", "fine", "car"], np.array([[1.0, 0.1], [0.8, 0.6], [1.0, 0.0], [-0.2, 1.0]]))
    >>> neighbour_table({"toy": kv}, ["good", "excellent"], topn=2).values.tolist()
    [['good', 'toy', 'fine (0.995), bad (0.856)']]
    """
    rows = []
    for word in words:
        if not all(word in kv for kv in models.values()):
            continue
        for name, kv in models.items():
            rows.append(
                {
                    "word": word,
                    "model": name,
                    "nearest neighbours (cosine)": ", ".join(
                        f"{n} ({s:{COSINE_FORMAT}})" for n, s in kv.most_similar(word, topn=topn)
                    ),
                }
            )
    return pd.DataFrame(rows, columns=["word", "model", "nearest neighbours (cosine)"])


def word_pair_table(vectors: KeyedVectors, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """Cosine of each pair and each word's rank among the other's nearest neighbours (1 = the nearest).

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        The embeddings.
    pairs : list of (str, str)
        The word pairs.

    Returns
    -------
    pandas.DataFrame
        One row per pair.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(4)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1, 1, 1, 1], [1, 1, 1, -1], [-1, -1, 1, 1]], dtype=float) / 3)
    >>> word_pair_table(kv, [("a", "b")])["cosine"].tolist()
    [0.5]
    """
    rows = []
    for a, b in pairs:
        if a in vectors and b in vectors:
            rows.append(
                {
                    "pair": f"{a}, {b}",
                    "cosine": float(vectors.similarity(a, b)),
                    "rank of 2nd among 1st's neighbours": vectors.rank(a, b),
                    "rank of 1st among 2nd's neighbours": vectors.rank(b, a),
                }
            )
    return pd.DataFrame(rows)


def embedding_settings(training: dict, model: str, corpus_articles: int | None, tokenizer: str) -> dict:
    """The keyword arguments of :func:`trained_embeddings` for ``model`` under chapter 2's parameters ``training``,
    on chapter 1's corpus.

    Parameters
    ----------
    training : dict
        Chapter 2's parameters (dimensions, quantized_dimensions, epochs, window, negative, sample, min_count,
        workers).
    model : {"32-bit", "1-bit"}
        The model.
    corpus_articles : int or None
        Chapter 1's corpus size.
    tokenizer : str
        Chapter 1's tokenizer.

    Returns
    -------
    dict
        Keyword arguments of :func:`trained_embeddings`.

    Examples
    --------
    >>> training = {"dimensions": 200, "quantized_dimensions": 1000, "epochs": 10, "window": 10, "negative": 24,
    ...             "sample": 1e-4, "min_count": 5, "workers": 1}
    >>> embedding_settings(training, "1-bit", None, "paper")["size"], embedding_settings(training, "32-bit", None, "paper")["size"]
    (1000, 200)
    """
    size = training["dimensions"] if model == "32-bit" else training["quantized_dimensions"]
    names = ("epochs", "window", "negative", "sample", "min_count", "workers")
    return dict(
        size=size, corpus_articles=corpus_articles, tokenizer=tokenizer, **{name: training[name] for name in names}
    )
