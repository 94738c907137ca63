"""The report's tables, each exportable to Markdown, CSV and LaTeX.

Paper notation: V_0, V_1, V_2 are the one-call, three-vote and five-vote
accuracies (eq. (main-vn), budget 2n + 1); the tables keep it. Percentages are
stored as percentages (values x 100) so that CSV, Markdown and LaTeX agree.

* :func:`policy_table` -- the "Detailed LLM table": two-call mu-hat and rho-hat
  (Section 4.4), empirical gains from all K calls, the projected 95% intervals of
  eq. (projected-set-main) for three and five votes (Theorems 4.1-4.2), whether the
  empirical values fall inside, and -- for ``choice``-mode runs -- the run's true V_n.
* :func:`se_range_table` -- standard-error ranges of mu-hat, nu-hat, rho-hat (delta method).
* :func:`completion_error_table` -- interval midpoint, LDGP (Proposition 5.2) and
  MaxEnt (Proposition 5.1) against the empirical V_1 and V_2.
* :func:`mixture_table`, :func:`optimum_table`, :func:`overtaking_table`,
  :func:`negative_table` -- Appendix "Additional empirical summaries".
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

import numpy as np

from .._errors import InputError

__all__ = [
    "Column",
    "Table",
    "more_calls_table",
    "policy_table",
    "se_range_table",
    "completion_error_table",
    "mixture_table",
    "optimum_table",
    "overtaking_table",
    "negative_table",
]

_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


@dataclass(frozen=True)
class Column:
    """A table column.

    Attributes
    ----------
    name : str
        Header in Markdown and CSV.
    latex : str
        Header in LaTeX (math allowed).
    kind : str
        ``"text"``, ``"num"`` (``digits`` decimals), ``"signed"`` (explicit sign),
        ``"bool"`` (yes/no) or ``"ci"`` (a (value, lower, upper) triple; CSV gets three columns).
    digits : int
    """

    name: str
    latex: str = ""
    kind: str = "text"
    digits: int = 2

    def render(self, value) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if self.kind == "text":
            return str(value)
        if self.kind == "bool":
            return "yes" if value else "no"
        if self.kind == "num":
            return f"{value:.{self.digits}f}"
        if self.kind == "signed":
            return f"{value:+.{self.digits}f}"
        if self.kind == "ci":
            v, lo, hi = value
            return f"{v:+.{self.digits}f} [{lo:+.{self.digits}f}, {hi:+.{self.digits}f}]"
        raise InputError(f"column kind {self.kind!r} is unknown")


@dataclass(frozen=True)
class Table:
    """A titled table of raw values with Markdown, CSV and LaTeX renderings.

    Attributes
    ----------
    name : str
        File stem (``policy_table`` -> ``policy_table.csv``).
    title, caption : str
    columns : tuple of Column
    rows : tuple of tuple
        Raw values (floats unrounded; ``"ci"`` cells are (value, lower, upper)).
    """

    name: str
    title: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[tuple, ...]

    def column(self, name: str) -> list:
        """Raw values of one column."""
        j = [c.name for c in self.columns].index(name)
        return [r[j] for r in self.rows]

    def to_markdown(self) -> str:
        head = "| " + " | ".join(c.name for c in self.columns) + " |"
        align = "|" + "|".join("---" if c.kind in ("text", "bool") else "---:" for c in self.columns) + "|"
        body = ["| " + " | ".join(c.render(v).replace("|", "\\|") for c, v in zip(self.columns, r)) + " |"
                for r in self.rows]
        return "\n".join([head, align, *body]) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        header = []
        for c in self.columns:
            header += [c.name, f"{c.name} lower", f"{c.name} upper"] if c.kind == "ci" else [c.name]
        w.writerow(header)
        for r in self.rows:
            cells = []
            for c, v in zip(self.columns, r):
                vals = list(v) if c.kind == "ci" else [v]
                cells += [_csv_cell(x) for x in vals]
            w.writerow(cells)
        return buf.getvalue()

    def to_latex(self) -> str:
        spec = "".join("l" if c.kind in ("text", "bool") else "r" for c in self.columns)
        lines = [r"\begin{table}[H]", r"\centering", r"\scriptsize", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                 " & ".join(c.latex or _latex_escape(c.name) for c in self.columns) + r" \\", r"\midrule"]
        for r in self.rows:
            lines.append(" & ".join(_latex_escape(c.render(v)) for c, v in zip(self.columns, r)) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_latex_escape(self.caption)}}}",
                  rf"\label{{tab:{self.name.replace('_', '-')}}}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "caption": self.caption,
                "columns": [c.name for c in self.columns],
                "rows": [[list(v) if isinstance(v, tuple) else v for v in r] for r in self.rows]}


def _csv_cell(x) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return "" if math.isnan(x) else repr(x)
    return str(x)


def _pct(x):
    return None if x is None else 100.0 * x


def _split(group: str) -> tuple[str, str]:
    ds, _, pol = group.partition("/")
    return (ds, pol) if pol else ("", ds)


def _budget(report, votes):
    return next((b for b in report.budgets if b.votes == votes), None)


def _gain(report, votes):
    c = next((c for c in report.comparisons if c.label_b == f"m={votes}"), None)
    return None if c is None else c.difference


def more_calls_table(curves: dict) -> Table:
    """What more calls can still bring, from the K-call likelihood-ratio intervals.

    Per policy: the budget whose certified gain over one call is largest (the largest lower
    end of the interval of V_k - V_1 that is above 0), and upper bounds on V_inf - V_K and
    V_inf - V_101: the upper end of V_inf's interval minus the lower end of V_k's. (Each end
    holds at level 1 - alpha on its own, so the difference is a conservative bound at level
    1 - 2 alpha.)

    Parameters
    ----------
    curves : dict
        ``"dataset/policy"`` -> :class:`certify.stats.AnalysisReport` by the likelihood method
        with budgets 1, 3, ..., 101 and ``"inf"``.
    """
    cols = [Column("Dataset"), Column("Policy"), Column("calls K", "$K$", "text"),
            Column("largest certified gain at", "largest certified gain at", "text"),
            Column("gain >= (pp)", "gain $\\ge$ (pp)", "signed"),
            Column("Vinf - V_K <= (pp)", "$V_\\infty - V_K \\le$ (pp)", "signed"),
            Column("Vinf - V101 <= (pp)", "$V_\\infty - V_{101} \\le$ (pp)", "signed")]
    rows = []
    alpha = None
    for group, rep in curves.items():
        ds, pol = _split(group)
        alpha = rep.alpha
        better = [v for v in rep.verdicts if v.status == "better"]
        best = max(better, key=lambda v: v.gain_lower, default=None)
        upper_inf = next(b for b in rep.budgets if b.votes == "inf").interval.upper
        k_odd = rep.max_calls if rep.max_calls % 2 else rep.max_calls - 1
        row_k, row_101 = _budget(rep, k_odd), _budget(rep, 101)
        rows.append((ds, pol, rep.max_calls, "none" if best is None else f"{best.votes} votes",
                     None if best is None else _pct(best.gain_lower),
                     None if row_k is None else _pct(upper_inf - row_k.interval.lower),
                     None if row_101 is None else _pct(upper_inf - row_101.interval.lower)))
    level = "95%" if alpha is None else f"{100 * (1 - alpha):g}%"
    caption = (f"What more calls can add, from all K recorded calls ({level} likelihood-ratio intervals, asymptotic). "
               "Largest certified gain: the budget whose gain over one call has the largest certified lower end "
               "('none': no budget is certified better). Vinf - V_k <= : the upper end of V_inf minus the lower end "
               "of V_k, a conservative bound on what any number of further votes can add.")
    return Table("more_calls", "What more calls can add", caption, tuple(cols), tuple(rows))


def policy_table(reports: dict, truth: dict | None = None) -> Table:
    """The "Detailed LLM table" (paper Appendix "Detailed LLM table").

    Parameters
    ----------
    reports : dict
        ``"dataset/policy"`` -> :class:`certify.stats.AnalysisReport` with budgets 3 and 5.
    truth : dict, optional
        ``"dataset/policy"`` -> {votes: true V} for ``choice``-mode runs (mean of P_n(q_i)).
    """
    truth = truth or {}
    cols = [Column("Dataset"), Column("Policy"), Column("mu-hat (%)", r"$\hat\mu$ (\%)", "num"),
            Column("rho-hat (%)", r"$\hat\rho$ (\%)", "num"), Column("V1-V0 (pp)", r"$V_1-V_0$ (pp)", "signed"),
            Column("V2-V0 (pp)", r"$V_2-V_0$ (pp)", "signed")]
    for n, v in ((1, 3), (2, 5)):
        cols += [Column(f"L{n} 95% (%)", rf"$L_{n}^{{95}}$ (\%)", "num"), Column(f"U{n} 95% (%)", rf"$U_{n}^{{95}}$ (\%)", "num"),
                 Column(f"V{n} emp (%)", rf"$\hat V_{n}$ (\%)", "num"), Column(f"V{n} inside", rf"$\hat V_{n}$ in", "bool")]
    has_truth = bool(truth)
    if has_truth:
        cols += [Column("V1 true (%)", r"$V_1$ true (\%)", "num"), Column("V2 true (%)", r"$V_2$ true (\%)", "num")]
    rows = []
    for group, rep in reports.items():
        ds, pol = _split(group)
        row = [ds, pol, _pct(rep.two_call.mu), _pct(rep.two_call.rho), _pct(_gain(rep, 3)), _pct(_gain(rep, 5))]
        for v in (3, 5):
            b = _budget(rep, v)
            if b is None:
                raise InputError(f"{group}: the analysis has no {v}-vote budget")
            emp = None if b.empirical is None else b.empirical.value
            inside = None if emp is None else bool(b.projected.lower <= emp <= b.projected.upper)
            row += [_pct(b.projected.lower), _pct(b.projected.upper), _pct(emp), inside]
        if has_truth:
            t = truth.get(group, {})
            row += [_pct(t.get(3)), _pct(t.get(5))]
        rows.append(tuple(row))
    caption = ("Per-policy results. mu-hat and rho-hat use the first two calls; gains and empirical V use all K calls "
               "(hypergeometric); L/U are the projected 95% Wald intervals for three (V1) and five (V2) votes.")
    if has_truth:
        caption += " 'true' is the run's V_n = mean_i P_n(q_i) from the recorded latent q_i (choice mode)."
    return Table("policy_table", "Per-policy table", caption, tuple(cols), tuple(rows))


def se_range_table(reports: dict) -> Table:
    """Minimum, median and maximum example-level standard errors (pp) of mu-hat, nu-hat, rho-hat."""
    if not reports:
        raise InputError("no analyses to summarize")
    ses = {"mu-hat": [r.two_call.se_mu for r in reports.values()], "nu-hat": [r.two_call.se_nu for r in reports.values()],
           "rho-hat": [r.two_call.se_rho for r in reports.values()]}
    rows = []
    for q, v in ses.items():
        a = 100.0 * np.asarray(v, dtype=float)
        rows.append((q, float(np.nanmin(a)), float(np.nanmedian(a)), float(np.nanmax(a))))
    cols = (Column("Quantity"), Column("Min SE (pp)", kind="num", digits=3), Column("Median SE (pp)", kind="num", digits=3),
            Column("Max SE (pp)", kind="num", digits=3))
    return Table("se_range_table", "Standard-error ranges",
                 f"Example-level standard errors over the {len(reports)} policy-dataset pairs (covariance of "
                 "X_i = ((B_i1 + B_i2)/2, B_i1 B_i2); rho-hat by the delta method).", cols, tuple(rows))


def completion_error_table(reports: dict) -> Table:
    """Errors (pp) of three point summaries against the empirical V_1 and V_2 (Appendix point completions).

    The interval midpoint is (L + U)/2 of the sharp interval at (mu-hat, nu-hat);
    LDGP and MaxEnt are the completions of Propositions 5.2 and 5.1. Error =
    summary - empirical, so a positive bias is optimism.
    """
    rows = []
    for n, v in ((1, 3), (2, 5)):
        errs = {"Interval midpoint": [], "LDGP": [], "maximum entropy": []}
        for group, rep in reports.items():
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
                rows.append((f"V{n}", name, None, None, None, None, 0))
                continue
            rows.append((f"V{n}", name, float(a.mean()), float(np.abs(a).mean()), float(np.sqrt((a * a).mean())),
                         float(np.abs(a).max()), len(a)))
    cols = (Column("Target"), Column("Point summary"), Column("Bias (pp)", kind="signed"), Column("MAE (pp)", kind="num"),
            Column("RMSE (pp)", kind="num"), Column("Max error (pp)", kind="num"), Column("Policies", kind="num", digits=0))
    return Table("completion_error_table", "Point completions against empirical votes",
                 "Point-completion errors against empirical three-vote (V1) and five-vote (V2) accuracies. "
                 "Positive bias means the completion is optimistic; a descriptive diagnostic, not a guarantee.",
                 cols, tuple(rows))


def _mixture_cols():
    return (Column("Dataset"), Column("Type"), Column("Mixture"), Column("mu-hat (%)", r"$\hat\mu$ (\%)", "num"),
            Column("rho-hat (%)", r"$\hat\rho$ (\%)", "num"), Column("V2 (%)", r"$V_2$ (\%)", "num"),
            Column("V2-mu (pp)", r"$V_2-\mu$ (pp)", "signed"))


def mixture_table(searches, criterion: str) -> Table:
    """Mixtures selected by five-vote ``"gain"`` or absolute ``"accuracy"`` (Appendix mixtures)."""
    if criterion not in ("gain", "accuracy"):
        raise InputError(f"criterion={criterion!r} must be 'gain' or 'accuracy'")
    rows = []
    for s in searches:
        for kind, crit, m in s.best:
            if crit == criterion:
                rows.append((s.dataset, kind, m.label, 100 * m.mu, 100 * m.rho, 100 * m.value(s.votes), 100 * m.gain(s.votes)))
    what = "largest empirical five-vote gain" if criterion == "gain" else "largest absolute empirical five-vote accuracy"
    return Table(f"mixture_{criterion}_table", f"Mixtures selected by {criterion}",
                 f"Mixtures selected for {what} on the weight grid; each call picks its component independently. "
                 "Accuracies are exact (multinomial allocation, hypergeometric draws).", _mixture_cols(), tuple(rows))


def optimum_table(optima) -> Table:
    """Optimizer results over the whole weight simplex, with the certified lower bound."""
    rows = [(ds, o.objective, o.mixture.label, 100 * o.mixture.mu, 100 * o.mixture.rho, 100 * o.lower,
             100 * o.mixture.value(o.votes)) for ds, o in optima]
    cols = (Column("Dataset"), Column("Objective"), Column("Mixture"), Column("mu-hat (%)", r"$\hat\mu$ (\%)", "num"),
            Column("rho-hat (%)", r"$\hat\rho$ (\%)", "num"), Column("L2 certified (%)", r"$L_2$ (\%)", "num"),
            Column("V2 empirical (%)", r"$\hat V_2$ (\%)", "num"))
    return Table("mixture_optimum_table", "Optimal mixtures over the simplex",
                 "Weights maximizing the sharp lower bound L2 at the mixture's (mu-hat, nu-hat) (certified exactly) "
                 "or the empirical five-vote accuracy.", cols, tuple(rows))


def overtaking_table(items, limit: int | None = None) -> Table:
    """Overtaking pairs with paired 95% intervals (pp) of V(A) - V(B) at 1, 3 and 5 calls."""
    rows = []
    for o in list(items)[:limit]:
        cells = [tuple(100 * x for x in (d.difference, d.lower, d.upper)) for d in o.differences]
        rows.append((o.dataset, o.policy_a, o.policy_b, *cells, o.significant))
    cols = (Column("Dataset"), Column("Policy A"), Column("Comparator B"),
            Column("V0(A)-V0(B) (pp)", r"$V_0(A)-V_0(B)$", "ci"), Column("V1(A)-V1(B) (pp)", r"$V_1(A)-V_1(B)$", "ci"),
            Column("V2(A)-V2(B) (pp)", r"$V_2(A)-V_2(B)$", "ci"), Column("CIs exclude 0", kind="bool"))
    return Table("overtaking_table", "Overtaking",
                 "A policy with lower one-call accuracy beats its comparator after three or five votes; paired "
                 "example-level 95% intervals in brackets.", cols, tuple(rows))


def negative_table(items) -> Table:
    """Negative movements: adjacent budget steps where voting hurts, with paired 95% intervals (pp)."""
    rows = [(m.dataset, m.policy, f"{m.comparison.label_a} -> {m.comparison.label_b}",
             tuple(100 * x for x in (m.comparison.difference, m.comparison.lower, m.comparison.upper)), m.significant)
            for m in items]
    cols = (Column("Dataset"), Column("Policy"), Column("Step"), Column("Difference (pp)", kind="ci"),
            Column("CI excludes 0", kind="bool"))
    return Table("negative_table", "Negative movements",
                 "Adjacent vote budgets where the empirical accuracy falls, with paired example-level 95% intervals.",
                 cols, tuple(rows))
