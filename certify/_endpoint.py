"""The infinite-vote endpoint V_inf = P(Q > 1/2) + P(Q = 1/2)/2 (eq. (main-vinf), Theorem 4.3).

V_inf is a discontinuous threshold functional, so its sharp bounds over the
moment class are a supremum and an infimum that need not be attained; the
one-sided sequences that approach them are available through
:meth:`EndpointBounds.sequence`.

One and two moments use the closed forms of Theorem 4.3. Three or more use the
Chebyshev-Markov-Stieltjes bounds at t = 1/2 (:mod:`certify._canonical`): for moments
interior to the moment space, sup E[V_inf] = sigma([1/2, 1]) and inf E[V_inf] =
sigma((1/2, 1]) for the canonical representation sigma through 1/2, since V_inf lies
between 1{q > 1/2} and 1{q >= 1/2} and the canonical representations through
1/2 +- eps, which tend to sigma, put the atom at 1/2 on either side. On the boundary of
the moment space the class is one law, whose V_inf is both bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._canonical import CanonicalLaw, boundary_law, canonical_law, is_interior
from ._errors import InputError
from ._moments import Moments
from ._moments import moments as make_moments
from ._results import Law

__all__ = ["EndpointBounds", "endpoint_bounds", "endpoint_value"]


def endpoint_value(law: Law) -> float:
    """V_inf of a finitely supported law: mass above 1/2 plus half the mass at 1/2."""
    a = np.asarray(law.atoms)
    w = np.asarray(law.weights)
    return float(np.sum(w[a > 0.5]) + 0.5 * np.sum(w[a == 0.5]))


def _upper_two(mu: float, nu: float) -> tuple[float, bool, str]:
    """G(mu, nu) of eq. (endpoint-map-main): (value, attained, branch)."""
    if mu <= 0.0:
        return 0.0, True, "point"
    if mu >= 1.0:
        return 1.0, True, "point"
    if mu == 0.5 and nu == 0.25:
        return 0.5, True, "point"
    if nu == mu * mu:
        return (1.0 if mu > 0.5 else 0.0), True, "point"
    if mu <= 0.5 and nu <= mu / 2:
        return (nu - mu * mu) / (nu + 0.25 - mu), False, "fractional"
    value = 3.0 * mu - 2.0 * nu
    if value > 1.0:
        return 1.0, True, "saturated"
    return value, nu == mu, "linear"


def _upper_two_law(mu: float, nu: float, branch: str, eps: float) -> Law:
    if branch == "point":
        if mu <= 0.0 or mu >= 1.0 or nu == mu * mu:
            return Law((mu,), (1.0,))
    if branch == "fractional":
        t = 0.5 + eps
        x = (mu * t - nu) / (t - mu)
        p = (mu - x) / (t - x)
        return Law((x, t), (1.0 - p, p))
    if branch == "saturated":
        x = (mu - nu) / (1.0 - mu)
        w1 = (mu - x) / (1.0 - x)  # from the mean; (nu - mu^2) / (1 - 2 mu + nu) cancels for mu near 1
        return Law((x, 1.0), (1.0 - w1, w1))
    if nu == mu:  # linear branch on the edge nu = mu: the law on {0, 1} attains 3mu - 2nu = mu
        return Law((0.0, 1.0), (1.0 - mu, mu))
    s = 0.5 + eps
    ws = (mu - nu) / (s * (1.0 - s))
    w1 = (nu - s * mu) / (1.0 - s)
    return Law((0.0, s, 1.0), (1.0 - ws - w1, ws, w1))


def _upper_one(mu: float) -> tuple[float, bool, str]:
    """Mean-only sup of V_inf: min(1, 2 mu) by Markov's inequality at the threshold."""
    if mu <= 0.0 or mu > 0.5:
        return (0.0 if mu <= 0 else 1.0), True, "point"
    return min(1.0, 2.0 * mu), False, "markov"


def _upper_one_law(mu: float, branch: str, eps: float) -> Law:
    if branch == "point":
        return Law((mu,), (1.0,))
    t = 0.5 + eps
    return Law((0.0, t), (1.0 - mu / t, mu / t))


@dataclass(frozen=True)
class EndpointBounds:
    """Sharp bounds [L_inf, U_inf] of the infinite-vote endpoint (Theorem 4.3).

    Attributes
    ----------
    moments : tuple of float
        (m_1, ..., m_m): (mu,) or (mu, nu) for the paper's classes.
    lower, upper : float
        Infimum and supremum of V_inf over the moment class.
    lower_attained, upper_attained : bool
        Whether some law in the class reaches the value; otherwise it is only
        approached by :meth:`sequence` as ``eps`` decreases to 0.
    """

    moments: tuple[float, ...]
    lower: float
    upper: float
    lower_attained: bool
    upper_attained: bool
    exact: tuple[Fraction, ...] = ()

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def sequence(self, side: str, eps: float) -> Law:
        """A law in the class whose V_inf tends to the bound on ``side`` as eps -> 0+.

        The constructions are those of the proof of Theorem 4.3: two atoms at
        x and 1/2 + eps on the fractional branch, atoms {0, 1/2 + eps, 1} on the
        linear branch, mirrored by q -> 1 - q for the lower side.
        """
        if side not in ("lower", "upper"):
            raise InputError(f"side={side!r} must be 'lower' or 'upper'")
        if not (0.0 < eps < 0.5):
            raise InputError(f"eps={eps!r} must lie in (0, 1/2)")
        if len(self.moments) > 2:
            return _sequence_law(self.exact or tuple(map(Fraction, self.moments)), side, eps)
        mu = self.moments[0]
        if side == "upper":
            return _upper_law(self.moments, eps)
        reflected = (1.0 - mu,) if len(self.moments) == 1 else (1.0 - mu, 1.0 - 2.0 * mu + self.moments[1])
        law = _upper_law(reflected, eps)
        return Law(tuple(1.0 - a for a in law.atoms), law.weights)

    def to_dict(self) -> dict:
        return {
            "moments": list(self.moments),
            "lower": self.lower,
            "upper": self.upper,
            "lower_attained": self.lower_attained,
            "upper_attained": self.upper_attained,
        }


