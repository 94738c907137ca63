"""The text of an analysis: a verdict table per group that fits on a screen, and the details.

What ``certify analyze`` prints (:meth:`AnalysisReport.text`, ``details=True`` under ``--details``), one
logical line at a time (:meth:`AnalysisReport.text_lines`: a terminal escapes each, so that a
name holding a line break stays on its line); a Python user gets the same text.

**The default answer** (:func:`summary_lines`) is what a user came for: per group, one table whose
rows are the aggregates (bit majority, plurality, pass@k) and whose columns are the budgets; each
cell is the gain of k calls over one call in percentage points -- ``better``, ``worse``,
``changes little`` or ``undecided`` with its interval -- and, beyond the recorded calls, the
model-based forecast beside it (``~+8.4``; :mod:`certify.analysis._rows`). A line gives the
intervals of infinitely many calls, one the objectives, then at most three notes. Every number is
one of :meth:`AnalysisReport.rows`; ``--json`` holds all of them.

**The details** (:func:`details_lines`, ``--details``): the two-call and all-call estimates, the
budget table (K-call, two-call, sharp-at-estimate, MaxEnt, LDGP and empirical columns), the
aggregates with the answer model, beyond the recorded calls each target's certain interval beside
its forecast (``certain [a, b]  forecast x [c, d] (family, fit p)``), every verdict with its
reason and every note.
"""

from __future__ import annotations

from typing import Any

from .._interval import Interval
from .._numbers import percent, percentage_points, pp_interval
from .._objective import V_INF, budget_json, votes_label
from .._text import table_lines
from ._rows import TargetRow
from ._verdict import Verdict

__all__ = ["summary_lines", "details_lines", "SCREEN_WIDTH", "SCREEN_NOTES"]

#: Widest line the verdict table is laid out for; more budgets wrap into a second table.
SCREEN_WIDTH = 100
#: Most note lines the default answer shows; the rest are under --details.
SCREEN_NOTES = 3
#: Row labels of the verdict table.
_AGGREGATE_LABELS = {"majority": "majority", "plurality": "plurality", "pass@k": "pass@k"}


class _Text:
    """The lines of one text, added one at a time or as a table."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, text: str = "") -> None:
        self.lines.append(str(text))

    def table(self, headers, rows, align: str = "right") -> None:
        self.lines += table_lines(headers, rows, align)


def _cell(row: TargetRow) -> str:
    """``better [+0.6, +5.8]``, ``undecided [-6.2, +16.4] ~+8.4`` or ``-`` (no verdict at this budget)."""
    v = row.verdict
    if v is None or v.gain.lower is None or v.gain.upper is None:
        return "-"
    text = f"{Verdict.WORDS[v.status]} {pp_interval(v.gain.lower, v.gain.upper, digits=1)}"
    gain = _forecast_gain(row)
    if gain is not None and gain.estimate is not None:
        text += f" ~{percentage_points(gain.estimate, digits=1)}"
    return text


def _forecast(row: TargetRow) -> Interval | None:
    """The forecast interval of the row's accuracy (None: no forecast, or the model is rejected)."""
    return None if row.forecast is None else row.forecast.accuracy


def _forecast_gain(row: TargetRow) -> Interval | None:
    return None if row.forecast is None else row.forecast.gain


def _calls(row: TargetRow) -> int | None:
    """Calls per example the row's interval uses (its verdict's for a row without one)."""
    iv = row.interval if row.interval is not None else (None if row.verdict is None else row.verdict.gain)
    return None if iv is None else iv.calls


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
        used = _calls(x)
        if used is not None and x.target.aggregate not in by.setdefault(used, []):
            by[used].append(x.target.aggregate)

    def calls(k: int) -> str:
        return f"{k} calls" if fewest >= k else f"{fewest}-{k} calls"

    if len(by) <= 1:
        return calls(next(iter(by))) if by else "the calls"
    return ", ".join(f"{calls(k)} ({' and '.join(names)})" for k, names in by.items())


