"""Contact-point geometry shared by the solvers.

Every sharp bound is a pair (law, polynomial p >= f on [0, 1]) touching at the
law's atoms (Theorem 4.1). This module holds what all solvers need to work with
such pairs: the target f = sign * g sampled on a fine grid, local maximization of
the residual f - p, the numerical violation of a candidate dual, and recovery of
an extremal law from the contact points of a dual.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.polynomial import polynomial as npoly
from scipy import optimize

from .._errors import SolverError

#: Largest grid used to search for the residual's maxima.
MAX_GRID = 16385


class Target:
    """f = sign * g with its values cached on a Chebyshev-Lobatto grid of [0, 1].

    The grid has about four points per unit of degree, enough to resolve every
    local extremum of a polynomial of that degree; it is refined by Newton steps.
    """

    def __init__(self, objective, sign: int):
        self.objective = objective
        self.sign = float(sign)
        d = objective.degree
        n = int(min(max(257, 4 * d + 1), MAX_GRID))
        t = np.cos(np.pi * np.arange(n) / (n - 1))
        x = np.sort(0.5 * (1.0 - t))
        x[0], x[-1] = 0.0, 1.0
        self.grid = x
        self.values = self.sign * np.asarray(objective.evaluate(x), dtype=float)
        self.scale = 1.0 + float(np.max(np.abs(self.values)))
        # Between grid points f - p can exceed its sampled values by at most
        # h^2/8 max|f'' - p''|: local maxima within that band must be refined.
        self.h = float(np.max(np.diff(x)))
        self.second = self.sign * np.asarray(objective.evaluate(x, 2), dtype=float)
        self.curvature = float(np.max(np.abs(self.second)))
        self._ends = (float(self(0.0, 1)), float(self(1.0, 1)))

    def first_at(self, end: float) -> float:
        """f'(0) or f'(1), cached."""
        return self._ends[0] if end == 0.0 else self._ends[1]

    def band(self, y) -> float:
        """Height below the sampled maximum within which a local maximum may hide a larger one."""
        c2 = float(np.sum(np.abs(np.arange(len(y)) * (np.arange(len(y)) - 1) * np.asarray(y))))
        return 0.125 * self.h**2 * (self.curvature + c2) + 1e-9 * self.scale

    def __call__(self, x, derivative: int = 0):
        return self.sign * self.objective.evaluate(x, derivative)


@lru_cache(maxsize=128)
def target(objective, sign: int) -> Target:
    """Cached :class:`Target` for an objective and a side (+1 upper, -1 lower)."""
    return Target(objective, sign)


def poly(y: np.ndarray, x, derivative: int = 0):
    """Value or derivative of the polynomial with monomial coefficients ``y``."""
    c = np.asarray(y, dtype=float)
    for _ in range(derivative):
        c = c[1:] * np.arange(1, len(c)) if len(c) > 1 else np.zeros(1)
    if np.ndim(x) == 0:
        acc = 0.0
        for coef in c[::-1]:
            acc = acc * x + coef
        return float(acc)
    return npoly.polyval(x, c)


def refine_max(T: Target, y: np.ndarray, i: int) -> tuple[float, float]:
    """Local maximum of r = f - p near grid index ``i`` by safeguarded Newton.

    Returns
    -------
    (x, r(x))
    """
    g = T.grid
    n = len(g)
    if i == 0 and _slope(T, y, 0.0) <= 0:
        return 0.0, float(T.values[0] - poly(y, 0.0))
    if i == n - 1 and _slope(T, y, 1.0) >= 0:
        return 1.0, float(T.values[-1] - poly(y, 1.0))
    return maximize_between(T, y, float(g[max(i - 1, 0)]), float(g[min(i + 1, n - 1)]), float(g[i]))


def _slope(T: Target, y: np.ndarray, x: float) -> float:
    return float(T(x, 1)) - float(poly(y, x, 1))


def _horner(c: list, x: float) -> float:
    acc = 0.0
    for coef in reversed(c):
        acc = acc * x + coef
    return acc


def _derivs(y) -> tuple[list, list, list]:
    c0 = [float(v) for v in y]
    c1 = [k * c0[k] for k in range(1, len(c0))] or [0.0]
    c2 = [k * c1[k] for k in range(1, len(c1))] or [0.0]
    return c0, c1, c2


def maximize_between(T: Target, y: np.ndarray, a: float, b: float, x: float) -> tuple[float, float]:
    """Local maximum of r = f - p in [a, b], from ``x``, by Newton safeguarded with bisection on r'."""
    c0, c1, c2 = _derivs(y)
    # Monotone on the bracket: the maximum is at an end, no iteration needed.
    if T(b, 1) - _horner(c1, b) >= 0.0:
        return b, float(T(b) - _horner(c0, b))
    if T(a, 1) - _horner(c1, a) <= 0.0:
        return a, float(T(a) - _horner(c0, a))
    for _ in range(80):
        s1 = T(x, 1) - _horner(c1, x)
        if s1 == 0.0:
            break
        s2 = T(x, 2) - _horner(c2, x)
        if s1 > 0:
            a = x
        else:
            b = x
        newton = s2 < 0
        xn = x - s1 / s2 if newton else 0.5 * (a + b)
        if not (a <= xn <= b):
            xn, newton = 0.5 * (a + b), False
        # A Newton step below 1e-14 leaves an error below rounding (quadratic convergence).
        done = abs(xn - x) <= 1e-14 if newton else b - a <= 2e-16
        x = xn
        if done:
            break
    return x, float(T(x) - _horner(c0, x))


