"""The verdict on the gain of k calls over one call: its status, its reason in plain words.

A gain interval [lower, upper] of V_k - V_1 (or of an aggregate's gain) at level 1 - alpha is
``better`` when it lies above 0, ``worse`` below, ``negligible`` when it holds 0 within
+-:data:`NEGLIGIBLE_GAIN`, else ``undetermined``; :func:`verdict_reason` says why in words a user
reads (every latent law the calls allow gains at least ..., uninformative, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._bounds import sharp_bounds
from .._calls import CallBits
from .._interval import Interval
from .._numbers import percentage_points, pp_interval
from .._objective import V_INF, vote_gain
from .._records import Record
from ._tolerances import RANGE_TOL

__all__ = ["NEGLIGIBLE_GAIN", "Verdict", "gain_verdict", "verdict_budgets", "verdict_reason", "verdict_status"]


#: A gain interval inside +-NEGLIGIBLE_GAIN (1 percentage point) that holds 0 certifies that
#: voting changes the accuracy by less than that: the verdict "negligible". One point is
#: below what an evaluation of a few hundred examples can distinguish anyway (its
#: standard error at 75 % accuracy and N = 400 is 2.2 points).
NEGLIGIBLE_GAIN = 0.01


def verdict_status(lower: float, upper: float) -> str:
    """``"better"``, ``"worse"``, ``"negligible"`` or ``"undetermined"`` for a gain interval (module docstring)."""
    if lower > 0:
        return "better"
    if upper < 0:
        return "worse"
    return "negligible" if -NEGLIGIBLE_GAIN <= lower and upper <= NEGLIGIBLE_GAIN else "undetermined"


def verdict_reason(votes: int, lower: float, upper: float, mean: float, calls_agree: bool = False) -> str:
    """Why a gain interval [lower, upper] of V_votes - V_1 gives its verdict, in plain words.

    ``calls_agree``: every example's recorded calls agree (rho-hat = 1): a vote returns what one
    call returns, so the gain is near 0 whatever the interval's sampling margin. An interval that
    is no narrower than the sharp range of the gain over every law with the observed one-call
    accuracy ``mean`` (the one-moment class, paper Section 4) carries no information from the
    repeated calls, and says so.
    """
    if calls_agree and lower <= 0 <= upper:
        return "the calls of every example agree, so a vote returns what one call returns: voting changes nothing"
    if lower > 0:
        return f"every latent law the calls allow gains at least {percentage_points(lower, 'down')[1:]} pp"
    if verdict_status(lower, upper) == "negligible":
        return (
            f"every latent law the calls allow changes the accuracy by {percentage_points(lower, 'down')} to "
            f"{percentage_points(upper, 'up')} pp: "
            f"less than {100 * NEGLIGIBLE_GAIN:g} pp either way"
        )
    if upper < 0:
        return (
            f"every latent law the calls allow loses at least {percentage_points(-upper, 'down')[1:]} pp: "
            f"too many examples are answered correctly less than half the time, and a vote amplifies their errors"
        )
    mu = min(max(float(mean), 0.0), 1.0)
    span = sharp_bounds(vote_gain(votes), mu=mu)
    if lower <= span.lower.value + RANGE_TOL and upper >= span.upper.value - RANGE_TOL:
        return (
            f"uninformative: as wide as for every law with one-call accuracy {100 * mu:.1f} %, so the repeated "
            f"calls add nothing here"
        )
    return "the interval holds both gains and losses: the calls do not decide"


def verdict_budgets(votes) -> list[int]:
    """Budgets whose gain V_k - V_1 gets a verdict: every finite budget above 2 asked for (3 if none)."""
    return sorted({v for v in votes if v is not V_INF and v > 2}) or [3]


@dataclass(frozen=True)
class Verdict(Record):
    """Certified improvement of ``votes`` calls over one call at level 1 - alpha.

    Attributes
    ----------
    votes : int
    gain : Interval
        The 1 - alpha interval of V_votes - V_1 (or of the aggregate's gain) by the analysis' method.
    status : str
        ``"better"`` (its lower end > 0), ``"worse"`` (its upper end < 0), ``"negligible"`` (the
        interval holds 0 within +-:data:`NEGLIGIBLE_GAIN`) or ``"undetermined"`` (:func:`verdict_status`).
    reason : str
        Why, in plain words (:func:`verdict_reason`); empty when not computed.
    aggregate : str
        ``"majority"`` (the paper's bit majority), ``"plurality"`` or ``"pass@k"``
        (:mod:`certify.analysis._aggregates`).
    """

    #: Each status in the short words of the tables (the report's verdict table, the demo's
    #: summary): certified either way, certified to change little, or not decided.
    WORDS: ClassVar[dict[str, str]] = {
        "better": "better",
        "worse": "worse",
        "negligible": "changes little",
        "undetermined": "undecided",
    }

    votes: int
    gain: Interval
    status: str
    reason: str = ""
    aggregate: str = "majority"

    @property
    def text(self) -> str:
        assert self.gain.lower is not None and self.gain.upper is not None  # a verdict's gain is solved
        pp = f"gain in {pp_interval(self.gain.lower, self.gain.upper)} pp"
        why = f"; {self.reason}" if self.reason else ""
        what = {
            "majority": f"{self.votes} votes",
            "plurality": f"plurality of {self.votes} answers",
            "pass@k": f"pass@{self.votes}",
        }.get(self.aggregate, f"{self.aggregate} of {self.votes}")
        if self.status == "better":
            return f"{what}: CERTIFIED better than one call ({pp}){why}"
        if self.status == "worse":
            return f"{what}: CERTIFIED worse than one call ({pp}){why}"
        if self.status == "negligible":
            return f"{what}: CERTIFIED to change little ({pp}){why}"
        return f"{what}: improvement NOT certified ({pp}){why}"


def gain_verdict(votes: int, gain: Interval, reason: str = "", aggregate: str = "majority") -> Verdict:
    """The verdict of a gain interval (its status by :func:`verdict_status`)."""
    assert gain.lower is not None and gain.upper is not None  # a gain interval that was solved
    return Verdict(votes, gain, verdict_status(gain.lower, gain.upper), reason, aggregate)


def _verdicts(data: CallBits, gain_budgets: list[int], intervals) -> tuple[Verdict, ...]:
    """The verdict on each gain V_k - V_1 from its interval (module docstring)."""
    one_call = float(data.successes.sum() / data.counts.sum())  # accuracy of one call, from every call
    calls_agree = bool(np.all((data.successes == 0) | (data.successes == data.counts)))
    return tuple(
        gain_verdict(v, iv, verdict_reason(v, iv.lower, iv.upper, one_call, calls_agree))
        for v, iv in zip(gain_budgets, intervals)
    )