def _beyond_what(rows: list[TargetRow], recorded: int) -> str:
    """The phrase "the K recorded calls", or "the k calls used (of K recorded)" under ``--calls k``."""
    used = max((c for c in map(_calls, rows) if c is not None), default=recorded)
    return f"the {recorded} recorded calls" if used >= recorded else f"the {used} calls used (of {recorded} recorded)"


def _how(rows: list[TargetRow]) -> str:
    methods = {r.verdict.gain.method for r in rows if r.verdict is not None}
    if methods == {"two-call"}:
        return "two-call projected Wald interval"
    return "interval over every latent law the calls allow"


def summary_lines(r: Any) -> list[str]:
    """The default answer for one group (module docstring), as text; ``r`` is an :class:`AnalysisReport`."""
    out = _Text()
    level = f"{100 * (1 - r.alpha):g}%"
    head = f"{r.source}" + (f" [{r.group}]" if r.group else "")
    calls = f"{r.calls}" if r.calls == r.max_calls else f"{r.calls}-{r.max_calls}"
    one = r.all_calls.mu if r.all_calls is not None else r.two_call.mu
    se = r.all_calls.se[0] if r.all_calls is not None else r.two_call.se_mu
    out(f"{head}: {r.n} examples x {calls} calls; one call is right {percent(one)}% (SE {percent(se)} pp)")
    rows = list(r.rows())
    gains = [x for x in rows if x.verdict is not None]
    if gains:
        out(f"gain of k calls over one call, pp ({level} {_how(gains)}; from {_calls_phrase(gains, r.calls)}):")
        budgets = list(dict.fromkeys(x.target.votes for x in gains))
        aggregates = list(dict.fromkeys(x.target.aggregate for x in gains))
        cells = {(x.target.aggregate, x.target.votes): _cell(x) for x in gains}
        table = [[_AGGREGATE_LABELS[a]] + [cells.get((a, k), "-") for k in budgets] for a in aggregates]
        headers = [f"{budget_json(k)} calls" for k in budgets]
        widths = [max(len(h), *(len(t[i + 1]) for t in table)) for i, h in enumerate(headers)]
        first = max(len("aggregate"), *(len(t[0]) for t in table))
        for part in _chunks(widths, first, SCREEN_WIDTH):
            out.table(
                ["aggregate"] + [headers[i] for i in part],
                [[t[0]] + [t[i + 1] for i in part] for t in table],
                align="left",
            )
    limits = []
    for x in rows:
        ends, point = _ends(x.interval), _point(_forecast(x))
        if x.target.votes is V_INF and ends is not None:
            name = {"pass@k": "pass@inf"}.get(x.target.aggregate, x.target.aggregate)
            guess = "" if point is None else f" ~{percent(point)}%"
            limits.append(f"{name} [{percent(ends[0])}, {percent(ends[1])}]%{guess}")
    if limits:
        out(f"infinitely many calls, accuracy ({level}): {', '.join(limits)}")
    for x in rows:
        objective_ends = _ends(x.interval)
        if x.target.aggregate == "objective" and objective_ends is not None:
            point = _point(_forecast(x))
            guess = "" if point is None else f" ~{point:.4f}"
            text = _interval(*objective_ends)
            out(f"objective {x.target.objective}: {text}{guess} ({level}, from {_calls(x)} calls)")
    forecasts = dict.fromkeys(f"  {x.target.aggregate}: {x.forecast.model}" for x in gains if x.forecast is not None)
    if forecasts:
        out(f"~ forecast beyond {_beyond_what(rows, r.max_calls)} (model-based, NOT certified):")
        for line in forecasts:
            out(line)
    beyond = any(
        x.interval is not None
        and x.interval.route == "beyond the calls"
        and x.target.aggregate in ("majority", "pass@k")
        for x in rows
    )
    if beyond and r.forecast is None and r.method == "likelihood":
        out(f"(--forecast: what is likely beyond {_beyond_what(rows, r.max_calls)}, from a model the data test)")
    notes = [n for n in r.notes if n not in r.details_only_notes]
    shown = notes if len(notes) <= SCREEN_NOTES else notes[: SCREEN_NOTES - 1]
    for note in shown:
        out(f"note: {note}")
    if len(shown) < len(notes):
        out(f"note: {len(notes) - len(shown)} more notes: --details")
    return out.lines


