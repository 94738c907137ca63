"""Starting laws from the conic dual of one end (L7): one small Clarabel solve.

The primal program ranges over laws on [0, 1]; its Lagrangian dual ranges over the few
numbers u_c = n_c / p_c of the cells and an inequality on [0, 1]. With frequencies f_c = n_c / N
and cell polynomials B_c (eq. (L2)):

**One end (L7).** min E_pi[g] subject to sum_c f_c log p_c(pi) >= L = level / N has the dual

    max  a + lam (L + 1) - lam sum_c f_c log f_c + sum_c f_c t_c
    s.t. t_c <= lam log(y_c / lam)  (exponential cone),   g(q) - sum_c y_c B_c(q) - a >= 0 on [0, 1],

with y_c = lam f_c / p*_c at the optimum, lambda of (L7) = lam / N, and psi / N = g -
sum_c y_c B_c: the support of the extremal law is where g - sum_c y_c B_c - a vanishes
(eqs. (L10)-(L11) are weak duality for this pair).

**On a grid.** The inequality on [0, 1] is imposed at the CONIC_GRID points of an equispaced
grid (linear constraints), for any g: a polynomial of any degree, or the closed pieces of V_inf
and pass@inf, where g is their lower semicontinuous envelope (eq. (L12)). This relaxes the
dual a little (between grid points the inequality may fail by ~ psi'' h^2 / 8), which only
moves the start. An exact sum-of-squares form of the inequality (Lukacs; semidefinite blocks
of size deg / 2 + 1 in the Bernstein basis) was measured at 1 ms against 2 ms at K = 10, but
its blocks grow with the degree (51 x 51 for V101); one form serves every objective.

**Only a start.** From Clarabel's answer (accurate to about 1e-7) a law is read off: atoms at
the grid points where the inequality is nearly tight, weights by nonnegative least squares
against the cell probabilities. Newton's method on (L9), the screen and the certificate of
:mod:`._ends` (or the check (L5) of :mod:`._npmle`) then decide, exactly as for any other
start; when Clarabel fails or the start is poor, the other routes run as before. (The NPMLE's
own start, the NPMLE among laws on a grid, is compiled CNM: :func:`._npmle.grid_start`; its
Clarabel dual took 3-10 ms where the compiled fit takes about 1.)
"""

from __future__ import annotations

import clarabel
import numpy as np
from scipy import optimize, sparse

from ._problem import _Problem
from ._targets import _Law, _Target
from ._tolerances import CONIC_GRID, CONIC_MAX_CELLS, CONIC_ZERO_TOL, NNLS_ITER_PER_COLUMN

__all__ = ["conic_end_start"]

#: Clarabel statuses whose point is used as a start (it is checked afterwards in any case).
_USABLE = {"Solved", "AlmostSolved"}


def _applies(prob: _Problem) -> bool:
    """The duals are used for at most CONIC_MAX_CELLS cells (one exponential cone each)."""
    return prob.cells.size <= CONIC_MAX_CELLS


