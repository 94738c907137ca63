"""The nonparametric maximum-likelihood estimate pi-hat of the latent law (eqs. (L3)-(L5)).

**NPMLE (L3)-(L5).** pi-hat maximizes l (eq. (L2)) over *all* laws on [0, 1] (Kiefer-Wolfowitz;
Lindsay 1983). The directional derivative of l at pi towards a point mass delta_q is

    D_pi(q) = d/de l((1-e) pi + e delta_q)|_{e=0} = h_pi(q) - N,   h_pi(q) = sum_c n_c B_c(q) / p_c(pi),   (L4)

and E_pi[h_pi] = N. By concavity l(pi') <= l(pi) + E_pi'[D_pi] <= l(pi) + max_q D_pi(q) for every
law pi', so pi-hat is an NPMLE iff

    D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi-hat) - N <= 0   for all q in [0, 1]          (L5)

(with equality on its support), and max D bounds the gap to the supremum in any case. The
intervals use l(pi-hat) as computed; it is at most max D below the supremum, which only makes
the set C of (L6) (slightly) larger: conservative.
D is a polynomial of degree K_max; its maximum over [0, 1] is found by the screen of
:mod:`._problem` (psi = -h for g = 0, lambda = 1). pi-hat is computed on a continuous support,
not a grid: Newton's method on the optimality equations (L9) (:mod:`._newton`) moves atoms and
weights together to machine precision, from the NPMLE among laws on a grid of 129 points
(:func:`grid_start`: CNM compiled, about 1 ms at K = 10) or, where that law is flat (D = 0
everywhere, the saturated case), from the constrained Newton method (CNM, Wang 2007; :mod:`._cnm`), which adds the local
maxima of D as atoms and re-weights by a Newton step of l in the weights (a quadratic program
over the simplex, (L8)) with an Armijo line search. Atoms may sit at
0 or 1 exactly: all calls correct gives pi-hat = delta_1, all wrong delta_0.

The grid start goes first; a start from a similar data set (:class:`._warm.WarmStarts`)
follows where the grid law is flat or Newton's rounds from it fail, and CNM only after both.
(Until the grid start was compiled the warm start went first. Measured since, on sequences of
40 data sets of 8192 examples: at K = 10 Newton from the last data set's law took 14.5 ms per
NPMLE against 3.8 ms from the grid, since an atom of small weight appears or leaves between
data sets and its rounds fail; at K = 2 0.41 ms against 0.66. The default study plan took
36.5 s instead of 44.9.) The NPMLE's cell probabilities are unique, so the order changes no
interval's ends beyond the solver's tolerance; where the law itself is not (saturated
frequencies) and the grid law is flat, the warm law still chooses which is reported, as
before. Nearly saturated frequencies whose grid law is not flat can now report another law of
the same likelihood, from which a plan's small-count thresholds are simulated: on the default
plan two designs' mean widths moved by 1.5e-5 (their Monte Carlo standard errors 4e-4).

**The saturated case.** Where the frequencies n_S / N are cell probabilities of some law
(inside the moment space), every such law is an NPMLE, and which one is reported is a choice:
it is what a study plan simulates more calls from. With one K and every cell observed, the
reported law is the one on the grid {0, 1/K, ..., 1} wherever that law exists (one linear
solve, :func:`_saturated_law`): canonical, exact up to rounding, and what CNM from the
empirical law returned in 42 of the 80 such data sets of two coverage-grid samples per cell
(in the other 38, Newton's full system, singular there, had moved CNM's atoms off the grid by
up to 0.1). Elsewhere (ragged K, an empty cell, a grid law with a negative weight) CNM from
the empirical law or the warm law chooses, as before.
"""

from __future__ import annotations

import numpy as np

