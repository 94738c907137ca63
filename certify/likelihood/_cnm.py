"""The constrained Newton method (CNM, Wang 2007): laws on a growing support (eq. (L8)).

CNM minimizes F_lambda(pi) = E_pi[g] - lambda l(pi) (eq. (L7) of :mod:`._ends`; the NPMLE is
g = 0, lambda = 1) over all laws on [0, 1]. The derivative of F_lambda at pi towards delta_q is
psi(q) - E_pi[psi], psi = g - lambda h_pi (eq. (L4)), so pi minimizes F_lambda iff psi >= E_pi[psi]
on [0, 1], and for any pi

    F(pi) - min F <= E_pi[psi] - min psi        (the duality gap that stops CNM).

Each iteration adds every local minimum of psi below its mean as an atom (weight 0) and
re-weights by the Newton model of F / lambda in the weights: on atoms theta_j with current
cell probabilities p,

    (1/2) w'A'Aw + (g / lambda - 2 h)'w,      A_cj = sqrt(n_c) B_c(theta_j) / p_c,            (L8)

minimized over the simplex by an active-set method (:func:`_simplex_qp`), then an Armijo line
search from the current weights. Where that model gives no descent (a cell nearly impossible
under pi makes A'A span many orders of magnitude), the step follows the vertex direction
delta_q* - pi towards the deepest minimum q* of psi instead, whose slope -gap / lambda is
always negative (the vertex-direction method's step, Fedorov/Wynn; slower, never stuck).
:func:`_exchange` is the one-step variant used between
Newton solves: it adds the minima of psi below a with a small weight each.
"""

from __future__ import annotations

import math
from typing import Protocol, TypeVar

import numpy as np

from .._compiled import interrupts_held
from .._errors import SolverError
from ._problem import _Screen
from ._targets import _Law
from ._tolerances import (
    ARMIJO,
    CNM_MAX_FLAT,
    CNM_MAX_ITER,
    CNM_MAX_STALLS,
    CNM_MIN_STEP,
    CNM_STALL_RTOL,
    CNM_ZERO_WEIGHT,
    DUPLICATE_TOL,
    EXCHANGE_WEIGHT,
    QP_ITER_PER_ATOM,
    QP_MULTIPLIER_RTOL,
    QP_NULL_RTOL,
    QP_SCALE_LIMIT,
    TINY,
)


def _new_minima(law: _Law, scr: _Screen, below: float) -> np.ndarray:
    """Which screened minima lie below ``below`` and are not a current atom of the same piece.

    A current atom again would duplicate a column of the quadratic program (L8).
    """
    add = scr.psi < below
    for x, k in zip(law.atoms, law.piece):
        add &= ~((scr.piece == k) & (np.abs(scr.q - x) <= DUPLICATE_TOL))
    return add


def _vertex_direction(law: _Law, scr: _Screen, best: int) -> np.ndarray:
    """The direction delta_q* - pi in the weights of ``law`` (which holds q* = the screen's ``best`` minimum)."""
    same = law.piece == scr.piece[best]
    j = int(np.argmin(np.where(same, np.abs(law.atoms - scr.q[best]), np.inf)))
    d = -law.weights.copy()
    d[j] += 1.0
    return d


class _Jets(Protocol):
    """What CNM reads of a target: g at atoms (:meth:`._targets._Target.jet`, ``_FiniteTarget.jet`` of
    :mod:`._finite`)."""

    def jet(self, q: np.ndarray, piece: np.ndarray, derivatives: tuple[int, ...], /) -> list[np.ndarray]: ...


_Tgt = TypeVar("_Tgt", bound=_Jets)
_TgtIn = TypeVar("_TgtIn", bound=_Jets, contravariant=True)


class _CNMProblem(Protocol[_TgtIn]):
    """What CNM reads of a problem: the K-call :class:`._problem._Problem`, or the
    :class:`._finite.FiniteModel` of a latent law on a grid (its ``tgt`` a ``_FiniteTarget``)."""

    @property
    def n(self) -> np.ndarray: ...

    @property
    def sqrt_n(self) -> np.ndarray: ...

    def kernel(self, atoms: np.ndarray, /) -> np.ndarray: ...

    def loglik(self, p: np.ndarray, /) -> float: ...

    def screen(self, tgt: _TgtIn, lam: float, u: np.ndarray, /) -> _Screen: ...


