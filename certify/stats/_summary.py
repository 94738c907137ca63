"""The analysis as one row per target: the verdict table a screen shows and the tidy frame a notebook reads.

An :class:`~certify.stats.AnalysisReport` keeps each aggregate where it was computed: the bit
majority's budgets (``budgets``), plurality and pass@k (``aggregates``), the gains over one call
(``verdicts``) and ``--objective`` (``objectives``). :func:`target_rows` joins them into one
:class:`TargetRow` per target -- an aggregate at a budget, or an objective -- with its interval,
the verdict on its gain over one call and, beyond the recorded calls, the model-based forecast
beside it. ``certify analyze`` prints these rows as its default answer (one verdict table per
group); :meth:`AnalysisReport.to_frame` returns them as a pandas DataFrame.

**Forecasts.** Beyond the recorded calls the interval covers every latent law the calls allow
(certain, at its level) and is wide. A forecast is what is likely under a model, never certified:

* majority of k calls and pass@k, with ``forecast=True`` (``--forecast``): the best parametric
  family of the latent law the data do not reject (:mod:`certify.forecast`, via
  :mod:`._forecast_step`), its estimate and bootstrap interval of the accuracy and of the gain;
  where the data reject every family, no forecast, and ``forecast_model`` says so;
* plurality of k calls: the answer model (:mod:`certify.stats._answer_model`): each call correct,
  the example's strongest wrong answer, or one of L equally likely others. Where its check against the
  recorded answers rejects it (its goodness-of-fit guard on the answer patterns, or its interval at
  the recorded calls not meeting the model-free one), there is no forecast, and ``forecast_model``
  says that the data reject the model;
* an objective of degree above the calls: the family forecast, as for the majority.

A forecast's gain is taken against the same model's one-call accuracy (a family: its own E[Q]; the
answer model: the accuracy of one call from every call), so that the model's own level cancels.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from .._extras import require
from .._objective import budget_json, is_vote_limit
from ._forecast_step import forecast_names

__all__ = ["TargetRow", "target_rows", "report_frame", "FORECAST_MODELS"]

#: What each aggregate's forecast beyond the recorded calls comes from (module docstring); a
#: family forecast names its family, how many more families its intervals join (the forecast's
#: pool) and its guard (:func:`_family_text`).
FORECAST_MODELS = {
    "family": "{family} family{more}, not rejected (guard p = {p:.2f}), fitted to every call",
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
    forecast_lower, forecast_upper, forecast_gain_lower, forecast_gain_upper : float or None
        Their 1 - alpha intervals under the model (a family's parametric bootstrap, the answer
        model's likelihood ratio; the gain's of the answer model: None).
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
    forecast_lower: float | None = None
    forecast_upper: float | None = None
    forecast_gain: float | None = None
    forecast_gain_lower: float | None = None
    forecast_gain_upper: float | None = None
    forecast_model: str | None = None

    def to_dict(self) -> dict:
        """The row as a flat dict (the DataFrame's columns, in field order); ``votes`` as JSON writes it."""
        return {**asdict(self), "votes": None if self.votes is None else budget_json(self.votes)}


def _one_call(report: Any) -> float:
    """The accuracy of one call from every call (the U-statistic mean), else from the first two."""
    return report.all_calls.mu if report.all_calls is not None else report.two_call.mu


def _route(votes, calls: int) -> str:
    return "beyond the calls" if is_vote_limit(votes) or votes > calls else "identified"


class _Model(NamedTuple):
    """A forecast of one target: accuracy and gain with their intervals, and what it comes from."""

    point: float | None = None
    lower: float | None = None
    upper: float | None = None
    gain: float | None = None
    gain_lower: float | None = None
    gain_upper: float | None = None
    model: str | None = None


def _family_text(result: Any) -> str:
    """``maxent(d=2) family and 2 more, not rejected (guard p = 0.39), fitted to every call``."""
    more = f" and {len(result.pooled)} more" if result.pooled else ""
    return FORECAST_MODELS["family"].format(family=result.family, more=more, p=result.guard.p_value)


def _family_model(report: Any, aggregate: str, votes) -> _Model | None:
    """The family forecast of a majority or pass@k target beyond the calls (None where none was asked)."""
    result = getattr(report, "forecast", None)
    names = forecast_names(aggregate, votes)
    if result is None or names is None:
        return None
    if result.family is None:
        tried = ", ".join(f"{g.family} p = {g.p_value:.3f}" for g in result.rejected)
        return _Model(model=f"no forecast: the data reject every family ({tried})")
    found = {t.target: t for t in result.targets}
    if names[0] not in found:
        return None
    acc, gain = found[names[0]], found.get(names[1])
    if math.isnan(acc.estimate):  # withdrawn (too few calls for this target): its method says why
        return _Model(model=acc.method)
    model = _family_text(result)
    return _Model(
        acc.estimate,
        acc.lower,
        acc.upper,
        None if gain is None else gain.estimate,
        None if gain is None else gain.lower,
        None if gain is None else gain.upper,
        model,
    )


def _answer_model(a: Any, one_call: float) -> _Model | None:
    """The answer model's plurality forecast beyond the calls, or why there is none."""
    model = a.model
    if model is None:
        return None
    if model.check.endswith(_CONSISTENT):
        text = FORECAST_MODELS["plurality"]
    elif not model.check:  # too few calls or examples to check it: said, not hidden
        text = "answer model, not checked (too few calls or examples for its check)"
    else:  # the recorded answers reject the model: it forecasts nothing
        return _Model(model="no forecast: the recorded answers reject the answer model")
    return _Model(model.estimate, model.lower, model.upper, model.estimate - one_call, None, None, text)


def target_rows(report: Any) -> tuple[TargetRow, ...]:
    """One :class:`TargetRow` per target of ``report`` (an :class:`AnalysisReport`), in report order.

    Majority rows first (every budget), then plurality and pass@k (as ``analyze`` ordered them),
    then the objectives. A gain and its verdict are attached to the row of the same aggregate and
    budget; a forecast only to rows beyond the recorded calls.
    """
    gains = {(v.aggregate, v.votes): v for v in report.verdicts}
    one_call = _one_call(report)
    rows = []
    for b in report.budgets:
        route = _route(b.votes, report.calls)
        model = _family_model(report, "majority", b.votes) if route != "identified" else None
        estimate = None if b.empirical is None else b.empirical.value
        rows.append(
            _row(report, "majority", b.votes, route, b.interval, estimate, gains.get(("majority", b.votes)), model)
        )
    for a in report.aggregates:
        route = _route(a.votes, a.calls)
        model = None
        if route != "identified":
            model = (
                _answer_model(a, one_call)
                if a.aggregate == "plurality"
                else _family_model(report, a.aggregate, a.votes)
            )
        rows.append(
            _row(
                report, a.aggregate, a.votes, route, a.interval(), a.empirical, gains.get((a.aggregate, a.votes)), model
            )
        )
    for o in report.objectives:
        iv = o.interval
        m = _objective_model(report, o.objective) or _Model()
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
                forecast=m.point,
                forecast_lower=m.lower,
                forecast_upper=m.upper,
                forecast_model=m.model,
            )
        )
    return tuple(rows)


