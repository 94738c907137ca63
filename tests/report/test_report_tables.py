"""The report's tables as a reader sees them: rounding, signed zeros, which calls each column uses,
differences that check against their displayed parts, the "k votes" vocabulary, and LaTeX that
compiles with the stated preamble (checked structurally: no LaTeX compiler here).

The store is synthetic (``report_helpers.py``); every expected number is recomputed here from its bits.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
from scipy.stats import hypergeom

from certify.report._table_format import LATEX_PACKAGES, MAX_COLUMNS, Column, Table, latex_text, votes_text

from report_helpers import K, write_store

FLOAT_NOISE = re.compile(r"\d\.\d{7,}")
NEG_ZERO = re.compile(r"-0\.0+(?!\d*[1-9])")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    from certify.report._build import analyze_store, write_report

    d = tmp_path_factory.mktemp("tables")
    bits = write_store(d / "calls.csv")
    results = analyze_store(d / "calls.csv", step=0.5)
    out = write_report(d / "calls.csv", d / "rep", results=results)
    from certify.report._build import _tables

    return d / "rep", bits, results, out, {t.name: t for t in _tables(results)}


def _md_rows(text: str) -> list[dict]:
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[2:]]


def _hyper(b: np.ndarray, m: int) -> float:
    """Independent all-call m-vote accuracy: mean over examples of P(majority of m of the K calls is right)."""
    s = b.sum(axis=1)
    return float(np.mean([hypergeom(K, int(si), m).sf(m // 2) for si in s]))


# ---- rendering ---------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [-1e-12, -0.004, 0.0, -0.0, 0.004])
def test_a_signed_zero_prints_as_zero(x):
    for kind in ("num", "signed"):
        assert Column("c", kind=kind).render(x) == "0.00"
        assert Column("c", kind=kind).csv_cells(x) == ["0.00"]
    assert Column("c", kind="ci").render((x, x, 0.5)) == "0.00 [0.00, +0.50]"


def test_rounding_removes_float_noise():
    col = Column("c", kind="num")
    for x in (59.99999999995105, 100.00000000000003, 1 / 3):
        assert col.render(x) == f"{x:.2f}" and col.csv_cells(x) == [f"{x:.2f}"]
        assert not FLOAT_NOISE.search(col.render(x))
    assert Column("c", kind="signed").render(2.5) == "+2.50" and Column("c", kind="signed").render(-2.5) == "-2.50"
    assert Column("c", kind="num").render(None) == "-" and Column("c", kind="ci").csv_cells(None) == ["", "", ""]


def test_votes_text():
    assert votes_text(1) == "1 vote" and votes_text(3) == "3 votes" and votes_text("inf") == "infinitely many votes"
    for n in range(0, 51):
        assert votes_text(2 * n + 1, paper=True).endswith(f"(V_{n})")


def test_latex_text_puts_notation_in_math_and_escapes_the_rest():
    assert latex_text("mu-hat, first 2 calls (%)") == r"$\hat\mu$, first 2 calls (\%)"
    assert latex_text("V_inf - V_{101} <= 3 #_&") == r"$V_\infty$ - $V_{101}$ $\le$ 3 \#\_\&"


# ---- the written tables --------------------------------------------------------------------------


def test_no_float_noise_and_no_negative_zero_anywhere(report):
    rep, *_ = report
    for p in sorted((rep / "tables").iterdir()) + [rep / "report.md"]:
        text = p.read_text()
        assert not FLOAT_NOISE.search(text), (p.name, FLOAT_NOISE.search(text))
        assert not NEG_ZERO.search(text), (p.name, NEG_ZERO.search(text))


def test_csv_cells_are_the_rounded_shown_values(report):
    rep, _, _, _, tables = report
    for name, t in tables.items():
        rows = list(csv.reader(io.StringIO((rep / "tables" / f"{name}.csv").read_text())))
        for row, raw in zip(rows[1:], t.rows):
            cells = iter(row)
            for col, v in zip(t.columns, raw):
                vals = [None] * 3 if (col.kind == "ci" and v is None) else (list(v) if col.kind == "ci" else [v])
                for x in vals:
                    cell = next(cells)
                    if isinstance(x, float) and col.kind in ("num", "signed", "ci"):
                        assert cell == f"{round(x, col.digits) + 0.0:.{col.digits}f}", (name, col.name, x, cell)


def test_policy_table_columns_name_their_calls_and_differences_check(report):
    rep, bits, results, _, _ = report
    rows = _md_rows((rep / "tables" / "policy_table.md").read_text())
    assert [r["Policy"] for r in rows] == list(bits)
    for r in rows:
        b = bits[r["Policy"]]
        mu2 = float(np.mean(b[:, :2]))
        nu2 = float(np.mean(b[:, 0] * b[:, 1]))
        assert r["mu-hat, first 2 calls (%)"] == f"{100 * mu2:.2f}"
        assert r["rho-hat, first 2 calls (%)"] == f"{100 * (nu2 - mu2 ** 2) / (mu2 * (1 - mu2)) + 0.0:.2f}"
        assert r["1 vote, all K calls (%)"] == f"{100 * b.mean():.2f}"
        for m in (3, 5):
            assert r[f"{m} votes, all K calls (%)"] == f"{100 * _hyper(b, m):.2f}"
            # the difference is that of the displayed parts, to the cent
            diff = float(r[f"{m} votes, all K calls (%)"]) - float(r["1 vote, all K calls (%)"])
            assert float(r[f"{m} votes minus 1 vote (pp)"]) == pytest.approx(diff, abs=1e-9)
    # the stable policy's calls always agree: voting changes nothing, shown as an unsigned 0.00
    stable = next(r for r in rows if r["Policy"] == "stable")
    assert stable["3 votes minus 1 vote (pp)"] == "0.00" and stable["5 votes minus 1 vote (pp)"] == "0.00"


def test_mixture_gains_check_against_their_parts(report):
    rep, _, results, _, _ = report
    for name in ("mixture_gain_table", "mixture_accuracy_table"):
        rows = _md_rows((rep / "tables" / f"{name}.md").read_text())
        assert rows
        for r in rows:
            diff = float(r["k votes, all K calls (%)"]) - float(r["mu-hat, all K calls (%)"])
            assert float(r["k votes minus 1 vote (pp)"]) == pytest.approx(diff, abs=1e-9)
            assert r["votes"] == "5 votes (V_2)"


def test_vocabulary_k_votes(report):
    rep, _, _, _, tables = report
    md = (rep / "report.md").read_text()
    assert not re.search(r"\bm=\d", md)
    for t in tables.values():
        for c in t.columns:
            # no bare paper indices (V0, V1, V_2) and no "2n+1" in headers; budgets are "k votes"
            assert not re.search(r"\bV_?\{?\d", c.name) and "2n+1" not in c.name, (t.name, c.name)
        for row in t.rows:
            for col, v in zip(t.columns, row):
                cell = col.render(v)
                assert not re.search(r"\bm=\d", cell)
                for k, n in re.findall(r"(\d+) votes \(V_(\d+)\)", cell):
                    assert int(k) == 2 * int(n) + 1, cell
    assert "1 vote -> 3 votes" in (rep / "tables" / "negative_table.md").read_text()


def test_no_table_is_too_wide(report):
    _, _, _, _, tables = report
    assert all(len(t.columns) <= MAX_COLUMNS for t in tables.values())


# ---- LaTeX, structurally ------------------------------------------------------------------------

#: Commands of LaTeX itself (core, text and math mode) that the tables may use.
CORE = {"begin", "end", "centering", "scriptsize", "caption", "label", "hat", "mu", "nu", "rho", "alpha", "infty",
        "le", "ge", "pm", "to", "chi", "textbackslash", "textasciitilde", "textasciicircum", "textless", "textgreater"}
#: Commands the stated packages provide.
PACKAGE_COMMANDS = {"booktabs": {"toprule", "midrule", "bottomrule"}, "float": set()}
ESCAPED = set("&%$#_{}")


def _strip_comments(tex: str) -> str:
    return "\n".join(re.sub(r"(?<!\\)%.*", "", ln) for ln in tex.splitlines())


def _check_latex(tex: str, ncols: int):
    head = [ln for ln in tex.splitlines() if ln.startswith("%")]
    stated = set(re.findall(r"\\usepackage\{(\w+)\}", "\n".join(head)))
    assert stated == set(LATEX_PACKAGES)
    body = _strip_comments(tex)
    # balanced environments, properly nested
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", body):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env
    assert not stack
    # balanced braces (escaped ones aside) and math dollars
    plain = re.sub(r"\\[{}$&%#_]", "", body)
    depth = 0
    for ch in plain:
        depth += (ch == "{") - (ch == "}")
        assert depth >= 0
    assert depth == 0 and plain.count("$") % 2 == 0
    # every command from LaTeX core or a stated package
    allowed = CORE.union(*(PACKAGE_COMMANDS[p] for p in stated))
    used = set(re.findall(r"\\([A-Za-z]+)", body))
    assert used <= allowed, used - allowed
    # [H] needs float; booktabs rules present
    assert r"\begin{table}[H]" in body and r"\toprule" in body
    # column spec and & count per row
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", body).group(1)
    assert len(spec) == ncols
    rows = [ln for ln in body.splitlines() if ln.rstrip().endswith(r"\\")]
    assert rows
    for ln in rows:
        assert len(re.findall(r"(?<!\\)&", ln)) == ncols - 1, ln
    # special characters escaped outside math and commands
    for ln in rows + [re.search(r"\\caption\{(.*)\}", body).group(1)]:
        text = re.sub(r"\$[^$]*\$", "", ln)
        text = re.sub(r"\\[A-Za-z]+(\{\})?|\\[&%$#_{}]", "", text)
        text = text.replace(r"\\", "")
        bad = (set(text) & ESCAPED) - {"&"} if ln in rows else set(text) & ESCAPED
        assert not bad, (ln, bad)


def test_every_latex_table_is_well_formed(report):
    rep, _, _, out, tables = report
    for name, t in tables.items():
        tex = (rep / "tables" / f"{name}.tex").read_text()
        _check_latex(tex, len(t.columns))
    md = (rep / "report.md").read_text()
    for p in LATEX_PACKAGES:
        assert rf"\usepackage{{{p}}}" in md


def test_latex_escapes_names_and_puts_math_in_captions():
    t = Table("x_y", "T", "mu-hat and V_1 at 95% (#1)", (Column("Policy", verbatim=True), Column("mu-hat (%)", kind="num")),
              (("a_b & c%", 12.3456), ("d", -0.0001)))
    tex = t.to_latex()
    _check_latex(tex, 2)
    assert r"a\_b \& c\%" in tex and r"\caption{$\hat\mu$ and $V_{1}$ at 95\% (\#1)}" in tex
    assert "12.35" in tex and "-0.00" not in tex and r"$-$" not in tex.split(r"\midrule")[1].split("d &")[1]
