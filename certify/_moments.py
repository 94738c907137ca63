"""Moment classes M(m_1, ..., m_m) on [0, 1] (paper eq. (momentclass-main) and Proposition 3.1).

Two moments (mu, nu) are what two labeled calls identify; order m = 1 is the
one-call case and m >= 3 is what K >= m labeled calls identify. Inputs are
validated once here; values within :data:`FEASIBILITY_TOL` of the boundary are
snapped onto it so that floating noise never turns a boundary point infeasible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._errors import InfeasibleMomentsError, InputError
from ._numbers import exact_number
from ._tolerances import HANKEL_FIRST_ORDER

__all__ = [
    "Moments",
    "moments",
    "snap_two_moments",
    "nu_from_rho",
    "rho_from_nu",
    "pair_table",
    "PairTable",
    "FEASIBILITY_TOL",
]

#: A float or an array of them: the elementwise moment relations take either.
_Real = TypeVar("_Real", float, np.ndarray)

#: Absolute slack for feasibility checks; values this close to the boundary are snapped onto it.
FEASIBILITY_TOL = 1e-12


def _number(value, what: str) -> tuple[float, Fraction]:
    """A moment as (float, exact rational); see :func:`certify._numbers.exact_number`."""
    frac = exact_number(value, what)
    return float(frac), frac


@dataclass(frozen=True)
class PairTable:
    """Two-call pair probabilities (paper eq. (pair-probs-main))."""

    both_correct: float  #: p11 = nu
    disagree: float  #: p10 + p01 = 2 (mu - nu)
    both_wrong: float  #: p00 = 1 - 2 mu + nu

    def to_dict(self) -> dict:
        return {"p11": self.both_correct, "p10_plus_p01": self.disagree, "p00": self.both_wrong}


def nu_from_rho(mu: _Real, rho: _Real) -> _Real:
    """Second moment from the same-example correlation: nu = mu^2 + rho mu (1 - mu) (eq. (rho-main)).

    Elementwise: ``mu`` and ``rho`` may be floats or arrays (the report's grids).
    """
    return mu * mu + rho * mu * (1.0 - mu)


def rho_from_nu(mu: float, nu: float) -> float:
    """Same-example correlation rho = (nu - mu^2) / (mu (1 - mu)) (eq. (rho-main)); NaN when mu is 0 or 1."""
    denom = mu * (1.0 - mu)
    return (nu - mu * mu) / denom if denom > 0 else float("nan")


def pair_table(mu: float, nu: float) -> PairTable:
    """Pair probabilities p11, p10 + p01, p00 of two calls (paper eq. (pair-probs-main))."""
    return PairTable(both_correct=nu, disagree=2.0 * (mu - nu), both_wrong=1.0 - 2.0 * mu + nu)


@dataclass(frozen=True)
class Moments:
    """Validated raw moments (m_1, ..., m_m) of a law on [0, 1].

    Attributes
    ----------
    values : tuple of float
        The moments after snapping to the feasible set.
    exact : tuple of Fraction
        The moments as exact rationals: the rational given (``"4517/8192"``) or
        the exact binary value of a float input.
    """

    values: tuple[float, ...]
    exact: tuple[Fraction, ...]

    @property
    def order(self) -> int:
        return len(self.values)

    @property
    def mu(self) -> float:
        return self.values[0]

    @property
    def nu(self) -> float:
        if self.order < 2:
            raise InputError("nu is not defined for a one-moment class")
        return self.values[1]

    @property
    def rho(self) -> float:
        """rho = (nu - mu^2) / (mu (1 - mu)) (eq. (rho-main)), from the exact moments when they were not snapped.

        Given ``rho = 0.2``, nu = mu^2 + 0.2 mu (1 - mu) is exact, and rho computed back from
        it in floating point reads 0.20000000000000043; the exact ratio gives back 0.2.
        """
        m, n = self.exact[0], self.exact[1] if self.order >= 2 else None
        if n is None or not 0 < m < 1 or (float(m), float(n)) != self.values[:2]:
            return rho_from_nu(self.mu, self.nu)
        return float((n - m * m) / (m * (1 - m)))

    @property
    def theta(self) -> np.ndarray:
        """The vector (1, m_1, ..., m_m)."""
        return np.array((1.0,) + self.values)

    def to_dict(self) -> dict:
        return {
            "values": [repr(v) for v in self.values],
            "exact": [f"{f.numerator}/{f.denominator}" for f in self.exact],
        }


def _hankel_min_eig(seq: np.ndarray, size: int) -> float:
    """Smallest eigenvalue of the Hankel matrix [seq_(i+j)], i, j < size (0 for size 0)."""
    if size == 0:
        return 0.0
    # a read-only view of seq: the matrix is never built element by element (at order 2000,
    # a 1001 x 1001 matrix of Python floats cost 0.2 s, five times its eigenvalues)
    return float(np.linalg.eigvalsh(sliding_window_view(seq[: 2 * size - 1], size))[0])


def _check_general(vals: Sequence[float]) -> None:
    """Hausdorff moment-space conditions on [0, 1] for any order (Karlin-Studden).

    With s = (1, m_1, ..., m_m): for m = 2k the Hankel matrices of s_{i+j} and of
    s_{i+j+1} - s_{i+j+2} must be PSD; for m = 2k+1 those of s_{i+j+1} and of
    s_{i+j} - s_{i+j+1}. A matrix fails when its smallest eigenvalue, computed in doubles, is
    below -10 FEASIBILITY_TOL.

    **What doubles decide.** The eigenvalue's error is absolute, about eps times the matrix's
    norm (at most its size), whatever its conditioning: below 1e-12 up to a few thousand moments,
    so a failure is a decided infeasibility (sampled moments fail by far more: U-statistics of
    4 examples x 2000 calls by 8e-8 at order 8 and 5e-3 at order 2000). A pass is weaker as the
    order grows: the smallest eigenvalue of an interior law's Hankel matrix falls below the
    tolerance from about order 16 on (the uniform law's: 3.5e-12 at order 16, 3e-15 at 20), so
    beyond it a pass says that the moments are within the tolerance of the moment space, not
    that a law has them; the solvers decide that exactly (:func:`certify._canonical.is_interior`)
    when they find no law.

    **Prefixes first.** The conditions of the first o moments are necessary for all m, so they
    are checked at o = HANKEL_FIRST_ORDER, doubling up to m, and the first failure is reported:
    sampled moments usually fail early, where the matrices are small, and a vector that passes
    costs at most 8/7 of the check at m alone.
    """
    order = min(len(vals), HANKEL_FIRST_ORDER)
    while True:
        _check_order(vals, order)
        if order == len(vals):
            return
        order = min(2 * order, len(vals))


def _check_order(vals: Sequence[float], m: int) -> None:
    """The conditions of :func:`_check_general` on the first ``m`` of ``vals``."""
    s = np.concatenate(([1.0], np.asarray(vals[:m], dtype=float)))
    if m % 2 == 0:
        k = m // 2
        checks = [
            (f"Hankel matrix [m_(i+j)] (i, j <= {k}) must be positive semidefinite", s, k + 1),
            (
                f"localizing matrix [m_(i+j+1) - m_(i+j+2)] (i, j < {k}) must be positive semidefinite",
                s[1:-1] - s[2:],
                k,
            ),
        ]
    else:
        k = (m - 1) // 2
        checks = [
            (f"localizing matrix [m_(i+j+1)] (i, j <= {k}) must be positive semidefinite", s[1:], k + 1),
            (
                f"localizing matrix [m_(i+j) - m_(i+j+1)] (i, j <= {k}) must be positive semidefinite",
                s[:-1] - s[1:],
                k + 1,
            ),
        ]
    for rule, seq, size in checks:
        lam = _hankel_min_eig(seq, size)
        if lam < -FEASIBILITY_TOL * 10:
            raise InfeasibleMomentsError(
                f"moments={tuple(vals)!r} are infeasible: {rule} (smallest eigenvalue {lam:.3g})"
            )


def moments(mu=None, nu=None, rho=None, values=None) -> Moments:
    """Validate and build a moment class.

    Give either ``mu`` with one of ``nu`` / ``rho`` (the paper's two-call class),
    ``mu`` alone (the one-call class, order 1), or ``values = (m_1, ..., m_m)``.

    Raises
    ------
    InfeasibleMomentsError
        Naming the violated inequality (e.g. ``mu^2 <= nu``) and the values.
    InputError
        For NaN, non-numbers, or conflicting arguments.
    """
    if values is not None:
        if mu is not None or nu is not None or rho is not None:
            raise InputError("give the moments either as values=(m1, ..., mm) or as mu with nu or rho, not both")
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
            raise InputError(f"values={values!r} must be a nonempty sequence of moments m1, ..., mm")
        parsed = [_number(v, f"m{i + 1}") for i, v in enumerate(values)]
    else:
        if mu is None:
            raise InputError("mu is required (or give values=(m1, ..., mm))")
        if nu is not None and rho is not None:
            raise InputError(f"give nu or rho, not both (nu={nu!r}, rho={rho!r})")
        m1 = _number(mu, "mu")
        parsed = [m1]
        if rho is not None:
            r, r_exact = _number(rho, "rho")
            if not (-FEASIBILITY_TOL <= r <= 1 + FEASIBILITY_TOL):
                raise InfeasibleMomentsError(f"rho={rho!r} is infeasible: 0 <= rho <= 1 must hold")
            m, m_exact = m1
            if not (-FEASIBILITY_TOL <= m <= 1 + FEASIBILITY_TOL):
                raise InfeasibleMomentsError(f"mu={mu!r} is infeasible: 0 <= mu <= 1 must hold")
            nu_exact = m_exact * m_exact + r_exact * m_exact * (1 - m_exact)
            parsed.append((float(nu_exact), nu_exact))
        elif nu is not None:
            parsed.append(_number(nu, "nu"))
    vals = [p[0] for p in parsed]
    exact = [p[1] for p in parsed]
    vals = _validate_and_snap(vals, exact)
    return Moments(values=tuple(vals), exact=tuple(exact))


def snap_two_moments(mu, nu):
    """Snap feasible (mu, nu) within :data:`FEASIBILITY_TOL` of the boundary onto it.

    Works on floats and arrays alike. Within the tolerance the unique boundary
    law is meant (a point mass when nu = mu^2, atoms at 0 and 1 when nu = mu), so
    floating noise never leaves a point a hair inside the boundary, where the
    moment problem is needlessly ill-conditioned. Feasibility is checked first,
    on the values as given.
    """
    tol = FEASIBILITY_TOL
    if isinstance(mu, float) and isinstance(nu, float):
        mu = 0.0 if mu <= tol else (1.0 if mu >= 1 - tol else mu)
        nu = mu * mu if nu <= mu * mu + tol else (mu if nu >= mu - tol else nu)
        return mu, nu
    mu = np.where(mu <= tol, 0.0, np.where(mu >= 1 - tol, 1.0, mu))
    nu = np.where(nu <= mu * mu + tol, mu * mu, np.where(nu >= mu - tol, mu, nu))
    return (float(mu), float(nu)) if np.ndim(mu) == 0 else (mu, nu)


def _validate_and_snap(vals: list[float], exact: list[Fraction]) -> list[float]:
    tol = FEASIBILITY_TOL
    mu = vals[0]
    if not (-tol <= mu <= 1 + tol):
        raise InfeasibleMomentsError(f"mu={mu!r} is infeasible: 0 <= mu <= 1 must hold")
    if len(vals) == 1:
        vals[0] = 0.0 if mu <= tol else (1.0 if mu >= 1 - tol else mu)
        return vals
    if len(vals) == 2:
        nu = vals[1]
        if nu < mu * mu - tol:
            raise InfeasibleMomentsError(
                f"(mu, nu)=({mu!r}, {nu!r}) is infeasible: mu^2 <= nu must hold (mu^2 = {mu * mu!r})"
            )
        if nu > mu + tol:
            raise InfeasibleMomentsError(f"(mu, nu)=({mu!r}, {nu!r}) is infeasible: nu <= mu must hold")
        vals[0], vals[1] = snap_two_moments(mu, nu)
        return vals
    vals[0] = 0.0 if mu <= tol else (1.0 if mu >= 1 - tol else mu)
    for i in range(1, len(vals)):
        if not (-tol <= vals[i] <= vals[i - 1] + tol):
            raise InfeasibleMomentsError(
                f"moments={tuple(vals)!r} are infeasible: 0 <= m{i + 1} <= m{i} must hold on [0, 1] "
                f"(m{i + 1} = {vals[i]!r})"
            )
    _check_general(vals)
    return vals