from .._compiled import interrupts_held
from .._errors import InputError, SolverError
from ._cells import _as_cells
from ._cnm import _exchange, cnm, duality_gap
from ._end_starts import _joined, grid_steps, snapped
from ._newton import merge, newton
from ._problem import _Problem
from ._results import LatentLaw
from ._targets import _Law, _zero_target
from ._tolerances import (
    CNM_RESTARTS,
    FAST_ROUNDS,
    INNER_LOOSE_GAP,
    NPMLE_ACCEPT_GAP,
    NPMLE_GRADIENT_RTOL,
    NPMLE_GRADIENT_TOL,
    NPMLE_START_FLAT,
    NPMLE_START_GAP,
    NPMLE_START_GRID,
    NPMLE_START_MAX_ITER,
    SAME_SUPPORT_TOL,
    SATURATED_ZERO_WEIGHT,
    WARM_FLOOR,
    WARM_MIX,
)

__all__ = ["gradient_function", "log_likelihood", "npmle"]


def _initial_law(prob: _Problem) -> _Law:
    """The empirical law of S_i / K_i: every observed cell has positive probability under it."""
    x = prob.S / prob.K
    atoms, inv = np.unique(x, return_inverse=True)
    w = np.bincount(inv, weights=prob.n) / prob.N
    return _Law.unassigned(atoms, w)


def grid_start(prob: _Problem) -> _Law | None:
    """A start for Newton's method: the NPMLE among laws on NPMLE_START_GRID equispaced points.

    Compiled CNM on the grid (:func:`._cnm_kernels.grid_lagrangian` with no linear term) from
    the empirical law snapped to the grid (:func:`._end_starts.snapped`: an observed 0 < S < K
    kept off the ends, so that every observed cell has a positive probability). Its atoms are
    within half a grid step of the NPMLE's, from where Newton converges in a few steps; atoms at
    neighbouring grid points are joined into one (:func:`._end_starts._joined`). None where the
    grid law is flat, h >= N (1 - NPMLE_START_FLAT) at every grid point: the frequencies are
    then (nearly) saturated, every law with those cell probabilities is an NPMLE, and which one
    is reported is :func:`_npmle`'s choice, not the grid's (a study plan simulates more calls
    from it).
    """
    points = np.linspace(0.0, 1.0, NPMLE_START_GRID)
    kernel = np.ascontiguousarray(prob.kernel(points))
    w0 = snapped(_initial_law(prob), NPMLE_START_GRID)
    with interrupts_held():  # numba's import and cache load run ctypes callbacks, too
        from ._cnm_kernels import grid_lagrangian  # numba loads with the first fit of a law

        w, _ = grid_lagrangian(
            kernel,
            np.ascontiguousarray(prob.n, dtype=float),
            np.zeros(NPMLE_START_GRID),  # the NPMLE: no linear term
            w0,
            NPMLE_START_GAP * prob.N,
            NPMLE_START_MAX_ITER,
            grid_steps(),
        )
    h = (prob.n / (kernel @ w)) @ kernel
    if float(h.min()) >= prob.N * (1.0 - NPMLE_START_FLAT):
        return None
    keep = np.flatnonzero(w > 0)
    return _Law.unassigned(*_joined(keep, points[keep], w[keep] / w[keep].sum()))


def _warm_law(prob: _Problem, start: _Law) -> _Law:
    """``start``, mixed with a WARM_MIX share of the empirical law where it gives some observed
    cell less than WARM_FLOOR times the empirical law's probability (Newton needs every p_c > 0)."""
    empirical = _initial_law(prob)
    if np.all(prob.probabilities(start) >= WARM_FLOOR * prob.probabilities(empirical)):
        return start
    return _Law.unassigned(
        np.concatenate([start.atoms, empirical.atoms]),
        np.concatenate([(1.0 - WARM_MIX) * start.weights, WARM_MIX * empirical.weights]),
    )


def _newton_gap(prob: _Problem, zero, law: _Law, scr) -> float:
    """CNM's gap (:func:`._cnm.duality_gap`) for a law and its screen, as CNM's first step computes it."""
    bm = prob.kernel(law.atoms)
    return duality_gap(zero, 1.0, law, bm, prob.n / (bm @ law.weights), scr)[0]


def npmle_gap(prob: _Problem) -> float:
    """The duality gap to which an NPMLE is solved (eq. (L5)): its log-likelihood is within this of
    the supremum, so membership of the set C of eq. (L6) is decided to this accuracy too."""
    return NPMLE_GRADIENT_TOL + NPMLE_GRADIENT_RTOL * prob.N


