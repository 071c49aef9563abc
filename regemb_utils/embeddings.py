"""Chapter 2's computations: the paper's two Word2Bits embeddings, cached, and how good they are."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from gensim.test.utils import datapath

from .cache import ArtifactCache
from .corpus import WikipediaCorpus
from .word2bits import load_vectors, save_vectors, train_word2bits

# The paper's two models: full precision ("32-bit") and 1-bit quantized.
BITLEVELS = {"32-bit": 0, "1-bit": 1}


@dataclass(frozen=True)
class TrainingSummary:
    vocabulary: int
    training_words: int
    seconds: float
    words_per_second: float
    loss_per_epoch: list[float]


def trained_embeddings(
    model: str, *, size: int, corpus_articles: int | None, tokenizer: str, epochs: int, window: int, negative: int,
    sample: float, min_count: int, workers: int, seed: int = 1, cache: ArtifactCache | None = None,
) -> tuple[KeyedVectors, TrainingSummary]:
    """Model ``model`` ("32-bit" or "1-bit") trained on the Wikipedia corpus, or loaded from the artifact cache.

    ``workers`` is part of the artifact's key: one thread gives the same vectors on every run, several threads
    update without locks in a varying order and so give other vectors each time.
    """
    if model not in BITLEVELS:
        raise ValueError(f"unknown model {model!r}; allowed: {', '.join(BITLEVELS)}")
    bitlevel = BITLEVELS[model]
    settings = dict(size=size, bitlevel=bitlevel, window=window, negative=negative, sample=sample, epochs=epochs,
                    min_count=min_count, seed=seed)
    params = dict(settings, corpus_articles=corpus_articles, tokenizer=tokenizer, workers=workers)

    def compute():
        result = train_word2bits(WikipediaCorpus(corpus_articles, tokenizer), workers=workers, **settings)
        summary = TrainingSummary(len(result.vectors), result.training_words, result.seconds,
                                  result.words_per_second, result.loss_per_epoch)
        return result.vectors, summary

    def save(value, directory: Path):
        vectors, summary = value
        save_vectors(vectors, directory / "vectors", bitlevel)
        (directory / "training.json").write_text(json.dumps(asdict(summary)))

    def load(directory: Path):
        summary = TrainingSummary(**json.loads((directory / "training.json").read_text()))
        return load_vectors(directory / "vectors"), summary

    return (cache or ArtifactCache()).get("word2bits", params, compute, save, load)


def word_benchmarks(vectors: KeyedVectors, restrict_vocab: int = 30_000) -> dict[str, float]:
    """Analogy accuracy (gensim's questions-words.txt over the ``restrict_vocab`` most frequent words) and Spearman
    correlations with human judgements (WordSim353, SimLex-999; pairs with an unknown word are left out)."""
    analogy, _ = vectors.evaluate_word_analogies(datapath("questions-words.txt"), restrict_vocab=restrict_vocab)
    result = {"analogy accuracy": float(analogy)}
    for name, file in (("WordSim353", "wordsim353.tsv"), ("SimLex-999", "simlex999.txt")):
        _, spearman, oov = vectors.evaluate_word_pairs(datapath(file), restrict_vocab=len(vectors))
        result[f"{name} Spearman"] = float(spearman.statistic)
        result[f"{name} pairs left out (%)"] = float(oov)
    return result


def sample_cosines(vectors: KeyedVectors, pairs: int, seed: int = 0, batch: int = 100_000) -> np.ndarray:
    """Cosine similarities of ``pairs`` word pairs drawn uniformly from all pairs of distinct words."""
    unit = vectors.get_normed_vectors()
    rng = np.random.default_rng(seed)
    first = rng.integers(0, len(unit), pairs)
    second = rng.integers(0, len(unit) - 1, pairs)
    second += second >= first  # uniform over the other words
    out = np.empty(pairs, dtype=np.float32)
    for start in range(0, pairs, batch):  # bounded memory: batch x dimensions floats at a time
        i, j = first[start:start + batch], second[start:start + batch]
        out[start:start + batch] = np.einsum("ij,ij->i", unit[i], unit[j])
    return out


def cosine_summary(cosines: np.ndarray) -> dict[str, float]:
    return {"mean": float(cosines.mean()), "sd": float(cosines.std()), "min": float(cosines.min()),
            "median": float(np.median(cosines)), "max": float(cosines.max())}


def word_pair_table(vectors: KeyedVectors, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """Cosine of each pair and each word's rank among the other's nearest neighbours (1 = the nearest)."""
    rows = []
    for a, b in pairs:
        if a in vectors and b in vectors:
            rows.append({"pair": f"{a}, {b}", "cosine": float(vectors.similarity(a, b)),
                         "rank of 2nd among 1st's neighbours": vectors.rank(a, b),
                         "rank of 1st among 2nd's neighbours": vectors.rank(b, a)})
    return pd.DataFrame(rows)


def embedding_settings(training: dict, model: str, corpus_articles: int | None, tokenizer: str) -> dict:
    """The keyword arguments of :func:`trained_embeddings` for ``model`` under chapter 2's parameters ``training``,
    on chapter 1's corpus."""
    size = training["dimensions"] if model == "32-bit" else training["quantized_dimensions"]
    names = ("epochs", "window", "negative", "sample", "min_count", "workers")
    return dict(size=size, corpus_articles=corpus_articles, tokenizer=tokenizer, **{name: training[name] for name in names})


def train_models(training: dict, corpus_articles: int | None, tokenizer: str, cache: ArtifactCache | None = None):
    """Both models, trained at the same time (each with ``training["workers"]`` threads) or loaded from the cache:
    ``{model: (vectors, TrainingSummary)}``."""
    with ThreadPoolExecutor(max_workers=len(BITLEVELS)) as pool:
        futures = {model: pool.submit(trained_embeddings, model, cache=cache,
                                      **embedding_settings(training, model, corpus_articles, tokenizer))
                   for model in BITLEVELS}
        return {model: future.result() for model, future in futures.items()}
