import math

import numpy as np
import pytest

from regemb_utils.classification.statistics import (
    agresti_coull,
    benjamini_hochberg,
    compare,
    mcnemar_exact,
    paper_t_test,
)


def test_agresti_coull_closed_form():
    z = 1.959963984540054
    x, n = 48, 220
    n_tilde = n + z * z
    p_tilde = (x + z * z / 2) / n_tilde
    radius = z * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    estimate, lower, upper = agresti_coull(x, n)
    assert estimate == x / n
    assert lower == pytest.approx(p_tilde - radius, abs=1e-12) and upper == pytest.approx(p_tilde + radius, abs=1e-12)
    # symmetric under x -> n - x: the error interval is 1 - the accuracy interval
    _, acc_lower, acc_upper = agresti_coull(n - x, n)
    assert lower == pytest.approx(1 - acc_upper) and upper == pytest.approx(1 - acc_lower)
    assert agresti_coull(0, 5)[1] == 0.0  # clipped
    for x, n in ((0, 5), (5, 5), (1, 7), (300, 7528)):  # the library against the closed form, clipped
        n_tilde = n + z * z
        p_tilde = (x + z * z / 2) / n_tilde
        radius = z * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
        _, lower, upper = agresti_coull(x, n)
        assert lower == pytest.approx(max(0.0, p_tilde - radius), abs=1e-12)
        assert upper == pytest.approx(min(1.0, p_tilde + radius), abs=1e-12)
    with pytest.raises(ValueError):
        agresti_coull(3, 0)


def test_mcnemar_exact_against_binomial_sum():
    truth = np.zeros(20, dtype=int)
    a = truth.copy()
    b = truth.copy()
    a[:2] = 1  # 2 pairs where only B is right
    b[2:10] = 1  # 8 pairs where only A is right
    result = mcnemar_exact(a, b, truth)
    assert (result.only_a_correct, result.only_b_correct) == (8, 2)
    expected = min(1.0, 2 * sum(math.comb(10, i) for i in range(0, 3)) / 2**10)
    assert result.pvalue == pytest.approx(expected)
    assert mcnemar_exact(truth, truth, truth).pvalue == 1.0
    assert compare(a, b, truth) == pytest.approx(expected)
    from statsmodels.stats.contingency_tables import mcnemar

    assert mcnemar([[10, 8], [2, 0]], exact=True).pvalue == pytest.approx(expected)  # statsmodels agrees
    with pytest.raises(ValueError):
        compare(a, b, truth, test="wilcoxon")


def _benjamini_hochberg_by_hand(p):
    """Step-up BH: q_(i) = min over j ≥ i of p_(j) m / j, capped at 1 (the hand check of SciPy's)."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    q = np.empty(m)
    q[order] = np.minimum(np.minimum.accumulate(ranked[::-1])[::-1], 1.0)
    return q


def test_benjamini_hochberg():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    # sorted 0.01, 0.03, 0.04, 0.2 -> 0.04, 0.06, 0.0533, 0.2 -> monotone 0.04, 0.0533, 0.0533, 0.2
    assert np.allclose(benjamini_hochberg(p), [0.04, 0.16 / 3, 0.16 / 3, 0.2])
    rng = np.random.default_rng(3)
    for p in (rng.random(126), rng.random(40) ** 4, np.repeat(rng.random(10), 3), np.array([1.0, 0.0, 0.5])):
        np.testing.assert_allclose(benjamini_hochberg(p), _benjamini_hochberg_by_hand(p), rtol=1e-12, atol=0)
    assert benjamini_hochberg([]).shape == (0,)
    with pytest.raises(ValueError):
        benjamini_hochberg([0.5, 1.5])
    assert np.all(benjamini_hochberg(np.array([0.9, 0.99])) <= 1)


def test_paper_t_test_reproduces_the_double_division():
    p1, p2, n = 0.80, 0.78, 1000
    result = paper_t_test(p1, n, p2, n)
    v1, v2 = p1 * (1 - p1) / n, p2 * (1 - p2) / n
    pooled = (v1 + v2) / 2
    assert result.pooled and result.df == 2 * n - 2
    assert result.t == pytest.approx((p1 - p2) / math.sqrt(2 * pooled / n))
    correct_t = (p1 - p2) / math.sqrt(v1 + v2)
    assert result.t / correct_t == pytest.approx(math.sqrt(n), rel=1e-12)
    assert result.pvalue < 0.001  # "significant" although a correct test would not be (t ≈ 1.1)
