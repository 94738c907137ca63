"""The likelihood engine beyond vote accuracy: pass@k, pass@inf = P(Q > 0), envelopes, reported ranges.

References are independent of the engine's kernel, screen and solvers (tests/stats/test_likelihood.py):
binomial probabilities by direct products, the grid program by cvxpy + Clarabel, SLSQP from its
clusters, closed forms where the data are degenerate.
"""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from test_likelihood import check_against_solvers, check_end, grid_solve, loglik, simulated_cells

from certify import V_INF, parse_objective
from certify._aggregate_bounds import PASS_INF, is_pass_limit, pass_at_k_objective
from certify.likelihood import (
    cell_counts,
    certified_intervals,
    likelihood_bound,
    likelihood_envelope,
    likelihood_interval,
    likelihood_intervals,
    npmle,
)
from certify.likelihood._results import PASS_INF_NOTE
from certify.likelihood._targets import _objective, _target


def pass_k(k):
    """1 - (1-x)^k, straight from the definition."""
    return lambda x: 1.0 - (1.0 - np.asarray(x, dtype=float)) ** k


def positive(x):
    """1{x > 0}, pass@inf given q."""
    return (np.asarray(x, dtype=float) > 0).astype(float)


def upper_plurality(k):
    """U_k(x) = P(Bin(k, x) >= 2) + P(Bin(k, x) = 1) / k, by its closed form."""
    return lambda x: 1.0 - (1.0 - x) ** k - (k - 1) * x * (1.0 - x) ** (k - 1)


def cells_with_unsolved(K, N, seed, share=0.2):
    """Simulated cells where a share of the examples has q = 0 (never solved), the rest q ~ Beta(2, 2)."""
    rng = np.random.default_rng(seed)
    q = np.where(rng.random(N) < share, 0.0, rng.beta(2.0, 2.0, N))
    return cell_counts(np.full(N, K), rng.binomial(K, q))


# -- pass@k ------------------------------------------------------------------------------------

def test_pass_at_k_text_is_the_pass_at_k_objective():
    cells = simulated_cells(4, 300, 3)
    for k in (1, 3, 8):
        assert parse_objective(f"1 - (1-q)**{k}").monomial_coefficients() == pass_at_k_objective(k).monomial_coefficients()
    by_text = likelihood_intervals(cells, ["1 - (1-q)**3", "1 - (1-q)**8"])
    by_object = likelihood_intervals(cells, [pass_at_k_objective(3), pass_at_k_objective(8)])
    for a, b in zip(by_text, by_object):
        assert a.as_tuple() == pytest.approx(b.as_tuple(), abs=1e-12)
    # identified up to K = 4 calls (profile, like V_k), beyond it the projection calibration
    assert [iv.calibration for iv in by_text] == ["profile", "projection"]
    assert by_text[1].df == 4 and by_text[0].df == 1


@pytest.mark.parametrize("K, N, seed, k", [(3, 400, 4, 2), (3, 400, 4, 8), (5, 2000, 0, 20), (2, 1500, 6, 50)])
def test_pass_at_k_ends_against_independent_solver(K, N, seed, k):
    """The certificate identities on 20001 points; Clarabel on a grid never beats an end; SLSQP agrees."""
    cells = simulated_cells(K, N, seed)
    check_against_solvers(cells, likelihood_interval(cells, f"1 - (1-q)**{k}"), pass_k(k))


# -- pass@inf = P(Q > 0) -----------------------------------------------------------------------

@pytest.mark.parametrize("spelling", [PASS_INF, "pass_inf", "pass@inf", "P(Q > 0)", " p(q>0) "])
def test_pass_inf_spellings(spelling):
    assert is_pass_limit(spelling) and _objective(spelling) is PASS_INF
    assert not is_pass_limit("inf") and not is_pass_limit("pass") and not is_pass_limit(V_INF)
    assert pickle.loads(pickle.dumps(PASS_INF)) is PASS_INF and copy.deepcopy(PASS_INF) is PASS_INF


