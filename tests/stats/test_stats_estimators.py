"""Two-call estimators (paper Section 4.4), U-statistics from K calls, and empirical vote accuracy."""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats
from stats_helpers import simulate_bits

from certify import InputError, majority_polynomial
from certify.stats import (
    all_call_estimates,
    compare_budgets,
    compare_policies,
    empirical_vote_accuracy,
    per_example_vote_accuracy,
    two_call_estimates,
    two_call_from_summary,
)
from certify.readers import bits_from_array


def test_two_call_estimates_by_hand():
    b = np.array([[1, 1], [1, 0], [0, 1], [0, 0], [1, 1], [1, 1]], float)
    est = two_call_estimates(bits_from_array(b))
    # X_i = ((B1 + B2)/2, B1 B2) written out: (1,1), (.5,0), (.5,0), (0,0), (1,1), (1,1)
    x = np.array([[1, 1], [0.5, 0], [0.5, 0], [0, 0], [1, 1], [1, 1]])
    assert est.mu == pytest.approx(4 / 6) and est.nu == pytest.approx(3 / 6)
    assert est.pair_counts == (3, 2, 1)
    dev = x - x.mean(0)
    cov = dev.T @ dev / 5
    np.testing.assert_allclose(est.sigma, cov, rtol=1e-14)
    assert est.se_mu == pytest.approx(math.sqrt(cov[0, 0] / 6))
    assert est.rho == pytest.approx((0.5 - (2 / 3) ** 2) / (2 / 3 / 3))
    # delta method against a central-difference gradient of rho(mu, nu)
    rho = lambda m, v: (v - m * m) / (m * (1 - m))  # noqa: E731
    h = 1e-7
    g = np.array([(rho(est.mu + h, est.nu) - rho(est.mu - h, est.nu)) / (2 * h), (rho(est.mu, est.nu + h) - rho(est.mu, est.nu - h)) / (2 * h)])
    assert est.se_rho == pytest.approx(math.sqrt(g @ cov @ g / 6), rel=1e-6)
    assert est.pair_table.disagree == pytest.approx(2 / 6)


def test_only_first_two_calls_enter():
    rng = np.random.default_rng(0)
    b = simulate_bits(rng.beta(2, 2, 50), 4, rng)
    assert two_call_estimates(bits_from_array(b)) == two_call_estimates(bits_from_array(b[:, :2]))


def test_summary_covariance_equals_sample_covariance_of_matching_data():
    n11, nd, n00 = 30, 12, 8
    b = np.array([[1, 1]] * n11 + [[1, 0]] * (nd // 2) + [[0, 1]] * (nd // 2) + [[0, 0]] * n00, float)
    data = two_call_estimates(bits_from_array(b))
    summ = two_call_from_summary(data.mu, 50, nu=data.nu)
    np.testing.assert_allclose(summ.sigma, data.sigma, rtol=1e-12, atol=1e-15)
    summ_rho = two_call_from_summary(data.mu, 50, rho=data.rho)
    np.testing.assert_allclose(summ_rho.sigma, data.sigma, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(mu=0.7, n=100), "exactly one of nu-hat or rho-hat"),
        (dict(mu=0.7, n=100, nu=0.5, rho=0.2), "exactly one of nu-hat or rho-hat"),
        (dict(mu=0.7, n=1, rho=0.2), "n=1 must be an integer >= 2"),
        (dict(mu=0.7, n=10.5, rho=0.2), "n=10.5 must be an integer"),
        (dict(mu=1.2, n=10, rho=0.2), r"mu-hat=1.2 must lie in \[0, 1\]"),
        (dict(mu=0.5, n=10, nu=0.6), "is not a pair table"),
        (dict(mu=float("nan"), n=10, nu=0.6), "must be a finite number"),
    ],
)
def test_summary_bad_inputs(kwargs, match):
    mu = kwargs.pop("mu")
    n = kwargs.pop("n")
    with pytest.raises(InputError, match=match):
        two_call_from_summary(mu, n, **kwargs)