def duality_gap(
    tgt: _Jets, lam: float, law: _Law, bm: np.ndarray, u: np.ndarray, scr: _Screen
) -> tuple[float, float, int]:
    """(gap, E_pi psi, index of the screen's minimum): gap = E_pi psi - min psi >= F(pi) - min F (eq. (L8)).

    ``bm``: the kernel at the law's atoms; ``u`` = n / p; ``scr``: the screen of psi for this law.
    """
    (g_at,) = tgt.jet(law.atoms, law.piece, (0,))
    psi_at = g_at - lam * (u @ bm)
    mean = float(law.weights @ psi_at)
    best = scr.argmin()
    return mean - float(scr.psi[best]), mean, best


class WorkBudget:
    """Iterations of the simplex QP that one solve may still spend (every input costs bounded work).

    Created by a caller whose CNM calls have no other bound that matters (the fallback of one
    end, the lambda = 0 test) and passed to :func:`cnm`; when it runs out, :class:`SolverError`.
    """

    def __init__(self, limit: int, what: str):
        self.left, self.limit, self.what = int(limit), int(limit), what

    def spend(self, iterations: int) -> None:
        self.left -= iterations
        if self.left < 0:
            raise SolverError(
                "likelihood",
                "work limit",
                f"{self.what}: the constrained Newton method spent its {self.limit:,} quadratic-program "
                f"iterations without converging; use fewer calls per example (certify analyze --calls) "
                f"or a smaller budget of votes",
            )


def cnm(
    prob: _CNMProblem[_Tgt],
    tgt: _Tgt,
    lam: float,
    law: _Law,
    tol: float,
    max_iter: int = CNM_MAX_ITER,
    budget: WorkBudget | None = None,
):
    """Constrained Newton method: add every local minimum of psi below its mean, reweight.

    Minimizes F(w) = E g / lam - l on a growing support. Returns (law, gap, screen) where
    gap = E_pi psi - min psi >= F(pi) - min F (times lam), eq. (L8). Use
    :func:`._newton.merge` on the law before Newton's method. ``budget``: the QP iterations
    it may spend (:class:`WorkBudget`), or no limit beyond ``max_iter``.
    """
    law = law.copy()
    last_f = math.inf
    stall = 0
    for _ in range(max_iter):
        bm = prob.kernel(law.atoms)
        p = bm @ law.weights
        u = prob.n / p
        scr = prob.screen(tgt, lam, u)
        gap, mean, best = duality_gap(tgt, lam, law, bm, u, scr)
        if gap <= tol:
            return law, gap, scr
        add = _new_minima(law, scr, mean)
        new = _Law(
            np.concatenate([law.atoms, scr.q[add]]),
            np.concatenate([law.weights, np.zeros(int(add.sum()))]),
            np.concatenate([law.piece, scr.piece[add]]),
        )
        bnew = np.concatenate([bm, prob.kernel(scr.q[add])], axis=1)
        (gnew,) = tgt.jet(new.atoms, new.piece, (0,))
        h = u @ bnew
        a = (prob.sqrt_n / p)[:, None] * bnew
        lin = gnew / lam - 2.0 * h  # model of F around the current weights, eq. (L8)
        big = float(np.abs(a).max())
        if big > QP_SCALE_LIMIT:  # the same model divided by big^2: A'A cannot overflow
            a, lin = a / big, lin / big / big
        qmat = a.T @ a
        wq = _simplex_qp(qmat, lin, new.weights, budget)
        d = wq - new.weights
        slope = float((gnew / lam - h) @ d)
        f0 = float(gnew @ new.weights) / lam - prob.loglik(p)
        if not slope < 0:
            # The model gave no descent: when some observed cell is nearly impossible under pi
            # (an interior atom dropped, p_c ~ 1e-8), A'A spans many orders of magnitude and its
            # minimizer is rounding. The vertex direction towards the deepest minimum of psi
            # always descends, with slope (psi(q*) - E_pi psi) / lambda = -gap / lambda.
            d = _vertex_direction(new, scr, best)
            slope = float((gnew / lam - h) @ d)
        if not slope < 0:
            stall += 1
            if stall > CNM_MAX_FLAT:
                return law, gap, scr
            continue
        step = 1.0
        while step > CNM_MIN_STEP:
            w = new.weights + step * d
            pn = bnew @ w
            if np.all(pn > 0):
                fn = float(gnew @ w) / lam - prob.loglik(pn)
                if fn <= f0 + ARMIJO * step * slope:
                    break
            step *= 0.5
        else:
            return law, gap, scr
        w = np.where(np.abs(w) <= CNM_ZERO_WEIGHT, 0.0, w)
        keep = w > 0
        law = _Law(new.atoms[keep], w[keep] / w[keep].sum(), new.piece[keep])
        stall = stall + 1 if fn >= last_f - CNM_STALL_RTOL * abs(last_f) else 0
        last_f = fn
        if stall > CNM_MAX_STALLS:
            return law, gap, scr
    return law, gap, scr


