"""Sharp bounds of E[g(Q)] over a moment class (Theorem 4.1), any polynomial g.

This is the public entry point that validates inputs once, dispatches to a
solver (``exact``, ``sos`` or ``grid``), and turns the solver's raw solution into
:class:`~certify._results.Bound` objects for the lower and upper side.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field

import numpy as np

from ._canonical import is_interior
from ._errors import InfeasibleMomentsError, InputError, ObjectiveError, SolverError
from ._moments import FEASIBILITY_TOL, Moments, snap_two_moments
from ._moments import moments as make_moments
from ._objective import Objective, is_vote_limit, parse_objective, vote_accuracy
from ._results import Bound, Law, SharpBounds
from .solvers import max_violation, target

__all__ = ["sharp_bounds", "sharp_bound", "sharp_bound_arrays", "BoundArrays", "METHODS", "as_objective", "as_moments"]

#: method name -> (module, function); imported lazily so that ``exact`` never loads cvxpy.
METHODS = {
    "exact": ("certify.solvers", "solve_exact"),
    "sos": ("certify.solvers", "solve_sos"),
    "grid": ("certify.solvers", "solve_grid"),
}


def as_objective(objective) -> Objective:
    """Objective from an :class:`Objective`, a vote count (int), a string, coefficients or sympy."""
    if is_vote_limit(objective):  # a step, not a polynomial: it has its own solver (Theorem 4.3)
        raise ObjectiveError(
            f"objective {objective!r} is the infinite budget V_inf, not a polynomial; its bounds are "
            "certify.endpoint_bounds(mu, rho=...), its certificates certify_bound(V_INF, ...)"
        )
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


def sharp_bound(
    objective, side: str, *, mu=None, nu=None, rho=None, moments=None, method: str = "exact", faces=None, **options
) -> Bound:
    """One side of the sharp bound; see :func:`sharp_bounds`."""
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    obj = as_objective(objective)
    mom = as_moments(mu, nu, rho, moments)
    return _bound(obj, mom, side, _solver(method), **_faces_option(method, faces), **options)


def _faces_option(method: str, faces) -> dict:
    """``faces`` as a solver option: the ``exact`` method's alone."""
    if faces is None:
        return {}
    if method != "exact":
        raise InputError(f"faces= applies to method='exact' only, not method={method!r}")
    return {"faces": faces}


def _bound(obj: Objective, mom: Moments, side: str, solve, **options) -> Bound:
    sign = 1 if side == "upper" else -1
    theta = mom.theta
    try:
        sol = solve(obj, theta, sign, **options)
    except SolverError as err:
        # a solver calls moments infeasible when it finds no law with them in floating point; at
        # high order (the uniform law's from order 14 on) that is the monomial basis's conditioning
        # (or, for the grid, atoms between its points), not the moments: the claim stands only
        # where the exact Hankel test agrees
        if err.status == "infeasible" and is_interior(mom.exact):
            raise SolverError(
                err.solver,
                "failed in double precision",
                f"the {len(mom.exact)} moments are inside the moment space of [0, 1] (checked exactly), but "
                f"the solver found no law with them in floating point: the monomial moments are too "
                f"ill-conditioned at this order; use fewer moments",
            ) from None
        raise
    # plain floats from here on: a law has a handful of atoms
    pairs = sorted(zip(np.asarray(sol.atoms, dtype=float).tolist(), np.asarray(sol.weights, dtype=float).tolist()))
    law = Law(atoms=tuple(a for a, _ in pairs), weights=tuple(w for _, w in pairs))
    violation = float(sol.violation)
    if not math.isfinite(violation):
        violation = max_violation(target(obj, sign), np.asarray(sol.dual))[0]
    dual = tuple(sign * c for c in np.asarray(sol.dual, dtype=float).tolist())
    return Bound(
        side=side,
        value=law.expect(obj),
        law=law,
        dual=dual,
        dual_value=math.fsum(c * t for c, t in zip(dual, theta.tolist())),
        violation=max(float(violation), 0.0),
    )


