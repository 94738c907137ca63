"""The exact method's fast paths, each against an independent computation.

* the grid hull (one Qhull run per objective) against the grid LP solved by
  HiGHS through ``scipy.optimize.linprog``;
* the scalar two-contact Newton against the defining KKT conditions evaluated
  in 40-digit mpmath, and against the 50-digit reference of ``tests/_reference``;
* the violation search (grid screen, then branch and bound over cells) against
  brute force on a 200,001-point grid;
* the scalar evaluators (majority jet, Bernstein loop) against mpmath and exact
  rational arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from certify import sharp_bounds
from certify._bernstein import bernstein_scalar, monomial_to_bernstein
from certify._bounds import as_objective
from certify._majority import majority_jet
from certify.solvers._contact import max_violation, target
from certify.solvers._hull import grid_hull
from certify.solvers._two_moments import bitangent_law, face_weights
from tests._reference import majority_mp, sharp_value_mp

OBJECTIVES = [9, 101, "P3 - P1", "V5 - q"]


def _points(n, seed):
    rng = np.random.default_rng(seed)
    mu, rho = rng.uniform(0.03, 0.97, (2, n))
    return [(float(m), float(m * m + r * m * (1 - m))) for m, r in zip(mu, rho)]


@pytest.mark.parametrize("spec", OBJECTIVES)
@pytest.mark.parametrize("sign", [1, -1])
def test_grid_hull_is_the_grid_lp(spec, sign):
    # The envelope (min over upper facet planes) equals the LP over the same
    # grid atoms solved by HiGHS; the located facet carries an optimal grid law.
    T = target(as_objective(spec), sign)
    H = grid_hull(T)
    f = np.asarray(T(H.grid), dtype=float)
    A = np.vander(H.grid, 3, increasing=True).T
    for mu, nu in _points(12, 11):
        lp = optimize.linprog(-f, A_eq=A, b_eq=[1.0, mu, nu], bounds=(0, None), method="highs")
        assert lp.status == 0
        envelope = float(np.min(H.planes @ np.array([1.0, mu, nu])))
        assert envelope == pytest.approx(-lp.fun, abs=1e-8)
        contacts = H.locate(mu, nu)
        assert 1 <= len(contacts) <= 3
        # weights from the Lagrange form on grid atoms a cell apart: a start, not a certificate
        assert all(w >= -1e-9 for _, w, _ in contacts)
        assert sum(w for _, w, _ in contacts) == pytest.approx(1.0, abs=1e-9)
        assert sum(w * x for x, w, _ in contacts) == pytest.approx(mu, abs=1e-9)


def test_grid_hull_of_a_quadratic_objective_is_empty():
    # f = 3q^2 - 2q lifts (x, x^2, f) onto a plane: no facet, every law is optimal.
    assert grid_hull(target(as_objective("3*q**2 - 2*q"), 1)).locate(0.5, 0.3) == []


def test_face_weights_solve_the_vandermonde_system():
    rng = np.random.default_rng(3)
    for _ in range(50):
        a, b, c = np.sort(rng.uniform(0, 1, 3)).tolist()
        w = rng.dirichlet(np.ones(3))
        mu, nu = float(w @ [a, b, c]), float(w @ np.square([a, b, c]))
        got, serves = face_weights((a, b, c), mu, nu)
        assert serves and np.allclose(got, w, atol=1e-9)
        # the array form is the same computation, entry by entry
        arr, serves_arr = face_weights((a, b, c), np.array([mu, 0.5]), np.array([nu, 0.3]))
        assert serves_arr[0] and [x[0] for x in arr] == got


def _two_inner_points(spec, sign, count):
    """Points whose extremal law (found by the engine) has two interior atoms."""
    side = "upper" if sign > 0 else "lower"
    found = []
    for mu, nu in _points(200, 5):
        bound = getattr(sharp_bounds(spec, mu=mu, nu=nu), side)
        if len(bound.law.atoms) == 2 and 0 < bound.law.atoms[0] and bound.law.atoms[1] < 1:
            found.append((mu, nu, bound))
        if len(found) == count:
            break
    return found


@pytest.mark.parametrize("votes,sign", [(9, 1), (21, -1), (101, -1), (1001, 1)])
def test_bitangent_newton_meets_the_kkt_conditions(votes, sign):
    T = target(as_objective(votes), sign)
    g, dg = majority_mp((votes - 1) // 2)
    cases = _two_inner_points(votes, sign, 4)
    assert cases, "no two-contact optimum among the sampled points"
    for mu, nu, bound in cases:
        x1, x2 = bound.law.atoms
        # start a few grid cells away, as the grid hull would
        found = bitangent_law(T, mu, nu, 0.99 * x1, x2 + 0.01 * (1 - x2))
        assert found is not None
        atoms, weights, value, y, _its = found
        with mpmath.workdps(40):
            for x in atoms:
                xm = mpmath.mpf(float(x))
                p = y[0] + y[1] * xm + y[2] * xm**2
                dp = y[1] + 2 * y[2] * xm
                assert abs(float(p - sign * g(xm))) <= 1e-13
                assert abs(float(dp - sign * dg(xm))) <= 1e-10 * (1 + abs(float(dg(xm))))
        assert weights @ atoms == pytest.approx(mu, abs=1e-14)
        assert weights @ atoms**2 == pytest.approx(nu, abs=1e-14)
        ref, _ = sharp_value_mp(
            g, dg, [Fraction(1), Fraction(mu), Fraction(nu)], list(atoms), list(weights), list(sign * y), "upper" if sign > 0 else "lower"
        )
        assert sign * value == pytest.approx(float(ref), abs=2e-15)


def _brute_max(T, y, n=200_001):
    x = np.linspace(0.0, 1.0, n)
    r = np.asarray(T(x), dtype=float) - (y[0] + y[1] * x + y[2] * x * x)
    return float(np.max(r))


@pytest.mark.parametrize("spec", [21, 1001, "V5 - q"])
@pytest.mark.parametrize("sign", [1, -1])
def test_violation_of_optimal_duals_and_of_lowered_ones(spec, sign):
    # An optimal dual touches f: violation at rounding level, with or without
    # the contacts' help. Lowered by eps it fails by eps at the contacts.
    T = target(as_objective(spec), sign)
    side = "upper" if sign > 0 else "lower"
    for mu, nu in _points(8, 17):
        bound = getattr(sharp_bounds(spec, mu=mu, nu=nu), side)
        y = sign * np.asarray(bound.dual)
        atoms = np.asarray(bound.law.atoms)
        for contacts in (atoms, None):
            viol, _ = max_violation(T, y, contacts=contacts)
            assert abs(viol) <= 1e-13
        for eps in (1e-6, 1e-10):
            viol, where = max_violation(T, y - np.array([eps, 0.0, 0.0]), contacts=atoms)
            assert viol == pytest.approx(eps, rel=1e-3)
            assert np.min(np.abs(atoms - where)) <= 1e-3


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from([3, 21, 101, "P3 - P1"]),
    sign=st.sampled_from([1, -1]),
    a=st.floats(-1.0, 1.0),
    b=st.floats(-3.0, 3.0),
    c=st.floats(-3.0, 3.0),
)
def test_violation_search_never_misses_brute_force(spec, sign, a, b, c):
    # A random quadratic: the search's maximum is attained (<= the true max)
    # and no lower than the brute-force maximum on 200,001 points.
    T = target(as_objective(spec), sign)
    y = np.array([a, b, c])
    viol, where = max_violation(T, y)
    brute = _brute_max(T, y)
    assert viol >= brute - 1e-12
    attained = float(T(where)) - (a + b * where + c * where * where)
    assert attained == pytest.approx(viol, abs=1e-14)
    assert viol <= brute + 1e-8


@pytest.mark.parametrize("n", [0, 1, 2, 10, 500])
def test_majority_jet_against_mpmath(n):
    g, dg = majority_mp(n)
    with mpmath.workdps(50):
        for x in (0.0, 1e-3, 0.2, 0.4999, 0.5, 0.73, 1.0):
            xm = mpmath.mpf(x)
            want = (g(xm), dg(xm), mpmath.diff(dg, xm) if 0 < x < 1 else None)
            got = majority_jet(n, x)
            for k in range(2 if want[2] is None else 3):
                assert abs(got[k] - float(want[k])) <= 1e-13 * (1 + abs(float(want[k])))


@pytest.mark.parametrize("degree", [0, 1, 3, 12, 60])
def test_bernstein_scalar_against_exact_rationals(degree):
    rng = np.random.default_rng(degree)
    coeffs = [Fraction(int(k), 7) for k in rng.integers(-20, 21, degree + 1)]
    bern = monomial_to_bernstein(coeffs)
    floats = [float(b) for b in bern]
    for t in (0.0, 0.1, 0.5, 0.77, 1.0, 1 / 3):
        tf = Fraction(t)
        exact = sum(c * tf**i for i, c in enumerate(coeffs))
        assert bernstein_scalar(floats, t) == pytest.approx(float(exact), abs=1e-13 * sum(abs(b) for b in floats))


def test_objective_jet_matches_its_evaluator():
    for spec in (9, 1001, "P3 - P1", "V5 - q", "3*q**2 - 2*q**3", "(P2 + P1)/2 - 1/4"):
        obj = as_objective(spec)
        for x in (0.0, 0.3, 0.5, 0.77, 1.0):
            want = [float(obj.evaluate(np.array([x]), k)[0]) for k in range(3)]
            assert np.allclose(obj.jet(x), want, rtol=1e-13, atol=1e-13)


def _edge_points(count, seed):
    """(mu, nu) near the corners and the boundary of the moment region, where weights are ill-conditioned."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        mu = float(rng.choice([rng.uniform(0, 1), rng.uniform(0, 1e-3), 1 - rng.uniform(0, 1e-3), rng.uniform(0.45, 0.55)]))
        rho = float(rng.choice([rng.uniform(0, 1), rng.uniform(0, 1e-6), 1 - rng.uniform(0, 1e-6), rng.uniform(0, 1e-11)]))
        out.append((mu, mu * mu + rho * mu * (1 - mu)))
    return out


