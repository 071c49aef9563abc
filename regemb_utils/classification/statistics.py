"""Confidence intervals and significance tests for kNN test errors (paper §5.5; the appendix on the paper's code,
"Statistics").

* :func:`agresti_coull` – the paper's 95 % interval (Agresti & Coull 1998) with the point estimate x/n
  (statsmodels' ``proportion_confint(method="agresti_coull")``).
* :func:`mcnemar_exact` – the exact McNemar test on paired predictions of two classifiers over the same test set;
  the correct test for comparing two error rates measured on the *same* documents (SciPy's ``binomtest``).
* :func:`benjamini_hochberg` – BH q-values (SciPy's ``false_discovery_control``).
* :func:`paper_t_test` – the paper's own "t-test", reproducing its flaw (see its docstring).
* :func:`compare` – one entry point choosing between the two tests by name.
* :func:`mcnemar_power`, :func:`mcnemar_sample_size` – the exact power of the exact McNemar test and the sample
  size that reaches a given power (chapter 4's WMD samples).
* :func:`paired_difference_interval` – Newcombe's interval for the difference of two paired proportions.
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
    "discordant_probabilities",
    "mcnemar_power",
    "mcnemar_sample_size",
    "wilson_interval",
    "PairedDifference",
    "paired_difference_interval",
]

TESTS = ("mcnemar", "paper_t")


def agresti_coull(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(x/n, lower, upper): the Agresti–Coull interval for a binomial proportion, as the paper computed it.

    z = Φ⁻¹(1 − α/2); ñ = n + z²; p̃ = (x + z²/2)/ñ; bounds p̃ ± z √(p̃(1 − p̃)/ñ), clipped to [0, 1] (statsmodels'
    ``proportion_confint(method="agresti_coull")``; the tests check it against this formula). The point
    estimate is x/n (not p̃). Pass the number of errors to get an interval for the error rate: the paper built it for
    the accuracy and converted it, which gives the same interval because Agresti–Coull is symmetric under x ↦ n − x.

    Parameters
    ----------
    successes : int
        x.
    trials : int
        n.
    confidence : float
        1 − α.

    Returns
    -------
    (float, float, float)
        The point estimate and the interval's bounds.

    Examples
    --------
    >>> [round(v, 4) for v in agresti_coull(20, 100)]
    [0.2, 0.1326, 0.2896]
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
    """The discordant pairs of two classifiers and the exact McNemar test's p-value (:func:`mcnemar_exact`).

    Parameters
    ----------
    only_a_correct : int
        Documents A classifies right and B wrong.
    only_b_correct : int
        Documents B classifies right and A wrong.
    pvalue : float
        The two-sided p-value.

    Examples
    --------
    See :func:`mcnemar_exact`.
    """

    only_a_correct: int  # b: classifier A right, B wrong
    only_b_correct: int  # c: classifier B right, A wrong
    pvalue: float


def mcnemar_exact(predictions_a, predictions_b, truth) -> McNemarResult:
    """Exact (binomial) two-sided McNemar test on paired predictions.

    Under H0 the discordant pairs split 50:50: p = binomtest(b, b + c, 0.5, 'two-sided'); p = 1 when b + c = 0.

    Parameters
    ----------
    predictions_a, predictions_b, truth : array_like
        Two classifiers' predictions of the same documents and the true labels.

    Returns
    -------
    McNemarResult
        The discordant counts and the p-value.

    Examples
    --------
    >>> truth = [0] * 10
    >>> result = mcnemar_exact([0] * 10, [1] * 6 + [0] * 4, truth)
    >>> round(result.pvalue, 4)
    0.0312
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
    ``false_discovery_control(p, method="bh")``.

    Parameters
    ----------
    pvalues : array_like
        The p-values of a family of tests.

    Returns
    -------
    numpy.ndarray
        Their q-values.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("pvalues must be 1-D")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    return stats.false_discovery_control(p, method="bh") if len(p) else p.copy()


@dataclass(frozen=True)
class PaperTTestResult:
    """The paper's t-test (:func:`paper_t_test`).

    Parameters
    ----------
    t : float
        The statistic.
    df : int
        Its degrees of freedom.
    pvalue : float
        One-sided: ``1 - T.cdf(t, df)``.
    pooled : bool
        Whether the F test chose the pooled-variance formula.

    Examples
    --------
    See :func:`paper_t_test`.
    """

    t: float
    df: int
    pvalue: float  # one-sided: 1 - T.cdf(t, df)
    pooled: bool  # whether the F test chose the pooled-variance formula


