"""Chapter 7, "Where it stands today": the supervised baselines a practitioner would run first, beside chapter 4's
kNN classifiers, on the same splits.

* :func:`run_linear_models` – every linear model (:data:`regemb_utils.classification.linear.LINEAR_MODELS`) on every
  data set, with chapter 4's documents and, for E′ᵀx, S′ at the grid point of chapter 4's orthogonalized 32-bit SCM
  (:func:`sparse_point`).
* :func:`comparison_table` – every model's test error with its Agresti–Coull interval beside chapter 4's kNN
  methods, their one-core costs, Sato et al.'s (2022) errors on Kusner et al.'s documents, and the paired exact
  McNemar test of each against the orthogonalized SCM kNN (BH over the table); :func:`verdicts` – per data set, whether
  the orthogonalized SCM kNN is the best choice or another model wins, decided or open; :func:`verdict_counts` and
  :func:`verdict_sentence`.
* :func:`error_grid`, :func:`kernel_comparison` – the test errors as a model × data set grid with Sato et al.'s
  values, and whether the linear model on E′ᵀx errs less than both the kNN with the same measure and TF-IDF (tested
  against the kNN only).
* :func:`displayed` – a table of this module with the data sets named as the book names them (upper case).
* :data:`FASTTEXT_LEFT_OUT` – why fastText is not among the models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import paper
from ..book.tables import shown as number  # a quantity with the book's one precision for it
from ..book.tables import table as book_table
from ..classification.linear import LINEAR_MODELS, fit_linear
from ..classification.methods import METHODS
from ..classification.statistics import agresti_coull, benjamini_hochberg, mcnemar_exact
from ..infra.keys import fingerprint
from ..termsim.orthogonalization import SPARSE_KEYS
from ..text.datasets import DATASETS

__all__ = [
    "ORTHOGONALIZED",
    "FASTTEXT_LEFT_OUT",
    "sparse_point",
    "run_linear_models",
    "comparison_table",
    "error_grid",
    "error_grid_table",
    "kernel_comparison",
    "verdicts",
    "verdict_counts",
    "verdict_sentence",
    "displayed",
]

ORTHOGONALIZED = "soft_vsm_ortho"  # chapter 4's orthogonalized SCM kNN (32-bit), against which every model is tested

# Tried on this machine (Python 3.11, GCC 12.2) for this chapter; the chapter quotes it.
FASTTEXT_LEFT_OUT = (
    "fastText's supervised classifier is left out: the fasttext package (0.9.3, the latest on PyPI) "
    "has no wheel for this Python, and the module that its source distribution builds here stops "
    'every supervised training with "Encountered NaN", even on 1,000 documents of two classes at a '
    "learning rate of 0.01, so the locked environment cannot run it"
)


def sparse_point(result) -> dict[str, Any]:
    """The grid point of S′ (with the dtb slope) at which chapter 4 chose the orthogonalized 32-bit SCM, or, when that point is
    not symmetric and dominant (S′ then need not have a Cholesky factor), the best such point of chapter 4's
    validation table (the first row of lowest error).

    Parameters
    ----------
    result : MethodResult
        Chapter 4's result of the orthogonalized 32-bit SCM on one data set.

    Returns
    -------
    dict
        :data:`regemb_utils.termsim.orthogonalization.SPARSE_KEYS` and ``slope`` → value.

    Raises
    ------
    ValueError
        When chapter 4 evaluated no symmetric, dominant point.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> table = pd.DataFrame({"symmetric": [False, True, True], "dominant": [True, True, True], "idf": True,
    ...                       "nonzero_limit": [10, 10, 40], "threshold": 0.0, "exponent": 1.0, "slope": 0.0,
    ...                       "k": 1, "error": [0.1, 0.3, 0.2]})
    >>> sparse_point(SimpleNamespace(params=table.iloc[0].to_dict(), validation=table, dataset="x"))["nonzero_limit"]
    40
    """
    chosen = result.params
    if not (chosen["symmetric"] and chosen["dominant"]):
        table = result.validation
        eligible = table[table["symmetric"].astype(bool) & table["dominant"].astype(bool)]
        if eligible.empty:
            raise ValueError(f"chapter 4 evaluated no symmetric, dominant S' on {result.dataset}: E' needs one")
        chosen = eligible.iloc[int(np.argmin(eligible["error"].to_numpy()))].to_dict()
    return {
        key: chosen[key].item() if hasattr(chosen[key], "item") else chosen[key]
        for key in (*SPARSE_KEYS, "slope")
        if key in chosen
    }


def run_linear_models(chapter, methods: Sequence[str], regularization: Sequence[float]) -> dict:
    """Every model of ``methods`` on every data set of ``chapter.params.datasets``, on chapter 4's documents: chapter
    1's dictionary, tokenization and splits cut as chapter 4 cut them, chapter 4's reference set and, for E′ᵀx, S′ at
    its orthogonalized 32-bit SCM's grid point (:func:`sparse_point`). Each result comes from the artifact cache when its
    inputs (by content) and settings are there.

    Parameters
    ----------
    chapter : regemb_utils.study.pipeline.Chapter
        Chapter 7's run.
    methods : sequence of str
        Keys of :data:`regemb_utils.classification.linear.LINEAR_MODELS`.
    regularization : sequence of float
        The values of the linear models' penalty parameter (scikit-learn's ``C``; the smaller, the more the weights
        are penalized) tried on the validation split. The name is the chapter parameter's; it has nothing to do
        with the embedding regularization or the nonzero limit C of the other chapters.

    Returns
    -------
    dict
        ``(data set, method)`` → :class:`regemb_utils.classification.linear.LinearResult`.
    """
    fourth = chapter.record("04_scm_vs_wmd")
    reference = fourth.parameter("reference")
    dictionary, documents = chapter.documents(chapter.params.datasets, fourth.parameter("max_documents"))
    needs_s = any(LINEAR_MODELS[m].features == "orthogonalized" for m in methods)
    matrices = knn = None
    if needs_s:
        models = chapter.embeddings(models=(METHODS[ORTHOGONALIZED].model,))
        matrices = chapter.method_inputs(ORTHOGONALIZED, fourth.parameters, dictionary, documents, models)[1]
        knn = chapter.results()
    results = {}
    for name, d in documents.items():
        point = sparse_point(knn[name, ORTHOGONALIZED]) if needs_s else None
        S = None
        for method in methods:
            key = {
                "method": method,
                "documents": fingerprint(d),
                "reference": reference,
                "regularization": [float(c) for c in regularization],
            }
            inputs: dict[str, Any] = {}
            if LINEAR_MODELS[method].features == "orthogonalized":
                key.update(matrices=matrices.identity, point=point)
                S = matrices.build(point) if S is None and not chapter.cache.has("linear-model", key) else S
                inputs = {"S": S, "point": point}
            results[name, method] = chapter.cache.get(
                "linear-model",
                key,
                lambda m=method, d=d, inputs=inputs: fit_linear(m, d, reference, tuple(regularization), **inputs),
            )
    return results


def _knn_costs(result) -> tuple[float, float]:
    """Chapter 4's one-core seconds of a kNN method: model selection (every validation run) and the test run."""
    return float(sum(r.seconds for r in result.runs[:-1])), float(result.runs[-1].seconds)


