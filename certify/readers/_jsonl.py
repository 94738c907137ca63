"""JSON-lines tables (``.jsonl``, ``.ndjson``): one JSON object per line, in wide or long form.

Every non-blank line is one row; its keys are the table's columns (in order of first
appearance over the file) and get their roles by :mod:`certify.readers._columns`. Rows
are numbered by line (a blank line counts), and messages name the line.
:func:`jsonl_objects` is also how lm-eval samples files are read (:mod:`certify.readers._lmeval`).

**Streamed, within limits.** The file is read line by line, never whole: a line longer
than :data:`MAX_LINE_BYTES` is refused after reading that many bytes (a file without line
ends, or a sparse file of zeros, costs one line of memory), a NUL byte is refused at
once, and each line is parsed by the strict parser of :mod:`certify._json_limits`:
arrays and objects nested deeper than :data:`MAX_DEPTH`, a key repeated in one object
(Python's ``json`` would keep the last), ``NaN`` / ``Infinity`` and integers beyond
Python's digit limit are one-line errors naming the line. The rows stream into the
accumulator in blocks of :data:`BLOCK_LINES` lines; the columns are the keys of the first
block, and a key first seen later makes the file be read again with every key.

**Numbers.** A table's numbers keep their decimal value exactly (``decimal.Decimal``), so
that a bit is a number that *is* 0 or 1 (``1``, ``1.0``, ``1e0``), never one that rounds to
it (``0.99999999999999999``), and an answer or id reads as its decimal text.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo
from .._json_limits import NotJson, parse_json, strict_decoder
from ._answers import DEFAULT_NORMALIZATION
from ._columns import ColumnMap
from ._tables import read_table, records_block

__all__ = ["BLOCK_LINES", "MAX_DEPTH", "MAX_LINE_BYTES", "jsonl_objects", "read_jsonl"]

#: Longest line read (16 MiB): an lm-eval sample with its document and every repeat's
#: response is a few hundred KB; a table row far less.
MAX_LINE_BYTES = 16 * 2**20
#: Deepest nesting of arrays and objects in one line: tables are flat, lm-eval samples
#: nest their documents a few levels; Python's parser recurses once per level.
MAX_DEPTH = 64
#: Lines per block handed to the accumulator.
BLOCK_LINES = 1 << 16
#: Bytes read at once; lines are split from them in C.
_CHUNK_BYTES = 1 << 20


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, read within the limits (module docstring), a chunk of bytes at a time."""
    with open(path, "rb") as fh:
        line_no, rest = 0, b""
        while True:
            chunk = fh.read(_CHUNK_BYTES)
            nul = chunk.find(b"\x00")
            if nul >= 0:
                where = line_no + 1 + rest.count(b"\n") + chunk.count(b"\n", 0, nul)
                raise DataError(f"{path}: line {where}: not UTF-8 text (a NUL byte: a binary file?)")
            data = rest + chunk if rest else chunk
            if chunk:
                parts = data.split(b"\n")
                rest = parts.pop()  # the line that goes on in the next chunk
            else:
                parts, rest = ([data] if data else []), b""
            if len(rest) > MAX_LINE_BYTES or any(len(raw) > MAX_LINE_BYTES for raw in parts):
                over = next((i for i, raw in enumerate(parts) if len(raw) > MAX_LINE_BYTES), len(parts))
                raise DataError(
                    f"{path}: line {line_no + 1 + over} is longer than the limit of {MAX_LINE_BYTES:,} bytes "
                    f"(MAX_LINE_BYTES)"
                )
            for raw in parts:
                line_no += 1
                if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    yield line_no, raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(
                        f"{path}: line {line_no}: not UTF-8 text (byte {exc.start}: {exc.reason}); save "
                        f"the file as UTF-8"
                    ) from None
            if not chunk:
                return


def jsonl_objects(path: Path, what: str = "a JSON object per line", exact_numbers: bool = False):
    """(line number, object) for every non-blank line of a JSON-lines file; DataError otherwise.

    Lines end at "\\n" only: JSON writers leave U+2028, U+0085 ... unescaped inside strings
    (``json.dumps(ensure_ascii=False)``), where ``str.splitlines`` would cut a record in two.
    ``exact_numbers``: numbers with a fraction or exponent as ``decimal.Decimal`` (module
    docstring), else as float.
    """
    decoder = strict_decoder(parse_float=Decimal if exact_numbers else None)
    for line_no, line in _lines(path):
        if not line.strip():
            continue
        try:
            rec = parse_json(line, depth=MAX_DEPTH, decoder=decoder)
        except NotJson as exc:
            raise DataError(f"{path}: line {line_no}: {exc}") from None
        if not isinstance(rec, dict):
            raise DataError(f"{path}: line {line_no}: expected {what}")
        yield line_no, rec


class _NewColumn(Exception):
    """A key first seen after the first block: the columns were resolved without it."""


def _blocks(path: Path) -> Iterator[tuple[list[dict], list[int]]]:
    records, lines = [], []
    for line_no, rec in jsonl_objects(path, exact_numbers=True):
        records.append(rec)
        lines.append(line_no)
        if len(records) == BLOCK_LINES:
            yield records, lines
            records, lines = [], []
    if records:
        yield records, lines


def _keys(records: list[dict], columns: dict) -> None:
    """Add the keys of ``records`` to ``columns`` in order of first sight (records mostly share one key order)."""
    for keys in dict.fromkeys(map(tuple, records)):
        columns.update(dict.fromkeys(keys))


def read_jsonl(
    path: Path, cmap: ColumnMap, answer_normalize: str = DEFAULT_NORMALIZATION
) -> tuple[dict[str, CallBits], ReadInfo]:
    """A JSON-lines table's CallBits per group, and how its columns were read (module docstring)."""
    stream = _blocks(path)
    first = next(stream, None)
    if first is None:
        raise DataError(f"{path}: the file has no data rows")
    columns: dict = {}
    _keys(first[0], columns)

    def blocks(names, known=frozenset(columns)):
        yield records_block(first[0], names, first[1])
        for records, lines in stream:
            if any(not known.issuperset(keys) for keys in dict.fromkeys(map(tuple, records))):
                raise _NewColumn
            yield records_block(records, names, lines)

    try:
        return read_table(list(columns), cmap, str(path), "line", blocks, answer_normalize=answer_normalize)
    except _NewColumn:
        pass
    for records, _ in _blocks(path):  # every key of the file, then the file again
        _keys(records, columns)
    return read_table(
        list(columns),
        cmap,
        str(path),
        "line",
        lambda names: (records_block(r, names, lines) for r, lines in _blocks(path)),
        answer_normalize=answer_normalize,
    )
