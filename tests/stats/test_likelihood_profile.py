"""The profile drop D(v) of a value (``certify.likelihood.profile_drop``, eq. (P1)).

References are independent of the engine: for the mean at K = 2 the likelihood is a function of
(mu, nu) on the moment space {mu^2 <= nu <= mu}, so D(v) is two one-dimensional concave
maximizations done here with scipy; beyond K the definition itself is checked through the
interval at drops just above and below D(v) (the interval's own ends, solved from cold).
"""

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import binom
from test_likelihood import simulated_cells

from certify import InputError
from certify.likelihood import cell_counts, likelihood_interval, npmle, profile_drop


def loglik_k2(n, mu, nu):
    """sum_S n_S log p_S at K = 2: p = (1 - 2 mu + nu, 2 (mu - nu), nu)."""
    p = np.array([1.0 - 2.0 * mu + nu, 2.0 * (mu - nu), nu])
    return float(sum(c * math.log(x) if x > 0 else -math.inf for c, x in zip(n, p) if c > 0))


def best_nu(n, mu):
    """max over nu in [mu^2, mu] of the K = 2 log-likelihood (concave in nu): bounded Brent."""
    lo, hi = mu * mu, mu
    res = optimize.minimize_scalar(lambda nu: -loglik_k2(n, mu, nu), bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-13})
    return max(-res.fun, loglik_k2(n, mu, lo), loglik_k2(n, mu, hi))


def drop_k2_mean(n, v):
    top = optimize.minimize_scalar(lambda mu: -best_nu(n, mu), bounds=(1e-9, 1 - 1e-9), method="bounded",
                                   options={"xatol": 1e-12})
    return -top.fun - best_nu(n, v)


