"""Chapter 1's computations: data set statistics (the paper's Table 1), class distributions, the corpus dictionary."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
from gensim.corpora import Dictionary

from .cache import ArtifactCache
from .corpus import WikipediaCorpus
from .data import Dataset, Split
from .paper import DIFFERENT_DATA, table_1
from .text import tokenize

def head(dataset: Dataset, n: int | None) -> Dataset:
    """The first ``n`` documents of each split (all of them for ``None``): the smoke profile's slices."""
    if n is None:
        return dataset

    def cut(split: Split) -> Split:
        return Split(split.texts[:n], split.labels[:n])

    return dataclasses.replace(
        dataset, train=cut(dataset.train), validation=cut(dataset.validation), test=cut(dataset.test)
    )


def mean_unique_words(texts, tokenizer: str = "paper", vocabulary=None) -> float:
    """E[p]: the mean number of unique words per document (only words in ``vocabulary``, if given)."""
    counts = []
    for text in texts:
        words = set(tokenize(text, tokenizer))
        if vocabulary is not None:
            words = {w for w in words if w in vocabulary}
        counts.append(len(words))
    return float(np.mean(counts)) if counts else float("nan")


def dataset_statistics(datasets: dict[str, Dataset], tokenizer: str = "paper", dictionary: Dictionary | None = None):
    """Our Table 1 beside the paper's, one row per data set."""
    rows = []
    for name, d in datasets.items():
        texts = d.train.texts + d.validation.texts + d.test.texts
        row = {
            "dataset": name,
            "train": len(d.train) + len(d.validation),
            "test": len(d.test),
            "E[p]": mean_unique_words(texts, tokenizer),
            "classes": len(d.class_names),
        }
        if dictionary is not None:
            row["E[p] in corpus dictionary"] = mean_unique_words(texts, tokenizer, dictionary.token2id)
        rows.append(row)
    ours = pd.DataFrame(rows).set_index("dataset")
    paper = table_1().loc[ours.index]
    return pd.concat({"ours": ours, "paper": paper}, axis=1)


def class_distribution(datasets: dict[str, Dataset]) -> pd.DataFrame:
    """One row per (data set, split, class): the number of documents."""
    rows = []
    for name, d in datasets.items():
        for split_name in ("train", "validation", "test"):
            split = getattr(d, split_name)
            counts = np.bincount(split.labels, minlength=len(d.class_names))
            for class_name, count in zip(d.class_names, counts):
                rows.append({"dataset": name, "split": split_name, "class": class_name, "documents": int(count)})
    return pd.DataFrame(rows)


@dataclasses.dataclass(frozen=True)
class CorpusStatistics:
    articles: int
    tokens: int
    vocabulary: int
    vocabulary_min_count_5: int


def corpus_dictionary(max_articles: int | None, tokenizer: str = "paper", cache: ArtifactCache | None = None) -> Dictionary:
    """The common dictionary: every token of the Wikipedia corpus (``prune_at=None``, no filtering), as the paper."""
    cache = cache or ArtifactCache()

    def compute() -> Dictionary:
        return Dictionary(WikipediaCorpus(max_articles=max_articles, tokenizer=tokenizer), prune_at=None)

    def save(dictionary: Dictionary, directory: Path) -> None:
        dictionary.save(str(directory / "dictionary.gensim"))

    def load(directory: Path) -> Dictionary:
        return Dictionary.load(str(directory / "dictionary.gensim"))

    params = {"corpus": "enwiki-2015-wikiextractor-AA", "max_articles": max_articles, "tokenizer": tokenizer}
    return cache.get("corpus-dictionary", params, compute, save, load)


def corpus_statistics(dictionary: Dictionary) -> CorpusStatistics:
    return CorpusStatistics(
        articles=dictionary.num_docs,
        tokens=dictionary.num_pos,
        vocabulary=len(dictionary),
        vocabulary_min_count_5=sum(1 for count in dictionary.cfs.values() if count >= 5),
    )


def table_1_summary(table: pd.DataFrame) -> str:
    """One line per data set of :func:`dataset_statistics`' table, in Markdown: our sizes and E[p] beside the
    paper's Table 1, and why they differ where our documents are not the paper's."""
    lines = []
    for name, row in table.iterrows():
        ours, paper = row["ours"], row["paper"]
        same = int(ours["train"]) == int(paper["train"]) and int(ours["test"]) == int(paper["test"])
        sizes = (f"{int(ours['train']):,} training and {int(ours['test']):,} test documents"
                 + (", as in the paper" if same else f" (paper: {int(paper['train']):,} and {int(paper['test']):,})"))
        ep = ours.get("E[p] in corpus dictionary", ours["E[p]"])
        line = f"- **{name.upper()}**: {sizes}; $E[p]$ {ep:.1f} over the corpus dictionary's words (paper: {paper['E[p]']:.1f})"
        if name in DIFFERENT_DATA:
            line += f"; our documents differ from the paper's: {DIFFERENT_DATA[name]}"
        lines.append(line + ".")
    return "\n".join(lines)