def sharp_bounds(
    objective, *, mu=None, nu=None, rho=None, moments=None, method: str = "exact", faces=None, **options
) -> SharpBounds:
    """Sharp lower and upper bounds of E[g(Q)] over all laws with the given moments.

    Implements Theorem 4.1 (eqs. (dual-L-main)-(dual-U-main)) for any polynomial objective and any
    moment order: the extrema are attained by laws with at most m+1 atoms and
    certified by a polynomial minorant / majorant of degree m on [0, 1].

    Parameters
    ----------
    objective : Objective, int, str, sequence or sympy expression
        An int is a vote budget (``3`` means V_1 = E P_1(Q)); a string follows
        the objective syntax (``"P3 - P1"``, ``"V7 - V3"``, ``"3*q**2 - 2*q**3"``).
    mu, nu, rho : float or str, optional
        The paper's two-moment class: mu with nu or rho (eq. (rho-main)). Strings such
        as ``"4517/8192"`` are exact rationals.
    moments : sequence or Moments, optional
        Raw moments (m_1, ..., m_m) instead of mu / nu: order 1 is one call,
        order m >= 3 is what m labeled calls identify.
    method : {"exact", "sos", "grid"}
        ``exact`` (default): contact-point exchange with Newton polishing;
        ``sos``: the dual as a sum-of-squares program (cvxpy + Clarabel);
        ``grid``: the primal LP on a grid of atoms (cvxpy).
    faces : certify.solvers.Faces, optional
        ``exact`` only: faces of the moment problem shared with the other solves given
        the same object (one computation over many nearby moments solves faster; its last
        bits then depend on the order of its solves). Without it the result depends on
        the arguments alone, whatever was solved before.
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
    options.update(_faces_option(method, faces))
    lower = _bound(obj, mom, "lower", solve, **options)
    upper = _bound(obj, mom, "upper", solve, **options)
    return SharpBounds(objective=obj.name, moments=mom.values, method=method, lower=lower, upper=upper)


@dataclass(frozen=True)
class BoundArrays:
    """Sharp lower and upper values on an array of two-moment points.

    Attributes
    ----------
    objective : str
    mu, nu : ndarray
        The points after validation (broadcast to a common shape).
    lower, upper : ndarray
        L(mu, nu) and U(mu, nu), same shape.
    paths : dict
        How many values each vectorized step certified (diagnostics).
    """

    objective: str
    mu: np.ndarray
    nu: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    paths: dict = field(default_factory=dict)

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


def _first(mask: np.ndarray):
    """Index of the first True entry, as an int for 1-d arrays and a tuple otherwise."""
    i = tuple(int(k) for k in np.argwhere(mask)[0])
    return i[0] if len(i) == 1 else i


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker's splitting, no FMA needed)."""
    p = a * b
    split = 134217729.0  # 2^27 + 1 splits a double into two 26-bit halves
    ah = a * split - (a * split - a)
    bh = b * split - (b * split - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _nu_from_rho(m: np.ndarray, r: np.ndarray) -> np.ndarray:
    """nu = mu^2 + rho mu (1 - mu), correctly rounded, as the per-point path computes it.

    :func:`certify.moments` evaluates this in exact rationals and rounds once; rounding
    each product in floats instead can land one ulp away, and then the array and the
    per-point bounds differ at the same (mu, rho). Written as m^2 + r m - r m^2, every
    product splits into two floats exactly, and ``math.fsum`` rounds their sum once
    (exact for |mu|, |rho| <= 1 + tol, far above underflow; tinier mu snap to 0 anyway).
    """
    p, e = _two_product(m, m)
    q = _two_product(r, m)
    s = _two_product(r, p)
    t = _two_product(r, e)
    terms = np.stack([p, e, q[0], q[1], -s[0], -s[1], -t[0], -t[1]], axis=-1).reshape(-1, 8)
    return np.array([math.fsum(row) for row in terms.tolist()]).reshape(m.shape)


def _validate_arrays(mu, nu, rho) -> tuple[np.ndarray, np.ndarray]:
    if (nu is None) == (rho is None):
        raise InputError("give exactly one of nu or rho")
    try:
        m = np.asarray(mu, dtype=float)
        second = np.asarray(nu if nu is not None else rho, dtype=float)
        m, second = np.broadcast_arrays(m, second)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"mu and {'nu' if nu is not None else 'rho'} must be numeric arrays of one shape ({exc})"
        ) from None
    bad = ~np.isfinite(m) | ~np.isfinite(second)
    if np.any(bad):
        i = _first(bad)
        raise InputError(f"mu[{i}]={float(m[i])!r}, second moment {float(second[i])!r}: values must be finite numbers")
    tol = FEASIBILITY_TOL
    out = (m < -tol) | (m > 1 + tol)
    if np.any(out):
        i = _first(out)
        raise InfeasibleMomentsError(f"mu[{i}]={float(m[i])!r} is infeasible: 0 <= mu <= 1 must hold")
    if rho is not None:
        out = (second < -tol) | (second > 1 + tol)
        if np.any(out):
            i = _first(out)
            raise InfeasibleMomentsError(f"rho[{i}]={float(second[i])!r} is infeasible: 0 <= rho <= 1 must hold")
        second = _nu_from_rho(m, second)
    for rule, viol in (("mu^2 <= nu", second < m * m - tol), ("nu <= mu", second > m + tol)):
        if np.any(viol):
            i = _first(viol)
            raise InfeasibleMomentsError(
                f"(mu, nu)[{i}]=({float(m[i])!r}, {float(second[i])!r}) is infeasible: {rule} must hold"
            )
    mu_s, nu_s = snap_two_moments(m, second)
    return np.asarray(mu_s, dtype=float), np.asarray(nu_s, dtype=float)  # 0-d arrays for scalars


