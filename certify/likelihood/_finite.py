"""Likelihood-ratio intervals for a latent law on a finite set of points (a grid of a model).

The K-call likelihood (:mod:`._problem`) has a latent law on [0, 1] and a binomial kernel. A
latent *model* with more than one coordinate (the answer model of
:mod:`certify.aggregates._answer_model`: each example's correct-answer probability q and the share m
of its dominant wrong answer) is solved on a grid of J points t_1..t_J instead: cell c has
probability p_c(pi) = sum_j L_cj pi_j for a given kernel matrix L (cells x points), and

    l(pi) = sum_c n_c log p_c(pi),      C = {pi on the grid : l(pi) >= l(pi-hat) - c}.

Everything else is eq. (L7)-(L11) of :mod:`._ends` with [0, 1] replaced by the grid: the
Lagrangian F_lambda(pi) = E_pi[g] - lambda l(pi) is minimized by the same constrained Newton
method (:func:`._cnm.cnm`; its global screen of psi = g - lambda h is exact here, psi at every
grid point), lambda with l(pi_lambda) = level is bracketed from lambda_0 ~ sd(g) / sqrt(2 c N)
and found by regula falsi (Illinois) on log lambda, safeguarded by bisection, and the end
reported is the Lagrangian bound (L11)

    min_C E_pi[g] >= a + lambda b,      a = min_j psi_j,   b = N + level - l(pi_lambda),

which holds for every lambda >= 0 and every pi_lambda with all p_c > 0 (log x <= x - 1), and is
attained at the solution. The lower end is therefore never above the minimum over C of the grid
model, whatever the search's last step; every pi_lambda with l >= level is in C, so its value
bounds the minimum from above, and the search stops when the two bounds are within
FINITE_END_TOL. The upper end is the same with -g. These ends are
floating point, not certificates: the model they belong to is an assumption, so nothing here is
re-proved exactly.
"""

from __future__ import annotations

import math

import numpy as np

from .._errors import InputError
from ._cnm import cnm
from ._problem import _Screen
from ._targets import _Law
from ._tolerances import (
    FINITE_BRACKET_STEPS,
    FINITE_CANDIDATES,
    FINITE_END_TOL,
    FINITE_GAP_RTOL,
    FINITE_LAMBDA_STEP,
    FINITE_SEARCH_STEPS,
    TINY,
)

__all__ = ["FiniteModel", "finite_interval"]


