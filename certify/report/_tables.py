"""The report's tables, each exportable to Markdown, CSV and LaTeX.

Vocabulary: a budget is written "k votes" (the majority of k calls); where the
paper is cited its index follows in parentheses: 1 vote = V_0, 3 votes = V_1,
5 votes = V_2, 2n+1 votes = V_n (eq. (main-vn)), infinitely many votes = V_inf.
Every estimate's header says which calls it uses ("first 2 calls" for the paper's
two-call estimators of Section 4.4, "all K calls" for the hypergeometric /
U-statistic estimators from every recorded call). Percentages are stored as
percentages (values x 100); every rendering (Markdown, CSV, LaTeX) rounds to the
column's digits and prints a zero without sign, and a difference shown next to its
parts is the difference of the displayed (rounded) parts, so the arithmetic checks.

* :func:`more_calls_table` -- what further votes can still add (K-call likelihood intervals).
* :func:`forecast_table` -- what further votes are likely to add under a parametric family the
  data do not reject (model-based, beside the certain bounds).
* :func:`policy_table` -- per policy: two-call mu-hat and rho-hat, all-call k-vote
  accuracies and their gains over one vote.
* :func:`policy_interval_table` -- the projected 95% intervals of eq.
  (projected-set-main) for three and five votes (Theorems 4.1-4.2), whether the
  empirical values fall inside and, for ``choice``-mode runs, the run's true value.
  (With :func:`policy_table`, the paper's "Detailed LLM table", split in two so that
  no table is wider than :data:`._table_format.MAX_COLUMNS`.)
* :func:`se_range_table` -- standard-error ranges of mu-hat, nu-hat, rho-hat (delta method).
* :func:`completion_error_table` -- interval midpoint, LDGP (Proposition 5.2) and
  MaxEnt (Proposition 5.1) against the empirical 3- and 5-vote accuracies.
* :func:`mixture_table`, :func:`optimum_table`, :func:`overtaking_table`,
  :func:`negative_table` -- Appendix "Additional empirical summaries".

The tables are :class:`._table_format.Table` objects (their Markdown, CSV and LaTeX renderings
live there).
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from .._numbers import pp_interval
from .._objective import V_INF
from ..analysis import Verdict
from ._table_format import Column, Table, _missing, _rounded, votes_text

__all__ = [
    "TABLE_NAMES",
    "more_calls_table",
    "forecast_table",
    "policy_table",
    "policy_interval_table",
    "se_range_table",
    "completion_error_table",
    "mixture_table",
    "optimum_table",
    "overtaking_table",
    "negative_table",
    "verdict_table",
]

#: Names of every table the report writes (files ``tables/NAME.{md,csv,tex}``): the files of an
#: earlier report that a new one may replace (:func:`certify.report._build.check_report_folder`).
TABLE_NAMES = (
    "more_calls",
    "forecast",
    "policy_table",
    "policy_interval_table",
    "se_range_table",
    "completion_error_table",
    "mixture_gain_table",
    "mixture_accuracy_table",
    "mixture_optimum_table",
    "overtaking_table",
    "negative_table",
)


def _pct(x):
    return None if x is None else 100.0 * x


def _shown(x, digits: int = 2):
    """The value a reader sees (rounded to ``digits``), None when missing."""
    return None if _missing(x) else _rounded(x, digits)


def _shown_difference(a, b, digits: int = 2):
    """a - b of the *displayed* parts, so that a difference printed next to them checks by hand."""
    a, b = _shown(a, digits), _shown(b, digits)
    return None if a is None or b is None else _rounded(a - b, digits)


def _split(group: str) -> tuple[str, str]:
    ds, _, pol = group.partition("/")
    return (ds, pol) if pol else ("", ds)


def _budget(report, votes):
    return next((b for b in report.budgets if b.votes == votes), None)


def _level(alpha) -> str:
    return "95%" if alpha is None else f"{100 * (1 - alpha):g}%"


_DATASET = Column("Dataset", verbatim=True)
_POLICY = Column("Policy", verbatim=True)


def more_calls_table(curves: dict) -> Table:
    """What more votes can still bring, from the K-call likelihood-ratio intervals.

    Per policy: the budget whose certified gain over one vote is largest (the largest lower
    end of the interval of V_k - V_0 that is above 0), and upper bounds on what infinitely
    many votes add over K votes and over 101 votes: the upper end of V_inf's interval minus
    the lower end of V_k's. (Each end holds at level 1 - alpha on its own, so the difference
    is a conservative bound at level 1 - 2 alpha.)

    Parameters
    ----------
    curves : dict
        ``"dataset/policy"`` -> :class:`certify.analysis.AnalysisReport` by the likelihood method
        with budgets 1, 3, ..., 101 and :data:`certify.V_INF`.
    """
    cols = [
        _DATASET,
        _POLICY,
        Column("calls K", "$K$", "text"),
        Column("largest certified gain at", kind="text"),
        Column("certified gain over 1 vote >= (pp)", kind="signed"),
        Column("infinitely many votes minus K votes <= (pp)", kind="signed"),
        Column("infinitely many votes minus 101 votes <= (pp)", kind="signed"),
    ]
    rows = []
    alpha = None
    for group, rep in curves.items():
        ds, pol = _split(group)
        alpha = rep.alpha
        better = [v for v in rep.verdicts if v.status == "better" and v.aggregate == "majority"]
        best = max(better, key=lambda v: v.gain.lower, default=None)
        upper_inf = next(b for b in rep.budgets if b.votes is V_INF).interval.upper
        k_odd = rep.max_calls if rep.max_calls % 2 else rep.max_calls - 1
        row_k, row_101 = _budget(rep, k_odd), _budget(rep, 101)
        rows.append(
            (
                ds,
                pol,
                rep.max_calls,
                "none" if best is None else votes_text(best.votes),
                None if best is None else _pct(best.gain.lower),
                None if row_k is None else _pct(upper_inf - row_k.interval.lower),
                None if row_101 is None else _pct(upper_inf - row_101.interval.lower),
            )
        )
    caption = (
        f"What more calls (votes) can add, from all K recorded calls ({_level(alpha)} likelihood-ratio intervals, "
        "asymptotic). Largest certified gain: the number of votes whose gain over 1 vote has the largest "
        "certified lower end ('none': no number of votes is certified better). 'infinitely many votes minus "
        "k votes <=': the upper end of the interval of V_inf minus the lower end of the interval of the "
        "k-vote accuracy, a conservative bound on what any number of further votes can add (K votes: the "
        "largest odd number of votes up to K). What is likely beyond these bounds, under a model: "
        "the next table."
    )
    return Table("more_calls", "What more calls can add", caption, tuple(cols), tuple(rows))


#: The budgets of :func:`forecast_table`.
_FORECAST_VOTES = (9, 21, 101, V_INF)


def _forecast_model(fc) -> str:
    """The family behind a forecast and its guard, or why there is none."""
    if fc.family is None:
        return "none: the data reject every family"
    more = f" and {len(fc.pooled)} more" if fc.pooled else ""
    return f"{fc.family}{more} (guard p = {fc.guard.p_value:.2f})"


def forecast_table(curves: dict) -> Table | None:
    """What more votes are likely to add, under a model: beside :func:`more_calls_table`'s certain bounds.

    Per policy analysed with ``forecast=True``: the family of the latent law the forecast comes
    from and its goodness-of-fit p-value (:func:`certify.forecast.forecast`), and the forecast
    gain of 9, 21, 101 and infinitely many votes over 1 vote with its parametric bootstrap
    percentile interval, at budgets beyond the recorded calls (model-based, not certified; '-'
    where the calls identify the budget or no family is left).

    Parameters
    ----------
    curves : dict
        ``"dataset/policy"`` -> :class:`certify.analysis.AnalysisReport`, as for :func:`more_calls_table`.

    Returns
    -------
    Table or None
        None when no analysis forecast (``certify report --no-forecast``).
    """
    cols = [
        _DATASET,
        _POLICY,
        Column("calls K", "$K$", "text"),
        Column("forecast from (goodness-of-fit p)", kind="text"),
        *(Column(f"{votes_text(k)} minus 1 vote, forecast (pp)", kind="ci", digits=1) for k in _FORECAST_VOTES),
    ]
    rows = []
    alpha = None
    for group, rep in curves.items():
        if rep.forecast is None:
            continue
        ds, pol = _split(group)
        alpha = rep.alpha
        ahead = {
            r.target.votes: r.forecast.gain
            for r in rep.rows()
            if r.target.aggregate == "majority" and r.forecast is not None and r.forecast.gain is not None
        }
        gains = [
            None if k not in ahead else (_pct(ahead[k].estimate), _pct(ahead[k].lower), _pct(ahead[k].upper))
            for k in _FORECAST_VOTES
        ]
        rows.append((ds, pol, rep.max_calls, _forecast_model(rep.forecast), *gains))
    if not rows:
        return None
    caption = (
        "What more votes are likely to add beyond the recorded calls, under a model: the gain of k votes over "
        "1 vote under the best parametric family of the latent law (by BIC) that the data do not reject "
        "(parametric-bootstrap likelihood-ratio test against the NPMLE), with the union of the "
        f"{_level(alpha)} parametric bootstrap percentile intervals of it and of every other family within 20 "
        "BIC units that the data do not reject ('and 2 more'). Model-based and NOT certified: it holds only "
        "if one of those families does; the previous table's bounds hold for every latent law. '-': the "
        "calls identify that budget, or every family is rejected."
    )
    return Table("forecast", "What more calls are likely to add (model-based)", caption, tuple(cols), tuple(rows))


def policy_table(reports: dict, truth: dict | None = None) -> Table:
    """Per-policy estimates: the first half of the paper's "Detailed LLM table".

    Columns: the two-call estimates mu-hat, rho-hat of Section 4.4 (first two calls, the
    inputs of the certified intervals of :func:`policy_interval_table`), then the empirical
    1-, 3- and 5-vote accuracies from all K calls (exact hypergeometric averages) and the
    gains of 3 and 5 votes over 1 vote, each the difference of the two displayed accuracies.

    Parameters
    ----------
    reports : dict
        ``"dataset/policy"`` -> :class:`certify.analysis.AnalysisReport` with budgets 3 and 5.
    truth : dict, optional
        Unused here (kept for the call signature); the true values are in
        :func:`policy_interval_table`.
    """
    cols = (
        _DATASET,
        _POLICY,
        Column("calls K", "$K$", "text"),
        Column("mu-hat, first 2 calls (%)", kind="num"),
        Column("rho-hat, first 2 calls (%)", kind="num"),
        Column("1 vote, all K calls (%)", kind="num"),
        Column("3 votes, all K calls (%)", kind="num"),
        Column("3 votes minus 1 vote (pp)", kind="signed"),
        Column("5 votes, all K calls (%)", kind="num"),
        Column("5 votes minus 1 vote (pp)", kind="signed"),
    )
    rows = []
    for group, rep in reports.items():
        ds, pol = _split(group)
        one = None if rep.all_calls is None else _pct(rep.all_calls.mu)  # m_1-hat = mean_i S_i/K_i = 1-vote accuracy
        emp = {}
        for v in (3, 5):
            b = _budget(rep, v)
            if b is None:
                raise InputError(f"{group}: the analysis has no {v}-vote budget")
            emp[v] = None if b.empirical is None else _pct(b.empirical.value)
        rows.append(
            (
                ds,
                pol,
                rep.max_calls,
                _pct(rep.two_call.mu),
                _pct(rep.two_call.rho),
                one,
                emp[3],
                _shown_difference(emp[3], one),
                emp[5],
                _shown_difference(emp[5], one),
            )
        )
    caption = (
        "Per-policy estimates. mu-hat and rho-hat use the first two calls of each example (Section 4.4; the "
        "inputs of the certified intervals); the k-vote accuracies use all K calls (exact hypergeometric "
        "average over k-subsets of the recorded calls: 1 vote = V_0, 3 votes = V_1, 5 votes = V_2). Each "
        "gain is the difference of the two accuracies shown."
    )
    return Table("policy_table", "Per-policy estimates", caption, cols, tuple(rows))


def policy_interval_table(reports: dict, truth: dict | None = None) -> Table:
    """Certified two-call intervals per policy and budget: the second half of the "Detailed LLM table".

    One row per policy and budget (3 votes = V_1, 5 votes = V_2): the projected 1 - alpha
    interval of eq. (projected-set-main) from the first two calls (Theorems 4.1-4.2), the
    empirical accuracy from all K calls and whether it lies inside, and -- for ``choice``-mode
    runs -- the run's true value mean_i P_n(q_i).

    Parameters
    ----------
    reports : dict
        ``"dataset/policy"`` -> :class:`certify.analysis.AnalysisReport` with budgets 3 and 5.
    truth : dict, optional
        ``"dataset/policy"`` -> {votes: true V} (mean of P_n(q_i)).
    """
    truth = truth or {}
    alpha = next(iter(reports.values())).alpha if reports else None
    level = _level(alpha)
    cols = [
        _DATASET,
        _POLICY,
        Column("votes"),
        Column(f"lower {level}, first 2 calls (%)", kind="num"),
        Column(f"upper {level}, first 2 calls (%)", kind="num"),
        Column("empirical, all K calls (%)", kind="num"),
        Column("empirical inside", kind="bool"),
    ]
    if truth:
        cols.append(Column("true (%)", kind="num"))
    rows = []
    for group, rep in reports.items():
        ds, pol = _split(group)
        for v in (3, 5):
            b = _budget(rep, v)
            if b is None:
                raise InputError(f"{group}: the analysis has no {v}-vote budget")
            emp = None if b.empirical is None else b.empirical.value
            inside = None if emp is None else bool(b.projected.lower <= emp <= b.projected.upper)
            row = [
                ds,
                pol,
                votes_text(v, paper=True),
                _pct(b.projected.lower),
                _pct(b.projected.upper),
                _pct(emp),
                inside,
            ]
            if truth:
                row.append(_pct(truth.get(group, {}).get(v)))
            rows.append(tuple(row))
    caption = (
        f"Certified {level} intervals of the 3-vote (V_1) and 5-vote (V_2) accuracy from the first two calls "
        "(projected Wald region, Section 4.4, Theorems 4.1-4.2), against the empirical accuracy from all K "
        "calls."
    )
    if truth:
        caption += " 'true' is the run's accuracy mean_i P_n(q_i) from the recorded latent q_i (choice mode)."
    return Table("policy_interval_table", "Certified two-call intervals", caption, tuple(cols), tuple(rows))


def se_range_table(reports: dict) -> Table:
    """Minimum, median and maximum example-level standard errors (pp) of the two-call mu-hat, nu-hat, rho-hat."""
    if not reports:
        raise InputError("no analyses to summarize")
    ses = {
        "mu-hat": [r.two_call.se_mu for r in reports.values()],
        "nu-hat": [r.two_call.se_nu for r in reports.values()],
        "rho-hat": [r.two_call.se_rho for r in reports.values()],
    }
    rows = []
    for q, v in ses.items():
        a = 100.0 * np.asarray(v, dtype=float)
        rows.append((f"{q}, first 2 calls", float(np.nanmin(a)), float(np.nanmedian(a)), float(np.nanmax(a))))
    cols = (
        Column("Quantity"),
        Column("Min SE (pp)", kind="num", digits=3),
        Column("Median SE (pp)", kind="num", digits=3),
        Column("Max SE (pp)", kind="num", digits=3),
    )
    return Table(
        "se_range_table",
        "Standard-error ranges",
        f"Example-level standard errors over the {len(reports)} policy-dataset pairs of the two-call "
        "estimates (covariance of X_i = ((B_i1 + B_i2)/2, B_i1 B_i2); rho-hat by the delta method).",
        cols,
        tuple(rows),
    )


def completion_error_table(reports: dict) -> Table:
    """Errors (pp) of three point summaries against the empirical 3- and 5-vote accuracies (Appendix point completions).

    The interval midpoint is (L + U)/2 of the sharp interval at the two-call (mu-hat, nu-hat);
    LDGP and MaxEnt are the completions of Propositions 5.2 and 5.1. Error = summary -
    empirical (all K calls), so a positive bias is optimism.
    """
    rows: list[tuple[str, str, float | None, float | None, float | None, float | None, int]] = []
    for v in (3, 5):
        errs: dict[str, list[float]] = {"Interval midpoint": [], "LDGP": [], "maximum entropy": []}
        for rep in reports.values():
            b = _budget(rep, v)
            if b is None or b.empirical is None:
                continue
            emp = b.empirical.value
            errs["Interval midpoint"].append(0.5 * (b.sharp_lower + b.sharp_upper) - emp)
            if b.ldgp is not None:
                errs["LDGP"].append(b.ldgp - emp)
            if b.maxent is not None:
                errs["maximum entropy"].append(b.maxent - emp)
        for name, e in errs.items():
            a = 100.0 * np.asarray(e, dtype=float)
            if not len(a):
                rows.append((votes_text(v, paper=True), name, None, None, None, None, 0))
                continue
            rows.append(
                (
                    votes_text(v, paper=True),
                    name,
                    float(a.mean()),
                    float(np.abs(a).mean()),
                    float(np.sqrt((a * a).mean())),
                    float(np.abs(a).max()),
                    len(a),
                )
            )
    cols = (
        Column("Target"),
        Column("Point summary"),
        Column("Bias (pp)", kind="signed"),
        Column("MAE (pp)", kind="num"),
        Column("RMSE (pp)", kind="num"),
        Column("Max error (pp)", kind="num"),
        Column("Policies", kind="num", digits=0),
    )
    return Table(
        "completion_error_table",
        "Point completions against empirical votes",
        "Point-completion errors (from the first 2 calls) against the empirical 3-vote (V_1) and 5-vote (V_2) "
        "accuracies (all K calls). Positive bias means the completion is optimistic; a descriptive "
        "diagnostic, not a guarantee.",
        cols,
        tuple(rows),
    )


def _mixture_cols():
    return (
        _DATASET,
        Column("Type"),
        Column("Mixture", verbatim=True),
        Column("mu-hat, all K calls (%)", kind="num"),
        Column("rho-hat, all K calls (%)", kind="num"),
        Column("votes"),
        Column("k votes, all K calls (%)", kind="num"),
        Column("k votes minus 1 vote (pp)", kind="signed"),
    )


def mixture_table(searches, criterion: str) -> Table:
    """Mixtures selected by k-vote ``"gain"`` or absolute ``"accuracy"`` (Appendix mixtures; k = 5 when K >= 5).

    mu-hat and rho-hat are the mixture's moments from all K calls (U-statistics); mu-hat is
    also its exact 1-vote accuracy, so the gain column is the k-vote column minus the mu-hat
    column as displayed.
    """
    if criterion not in ("gain", "accuracy"):
        raise InputError(f"criterion={criterion!r} must be 'gain' or 'accuracy'")
    rows = []
    for s in searches:
        for kind, crit, m in s.best:
            if crit == criterion:
                mu, acc = 100 * m.value(1), 100 * m.value(s.votes)
                rows.append(
                    (
                        s.dataset,
                        kind,
                        m.label,
                        mu,
                        100 * m.rho,
                        votes_text(s.votes, paper=True),
                        acc,
                        _shown_difference(acc, mu),
                    )
                )
    what = (
        "largest empirical gain of k votes over 1 vote" if criterion == "gain" else "largest empirical k-vote accuracy"
    )
    return Table(
        f"mixture_{criterion}_table",
        f"Mixtures selected by {criterion}",
        f"Mixtures selected for the {what} on the weight grid (k = 5 votes, V_2, when K >= 5); each call picks "
        "its component independently. Accuracies are exact from all K calls (multinomial allocation, "
        "hypergeometric draws); mu-hat is the 1-vote accuracy.",
        _mixture_cols(),
        tuple(rows),
    )


def optimum_table(optima) -> Table:
    """Optimizer results over the whole weight simplex, with the sharp lower bound at the estimate."""
    rows = [
        (
            ds,
            o.objective,
            o.mixture.label,
            100 * o.mixture.mu,
            100 * o.mixture.rho,
            votes_text(o.votes, paper=True),
            100 * o.lower,
            100 * o.mixture.value(o.votes),
        )
        for ds, o in optima
    ]
    cols = (
        _DATASET,
        Column("Objective"),
        Column("Mixture", verbatim=True),
        Column("mu-hat, all K calls (%)", kind="num"),
        Column("rho-hat, all K calls (%)", kind="num"),
        Column("votes"),
        Column("lower bound L_n at the estimate (%)", kind="num"),
        Column("k votes, all K calls (%)", kind="num"),
    )
    return Table(
        "mixture_optimum_table",
        "Optimal mixtures over the simplex",
        "Weights maximizing the sharp lower bound L_n of the k-vote accuracy (k = 2n+1 votes, V_n) at the "
        "mixture's moment estimates from all K calls (exact, with a dual certificate; no sampling "
        "uncertainty), or the empirical k-vote accuracy.",
        cols,
        tuple(rows),
    )


def overtaking_table(items, limit: int | None = None) -> Table:
    """Overtaking pairs with paired 95% intervals (pp) of the k-vote accuracy of A minus B at 1, 3 and 5 votes."""
    items = list(items)[:limit]
    votes = items[0].votes if items else (1, 3, 5)
    rows = []
    for o in items:
        cells = {v: tuple(100 * x for x in (d.difference, *d.interval.ends)) for v, d in zip(o.votes, o.differences)}
        rows.append((o.dataset, o.policy_a, o.policy_b, *(cells.get(v) for v in votes), o.significant))
    alpha = items[0].differences[0].interval.alpha if items else None
    cols = (
        _DATASET,
        Column("Policy A", verbatim=True),
        Column("Comparator B", verbatim=True),
        *(Column(f"{votes_text(v)}: A minus B (pp)", kind="ci") for v in votes),
        Column("intervals exclude 0", kind="bool"),
    )
    return Table(
        "overtaking_table",
        "Overtaking",
        "A policy with lower 1-vote accuracy beats its comparator after 3 or 5 votes (all K calls); paired "
        f"example-level {_level(alpha)} intervals in brackets.",
        cols,
        tuple(rows),
    )


def negative_table(items) -> Table:
    """Negative movements: adjacent budget steps where voting hurts, with paired 95% intervals (pp)."""
    items = list(items)
    rows = [
        (
            m.dataset,
            m.policy,
            f"{m.comparison.label_a} -> {m.comparison.label_b}",
            tuple(100 * x for x in (m.comparison.difference, *m.comparison.interval.ends)),
            m.significant,
        )
        for m in items
    ]
    alpha = items[0].comparison.interval.alpha if items else None
    cols = (
        _DATASET,
        _POLICY,
        Column("step"),
        Column("difference (pp)", kind="ci"),
        Column("interval excludes 0", kind="bool"),
    )
    return Table(
        "negative_table",
        "Negative movements",
        "Adjacent numbers of votes where the empirical accuracy (all K calls) falls, with paired example-level "
        f"{_level(alpha)} intervals.",
        cols,
        tuple(rows),
    )


#: Rows of :func:`verdict_table`, in this order: the paper's bit majority first.
_AGGREGATE_ROWS = (
    ("majority", "majority of k bits"),
    ("plurality", "plurality of k answers"),
    ("pass@k", "pass@k (any of k correct)"),
)


def verdict_table(report, votes) -> str:
    """One policy's verdicts at a glance (Markdown): budgets as columns, one row per aggregate.

    Each cell is the gain over one call, ``[lower, upper]`` in percentage points rounded
    outward, then **better** / **worse** when the interval excludes 0 (certified at the
    report's level) or *undecided*; ``-`` where the analysis has no verdict (an aggregate the
    data cannot support, a budget it did not compute, or one whose solve failed: its notes say).

    Parameters
    ----------
    report : AnalysisReport
        With its ``verdicts`` (every aggregate's).
    votes : sequence of int
        The columns.
    """
    found = {(v.aggregate, v.votes): v for v in report.verdicts}
    # certified either way in bold, the rest in italics
    words = {s: f"**{w}**" if s in ("better", "worse") else f"*{w}*" for s, w in Verdict.WORDS.items()}
    rows = []
    for aggregate, label in _AGGREGATE_ROWS:
        if not any(a == aggregate for a, _ in found):
            continue
        cells = []
        for k in votes:
            v = found.get((aggregate, k))
            cells.append("-" if v is None else f"{pp_interval(v.gain.lower, v.gain.upper)} {words[v.status]}")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    head = "| gain over one call (pp) | " + " | ".join(f"{k} calls" for k in votes) + " |"
    return "\n".join([head, "|---" * (len(votes) + 1) + "|", *rows])
