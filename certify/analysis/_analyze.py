"""The analysis of one policy's correctness bits, as frozen, serializable results.

:func:`analyze` runs the whole pipeline of the paper on one :class:`CallBits`:
two-call estimates (Section 4.4), sharp intervals at the point estimate
(Theorem 4.1, Theorem 4.3), the projected 1 - alpha interval hull (eqs. 3.7-3.8),
the MaxEnt and LDGP completions (Sec. 4), and -- when every example has enough
calls -- the U-statistic moments and the empirical vote accuracies.

Each budget's confidence interval comes from one of two methods (``method=``):

``"likelihood"`` (default)
    The likelihood-ratio interval from every recorded call (all K_i calls of each
    example; :mod:`certify.likelihood`): the min and max of E_pi[g] over the
    laws whose log-likelihood is within c = chi2_{1, 1-alpha}/2 of the NPMLE's
    (profile calibration; ``simultaneous=True`` uses chi2 with the identified
    dimension so that all intervals hold at once). Asymptotic calibration.
``"two-call"``
    The paper's projected Wald region from the first two calls (Section 4.4,
    eqs. 3.7-3.8). Asymptotic calibration.

The verdict on improvement over one call is the interval of the gain V_m - V_1
itself (a polynomial, P_n(q) - q) under the same method -- not a difference of two
intervals: "better" when its lower end is above 0, "worse" when its upper end is
below 0, "negligible" when it holds 0 but lies within +-NEGLIGIBLE_GAIN (voting is
certified to change the accuracy by less than that), else "undetermined".
"""

from __future__ import annotations

import math
from dataclasses import replace

from .._bounds import sharp_bounds
from .._calls import CallBits
from .._endpoint import endpoint_bounds
from .._errors import CertifyError, InputError, SolverError
from .._interval import Interval
from .._objective import (
    V_INF,
    budget_json,
    parse_objective,
    parse_vote_budgets,
    vote_accuracy,
    vote_gain,
)
from .._validation import check_alpha
from ..likelihood import CellCounts, likelihood_intervals, npmle
from ..readers import read_bits
from ..solvers import Faces
from ..stats import (
    EmptyRegionError,
    ProjectedInterval,
    WaldRegion,
    all_call_estimates,
    compare_budgets,
    complete,
    empirical_vote_accuracy,
    project_many,
    two_call_estimates,
    votes_label,
    wald_region,
)
from ._aggregates import AggregateBudget, aggregate_budgets, aggregate_verdict_intervals, parse_aggregate
from ._forecast_step import forecast_request, outside_notes, run_forecast
from ._results import AnalysisReport, BudgetRow, ObjectiveInterval, SolvedIntervals
from ._verdict import _verdicts, gain_verdict, verdict_budgets

__all__ = ["METHODS", "analyze", "parse_votes", "two_call_view"]


#: Interval methods of :func:`analyze` (module docstring).
METHODS = ("likelihood", "two-call")


def parse_votes(tokens) -> tuple:
    """Vote budgets from ints / strings: positive counts (any parity) or V_inf in any spelling
    (:data:`certify.V_INF`, ``"inf"``, ...), at least one (:func:`certify.parse_vote_budget`)."""
    return parse_vote_budgets(tokens)


def _sharp_at(votes, mu: float, nu: float, faces: Faces) -> tuple[float, float]:
    if votes is V_INF:
        e = endpoint_bounds(mu=mu, nu=nu)
        return e.lower, e.upper
    b = sharp_bounds(votes, mu=mu, nu=nu, faces=faces)
    return b.lower.value, b.upper.value


def _feasible(mu: float, nu: float) -> tuple[float, float, bool]:
    """Snap (mu-hat, nu-hat) into F; True if it had to move (sample outside the moment cone)."""
    m = min(max(mu, 0.0), 1.0)
    v = min(max(nu, m * m), m)
    return m, v, (m, v) != (mu, nu)


def _aggregate_results(
    data: CallBits, aggregate: str, votes, alpha: float, notes: list, shared: tuple = (None, None)
) -> tuple[list, list]:
    """An aggregate's rows and gain intervals at ``votes``, all from one likelihood set when it can be.

    When the likelihood solver fails on one budget (:class:`SolverError`), each budget is
    solved on its own and a failed one is left out with a note, so that one hard objective
    does not take the whole analysis with it (its interval is missing, never guessed).
    """
    try:
        return (
            list(aggregate_budgets(data, aggregate, votes, alpha, *shared)),
            list(aggregate_verdict_intervals(data, aggregate, verdict_budgets(votes), alpha, *shared)),
        )
    except SolverError:
        pass
    rows: list[AggregateBudget] = []
    gains: list[tuple[int, Interval]] = []
    for v in votes:
        try:
            rows += aggregate_budgets(data, aggregate, (v,), alpha, *shared)
        except SolverError as exc:
            notes.append(f"{aggregate} of {budget_json(v)} calls: no interval, the likelihood solver failed ({exc})")
    for v in verdict_budgets(votes):
        try:
            gains += aggregate_verdict_intervals(data, aggregate, (v,), alpha, *shared)
        except SolverError as exc:
            notes.append(f"{aggregate} of {v} calls against one call: no verdict, the likelihood solver failed ({exc})")
    return rows, gains


