"""The text of ``certify analyze``: a verdict table per group that fits on a screen, and ``--details``.

**The default answer** (:func:`print_summary`) is what a user came for: per group, one table whose
rows are the aggregates (bit majority, plurality, pass@k) and whose columns are the budgets; each
cell is the gain of k calls over one call in percentage points -- ``better``, ``worse``,
``changes little`` or ``undecided`` with its interval -- and, beyond the recorded calls, the
model-based forecast beside it (``~+8.4``; :mod:`certify.stats._summary`). A line gives the
intervals of infinitely many calls, one the objectives, then at most three notes. Every number is
one of :meth:`AnalysisReport.rows`; ``--json`` holds all of them.

**The details** (:func:`print_details`, ``--details``): the two-call and all-call estimates, the
budget table (K-call, two-call, sharp-at-estimate, MaxEnt, LDGP and empirical columns), the
aggregates with the answer model, beyond the recorded calls each target's certain interval beside
its forecast (``certain [a, b]  forecast x [c, d] (family, fit p)``), every verdict with its
reason and every note.
"""

from __future__ import annotations

from .._numbers import percent, percentage_points, pp_interval
from .._objective import V_INF, budget_json
from ..stats import AnalysisReport, BudgetRow, IntervalEstimate, TargetRow, Verdict, votes_label
from ._output import print_line, print_table

__all__ = ["print_summary", "print_details", "SCREEN_WIDTH", "SCREEN_NOTES"]

#: Widest line the verdict table is laid out for; more budgets wrap into a second table.
SCREEN_WIDTH = 100
#: Most note lines the default answer shows; the rest are under --details.
SCREEN_NOTES = 3
#: Row labels of the verdict table.
_AGGREGATE_LABELS = {"majority": "majority", "plurality": "plurality", "pass@k": "pass@k"}


def _cell(row: TargetRow) -> str:
    """``better [+0.6, +5.8]``, ``undecided [-6.2, +16.4] ~+8.4`` or ``-`` (no verdict at this budget)."""
    if row.verdict is None or row.gain_lower is None or row.gain_upper is None:
        return "-"
    text = f"{Verdict.WORDS[row.verdict]} {pp_interval(row.gain_lower, row.gain_upper, digits=1)}"
    if row.forecast_gain is not None:
        text += f" ~{percentage_points(row.forecast_gain, digits=1)}"
    return text


def _chunks(widths: list[int], first: int, limit: int) -> list[list[int]]:
    """Split column indices into runs whose table (first column + 2 spaces per gap) fits in ``limit``."""
    out: list[list[int]] = [[]]
    used = first
    for i, w in enumerate(widths):
        if out[-1] and used + 2 + w > limit:
            out.append([])
            used = first
        out[-1].append(i)
        used += 2 + w
    return out


def _calls_phrase(rows: list[TargetRow], fewest: int) -> str:
    """``5 calls`` (``2-20 calls`` for ragged data: every example's calls, ``fewest`` on some), or which
    aggregate uses how many when they differ (``--calls`` reaches the majority only)."""
    by: dict[int, list[str]] = {}
    for x in rows:
        if x.calls is not None and x.aggregate not in by.setdefault(x.calls, []):
            by[x.calls].append(x.aggregate)

    def calls(k: int) -> str:
        return f"{k} calls" if fewest >= k else f"{fewest}-{k} calls"

    if len(by) <= 1:
        return calls(next(iter(by))) if by else "the calls"
    return ", ".join(f"{calls(k)} ({' and '.join(names)})" for k, names in by.items())


def _beyond_what(rows: list[TargetRow], recorded: int) -> str:
    """The phrase "the K recorded calls", or "the k calls used (of K recorded)" under ``--calls k``."""
    used = max((x.calls for x in rows if x.calls is not None), default=recorded)
    return f"the {recorded} recorded calls" if used >= recorded else f"the {used} calls used (of {recorded} recorded)"


def _how(rows: list[TargetRow]) -> str:
    methods = {r.method for r in rows if r.verdict is not None}
    if methods == {"two-call"}:
        return "two-call projected Wald interval"
    return "interval over every latent law the calls allow"


