"""Chapter 1's computations: data set statistics (the paper's Table 1), class distributions, the majority-class
baseline, and how our data sets differ from the paper's."""

from __future__ import annotations

import numpy as np
import pandas as pd
from gensim.corpora import Dictionary

from ..text.corpus import frequent_words
from ..text.datasets import Dataset
from ..text.tokenization import tokenize
from ..paper import DIFFERENT_DATA, KINDS, PROVENANCE, TEST_ERRORS, PaperValue, marked, table_1

__all__ = [
    "dataset_statistics",
    "class_distribution",
    "table_1_comparison",
    "majority_class_error",
    "majority_class_table",
    "paper_error_extremes",
    "marked_paper_errors",
    "e_p_gaps",
    "class_distribution_figure",
    "table_1_summary",
]


def _mean_unique_words(texts, tokenizer: str, vocabularies: dict) -> dict[str, float]:
    """E[p] for several vocabularies at once (``None``: every word), tokenizing each document once."""
    counts = {name: [] for name in vocabularies}
    for text in texts:
        words = set(tokenize(text, tokenizer))
        for name, vocabulary in vocabularies.items():
            counts[name].append(len(words) if vocabulary is None else sum(1 for w in words if w in vocabulary))
    return {name: float(np.mean(c)) if c else float("nan") for name, c in counts.items()}


def dataset_statistics(
    datasets: dict[str, Dataset], tokenizer: str = "paper", dictionary: Dictionary | None = None, min_count: int = 5
):
    """Our Table 1 beside the paper's, one row per data set.

    With a ``dictionary``, E[p] is also counted over the words of the corpus dictionary (what the paper's code kept:
    ``"E[p] in corpus dictionary"``) and over the words that occur at least ``min_count`` times in the corpus, the
    words that get an embedding (what the paper's text says it kept: ``"E[p] with an embedding"``).

    Parameters
    ----------
    datasets : dict
        Data set name → :class:`regemb_utils.text.datasets.Dataset`.
    tokenizer : str
        A tokenizer of :data:`regemb_utils.text.tokenization.TOKENIZERS`.
    dictionary : gensim.corpora.Dictionary, optional
        The corpus dictionary; with it, E[p] is also counted over its words and over its frequent words.
    min_count : int
        How often a word must occur in the corpus to get an embedding.

    Returns
    -------
    pandas.DataFrame
        Indexed by data set; column groups ``ours`` (train + validation, test, E[p], classes, and the E[p] columns of
        the dictionary) and ``paper`` (Table 1).

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> dataset_statistics(toy)["ours"].loc["bbcsport"].to_dict()
    {'train': 10.0, 'test': 5.0, 'E[p]': 2.4, 'classes': 2.0}
    """
    vocabularies = {"E[p]": None}
    if dictionary is not None:
        vocabularies["E[p] in corpus dictionary"] = dictionary.token2id
        vocabularies["E[p] with an embedding"] = frequent_words(dictionary, min_count)
    rows = []
    for name, d in datasets.items():
        texts = d.train.texts + d.validation.texts + d.test.texts
        means = _mean_unique_words(texts, tokenizer, vocabularies)
        row = {
            "dataset": name,
            "train": len(d.train) + len(d.validation),
            "test": len(d.test),
            "E[p]": means["E[p]"],
            "classes": len(d.class_names),
        }
        row.update({column: value for column, value in means.items() if column != "E[p]"})
        rows.append(row)
    ours = pd.DataFrame(rows).set_index("dataset")
    paper = table_1().loc[ours.index]
    return pd.concat({"ours": ours, "paper": paper}, axis=1)


