"""The interval every analysis row carries: its ends, how it was made and from how many calls.

One type for the bit majority's budgets and verdicts and for the other aggregates (plurality,
pass@k), so that their JSON ``interval`` objects are written and read by one pair of methods.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["IntervalEstimate"]


@dataclass(frozen=True)
class IntervalEstimate:
    """A 1 - alpha confidence interval for one objective, with how it was made.

    Attributes
    ----------
    lower, upper : float
    method : str
        ``"likelihood"`` (every call, likelihood ratio) or ``"two-call"`` (projected Wald region).
    calibration : str
        How the level is reached, e.g. ``"asymptotic, profile chi2(1)"``; the coverage
        is measured by simulation in ``benchmarks/bench_likelihood_coverage.py``.
    alpha : float
    calls : int
        Calls per example the interval uses (K, or 2 for the two-call method).
    """

    lower: float
    upper: float
    method: str
    calibration: str
    alpha: float
    calls: int

    def to_dict(self) -> dict:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "method": self.method,
            "calibration": self.calibration,
            "alpha": self.alpha,
            "calls": self.calls,
        }

    @classmethod
    def from_dict(cls, d: dict) -> IntervalEstimate:
        return cls(
            float(d["lower"]),
            float(d["upper"]),
            str(d["method"]),
            str(d["calibration"]),
            float(d["alpha"]),
            int(d["calls"]),
        )