def paper_t_test(accuracy_1: float, n_1: int, accuracy_2: float, n_2: int, alpha: float = 0.05) -> PaperTTestResult:
    """The paper's "Student's t-test" (``f_test`` in its notebook), reproduced with its flaw (the appendix on the
    paper's code, "Statistics").

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
    126 tests and called q < α/2 significant. The F-test step is reconstructed from the paper's code (the
    appendix: the ratio max/min and the degrees of freedom (n₁ − 1, n₂ − 1)); it only chooses between two formulas
    that are both wrong in the same way.

    Parameters
    ----------
    accuracy_1, accuracy_2 : float
        The two accuracies, in [0, 1] (the better one first, as the paper's order is assumed to be).
    n_1, n_2 : int
        Their test documents (at least 2).
    alpha : float
        The level of the F test that picks the formula.

    Returns
    -------
    PaperTTestResult
        t, df, the one-sided p-value and which formula was used.

    Raises
    ------
    ValueError
        For fewer than two trials or an accuracy outside [0, 1].

    Examples
    --------
    >>> result = paper_t_test(0.90, 500, 0.88, 500)  # 2 points apart: "significant" (t ≈ √n too large)
    >>> round(result.t, 2), result.df, result.pvalue < 1e-6, result.pooled
    (22.61, 998, True, True)
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
    """p-value of a comparison of two classifiers on the same test set: ``test`` ∈ :data:`TESTS`.

    Parameters
    ----------
    predictions_a, predictions_b, truth : array_like
        Two classifiers' predictions of the same documents and the true labels.
    test : {"mcnemar", "paper_t_test"}
        The test.
    alpha : float
        The level (the paper's t-test reports significance at it).

    Returns
    -------
    float
        The p-value.

    Examples
    --------
    >>> round(compare([0] * 10, [1] * 6 + [0] * 4, [0] * 10), 4)
    0.0312
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {TESTS}")
    if test == "mcnemar":
        return mcnemar_exact(predictions_a, predictions_b, truth).pvalue
    a, b, t = (np.asarray(v) for v in (predictions_a, predictions_b, truth))
    return paper_t_test(float(np.mean(a == t)), len(t), float(np.mean(b == t)), len(t), alpha).pvalue


# ----------------------------------------------------------------------------------------------------------------
# paired comparisons of two classifiers: power of the exact McNemar test, the interval of the paired difference


def _mcnemar_critical(d: np.ndarray, alpha: float) -> np.ndarray:
    """For each number of discordant pairs d: the largest c with 2·P(Bin(d, ½) ≤ c) ≤ α (−1 if none), so that the
    exact two-sided McNemar test (:func:`mcnemar_exact`) rejects exactly when min(b, d − b) ≤ c."""
    d = np.asarray(d, dtype=np.int64)
    half = alpha / 2 * (1 + 1e-12)
    c = stats.binom.ppf(alpha / 2, d, 0.5)  # the smallest c with P(X ≤ c) ≥ α/2
    c = np.where(stats.binom.cdf(c, d, 0.5) <= half, c, c - 1)
    return np.where(d > 0, c, -1).astype(np.int64)


def discordant_probabilities(error_a: float, error_b: float, correlation: float = 0.0) -> tuple[float, float]:
    """(P(A right, B wrong), P(A wrong, B right)) for two classifiers with error rates ``error_a`` and ``error_b``
    whose error indicators have the (phi) ``correlation``; 0 means independent errors, which gives the most
    discordant pairs and so the least power for a given difference when the real correlation is positive (two kNN
    classifiers on the same documents tend to err on the same hard documents).

    Parameters
    ----------
    error_a, error_b : float
        The two error rates.
    correlation : float
        The phi correlation of the error indicators.

    Returns
    -------
    (float, float)
        The two discordant probabilities.

    Examples
    --------
    >>> discordant_probabilities(0.2, 0.1)
    (0.08, 0.18)
    """
    for e in (error_a, error_b):
        if not 0 <= e <= 1:
            raise ValueError("error rates must lie in [0, 1]")
    both = error_a * error_b + correlation * math.sqrt(error_a * (1 - error_a) * error_b * (1 - error_b))
    if not max(0.0, error_a + error_b - 1) - 1e-12 <= both <= min(error_a, error_b) + 1e-12:
        raise ValueError(f"correlation {correlation} is impossible for error rates {error_a} and {error_b}")
    return max(error_b - both, 0.0), max(error_a - both, 0.0)


def mcnemar_power(n: int, only_a_right: float, only_b_right: float, alpha: float = 0.05) -> float:
    """Exact power of the exact two-sided McNemar test (:func:`mcnemar_exact`) at level ``alpha`` on ``n`` paired
    documents, when a document is discordant in A's favour with probability ``only_a_right`` and in B's with
    ``only_b_right``: Σ_d P(D = d) · P(reject | d), D ~ Bin(n, ψ) with ψ the sum of the two, and given d the count
    in A's favour ~ Bin(d, only_a_right/ψ).

    Parameters
    ----------
    n : int
        Paired documents.
    only_a_right, only_b_right : float
        The two discordant probabilities.
    alpha : float
        The test's level.

    Returns
    -------
    float
        The probability that the test rejects.

    Examples
    --------
    >>> round(mcnemar_power(100, 0.15, 0.05), 4)
    0.5444
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    psi = only_a_right + only_b_right
    if n == 0 or psi <= 0:
        return 0.0
    d = np.arange(n + 1)
    c = _mcnemar_critical(d, alpha)
    share = only_a_right / psi
    reject = np.where(c >= 0, stats.binom.cdf(c, d, share) + stats.binom.sf(d - c - 1, d, share), 0.0)
    return float(np.sum(stats.binom.pmf(d, n, psi) * reject))


def mcnemar_sample_size(
    only_a_right: float, only_b_right: float, power: float = 0.8, alpha: float = 0.05, maximum: int = 100_000
) -> int:
    """The smallest number of paired documents n at which the exact McNemar test reaches ``power`` (by
    :func:`mcnemar_power`), searched upwards from half the normal approximation's n (Connor 1987). The exact power
    is a saw-tooth in n, so a slightly larger n can fall just short again; the n returned reaches the power.

    Parameters
    ----------
    only_a_right, only_b_right : float
        The two discordant probabilities.
    power : float
        The power to reach.
    alpha : float
        The test's level.
    maximum : int
        Give up above this n.

    Returns
    -------
    int
        The smallest n that reaches the power.

    Examples
    --------
    >>> mcnemar_sample_size(0.15, 0.05)
    168
    """
    if not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError("power and alpha must lie in (0, 1)")
    psi, delta = only_a_right + only_b_right, abs(only_a_right - only_b_right)
    if delta <= 0:
        raise ValueError("equal discordant probabilities: no difference to detect")
    z_alpha, z_beta = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    approximate = (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(psi - delta**2)) ** 2 / delta**2
    for n in range(max(1, int(approximate / 2)), maximum + 1):
        if mcnemar_power(n, only_a_right, only_b_right, alpha) >= power:
            return n
    raise ValueError(f"more than {maximum} documents needed")


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion (closed form).

    Parameters
    ----------
    successes : int
        x.
    trials : int
        n.
    confidence : float
        1 − α.

    Returns
    -------
    (float, float)
        The interval's bounds.

    Examples
    --------
    >>> [round(float(v), 4) for v in wilson_interval(20, 100)]
    [0.1334, 0.2888]
    """
    if trials <= 0:
        raise ValueError("the number of trials must be positive")
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    p = successes / trials
    centre = (p + z**2 / (2 * trials)) / (1 + z**2 / trials)
    radius = z / (1 + z**2 / trials) * math.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2))
    return max(0.0, centre - radius), min(1.0, centre + radius)


