"""The replication scorecard: every number the paper reports beside ours, from the chapters' artifacts.

The paper's numbers and their sources are :mod:`regemb_utils.paper`'s.

One row per number: what it is, the data set and method where it applies, the paper's value, ours, the difference
(ours − paper), our 95 % interval where we have one (the test errors: Agresti–Coull, as the paper) and whether it
contains the paper's value, whether the two values agree where an exact match is expected (sizes, class counts,
selected parameters), and whether our data differ from the paper's (REUTERS, OHSUMED and AMAZON documents, and the
Wikipedia corpus under every embedding).
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ..classification.methods import METHODS
from ..classification.wmd_samples import SCM, paper_errors
from ..text.datasets import DATASETS
from .. import paper as _paper
from ..book.prose import PARAMETER_SYMBOLS
from ..book.tables import PRECISION, paper_as_given, table
from ..classification.speed import speed_rates, speed_ratios
from .scm_vs_wmd import decided_counts, error_table, optimal_parameters, paired_wmd_table, relative_error_table

__all__ = [
    "scorecard",
    "results_scorecard",
    "agrees",
    "headline",
    "footnoted",
    "shown_numbers",
    "section_table",
    "all_numbers_table",
    "value_span",
    "wmd_coverage",
]

CORPUS_DIFFERS = "corpus: a 2015 Wikipedia dump, not the paper's first 100 MiB of the English Wikipedia"
SPEED = "document pairs evaluated exactly per second per core (the weighting timed)"
SPEED_RATIO = "speed of the regularized SCM / speed of the 32-bit WMD (pairs evaluated exactly per second)"
# §6.2's pair ("regularized" against "non-regularized" there), by our reading of Figure 10 the orthogonalized 32-bit SCM
COSINE_PAIRS = "cosines: the paper's notebook over all pairs of its vocabulary, ours over random pairs"
DECIDED = (
    "data sets counted: ours by the exact McNemar test (BH q < 0.05), the paper's by Figure 8's values beyond their "
    "rounding (no test)"
)
REDUCTION = "test error reduction, orthogonalized 32-bit vs non-regularized SCM (%)"


def _not_printed(value: _paper.PaperValue) -> str | None:
    """The footnote of a row whose paper value the paper does not print as shown (:data:`regemb_utils.paper.PROVENANCE`;
    a value read off a figure says so in its own column)."""
    kind = _paper.PROVENANCE[value.kind]
    return f"the paper's value: {kind.note}" if kind.mark and not kind.mark_before else None


_COLUMNS = [
    "section",
    "quantity",
    "dataset",
    "method",
    "paper",
    "paper read off a figure",
    "paper decimals",
    "ours",
    "difference",
    "lower",
    "upper",
    "paper within our interval",
    "agrees",
    "exact match",
    "data",
]


def _data(dataset: str | None, corpus: bool) -> str:
    notes = []
    if dataset in _paper.DIFFERENT_DATA:
        notes.append(f"{dataset}: {_paper.DIFFERENT_DATA[dataset]}")
    if corpus:
        notes.append(CORPUS_DIFFERS)
    return "; ".join(notes) if notes else "same"


def _half_unit(value: float) -> float:
    """Half a unit of the last digit that ``value`` is given with: the paper's rounding.

    >>> _half_unit(39.53), _half_unit(23.0), _half_unit(40), _half_unit(0.0283)
    (0.005, 0.5, 0.5, 5e-05)
    """
    exponent = decimal.Decimal(repr(float(value))).normalize().as_tuple().exponent
    return 0.5 * 10.0 ** min(int(exponent), 0)


def _row(
    section,
    quantity,
    paper,
    ours,
    *,
    dataset=None,
    method=None,
    lower=np.nan,
    upper=np.nan,
    exact=False,
    corpus=False,
    difference=True,
    paper_n=None,
    read_off=False,
    paper_decimals=None,
    note=None,
):
    """One number; ``difference=False`` where ours − paper means nothing (speeds measured on different hardware);
    ``paper_n``: the number of test documents behind the paper's value (a test error), for :func:`agrees`;
    ``read_off``: the paper's value was read off a figure (approximate); ``paper_decimals``: the decimals its source
    prints (e.g. :data:`regemb_utils.paper.COSINE_DECIMALS`); ``note``: how the two sides counted, a
    footnote of the row (:func:`footnoted`) rather than words repeated in every row."""
    paper_number = isinstance(paper, (int, float, np.number)) and not isinstance(paper, bool)
    ours_number = isinstance(ours, (int, float, np.number)) and not isinstance(ours, bool)
    # a value read off a figure enters the difference as it is shown: its three significant digits
    shown = float(f"{paper:.3g}") if read_off and paper_number else paper
    difference = float(ours) - float(shown) if paper_number and ours_number and difference else np.nan
    # the paper's value stands for every number that rounds to it (39.53 for 39.525 to 39.535, a label 23 for 22.5 to 23.5)
    within = (
        bool(lower <= paper + _half_unit(paper) and paper - _half_unit(paper) <= upper)
        if paper_number and np.isfinite(lower) and np.isfinite(upper)
        else None
    )
    agreed = (
        agrees(float(paper), float(ours), lower, upper, paper_n)
        if paper_n and paper_number and np.isfinite(lower) and np.isfinite(upper)
        else None
    )
    return {
        "section": section,
        "quantity": quantity,
        "dataset": dataset,
        "method": method,
        "paper": paper,
        "paper read off a figure": bool(read_off),
        "paper decimals": paper_decimals,
        "ours": ours,
        "difference": difference,
        "lower": lower,
        "upper": upper,
        "paper within our interval": within,
        "agrees": agreed,
        "exact match": (paper == ours) if exact else None,
        "data": "; ".join(n for n in (_data(dataset, corpus), note) if n and n != "same") or "same",
    }


def agrees(paper: float, ours: float, lower: float, upper: float, paper_n: int, confidence: float = 0.95) -> bool:
    """Whether two test errors (%) agree within both studies' sampling error: the difference lies within the
    ``confidence`` interval of a difference of two independent estimates, ours with the standard error that our
    interval implies, the paper's with a binomial one from its ``paper_n`` test documents, widened by the rounding of
    the paper's value (half a unit of its last digit).

    Treating the paper's number as exact (is it inside our interval?) ignores that it was measured on a sample too:
    two estimates of the same error fall outside each other's 95 % intervals far more often than 5 % of the time.

    Parameters
    ----------
    paper, ours : float
        The two test errors (%).
    lower, upper : float
        Our interval (%).
    paper_n : int
        The paper's number of test documents.
    confidence : float
        The confidence level.

    Returns
    -------
    bool
        Whether they agree.

    Examples
    --------
    >>> agrees(21.82, 25.0, 22.1, 28.4, 220)  # outside our interval, yet within both studies' sampling error
    True
    >>> agrees(2.27, 13.6, 9.7, 18.8, 220)
    False
    """
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    ours_se = ((ours - lower) if paper < ours else (upper - ours)) / z  # the half of our interval that faces the paper
    share = min(max(paper / 100, 0.0), 1.0)
    paper_se = 100 * np.sqrt(share * (1 - share) / paper_n)
    return bool(abs(ours - paper) <= z * np.hypot(ours_se, paper_se) + _half_unit(paper))


def scorecard(
    *,
    table_1: pd.DataFrame | None = None,
    cosines: Mapping[str, Mapping[str, float]] | None = None,
    good_bad: Mapping[str, float] | None = None,
    errors: pd.DataFrame | None = None,
    relative: pd.DataFrame | None = None,
    timings: pd.DataFrame | None = None,
    parameters: pd.DataFrame | None = None,
    paired: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The scorecard from the chapters' tables (each optional; a missing one gives no rows).

    ``table_1``: :func:`regemb_utils.chapters.preprocessing.dataset_statistics` (with the corpus-dictionary E[p]);
    ``cosines``: model -> {"mean", "sd"} of random word pairs (chapter 2); ``good_bad``: model -> cos(good, bad);
    ``errors``, ``relative``, ``parameters``: chapter 4's :func:`error_table`, :func:`relative_error_table` and
    :func:`optimal_parameters`; ``timings``: chapter 4's ``speed_timings`` (every pair evaluated exactly, the
    weighting timed: :func:`regemb_utils.classification.speed.measure_speed`), Figure 9's speeds pooled over the data
    sets (:func:`regemb_utils.classification.speed.speed_rates`) and the regularized SCM's ratio to the 32-bit WMD with
    its bootstrap interval (:func:`regemb_utils.classification.speed.speed_ratios`); ``paired``: chapter 4's
    :func:`regemb_utils.chapters.scm_vs_wmd.paired_wmd_table`, counted by :func:`regemb_utils.chapters.scm_vs_wmd.decided_counts` (the
    paper's count: the data sets on which its Figure 8 has the SCM ahead or behind, the others "not decided" where
    the two errors as shown, a bar label to two significant digits, may stand for the same value; it called every
    difference between the SCM and a WMD significant: none of §6.1's five exceptions involves a WMD).

    Parameters
    ----------
    table_1, errors, relative, timings, parameters, paired : pandas.DataFrame, optional
        The chapters' tables (see above).
    cosines : mapping, optional
        Model → ``{"mean", "sd"}`` of random word pairs.
    good_bad : mapping, optional
        Model → cos(good, bad).

    Returns
    -------
    pandas.DataFrame
        One row per number: section, quantity, dataset, method, paper, ours, difference, lower, upper, paper within our
        interval, exact match, data.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, seconds):  # errs on the first ``wrong`` of 10 test documents, 100 pairs in ``seconds``
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=seconds)])
    >>> results = {("bbcsport", m): result(m, wrong, seconds) for m, wrong, seconds in
    ...            [("bow", 4, 0.5), ("soft_vsm", 2, 0.5), ("soft_vsm_quantized_ortho", 1, 0.001), ("wmd", 3, 50.0)]}
    >>> from regemb_utils.chapters.scm_vs_wmd import error_table
    >>> card = scorecard(errors=error_table(results))
    >>> card[["method", "paper", "ours", "paper within our interval"]].values.tolist()
    [['BoW', 23.0, 40.0, True], ['Soft VSM', 21.82, 20.0, True], ['WMD', 9.1, 30.0, False], ['Soft VSM (quan., ortho.)', 2.27, 10.0, True]]
    """
    rows = []
    if table_1 is not None:
        for dataset in table_1.index:
            ours = table_1.loc[dataset, "ours"]
            for column, label in (("train", "training documents"), ("test", "test documents"), ("classes", "classes")):
                paper = int(_paper.value(_paper.TABLE_1, (dataset, column)))
                rows.append(_row("Table 1", label, paper, int(ours[column]), dataset=dataset, exact=True))
            expected = ours.get("E[p] in corpus dictionary", ours["E[p]"])
            rows.append(
                _row(
                    "Table 1",
                    "E[p] (unique corpus words per document)",
                    float(_paper.value(_paper.TABLE_1, (dataset, "E[p]"))),
                    float(expected),
                    dataset=dataset,
                    corpus=True,
                )
            )
    for model, values in (cosines or {}).items():
        for statistic in ("mean", "sd"):
            rows.append(
                _row(
                    "Chapter 2",
                    f"cosine of word pairs, {statistic}",
                    _paper.value(_paper.COSINES, (model, statistic)),
                    float(values[statistic]),
                    method=f"{model} embeddings",
                    corpus=True,
                    paper_decimals=_paper.COSINE_DECIMALS,
                    note=COSINE_PAIRS,
                )
            )
    for model, value in (good_bad or {}).items():
        rows.append(
            _row(
                "Chapter 2",
                "cos(good, bad) (§6.1)",
                _paper.value(_paper.GOOD_BAD, (model, "paper")),
                float(value),
                method=f"{model} embeddings",
                corpus=True,
            )
        )
    if errors is not None:
        for r in errors.itertuples(index=False):
            if np.isfinite(r.paper):
                rows.append(
                    _row(
                        "Figure 8",
                        "test error (%)",
                        float(r.paper),
                        float(r.error),
                        dataset=r.dataset,
                        method=r.label,
                        lower=float(r.lower),
                        upper=float(r.upper),
                        corpus=METHODS[r.method].model is not None,
                        paper_n=_paper.value(_paper.TABLE_1, (r.dataset, "test"), None),
                        read_off=_paper.read_off(_paper.TEST_ERRORS, (r.method, r.dataset)),
                        paper_decimals=_paper.decimals(_paper.TEST_ERRORS, (r.method, r.dataset)),
                        note=_not_printed(_paper.TEST_ERRORS[r.method, r.dataset]),
                    )
                )
    if relative is not None:
        table = relative.set_index("method")
        for method, r in table.iterrows():
            if method != "bow" and np.isfinite(r["paper"]):
                rows.append(
                    _row(
                        "Figure 10",
                        "mean test error relative to BoW (%)",
                        float(r["paper"]),
                        float(r["relative error"]),
                        method=r["label"],
                        corpus=True,
                        read_off=_paper.read_off(_paper.RELATIVE_ERRORS, method),
                    )
                )
        if {"soft_vsm", "soft_vsm_ortho"} <= set(table.index):  # §6.2: 48.86 / 80.66 of BoW's error
            ours = 100 * (1 - table.loc["soft_vsm_ortho", "relative error"] / table.loc["soft_vsm", "relative error"])
            # §6.2's 39.43 % (the abstract rounds it to 39 %)
            rows.append(
                _row(
                    "§6.2",
                    REDUCTION,
                    _paper.ERROR_REDUCTION.value,
                    float(ours),
                    method="Soft VSM (ortho.)",
                    corpus=True,
                )
            )
    if timings is not None and len(timings):  # the paper's measure: every pair evaluated exactly, weighting timed
        for r in speed_rates(timings).itertuples(index=False):
            if r.method in _paper.SPEEDS:
                rows.append(
                    _row(
                        "Figure 9",
                        SPEED,
                        float(_paper.SPEEDS[r.method].value),
                        float(r.pooled),
                        method=r.label,
                        difference=False,
                        read_off=_paper.read_off(_paper.SPEEDS, r.method),
                    )
                )
        timed = set(timings["method"])
        if {"wmd", SCM} <= timed:
            pooled = speed_ratios(timings, SCM, "wmd").set_index("dataset").loc["pooled"]
            rows.append(
                _row(
                    "Figure 9",
                    SPEED_RATIO,
                    _paper.SPEED_RATIO.value,
                    float(pooled["ratio"]),
                    method=f"{METHODS[SCM].label} / {METHODS['wmd'].label}",
                    difference=False,
                    lower=float(pooled["lower"]),
                    upper=float(pooled["upper"]),
                    note=f"the paper's value: {_paper.SPEED_RATIO.source}'s text; ours pooled over the data sets",
                )
            )
    if parameters is not None:
        ours = parameters[parameters["source"] == METHODS["soft_vsm_ortho"].label].set_index("dataset")
        table_2 = _paper.table_2()
        for dataset in ours.index:
            if dataset not in table_2.index:
                continue
            for column in table_2.columns:
                paper, value = table_2.loc[dataset, column], ours.loc[dataset, column]
                if isinstance(paper, (bool, np.bool_)):
                    paper, value = bool(paper), bool(value)
                elif column in ("nonzero_limit", "k"):
                    paper, value = int(paper), int(value)
                else:
                    paper, value = float(paper), float(value)
                rows.append(
                    _row(
                        "Table 2",
                        f"selected {PARAMETER_SYMBOLS.get(column, column)}",
                        paper,
                        value,
                        dataset=dataset,
                        method="Soft VSM (ortho.)",
                        exact=True,
                        corpus=True,
                    )
                )
    if paired is not None and len(paired):
        for r in decided_counts(paired).to_dict("records"):
            ahead = _paper_ahead(r["method"], paired)
            scm_better, wmd_better, tied = ahead if ahead is not None else (np.nan, np.nan, np.nan)
            for quantity, paper, ours in (
                ("better", scm_better, r["SCM better"]),
                ("worse", wmd_better, r["WMD better"]),
                ("not decided", tied, r["not decided"]),
            ):
                label = (
                    f"data sets where the regularized SCM is significantly {quantity} than the {r['label']}"
                    if quantity != "not decided"
                    else f"data sets where SCM vs {r['label']} is not decided"
                )
                rows.append(
                    _row(
                        "SCM vs WMD",
                        f"{label} (of {r['data sets']})",
                        paper,
                        int(ours),
                        method=f"Soft VSM (quan., ortho.) vs {r['label']}",
                        corpus=True,
                        note=DECIDED,
                    )
                )
    return pd.DataFrame(rows, columns=_COLUMNS)


