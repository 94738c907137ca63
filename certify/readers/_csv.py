"""Streaming reader of delimited text tables (``.csv``, ``.tsv``, ``.txt``) in column blocks.

A table is read the way spreadsheets and other tools write it: UTF-8 with or without a
byte-order mark, ``\\n`` or ``\\r\\n`` line ends, fields quoted with ``"`` (doubled inside
a quoted field, which may span lines), and one of three delimiters: comma, semicolon
or tab. The delimiter is the one given (``delimiter=``, CLI ``--delimiter``), else tab for
``.tsv``, else the one of the three that occurs in the header line outside quotes; a
header with two or more of them is an error asking for ``--delimiter`` (never a guess).

Rows are numbered as data rows (1-based, header excluded, a blank line counts). Short
and long rows are treated alike, as trailing empty cells that a spreadsheet dropped or
added: a row with fewer fields than the header has empty cells at its end (calls not
recorded, said in a note), and a row with more fields is read when the extra fields are
empty; a non-empty field beyond the header is an error (it would have no column). Every
cell is read as text; what a cell means is decided by :mod:`certify.readers._cells`.

**Limits.** Every byte is checked as it is read, before a parser sees it (both parsers
read through :class:`_CheckedFile`): a NUL byte (no text table has one: a binary file,
or a sparse file of zeros) and a line longer than :data:`MAX_LINE_BYTES` are refused
at once with the line's number, so that a file of any size without line ends costs one
block of memory; a row (one record, also when quoted fields span lines) longer than
:data:`MAX_LINE_BYTES` is refused too. Python's :mod:`csv` also limits one field to
131,072 characters (its ``field_size_limit``).

The file is read in blocks of rows and only the columns asked for are kept, so memory
grows with the block size, not the file. Each block gives, per column, the distinct
cell texts of the block and one code per row (:class:`~certify.readers._blocks.Encoded`):
the caller converts each distinct text once instead of every cell. pyarrow's CSV reader
(``pyarrow.csv.open_csv``) does the parsing when pyarrow is installed (the
``parquet`` extra); otherwise Python's :mod:`csv` module does, with the same rules
(both are checked against each other in ``tests/stats/test_stats_files.py``).
"""

from __future__ import annotations

import bisect
import csv
import io
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .._calls import CallBits, DataError, ReadInfo
from ._answers import DEFAULT_NORMALIZATION
from ._blocks import Block, Encoded, encode_arrow, encode_texts
from ._columns import ColumnMap
from ._tables import read_table

__all__ = ["CsvTable", "DELIMITERS", "MAX_LINE_BYTES", "open_csv_table", "parse_delimiter", "read_csv"]

DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}
_DELIMITER_NAMES = {",": ",", "comma": ",", ";": ";", "semicolon": ";", "\t": "\t", "\\t": "\t", "tab": "\t"}
#: Bytes of text per pyarrow block; rows of a block are converted together.
BLOCK_BYTES = 1 << 19
#: Longest line, and longest row, of a delimited table (512 KiB): pyarrow's parser needs a
#: row within one block, and a wide row of 10,000 calls takes 20 KB (40 answers of 10 KB
#: each, 400 KB). Checked while the bytes stream, so a file without line ends is refused
#: after one block instead of being read whole.
MAX_LINE_BYTES = BLOCK_BYTES
#: Rows per block when Python's csv module parses.
BLOCK_ROWS = 1 << 16


def _merge(a: Encoded, b: Encoded) -> Encoded:
    return Encoded(a.values + b.values, np.concatenate([a.codes, b.codes + len(a.values)]), a.texts and b.texts)


def parse_delimiter(value: str | None) -> str | None:
    """``","``, ``";"`` or ``"\\t"`` from ``,`` ``;`` ``tab`` ``\\t`` (also ``comma``, ``semicolon``); None stays
    None."""
    if value is None:
        return None
    d = _DELIMITER_NAMES.get(value if value in (",", ";", "\t") else value.strip().lower())
    if d is None:
        raise DataError(f"--delimiter {value!r} is not a table delimiter; use ',' (comma), ';' (semicolon) or tab")
    return d


