"""The results of an analysis: the report of one group, its budget rows, and their JSON.

:class:`AnalysisReport` is what :func:`certify.analysis.analyze` returns. Its JSON is ``analyze-v3``
(``certify/schemas/analyze-v3.json``): one row per target (:meth:`AnalysisReport.rows`,
:mod:`._rows`), and beside the rows what no row holds. :meth:`AnalysisReport.from_dict` reads
it back, and reads the previous layout ``analyze-v2`` too (:func:`_from_v2`), in which each
aggregate's budgets, the verdicts and the objectives were separate lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._errors import InputError
from .._interval import Interval
from .._objective import V_INF, budget_json, parse_objective, parse_vote_budget
from ..aggregates import AGGREGATES, ModelEstimate
from ..forecast import Forecast
from ..likelihood import CellCounts, LikelihoodInterval
from ..stats import AllCallEstimates, Completion, EmpiricalVote, PairedComparison, ProjectedInterval, TwoCallEstimates
from ._aggregates import AggregateBudget
from ._rows import TargetRow, report_frame, target_rows
from ._text import details_lines, summary_lines
from ._verdict import Verdict
from ._vote_curve import curve_data, vote_curve_figure

__all__ = ["REPORT_SCHEMA_VERSION", "AnalysisReport", "BudgetRow", "ObjectiveInterval", "SolvedIntervals"]

#: Layout version of :meth:`AnalysisReport.to_dict` (``certify/schemas/analyze-v<version>.json``).
REPORT_SCHEMA_VERSION = "3"


def _opt(cls, d):
    return None if d is None else cls.from_dict(d)


@dataclass(frozen=True)
class BudgetRow:
    """Everything reported for one vote budget.

    Attributes
    ----------
    votes : int or VoteLimit
        A count of calls or :data:`certify.V_INF` (``"inf"`` in JSON).
    sharp_lower, sharp_upper : float
        [L, U] at the point estimate (mu-hat, nu-hat) (eq. (LnUn-main); Theorem 4.3 for inf).
    projected : ProjectedInterval or None
        The 1 - alpha interval hull of eq. (projected-set-main) (two calls); None when the
        Wald region is empty and the likelihood method reports without it (a note says so).
    interval : Interval
        The reported 1 - alpha interval, by the analysis' method.
    maxent, ldgp : float or None
        Completed curve values (Sec. 4); None if the completion failed.
    empirical : EmpiricalVote or None
        Hypergeometric estimate from all calls, when every example has >= votes calls.
    moment_lower, moment_upper : float or None
        Sharp interval at the U-statistic moments (m_1, ..., m_K) when K >= 3 and
        those moments are feasible: a point-estimate interval with no sampling
        uncertainty (kept in JSON; not a confidence interval).
    """

    votes: object
    sharp_lower: float
    sharp_upper: float
    projected: ProjectedInterval | None
    maxent: float | None = None
    ldgp: float | None = None
    empirical: EmpiricalVote | None = None
    moment_lower: float | None = None
    moment_upper: float | None = None
    interval: Interval | None = None

    def details(self) -> dict:
        """The columns of ``--details`` (``details`` of ``analyze-v3``): everything but the interval,
        which the budget's row of ``rows`` carries."""
        return {
            "votes": budget_json(self.votes),
            "sharp_lower": self.sharp_lower,
            "sharp_upper": self.sharp_upper,
            "projected": None if self.projected is None else self.projected.to_dict(),
            "maxent": self.maxent,
            "ldgp": self.ldgp,
            "empirical": None if self.empirical is None else self.empirical.to_dict(),
            "moment_lower": self.moment_lower,
            "moment_upper": self.moment_upper,
        }

    @classmethod
    def from_details(cls, d: dict, interval: Interval | None) -> BudgetRow:
        """The row from its ``details`` and the interval of its row (:meth:`details`)."""
        return cls(
            parse_vote_budget(d["votes"]),
            float(d["sharp_lower"]),
            float(d["sharp_upper"]),
            _opt(ProjectedInterval, d["projected"]),
            d["maxent"],
            d["ldgp"],
            _opt(EmpiricalVote, d["empirical"]),
            d["moment_lower"],
            d["moment_upper"],
            interval,
        )


