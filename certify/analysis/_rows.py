"""The analysis as one row per target: the verdict table a screen shows and the tidy frame a notebook reads.

An :class:`~certify.analysis.AnalysisReport` keeps each aggregate where it was computed: the bit
majority's budgets (``budgets``), plurality and pass@k (``aggregates``), the gains over one call
(``verdicts``) and ``--objective`` (``objectives``). :func:`target_rows` joins them into one
:class:`TargetRow` per target -- an aggregate at a budget, or an objective (an :class:`AnalysisTarget`) --
with its :class:`~certify.Interval`, the verdict on its gain over one call and, beyond the
recorded calls, the model-based forecast beside it (a :class:`RowForecast`). The rows are the
JSON's (``analyze-v3``: ``rows``), ``certify analyze`` prints them as its default answer (one
verdict table per group), and :meth:`AnalysisReport.to_frame` returns them as a pandas DataFrame
whose columns are the JSON row's keys, flattened (``interval.lower``).

**Forecasts.** Beyond the recorded calls the interval covers every latent law the calls allow
(certain, at its level) and is wide. A forecast is what is likely under a model, never certified:

* majority of k calls and pass@k, with ``forecast=True`` (``--forecast``): the best parametric
  family of the latent law the data do not reject (:mod:`certify.forecast`, via
  :mod:`._forecast_step`), its estimate and bootstrap interval of the accuracy and of the gain;
  where the data reject every family, no forecast: ``forecast.rejected`` and ``forecast.model`` say so;
* plurality of k calls: the answer model (:mod:`certify.aggregates._answer_model`): each call correct,
  the example's strongest wrong answer, or one of L equally likely others. Where its check against the
  recorded answers rejects it (its goodness-of-fit guard on the answer patterns, or its interval at
  the recorded calls not meeting the model-free one), there is no forecast, and ``forecast.model``
  says that the data reject the model;
* an objective of degree above the calls: the family forecast, as for the majority.

A forecast's gain is taken against the same model's one-call accuracy (a family: its own E[Q]; the
answer model: the accuracy of one call from every call), so that the model's own level cancels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from .._extras import require
from .._interval import Interval
from .._objective import budget_json, parse_vote_budget, votes_label
from .._records import Record, flat_columns, flat_record
from ._forecast_step import forecast_names
from ._verdict import Verdict

__all__ = ["FORECAST_MODELS", "RowForecast", "AnalysisTarget", "TargetRow", "report_frame", "target_rows"]

#: What each aggregate's forecast beyond the recorded calls comes from (module docstring); a
#: family forecast names its family, how many more families its intervals join (the forecast's
#: pool) and its guard (:func:`_family_text`).
FORECAST_MODELS = {
    "family": "{family} family{more}, not rejected (guard p = {p:.2f}), fitted to every call",
    "plurality": "answer model, consistent with the recorded answers",
}
#: How the answer model's check ends when the recorded answers do not reject it (:mod:`._answer_model`).
_CONSISTENT = ": consistent"
#: The aggregates a target names; an objective is ``"objective"``.
AGGREGATE_TARGETS = ("majority", "plurality", "pass@k", "objective")


def _budget_or_none(value):
    return None if value is None else parse_vote_budget(value)


@dataclass(frozen=True)
class AnalysisTarget(Record):
    """What a row estimates: an aggregate of k calls, or a polynomial objective in q.

    Attributes
    ----------
    aggregate : str
        ``"majority"`` (the paper's bit majority), ``"plurality"``, ``"pass@k"`` or ``"objective"``.
    votes : int or VoteLimit or None
        The budget k (:data:`certify.V_INF` for infinitely many calls; ``"inf"`` in JSON); None for
        an objective.
    objective : str or None
        The objective's expression (``--objective``); None for an aggregate.
    """

    aggregate: str
    votes: object = field(default=None, metadata={"write": budget_json, "read": _budget_or_none})
    objective: str | None = None

    @property
    def key(self) -> tuple:
        """(aggregate, votes), or ("objective", its expression): what a row is looked up by."""
        return (self.aggregate, self.objective if self.aggregate == "objective" else self.votes)

    @property
    def label(self) -> str:
        """``"majority of 5 votes"``, ``"pass@k of infinitely many votes"``, ``"1 - (1-q)**8"``."""
        if self.aggregate == "objective":
            return str(self.objective)
        return f"{self.aggregate} of {votes_label(self.votes)}"


@dataclass(frozen=True)
class RowForecast(Record):
    """A target's model-based forecast beyond the recorded calls, or why there is none: never certified.

    Attributes
    ----------
    model : str
        The model behind it (:data:`FORECAST_MODELS`), or why there is no forecast.
    family : str or None
        The family of the latent law (a family forecast), ``"answer model"`` (plurality), or None
        where the data reject every model tried.
    gof_p : float or None
        The goodness-of-fit guard's p-value of that family (None for the answer model: its check
        is in ``model``).
    rejected : bool
        True when the data reject the model: then no interval.
    accuracy : Interval or None
        Route ``"model-based"``: the forecast point (``estimate``) and interval of the accuracy.
    gain : Interval or None
        The same for the gain over one call, taken against the model's own one-call accuracy.
    """

    model: str
    family: str | None = None
    gof_p: float | None = None
    rejected: bool = False
    accuracy: Interval | None = None
    gain: Interval | None = None


@dataclass(frozen=True)
class TargetRow(Record):
    """One target of one group (module docstring): a row of ``analyze-v3``'s ``rows``.

    Attributes
    ----------
    group : str
    target : AnalysisTarget
    interval : Interval or None
        The 1 - alpha interval of the target's accuracy, with its route (identified by the calls,
        or beyond them: every latent law the calls allow), calibration and, where identified, the
        estimate from the recorded calls; None where it was not solved or not asked for (``note``).
    verdict : Verdict or None
        The verdict on the gain over one call, with the gain's interval (finite budgets above one).
    forecast : RowForecast or None
        Beyond the recorded calls, with a forecast asked for: the model-based forecast beside the
        certain interval, or why there is none.
    note : str
        Why ``interval`` is missing, or anything else about this row; empty when nothing.
    """

    group: str
    target: AnalysisTarget
    interval: Interval | None
    verdict: Verdict | None = None
    forecast: RowForecast | None = None
    note: str = ""

    def flat(self) -> dict:
        """The row flattened to the DataFrame's columns (``interval.lower``; absent parts None)."""
        return flat_record(self)