def class_distribution(datasets: dict[str, Dataset]) -> pd.DataFrame:
    """One row per (data set, split, class): the number of documents.

    Parameters
    ----------
    datasets : dict
        Data set name → :class:`regemb_utils.text.datasets.Dataset`.

    Returns
    -------
    pandas.DataFrame
        Columns dataset, split, class, documents.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> classes = class_distribution(toy)
    >>> classes[classes.split == "test"][["class", "documents"]].values.tolist()
    [['pets', 4], ['sport', 1]]
    """
    rows = []
    for name, d in datasets.items():
        for split_name in ("train", "validation", "test"):
            split = getattr(d, split_name)
            counts = np.bincount(split.labels, minlength=len(d.class_names))
            for class_name, count in zip(d.class_names, counts):
                rows.append({"dataset": name, "split": split_name, "class": class_name, "documents": int(count)})
    return pd.DataFrame(rows)


def table_1_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`dataset_statistics`' table for reading: one row per data set, our sizes, classes and E[p] beside the
    paper's Table 1. Sizes are "train / test" text and classes a number, each with the paper's value in parentheses
    where it differs; E[p] is counted over all words, over the corpus dictionary's words and over the words with an
    embedding (where the table has them), beside the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dataset_statistics`' table (columns ``ours`` and ``paper``).

    Returns
    -------
    pandas.DataFrame
        One row per data set (upper case), the sizes and classes as text, the E[p] columns as numbers.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> row = table_1_comparison(dataset_statistics(toy)).loc["BBCSPORT"]
    >>> row["train / test (paper's if different)"].replace("\\u00a0", " "), row["classes"], float(row["paper: E[p]"])
    ('10 / 5 (paper: 517 / 220)', '2 (paper: 5)', 181.0)
    """
    ours, paper = table["ours"], table["paper"]

    def sizes(train, test):
        return f"{int(train):,}\u00a0/\u00a0{int(test):,}"

    shown = pd.DataFrame(index=pd.Index([name.upper() for name in table.index], name="data set"))
    shown["train / test (paper's if different)"] = [
        sizes(a, b) + ("" if (int(a), int(b)) == (int(c), int(d)) else f" (paper: {sizes(c, d)})")
        for a, b, c, d in zip(ours["train"], ours["test"], paper["train"], paper["test"])
    ]
    shown["classes"] = [
        f"{int(a)}" if int(a) == int(b) else f"{int(a)} (paper: {int(b)})"
        for a, b in zip(ours["classes"], paper["classes"])
    ]
    shown["E[p]: all words"] = ours["E[p]"].to_numpy()
    for column, label in (
        ("E[p] in corpus dictionary", "E[p]: in corpus dictionary"),
        ("E[p] with an embedding", "E[p]: with an embedding"),
    ):
        if column in ours:
            shown[label] = ours[column].to_numpy()
    shown["paper: E[p]"] = paper["E[p]"].to_numpy()
    return shown


def majority_class_error(datasets: dict[str, Dataset]) -> pd.DataFrame:
    """The test error of a classifier that always answers the largest class of the training split (the reference
    set of the kNN classifier; ties go to the lower class id), one row per data set: the class, its share of the
    training split and the error on the test split (fractions).

    Parameters
    ----------
    datasets : dict
        Data set name → :class:`regemb_utils.text.datasets.Dataset`.

    Returns
    -------
    pandas.DataFrame
        Indexed by data set: the largest class, its share of the training split, the test error.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> majority_class_error(toy).loc["bbcsport"].to_dict()
    {'largest class': 'pets', 'share of training split': 0.5, 'test error': 0.2}
    """
    rows = []
    for name, d in datasets.items():
        train = np.bincount(d.train.labels, minlength=len(d.class_names))
        largest = int(np.argmax(train))
        test = np.asarray(d.test.labels)
        rows.append(
            {
                "dataset": name,
                "largest class": d.class_names[largest],
                "share of training split": train[largest] / train.sum() if train.sum() else float("nan"),
                "test error": float(np.mean(test != largest)) if test.size else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("dataset")


def majority_class_table(majority: pd.DataFrame) -> pd.DataFrame:
    """:func:`majority_class_error` for reading, beside the lowest and the highest test error of the paper's seven
    methods on each data set ("paper: ...", from its Figure 8), as fractions.

    Parameters
    ----------
    majority : pandas.DataFrame
        :func:`majority_class_error`'s table.

    Returns
    -------
    pandas.DataFrame
        Indexed by data set (upper case), with the paper's lowest and highest test errors.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> row = majority_class_table(majority_class_error(toy)).loc["BBCSPORT"]
    >>> float(row["majority-class test error"]), float(row["paper: lowest test error"]), float(row["paper: highest test error"])
    (0.2, 0.0227, 0.23)
    """
    shown = majority.rename(
        columns={"share of training split": "share of the training split", "test error": "majority-class test error"}
    )
    errors = {d: [v.value for (_, dataset), v in TEST_ERRORS.items() if dataset == d] for d in majority.index}
    shown["paper: lowest test error"] = [min(errors[d]) / 100 if errors[d] else np.nan for d in majority.index]
    shown["paper: highest test error"] = [max(errors[d]) / 100 if errors[d] else np.nan for d in majority.index]
    shown.index = pd.Index([d.upper() for d in majority.index], name="data set")
    return shown


def paper_error_extremes(dataset: str) -> tuple[PaperValue, PaperValue] | None:
    """The lowest and the highest test error of the paper's seven methods on ``dataset``, as the
    :class:`regemb_utils.paper.PaperValue` s of :data:`regemb_utils.paper.TEST_ERRORS` (with their source and kind);
    of equal values, the one whose kind comes first in :data:`regemb_utils.paper.KINDS` (printed before read off).

    Parameters
    ----------
    dataset : str
        A data set's name (any case).

    Returns
    -------
    tuple of two PaperValue, or None
        (lowest, highest); None where the paper has no test error for the data set.

    Examples
    --------
    >>> lowest, highest = paper_error_extremes("REUTERS")
    >>> lowest.value, lowest.kind, highest.value, highest.kind
    (5.5, 'paper figure (read off)', 10.19, 'paper figure caption')
    """
    errors = [v for (_, d), v in TEST_ERRORS.items() if d == dataset.lower()]
    if not errors:
        return None
    lowest = min(errors, key=lambda v: (v.value, KINDS.index(v.kind)))
    highest = max(errors, key=lambda v: (v.value, -KINDS.index(v.kind)))
    return lowest, highest


def marked_paper_errors(shown: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """:func:`majority_class_table` for reading: the paper's lowest and highest test errors as text in percent, with
    the digits of their source and a mark where the paper does not print the value as shown
    (:func:`regemb_utils.paper.marked`), and the caption's note on the marks that occur.

    Parameters
    ----------
    shown : pandas.DataFrame
        :func:`majority_class_table`'s table (indexed by data set, upper case).

    Returns
    -------
    tuple of (pandas.DataFrame, str)
        The table with its two "paper: ..." columns as marked text (an em dash where the paper has no value), and
        the note for its caption ("" when no cell is marked, else starting with "; unmarked values ...").

    Examples
    --------
    >>> majority = pd.DataFrame({"largest class": ["earn", "C04"], "share of training split": [0.5, 0.3],
    ...                          "test error": [0.5, 0.6]}, index=["reuters", "ohsumed"])
    >>> table, note = marked_paper_errors(majority_class_table(majority))
    >>> [[c.replace("\\u00a0", " ") for c in row] for row in table.filter(like="paper:").values.tolist()]
    [['≈5.5 %', '10.19 %'], ['24 %', '54.73 %†']]
    >>> print(note)  # doctest: +NORMALIZE_WHITESPACE
    ; unmarked values are printed in the paper (a bar label of its Figure 8, to two significant digits, or a
    caption of its Figures 2–7); ≈ read off a blurry bar label, approximate; † from the paper's preliminary result
    files in its code's history (commit a072c96), not printed in the paper
    """
    shown = shown.copy()
    used = set()

    def cell(value: PaperValue | None) -> str:
        if value is None:
            return "—"
        if PROVENANCE[value.kind].mark:
            used.add(value.kind)
        return marked(value, f"{value.value:.4g}\u00a0%")

    extremes = {d: paper_error_extremes(d) for d in shown.index}
    for column, i in (("paper: lowest test error", 0), ("paper: highest test error", 1)):
        shown[column] = [cell(extremes[d][i] if extremes[d] else None) for d in shown.index]
    notes = [f"{p.mark} {p.note}" for kind, p in PROVENANCE.items() if kind in used]
    if not notes:
        return shown, ""
    printed = (
        "unmarked values are printed in the paper (a bar label of its Figure 8, to two significant digits, or a "
        "caption of its Figures 2–7)"
    )
    return shown, "; " + "; ".join([printed, *notes])


def e_p_gaps(table: pd.DataFrame) -> pd.Series:
    """How far each of our E[p] columns of :func:`dataset_statistics`' table is from the paper's Table 1: the mean
    absolute difference over the data sets whose documents are the paper's (all data sets if none is).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dataset_statistics`' table (columns ``ours`` and ``paper``).

    Returns
    -------
    pandas.Series
        E[p] column → mean absolute difference from the paper's E[p].

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> e_p_gaps(dataset_statistics(toy)).to_dict()  # 181.0 - 2.4
    {'E[p]': 178.6}
    """
    ours, paper = table["ours"], table["paper"]
    same = [d for d in table.index if d not in DIFFERENT_DATA] or list(table.index)
    columns = [c for c in ("E[p]", "E[p] in corpus dictionary", "E[p] with an embedding") if c in ours]
    return pd.Series({c: float(np.mean(np.abs(ours.loc[same, c] - paper.loc[same, "E[p]"]))) for c in columns})


SPLIT_COLOURS = {"train": "#4C72B0", "validation": "#DD8452", "test": "#55A868"}


def class_distribution_figure(classes: pd.DataFrame, majority: pd.DataFrame | None = None, bar_px: int = 17):
    """:func:`class_distribution` as a plotly figure: one panel per data set, one above the other, each as tall as
    its number of classes (``bar_px`` pixels per class), with the classes in their label order, stacked bars for the
    train, validation and test splits and no text smaller than 12 px (9 pt); with ``majority``
    (:func:`majority_class_error`), each panel's title names the largest class and the majority-class test error.

    Parameters
    ----------
    classes : pandas.DataFrame
        :func:`class_distribution`'s table.
    majority : pandas.DataFrame, optional
        :func:`majority_class_error`'s table, for the panels' titles.
    bar_px : int
        Pixels per class.

    Returns
    -------
    plotly.graph_objects.Figure
        One panel per data set, three stacked bar traces (train, validation, test) per panel.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> toy["twitter"] = toy["bbcsport"]
    >>> figure = class_distribution_figure(class_distribution(toy), majority_class_error(toy))
    >>> len(figure.data), figure.layout.annotations[0].text
    (6, '<b>BBCSPORT</b>: always answering<br>“pets”: 20.0\\xa0% test error')
    >>> len(class_distribution_figure(class_distribution({"bbcsport": toy["bbcsport"]})).data)  # one data set, one panel
    3
    """
    from plotly.subplots import make_subplots
    import plotly.graph_objects as go

    datasets = list(dict.fromkeys(classes["dataset"]))
    sizes = [classes.loc[classes.dataset == d, "class"].nunique() for d in datasets]
    titles = []
    for d in datasets:
        title = f"<b>{d.upper()}</b>"
        if majority is not None and d in majority.index:
            row = majority.loc[d]
            # two lines: on one, the longest (20NEWS') ran past a phone's screen
            title += f": always answering<br>“{row['largest class']}”: {100 * row['test error']:.1f}\u00a0% test error"
        titles.append(title)
    # the class names sit in a fixed left margin, so that every panel title can start at the figure's left edge
    label_px = int(7.2 * max(len(str(c)) for c in classes["class"])) + 16
    title_px = 40 if majority is not None else 22  # a panel's title: two lines, or the data set's name
    # the legend stands in the top left corner, one split per line: laid out in a row, plotly wraps it at the plot
    # area's width, which a phone's screen leaves narrow, onto the first panel's title
    legend_px = 3 * 20 + 8
    gap_px, top_px, bottom_px = (
        40 + title_px,
        legend_px + title_px + 8,
        50,
    )  # gap: a row of ticks (slanted on a phone), a title
    height = top_px + bottom_px + sum(n * bar_px for n in sizes) + gap_px * (len(datasets) - 1) + 30
    figure = make_subplots(
        rows=len(datasets),
        cols=1,
        row_heights=list(sizes),
        subplot_titles=titles,
        vertical_spacing=gap_px / (height - top_px - bottom_px) if len(datasets) > 1 else 0.0,
    )
    for row, d in enumerate(datasets, start=1):
        part = classes[classes.dataset == d]
        order = list(dict.fromkeys(part["class"]))
        for split, colour in SPLIT_COLOURS.items():
            counts = part[part.split == split].set_index("class")["documents"].reindex(order, fill_value=0)
            figure.add_trace(
                go.Bar(
                    x=counts.to_numpy(),
                    y=order,
                    orientation="h",
                    name=split,
                    legendgroup=split,
                    marker_color=colour,
                    showlegend=row == 1,
                    hovertemplate=f"{d.upper()}, %{{y}}<br>{split}: %{{x:,}} documents<extra></extra>",
                ),
                row=row,
                col=1,
            )
        figure.update_yaxes(categoryorder="array", categoryarray=order[::-1], row=row, col=1)
        figure.update_xaxes(title_text="documents" if row == len(datasets) else None, row=row, col=1)
    figure.update_layout(
        barmode="stack",
        height=height,
        font=dict(size=13),
        bargap=0.25,
        margin=dict(l=label_px, r=10, t=top_px, b=bottom_px),
        legend=dict(
            orientation="v",
            x=0,
            xanchor="left",
            xref="container",
            y=1,
            yanchor="top",
            yref="container",
            title=None,
            tracegroupgap=0,  # a split is a legend group: no gap between them
        ),
    )
    figure.update_annotations(font_size=13, xanchor="left", align="left", x=0, xshift=-(label_px - 8))
    figure.update_yaxes(tickfont_size=12, automargin=False)
    figure.update_xaxes(tickfont_size=12, tickformat=",d")
    return figure


def table_1_summary(table: pd.DataFrame) -> str:
    """One line per data set of :func:`dataset_statistics`' table, in Markdown: our sizes and E[p] beside the
    paper's Table 1, and why they differ where our documents are not the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dataset_statistics`' table (columns ``ours`` and ``paper``).

    Returns
    -------
    str
        Markdown, one list item per data set.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = {"bbcsport": dataset_from_texts("bbcsport", ["the cat sat", "a dog ran", "the goal", "a match", "my cat"] * 3,
    ...                                       ["pets", "pets", "sport", "sport", "pets"] * 3, test_size=5)}
    >>> print(table_1_summary(dataset_statistics(toy)))
    - **BBCSPORT**: 10 training and 5 test documents (the paper's Table 1: 517 and 220); $E[p]$ 2.4 over the corpus dictionary's words (Table 1: 181.0).
    """
    lines = []
    for name, row in table.iterrows():
        ours, paper = row["ours"], row["paper"]
        same = int(ours["train"]) == int(paper["train"]) and int(ours["test"]) == int(paper["test"])
        sizes = f"{int(ours['train']):,} training and {int(ours['test']):,} test documents" + (
            ", as in the paper's Table 1"
            if same
            else f" (the paper's Table 1: {int(paper['train']):,} and {int(paper['test']):,})"
        )
        ep = ours.get("E[p] in corpus dictionary", ours["E[p]"])
        line = (
            f"- **{name.upper()}**: {sizes}; $E[p]$ {ep:.1f} over the corpus dictionary's words "
            f"(Table 1: {paper['E[p]']:.1f})"
        )
        if name in DIFFERENT_DATA:
            line += f"; our documents differ from the paper's: {DIFFERENT_DATA[name]}"
        lines.append(line + ".")
    return "\n".join(lines)
