"""Confidence intervals and significance tests for kNN test errors (paper §5.5; notes §9).

* :func:`agresti_coull` – the paper's 95 % interval (Agresti & Coull 1998) with the point estimate x/n
  (statsmodels' ``proportion_confint(method="agresti_coull")``).
* :func:`mcnemar_exact` – the exact McNemar test on paired predictions of two classifiers over the same test set;
  the correct test for comparing two error rates measured on the *same* documents (SciPy's ``binomtest``).
* :func:`benjamini_hochberg` – BH q-values (SciPy's ``false_discovery_control``).
* :func:`paper_t_test` – the paper's own "t-test", reproducing its flaw (see its docstring).
* :func:`compare` – one entry point choosing between the two tests by name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "agresti_coull",
    "McNemarResult",
    "mcnemar_exact",
    "benjamini_hochberg",
    "PaperTTestResult",
    "paper_t_test",
    "compare",
    "TESTS",
]

TESTS = ("mcnemar", "paper_t")


def agresti_coull(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(x/n, lower, upper): the Agresti–Coull interval for a binomial proportion, as the paper computed it.

    z = Φ⁻¹(1 − α/2); ñ = n + z²; p̃ = (x + z²/2)/ñ; bounds p̃ ± z √(p̃(1 − p̃)/ñ), clipped to [0, 1] (statsmodels'
    ``proportion_confint(method="agresti_coull")``; the tests check it against this formula). The point
    estimate is x/n (not p̃). Pass the number of errors to get an interval for the error rate: the paper built it for
    the accuracy and converted it, which gives the same interval because Agresti–Coull is symmetric under x ↦ n − x.
    """
    if trials <= 0:
        raise ValueError("the number of trials must be positive")
    if not 0 <= successes <= trials:
        raise ValueError("the number of successes must lie in [0, trials]")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie in (0, 1)")
    from statsmodels.stats.proportion import proportion_confint

    lower, upper = proportion_confint(successes, trials, alpha=1 - confidence, method="agresti_coull")
    return successes / trials, float(lower), float(upper)


@dataclass(frozen=True)
class McNemarResult:
    only_a_correct: int  # b: classifier A right, B wrong
    only_b_correct: int  # c: classifier B right, A wrong
    pvalue: float


def mcnemar_exact(predictions_a, predictions_b, truth) -> McNemarResult:
    """Exact (binomial) two-sided McNemar test on paired predictions.

    Under H0 the discordant pairs split 50:50: p = binomtest(b, b + c, 0.5, 'two-sided'); p = 1 when b + c = 0.
    """
    a, b, t = (np.asarray(v) for v in (predictions_a, predictions_b, truth))
    if not (a.shape == b.shape == t.shape) or a.ndim != 1:
        raise ValueError("predictions and truth must be 1-D arrays of the same length")
    a_correct, b_correct = a == t, b == t
    only_a = int(np.sum(a_correct & ~b_correct))
    only_b = int(np.sum(b_correct & ~a_correct))
    if only_a + only_b == 0:
        return McNemarResult(only_a, only_b, 1.0)
    pvalue = stats.binomtest(only_a, only_a + only_b, 0.5, alternative="two-sided").pvalue
    return McNemarResult(only_a, only_b, float(pvalue))


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini–Hochberg q-values (step-up, monotone, capped at 1), in the input order: SciPy's
    ``false_discovery_control(p, method="bh")``."""
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("pvalues must be 1-D")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    return stats.false_discovery_control(p, method="bh") if len(p) else p.copy()


@dataclass(frozen=True)
class PaperTTestResult:
    t: float
    df: int
    pvalue: float  # one-sided: 1 - T.cdf(t, df)
    pooled: bool  # whether the F test chose the pooled-variance formula


def paper_t_test(accuracy_1: float, n_1: int, accuracy_2: float, n_2: int, alpha: float = 0.05) -> PaperTTestResult:
    """The paper's "Student's t-test" (``f_test`` in its notebook), reproduced with its flaw (notes §9, §11.5).

    What it computes:

    1. "variances" vᵢ = pᵢ(1 − pᵢ)/nᵢ of the two accuracies – these are already variances *of the mean*;
    2. an F test of max(v)/min(v) with df (n₁ − 1, n₂ − 1) at level α/2 chooses between the unequal-variance
       statistic t = (p₁ − p₂)/√(v₁/n₁ + v₂/n₂) and the pooled one
       t = (p₁ − p₂)/√(s²/n₁ + s²/n₂), s² = ((n₁ − 1)v₁ + (n₂ − 1)v₂)/(n₁ + n₂ − 2);
    3. df = n₁ + n₂ − 2 in both cases (no Welch correction) and the one-sided p-value 1 − T.cdf(t, df).

    How it differs from a correct test: vᵢ is divided by nᵢ a **second** time in step 2, so the standard error is
    ≈ √n too small and t ≈ √n too large; with n in the hundreds or thousands almost every difference comes out
    "significant". The p-value is one-sided (for p₁ > p₂) although the paper speaks of finding differences, and
    the two error rates are treated as independent samples although they are measured on the *same* test
    documents (a paired test such as :func:`mcnemar_exact` is the right one). The paper then applied BH over all
    126 tests and called q < α/2 significant. The F-test step is reconstructed from the notes (the ratio
    max/min and the degrees of freedom (n₁ − 1, n₂ − 1)); it only chooses between two formulas that are both
    wrong in the same way.
    """
    for n in (n_1, n_2):
        if n < 2:
            raise ValueError("each sample needs at least two trials")
    for p in (accuracy_1, accuracy_2):
        if not 0 <= p <= 1:
            raise ValueError("accuracies must lie in [0, 1]")
    v_1 = accuracy_1 * (1 - accuracy_1) / n_1
    v_2 = accuracy_2 * (1 - accuracy_2) / n_2
    df = n_1 + n_2 - 2
    difference = accuracy_1 - accuracy_2
    if min(v_1, v_2) > 0:
        f_value = max(v_1, v_2) / min(v_1, v_2)
        f_pvalue = 1 - stats.f.cdf(f_value, n_1 - 1, n_2 - 1)
        pooled = not f_pvalue < alpha / 2
    else:
        pooled = True
    if pooled:
        s2 = ((n_1 - 1) * v_1 + (n_2 - 1) * v_2) / df
        standard_error = math.sqrt(s2 / n_1 + s2 / n_2)
    else:
        standard_error = math.sqrt(v_1 / n_1 + v_2 / n_2)
    if standard_error == 0:
        t = 0.0 if difference == 0 else math.copysign(math.inf, difference)
    else:
        t = difference / standard_error
    return PaperTTestResult(t=t, df=df, pvalue=float(1 - stats.t.cdf(t, df)), pooled=pooled)


def compare(predictions_a, predictions_b, truth, test: str = "mcnemar", alpha: float = 0.05) -> float:
    """p-value of a comparison of two classifiers on the same test set: ``test`` ∈ :data:`TESTS`."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {TESTS}")
    if test == "mcnemar":
        return mcnemar_exact(predictions_a, predictions_b, truth).pvalue
    a, b, t = (np.asarray(v) for v in (predictions_a, predictions_b, truth))
    return paper_t_test(float(np.mean(a == t)), len(t), float(np.mean(b == t)), len(t), alpha).pvalue
