"""Newton's method on the optimality equations of a fixed support (eq. (L9)), and atom merging.

For lambda > 0 the law pi_lambda minimizing F_lambda = E_pi[g] - lambda l(pi) (eq. (L7) of
:mod:`._ends`) satisfies, on its atoms theta_j with weights w_j,

    psi(theta_j) = a,  psi'(theta_j) = 0 (interior atoms),  sum_j w_j = 1,   [l(pi) = level],     (L9)

psi = g - lambda h_pi (eq. (L4)): a square system in (w, theta, a) -- and in t = log lambda with
the bracketed equation -- solved by Newton's method (watchdog line search, trust region on t
and theta). When psi is flat at the optimum (deg g <= K with optimal cell probabilities inside
the moment space; the saturated NPMLE) the optimal law is not unique and this system is
singular; Newton then solves for the weights on fixed atoms, which at most C distinct atoms
determine. The NPMLE solves (L9) with g = 0 and lambda = 1 (no level equation).

CNM (:mod:`._cnm`) often leaves two atoms on either side of one minimum of psi; they make the
Jacobian of (L9) singular, so :func:`merge` joins them before Newton's method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum, auto
from typing import NamedTuple

import numpy as np

from .._support import free_atoms, merge_runs
from ._problem import _Problem
from ._targets import _Law, _Target
from ._tolerances import (
    ARMIJO,
    LINE_SEARCH_HALVINGS,
    MAX_ATOM_STEP,
    MAX_LOG_LAMBDA_STEP,
    MERGE_DISTANCE,
    NEWTON_MAX_ITER,
    NEWTON_STALLED_TOL,
    NEWTON_TOL,
    SCREEN_TOL,
    WATCHDOG_STEPS,
)


class _KKTPoint(NamedTuple):
    """A solution of (L9) on its support: the law, lambda and a = psi on the support."""

    law: _Law
    lam: float
    a: float


class _Acceptance(Enum):
    """Which full Newton steps :func:`newton` accepts (its watchdog rule)."""

    #: any full step with a finite residual, up to WATCHDOG_STEPS in a row without a real decrease
    WATCHDOG = auto()
    #: the relaxed steps did not pay off: a full step only if it decreases the residual, else a line search
    LINE_SEARCH = auto()


@dataclass(frozen=True)
class _Watchdog:
    """State of the watchdog rule: the acceptance mode and the relaxed steps taken in it.

    Newton's first steps from a warm start often raise the max-norm residual before
    converging fast, so up to WATCHDOG_STEPS full steps are accepted without a real
    decrease; if they do not pay off, Newton returns to the best point seen and searches
    along lines until the residual decreases again (which resets the rule).
    """

    mode: _Acceptance = _Acceptance.WATCHDOG
    #: full steps accepted without a real decrease since the last one (counted in WATCHDOG mode)
    relaxed: int = 0

    def may_relax(self) -> bool:
        """Whether a full step may be accepted without a real decrease."""
        return self.mode is _Acceptance.WATCHDOG and self.relaxed < WATCHDOG_STEPS

    def after_relaxed_step(self) -> _Watchdog:
        """The state after a full step accepted without a real decrease."""
        return _Watchdog(self.mode, self.relaxed + 1) if self.mode is _Acceptance.WATCHDOG else self

    def relaxed_in_vain(self) -> bool:
        """Whether relaxed steps were taken and the next step failed: back to the best point."""
        return self.mode is _Acceptance.WATCHDOG and self.relaxed > 0


@dataclass(frozen=True, eq=False)  # arrays inside: identity, not element-wise equality
class _Iterate:
    """The best point of a Newton solve so far (lowest scaled residual ``merit``), to return to."""

    law: _Law
    t: float
    lam: float
    a: float
    lo: np.ndarray
    hi: np.ndarray
    merit: float


def merge(prob: _Problem, law: _Law, tgt: _Target, lam: float) -> _Law:
    """Merge neighbouring atoms of one piece that lie in the same basin of psi.

    An optimal law sits on global minimizers of psi, at most one per basin (the stretch
    between two local maxima). CNM often leaves two atoms on either side of one minimum;
    they make the KKT matrix singular, so they are merged (:func:`certify._support.merge_runs`:
    weighted mean location) unless psi rises above both of them somewhere between them on
    the screening grid. A run whose lowest atom is an end of its piece stays at that end.
    """
    law = law.sorted()
    if len(law.atoms) < 2:
        return law
    u = prob.n / prob.probabilities(law)
    # (CNM pairs straddle a minimum at distances ~ sqrt(gap / psi''), far below MERGE_DISTANCE)
    psi_at = prob.psi_at(tgt, law, lam, u)
    degree = prob.degree(tgt)
    close = np.zeros(len(law.atoms) - 1, dtype=bool)
    for i in range(1, len(law.atoms)):
        j, k = i - 1, int(law.piece[i])
        if law.piece[j] == k and law.atoms[i] - law.atoms[j] <= MERGE_DISTANCE:
            pc = tgt.pieces[k]
            grid, bg = prob.grid(pc.lo, pc.hi, degree)
            inside = np.flatnonzero((grid > law.atoms[j]) & (grid < law.atoms[i]))
            if len(inside) == 0:
                close[j] = True
            else:
                sl = slice(inside[0], inside[-1] + 1)
                between = tgt.grid_values(k, grid)[sl] - lam * (u @ bg[:, sl])
                tol = SCREEN_TOL * (tgt.scale() + lam * prob.N)
                no_rise = float(between.max()) <= max(psi_at[i], psi_at[j]) + tol
                # a flat stretch (psi constant: the saturated NPMLE, a non-unique law) is no basin
                flat = abs(psi_at[i] - psi_at[j]) <= tol and float(between.min()) >= min(psi_at[i], psi_at[j]) - tol
                close[j] = no_rise and not flat
    if not close.any():
        return law
    (atoms, weights), groups = merge_runs(law.atoms, law.weights, close)
    for n, grp in enumerate(groups):
        pc = tgt.pieces[int(law.piece[grp[0]])]
        lowest = float(law.atoms[grp][int(np.argmin(psi_at[grp]))])
        if len(grp) > 1 and lowest in (pc.lo, pc.hi):
            atoms[n] = lowest  # the basin's minimum is the endpoint: Newton keeps it there
    merged = _Law(atoms, weights, law.piece[[grp[0] for grp in groups]])
    return merged if np.all(prob.probabilities(merged) > 0) else law


def newton(
    prob: _Problem, tgt: _Target, law: _Law, lam: float, level: float | None = None, fixed: bool = False
) -> _KKTPoint | None:
    """Solve the KKT equations (L9) by Newton's method on the current support.

    Unknowns: weights, interior atom locations, a (and t = log lam when ``level`` is given,
    with the extra equation l = level). Atoms at a piece endpoint stay there. A weight that
    Newton drives to zero removes its atom; an atom that reaches an endpoint is fixed there
    (:func:`certify._support.free_atoms`: the frozen-endpoint rule of both Newtons on contact
    points, and why this one shortens the step where the sharp bounds' clips the atom).
    Steps are accepted by a watchdog rule on the scaled max-norm residual (:class:`_Watchdog`).
    Returns the :class:`_KKTPoint` (law, lam, a), or None when Newton does not converge.

    ``fixed``: keep every atom where it is (weights, a, t only). When psi is flat at the
    optimum (deg g <= K with the optimal cell probabilities inside the moment space, or
    the saturated NPMLE) the optimal law is not unique and the full system is singular,
    while the weights on at most C distinct atoms are determined.
    """
    lo = np.array([tgt.pieces[int(k)].lo for k in law.piece])
    hi = np.array([tgt.pieces[int(k)].hi for k in law.piece])
    if fixed:  # every atom behaves as if on an endpoint: no location unknowns
        lo, hi = law.atoms.copy(), law.atoms.copy()
    gscale = tgt.scale()
    t = math.log(lam) if level is not None else 0.0
    a = _kkt(prob, tgt, law, lam, None, level, lo, hi, gscale, jacobian=False, mean_only=True)
    if a is None:
        return None
    best: _Iterate | None = None
    watchdog = _Watchdog()
    res = None
    for _ in range(NEWTON_MAX_ITER):
        if res is None:
            res = _kkt(prob, tgt, law, lam, a, level, lo, hi, gscale, jacobian=True)
            if res is None:
                return None
        r, jac, scale, free = res
        res = None
        merit = float(np.max(np.abs(r / scale)))
        if merit <= NEWTON_TOL:
            return _KKTPoint(law, lam, a)
        if best is None or merit < (1.0 - ARMIJO) * best.merit:
            best, watchdog = _Iterate(law, t, lam, a, lo, hi, merit), _Watchdog()
        try:
            dx = np.linalg.solve(jac, -r)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(dx)):
            return None
        m, f = len(law.atoms), len(free)
        # trust region: far from the solution Newton's steps in log lambda and in the atom
        # locations can be wild; shorten the whole step (the direction stays Newton's)
        cap = 1.0
        if level is not None and abs(dx[-2]) > MAX_LOG_LAMBDA_STEP:
            cap = MAX_LOG_LAMBDA_STEP / abs(dx[-2])
        if f and np.max(np.abs(dx[m : m + f])) > MAX_ATOM_STEP:
            cap = min(cap, MAX_ATOM_STEP / float(np.max(np.abs(dx[m : m + f]))))
        dx = dx * cap
        dw, dth = dx[:m], dx[m : m + f]
        # largest step keeping weights >= 0 and atoms inside their pieces
        step, block = 1.0, None
        for i in np.flatnonzero(dw < 0):
            s = -law.weights[i] / dw[i]
            if s < step:
                step, block = s, ("w", i)
        for j, i in enumerate(free):
            if dth[j] < 0 and law.atoms[i] + dth[j] < lo[i]:
                s = (lo[i] - law.atoms[i]) / dth[j]
                if s < step:
                    step, block = s, ("lo", i)
            elif dth[j] > 0 and law.atoms[i] + dth[j] > hi[i]:
                s = (hi[i] - law.atoms[i]) / dth[j]
                if s < step:
                    step, block = s, ("hi", i)
        if block is not None:
            new = _step(law, dx, free, step)
            kind, i = block
            if kind == "w":
                keep = np.ones(m, dtype=bool)
                keep[i] = False
                if not keep.any():
                    return None
                new = _Law(new.atoms[keep], new.weights[keep], new.piece[keep])
                lo, hi = lo[keep], hi[keep]
            else:
                new.atoms[i] = lo[i] if kind == "lo" else hi[i]
            law = new
            if level is not None:
                t += step * dx[-2]
                lam = math.exp(t)
            a = a + step * dx[-1]
            best, watchdog = None, _Watchdog()
            continue
        # full step; non-monotone (watchdog) acceptance, else a line search from the best point
        new = _step(law, dx, free, 1.0)
        t_new = t + dx[-2] if level is not None else t
        lam_new = math.exp(t_new) if level is not None else lam
        a_new = a + dx[-1]
        trial = _kkt(prob, tgt, new, lam_new, a_new, level, lo, hi, gscale, jacobian=True)
        mn = float(np.max(np.abs(trial[0] / trial[2]))) if trial is not None else math.inf
        if mn < (1.0 - ARMIJO) * merit or mn <= NEWTON_TOL or (math.isfinite(mn) and watchdog.may_relax()):
            if not mn < (1.0 - ARMIJO) * merit:
                watchdog = watchdog.after_relaxed_step()
            law, t, lam, a, res = new, t_new, lam_new, a_new, trial
            continue
        if watchdog.relaxed_in_vain():  # back to the best point, line search
            law, t, lam, a, lo, hi, merit = best.law, best.t, best.lam, best.a, best.lo, best.hi, best.merit
            watchdog = _Watchdog(_Acceptance.LINE_SEARCH)
            continue
        accepted = False
        step = 0.5
        for _k in range(LINE_SEARCH_HALVINGS):
            new = _step(law, dx, free, step)
            t_new = t + step * dx[-2] if level is not None else t
            lam_new = math.exp(t_new) if level is not None else lam
            a_new = a + step * dx[-1]
            rn = _kkt(prob, tgt, new, lam_new, a_new, level, lo, hi, gscale, jacobian=False)
            if rn is not None:
                mn = float(np.max(np.abs(rn[0] / rn[1])))
                if mn < (1.0 - ARMIJO * step) * merit or mn <= NEWTON_TOL:
                    accepted = True
                    break
            step *= 0.5
        if not accepted:
            return _KKTPoint(law, lam, a) if merit <= NEWTON_STALLED_TOL else None
        law, t, lam, a = new, t_new, lam_new, a_new
    return None


def _step(law: _Law, dx: np.ndarray, free: np.ndarray, step: float) -> _Law:
    m = len(law.atoms)
    w = np.maximum(law.weights + step * dx[:m], 0.0)
    atoms = law.atoms.copy()
    atoms[free] = atoms[free] + step * dx[m : m + len(free)]
    return _Law(atoms, w, law.piece.copy())


def _kkt(prob: _Problem, tgt, law, lam, a, level, lo, hi, gscale, jacobian, mean_only=False):
    """Residuals of (L9) (and l = level), their scales and optionally the Jacobian.

    ``mean_only``: just E_pi psi, the starting value of a.
    """
    atoms, w = law.atoms, law.weights
    bm, b1, b2 = prob.kernel_jet(atoms)
    p = bm @ w
    if not np.all(p > 0):
        return None
    with np.errstate(over="ignore"):
        u = prob.n / p
    if not np.all(np.isfinite(u)):  # a cell probability below n / 1e308: this start is far off
        return None
    g0, g1, g2 = tgt.jet(atoms, law.piece)
    free = free_atoms(atoms, lo, hi)
    h0, h1 = u @ bm, u @ b1
    psi0 = g0 - lam * h0
    if mean_only:
        return float(w @ psi0)
    spsi = gscale + lam * prob.N
    r_parts: list[np.ndarray | list[float]] = [psi0 - a, g1[free] - lam * h1[free], [w.sum() - 1.0]]
    sc_parts: list[np.ndarray | list[float]] = [
        np.full(len(atoms), spsi),
        np.full(len(free), spsi * max(prob.kmax, tgt.degree, 1)),
        [1.0],
    ]
    if level is not None:
        ll = prob.loglik(p)
        r_parts.append([ll - level])
        sc_parts.append([max(1.0, abs(level))])
    r, sc = np.concatenate(r_parts), np.concatenate(sc_parts)
    if not jacobian:
        return r, sc
    m, f = len(atoms), len(free)
    e = np.concatenate([bm, b1[:, free] * w[free]], axis=1)  # dp / d(w, theta_free)
    tmat = np.concatenate([bm, b1[:, free]], axis=1)
    size = m + f + 1 + (1 if level is not None else 0)
    jac = np.zeros((size, size))
    # n / p^2 as (n / p) (1 / p): p * p underflows when a cell is nearly impossible (K in
    # the thousands), while u = n / p and e / p stay finite. Where even these overflow (a start
    # far from the answer), the step is not finite and Newton gives up on this start: no warning
    with np.errstate(over="ignore", invalid="ignore"):
        jac[: m + f, : m + f] = lam * (tmat.T @ (u[:, None] * (e / p[:, None])))
        h2 = u @ b2
        cols = m + np.arange(f)
        jac[free, cols] += g1[free] - lam * h1[free]
        jac[cols, cols] += g2[free] - lam * h2[free]
        jac[m + f, :m] = 1.0
        jac[:m, -1] = -1.0  # d/da
        if level is not None:
            # t = log lam: d psi / dt = -lam h
            jac[:m, -2] = -lam * h0
            jac[m : m + f, -2] = -lam * h1[free]
            jac[m + f + 1, : m + f] = u @ e
    return r, jac, sc, free
