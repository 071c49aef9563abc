"""Every claim of the paper, judged: one :class:`regemb_utils.study.claims.Claim` each (the paper's words, section
and what it gives, the rule), and one small function that turns the chapters' evidence into findings, per data set,
model or parameter and, where the claim rests on the 32-bit model, per training seed (chapter 2 trains it with
several; chapter 4 reruns the :data:`regemb_utils.study.params.SEEDED_METHODS` with each).

:func:`judge` runs them all on one :class:`Evidence`; the landing page and chapter 6 render its judgements, so a verdict
is never typed into prose. Every rule is stated in the claim's ``rule`` and tested on constructed evidence
(tests/chapters/test_claims.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import binomtest, fisher_exact

from ..book.prose import PARAMETER_SYMBOLS
from .. import paper as _paper
from ..classification.knn_runs import MethodResult
from ..classification.methods import METHODS
from ..book.tables import Table, table
from ..book.tables import shown as number  # a quantity with the book's one precision for it
from ..classification.speed import speed_ratios
from ..classification.statistics import mcnemar_exact, wilson_interval
from ..study.claims import FAILS, HOLDS, OPEN, Claim, Finding, Judgement, interval_result
from ..study.params import BOOK_SEED, SEEDED_METHODS
from ..text.datasets import DATASETS
from .confusion_tsne import usenet_hierarchy
from .training import gap_account
from .scm_vs_wmd import (
    error_reduction,
    error_table,
    optimal_parameters,
    paired_predictions,
    paired_wmd_table,
    significance_table,
)

__all__ = ["Evidence", "CLAIMS", "judge", "judgement_table", "verdict_tables"]

Results = Mapping[tuple[str, str], MethodResult]
PAPER_SEVEN = tuple(METHODS)[:7]  # the paper's configurations (Figure 8's order): the family of its §6.1 tests


@dataclass
class Evidence:
    """What the chapters recorded, for the claims to read.

    Parameters
    ----------
    results : mapping
        Chapter 4's results, ``(data set, method)`` → MethodResult (the book's seed).
    seed_results : mapping of int to mapping, optional
        Per other training seed, chapter 4's :data:`SEEDED_METHODS` run on that seed's models.
    cosines : mapping, optional
        Chapter 2: per model, the mean, sd and number ``n`` of random word pairs' cosines.
    theorem_1 : mapping, optional
        Chapter 3's check of Theorem 1 per model.
    datasets : sequence of str, optional
        Judge on these data sets only (the tests are still corrected over every data set).
    class_names : mapping, optional
        Chapter 1's ``class_names``: per data set the class names that the labels of ``results`` index.
    majority : mapping, optional
        Chapter 1's ``majority``: per data set the training split's largest class (``largest class``, a name) and the
        ``test error`` of always answering it (:func:`regemb_utils.chapters.preprocessing.majority_class_error`).
    good_bad : mapping, optional
        Chapter 2's ``good_bad``: per model cos(good, bad).
    good_bad_ranks : mapping, optional
        Chapter 2's ``good_bad_ranks``: per model the rank of *bad* among *good*'s neighbours and of *good* among
        *bad*'s (1: the nearest).
    analogies : mapping, optional
        Chapter 2's ``analogies``: per model the analogy ``accuracy`` (a fraction) and the ``questions`` asked.
    idf_orthogonality : mapping, optional
        Chapter 3's ``idf_orthogonality``: per model
        :func:`regemb_utils.chapters.orthogonalization.idf_orthogonality`'s counts.
    column_bound : mapping, optional
        Chapter 3's ``column_bound``: per model :func:`regemb_utils.chapters.orthogonalization.column_bound`.
    trainer_check : mapping, optional
        Chapter 2's ``trainer_check``: the side-by-side with the original Word2Bits tool (``epochs``, ``articles``,
        ``unavailable``, ``table``).
    speed : pandas.DataFrame, optional
        Chapter 4's ``speed_timings`` (:func:`regemb_utils.classification.speed.measure_speed`'s rows).

    Examples
    --------
    >>> Evidence({("twitter", "bow"): None, ("bbcsport", "bow"): None}, datasets=["twitter"]).chosen()
    ['twitter']
    """

    results: Results
    seed_results: Mapping[int, Results] = field(default_factory=dict)
    cosines: Mapping[str, Mapping[str, float]] | None = None
    theorem_1: Mapping[str, Mapping[str, float]] | None = None
    datasets: Sequence[str] | None = None
    class_names: Mapping[str, Sequence[str]] | None = None
    majority: Mapping[str, Mapping] | None = None
    good_bad: Mapping[str, float] | None = None
    good_bad_ranks: Mapping[str, Sequence[int]] | None = None
    analogies: Mapping[str, Mapping[str, float]] | None = None
    idf_orthogonality: Mapping[str, Mapping[str, int]] | None = None
    column_bound: Mapping[str, Mapping[str, int]] | None = None
    trainer_check: Mapping | None = None
    speed: pd.DataFrame | None = None

    def chosen(self) -> list[str]:
        """The data sets judged, in the book's order."""
        ran = {d for d, _ in self.results}
        return [d for d in DATASETS if d in ran and (self.datasets is None or d in self.datasets)]

    @classmethod
    def recorded(cls, chapter) -> Evidence:
        """The evidence that chapters 1–4 recorded in ``chapter``'s lineage (a value an older record lacks: None).

        Parameters
        ----------
        chapter : regemb_utils.study.pipeline.Chapter
            The chapter that judges (chapter 6).

        Returns
        -------
        Evidence
            On every data set chapter 4 ran.
        """
        first, second, third, fourth = (
            chapter.record(name).values
            for name in ("01_preprocessing", "02_training", "03_orthogonalization", "04_scm_vs_wmd")
        )
        return cls(
            chapter.results(),
            fourth.get("seed_results", {}),
            cosines=second.get("cosines"),
            theorem_1=third.get("theorem_1"),
            class_names=first.get("class_names"),
            majority=first.get("majority"),
            good_bad=second.get("good_bad"),
            good_bad_ranks=second.get("good_bad_ranks"),
            analogies=second.get("analogies"),
            idf_orthogonality=third.get("idf_orthogonality"),
            column_bound=third.get("column_bound"),
            trainer_check=second.get("trainer_check"),
            speed=fourth.get("speed_timings"),
        )

    def by_seed(self) -> dict[int | None, Results]:
        """Chapter 4's results per training seed, the other seeds' runs in place of the book seed's (None: one seed)."""
        if not self.seed_results:
            return {None: self.results}
        return {
            seed: {**self.results, **{k: v for k, v in chosen.items() if k in self.results}}
            for seed, chosen in {BOOK_SEED: {}, **self.seed_results}.items()
        }


# --------------------------------------------------------------------------------------------------------------------
# shared rules


def _label(dataset: str) -> str:
    return dataset.upper()


def _mcnemar(results: Results) -> pd.DataFrame:
    """§6.1's family: every pair of the paper's seven configurations on every data set, exact McNemar, BH over all."""
    return significance_table({k: r for k, r in results.items() if k[1] in PAPER_SEVEN}, test="mcnemar")


def paired_findings(table: pd.DataFrame, better: str, worse: str, datasets: Sequence[str]) -> list[Finding]:
    """Per data set, whether ``better`` errs less than ``worse``: :data:`HOLDS` when the paired test
    (``table``: :func:`regemb_utils.chapters.scm_vs_wmd.significance_table`) decides that it does, :data:`FAILS`
    when it decides the opposite, :data:`OPEN` when it decides nothing; no finding where the pair did not run.

    Parameters
    ----------
    table : pandas.DataFrame
        A significance table (columns dataset, a, b, error a, error b, q, significant).
    better, worse : str
        The method the claim says errs less, and the other.
    datasets : sequence of str
        The data sets judged.

    Returns
    -------
    list of Finding
        One per data set on which the pair ran.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": ["bbcsport", "twitter"], "a": ["BoW", "Soft VSM"], "b": ["Soft VSM", "BoW"],
    ...                       "error a": [9.0, 30.0], "error b": [4.0, 31.0], "q": [0.001, 0.4],
    ...                       "significant": [True, False]})
    >>> [(f.unit, f.result) for f in paired_findings(table, "soft_vsm", "bow", ["bbcsport", "twitter", "amazon"])]
    [('BBCSPORT', 'holds'), ('TWITTER', 'open')]
    """
    a, b = METHODS[better].label, METHODS[worse].label
    found = []
    for dataset in datasets:
        rows = (
            table[(table["dataset"] == dataset) & (table["a"].isin([a, b])) & (table["b"].isin([a, b]))]
            if len(table)
            else table
        )
        if not len(rows):  # the pair did not run there: no evidence
            continue
        row = rows.iloc[0]
        e_better, e_worse = (row["error a"], row["error b"]) if row["a"] == a else (row["error b"], row["error a"])
        result = OPEN if not row["significant"] else HOLDS if e_better < e_worse else FAILS
        found.append(
            Finding(
                result,
                f"{number('test error', e_better)} vs {number('test error', e_worse)} % "
                f"(q = {number('p-value', row['q'])})",
                _label(dataset),
            )
        )
    return found