def analyze(
    data: CallBits,
    votes=(3, 5, V_INF),
    alpha: float = 0.05,
    *,
    singular: str = "floor",
    method: str = "likelihood",
    calls: int | None = None,
    simultaneous: bool = False,
    aggregates=("majority",),
    objectives=(),
    aggregate_votes=None,
    forecast: bool = False,
    bootstrap: int | None = None,
    seed: int = 0,
) -> AnalysisReport:
    """Full analysis of one policy's bits (module docstring).

    Parameters
    ----------
    data : CallBits, pandas.DataFrame, str or Path
        The bits, or a table of them read by :func:`certify.readers.read_bits` (a DataFrame
        or a file in wide or long form, with answers and a target or with bits; one group).
    votes : sequence
        Budgets: vote counts and :data:`certify.V_INF` (or any spelling of it, ``"inf"``).
    alpha : float
        1 - confidence level of the intervals and comparisons.
    singular : {"floor", "pinv"}
        Rule for a singular Sigma-hat (see :func:`wald_region`).
    method : {"likelihood", "two-call"}
        How each budget's ``interval`` and the verdicts are made (module docstring).
    calls : int, optional
        ``"likelihood"`` only: use the first ``calls`` calls of each example (>= 2;
        an example with fewer keeps all of its own) for every interval and verdict: the
        majority's budgets and gains, the objectives, plurality and pass@k (whose routes and
        estimates then follow the calls used). Only the majority's empirical column and its
        paired comparisons keep every call, as an independent check. Default: every recorded call.
    simultaneous : bool
        ``"likelihood"`` only: calibrate so that every interval holds at once.
    aggregates : sequence of str
        Besides the bit majority (always reported): ``"plurality"`` (needs answers) and
        ``"pass@k"`` (``"pass"``), each with an interval per budget and verdicts on the gains
        (:mod:`certify.analysis._aggregates`).
    aggregate_votes : sequence, optional
        The budgets of those other aggregates, when fewer than ``votes`` are wanted (each one
        beyond the recorded calls costs likelihood solves). Default: ``votes``.
    objectives : sequence
        Polynomial objectives in q (``"1 - (1-q)**8"``, ``"V5 - V3"``), each with an interval
        by ``method`` (:class:`ObjectiveInterval`).
    forecast : bool
        ``"likelihood"`` only: also forecast the majority and pass@k budgets beyond the recorded
        calls from the best parametric family of the latent law the data do not reject
        (:mod:`certify.analysis._forecast_step`; model-based, not certified): ``AnalysisReport.forecast``
        and the forecast columns of :meth:`AnalysisReport.rows`.
    bootstrap, seed : int
        The forecast's parametric bootstrap draws per family tried (default: the forecast's,
        :func:`certify.forecast.forecast`), and their seed.
    """
    if not isinstance(data, CallBits):
        data = read_bits(data)
    votes = parse_votes(votes)
    aggregate_votes = votes if aggregate_votes is None else parse_votes(aggregate_votes)
    extra = [a for a in dict.fromkeys(parse_aggregate(a) for a in aggregates) if a != "majority"]
    wanted = [parse_objective(o) for o in objectives]
    alpha = check_alpha(alpha)
    if method not in METHODS:
        raise InputError(f"method={method!r} must be one of {', '.join(METHODS)}")
    if calls is not None and (
        isinstance(calls, bool) or not isinstance(calls, int) or not 2 <= calls <= data.max_calls
    ):
        raise InputError(
            f"calls={calls!r} must be an integer from 2 to {data.max_calls} (the most calls of an example)"
        )
    if method == "two-call" and (calls is not None or simultaneous or forecast):
        raise InputError("calls=, simultaneous= and forecast= apply to method='likelihood' only")
    notes = []
    details_only = []  # notes on numbers only --details shows (AnalysisReport.details_only_notes)
    two = two_call_estimates(data)
    try:
        region: WaldRegion | None = wald_region(two, alpha, singular=singular)
    except EmptyRegionError as exc:
        if method != "likelihood":
            raise
        # only the two-call column fails: the likelihood intervals use every call and stand on their own
        region = None
        notes.append(f"no two-call interval: {exc}")
        details_only.append(notes[-1])
    if region is not None and region.floored:
        notes.append(
            f"Sigma-hat (the two-call covariance) is (near-)singular: {region.floored} eigenvalue(s) raised to "
            f"1/N = {1 / two.n:.3g}, which widens the two-call intervals (never narrows them); the intervals from "
            "all calls do not use it"
        )
        if method == "likelihood":
            details_only.append(notes[-1])
    mu, nu, moved = _feasible(two.mu, two.nu)
    if moved:
        notes.append(
            f"(mu-hat, nu-hat) lies outside the moment set F; point-estimate values use its nearest point "
            f"({mu:.6g}, {nu:.6g})"
        )
    gain_budgets = verdict_budgets(votes)
    targets = list(votes) + [vote_gain(v) for v in gain_budgets] + wanted
    faces = Faces()  # the analysis's sharp bounds share the faces they find, and only these
    projected = (
        [None] * len(targets) if region is None else project_many([region], targets, certify=False, faces=faces)[0]
    )
    used = data if calls is None else data.first_calls(calls)  # calls= reaches every target alike
    # one set of cells and one NPMLE per group, shared by every likelihood interval of every target
    cells = CellCounts.from_bits(used)
    reference = npmle(cells) if method == "likelihood" else None
    intervals, solved = _intervals(cells, reference, targets, projected, alpha, method, simultaneous)
    completions, curves = [], {}
    for completion in ("maxent", "ldgp"):
        try:
            c = complete(mu=mu, nu=nu, method=completion)
            completions.append(c)
            curves[completion] = c
        except CertifyError as exc:
            notes.append(f"{completion} completion failed: {exc}")
    allc = None
    if data.calls >= 3:
        allc = all_call_estimates(data)
    rows = []
    for v, proj, iv in zip(votes, projected, intervals):
        lo, up = _sharp_at(v, mu, nu, faces)
        emp = empirical_vote_accuracy(data, v) if v is not V_INF and v <= data.calls else None
        mlo = mup = None
        if allc is not None and v is not V_INF:
            try:
                b = sharp_bounds(v, moments=list(allc.moments), faces=faces)
                mlo, mup = b.lower.value, b.upper.value
            except InputError:
                notes.append(
                    f"the {allc.order} moments estimated from all calls (U-statistics) fit no law on [0, 1], as "
                    "sampling noise allows; only the JSON's sharp range at them (moment_lower, moment_upper) is empty: "
                    "no interval shown depends on them"
                )
                details_only.append(notes[-1])
            except SolverError as exc:
                # the exact solver at many moments (hundreds of calls): this one column is left empty
                notes.append(
                    f"the sharp range at the {allc.order} moments estimated from all calls (moment_lower, "
                    f"moment_upper in the JSON) was not solved ({exc}); no interval shown depends on it"
                )
                details_only.append(notes[-1])
        if emp is not None and iv.route == "identified":  # the estimate the interval surrounds
            # the estimate from the calls the interval uses (calls=): the empirical column keeps every call
            iv = replace(iv, estimate=(emp if used is data else empirical_vote_accuracy(used, v)).value)
        rows.append(
            BudgetRow(v, lo, up, proj, _curve(curves, "maxent", v), _curve(curves, "ldgp", v), emp, mlo, mup, iv)
        )
    gains = slice(len(votes), len(votes) + len(gain_budgets))
    verdicts = list(_verdicts(data, gain_budgets, intervals[gains]))
    objective_rows = tuple(ObjectiveInterval(o.name, iv) for o, iv in zip(wanted, intervals[gains.stop :]))
    aggregate_rows = []
    for aggregate in extra:
        rows_of, gains_of = _aggregate_results(used, aggregate, aggregate_votes, alpha, notes, (cells, reference))
        aggregate_rows += rows_of
        verdicts += [gain_verdict(v, gain, aggregate=aggregate) for v, gain in gains_of]
    comparisons = tuple(compare_budgets(data, 1, v, alpha) for v in gain_budgets if v <= data.calls)
    predicted = None
    if forecast:
        names = forecast_request(votes, aggregate_votes, extra, used.calls, wanted)
        predicted = run_forecast(cells, reference, names, alpha, bootstrap, seed)
    report = AnalysisReport(
        source=data.source,
        group=data.group,
        n=data.n,
        calls=data.calls,
        max_calls=data.max_calls,
        alpha=float(alpha),
        two_call=two,
        all_calls=allc,
        region=None if region is None else region.to_dict(),
        budgets=tuple(rows),
        verdicts=tuple(verdicts),
        completions=tuple(completions),
        comparisons=comparisons,
        notes=tuple(dict.fromkeys(notes)),
        method=method,
        aggregates=tuple(aggregate_rows),
        objectives=objective_rows,
        likelihood=solved,
        projected_gains=tuple(projected[gains]),
        details_only_notes=tuple(dict.fromkeys(details_only)),
        forecast=predicted,
    )
    outside = outside_notes(report.rows(), predicted)
    return replace(report, notes=report.notes + tuple(outside)) if outside else report


