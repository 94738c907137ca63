"""Minima of a polynomial on an interval, for the builders (how far to lower or lift a dual).

Two minimizers, each used by one builder; both are screens whose result the builder
only uses to choose a margin, so a missed minimum costs a failed check and a retry,
never a wrong certificate (the checkers prove the sign on all of [0, 1]):

* :func:`newton_minimum` -- the sharp-bound builder's lift (schema 1): exact dyadic
  Newton steps from the law's atoms, evaluated exactly, plus the ends 0 and 1;
* :func:`grid_minimizers` with :func:`exact_minimum` -- the likelihood builder
  (schema 2): a float grid screen of f on [start, end], local minima refined by
  safeguarded Newton on f', then f evaluated exactly at the points found.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ._kernel import to_fmpq, to_fraction, value_at

__all__ = ["GRID_PER_DEGREE", "MIN_GRID", "NEWTON_STEPS", "STEP_TOL", "exact_minimum", "grid_minimizers", "newton_minimum"]

#: Grid points per unit of the polynomial's degree (and at least MIN_GRID): every
#: local minimum of a degree-d polynomial on [0, 1] is resolved by a grid of ~ 20 d points.
GRID_PER_DEGREE = 20
MIN_GRID = 2001
#: Safeguarded Newton steps on f' (quadratic convergence needs ~5; bisection fallback).
NEWTON_STEPS = 60
#: A Newton iterate has converged when it moves less than this (a few float spacings
#: at 1): the exact value there exceeds the minimum by ~ f'' STEP_TOL^2, far below the
#: likelihood builder's margins.
STEP_TOL = 1e-15


def newton_minimum(h: flint.fmpq_poly, starts: list[Fraction], bits: int) -> Fraction:
    """min of h over 0, 1 and Newton-refined critical points near ``starts`` (exact values).

    Each Newton iterate is rounded to a multiple of 2^-bits (short exact numbers); the
    iteration stops where h is not convex, leaves [0, 1] or stops moving.
    """
    h1, h2 = h.derivative(), h.derivative().derivative()
    best = min(value_at(h, Fraction(0)), value_at(h, Fraction(1)))
    scale = 2**bits
    for x in starts:
        for _ in range(60):
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
    """Float local minimizers of f on [start, end]: grid local minima and ``starts``, refined by safeguarded Newton on f'.

    Parameters
    ----------
    jet : callable
        ``jet(q)`` -> (f, f', f'') at an array of points.
    degree : int
        Degree of f (sets the grid: GRID_PER_DEGREE points per degree, at least MIN_GRID).
    starts : sequence of float
        Extra starting points (e.g. atoms of a law where f nearly touches its minimum).
    start, end : float
        The interval.

    Returns
    -------
    numpy.ndarray
        The refined points and the two ends.
    """
    grid = np.linspace(start, end, max(MIN_GRID, GRID_PER_DEGREE * degree + 1))
    f0 = jet(grid)[0]
    inner = np.flatnonzero((f0[1:-1] <= f0[:-2]) & (f0[1:-1] <= f0[2:])) + 1
    idx = np.concatenate([inner, [0, len(grid) - 1]])
    lo, hi = grid[np.maximum(idx - 1, 0)], grid[np.minimum(idx + 1, len(grid) - 1)]
    step = (end - start) / len(grid)
    starts = np.clip(np.asarray(starts, dtype=float), start, end)
    lo = np.concatenate([lo, np.clip(starts - step, start, end)])
    hi = np.concatenate([hi, np.clip(starts + step, start, end)])
    x = np.concatenate([grid[idx], starts])
    active = np.arange(len(x))
    for _ in range(NEWTON_STEPS):
        xa, la, ha = x[active], lo[active], hi[active]
        _, d1, d2 = jet(xa)
        la, ha = np.where(d1 < 0, xa, la), np.where(d1 > 0, xa, ha)  # f' < 0: the minimum lies to the right
        with np.errstate(all="ignore"):  # f'' ~ 0: a huge or undefined step, replaced by bisection below
            step = np.where(d2 > 0, xa - d1 / d2, np.nan)
        new = np.where((step > la) & (step < ha), step, (la + ha) / 2)
        x[active], lo[active], hi[active] = new, la, ha
        # Converged: Newton stopped moving, or the bracket (e.g. towards an end) is at float resolution.
        moving = (np.abs(new - xa) > STEP_TOL) & (ha - la > STEP_TOL)
        active = active[moving]
        if not len(active):
            break
    return np.concatenate([x, grid[[0, -1]]])


def exact_minimum(f: flint.fmpq_poly, points) -> Fraction:
    """min of f over the given float points, exactly (each point is read as its exact binary value)."""
    best = None
    for x in set(points.tolist()):
        v = f(to_fmpq(Fraction(x)))
        best = v if best is None or v < best else best
    return to_fraction(best)
