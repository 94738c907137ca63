"""The analysis of one policy's correctness bits, as frozen, serializable results.

:func:`analyze` runs the whole pipeline of the paper on one :class:`CallBits`:
two-call estimates (Section 4.4), sharp intervals at the point estimate
(Theorem 4.1, Theorem 4.3), the projected 1 - alpha interval hull (eqs. 3.7-3.8),
the MaxEnt and LDGP completions (Sec. 4), and -- when every example has enough
calls -- the U-statistic moments and the empirical vote accuracies. The verdict
on improvement over one call projects the objective V_m - V_1 (a polynomial,
P_n(q) - q) through the same region: it is certified at level 1 - alpha when the
whole projected interval lies above 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._endpoint import endpoint_bounds
from .._errors import CertifyError, InputError
from .._majority import majority_index
from ._completions import Completion, complete
from ._data import CallBits
from ._empirical import EmpiricalVote, PairedComparison, compare_budgets, empirical_vote_accuracy
from ._estimators import AllCallEstimates, TwoCallEstimates, all_call_estimates, two_call_estimates
from .._bounds import sharp_bounds
from ._region import ProjectedInterval, WaldRegion, project_many, wald_region

__all__ = ["REPORT_SCHEMA_VERSION", "BudgetRow", "Verdict", "AnalysisReport", "analyze", "parse_votes"]

REPORT_SCHEMA_VERSION = "1"


def parse_votes(tokens) -> tuple:
    """Vote budgets from ints / strings: positive counts (any parity) or ``"inf"``."""
    out = []
    for tok in tokens:
        text = str(tok).strip().lower()
        if text in ("inf", "infinity"):
            out.append("inf")
        elif text.lstrip("-").isdigit():
            majority_index(int(text))  # the package's own check and message for a vote count
            out.append(int(text))
        else:
            raise InputError(f"votes={tok!r} must be a positive integer or 'inf'")
    if not out:
        raise InputError("give at least one vote budget")
    return tuple(out)


def _opt(cls, d):
    return None if d is None else cls.from_dict(d)


@dataclass(frozen=True)
class BudgetRow:
    """Everything reported for one vote budget.

    Attributes
    ----------
    votes : int or "inf"
    sharp_lower, sharp_upper : float
        [L, U] at the point estimate (mu-hat, nu-hat) (eq. (LnUn-main); Theorem 4.3 for inf).
    projected : ProjectedInterval
        The 1 - alpha interval hull of eq. (projected-set-main).
    maxent, ldgp : float or None
        Completed curve values (Sec. 4); None if the completion failed.
    empirical : EmpiricalVote or None
        Hypergeometric estimate from all calls, when every example has >= votes calls.
    moment_lower, moment_upper : float or None
        Sharp interval at the U-statistic moments (m_1, ..., m_K) when K >= 3 and
        those moments are feasible (a point-estimate interval, not projected).
    """

    votes: object
    sharp_lower: float
    sharp_upper: float
    projected: ProjectedInterval
    maxent: float | None = None
    ldgp: float | None = None
    empirical: EmpiricalVote | None = None
    moment_lower: float | None = None
    moment_upper: float | None = None

    def to_dict(self) -> dict:
        return {"votes": self.votes, "sharp_lower": self.sharp_lower, "sharp_upper": self.sharp_upper,
                "projected": self.projected.to_dict(), "maxent": self.maxent, "ldgp": self.ldgp,
                "empirical": None if self.empirical is None else self.empirical.to_dict(),
                "moment_lower": self.moment_lower, "moment_upper": self.moment_upper}

    @classmethod
    def from_dict(cls, d: dict) -> "BudgetRow":
        return cls(d["votes"], float(d["sharp_lower"]), float(d["sharp_upper"]), ProjectedInterval.from_dict(d["projected"]),
                   d["maxent"], d["ldgp"], _opt(EmpiricalVote, d["empirical"]), d["moment_lower"], d["moment_upper"])


@dataclass(frozen=True)
class Verdict:
    """Certified improvement of ``votes`` calls over one call at level 1 - alpha.

    Attributes
    ----------
    votes : int
    gain_lower, gain_upper : float
        Projected interval hull of V_votes - V_1 over the Wald region.
    status : str
        ``"better"`` (gain_lower > 0), ``"worse"`` (gain_upper < 0) or ``"undetermined"``.
    """

    votes: int
    gain_lower: float
    gain_upper: float
    status: str

    @property
    def text(self) -> str:
        pp = f"gain in [{100 * self.gain_lower:+.2f}, {100 * self.gain_upper:+.2f}] pp"
        if self.status == "better":
            return f"{self.votes} votes: CERTIFIED better than one call ({pp})"
        if self.status == "worse":
            return f"{self.votes} votes: CERTIFIED worse than one call ({pp})"
        return f"{self.votes} votes: improvement NOT certified ({pp})"

    def to_dict(self) -> dict:
        return {"votes": self.votes, "gain_lower": self.gain_lower, "gain_upper": self.gain_upper, "status": self.status, "text": self.text}

    @classmethod
    def from_dict(cls, d: dict) -> "Verdict":
        return cls(int(d["votes"]), float(d["gain_lower"]), float(d["gain_upper"]), d["status"])


@dataclass(frozen=True)
class AnalysisReport:
    """Result of :func:`analyze` (``to_dict``/``from_dict`` round-trip; ``schema_version`` for consumers).

    Attributes
    ----------
    source, group : str
    n, calls, max_calls : int
        Examples, min K_i and max K_i.
    alpha : float
    two_call : TwoCallEstimates
    all_calls : AllCallEstimates or None
        When K >= 3 (U-statistics from every call).
    region : dict
        How the Wald region was formed (eigenvalue floor applied, degenerate).
    budgets : tuple of BudgetRow
    verdicts : tuple of Verdict
    completions : tuple of Completion
    comparisons : tuple of PairedComparison
        Empirical paired differences m-vote minus one call, when K allows.
    notes : tuple of str
    """

    source: str
    group: str
    n: int
    calls: int
    max_calls: int
    alpha: float
    two_call: TwoCallEstimates
    all_calls: AllCallEstimates | None
    region: dict
    budgets: tuple[BudgetRow, ...]
    verdicts: tuple[Verdict, ...]
    completions: tuple[Completion, ...]
    comparisons: tuple[PairedComparison, ...] = ()
    notes: tuple[str, ...] = ()
    schema_version: str = field(default=REPORT_SCHEMA_VERSION)

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version, "source": self.source, "group": self.group, "n": self.n,
            "calls": self.calls, "max_calls": self.max_calls, "alpha": self.alpha, "two_call": self.two_call.to_dict(),
            "all_calls": None if self.all_calls is None else self.all_calls.to_dict(), "region": dict(self.region),
            "budgets": [b.to_dict() for b in self.budgets], "verdicts": [v.to_dict() for v in self.verdicts],
            "completions": [c.to_dict() for c in self.completions], "comparisons": [c.to_dict() for c in self.comparisons],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "AnalysisReport":
        if str(d.get("schema_version")) != REPORT_SCHEMA_VERSION:
            raise InputError(f"schema_version={d.get('schema_version')!r}: this version reads {REPORT_SCHEMA_VERSION!r}")
        return cls(
            d["source"], d["group"], int(d["n"]), int(d["calls"]), int(d["max_calls"]), float(d["alpha"]),
            TwoCallEstimates.from_dict(d["two_call"]), _opt(AllCallEstimates, d["all_calls"]), dict(d["region"]),
            tuple(BudgetRow.from_dict(b) for b in d["budgets"]), tuple(Verdict.from_dict(v) for v in d["verdicts"]),
            tuple(Completion.from_dict(c) for c in d["completions"]),
            tuple(PairedComparison.from_dict(c) for c in d["comparisons"]), tuple(d["notes"]),
        )


def _sharp_at(votes, mu: float, nu: float) -> tuple[float, float]:
    if votes == "inf":
        e = endpoint_bounds(mu=mu, nu=nu)
        return e.lower, e.upper
    b = sharp_bounds(votes, mu=mu, nu=nu)
    return b.lower.value, b.upper.value


def _feasible(mu: float, nu: float) -> tuple[float, float, bool]:
    """Snap (mu-hat, nu-hat) into F; True if it had to move (sample outside the moment cone)."""
    m = min(max(mu, 0.0), 1.0)
    v = min(max(nu, m * m), m)
    return m, v, (m, v) != (mu, nu)


def analyze(data: CallBits, votes=(3, 5, "inf"), alpha: float = 0.05, *, singular: str = "floor") -> AnalysisReport:
    """Full analysis of one policy's bits (module docstring).

    Parameters
    ----------
    data : CallBits
    votes : sequence
        Budgets (vote counts, ``"inf"``).
    alpha : float
        1 - confidence level of the projected intervals and comparisons.
    singular : {"floor", "pinv"}
        Rule for a singular Sigma-hat (see :func:`wald_region`).
    """
    votes = parse_votes(votes)
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"alpha={alpha!r} must be in (0, 1)")
    notes = []
    two = two_call_estimates(data)
    region: WaldRegion = wald_region(two, alpha, singular=singular)
    if region.floored:
        notes.append(f"Sigma-hat is (near-)singular: {region.floored} eigenvalue(s) raised to 1/N = {1 / two.n:.3g}")
    mu, nu, moved = _feasible(two.mu, two.nu)
    if moved:
        notes.append(f"(mu-hat, nu-hat) lies outside the moment set F; point-estimate values use its nearest point ({mu:.6g}, {nu:.6g})")
    # The verdict covers every finite budget above 2 that was asked for (three votes if none was).
    gain_budgets = sorted({v for v in votes if v != "inf" and v > 2}) or [3]
    objectives = list(votes) + [f"V{v} - V1" for v in gain_budgets]
    projected = project_many([region], objectives, certify=False)[0]
    completions, curves = [], {}
    for method in ("maxent", "ldgp"):
        try:
            c = complete(mu=mu, nu=nu, method=method)
            completions.append(c)
            curves[method] = c
        except CertifyError as exc:
            notes.append(f"{method} completion failed: {exc}")
    allc = None
    if data.calls >= 3:
        allc = all_call_estimates(data)
    rows = []
    for v, proj in zip(votes, projected):
        lo, up = _sharp_at(v, mu, nu)
        emp = empirical_vote_accuracy(data, v) if v != "inf" and v <= data.calls else None
        mlo = mup = None
        if allc is not None and v != "inf":
            try:
                b = sharp_bounds(v, moments=list(allc.moments))
                mlo, mup = b.lower.value, b.upper.value
            except InputError:
                notes.append(f"the {allc.order} U-statistic moments are not the moments of any law; no higher-order interval")
        rows.append(BudgetRow(v, lo, up, proj, _curve(curves, "maxent", v), _curve(curves, "ldgp", v), emp, mlo, mup))
    verdicts = []
    for v, proj in zip(gain_budgets, projected[len(votes):]):
        status = "better" if proj.lower > 0 else ("worse" if proj.upper < 0 else "undetermined")
        verdicts.append(Verdict(v, proj.lower, proj.upper, status))
    comparisons = tuple(compare_budgets(data, 1, v, alpha) for v in gain_budgets if v <= data.calls)
    return AnalysisReport(
        source=data.source, group=data.group, n=data.n, calls=data.calls, max_calls=data.max_calls, alpha=float(alpha),
        two_call=two, all_calls=allc, region=region.to_dict(), budgets=tuple(rows), verdicts=tuple(verdicts),
        completions=tuple(completions), comparisons=comparisons, notes=tuple(dict.fromkeys(notes)),
    )


def _curve(curves: dict, method: str, votes) -> float | None:
    c = curves.get(method)
    if c is None:
        return None
    value = c.value(votes)
    return value if math.isfinite(value) else None