def comparison_table(linear: Mapping, knn: Mapping, confidence: float = 0.95, alpha: float = 0.05) -> pd.DataFrame:
    """Every model (the linear ones and chapter 4's kNN methods) on every data set: test error (%) with its
    Agresti–Coull interval, one-core seconds of preparing the features (linear models only: TF-IDF, or E′ and
    E′ᵀx), of fitting and of predicting, Sato et al.'s (2022) error where they report the same
    method, and the paired exact McNemar test against the orthogonalized SCM kNN on the test queries both answered, with
    BH q-values over every test of the table.

    Parameters
    ----------
    linear : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.linear.LinearResult`.
    knn : mapping
        ``(data set, method)`` → chapter 4's ``MethodResult``.
    confidence : float
        The intervals' level.
    alpha : float
        The tests' level (on the q-values).

    Returns
    -------
    pandas.DataFrame
        One row per (data set, model): dataset, method, model, kind, test documents, errors, error, lower, upper,
        features s, fit s, predict s, Sato et al., p, q, significant.

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> from regemb_utils.classification.linear import LinearResult
    >>> truth = np.array([0, 1] * 10)
    >>> knn = {("bbcsport", m): MethodResult("bbcsport", m, {"k": 1}, pd.DataFrame(), truth,
    ...                                      {1: np.where(np.arange(20) < wrong, 1 - truth, truth)},
    ...                                      [Run("validation", 10, 0.2), Run("test", 10, 0.1)])
    ...        for m, wrong in (("soft_vsm_ortho", 3), ("tfidf_l1", 4))}
    >>> svm = LinearResult("bbcsport", "tfidf_svm", {"C": 1.0}, pd.DataFrame(), truth, truth.copy(), 0.5, 0.01)
    >>> table = comparison_table({("bbcsport", "tfidf_svm"): svm}, knn)
    >>> table[["method", "error", "Sato et al.", "p"]].values.tolist()
    [['tfidf_svm', 0.0, nan, 0.25], ['soft_vsm_ortho', 15.0, nan, nan], ['tfidf_l1', 20.0, 2.8, 1.0]]
    """
    rows = []
    for dataset in [d for d in DATASETS if any(key[0] == d for key in (*linear, *knn))]:
        anchor = knn.get((dataset, ORTHOGONALIZED))
        entries = [(m, False, linear[dataset, m]) for m in LINEAR_MODELS if (dataset, m) in linear]
        entries += [(m, True, knn[dataset, m]) for m in METHODS if (dataset, m) in knn]
        for method, is_knn, result in entries:
            answered = result.rows() if is_knn else np.arange(len(result.truth))
            predictions = result.predictions[result.k] if is_knn else result.predictions
            errors = int(np.sum(predictions != result.truth))
            _, lower, upper = agresti_coull(errors, len(result.truth), confidence)
            fit, predict = _knn_costs(result) if is_knn else (result.fit_seconds, result.predict_seconds)
            p = np.nan
            if anchor is not None and method != ORTHOGONALIZED:
                common = np.intersect1d(anchor.rows(), answered)
                at, bt = np.searchsorted(anchor.rows(), common), np.searchsorted(answered, common)
                p = mcnemar_exact(predictions[bt], anchor.predictions[anchor.k][at], anchor.truth[at]).pvalue
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "model": f"{METHODS[method].label} kNN" if is_knn else LINEAR_MODELS[method].label,
                    "kind": "kNN (chapter 4)" if is_knn else "linear",
                    "test documents": len(result.truth),
                    "errors": errors,
                    "error": 100 * errors / len(result.truth),
                    "lower": 100 * lower,
                    "upper": 100 * upper,
                    "features s": np.nan if is_knn else result.prepare_seconds,
                    "fit s": fit,
                    "predict s": predict,
                    "Sato et al.": paper.value(paper.SATO_2022_ERRORS, (method, dataset)),
                    "p": p,
                }
            )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    tested = table["p"].notna()
    table["q"] = np.nan
    table.loc[tested, "q"] = benjamini_hochberg(table.loc[tested, "p"].to_numpy())
    table["significant"] = table["q"] < alpha
    return table