def results_scorecard(
    results,
    *,
    table_1: pd.DataFrame | None = None,
    cosines: Mapping[str, Mapping[str, float]] | None = None,
    good_bad: Mapping[str, float] | None = None,
    timings: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The scorecard (:func:`scorecard`) of chapter 4's ``results``, with chapters 1 and 2's numbers and chapter 4's
    speed timings where given.

    Parameters
    ----------
    results : mapping of (str, str) to MethodResult
        Chapter 4's results.
    table_1, cosines, good_bad, timings
        As :func:`scorecard` takes them (chapters 1, 2 and 4).

    Returns
    -------
    pandas.DataFrame
        The scorecard: Figure 8's test errors, Figure 10's relative errors, Figure 9's speeds, Table 2's
        parameters and the paired SCM-against-WMD counts that ``results`` allow, and the rows of the given inputs.

    Examples
    --------
    >>> results_scorecard({}).empty
    True
    """
    errors = error_table(results)
    relative = relative_error_table(errors) if len(errors) and "bow" in set(errors["method"]) else None
    return scorecard(
        table_1=table_1,
        cosines=cosines,
        good_bad=good_bad,
        errors=errors if len(errors) else None,
        relative=relative,
        timings=timings,
        parameters=optimal_parameters(results) if results else None,
        paired=paired_wmd_table(results),
    )


def headline(card: pd.DataFrame) -> dict[str, float]:
    """The scorecard in a few numbers: the 39 % claim, the test errors that agree with the paper's within both studies'
    sampling error (:func:`agrees`).

    Parameters
    ----------
    card : pandas.DataFrame
        :func:`scorecard`.

    Returns
    -------
    dict
        ``reduction`` and ``paper_reduction`` (NaN where the card has no such row), ``errors_within`` and
        ``errors_compared``.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong, seconds):  # errs on the first ``wrong`` of 10 test documents, 100 pairs in ``seconds``
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1}, pd.DataFrame(), truth, {1: predicted},
    ...                         [Run("test", pairs=100, seconds=seconds)])
    >>> results = {("bbcsport", m): result(m, wrong, seconds) for m, wrong, seconds in
    ...            [("bow", 4, 0.5), ("soft_vsm", 2, 0.5), ("soft_vsm_quantized_ortho", 1, 0.001), ("wmd", 3, 50.0)]}
    >>> from regemb_utils.chapters.scm_vs_wmd import error_table
    >>> found = headline(scorecard(errors=error_table(results)))
    >>> found["errors_within"], found["errors_compared"], found["reduction"]
    (3, 4, nan)
    """

    def value(quantity, column="ours"):
        rows = card[card["quantity"] == quantity]
        return float(rows[column].iloc[0]) if len(rows) else np.nan

    errors = card[card["section"] == "Figure 8"]
    within = errors["agrees"].dropna()
    return {
        "reduction": value(REDUCTION),
        "paper_reduction": value(REDUCTION, "paper"),
        "errors_within": int(within.sum()),
        "errors_compared": int(len(within)),
    }


def _paper_ahead(method: str, paired: pd.DataFrame) -> tuple[int, int, int] | None:
    """On how many of the paired data sets the paper's Figure 8 puts the regularized SCM ahead of ``method``, on how
    many behind, and on how many neither: the two errors as shown (a bar label to two significant digits) may stand
    for the same value; None where the paper has no error of ``method`` itself on one of them.

    Examples
    --------
    >>> paired = pd.DataFrame({"method": ["wmd"] * 2, "dataset": ["bbcsport", "twitter"]})
    >>> _paper_ahead("wmd", paired)  # BBCSPORT 2.27 % vs 9.1 %; TWITTER 31.01 % vs a label of 31 (30.5 to 31.5)
    (1, 0, 1)
    """
    datasets = list(paired.loc[paired["method"] == method, "dataset"])
    try:
        errors = [paper_errors(d, method) for d in datasets]
    except ValueError:
        return None
    if not errors or any(used != method for _, _, used in errors):
        return None
    ahead = behind = 0
    for d in datasets:
        scm, other = _paper.TEST_ERRORS[SCM, d], _paper.TEST_ERRORS[method, d]
        margin = _half_unit(scm.value) + _half_unit(other.value)
        ahead += int(scm.value + margin < other.value)
        behind += int(other.value + margin < scm.value)
    return ahead, behind, len(datasets) - ahead - behind


SECTION_DECIMALS = {"Chapter 2": 4}  # cosines need four decimals; every other section's numbers two
# a quantity whose precision is not its section's: a single cosine with the book's precision for a cosine (chapter 2's
# tables, :data:`regemb_utils.book.tables.PRECISION`); the mean and sd of random pairs keep the notebook's four decimals
QUANTITY_DECIMALS = {"cos(good, bad) (§6.1)": int(PRECISION["cosine"].strip(".f"))}


def shown_numbers(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` of :func:`scorecard` with ours, the difference and the bounds as text, each with the decimals of its
    section (:data:`SECTION_DECIMALS`, else 2; a quantity of :data:`QUANTITY_DECIMALS` with its own), so that a number reads the same in every table of the book; whole
    numbers and numbers from 1,000 up without decimals, yes/no for booleans.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`scorecard` (with ``section``).

    Returns
    -------
    pandas.DataFrame
        ``rows`` with those columns as text.

    Examples
    --------
    >>> rows = pd.DataFrame({"section": ["Figure 9", "Chapter 2"], "ours": [144.1528, 0.09701], "lower": [None, None]})
    >>> shown_numbers(rows)["ours"].tolist()
    ['144.15', '0.0970']
    >>> shown_numbers(rows.assign(quantity=["pairs / s", "cos(good, bad) (§6.1)"]))["ours"].tolist()
    ['144.15', '0.097']

    The difference is that of the values shown: AMAZON's BoW errs on 891 of 2,400 queries (37.125 %, shown 37.12)
    against the paper's 29.29: 7.83, where the unrounded difference would show as 7.84.

    >>> amazon = 100 * 891 / 2400
    >>> errors = pd.DataFrame({"section": ["Figure 8"], "ours": [amazon], "difference": [amazon - 29.29]})
    >>> shown_numbers(errors)[["ours", "difference"]].values.tolist()
    [['37.12', '7.83']]
    """

    def text(value, decimals):
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if not isinstance(value, (int, float, np.number)) or not np.isfinite(value):
            return None
        if isinstance(value, (int, np.integer)) or float(value).is_integer() or abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:,.{decimals}f}"

    quantities = rows["quantity"] if "quantity" in rows else [None] * len(rows)
    places = [
        QUANTITY_DECIMALS.get(quantity, SECTION_DECIMALS.get(section, 2))
        for section, quantity in zip(rows["section"], quantities)
    ]
    if {"ours", "difference"} <= set(rows.columns):  # the difference of the values as shown, not of unrounded ones
        rows = rows.assign(
            difference=[_shown_difference(o, d, p) for o, d, p in zip(rows["ours"], rows["difference"], places)]
        )
    return rows.assign(
        **{
            column: [text(v, d) for v, d in zip(rows[column], places)]
            for column in ("ours", "difference", "lower", "upper")
            if column in rows
        }
    )