def _one_call(report: Any) -> float:
    """The accuracy of one call from every call (the U-statistic mean), else from the first two."""
    return report.all_calls.mu if report.all_calls is not None else report.two_call.mu


def _beyond_calls(interval: Interval | None) -> bool:
    """Whether a target lies beyond the calls its interval used (where a forecast is shown)."""
    return interval is not None and interval.route == "beyond the calls"


def _model_interval(estimate, lower, upper, alpha: float, how: str, calls: int) -> Interval:
    """A family forecast's interval: a parametric bootstrap, model-based (``how`` says which families)."""
    return Interval(lower, upper, alpha, "parametric bootstrap", how, calls, estimate, "model-based")


def _family_text(result: Any) -> str:
    """``maxent(d=2) family and 2 more, not rejected (guard p = 0.39), fitted to every call``."""
    more = f" and {len(result.pooled)} more" if result.pooled else ""
    return FORECAST_MODELS["family"].format(family=result.family, more=more, p=result.guard.p_value)


def _family_forecast(report: Any, names) -> RowForecast | None:
    """The family forecast of a target beyond the calls (None where none was asked or made)."""
    result = getattr(report, "forecast", None)
    if result is None or names is None:
        return None
    if result.family is None:
        tried = ", ".join(f"{g.family} p = {g.p_value:.3f}" for g in result.rejected)
        return RowForecast(model=f"no forecast: the data reject every family ({tried})", rejected=True)
    found = {t.target: t for t in result.targets}
    if names[0] not in found:
        return None
    acc, gain = found[names[0]], found.get(names[1]) if len(names) > 1 else None
    if math.isnan(acc.estimate):  # withdrawn (too few calls for this target): its method says why
        return RowForecast(model=acc.method, family=result.family, gof_p=result.guard.p_value)
    calls = report.likelihood.cells.max_calls if report.likelihood is not None else report.max_calls

    def interval(t):
        return None if t is None else _model_interval(t.estimate, t.lower, t.upper, report.alpha, t.method, calls)

    return RowForecast(_family_text(result), result.family, result.guard.p_value, False, interval(acc), interval(gain))