def ascent_from(T: Target, y: np.ndarray, x: float) -> tuple[float, float]:
    """Local maximum of r = f - p reached from ``x`` by moving uphill.

    Used at interior contact points of a basis, where r = 0 but r' may not
    vanish: the grid can miss the narrow uphill side. At a genuine tangency
    (r' = 0 to rounding, r'' < 0) the point itself is the local maximum.
    """
    s1 = _slope(T, y, x)
    s2 = float(T(x, 2)) - float(poly(y, x, 2))
    if abs(s1) <= 1e-13 * T.scale * (1.0 + float(np.sum(np.abs(y)))) and s2 < 0:
        return x, float(T(x) - poly(y, x))
    g = T.grid
    j = int(np.searchsorted(g, x))
    if s1 > 0:
        b = float(g[min(j + 1, len(g) - 1)])
        return maximize_between(T, y, x, b, 0.5 * (x + b))
    a = float(g[max(j - 2, 0)])
    return maximize_between(T, y, a, x, 0.5 * (a + x))


def local_maxima(r: np.ndarray, threshold: float) -> np.ndarray:
    """Indices of grid local maxima of ``r`` with value above ``threshold``."""
    left = np.concatenate(([True], r[1:] >= r[:-1]))
    right = np.concatenate((r[:-1] >= r[1:], [True]))
    return np.nonzero(left & right & (r > threshold))[0]


def max_violation(T: Target, y: np.ndarray, contacts=None) -> tuple[float, float]:
    """Largest value of f - p on [0, 1] and where it occurs.

    Every grid local maximum within :meth:`Target.band` of the grid maximum is
    refined by Newton, so that excursions between grid points are found.
    When the caller knows the contact points of p (where p = f), local maxima
    next to them are found by climbing from the contact, which returns at once
    at a genuine tangency (r' = 0, r'' < 0) and is exact to rounding.
    """
    r = T.values - poly(y, T.grid)
    i_top = int(np.argmax(r))
    best_x, best = float(T.grid[i_top]), float(r[i_top])
    cand = local_maxima(r, best - T.band(y))
    if contacts is not None and len(contacts):
        h = 2.0 * float(np.max(np.diff(T.grid)))
        c = np.asarray(contacts, dtype=float)
        for x in c:
            if 0.0 < x < 1.0:
                # Uphill from the contact: returns at once at a genuine tangency.
                xv, v = ascent_from(T, y, float(x))
                if v > best:
                    best_x, best = xv, v
        far = np.min(np.abs(T.grid[cand][:, None] - c[None, :]), axis=1) > h
        cand = cand[far]
    for i in cand:
        x, v = refine_max(T, y, int(i))
        if v > best:
            best_x, best = x, v
    return best, best_x


def contact_points(T: Target, y: np.ndarray, tol: float) -> np.ndarray:
    """Points of [0, 1] where f - p comes within ``tol`` (relative) of its maximum 0.

    Grid local maxima are screened with :meth:`Target.band`, not with ``tol``: a
    tangency between grid points shows on the grid up to the band below its
    true height, so only refined values are held to ``tol``.
    """
    r = T.values - poly(y, T.grid)
    pts = []
    for i in local_maxima(r, -tol * T.scale - T.band(y)):
        x, v = refine_max(T, y, int(i))
        if v >= -tol * T.scale:
            pts.append(x)
    pts = np.unique(np.round(np.array(pts), 14)) if pts else np.zeros(0)
    return pts


#: Largest moment residual accepted for a recovered law.
MOMENT_TOL = 1e-12


def law_on_points(points: np.ndarray, theta: np.ndarray, fvals: np.ndarray, solver_name: str):
    """A basic (at most m+1 atoms) law on ``points`` with moments ``theta`` maximizing E[f].

    HiGHS's dual simplex picks the vertex (an optimal basic solution has at most
    len(theta) atoms); the weights are then re-solved on that support by least
    squares, because HiGHS meets the moments only to its 1e-7 feasibility
    tolerance.

    Raises
    ------
    SolverError
        If no law on ``points`` has these moments (residual above :data:`MOMENT_TOL`).
    """
    m1 = len(theta)
    A = np.vander(points, m1, increasing=True).T
    res = optimize.linprog(-fvals, A_eq=A, b_eq=theta, bounds=(0, None), method="highs-ds")
    if res.status != 0:
        raise SolverError(solver_name, "law recovery failed", str(res.message))
    atoms = points[res.x > 1e-15]
    vander = np.vander(atoms, m1, increasing=True).T
    weights = np.linalg.lstsq(vander, theta, rcond=None)[0]
    residual = float(np.max(np.abs(vander @ weights - theta)))
    if residual > MOMENT_TOL or np.any(weights < 0.0):
        raise SolverError(solver_name, "law recovery failed", f"moment residual {residual:.2g}, smallest weight {np.min(weights):.2g}")
    return atoms, weights