def two_call_view(report: AnalysisReport, data: CallBits, votes=(3, 5, V_INF)) -> AnalysisReport:
    """``analyze(data, votes, method="two-call")``, derived from an analysis of ``data`` that already holds it.

    Every analysis projects the two-call Wald region onto each budget and each gain (the
    ``projected`` interval of its rows, :attr:`AnalysisReport.projected_gains`), whatever its
    method; so one likelihood analysis of many budgets yields the paper's two-call report of
    any of them without solving anything again: only the rows are chosen, their ``interval``
    becomes the projected one and the verdicts are taken on the projected gains. Like the
    two-call analysis of ``votes`` alone, the view holds no aggregates and no ``--objective`` rows.

    Parameters
    ----------
    report : AnalysisReport
        From :func:`analyze` of ``data`` (same alpha and singular rule), with every budget of ``votes``.
    data : CallBits
        The analysed bits (the verdicts' reasons use the one-call accuracy).
    votes : sequence
        The budgets of the view.

    Raises
    ------
    InputError
        A budget (or a gain) the report does not hold.
    EmptyRegionError
        The two-call Wald region of the data is empty (the report has no projected intervals).
    """
    votes = parse_votes(votes)
    if report.region is None:  # what analyze(method="two-call") raises on these data
        raise EmptyRegionError(
            f"the analysis holds no two-call interval: the Wald region misses the moment set ({report.source})"
        )
    rows = {b.votes: b for b in report.budgets}
    majority = [v.votes for v in report.verdicts if v.aggregate == "majority"]  # in the order of projected_gains
    gains = dict(zip(majority, report.projected_gains))
    gain_budgets = verdict_budgets(votes)
    missing = [votes_label(v) for v in votes if v not in rows] + [f"V{v} - V1" for v in gain_budgets if v not in gains]
    if missing:
        raise InputError(f"the analysis holds no two-call interval of {', '.join(missing)}")
    budgets = tuple(replace(rows[v], interval=_two_call_interval(rows[v].projected, report.alpha, v)) for v in votes)
    verdicts = _verdicts(
        data, gain_budgets, [_two_call_interval(gains[v], report.alpha, vote_gain(v)) for v in gain_budgets]
    )
    compared = dict(zip([v for v in majority if v <= report.calls], report.comparisons))
    return replace(
        report,
        budgets=budgets,
        verdicts=verdicts,
        comparisons=tuple(compared[v] for v in gain_budgets if v in compared),
        method="two-call",
        aggregates=(),
        objectives=(),
        likelihood=None,
        projected_gains=tuple(gains[v] for v in gain_budgets),
    )