def _answer_forecast(a: Any, one_call: float) -> RowForecast | None:
    """The answer model's plurality forecast beyond the calls, or why there is none."""
    model = a.model
    if model is None:
        return None
    if model.check.endswith(_CONSISTENT):
        text = FORECAST_MODELS["plurality"]
    elif not model.check:  # too few calls or examples to check it: said, not hidden
        text = "answer model, not checked (too few calls or examples for its check)"
    else:  # the recorded answers reject the model: it forecasts nothing
        return RowForecast(
            model="no forecast: the recorded answers reject the answer model", family="answer model", rejected=True
        )
    iv = model.interval
    assert iv.estimate is not None  # the model's point at every budget
    gain = replace(iv, lower=None, upper=None, estimate=iv.estimate - one_call, note="no interval for the gain")
    return RowForecast(text, "answer model", None, False, iv, gain)


def target_rows(report: Any) -> tuple[TargetRow, ...]:
    """One :class:`TargetRow` per target of ``report`` (an :class:`AnalysisReport`), in report order.

    Majority rows first (every budget), then plurality and pass@k (as ``analyze`` ordered them),
    then the objectives. A gain and its verdict are attached to the row of the same aggregate and
    budget; a verdict on a budget whose accuracy was not asked for (the gain of 3 calls, when no
    finite budget above 2 was) gets a row of its own without an interval. A forecast is attached
    only to rows beyond the recorded calls.
    """
    gains = {(v.aggregate, v.votes): v for v in report.verdicts}
    one_call = _one_call(report)
    rows: list[TargetRow] = []
    for b in report.budgets:
        forecast = _family_forecast(report, forecast_names("majority", b.votes)) if _beyond_calls(b.interval) else None
        rows.append(_row(report, "majority", b.votes, b.interval, gains.pop(("majority", b.votes), None), forecast))
    for a in report.aggregates:
        forecast = None
        if _beyond_calls(a.interval):
            forecast = (
                _answer_forecast(a, one_call)
                if a.aggregate == "plurality"
                else _family_forecast(report, forecast_names(a.aggregate, a.votes))
            )
        rows.append(_row(report, a.aggregate, a.votes, a.interval, gains.pop((a.aggregate, a.votes), None), forecast))
    for (aggregate, votes), verdict in gains.items():  # verdicts of budgets not asked for
        rows.append(
            _row(report, aggregate, votes, None, verdict, None, note="the accuracy of this budget was not asked for")
        )
    for o in report.objectives:
        forecast = _family_forecast(report, (o.objective,)) if _beyond_calls(o.interval) else None
        rows.append(TargetRow(report.group, AnalysisTarget("objective", None, o.objective), o.interval, None, forecast))
    return tuple(rows)


def _row(report, aggregate, votes, interval, verdict, forecast, note: str = "") -> TargetRow:
    if interval is None and not note:
        note = "no interval: the likelihood solver failed (the report's notes say why)"
    return TargetRow(report.group, AnalysisTarget(aggregate, votes), interval, verdict, forecast, note)


def report_frame(reports) -> Any:
    """The target rows of one or several reports as a tidy pandas DataFrame (one row per group x target).

    Columns are the keys of a JSON row (:meth:`TargetRow.to_dict`), flattened with dots
    (``target.votes``, ``interval.lower``, ``verdict.gain.upper``, ``forecast.accuracy.estimate``);
    a budget of infinitely many calls is ``"inf"`` in ``target.votes``, as in the JSON. Needs
    pandas (``pip install 'certify[report]'``).
    """
    pandas = require("pandas", "a DataFrame of the analysis")
    return pandas.DataFrame([row.flat() for r in reports for row in target_rows(r)], columns=flat_columns(TargetRow))
