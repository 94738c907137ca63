"""One screen for the local minima (or maxima) of a smooth function on an interval.

Three layers need the same numerical step on a function r given by its values and
derivatives (a jet) on [lo, hi]:

* the solvers, for the maxima of the residual f - p of a dual polynomial p (its
  violation, the exchange's entering atom, the contact points of a dual; Theorem 4.1);
* the likelihood engine, for the minima of psi = g - lambda h (eq. (L4)) in every
  check and every support update;
* the certificate builders, for the minimum of a Lagrangian they lower by a margin.

The step, written once here:

1. **grid** -- r is sampled on a grid whose size one policy sets (:func:`grid_points`,
   one row of :data:`POLICIES` per purpose);
2. **screen** -- the grid's local minima, both ends included (:func:`grid_minima`);
3. **bracket and polish** (:func:`polish`) -- each candidate x0 with its bracket
   [lo, hi] (its grid neighbours): an end of the interval that r leaves uphill is a
   minimum as it is; where r' changes sign on the bracket, safeguarded Newton on r'
   (:func:`newton_in`: bisection when a Newton step leaves the bracket or r'' <= 0);
   otherwise the grid point stays; a polished point worse than its grid point is
   replaced by the grid point.

The result is an :class:`Extrema` (points and values). Maxima are the minima of -r
(``maximize=True``): negation is exact, so nothing else changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._tolerances import (
    CERTIFICATE_CELLS_PER_DEGREE,
    CERTIFICATE_MIN_CELLS,
    CERTIFICATE_STEP_TOL,
    CONTACT_CELLS_PER_DEGREE,
    CONTACT_MAX_CELLS,
    CONTACT_MIN_CELLS,
    CONTACT_STEP_TOL,
    LIKELIHOOD_CELLS_PER_DEGREE,
    LIKELIHOOD_MIN_CELLS,
    LIKELIHOOD_STEP_TOL,
    NEWTON_MAX_ITER,
)

__all__ = [
    "CERTIFICATE",
    "CONTACT",
    "Extrema",
    "GridPolicy",
    "LIKELIHOOD",
    "POLICIES",
    "chebyshev_lobatto",
    "grid",
    "grid_minima",
    "grid_points",
    "newton_in",
    "polish",
]


class Extrema(NamedTuple):
    """Local minima (or maxima) found by a screen: points and the function's values there."""

    points: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class GridPolicy:
    """How fine a screen's grid is and when its Newton steps stop, for one purpose.

    A polynomial of degree d has at most d - 1 critical points and features no narrower
    than about 1/d (1/sqrt(d) for the binomial kernels), so a grid of ``per_degree``
    cells per unit of degree, at least ``min_cells`` and at most ``max_cells``, brackets
    every local minimum that matters. ``per_length``: the cells are per unit length (a
    piece of [0, 1] gets its share) or per interval (every piece gets them all; the
    certificate builder's V_inf halves).
    """

    #: Chebyshev-Lobatto points (dense near the ends) or equispaced ones.
    chebyshev: bool
    per_degree: int
    min_cells: int
    max_cells: int | None
    per_length: bool
    #: Newton has converged when a step is at most this (see :data:`POLICIES`).
    step_tol: float


#: The solvers' grid of a target (:class:`certify.solvers.Target`): the maxima of f - p.
CONTACT = "contact"
#: The likelihood screen of psi (:mod:`certify.likelihood`, eq. (L4)).
LIKELIHOOD = "likelihood"
#: The likelihood certificate builder's float screen of its Lagrangian.
CERTIFICATE = "certificate"