def agreement_result(ours: float, lower: float, upper: float, paper: float, share: float = 1.0) -> str:
    """Whether our estimate agrees with the paper's, allowing for both sides' sampling error: our interval widened by
    √(1 + ``share``) about our estimate, :data:`HOLDS` when it contains the paper's number, else :data:`FAILS`.
    ``share`` is our test documents over the paper's: the paper's estimate varies as ours would from its own number
    of documents (its variance ``share`` times ours), and the difference of two independent estimates by the sum of
    both variances (√2 for as many documents on both sides).

    Parameters
    ----------
    ours, lower, upper : float
        Our estimate and its interval.
    paper : float
        The paper's number.
    share : float
        Our test documents over the paper's.

    Returns
    -------
    str
        :data:`HOLDS` or :data:`FAILS`.

    Examples
    --------
    >>> agreement_result(37.3, 33.0, 41.0, 39.43), agreement_result(35.5, 32.5, 38.5, 39.43)
    ('holds', 'holds')
    >>> agreement_result(35.5, 32.5, 38.5, 39.43, share=0.5)  # the paper had twice our documents
    'does not hold'
    >>> agreement_result(30.0, 28.0, 32.0, 39.43)
    'does not hold'
    """
    widening = math.sqrt(1.0 + share)
    low = ours - widening * (ours - lower)
    high = ours + widening * (upper - ours)
    return HOLDS if low <= paper <= high else FAILS


# --------------------------------------------------------------------------------------------------------------------
# the claims: each a Claim and the function that judges it on one seed's results (seeded claims) or on the evidence


def _reduction(results: Results, evidence: Evidence) -> list[Finding]:
    datasets = evidence.chosen()
    try:
        found = error_reduction(results, "soft_vsm_ortho", "soft_vsm", datasets=datasets)
    except ValueError:
        return []
    paper = _paper.ERROR_REDUCTION.value if set(datasets) >= set(DATASETS) else _paper_reduction(datasets)
    r, lower, upper = found["reduction"], found["lower"], found["upper"]
    paper_n = sum(int(_paper.value(_paper.TABLE_1, (d, "test"))) for d in datasets)
    share = found["queries"] / paper_n
    result = (
        FAILS
        if upper < 0
        else OPEN
        if lower <= 0
        else agreement_result(r, lower, upper, paper, share)
        if r < paper
        else HOLDS
    )
    return [
        Finding(
            result,
            f"{number('error reduction', r)} % [{number('error reduction', lower)}, {number('error reduction', upper)}] "
            f"(paper: {paper:.2f} %; {found['queries']:,} test queries, the "
            f"paper's {paper_n:,})",
        )
    ]


def _paper_reduction(datasets: Sequence[str]) -> float:
    """The reduction that the paper's own Figure 8 values give on ``datasets`` (its 39.43 % pools all six)."""
    ortho = sum(_paper.TEST_ERRORS["soft_vsm_ortho", d].value for d in datasets)
    dense = sum(_paper.TEST_ERRORS["soft_vsm", d].value for d in datasets)
    return 100 * (1 - ortho / dense)


def _pair(better: str, worse: str) -> Callable[[Results, Evidence], list[Finding]]:
    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        return paired_findings(_mcnemar(results), better, worse, evidence.chosen())

    return judged


def _scm_vs(wmd: str) -> Callable[[Results, Evidence], list[Finding]]:
    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        table = paired_wmd_table(results)
        found = []
        for dataset in evidence.chosen():
            rows = table[(table["dataset"] == dataset) & (table["method"] == wmd)] if len(table) else table
            if not len(rows):  # not run there: no evidence
                continue
            row = rows.iloc[0]
            result = {"SCM better": HOLDS, "WMD better": FAILS}.get(row["verdict"], OPEN)
            found.append(
                Finding(
                    result,
                    f"{number('test error', row['SCM error'])} vs {number('test error', row['WMD error'])} % on "
                    f"{int(row['queries']):,} queries (q = {number('p-value', row['q'])})",
                    _label(dataset),
                )
            )
        return found

    return judged


def _cosine_sign(model: str, sign: int) -> Callable[[Results, Evidence], list[Finding]]:
    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        if not evidence.cosines or model not in evidence.cosines or "n" not in evidence.cosines[model]:
            return []
        c = evidence.cosines[model]
        half = 1.96 * c["sd"] / math.sqrt(c["n"])
        lower, upper = c["mean"] - half, c["mean"] + half
        result = interval_result(lower, upper) if sign > 0 else interval_result(-upper, -lower)
        return [
            Finding(
                result,
                f"mean cosine {c['mean']:.4f} [{lower:.4f}, {upper:.4f}] over {int(c['n']):,} random word pairs",
                f"the {model} model",
            )
        ]

    return judged


THEOREM_TOLERANCE = 1e-4  # float32 rounding of S' and E' is about 1e-7; anything above 1e-4 is a real difference


def _theorem_1(results: Results, evidence: Evidence) -> list[Finding]:
    found = []
    for model, checked in (evidence.theorem_1 or {}).items():
        errors = [
            float(checked[key])
            for key in ("max |⟨e'_i, e'_j⟩ - s'_ij|", "max |s'_ij - cos(e_i, e_j)|", "max |⟨e'_i, e'_j⟩|, unstored")
            if key in checked
        ]
        largest = max(errors)
        result = HOLDS if largest < THEOREM_TOLERANCE else FAILS if np.isfinite(largest) else OPEN
        found.append(
            Finding(
                result, f"largest deviation {largest:.1e} over {int(checked['words']):,} words", f"the {model} model"
            )
        )
    return found


def _significance(results: Results, evidence: Evidence) -> list[Finding]:
    table = significance_table({k: r for k, r in results.items() if k[1] in PAPER_SEVEN}, test="paper_t_test")
    labels = {METHODS[m].label: m for m in PAPER_SEVEN}
    found = []
    for dataset in evidence.chosen():
        rows = table[table["dataset"] == dataset] if len(table) else table
        expected = {frozenset((a, b)) for d, a, b in _paper.NOT_SIGNIFICANT_PAIRS.value if d == dataset}
        if len(rows) < len(PAPER_SEVEN) * (len(PAPER_SEVEN) - 1) // 2:
            found.append(Finding(OPEN, f"{len(rows)} of 21 comparisons ran", _label(dataset)))
            continue
        ours = {frozenset((labels[r.a], labels[r.b])) for r in rows.itertuples() if not r.significant}
        missing, extra = len(expected - ours), len(ours - expected)
        found.append(
            Finding(
                HOLDS if not missing and not extra else FAILS,
                f"{len(rows) - len(ours)} of {len(rows)} significant; not significant: "
                f"{len(expected) - missing} of the paper's {len(expected)} "
                f"{'exception' if len(expected) == 1 else 'exceptions'} and {extra} "
                f"{'other' if extra == 1 else 'others'}",
                _label(dataset),
            )
        )
    return found


def _spread(results: Results, evidence: Evidence) -> list[Finding]:
    errors = error_table({k: r for k, r in results.items() if k[1] in PAPER_SEVEN})
    spread = errors.groupby("dataset")["error"].agg(lambda e: e.max() - e.min())
    if "twitter" not in spread.index or len(spread) < 2:
        return []
    others = spread.drop("twitter")
    result = HOLDS if spread["twitter"] < others.min() else FAILS
    return [
        Finding(
            result,
            f"TWITTER's seven errors span {spread['twitter']:.1f} points; the other data sets' "
            f"{others.min():.1f} to {others.max():.1f}",
        )
    ]


def _lowest(results: Results, evidence: Evidence) -> list[Finding]:
    datasets = evidence.chosen()
    errors = error_table({k: r for k, r in results.items() if k[1] in PAPER_SEVEN and k[0] in datasets})
    wide = errors.pivot(index="dataset", columns="method", values="error").dropna(axis=1)
    if "soft_vsm_ortho" not in wide or "bow" not in wide:
        return []
    relative = 100 * wide.mean() / wide["bow"].mean()
    runner = relative.drop("soft_vsm_ortho").idxmin()
    only_ortho = only_runner = 0  # discordant test queries pooled over the data sets: an exact paired test
    for dataset in wide.index:
        test = mcnemar_exact(*paired_predictions(results[dataset, "soft_vsm_ortho"], results[dataset, runner]))
        only_ortho, only_runner = only_ortho + test.only_a_correct, only_runner + test.only_b_correct
    p = binomtest(only_ortho, only_ortho + only_runner).pvalue if only_ortho + only_runner else 1.0
    lowest = relative["soft_vsm_ortho"] <= relative[runner]
    result = OPEN if p >= 0.05 else HOLDS if only_ortho > only_runner else FAILS
    return [
        Finding(
            result,
            f"Soft VSM (ortho.) {relative['soft_vsm_ortho']:.2f} %, "
            f"{'lowest' if lowest else 'not lowest'}; next {METHODS[runner].label} "
            f"{relative[runner]:.2f} %; pooled paired test p = {p:.2g}",
        )
    ]


def _idf(results: Results, evidence: Evidence) -> list[Finding]:
    chosen = optimal_parameters({k: r for k, r in results.items() if k[0] in evidence.chosen()}, ["soft_vsm_ortho"])
    ours = chosen[chosen["source"] == METHODS["soft_vsm_ortho"].label]
    if not len(ours):
        return []
    true = [_label(d) for d, idf in zip(ours["dataset"], ours["idf"]) if bool(idf)]
    n = len(ours)
    result = HOLDS if 2 * len(true) > n else FAILS if 2 * len(true) < n else OPEN
    where = f" ({', '.join(true)})" if true else ""
    return [Finding(result, f"Idf = true on {len(true)} of {n} data sets{where}")]