#: Sides :func:`sharp_bound_arrays` computes.
SIDES = ("both", "lower", "upper")


def sharp_bound_arrays(objective, *, mu, nu=None, rho=None, side: str = "both", faces=None) -> BoundArrays:
    """Sharp bounds of E[g(Q)] on many two-moment points at once (Theorem 4.1).

    Same values as :func:`sharp_bounds` with ``method="exact"`` -- every value is
    certified by a valid dual quadratic -- but vectorized over the points: faces
    found at one point serve the others, closed-form contact patterns and two-contact
    Newton steps run on whole arrays, and only the remaining points are solved one by
    one. Use it for maps over (mu, rho) and for projections over regions.

    Parameters
    ----------
    objective : Objective, int, str, sequence or sympy expression
        As for :func:`sharp_bounds`.
    mu : array_like
    nu, rho : array_like
        Give one; broadcast against ``mu``.
    side : {"both", "lower", "upper"}
        Compute both sides (default) or one only, at half the cost (e.g. to maximize
        U or minimize L over a region); the side not computed is NaN.
    faces : certify.solvers.Faces, optional
        Faces shared with other calls of one computation (as for :func:`sharp_bounds`);
        without it the call keeps its own, and its values depend on its arguments alone.

    Returns
    -------
    BoundArrays
        ``lower`` and ``upper`` arrays of the broadcast shape (values only; use
        :func:`sharp_bounds` for the laws and duals of a single point).
    """
    from .solvers import batch_upper

    if side not in SIDES:
        raise InputError(f"side={side!r} must be one of {', '.join(map(repr, SIDES))}")
    obj = as_objective(objective)
    m, second = _validate_arrays(mu, nu, rho)
    shape = m.shape
    flat_mu, flat_nu = m.ravel(), second.ravel()
    skipped: tuple[np.ndarray, dict[str, int]] = (np.full(flat_mu.shape, np.nan), {})
    up, c_up = batch_upper(obj, flat_mu, flat_nu, 1, faces) if side != "lower" else skipped
    lo, c_lo = batch_upper(obj, flat_mu, flat_nu, -1, faces) if side != "upper" else skipped
    paths = {k: c_up.get(k, 0) + c_lo.get(k, 0) for k in set(c_up) | set(c_lo)}
    return BoundArrays(obj.name, m, second, (-lo).reshape(shape), up.reshape(shape), paths)
