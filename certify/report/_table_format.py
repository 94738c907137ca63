"""A table of the report and its three renderings: Markdown, CSV and LaTeX.

:class:`Column` says how one column's values are shown (kind, digits, a sign, verbatim names)
and :class:`Table` holds a titled table and renders it. Every rendering rounds to the column's
digits and prints a zero without sign; the LaTeX output compiles inside any document whose
preamble loads :data:`LATEX_PACKAGES` (each ``.tex`` file says so in a comment). The report's
own tables are built from these in :mod:`._tables`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from .._objective import is_vote_limit

__all__ = ["LATEX_PACKAGES", "LATEX_PREAMBLE", "MAX_COLUMNS", "Column", "Table", "latex_text", "votes_text"]

#: Packages the LaTeX tables need: booktabs (\toprule, \midrule, \bottomrule), float ([H] placement).
LATEX_PACKAGES = ("booktabs", "float")
#: The preamble lines that make every ``.tex`` table compile (stated at the top of each file and in report.md).
LATEX_PREAMBLE = "\n".join(rf"\usepackage{{{p}}}" for p in LATEX_PACKAGES)
#: Widest table the report writes (a wider one does not fit a paper page at \scriptsize).
MAX_COLUMNS = 10
_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}

#: Plain-text notation of headers and captions -> LaTeX math (longest alternatives first).
_MATH = [
    (r"mu-hat", r"$\hat\mu$"),
    (r"nu-hat", r"$\hat\nu$"),
    (r"rho-hat", r"$\hat\rho$"),
    (r"V_inf\b|Vinf\b", r"$V_\infty$"),
    (r">=", r"$\ge$"),
    (r"<=", r"$\le$"),
    (r"\+-", r"$\pm$"),
    (r"->", r"$\to$"),
    (r"\bchi2\b", r"$\chi^2$"),
    (r"\b[kK]\b", None),  # k votes, K calls
    (r"\b(?:alpha|mu|nu|rho)\b", None),  # Greek letters by name
    (r"\b[A-Za-z]_(?:\{[^}]*\}|[A-Za-z0-9]+)", None),  # subscripts: V_1, L_n, q_i, V_{101}
]
_MATH_RE = re.compile("|".join(f"(?:{pat})" for pat, _ in _MATH))


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def _math_token(tok: str) -> str:
    for pat, repl in _MATH:
        if re.fullmatch(pat, tok):
            if repl is not None:
                return repl
            if len(tok) == 1:
                return f"${tok}$"
            if "_" in tok:
                base, sub = tok.split("_", 1)
                sub = sub[1:-1] if sub.startswith("{") else sub
                return f"${base}_{{{sub}}}$"
            return f"$\\{tok}$"
    return _latex_escape(tok)


def latex_text(text: str) -> str:
    """Plain report text as LaTeX: notation (mu-hat, V_1, >=, alpha, ...) in math mode, the rest escaped."""
    out, pos = [], 0
    for m in _MATH_RE.finditer(text):
        out += [_latex_escape(text[pos : m.start()]), _math_token(m.group(0))]
        pos = m.end()
    out.append(_latex_escape(text[pos:]))
    return "".join(out)


def votes_text(votes, paper: bool = False) -> str:
    """A budget in words: ``3 votes``, ``1 vote``, ``infinitely many votes``; ``paper`` adds (V_n), 2n+1 votes = V_n."""
    if is_vote_limit(votes):
        return "infinitely many votes (V_inf)" if paper else "infinitely many votes"
    v = int(votes)
    words = "1 vote" if v == 1 else f"{v} votes"
    return f"{words} (V_{(v - 1) // 2})" if paper and v % 2 else words


def _rounded(x: float | np.floating | np.integer, digits: int) -> float:
    """``x`` rounded as displayed, with -0.0 made 0.0 (a signed zero is shown as 0.00)."""
    r = round(float(x), digits)
    return 0.0 if r == 0 else r


def _fmt(x: float | np.floating | np.integer, digits: int, signed: bool) -> str:
    r = _rounded(x, digits)
    return f"{r:+.{digits}f}" if signed and r != 0 else f"{r:.{digits}f}"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


@dataclass(frozen=True)
class Column:
    """A table column.

    Attributes
    ----------
    name : str
        Header in Markdown and CSV (plain text; it says which calls an estimate uses).
    latex : str
        Header in LaTeX; default: ``name`` through :func:`latex_text`.
    kind : str
        ``"text"``, ``"num"`` (``digits`` decimals), ``"signed"`` (explicit sign, zero
        unsigned), ``"bool"`` (yes/no) or ``"ci"`` (a (value, lower, upper) triple; CSV
        gets three columns).
    digits : int
    verbatim : bool
        Cells are names from the data (data sets, policies): LaTeX escapes them as they are,
        without reading notation such as ``a_1`` as math.
    """

    name: str
    latex: str = ""
    kind: str = "text"
    digits: int = 2
    verbatim: bool = False

    def render(self, value) -> str:
        if _missing(value):
            return "-"
        if self.kind == "text":
            return str(value)
        if self.kind == "bool":
            return "yes" if value else "no"
        if self.kind == "num":
            return _fmt(value, self.digits, False)
        if self.kind == "signed":
            return _fmt(value, self.digits, True)
        if self.kind == "ci":
            v, lo, hi = value
            return f"{_fmt(v, self.digits, True)} [{_fmt(lo, self.digits, True)}, {_fmt(hi, self.digits, True)}]"
        raise InputError(f"column kind {self.kind!r} is unknown")

    def csv_cells(self, value) -> list[str]:
        """CSV cells of one value: rounded to the displayed digits, unsigned, empty when missing."""
        if self.kind == "ci":
            vals = [None, None, None] if _missing(value) else list(value)
        else:
            vals = [value]
        out = []
        for x in vals:
            if _missing(x):
                out.append("")
            elif isinstance(x, bool):
                out.append("true" if x else "false")
            elif isinstance(x, (float, np.floating)) or (
                isinstance(x, (int, np.integer)) and self.kind in ("num", "signed", "ci")
            ):
                out.append(_fmt(x, self.digits, False))
            else:
                out.append(str(x))
        return out

    @property
    def latex_header(self) -> str:
        return self.latex or latex_text(self.name)


@dataclass(frozen=True)
class Table:
    """A titled table of raw values with Markdown, CSV and LaTeX renderings.

    Attributes
    ----------
    name : str
        File stem (``policy_table`` -> ``policy_table.csv``).
    title, caption : str
        Plain text; LaTeX gets them through :func:`latex_text` (math in ``$...$``).
    columns : tuple of Column
    rows : tuple of tuple
        Raw values (``"ci"`` cells are (value, lower, upper)); every rendering rounds.
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
        body = [
            "| " + " | ".join(c.render(v).replace("|", "\\|") for c, v in zip(self.columns, r)) + " |"
            for r in self.rows
        ]
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
                cells += c.csv_cells(v)
            w.writerow(cells)
        return buf.getvalue()

    def to_latex(self) -> str:
        """A ``table`` float (booktabs rules, ``[H]`` placement), preceded by a comment naming its preamble."""
        spec = "".join("l" if c.kind in ("text", "bool") else "r" for c in self.columns)
        lines = [
            f"% certify report table '{self.name}'. Needs in the document preamble:",
            *(f"%   {line}" for line in LATEX_PREAMBLE.splitlines()),
            r"\begin{table}[H]",
            r"\centering",
            r"\scriptsize",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            " & ".join(c.latex_header for c in self.columns) + r" \\",
            r"\midrule",
        ]
        for r in self.rows:
            lines.append(" & ".join(_latex_cell(c, v) for c, v in zip(self.columns, r)) + r" \\")
        lines += [
            r"\bottomrule",
            r"\end{tabular}",
            rf"\caption{{{latex_text(self.caption)}}}",
            rf"\label{{tab:{self.name.replace('_', '-')}}}",
            r"\end{table}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "caption": self.caption,
            "columns": [c.name for c in self.columns],
            "rows": [[list(v) if isinstance(v, tuple) else v for v in r] for r in self.rows],
        }


def _latex_cell(column: Column, value) -> str:
    """One LaTeX cell: names escaped verbatim, notation in math, minus signs of numbers as $-$ (not a hyphen)."""
    if column.verbatim:
        return _latex_escape(column.render(value))
    text = latex_text(column.render(value))
    return re.sub(r"-(?=\d)", "$-$", text) if column.kind in ("num", "signed", "ci") else text