class _FiniteTarget:
    """g at the grid points, in the interface of :class:`._targets._Target` that CNM uses."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray):
        self.values = values

    def jet(self, atoms, piece, derivatives=(0,)):
        return [self.values[atoms.astype(np.intp)]]


class FiniteModel:
    """A latent law on J grid points: the kernel of the observed cells and their counts.

    Parameters
    ----------
    kernel : ndarray, shape (cells, J)
        L_cj = P(cell c | point j) >= 0 (eq. (L2) with a finite latent set).
    counts : ndarray, shape (cells,)
        n_c, the number of examples in each cell (positive).
    neighbours : ndarray of int, shape (J, r), optional
        The grid neighbours of each point (-1 for none). The candidates CNM receives are then the
        local minima of psi on the grid (no neighbour lower), well separated; without it, the
        lowest ``FINITE_CANDIDATES`` points. Neighbouring points have nearly equal kernel
        columns, and offering them together makes CNM's quadratic program nearly singular.

    The interface of the K-call ``_Problem`` that :func:`._cnm.cnm` reads: ``kernel(atoms)``
    (atoms are grid indices), ``screen`` (psi at every grid point), ``loglik``, ``n``, ``sqrt_n``.
    """

    def __init__(self, kernel: np.ndarray, counts: np.ndarray, neighbours: np.ndarray | None = None):
        kernel = np.asarray(kernel, dtype=float)
        counts = np.asarray(counts, dtype=float)
        if kernel.ndim != 2 or kernel.shape[0] != counts.shape[0] or kernel.shape[1] < 1:
            raise InputError(f"kernel of shape {kernel.shape} must be (cells, points) with {counts.shape[0]} cells")
        if not (np.all(np.isfinite(kernel)) and kernel.min() >= 0 and np.all(counts > 0)):
            raise InputError("kernel entries must be finite and >= 0 and every cell count positive")
        if np.any(kernel.max(axis=1) <= 0):
            raise InputError("a cell with probability 0 at every grid point: the model cannot hold these data")
        # each row scaled by its largest entry: l changes by the constant ``offset``, the
        # maximizer does not
        scale = kernel.max(axis=1)
        self.table = kernel / scale[:, None]
        self.offset = float(counts @ np.log(scale))
        self.n = counts
        self.sqrt_n = np.sqrt(counts)
        self.N = float(counts.sum())
        self.neighbours = None if neighbours is None else np.asarray(neighbours, dtype=np.intp)

    def kernel(self, atoms: np.ndarray) -> np.ndarray:
        return self.table[:, atoms.astype(np.intp)]

    def loglik(self, p: np.ndarray) -> float:
        """l(pi) of the scaled kernel: the log-likelihood minus ``offset``."""
        return float(self.n @ np.log(np.maximum(p, TINY)))

    def psi(self, tgt: _FiniteTarget, lam: float, u: np.ndarray) -> np.ndarray:
        return tgt.values - lam * (u @ self.table) if lam != 0 else tgt.values.copy()

    def screen(self, tgt: _FiniteTarget, lam: float, u: np.ndarray, known=None) -> _Screen:
        psi = self.psi(tgt, lam, u)
        if self.neighbours is None:
            idx = np.argsort(psi, kind="stable")[:FINITE_CANDIDATES]
        else:
            around = np.where(self.neighbours >= 0, psi[self.neighbours], np.inf)
            idx = np.flatnonzero(psi <= around.min(axis=1))
            idx = idx[np.argsort(psi[idx], kind="stable")[:FINITE_CANDIDATES]]
        return _Screen(idx.astype(float), np.zeros(len(idx), dtype=np.int64), psi[idx])

    def solve(self, tgt: _FiniteTarget, lam: float, law: _Law) -> tuple[_Law, float, float]:
        """pi_lambda by CNM from ``law``; returns (law, l(pi_lambda), a = min psi)."""
        scale = max(float(np.abs(tgt.values).max()), 1.0) + lam * self.N
        law, _, _ = cnm(self, tgt, lam, law, FINITE_GAP_RTOL * scale)
        p = self.kernel(law.atoms) @ law.weights
        return law, self.loglik(p), float(self.psi(tgt, lam, self.n / p).min())

    def npmle(self) -> tuple[_Law, float]:
        """pi-hat on the grid (g = 0, lambda = 1) from the uniform law on the points' best columns.

        Returns the working law (atoms are grid indices) and l(pi-hat) of the scaled kernel.
        """
        start = np.unique(np.argmax(self.table, axis=1))
        law = _Law.unassigned(start.astype(float), np.full(len(start), 1.0 / len(start)))
        law, loglik, _ = self.solve(_FiniteTarget(np.zeros(self.table.shape[1])), 1.0, law)
        return law, loglik


def _lower_end(model: FiniteModel, g: np.ndarray, level: float, law: _Law, lam0: float) -> float:
    """min E_pi[g] over {l >= level} on the grid, as the Lagrangian bound a + lambda b (module docstring)."""
    tgt = _FiniteTarget(g)
    # lambda = 0 (eq. (L7)): when some law on argmin g reaches the level, the minimum is min g
    low = model.table[:, g <= g.min()]
    if np.all(low.max(axis=1) > 0):
        flat = FiniteModel(low, model.n)  # every point a candidate: no geometry needed
        if flat.npmle()[1] + flat.offset >= level:  # both in the units of model.table
            return float(g.min())
    # bracket log lambda by steps of FINITE_LAMBDA_STEP from lambda_0 (tiny lambda makes the
    # cell probabilities tiny and CNM slow: never jump there), then close the bracket on the root
    # of f(log lambda) = l(pi_lambda) - level, which grows with lambda
    best, feasible = -math.inf, math.inf

    def at(log_lam) -> float:
        nonlocal law, best, feasible
        lam = math.exp(log_lam)
        law, loglik, a = model.solve(tgt, lam, law)
        best = max(best, a + lam * (model.N + level - loglik))  # the Lagrangian bound (L11)
        if loglik >= level:  # pi_lambda is in C: its value is an upper bound of the minimum
            feasible = min(feasible, float(g[law.atoms.astype(np.intp)] @ law.weights))
        return loglik - level

    lo = hi = math.log(lam0)
    f_lo = f_hi = at(lo)
    if f_lo >= 0:
        for _ in range(FINITE_BRACKET_STEPS):
            lo -= FINITE_LAMBDA_STEP
            f_lo = at(lo)
            if f_lo < 0:
                break
        else:
            return best
    else:
        for _ in range(FINITE_BRACKET_STEPS):
            hi += FINITE_LAMBDA_STEP
            f_hi = at(hi)
            if f_hi >= 0:
                break
    # regula falsi with the Illinois rule (an end kept twice has its f halved), and a bisection
    # whenever two steps did not halve the bracket: superlinear where l(pi_lambda) is smooth, and at
    # least one halving every three steps where the support of pi_lambda changes; every step keeps
    # the root bracketed
    side, widths = 0, []
    for _ in range(FINITE_SEARCH_STEPS):
        if feasible - best <= FINITE_END_TOL:
            break
        width = hi - lo
        widths.append(width)
        mid = 0.5 * (lo + hi)
        stalled = len(widths) > 2 and width > 0.5 * widths[-3]
        x = mid if stalled or f_hi == f_lo else hi - f_hi * width / (f_hi - f_lo)
        if not lo + 1e-3 * width < x < hi - 1e-3 * width:
            x = mid
        f = at(x)
        if f >= 0:
            hi, f_hi = x, f
            f_lo = f_lo / 2 if side == 1 else f_lo
            side = 1
        else:
            lo, f_lo = x, f
            f_hi = f_hi / 2 if side == -1 else f_hi
            side = -1
    return best


def finite_interval(model: FiniteModel, values: np.ndarray, drop: float, hat=None) -> tuple[float, float, float]:
    """(estimate, lower, upper) of E_pi[g] over {pi on the grid : l(pi) >= l(pi-hat) - drop}.

    Parameters
    ----------
    model : FiniteModel
    values : ndarray, shape (J,)
        g at the grid points.
    drop : float
        c > 0 of eq. (L6) (:func:`certify.likelihood.critical_value`).
    hat : (law, log-likelihood), optional
        ``model.npmle()`` when already solved (several objectives share it).

    Returns
    -------
    estimate, lower, upper : float
        E_pi-hat[g] and the two ends (module docstring: each end is the Lagrangian bound, on the
        outer side of the grid model's exact end).
    """
    values = np.asarray(values, dtype=float)
    if values.shape != (model.table.shape[1],) or not np.all(np.isfinite(values)):
        raise InputError(f"values of shape {values.shape} must be finite, one per grid point ({model.table.shape[1]})")
    if not (isinstance(drop, (int, float)) and drop > 0 and math.isfinite(drop)):
        raise InputError(f"drop={drop!r} must be a positive number")
    hat, l_hat = model.npmle() if hat is None else hat
    estimate = float(values[hat.atoms.astype(np.intp)] @ hat.weights)
    spread = float(values.max() - values.min())
    if spread == 0:
        return estimate, float(values[0]), float(values[0])
    # lambda ~ sd(g) / sqrt(2 c N): the envelope theorem's scale (as in ._ends)
    lam0 = max(spread, TINY) / math.sqrt(2.0 * drop * model.N)
    level = l_hat - drop
    lower = _lower_end(model, values, level, hat.copy(), lam0)
    upper = -_lower_end(model, -values, level, hat.copy(), lam0)
    # no law's value leaves [min g, max g]: clamping never narrows a valid bound
    return estimate, max(min(lower, estimate), float(values.min())), min(max(upper, estimate), float(values.max()))
