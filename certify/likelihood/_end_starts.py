"""Starting laws for one end (L7): the end among laws on a grid, by compiled CNM.

**On a grid.** The lower end (the upper end is the same with -g) is min E_pi[g] subject to
l(pi) >= level. Among laws on END_START_GRID equispaced points of [0, 1] it is a convex program
in the weights w: its Lagrangian F_lambda / lambda = (g / lambda)'w - l(w) (eq. (L7)) is
minimized by compiled CNM (:func:`._cnm_kernels.grid_lagrangian`, the method of :mod:`._cnm`
on the grid), and the multiplier whose minimizer reaches the level is found by regula falsi on
log lambda (:func:`._cnm_kernels.grid_end`): l(w_lambda) increases with lambda (:mod:`._ends`).
g is a polynomial of any degree, or the closed pieces of V_inf and pass@inf, where it is their
lower semicontinuous envelope (eq. (L12)). The grid law's atoms lie within half a grid step of
the optimal ones, from where Newton's method on (L9) converges in a few steps.

**Reading the start.** psi = g - lambda h_w is the dual function at the grid law (eq. (L4)); the
optimal law sits where psi is at its minimum a. Every grid point with psi - a at most
END_START_ZERO_TOL (scaled to max(1, max|g|)) is a candidate atom, not only those of positive
weight: where the optimal law is not unique, psi is flat on all of [0, 1] (the saturated
NPMLE), and the grid law then has more atoms than the cells determine. Weights come from
nonnegative least squares against the grid law's cell probabilities (at most as many atoms as
cells), and atoms at neighbouring grid points are joined (:func:`_joined`). ``flat`` reports
the flat case: Newton then solves for the weights on the start's atoms alone.

**Only a start.** Newton's method on (L9), the screen and the certificate of :mod:`._ends` (or
the check (L5) of :mod:`._npmle`) decide, exactly as for any other start; when the search
fails or the start is poor, the other routes run as before. (Until 2026-11-28 the start came
from the end's conic dual on the same grid, one Clarabel solve of about 2 ms at K = 10 with
CONIC_MAX_CELLS exponential cones; ``benchmarks/RESULTS.md`` has the comparison.)
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .._compiled import interrupts_held
from ._problem import _Problem
from ._targets import _Law, _Target
from ._tolerances import (
    ARMIJO,
    BRACKET_STEP,
    CNM_MIN_STEP,
    CNM_ZERO_WEIGHT,
    END_START_GAP,
    END_START_GRID,
    END_START_LEVEL_TOL,
    END_START_MAX_CELLS,
    END_START_MAX_ITER,
    END_START_MAX_SOLVES,
    END_START_MIN_WEIGHT,
    END_START_ZERO_TOL,
    NNLS_ITER_PER_COLUMN,
    QP_ITER_PER_ATOM,
    QP_MULTIPLIER_RTOL,
    QP_NULL_RTOL,
    QP_SCALE_LIMIT,
    TINY,
)

__all__ = ["end_start", "grid_steps"]


def grid_steps() -> tuple:
    """The settings of each CNM step on a grid (:func:`._cnm_kernels.grid_lagrangian`), in its order.

    The compiled kernels take their tolerances as arguments, so that a kernel cached on disk
    never keeps an old constant; this is the one place that reads them from :mod:`._tolerances`
    (the NPMLE's grid start and the ends' starts both pass it).
    """
    return (
        QP_ITER_PER_ATOM,
        QP_NULL_RTOL,
        QP_MULTIPLIER_RTOL,
        TINY,
        QP_SCALE_LIMIT,
        ARMIJO,
        CNM_MIN_STEP,
        CNM_ZERO_WEIGHT,
    )


def _applies(prob: _Problem) -> bool:
    """Starts are searched for at most END_START_MAX_CELLS cells (each solve costs cells x points)."""
    return prob.cells.size <= END_START_MAX_CELLS


def _envelope(tgt: _Target, grid: np.ndarray) -> np.ndarray:
    """sign * g at the grid points; where closed pieces meet, the smaller value (eq. (L12))."""
    out = np.full(len(grid), np.inf)
    for pc in tgt.pieces:
        inside = (grid >= pc.lo) & (grid <= pc.hi)
        out[inside] = np.minimum(out[inside], pc.values(grid[inside], 0))
    return out


def snapped(law: _Law, points: int) -> np.ndarray:
    """``law`` moved onto the grid of ``points`` equispaced points: weights at the nearest points.

    An atom inside (0, 1) stays off the grid's ends, so that a cell with 0 < S < K observed keeps
    a positive probability (B_c vanishes at 0 and 1 for such cells).
    """
    idx = np.rint(law.atoms * (points - 1)).astype(np.int64)
    inner = (law.atoms > 0) & (law.atoms < 1)
    idx[inner] = np.clip(idx[inner], 1, points - 2)
    return np.bincount(idx, weights=law.weights, minlength=points) / float(law.weights.sum())


def _law_from(prob: _Problem, values: np.ndarray, grid: np.ndarray, p_target: np.ndarray, scale: float) -> _Law | None:
    """A law on the points where psi - a (``values`` on ``grid``) nearly vanishes, weighted by
    nonnegative least squares against the cell probabilities ``p_target`` (module docstring).

    The least squares keep at most as many atoms as cells, and atoms at neighbouring grid points
    are joined (:func:`_joined`).
    """
    idx = np.flatnonzero(values <= END_START_ZERO_TOL * scale)
    if len(idx) == 0:
        return None
    atoms = grid[idx]
    try:
        w, _ = optimize.nnls(
            prob.kernel(atoms) / p_target[:, None], np.ones(len(p_target)), maxiter=NNLS_ITER_PER_COLUMN * len(atoms)
        )  # relative misfit per cell
    except RuntimeError:  # scipy's iteration limit (seen at K = 1000, N = 50): no start, the other routes run
        return None
    if not np.all(np.isfinite(w)):
        # scipy's NNLS returned NaN and infinite weights for finite columns (SciPy 1.17, V101's
        # upper end from K = 1000 calls of 50 examples): no start, rather than a law of NaN weights
        return None
    keep = w > END_START_MIN_WEIGHT * w.max(initial=0.0)  # a weight of 1e-16 makes Newton's Jacobian singular
    if not keep.any():
        return None
    return _Law.unassigned(*_joined(idx[keep], atoms[keep], w[keep] / w[keep].sum()))


def _joined(idx: np.ndarray, atoms: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms at neighbouring grid points joined into one at their weighted mean, weights summed.

    A minimum of psi between two grid points shows as the pair around it, each with part of
    the weight. Two atoms that close make Newton's Jacobian (L9) nearly singular (measured:
    18-30 residual evaluations instead of 5-8 at K = 10), and the optimal law has one there.
    """
    run = np.concatenate([[0], np.cumsum(np.diff(idx) > 1)])  # run number of each atom
    total = np.bincount(run, weights=weights)
    return np.bincount(run, weights=weights * atoms) / total, total