SCM_BEST = "the orthogonalized SCM kNN is the best choice"


def verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """Per data set: the model with the lowest test error besides the orthogonalized SCM kNN (the first in the table's
    order on a tie), and whether that kNN is the best choice (its error at most the other's) or the other model wins,
    decided (paired test, q < α) or open.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`comparison_table`.

    Returns
    -------
    pandas.DataFrame
        One row per data set on which the orthogonalized SCM kNN ran: dataset, SCM kNN error, best other model, its
        error, its cost relative to the SCM kNN's (fit + predict seconds), q, verdict.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["twitter"] * 3, "method": ["soft_vsm_ortho", "tfidf_svm", "bow"],
    ...                       "model": ["SCM kNN", "TF-IDF + linear SVM", "BoW kNN"], "error": [30.0, 25.0, 35.0],
    ...                       "fit s": [2.0, 1.0, 1.0], "predict s": [1.0, 0.1, 1.0], "q": [np.nan, 0.01, 0.2],
    ...                       "significant": [False, True, False]})
    >>> verdicts(table)[["its cost / SCM's", "verdict"]].values.tolist()
    [[0.3666666666666667, 'TF-IDF + linear SVM wins (decided)']]
    """
    rows = []
    for dataset, group in table.groupby("dataset", sort=False):
        scm, others = group[group["method"] == ORTHOGONALIZED], group[group["method"] != ORTHOGONALIZED]
        if scm.empty or others.empty:
            continue
        scm, best = scm.iloc[0], others.iloc[int(np.argmin(others["error"].to_numpy()))]
        state = "decided" if bool(best["significant"]) else "open"
        winner = f"{best['model']} wins" if best["error"] < scm["error"] else SCM_BEST
        rows.append(
            {
                "dataset": dataset,
                "SCM kNN error": scm["error"],
                "best other model": best["model"],
                "its error": best["error"],
                "its cost / SCM's": (best["fit s"] + best["predict s"]) / (scm["fit s"] + scm["predict s"]),
                "q": best["q"],
                "verdict": f"{winner} ({state})",
            }
        )
    return pd.DataFrame(
        rows, columns=["dataset", "SCM kNN error", "best other model", "its error", "its cost / SCM's", "q", "verdict"]
    )


