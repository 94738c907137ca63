"""JSON-lines tables (``.jsonl``, ``.ndjson``): one JSON object per line, in wide or long form.

Every non-blank line is one row; its keys are the table's columns (in order of first
appearance over the file) and get their roles by :mod:`certify.readers._columns`. Rows
are numbered by line (a blank line counts), and messages name the line.
:func:`jsonl_objects` is also how lm-eval samples files are read (:mod:`certify.readers._lmeval`).
"""

from __future__ import annotations

import json
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo
from ._columns import ColumnMap
from ._tables import read_table, records_block

__all__ = ["jsonl_objects", "read_jsonl"]


def _read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); save the file as UTF-8") from None


def jsonl_objects(path: Path, what: str = "a JSON object per line"):
    """(line number, object) for every non-blank line of a JSON-lines file; DataError otherwise.

    Lines end at "\n" only: JSON writers leave U+2028, U+0085 ... unescaped inside strings
    (``json.dumps(ensure_ascii=False)``), where ``str.splitlines`` would cut a record in two.
    """
    for line_no, line in enumerate(_read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: line {line_no}: not valid JSON ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise DataError(f"{path}: line {line_no}: expected {what}")
        yield line_no, rec


def read_jsonl(path: Path, cmap: ColumnMap) -> tuple[dict[str, CallBits], ReadInfo]:
    """A JSON-lines table's CallBits per group, and how its columns were read."""
    records, columns, lines = [], [], []
    for line_no, rec in jsonl_objects(path):
        records.append(rec)
        lines.append(line_no)
        columns.extend(k for k in rec if k not in columns)
    if not records:
        raise DataError(f"{path}: the file has no data rows")
    return read_table(columns, cmap, str(path), "line", lambda names: [records_block(records, names, lines)])