class _CheckedFile(io.RawIOBase):
    """A file's bytes as both parsers read them, refusing NUL bytes and over-long lines as they stream.

    Lines are counted here (1-based, the header is line 1), so that a refusal names the
    line whichever parser was reading; a refusal is a :class:`DataError`, which the
    parsers pass on unchanged.

    With ``deferred=True`` (pyarrow) a refusal, or any other error of the read, is kept in
    :attr:`refusal` and the file reads as ended instead: pyarrow reads on its own I/O
    thread, and a Python exception raised there is held by that thread's copy of the
    error, whose release takes the GIL. When the process ended right after the refusal
    was printed, that thread could be releasing it while the interpreter shut down, which
    aborts the process ("terminate called without an active exception", exit -6 instead
    of 2). The reader raises :attr:`refusal` on its own thread instead.
    """

    def __init__(self, path: Path, deferred: bool = False):
        super().__init__()
        self.path = path
        self.raw = open(path, "rb", buffering=0)
        self.offset = 0  # bytes read so far
        self.line = 1  # the line the next byte belongs to
        self.run = 0  # bytes of that line read so far
        self.deferred = deferred
        self.refusal: Exception | None = None
        self.stopped = False  # the reader stopped early: read as ended (_stop)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.refusal is not None or self.stopped:
            return 0
        try:
            n = self.raw.readinto(buffer)
            if n:
                self._check(np.frombuffer(buffer, dtype=np.uint8, count=n))
        except Exception as exc:  # kept for the reader's thread (class docstring)
            if not self.deferred:
                raise
            self.refusal = exc
            return 0
        return n

    def _check(self, data: np.ndarray) -> None:
        nul = np.flatnonzero(data == 0)
        if len(nul):
            raise DataError(
                f"{self.path}: not UTF-8 text (a NUL byte at byte {self.offset + int(nul[0])}: a binary "
                f"file?); save the file as UTF-8 CSV"
            )
        ends = np.flatnonzero(data == 10)  # b"\n"; "\r\n" counts its "\r" in the line
        lengths = np.diff(ends, prepend=-1) if len(ends) else np.zeros(0, dtype=np.intp)
        if len(ends):
            lengths[0] += self.run
        tail = self.run + len(data) if not len(ends) else len(data) - 1 - int(ends[-1])
        over = np.flatnonzero(lengths > MAX_LINE_BYTES + 1)  # a line's length with its "\n"
        if len(over) or tail > MAX_LINE_BYTES:
            line = self.line + (int(over[0]) if len(over) else len(ends))
            raise DataError(
                f"{self.path}: line {line} is longer than the limit of {MAX_LINE_BYTES:,} bytes "
                f"(MAX_LINE_BYTES); a table has one row per line"
            )
        self.offset += len(data)
        self.line += len(ends)
        self.run = tail

    def close(self) -> None:
        self.raw.close()
        super().close()


def _stop(reader, checked: _CheckedFile) -> None:
    """Let pyarrow's reading thread finish before the reader is dropped.

    Its I/O thread reads ahead through :class:`_CheckedFile`, calling into Python; a thread that
    is still in such a call when the interpreter shuts down aborts the process (the class's
    docstring). The file now reads as ended, and the reader is run to its end, which it reaches
    after the blocks already read ahead (a few blocks of BLOCK_BYTES: bounded work).
    """
    checked.stopped = True
    while True:
        try:
            reader.read_next_batch()
        except StopIteration:
            return
        except Exception:  # an error of a cut block: the caller's error stands
            return


def _text(path: Path) -> io.TextIOWrapper:
    """The checked file as text, as the header and Python's csv module read it."""
    return io.TextIOWrapper(io.BufferedReader(_CheckedFile(path), BLOCK_BYTES), encoding="utf-8-sig", newline="")


def _decode_error(path: Path, exc: UnicodeDecodeError, where: str = "") -> DataError:
    return DataError(f"{path}: not UTF-8 text ({where}{exc.reason}); save the file as UTF-8 CSV")


