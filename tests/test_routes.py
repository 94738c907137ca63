"""The route that wins each solve is recorded on the solution, and it is the expected one.

Each case is a point known to be won by one route of the pipeline (the map in
``certify.solvers``), solved from an empty solver state; the law's shape is checked
against the route's pattern, so a wrong label cannot pass.
"""

import numpy as np
import pytest

from certify import parse_objective, sharp_bound_arrays
from certify.solvers import TARGETS, Faces, solve_exact
from certify.solvers._solution import ROUTES


def _solve(spec, theta, sign=1, faces=None):
    return solve_exact(parse_objective(spec), np.array([1.0, *theta]), sign, faces)


@pytest.fixture(autouse=True)
def _empty_state():
    TARGETS.clear()
    yield
    TARGETS.clear()


def _inner(sol):
    return int(np.sum((sol.atoms > 0.0) & (sol.atoms < 1.0)))


def test_boundary():
    sol = _solve("V9", (0.3, 0.09))  # nu = mu^2: the point mass at 0.3
    assert sol.route == "boundary" and sol.atoms.tolist() == [0.3]


def test_endpoint():
    sol = _solve("V9", (0.3231, 0.198001))
    assert sol.route == "endpoint"
    assert len(sol.atoms) == 2 and _inner(sol) == 1


@pytest.mark.parametrize("sign,theta", [(1, (0.156, 0.078176)), (-1, (0.808, 0.717246))])
def test_bitangent(sign, theta):
    sol = _solve("V9", theta, sign)
    assert sol.route == "bitangent"
    assert len(sol.atoms) == 2 and _inner(sol) == 2


def test_hull_then_face():
    # The first solve polishes the grid hull's three contacts and remembers the face in
    # the Faces it is given; the same point again is served by that face, with the same value.
    faces = Faces()
    first = _solve("V9", (0.1655, 0.1547), faces=faces)
    assert first.route == "hull" and len(first.atoms) == 3
    again = _solve("V9", (0.1655, 0.1547), faces=faces)
    assert again.route == "face" and again.iterations == 0
    assert np.dot(again.weights, again.atoms**0) == pytest.approx(1.0, abs=1e-15)
    assert np.max(np.abs(np.sort(again.atoms) - np.sort(first.atoms))) == 0.0


def test_exchange():
    # Three moments: no hull, no face yet, not on the boundary: the exchange.
    w, a = np.array([0.3, 0.5, 0.2]), np.array([0.1, 0.45, 0.9])
    sol = _solve("V9", tuple(float(w @ a**k) for k in (1, 2, 3)))
    assert sol.route == "exchange" and sol.iterations > 0


def test_routes_are_named_in_one_table():
    seen = set()
    rng = np.random.default_rng(1)
    faces = Faces()  # shared, as in a batch: later points reuse faces of earlier ones
    for mu, r in rng.uniform(0.03, 0.97, (60, 2)):
        seen.add(_solve("P3 - P1", (mu, mu * mu + r * mu * (1 - mu)), faces=faces).route)
    assert seen <= set(ROUTES) and {"face", "bitangent", "endpoint"} <= seen
    paths = sharp_bound_arrays("P3 - P1", mu=rng.uniform(0, 1, 200), rho=rng.uniform(0, 1, 200)).paths
    assert set(paths) <= set(ROUTES) | {"pointwise"}


@pytest.mark.parametrize("spec", ["V5", "V9", "V101"])
def test_boundary_law_with_an_atom_a_rounding_error_inside_an_end(spec):
    # Three moments of 0.75 at 0.001 and 0.25 at 1 (a boundary point): the Hankel null
    # vector's root near 1 comes out as 1 - 1e-16. Counted as an interior atom, it left
    # the dual without its (1 - q) factor and the boundary dual was refused (found by
    # tests/test_properties.py).
    atoms, w = np.array([0.001, 1.0]), np.array([0.75, 0.25])
    theta = tuple(float(w @ atoms**k) for k in (1, 2, 3))
    truth = float(w @ parse_objective(spec).evaluate(atoms))
    for sign in (1, -1):
        sol = _solve(spec, theta, sign)
        assert sol.route == "boundary" and sol.atoms.tolist()[-1] == 1.0
        assert sol.violation <= 1e-12
        assert sign * float(sol.weights @ parse_objective(spec).evaluate(sol.atoms)) == pytest.approx(sign * truth, abs=1e-15)