def _table_2(results: Results, evidence: Evidence) -> list[Finding]:
    table_2 = _paper.table_2()
    found = []
    for dataset in evidence.chosen():
        r = results.get((dataset, "soft_vsm_ortho"))
        if r is None or dataset not in table_2.index or "error" not in r.validation:
            continue
        grid = r.validation
        free = [c for c in table_2.columns if c in grid and grid[c].nunique() > 1]  # what our grid lets vary
        if grid["error"].nunique() == 1:
            found.append(Finding(OPEN, f"a complete tie: all {len(grid)} grid cells err alike", _label(dataset)))
            continue
        best = grid[grid["error"] == grid["error"].min()]
        papers = int(sum(all(_same(row[c], table_2.loc[dataset, c]) for c in free) for _, row in best.iterrows()))
        equal = [c for c in free if _same(r.params.get(c), table_2.loc[dataset, c])]
        differ = [PARAMETER_SYMBOLS.get(c, c) for c in free if c not in equal]
        differ = f"{', '.join(differ)} differ{'s' if len(differ) == 1 else ''}" if differ else ""
        shown = f"{len(equal)} of {len(free)} the paper's" + (f" ({differ})" if differ else "")
        if len(best) == 1:
            found.append(Finding(HOLDS if len(equal) == len(free) else FAILS, shown, _label(dataset)))
        elif papers == 0:  # however the tie is broken, the paper's values are not among the best
            found.append(
                Finding(
                    FAILS,
                    f"{shown}; none of the {len(best)} cells tied for the lowest validation error has "
                    "the paper's values",
                    _label(dataset),
                )
            )
        else:  # the grid's order decided which of the tied cells is chosen
            found.append(
                Finding(
                    OPEN,
                    f"{len(best)} grid cells tie for the lowest validation error, {papers} of them with the paper's "
                    f"values; the grid's order chose one with {shown}",
                    _label(dataset),
                )
            )
    return found


def _same(ours, paper) -> bool:
    if isinstance(paper, (bool, np.bool_)):
        return bool(ours) == bool(paper)
    return ours is not None and float(ours) == float(paper)


STRONG = {c: PARAMETER_SYMBOLS[c] for c in ("nonzero_limit", "exponent", "threshold", "symmetric", "dominant")}


def _strong(results: Results, evidence: Evidence) -> list[Finding]:
    chosen = optimal_parameters({k: r for k, r in results.items() if k[0] in evidence.chosen()}, ["soft_vsm_ortho"])
    ours = chosen[chosen["source"] == METHODS["soft_vsm_ortho"].label]
    table_2 = _paper.table_2()
    found = []
    for column, label in STRONG.items():
        if column not in ours or not len(ours):
            continue
        paper, counts = table_2[column].value_counts(), ours[column].value_counts()
        if not len(counts):
            found.append(Finding(OPEN, "not recorded", label))
            continue
        common = counts.index[0] if len(counts) == 1 or counts.iloc[0] > counts.iloc[1] else None
        value = paper.index[0]
        result = OPEN if common is None else HOLDS if common == value else FAILS
        shown = "a tie" if common is None else f"{_shown(common)} ({int(counts.iloc[0])} of {len(ours)})"
        found.append(Finding(result, f"{shown}; the paper's {_shown(value)}", label))
    return found


def _shown(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, (float, np.floating, int, np.integer)) else str(value)


# --------------------------------------------------------------------------------------------------------------------
# §6.1's readings of Figures 2, 4 and 6-7, its TWITTER explanation and the good/bad neighbours; §5.3's matched analogy
# accuracies; §4.2's Idf; §6.4's intractable WMD grid

ALPHA = 0.05  # the level of the exact tests below: one test (or one pair of tests) per finding, no family


def _discordant_result(only_first: int, only_second: int) -> tuple[str, float]:
    """The exact McNemar test on paired items (the same test documents, or the same word pairs, under two conditions) of
    which ``only_first`` have a property only under the first condition and ``only_second`` only under the second:
    :data:`HOLDS` when it decides (p < :data:`ALPHA`) that the first has it more often, :data:`FAILS` when less often,
    :data:`OPEN` otherwise; and the two-sided p-value (1 without discordant items).
    """
    p = float(binomtest(only_first, only_first + only_second).pvalue) if only_first + only_second else 1.0
    return (OPEN if p >= ALPHA else HOLDS if only_first > only_second else FAILS), p


def _falls(before: np.ndarray, after: np.ndarray) -> tuple[str, float]:
    """:func:`_discordant_result` for a property of the same documents that should hold for fewer ``after``."""
    return _discordant_result(int(np.sum(before & ~after)), int(np.sum(after & ~before)))


