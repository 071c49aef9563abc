"""The replication scorecard: every number the paper reports beside ours, from the chapters' artifacts.

The paper's numbers and their sources are :mod:`regemb_utils.paper`'s.

One row per number: what it is, the data set and method where it applies, the paper's value, ours, the difference
(ours − paper), our 95 % interval where we have one (the test errors: Agresti–Coull, as the paper) and whether it
contains the paper's value, whether the two values agree where an exact match is expected (sizes, class counts,
selected parameters), and whether our data differ from the paper's (OHSUMED and AMAZON documents, and the Wikipedia
corpus under every embedding).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import paper as _paper
from .methods import METHODS

__all__ = ["CORPUS_DIFFERS", "scorecard", "headline"]

CORPUS_DIFFERS = "corpus: a 2015 Wikipedia dump, not the paper's fil8"
_COLUMNS = ["section", "quantity", "dataset", "method", "paper", "ours", "difference", "lower", "upper",
            "paper within our interval", "exact match", "data"]


def _data(dataset: str | None, corpus: bool) -> str:
    notes = []
    if dataset in _paper.DIFFERENT_DATA:
        notes.append(f"{dataset}: {_paper.DIFFERENT_DATA[dataset]}")
    if corpus:
        notes.append(CORPUS_DIFFERS)
    return "; ".join(notes) if notes else "same"


def _row(section, quantity, paper, ours, *, dataset=None, method=None, lower=np.nan, upper=np.nan, exact=False,
         corpus=False):
    paper_number = isinstance(paper, (int, float, np.number)) and not isinstance(paper, bool)
    ours_number = isinstance(ours, (int, float, np.number)) and not isinstance(ours, bool)
    difference = float(ours) - float(paper) if paper_number and ours_number else np.nan
    within = bool(lower <= paper <= upper) if paper_number and np.isfinite(lower) and np.isfinite(upper) else None
    return {"section": section, "quantity": quantity, "dataset": dataset, "method": method, "paper": paper,
            "ours": ours, "difference": difference, "lower": lower, "upper": upper,
            "paper within our interval": within, "exact match": (paper == ours) if exact else None,
            "data": _data(dataset, corpus)}


def scorecard(*, table_1: pd.DataFrame | None = None, cosines: Mapping[str, Mapping[str, float]] | None = None,
              good_bad: Mapping[str, float] | None = None, errors: pd.DataFrame | None = None,
              relative: pd.DataFrame | None = None, speeds: pd.DataFrame | None = None,
              parameters: pd.DataFrame | None = None, paired: pd.DataFrame | None = None) -> pd.DataFrame:
    """The scorecard from the chapters' tables (each optional; a missing one gives no rows).

    ``table_1``: :func:`regemb_utils.preprocessing.dataset_statistics` (with the corpus-dictionary E[p]);
    ``cosines``: model -> {"mean", "sd"} of random word pairs (chapter 2); ``good_bad``: model -> cos(good, bad);
    ``errors``, ``relative``, ``speeds``, ``parameters``: chapter 4's :func:`error_table`,
    :func:`relative_error_table`, :func:`speed_table` and :func:`optimal_parameters`; ``paired``: chapter 4's
    :func:`regemb_utils.results.paired_wmd_table`, counted by :func:`regemb_utils.results.decided_counts` (the
    paper's count: the data sets on which its Figure 8 has the SCM ahead or behind; it called every one of these
    differences significant).
    """
    rows = []
    if table_1 is not None:
        for dataset in table_1.index:
            ours = table_1.loc[dataset, "ours"]
            for column, label in (("train", "training documents"), ("test", "test documents"),
                                  ("classes", "classes")):
                paper = int(_paper.value(_paper.TABLE_1, (dataset, column)))
                rows.append(_row("Table 1", label, paper, int(ours[column]), dataset=dataset, exact=True))
            expected = ours.get("E[p] in corpus dictionary", ours["E[p]"])
            rows.append(_row("Table 1", "E[p] (unique corpus words per document)",
                             float(_paper.value(_paper.TABLE_1, (dataset, "E[p]"))), float(expected), dataset=dataset,
                             corpus=True))
    for model, values in (cosines or {}).items():
        for statistic in ("mean", "sd"):
            rows.append(_row("Chapter 2", f"cosine of random word pairs, {statistic}",
                             _paper.value(_paper.COSINES, (model, statistic)), float(values[statistic]),
                             method=f"{model} embeddings", corpus=True))
    for model, value in (good_bad or {}).items():
        rows.append(_row("Chapter 2", "cos(good, bad)", _paper.value(_paper.GOOD_BAD, (model, "cosine")), float(value),
                         method=f"{model} embeddings", corpus=True))
    if errors is not None:
        for r in errors.itertuples(index=False):
            if np.isfinite(r.paper):
                rows.append(_row("Figure 8", "test error (%)", float(r.paper), float(r.error), dataset=r.dataset,
                                 method=r.label, lower=float(r.lower), upper=float(r.upper),
                                 corpus=METHODS[r.method].model is not None))
    if relative is not None:
        table = relative.set_index("method")
        for method, r in table.iterrows():
            if method != "bow" and np.isfinite(r["paper"]):
                rows.append(_row("Figure 10", "mean test error relative to BoW (%)", float(r["paper"]),
                                 float(r["relative error"]), method=r["label"], corpus=True))
        if {"soft_vsm", "soft_vsm_ortho"} <= set(table.index):  # §6.2: 48.86 / 80.66 of BoW's error
            ours = 100 * (1 - table.loc["soft_vsm_ortho", "relative error"] / table.loc["soft_vsm", "relative error"])
            # the abstract's "39 %", stated to two decimals in §6.2
            rows.append(_row("Abstract", "test error reduction, regularized vs non-regularized SCM (%)",
                             _paper.ERROR_REDUCTION.value, float(ours), method="Soft VSM (ortho.)", corpus=True))
    if speeds is not None:
        table = speeds.set_index("method")
        for method, r in table.iterrows():
            if np.isfinite(r["paper"]):
                rows.append(_row("Figure 9", "document pairs per second per core", float(r["paper"]),
                                 float(r["pairs per second per core"]), method=r["label"]))
        if {"wmd", "soft_vsm_quantized_ortho"} <= set(table.index):
            scm, wmd = table.loc["soft_vsm_quantized_ortho"], table.loc["wmd"]
            rows.append(_row("Figure 9", "speed of the regularized SCM / speed of the WMD", _paper.SPEED_RATIO.value,
                             float(scm["pairs per second per core"] / wmd["pairs per second per core"]),
                             method="Soft VSM (quan., ortho.) / WMD"))
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
                rows.append(_row("Table 2", f"selected {column}", paper, value, dataset=dataset,
                                 method="Soft VSM (ortho.)", exact=True, corpus=True))
    if paired is not None and len(paired):
        from .results import decided_counts
        from .wmd_samples import paper_errors

        for r in decided_counts(paired).to_dict("records"):
            datasets = paired.loc[paired["method"] == r["method"], "dataset"]
            try:
                errors = [paper_errors(d, r["method"]) for d in datasets]
            except ValueError:
                errors = []
            own = bool(errors) and all(used == r["method"] for _, _, used in errors)
            scm_better = sum(scm < wmd for scm, wmd, _ in errors) if own else np.nan
            wmd_better = sum(wmd < scm for scm, wmd, _ in errors) if own else np.nan
            for quantity, paper, ours in (("better", scm_better, r["SCM better"]), ("worse", wmd_better, r["WMD better"]),
                                          ("not decided", 0 if own else np.nan, r["not decided"])):
                label = (f"data sets where the regularized SCM is significantly {quantity} than the {r['label']}"
                         if quantity != "not decided" else f"data sets where SCM vs {r['label']} is not decided")
                rows.append(_row("SCM vs WMD", f"{label} (of {r['data sets']}; exact McNemar, BH q < 0.05)", paper,
                                 int(ours), method=f"Soft VSM (quan., ortho.) vs {r['label']}", corpus=True))
    return pd.DataFrame(rows, columns=_COLUMNS)


def headline(card: pd.DataFrame) -> dict[str, float]:
    """The scorecard in a few numbers: the 39 % claim, the test errors inside our intervals, the speed ratio."""
    def value(quantity, column="ours"):
        rows = card[card["quantity"] == quantity]
        return float(rows[column].iloc[0]) if len(rows) else np.nan

    errors = card[card["section"] == "Figure 8"]
    within = errors["paper within our interval"].dropna()
    return {"reduction": value("test error reduction, regularized vs non-regularized SCM (%)"),
            "paper_reduction": value("test error reduction, regularized vs non-regularized SCM (%)", "paper"),
            "errors_within": int(within.sum()), "errors_compared": int(len(within)),
            "speed_ratio": value("speed of the regularized SCM / speed of the WMD"),
            "paper_speed_ratio": value("speed of the regularized SCM / speed of the WMD", "paper")}
