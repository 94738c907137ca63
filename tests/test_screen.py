"""The core screen (certify._screen) and supports (certify._support) against independent computations.

* the grid policy gives each purpose the grid its users had (sizes written out here);
* the screen's minima and maxima of polynomials agree with the real roots of p'
  (numpy's companion-matrix eigenvalues), ends included;
* merging and the frozen-endpoint rule on small hand-made cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from certify._screen import CERTIFICATE, CONTACT, LIKELIHOOD, POLICIES, grid, grid_minima, grid_points, newton_in, polish
from certify._support import free_atoms, merge_close, merge_runs


@pytest.mark.parametrize("purpose,degree,points", [
    (CONTACT, 3, 257), (CONTACT, 101, 405), (CONTACT, 10_000, 16385),
    (LIKELIHOOD, 3, 4097), (LIKELIHOOD, 1001, 8009),
    (CERTIFICATE, 5, 2001), (CERTIFICATE, 203, 4061),
])
def test_grid_policy_sizes(purpose, degree, points):
    assert grid_points(degree, purpose) == points
    x = grid(degree, purpose)
    assert len(x) == points and x[0] == 0.0 and x[-1] == 1.0 and np.all(np.diff(x) > 0)


def test_grid_policy_pieces():
    # the likelihood's cells are per unit length: a half gets half of them; a point is one point
    assert grid_points(3, LIKELIHOOD, 0.5) == 2049 and grid_points(3, LIKELIHOOD, 0.0) == 1
    assert len(grid(3, LIKELIHOOD, 0.5, 1.0)) == 2049
    # the certificate builder's are per interval: every piece gets the whole grid
    assert grid_points(5, CERTIFICATE, 0.5) == 2001
    # the contact grid is Chebyshev-Lobatto: dense near the ends
    x = grid(3, CONTACT)
    assert x[1] - x[0] < 1e-4 < x[129] - x[128]


def test_grid_minima_one_per_plateau_and_the_ends():
    v = np.array([1.0, 2.0, 0.0, 0.0, 0.0, 3.0, 1.0])
    assert grid_minima(v).tolist() == [0, 2, 6]
    assert grid_minima(np.array([5.0])).tolist() == [0]


def _screen_poly(c, purpose=LIKELIHOOD, maximize=False):
    """The screen's local minima (maxima) of the polynomial with coefficients c on [0, 1]."""
    d1, d2 = P.polyder(c), P.polyder(c, 2)
    x = grid(len(c) - 1, purpose)
    v = P.polyval(x, c)
    idx = grid_minima(-v if maximize else v)
    n = len(x)
    return polish(lambda q: (P.polyval(q, d1), P.polyval(q, d2)), lambda q: P.polyval(q, c),
                  x[np.maximum(idx - 1, 0)], x[np.minimum(idx + 1, n - 1)], x[idx], v[idx], POLICIES[purpose].step_tol,
                  maximize=maximize)


def _critical_points(c, second_sign):
    """Real roots of p' in (0, 1) where p'' has the given sign (companion-matrix eigenvalues)."""
    r = P.polyroots(P.polyder(c))
    r = np.sort(r[(np.abs(r.imag) < 1e-12)].real)
    r = r[(r > 0) & (r < 1)]
    return r[np.sign(P.polyval(r, P.polyder(c, 2))) == second_sign]