def print_summary(r: AnalysisReport) -> None:
    """The default answer for one group (module docstring)."""
    level = f"{100 * (1 - r.alpha):g}%"
    head = f"{r.source}" + (f" [{r.group}]" if r.group else "")
    calls = f"{r.calls}" if r.calls == r.max_calls else f"{r.calls}-{r.max_calls}"
    one = r.all_calls.mu if r.all_calls is not None else r.two_call.mu
    se = r.all_calls.se[0] if r.all_calls is not None else r.two_call.se_mu
    print_line(f"{head}: {r.n} examples x {calls} calls; one call is right {percent(one)}% (SE {percent(se)} pp)")
    rows = list(r.rows())
    gains = [x for x in rows if x.verdict is not None]
    if gains:
        print_line(f"gain of k calls over one call, pp ({level} {_how(gains)}; from {_calls_phrase(gains, r.calls)}):")
        budgets = list(dict.fromkeys(x.votes for x in gains))
        aggregates = list(dict.fromkeys(x.aggregate for x in gains))
        cells = {(x.aggregate, x.votes): _cell(x) for x in gains}
        table = [[_AGGREGATE_LABELS[a]] + [cells.get((a, k), "-") for k in budgets] for a in aggregates]
        headers = [f"{budget_json(k)} calls" for k in budgets]
        widths = [max(len(h), *(len(t[i + 1]) for t in table)) for i, h in enumerate(headers)]
        first = max(len("aggregate"), *(len(t[0]) for t in table))
        for part in _chunks(widths, first, SCREEN_WIDTH):
            print_table(
                ["aggregate"] + [headers[i] for i in part],
                [[t[0]] + [t[i + 1] for i in part] for t in table],
                align="left",
            )
    limits = [x for x in rows if x.votes is V_INF and x.lower is not None and x.upper is not None]
    if limits:
        names = {"majority": "majority", "plurality": "plurality", "pass@k": "pass@inf"}
        ends = ", ".join(
            f"{names[x.aggregate]} [{percent(x.lower or 0.0)}, {percent(x.upper or 0.0)}]%"
            + ("" if x.forecast is None else f" ~{percent(x.forecast)}%")
            for x in limits
        )
        print_line(f"infinitely many calls, accuracy ({level}): {ends}")
    for x in rows:
        if x.aggregate == "objective" and x.lower is not None and x.upper is not None:
            guess = "" if x.forecast is None else f" ~{x.forecast:.4f}"
            print_line(
                f"objective {x.objective}: [{x.lower:.4f}, {x.upper:.4f}]{guess} ({level}, from {x.calls} calls)"
            )
    forecasts = dict.fromkeys(f"  {x.aggregate}: {x.forecast_model}" for x in gains if x.forecast_model)
    if forecasts:
        print_line(f"~ forecast beyond {_beyond_what(rows, r.max_calls)} (model-based, NOT certified):")
        for line in forecasts:
            print_line(line)
    beyond = any(x.route == "beyond the calls" and x.aggregate in ("majority", "pass@k") for x in rows)
    if beyond and r.forecast is None and r.method == "likelihood":
        print_line(f"(--forecast: what is likely beyond {_beyond_what(rows, r.max_calls)}, from a model the data test)")
    notes = [n for n in r.notes if n not in r.details_only_notes]
    shown = notes if len(notes) <= SCREEN_NOTES else notes[: SCREEN_NOTES - 1]
    for note in shown:
        print_line(f"note: {note}")
    if len(shown) < len(notes):
        print_line(f"note: {len(notes) - len(shown)} more notes: --details")


