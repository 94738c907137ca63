"""The cvxpy methods ``sos`` (exact SOS dual) and ``grid`` (primal LP on atoms).

Both are checked against ``method="exact"`` and against references computed
without any of the solvers: closed forms (Theorem 4.2 for three votes, the
one-call envelope for one moment, the identity E P_1 = 3 m_2 - 2 m_3 for three
moments) and, for the grid, its own rigorous error bound h^2/8 sup|(f - p)''|.
"""

from __future__ import annotations

import numpy as np
import pytest

from certify import InputError, SolverError, parse_objective, sharp_bounds, vote_accuracy
from certify.solvers._grid import solve_grid

SOS_TOL = 1e-7
#: Atoms of the law used to make feasible moment vectors of order 1, 2 and 3.
LAW_ATOMS = np.array([0.1, 0.45, 0.7, 0.95])
LAW_WEIGHTS = np.array([0.2, 0.3, 0.4, 0.1])

CVXPY_METHODS = [
    pytest.param("sos", {}, id="sos-clarabel"),
    pytest.param("sos", {"solver": "SCS"}, id="sos-scs"),
    pytest.param("grid", {}, id="grid-clarabel"),
    pytest.param("grid", {"solver": "highs"}, id="grid-highs"),
]


def law_moments(order: int) -> list[float]:
    return [float(LAW_WEIGHTS @ LAW_ATOMS**k) for k in range(1, order + 1)]


def three_vote_reference(mu: float, nu: float) -> tuple[float, float]:
    # Theorem 4.2 (paper eqs. L1/U1), derived by hand in Appendix A from
    # q (q - nu/mu)^2 >= 0 and (1 - q)(q - (mu - nu)/(1 - mu))^2 >= 0.
    return nu + 2 * (mu - nu) ** 2 / (1 - mu), 3 * nu - 2 * nu**2 / mu


def one_moment_three_vote_reference(mu: float) -> tuple[float, float]:
    # Convex / concave envelopes of P_1 = 3q^2 - 2q^3 at mu, by the tangent-line
    # construction: the chord from (0, 0) touches P_1 at q = 3/4 with slope 9/8,
    # the chord to (1, 1) touches it at q = 1/4 (P_1(1 - q) = 1 - P_1(q)).
    p1 = 3 * mu**2 - 2 * mu**3
    upper = 9 * mu / 8 if mu <= 0.75 else p1
    lower = p1 if mu <= 0.25 else 1 - 9 * (1 - mu) / 8
    return lower, upper


def grid_error_bound(objective, bound, size: int) -> float:
    """h^2/8 sup|(g - p)''|: f - p <= 0 at the atoms, so between two atoms it
    exceeds 0 by at most (h/2)^2/2 times the curvature (Taylor at its maximum)."""
    q = np.linspace(0.0, 1.0, 20001)
    p2 = sum(k * (k - 1) * c * q ** (k - 2) for k, c in enumerate(bound.dual) if k >= 2)
    h = 1.0 / (size - 1)
    return h * h / 8 * float(np.max(np.abs(objective.evaluate(q, 2) - p2)))


def assert_extremal_laws(b, order: int, moments) -> None:
    for bound in (b.lower, b.upper):
        atoms, weights = np.array(bound.law.atoms), np.array(bound.law.weights)
        assert len(atoms) <= order + 1
        assert np.all((atoms >= 0) & (atoms <= 1)) and np.all(weights >= 0)
        np.testing.assert_allclose([weights.sum(), *bound.law.moments(order)], [1.0, *moments], rtol=0, atol=1e-12)


# --- values against closed forms ---------------------------------------------


@pytest.mark.parametrize("method,options", CVXPY_METHODS)
@pytest.mark.parametrize("mu,nu", [(0.7, 0.532), (0.3, 0.15), (0.55, 0.4)])
def test_three_votes_closed_form(method, options, mu, nu):
    lower, upper = three_vote_reference(mu, nu)
    b = sharp_bounds(3, mu=mu, nu=nu, method=method, **options)
    assert_extremal_laws(b, 2, [mu, nu])
    if method == "sos":
        assert b.lower.value == pytest.approx(lower, abs=SOS_TOL)
        assert b.upper.value == pytest.approx(upper, abs=SOS_TOL)
    else:
        # a grid law is feasible, so an inner bound; its error is at most the
        # a-priori discretization bound (1e-7 here: spacing 1/2000, |g''| <= 6)
        err = grid_error_bound(vote_accuracy(3), b.upper, 2001)
        assert upper - err - 1e-12 <= b.upper.value <= upper + 1e-12
        err = grid_error_bound(vote_accuracy(3), b.lower, 2001)
        assert lower - 1e-12 <= b.lower.value <= lower + err + 1e-12


@pytest.mark.parametrize("method,options", CVXPY_METHODS)
def test_one_moment_closed_form(method, options):
    for mu in (0.2, 0.5, 0.8):
        lower, upper = one_moment_three_vote_reference(mu)
        b = sharp_bounds(3, moments=[mu], method=method, **options)
        assert_extremal_laws(b, 1, [mu])
        # the grid contains every atom of these laws (0.25, 0.75, 1, mu), so it is exact
        assert b.lower.value == pytest.approx(lower, abs=SOS_TOL)
        assert b.upper.value == pytest.approx(upper, abs=SOS_TOL)


@pytest.mark.parametrize("method", ["sos", "grid"])
def test_three_moments_determine_three_votes(method):
    # deg P_1 = 3 = m: every law with these moments has E P_1 = 3 m_2 - 2 m_3, so
    # p = P_1 touches everywhere and the law must come from a flat contact set.
    m = law_moments(3)
    b = sharp_bounds(3, moments=m, method=method)
    assert b.lower.value == pytest.approx(3 * m[1] - 2 * m[2], abs=1e-10)
    assert b.upper.value == pytest.approx(3 * m[1] - 2 * m[2], abs=1e-10)
    assert_extremal_laws(b, 3, m)


