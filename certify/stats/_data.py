"""Reading per-example, per-call correctness bits B_ij (paper eq. (hierarchy-main)).

Accepted inputs (the format is chosen by the file name):

* ``.csv`` / ``.tsv`` / ``.txt`` (UTF-8 with or without a byte-order mark, ``\n`` or
  ``\r\n`` line ends; comma, semicolon or tab, given with ``delimiter=`` / ``--delimiter``
  or found in the header line: :mod:`certify.stats._csv_read`), ``.jsonl`` /
  ``.ndjson``, ``.parquet``: tables in **wide** or **long** form (below);
* inspect_ai eval logs, ``.eval`` and ``.json``: see :mod:`certify.stats._inspect_log`
  (readers, the ``status`` rule, ``allow_incomplete`` and the score mapping);
* lm-evaluation-harness samples files (``samples_<task>_<date>.jsonl`` of ``lm_eval --log_samples``,
  a ``generate_until`` task with ``repeats``), recognized by content: see :mod:`certify.stats._lmeval_log`
  (the exact-match rule, ``answer_regex``, ``ignore_case``);
* the project's run store (``.sqlite`` / ``.db``, see ``certify/experiment/README.md``).

**Tables: the reader never guesses.** Every column gets exactly one role, decided by
its name (case-insensitive) from the lists below, or by an explicit mapping
(:class:`ColumnMap`; CLI flags of the same names). A column that has no role is an
error naming it.

* *id* (one of): ``example_id, example, id, sample_id, doc_id, question_id, item_id, qid``.
  Wide form may have none (examples are then numbered by row); long form needs one.
* **long form** (one row per call): an id column, a *call* column (call index, an
  integer: ``call, call_index, repeat, epoch, attempt, try, trial, sample``) and a
  *correct* column (the bit: ``correct, is_correct, bit, score, value, exact_match,
  em, acc, accuracy, pass, passed``). Calls are ordered by the call index.
* **wide form** (one row per example): the call columns are those named by a prefix
  ``b, c, bit, call, repeat, epoch, try, attempt, trial, sample, correct`` and a number,
  with an optional ``_``, ``-`` or space (``b0, b1``, ``call1``, ``repeat_2``, ``epoch3``,
  ``try1``, ``attempt_2``, ``sample3``), all with the same prefix and distinct numbers;
  calls are ordered by the number. At least two are needed.
* The form is long when a call or correct column is present, wide otherwise; a file
  with both numbered call columns and a call/correct column is an error.
* *groups*: ``dataset`` / ``policy`` (run-store exports) or, if neither is present,
  ``task`` / ``model`` split the file into independent analyses named ``dataset/policy``.
* *metadata*, read and not used: ``dataset, policy, task, model`` (when not groups),
  ``position, label, q, answer, valid`` (the run-store exports' extra columns).
* Anything else (``target``, ``f1``, an unnamed pandas index ...) is an error naming the
  column. Two columns matching the same role (``id`` and ``sample_id``; ``repeat`` and
  ``epoch``) are an error too.

Explicit mapping, :class:`ColumnMap` (or a dict with the same keys; CLI flag in brackets):
``id_col`` (``--id-col``), ``call_cols`` (``--call-cols``: wide form, calls in the
given order), ``call_col`` and ``correct_col`` (``--call-col``, ``--correct-col``: long
form), ``group_cols`` (``--group-cols``), ``ignore_cols`` (``--ignore-cols``: dropped
before anything else; ``--group-cols`` with no names: no groups). A role given
explicitly replaces the name lists for that role; the others are still found by name.
Options that do not apply to a file's type (column options for a log or a run store;
``scorer``, ``allow_incomplete``, ``score_map`` for a table or a store) are errors.
What was read as what is recorded in :attr:`CallBits.read_info` (:class:`ReadInfo`);
``certify analyze`` prints it first (``--json``: the ``columns`` field).

Bits are 0/1, ``true``/``false``, ``0.0``/``1.0`` or inspect's ``C``/``I`` (any case).

**Ragged call counts.** Each example keeps all its recorded calls in call-index
order (K_i of them); a wide row may end early (missing or empty trailing cells), a long
file may lack some (example, call) rows. Such a file is analysed as it is, never cut
to the smallest K_i, and :attr:`ReadInfo.notes` (printed by ``certify analyze``) says
how many examples have fewer calls than the most, naming the first, and whether the
call indices of a long file skip a number. The paper's two-call estimator uses each example's first two
calls; the U-statistics use all K_i calls of each example (each example's
estimate is unbiased on its own); quantities needing k calls (moment m_k, a
k-vote empirical accuracy) are reported only when *every* example has at least
k calls, so no example is dropped and no selection on call counts can bias them.
In wide form an empty cell is "not recorded" only after the row's last recorded
call; an empty cell before a recorded call is a missing value (error).

**Errors** (:class:`DataError`, an :class:`~certify.InputError`) are one line naming
the file, the row (1-based data row, header excluded, a blank line counts; JSONL: line),
the column and the rule: non-binary and missing values, examples with fewer than two
calls, empty files, duplicated (example, call) keys, columns without a role, a
directory, a file that is not UTF-8 text, more than :data:`MAX_CALL_INDICES` distinct
call indices. A value error in a call or correct column also says which columns were
read as what and how to map them.

**Reading is streamed.** Every table reaches :class:`CallBits` through one path,
:class:`_Cells`: blocks of rows, each distinct cell value converted once, bits placed
with numpy into an (examples x calls) array. A CSV is never held whole in memory: the
memory grows with the number of examples, not rows (``benchmarks/bench_large_csv.py``).
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from pathlib import Path
from typing import Protocol

import numpy as np

from .._calls import CallBits, DataError, ReadInfo, abbreviate
from .._errors import InputError
from .._extras import require

__all__ = ["CallBits", "ColumnMap", "DataError", "ReadInfo", "read_bits", "read_groups", "bits_from_array"]

ID_COLUMNS = ("example_id", "example", "id", "sample_id", "doc_id", "question_id", "item_id", "qid")
CALL_COLUMNS = ("call", "call_index", "repeat", "epoch", "attempt", "try", "trial", "sample")
CORRECT_COLUMNS = ("correct", "is_correct", "bit", "score", "value", "exact_match", "em", "acc", "accuracy", "pass", "passed")
BIT_COLUMNS = CORRECT_COLUMNS  # the former name
GROUP_COLUMNS = ("dataset", "policy", "task", "model")
META_COLUMNS = frozenset(GROUP_COLUMNS) | {"position", "label", "q", "answer", "valid"}
WIDE_PREFIXES = ("b", "c", "bit", "call", "repeat", "epoch", "try", "attempt", "trial", "sample", "correct")
_WIDE_CALL = re.compile(r"^(" + "|".join(sorted(WIDE_PREFIXES, key=len, reverse=True)) + r")[_\- ]?(\d+)$", re.IGNORECASE)
_TRUE = {"1", "1.0", "true", "c"}
_FALSE = {"0", "0.0", "false", "i"}
_MAP_HINT = "map columns with --id-col, --call-cols (wide), --call-col/--correct-col (long), --group-cols or --ignore-cols"


@dataclass(frozen=True)
class ColumnMap:
    """Explicit column roles for tables (module docstring); every field is optional.

    Attributes
    ----------
    id_col : str, optional
        The example id column.
    call_cols : tuple of str
        Wide form: the call columns, in call order.
    call_col, correct_col : str, optional
        Long form: the call-index column and the correct (bit) column.
    group_cols : tuple of str, optional
        Columns whose values split the file into groups (``()`` for none); ``None``: the
        default rule (``dataset``/``policy``, else ``task``/``model``).
    ignore_cols : tuple of str
        Columns dropped before anything else.
    """

    id_col: str | None = None
    call_cols: tuple[str, ...] = ()
    call_col: str | None = None
    correct_col: str | None = None
    group_cols: tuple[str, ...] | None = None
    ignore_cols: tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("call_cols", "ignore_cols", "group_cols"):
            value = getattr(self, name)
            if value is None:
                if name != "group_cols":  # None: nothing given (the CLI's default)
                    object.__setattr__(self, name, ())
                continue
            if isinstance(value, str):
                value = (value,)
            object.__setattr__(self, name, tuple(str(v) for v in value))

    @classmethod
    def coerce(cls, columns, source: str = "columns") -> "ColumnMap":
        """A ColumnMap from None, a ColumnMap or a dict with the same keys."""
        if columns is None:
            return cls()
        if isinstance(columns, cls):
            return columns
        if isinstance(columns, Mapping):
            unknown = sorted(set(columns) - set(cls.__dataclass_fields__))
            if unknown:
                raise DataError(f"{source}: columns: unknown key(s) {', '.join(map(repr, unknown))}; "
                                f"use {', '.join(cls.__dataclass_fields__)}")
            return cls(**columns)
        raise DataError(f"{source}: columns={columns!r} must be a ColumnMap or a dict")

    @property
    def empty(self) -> bool:
        return self == ColumnMap()



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
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v):
            return None
        if v in (0.0, 1.0):
            return v
        raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)"
                    f"{context(column) if context else ''}")
    text = str(value).strip()
    if text == "" or text.lower() in ("na", "nan", "null", "none"):
        return None
    low = text.lower()
    if low in _TRUE:
        return 1.0
    if low in _FALSE:
        return 0.0
    raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)"
                    f"{context(column) if context else ''}")


#: At most this many distinct call indices in a long table: the bits are kept as an
#: (examples x call indices) array while the file streams, so an index that is not a
#: call number (a timestamp, a global row counter) is refused instead of exhausting memory.
MAX_CALL_INDICES = 4096
#: Row numbers are kept as 32-bit unsigned integers (half the memory of 64-bit ones).
MAX_ROWS = 2**32 - 1
#: Tables of at least this many (example, call) cells (or rows read) give freed heap memory
#: back to the system: as they grow, every so many rows, and before the result is built
#: (:func:`_trim_heap`).
_TRIM_CELLS = 1 << 20


def _is_blank(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _id_text(value, source, row, column) -> str:
    if value is None or str(value).strip() == "" or (isinstance(value, float) and math.isnan(value)):
        raise DataError(f"{_where(source, row, column)}: missing example id")
    return str(value)


def _call_index(value, source, row, column, context) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        c = float(value)
        if not c.is_integer():
            raise ValueError
        return int(c)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"{_where(source, row, column)}: call index {value!r} is not an integer{context(column)}") from None


def _trim_heap() -> None:
    """Give the C heap's free pages back to the operating system (glibc's ``malloc_trim``; elsewhere nothing).

    Reading a large table frees many blocks of a few hundred KB; glibc keeps such freed
    memory in its heap (resident) for later allocations, but the large arrays allocated
    later (the float bits of :meth:`_Cells.finish`) are mapped apart from the heap and
    never reuse it. Trimming at those points keeps the peak resident memory to what is
    in use (``benchmarks/bench_large_csv.py``: about 20 MB of 300,000 examples).
    """
    global _MALLOC_TRIM
    if _MALLOC_TRIM is None:
        try:
            import ctypes

            _MALLOC_TRIM = ctypes.CDLL(None).malloc_trim
        except Exception:  # not glibc (macOS, Windows, musl): nothing to do
            _MALLOC_TRIM = False
    if _MALLOC_TRIM:
        _MALLOC_TRIM(0)


_MALLOC_TRIM = None


class _SortedIndex:
    """int64 keys -> int64 values, kept as two arrays sorted by key (equal keys in insertion order).

    16 bytes a key, where a dict of Python ints takes ~60 and twice that while it resizes:
    the index of 300,000 examples of a large file (``benchmarks/bench_large_csv.py``).
    """

    def __init__(self):
        self.keys = np.zeros(0, dtype=np.int64)
        self.values = np.zeros(0, dtype=np.int64)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each key, the position of the first equal key (if any) and whether there is one."""
        if len(self.keys) == 0:
            return np.zeros(len(keys), dtype=np.intp), np.zeros(len(keys), dtype=bool)
        if len(keys) > 256:  # keys in increasing order: each search starts where the last ended (3x faster)
            order = np.argsort(keys)
            pos = np.empty(len(keys), dtype=np.intp)
            pos[order] = np.searchsorted(self.keys, keys[order])
        else:
            pos = np.searchsorted(self.keys, keys)
        np.minimum(pos, len(self.keys) - 1, out=pos)
        return pos, self.keys[pos] == keys

    def get(self, keys: np.ndarray) -> np.ndarray:
        """The value of every key, -1 for a key not in the index."""
        pos, hit = self.find(keys)
        return np.where(hit, self.values[pos], -1) if len(self.keys) else np.full(len(keys), -1, dtype=np.int64)

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        merged = np.concatenate([self.keys, keys])
        order = np.argsort(merged, kind="stable")  # a sorted run and a short one: merged in about linear time
        self.keys = merged[order]
        del merged
        self.values = np.concatenate([self.values, values])[order]