def test_pass_inf_lower_end_against_the_grid_and_the_pass_at_k_limit():
    """min over C of P(Q > 0) = 1 - max over C of P(Q = 0): the grid program (its grid holds 0) never
    beats it; and under the same set, the lower ends of pass@k rise towards it as k grows."""
    cells = cells_with_unsolved(4, 600, 5)
    iv = likelihood_interval(cells, "pass_inf")
    assert iv.calibration == "projection" and iv.objective == "pass_inf"
    level = iv.reference.loglik - iv.c
    end = iv.lower
    check_end(cells, end, positive, level)
    assert end.attained and end.lam > 0
    assert dict(zip(end.atoms, end.weights)).get(0.0, 0.0) > 0.1  # the minimizer keeps its mass at q = 0
    grid, w = grid_solve(cells, positive, 1, level)
    viol = max(0.0, level - loglik(cells, grid, w))
    grid_value = float(positive(grid) @ w)
    assert grid_value - end.value >= -end.lam * viol - 1e-9 and abs(grid_value - end.value) <= 1e-3
    lowers = [iv.lower.value for iv in likelihood_intervals(cells, [f"1 - (1-q)**{k}" for k in (4, 16, 64, 256)], c=iv.c)]
    assert all(a < b for a, b in zip(lowers, lowers[1:])) and lowers[-1] <= end.value + 1e-9
    assert end.value - lowers[-1] < 0.1 * (end.value - lowers[0])


def test_pass_inf_upper_end_is_one_by_definition():
    """The upper end is 1 with lambda = 0 and pi-hat as its law; pi-hat has an atom at 0 here, so it does
    not attain 1 itself, but moving that atom to a small eps gives a law of the set that does."""
    cells = cells_with_unsolved(4, 600, 5)
    iv = likelihood_interval(cells, PASS_INF)
    up, ref = iv.upper, iv.reference
    assert up.value == 1.0 and up.lam == 0.0 and up.atoms == ref.atoms and up.weights == ref.weights
    assert ref.atoms[0] == 0.0 and not up.attained
    assert iv.note == PASS_INF_NOTE and "1 by definition" in iv.note and likelihood_interval(cells, 3).note == ""
    level = ref.loglik - iv.c
    moved = np.array(ref.atoms)
    moved[0] = 1e-9
    assert loglik(cells, moved, ref.weights) >= level and positive(moved) @ np.asarray(ref.weights) == pytest.approx(1.0)
    # no example without a correct call: an atom at 0 would add nothing to any observed cell, so
    # pi-hat has none (whatever the machine's rounding) and itself attains the upper end
    none_at_zero = cell_counts([4] * 300, np.repeat(np.arange(1, 5), [43, 62, 85, 110]))
    assert likelihood_interval(none_at_zero, PASS_INF).upper.attained


def test_pass_inf_on_degenerate_data():
    """All calls correct: P(Q > 0) >= E[Q^K] >= exp(-c/N) on the set, equality for mass on {0, 1}.
    All calls wrong: a point mass at 0 is the NPMLE, so the lower end is 0 (lambda = 0)."""
    N = 50
    right = likelihood_interval(cell_counts([4] * N, [4] * N), "pass_inf")
    assert right.lower.value == pytest.approx(math.exp(-right.c / N), abs=1e-12) and right.upper.value == 1.0
    wrong = likelihood_interval(cell_counts([4] * N, [0] * N), "pass_inf")
    assert wrong.lower.value == 0.0 and wrong.lower.lam == 0.0
    assert wrong.upper.value == 1.0 and not wrong.upper.attained
    for iv in (right, wrong):
        for end in (iv.lower, iv.upper):
            assert abs(end.value - end.certified) <= 1e-12


# -- issue 28: one example with many calls beside many with two --------------------------------

#: One example with 100 calls (70 correct) and 50 with 2: the intervals once failed ("not converged").
RAGGED = cell_counts([2] * 50 + [100], [0] * 9 + [1] * 25 + [2] * 16 + [70])