# --- agreement with the exact method -------------------------------------------


@pytest.mark.parametrize(
    "spec,mu,rho",
    [("V5", 0.62, 0.3), ("V9", 0.8, 0.15), ("V21", 0.55, 0.5), ("V51", 0.7, 0.2), ("V51", 0.35, 0.6), ("P3 - P1", 0.7, 0.3), ("V7 - V3", 0.4, 0.25)],
)
def test_sos_agrees_with_exact(spec, mu, rho):
    exact = sharp_bounds(spec, mu=mu, rho=rho)
    b = sharp_bounds(spec, mu=mu, rho=rho, method="sos")
    assert b.lower.value == pytest.approx(exact.lower.value, abs=SOS_TOL)
    assert b.upper.value == pytest.approx(exact.upper.value, abs=SOS_TOL)
    for bound in (b.lower, b.upper):
        # the SOS polynomial is a certificate up to the solver's tolerance
        assert bound.violation <= 1e-7 and bound.gap <= SOS_TOL
    assert_extremal_laws(b, 2, [mu, mu * mu + rho * mu * (1 - mu)])


@pytest.mark.parametrize("spec", ["V5", "P3 - P1"])
def test_sos_agrees_with_exact_three_moments(spec):
    m = law_moments(3)
    exact = sharp_bounds(spec, moments=m)
    b = sharp_bounds(spec, moments=m, method="sos")
    assert b.lower.value == pytest.approx(exact.lower.value, abs=SOS_TOL)
    assert b.upper.value == pytest.approx(exact.upper.value, abs=SOS_TOL)
    assert_extremal_laws(b, 3, m)


@pytest.mark.parametrize("solver", ["CLARABEL", "HIGHS"])
@pytest.mark.parametrize("spec,mu,rho", [("V5", 0.62, 0.3), ("V21", 0.55, 0.5), ("V101", 0.7, 0.2), ("V1001", 0.6, 0.4), ("V7 - V3", 0.62, 0.35)])
def test_grid_within_its_discretization_error(solver, spec, mu, rho):
    obj = parse_objective(spec)
    exact = sharp_bounds(obj, mu=mu, rho=rho)
    b = sharp_bounds(obj, mu=mu, rho=rho, method="grid", solver=solver)
    for side, sign in (("lower", -1), ("upper", 1)):
        grid, ref = getattr(b, side), getattr(exact, side)
        err = grid_error_bound(obj, grid, 2001)
        # inner bound, at most the a-priori error away from the sharp value ...
        assert 0 <= sign * (ref.value - grid.value) + 1e-12 <= err + 2e-12
        # ... and the measured violation of the grid dual bounds the same error
        assert sign * (ref.value - grid.value) <= grid.violation + grid.gap + 1e-12
        assert grid.violation <= err + 1e-12
    assert_extremal_laws(b, 2, [mu, mu * mu + rho * mu * (1 - mu)])


@pytest.mark.parametrize("solver", ["CLARABEL", "HIGHS"])
@pytest.mark.parametrize("sign", [1, -1])
def test_grid_dual_sign_convention(solver, sign):
    # cvxpy's multiplier of ``A w == theta`` in a Maximize problem is y with
    # p = A^T y >= f on the grid and y . theta = optimum (LP duality).
    obj = vote_accuracy(7)
    theta = np.array([1.0, 0.6, 0.42])
    sol = solve_grid(obj, theta, sign, size=501, solver=solver)
    x = np.linspace(0, 1, 501)
    p = np.polynomial.polynomial.polyval(x, sol.dual)
    assert np.min(p - sign * obj.evaluate(x)) >= -1e-9
    assert float(sol.dual @ theta) == pytest.approx(float(sol.weights @ (sign * obj.evaluate(sol.atoms))), abs=1e-8)


# --- statuses and inputs ---------------------------------------------------------


@pytest.mark.parametrize(
    "method,options,solver",
    [("sos", {"max_iter": 2}, "CLARABEL"), ("sos", {"solver": "scs", "max_iter": 5}, "SCS"), ("grid", {"max_iter": 2}, "CLARABEL"), ("grid", {"solver": "HIGHS", "max_iter": 1}, "HIGHS")],
)
def test_non_optimal_status_raises(method, options, solver):
    with pytest.raises(SolverError) as info:
        sharp_bounds(5, mu=0.6, rho=0.3, method=method, **options)
    assert info.value.solver == solver and info.value.status != "optimal"
    assert solver in str(info.value) and info.value.status in str(info.value)


@pytest.mark.parametrize(
    "method,options,named",
    [
        ("sos", {"solver": "MOSEK"}, "'MOSEK'"),
        ("sos", {"solver": "highs"}, "'highs'"),
        ("grid", {"solver": "SCS"}, "'SCS'"),
        ("grid", {"solver": 3}, "solver=3"),
        ("grid", {"size": 1}, "size=1"),
        ("sos", {"max_iter": -1}, "max_iter=-1"),
        ("grid", {"time_limit": "soon"}, "time_limit='soon'"),
    ],
)
def test_bad_options(method, options, named):
    with pytest.raises(InputError) as info:
        sharp_bounds(5, mu=0.6, rho=0.3, method=method, **options)
    assert named in str(info.value) and "\n" not in str(info.value)


def test_sos_refuses_impractical_degrees():
    with pytest.raises(InputError, match="degree 201"):
        sharp_bounds(201, mu=0.6, rho=0.3, method="sos")