class _TextCodes:
    """Texts numbered in order of first sight (the example ids of a table).

    The texts are kept in a list; finding a text's code goes through a :class:`_SortedIndex`
    of their hashes, and every hash that matches is checked against the text itself, so
    two texts with the same hash are still told apart (as a dict would).
    """

    def __init__(self):
        self.texts: list = []
        self.index = _SortedIndex()

    def codes(self, texts: list) -> np.ndarray:
        """The code of every text (``None`` or a text not seen yet: -1)."""
        m = len(texts)
        out = np.full(m, -1, dtype=np.int64)
        if not self.texts or not m:
            return out
        hashes = np.fromiter(map(hash, texts), dtype=np.int64, count=m)
        pos, hit = self.index.find(hashes)
        cand = self.index.values[pos]
        known = self.texts.__getitem__
        if hit.all():
            same = np.fromiter(map(operator.eq, map(known, cand.tolist()), texts), dtype=bool, count=m)
        else:
            at = np.flatnonzero(hit)
            same = np.zeros(m, dtype=bool)
            same[at] = np.fromiter(map(operator.eq, map(known, cand[at].tolist()), map(texts.__getitem__, at.tolist())),
                                   dtype=bool, count=len(at))
        out[same] = cand[same]
        for i in np.flatnonzero(hit & ~same).tolist():  # another text has the same hash: try every one that has
            lo, hi = np.searchsorted(self.index.keys, hashes[i], "left"), np.searchsorted(self.index.keys, hashes[i], "right")
            for c in self.index.values[lo:hi].tolist():
                if self.texts[c] == texts[i]:
                    out[i] = c
                    break
        return out

    def add(self, new: list) -> None:
        """Number texts not seen yet (distinct, none ``None``) after the ones already numbered."""
        start = len(self.texts)
        self.texts.extend(new)
        self.index.add(np.fromiter(map(hash, new), dtype=np.int64, count=len(new)),
                       np.arange(start, start + len(new), dtype=np.int64))