def _shown_difference(ours, difference, decimals: int):
    """ours − paper from the values as the scorecard shows them: ours rounded to ``decimals`` (whole from 1,000 up, as
    :func:`shown_numbers` shows it), the paper's value as given (its digits are at most ``decimals``)."""
    if not isinstance(ours, (int, float, np.number)) or isinstance(ours, (bool, np.bool_)):
        return difference
    if not isinstance(difference, (int, float, np.number)) or not np.isfinite(difference):
        return difference
    paper = round(float(ours) - float(difference), decimals)  # the paper's value as given (ours − difference)
    shown = round(float(ours)) if abs(float(ours)) >= 1000 else round(float(ours), decimals)
    return round(shown - paper, decimals)


def footnoted(rows: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """``rows`` of :func:`scorecard` with the ``data`` column replaced by footnote marks (``"a"``, ``"b, c"``; empty
    where our data are the paper's), and the notes they stand for (mark -> text), in order of first use.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`scorecard` (with ``data``: "same", or notes separated by "; ").

    Returns
    -------
    (pandas.DataFrame, dict)
        The rows with ``notes`` instead of ``data``, and mark → note.

    Examples
    --------
    >>> rows, notes = footnoted(pd.DataFrame({"quantity": ["x", "y", "z"], "data": ["same", "corpus; split", "split"]}))
    >>> rows["notes"].tolist(), notes
    (['', 'a, b', 'b'], {'a': 'corpus', 'b': 'split'})
    """
    notes: dict[str, str] = {}
    marks = []
    for text in rows["data"]:
        found = []
        for note in [] if text == "same" else text.split("; "):
            if note not in notes.values():
                notes[chr(ord("a") + len(notes))] = note
            found.append(next(mark for mark, value in notes.items() if value == note))
        marks.append(", ".join(found))
    return rows.drop(columns="data").assign(notes=marks), notes


def section_table(card: pd.DataFrame, section: str, **options):
    """One section of the scorecard as a book table: columns without a value dropped, notes as letters, the paper's
    values as the paper gives them (:func:`regemb_utils.book.tables.paper_as_given`), ours with the section's decimals (:func:`shown_numbers`).

    Parameters
    ----------
    card : pandas.DataFrame
        :func:`scorecard`.
    section : str
        The value of its ``section`` column to show (e.g. ``"Figure 8"``).
    **options
        Passed to :func:`regemb_utils.book.tables.table` (``download``, ``collapsed``).

    Returns
    -------
    regemb_utils.book.tables.Table or IPython.display.Markdown
        The table; a note where the section has no numbers (a run of chapter 4 without the methods behind it).

    Examples
    --------
    >>> card = pd.DataFrame({"section": ["Table 1"], "what": ["documents"], "paper": [737.0], "ours": [737.0],
    ...                      "data": ["our split"]})
    >>> "(a) our split" in section_table(card, "Table 1").html
    True
    """
    rows = card[card["section"] == section].dropna(axis=1, how="all")
    if not len(rows):
        from IPython.display import Markdown

        return Markdown(f"*This run has no numbers for {section}: chapter 4 did not run the methods behind them.*")
    rows, notes = footnoted(shown_numbers(rows).drop(columns="section"))
    rows = paper_as_given(rows).drop(columns="paper within our interval", errors="ignore")
    rows = rows.rename(columns={"agrees": "agrees (both samples)", "exact match": "exact"})
    caption = "; ".join(f"({mark}) {text}" for mark, text in notes.items()) if notes else None
    return table(rows, caption=caption, **options)


def all_numbers_table(card: pd.DataFrame, **options):
    """Every number of the scorecard as one book table narrow enough for a desktop's text column: the section, the
    quantity and the row's notes (letters, :func:`footnoted`) in one column, ours with its 95 % interval in one, the
    difference of the shown values (:func:`shown_numbers`), the paper's values as given
    (:func:`regemb_utils.book.tables.paper_as_given`) and whether the two agree (test errors: within both studies'
    sampling error; sizes, classes and parameters: equal). The CSV download holds ``card`` as computed.

    Parameters
    ----------
    card : pandas.DataFrame
        :func:`scorecard`.
    **options
        Passed to :func:`regemb_utils.book.tables.table` (``download``, ``collapsed``).

    Returns
    -------
    regemb_utils.book.tables.Table
        The table.

    Examples
    --------
    >>> card = pd.DataFrame({"section": ["Figure 8", "Table 1"], "quantity": ["test error (%)", "classes"],
    ...     "dataset": ["amazon", "amazon"], "method": ["BoW", None], "paper": [29.29, 4.0], "ours": [37.1249, 4.0],
    ...     "difference": [7.8349, 0.0], "lower": [35.21, np.nan], "upper": [39.08, np.nan], "agrees": [False, None],
    ...     "exact match": [None, True], "paper within our interval": [False, None], "data": ["same", "split"],
    ...     "paper read off a figure": [False, False], "paper decimals": [None, None]})
    >>> shown = all_numbers_table(card)
    >>> [c in shown.html for c in (">Figure 8: test error (%)<", ">Table 1: classes; notes a<", ">37.12 [35.21, 39.08]<",
    ...                            ">7.83<", ">agrees<", "(a) split")]
    [True, True, True, True, True, True]
    """
    marked, notes = footnoted(shown_numbers(card))
    ours = [o if a is None else f"{o} [{a}, {b}]" for o, a, b in zip(marked["ours"], marked["lower"], marked["upper"])]
    agreed = marked["agrees"].where(marked["agrees"].notna(), marked["exact match"])
    quantity = [
        f"{section}: {what}" + (f"; notes {marks}" if marks else "")
        for section, what, marks in zip(marked["section"], marked["quantity"], marked["notes"])
    ]
    shown = paper_as_given(marked).assign(quantity=quantity, ours=ours, agrees=agreed)
    shown = shown[["quantity", "dataset", "method", "paper", "ours", "difference", "agrees"]].rename(
        columns={"ours": "ours [95 % interval]", "difference": "ours − paper"}
    )
    caption = (
        "paper: ≈ marks a value read off a figure; agrees: within both studies' sampling error at 95 % (test errors) "
        "or equal (sizes, classes, parameters)" + "".join(f"; ({mark}) {text}" for mark, text in notes.items())
    )
    return table(shown, caption=caption, csv_frame=card, **options)


def value_span(values) -> str:
    """The range of some counts as prose: "—" for none, "200" for one value, "200 to 1,000" for several.

    Parameters
    ----------
    values : sequence of int
        The counts.

    Returns
    -------
    str
        Their span.

    Examples
    --------
    >>> value_span([]), value_span([200, 200]), value_span([1000, 200])
    ('—', '200', '200 to 1,000')
    """
    return (
        "—"
        if not len(values)
        else (f"{min(values):,}" if min(values) == max(values) else f"{min(values):,} to {max(values):,}")
    )


def wmd_coverage(paired: pd.DataFrame) -> str:
    """Which test queries the WMD methods of :func:`~regemb_utils.chapters.scm_vs_wmd.paired_wmd_table` answered, as the end
    of a sentence that begins "The WMD methods answered": every test query, or a sample with its sizes per data set.

    Parameters
    ----------
    paired : pandas.DataFrame
        The paired table.

    Returns
    -------
    str
        The prose.

    Examples
    --------
    >>> full = pd.DataFrame({"WMD queries": [220, 7528], "test documents": [220, 7528]})
    >>> print(wmd_coverage(full))
    every test query, as every other method did
    >>> print(wmd_coverage(full.assign(**{"WMD queries": [200, 385]})))
    a sample of the test queries (200 to 385 per data set; chapter 4 gives each sample's size), so their intervals are wider
    >>> print(wmd_coverage(full.iloc[:0]))
    no test query: this run left them out
    """
    if not len(paired):
        return "no test query: this run left them out"
    if (paired["WMD queries"] == paired["test documents"]).all():
        return "every test query, as every other method did"
    return (
        f"a sample of the test queries ({value_span(paired['WMD queries'])} per data set; chapter 4 gives each "
        "sample's size), so their intervals are wider"
    )