def _screened_npmle(prob: _Problem, zero, law: _Law):
    """(screen of D at ``law``, whether ``law`` passes the check (L5): max D <= npmle_gap)."""
    found = prob.screen(zero, 1.0, prob.n / prob.probabilities(law))
    return found, -float(found.psi.min()) - prob.N <= npmle_gap(prob)


def _newton_rounds(prob: _Problem, zero, law: _Law):
    """Newton on the merged support of ``law``; where it converges on too few atoms (D > 0
    somewhere), one vertex-exchange step adds the maxima of D and Newton runs again, up to
    FAST_ROUNDS times. Returns (law, screen) passing the check (L5), or None.

    The rounds stop early when Newton returns the support it returned before (to SAME_SUPPORT_TOL):
    it has set the added atoms' weights to 0 again, and another exchange from there would
    repeat the round.
    """
    start, before = merge(prob, law, zero, 1.0), None
    for i in range(FAST_ROUNDS):
        polished = newton(prob, zero, start, 1.0)
        if polished is None or not np.all(polished.law.weights > 0):
            return None
        cand = polished.law
        found, ok = _screened_npmle(prob, zero, cand)
        if ok:
            return cand, found
        if (
            before is not None
            and len(cand.atoms) == len(before)
            and np.allclose(cand.atoms, before, rtol=0.0, atol=SAME_SUPPORT_TOL)
        ):
            return None
        if i + 1 == FAST_ROUNDS:
            break
        before = cand.atoms
        start = merge(prob, _exchange(cand, found, -prob.N), zero, 1.0)
    return None


def _saturated_law(prob: _Problem) -> _Law | None:
    """pi-hat of saturated frequencies on the grid {0, 1/K, ..., 1}, where that law exists.

    With one K and every cell S = 0..K observed, the K + 1 kernels Bin(.; K, S/K) are linearly
    independent (the Bernstein collocation matrix is nonsingular), so exactly one signed measure
    on the grid has cell probabilities n_S / N. Where its weights are >= 0 it is a law, and an
    NPMLE: no law has a larger likelihood than the frequencies themselves (Gibbs' inequality),
    and D = 0 on all of [0, 1]. Returns None elsewhere.
    """
    k = prob.kmax
    if prob.cells.size != k + 1 or not np.all(prob.K == k):
        return None
    grid = np.arange(k + 1) / k
    w = np.linalg.solve(prob.kernel(grid), prob.n / prob.N)
    if not np.all(w >= -SATURATED_ZERO_WEIGHT):
        return None
    keep = w > SATURATED_ZERO_WEIGHT  # a weight that is 0 in exact arithmetic solves to +-1e-16
    return _Law.unassigned(grid[keep], w[keep] / w[keep].sum())