def _paired_predictions(a: MethodResult, b: MethodResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both methods' test predictions (at their k) and the truth, on the test queries both answered."""
    _, ia, ib = np.intersect1d(a.rows(), b.rows(), return_indices=True)
    return a.predictions[a.k][ia], b.predictions[b.k][ib], a.truth[ia]


def _names(evidence: Evidence, dataset: str) -> list[str] | None:
    names = (evidence.class_names or {}).get(dataset)
    return list(names) if names is not None and dataset in evidence.chosen() else None


def _most_predicted(results: Results, evidence: Evidence) -> list[Finding]:
    names = _names(evidence, "ohsumed")
    if names is None or ("ohsumed", "soft_vsm") not in results:
        return []
    r, paper = results["ohsumed", "soft_vsm"], tuple(_paper.OHSUMED_PREDICTED.value)
    counts = np.bincount(r.predictions[r.k], minlength=len(names))
    order = np.argsort(-counts, kind="stable")
    tied = any(counts[order[i]] == counts[order[i + 1]] for i in range(min(len(paper), len(order) - 1)))
    top = tuple(names[i] for i in order[: len(paper)])
    common = np.argsort(-np.bincount(r.truth, minlength=len(names)), kind="stable")[: len(paper)]
    result = OPEN if tied else HOLDS if top == paper else FAILS
    shown = ", ".join(f"{names[i]} {100 * counts[i] / counts.sum():.1f} %" for i in order[: len(paper)])
    return [
        Finding(
            result,
            f"predicted most: {shown} of {int(counts.sum()):,} test documents (most common: "
            f"{', '.join(names[i] for i in common)})",
            "OHSUMED",
        )
    ]


def _pair_on(better: str, worse: str, dataset: str) -> Callable[[Results, Evidence], list[Finding]]:
    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        chosen = [d for d in evidence.chosen() if d == dataset]
        return paired_findings(_mcnemar(results), better, worse, chosen) if chosen else []

    return judged


def _confused(evidence: Evidence, results: Results, methods: Sequence[str]):
    """REUTERS's class names, the paper's (true, predicted) pair as indices, and whether ``methods`` ran; None when
    the evidence lacks them."""
    names = _names(evidence, "reuters")
    if names is None or any(("reuters", m) not in results for m in methods):
        return None
    true, predicted = _paper.REUTERS_CONFUSED.value
    return (names.index(true), names.index(predicted)) if true in names and predicted in names else None


def _grain_as_crude(results: Results, evidence: Evidence) -> list[Finding]:
    pair = _confused(evidence, results, ["soft_vsm"])
    if pair is None:
        return []
    (t, p), (true, predicted) = pair, _paper.REUTERS_CONFUSED.value
    r = results["reuters", "soft_vsm"]
    rows = r.truth == t
    n, x = int(rows.sum()), int(np.sum(r.predictions[r.k][rows] == p))
    if not n:
        return [Finding(OPEN, f"no {true} test documents", "REUTERS")]
    interval = binomtest(x, n).proportion_ci()
    return [
        Finding(
            interval_result(interval.low, interval.high, 0.5),
            f"{x} of {n} {true} test documents ({100 * x / n:.1f} % [{100 * interval.low:.1f}, "
            f"{100 * interval.high:.1f}]) predicted as {predicted} ({predicted}: {int(np.sum(r.truth == p))} "
            "test documents)",
            "REUTERS",
        )
    ]


def _grain_separated(results: Results, evidence: Evidence) -> list[Finding]:
    pair = _confused(evidence, results, ["soft_vsm", "soft_vsm_quantized_ortho"])
    if pair is None:
        return []
    (t, p), (true, predicted) = pair, _paper.REUTERS_CONFUSED.value
    before, after, truth = _paired_predictions(
        results["reuters", "soft_vsm"], results["reuters", "soft_vsm_quantized_ortho"]
    )
    rows = truth == t
    if not rows.any():
        return [Finding(OPEN, f"no {true} test documents", "REUTERS")]
    result, pvalue = _falls(before[rows] == p, after[rows] == p)
    return [
        Finding(
            result,
            f"{true} predicted as {predicted}: {int(np.sum(before[rows] == p))} → "
            f"{int(np.sum(after[rows] == p))} of {int(rows.sum())} (exact McNemar p = {pvalue:.2g})",
            "REUTERS",
        )
    ]


def _within_hierarchy(results: Results, evidence: Evidence) -> list[Finding]:
    names = _names(evidence, "20news")
    if names is None or any(("20news", m) not in results for m in ("soft_vsm", "soft_vsm_quantized_ortho")):
        return []
    before, after, truth = _paired_predictions(
        results["20news", "soft_vsm"], results["20news", "soft_vsm_quantized_ortho"]
    )
    groups = np.array([usenet_hierarchy(name) for name in names])
    within = {
        k: (predicted != truth) & (groups[predicted] == groups[truth])
        for k, predicted in (("before", before), ("after", after))
    }
    errors = {k: max(1, int(np.sum(predicted != truth))) for k, predicted in (("before", before), ("after", after))}
    result, pvalue = _falls(within["before"], within["after"])
    return [
        Finding(
            result,
            f"misclassified within their hierarchy: {100 * within['before'].mean():.1f} % → "
            f"{100 * within['after'].mean():.1f} % of {len(truth):,} test messages "
            f"({100 * within['before'].sum() / errors['before']:.0f} % → "
            f"{100 * within['after'].sum() / errors['after']:.0f} % of the errors; exact McNemar "
            f"p = {pvalue:.2g})",
            "20NEWS",
        )
    ]


def _twitter_baseline(results: Results, evidence: Evidence) -> list[Finding]:
    names, majority = _names(evidence, "twitter"), (evidence.majority or {}).get("twitter")
    if names is None or majority is None or ("twitter", "soft_vsm") not in results:
        return []
    r, largest = results["twitter", "soft_vsm"], names.index(majority["largest class"])
    test = mcnemar_exact(r.predictions[r.k], np.full_like(r.truth, largest), r.truth)
    result, pvalue = _discordant_result(test.only_b_correct, test.only_a_correct)  # holds when the baseline is better
    return [
        Finding(
            result,
            f"Soft VSM {number('test error', 100 * r.test_error)} %, always {majority['largest class']} "
            f"{number('test error', 100 * np.mean(r.truth != largest))} % test error on {len(r.truth):,} tweets "
            f"(exact McNemar p = {pvalue:.2g})",
            "TWITTER",
        )
    ]


def _good_bad(results: Results, evidence: Evidence) -> list[Finding]:
    found = []
    for model, (first, second) in (evidence.good_bad_ranks or {}).items():
        cosine = (evidence.good_bad or {}).get(model)
        paper = _paper.value(_paper.GOOD_BAD, (model, "paper"))
        shown = f"ranks bad {_ordinal(first)} among good's neighbours and good {_ordinal(second)} among bad's"
        decimals = len(f"{paper:g}".partition(".")[2])  # 0.58: two, 0.4: one
        same = cosine is not None and round(float(cosine), decimals) == paper
        if cosine is not None:
            shown += f"; cosine {number('cosine', cosine)} (the paper's {paper:g})"
        found.append(Finding(HOLDS if int(first) == int(second) == 1 and same else FAILS, shown, f"the {model} model"))
    return found


def _ordinal(n) -> str:
    n = int(n)
    return f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


ANALOGY_MARGIN = 2.0  # points of analogy accuracy within which two models count as comparable (our margin)


def _analogies(results: Results, evidence: Evidence) -> list[Finding]:
    analogies = evidence.analogies or {}
    if not {"32-bit", "1-bit"} <= set(analogies):
        return []
    (p1, n1), (p2, n2) = ((analogies[m]["accuracy"], int(analogies[m]["questions"])) for m in ("32-bit", "1-bit"))
    if not n1 or not n2:
        return [Finding(OPEN, "no analogy questions asked")]
    (l1, u1), (l2, u2) = wilson_interval(round(p1 * n1), n1), wilson_interval(round(p2 * n2), n2)
    difference = 100 * (p1 - p2)  # Newcombe's (1998, method 10) interval for independent proportions
    lower = difference - 100 * math.hypot(p1 - l1, u2 - p2)
    upper = difference + 100 * math.hypot(u1 - p1, p2 - l2)
    result = (
        HOLDS
        if -ANALOGY_MARGIN < lower and upper < ANALOGY_MARGIN
        else FAILS
        if lower > ANALOGY_MARGIN or upper < -ANALOGY_MARGIN
        else OPEN
    )
    return [
        Finding(
            result,
            f"32-bit {100 * p1:.2f} % of {n1:,}, 1-bit {100 * p2:.2f} % of {n2:,} questions; "
            f"difference {difference:+.2f} points [{lower:+.2f}, {upper:+.2f}]",
        )
    ]


def _idf_orthogonal(results: Results, evidence: Evidence) -> list[Finding]:
    found = []
    for model, c in (evidence.idf_orthogonality or {}).items():
        if not c["frequent pairs"] or not c["rare pairs"]:
            found.append(Finding(OPEN, "no word pairs counted", f"the {model} model"))
            continue
        by_order, p_order = _discordant_result(c["frequent only with idf"], c["frequent only without idf"])
        frequent, rare = c["frequent orthogonal with idf"], c["rare orthogonal with idf"]
        p_rare = float(
            fisher_exact([[frequent, c["frequent pairs"] - frequent], [rare, c["rare pairs"] - rare]]).pvalue
        )
        share = {g: 100 * c[f"{g} orthogonal with idf"] / c[f"{g} pairs"] for g in ("frequent", "rare")}
        by_rarity = OPEN if p_rare >= ALPHA else HOLDS if share["frequent"] > share["rare"] else FAILS
        result = FAILS if FAILS in (by_order, by_rarity) else HOLDS if by_order == by_rarity == HOLDS else OPEN
        without = 100 * c["frequent orthogonal without idf"] / c["frequent pairs"]
        shown = (
            f"(S′ with Idf, without): the {c['words']} most frequent words' pairs orthogonal "
            f"{share['frequent']:.1f} % and {without:.1f} % (p = {p_order:.2g}); the {c['words']} rarest "
            f"words' {share['rare']:.1f} % with Idf (p = {p_rare:.2g})"
        )
        if c.get("numeral pairs"):
            numerals = [
                100 * c[f"numeral orthogonal {how}"] / c["numeral pairs"] for how in ("with idf", "without idf")
            ]
            shown += f"; the {c['numerals']} numerals' {numerals[0]:.1f} % and {numerals[1]:.1f} %"
        found.append(Finding(result, shown, f"the {model} model"))
    return found


# The WMD with orthogonalized embeddings would search the whole grid: every S′ gives other embeddings E′.
WMD_GRID = ("nonzero_limit", "idf", "symmetric", "dominant", "threshold", "exponent")
_WMD_POINTS = math.prod(len(_paper.PAPER_GRID[key]) for key in WMD_GRID)
CORE_YEAR_HOURS = 365.25 * 24
CORE_MONTH_HOURS = CORE_YEAR_HOURS / 12


def _linear(results: Results, evidence: Evidence) -> list[Finding]:
    return [
        Finding(
            HOLDS if bound["excess"] <= 0 else FAILS,
            f"the fullest column of S′ holds {bound['largest']:,} off-diagonal non-zeros (at C = {bound['at_limit']:,}); "
            f"{'none' if bound['excess'] <= 0 else 'some'} of the {bound['points']} grid points has a column with more "
            "than C",
            f"the {model} model",
        )
        for model, bound in (evidence.column_bound or {}).items()
    ]


def _wmd_grid_hours(dataset: str, seconds_per_pair: float) -> float:
    """One-core hours that a search of :data:`WMD_GRID` (:data:`regemb_utils.paper.PAPER_GRID`'s values) would take for
    the WMD on ``dataset`` at ``seconds_per_pair`` per (query, reference) pair: at every grid point the validation and
    then the test queries against the training split (k chosen at once), on the paper's splits (Table 1's sizes, §5.4's
    validation share).
    """
    train_validation, test = (int(_paper.table_1().loc[dataset, c]) for c in ("train", "test"))
    validation = round(train_validation * _paper.VALIDATION_SHARE.value / 100)
    return _WMD_POINTS * (validation + test) * (train_validation - validation) * seconds_per_pair / 3600


def _wmd_intractable(results: Results, evidence: Evidence) -> list[Finding]:
    rates = _ratios(evidence, _SCM, "wmd")
    brute = dict(zip(rates["dataset"], rates["slow rate"])) if len(rates) else {}
    found = []
    for dataset in evidence.chosen():
        rate = brute.get(dataset)
        if not rate:
            found.append(Finding(OPEN, "the WMD was not timed by brute force", _label(dataset)))
            continue
        hours = _wmd_grid_hours(dataset, 1 / rate)
        result = HOLDS if hours > CORE_YEAR_HOURS else FAILS if hours < CORE_MONTH_HOURS else OPEN
        shown = f"{_hours(hours)} core-hours ({hours / CORE_YEAR_HOURS:.2g} core-years) at {rate:,.1f} pairs per second"
        found_wmd = results.get((dataset, "wmd"))
        runs = found_wmd.runs if found_wmd is not None else []
        pairs, seconds = sum(run.pairs for run in runs), sum(run.seconds for run in runs)
        if pairs and seconds > 0:
            shown += (
                f"; chapter 4's pruned exact search: {_hours(_wmd_grid_hours(dataset, seconds / pairs))} core-hours"
            )
        found.append(Finding(result, shown, _label(dataset)))
    return found


def _hours(hours: float) -> str:
    """Core-hours: whole numbers from 10 up, else two significant digits."""
    return f"{hours:,.0f}" if hours >= 10 else f"{hours:.2g}"


def _paper_wmd_years() -> float:
    """What Figure 9's WMD speed gives for :func:`_wmd_grid_hours` over the six data sets, in core-years."""
    return sum(_wmd_grid_hours(d, 1 / _paper.SPEEDS["wmd"].value) for d in DATASETS) / CORE_YEAR_HOURS


def _speed(fast: str, slow: str, threshold: float, divide: float = 1.0) -> Callable[[Results, Evidence], list[Finding]]:
    """Per data set, whether ``fast`` evaluates more than ``threshold`` times as many document pairs per second as
    ``slow`` (chapter 4's timings with the paper's measure, :func:`regemb_utils.classification.speed.speed_ratios`;
    the ratio divided by ``divide`` first)."""

    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        ratios = _ratios(evidence, fast, slow)
        return [
            Finding(
                interval_result(r.lower / divide, r.upper / divide, threshold),
                f"{_times(r.ratio / divide)} [{_times(r.lower / divide)}, {_times(r.upper / divide)}]",
                _label(r.dataset),
            )
            for r in ratios.itertuples()
            if r.dataset != "pooled"
        ]

    return judged


def _factor(fast: str, slow: str, factor: float) -> Callable[[Results, Evidence], list[Finding]]:
    """Per data set, whether the interval of ``fast``'s rate over ``slow``'s contains the paper's ``factor``."""

    def judged(results: Results, evidence: Evidence) -> list[Finding]:
        return [
            Finding(
                HOLDS if r.lower <= factor <= r.upper else FAILS,
                f"{_times(r.ratio)} [{_times(r.lower)}, {_times(r.upper)}]",
                _label(r.dataset),
            )
            for r in _ratios(evidence, fast, slow).itertuples()
            if r.dataset != "pooled"
        ]

    return judged


def _ratios(evidence: Evidence, fast: str, slow: str, datasets: Sequence[str] | None = None) -> pd.DataFrame:
    timings = evidence.speed
    if timings is None or not {fast, slow} <= set(timings["method"]):
        return pd.DataFrame(columns=["dataset", "ratio", "lower", "upper"])
    chosen = [d for d in (datasets or evidence.chosen()) if d in set(timings["dataset"])]
    return (
        speed_ratios(timings, fast, slow, datasets=chosen)
        if chosen
        else pd.DataFrame(columns=["dataset", "ratio", "lower", "upper"])
    )


def _times(value: float) -> str:
    """A speed ratio: whole numbers from 100 up, else three significant digits."""
    return f"{value:,.0f}×" if value >= 100 else f"{value:.3g}×"


def _larger_on_20news(results: Results, evidence: Evidence) -> list[Finding]:
    others = [d for d in evidence.chosen() if d != "20news"]
    if "20news" not in evidence.chosen() or not others:
        return []
    there = _ratios(evidence, _SCM, "wmd", ["20news"])
    elsewhere = _ratios(evidence, _SCM, "wmd", others)
    if not len(there) or not len(elsewhere):
        return []
    a, b = there.iloc[0], elsewhere[elsewhere["dataset"] == "pooled"].iloc[0]
    result = HOLDS if a["lower"] > b["upper"] else FAILS if a["upper"] < b["lower"] else OPEN
    return [
        Finding(
            result,
            f"20NEWS {_times(a['ratio'])} [{_times(a['lower'])}, {_times(a['upper'])}]; the other "
            f"data sets pooled {_times(b['ratio'])} [{_times(b['lower'])}, {_times(b['upper'])}]",
        )
    ]


_SCM = "soft_vsm_quantized_ortho"  # the regularized SCM
_SPEED_WHERE = "04_scm_vs_wmd.html#fig-speed-measured"
_SPEED_RULE = (
    "Chapter 4's timings with the paper's measure: document pairs evaluated per second per core, every "
    "method timed as the paper's code timed it (weighting included), the WMD by brute force (every pair "
    "solved) on a seeded sample of test queries; a percentile bootstrap interval over the sampled queries "
    "and the repeated timings. "
)

_F8 = "04_scm_vs_wmd.html#fig-relative-error"
_SIG = "04_scm_vs_wmd.html#fig-significance"
_T2 = "04_scm_vs_wmd.html#table-2-the-selected-parameters"
_PAIRED = "The paired test: exact McNemar on the test queries both methods answered, BH q < 0.05 over §6.1's family "
_PAIRED += "(every pair of the paper's seven configurations on every data set). "


@dataclass(frozen=True)
class Rule:
    """A claim and the function that judges it.

    Parameters
    ----------
    claim : Claim
        The claim.
    judged : callable
        ``(results, evidence) -> list of Finding``: the rule applied to one seed's results.
    seeded : bool
        It reads a method that chapter 4 reran per seed (it is judged with each).
    models : bool
        It compares a 1-bit with a 32-bit configuration, so its verdict carries chapter 2's analogy gap
        (:func:`model_gap`).

    Examples
    --------
    >>> [rule.claim.key for rule in CLAIMS if rule.models]
    ['orthogonalization-best', 'quantization-scm', 'quantization-wmd', 'scm-beats-wmd']
    """

    claim: Claim
    judged: Callable[[Results, Evidence], list[Finding]]
    seeded: bool
    models: bool = False


def model_gap(evidence: Evidence) -> str:
    """What a comparison of a 1-bit with a 32-bit configuration must be read with: how far apart the two models are
    on word analogies (chapter 2), where the paper chose its dimensions to make them comparable (§5.3), and what the
    original Word2Bits tool shows on the same token stream (chapter 2's check); empty without chapter 2's numbers.

    Parameters
    ----------
    evidence : Evidence
        With ``analogies`` and, where chapter 2 ran the check, ``trainer_check``.

    Returns
    -------
    str
        The sentence, or "".

    Examples
    --------
    >>> analogies = {"32-bit": {"accuracy": 0.518, "questions": 19544}, "1-bit": {"accuracy": 0.410, "questions": 19544}}
    >>> model_gap(Evidence({}, analogies=analogies))[:60]
    'our 1-bit embeddings answer 10.8 points fewer word analogies'
    """
    if not evidence.analogies or not {"32-bit", "1-bit"} <= set(evidence.analogies):
        return ""
    gap = 100 * (evidence.analogies["32-bit"]["accuracy"] - evidence.analogies["1-bit"]["accuracy"])
    text = (
        f"our 1-bit embeddings answer {gap:.1f} points fewer word analogies than our 32-bit ones (chapter 2), "
        "where the paper chose 1,000 and 200 dimensions to make them comparable"
    )
    check = evidence.trainer_check or {}
    if check.get("table"):
        account = gap_account(pd.DataFrame(check["table"]))
        stream = (
            "the same token stream"
            if check.get("articles") is None
            else f"the same token stream (the corpus's first {check['articles']:,} articles)"
        )
        text += (
            f"; the original Word2Bits tool, trained on {stream} with the same flags for "
            f"{check['epochs']} epochs, shows a {account['gap Word2Bits']:.1f}-point gap (our trainer "
            f"{account['gap ours']:.1f})"
        )
    elif check.get("unavailable"):
        text += f" (the original tool could not be run here: {check['unavailable']})"
    return text + ": a difference between a 1-bit and a 32-bit method measures quantization together with that gap"


CLAIMS: tuple[Rule, ...] = (
    Rule(
        Claim(
            "reduction",
            "abstract; §6.2",
            f'"{_paper.ERROR_REDUCTION_ABSTRACT.value}% average kNN test error reduction with regularized word '
            'embeddings compared to non-regularized word embeddings"; for the soft VSM with orthogonalized '
            f"embeddings against the non-regularized one, {_paper.ERROR_REDUCTION.value:.2f} %",
            "The orthogonalized 32-bit SCM against the non-regularized one, paired bootstrap interval of the "
            "reduction of the mean test error. Does not hold when the whole interval lies below 0 (regularization "
            "raises the error); open when the interval reaches 0; holds when it lies above 0 and "
            "either our estimate is at least the paper's or our interval, widened for the paper's own sampling "
            "error (√(1 + our test documents / the paper's): √2 for as many), reaches the paper's number; does not "
            "hold otherwise. On a part of the data sets the "
            "paper's number is the reduction its Figure 8 values give there.",
            f"{_paper.ERROR_REDUCTION.value:.2f} % ({_paper.ERROR_REDUCTION.source})",
            _F8,
            unit="",
        ),
        _reduction,
        True,
    ),
    Rule(
        Claim(
            "regularization-each",
            "§1 (contribution 1); §7",
            'Word embedding regularization "can also significantly improve performance on the text classification '
            'task"',
            _PAIRED + "Per data set, the orthogonalized 32-bit SCM against the non-regularized one: holds when the "
            "test decides for the orthogonalized one, does not hold when it decides against it, open otherwise.",
            "stated in general; the paper names no test (its code ran a t-test)",
            _SIG,
        ),
        _pair("soft_vsm_ortho", "soft_vsm"),
        True,
    ),
    Rule(
        Claim(
            "orthogonalization-best",
            "§7",
            '"the most effective word embedding regularization technique is orthogonalization"',
            _PAIRED + "Per data set, orthogonalization alone (32-bit) against quantization alone (1-bit): holds "
            "when the test decides for orthogonalization, does not hold when it decides for quantization, open "
            "otherwise.",
            "stated (§7); Figures 8 and 10",
            _SIG,
        ),
        _pair("soft_vsm_ortho", "soft_vsm_quantized"),
        True,
        models=True,
    ),
    Rule(
        Claim(
            "quantization-scm",
            "§6.2",
            'The soft VSM benefits from quantization ("Unlike the soft VSM, the WMD does not benefit from word '
            'embedding quantization")',
            _PAIRED + "Per data set, the 1-bit soft VSM against the 32-bit one: holds when the test decides for the "
            "1-bit one, does not hold when it decides against it, open otherwise. Our two models are not matched "
            "on word analogies as the paper's were (chapter 2), so this compares more than the quantization.",
            "stated (§6.2); Figures 8 and 10",
            _SIG,
        ),
        _pair("soft_vsm_quantized", "soft_vsm"),
        True,
        models=True,
    ),
    Rule(
        Claim(
            "quantization-wmd",
            "§6.2",
            '"the WMD does not benefit from word embedding quantization": "the reduced precision of quantized '
            'word embeddings increases kNN test error"',
            _PAIRED + "Per data set, the 32-bit WMD against the 1-bit one: holds when the test decides that the "
            "1-bit WMD errs more, does not hold when it decides that it errs less, open otherwise. The models are "
            "not matched on word analogies (chapter 2).",
            "stated (§6.2); Figures 8 and 10",
            _SIG,
        ),
        _pair("wmd", "wmd_quantized"),
        False,
        models=True,
    ),
    Rule(
        Claim(
            "scm-beats-wmd",
            "abstract; §1 (contribution 2); §7",
            '"the SCM with regularized word embeddings significantly outperforms the WMD on text classification"',
            "Chapter 4's paired table: the 1-bit orthogonalized SCM against the 32-bit WMD on the test queries "
            "both answered, exact McNemar with BH q < 0.05 over the table. Per data set: holds when the test "
            "decides for the SCM, does not hold when it decides for the WMD, open otherwise.",
            "stated in general; the paper names no test (its code ran a t-test), and its Figure 8 has both WMDs ahead "
            "on REUTERS",
            "04_scm_vs_wmd.html#fig-paired-wmd",
        ),
        _scm_vs("wmd"),
        True,
        models=True,
    ),
    Rule(
        Claim(
            "scm-beats-wmd-quantized",
            "abstract, applied to Figure 8's 1-bit WMD",
            "The regularized SCM significantly outperforms the WMD with quantized embeddings too",
            "As for the 32-bit WMD, against the 1-bit WMD.",
            "not stated for the 1-bit WMD; its Figure 8 has both WMDs ahead on REUTERS",
            "04_scm_vs_wmd.html#fig-paired-wmd",
        ),
        _scm_vs("wmd_quantized"),
        True,
    ),
    Rule(
        Claim(
            "faster",
            "abstract",
            f'The SCM with regularized word embeddings "is over {_paper.FASTER_THAN.value:,}× faster" than the WMD',
            _SPEED_RULE + f"Per data set: holds when the interval of the regularized SCM's rate over the 32-bit "
            f"WMD's lies above {_paper.FASTER_THAN.value:,}, does not hold when it lies below, open otherwise.",
            f"over {_paper.FASTER_THAN.value:,}× (abstract); {_paper.SPEED_RATIO.value:,}× on average "
            f"({_paper.SPEED_RATIO.source})",
            _SPEED_WHERE,
            timed=True,
        ),
        _speed(_SCM, "wmd", _paper.FASTER_THAN.value),
        False,
    ),
    Rule(
        Claim(
            "orders-of-magnitude",
            "§7",
            'With orthogonalization the soft VSM is "several orders of magnitude faster" than the WMD',
            _SPEED_RULE + "Per data set: holds when the interval of the regularized SCM's rate over the 32-bit "
            "WMD's lies above 1,000 (three orders of magnitude), does not hold below, open otherwise.",
            "stated (§7)",
            _SPEED_WHERE,
            timed=True,
        ),
        _speed(_SCM, "wmd", 1_000),
        False,
    ),
    Rule(
        Claim(
            "sparse-slowdown",
            "§6.3",
            '"performing sparse instead of dense matrix operations causes a 2.73× slowdown" of the soft VSM',
            _SPEED_RULE + "Per data set, the dense 32-bit soft VSM's rate over the orthogonalized (sparse) one's: "
            f"holds when its interval contains the paper's {_paper.SPARSE_SLOWDOWN.value}, does not hold otherwise "
            "(an interval above 1: sparse is slower, by another factor). The factor depends on the hardware and "
            "the implementation.",
            f"{_paper.SPARSE_SLOWDOWN.value}× ({_paper.SPARSE_SLOWDOWN.source})",
            _SPEED_WHERE,
            timed=True,
        ),
        _factor("soft_vsm", "soft_vsm_ortho", _paper.SPARSE_SLOWDOWN.value),
        False,
    ),
    Rule(
        Claim(
            "linear-complexity",
            "§6.3",
            '"the orthogonalization reduces the worst-case time complexity of the soft VSM from quadratic to linear"',
            "Per model, over chapter 3's grid of S′ (t = 0): with at most C off-diagonal non-zeros in a column, each "
            "word of a document meets at most C + 1 words of the other, so xᵀS′y costs at most (C + 1) times the "
            "words of x, linear in a document's length at a fixed C, where the dense S couples every pair of "
            "words. Holds when no column of any S′ holds more than C, does not hold otherwise.",
            "stated (§6.3)",
            "03_orthogonalization.html#fig-sparsity",
            unit="model",
        ),
        _linear,
        False,
    ),
    Rule(
        Claim(
            "quantization-slowdown",
            "§6.3",
            '"Quantization causes a 1.8× slowdown" of the soft VSM, by its 5× as many dimensions',
            _SPEED_RULE + "Per data set, the 32-bit soft VSM's rate over the 1-bit one's: holds when its interval "
            f"contains the paper's {_paper.QUANTIZATION_SLOWDOWN.value}, does not hold otherwise (an interval above "
            "1: quantization slows it down, by another factor).",
            f"{_paper.QUANTIZATION_SLOWDOWN.value}× ({_paper.QUANTIZATION_SLOWDOWN.source})",
            _SPEED_WHERE,
            timed=True,
        ),
        _factor("soft_vsm", "soft_vsm_quantized", _paper.QUANTIZATION_SLOWDOWN.value),
        False,
    ),
    Rule(
        Claim(
            "slowdown-20news",
            "§6.3",
            'The WMD\'s slowdown is larger on 20NEWS, "which has a large average number of unique words in a document"',
            _SPEED_RULE + "The regularized SCM's rate over the WMD's on 20NEWS against the same ratio pooled over "
            "the other data sets: holds when the first interval lies above the second, does not hold when below, "
            "open when they overlap.",
            f"{_paper.SPEED_RATIO_20NEWS.value:,}× on 20NEWS against {_paper.SPEED_RATIO.value:,}× on average (§6.3)",
            _SPEED_WHERE,
            unit="",
            timed=True,
        ),
        _larger_on_20news,
        False,
    ),
    Rule(
        Claim(
            "wcd",
            "§6.3",
            f'Even the WCD, "up to {_paper.WCD_SPEEDUP.value}× speed-up" over the WMD (Kusner et al.), stays '
            "slower than the regularized SCM",
            _SPEED_RULE + f"Neither the paper nor the book runs the WCD; as the paper did, the WMD's ratio is "
            f"divided by {_paper.WCD_SPEEDUP.value}. Per data set: holds when that interval lies above 1, does not "
            "hold below, open otherwise.",
            f"{_paper.WCD_SLOWDOWN.value:,}× on average ({_paper.WCD_SLOWDOWN.source})",
            _SPEED_WHERE,
            timed=True,
        ),
        _speed(_SCM, "wmd", 1.0, divide=_paper.WCD_SPEEDUP.value),
        False,
    ),
    Rule(
        Claim(
            "positive-bias",
            "§6.2 (Figure 11)",
            '"With non-quantized word embeddings, embeddings of unrelated words have positive cosine similarity"',
            "The 32-bit model's mean cosine over random word pairs (chapter 2), 95 % normal interval: holds when it "
            "lies above 0, does not hold below, open otherwise.",
            f"Figure 11; the paper's notebook: 32-bit mean {_paper.COSINES['32-bit', 'mean'].value:.4f}",
            "02_training.html#fig-cosines",
            unit="model",
        ),
        _cosine_sign("32-bit", +1),
        False,
    ),
    Rule(
        Claim(
            "negative-cosines",
            "§6.2",
            '"With quantized embeddings, unrelated words have negative cosine similarity"',
            "The 1-bit model's mean cosine over random word pairs (chapter 2), 95 % normal interval: holds when it "
            "lies below 0, does not hold above, open otherwise.",
            f"stated; the paper's notebook: 1-bit mean {_paper.COSINES['1-bit', 'mean'].value:.4f}",
            "02_training.html#fig-cosines",
            unit="model",
        ),
        _cosine_sign("1-bit", -1),
        False,
    ),
    Rule(
        Claim(
            "theorem-1",
            "§4.2 (Theorem 1)",
            "The Cholesky factor E′ of a symmetric, strictly diagonally dominant S′ (t = −1, o = 1, unit-length E) "
            "is a set of orthogonalized embeddings: every non-zero ⟨e′ᵢ, e′ⱼ⟩ equals ⟨eᵢ, eⱼ⟩",
            f"Per model (chapter 3): holds when E′E′ᵀ = S′, every stored s′ᵢⱼ equals cos(eᵢ, eⱼ), and the pairs S′ "
            f"does not store are orthogonal in E′, each up to {THEOREM_TOLERANCE:g}; does not hold otherwise.",
            "proved (Theorem 1)",
            "03_orthogonalization.html#theorem-1-checked",
            unit="model",
        ),
        _theorem_1,
        False,
    ),
    Rule(
        Claim(
            "significance",
            "§6.1",
            '"All differences are significant, except" five named pairs of configurations',
            "The paper's t-test with BH q < 0.025 over every pair of its seven configurations on every data set "
            "(chapter 4). Per data set: holds when the pairs that are not significant are exactly the ones the "
            "paper names there, does not hold otherwise, open when a comparison did not run.",
            f"{_paper.SIGNIFICANCE_TESTS.value - _paper.NOT_SIGNIFICANT.value} of "
            f"{_paper.SIGNIFICANCE_TESTS.value} significant ({_paper.NOT_SIGNIFICANT.source})",
            _SIG,
        ),
        _significance,
        True,
    ),
    Rule(
        Claim(
            "twitter-minor",
            "§6.1",
            'On TWITTER the differences in test error "are relatively minor compared to other datasets"',
            "The span (highest − lowest) of the seven configurations' test errors: holds when TWITTER's is the "
            "smallest of the data sets, does not hold otherwise.",
            "stated (§6.1); Figure 8",
            "04_scm_vs_wmd.html#fig-test-error",
            unit="",
        ),
        _spread,
        True,
    ),
    Rule(
        Claim(
            "lowest-ratio",
            "§6.2",
            "The average test error relative to BoW's \"is the lowest for the soft VSM with orthogonalized word "
            'embeddings, which achieves 48.86 %"',
            "Figure 10's ratio of each of the seven configurations. Holds when the orthogonalized 32-bit SCM errs "
            "less than the configuration with the next lowest ratio by an exact paired test on the test queries "
            "pooled over the data sets (p < 0.05), does not hold when that test decides the other way, open "
            "otherwise (a tie).",
            f"{_paper.LOWEST_RELATIVE_ERROR.value:.2f} % ({_paper.LOWEST_RELATIVE_ERROR.source})",
            _F8,
            unit="",
        ),
        _lowest,
        True,
    ),
    Rule(
        Claim(
            "idf",
            "§6.4",
            '"The most common parameter value Idf = true shows that it is important"',
            "The Idf value that the validation split selects for the orthogonalized 32-bit SCM, over the data "
            "sets: holds when true is the most common, does not hold when false is, open on a tie.",
            f"Table 2: Idf = true on {int(_paper.table_2()['idf'].sum())} of the paper's {len(_paper.table_2())}",
            _T2,
            unit="",
        ),
        _idf,
        True,
    ),
    Rule(
        Claim(
            "strong-orthogonalization",
            "§6.4",
            '"The most common parameter values C = 100, o = 4, t = −1, Sym = true, and Dom = true show that strong '
            'orthogonalization ... gives the best results"',
            "Per parameter, the most common value that the validation split selects for the orthogonalized 32-bit "
            "SCM over the data sets: holds when it is the paper's most common value, does not hold when it is "
            "another, open when two values tie.",
            "Table 2",
            _T2,
            unit="parameter",
        ),
        _strong,
        True,
    ),
    Rule(
        Claim(
            "table-2",
            "Table 2",
            "The optimal parameter values of the soft VSM with orthogonalized word embeddings (that they are the "
            "32-bit model's is our inference, chapter 4)",
            "Per data set, the values that the validation split selects for the orthogonalized 32-bit SCM against "
            "Table 2's, counting only the parameters that our grid lets vary (the dtb slope s cannot: the "
            "orthogonalized SCM's grid holds one value): holds when every one is the paper's, does not hold when "
            "one differs. Where several grid cells tie for the lowest validation error, only the grid's order "
            "chooses among them: open when the paper's values are among the tied cells (as in a complete tie, "
            "where every cell ties), does not hold when none of them has the paper's values.",
            "Table 2",
            _T2,
        ),
        _table_2,
        True,
    ),
    Rule(
        Claim(
            "ohsumed-most-predicted",
            "§6.1 (Figure 2)",
            '"with non-regularized word embeddings, we predict most documents as class C04, followed by classes '
            'C10 and C06"',
            "The non-regularized 32-bit soft VSM's predictions of OHSUMED's test documents (chapter 4, the book's "
            "seed): holds when the three classes it predicts most are C04, C10 and C06 in that order, does not "
            "hold when they are others or in another order, open when a tie decides the order. Our OHSUMED "
            f"documents are not the paper's ({_paper.DIFFERENT_DATA['ohsumed']}).",
            f"{', '.join(_paper.OHSUMED_PREDICTED.value)} ({_paper.OHSUMED_PREDICTED.source}); the most common "
            "classes there: " + ", ".join(f"{c} {n:,}" for c, n in _paper.OHSUMED_CLASS_SIZES.value),
            "05_confusion_tsne.html#fig-ohsumed-confusion",
        ),
        _most_predicted,
        False,
    ),
    Rule(
        Claim(
            "ohsumed-orthogonalized",
            "§6.1 (Figure 2)",
            '"orthogonalized word embeddings make the true class label much easier to predict" (OHSUMED)',
            _PAIRED + "On OHSUMED, the 1-bit orthogonalized soft VSM (the figure's regularized one) against the "
            "non-regularized 32-bit one: holds when the test decides for the regularized one, does not hold when "
            "it decides against it, open otherwise. Our OHSUMED documents are not the paper's "
            f"({_paper.DIFFERENT_DATA['ohsumed']}).",
            f"{_paper.TEST_ERRORS['soft_vsm', 'ohsumed'].value} % against "
            f"{_paper.TEST_ERRORS['soft_vsm_quantized_ortho', 'ohsumed'].value} % test error (Figure 2 caption)",
            "05_confusion_tsne.html#fig-ohsumed-confusion",
        ),
        _pair_on("soft_vsm_quantized_ortho", "soft_vsm", "ohsumed"),
        False,
    ),
    Rule(
        Claim(
            "reuters-grain-as-crude",
            "§6.1 (Figure 4)",
            '"with non-regularized word embeddings, most documents from the class Grain are misclassified as the '
            'more common class Crude"',
            "The non-regularized 32-bit soft VSM on REUTERS's test documents of grain: the share it predicts as "
            "crude, with its 95 % Clopper–Pearson interval: holds when the interval lies above 1/2, does not hold "
            "when it lies below, open otherwise. Our REUTERS is not the paper's "
            f"({_paper.DIFFERENT_DATA['reuters']}).",
            f"stated ({_paper.REUTERS_CONFUSED.source})",
            "05_confusion_tsne.html#fig-reuters-confusion",
        ),
        _grain_as_crude,
        False,
    ),
    Rule(
        Claim(
            "reuters-separated",
            "§6.1 (Figure 4)",
            '"With regularized word embeddings, the classes are separated" (grain no longer predicted as crude)',
            "On REUTERS's test documents of grain, whether each is predicted as crude by the non-regularized 32-bit "
            "soft VSM and by the 1-bit orthogonalized one, exact McNemar test on that indicator (p < 0.05): holds "
            "when it decides that fewer are, does not hold when it decides that more are, open otherwise. Our "
            f"REUTERS is not the paper's ({_paper.DIFFERENT_DATA['reuters']}).",
            "stated (§6.1); Figure 4",
            "05_confusion_tsne.html#fig-reuters-confusion",
        ),
        _grain_separated,
        False,
    ),
    Rule(
        Claim(
            "20news-hierarchies",
            "§6.1 (Figures 6 and 7)",
            '"with non-regularized word embeddings, messages are often misclassified as a different newsgroup in '
            'the same Usenet hierarchy" ... "with regularized word embeddings, the clusters are separated"',
            "Whether each 20NEWS test message is misclassified as another newsgroup of its own top-level hierarchy "
            "(comp., rec., sci., talk., ...), by the non-regularized 32-bit soft VSM and by the 1-bit "
            "orthogonalized one, exact McNemar test on that indicator (p < 0.05): holds when it decides that fewer "
            "messages are with the regularized one, does not hold when more, open otherwise.",
            "stated (§6.1); Figures 6 and 7",
            "05_confusion_tsne.html#fig-20news-confusion",
        ),
        _within_hierarchy,
        False,
    ),
    Rule(
        Claim(
            "good-bad-neighbours",
            "§6.1",
            '"the embeddings for the words good and bad are mutual nearest neighbors with cosine similarity 0.58 '
            'for non-quantized and 0.4 for quantized word embeddings"',
            "Per model (chapter 2): holds when bad is good's nearest neighbour and good is bad's and their cosine, "
            "rounded as the paper rounds it, is the paper's; does not hold otherwise.",
            f"mutual nearest neighbours; cosine {_paper.GOOD_BAD['32-bit', 'paper'].value} (32-bit) and "
            f"{_paper.GOOD_BAD['1-bit', 'paper'].value} (1-bit) (§6.1)",
            "02_training.html#antonyms-stay-close",
            unit="model",
        ),
        _good_bad,
        False,
    ),
    Rule(
        Claim(
            "twitter-no-help",
            "§6.1",
            'On TWITTER, "word embeddings don\'t help us separate positive and negative documents"',
            "The non-regularized 32-bit soft VSM against always answering the training split's largest class "
            "(chapter 1's baseline) on TWITTER's test tweets, exact McNemar test (p < 0.05): holds when it decides "
            "that the baseline errs less, does not hold when it decides that the soft VSM errs less, open "
            "otherwise. A soft VSM that beats the baseline may owe that to the words it matches exactly rather "
            "than to the embeddings (Figure 8 sets it beside BoW).",
            f"stated (§6.1); the soft VSM's test error {_paper.TEST_ERRORS['soft_vsm', 'twitter'].value} % "
            f"({_paper.TEST_ERRORS['soft_vsm', 'twitter'].source})",
            "01_preprocessing.html#fig-class-distribution",
        ),
        _twitter_baseline,
        False,
    ),
    Rule(
        Claim(
            "matched-analogies",
            "§5.3",
            '1-bit embeddings in 1,000 dimensions and 32-bit ones in 200 "to achieve comparable performance on the '
            'word analogy task"',
            "The 32-bit model's analogy accuracy minus the 1-bit model's (chapter 2), with Newcombe's 95 % score "
            "interval of a difference of two independent proportions over the questions each was asked: holds "
            f"when the interval lies within ±{ANALOGY_MARGIN:g} points, does not hold when it lies outside them, "
            "open otherwise.",
            f"{_paper.DIMENSIONS['1-bit'].value:,} and {_paper.DIMENSIONS['32-bit'].value} dimensions (§5.3), no "
            f"accuracy given; the authors' runs on text8: {_paper.TEXT8_ANALOGY['32-bit'].value:.2f} % (32-bit) "
            f"and {_paper.TEXT8_ANALOGY['1-bit'].value:.2f} % (1-bit)",
            "02_training.html#quality-analogies-and-similarity-judgements",
            unit="",
        ),
        _analogies,
        False,
    ),
    Rule(
        Claim(
            "idf-common-orthogonal",
            "§4.2",
            '"With the parameter value Idf = true, words with small inverse document frequency, i.e. common words '
            "such as numerals, prepositions, and articles, are more likely to be mutually orthogonal ... than rare "
            'words"',
            "Per model, on chapter 3's small vocabulary at Theorem 1's grid point: the pairs S′ does not store "
            "(orthogonal in E′) among the most frequent words with an embedding, with Idf = true and false (exact "
            "McNemar on the pairs), and with Idf = true against as many of the rarest words (Fisher's exact test). "
            "Holds when both tests decide (p < 0.05) that the frequent words' pairs are orthogonal more often, "
            "does not hold when either decides the opposite, open otherwise. The tests count word pairs as "
            "independent, which they are not: they guard against a difference of a few pairs.",
            "stated (§4.2), with Figure 1's numerals as the example",
            "03_orthogonalization.html#the-paper-s-figure-1-embeddings-before-and-after-orthogonalization",
            unit="model",
        ),
        _idf_orthogonal,
        False,
    ),
    Rule(
        Claim(
            "wmd-intractable",
            "§6.4",
            '"using parameter optimization on the WMD with regularized embeddings is computationally intractable"',
            "Per data set, the one-core time that the WMD would need for the validation and test queries of the "
            f"paper's splits at each of the {_WMD_POINTS} points of the paper's orthogonalization grid (each S′ "
            "gives other embeddings E′), at the 32-bit WMD's rate with the paper's measure (chapter 4's brute "
            "force, every pair solved, as for the other speed claims): holds above one core-year, does not hold "
            "below one core-month, open between. Chapter 4's pruned exact search is shown beside it.",
            f"stated (§6.4); at Figure 9's WMD speed (≈ {_paper.SPEEDS['wmd'].value} pairs per second, read off) the "
            f"{_WMD_POINTS} points would take {_paper_wmd_years():,.0f} core-years over the six data sets",
            "04_scm_vs_wmd.html#what-the-wmd-costs",
            timed=True,
        ),
        _wmd_intractable,
        False,
    ),
)


def judge(evidence: Evidence) -> list[Judgement]:
    """Every claim of :data:`CLAIMS` judged on ``evidence``, per seed where the claim rests on a seeded model.

    Parameters
    ----------
    evidence : Evidence
        The chapters' evidence.

    Returns
    -------
    list of Judgement
        In :data:`CLAIMS`' order.

    Examples
    --------
    >>> truth = np.array([0, 1] * 10)
    >>> def result(method, wrong):  # errs on the first ``wrong`` of 20 test documents
    ...     predicted = np.where(np.arange(20) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1}, pd.DataFrame(), truth, {1: predicted})
    >>> results = {("bbcsport", m): result(m, w) for m, w in [("bow", 8), ("soft_vsm", 6), ("soft_vsm_ortho", 2)]}
    >>> {j.claim.key: j.verdict for j in judge(Evidence(results))}["regularization-each"]
    'open on BBCSPORT'
    """
    seeds = evidence.by_seed()
    judged = []
    for rule in CLAIMS:
        findings = []
        for seed, results in seeds.items() if rule.seeded else [(None, evidence.results)]:
            findings += [Finding(f.result, f.shown, f.unit, seed) for f in rule.judged(results, evidence)]
        judged.append(Judgement(rule.claim, tuple(findings), model_gap(evidence) if rule.models else ""))
    return judged


def judgement_table(judgements: Sequence[Judgement], on_paper: Sequence[Judgement] | None = None) -> pd.DataFrame:
    """The judgements as the book shows them: the claim (with its section), the paper's number, ours, the verdict, the
    verdict on the paper's documents (``on_paper``: :func:`judge` on :data:`regemb_utils.paper.PAPER_DOCUMENTS`;
    "same" where it reads as on every data set), the rule, the page that shows the evidence, whether the claim rests
    on a seeded model and whether its verdict differs between the seeds.

    Parameters
    ----------
    judgements : sequence of Judgement
        :func:`judge`'s, on every data set.
    on_paper : sequence of Judgement, optional
        :func:`judge`'s on the data sets whose documents are the paper's.

    Returns
    -------
    pandas.DataFrame
        Columns key, claim, paper, ours, verdict, on the paper's documents, the last two in brief (naming the data
        sets whose result moves with the seed without what each seed gives), rule, where, seeded, depends on the
        seed (on all data sets, and on the paper's documents), holds everywhere, timed.

    Examples
    --------
    >>> from regemb_utils.study.claims import Claim, Finding, Judgement
    >>> claim = Claim("x", "§1", "It works", "Holds when it works.", "stated", "p.html#a")
    >>> everywhere = Judgement(claim, (Finding("holds", "1", "BBCSPORT"), Finding("open", "0", "REUTERS")))
    >>> there = Judgement(claim, (Finding("holds", "1", "BBCSPORT"),))
    >>> judgement_table([everywhere], [there]).loc[0, ["verdict", "on the paper's documents"]].tolist()
    ['holds on 1 of 2 data sets (BBCSPORT), open on 1 (REUTERS)', 'holds on BBCSPORT']
    >>> only_reuters = Judgement(claim, (Finding("open", "0", "REUTERS"),))
    >>> judgement_table([only_reuters], [Judgement(claim, ())]).loc[0, "on the paper's documents"]
    "not judged: its data sets are not the paper's documents"
    """
    there = {j.claim.key: j for j in on_paper or ()}

    def on_papers_documents(j: Judgement, brief: bool = False) -> str:
        paper = there.get(j.claim.key)
        if paper is None or paper.verdict == j.verdict:
            return "same"
        if not paper.findings and j.findings:  # a claim about OHSUMED or REUTERS alone
            return "not judged: its data sets are not the paper's documents"
        return paper.brief_verdict if brief else paper.verdict

    return pd.DataFrame(
        [
            {
                "key": j.claim.key,
                "claim": f"{j.claim.words} ({j.claim.section})",
                "paper": j.claim.paper,
                "ours": j.ours,
                "verdict": j.verdict,
                "on the paper's documents": on_papers_documents(j),
                "brief verdict": j.brief_verdict,
                "brief on the paper's documents": on_papers_documents(j, brief=True),
                "rule": j.claim.rule,
                "where": j.claim.where,
                "seeded": any(f.seed is not None for f in j.findings),
                "depends on the seed": j.depends_on_seed,
                "depends on the seed on the paper's documents": j.claim.key in there
                and there[j.claim.key].depends_on_seed,
                "holds everywhere": j.holds_everywhere,
                "timed": j.claim.timed,
            }
            for j in judgements
        ],
        columns=[
            "key",
            "claim",
            "paper",
            "ours",
            "verdict",
            "on the paper's documents",
            "brief verdict",
            "brief on the paper's documents",
            "rule",
            "where",
            "seeded",
            "depends on the seed",
            "depends on the seed on the paper's documents",
            "holds everywhere",
            "timed",
        ],
    )


def verdict_tables(claims: pd.DataFrame) -> tuple[Table, Table]:
    """The verdict tables of chapter 6 and of the landing page, both from one :func:`judgement_table`: chapter 6's
    with the paper's number and ours, the landing page's with the claim and the verdicts in brief (a data set whose
    result moves with the seed named, what each seed gives left to chapter 6); each claim links to the page that
    shows its evidence (the landing page's links start in the chapters' folder).

    Parameters
    ----------
    claims : pandas.DataFrame
        :func:`judgement_table`.

    Returns
    -------
    (Table, Table)
        Chapter 6's table and the landing page's.

    Examples
    --------
    >>> claims = judgement_table([Judgement(Claim("x", "§1", "It works", "Holds when it works.", "stated", "p.html#a"))])
    >>> chapter, landing = verdict_tables(claims)
    >>> 'href="p.html#a"' in chapter.html, 'href="notebooks/p.html#a"' in landing.html
    (True, True)
    """
    chapter = table(
        claims[["claim", "paper", "ours", "verdict", "on the paper's documents"]], links={"claim": claims["where"]}
    )
    brief = claims[["claim", "brief verdict", "brief on the paper's documents"]].rename(
        columns={"brief verdict": "verdict", "brief on the paper's documents": "on the paper's documents"}
    )
    landing = table(brief, links={"claim": "notebooks/" + claims["where"]})
    return chapter, landing
