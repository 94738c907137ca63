"""The compiled simulation of the small-count calibration (certify.likelihood._calibration_kernels).

References are independent: the samplers against exact binomial and multinomial probabilities
(chi-square goodness of fit on many draws of a fixed stream, so the outcome is fixed too), the
simulated quantile against numpy's quantile of the same draws, the threshold against a
simulation with numpy's own generator, and the coefficients against exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from scipy import stats

from certify._bernstein import monomial_to_bernstein
from certify._distributions import hypergeometric_pmf
from certify._objective import parse_objective
from certify.likelihood import cell_counts
from certify.likelihood._calibration import LatticeProblem, _differences, saturated_ratio, small_count_drop
from certify.likelihood._calibration_kernels import _binomial, _categorical, _chain, _multinomial, lattice_quantile
from certify.likelihood._tolerances import (
    BINOMIAL_INVERSION_MEAN,
    DENOMINATOR_FLOOR,
    DRAWS,
    PATH_STEPS,
    SATURATED_NEWTON_STEPS,
    SATURATED_STEP_TOL,
)

#: A goodness-of-fit p-value below this fails: with the fixed streams below each test's value is
#: fixed, and a sampler off by 1 % in one cell at these sizes gives p-values below 1e-6.
GOF_LEVEL = 1e-4


def _state(seed: int) -> np.ndarray:
    return np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)


def _gof(observed: np.ndarray, expected_probs: np.ndarray) -> float:
    """Chi-square p-value, outcomes with expected counts below 5 pooled into one."""
    expected = observed.sum() * expected_probs
    small = expected < 5
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    return float(stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue)


@pytest.mark.parametrize("n, p", [(20, 0.1), (200, 0.3), (7, 0.5), (5000, 0.002), (3000, 0.45)])
def test_binomial_draws_have_the_binomial_law(n, p):
    # (20, 0.1), (5000, 0.002): inversion from 0; (200, 0.3), (3000, 0.45): from the mode
    state = _state(n)
    logfact = np.array([math.lgamma(m + 1.0) for m in range(n + 1)])
    draws = np.array(
        [_binomial(state, n, p, math.log(p), math.log1p(-p), logfact, BINOMIAL_INVERSION_MEAN) for _ in range(40_000)]
    )
    assert draws.min() >= 0 and draws.max() <= n
    assert _gof(np.bincount(draws, minlength=n + 1), stats.binom.pmf(np.arange(n + 1), n, p)) > GOF_LEVEL


def _outcomes(total: int, cells: int) -> list[tuple[int, ...]]:
    return [c for c in product(range(total + 1), repeat=cells) if sum(c) == total]


@pytest.mark.parametrize("sampler", ["binomials", "categorical"])
@pytest.mark.parametrize("total, p", [(6, [0.1, 0.0, 0.55, 0.35]), (30, [0.02, 0.9, 0.03, 0.05]), (5, [0.25] * 4)])
def test_multinomial_draws_have_the_multinomial_law(sampler, total, p):
    p = np.array(p)
    cells = len(p)
    state = _state(total)
    counts = np.empty(cells, dtype=np.int64)
    shares, logs = np.empty(cells), np.empty((cells, 2))
    _chain(p, shares, logs)
    logfact = np.array([math.lgamma(m + 1.0) for m in range(total + 1)])
    cdf = np.cumsum(p)
    cdf[np.flatnonzero(p > 0)[-1] :] = 1.0
    tally, cell, cnt = np.zeros(cells, dtype=np.int64), np.empty(cells, dtype=np.int64), np.empty(cells, dtype=np.int64)
    outcomes = _outcomes(total, cells)
    index = {o: i for i, o in enumerate(outcomes)}
    seen = np.zeros(len(outcomes), dtype=np.int64)
    for _ in range(30_000):
        if sampler == "binomials":
            _multinomial(state, total, shares, logs, logfact, BINOMIAL_INVERSION_MEAN, counts)
        else:
            k = _categorical(state, total, cdf, tally, cell, cnt)
            counts[:] = 0
            counts[cell[:k]] = cnt[:k]
            assert len(set(cell[:k].tolist())) == k and np.all(cnt[:k] > 0)  # each cell with examples once
            assert not tally.any()  # left zero for the next draw
        assert counts.sum() == total and np.all(counts[p == 0] == 0)
        seen[index[tuple(counts.tolist())]] += 1
    exact = np.array([stats.multinomial.pmf(o, total, p) for o in outcomes])
    assert _gof(seen, exact) > GOF_LEVEL


@pytest.mark.parametrize("categorical", [False, True])
def test_the_quantile_is_numpys_higher_quantile_of_the_same_draws(categorical):
    # the draws of one law, made again from Python with the same stream, and numpy's quantile
    p = np.array([0.05, 0.01, 0.02, 0.12, 0.8])
    coef = np.array([0.0, -0.25, 0.5, 0.1, 0.0])
    total, alpha = 60, 0.05
    d = _differences(coef, float(coef @ p))
    seed = _state(7)
    index = math.ceil((DRAWS - 1) * (1 - alpha))
    got = lattice_quantile(p[None, :], d[None, :], total, seed, DRAWS, index, categorical,
                           BINOMIAL_INVERSION_MEAN, SATURATED_STEP_TOL, SATURATED_NEWTON_STEPS, DENOMINATOR_FLOOR)
    state, cells = seed.copy(), len(p)
    shares, logs = np.empty(cells), np.empty((cells, 2))
    _chain(p, shares, logs)
    logfact = np.array([math.lgamma(m + 1.0) for m in range(total + 1)])
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    tally, cell, cnt = np.zeros(cells, dtype=np.int64), np.empty(cells, dtype=np.int64), np.empty(cells, dtype=np.int64)
    rows = np.zeros((DRAWS, cells), dtype=np.int64)
    for r in range(DRAWS):
        if categorical:
            k = _categorical(state, total, cdf, tally, cell, cnt)
            rows[r, cell[:k]] = cnt[:k]
        else:
            _multinomial(state, total, shares, logs, logfact, BINOMIAL_INVERSION_MEAN, rows[r])
    w = saturated_ratio(rows, coef, float(coef @ p))
    # the categorical draws sum their cells in the order drawn, saturated_ratio in the cells'
    # order: the same W up to rounding
    assert got == pytest.approx(np.quantile(w, 1 - alpha, method="higher"), rel=0 if not categorical else 1e-12)


def _numpy_threshold(counts, coef, laws, alpha: float, draws: int) -> float:
    """The threshold of small_count_drop simulated with numpy's generator, many draws per law."""
    best = 0.0
    for p in laws:
        rows = np.random.default_rng(0).multinomial(int(counts.sum()), p, size=draws)
        w = saturated_ratio(rows, coef, float(np.clip(coef @ p, coef.min(), coef.max())))
        best = max(best, float(np.quantile(w, 1 - alpha, method="higher")))
    return best / 2


