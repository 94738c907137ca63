"""Sharp bounds of E[g(Q)] over a moment class (Theorem 3.1), any polynomial g.

This is the public entry point that validates inputs once, dispatches to a
solver (``exact``, ``sos`` or ``grid``), and turns the solver's raw solution into
:class:`~certify._results.Bound` objects for the lower and upper side.
"""

from __future__ import annotations

import importlib

import numpy as np

from ._errors import InputError
from ._moments import Moments, moments as make_moments
from ._objective import Objective, parse_objective, vote_accuracy
from ._results import Bound, Law, SharpBounds
from .solvers._contact import max_violation, target

__all__ = ["sharp_bounds", "sharp_bound", "METHODS", "as_objective", "as_moments"]

#: method name -> (module, function); imported lazily so that ``exact`` never loads cvxpy.
METHODS = {
    "exact": ("certify.solvers._exact", "solve_exact"),
    "sos": ("certify.solvers._sos", "solve_sos"),
    "grid": ("certify.solvers._grid", "solve_grid"),
}


def as_objective(objective) -> Objective:
    """Objective from an :class:`Objective`, a vote count (int), a string, coefficients or sympy."""
    if isinstance(objective, (int, np.integer)) and not isinstance(objective, bool):
        return vote_accuracy(int(objective))
    return parse_objective(objective)


def as_moments(mu=None, nu=None, rho=None, moments=None) -> Moments:
    """Moments from keyword arguments, or pass through a :class:`Moments`."""
    if isinstance(moments, Moments):
        if mu is not None or nu is not None or rho is not None:
            raise InputError("give a Moments object or mu/nu/rho, not both")
        return moments
    return make_moments(mu=mu, nu=nu, rho=rho, values=moments)


def _solver(method: str):
    if method not in METHODS:
        raise InputError(f"method={method!r} is unknown; choose one of {', '.join(METHODS)}")
    module, name = METHODS[method]
    return getattr(importlib.import_module(module), name)


def sharp_bound(objective, side: str, *, mu=None, nu=None, rho=None, moments=None, method: str = "exact", **options) -> Bound:
    """One side of the sharp bound; see :func:`sharp_bounds`."""
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    obj = as_objective(objective)
    mom = as_moments(mu, nu, rho, moments)
    return _bound(obj, mom, side, _solver(method), **options)


def _bound(obj: Objective, mom: Moments, side: str, solve, **options) -> Bound:
    sign = 1 if side == "upper" else -1
    theta = mom.theta
    sol = solve(obj, theta, sign, **options)
    order = np.argsort(sol.atoms)
    atoms, weights = np.asarray(sol.atoms)[order], np.asarray(sol.weights)[order]
    law = Law(atoms=tuple(float(a) for a in atoms), weights=tuple(float(w) for w in weights))
    violation = sol.violation
    if not np.isfinite(violation):
        violation = max_violation(target(obj, sign), np.asarray(sol.dual))[0]
    dual = sign * np.asarray(sol.dual, dtype=float)
    return Bound(
        side=side,
        value=law.expect(obj),
        law=law,
        dual=tuple(float(c) for c in dual),
        dual_value=float(np.dot(dual, theta)),
        violation=max(float(violation), 0.0),
        contacts=law.atoms,
    )


def sharp_bounds(objective, *, mu=None, nu=None, rho=None, moments=None, method: str = "exact", **options) -> SharpBounds:
    """Sharp lower and upper bounds of E[g(Q)] over all laws with the given moments.

    Implements Theorem 3.1 (eqs. 3.1-3.2) for any polynomial objective and any
    moment order: the extrema are attained by laws with at most m+1 atoms and
    certified by a polynomial minorant / majorant of degree m on [0, 1].

    Parameters
    ----------
    objective : Objective, int, str, sequence or sympy expression
        An int is a vote budget (``3`` means V_1 = E P_1(Q)); a string follows
        the objective syntax (``"P3 - P1"``, ``"V7 - V3"``, ``"3*q**2 - 2*q**3"``).
    mu, nu, rho : float or str, optional
        The paper's two-moment class: mu with nu or rho (eq. 2.2). Strings such
        as ``"4517/8192"`` are exact rationals.
    moments : sequence or Moments, optional
        Raw moments (m_1, ..., m_m) instead of mu / nu: order 1 is one call,
        order m >= 3 is what m labeled calls identify.
    method : {"exact", "sos", "grid"}
        ``exact`` (default): contact-point exchange with Newton polishing;
        ``sos``: the dual as a sum-of-squares program (cvxpy + Clarabel);
        ``grid``: the primal LP on a grid of atoms (cvxpy).
    **options
        Passed to the solver (``grid``: ``size``, ``solver``; ``sos``: ``solver``).

    Returns
    -------
    SharpBounds
        ``.lower`` and ``.upper`` :class:`Bound` objects with value, extremal law
        and dual polynomial.

    Raises
    ------
    InfeasibleMomentsError, ObjectiveError, InputError
        For unusable inputs (all are ``ValueError``).
    SolverError
        When a solver does not reach an optimal status.

    Examples
    --------
    >>> b = sharp_bounds(3, mu=0.7, rho=0.2)
    >>> round(b.lower.value, 5), round(b.upper.value, 5)
    (0.72016, 0.78736)
    """
    obj = as_objective(objective)
    mom = as_moments(mu, nu, rho, moments)
    solve = _solver(method)
    lower = _bound(obj, mom, "lower", solve, **options)
    upper = _bound(obj, mom, "upper", solve, **options)
    return SharpBounds(objective=obj.name, moments=mom.values, method=method, lower=lower, upper=upper)