def _ends(iv: Interval | None) -> tuple[float, float] | None:
    """The interval's two ends, or None where it has none."""
    return None if iv is None or iv.lower is None or iv.upper is None else (iv.lower, iv.upper)


def _point(iv: Interval | None) -> float | None:
    return None if iv is None else iv.estimate


def _f(x, digits=4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _interval(lo, up) -> str:
    return f"[{lo:.4f}, {up:.4f}]"


def _aggregate_label(aggregate: str, votes) -> str:
    """``pass@9``, ``pass@inf``, ``plurality of 5 calls``."""
    k = budget_json(votes)
    return f"pass@{k}" if aggregate == "pass@k" else f"{aggregate} of {k} calls"


def _print_aggregates(r: Any, level: str, out: _Text) -> None:
    """Plurality and pass@k rows (one table, the aggregate in the first column) and the objectives."""
    if r.aggregates:
        rows = [
            [
                _aggregate_label(a.aggregate, a.votes),
                _interval(a.interval.lower, a.interval.upper),
                _f(a.interval.estimate),
                a.interval.route,
            ]
            for a in r.aggregates
        ]
        out.table(["aggregate", level, "estimate", "route"], rows)
        out(
            "  plurality: a vote over the answers (fair ties); beyond the recorded calls its interval holds "
            "for every way the wrong answers split. pass@k: at least one of k calls correct; at k = inf its "
            "upper end is 1 by definition"
        )
        modelled = [(a, a.model) for a in r.aggregates if a.model is not None]
        if modelled:
            out(
                "  model-based, NOT certified (each call correct, the example's strongest wrong answer, or one of "
                "L equally likely other answers; holds only if that model does):"
            )
            for a, model in modelled:
                if model.rejected:  # the recorded answers reject the model: its numbers are no forecast
                    out(f"    {_aggregate_label(a.aggregate, a.votes)}: no forecast (the model is rejected)")
                    continue
                out(
                    f"    {_aggregate_label(a.aggregate, a.votes)}: {_f(model.interval.estimate)} "
                    f"{_interval(model.interval.lower, model.interval.upper)}"
                )
            first = modelled[0][1]
            out(f"    calibration: {first.interval.calibration}")
            if first.check:
                out(f"    check: {first.check}")
        out()
    if r.objectives:
        out.table(
            ["objective", level, "calibration"],
            [
                [o.objective, _interval(o.interval.lower, o.interval.upper), o.interval.calibration]
                for o in r.objectives
            ],
        )
        out()


def _target_label(row: TargetRow) -> str:
    if row.target.aggregate == "objective":
        return f"objective {row.target.objective}"
    return _aggregate_label(row.target.aggregate, row.target.votes)


def _print_forecast(r: Any, level: str, out: _Text) -> None:
    """Beyond the recorded calls: the certain interval beside the model-based forecast, per target."""
    ahead = [row for row in r.rows() if row.forecast is not None]
    if not ahead:
        return
    out(f"Beyond {_beyond_what(ahead, r.calls)}, what is certain ({level}, every latent law the calls allow)")
    out("beside what is likely (forecast: model-based, NOT certified):")
    fc = r.forecast
    guard = None if fc is None else fc.guard  # None: no family forecast (not asked, or every family rejected)
    family = None if fc is None or guard is None else f"{fc.family}, fit p {guard.p_value:.2f}"
    width = max(len(_target_label(row)) for row in ahead)
    for row in ahead:
        assert row.forecast is not None  # the rows of `ahead`
        ends = _ends(row.interval)
        certain = "no interval" if ends is None else f"certain {_interval(*ends)}"
        accuracy = _forecast(row)
        if accuracy is None or accuracy.estimate is None:  # the data reject the model: why there is none
            out(f"  {_target_label(row):{width}s}  {certain}  {row.forecast.model}")
            continue
        source = "answer model" if row.target.aggregate == "plurality" else family
        out(
            f"  {_target_label(row):{width}s}  {certain}  forecast {accuracy.estimate:.4f} "
            f"{_interval(accuracy.lower, accuracy.upper)} ({source})"
        )
        gain = _forecast_gain(row)
        if gain is not None and gain.estimate is not None:
            shown = percentage_points(gain.estimate)
            if gain.lower is not None and gain.upper is not None:
                shown += f" {pp_interval(gain.lower, gain.upper)}"
            sure_ends = None if row.verdict is None else _ends(row.verdict.gain)
            sure = "" if sure_ends is None else f"certain {pp_interval(*sure_ends)} pp  "
            out(f"  {'  gain over one call':{width}s}  {sure}forecast {shown} pp")
    if fc is not None and guard is not None:
        rejected = "; ".join(f"{g.family} (p = {g.p_value:.3f})" for g in fc.rejected)
        joined = ", ".join([guard.family, *(g.family for g in fc.pooled)])
        out(
            f"  forecast: {fc.family} family fitted to every call, not rejected by the data "
            f"(goodness-of-fit p = {guard.p_value:.2f});"
        )
        out(f"  {'rejected before it: ' + rejected if rejected else 'no family rejected before it'};")
        out(
            f"  intervals: union of the {level} parametric bootstrap percentile intervals (B = {fc.bootstrap}, "
            f"seed {fc.seed}) of"
        )
        out(f"  {joined}")
    out()


def _reported(b: Any) -> Interval:
    """The interval ``b`` reports: every budget row of an analysis holds one (``analyze``, ``two_call_view``)."""
    assert b.interval is not None
    return b.interval


def details_lines(r: Any) -> list[str]:
    """The full text report of one group (``--details``; module docstring), as text."""
    out = _Text()
    t = r.two_call
    level = f"{100 * (1 - r.alpha):g}%"
    head = f"{r.source}" + (f" [{r.group}]" if r.group else "")
    calls = f"{r.calls}" if r.calls == r.max_calls else f"{r.calls}-{r.max_calls}"
    out(f"{head}: {r.n} examples x {calls} calls")
    out(f"  one call  mu-hat  = {t.mu:.4f} (SE {t.se_mu:.4f})    rho-hat = {t.rho:.4f} (SE {t.se_rho:.4f})")
    pt = t.pair_table
    out(
        f"  first two calls: both right {percent(pt.both_correct)}%, disagree {percent(pt.disagree)}%, "
        f"both wrong {percent(pt.both_wrong)}%"
    )
    if r.all_calls is not None:
        a = r.all_calls
        out(
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
    out()
    calls_used = (_reported(r.budgets[0]).calls or r.max_calls) if likelihood else 2
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
    out.table(headers, rows)
    calibrations = dict.fromkeys(f"{iv.method} ({iv.calibration})" for iv in map(_reported, r.budgets))
    out(f"  intervals: {'; '.join(calibrations)}; sharp at estimate = no sampling uncertainty")
    out()
    _print_aggregates(r, level, out)
    _print_forecast(r, level, out)
    out(f"Verdict ({level}, {'from ' + calls_text if likelihood else 'two-call'}, distribution-free):")
    for v in r.verdicts:
        if v.aggregate == "majority":
            out(f"  {v.text}")
    for c in r.comparisons:
        out(
            f"  empirical {c.label_b} vs {c.label_a}: {percentage_points(c.difference)} pp "
            f"{pp_interval(*c.interval.ends)}"
        )
    others = [v for v in r.verdicts if v.aggregate != "majority"]
    if others:
        out(f"Verdicts of the other aggregates ({level}; each interval's method in --json):")
        for v in others:
            out(f"  {v.text}")
    for note in r.notes:
        out(f"  note: {note}")
    return out.lines
