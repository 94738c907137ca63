"""Minima of a polynomial on an interval, for the builders (how far to lower or lift a dual).

Two minimizers, each used by one builder; both are screens whose result the builder
only uses to choose a margin, so a missed minimum costs a failed check and a retry,
never a wrong certificate (the checkers prove the sign on all of [0, 1]):

* :func:`grid_minimizers` with :func:`exact_minimum` -- the likelihood builder
  (schema 2): the core screen of f on [start, end] (:mod:`certify._screen`: grid,
  local minima, safeguarded Newton on f'), then f evaluated exactly at the points found;
* :func:`newton_minimum` -- the sharp-bound builder's lift (schema 1): exact dyadic
  Newton steps from the law's atoms, evaluated exactly, plus the ends 0 and 1. Not the
  float screen, on purpose: the lifted polynomial h = s (p - g) / B is exact, and in
  floats its monomial coefficients (binomial-sized for V_1001) evaluate to noise far
  from 0 and 1; its minima sit next to the atoms, where the dual nearly touches g, so
  exact Newton from the atoms needs no grid.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from .._screen import CERTIFICATE, POLICIES, grid_minima, polish
from .._screen import grid as screen_grid
from ._kernel import to_fmpq, to_fraction, value_at
from ._tolerances import LIFT_NEWTON_STEPS

__all__ = ["exact_minimum", "grid_minimizers", "newton_minimum"]


def newton_minimum(h: flint.fmpq_poly, starts: list[Fraction], bits: int) -> Fraction:
    """min of h over 0, 1 and Newton-refined critical points near ``starts`` (exact values).

    Each Newton iterate is rounded to a multiple of 2^-bits (short exact numbers); the
    iteration stops where h is not convex, leaves [0, 1] or stops moving.
    """
    h1, h2 = h.derivative(), h.derivative().derivative()
    best = min(value_at(h, Fraction(0)), value_at(h, Fraction(1)))
    scale = 2**bits
    for x in starts:
        for _ in range(LIFT_NEWTON_STEPS):
            curv = value_at(h2, x)
            if curv <= 0:
                break
            nxt = x - value_at(h1, x) / curv
            nxt = Fraction(round(nxt * scale), scale)
            if not 0 <= nxt <= 1 or nxt == x:
                break
            x = nxt
        best = min(best, value_at(h, x))
    return best


def grid_minimizers(jet, degree: int, starts, start: float = 0.0, end: float = 1.0) -> np.ndarray:
    """Float local minimizers of f on [start, end]: the core screen (:mod:`certify._screen`) from its grid and from
    ``starts``.

    Parameters
    ----------
    jet : callable
        ``jet(q)`` -> (f, f', f'') at an array of points.
    degree : int
        Degree of f (sets the grid: the core's certificate policy).
    starts : sequence of float
        Extra starting points (e.g. atoms of a law where f nearly touches its minimum),
        each bracketed by one grid spacing on either side.
    start, end : float
        The interval.

    Returns
    -------
    numpy.ndarray
        The polished points and the two ends.
    """
    grid = screen_grid(degree, CERTIFICATE, start, end)
    f0 = jet(grid)[0]
    idx = grid_minima(f0)
    step = (end - start) / len(grid)
    starts = np.clip(np.asarray(starts, dtype=float), start, end)
    lo = np.concatenate([grid[np.maximum(idx - 1, 0)], np.clip(starts - step, start, end)])
    hi = np.concatenate([grid[np.minimum(idx + 1, len(grid) - 1)], np.clip(starts + step, start, end)])
    x = np.concatenate([grid[idx], starts])
    found = polish(lambda q: jet(q)[1:], lambda q: jet(q)[0], lo, hi, x, jet(x)[0], POLICIES[CERTIFICATE].step_tol)
    return np.concatenate([found.points, grid[[0, -1]]])


def exact_minimum(f: flint.fmpq_poly, points) -> Fraction:
    """min of f over the given float points, exactly (each point is read as its exact binary value)."""
    best = None
    for x in set(points.tolist()):
        v = f(to_fmpq(Fraction(x)))
        best = v if best is None or v < best else best
    return to_fraction(best)