@dataclass(frozen=True)
class PairedDifference:
    """A difference of two paired error rates with its interval (:func:`paired_difference_interval`).

    Parameters
    ----------
    difference : float
        p_a − p_b.
    lower, upper : float
        The interval's bounds.

    Examples
    --------
    See :func:`paired_difference_interval`.
    """

    difference: float  # p_a − p_b
    lower: float
    upper: float


def paired_difference_interval(
    a_only: int, b_only: int, both: int, neither: int, confidence: float = 0.95
) -> PairedDifference:
    """Newcombe's (1998, method 10) hybrid score interval for the difference p_a − p_b of two proportions measured on
    the same n items: ``a_only`` items have the property under A only, ``b_only`` under B only, ``both`` under both,
    ``neither`` under neither (pass errors to get the difference of error rates).

    With Wilson intervals (l₁, u₁) for p_a and (l₂, u₂) for p_b and φ the phi coefficient of the 2×2 table (0 when
    a margin is empty): L = θ̂ − √((p_a − l₁)² − 2φ(p_a − l₁)(u₂ − p_b) + (u₂ − p_b)²),
    U = θ̂ + √((u₁ − p_a)² − 2φ(u₁ − p_a)(p_b − l₂) + (p_b − l₂)²). The interval stays in [−1, 1], is never
    degenerate and covers close to the nominal level down to small n (Newcombe 1998; Fagerland et al. 2014).

    Parameters
    ----------
    a_only, b_only, both, neither : int
        Documents only A, only B, both and neither classified right.
    confidence : float
        1 − α.

    Returns
    -------
    PairedDifference
        The difference of the error rates (B's minus A's) and its interval.

    Examples
    --------
    >>> result = paired_difference_interval(10, 4, 80, 6)
    >>> round(result.difference, 2), round(result.lower, 3), round(result.upper, 3)
    (0.06, -0.014, 0.138)
    """
    counts = (a_only, b_only, both, neither)
    if any(c < 0 for c in counts) or sum(counts) == 0:
        raise ValueError("counts must be non-negative with a positive total")
    n = sum(counts)
    p_a, p_b = (both + a_only) / n, (both + b_only) / n
    l1, u1 = wilson_interval(both + a_only, n, confidence)
    l2, u2 = wilson_interval(both + b_only, n, confidence)
    margins = (both + a_only) * (b_only + neither) * (both + b_only) * (a_only + neither)
    phi = (both * neither - a_only * b_only) / math.sqrt(margins) if margins > 0 else 0.0
    theta = p_a - p_b
    lower = theta - math.sqrt(max(0.0, (p_a - l1) ** 2 - 2 * phi * (p_a - l1) * (u2 - p_b) + (u2 - p_b) ** 2))
    upper = theta + math.sqrt(max(0.0, (u1 - p_a) ** 2 - 2 * phi * (u1 - p_a) * (p_b - l2) + (p_b - l2) ** 2))
    return PairedDifference(theta, max(-1.0, lower), min(1.0, upper))