def test_threshold_agrees_with_a_numpy_simulation():
    # K = 5, N = 200, the gain V3 - V1 on the lattice: the compiled threshold (DRAWS draws per
    # law) against numpy's generator with 20,000 draws per law (2.011); over 20 seeds numpy's
    # threshold at DRAWS draws has a standard deviation of 0.036 here (mean 2.057)
    rng = np.random.default_rng(11)
    cells = cell_counts(np.full(200, 5), rng.binomial(5, rng.beta(2, 1, 200)))
    lattice = LatticeProblem(cells, parse_objective("V3 - V1"))
    counts, coef = lattice.counts, lattice.coef
    p_hat = counts / counts.sum()
    p_lower, p_upper = p_hat + 0.4 * coef * p_hat, p_hat - 0.4 * coef * p_hat  # two nearby laws
    got = small_count_drop(counts, coef, p_hat, p_lower, p_upper, 0.05)
    assert got is not None and got == small_count_drop(counts, coef, p_hat, p_lower, p_upper, 0.05)
    laws = [p_hat] + [p_hat + s * (end - p_hat) for end in (p_lower, p_upper) for s in PATH_STEPS]
    laws = [np.clip(p, 0, None) / np.clip(p, 0, None).sum() for p in laws]
    assert got == pytest.approx(_numpy_threshold(counts, coef, laws, 0.05, 20_000), abs=0.15)


@pytest.mark.parametrize("objective, calls", [("V3 - V1", 50), ("V3", 2000), ("V101", 300), ("2*q**2 - q + 1/3", 7)])
def test_lattice_coefficients_are_the_exact_ones_rounded(objective, calls):
    obj = parse_objective(objective)
    cells = cell_counts(np.full(3, calls), np.array([0, calls // 2, calls]))
    got = LatticeProblem(cells, obj).coef
    exact = np.array([float(b) for b in monomial_to_bernstein(obj.monomial_coefficients(), calls)])
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-13 * max(1.0, np.abs(exact).max()))


@pytest.mark.parametrize("total, draws", [(1, 1), (7, 3), (40, 40), (300, 101), (300, 299), (2000, 5)])
def test_hypergeometric_pmf_is_the_exact_ratio(total, draws):
    good = np.arange(total + 1)
    got = hypergeometric_pmf(np.full(total + 1, total), good, draws)
    for g in range(0, total + 1, max(1, total // 37)):
        exact = [Fraction(math.comb(g, x) * math.comb(total - g, draws - x), math.comb(total, draws))
                 for x in range(draws + 1)]
        want = np.array([float(e) for e in exact])
        assert np.array_equal(got[g] == 0, want == 0)  # the support, exactly
        np.testing.assert_allclose(got[g], want, rtol=2 * draws * np.finfo(float).eps, atol=0)