def _exchange(law: _Law, scr: _Screen, a: float) -> _Law:
    """Add the minima of psi below a to the support (vertex exchange), each with weight EXCHANGE_WEIGHT.

    Moving mass towards a point where psi < a decreases F_lambda (eq. (L7)); Newton's method on
    (L9) then sets the weights and positions. The mass comes from the current atoms in proportion.
    Not the exchange of the sharp bounds (:func:`certify.solvers._exact._simplex`), whose pivot
    swaps one of m + 1 atoms of a linear program: here the objective is concave in the weights,
    any number of atoms may be added at once, and no atom leaves until Newton sets its weight to 0.
    """
    add = _new_minima(law, scr, a)
    m = int(add.sum())
    if m == 0:
        return law
    return _Law(
        np.concatenate([law.atoms, scr.q[add]]),
        np.concatenate([(1.0 - m * EXCHANGE_WEIGHT) * law.weights, np.full(m, EXCHANGE_WEIGHT)]),
        np.concatenate([law.piece, scr.piece[add]]),
    )


def _simplex_qp(qmat: np.ndarray, lin: np.ndarray, w0: np.ndarray, budget: WorkBudget | None = None) -> np.ndarray:
    """min 1/2 w'Qw + lin'w over the simplex for a positive semidefinite Q (primal active set).

    Q = A'A is singular whenever there are more atoms than cells. On the current face
    {w_F : sum w_F = 1} (Z an orthonormal basis of sum d = 0, E = Z'Q_FF Z = V diag(mu) V'):
    a direction of zero curvature along which the model decreases is followed to the boundary
    of the simplex (the model is linear there); otherwise the Newton step of the face is
    taken with the pseudo-inverse of E, shortened at the first weight that reaches zero.
    Finite termination as for the usual active-set method; w0 must be feasible. The iterations
    run compiled (:func:`._cnm_kernels.simplex_qp`), in Jacobi-scaled variables (the columns of
    A of unit norm), without which a Q spanning dozens of orders of magnitude made the method
    cycle; ``budget`` pays for each iteration, and an iteration it cannot pay for is not run
    (:class:`WorkBudget` raises).
    """
    limit = QP_ITER_PER_ATOM * (len(lin) + 1)
    if budget is not None:
        limit = min(limit, max(budget.left, 0) + 1)  # the iteration after the last it can pay for
    with interrupts_held():  # numba's import and cache load run ctypes callbacks, too
        from ._cnm_kernels import simplex_qp  # numba loads with the first fit of a law

        w, spent = simplex_qp(
            np.ascontiguousarray(qmat, dtype=float),
            np.ascontiguousarray(lin, dtype=float),
            np.ascontiguousarray(w0, dtype=float),
            limit,
            QP_NULL_RTOL,
            QP_MULTIPLIER_RTOL,
            TINY,
        )
    if budget is not None:
        budget.spend(spent)
    return w