@pytest.mark.parametrize("purpose", [CONTACT, LIKELIHOOD, CERTIFICATE])
def test_screen_finds_every_local_minimum_and_maximum(purpose):
    # p' = 7 (q - 0.1)(q - 0.35)(q - 0.6)(q - 0.93) > 0 on [0, 0.1): p rises from the end 0
    # (a minimum), falls to 0.35, rises to 0.6, falls to 0.93 and rises to the end 1 (a maximum).
    c = P.polyint(7 * P.polyfromroots([0.1, 0.35, 0.6, 0.93]))
    low = _screen_poly(c, purpose)
    order = np.argsort(low.points)
    np.testing.assert_allclose(low.points[order], [0.0, *_critical_points(c, 1)], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(low.values, P.polyval(low.points, c))
    high = _screen_poly(c, purpose, maximize=True)
    order = np.argsort(high.points)
    np.testing.assert_allclose(high.points[order], [*_critical_points(c, -1), 1.0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(high.values, P.polyval(high.points, c))


def test_one_point_as_a_float_gives_the_floats_of_an_array_of_one():
    # The solvers polish one point at a time as floats: the same floats as an array of that
    # one candidate; in an array of several, a point that converged early keeps stepping
    # with the others, so it agrees to the last few ulps.
    c = P.polyint(7 * P.polyfromroots([0.1, 0.35, 0.6, 0.93]))
    d1, d2 = P.polyder(c), P.polyder(c, 2)

    def slopes(q):
        if isinstance(q, np.ndarray):
            return np.array([P.polyval(t, d1) for t in q.tolist()]), np.array([P.polyval(t, d2) for t in q.tolist()])
        return float(P.polyval(q, d1)), float(P.polyval(q, d2))

    def value(q):
        return np.array([P.polyval(t, c) for t in q.tolist()]) if isinstance(q, np.ndarray) else float(P.polyval(q, c))

    x = grid(4, CONTACT)
    v = value(x)
    for maximize in (False, True):
        idx = grid_minima(-v if maximize else v)
        lo, hi = x[np.maximum(idx - 1, 0)], x[np.minimum(idx + 1, len(x) - 1)]
        both = polish(slopes, value, lo, hi, x[idx], v[idx], 1e-14, maximize)
        for k in range(len(idx)):
            args = (lo[k], hi[k], x[idx[k]], v[idx[k]])
            one = polish(slopes, value, *map(float, args), 1e-14, maximize)
            alone = polish(slopes, value, *(np.array([a]) for a in args), 1e-14, maximize)
            assert (one.points, one.values) == (alone.points[0], alone.values[0])
            assert abs(one.points - both.points[k]) <= 1e-15 and one.values == pytest.approx(both.values[k], abs=1e-15)


def test_screen_ends_and_monotone_brackets():
    # p(q) = q on [0, 1]: the minimum is the end 0 and nothing else
    c = np.array([0.0, 1.0])
    low = _screen_poly(c)
    assert low.points.tolist() == [0.0] and low.values.tolist() == [0.0]
    high = _screen_poly(c, maximize=True)
    assert high.points.tolist() == [1.0]


def test_newton_in_reaches_the_root_of_each_bracket():
    # r'(q) = q^2 - 0.2 (root sqrt(0.2)) and r'(q) = (q - 0.7)^3 + ... : brackets with r'(lo) < 0 < r'(hi)
    slopes = lambda q: (q * q - 0.2, 2 * q)  # noqa: E731
    x = newton_in(slopes, np.array([0.0, 0.3]), np.array([1.0, 0.5]), np.array([0.9, 0.31]), 1e-15)
    np.testing.assert_allclose(x, np.sqrt(0.2), rtol=0, atol=1e-15)
    # r'' < 0 at the start (a cubic's wrong side): bisection keeps it in the bracket
    slopes = lambda q: ((q - 0.7) ** 3, 3 * (q - 0.7) ** 2)  # noqa: E731
    x = newton_in(slopes, np.array([0.0]), np.array([1.0]), np.array([0.5]), 1e-15)
    assert abs(x[0] - 0.7) < 1e-5  # a triple root: Newton converges linearly, to ~cube root of rounding


def test_merge_close_and_runs():
    m = merge_close([0.5, 0.1, 0.1004, 0.9, 0.5001], [0.2, 0.1, 0.3, 0.3, 0.1], 1e-3)
    np.testing.assert_allclose(m.atoms, [(0.1 * 0.1 + 0.1004 * 0.3) / 0.4, (0.5 * 0.2 + 0.5001 * 0.1) / 0.3, 0.9])
    np.testing.assert_allclose(m.weights, [0.4, 0.3, 0.3])
    # a weight at the floor is dropped first; runs chain (0.1, 0.1008 via 0.1004)
    m = merge_close([0.1, 0.1004, 0.1008, 0.5], [0.5, 0.2, 0.3, 1e-15], 5e-4, floor=1e-14)
    assert len(m.atoms) == 1 and m.weights[0] == pytest.approx(1.0)
    # positions: atoms in neighbouring cells of a grid are one contact, two cells apart are not
    g = np.linspace(0, 1, 11)
    m = merge_close([0.05, 0.15, 0.45], [1.0, 1.0, 1.0], 1, positions=lambda a: np.searchsorted(g, a))
    np.testing.assert_allclose(m.atoms, [0.1, 0.45])
    merged, groups = merge_runs(np.array([0.2, 0.3, 0.4]), np.array([1.0, 1.0, 2.0]), np.array([False, True]))
    assert [g.tolist() for g in groups] == [[0], [1, 2]]
    np.testing.assert_allclose(merged.atoms, [0.2, (0.3 + 0.8) / 3])


def test_free_atoms_are_strictly_inside():
    assert free_atoms(np.array([0.0, 0.2, 1.0, 0.999])).tolist() == [1, 3]
    assert free_atoms(np.array([0.5, 0.5, 0.7]), np.array([0.5, 0.0, 0.5]), np.array([1.0, 0.5, 1.0])).tolist() == [2]