def test_two_call_needs_two_examples():
    with pytest.raises(InputError, match="at least 2 examples"):
        two_call_estimates(bits_from_array([[1, 0]]))


def test_u_statistics_equal_averages_over_all_subsets():
    rng = np.random.default_rng(1)
    b = simulate_bits(rng.beta(2, 1, 40), 5, rng)
    est = all_call_estimates(bits_from_array(b))
    assert est.order == 5
    for k in range(1, 6):
        per = np.array([np.mean([np.prod(row[list(c)]) for c in itertools.combinations(range(5), k)]) for row in b])
        assert est.moments[k - 1] == pytest.approx(per.mean(), abs=1e-14)
        assert est.se[k - 1] == pytest.approx(per.std(ddof=1) / math.sqrt(40), rel=1e-12)


def test_u_statistic_ragged_uses_each_examples_own_calls():
    b = np.array([[1, 0, 1, np.nan], [1, 1, 0, 1], [0, 1, 1, 1]])
    est = all_call_estimates(bits_from_array(b))
    assert est.order == 3 and est.calls == (3, 4)
    nu_per = [1 / 3, 3 / 6, 3 / 6]  # pairs both correct / all pairs, per example
    assert est.nu == pytest.approx(np.mean(nu_per))
    with pytest.raises(InputError, match="order=4 must be between 1 and the smallest call count 3"):
        all_call_estimates(bits_from_array(b), order=4)
    with pytest.raises(InputError, match="1 example\\(s\\): standard errors need at least 2"):
        all_call_estimates(bits_from_array(b[:1]))


def test_u_statistics_with_thousands_of_calls_are_exact_ratios():
    """C(S, k) / C(K, k) for k where both binomials overflow a double: against exact integers."""
    rng = np.random.default_rng(3)
    K = 1500
    b = (rng.random((6, K)) < rng.uniform(0.3, 0.95, 6)[:, None]).astype(int)
    est = all_call_estimates(bits_from_array(b))
    assert np.all(np.isfinite(est.moments)) and np.all(np.isfinite(est.cov))
    s = b.sum(axis=1)
    for k in (1, 2, 700, int(s.min()), int(s.max()) + 1, K):
        exact = sum(math.comb(int(x), k) / math.comb(K, k) for x in s) / len(s)  # int / int: correctly rounded
        assert est.moments[k - 1] == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_u_statistic_covariance_is_capped_and_standard_errors_cover_every_moment():
    """4 examples x 2,000 calls: the covariance stays 64 x 64 (not 4 million numbers); every se is sqrt(s^2/n)."""
    rng = np.random.default_rng(5)
    K = 2000
    b = (rng.random((4, K)) < np.array([0.2, 0.5, 0.7, 0.9])[:, None]).astype(int)
    est = all_call_estimates(bits_from_array(b))
    assert len(est.cov) == 64 and all(len(row) == 64 for row in est.cov) and len(est.se) == est.order == K
    s = b.sum(axis=1)
    for k in (1, 2, 64, 65, 1000):
        terms = [math.comb(int(x), k) / math.comb(K, k) for x in s]
        mean = sum(terms) / 4
        var = sum((t - mean) ** 2 for t in terms) / 3
        assert est.se[k - 1] == pytest.approx(math.sqrt(var / 4), rel=1e-9, abs=1e-300)
    assert est.cov[1][1] == pytest.approx(4 * est.se[1] ** 2, rel=1e-12)
    assert type(est).from_dict(est.to_dict()) == est


def test_u_statistic_se_is_calibrated():
    """Across simulated data sets the sd of nu-hat matches the reported SE (clustered by example)."""
    rng = np.random.default_rng(2)
    nus, ses = [], []
    for _ in range(300):
        est = all_call_estimates(bits_from_array(simulate_bits(rng.beta(1.5, 1.0, 200), 4, rng)), order=2)
        nus.append(est.nu)
        ses.append(est.se[1])
    assert np.std(nus) == pytest.approx(np.mean(ses), rel=0.12)
    # and nu-hat is unbiased for E[Q^2] = a(a+1)/((a+b)(a+b+1)) of Beta(1.5, 1)
    assert np.mean(nus) == pytest.approx(1.5 * 2.5 / (2.5 * 3.5), abs=4 * np.std(nus) / math.sqrt(300))


