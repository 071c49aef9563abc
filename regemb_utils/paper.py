"""Every number attributed to the paper or to its code, in one place, each with its source.

Each value is a :class:`PaperValue`: the number (or tuple, or bool), where it stands (a section, figure or table of
the paper, or the cell of the paper's published notebook, as the book's appendix describes it) and its
kind (:data:`KINDS`). The paper's figures and tables are numbered as in the paper: Figure 8 is the test error,
Figure 9 the speed, Figure 10 the average test error relative to BoW; the TWITTER confusion-matrix figure is not in
the paper (its source leaves it out), so Figures 2-7 are OHSUMED, BBCSPORT, REUTERS, AMAZON and 20NEWS (two).

Code reads the values through :func:`value` (or :func:`table_1`, :func:`table_2`) at call time, so every table
and the scorecard show what this module says. ``PAPER_COSINES``, ``PAPER_GOOD_BAD`` and ``PAPER_GRID`` are plain
views of the same values for the notebooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .text.datasets import DATASETS

__all__ = [
    "PaperValue",
    "KINDS",
    "Provenance",
    "PROVENANCE",
    "origin",
    "marked",
    "value",
    "read_off",
    "decimals",
    "all_values",
    "TEST_ERRORS",
    "RELATIVE_ERRORS",
    "SPEEDS",
    "TABLE_1",
    "TABLE_2",
    "table_1",
    "table_2",
    "COSINES",
    "COSINE_DECIMALS",
    "GOOD_BAD",
    "ORTHOGONALIZATION_GRID",
    "TEXT_THRESHOLDS",
    "VOCABULARY",
    "TEXT8_ANALOGY",
    "CORPUS_MIB",
    "DIMENSIONS",
    "EPOCHS",
    "TRAINING_SETTINGS",
    "VALIDATION_SHARE",
    "FIGURE_1_WORDS",
    "ERROR_REDUCTION_ABSTRACT",
    "ERROR_REDUCTION",
    "REGULARIZED_ERROR_RATIO",
    "LOWEST_RELATIVE_ERROR",
    "SPEED_RATIO",
    "SPEED_RATIO_20NEWS",
    "FASTER_THAN",
    "SIGNIFICANCE_TESTS",
    "NOT_SIGNIFICANT",
    "NOT_SIGNIFICANT_PAIRS",
    "SPARSE_SLOWDOWN",
    "QUANTIZATION_SLOWDOWN",
    "WCD_SPEEDUP",
    "WCD_SLOWDOWN",
    "WCD_SLOWDOWN_20NEWS",
    "DIFFERENT_DATA",
    "PAPER_DOCUMENTS",
    "SATO_2022_ERRORS",
    "SATO_2022_DECIMALS",
    "PAPER_COSINES",
    "PAPER_GOOD_BAD",
    "PAPER_GRID",
    "OHSUMED_PREDICTED",
    "OHSUMED_CLASS_SIZES",
    "REUTERS_CONFUSED",
]


KINDS = (
    "paper text",  # stated in the paper's prose (abstract or a section)
    "paper table",  # a cell of one of the paper's tables
    "paper figure caption",  # stated in a figure's caption
    "paper figure (bar labels)",  # the label printed on a bar: 2 significant digits below 10, else a whole number
    "paper figure (read off)",  # digits read off a figure's blurry labels: approximate
    "paper's notebook",  # an output of the paper's published notebook (classification.ipynb), not in the paper
    "paper's result files",  # the preliminary result pickles in the paper's repository (commit a072c96)
    "paper's code",  # what the paper's code runs (not stated in the paper)
    "authors' evaluation repository",  # Witiko/Word2Bits-evaluation: another corpus, a rough reference only
    "later publication",  # another paper's result on Kusner et al.'s documents (chapter 7's reference column)
)


@dataclass(frozen=True)
class Provenance:
    """How the book says where a kind of :class:`PaperValue` comes from: in prose, and as a mark beside the value in a
    table with the caption's note for it.

    Parameters
    ----------
    origin : str
        Where such a value comes from, for prose ("{source}" stands for the value's source); "" says the source itself.
    mark : str
        The sign beside such a value in a table where the paper does not print it as shown ("" for none).
    mark_before : bool
        Whether the mark precedes the value ("≈ 5.5") or follows it ("54.73†").
    note : str
        What the mark means, for a caption or a footnote.

    Examples
    --------
    >>> PROVENANCE["paper's result files"].mark, origin(TEST_ERRORS["bow", "bbcsport"])
    ('†', 'a bar label of its Figure 8')
    """

    origin: str = ""
    mark: str = ""
    mark_before: bool = False
    note: str = ""


# How the book words and marks each kind of KINDS (a test checks that every kind has an entry).
PROVENANCE: dict[str, Provenance] = {
    "paper text": Provenance(),
    "paper table": Provenance(),
    "paper figure caption": Provenance("its {source}"),
    "paper figure (bar labels)": Provenance("a bar label of its {source}"),
    "paper figure (read off)": Provenance(
        "read off its {source}", "≈", True, "read off a blurry bar label, approximate"
    ),
    "paper's notebook": Provenance(
        "the paper's published notebook, not printed in the paper",
        "‡",
        False,
        "from the paper's published notebook, not printed in the paper",
    ),
    "paper's result files": Provenance(
        "the paper's preliminary result files, not printed in the paper",
        "†",
        False,
        "from the paper's preliminary result files in its code's history (commit a072c96), not printed in the paper",
    ),
    "paper's code": Provenance(),
    "authors' evaluation repository": Provenance(),
    "later publication": Provenance(),
}


@dataclass(frozen=True)
class PaperValue:
    """A number (or tuple, or bool) attributed to the paper or its code, with where it stands.

    Parameters
    ----------
    value : object
        The value.
    source : str
        Where: "§6.3", "Figure 8", "the paper's notebook, cells 54-57", ...
    kind : str
        One of :data:`KINDS`.

    Examples
    --------
    >>> TEST_ERRORS["bow", "bbcsport"]
    PaperValue(value=23, source='Figure 8', kind='paper figure (bar labels)')
    """

    value: Any
    source: str  # where: "§6.3", "Figure 8", "the paper's notebook, cells 54-57", ...
    kind: str  # one of KINDS

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; allowed: {KINDS}")


def origin(value: PaperValue) -> str:
    """Where ``value`` comes from, in words for the prose (:data:`PROVENANCE`; its source where its kind has no phrase).

    Parameters
    ----------
    value : PaperValue

    Returns
    -------
    str

    Examples
    --------
    >>> origin(TEST_ERRORS["bow", "ohsumed"]), origin(TEST_ERRORS["wmd", "reuters"])
    ("the paper's preliminary result files, not printed in the paper", 'read off its Figure 8 (a blurry bar label, 5.3-5.5)')
    """
    return PROVENANCE[value.kind].origin.format(source=value.source) or value.source


def marked(value: PaperValue, text: str) -> str:
    """``text`` (``value`` as shown) with its kind's mark where the paper does not print it so (:data:`PROVENANCE`): "≈"
    before, "†" or "‡" after.

    Parameters
    ----------
    value : PaperValue
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> marked(TEST_ERRORS["wmd", "reuters"], "5.5 %"), marked(TEST_ERRORS["bow", "ohsumed"], "54.73 %")
    ('≈5.5 %', '54.73 %†')
    """
    kind = PROVENANCE[value.kind]
    return kind.mark + text if kind.mark_before else text + kind.mark


def value(table: dict, key, default=np.nan):
    """``table[key].value``, or ``default`` where the paper has no such value (``table``: e.g. :data:`TEST_ERRORS`).

    Parameters
    ----------
    table : dict of PaperValue
    key, default : object

    Returns
    -------
    object

    Examples
    --------
    >>> value(TEST_ERRORS, ("bow", "bbcsport")), value(TEST_ERRORS, ("wmd_tfidf", "bbcsport"))
    (23, nan)
    """
    return table[key].value if key in table else default


def decimals(table: dict, key) -> int | None:
    """The decimals that the source of the paper's value ``table[key]`` gives where a float does not keep them: two
    for a test error of the paper's result files (44.40, which a float shows as 44.4), as the paper prints its test
    errors; one for Sato et al.'s (2022) errors (8.0); None where the value's own digits are its source's (or the paper has no such value).

    Parameters
    ----------
    table : dict
        A table of :class:`PaperValue` s (e.g. :data:`TEST_ERRORS`).
    key : object
        Its key.

    Returns
    -------
    int or None
        The decimals to show it with.

    Examples
    --------
    >>> decimals(TEST_ERRORS, ("soft_vsm_quantized", "ohsumed")), decimals(TEST_ERRORS, ("bow", "bbcsport"))
    (2, None)
    >>> decimals(SATO_2022_ERRORS, ("tfidf_l1", "amazon"))
    1
    """
    if table is SATO_2022_ERRORS and key in table:
        return SATO_2022_DECIMALS
    return 2 if key in table and table[key].kind == "paper's result files" else None


def read_off(table: dict, key) -> bool:
    """Whether the paper's value ``table[key]`` was read off a figure's blurry labels (False where the paper has none).

    Parameters
    ----------
    table : dict of PaperValue
    key : object

    Returns
    -------
    bool

    Examples
    --------
    >>> read_off(SPEEDS, "bow"), read_off(TEST_ERRORS, ("bow", "bbcsport")), read_off(TEST_ERRORS, ("wmd_tfidf", "x"))
    (True, False, False)
    """
    return key in table and table[key].kind == "paper figure (read off)"


# ---------------------------------------------------------------------------------------------------------------
# Figure 8: kNN test error (%) per (method, data set), the book's appendix

_BARS = "Figure 8"
_PICKLES = (
    "the paper's preliminary result files (commit a072c96), which agree with Figure 8's bar label (the book's appendix)"
)
_CAPTIONS = {
    "ohsumed": "Figure 2 caption",
    "bbcsport": "Figure 3 caption",
    "reuters": "Figure 4 caption",
    "amazon": "Figure 5 caption",
}
_TWITTER = "the paper's notebook: caption of its TWITTER figure, which the paper leaves out (the book's appendix)"


def _caption(dataset: str, regularized: bool) -> tuple[str, str]:
    """(source, kind) of a soft VSM's exact test error: the confusion-matrix figures' captions (Figures 2-7)."""
    if dataset == "twitter":
        return _TWITTER, "paper's notebook"
    if dataset == "20news":
        return ("Figure 7 caption" if regularized else "Figure 6 caption"), "paper figure caption"
    return _CAPTIONS[dataset], "paper figure caption"


def _errors(method: str, values, exact=()) -> dict[tuple[str, str], PaperValue]:
    """Bar labels, except the data sets in ``exact`` ({dataset: (source, kind)})."""
    exact = dict(exact)
    return {
        (method, dataset): PaperValue(v, *exact.get(dataset, (_BARS, "paper figure (bar labels)")))
        for dataset, v in zip(DATASETS, values)
    }


def _from_captions(method: str, values, regularized: bool) -> dict[tuple[str, str], PaperValue]:
    return {(method, dataset): PaperValue(v, *_caption(dataset, regularized)) for dataset, v in zip(DATASETS, values)}


# The captions' "regularized" is the 1-bit orthogonalized SCM (§6.1: "orthogonalized and quantized word embeddings").
TEST_ERRORS: dict[tuple[str, str], PaperValue] = {
    **_errors(
        "bow",
        (23, 32, 54.73, 8.8, 29.29, 58.66),
        {d: (_PICKLES, "paper's result files") for d in ("ohsumed", "amazon", "20news")},
    ),
    **_from_captions("soft_vsm", (21.82, 31.22, 50.71, 10.19, 10.04, 42.53), regularized=False),
    **_errors("wmd_quantized", (11, 33, 49, 5.9, 14, 44)),
    **_errors(
        "soft_vsm_quantized",
        (22.27, 31.12, 44.40, 9.4, 8.96, 39.53),
        {d: (_PICKLES, "paper's result files") for d in ("bbcsport", "twitter", "ohsumed", "amazon", "20news")},
    ),
    **_errors(
        "wmd",
        (9.1, 31, 50, 5.5, 11, 40),
        {"reuters": ("Figure 8 (a blurry bar label, 5.3-5.5)", "paper figure (read off)")},
    ),
    **_from_captions("soft_vsm_quantized_ortho", (2.27, 31.01, 24.14, 7.22, 6.33, 29.97), regularized=True),
    **_errors("soft_vsm_ortho", (2.3, 31, 24, 7.4, 6.6, 30)),
}

# ---------------------------------------------------------------------------------------------------------------
# Figure 10: mean test error over the data sets relative to BoW's (%), the book's appendix

_RELATIVE = "Figure 10 (blurry labels; the book's appendix)"
RELATIVE_ERRORS: dict[str, PaperValue] = {
    "bow": PaperValue(100.0, "Figure 10 (BoW is 100 % by definition)", "paper figure (read off)"),
    "soft_vsm": PaperValue(80.66, _RELATIVE, "paper figure (read off)"),
    "wmd_quantized": PaperValue(76.02, _RELATIVE, "paper figure (read off)"),
    "soft_vsm_quantized": PaperValue(75.42, _RELATIVE, "paper figure (read off)"),
    "wmd": PaperValue(70.18, _RELATIVE, "paper figure (read off)"),
    "soft_vsm_quantized_ortho": PaperValue(48.90, _RELATIVE, "paper figure (read off)"),
    "soft_vsm_ortho": PaperValue(48.86, "§6.2 (and Figure 10)", "paper text"),
}

# ---------------------------------------------------------------------------------------------------------------
# Figure 9: document pairs per second on one Intel Xeon X7560 core, the book's appendix

# Figure 9 prints each speed on its bar to the unit; the last digits are blurry in the published PDF, so they are read
# as approximate. §6.3's ratios confirm them: 1,462,366 / 536,641 = 2.73 and 1,462,366 / 811,964 = 1.80.
_SPEED = "Figure 9's bar labels (printed to the unit, the last digits blurry; §6.3's 2.73× and 1.8× confirm them)"
SPEEDS: dict[str, PaperValue] = {
    method: PaperValue(v, _SPEED, "paper figure (read off)")
    for method, v in {
        "bow": 3_434_600,
        "soft_vsm": 1_462_366,
        "wmd_quantized": 0.89,
        "soft_vsm_quantized": 811_964,
        "wmd": 0.472,
        "soft_vsm_quantized_ortho": 386_825,
        "soft_vsm_ortho": 536_641,
    }.items()
}

# ---------------------------------------------------------------------------------------------------------------
# Table 1: data set statistics; "train" is the train + validation size

_TABLE_1_COLUMNS = ("train", "test", "E[p]", "classes")
TABLE_1: dict[tuple[str, str], PaperValue] = {
    (dataset, column): PaperValue(v, "Table 1", "paper table")
    for dataset, row in {
        "bbcsport": (517, 220, 181.0, 5),
        "twitter": (2176, 932, 13.7, 3),
        "ohsumed": (3999, 5153, 89.4, 10),
        "reuters": (5485, 2189, 56.0, 8),
        "amazon": (5600, 2400, 86.3, 4),
        "20news": (11293, 7528, 145.0, 20),
    }.items()
    for column, v in zip(_TABLE_1_COLUMNS, row)
}

# ---------------------------------------------------------------------------------------------------------------
# Table 2: the optimal parameters of Soft VSM (ortho.). The caption says "the soft VSM with orthogonalized word
# embeddings" and names no precision; that they are the 32-bit model's is an inference from the paper's notebook (cell
# 60 prints these values for Soft VSM (ortho.), 32-bit) and from Table 2's k, which differs from the 1-bit regularized
# SCM's k in the captions of Figures 2 and 5 (the book's appendix).

_TABLE_2_COLUMNS = ("symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent", "slope", "k")
_TABLE_2 = (
    "Table 2 (32-bit: our inference from the paper's notebook, cell 60, and from Figures 2 and 5's k; the "
    "caption names no precision)"
)
TABLE_2: dict[tuple[str, str], PaperValue] = {
    (dataset, column): PaperValue(v, _TABLE_2, "paper table")
    for dataset, row in {
        "bbcsport": (True, True, True, 100, -1.0, 2.0, 0.0, 1),
        "twitter": (True, False, True, 400, -1.0, 2.0, 0.0, 13),
        "ohsumed": (False, True, True, 200, -1.0, 4.0, 0.0, 11),
        "reuters": (True, True, True, 100, -1.0, 4.0, 0.0, 19),
        "amazon": (True, True, True, 100, -1.0, 4.0, 0.0, 17),
        "20news": (False, False, True, 100, -1.0, 3.0, 0.0, 1),
    }.items()
    for column, v in zip(_TABLE_2_COLUMNS, row)
}


def _frame(table: dict, columns) -> pd.DataFrame:
    datasets = list(dict.fromkeys(dataset for dataset, _ in table))
    return pd.DataFrame(
        [[table[d, c].value for c in columns] for d in datasets],
        columns=list(columns),
        index=pd.Index(datasets, name="dataset"),
    )


def table_1() -> pd.DataFrame:
    """The paper's Table 1, one row per data set: train (train + validation), test, E[p], classes.

    Returns
    -------
    pandas.DataFrame
        Indexed by data set.

    Examples
    --------
    >>> table_1().loc["bbcsport"].to_dict()
    {'train': 517.0, 'test': 220.0, 'E[p]': 181.0, 'classes': 5.0}
    """
    return _frame(TABLE_1, _TABLE_1_COLUMNS)


def table_2() -> pd.DataFrame:
    """The paper's Table 2, one row per data set, in the columns of chapter 4's chosen parameters.

    Returns
    -------
    pandas.DataFrame
        Indexed by data set.

    Examples
    --------
    >>> table_2().columns.tolist()
    ['symmetric', 'dominant', 'idf', 'nonzero_limit', 'threshold', 'exponent', 'slope', 'k']
    """
    return _frame(TABLE_2, _TABLE_2_COLUMNS)


# ---------------------------------------------------------------------------------------------------------------
# the embeddings (chapter 2), the book's appendix

_COSINE_CELLS = "the paper's notebook, cells 54-57 (all C(60238, 2) word pairs; the book's appendix)"
COSINE_DECIMALS = 4  # the notebook prints the mean and sd with four decimals (0.0810, which a float shows as 0.081)
COSINES: dict[tuple[str, str], PaperValue] = {
    ("32-bit", "mean"): PaperValue(0.1532, _COSINE_CELLS, "paper's notebook"),
    ("32-bit", "sd"): PaperValue(0.0810, _COSINE_CELLS, "paper's notebook"),
    ("1-bit", "mean"): PaperValue(0.0283, _COSINE_CELLS, "paper's notebook"),
    ("1-bit", "sd"): PaperValue(0.0367, _COSINE_CELLS, "paper's notebook"),
}
_GOOD_BAD_CELLS = "the paper's notebook, cells 54-57 (the book's appendix); §6.1 of the paper rounds it to {}"
GOOD_BAD: dict[tuple[str, str], PaperValue] = {
    ("32-bit", "cosine"): PaperValue(0.5848, _GOOD_BAD_CELLS.format("0.58"), "paper's notebook"),
    ("1-bit", "cosine"): PaperValue(0.4020, _GOOD_BAD_CELLS.format("0.4"), "paper's notebook"),
    ("32-bit", "paper"): PaperValue(0.58, '§6.1 ("cosine similarity 0.58 for non-quantized")', "paper text"),
    ("1-bit", "paper"): PaperValue(0.4, '§6.1 ("and 0.4 for quantized word embeddings")', "paper text"),
    ("32-bit", "rank"): PaperValue(1, "§6.1 (good and bad are mutual nearest neighbours)", "paper text"),
    ("1-bit", "rank"): PaperValue(1, "§6.1 (good and bad are mutual nearest neighbours)", "paper text"),
}
# How the embeddings were trained: the text (§5.3) gives the corpus, the epochs and the dimensions and points to Lam
# (2018, §4.3) for the rest; the code's Makefile passes Word2Bits the flags below (alpha is Word2Bits' default).
CORPUS_MIB = PaperValue(100, '§5.3 ("the first 100 MiB of the English Wikipedia")', "paper text")
DIMENSIONS: dict[str, PaperValue] = {
    "32-bit": PaperValue(200, "§5.3 (non-quantized embeddings)", "paper text"),
    "1-bit": PaperValue(1000, "§5.3 (quantized embeddings)", "paper text"),
}
EPOCHS = PaperValue(10, '§5.3 ("10 training epochs")', "paper text")
_MAKEFILE = "the paper's Makefile, target vectors: the flags it passes to Word2Bits (the book's appendix)"
TRAINING_SETTINGS: dict[str, PaperValue] = {
    "window": PaperValue(10, _MAKEFILE, "paper's code"),
    "negative": PaperValue(24, _MAKEFILE, "paper's code"),
    "sample": PaperValue(1e-4, _MAKEFILE, "paper's code"),
    "min_count": PaperValue(5, _MAKEFILE, "paper's code"),
    "epochs": PaperValue(10, _MAKEFILE, "paper's code"),
    "alpha": PaperValue(
        0.05, "Word2Bits' default learning rate, which the paper's Makefile keeps (the book's appendix)", "paper's code"
    ),
}
VALIDATION_SHARE = PaperValue(20, '§5.4 ("we hold out 20% of the train set for validation")', "paper text")
FIGURE_1_WORDS = PaperValue(40, 'Figure 1 caption ("the 40 most common words")', "paper figure caption")
VOCABULARY = PaperValue(
    60_238,
    "the paper's notebook log: both embedding matrices load as (60238, d) (the book's appendix)",
    "paper's notebook",
)
# Google-analogy accuracy (%) of the same training settings on standard text8, not the paper's corpus.
TEXT8_ANALOGY: dict[str, PaperValue] = {
    "32-bit": PaperValue(
        33.40,
        "Witiko/Word2Bits-evaluation, 0b-200d-e10 on text8 (the book's appendix)",
        "authors' evaluation repository",
    ),
    "1-bit": PaperValue(
        31.82,
        "Witiko/Word2Bits-evaluation, 1b-1000d-e10 on text8 (the book's appendix)",
        "authors' evaluation repository",
    ),
}

# ---------------------------------------------------------------------------------------------------------------
# the orthogonalization grid (chapters 3-4)

# What the paper's code searched (classify() in its notebook; the book's appendix). Table 2's t = -1 comes from this grid.
ORTHOGONALIZATION_GRID: dict[str, PaperValue] = {
    key: PaperValue(values, "the paper's notebook, classify() (the book's appendix)", "paper's code")
    for key, values in {
        "symmetric": (True, False),
        "dominant": (True, False),
        "idf": (True, False),
        "nonzero_limit": (100, 200, 400, 800),
        "threshold": (-1.0, -0.5, 0.0, 0.5),
        "exponent": (1.0, 2.0, 3.0, 4.0),
    }.items()
}
# What the paper's text says it searched: t ∈ {0, ±1/2, 1}, which differs from its code's thresholds.
TEXT_THRESHOLDS = PaperValue((-0.5, 0.0, 0.5, 1.0), "§5.4", "paper text")

# ---------------------------------------------------------------------------------------------------------------
# the claims

ERROR_REDUCTION_ABSTRACT = PaperValue(39, 'abstract ("39% average kNN test error reduction")', "paper text")
# Soft VSM (ortho.) against Soft VSM: 48.86 / 80.66 (Figure 10).
ERROR_REDUCTION = PaperValue(39.43, "§6.2", "paper text")
REGULARIZED_ERROR_RATIO = PaperValue(60.57, "§6.2", "paper text")
LOWEST_RELATIVE_ERROR = PaperValue(48.86, "§6.2 (Soft VSM (ortho.), the lowest in Figure 10)", "paper text")
# The WMD's slowdown against Soft VSM (quan., ortho.).
SPEED_RATIO = PaperValue(819_496, "§6.3", "paper text")
SPEED_RATIO_20NEWS = PaperValue(1_505_386, "§6.3", "paper text")
FASTER_THAN = PaperValue(10_000, 'abstract ("over 10,000x faster")', "paper text")
# §5.5 describes a t-test "for all combinations" without a count; the code ran one for every pair of the 7
# configurations on every data set, 6 x 21 = 126 comparisons; §6.1 lists the five that are not significant.
SIGNIFICANCE_TESTS = PaperValue(
    126,
    "the paper's code: every pair of Figure 8's 7 configurations on each of the 6 data "
    "sets, the tests that §5.5 describes without a count (the book's appendix)",
    "paper's code",
)
NOT_SIGNIFICANT = PaperValue(5, "§6.1 (the five pairs it names as not significant)", "paper text")
# The five, as §6.1 names them: "the second and fourth results from the left on the BBCSPORT and TWITTER datasets, the
# sixth and seventh results from the left on the BBCSPORT and OHSUMED datasets, and the fourth and sixth results from
# the left on the TWITTER dataset", read in Figure 8's plot order (regemb_utils.classification.methods.METHODS' first seven).
NOT_SIGNIFICANT_PAIRS = PaperValue(
    (
        ("bbcsport", "soft_vsm", "soft_vsm_quantized"),
        ("twitter", "soft_vsm", "soft_vsm_quantized"),
        ("bbcsport", "soft_vsm_quantized_ortho", "soft_vsm_ortho"),
        ("ohsumed", "soft_vsm_quantized_ortho", "soft_vsm_ortho"),
        ("twitter", "soft_vsm_quantized", "soft_vsm_quantized_ortho"),
    ),
    "§6.1 (positions in Figure 8's plot order)",
    "paper text",
)
# §6.3: "performing sparse instead of dense matrix operations causes a 2.73x slowdown compared to the soft VSM with
# non-orthogonalized word embeddings" (Soft VSM over Soft VSM (ortho.) in Figure 9), and "Quantization causes a 1.8x
# slowdown" (Soft VSM over Soft VSM (quan.)).
SPARSE_SLOWDOWN = PaperValue(2.73, '§6.3 ("a 2.73× slowdown" of the sparse against the dense soft VSM)', "paper text")
QUANTIZATION_SLOWDOWN = PaperValue(1.8, '§6.3 ("Quantization causes a 1.8× slowdown")', "paper text")
# §6.3: "Although Kusner et al. report up to 110x speed-up using an approximate variant of the WMD (the WCD), this still
# results in an average 7,450x slowdown, and a 13,685x slowdown on the 20NEWS dataset": 819,496 / 110 and
# 1,505,386 / 110. The paper did not run the WCD.
WCD_SPEEDUP = PaperValue(110, '§6.3, citing Kusner et al. (2015) ("up to 110× speed-up")', "paper text")
WCD_SLOWDOWN = PaperValue(7_450, "§6.3 (the WCD's average slowdown: 819,496 / 110)", "paper text")
WCD_SLOWDOWN_20NEWS = PaperValue(13_685, "§6.3 (the WCD's slowdown on 20NEWS: 1,505,386 / 110)", "paper text")

# What §6.1 reads off the confusion matrices (Figures 2 and 4) of the soft VSM with non-regularized embeddings.
OHSUMED_PREDICTED = PaperValue(
    ("C04", "C10", "C06"), "§6.1, on Figure 2 (the classes predicted most, in order)", "paper text"
)
OHSUMED_CLASS_SIZES = PaperValue(
    (("C04", 2_835), ("C10", 1_711), ("C06", 1_246)),
    "§6.1 (its OHSUMED's three most common classes and their documents)",
    "paper text",
)
REUTERS_CONFUSED = PaperValue(
    ("grain", "crude"), "§6.1, on Figure 4 (grain misclassified as the more common crude)", "paper text"
)

# ---------------------------------------------------------------------------------------------------------------
# a later paper: Sato et al. (2022) re-evaluated the kNN baselines on Kusner et al.'s documents (chapter 7)

_SATO = (
    "Sato et al. (2022), Re-evaluating Word Mover's Distance (ICML): kNN test errors (%) after L1 normalization, "
    "Kusner et al.'s documents and splits (the mean over the five splits where there are five); their repository "
    "joisino/reeval-wmd, evaluate.py, prints them"
)
SATO_2022_ERRORS: dict[tuple[str, str], PaperValue] = {
    (method, dataset): PaperValue(error, _SATO, "later publication")
    for method, errors in (
        ("tfidf_l1", (2.8, 28.9, 37.8, 5.5, 8.0, 25.9)),
        ("wmd_tfidf", (3.3, 28.3, 39.7, 4.0, 6.6, 24.1)),
    )
    for dataset, error in zip(("bbcsport", "twitter", "ohsumed", "reuters", "amazon", "20news"), errors)
}
SATO_2022_DECIMALS = 1  # their evaluate.py prints every error with one decimal (8.0, which a float shows as 8)

# ---------------------------------------------------------------------------------------------------------------
# not numbers: where our data differ from the paper's (data/README.md)

DIFFERENT_DATA = {
    "ohsumed": "fewer single-label abstracts in this distribution",
    "reuters": "R8 as published (ApteMod), not the paper's cut of NLTK's class-ordered list",
    "amazon": "Blitzer's reviews (books, dvd, electronics, kitchen), not McAuley's 5-core",
}
# The data sets whose documents are the paper's (the landing page says so, and every verdict is also stated on them):
# BBCSPORT, TWITTER and 20NEWS. Their splits follow the paper's code (BBCSPORT's test documents differ, since the code's
# file order cannot be repeated; chapter 1).
PAPER_DOCUMENTS = tuple(d for d in DATASETS if d not in DIFFERENT_DATA)


def all_values() -> list[tuple[str, PaperValue]]:
    """Every value of this module with its name (``TABLE[key]`` for a table's entries).

    Returns
    -------
    list of (str, PaperValue)
        Each value with its name, in the module's order.

    Examples
    --------
    >>> found = dict(all_values())
    >>> found["TEST_ERRORS[('bow', 'bbcsport')]"].value, found["TEST_ERRORS[('bow', 'bbcsport')]"].source
    (23, 'Figure 8')
    >>> all(isinstance(v, PaperValue) and v.source for v in found.values())
    True
    """
    found = []
    for name, item in globals().items():
        if isinstance(item, PaperValue):
            found.append((name, item))
        elif isinstance(item, dict) and item and all(isinstance(v, PaperValue) for v in item.values()):
            found += [(f"{name}[{key!r}]", v) for key, v in item.items()]
    return found


# plain views for the notebooks (the same values)
PAPER_COSINES = {model: {s: COSINES[model, s].value for s in ("mean", "sd")} for model in ("32-bit", "1-bit")}
PAPER_GOOD_BAD = {model: {c: GOOD_BAD[model, c].value for c in ("cosine", "rank")} for model in ("32-bit", "1-bit")}
PAPER_GRID = {key: item.value for key, item in ORTHOGONALIZATION_GRID.items()}