def _objective_model(report: Any, name: str) -> _Model | None:
    """The family forecast of an objective beyond the calls (its degree above them), if one was made."""
    result = getattr(report, "forecast", None)
    if result is None or result.family is None:
        return None
    found = {t.target: t for t in result.targets}.get(name)
    if found is None:
        return None
    model = _family_text(result)
    return _Model(found.estimate, found.lower, found.upper, model=model)


def _row(report, aggregate, votes, route, iv, estimate, gain, model: _Model | None) -> TargetRow:
    m = model or _Model()
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
        forecast=m.point,
        forecast_lower=m.lower,
        forecast_upper=m.upper,
        forecast_gain=m.gain,
        forecast_gain_lower=m.gain_lower,
        forecast_gain_upper=m.gain_upper,
        forecast_model=m.model,
    )


def report_frame(reports) -> Any:
    """The target rows of one or several reports as a tidy pandas DataFrame (one row per group x target).

    Columns are the fields of :class:`TargetRow`, in order; a budget of infinitely many calls is
    ``"inf"`` in ``votes``, as in the JSON. Needs pandas (``pip install 'certify[report]'``).
    """
    pandas = require("pandas", "a DataFrame of the analysis")
    columns = list(TargetRow.__dataclass_fields__)
    return pandas.DataFrame([row.to_dict() for r in reports for row in target_rows(r)], columns=columns)
