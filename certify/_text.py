"""Plain-text tables: the one layout of every aligned table certify prints (core layer).

The CLI escapes what a terminal must not see (:func:`certify.cli._output.printable`) before it
lays a table out; the analysis's own text (:mod:`certify.analysis._text`) lays out numbers
and labels it wrote itself.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["table_lines"]


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str = "right") -> list[str]:
    """An aligned plain-text table as lines: a header, a rule of dashes, one line per row.

    The first column is left-aligned; the others right-aligned (numbers) or, with
    ``align="left"``, left-aligned (words first, as the verdict table's cells). Trailing
    blanks are stripped.
    """
    heads = [str(h) for h in headers]
    texts = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in texts)) if texts else len(h) for i, h in enumerate(heads)]

    def line(cells):
        parts = [c.ljust(widths[i]) if i == 0 or align == "left" else c.rjust(widths[i]) for i, c in enumerate(cells)]
        return "  ".join(parts).rstrip()

    return [line(heads), "  ".join("-" * w for w in widths), *(line(r) for r in texts)]