@pytest.mark.parametrize("n", [(20, 30, 50), (40, 10, 30), (5, 60, 35)])
@pytest.mark.parametrize("v", [0.3, 0.5, 0.62, 0.8])
def test_mean_at_two_calls_matches_the_moment_space_maximization(n, v):
    cells = cell_counts(np.full(sum(n), 2), np.repeat([0, 1, 2], n))
    expected = drop_k2_mean(n, v)
    got = profile_drop(cells, "q", v)
    if expected < 1e-4:  # the floor of PROFILE_DROP_FLOOR: reported as 0
        assert got == 0.0
    else:
        assert got == pytest.approx(expected, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("objective", [101, "inf", "V9"])
@pytest.mark.parametrize("K, N, seed", [(3, 50, 1), (5, 200, 2), (10, 1000, 3)])
def test_the_interval_at_the_drop_is_the_first_to_hold_the_value(objective, K, N, seed):
    cells = simulated_cells(K, N, seed)
    ref = npmle(cells)
    centre = likelihood_interval(cells, objective, c=1e-3, reference=ref)
    for v in (0.35, 0.7, 0.95):
        d = profile_drop(cells, objective, v, reference=ref)
        if d == 0.0:  # v in (or next to) pi-hat's identified set
            assert centre.lower.value - 1e-6 <= v <= centre.upper.value + 1e-6
            continue
        above = likelihood_interval(cells, objective, c=d * (1 + 1e-5))
        below = likelihood_interval(cells, objective, c=d * (1 - 1e-5))
        assert above.lower.value <= v <= above.upper.value
        assert not below.lower.value <= v <= below.upper.value


def test_drop_where_the_end_bends_sharply_near_zero():
    """U(c) rises from 0.27 to 0.79 between c = 1e-4 and 1.7: Newton in sqrt(c) alone oscillated."""
    cells = cell_counts(np.full(50, 3), np.repeat([0, 1, 2, 3], [6, 20, 9, 15]))
    v = 0.4085460264365171
    d = profile_drop(cells, 101, v)
    assert 0.1 < d < 0.3
    above = likelihood_interval(cells, 101, c=d * (1 + 1e-5))
    below = likelihood_interval(cells, 101, c=d * (1 - 1e-5))
    assert above.upper.value >= v > below.upper.value


def test_drop_near_the_floor_at_large_n_stops_on_its_bracket():
    """N = 8192, K = 10: near c = 1e-4 the ends' rounding (CERT_RTOL lambda N) is as large as the
    value tolerance, and Newton alternated around the root until its step limit."""
    counts = [0, 6, 31, 90, 350, 828, 1559, 2158, 1885, 1045, 240]
    cells = cell_counts(np.full(8192, 10), np.repeat(np.arange(11), counts))
    v = 0.9794757171683715
    d = profile_drop(cells, 101, v)
    assert 1e-4 < d < 1e-3
    assert likelihood_interval(cells, 101, c=d * 1.001).lower.value <= v
    assert likelihood_interval(cells, 101, c=d * 0.999).lower.value > v


def test_a_value_held_by_a_flat_end_is_not_reported_at_the_start():
    """V_inf = 1 when every atom of pi-hat is above 1/2: the upper end is 1 at every c (lambda = 0),
    so D(1) = 0, not the drop at which the search happened to start."""
    cells = cell_counts(np.full(60, 3), np.repeat([2, 3], [15, 45]))
    ref = npmle(cells)
    assert min(ref.atoms) > 0.5
    assert profile_drop(cells, "inf", 1.0, reference=ref) == 0.0
    assert likelihood_interval(cells, "inf", c=1e-3, reference=ref).upper.value == 1.0


def restricted_loglik_k3(counts, lo, hi):
    """max l over laws on [lo, hi] at K = 3, by L-BFGS over two-atom laws from several starts.

    l depends on a law through its first three moments only, and every moment vector of a law on
    [lo, hi] is that of a law with at most two atoms there (its lower principal representation),
    so the two-atom maximum is the maximum.
    """
    n = np.asarray(counts, dtype=float)

    def minus_l(t):
        a, b, w = t
        p = w * binom.pmf(np.arange(4), 3, a) + (1 - w) * binom.pmf(np.arange(4), 3, b)
        return -float(n @ np.log(np.maximum(p, 1e-300)))

    starts = [(lo, hi, 0.5), (lo, 0.5 * (lo + hi), 0.2), (0.5 * (lo + hi), hi, 0.5), (lo + 0.2 * (hi - lo), hi, 0.1)]
    runs = [optimize.minimize(minus_l, x0, bounds=[(lo, hi), (lo, hi), (0.0, 1.0)], method="L-BFGS-B",
                              options={"ftol": 1e-15, "gtol": 1e-12}) for x0 in starts]
    return -min(r.fun for r in runs)


def test_value_at_the_extreme_of_g_is_the_npmle_restricted_to_its_set():
    """V_inf = 1 needs every atom in [1/2, 1]: D(1) = l(pi-hat) - max l over laws there."""
    counts = [33, 193, 442, 332]
    cells = cell_counts(np.full(1000, 3), np.repeat(np.arange(4), counts))
    ref = npmle(cells)
    d = profile_drop(cells, "inf", 1.0, reference=ref)
    assert d == pytest.approx(ref.loglik - restricted_loglik_k3(counts, 0.5, 1.0), rel=1e-5)
    assert likelihood_interval(cells, "inf", c=d * 1.001, reference=ref).upper.value == 1.0


def test_an_end_reaches_the_extreme_of_g_without_a_window_of_failures():
    """Just below the drop at which a law on {V_inf = 1} enters the set, the upper end switches
    from lambda = 0.029 to lambda = 0. Within the restricted NPMLE's gap (1e-6 at N = 1000) below
    that drop, the lambda = 0 test said no and the Lagrangian found no lambda ("no bracket" for
    every c in about (D - 1e-6, D)). Now the end is 1 there, feasible to that gap, and the upper
    end rises with c through the switch."""
    counts = [33, 193, 442, 332]
    cells = cell_counts(np.full(1000, 3), np.repeat(np.arange(4), counts))
    ref = npmle(cells)
    d = profile_drop(cells, "inf", 1.0, reference=ref)
    drops = [d - 1e-5, d - 2e-6, d - 1e-6, d - 5e-7, d - 1e-7, d - 1e-8, d, d + 1e-7]
    uppers = [likelihood_interval(cells, "inf", c=c, reference=ref).upper for c in drops]
    values = [u.value for u in uppers]
    assert values == sorted(values)
    assert values[-4:] == [1.0] * 4 and all(u.lam == 0 for u in uppers[-4:])
    # below the window the end is the Lagrangian's, lambda ~ 0.029 = d value / d c
    assert uppers[0].lam > 0.02 and 1.0 - values[0] == pytest.approx(uppers[0].lam * 1e-5, rel=0.1)
    for c, u in zip(drops, uppers):  # in the set to the NPMLE's gap
        assert u.loglik >= ref.loglik - c - 2e-6


def test_drop_is_convex_in_the_value():
    """sup {l : E g = v} is concave in v (concave l, linear constraint): D must be convex."""
    cells = simulated_cells(5, 300, 7)
    ref = npmle(cells)
    vs = np.linspace(0.2, 0.98, 14)
    d = np.array([profile_drop(cells, 101, float(v), reference=ref) for v in vs])
    second = d[:-2] - 2 * d[1:-1] + d[2:]
    assert np.all(second >= -1e-7)
    assert d.min() == 0.0 and d[0] > 1 and d[-1] > 0  # zero on the identified set, positive off it


def test_value_in_the_identified_set_of_pi_hat_has_drop_zero():
    cells = simulated_cells(3, 100, 4)
    ref = npmle(cells)
    mean_v101 = float(np.dot(ref.weights, binom.sf(50, 101, np.array(ref.atoms))))
    assert profile_drop(cells, 101, mean_v101, reference=ref) == 0.0


def test_values_no_law_reaches_have_infinite_drop_and_bad_values_are_refused():
    cells = simulated_cells(3, 60, 5)
    assert profile_drop(cells, 101, 1.5) == math.inf
    assert profile_drop(cells, 101, -0.1) == math.inf
    for bad in (math.nan, math.inf, True, "0.5"):
        with pytest.raises(InputError, match="value="):
            profile_drop(cells, 101, bad)