def _sniff(path: Path, line: str, suffix: str) -> str:
    """The delimiter of the header line: the one of , ; tab that occurs outside quotes."""
    if suffix == ".tsv":
        return "\t"
    found, quoted = set(), False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in DELIMITERS:
            found.add(ch)
    if len(found) > 1:
        names = " and ".join(DELIMITERS[d] for d in DELIMITERS if d in found)
        raise DataError(
            f"{path}: the header line contains both {names}, so the delimiter is ambiguous; "
            f"give it with --delimiter ',' or ';' or tab (delimiter=)"
        )
    return found.pop() if found else ","  # no delimiter: one column, which the column rules then reject


@dataclass(frozen=True)
class CsvTable:
    """An opened delimited table: its header and how to read its rows.

    Attributes
    ----------
    path : Path
    delimiter : str
        ``","``, ``";"`` or ``"\\t"``.
    header : tuple of str
        Column names with surrounding spaces removed (the names the column rules see).
    raw_header : tuple of str
        Column names as written.
    engine : str
        ``"pyarrow"`` or ``"python"``: which parser reads the rows.
    """

    path: Path
    delimiter: str
    header: tuple[str, ...]
    raw_header: tuple[str, ...]
    engine: str

    def blocks(self, columns) -> Iterator[Block]:
        """Blocks of the named columns (names from :attr:`header`), in file order."""
        index = [self.header.index(c) for c in columns]
        if self.engine == "pyarrow":
            return self._arrow_blocks(list(columns), index)
        return self._python_blocks(list(columns), index)

    def _pad(self, fields: list[str], row: int) -> list[str]:
        """A row's fields as the header's cells: missing trailing cells are empty, extra ones must be (module
        docstring)."""
        n = len(self.header)
        if len(fields) > n:
            if any(f.strip() for f in fields[n:]):
                raise DataError(
                    f"{self.path}: row {row}: {len(fields)} fields but the header has {n}, and a field beyond "
                    f"the header is not empty"
                )
            return fields[:n]
        return fields + [""] * (n - len(fields))

    def _python_block(self, names, index, rows: list[int], records: list[list[str]]) -> Block:
        columns = list(zip(*records))  # records are padded to the header's length
        return Block(
            np.asarray(rows, dtype=np.int64), {name: encode_texts(columns[j]) for name, j in zip(names, index)}
        )

    def _python_blocks(self, names, index) -> Iterator[Block]:
        with _text(self.path) as fh:
            fed = [0]  # characters of the row being read, over all its lines

            def lines():
                for line in fh:
                    fed[0] += len(line)
                    if fed[0] > MAX_LINE_BYTES:
                        raise DataError(
                            f"{self.path}: row {row + 1} is longer than the limit of {MAX_LINE_BYTES:,} "
                            f"characters (MAX_LINE_BYTES)"
                        )
                    yield line

            reader = csv.reader(lines(), delimiter=self.delimiter, strict=False)
            rows: list[int] = []
            records: list[list[str]] = []
            row = 0
            try:
                next(reader)  # the header, read by open_csv_table
                width = len(self.header)
                for row, fields in enumerate(reader, start=1):
                    fed[0] = 0
                    records.append(fields if len(fields) == width else self._pad(fields, row))
                    rows.append(row)
                    if len(rows) == BLOCK_ROWS:
                        yield self._python_block(names, index, rows, records)
                        rows, records = [], []
            except UnicodeDecodeError as exc:
                raise _decode_error(self.path, exc, f"after row {row}: ") from None
            except csv.Error as exc:
                raise DataError(f"{self.path}: row {row + 1}: not readable as CSV ({exc})") from None
            if rows:
                yield self._python_block(names, index, rows, records)

    def _arrow_blocks(self, names, index) -> Iterator[Block]:
        # optional (the parquet extra): open_csv_table chose this engine only when pyarrow imports
        import pyarrow as pa
        import pyarrow.csv as pacsv

        skipped: list[tuple[int, str]] = []  # (data row, text) of rows whose field count differs from the header

        def on_invalid(row) -> str:
            # Called while a block is parsed, before it is handed out, so every short row of
            # a block is known when the block's row numbers are worked out below.
            if row.number is None:  # only when parsing in threads, which is off
                return "error"
            skipped.append((row.number - 1, row.text))  # pyarrow counts the header as row 1
            return "skip"

        raw = [self.raw_header[j] for j in index]
        # The C library's allocator, not pyarrow's default (mimalloc): mimalloc kept the pages
        # of the freed blocks resident, about 20 MB more peak memory over a large file
        # (benchmarks/bench_large_csv.py); malloc's freed pages are reused by the reader's own
        # arrays and given back by _memory.trim_heap.
        pool = pa.system_memory_pool()
        # both parsers read through _CheckedFile (module docstring: limits)
        checked = _CheckedFile(self.path, deferred=True)

        def refused() -> None:
            # The file reads as ended after a refusal, so a block parsed from the bytes before
            # it may end in a cut row: no block is handed out once a refusal is known.
            if checked.refusal is not None:
                raise checked.refusal

        with io.BufferedReader(checked, BLOCK_BYTES) as source:
            try:
                reader = pacsv.open_csv(
                    source,
                    read_options=pacsv.ReadOptions(use_threads=False, block_size=BLOCK_BYTES),
                    # ignore_empty_lines=False: a blank line is a row of empty cells, so row
                    # numbers count it as Python's csv module does.
                    parse_options=pacsv.ParseOptions(
                        delimiter=self.delimiter,
                        newlines_in_values=True,
                        ignore_empty_lines=False,
                        invalid_row_handler=on_invalid,
                    ),
                    convert_options=pacsv.ConvertOptions(
                        include_columns=raw, column_types={c: pa.string() for c in raw}, strings_can_be_null=False
                    ),
                    memory_pool=pool,
                )
            except pa.ArrowInvalid as exc:
                refused()
                raise self._arrow_error(exc, 0) from None
            ended = False
            try:
                refused()
                if [n.strip() for n in reader.schema.names] != [self.header[j] for j in index]:
                    raise DataError(
                        f"{self.path}: the header read by pyarrow ({', '.join(reader.schema.names)}) differs "
                        f"from the header line ({', '.join(self.raw_header)})"
                    )
                next_row = 1
                while True:
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        refused()
                        break
                    except pa.ArrowInvalid as exc:
                        refused()
                        raise self._arrow_error(exc, next_row) from None
                    refused()
                    m = batch.num_rows
                    if m == 0:
                        continue
                    skipped.sort()
                    skip_rows = np.array([r for r, _ in skipped], dtype=np.int64)
                    candidates = np.arange(next_row, next_row + m + len(skipped), dtype=np.int64)
                    rows = candidates[~np.isin(candidates, skip_rows)][:m]
                    last = int(rows[-1])
                    cut = bisect.bisect_right(skip_rows.tolist(), last)
                    mine, skipped[:] = skipped[:cut], skipped[cut:]
                    block = Block(rows, {name: encode_arrow(batch.column(i), pool) for i, name in enumerate(names)})
                    del batch  # the parsed text of the block: freed before the next one is parsed
                    if mine:
                        block = self._with_short_rows(block, names, index, mine)
                    next_row = last + 1
                    yield block
                ended = True
            finally:
                if not ended:  # the caller stopped early (a refused value) or a refusal is raised
                    _stop(reader, checked)
            if skipped:
                skipped.sort()
                yield self._with_short_rows(None, names, index, skipped)

    def _with_short_rows(self, block: Block | None, names, index, short: list[tuple[int, str]]) -> Block:
        records = []
        for row, text in short:
            fields = next(csv.reader(io.StringIO(text), delimiter=self.delimiter, strict=False), [])
            records.append(self._pad(fields, row))
        extra = self._python_block(names, index, [r for r, _ in short], records)
        if block is None:
            return extra
        return Block(
            np.concatenate([block.rows, extra.rows]), {n: _merge(block.columns[n], extra.columns[n]) for n in names}
        )

    def _arrow_error(self, exc, row: int) -> DataError:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "straddl" in text:  # a row (quoted fields spanning lines) longer than a block
            return DataError(
                f"{self.path}: a row from row {max(row, 1)} on is longer than the limit of {MAX_LINE_BYTES:,} bytes "
                f"(MAX_LINE_BYTES)"
            )
        if "UTF8" in text or "utf8" in text.lower():
            return DataError(f"{self.path}: not UTF-8 text (in the rows from row {row} on); save the file as UTF-8 CSV")
        return DataError(f"{self.path}: not readable as CSV from row {row} on ({text})")


