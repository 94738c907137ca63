"""The families by name: which exist, and one object of each on request."""

from __future__ import annotations

from .._errors import InputError
from ._families import BetaFamily, BetaMixture, BetaWithEnds, Family
from ._quadrature import Ldgp, MaxEnt
from ._tolerances import MAXENT_MAX_DEGREE

__all__ = ["FAMILIES", "make_family"]

#: The families, in the order they are listed (the criterion ranks them).
FAMILIES = ("beta", "beta01", "beta2", "maxent", "ldgp")


def make_family(name: str, degree: int | None = None) -> Family:
    """The family object of ``name`` (MaxEnt of ``degree``)."""
    if name == "beta":
        return BetaFamily()
    if name == "beta01":
        return BetaWithEnds()
    if name == "beta2":
        return BetaMixture()
    if name == "ldgp":
        return Ldgp()
    if name == "maxent":
        if isinstance(degree, bool) or not isinstance(degree, int) or not 1 <= degree <= MAXENT_MAX_DEGREE:
            raise InputError(f"maxent degree={degree!r} must be an integer in 1..{MAXENT_MAX_DEGREE}")
        return MaxEnt(degree)
    raise InputError(f"family={name!r} is unknown; the families are {', '.join(FAMILIES)}")