def _upper(moments: tuple[float, ...]):
    if len(moments) == 1:
        return _upper_one(moments[0])
    return _upper_two(*moments)


def _upper_law(moments: tuple[float, ...], eps: float) -> Law:
    value, attained, branch = _upper(moments)
    if len(moments) == 1:
        return _upper_one_law(moments[0], branch, eps)
    mu, nu = moments
    law = _upper_two_law(mu, nu, branch, eps)
    # Close to the boundary the admissible eps shrinks (s < nu / mu on the linear branch).
    if min(law.weights) < -1e-15 or max(law.atoms) > 1.0:
        raise InputError(f"eps={eps!r} is too large for moments {moments!r}; use a smaller eps")
    return law


def endpoint_bounds(mu=None, nu=None, rho=None, *, moments: Moments | None = None) -> EndpointBounds:
    """Sharp bounds of the infinite-vote endpoint V_inf (Theorem 4.3, eq. (endpoint-map-main)).

    U_inf(mu, nu) = G(mu, nu) and L_inf(mu, nu) = 1 - G(1 - mu, 1 - 2 mu + nu). With
    ``mu`` alone, the one-call bounds max(0, 2 mu - 1) <= V_inf <= min(1, 2 mu). With
    ``moments`` of order 3 or more, the Chebyshev-Markov-Stieltjes bounds at 1/2 (module
    docstring); their canonical laws are computed in rigorous ball arithmetic.

    Parameters
    ----------
    mu : float
    nu, rho : float, optional

    Returns
    -------
    EndpointBounds
        The values are a supremum and an infimum: see ``upper_attained`` /
        ``lower_attained`` and :meth:`EndpointBounds.sequence`.
    """
    mom = moments if moments is not None else make_moments(mu=mu, nu=nu, rho=rho)
    if mom.order > 2:
        return _bounds_any_order(mom.values, mom.exact)
    vals = mom.values
    if len(vals) == 2 and vals[1] == vals[0]:
        # The edge nu = mu holds one law, on {0, 1}: V_inf = mu at both ends, exactly (the two
        # formulas, 3 mu - 2 nu and its reflection, each round a few ulps away from mu).
        return EndpointBounds(moments=vals, lower=vals[0], upper=vals[0], lower_attained=True, upper_attained=True)
    up, up_att, _ = _upper(vals)
    reflected = (1.0 - vals[0],) if len(vals) == 1 else (1.0 - vals[0], 1.0 - 2.0 * vals[0] + vals[1])
    # Reflection must keep exact boundary cases exact (nu = mu^2 stays a point mass).
    if len(vals) == 2 and vals[1] == vals[0] ** 2:
        reflected = (reflected[0], reflected[0] ** 2)
    lo_ref, lo_att, _ = _upper(reflected)
    return EndpointBounds(moments=vals, lower=1.0 - lo_ref, upper=up, lower_attained=lo_att, upper_attained=up_att)


#: Moments outside the moment space by floating noise (they passed validation within
#: FEASIBILITY_TOL) are moved toward the uniform law's moments by this fraction, doubled
#: until they are interior: the bounds then hold for a class within that distance.
INTERIOR_NUDGE = Fraction(1, 10**12)


def _nudged(exact: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    lam = INTERIOR_NUDGE
    while lam < 1:
        moved = tuple((1 - lam) * c + lam * Fraction(1, j + 2) for j, c in enumerate(exact))
        if is_interior(moved):
            return moved
        lam *= 2
    raise InputError(f"moments={tuple(float(c) for c in exact)!r} are not in the moment space of [0, 1]")


def _bounds_any_order(values: tuple[float, ...], exact: tuple[Fraction, ...]) -> EndpointBounds:
    """Chebyshev-Markov-Stieltjes bounds of V_inf for moments of any order (module docstring)."""
    half = Fraction(1, 2)
    if not is_interior(exact):
        law = boundary_law(exact, half)
        if law is not None:  # one law in the class: V_inf = P(Q > 1/2) + P(Q = 1/2) / 2
            value = 0.5 * (law.mass_at_least_t + law.mass_above_t)
            return EndpointBounds(values, value, value, True, True, exact)
        exact = _nudged(exact)
    sigma = canonical_law(exact, half)
    # The supremum 1 is attained by a law on (1/2, 1] exactly when the moments are interior
    # to the moment space of [1/2, 1] (a principal representation avoids 1/2); mirror below.
    upper_attained = sigma.mass_at_least_t == 1.0 and is_interior(exact, half, Fraction(1))
    lower_attained = sigma.mass_above_t == 0.0 and is_interior(exact, Fraction(0), half)
    return EndpointBounds(values, sigma.mass_above_t, sigma.mass_at_least_t, lower_attained, upper_attained, exact)


def _sequence_law(exact: tuple[Fraction, ...], side: str, eps: float) -> Law:
    """The canonical law through 1/2 + eps (upper) or 1/2 - eps (lower); the one law on the boundary."""
    half = Fraction(1, 2)
    if not is_interior(exact):
        law = boundary_law(exact, half)
        if law is not None:
            return Law(law.atoms, law.weights)
        exact = _nudged(exact)
    sigma: CanonicalLaw = canonical_law(exact, half + Fraction(eps) if side == "upper" else half - Fraction(eps))
    return Law(sigma.atoms, sigma.weights)