def _npmle(prob: _Problem, start: _Law | None = None) -> tuple[_Law, float, float]:
    """NPMLE law, max D and argmax D.

    ``start``: a law near the answer (the NPMLE of a similar data set); Newton starts from it
    where the grid start is flat or fails (module docstring). The answer is checked the same
    way (eq. (L5)).
    """
    zero = _zero_target()
    tol = npmle_gap(prob)
    got = None
    saturated = _saturated_law(prob)
    if saturated is not None:  # checked like any other answer; it passes up to rounding
        found, ok = _screened_npmle(prob, zero, saturated)
        got = (saturated, found) if ok else None
    gridded = None
    if got is None:
        gridded = grid_start(prob)  # None where the frequencies are (nearly) saturated
        if gridded is not None:
            got = _newton_rounds(prob, zero, gridded)
    if got is None and start is not None:
        start = _warm_law(prob, start)
        got = _newton_rounds(prob, zero, start)
    law: _Law | None
    if got is not None:
        law, scr = got
    else:
        # CNM from the best start at hand; Newton on its atoms, first free, then fixed (the
        # saturated, flat case); CNM to the tolerance finishes what is left
        law = start if start is not None else gridded
        if law is None:
            law, gap, _ = cnm(prob, zero, 1.0, _initial_law(prob), INNER_LOOSE_GAP * prob.N)
            got = _newton_rounds(prob, zero, law)
        scr = None
        if got is not None:
            law, scr = got
        else:
            polished = newton(prob, zero, law, 1.0, fixed=True)
            if polished is not None and np.all(polished.law.weights > 0):
                found, ok = _screened_npmle(prob, zero, polished.law)
                if ok:
                    law, scr = polished.law, found
    # CNM finishes what Newton left (gap = max D: E_pi psi = -N for g = 0, lambda = 1). Its
    # first step screens the law it is given and returns it if the gap is met, so a law
    # Newton's screen passed is only checked the same way, on that screen, and not screened again
    if scr is None or _newton_gap(prob, zero, law, scr) > tol:
        law, gap, scr = cnm(prob, zero, 1.0, law, tol)
        for _ in range(CNM_RESTARTS):
            if gap <= tol:
                break
            law, gap, scr = cnm(prob, zero, 1.0, merge(prob, law, zero, 1.0), tol)
        scr = prob.screen(zero, 1.0, prob.n / prob.probabilities(law))  # CNM's may be of its previous law
    i = scr.argmin()
    dmax = -float(scr.psi[i]) - prob.N
    if not dmax <= max(tol, NPMLE_ACCEPT_GAP):
        raise SolverError(
            "npmle",
            "not converged",
            f"max of the gradient function {dmax:.3g} > {max(tol, NPMLE_ACCEPT_GAP):.3g} on {prob.cells.size} cells",
        )
    return law.sorted(), dmax, float(scr.q[i])


def npmle(cells) -> LatentLaw:
    """Nonparametric maximum-likelihood estimate of the latent law (eq. (L3)).

    Continuous support, no grid: the constrained Newton method (CNM, Wang 2007) adds the
    local maxima of the gradient function D as atoms and re-weights by a Newton step on
    the weights; Newton's method on the optimality equations then polishes the atom
    locations and weights together.

    Parameters
    ----------
    cells : CellCounts or CallBits

    Returns
    -------
    LatentLaw
        Atoms, weights, l(pi-hat) and the maximum of D over [0, 1] (<= tolerance).

    Raises
    ------
    SolverError
        If the optimality condition max D <= tolerance (eq. (L5)) is not reached.
    """
    prob = _Problem(_as_cells(cells))
    return _latent(prob, *_npmle(prob))


def _latent(prob: _Problem, law: _Law, dmax: float, where: float) -> LatentLaw:
    return LatentLaw(
        atoms=tuple(float(x) for x in law.atoms),
        weights=tuple(float(x) for x in law.weights),
        loglik=prob.loglik(prob.probabilities(law)),
        max_gradient=dmax,
        argmax_gradient=where,
        n=int(prob.N),
    )


def log_likelihood(cells, atoms, weights) -> float:
    """l(pi) = sum_c n_c log p_c(pi) for the law with the given atoms and weights (eq. (L2))."""
    prob = _Problem(_as_cells(cells))
    a, w = np.asarray(atoms, dtype=float), np.asarray(weights, dtype=float)
    if a.ndim != 1 or a.shape != w.shape or np.any((a < 0) | (a > 1)) or np.any(w < 0):
        raise InputError("atoms and weights must be 1-d of equal length, atoms in [0, 1], weights >= 0")
    return prob.loglik(prob.kernel(a) @ w)


def gradient_function(cells, law, q) -> np.ndarray:
    """D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(law) - N at points q (eq. (L4)).

    ``law`` is a :class:`LatentLaw`, a :class:`certify.Law` or an (atoms, weights) pair.
    """
    prob = _Problem(_as_cells(cells))
    atoms, weights = (law.atoms, law.weights) if hasattr(law, "atoms") else law
    p = prob.kernel(np.asarray(atoms, dtype=float)) @ np.asarray(weights, dtype=float)
    return (prob.n / p) @ prob.kernel(np.atleast_1d(np.asarray(q, dtype=float))) - prob.N