@dataclass(frozen=True)
class SolvedIntervals:
    """The likelihood-ratio intervals an analysis solved, kept for their exact certificates (not in JSON).

    Each interval's ends carry the extremal laws and multipliers that
    :func:`certify.likelihood.certify_interval` turns into certificates, so writing them
    solves nothing again.

    Attributes
    ----------
    cells : CellCounts
        The data the intervals were computed from (the first ``calls`` calls of each example).
    objectives : tuple
        The objectives as given to the solver: the budgets, then the gains ``"V<k> - V1"`` of the
        verdicts, then the polynomial objectives asked for (``AnalysisReport.objectives``).
    intervals : tuple of LikelihoodInterval
        One per objective.
    """

    cells: CellCounts
    objectives: tuple
    intervals: tuple[LikelihoodInterval, ...]


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
    region : dict or None
        How the Wald region was formed (eigenvalue floor applied, degenerate); None when it is
        empty and the likelihood method reports without it.
    budgets : tuple of BudgetRow
    verdicts : tuple of Verdict
    completions : tuple of Completion
    comparisons : tuple of PairedComparison
        Empirical paired differences m-vote minus one call, when K allows.
    notes : tuple of str
    method : str
        How the budgets' ``interval`` and the verdicts were made (:data:`METHODS`).
    aggregates : tuple of AggregateBudget
        Plurality and pass@k rows (:mod:`certify.analysis._aggregates`), after the majority
        rows in ``budgets`` of the JSON; each JSON budget entry names its ``aggregate``.
    objectives : tuple of ObjectiveInterval
        Intervals of the polynomial objectives asked for (``--objective``).
    likelihood : SolvedIntervals or None
        The solved likelihood intervals behind ``interval`` and the verdicts (method
        ``"likelihood"``; None otherwise and after :meth:`from_dict`); not part of the JSON
        and not compared.
    projected_gains : tuple of ProjectedInterval
        The two-call projected interval of each verdict's gain V_k - V_1, in the verdicts'
        order, whatever the method (:func:`two_call_view`; None each when the Wald region is
        empty); not part of the JSON, not compared.
    forecast : Forecast or None
        With ``forecast=True``: the family forecast of the targets beyond the recorded calls
        (:mod:`certify.forecast`; model-based, not certified), else None. In the JSON as
        ``forecast`` (schema ``forecast-v1``); not read back by :meth:`from_dict`, not compared.
    details_only_notes : tuple of str
        The notes that concern only numbers of the detailed tables (the two-call column under the
        likelihood method, the sharp range at the all-call moments): ``certify analyze`` shows
        them under ``--details`` only. Every note is in ``notes``; not part of the JSON (after
        :meth:`from_dict` every note shows), not compared.
    """

    source: str
    group: str
    n: int
    calls: int
    max_calls: int
    alpha: float
    two_call: TwoCallEstimates
    all_calls: AllCallEstimates | None
    region: dict | None
    budgets: tuple[BudgetRow, ...]
    verdicts: tuple[Verdict, ...]
    completions: tuple[Completion, ...]
    comparisons: tuple[PairedComparison, ...] = ()
    notes: tuple[str, ...] = ()
    method: str = "likelihood"
    aggregates: tuple[AggregateBudget, ...] = ()
    objectives: tuple[ObjectiveInterval, ...] = ()
    schema_version: str = field(default=REPORT_SCHEMA_VERSION)
    likelihood: SolvedIntervals | None = field(default=None, compare=False, repr=False)
    projected_gains: tuple[ProjectedInterval | None, ...] = field(default=(), compare=False, repr=False)
    details_only_notes: tuple[str, ...] = field(default=(), compare=False, repr=False)
    forecast: Forecast | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict:
        """The layout of ``analyze-v3`` (``certify/schemas/analyze-v3.json``, ``$defs/report``).

        ``rows`` holds every target (:meth:`rows`): its interval, verdict and forecast. What no
        row holds is kept beside them: the majority budgets' detail columns (``details``), the
        answer model's estimates with their checks (``answer_models``), the estimates, the
        Wald region, the completions, the paired comparisons, the notes and the family forecast.
        """
        return {
            "schema_version": self.schema_version,
            "source": self.source,
            "group": self.group,
            "n": self.n,
            "calls": self.calls,
            "max_calls": self.max_calls,
            "alpha": self.alpha,
            "method": self.method,
            "rows": [row.to_dict() for row in self.rows()],
            "two_call": self.two_call.to_dict(),
            "all_calls": None if self.all_calls is None else self.all_calls.to_dict(),
            "region": None if self.region is None else dict(self.region),
            "details": [b.details() for b in self.budgets],
            "answer_models": [
                {"aggregate": a.aggregate, "votes": budget_json(a.votes), "model": a.model.to_dict()}
                for a in self.aggregates
                if a.model is not None
            ],
            "completions": [c.to_dict() for c in self.completions],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "notes": list(self.notes),
            "forecast": None if self.forecast is None else self.forecast.to_dict(),
        }

    def rows(self) -> tuple[TargetRow, ...]:
        """One :class:`~certify.analysis.TargetRow` per target (aggregate at a budget, or objective), with its
        interval, the verdict on its gain over one call and, beyond the recorded calls, the forecast."""
        return target_rows(self)

    def to_frame(self) -> Any:
        """The analysis as a tidy pandas DataFrame: one row per target, columns the fields of
        :class:`~certify.analysis.TargetRow` (needs pandas: ``pip install 'certify[report]'``)."""
        return report_frame([self])

    def text_lines(self, details: bool = False) -> list[str]:
        """What ``certify analyze`` prints for this group, one logical line per item
        (:mod:`certify.analysis._text`): the verdict table that fits on a screen, the intervals
        of infinitely many calls, the objectives, the forecasts and the first notes; with
        ``details=True`` (``--details``) every table, verdict and note. A line may hold a name read
        from the data as it is (a terminal escapes it)."""
        return details_lines(self) if details else summary_lines(self)

    def text(self, details: bool = False) -> str:
        """:meth:`text_lines` as one text."""
        return "\n".join(self.text_lines(details))

    def plot(self, title: str | None = None) -> Any:
        """The vote-curve figure of this analysis (:func:`~certify.analysis.vote_curve_figure`): the interval
        of every majority budget, V_inf, the empirical points, plurality and pass@k; a
        ``matplotlib.figure.Figure`` (needs matplotlib: ``pip install 'certify[report]'``)."""
        return vote_curve_figure([curve_data(self, title=title)])

    @classmethod
    def from_dict(cls, d: dict) -> AnalysisReport:
        """The report :meth:`to_dict` wrote (``analyze-v3``), or one of ``analyze-v2`` (read into the
        same types: its intervals' routes follow from the budgets and the calls)."""
        version = str(d.get("schema_version"))
        if version == "2":
            return _from_v2(d)
        if version != REPORT_SCHEMA_VERSION:
            raise InputError(
                f"schema_version={d.get('schema_version')!r}: this version reads {REPORT_SCHEMA_VERSION!r} and '2'"
            )
        rows = [TargetRow.from_dict(r) for r in d["rows"]]
        majority = {r.target.votes: r.interval for r in rows if r.target.aggregate == "majority"}
        models = {
            (m["aggregate"], parse_vote_budget(m["votes"])): ModelEstimate.from_dict(m["model"])
            for m in d["answer_models"]
        }
        details = [parse_vote_budget(b["votes"]) for b in d["details"]]
        aggregates = tuple(
            AggregateBudget(r.target.aggregate, r.target.votes, r.interval, models.get(r.target.key))
            for r in rows
            if r.target.aggregate in AGGREGATES and r.interval is not None
        )
        return cls(
            **_shared_fields(d),
            budgets=tuple(BudgetRow.from_details(b, majority.get(v)) for b, v in zip(d["details"], details)),
            verdicts=_verdict_order([r.verdict for r in rows if r.verdict is not None]),
            comparisons=tuple(PairedComparison.from_dict(c) for c in d["comparisons"]),
            aggregates=aggregates,
            objectives=tuple(
                ObjectiveInterval(str(r.target.objective), r.interval)
                for r in rows
                if r.target.aggregate == "objective" and r.interval is not None
            ),
        )


def _shared_fields(d: dict) -> dict:
    """The fields analyze-v3 and analyze-v2 write alike: the group, its sizes, the estimates, the
    region, the completions, the notes and the method (one reader for both versions)."""
    return {
        "source": d["source"],
        "group": d["group"],
        "n": int(d["n"]),
        "calls": int(d["calls"]),
        "max_calls": int(d["max_calls"]),
        "alpha": float(d["alpha"]),
        "two_call": TwoCallEstimates.from_dict(d["two_call"]),
        "all_calls": _opt(AllCallEstimates, d["all_calls"]),
        "region": None if d["region"] is None else dict(d["region"]),
        "completions": tuple(Completion.from_dict(c) for c in d["completions"]),
        "notes": tuple(d["notes"]),
        "method": str(d["method"]),
    }


def _verdict_order(verdicts: list[Verdict]) -> tuple[Verdict, ...]:
    """Verdicts in the order :func:`analyze` makes them: by aggregate (the majority first), then budget."""
    first = {a: i for i, a in enumerate(dict.fromkeys(["majority", *(v.aggregate for v in verdicts)]))}
    return tuple(sorted(verdicts, key=lambda v: (first[v.aggregate], v.votes)))


#: How analyze-v2 began an aggregate's calibration; the route is its own field now.
_V2_ROUTE_PREFIXES = ("identified by the calls; ", "beyond the recorded calls; ")


def _v2_interval(iv: dict, identified: bool, estimate=None, route: str | None = None) -> Interval:
    """An interval of analyze-v2 (``lower, upper, method, calibration, alpha, calls``) as an :class:`Interval`."""
    calibration = str(iv.get("calibration", "not recorded in analyze-v2"))
    for prefix in _V2_ROUTE_PREFIXES:
        calibration = calibration.removeprefix(prefix)
    return Interval(
        float(iv["lower"]),
        float(iv["upper"]),
        float(iv["alpha"]),
        str(iv["method"]),
        calibration,
        None if iv.get("calls") is None else int(iv["calls"]),
        estimate if identified else None,
        route or ("identified" if identified else "beyond the calls"),
    )


def _from_v2(d: dict) -> AnalysisReport:
    """An ``analyze-v2`` report (the layout before one row per target), read into today's types.

    A target is identified when its degree is at most the calls its interval used (a v2 gain's:
    those of the majority's intervals); a v2 verdict recorded no calibration, and says so.
    """
    alpha = float(d["alpha"])
    used = next((int(b["interval"]["calls"]) for b in d["budgets"] if b.get("interval")), int(d["max_calls"]))

    def within(votes, calls) -> bool:
        return votes is not V_INF and votes <= calls

    budgets, aggregates = [], []
    for b in d["budgets"]:
        votes = parse_vote_budget(b["votes"])
        iv = b.get("interval")
        if b.get("aggregate", "majority") == "majority":
            estimate = None if b["empirical"] is None else float(b["empirical"]["value"])
            interval = None if iv is None else _v2_interval(iv, within(votes, iv["calls"]), estimate)
            budgets.append(BudgetRow.from_details(b, interval))
            continue
        model = b.get("model")
        if model is not None:
            model_iv = _v2_interval(dict(model, calls=iv["calls"]), True, float(model["estimate"]), "model-based")
            model = ModelEstimate(model_iv, str(model.get("check", "")))
        interval = _v2_interval(iv, within(votes, iv["calls"]), b.get("empirical"))
        aggregates.append(AggregateBudget(str(b["aggregate"]), votes, interval, model))
    verdicts = []
    for v in d["verdicts"]:
        gain = {
            "lower": v["gain_lower"],
            "upper": v["gain_upper"],
            "alpha": alpha,
            "method": v["method"],
            "calls": used,
        }
        reason, aggregate = str(v.get("reason", "")), str(v.get("aggregate", "majority"))
        votes = int(v["votes"])
        interval = _v2_interval({**gain, "calls": used}, within(votes, used))
        verdicts.append(Verdict(votes, interval, str(v["status"]), reason, aggregate))
    objectives = []
    for o in d.get("objectives", ()):
        iv = o["interval"]
        degree = parse_objective(o["objective"]).degree
        objectives.append(ObjectiveInterval(str(o["objective"]), _v2_interval(iv, degree <= int(iv["calls"]))))
    comparisons = []
    for c in d["comparisons"]:
        difference = {
            **c,
            "method": PairedComparison.METHOD,
            "calibration": PairedComparison.CALIBRATION,
            "calls": None,
        }
        interval = _v2_interval(difference, True, float(c["difference"]))
        comparisons.append(
            PairedComparison(str(c["label_a"]), str(c["label_b"]), interval, float(c["se"]), int(c["n"]))
        )
    return AnalysisReport(
        **_shared_fields(d),
        budgets=tuple(budgets),
        verdicts=tuple(verdicts),
        comparisons=tuple(comparisons),
        aggregates=tuple(aggregates),
        objectives=tuple(objectives),
    )


@dataclass(frozen=True)
class ObjectiveInterval:
    """The 1 - alpha interval of a polynomial objective in q (``--objective "1 - (1-q)**8"``).

    Attributes
    ----------
    objective : str
        Its name as parsed (:func:`certify.parse_objective`).
    interval : Interval
        By the analysis' method: the likelihood interval (profile calibration when the
        objective's degree is at most the calls recorded, projection beyond), or the
        projected two-call interval.
    """

    objective: str
    interval: Interval

    def to_dict(self) -> dict:
        return {"objective": self.objective, "interval": self.interval.to_dict()}

    @classmethod
    def from_dict(cls, d: dict) -> ObjectiveInterval:
        return cls(str(d["objective"]), Interval.from_dict(d["interval"]))