def _two_call_interval(projected: ProjectedInterval | None, alpha: float, target) -> Interval:
    """The reported interval of the two-call method: the projected Wald region (Section 4.4)."""
    # None only without a Wald region, where the two-call method raises before asking for intervals
    assert projected is not None
    return Interval(
        projected.lower,
        projected.upper,
        float(alpha),
        "two-call",
        "asymptotic, projected Wald region chi2(2)",
        2,
        route="identified" if _degree(target) <= 2 else "beyond the calls",
    )


def _degree(target) -> float:
    """The degree of a target (a budget, a gain or an objective); infinite for the step V_inf."""
    if target is V_INF:
        return math.inf
    return (vote_accuracy(target) if isinstance(target, int) else target).degree


def _intervals(
    cells: CellCounts, reference, objectives: list, projected, alpha: float, method: str, simultaneous: bool
) -> tuple[list[Interval], SolvedIntervals | None]:
    """The reported 1 - alpha interval of each objective by ``method`` (module docstring), and the solved
    likelihood intervals behind them (None for the two-call method)."""
    if method == "two-call":
        return [_two_call_interval(p, alpha, o) for p, o in zip(projected, objectives)], None
    ivs = likelihood_intervals(cells, objectives, alpha=alpha, simultaneous=simultaneous, reference=reference)
    return [iv.interval(cells.max_calls) for iv in ivs], SolvedIntervals(cells, tuple(objectives), tuple(ivs))


def _curve(curves: dict, method: str, votes) -> float | None:
    c = curves.get(method)
    if c is None:
        return None
    value = c.value(votes)
    return value if math.isfinite(value) else None
