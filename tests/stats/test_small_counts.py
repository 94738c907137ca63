"""The small-count calibration of profile likelihood-ratio intervals (certify.likelihood._calibration).

References are independent: the saturated ratio against a general constrained optimizer
(SLSQP), the coverage against an enumeration of the counts under the true law (whose cell
probabilities are beta-binomial in closed form).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from certify.certificates import verify
from certify.likelihood import cell_counts, likelihood_bound, likelihood_intervals
from certify.likelihood import certified_intervals, critical_value
from certify.likelihood._calibration import on_lattice, saturated_ratio, small_count_drop

# mass near 0 and 1 (rho about 0.97): the three-vote gain rests on the cells S = 1, 2
NEAR_0_1 = [(0.75, 40.0, 0.2), (0.25, 0.2, 40.0)]


def _slsqp_ratio(n: np.ndarray, a: np.ndarray, v: float) -> float:
    """2 (max l - max_{a.p = v} l) by SLSQP from many starts (an independent algorithm)."""
    total = n.sum()
    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0}, {"type": "eq", "fun": lambda p: a @ p - v}]

    def negll(p):
        return -float(np.sum(np.where(n > 0, n * np.log(np.maximum(p, 1e-300)), 0.0)))

    def feasible(r) -> bool:
        # SLSQP may stop at the optimum with success False ("Positive directional derivative for
        # linesearch"): any start that ends on the constraint set counts, the lowest one wins
        return bool(r.success or max(abs(r.x.sum() - 1.0), abs(a @ r.x - v)) <= 1e-8)

    rng = np.random.default_rng(0)
    best = min((optimize.minimize(negll, x0, constraints=cons, bounds=[(1e-12, 1.0)] * len(n), method="SLSQP",
                                  options={"ftol": 1e-14, "maxiter": 500}) for x0 in rng.dirichlet(np.ones(len(n)), 12)),
               key=lambda r: r.fun if feasible(r) else np.inf)
    top = float(np.sum(np.where(n > 0, n * np.log(np.where(n > 0, n / total, 1.0)), 0.0)))
    return 2.0 * (top + best.fun)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=3, max_size=6), st.integers(0, 2**31 - 1), st.floats(0.05, 0.95))
@example([3, 0, 4, 0, 1, 4], 2034990, 0.125)  # every SLSQP start ends with success False, most at the optimum
def test_saturated_ratio_matches_a_general_optimizer(counts, seed, where):
    n = np.array(counts)
    n[0] += 2  # at least two examples
    a = np.random.default_rng(seed).normal(size=len(n))
    v = float(a.min() + where * (a.max() - a.min()))
    got = saturated_ratio(n[None, :], a, v)[0]
    assert got == pytest.approx(_slsqp_ratio(n, a, v), abs=2e-6, rel=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 5000), st.integers(0, 5000), st.floats(-3, 3), st.floats(-3, 3), st.floats(0.01, 0.99))
def test_saturated_ratio_of_two_cells_is_the_closed_form(n0, n1, a0, a1, share):
    # With two cells a . p = v fixes p: p_1 = (v - a_0) / (a_1 - a_0). Large counts put the
    # root of t close to the domain's end, where rounding once produced NaN.
    if abs(a1 - a0) < 1e-3 or n0 + n1 == 0:
        return
    v = a0 + share * (a1 - a0)
    p = np.array([1 - share, share])
    n = np.array([n0, n1], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = 2 * np.sum(np.where(n > 0, n * np.log(n / n.sum() / p), 0.0))
    got = saturated_ratio(np.array([[n0, n1]]), np.array([a0, a1]), v)[0]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_saturated_ratio_at_the_extremes_and_beyond():
    a = np.array([0.0, 1.0, 2.0])
    # v = max a: only the last cell may hold mass
    assert saturated_ratio(np.array([[0, 0, 5], [1, 0, 4]]), a, 2.0).tolist() == [0.0, np.inf]
    assert saturated_ratio(np.array([[3, 2, 1]]), a, 2.5)[0] == np.inf
    # an ulp beyond the top (v = a . p in floating point) is the top, not an impossible value
    assert saturated_ratio(np.array([[0, 0, 5]]), np.array([0.0, 1.0, 1.0]), 1.0000000000000002)[0] == 0.0


def test_a_regression_data_set_with_an_end_at_the_edge_solves():
    """50 examples x 3 calls whose lattice path reaches p_0 = p_1 = 0 (it failed once: W = inf)."""
    cells = cell_counts(np.full(50, 3), np.repeat(np.arange(4), [2, 7, 15, 26]))
    (iv,) = likelihood_intervals(cells, ["V3"])
    assert np.isfinite(iv.c) and 0.5 < iv.lower.value < iv.upper.value < 1.0


def test_saturated_ratio_is_chi_square_with_many_examples():
    """Wilks: at the truth and N = 20000, W has mean 1 and P(W > 3.84) = 0.05."""
    p = np.array([0.2, 0.3, 0.5])
    a = np.array([0.0, 0.5, 1.0])
    w = saturated_ratio(np.random.default_rng(1).multinomial(20000, p, size=4000), a, float(a @ p))
    assert w.mean() == pytest.approx(1.0, abs=0.08)
    assert np.mean(w > stats.chi2.ppf(0.95, 1)) == pytest.approx(0.05, abs=0.012)


def test_large_counts_keep_the_chi_square_threshold():
    rng = np.random.default_rng(3)
    q = rng.beta(6.0, 2.0, 400)
    cells = cell_counts(np.full(400, 3), rng.binomial(3, q))
    (iv,) = likelihood_intervals(cells, ["V3 - V1"])
    assert not iv.small_count
    assert iv.c == critical_value(0.05, 1, n=400, dim=3)
    assert "asymptotic" in iv.calibration_text()


def _near_0_1_cells(n1: int, n2: int, n: int = 200) -> tuple:
    p = sum(w * stats.betabinom(3, a, b).pmf(np.arange(4)) for w, a, b in NEAR_0_1)
    rest = n - n1 - n2
    n0 = int(round(rest * p[0] / (p[0] + p[3])))
    return p, cell_counts(np.full(n, 3), np.repeat(np.arange(4), [n0, n1, n2, rest - n0]))


def test_lattice_cells_raise_the_threshold_and_ends_agree_with_single_bounds():
    _, cells = _near_0_1_cells(1, 0)
    (iv,) = likelihood_intervals(cells, ["V3 - V1"])
    assert iv.small_count and iv.c > critical_value(0.05, 1, n=200, dim=3)
    assert iv.lower.c == iv.upper.c == iv.c
    assert "small-count calibration" in iv.calibration_text() and "asymptotic" not in iv.calibration_text()
    # one end alone (what a certificate is built from) is the same number
    assert likelihood_bound(cells, "V3 - V1", "upper").value == iv.upper.value
    assert likelihood_bound(cells, "V3 - V1", "lower").value == iv.lower.value
    # and it is deterministic
    (again,) = likelihood_intervals(cells, ["V3 - V1"])
    assert again.as_tuple() == iv.as_tuple()


def test_single_end_at_large_counts_keeps_the_chi_square_threshold():
    # K = 3, N = 2000 from a smooth law: every cell is large, so one end alone is solved
    # at the chi-square value and equals the interval's end
    rng = np.random.default_rng(5)
    cells = cell_counts(np.full(2000, 3), rng.binomial(3, rng.beta(3, 2, size=2000)))
    (iv,) = likelihood_intervals(cells, ["V3 - V1"])
    assert not iv.small_count
    for side in ("lower", "upper"):
        end = likelihood_bound(cells, "V3 - V1", side)
        assert end.c == iv.c
        assert end.value == pytest.approx(getattr(iv, side).value, abs=1e-12)


def test_small_count_ends_have_certificates_that_verify():
    _, cells = _near_0_1_cells(0, 5)
    ((iv, lower, upper),) = certified_intervals(cells, ["V3 - V1"])
    assert iv.small_count
    for cert, end in ((lower, iv.lower), (upper, iv.upper)):
        assert verify(cert).ok
        assert float(cert.bound) == pytest.approx(end.value, abs=1e-9)


def test_an_unreachable_value_falls_back_to_the_projection_value():
    # A path law whose value a . p lies within VALUE_SNAP of max a while it keeps mass on a cell
    # just below the maximum (here a_1 = 1 - 1e-11): the saturated ratio of most of its draws is
    # +inf (they hold examples in a cell that a . p = v excludes), so its 0.95 quantile is infinite
    # and the threshold is the projection value chi2_K (F-form), as documented; seen at K = 1000
    # with V101, where no data set of a test reaches it on every machine
    coef = np.array([0.0, 1.0 - 1e-11, 1.0])
    p_hat, p_upper = np.array([0.02, 0.1, 0.88]), np.array([0.0, 0.05, 0.95])
    counts = np.array([4, 20, 176])
    assert on_lattice(200, coef, p_hat)
    # a draw of p_upper with an example at S = 1 cannot reach its value: W = inf
    assert saturated_ratio(np.array([[0, 10, 190]]), coef, float(coef @ p_upper))[0] == np.inf
    c = small_count_drop(counts, coef, p_hat, p_hat, p_upper, 0.05)
    # the projection value chi2_2 in its F-form, from scipy: (N / 2) log(1 + 2 F_{2, N-2, 0.95} / (N - 2))
    assert c == pytest.approx(100 * np.log1p(2 * stats.f.ppf(0.95, 2, 198) / 198), rel=1e-12)


def test_on_lattice_reads_the_variance_share():
    a = np.array([0.0, -1 / 3, 1 / 3, 0.0])
    p = np.array([0.25, 0.004, 0.011, 0.735])
    assert on_lattice(200, a, p)
    assert not on_lattice(200_000, a, p)
    assert not on_lattice(200, np.ones(4), p)  # a constant objective has no variance at all


@pytest.mark.slow
def test_gain_coverage_with_few_mixed_examples_is_nominal():
    """Coverage of V3 - V1 from K = 3, N = 200 with rho about 0.97, by enumerating (n1, n2).

    The split of the other examples between S = 0 and S = 3 is held at its expectation (the
    interval hardly depends on it). Without the small-count calibration this is 0.906.
    Configurations below 1e-3 probability are counted as misses (conservative).
    """
    p, _ = _near_0_1_cells(0, 0)
    truth = float((p[2] - p[1]) / 3.0)
    covered = 0.0
    for n1 in range(8):
        for n2 in range(12):
            prob = stats.multinomial(200, [p[1], p[2], 1 - p[1] - p[2]]).pmf([n1, n2, 200 - n1 - n2])
            if prob < 1e-3:
                continue
            (iv,) = likelihood_intervals(_near_0_1_cells(n1, n2)[1], ["V3 - V1"])
            covered += prob * (iv.lower.value - 1e-12 <= truth <= iv.upper.value + 1e-12)
    assert covered >= 0.94
