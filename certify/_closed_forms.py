"""Closed forms: the three-vote interval (Theorem 4.2) and the one-call envelope (A.3).

These are independent of the numerical engine, which must agree with them; the
tests compare both on dense grids.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._moments import Moments
from ._moments import moments as make_moments

__all__ = ["ThreeVoteBounds", "three_vote_bounds", "one_call_three_vote_envelope", "improvement_threshold"]


@dataclass(frozen=True)
class ThreeVoteBounds:
    """Sharp three-vote interval [L_1, U_1] of Theorem 4.2.

    Attributes
    ----------
    mu, nu, rho : float
    lower, upper : float
        L_1 = nu + 2 (mu - nu)^2 / (1 - mu) and U_1 = 3 nu - 2 nu^2 / mu.
    """

    mu: float
    nu: float
    rho: float
    lower: float
    upper: float

    @property
    def width(self) -> float:
        """U_1 - L_1 = 2 mu (1 - mu) rho (1 - rho) <= 1/8."""
        return self.upper - self.lower

    @property
    def certified_gain(self) -> float:
        """L_1 - mu: the gain of three votes over one call guaranteed for every law."""
        return self.lower - self.mu

    @property
    def certifies_improvement(self) -> bool:
        """True when V_1 > mu for every law with these moments (rho < 1 - 1/(2 mu), mu > 1/2)."""
        return self.certified_gain > 0

    def to_dict(self) -> dict:
        return {
            "mu": self.mu,
            "nu": self.nu,
            "rho": self.rho,
            "lower": self.lower,
            "upper": self.upper,
            "width": self.width,
            "certified_gain": self.certified_gain,
            "certifies_improvement": self.certifies_improvement,
        }


def three_vote_bounds(mu=None, nu=None, rho=None, *, moments: Moments | None = None) -> ThreeVoteBounds:
    """Closed-form sharp bounds of V_1 = E[3Q^2 - 2Q^3] (Theorem 4.2, eqs. (L1-three-main)-(U1-three-main)).

    Parameters
    ----------
    mu : float
        One-call accuracy E[Q].
    nu, rho : float
        Second moment E[Q^2] or same-example correlation (give one).

    Returns
    -------
    ThreeVoteBounds

    Notes
    -----
    At mu = 0 and mu = 1 the class holds one law and L_1 = U_1 = mu.
    """
    mom = moments if moments is not None else make_moments(mu=mu, nu=nu, rho=rho)
    m, v = mom.mu, mom.nu
    if m <= 0.0 or m >= 1.0:
        return ThreeVoteBounds(m, v, float("nan"), m, m)
    lower = v + 2.0 * (m - v) ** 2 / (1.0 - m)
    upper = 3.0 * v - 2.0 * v * v / m
    return ThreeVoteBounds(m, v, mom.rho, lower, upper)


def improvement_threshold(mu: float) -> float:
    """The correlation below which three votes certifiably beat one call: 1 - 1/(2 mu).

    Meaningful for mu > 1/2 (Theorem 4.2); negative, hence never met, otherwise.
    """
    return 1.0 - 1.0 / (2.0 * mu) if mu > 0 else float("-inf")


def one_call_three_vote_envelope(mu) -> tuple[float, float]:
    """Mean-only sharp bounds of V_1 (eq. (onecall-envelope-main), Appendix A.3): what one labeled call certifies.

    L_1^one = P_1(mu) for mu <= 1/4 and (9 mu - 1)/8 above; U_1^one = 9 mu / 8 for
    mu <= 3/4 and P_1(mu) above.
    """
    m = make_moments(mu=mu).mu
    p1 = 3 * m * m - 2 * m**3
    lower = p1 if m <= 0.25 else (9 * m - 1) / 8
    upper = 9 * m / 8 if m <= 0.75 else p1
    return lower, upper