def _grid_kernel(prob: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """The duals' grid (CONIC_GRID equispaced points of [0, 1]) and B_c on it (cells x points)."""
    grid = np.linspace(0.0, 1.0, CONIC_GRID)
    return grid, prob.kernel(grid)


def _envelope(tgt: _Target, grid: np.ndarray) -> np.ndarray:
    """sign * g at the grid points; where closed pieces meet, the smaller value (eq. (L12))."""
    out = np.full(len(grid), np.inf)
    for pc in tgt.pieces:
        inside = (grid >= pc.lo) & (grid <= pc.hi)
        out[inside] = np.minimum(out[inside], pc.values(grid[inside], 0))
    return out


def _solve(prob: _Problem, kernel: np.ndarray, rhs: np.ndarray, level: float):
    """One Clarabel solve of the dual above on the grid; returns (y, a, lam) or None.

    ``kernel``: B_c at the grid points (cells x points); ``rhs``: g there.
    """
    freq = prob.n / prob.N
    cells = len(freq)
    nv = 2 * cells + 2  # y, t, a, lam
    y, t, a_col, lam_col = 0, cells, 2 * cells, 2 * cells + 1
    # the inequality at every grid point: sum_c y_c B_c(x) (+ a) + slack = g(x), slack >= 0
    grid_rows = np.zeros((kernel.shape[1], nv))
    grid_rows[:, y : y + cells] = kernel.T
    grid_rows[:, a_col] = 1.0
    cone = np.zeros((3 * cells, nv))
    cone_b = np.zeros(3 * cells)
    for c in range(cells):  # (t_c, lam or 1, y_c) in the exponential cone: t_c <= lam log(y_c / lam)
        cone[3 * c, t + c] = -1.0
        cone[3 * c + 1, lam_col] = -1.0
        cone[3 * c + 2, y + c] = -1.0
    a_mat = sparse.csc_matrix(np.vstack([grid_rows, cone]))
    b = np.concatenate([rhs, cone_b])
    cost = np.zeros(nv)
    cost[t : t + cells] = -freq
    cost[a_col] = -1.0
    cost[lam_col] = -(level / prob.N + 1.0 - float(freq @ np.log(freq)))
    cones = [clarabel.NonnegativeConeT(kernel.shape[1])] + [clarabel.ExponentialConeT()] * cells
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    sol = clarabel.DefaultSolver(sparse.csc_matrix((nv, nv)), cost, a_mat, b, cones, settings).solve()
    if str(sol.status) not in _USABLE:
        return None
    x = np.asarray(sol.x)
    if not np.all(np.isfinite(x)) or not np.all(x[y : y + cells] > 0):
        return None
    return x[y : y + cells], float(x[a_col]), float(x[lam_col])


def _law_from(prob: _Problem, values: np.ndarray, grid: np.ndarray, p_target: np.ndarray, scale: float) -> _Law | None:
    """A law on the points where the dual polynomial (``values`` on ``grid``) nearly vanishes,
    weighted by nonnegative least squares against the cell probabilities ``p_target``.

    Every such point is a candidate, not only the grid minima: where the optimal law is not
    unique the polynomial vanishes on all of [0, 1] (the saturated NPMLE), and near a zero of a
    small atom it is only as accurate as the interior-point answer. The least squares keep at
    most as many atoms as cells, and atoms at neighbouring grid points are joined (:func:`_joined`).
    """
    idx = np.flatnonzero(values <= CONIC_ZERO_TOL * scale)
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
    keep = w > 0
    if not keep.any():
        return None
    return _Law.unassigned(*_joined(idx[keep], atoms[keep], w[keep] / w[keep].sum()))


def _joined(idx: np.ndarray, atoms: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms at neighbouring grid points joined into one at their weighted mean, weights summed.

    A zero of the dual polynomial between two grid points shows as the pair around it, each
    with part of the weight. Two atoms that close make Newton's Jacobian (L9) nearly singular
    (measured: 18-30 residual evaluations instead of 5-8 at K = 10), and the optimal law has
    one there.
    """
    run = np.concatenate([[0], np.cumsum(np.diff(idx) > 1)])  # run number of each atom
    total = np.bincount(run, weights=weights)
    return np.bincount(run, weights=weights * atoms) / total, total


def conic_end_start(prob: _Problem, tgt: _Target, level: float) -> tuple[_Law, float, bool] | None:
    """A start (law, lambda of (L7), flat) for the end of ``tgt`` at ``level``, or None (module docstring).

    ``flat``: the dual's inequality is tight on all of [0, 1] (g identified and the optimal
    cell probabilities inside the moment space): the optimal law is not unique, Newton's full
    system (L9) is singular there, and only the weights on the start's atoms are to be solved.
    """
    if not _applies(prob):
        return None
    grid, kernel = _grid_kernel(prob)
    g = _envelope(tgt, grid)
    if not np.all(np.isfinite(g)):  # pieces that do not cover [0, 1]: no start
        return None
    got = _solve(prob, kernel, g, level)
    if got is None:
        return None
    yv, a, lam = got
    if not lam > 0:
        return None
    values = g - yv @ kernel - a
    scale = max(1.0, float(np.max(np.abs(g))))
    law = _law_from(prob, values, grid, lam * (prob.n / prob.N) / yv, scale)
    return None if law is None else (law, lam / prob.N, bool(values.max() <= CONIC_ZERO_TOL * scale))
