"""The profile likelihood ratio of a value of E_pi[g]: the smallest drop whose interval holds it.

For a value v write

    D(v) = l(pi-hat) - sup {l(pi) : E_pi[g] = v}                                              (P1)

(half the profile ratio Lambda(v) of :mod:`._calibration`). The log-likelihood is concave and
E_pi[g] linear in pi, so the interval at drop c (eq. (L6)) is exactly {v : D(v) <= c}: its lower
end L(c) holds v iff c >= D_lower(v) = l(pi-hat) - sup {l : E_pi[g] <= v}, its upper end iff
c >= D_upper(v), and D(v) = max(D_lower(v), D_upper(v)). A coverage study needs nothing else:
the interval at any c covers the true value g* iff D(g*) <= c, so one D per data set gives the
coverage of every calibration at once, and a simulated quantile of D is a critical value.

**Newton in c.** L(c) is convex and decreasing in c: sup {l : E g <= v} is concave in v (a
concave function maximized over a convex set that grows linearly with v), so its inverse is
convex, and its slope is dL/dc = -lambda(c), the multiplier of the end's Lagrangian (L7) (the
envelope theorem). Newton's step c <- c + (L(c) - v) / lambda(c) from a point below the root (L > v)
therefore never passes it (the tangent of a convex function lies under it): it is the safe step,
and from below it increases monotonically to the root. To first order L is linear in sqrt(c)
(the half-width of the set grows like sqrt(2 c / N)), so Newton in sqrt(c) from the current
point, c <- (sqrt(c) + (L(c) - v) / (2 sqrt(c) lambda))^2, is usually closer; it is taken when it
lies between the safe step and the last point above the root, else the safe step is (with no
point below the root yet, the safe step is the floor). The search starts at
PROFILE_DROP_START. Each step solves one end warm-started from the previous step's extremal law
and multiplier (:func:`._ends._solve_end`: verified KKT points, as for every interval end).
The search stops when L(c) is within PROFILE_VALUE_TOL of v, or when the root is bracketed to
PROFILE_DROP_RTOL (the ends' own rounding, about CERT_RTOL lambda N, can exceed the value
tolerance at large N and then decides nothing); after PROFILE_BISECT_AFTER steps it bisects.
The upper end is the lower end of -g. Drops below PROFILE_DROP_FLOOR are reported as 0: the
set then shrinks to pi-hat's identified set, where lambda grows without bound.

**A value at the extreme of g** (V_inf = 1, V_101 = 0 on its side) needs a law on the set where
g takes that value, so D = l(pi-hat) - max {l(pi) : pi on that set}, the NPMLE restricted to it
(the near-minimal set of the lambda = 0 test, :func:`._ends.near_min_loglik`); it is read off
directly: that is its definition, where Newton in c would only approach the drop at which the
end switches to lambda = 0. (Just below that drop, within the restricted NPMLE's gap, about 1e-6
in c, the ends once failed to bracket lambda -- 6-19 % of data sets of a constant q = 0.7 before
this route; the lambda = 0 test now counts a level within that gap as reached.)
"""

from __future__ import annotations

import math
import numbers

from .._errors import InputError, SolverError
from ._calibration import _Context
from ._cells import _as_cells
from ._ends import _EndState, _solve_end, near_min_loglik
from ._problem import admit
from ._results import LatentLaw
from ._targets import _objective, _target
from ._tolerances import (
    PROFILE_BISECT_AFTER,
    PROFILE_DROP_FLOOR,
    PROFILE_DROP_RTOL,
    PROFILE_DROP_START,
    PROFILE_NEWTON_STEPS,
    PROFILE_VALUE_TOL,
)

__all__ = ["profile_drop"]