def _f(x, digits=4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _interval(lo, up) -> str:
    return f"[{lo:.4f}, {up:.4f}]"


def _aggregate_label(aggregate: str, votes) -> str:
    """``pass@9``, ``pass@inf``, ``plurality of 5 calls``."""
    k = budget_json(votes)
    return f"pass@{k}" if aggregate == "pass@k" else f"{aggregate} of {k} calls"


def _print_aggregates(r: AnalysisReport, level: str) -> None:
    """Plurality and pass@k rows (one table, the aggregate in the first column) and the objectives."""
    if r.aggregates:
        rows = [
            [
                _aggregate_label(a.aggregate, a.votes),
                _interval(a.lower, a.upper),
                "-" if a.empirical is None else f"{a.empirical:.4f}",
                "identified" if a.empirical is not None else "beyond the calls",
            ]
            for a in r.aggregates
        ]
        print_table(["aggregate", level, "estimate", "route"], rows)
        print_line(
            "  plurality: a vote over the answers (fair ties); beyond the recorded calls its interval holds "
            "for every way the wrong answers split. pass@k: at least one of k calls correct; at k = inf its "
            "upper end is 1 by definition"
        )
        modelled = [(a, a.model) for a in r.aggregates if a.model is not None]
        if modelled:
            print_line(
                "  model-based, NOT certified (each call correct, the example's strongest wrong answer, or one of "
                "L equally likely other answers; holds only if that model does):"
            )
            for a, model in modelled:
                if model.rejected:  # the recorded answers reject the model: its numbers are no forecast
                    print_line(f"    {_aggregate_label(a.aggregate, a.votes)}: no forecast (the model is rejected)")
                    continue
                print_line(
                    f"    {_aggregate_label(a.aggregate, a.votes)}: {model.estimate:.4f} "
                    f"{_interval(model.lower, model.upper)}"
                )
            first = modelled[0][1]
            print_line(f"    calibration: {first.calibration}")
            if first.check:
                print_line(f"    check: {first.check}")
        print_line()
    if r.objectives:
        print_table(
            ["objective", level, "calibration"],
            [
                [o.objective, _interval(o.interval.lower, o.interval.upper), o.interval.calibration]
                for o in r.objectives
            ],
        )
        print_line()


def _target_label(row: TargetRow) -> str:
    if row.aggregate == "objective":
        return f"objective {row.objective}"
    return _aggregate_label(row.aggregate, row.votes)


def _print_forecast(r: AnalysisReport, level: str) -> None:
    """Beyond the recorded calls: the certain interval beside the model-based forecast, per target."""
    ahead = [row for row in r.rows() if row.route != "identified" and row.forecast_model is not None]
    if not ahead:
        return
    print_line(f"Beyond {_beyond_what(ahead, r.calls)}, what is certain ({level}, every latent law the calls allow)")
    print_line("beside what is likely (forecast: model-based, NOT certified):")
    fc = r.forecast
    guard = None if fc is None else fc.guard  # None: no family forecast (not asked, or every family rejected)
    family = None if fc is None or guard is None else f"{fc.family}, fit p {guard.p_value:.2f}"
    width = max(len(_target_label(row)) for row in ahead)
    for row in ahead:
        certain = "no interval" if row.lower is None else f"certain {_interval(row.lower, row.upper)}"
        if row.forecast is None:  # the data reject the model: why there is none instead of a number
            print_line(f"  {_target_label(row):{width}s}  {certain}  {row.forecast_model}")
            continue
        source = "answer model" if row.aggregate == "plurality" else family
        print_line(
            f"  {_target_label(row):{width}s}  {certain}  forecast {row.forecast:.4f} "
            f"{_interval(row.forecast_lower, row.forecast_upper)} ({source})"
        )
        if row.forecast_gain is not None:
            shown = percentage_points(row.forecast_gain)
            if row.forecast_gain_lower is not None and row.forecast_gain_upper is not None:
                shown += f" {pp_interval(row.forecast_gain_lower, row.forecast_gain_upper)}"
            sure = (
                ""
                if row.gain_lower is None or row.gain_upper is None
                else f"certain {pp_interval(row.gain_lower, row.gain_upper)} pp  "
            )
            print_line(f"  {'  gain over one call':{width}s}  {sure}forecast {shown} pp")
    if fc is not None and guard is not None:
        rejected = "; ".join(f"{g.family} (p = {g.p_value:.3f})" for g in fc.rejected)
        joined = ", ".join([guard.family, *(g.family for g in fc.pooled)])
        print_line(
            f"  forecast: {fc.family} family fitted to every call, not rejected by the data "
            f"(goodness-of-fit p = {guard.p_value:.2f});"
        )
        print_line(f"  {'rejected before it: ' + rejected if rejected else 'no family rejected before it'};")
        print_line(
            f"  intervals: union of the {level} parametric bootstrap percentile intervals (B = {fc.bootstrap}, "
            f"seed {fc.seed}) of"
        )
        print_line(f"  {joined}")
    print_line()


def _reported(b: BudgetRow) -> IntervalEstimate:
    """The interval ``b`` reports: every budget row of an analysis holds one (``analyze``, ``two_call_view``)."""
    assert b.interval is not None
    return b.interval


def print_details(r: AnalysisReport) -> None:
    """The full text report of one group (``--details``; module docstring)."""
    t = r.two_call
    level = f"{100 * (1 - r.alpha):g}%"
    head = f"{r.source}" + (f" [{r.group}]" if r.group else "")
    calls = f"{r.calls}" if r.calls == r.max_calls else f"{r.calls}-{r.max_calls}"
    print_line(f"{head}: {r.n} examples x {calls} calls")
    print_line(f"  one call  mu-hat  = {t.mu:.4f} (SE {t.se_mu:.4f})    rho-hat = {t.rho:.4f} (SE {t.se_rho:.4f})")
    pt = t.pair_table
    print_line(
        f"  first two calls: both right {percent(pt.both_correct)}%, disagree {percent(pt.disagree)}%, "
        f"both wrong {percent(pt.both_wrong)}%"
    )
    if r.all_calls is not None:
        a = r.all_calls
        print_line(
            f"  all {r.calls} calls (U-statistics): mu = {a.mu:.4f} (SE {a.se[0]:.4f}), "
            f"rho = {a.rho:.4f} (SE {a.se_rho:.4f})"
        )
    rows = []
    likelihood = r.method == "likelihood"
    two_call = r.region is not None  # an empty Wald region drops the two-call column (a note says why)
    for b in r.budgets:
        emp = "-" if b.empirical is None else f"{b.empirical.value:.4f} +- {b.empirical.se:.4f}"
        row = [votes_label(b.votes)]
        if likelihood:
            iv = _reported(b)
            row.append(_interval(iv.lower, iv.upper))
        if two_call:
            assert b.projected is not None  # a two-call region: every budget of the analysis was projected
            row.append(_interval(b.projected.lower, b.projected.upper))
        row += [_interval(b.sharp_lower, b.sharp_upper), _f(b.maxent), _f(b.ldgp), emp]
        rows.append(row)
    print_line()
    calls_used = _reported(r.budgets[0]).calls if likelihood else 2
    # ragged data: the intervals use every example's calls, as few as r.calls on some examples
    calls_text = f"{calls_used} calls" if r.calls >= calls_used else f"{r.calls}-{calls_used} calls"
    # with --calls the intervals use the first calls only; the empirical check still uses every call
    empirical = "empirical" if calls_used == r.calls else f"empirical ({r.calls} calls)"
    headers = (
        ["budget"]
        + ([f"{level} from {calls_text}"] if likelihood else [])
        + ([f"{level} two-call"] if two_call else [])
        + ["sharp at estimate", "MaxEnt", "LDGP", empirical]
    )
    print_table(headers, rows)
    calibrations = dict.fromkeys(f"{iv.method} ({iv.calibration})" for iv in map(_reported, r.budgets))
    print_line(f"  intervals: {'; '.join(calibrations)}; sharp at estimate = no sampling uncertainty")
    print_line()
    _print_aggregates(r, level)
    _print_forecast(r, level)
    print_line(f"Verdict ({level}, {'from ' + calls_text if likelihood else 'two-call'}, distribution-free):")
    for v in r.verdicts:
        if v.aggregate == "majority":
            print_line(f"  {v.text}")
    for c in r.comparisons:
        print_line(
            f"  empirical {c.label_b} vs {c.label_a}: {percentage_points(c.difference)} pp "
            f"{pp_interval(c.lower, c.upper)}"
        )
    others = [v for v in r.verdicts if v.aggregate != "majority"]
    if others:
        print_line(f"Verdicts of the other aggregates ({level}; each interval's method in --json):")
        for v in others:
            print_line(f"  {v.text}")
    for note in r.notes:
        print_line(f"  note: {note}")