def test_linear_objective_is_pinned_by_the_mean_at_the_edges():
    # E[Q] = mu for every law: both bounds are mu, to rounding, also near the corners and
    # the boundary of the moment region, where the weights are ill-conditioned.
    for mu, nu in _edge_points(60, 99):
        b = sharp_bounds(1, mu=mu, nu=nu)
        assert abs(b.lower.value - mu) <= 1e-15 and abs(b.upper.value - mu) <= 1e-15


@pytest.mark.parametrize("votes", [2001, 5001])
def test_vote_accuracy_bounds_stay_probabilities_at_the_edges(votes):
    # 0 <= L <= U <= 1 up to rounding, and agreement of value and dual value.
    for mu, nu in _edge_points(60, 99):
        b = sharp_bounds(votes, mu=mu, nu=nu)
        assert -1e-15 <= b.lower.value <= b.upper.value + 1e-15 <= 1 + 2e-15
        for side in (b.lower, b.upper):
            assert side.gap <= 1e-12


def test_three_moments_near_zero_with_a_singular_contact_pattern():
    # Atoms crowded at 0: the Hermite start of the KKT polish is a singular square
    # system here, which least squares must absorb (a plain solve raised).
    atoms, w = np.array([0.0, 0.0, 0.001, 0.003]), np.full(4, 0.25)
    moments = [float(np.dot(w, atoms**k)) for k in (1, 2, 3)]
    b = sharp_bounds("V21", moments=moments)
    assert 0.0 <= b.lower.value <= b.upper.value <= 1e-8