def profile_drop(cells, objective, value: float, *, reference: LatentLaw | None = None) -> float:
    """D(v) of eq. (P1): the smallest log-likelihood drop c whose interval of E_pi[g] holds ``value``.

    Parameters
    ----------
    cells : CellCounts or CallBits
    objective
        As for :func:`likelihood_interval` (a vote count, an objective string, ``"inf"``, ...).
    value : float
        The value v of E_pi[g] to test.
    reference : LatentLaw, optional
        A precomputed :func:`npmle` of the same cells.

    Returns
    -------
    float
        D(v) >= 0 (0 when v lies in pi-hat's identified set, or D(v) < PROFILE_DROP_FLOOR);
        ``math.inf`` when no law on [0, 1] has E_pi[g] = v. 2 D(v) is the profile
        likelihood-ratio statistic of the value.

    Notes
    -----
    The interval :func:`likelihood_interval` with ``c=d`` holds ``value`` for every d > D(v)
    and misses it for every d < D(v); the ends it solves are the ones used here.

    A value at the extreme of g (V_inf = 1, V_101 = 0) is l(pi-hat) minus the largest
    log-likelihood of a law on the set where g takes it (module docstring).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise InputError(f"value={value!r} must be a finite number")
    obj = _objective(objective)
    cells = _as_cells(cells)
    admit(cells, [obj])
    ctx = _Context(cells, 0.05, False, PROFILE_DROP_START, reference)
    value = float(value)
    return max(_side_drop(ctx, obj, side, value) for side in ("lower", "upper"))


def _side_drop(ctx: _Context, obj, side: str, value: float) -> float:
    """D_lower(v) (or D_upper(v)) by safeguarded Newton in c (module docstring)."""
    tgt = _target(obj, side)
    goal = tgt.sign * value  # the end minimizes E[sign g]; it holds v iff that minimum <= sign v
    lo, hi = tgt.bounds if side == "lower" else (-tgt.bounds[1], -tgt.bounds[0])  # the range of sign g
    if goal < lo:
        return math.inf  # no law reaches v from this side
    if goal > hi:
        return 0.0  # every law holds v on this side
    tol = PROFILE_VALUE_TOL * max(1.0, tgt.scale())
    if goal <= lo + tol:  # v at the extreme of g: the NPMLE restricted to its set (module docstring)
        drop = ctx.reference.loglik - near_min_loglik(ctx.prob, tgt)
        return drop if drop >= PROFILE_DROP_FLOOR else 0.0
    c, warm, below, above = PROFILE_DROP_START, None, None, math.inf
    for steps in range(PROFILE_NEWTON_STEPS):
        law, lam, _ = _solve_end(ctx.set_drop(c), tgt, warm)
        (g_at,) = tgt.jet(law.atoms, law.piece, (0,))
        excess = float(law.weights @ g_at) - goal  # L(c) - v in the target's orientation: held if <= tol
        if excess > tol:
            if lam <= 0:  # the end is min g (lambda = 0): no drop reaches v
                return math.inf
            below = (c, excess, lam)
        elif c == PROFILE_DROP_FLOOR:
            return 0.0
        elif excess >= -tol and lam > 0:  # L is strictly decreasing here: the root is within tol / lambda
            return c
        else:  # held (a flat end, lambda = 0, may hold v at smaller c too)
            above = c
        if below is not None and above < math.inf and above - below[0] <= PROFILE_DROP_RTOL * above:
            return above  # the root is bracketed this tightly: the ends' rounding decides no more
        # Newton in c from the last point below the root stays below it (convexity): the safe step.
        # Newton in sqrt(c) from the current point is exact where L is linear in sqrt(c), as it is to
        # first order; it is taken when it lies between the safe step and the last point above.
        safe = below[0] + below[1] / below[2] if below is not None else PROFILE_DROP_FLOOR
        step = safe
        if lam > 0:
            root = math.sqrt(c) + excess / (2.0 * math.sqrt(c) * lam)
            guess = root * root if root > 0 else 0.0
            if safe < guess < above:
                step = guess
        if steps >= PROFILE_BISECT_AFTER and below is not None and above < math.inf:
            step = 0.5 * (below[0] + above)  # Newton has not settled: bisect the bracket
        c, warm = max(step, PROFILE_DROP_FLOOR), _EndState(law, lam) if lam > 0 else warm
    raise SolverError(
        "likelihood",
        "not converged",
        f"{tgt.name} {side}: the drop of {value!r} did not converge in {PROFILE_NEWTON_STEPS} Newton steps",
    )