def open_csv_table(path, delimiter: str | None = None, engine: str | None = None) -> CsvTable:
    """Open a delimited table: check it is UTF-8 text, find the delimiter, read the header.

    Parameters
    ----------
    path : str or Path
    delimiter : str, optional
        ``","``, ``";"`` or ``"\\t"`` (or a name :func:`parse_delimiter` accepts); default:
        tab for ``.tsv``, else sniffed from the header line (module docstring).
    engine : {"pyarrow", "python"}, optional
        The parser; default pyarrow when installed, else Python's csv module.

    Returns
    -------
    CsvTable

    Raises
    ------
    DataError
        Not UTF-8 text, an empty file, an ambiguous delimiter, a header naming a column twice.
    """
    p = Path(path)
    delimiter = parse_delimiter(delimiter)
    if engine is None:
        try:
            import pyarrow.csv  # noqa: F401  (the fast parser; the python one gives the same blocks)

            engine = "pyarrow"
        except ImportError:
            engine = "python"
    if engine not in ("pyarrow", "python"):
        raise ValueError(f"engine={engine!r} must be 'pyarrow' or 'python'")
    try:
        with _text(p) as fh:
            first = fh.readline()
            if delimiter is None:
                delimiter = _sniff(p, first, p.suffix.lower())
            # the first line again, then the rest: a quoted header field may span lines
            header = next(csv.reader(itertools.chain([first], fh), delimiter=delimiter, strict=False), None)
            only_header = fh.read(1) == ""  # the file ends with the header (with or without its line end)
    except UnicodeDecodeError as exc:
        raise _decode_error(p, exc, "in the header: ") from None
    except csv.Error as exc:  # a quoted header field that is not closed, over more than one field's length
        raise DataError(f"{p}: the header line is not readable as CSV ({exc})") from None
    if header is None or not any(h.strip() for h in header):
        raise DataError(f"{p}: the file is empty" if header is None else f"{p}: the header line is empty")
    others = [d for d in DELIMITERS if d != delimiter and d in header[0]]
    if len(header) == 1 and others:  # a .tsv written with commas, or a wrong --delimiter
        raise DataError(
            f"{p}: the header line has no {DELIMITERS[delimiter]} but has a {DELIMITERS[others[0]]}; "
            f"give the delimiter with --delimiter ',' or ';' or tab (delimiter=)"
        )
    stripped = [h.strip() for h in header]
    seen = set()
    for h in stripped:
        if h in seen:
            raise DataError(f"{p}: column {h!r} appears twice in the header")
        seen.add(h)
    if only_header:
        raise DataError(f"{p}: the file has no data rows (only the header line)")
    return CsvTable(p, delimiter, tuple(stripped), tuple(header), engine)


_DEFAULT_DELIMITER = {".tsv": "\t"}


def read_csv(
    path: Path,
    cmap: ColumnMap,
    delimiter: str | None,
    engine: str | None = None,
    answer_normalize: str = DEFAULT_NORMALIZATION,
) -> tuple[dict[str, CallBits], ReadInfo]:
    """A delimited table, streamed block by block (module docstring), and how its columns were read."""
    table = open_csv_table(path, delimiter, engine)
    out, info = read_table(
        table.header, cmap, str(path), "row", table.blocks, skip_blank=True, answer_normalize=answer_normalize
    )
    if delimiter is None and table.delimiter != _DEFAULT_DELIMITER.get(path.suffix.lower(), ","):
        # said because a semicolon file read as commas would be one column: the reader decided
        info = replace(
            info, notes=(f"fields separated by {DELIMITERS[table.delimiter]}s (found in the header line)", *info.notes)
        )
    return out, info
