"""Shared output helpers: JSON on stdout (through :mod:`certify._json`) and aligned text tables."""

from __future__ import annotations

import sys
from typing import Sequence

from .._json import to_json


def print_json(obj) -> None:
    """Write one JSON object to stdout (:func:`to_json`)."""
    sys.stdout.write(to_json(obj) + "\n")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]], out=None) -> None:
    """Print an aligned plain-text table; the first column is left-aligned."""
    out = out or sys.stdout
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h)) for i, h in enumerate(headers)]

    def line(cells):
        parts = [str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(cells)]
        return "  ".join(parts).rstrip()

    print(line(headers), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in rows:
        print(line(r), file=out)


def format_law(atoms: Sequence[float], weights: Sequence[float], digits: int = 4) -> str:
    """Compact text for a finite law: ``{atom: weight, ...}``."""
    return "{" + ", ".join(f"{a:.{digits}g}: {w:.{digits}g}" for a, w in zip(atoms, weights)) + "}"