#: The grid policy: one row per purpose, each value named and explained in
#: :mod:`certify._tolerances`.
POLICIES: dict[str, GridPolicy] = {
    CONTACT: GridPolicy(
        chebyshev=True,
        per_degree=CONTACT_CELLS_PER_DEGREE,
        min_cells=CONTACT_MIN_CELLS,
        max_cells=CONTACT_MAX_CELLS,
        per_length=False,
        step_tol=CONTACT_STEP_TOL,
    ),
    LIKELIHOOD: GridPolicy(
        chebyshev=False,
        per_degree=LIKELIHOOD_CELLS_PER_DEGREE,
        min_cells=LIKELIHOOD_MIN_CELLS,
        max_cells=None,
        per_length=True,
        step_tol=LIKELIHOOD_STEP_TOL,
    ),
    CERTIFICATE: GridPolicy(
        chebyshev=False,
        per_degree=CERTIFICATE_CELLS_PER_DEGREE,
        min_cells=CERTIFICATE_MIN_CELLS,
        max_cells=None,
        per_length=False,
        step_tol=CERTIFICATE_STEP_TOL,
    ),
}


def grid_points(degree: int, purpose: str, length: float = 1.0) -> int:
    """Number of grid points for a function of ``degree`` on an interval of ``length`` (the grid policy).

    A degenerate interval (length <= 0) is one point; a piece of a ``per_length`` policy
    gets ceil(length * cells) + 1 points, at least 3.
    """
    policy = POLICIES[purpose]
    cells = max(policy.min_cells, policy.per_degree * degree)
    if policy.max_cells is not None:
        cells = min(cells, policy.max_cells)
    if not policy.per_length:
        return cells + 1
    return 1 if length <= 0 else max(3, int(math.ceil(length * cells)) + 1)


def chebyshev_lobatto(n: int) -> np.ndarray:
    """The n Chebyshev-Lobatto points of [0, 1], increasing, with exact ends 0 and 1."""
    x = np.sort(0.5 * (1.0 - np.cos(np.pi * np.arange(n) / (n - 1))))
    x[0], x[-1] = 0.0, 1.0
    return x