# ---- empirical vote accuracy --------------------------------------------------------------------


def _subset_average(row, m):
    """Brute force: average over every m-subset of the calls of the (fair-tie) majority indicator."""
    vals = []
    for c in itertools.combinations(range(len(row)), m):
        s = row[list(c)].sum()
        vals.append(1.0 if s > m / 2 else (0.5 if s == m / 2 else 0.0))
    return np.mean(vals)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_hypergeometric_equals_subset_enumeration(m):
    rng = np.random.default_rng(3)
    b = simulate_bits(rng.random(30), 6, rng)
    data = bits_from_array(b)
    np.testing.assert_allclose(per_example_vote_accuracy(data, m), [_subset_average(r, m) for r in b], atol=1e-14)
    e = empirical_vote_accuracy(data, m)
    assert e.n == 30 and e.se > 0


@pytest.mark.parametrize("m", [3, 5])
def test_hypergeometric_estimator_is_unbiased_for_P_n(m):
    """E[h_m(S, K) | q] = P_n(q): sum over S ~ Binomial(K, q) exactly."""
    K, q = 7, 0.63
    data = bits_from_array(np.array([[1] * s + [0] * (K - s) for s in range(K + 1)], float))
    h = per_example_vote_accuracy(data, m)
    expect = np.sum(stats.binom.pmf(np.arange(K + 1), K, q) * h)
    assert expect == pytest.approx(float(majority_polynomial((m - 1) // 2, q)), abs=1e-14)


def test_empirical_vote_accuracy_is_near_truth_on_simulated_data():
    rng = np.random.default_rng(4)
    a, b = 2.0, 1.0
    data = bits_from_array(simulate_bits(rng.beta(a, b, 4000), 5, rng))
    true5 = integrate.quad(lambda q: majority_polynomial(2, q) * stats.beta.pdf(q, a, b), 0, 1)[0]
    e = empirical_vote_accuracy(data, 5)
    assert abs(e.value - true5) < 4 * e.se


def test_paired_comparisons():
    rng = np.random.default_rng(5)
    q = rng.beta(3, 1.5, 1000)
    a = bits_from_array(simulate_bits(q, 5, rng), example_ids=[f"x{i}" for i in range(1000)])
    c = compare_budgets(a, 1, 5, alpha=0.1)
    h1, h5 = per_example_vote_accuracy(a, 1), per_example_vote_accuracy(a, 5)
    assert c.difference == pytest.approx(np.mean(h5 - h1))
    assert c.interval.upper - c.difference == pytest.approx(stats.norm.ppf(0.95) * np.std(h5 - h1, ddof=1) / math.sqrt(1000))
    # a policy compared with a copy of itself on shuffled rows differs by exactly 0
    perm = rng.permutation(1000)
    b = bits_from_array(a.bits[perm], example_ids=[a.example_ids[i] for i in perm])
    same = compare_policies(a, b, 3, labels=("a", "b"))
    assert same.difference == 0 and same.se == 0 and same.n == 1000


def test_empirical_bad_inputs():
    data = bits_from_array([[1, 0, 1], [0, 0, 1]])
    with pytest.raises(InputError, match="votes=5 exceeds the calls every example has"):
        empirical_vote_accuracy(data, 5)
    with pytest.raises(InputError, match="positive integer"):
        empirical_vote_accuracy(data, 0)
    with pytest.raises(InputError, match="alpha=2"):
        compare_budgets(data, 1, 3, alpha=2)
    other = bits_from_array([[1, 0, 1]], example_ids=["zzz"])
    with pytest.raises(InputError, match="share no example ids"):
        compare_policies(data, other, 3)
    with pytest.raises(InputError, match="1 paired example"):
        compare_policies(data, bits_from_array([[1, 0, 1]], example_ids=["0"]), 3)
