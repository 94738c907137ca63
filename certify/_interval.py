"""The one interval type of every result: its ends, its level, how it was made and what it is.

Every row an analysis, an aggregate, the answer model, a paired comparison or a forecast
reports carries an :class:`Interval`, written and read by one derived serialization
(:mod:`certify._records`), so that a row of plurality and a row of the majority are read by the
same code.

What an interval is, in three fields a reader checks before trusting it:

``route``
    ``"identified"``: the recorded calls identify the target (its degree is at most the calls
    used), and the interval's width is sampling uncertainty only; ``"beyond the calls"``: the
    calls do not identify it, and the interval holds every latent law the calls allow at its
    level (certain, and wide); ``"model-based"``: a forecast under a model of the latent law or
    of the answers, valid only if that model holds.
``calibration``
    How the level is reached, and whether exactly or asymptotically (e.g. ``"asymptotic,
    profile chi2(1)"``); the coverage is measured by simulation in ``benchmarks/``.
``certified``
    True only when the interval's ends were proven by exact certificates that
    ``certify verify`` re-checks (``certify analyze --certificates``); a confidence interval
    is otherwise computed in floating point, and a model-based one is never certified. The
    ``note`` says why not, or anything else a reader should know about this interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from ._errors import InputError
from ._records import Record

__all__ = ["Interval", "ROUTES"]

#: What an interval is (module docstring).
ROUTES = ("identified", "beyond the calls", "model-based")


@dataclass(frozen=True)
class Interval(Record):
    """A 1 - alpha interval of one target, with how it was made (module docstring).

    Attributes
    ----------
    lower, upper : float or None
        The ends; None where no interval could be made (``note`` says why).
    alpha : float
        1 - the level (:attr:`level`).
    method : str
        What produced it: ``"likelihood"`` (every call, likelihood ratio), ``"two-call"``
        (the paper's projected Wald region), a U-statistic, a parametric bootstrap, ...
    calibration : str
        How the level is reached, and whether exactly or asymptotically.
    calls : int or None
        Calls per example the interval uses (the most of an example; 2 for the two-call method).
    estimate : float or None
        The point estimate it surrounds, where there is one (an identified target's estimate from
        the recorded calls; a forecast's point); None beyond the calls, where the interval is a range.
    route : str
        ``"identified"``, ``"beyond the calls"`` or ``"model-based"`` (:data:`ROUTES`).
    certified : bool
        Whether the ends are proven by exact certificates (module docstring).
    note : str
        Why it is missing, not certified, or anything else to know; empty when nothing.
    """

    lower: float | None
    upper: float | None
    alpha: float
    method: str
    calibration: str
    calls: int | None
    estimate: float | None = None
    route: str = "identified"
    certified: bool = False
    note: str = ""

    def __post_init__(self):
        if self.route not in ROUTES:
            raise InputError(f"route={self.route!r} must be one of {', '.join(ROUTES)}")
        if self.certified and self.route == "model-based":
            raise InputError("a model-based interval is never certified")

    @property
    def level(self) -> float:
        """The confidence level 1 - alpha."""
        return 1.0 - self.alpha

    @property
    def ends(self) -> tuple[float, float]:
        """(lower, upper) of an interval that has both (an error where one is missing)."""
        if self.lower is None or self.upper is None:
            raise InputError(f"the interval of {self.method} has no ends: {self.note or 'not computed'}")
        return self.lower, self.upper

    @property
    def width(self) -> float:
        """upper - lower, NaN where an end is missing."""
        if self.lower is None or self.upper is None:
            return math.nan
        return self.upper - self.lower

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in [lower, upper] (False where an end is missing)."""
        return self.lower is not None and self.upper is not None and self.lower <= value <= self.upper

    def proven(self, lower: Fraction, upper: Fraction, note: str) -> Interval:
        """This interval with its ends proven by exact certificates of the rational bounds ``lower`` and
        ``upper``: those bounds rounded outward to floats (so the float interval holds the proven one),
        ``certified`` and ``note`` saying where the proofs are."""
        if self.route == "model-based":
            raise InputError("a model-based interval is never certified")
        return replace(self, lower=_down(lower), upper=_up(upper), certified=True, note=note)


def _down(bound: Fraction) -> float:
    """The largest float at most ``bound``."""
    value = float(bound)
    return math.nextafter(value, -math.inf) if Fraction(value) > bound else value


def _up(bound: Fraction) -> float:
    """The smallest float at least ``bound``."""
    value = float(bound)
    return math.nextafter(value, math.inf) if Fraction(value) < bound else value
