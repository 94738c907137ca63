"""The exact engine against closed forms, 50-digit references and brute-force LPs."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from certify import (
    InfeasibleMomentsError,
    InputError,
    ObjectiveError,
    SolverError,
    one_call_three_vote_envelope,
    parse_objective,
    sharp_bound,
    sharp_bounds,
    three_vote_bounds,
    vote_accuracy,
)
from certify._majority import majority_monomial_coefficients

from ._reference import bernstein_grid_bounds, beta_moments, majority_mp, polynomial_mp, sharp_value_mp


def test_three_vote_closed_form_on_dense_grid():
    # Theorem 4.2 closed form vs the engine on 101 x 100 = 10,100 feasible points,
    # rho in [0, 1] including both boundaries, mu in (0, 1).
    worst = 0.0
    for mu in np.linspace(0.005, 0.995, 101):
        for rho in np.linspace(0.0, 1.0, 100):
            cf = three_vote_bounds(mu, rho=rho)
            b = sharp_bounds(3, mu=mu, rho=rho)
            worst = max(worst, abs(b.lower.value - cf.lower), abs(b.upper.value - cf.upper))
    assert worst <= 1e-12


def test_one_call_envelope_from_the_same_engine():
    # Eq. (A.1): mean-only three-vote envelope; the engine with moment order 1.
    for mu in np.linspace(0.0, 1.0, 201):
        lo, up = one_call_three_vote_envelope(mu)
        b = sharp_bounds(3, moments=[mu])
        assert b.lower.value == pytest.approx(lo, abs=1e-12)
        assert b.upper.value == pytest.approx(up, abs=1e-12)
        assert len(b.lower.law.atoms) <= 2 and len(b.upper.law.atoms) <= 2


CASES = [
    ("V5", 0.7, 0.532),
    ("V101", 0.7, 0.532),
    ("V101", 0.55, 0.35),
    ("V1001", 0.62, 0.45),
    ("P3 - P1", 0.7, 0.532),
    ("V21 - V3", 0.3, 0.15),
]


@pytest.mark.parametrize("spec,mu,nu", CASES)
def test_against_50_digit_reference(spec, mu, nu):
    obj = parse_objective(spec)
    if len(obj.majority) == 1 and not obj.bernstein:
        g, dg = majority_mp(obj.majority[0][1])
    else:
        g, dg = polynomial_mp(obj.monomial_coefficients())
    theta = [Fraction(1), Fraction(mu), Fraction(nu)]
    b = sharp_bounds(obj, mu=mu, nu=nu)
    for bound in (b.lower, b.upper):
        ref, worst = sharp_value_mp(g, dg, theta, bound.law.atoms, bound.law.weights, bound.dual, bound.side, check_points=200)
        assert worst <= 1e-30, f"reference dual is not valid ({worst})"
        assert abs(bound.value - float(ref)) <= 1e-12


@pytest.mark.parametrize("votes", [3, 101, 1001])
def test_degenerate_inputs(votes):
    g = vote_accuracy(votes)
    # nu = mu^2: a point mass, both bounds equal P_n(mu).
    b = sharp_bounds(votes, mu=0.63, nu=0.63**2)
    assert b.lower.value == pytest.approx(g(0.63), abs=1e-13) and b.upper.value == pytest.approx(g(0.63), abs=1e-13)
    # nu = mu: atoms at 0 and 1, value mu (P_n(0) = 0, P_n(1) = 1).
    b = sharp_bounds(votes, mu=0.63, nu=0.63)
    assert b.lower.value == pytest.approx(0.63, abs=1e-15) and b.upper.value == pytest.approx(0.63, abs=1e-15)
    for mu in (0.0, 1.0):
        b = sharp_bounds(votes, mu=mu, nu=mu)
        assert b.lower.value == mu and b.upper.value == mu
    for b in (sharp_bounds(votes, mu=0.63, nu=0.63**2), sharp_bounds(votes, mu=0.63, nu=0.63), sharp_bounds(votes, mu=0.0, nu=0.0)):
        assert b.lower.violation <= 1e-12 and b.upper.violation <= 1e-12
        assert b.lower.dual_value <= b.lower.value + 1e-12 and b.upper.dual_value >= b.upper.value - 1e-12


def _grid_lp(obj, theta, size=20001):
    x = np.linspace(0, 1, size)
    A = np.vstack([x**k for k in range(len(theta))])
    gv = obj.evaluate(x)
    lo = linprog(gv, A_eq=A, b_eq=theta, bounds=(0, None), method="highs")
    up = linprog(-gv, A_eq=A, b_eq=theta, bounds=(0, None), method="highs")
    return lo.fun, -up.fun


@pytest.mark.parametrize("order", [1, 3, 4])
@pytest.mark.parametrize("spec", ["V5", "V21", "P3 - P1"])
def test_other_moment_orders_against_grid_lp(order, spec):
    # A different algorithm: HiGHS on a 20001-point grid gives inner approximations
    # (lower_grid >= L, upper_grid <= U) that converge at rate h^2.
    atoms = np.array([0.15, 0.4, 0.62, 0.9])
    w = np.array([0.2, 0.3, 0.3, 0.2])
    vals = [float(np.dot(w, atoms**k)) for k in range(1, order + 1)]
    obj = parse_objective(spec)
    b = sharp_bounds(obj, moments=vals)
    lo, up = _grid_lp(obj, np.array([1.0] + vals))
    assert b.lower.value <= lo + 1e-9 and b.upper.value >= up - 1e-9
    assert lo - b.lower.value <= 1e-6 and b.upper.value - up <= 1e-6
    for bound in (b.lower, b.upper):
        assert len(bound.law.atoms) <= order + 1
        np.testing.assert_allclose(bound.law.moments(order), vals, atol=1e-11)
        assert bound.violation <= 1e-11 and bound.gap <= 1e-11


@pytest.mark.parametrize("spec", ["V3", "V5", "P3 - P1"])
def test_three_moments_of_atoms_closer_than_the_solver_grid(spec):
    # Atoms 0.034 and 0.035 both lie between two neighbouring points of the exact
    # solver's Chebyshev grid (0.0335 and 0.0357 for these objectives): the moments are
    # inside the moment space of [0, 1] but outside that of the grid, and the exchange
    # on the grid alone reported them infeasible.
    atoms, w = np.array([0.034, 0.035]), np.array([0.5, 0.5])
    vals = [float(np.dot(w, atoms**k)) for k in (1, 2, 3)]
    obj = parse_objective(spec)
    truth = float(np.dot(w, obj.evaluate(atoms)))
    b = sharp_bounds(obj, moments=vals)
    # as in the property test: bounds valid to their certificates' violation (<= 1e-11 below)
    assert b.lower.value <= truth + 1e-10 and truth <= b.upper.value + 1e-10
    if spec == "V3":  # V3 = 3 q^2 - 2 q^3: every law with these moments has E[V3] = 3 m_2 - 2 m_3
        assert b.lower.value == pytest.approx(3 * vals[1] - 2 * vals[2], abs=1e-15)
        assert b.upper.value == pytest.approx(3 * vals[1] - 2 * vals[2], abs=1e-15)
    # each side proves itself: its law has the moments and attains the value, its dual
    # is a majorant (upper) or minorant (lower) of g with the same expectation (a grid LP
    # is no reference here: HiGHS meets the moments only to 1e-7)
    x = np.linspace(0.0, 1.0, 200001)
    g = obj.evaluate(x)
    for bound, sign in ((b.lower, -1), (b.upper, 1)):
        assert len(bound.law.atoms) <= 4
        np.testing.assert_allclose(bound.law.moments(3), vals, atol=1e-11)
        assert bound.law.expect(obj) == pytest.approx(bound.value, abs=1e-15)
        p = np.polynomial.polynomial.polyval(x, bound.dual)
        assert np.max(sign * (g - p)) <= 1e-11
        assert float(np.dot(bound.dual, [1.0] + vals)) == pytest.approx(bound.value, abs=1e-11)


def test_sharp_bound_single_side_and_value_of_law():
    b = sharp_bound("V7 - V3", "lower", mu=0.7, nu=0.532)
    assert b.side == "lower"
    assert b.value == pytest.approx(b.law.expect(parse_objective("V7 - V3")), abs=1e-15)


def test_bad_inputs_raise_package_errors():
    with pytest.raises(InfeasibleMomentsError, match="nu <= mu"):
        sharp_bounds(3, mu=0.5, nu=0.6)
    with pytest.raises(ObjectiveError):
        sharp_bounds("V3 + z", mu=0.5, nu=0.3)
    with pytest.raises(InputError, match="method"):
        sharp_bounds(3, mu=0.5, nu=0.3, method="simplex")
    with pytest.raises(InputError, match="votes"):
        sharp_bounds(0, mu=0.5, nu=0.3)
    with pytest.raises(InputError, match="side"):
        sharp_bound(3, "middle", mu=0.5, nu=0.3)
    with pytest.raises(ValueError):
        sharp_bounds(3, mu=float("nan"), nu=0.3)


def test_exact_monomials_agree_with_evaluator():
    obj = vote_accuracy(21)
    coeffs = [Fraction(c) for c in majority_monomial_coefficients(10)]
    q = Fraction(37, 100)
    assert obj.evaluate(0.37) == pytest.approx(float(sum(c * q**k for k, c in enumerate(coeffs))), abs=1e-15)


@pytest.mark.parametrize("a, b", [("339/100", "221/100"), ("317/100", "539/100"), ("31/5", "2")])
def test_ten_beta_moments_inside_the_moment_space(a, b):
    # Exact moments of a Beta law: strictly inside the moment space (the smallest Hankel
    # eigenvalue is about 1e-8), yet the exchange reported them "outside the moment space"
    # for V101 at 10 moments: the duals of the monomial moments (8e4) outgrew the artificial
    # columns' cost, so the first phase stopped with an artificial column in the basis.
    # Reference: HiGHS on a 4001-point grid in the Bernstein basis (cell probabilities,
    # well conditioned at degree 10): inner bounds within the grid's h^2 error.
    order = 10
    vals = beta_moments(Fraction(a), Fraction(b), order)
    obj = parse_objective("V101")
    bounds = sharp_bounds(obj, moments=[f"{v.numerator}/{v.denominator}" for v in vals])
    lo, up = bernstein_grid_bounds(obj, vals)
    # each bound holds to its certificate's violation (the dual polynomial's coefficients reach
    # 3e5 in the monomial basis, so rounding leaves up to about 1e-5), and is sharp to 1e-5
    assert bounds.lower.value - bounds.lower.violation <= lo + 1e-7
    assert bounds.upper.value + bounds.upper.violation >= up - 1e-7
    assert abs(lo - bounds.lower.value) <= 1e-5 and abs(bounds.upper.value - up) <= 1e-5
    assert max(bounds.lower.violation, bounds.upper.violation) <= 1e-4
    for bound in (bounds.lower, bounds.upper):
        assert len(bound.law.atoms) <= order + 1
        np.testing.assert_allclose(bound.law.moments(order), [float(v) for v in vals], atol=1e-10)


@pytest.mark.parametrize("a, b", [("28/5", "39/10"), ("21/5", "27/5"), ("18/5", "47/10")])
def test_twenty_beta_moments_give_a_valid_dual_or_an_error(a, b):
    # At 20 moments the monomial coefficients of a dual reach 1e12; the relative acceptance rule
    # alone took a dual failing by 3.2 (upper bound of V101 for Beta(5.6, 3.9)) as a sharp bound.
    # Whatever a solve returns must hold to ACCEPT_MAX_VIOLATION; otherwise it must say it failed.
    moments = beta_moments(Fraction(a), Fraction(b), 20)
    vals = [f"{m.numerator}/{m.denominator}" for m in moments]
    obj = parse_objective("V101")
    try:
        bounds = sharp_bounds(obj, moments=vals)
    except SolverError:
        pass
    else:
        scale = 1.0 + float(np.max(np.abs(obj.evaluate(np.linspace(0, 1, 1001)))))
        assert max(bounds.lower.violation, bounds.upper.violation) <= 1e-4 * scale
    # V9 at the same moments is identified (degree 9 <= 20): E[V9] = sum_k c_k m_k exactly, and
    # the solve must return that value on both sides
    exact = float(sum(Fraction(c) * m for c, m in zip(majority_monomial_coefficients(4), [Fraction(1)] + moments)))
    nine = sharp_bounds(vote_accuracy(9), moments=vals)
    assert nine.lower.value == pytest.approx(exact, abs=1e-9) and nine.upper.value == pytest.approx(exact, abs=1e-9)


@pytest.mark.parametrize("x", [0.5, 0.3, 1 / 3, 0.9, 0.0, 1.0])
def test_a_point_mass_of_any_order_sits_exactly_at_its_mean(x):
    # moments x, x^2, x^3, x^4 (a singular Hankel matrix): the one law is the point mass at x with
    # weight 1, exactly, so both bounds are g(x) to the last bit; found as a root of the Hankel
    # null vector it was 0.5 + 2 ulp on an AVX-512 machine, and V3 0.5000000000000004
    moments = [x, x * x, x * x * x, x * x * x * x]
    b = sharp_bounds(3, moments=moments)
    for bound in (b.lower, b.upper):
        assert tuple(bound.law.atoms) == (x,) and tuple(bound.law.weights) == (1.0,)
        assert bound.value == float(vote_accuracy(3)(x))


@pytest.mark.parametrize("order", [12, 14, 16])
def test_moments_of_the_uniform_law_are_never_called_infeasible(order):
    # m_k = 1 / (k + 1) are the moments of the uniform law, strictly inside the moment space at
    # every order (its Hankel matrices are Hilbert matrices, positive definite), yet from order 14
    # on the floating-point exchange finds no feasible basis and called them "outside the moment
    # space". A solve may fail at such an order, but it must not blame the moments.
    vals = [f"1/{k + 1}" for k in range(1, order + 1)]
    try:
        bounds = sharp_bounds(parse_objective("V101"), moments=vals)
    except SolverError as err:
        assert err.status != "infeasible" and "inside the moment space" in str(err)
    else:
        for bound in (bounds.lower, bounds.upper):
            np.testing.assert_allclose(bound.law.moments(order), [1 / (k + 1) for k in range(1, order + 1)], atol=1e-8)