def end_start(prob: _Problem, tgt: _Target, level: float, ref: _Law, lam0: float) -> tuple[_Law, float, bool] | None:
    """A start (law, lambda of (L7), flat) for the end of ``tgt`` at ``level``, or None (module docstring).

    ``ref``: pi-hat, whose grid version starts the search (every observed cell has a positive
    probability under it); ``lam0``: the first multiplier tried. ``flat``: psi is flat on all
    of [0, 1] (g identified and the optimal cell probabilities inside the moment space): the
    optimal law is not unique, Newton's full system (L9) is singular there, and only the weights
    on the start's atoms are to be solved.
    """
    if not _applies(prob):
        return None
    grid = np.linspace(0.0, 1.0, END_START_GRID)
    g = _envelope(tgt, grid)
    if not np.all(np.isfinite(g)):  # pieces that do not cover [0, 1]: no start
        return None
    kernel = np.ascontiguousarray(prob.kernel(grid))
    n = np.ascontiguousarray(prob.n, dtype=float)
    w0 = snapped(ref, END_START_GRID)
    if not np.all(kernel @ w0 > 0):
        return None
    with interrupts_held():  # numba's import and cache load run ctypes callbacks, too
        from ._cnm_kernels import grid_end  # numba loads with the first fit of a law

        w, lam, _ = grid_end(
            kernel, n, g, float(level), w0, float(lam0), END_START_LEVEL_TOL, END_START_MAX_SOLVES, BRACKET_STEP,
            END_START_GAP, END_START_MAX_ITER, grid_steps(),
        )  # fmt: skip
    if not (np.isfinite(lam) and lam > 0):
        return None
    p = kernel @ w
    if not np.all(p > 0):
        return None
    psi = g - lam * ((n / p) @ kernel)
    values = psi - float(w @ psi)
    scale = max(1.0, float(np.max(np.abs(g))))
    law = _law_from(prob, values, grid, p, scale)
    return None if law is None else (law, lam, bool(values.max() <= END_START_ZERO_TOL * scale))