def grid(degree: int, purpose: str, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    """The grid of ``purpose`` for a function of ``degree`` on [lo, hi] (Chebyshev grids: [0, 1] only)."""
    n = grid_points(degree, purpose, hi - lo)
    if POLICIES[purpose].chebyshev:
        return chebyshev_lobatto(n)
    return np.linspace(lo, hi, n)


def grid_minima(values: np.ndarray) -> np.ndarray:
    """Indices of the local minima of sampled values, both ends included.

    Strict on the left, so that a plateau (values equal to rounding, or underflowed to
    0) gives one candidate, its first point; a single sample is its own minimum.
    """
    m = len(values)
    if m == 1:
        return np.zeros(1, dtype=np.int64)
    left = np.ones(m, dtype=bool)
    right = np.ones(m, dtype=bool)
    left[1:] = values[1:] < values[:-1]
    right[:-1] = values[:-1] <= values[1:]
    return np.flatnonzero(left & right)


# -- one iteration for one point (floats) or many (arrays) --------------------------------
# The solvers polish one point at a time on their hot path, where numpy's cost per call is
# tens of times Python's per float operation; the likelihood polishes arrays. These helpers
# take numpy's operation for arrays and Python's for floats, so that one implementation of
# each rule below serves both, with the same floats.


def _where(c, a, b):
    return np.where(c, a, b) if isinstance(c, np.ndarray) else (a if c else b)


def _and(*cs):
    if isinstance(cs[0], np.ndarray):
        out = cs[0]
        for c in cs[1:]:
            out = out & c
        return out
    return all(cs)


def _not(c):
    return ~c if isinstance(c, np.ndarray) else not c


def _any(c) -> bool:
    return bool(c.any()) if isinstance(c, np.ndarray) else bool(c)


def _all(c) -> bool:
    return bool(c.all()) if isinstance(c, np.ndarray) else bool(c)


def _take(a, mask):
    return a[mask] if isinstance(mask, np.ndarray) else a


def _put(a, mask, values):
    if isinstance(mask, np.ndarray):
        a = a.copy()
        a[mask] = values
        return a
    return values


def _newton_step(x, d1, d2):
    """x - r'/r'' (undefined where r'' = 0: the caller then bisects)."""
    if isinstance(d2, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return x - d1 / d2
    return x - d1 / d2 if d2 else math.nan


def _at_ends(slopes, lo, hi):
    """r' at both ends of every bracket (arrays: one evaluation on the ends together)."""
    if isinstance(lo, np.ndarray):
        d = slopes(np.concatenate([lo, hi]))[0]
        return d[: len(lo)], d[len(lo) :]
    return slopes(lo)[0], slopes(hi)[0]


Slopes = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def newton_in(slopes: Slopes, lo, hi, x, step_tol: float):
    """Zeros of r' in brackets [lo, hi] with r'(lo) < 0 < r'(hi), by safeguarded Newton, from ``x``.

    ``lo``, ``hi``, ``x``: arrays, or floats for one point; ``slopes(x)`` returns (r'(x),
    r''(x)) for the same. Each iteration shrinks every bracket to the side where r' changes
    sign and takes the Newton step where r'' > 0 and the step stays strictly inside the
    bracket, else bisects. All points step together until every step of one iteration is
    at most ``step_tol`` (or NEWTON_MAX_ITER iterations): each iteration is one evaluation
    of ``slopes`` on the whole array, and a point that converged early keeps taking its
    tiny steps (any it is thrown off by, a bisection when a step falls below the spacing of
    doubles, it converges back from).
    """
    for _ in range(NEWTON_MAX_ITER):
        d1, d2 = slopes(x)
        lo = _where(d1 < 0, x, lo)
        hi = _where(d1 > 0, x, hi)
        xn = _newton_step(x, d1, d2)
        xn = _where(_and(d2 > 0, xn > lo, xn < hi), xn, 0.5 * (lo + hi))
        xn = _where(d1 == 0, x, xn)
        done = abs(xn - x) <= step_tol
        x = xn
        if _all(done):
            break
    return x


def polish(
    slopes: Slopes, value: Callable[[np.ndarray], np.ndarray], lo, hi, x0, v0, step_tol: float, maximize: bool = False
) -> Extrema:
    """Local minima (``maximize``: maxima) of r from candidates ``x0`` with brackets [lo, hi] (step 3 of the module).

    Parameters
    ----------
    slopes : callable
        ``slopes(x)`` -> (r'(x), r''(x)), for an array or a float.
    value : callable
        ``value(x)`` -> r(x), for an array or a float.
    lo, hi, x0, v0 : ndarray or float
        Brackets lo <= x0 <= hi and the (grid) values r(x0): arrays, or floats for one
        candidate. A candidate with x0 = lo (or hi) is an end of the interval: a minimum
        as it is when r' >= 0 (<= 0) there.
    step_tol : float
        Newton's stopping step (the purpose's ``GridPolicy.step_tol``).

    Returns
    -------
    Extrema
        One point per candidate, never worse than its grid point (floats for one).
    """
    if maximize:

        def negated_slopes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            d1, d2 = slopes(x)
            return -d1, -d2

        found = polish(negated_slopes, lambda x: -value(x), lo, hi, x0, -v0, step_tol)
        return Extrema(found.points, -found.values)
    d_lo, d_hi = _at_ends(slopes, lo, hi)
    at_lo = _and(x0 == lo, d_lo >= 0)
    at_hi = _and(x0 == hi, d_hi <= 0)
    x = _where(at_hi, hi, _where(at_lo, lo, x0))
    inner = _and(d_lo < 0, d_hi > 0, _not(at_lo), _not(at_hi))
    if _any(inner):
        x = _put(x, inner, newton_in(slopes, _take(lo, inner), _take(hi, inner), _take(x0, inner), step_tol))
    v = value(x)
    worse = _not(v <= v0)  # never report a point worse than its grid point
    return Extrema(_where(worse, x0, x), _where(worse, v0, v))