def verdict_counts(verdict_table: pd.DataFrame) -> dict[str, int]:
    """How many data sets have each kind of verdict (the chapter's closing sentence).

    Parameters
    ----------
    verdict_table : pandas.DataFrame
        :func:`verdicts`.

    Returns
    -------
    dict
        ``datasets``, ``scm_decided``, ``scm_open``, ``other_decided``, ``other_open``.

    Examples
    --------
    >>> verdict_counts(pd.DataFrame({"verdict": ["X wins (decided)", SCM_BEST + " (open)"]}))
    {'datasets': 2, 'scm_decided': 0, 'scm_open': 1, 'other_decided': 1, 'other_open': 0}
    """
    verdict = verdict_table["verdict"].astype(str)
    scm, decided = verdict.str.startswith(SCM_BEST), verdict.str.endswith("(decided)")
    return {
        "datasets": len(verdict),
        "scm_decided": int((scm & decided).sum()),
        "scm_open": int((scm & ~decided).sum()),
        "other_decided": int((~scm & decided).sum()),
        "other_open": int((~scm & ~decided).sum()),
    }


def verdict_sentence(counts: Mapping[str, int]) -> str:
    """The chapter's closing sentence from :func:`verdict_counts`: on how many data sets another model wins and on how
    many the orthogonalized SCM kNN is the best choice, and how many of each the paired test decides.

    Parameters
    ----------
    counts : mapping of str to int
        :func:`verdict_counts`.

    Returns
    -------
    str
        One sentence.

    Examples
    --------
    >>> verdict_sentence({"datasets": 6, "scm_decided": 0, "scm_open": 0, "other_decided": 6, "other_open": 0})
    'Another model wins on all 6 data sets, each decided.'
    >>> print(verdict_sentence({"datasets": 6, "scm_decided": 0, "scm_open": 1, "other_decided": 4, "other_open": 1}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Another model wins on 5 of the 6 data sets (4 decided, 1 open); the orthogonalized SCM kNN is the best choice
    on 1 (open).
    """
    total = counts["datasets"]
    if not total:
        return "No data set has both the orthogonalized SCM kNN and another model."

    def on(decided: int, undecided: int, first: bool) -> str:
        n = decided + undecided
        each = "" if n == 1 else "each "
        state = f"{each}decided" if not undecided else f"{each}open" if not decided else None
        mixed = f"{decided} decided, {undecided} open"
        if n == total:
            where = f"all {total} data sets" if total > 1 else "the one data set"
            return f"{where}, {state}" if state else f"{where} ({mixed})"
        return f"{f'{n} of the {total} data sets' if first else n} ({state or mixed})"

    parts = []
    other = counts["other_decided"] + counts["other_open"]
    if other:
        parts.append(f"another model wins on {on(counts['other_decided'], counts['other_open'], True)}")
    if counts["scm_decided"] + counts["scm_open"]:
        where = on(counts["scm_decided"], counts["scm_open"], not other)
        parts.append(f"the orthogonalized SCM kNN is the best choice on {where}")
    sentence = "; ".join(parts)
    return sentence[0].upper() + sentence[1:] + "."


