"""The analysis as one row per target: the verdict table a screen shows and the tidy frame a notebook reads.

An :class:`~certify.stats.AnalysisReport` keeps each aggregate where it was computed: the bit
majority's budgets (``budgets``), plurality and pass@k (``aggregates``), the gains over one call
(``verdicts``) and ``--objective`` (``objectives``). :func:`target_rows` joins them into one
:class:`TargetRow` per target -- an aggregate at a budget, or an objective -- with its interval,
the verdict on its gain over one call and, beyond the recorded calls, the model-based forecast
beside it. ``certify analyze`` prints these rows as its default answer (one verdict table per
group); :meth:`AnalysisReport.to_frame` returns them as a pandas DataFrame.

**Forecasts.** Beyond the recorded calls the interval covers every latent law the calls allow
(certain, at its level) and is wide. The forecast is a point from a model, never certified:

* majority of k calls: the paper's MaxEnt completion of the two-call moments (Section 4,
  eq. (maxent-density-main)): the law of largest entropy with mean mu-hat and second moment
  nu-hat; it is not tested against the data;
* plurality of k calls: the answer model (:mod:`certify.stats._answer_model`): each call correct,
  the example's dominant wrong answer, or a vote no other call gives. Where its check against the
  recorded answers rejects it (the model's plurality at the recorded calls outside the model-free
  interval), there is no forecast, and ``forecast_model`` says that the data reject the model;
* pass@k: none yet.

A forecast's gain is taken against the same model's one-call accuracy (MaxEnt: mu-hat; the answer
model: the accuracy of one call from every call), so that the model's own level cancels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .._extras import require
from .._objective import budget_json, is_vote_limit

__all__ = ["TargetRow", "target_rows", "report_frame", "FORECAST_MODELS"]

#: What each aggregate's forecast beyond the recorded calls comes from (module docstring).
FORECAST_MODELS = {
    "majority": "MaxEnt completion of the two-call moments (paper Sec. 4), not tested against the data",
    "plurality": "answer model, consistent with the recorded answers",
}
#: How the answer model's check ends when the recorded answers do not reject it (:mod:`._answer_model`).
_CONSISTENT = ": consistent"


@dataclass(frozen=True)
class TargetRow:
    """One target of one group: an aggregate at a budget, or an objective (module docstring).

    Attributes
    ----------
    group : str
    aggregate : str
        ``"majority"`` (the bit majority), ``"plurality"``, ``"pass@k"`` or ``"objective"``.
    votes : int or VoteLimit or None
        The budget k (:data:`certify.V_INF` for infinitely many calls; ``"inf"`` in :meth:`to_dict`);
        None for an objective.
    objective : str or None
        The objective's expression (``--objective``); None for an aggregate.
    route : str
        ``"identified"`` (k at most the recorded calls: the calls identify the target) or
        ``"beyond the calls"``; an objective's is ``"objective"``.
    lower, upper : float or None
        The 1 - alpha interval of the target's accuracy; None where its solve failed (a note says why).
    method, calibration : str
        How the interval was made and how its level is reached (asymptotic or exact).
    alpha : float
    calls : int or None
        Calls per example the interval uses.
    estimate : float or None
        The estimate from the recorded calls (identified targets).
    gain_lower, gain_upper : float or None
        The 1 - alpha interval of the gain over one call (accuracy of k calls minus that of one).
    verdict : str or None
        ``"better"``, ``"worse"``, ``"negligible"`` or ``"undetermined"`` (:class:`Verdict`).
    forecast, forecast_gain : float or None
        Beyond the recorded calls: the model-based point of the accuracy and of the gain; not certified.
    forecast_model : str or None
        The model behind ``forecast`` (:data:`FORECAST_MODELS`), or why there is none (the data
        reject the model).
    """

    group: str
    aggregate: str
    votes: object
    objective: str | None
    route: str
    lower: float | None
    upper: float | None
    method: str
    calibration: str
    alpha: float
    calls: int | None
    estimate: float | None = None
    gain_lower: float | None = None
    gain_upper: float | None = None
    verdict: str | None = None
    forecast: float | None = None
    forecast_gain: float | None = None
    forecast_model: str | None = None

    def to_dict(self) -> dict:
        """The row as a flat dict (the DataFrame's columns, in field order); ``votes`` as JSON writes it."""
        return {**asdict(self), "votes": None if self.votes is None else budget_json(self.votes)}


def _one_call(report: Any) -> float:
    """The accuracy of one call from every call (the U-statistic mean), else from the first two."""
    return report.all_calls.mu if report.all_calls is not None else report.two_call.mu


def _route(votes, calls: int) -> str:
    return "beyond the calls" if is_vote_limit(votes) or votes > calls else "identified"


def target_rows(report: Any) -> tuple[TargetRow, ...]:
    """One :class:`TargetRow` per target of ``report`` (an :class:`AnalysisReport`), in report order.

    Majority rows first (every budget), then plurality and pass@k (as ``analyze`` ordered them),
    then the objectives. A gain and its verdict are attached to the row of the same aggregate and
    budget; a forecast only to rows beyond the recorded calls.
    """
    gains = {(v.aggregate, v.votes): v for v in report.verdicts}
    maxent = next((c for c in report.completions if c.method == "maxent"), None)
    one_call = _one_call(report)
    rows = []
    for b in report.budgets:
        iv, route = b.interval, _route(b.votes, report.calls)
        forecast = b.maxent if route != "identified" else None
        rows.append(
            _row(
                report,
                "majority",
                b.votes,
                route,
                iv,
                None if b.empirical is None else b.empirical.value,
                gains.get(("majority", b.votes)),
                forecast,
                None if forecast is None or maxent is None else forecast - maxent.mu,
                FORECAST_MODELS["majority"] if forecast is not None else None,
            )
        )
    for a in report.aggregates:
        model = a.model if _route(a.votes, a.calls) != "identified" else None
        forecast_model = None
        if model is not None:
            if model.check.endswith(_CONSISTENT):
                forecast_model = FORECAST_MODELS["plurality"]
            elif not model.check:  # too few calls or examples to check it: said, not hidden
                forecast_model = "answer model, not checked (too few calls or examples for its check)"
            else:  # the recorded answers reject the model: it forecasts nothing
                forecast_model = "no forecast: the recorded answers reject the answer model"
                model = None
        rows.append(
            _row(
                report,
                a.aggregate,
                a.votes,
                _route(a.votes, a.calls),
                a.interval(),
                a.empirical,
                gains.get((a.aggregate, a.votes)),
                None if model is None else model.estimate,
                None if model is None else model.estimate - one_call,
                forecast_model,
            )
        )
    for o in report.objectives:
        iv = o.interval
        rows.append(
            TargetRow(
                group=report.group,
                aggregate="objective",
                votes=None,
                objective=o.objective,
                route="objective",
                lower=iv.lower,
                upper=iv.upper,
                method=iv.method,
                calibration=iv.calibration,
                alpha=iv.alpha,
                calls=iv.calls,
            )
        )
    return tuple(rows)


def _row(report, aggregate, votes, route, iv, estimate, gain, forecast, forecast_gain, forecast_model) -> TargetRow:
    return TargetRow(
        group=report.group,
        aggregate=aggregate,
        votes=votes,
        objective=None,
        route=route,
        lower=None if iv is None else iv.lower,
        upper=None if iv is None else iv.upper,
        method="" if iv is None else iv.method,
        calibration="" if iv is None else iv.calibration,
        alpha=report.alpha,
        calls=None if iv is None else iv.calls,
        estimate=estimate,
        gain_lower=None if gain is None else gain.gain_lower,
        gain_upper=None if gain is None else gain.gain_upper,
        verdict=None if gain is None else gain.status,
        forecast=forecast,
        forecast_gain=forecast_gain,
        forecast_model=forecast_model,
    )


def report_frame(reports) -> Any:
    """The target rows of one or several reports as a tidy pandas DataFrame (one row per group x target).

    Columns are the fields of :class:`TargetRow`, in order; a budget of infinitely many calls is
    ``"inf"`` in ``votes``, as in the JSON. Needs pandas (``pip install 'certify[report]'``).
    """
    pandas = require("pandas", "a DataFrame of the analysis")
    columns = list(TargetRow.__dataclass_fields__)
    return pandas.DataFrame([row.to_dict() for r in reports for row in target_rows(r)], columns=columns)
