"""One cell of a table read as what its column holds: a bit, an example id, a call index or an answer text.

Every converter takes the value as the table's reader produced it (text, number, boolean,
``Decimal``) and either returns what it denotes or raises :class:`DataError` naming the source,
the row and the column. The rules are the readers' (:mod:`certify.readers._cells`): a bit is
0/1, ``true``/``false``, ``0.0``/``1.0`` or inspect's ``C``/``I``, and a number is a bit only
when the number its decimal text denotes is exactly 0 or 1; ids and answers lose surrounding
white space; a call index is an integer in ASCII digits of at most :data:`MAX_CALL_INDEX`.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

import numpy as np

from .._calls import DataError

__all__ = ["MAX_CALL_INDEX", "SHOWN_CHARS"]

_TRUE = {"1", "1.0", "true", "c"}
_FALSE = {"0", "0.0", "false", "i"}


#: Characters of a cell shown in a message: a message is one short line whatever the cell.
SHOWN_CHARS = 60


def _show(value) -> str:
    """repr(value) for a message, cut to SHOWN_CHARS characters (with the length said)."""
    text = repr(str(value) if isinstance(value, Decimal) else value)
    return text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}... ({len(text)} characters)"


def _where(source: str, row, column) -> str:
    return f"{source}: row {row}, column {column!r}"


def _bit(value, source: str, row, column, context=None):
    """0.0 / 1.0 for a binary cell, None for an empty one; DataError otherwise.

    ``context(column)``, if given, returns the tail of the error message (how the columns were read).
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, np.generic):
        value = value.item()  # report 0.5, not np.float64(0.5)
    if isinstance(value, Decimal):  # a JSON number, as its decimal text reads (exactly)
        if value == 0 or value == 1:
            return float(value)
        raise DataError(
            f"{_where(source, row, column)}: value {_show(value)} is not binary (0/1, true/false)"
            f"{context(column) if context else ''}"
        )
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v):
            return None
        if v in (0.0, 1.0):
            return v
        raise DataError(
            f"{_where(source, row, column)}: value {_show(value)} is not binary (0/1, true/false)"
            f"{context(column) if context else ''}"
        )
    text = str(value).strip()
    if text == "" or text.lower() in ("na", "nan", "null", "none"):
        return None
    low = text.lower()
    if low in _TRUE:
        return 1.0
    if low in _FALSE:
        return 0.0
    raise DataError(
        f"{_where(source, row, column)}: value {_show(value)} is not binary (0/1, true/false)"
        f"{context(column) if context else ''}"
    )


#: Largest call index (in absolute value): a 64-bit integer.
MAX_CALL_INDEX = 2**63 - 1


def _is_blank(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _id_text(value, source, row, column) -> str:
    if value is None or str(value).strip() == "" or (isinstance(value, float) and math.isnan(value)):
        raise DataError(f"{_where(source, row, column)}: missing example id")
    return str(value).strip()


# ASCII digits only: float() would read "1_0" as 10 and "١" as 1; at most 19 digits (int64)
_INDEX_TEXT = re.compile(r"[+-]?[0-9]{1,19}(?:\.0*)?", re.ASCII)


def _call_index(value, source, row, column, context) -> int:
    if isinstance(value, np.generic):
        value = value.item()
    c = None
    if isinstance(value, int) and not isinstance(value, bool):
        c = value
    elif isinstance(value, float) and value.is_integer():
        c = int(value)
    elif isinstance(value, Decimal) and value.is_finite() and abs(value) <= MAX_CALL_INDEX and value == int(value):
        c = int(value)  # a JSON number: 2 and 2.0 are call 2, as in a CSV
    elif isinstance(value, str) and _INDEX_TEXT.fullmatch(value.strip()):
        c = int(value.strip().split(".")[0])
    if c is None or abs(c) > MAX_CALL_INDEX:
        why = (
            " (beyond a 64-bit integer)"
            if c is not None
            else " (an integer is written in ASCII digits 0-9)"
            if isinstance(value, str) and any((ch.isdigit() and not "0" <= ch <= "9") or ch == "_" for ch in value)
            else ""
        )
        raise DataError(
            f"{_where(source, row, column)}: call index {_show(value)} is not an integer{why}{context(column)}"
        )
    return c


def _answer_text(value, source, row, column) -> str | None:
    """The text of an answer or target cell (``None``: empty); numbers as written, booleans as JSON writes them."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return None if math.isnan(value) else repr(value)
    if isinstance(value, (int, Decimal)):
        return str(value)
    raise DataError(f"{_where(source, row, column)}: value {_show(value)} is not a text or a number")


def _kind(value) -> str | None:
    """What a target value is, for the one-kind rule: ``text``, ``number``, ``boolean`` (None: empty)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float, Decimal)) else "text"