def displayed(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of one of this module's tables for the page: its column ``dataset`` as ``data set``, the names in upper
    case as the book writes them (the frame itself keeps the lower-case keys that the functions group by).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`comparison_table`, :func:`verdicts` or :func:`kernel_comparison` (or a selection of its columns).

    Returns
    -------
    pandas.DataFrame
        The copy.

    Examples
    --------
    >>> displayed(pd.DataFrame({"dataset": ["bbcsport", "20news"], "error": [3.0, 30.0]})).values.tolist()
    [['BBCSPORT', 3.0], ['20NEWS', 30.0]]
    >>> list(displayed(pd.DataFrame({"dataset": ["bbcsport"]})).columns)
    ['data set']
    """
    shown = frame.copy()
    if "dataset" in shown.columns:
        shown["dataset"] = shown["dataset"].astype(str).str.upper()
    return shown.rename(columns={"dataset": "data set"})


def error_grid(table: pd.DataFrame) -> pd.DataFrame:
    """The test errors (%) as one row per model and one column per data set, then Sato et al.'s (2022) two kNN
    baselines on Kusner et al.'s documents (a data set whose documents differ from those marked ``*``, see
    :data:`regemb_utils.paper.DIFFERENT_DATA`).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`comparison_table`.

    Returns
    -------
    pandas.DataFrame
        Column ``model``, then one column per data set (upper case, ``*`` where our documents are not Kusner's).

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["reuters", "reuters"], "method": ["tfidf_svm", "tfidf_l1"],
    ...                       "model": ["TF-IDF + linear SVM", "TF-IDF L1 kNN"], "error": [3.0, 5.2]})
    >>> error_grid(table).values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['TF-IDF + linear SVM', 3.0], ['TF-IDF L1 kNN', 5.2], ['TF-IDF L1 kNN, Sato et al. (2022)', 5.5],
     ['WMD (TF-IDF) kNN, Sato et al. (2022)', 4.0]]
    """
    datasets = list(dict.fromkeys(table["dataset"]))
    grid = table.pivot_table(index="model", columns="dataset", values="error", sort=False)[datasets].reset_index()
    reference = pd.DataFrame(
        [
            {
                "model": f"{METHODS[m].label} kNN, Sato et al. (2022)",
                **{d: paper.value(paper.SATO_2022_ERRORS, (m, d)) for d in datasets},
            }
            for m in ("tfidf_l1", "wmd_tfidf")
        ]
    )
    grid = pd.concat([grid, reference], ignore_index=True)
    grid.columns.name = None
    return grid.rename(columns={d: d.upper() + ("*" if d in paper.DIFFERENT_DATA else "") for d in datasets})


def error_grid_table(table: pd.DataFrame, **options):
    """:func:`error_grid` as a book table: our test errors with the book's precision for a test error
    (:data:`regemb_utils.book.tables.PRECISION`), Sato et al.'s (2022) with the digits they print
    (:data:`regemb_utils.paper.SATO_2022_DECIMALS`: 5.5 and 4.0, not 5.50 and 4.00).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`comparison_table`.
    **options
        Passed to :func:`regemb_utils.book.tables.table` (``caption``, ...).

    Returns
    -------
    regemb_utils.book.tables.Table
        The table.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["reuters"], "method": ["tfidf_l1"], "model": ["TF-IDF L1 kNN"],
    ...                       "error": [5.2049]})
    >>> shown = error_grid_table(table).html
    >>> ">5.20<" in shown, ">5.5<" in shown, ">5.50<" in shown
    (True, True, False)
    """
    grid = error_grid(table)
    reference = grid["model"].str.endswith("Sato et al. (2022)")
    text = grid.copy()
    for column in grid.columns.drop("model"):
        text[column] = [
            None if pd.isna(v) else f"{v:.{paper.SATO_2022_DECIMALS}f}" if given else number("test error", v)
            for v, given in zip(grid[column], reference)
        ]
    return book_table(text, csv_frame=grid, **options)


def kernel_comparison(table: pd.DataFrame, model: str = "scm_svm") -> pd.DataFrame:
    """Per data set: whether the linear model on E′ᵀx (``model``) errs less than both the kNN with the same measure
    (the orthogonalized SCM kNN) and the same classifier on TF-IDF, with the paired test against the kNN. Only the
    comparison with the kNN is tested; against TF-IDF the column compares point estimates.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`comparison_table`.
    model : {"scm_svm", "scm_logistic"}
        The E′ᵀx model.

    Returns
    -------
    pandas.DataFrame
        dataset, E′ᵀx error, SCM kNN error, TF-IDF error, q (against the kNN), lower than both.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["twitter"] * 3, "method": ["scm_svm", "soft_vsm_ortho", "tfidf_svm"],
    ...                       "error": [20.0, 30.0, 25.0], "q": [0.01, np.nan, 0.5]})
    >>> kernel_comparison(table)["lower than both"].tolist()
    [True]
    """
    rival = model.replace("scm_", "tfidf_")
    rows = []
    for dataset, group in table.groupby("dataset", sort=False):
        by = group.set_index("method")
        if not {model, ORTHOGONALIZED, rival} <= set(by.index):
            continue
        own, knn_error, tfidf = by.loc[model, "error"], by.loc[ORTHOGONALIZED, "error"], by.loc[rival, "error"]
        rows.append(
            {
                "dataset": dataset,
                "E′ᵀx error": own,
                "SCM kNN error": knn_error,
                "TF-IDF error": tfidf,
                "q": by.loc[model, "q"],
                "lower than both": bool(own < knn_error and own < tfidf),
            }
        )
    return pd.DataFrame(
        rows, columns=["dataset", "E′ᵀx error", "SCM kNN error", "TF-IDF error", "q", "lower than both"]
    )
