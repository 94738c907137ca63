"""Shared output helpers: JSON on stdout (through :mod:`certify._json`) and text lines and tables.

Text that reaches a terminal goes through :func:`printable`: names read from data files (groups,
columns, example ids), file names and messages carrying them may hold control characters, and
raw, an ESC sequence would drive the terminal and a line break could forge a line of the report
(a fake verdict). JSON keeps every value exactly (``json.dumps`` escapes control characters).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._json import to_json
from .._text import table_lines

#: Escapes of the control characters that have a short one, as Python writes them.
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text) -> str:
    """``str(text)`` with every character that is not printable escaped, as Python's ``repr`` does.

    Not printable (``str.isprintable``): the C0 and C1 control characters (line breaks, ESC,
    the CSI U+009B), DEL, format characters (the bidirectional overrides U+202A-U+202E and
    U+2066-U+2069, which reorder what a terminal shows), line and paragraph separators and
    spaces other than U+0020. They become ``\\n``, ``\\x1b``, ``\\u202e``, ...; every other
    character, letters of any script included, is kept, so a name reads as written.
    """
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c.isprintable():
            out.append(c)
        elif c in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[c])
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def print_line(text="", file=None) -> None:
    """Print ``text`` as one line (:func:`printable`) on ``file`` (default: standard output)."""
    print(printable(text), file=sys.stdout if file is None else file)


def print_json(obj) -> None:
    """Write one JSON object to stdout (:func:`to_json`)."""
    sys.stdout.write(to_json(obj) + "\n")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], out=None, align: str = "right") -> None:
    """Print an aligned plain-text table; every cell through :func:`printable`.

    The first column is left-aligned; the others right-aligned (numbers) or, with
    ``align="left"``, left-aligned (words first, as the verdict table's cells).
    """
    out = out or sys.stdout
    for line in table_lines([printable(h) for h in headers], [[printable(c) for c in r] for r in rows], align):
        print(line, file=out)


def format_law(atoms: Sequence[float], weights: Sequence[float], digits: int = 4) -> str:
    """Compact text for a finite law: ``{atom: weight, ...}``."""
    return "{" + ", ".join(f"{a:.{digits}g}: {w:.{digits}g}" for a, w in zip(atoms, weights)) + "}"