def test_one_long_example_beside_short_ones():
    """l(pi_lambda) jumps at lambda* (the law keeps or drops a small atom near 0.7 for the long example)
    and Brent's method stopped on the side whose law is strictly inside the set: its value then exceeded
    the certificate a + lambda b by 0.05. The end is the mixture of the two sides at the level. On the
    way, a cell probability near 1e-160 made CNM's quadratic model overflow: no warning escapes now."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ivs = likelihood_intervals(RAGGED, [3, "V3 - V1", "inf"])
    level = ivs[0].reference.loglik - ivs[0].c
    g3 = lambda x: 3 * x**2 - 2 * x**3  # noqa: E731
    for sign, end in ((1, ivs[0].lower), (-1, ivs[0].upper)):
        check_end(RAGGED, end, g3, level)
        if end.lam > 0:  # complementary slackness: the constraint is active
            assert loglik(RAGGED, end.atoms, end.weights) == pytest.approx(level, abs=1e-7 * abs(level))
        grid, w = grid_solve(RAGGED, g3, sign, level)
        viol = max(0.0, level - loglik(RAGGED, grid, w))
        assert sign * (float(g3(grid) @ w) - end.value) >= -end.lam * viol - 1e-9
    for iv in ivs:
        assert -1.0 <= iv.lower.value <= iv.upper.value <= 1.0


# -- reported ends lie in the range of g -------------------------------------------------------

def test_reported_ends_lie_in_the_range_of_the_objective():
    """V_inf's upper end summed to 1 + 1 ulp (weights one ulp over 1, on the AVX2 machine where it was
    found; on others the rounding differs): it is reported as 1, a bound no law can exceed; the
    certificate keeps its own exact value, at or above 1."""
    cells = cell_counts([5] * 102, np.repeat(np.arange(6), [2, 1, 6, 9, 21, 63]))
    (iv, _, upper) = certified_intervals(cells, ["inf"])[0]
    # the value is the law's E[envelope] = its weight on [1/2, 1], put onto [0, 1] (a sum one ulp
    # over 1 is reported as 1)
    weight_above = float(np.dot(iv.upper.weights, np.asarray(iv.upper.atoms) >= 0.5))
    assert weight_above >= 1.0 - 1e-12 and iv.upper.value == min(1.0, weight_above) <= 1.0
    assert upper.bound >= 1
    ranges = {"V3": (0.0, 1.0), "V5 - V1": (-1.0, 1.0), "2*q - 3": (-3.0, -1.0), "1 - (1-q)**8": (0.0, 1.0),
              "inf": (0.0, 1.0), "pass_inf": (0.0, 1.0)}
    for spec, bounds in ranges.items():
        obj = _objective(spec)
        for side in ("lower", "upper"):
            assert _target(obj, side).bounds == bounds


def test_every_reported_end_is_inside_the_range():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        K, N = int(rng.integers(2, 6)), int(rng.integers(10, 150))
        q = rng.beta(2.0, 1.0, N)
        q[rng.random(N) < 0.3] = 1.0
        cells = cell_counts([K] * N, rng.binomial(K, q))
        for iv in likelihood_intervals(cells, ["inf", 3, "pass_inf", "1 - (1-q)**9"]):
            assert 0.0 <= iv.lower.value <= iv.upper.value <= 1.0


# -- envelopes: the min of one objective and the max of another from one set --------------------

def test_envelope_of_two_objectives():
    cells = simulated_cells(4, 500, 11)
    ref = npmle(cells)
    env = likelihood_envelope(cells, 7, "1 - (1-q)**7 - 6*q*(1-q)**6", reference=ref)
    assert env.calibration == "projection" and env.objective == "V7 .. 1 - (1-q)**7 - 6*q*(1-q)**6"
    low = likelihood_bound(cells, 7, "lower", c=env.c, reference=ref)
    high = likelihood_bound(cells, "1 - (1-q)**7 - 6*q*(1-q)**6", "upper", c=env.c, reference=ref)
    assert env.lower.value == pytest.approx(low.value, abs=1e-10) and env.upper.value == pytest.approx(high.value, abs=1e-10)
    level = ref.loglik - env.c
    check_end(cells, env.lower, lambda x: 35 * x**4 - 84 * x**5 + 70 * x**6 - 20 * x**7, level)
    check_end(cells, env.upper, upper_plurality(7), level)
    # one identified objective and one not: both ends at the projection level, one set
    mixed = likelihood_envelope(cells, 3, 9, reference=ref)
    assert mixed.calibration == "projection" and mixed.c == pytest.approx(likelihood_interval(cells, 9, reference=ref).c)
    both = likelihood_envelope(cells, 3, "V3", reference=ref)
    assert both.calibration == "profile"
    assert both.as_tuple() == pytest.approx(likelihood_interval(cells, 3, reference=ref).as_tuple(), abs=1e-10) or \
        likelihood_interval(cells, 3, reference=ref).small_count
    # pass@inf above: 1 by definition
    assert likelihood_envelope(cells, "inf", PASS_INF, reference=ref).upper.value == 1.0


def test_nearly_deterministic_answers_keep_their_interior_atom():
    """The demo's five-answer task at T = 0.05 (300 examples x 5 calls: 153 never right, 136 always,
    11 in between). The upper end of pass@9 - pass@1 failed with 'no bracket': CNM's first step
    dropped the interior atom, some observed cells became nearly impossible (p ~ 1e-8), its quadratic
    model then gave no descent at any lambda, and l(pi_lambda) stayed 53 below the level. The
    vertex direction towards the deepest minimum of psi always descends; both ends now agree with
    Clarabel on a grid and with SLSQP."""
    cells = cell_counts([5] * 300, np.repeat([0, 1, 2, 4, 5], [153, 3, 3, 5, 136]))
    g = lambda x: pass_k(9)(x) - np.asarray(x, dtype=float)  # noqa: E731
    iv = likelihood_interval(cells, "1 - (1-q)**9 - q")
    check_against_solvers(cells, iv, g)
    assert 0 < iv.lower.value < iv.upper.value < 0.2
