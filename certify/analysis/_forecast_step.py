"""The analysis's forecast beyond the recorded calls: which targets, one family forecast per group.

Beyond the recorded calls an analysis reports what is certain, the interval over every latent
law the calls allow (:mod:`certify.likelihood`). With ``forecast=True`` (``--forecast``) it also
reports what is likely: :func:`certify.forecast.forecast` fits parametric families of the
latent law to every call, drops those the data reject (a parametric-bootstrap likelihood-ratio
guard against the NPMLE) and forecasts, from the best family left (its intervals joined with
those of every other family within 20 BIC units that the data do not reject), each target beyond the
calls: the majority of k calls and pass@k at every such budget, V_inf and pass@inf, the gain
of each over one call, and each objective (``--objective``) of degree above the calls. It
shares the analysis's cells and NPMLE. Nothing here is certified.

A forecast interval should lie inside the distribution-free interval of the same target (both
at the analysis's level): the latter covers every law the calls allow, the family's among
them. Where it does not, :func:`outside_notes` says so, as evidence against the family.
"""

from __future__ import annotations

from .._objective import V_INF, budget_json, is_vote_limit
from ..forecast import Forecast, forecast

__all__ = ["forecast_request", "run_forecast", "outside_notes", "forecast_names"]


def forecast_names(aggregate: str, votes) -> tuple[str, str] | None:
    """The forecast targets of an aggregate at a budget: (accuracy, gain over one call), or None
    (plurality: its forecast is the answer model's, :mod:`._answer_model`)."""
    if aggregate == "majority":
        return ("V_inf", "V_inf - V1") if is_vote_limit(votes) else (f"V{votes}", f"V{votes} - V1")
    if aggregate == "pass@k":
        k = budget_json(votes)  # "inf" for infinitely many calls, as the forecast's targets read it
        return f"pass@{k}", f"pass@{k} - V1"
    return None


def forecast_request(votes, aggregate_votes, aggregates, calls: int, objectives=()) -> list[str]:
    """The targets to forecast: every majority and pass@k budget beyond ``calls`` and every objective
    of degree above ``calls`` (module docstring)."""
    wanted = [("majority", v) for v in votes]
    if "pass@k" in aggregates:
        wanted += [("pass@k", v) for v in aggregate_votes]
    names: list[str] = []
    for aggregate, v in wanted:
        pair = forecast_names(aggregate, v)
        if pair is not None and (v is V_INF or v > calls):
            names += [n for n in pair if n not in names]
    names += [o.name for o in objectives if o.degree > calls and o.name not in names]
    return names


def run_forecast(cells, reference, names: list[str], alpha: float, bootstrap: int | None, seed: int) -> Forecast | None:
    """The family forecast of ``names`` from the analysis's cells and NPMLE (None without targets)."""
    if not names:
        return None
    return forecast(cells, names, alpha=alpha, bootstrap=bootstrap, seed=seed, reference=reference)


def outside_notes(rows, result: Forecast | None) -> list[str]:
    """A note for each forecast interval that leaves the distribution-free interval of its target."""
    if result is None or result.family is None:
        return []
    notes = []
    for row in rows:
        fc = None if row.forecast is None else row.forecast.accuracy
        iv = row.interval
        if fc is None or fc.lower is None or fc.upper is None or iv is None or iv.lower is None or iv.upper is None:
            continue
        # a little slack: both ends are computed in floating point
        if fc.lower < iv.lower - 1e-9 or fc.upper > iv.upper + 1e-9:
            notes.append(
                f"the {result.family} forecast of {row.target.label} "
                f"[{fc.lower:.4f}, {fc.upper:.4f}] leaves the distribution-free interval "
                f"[{iv.lower:.4f}, {iv.upper:.4f}]: evidence against the {result.family} family"
            )
    return notes