class _Cells:
    """Per-example bits, filled block by block (the one path from a table to :class:`CallBits`).

    Every table (CSV, TSV, JSONL, Parquet, run store, inspect_ai records, arrays) is
    handed over in :class:`~certify.stats._csv_read.Block` s; each distinct cell value of a
    block is converted once (``_bit``, ``_call_index``, ``_id_text``) and the rows are
    placed with numpy. What is kept is O(examples x distinct call indices): one bit and
    the row it came from per (example, call), the example ids and groups; never the rows.

    Errors name the earliest offending row of a block, checking a row's id, then its call
    index, then its bits (the order a row is read in); wide-form duplicate keys are
    reported after every value was read, long-form duplicates where they occur.

    Parameters
    ----------
    source : str
        File name for messages.
    row_label : str
        What a row is called in messages (``"row"``, ``"line"``, ``"sample"``, ``"call"``).
    info : ReadInfo
        Which column has which role (``form``, ``id``, ``calls``, ``call``, ``correct``, ``groups``).
    context : callable, optional
        ``context(column)``: the tail of a value error (how the columns were read).
    labels : sequence, optional
        ``labels[r - 1]`` names row r in messages (default: r itself).
    """

    def __init__(self, source: str, row_label: str, info: ReadInfo, context=None, labels=None):
        self.source, self.row_label, self.info = source, row_label, info
        self.context = context or (lambda column: "")
        self.labels = labels
        self.ids = _TextCodes()  # example id text -> id code
        self.id_text: list[str] = self.ids.texts  # id code -> text
        self.group_code: dict[tuple, int] = {}
        self.example = _SortedIndex()  # with groups: group index << 32 | id code -> example index
        self.n = 0
        self.ex_key = np.zeros(0, dtype=np.int64)
        self.ex_first = np.zeros(0, dtype=np.int64)
        # call index -> column of the arrays below; wide form: the call columns in order
        self.call_value: list[int] = list(range(len(info.calls))) if info.form == "wide" else []
        self.call_pos: dict[int, int] = {v: v for v in self.call_value}
        self.bit = np.zeros((0, len(self.call_value)), dtype=np.int8)
        self.row = np.zeros((0, len(self.call_value)), dtype=np.uint32)  # 0: no call recorded
        self.duplicate: tuple[int, str] | None = None  # wide form: the first duplicated key, reported at the end
        self.untrimmed = 0  # rows read since the heap was last trimmed (_trim_heap)

    # ---- helpers ------------------------------------------------------------------------------

    def label(self, row) -> object:
        return self.labels[int(row) - 1] if self.labels is not None else int(row)

    def _grow(self, n: int, v: int) -> None:
        cap_n, cap_v = self.bit.shape
        if n <= cap_n and v <= cap_v:
            return
        # examples grow by half again (amortized copies); call indices are few and grow exactly
        new_n = max(n, cap_n + cap_n // 2, 1024) if n > cap_n else cap_n
        new_v = max(v, cap_v)
        for name in ("bit", "row"):
            old = getattr(self, name)
            new = np.zeros((new_n, new_v), dtype=old.dtype)
            new[: old.shape[0], : old.shape[1]] = old
            setattr(self, name, new)
        for name in ("ex_key", "ex_first"):
            old = getattr(self, name)
            new = np.zeros(new_n, dtype=np.int64)
            new[: len(old)] = old
            setattr(self, name, new)
        del old, new
        if new_n * new_v >= _TRIM_CELLS:
            _trim_heap()

    def _convert(self, enc, convert, rows, priority, errors) -> tuple[list, np.ndarray]:
        """``convert(value, row)`` on each distinct value; failures become ``errors`` entries.

        Returns the converted values (``None`` where conversion failed) and a bad-row mask.
        """
        out, bad = [], []
        for u, value in enumerate(enc.values):
            try:
                out.append(convert(value, None))
            except DataError:
                out.append(None)
                bad.append(u)
        if not bad:
            return out, np.zeros(len(rows), dtype=bool)
        is_bad = np.zeros(len(enc.values), dtype=bool)
        is_bad[bad] = True
        mask = is_bad[enc.codes]
        first = int(np.argmin(np.where(mask, rows, np.iinfo(np.int64).max)))
        try:
            convert(enc.values[enc.codes[first]], self.label(rows[first]))
        except DataError as exc:  # the same failure, now naming its row
            errors.append((int(rows[first]), priority, str(exc)))
        return out, mask

    def _id_codes(self, texts: list) -> np.ndarray:
        """Global codes of id texts (``None``: no id, code 0), new ids numbered in order."""
        codes = self.ids.codes(texts)
        missing = np.flatnonzero(codes < 0)
        if len(missing):
            texts = list(map(texts.__getitem__, missing.tolist()))
            new = list(dict.fromkeys(t for t in texts if t is not None))
            start = len(self.id_text)
            self.ids.add(new)
            local = dict(zip(new, range(start, start + len(new))))
            # rows without an id get code 0 (reported by the caller)
            codes[missing] = np.fromiter(map(local.get, texts, repeat(0)), dtype=np.int64, count=len(texts))
        return codes

    def _id_texts(self, enc, rows, errors) -> tuple[list, np.ndarray]:
        """The id text of each distinct id value (``None`` when missing) and the rows without an id."""
        values, column = enc.values, self.info.id
        if enc.texts and all(map(str.strip, values)):  # CSV cells, none blank: the texts are the ids
            return values, np.zeros(len(rows), dtype=bool)
        # _id_text's rule, written out so that a block of CSV texts costs one pass
        texts = [v if type(v) is str and v.strip() else
                 None if v is None or type(v) is str or (isinstance(v, float) and math.isnan(v)) or not str(v).strip()
                 else str(v) for v in values]
        if all(t is not None for t in texts):
            return texts, np.zeros(len(rows), dtype=bool)
        return self._convert(enc, lambda v, r: _id_text(v, self.source, r, column), rows, 0, errors)

    def _keys(self, block, errors) -> tuple[np.ndarray, np.ndarray]:
        """Example key (group index << 32 | id code) of every row, and the rows with a bad id."""
        info, rows = self.info, block.rows
        if info.id is None:  # wide form without ids: the row number is the id
            codes = self._id_codes(list(map(str, rows.tolist())))
            bad = np.zeros(len(rows), dtype=bool)
        else:
            enc = block.columns[info.id]
            texts, bad = self._id_texts(enc, rows, errors)
            codes = self._id_codes(texts)[enc.codes]
        gidx = np.zeros(len(rows), dtype=np.int64)
        if info.groups:
            stacked = np.stack([block.columns[g].codes for g in info.groups], axis=1)
            combos, inverse = np.unique(stacked, axis=0, return_inverse=True)
            # a group is named by its values as text, as in the dataset/policy label
            lut = np.array([self.group_code.setdefault(
                tuple(str(block.columns[g].values[c]) for g, c in zip(info.groups, combo)), len(self.group_code))
                for combo in combos.tolist()], dtype=np.int64)
            gidx = lut[inverse.reshape(-1)]
        return (gidx << 32) | codes, bad

    def _known(self, keys: np.ndarray) -> np.ndarray:
        """Which keys are examples already."""
        if not self.info.groups:
            return (keys & 0xFFFFFFFF) < self.n
        return self.example.find(keys)[1]

    def _index(self, key: int) -> int:
        return key & 0xFFFFFFFF if not self.info.groups else int(self.example.get(np.array([key], dtype=np.int64))[0])

    def _examples(self, keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Example index of every key (new keys become new examples)."""
        before = self.n
        if not self.info.groups:
            # one group: the id code is the example index (ids are numbered in order of first sight)
            ex = keys & 0xFFFFFFFF
            self.n = max(self.n, int(ex.max()) + 1) if len(ex) else self.n
        else:
            uniq, inverse = np.unique(keys, return_inverse=True)
            got = self.example.get(uniq)
            new = np.flatnonzero(got < 0)  # new examples, numbered in key order
            if len(new):
                got[new] = np.arange(before, before + len(new), dtype=np.int64)
                self.example.add(uniq[new], got[new])
                self.n += len(new)
            ex = got[inverse.reshape(-1)]
        self._grow(self.n, len(self.call_value))
        fresh = ex >= before
        if fresh.any():
            self.ex_key[ex[fresh]] = keys[fresh]
            self.ex_first[before: self.n] = np.iinfo(np.int64).max
            np.minimum.at(self.ex_first, ex[fresh], rows[fresh])
        return ex

    def _raise_first(self, errors) -> None:
        if errors:
            raise DataError(min(errors)[2])

    def _blank_rows(self, block, names) -> np.ndarray:
        """Rows whose cells in ``names`` are all empty."""
        blank = np.ones(len(block.rows), dtype=bool)
        # columns with few distinct values first: usually they rule out every row at once
        for name in sorted(names, key=lambda c: len(block.columns[c].values)):
            enc = block.columns[name]
            empty = [u for u, v in enumerate(enc.values) if _is_blank(v)]
            if not empty:
                return np.zeros(len(block.rows), dtype=bool)
            blank &= np.isin(enc.codes, empty)
            if not blank.any():
                break
        return blank

    # ---- the two forms ------------------------------------------------------------------------

    def add(self, block, skip_blank: bool = False) -> None:
        """Read one block (module docstring: wide or long form, per :attr:`info`).

        ``skip_blank``: drop rows whose cells are all empty (text tables, where a blank
        line or a row of delimiters is not a record).
        """
        info = self.info
        names = [c for c in (info.id, info.call, info.correct, *info.calls, *info.groups) if c is not None]
        keep = None
        if len(block.rows) > 1 and (np.diff(block.rows) < 0).any():
            keep = np.argsort(block.rows, kind="stable")  # padded short rows come last: put them in place
        if skip_blank:
            blank = self._blank_rows(block, names)
            if blank.any():
                keep = np.flatnonzero(~blank) if keep is None else keep[~blank[keep]]
        if keep is not None:
            block = type(block)(block.rows[keep], {c: replace(e, codes=e.codes[keep]) for c, e in block.columns.items()})
        if len(block.rows) == 0:
            return
        if block.rows[-1] > MAX_ROWS:
            raise DataError(f"{self.source}: more than {MAX_ROWS:,} rows; split the file")
        if info.form == "wide":
            self._add_wide(block)
        else:
            self._add_long(block)
        self.untrimmed += len(block.rows)
        if self.untrimmed >= _TRIM_CELLS:  # a large table: every million rows or so
            self.untrimmed = 0
            _trim_heap()

    def _add_long(self, block) -> None:
        info, source, rows = self.info, self.source, block.rows
        errors: list = []
        keys, bad_id = self._keys(block, errors)
        call_enc, bit_enc = block.columns[info.call], block.columns[info.correct]

        def bit(value, row):
            b = _bit(value, source, row, info.correct, self.context)
            if b is None:
                raise DataError(f"{_where(source, row, info.correct)}: missing value")
            return b

        calls, bad_call = self._convert(call_enc, lambda v, r: _call_index(v, source, r, info.call, self.context),
                                        rows, 1, errors)
        bits, bad_bit = self._convert(bit_enc, bit, rows, 2, errors)
        valid = ~(bad_id | bad_call | bad_bit)
        for c in calls:
            if c is not None and c not in self.call_pos:
                if len(self.call_value) == MAX_CALL_INDICES:
                    raise DataError(f"{source}: column {info.call!r} has more than {MAX_CALL_INDICES} distinct call "
                                    f"indices; it must number the calls of each example (0, 1, 2, ...)"
                                    f"{self.context(info.call)}")
                self.call_pos[c] = len(self.call_value)
                self.call_value.append(c)
        pos_lut = np.array([-1 if c is None else self.call_pos[c] for c in calls], dtype=np.int64)
        bit_lut = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)
        rows, keys = rows[valid], keys[valid]
        pos, val = pos_lut[call_enc.codes[valid]], bit_lut[bit_enc.codes[valid]]
        ex = self._examples(keys, rows)
        # duplicated (example, call): a cell filled by an earlier block, or by two rows of this
        # one (then one write overwrites the other, and reading back tells); both cost O(rows)
        earlier = self.row[ex, pos]
        self.row[ex, pos] = rows
        if (earlier > 0).any() or (self.row[ex, pos] != rows).any():
            cell = ex * len(self.call_value) + pos
            order = np.lexsort((rows, cell))
            same = cell[order][1:] == cell[order][:-1]
            dup_rows = np.concatenate([rows[earlier > 0], rows[order][1:][same]])
            dup_of = np.concatenate([earlier[earlier > 0].astype(np.int64), rows[order][:-1][same]])
            dup_at = np.concatenate([np.flatnonzero(earlier > 0), order[1:][same]])
            j = int(np.argmin(dup_rows))
            e, p = int(ex[dup_at[j]]), int(pos[dup_at[j]])
            errors.append((int(dup_rows[j]), 3,
                           f"{source}: {self.row_label} {self.label(dup_rows[j])} duplicates {self.row_label} "
                           f"{self.label(dup_of[j])}: (example, call) = ({self.id_text[int(self.ex_key[e]) & 0xFFFFFFFF]!r}, "
                           f"{self.call_value[p]}) appears twice"))
        self._raise_first(errors)
        self.bit[ex, pos] = val

    def _add_wide(self, block) -> None:
        info, source, rows = self.info, self.source, block.rows
        errors: list = []
        keys, bad = self._keys(block, errors)
        vals = np.empty((len(rows), len(info.calls)), dtype=np.int8)
        for j, name in enumerate(info.calls):
            enc = block.columns[name]
            bits, bad_j = self._convert(enc, lambda v, r, name=name: _bit(v, source, r, name, self.context),
                                        rows, 1 + j, errors)
            vals[:, j] = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)[enc.codes]
            bad |= bad_j
        present = vals >= 0
        # a call is recorded after an empty cell: the empty cell is a missing value, not "fewer calls"
        later = np.flip(np.logical_or.accumulate(np.flip(present, axis=1), axis=1), axis=1)
        hole = ~present[:, :-1] & later[:, 1:] & ~bad[:, None]
        if hole.any():
            i = int(np.argmin(np.where(hole.any(axis=1), rows, np.iinfo(np.int64).max)))
            j = int(np.argmax(hole[i]))
            last = len(info.calls) - 1 - int(np.argmax(present[i, ::-1]))
            errors.append((int(rows[i]), 1 + len(info.calls),
                           f"{_where(source, self.label(rows[i]), info.calls[j])}: missing value before the recorded "
                           f"call in column {info.calls[last]!r}"))
        self._raise_first(errors)
        # a key seen before (earlier block or earlier row): a duplicate, reported once every value is read
        uniq, first_at = np.unique(keys, return_index=True)
        seen = self._known(uniq)
        dup = np.ones(len(keys), dtype=bool)
        dup[first_at[~seen]] = False
        if dup.any() and self.duplicate is None:
            i = int(np.argmin(np.where(dup, rows, np.iinfo(np.int64).max)))
            k = int(keys[i])
            known = self._known(np.array([k], dtype=np.int64))[0]
            first = self.ex_first[self._index(k)] if known else rows[keys == k].min()
            self.duplicate = (int(rows[i]), f"{source}: {self.row_label} {self.label(rows[i])} duplicates "
                              f"{self.row_label} {self.label(first)}: key {self.id_text[k & 0xFFFFFFFF]!r} appears twice")
        ok = ~dup
        ex = self._examples(keys[ok], rows[ok])
        self.bit[ex, : vals.shape[1]] = vals[ok]
        self.row[ex, : vals.shape[1]] = np.where(present[ok], rows[ok, None], 0)

    # ---- the result ---------------------------------------------------------------------------

    def finish(self, what: str = "data rows") -> tuple[dict[str, CallBits], list[str]]:
        """CallBits per group (groups and examples in order of first appearance) and notes.

        The notes say how many examples have fewer calls than the most of their group
        (ragged call counts are analysed as such, module docstring) and, in long form,
        when the call indices are not consecutive.
        """
        source = self.source
        if self.duplicate is not None:
            raise DataError(self.duplicate[1])
        n = self.n
        if n == 0:
            raise DataError(f"{source}: the file has no {what}")
        order = sorted(range(len(self.call_value)), key=self.call_value.__getitem__)
        in_order = order == list(range(len(order)))  # call indices first seen in increasing order (usual)
        present = self.row[:n] > 0 if in_order else (self.row[:n] > 0)[:, order]
        # finish() is the last call: drop the row numbers and the id lookup before the float
        # output is allocated, so that the peak is not both at once
        # (new empty arrays: a slice such as self.row[:0] would keep the whole array alive)
        self.row = np.zeros((0, self.row.shape[1]), dtype=self.row.dtype)
        self.ids.index, self.example = _SortedIndex(), _SortedIndex()
        if n * len(order) >= _TRIM_CELLS:
            _trim_heap()
        k = present.sum(axis=1)
        first = self.ex_first[:n]
        short = np.flatnonzero(k < 2)
        if len(short):
            e = int(short[np.argmin(first[short])])
            raise DataError(f"{source}: {self.row_label} {self.label(first[e])}, example "
                            f"{self.id_text[int(self.ex_key[e]) & 0xFFFFFFFF]!r}: {int(k[e])} call(s) recorded; "
                            f"at least 2 are needed")
        # recorded calls first, in call-index order; NaN after an example's K_i calls. The
        # calls are put in place in the 1-byte bits, so that the float output is the only
        # (examples x calls) array of 8-byte values ever allocated.
        small = self.bit[:n] if in_order else self.bit[:n][:, order]
        if (present[:, 1:] & ~present[:, :-1]).any():  # some example skips a call index: close the gaps
            pack = np.argsort(~present, axis=1, kind="stable")
            small = np.take_along_axis(small, pack, axis=1)
            del pack
        del present
        bits = small.astype(float)
        del small
        self.bit = np.zeros((0, self.bit.shape[1]), dtype=self.bit.dtype)
        bits[np.arange(bits.shape[1])[None, :] >= k[:, None]] = np.nan
        names = {g: "/".join(t) for t, g in self.group_code.items()} or {0: ""}
        out, notes = {}, []
        if (len(names) == 1 and len(self.id_text) == n and (self.ex_key[:n] == np.arange(n)).all()
                and (first[1:] > first[:-1]).all()):
            # one group whose examples were numbered in file order (the usual file): the
            # example ids are the id texts as they are, the bits and counts are the whole arrays
            groups = [(0, slice(None), self.id_text)]
        else:
            id_text = np.array(self.id_text, dtype=object)
            group_of = self.ex_key[:n] >> 32
            firsts = {g: int(first[group_of == g].min()) for g in names}
            groups = []
            for g in sorted(names, key=firsts.__getitem__):
                members = np.flatnonzero(group_of == g)
                members = members[np.argsort(first[members], kind="stable")]
                # one group in file order: a view of the bits, not a second copy
                rows = slice(None) if len(members) == n and (members == np.arange(n)).all() else members
                groups.append((g, rows, id_text[self.ex_key[members] & 0xFFFFFFFF].tolist()))
        for g, rows, texts in groups:
            kg = k[rows]
            kmax = int(kg.max())
            ids = tuple(texts)
            member_first = first[rows]
            out[names[g]] = CallBits(ids, bits[rows, :kmax], kg.astype(int, copy=False), source, names[g])
            fewer = np.flatnonzero(kg < kmax)
            if len(fewer):
                i = int(fewer[0])
                where = f"{names[g]}: " if names[g] else ""
                notes.append(f"{where}{len(fewer)} of {len(ids)} examples {'has' if len(fewer) == 1 else 'have'} "
                             f"fewer than {kmax} calls (the first: example {ids[i]!r}, {self.row_label} "
                             f"{self.label(member_first[i])}, {int(kg[i])} calls); every recorded call is used, and "
                             f"quantities needing m calls only for m <= {int(kg.min())}")
        values = sorted(self.call_value)
        if self.info.form == "long" and values[-1] - values[0] + 1 != len(values):
            notes.append(f"call indices {abbreviate(map(str, values))} are not consecutive; each example's calls "
                         f"are used in index order")
        return out, notes


def _records_block(records: list[dict], columns, rows=None):
    """A Block of JSON-like records (``rows``: their row numbers, default 1, 2, ...)."""
    from ._csv_read import Block, encode_values

    rows = np.arange(1, len(records) + 1, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    return Block(rows, {c: encode_values([rec.get(c) for rec in records]) for c in columns})


def bits_from_array(array, example_ids=None, *, source: str = "array", group: str = "") -> CallBits:
    """CallBits from an (n, K) array of 0/1 (NaN allowed only after an example's last call)."""
    from ._csv_read import Block, Encoded, encode_texts

    try:
        a = np.asarray(array, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{source}: bits must be a numeric (n, K) array of 0/1") from None
    if a.ndim != 2 or a.shape[0] == 0:
        raise DataError(f"{source}: bits must be a non-empty 2-d array (examples x calls); got shape {a.shape}")
    ids = [str(i) for i in (example_ids if example_ids is not None else range(a.shape[0]))]
    if len(ids) != a.shape[0]:
        raise DataError(f"{source}: {len(ids)} example ids for {a.shape[0]} rows")
    names = tuple(f"call {j}" for j in range(a.shape[1]))
    columns = {"id": encode_texts(ids)}
    for name, col in zip(names, a.T):
        values, codes = np.unique(col, return_inverse=True)  # NaNs are one value
        columns[name] = Encoded(values.tolist(), codes.reshape(-1))
    cells = _Cells(source, "row", ReadInfo("wide", "id", names))
    cells.add(Block(np.arange(1, a.shape[0] + 1, dtype=np.int64), columns))
    out, _ = cells.finish()
    return replace(next(iter(out.values())), group=group, read_info=None)


# ---- column roles -----------------------------------------------------------------------------


def _find(columns: list[str], name: str, option: str, source: str) -> str:
    """The column an explicit option names: exact name, else the one case-insensitive match."""
    if name in columns:
        return name
    folded = [c for c in columns if c.strip().lower() == name.strip().lower()]
    if len(folded) == 1:
        return folded[0]
    raise DataError(f"{source}: {option} {name!r} is not a column of the file (columns: {', '.join(map(repr, columns))})")


def _wide_number(column: str):
    m = _WIDE_CALL.match(column.strip())
    return (m.group(1).lower(), int(m.group(2))) if m else None


def _resolve(columns: list[str], cmap: ColumnMap, source: str) -> ReadInfo:
    """Give every column a role (module docstring) or raise a DataError naming the ones without."""
    if cmap.call_cols and (cmap.call_col is not None or cmap.correct_col is not None):
        raise DataError(f"{source}: --call-cols (call_cols, wide form) cannot be combined with --call-col/--correct-col "
                        f"(call_col/correct_col, long form)")
    ignored = tuple(dict.fromkeys(_find(columns, c, "--ignore-cols", source) for c in cmap.ignore_cols))
    explicit: dict[str, str] = {}  # column -> role, for the one-role-per-column check

    def take(name, option, role):
        col = _find(columns, name, option, source)
        if col in ignored:
            raise DataError(f"{source}: column {col!r} is both ignored (--ignore-cols) and given to {option}")
        if col in explicit and explicit[col] != role:
            raise DataError(f"{source}: column {col!r} is given two roles: {explicit[col]} and {role}")
        explicit[col] = role
        return col

    id_col = take(cmap.id_col, "--id-col", "id") if cmap.id_col is not None else None
    call_cols = tuple(take(c, "--call-cols", "call") for c in cmap.call_cols)
    if len(set(call_cols)) != len(call_cols):
        raise DataError(f"{source}: --call-cols names a column twice ({', '.join(call_cols)})")
    call_col = take(cmap.call_col, "--call-col", "call index") if cmap.call_col is not None else None
    correct_col = take(cmap.correct_col, "--correct-col", "correct") if cmap.correct_col is not None else None
    group_cols = None if cmap.group_cols is None else tuple(take(c, "--group-cols", "group") for c in cmap.group_cols)
    free = [c for c in columns if c not in ignored and c not in explicit]

    def by_name(names, role, option):
        found = [c for c in free if c.strip().lower() in names]
        if len(found) > 1:
            raise DataError(f"{source}: columns {', '.join(map(repr, found))} all name the {role}; "
                            f"say which with {option} (and drop the others with --ignore-cols)")
        return found[0] if found else None

    if id_col is None:
        id_col = by_name(ID_COLUMNS, "example id", "--id-col")
    if not call_cols and call_col is None and correct_col is None:
        numbered = [c for c in free if _wide_number(c)]
        long_named = [c for c in free if c.strip().lower() in CALL_COLUMNS + CORRECT_COLUMNS]
        if numbered and long_named:
            raise DataError(
                f"{source}: both numbered call columns ({abbreviate(numbered)}, wide form) and long-form column(s) "
                f"({', '.join(long_named)}); say which with --call-cols (wide) or --call-col/--correct-col (long)")
        form = "long" if long_named else "wide"
    else:
        form = "wide" if call_cols else "long"
    problems = []
    if form == "long":
        if call_col is None:
            call_col = by_name(CALL_COLUMNS, "call index", "--call-col")
        if correct_col is None:
            correct_col = by_name(CORRECT_COLUMNS, "correct bit", "--correct-col")
        if id_col is None:
            problems.append(f"long form needs an id column ({', '.join(ID_COLUMNS)}) or --id-col")
        if call_col is None:
            problems.append(f"long form needs a call-index column ({', '.join(CALL_COLUMNS)}) or --call-col")
        if correct_col is None:
            problems.append(f"long form needs a correct column ({', '.join(CORRECT_COLUMNS)}) or --correct-col")
    elif not call_cols:
        numbered = sorted(((_wide_number(c), c) for c in free if _wide_number(c)), key=lambda t: t[0][1])
        prefixes = sorted({p for (p, _), _ in numbered})
        if len(prefixes) > 1:
            raise DataError(f"{source}: numbered call columns with different prefixes ({abbreviate([c for _, c in numbered])}); "
                            "say which are the calls, in order, with --call-cols")
        numbers = [k for (_, k), _ in numbered]
        if len(set(numbers)) != len(numbers):
            raise DataError(f"{source}: two call columns have the same number ({abbreviate([c for _, c in numbered])}); "
                            "say which are the calls, in order, with --call-cols")
        call_cols = tuple(c for _, c in numbered)
    taken = {id_col, call_col, correct_col, *call_cols} - {None}
    if group_cols is None:
        rest = [c for c in free if c not in taken]
        group_cols = tuple(c for c in rest if c.strip().lower() in ("dataset", "policy")) or tuple(
            c for c in rest if c.strip().lower() in ("task", "model"))
    taken |= set(group_cols)
    metadata = tuple(c for c in free if c not in taken and c.strip().lower() in META_COLUMNS)
    unknown = [c for c in free if c not in taken and c not in metadata]
    info = ReadInfo(form, id_col, call_cols, call_col, correct_col, group_cols, metadata, ignored)
    if form == "wide" and len(call_cols) < 2:
        problems.append(
            f"found {len(call_cols)} call column(s) ({', '.join(call_cols) or 'none'}); wide form needs at least 2 "
            f"named {', '.join(p + 'N' for p in WIDE_PREFIXES[:4])}... (b0, b1, ...) or given with --call-cols, "
            f"long form needs columns {ID_COLUMNS[0]}, {CALL_COLUMNS[0]}, {CORRECT_COLUMNS[0]}")
    if unknown:
        names = ", ".join(repr(c) for c in unknown)
        missing = [flag for flag, col in (("--id-col", id_col), ("--call-col", call_col), ("--correct-col", correct_col))
                   if form == "long" and col is None]
        example = (f"{missing[0]} {_shell(unknown[0])}" if len(missing) == 1 and len(unknown) == 1
                   else f"--ignore-cols {' '.join(_shell(c) for c in unknown)}")
        problems.append(
            f"column{'s' if len(unknown) > 1 else ''} {names} {'have' if len(unknown) > 1 else 'has'} no documented role "
            f"(read so far: {info.describe()}); {_MAP_HINT}, e.g. {example}")
    if problems:
        raise DataError(f"{source}: " + "; ".join(problems))
    return info


def _shell(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_.\-]+", name) else repr(name)


def _context(info: ReadInfo, column: str) -> str:
    """The tail of a value error in a role column: what was read as what, and how to remap."""
    role = "the correct bit" if column == info.correct else "the call index" if column == info.call else "a call"
    return f"; column {column!r} was read as {role} (columns: {info.describe()}); if that is wrong, {_MAP_HINT}"


def _from_records(records: list[dict], columns: list[str], source: str, row_label: str,
                  cmap: ColumnMap | None = None, rows=None) -> tuple[dict[str, CallBits], ReadInfo]:
    """Wide or long records (JSONL, Parquet rows) -> CallBits per group, and how they were read."""
    if not records:
        raise DataError(f"{source}: the file has no data rows")
    info = _resolve(columns, cmap or ColumnMap(), source)
    cells = _Cells(source, row_label, info, lambda column: _context(info, column))
    cells.add(_records_block(records, _role_columns(info), rows))
    out, notes = cells.finish()
    return out, replace(info, notes=tuple(notes))


def _role_columns(info: ReadInfo) -> list[str]:
    """The columns a table is read from (metadata and ignored columns are not read)."""
    return [c for c in (info.id, info.call, info.correct, *info.calls, *info.groups) if c is not None]


def _long(records, id_col, call_col, bit_col, gcols, source, row_label, info: ReadInfo | None = None,
          labels=None) -> dict[str, CallBits]:
    """Long records (one per call) -> CallBits per group; ``labels[i]`` names record i in messages."""
    info = info or ReadInfo("long", id_col, (), call_col, bit_col, tuple(gcols))
    cells = _Cells(source, row_label, info, labels=labels)
    cells.add(_records_block(records, _role_columns(info)))
    return cells.finish()[0]


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


def _read_jsonl(path: Path, cmap: ColumnMap) -> tuple[dict[str, CallBits], ReadInfo]:
    records, columns, lines = [], [], []
    for line_no, rec in jsonl_objects(path):
        records.append(rec)
        lines.append(line_no)
        columns.extend(k for k in rec if k not in columns)
    return _from_records(records, columns, str(path), "line", cmap, rows=lines)


def _read_parquet(path: Path, cmap: ColumnMap) -> tuple[dict[str, CallBits], ReadInfo]:
    pq = require("pyarrow.parquet", f"reading the Parquet file {str(path)!r}")
    from ._csv_read import Block, encode_arrow

    try:
        pf = pq.ParquetFile(path)
        columns = list(pf.schema_arrow.names)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    if pf.metadata.num_rows == 0:
        raise DataError(f"{path}: the file has no data rows")
    info = _resolve(columns, cmap, str(path))
    names = _role_columns(info)
    cells = _Cells(str(path), "row", info, lambda column: _context(info, column))
    start = 1
    try:
        for batch in pf.iter_batches(batch_size=1 << 16, columns=names):
            rows = np.arange(start, start + batch.num_rows, dtype=np.int64)
            start += batch.num_rows
            cells.add(Block(rows, {n: encode_arrow(batch.column(i)) for i, n in enumerate(names)}))
    except DataError:
        raise
    except Exception as exc:
        raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    out, notes = cells.finish()
    return out, replace(info, notes=tuple(notes))


_DEFAULT_DELIMITER = {".tsv": "\t"}


def _read_csv(path: Path, cmap: ColumnMap, delimiter: str | None,
              engine: str | None = None) -> tuple[dict[str, CallBits], ReadInfo]:
    """A delimited table, streamed block by block (:mod:`certify.stats._csv_read`)."""
    from ._csv_read import DELIMITERS, open_csv_table

    table = open_csv_table(path, delimiter, engine)
    info = _resolve(list(table.header), cmap, str(path))
    cells = _Cells(str(path), "row", info, lambda column: _context(info, column))
    for block in table.blocks(_role_columns(info)):
        cells.add(block, skip_blank=True)
    out, notes = cells.finish()
    if delimiter is None and table.delimiter != _DEFAULT_DELIMITER.get(path.suffix.lower(), ","):
        # said because a semicolon file read as commas would be one column: the reader decided
        notes.insert(0, f"fields separated by {DELIMITERS[table.delimiter]}s (found in the header line)")
    return out, replace(info, notes=tuple(notes))


class CallTable(Protocol):
    """A source of correctness bits, one row per call: how a higher layer hands its bits to statistics.

    ``call_rows()`` returns ``(dataset, policy, example_id, repeat, correct)`` tuples ordered
    by dataset, policy, example and repeat; :class:`certify.experiment.RunStore` is one
    (statistics never imports the experiment: the experiment, the report or the CLI hands
    the store over, with :func:`read_call_table` or ``read_groups(..., open_store=RunStore)``).
    """

    def call_rows(self) -> Iterable[tuple]: ...


def read_call_table(table: CallTable, source: str = "run store") -> dict[str, CallBits]:
    """One :class:`CallBits` per ``dataset/policy`` group of a :class:`CallTable` (``source`` names it in messages)."""
    rows = table.call_rows()
    records = [{"dataset": d, "policy": p, "example_id": x, "repeat": r, "correct": c} for d, p, x, r, c in rows]
    if not records:
        raise DataError(f"{source}: the run store has no recorded calls")
    info = ReadInfo("run store", "example_id", (), "repeat", "correct", ("dataset", "policy"))
    out = _long(records, "example_id", "repeat", "correct", ["dataset", "policy"], source, "call")
    return {g: replace(b, read_info=info) for g, b in out.items()}


def _read_store(path: Path, open_store) -> dict[str, CallBits]:
    if open_store is None:
        raise DataError(f"{path}: a run store is read through the experiment that wrote it: pass "
                        f"open_store=certify.experiment.RunStore (the CLI and the report do)")
    with open_store(path) as store:
        return read_call_table(store, str(path))


_TABLES = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".parquet")
_STORES = (".sqlite", ".sqlite3", ".db")
_DELIMITED = (".csv", ".tsv", ".txt")


def _is_lmeval_samples(path: Path) -> bool:
    from ._lmeval_log import is_lmeval_samples  # lazy: the table readers never need it

    return is_lmeval_samples(path)


def read_groups(path, *, scorer: str | None = None, allow_incomplete: bool = False, score_map=None,
                columns=None, delimiter: str | None = None, answer_regex: str | None = None,
                ignore_case: bool = False, open_store=None) -> dict[str, CallBits]:
    """Read correctness bits, one :class:`CallBits` per group (see the module docstring).

    Parameters
    ----------
    path : str or Path
    scorer : str, optional
        inspect_ai logs with several scorers: which one gives the bits.
    allow_incomplete : bool
        inspect_ai logs: read a log whose ``status`` is not ``"success"`` (or with
        unscored samples), using only the scored samples (:mod:`certify.stats._inspect_log`).
    score_map : dict, optional
        inspect_ai logs: extra score values -> bit, e.g. ``{"N": 0, "P": 0}``.
    columns : ColumnMap or dict, optional
        Tables: explicit column roles (``id_col``, ``call_cols``, ``call_col``,
        ``correct_col``, ``group_cols``, ``ignore_cols``).
    delimiter : str, optional
        ``.csv`` / ``.tsv`` / ``.txt``: ``","``, ``";"`` or ``"\\t"`` (also ``"tab"``); default:
        tab for ``.tsv``, else the one of the three the header line contains
        (:mod:`certify.stats._csv_read`).
    answer_regex : str, optional
        lm-eval samples files: extracts each response's answer (:mod:`certify.stats._lmeval_log`).
    ignore_case : bool
        lm-eval samples files: compare answers and targets ignoring case.
    open_store : callable, optional
        Run stores (``.sqlite``, ``.sqlite3``, ``.db``): opens the path as a context manager
        giving a :class:`CallTable`, e.g. :class:`certify.experiment.RunStore`.

    Returns
    -------
    dict
        group label -> CallBits; the label is ``""`` when the file has no group columns.
        Each CallBits' ``read_info`` says which columns were read as what.
    """
    p = Path(path)
    if p.is_dir():
        raise DataError(f"{p}: is a directory, not a data file; give one file (.csv, .tsv, .jsonl, .parquet, .eval, "
                        f".json or .sqlite)")
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    suffix = p.suffix.lower()
    cmap = ColumnMap.coerce(columns, str(p))
    is_log = suffix == ".eval" or (suffix == ".json" and p.stat().st_size > 0)
    # lm-eval's samples_*.jsonl: recognized by the keys of its first line, never by the file name
    is_lmeval = suffix in (".jsonl", ".ndjson") and _is_lmeval_samples(p)
    if (answer_regex is not None or ignore_case) and not is_lmeval:
        raise DataError(f"{p}: answer_regex= (--answer-regex) and ignore_case= (--answer-ignore-case) apply to lm-eval "
                        f"samples files only (.jsonl lines with doc_id, doc, target, resps)")
    if not is_log:
        given = [name for name, on in (("scorer= (--scorer)", scorer is not None),
                                       ("allow_incomplete= (--allow-incomplete)", bool(allow_incomplete)),
                                       ("score_map= (--score-map)", bool(score_map))) if on]
        if given:
            raise DataError(f"{p}: {', '.join(given)} appl{'y' if len(given) > 1 else 'ies'} to inspect_ai logs "
                            f"(.eval, .json) only")
    if delimiter is not None and suffix not in _DELIMITED:
        raise DataError(f"{p}: delimiter= (--delimiter) applies to delimited text tables ({', '.join(_DELIMITED)}) only")
    if not cmap.empty and (is_log or is_lmeval or suffix in _STORES):
        raise DataError(f"{p}: column options (--id-col, --call-cols, --call-col, --correct-col, --group-cols, "
                        f"--ignore-cols) apply to tables (.csv, .tsv, .txt, .jsonl, .parquet) only")
    if suffix in _STORES:
        return _read_store(p, open_store)
    if is_lmeval:
        from ._lmeval_log import read_lmeval_samples

        return read_lmeval_samples(p, answer_regex=answer_regex, ignore_case=ignore_case)
    if is_log:
        from ._inspect_log import read_inspect_log  # lazy: imports inspect_ai when installed

        return read_inspect_log(p, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map)
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty")
    if suffix not in _TABLES:
        raise DataError(f"{p}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite")
    if suffix in _DELIMITED:
        out, info = _read_csv(p, cmap, delimiter)
    elif suffix == ".parquet":
        out, info = _read_parquet(p, cmap)
    else:
        out, info = _read_jsonl(p, cmap)
    return {g: replace(b, read_info=info) for g, b in out.items()}


def read_bits(path, *, group: str | None = None, scorer: str | None = None, allow_incomplete: bool = False,
              score_map=None, columns=None, delimiter: str | None = None, answer_regex: str | None = None,
              ignore_case: bool = False, open_store=None) -> CallBits:
    """Read one analysis' correctness bits; ``group`` selects among several (``dataset/policy``).

    The other keywords are those of :func:`read_groups`.
    """
    groups = read_groups(path, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map, columns=columns,
                         delimiter=delimiter, answer_regex=answer_regex, ignore_case=ignore_case, open_store=open_store)
    if group is None:
        if len(groups) > 1:
            raise DataError(f"{path}: {len(groups)} groups ({', '.join(groups)}); choose one with group=")
        return next(iter(groups.values()))
    if group not in groups:
        raise DataError(f"{path}: group {group!r} not found (has {', '.join(groups) or 'none'})")
    return groups[group]
