"""Reading per-example, per-call correctness bits B_ij (paper eq. (hierarchy-main)).

Accepted inputs (the format is chosen by the file name):

* ``.csv`` / ``.tsv`` / ``.txt`` (comma or tab; UTF-8, a byte-order mark is allowed),
  ``.jsonl`` / ``.ndjson``, ``.parquet``: tables in **wide** or **long** form (below);
* inspect_ai eval logs, ``.eval`` and ``.json``: see :mod:`certify.stats._inspect_log`
  (readers, the ``status`` rule, ``allow_incomplete`` and the score mapping);
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
order (K_i of them). The paper's two-call estimator uses each example's first two
calls; the U-statistics use all K_i calls of each example (each example's
estimate is unbiased on its own); quantities needing k calls (moment m_k, a
k-vote empirical accuracy) are reported only when *every* example has at least
k calls, so no example is dropped and no selection on call counts can bias them.
In wide form an empty cell is "not recorded" only after the row's last recorded
call; an empty cell before a recorded call is a missing value (error).

**Errors** (:class:`DataError`, an :class:`~certify.InputError`) are one line naming
the file, the row (1-based data row, header excluded; JSONL: line), the column and the
rule: non-binary and missing values, examples with fewer than two calls, empty files,
duplicated (example, call) keys, columns without a role. A value error in a call or
correct column also says which columns were read as what and how to map them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

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


class DataError(InputError):
    """A data file is unusable; the message names the file, row and column."""


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


@dataclass(frozen=True)
class ReadInfo:
    """How a file was read: which column (or log field) gave what.

    Attributes
    ----------
    form : str
        ``"wide"``, ``"long"``, ``"inspect_ai log"`` or ``"run store"``.
    id : str or None
        The id column (``None``: examples numbered by row).
    calls : tuple of str
        Wide form: the call columns in call order.
    call, correct : str or None
        Long form (and logs, stores): the call-index and correct columns / fields.
    groups, metadata, ignored : tuple of str
        Group columns; columns read and not used; columns dropped on request.
    reader : str
        For logs: which reader read it (``"inspect_ai 0.3.285"`` or the built-in one).
    status : str or None
        For logs: the log's ``status``.
    skipped : int
        For logs read with ``allow_incomplete``: samples without a usable score.
    notes : tuple of str
        Anything else the user should know (skipped samples, mapped score values).
    """

    form: str
    id: str | None = None
    calls: tuple[str, ...] = ()
    call: str | None = None
    correct: str | None = None
    groups: tuple[str, ...] = ()
    metadata: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    reader: str = ""
    status: str | None = None
    skipped: int = 0
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: ``id = doc_id; call = repeat; correct = exact_match (long form)``."""
        parts = [f"id = {self.id if self.id is not None else 'row number' if self.form == 'wide' else 'none'}"]
        if self.calls:
            parts.append(f"calls = {_abbreviate(self.calls)}")
        if self.call is not None:
            parts.append(f"call = {self.call}")
        if self.correct is not None:
            parts.append(f"correct = {self.correct}")
        if self.groups:
            parts.append(f"groups = {', '.join(self.groups)}")
        if self.metadata:
            parts.append(f"not used = {', '.join(self.metadata)}")
        if self.ignored:
            parts.append(f"ignored = {', '.join(self.ignored)}")
        what = {"wide": "wide form", "long": "long form"}.get(self.form, self.form)
        extra = [x for x in (f"status {self.status!r}" if self.status else "", f"read with {self.reader}" if self.reader else "") if x]
        return "; ".join(parts) + f" ({', '.join([what] + extra)})"

    def to_dict(self) -> dict:
        return {
            "form": self.form, "id": self.id, "calls": list(self.calls), "call": self.call, "correct": self.correct,
            "groups": list(self.groups), "metadata": list(self.metadata), "ignored": list(self.ignored),
            "reader": self.reader, "status": self.status, "skipped_samples": self.skipped, "notes": list(self.notes),
            "text": self.describe(),
        }


def _abbreviate(names, limit: int = 6) -> str:
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:3]) + f", ..., {names[-1]} ({len(names)} columns)"


@dataclass(frozen=True, eq=False)
class CallBits:
    """Correctness bits of one analysis (one policy on one data set).

    Attributes
    ----------
    example_ids : tuple of str
        One id per example (row).
    bits : ndarray, shape (n, K_max)
        B_ij as floats 0/1; entries past an example's K_i calls are NaN.
    counts : ndarray of int, shape (n,)
        K_i, recorded calls per example (all >= 2).
    source : str
        Where the bits came from.
    group : str
        ``dataset/policy`` (or task/model) label, ``""`` for a single-group file.
    read_info : ReadInfo or None
        Which columns were read as what (``None`` for arrays).
    """

    example_ids: tuple[str, ...]
    bits: np.ndarray
    counts: np.ndarray
    source: str = ""
    group: str = ""
    read_info: ReadInfo | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return len(self.example_ids)

    @property
    def calls(self) -> int:
        """K = min_i K_i: the number of calls every example has (ragged rule)."""
        return int(self.counts.min())

    @property
    def max_calls(self) -> int:
        return int(self.counts.max())

    @property
    def successes(self) -> np.ndarray:
        """S_i, correct calls per example."""
        return np.nansum(self.bits, axis=1)

    def first(self, k: int) -> np.ndarray:
        """The first k calls of every example, an (n, k) 0/1 array (needs k <= K)."""
        if k > self.calls:
            raise InputError(f"{k} calls requested but some example has only {self.calls}")
        return self.bits[:, :k]


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


def _finish(source: str, group: str, ids: list[str], rows: list[list[float]], where: list) -> CallBits:
    """Validate call counts (>= 2) and pack ragged rows into a NaN-padded array."""
    for key, r, w in zip(ids, rows, where):
        if len(r) < 2:
            raise DataError(f"{source}: {w}, example {key!r}: {len(r)} call(s) recorded; at least 2 are needed")
    kmax = max(len(r) for r in rows)
    bits = np.full((len(rows), kmax), np.nan)
    for i, r in enumerate(rows):
        bits[i, : len(r)] = r
    counts = np.array([len(r) for r in rows], dtype=int)
    return CallBits(tuple(ids), bits, counts, source, group)


def bits_from_array(array, example_ids=None, *, source: str = "array", group: str = "") -> CallBits:
    """CallBits from an (n, K) array of 0/1 (NaN allowed only after an example's last call)."""
    try:
        a = np.asarray(array, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{source}: bits must be a numeric (n, K) array of 0/1") from None
    if a.ndim != 2 or a.shape[0] == 0:
        raise DataError(f"{source}: bits must be a non-empty 2-d array (examples x calls); got shape {a.shape}")
    ids = [str(i) for i in (example_ids if example_ids is not None else range(a.shape[0]))]
    if len(ids) != a.shape[0]:
        raise DataError(f"{source}: {len(ids)} example ids for {a.shape[0]} rows")
    rows = [_wide_row([a[i, j] for j in range(a.shape[1])], [f"call {j}" for j in range(a.shape[1])], source, i + 1)
            for i in range(a.shape[0])]
    _no_duplicates(ids, [f"row {i + 1}" for i in range(len(ids))], source)
    return _finish(source, group, ids, rows, [f"row {i + 1}" for i in range(len(ids))])


def _wide_row(cells, names, source, row, context=None) -> list[float]:
    vals = [_bit(c, source, row, n, context) for c, n in zip(cells, names)]
    last = max((j for j, v in enumerate(vals) if v is not None), default=-1)
    for j in range(last):
        if vals[j] is None:
            raise DataError(f"{_where(source, row, names[j])}: missing value before the recorded call in column {names[last]!r}")
    return [v for v in vals[: last + 1]]


def _no_duplicates(keys, where, source) -> None:
    seen: dict = {}
    for k, w in zip(keys, where):
        if k in seen:
            raise DataError(f"{source}: {w} duplicates {seen[k]}: key {k!r} appears twice")
        seen[k] = w


def _group_of(record: dict, gcols) -> str:
    return "/".join(str(record.get(c)) for c in gcols)


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
                f"{source}: both numbered call columns ({_abbreviate(numbered)}, wide form) and long-form column(s) "
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
            raise DataError(f"{source}: numbered call columns with different prefixes ({_abbreviate([c for _, c in numbered])}); "
                            "say which are the calls, in order, with --call-cols")
        numbers = [k for (_, k), _ in numbered]
        if len(set(numbers)) != len(numbers):
            raise DataError(f"{source}: two call columns have the same number ({_abbreviate([c for _, c in numbered])}); "
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
                  cmap: ColumnMap | None = None) -> dict[str, CallBits]:
    """Wide or long records -> CallBits per group."""
    if not records:
        raise DataError(f"{source}: the file has no data rows")
    info = _resolve(columns, cmap or ColumnMap(), source)

    def context(column):
        return _context(info, column)

    if info.form == "long":
        out = _long(records, info.id, info.call, info.correct, list(info.groups), source, row_label, info)
    else:
        groups: dict[str, tuple[list, list, list]] = {}
        for i, rec in enumerate(records, start=1):
            g = _group_of(rec, info.groups)
            ids, rows, where = groups.setdefault(g, ([], [], []))
            ids.append(_id_text(rec.get(info.id), source, i, info.id) if info.id is not None else str(i))
            rows.append(_wide_row([rec.get(c) for c in info.calls], list(info.calls), source, i, context))
            where.append(f"{row_label} {i}")
        out = {}
        for g, (ids, rows, where) in groups.items():
            _no_duplicates(ids, where, source)
            out[g] = _finish(source, g, ids, rows, where)
    return {g: replace(b, read_info=info) for g, b in out.items()}


def _id_text(value, source, row, column) -> str:
    if value is None or str(value).strip() == "" or (isinstance(value, float) and math.isnan(value)):
        raise DataError(f"{_where(source, row, column)}: missing example id")
    return str(value)


def _long(records, id_col, call_col, bit_col, gcols, source, row_label, info: ReadInfo | None = None,
          labels=None) -> dict[str, CallBits]:
    """Long records (one per call) -> CallBits per group; ``labels[i]`` names record i in messages."""

    def context(column):
        return _context(info, column) if info is not None else ""

    table: dict[str, dict[str, dict]] = {}
    for i, rec in enumerate(records, start=1):
        label = labels[i - 1] if labels is not None else i
        key = _id_text(rec.get(id_col), source, label, id_col)
        call = rec.get(call_col)
        try:
            if isinstance(call, bool):
                raise ValueError
            c = float(call)
            if not c.is_integer():
                raise ValueError
            c = int(c)
        except (TypeError, ValueError, OverflowError):
            raise DataError(f"{_where(source, label, call_col)}: call index {call!r} is not an integer{context(call_col)}") from None
        b = _bit(rec.get(bit_col), source, label, bit_col, context if info is not None else None)
        if b is None:
            raise DataError(f"{_where(source, label, bit_col)}: missing value")
        calls = table.setdefault(_group_of(rec, gcols), {}).setdefault(key, {})
        if c in calls:
            raise DataError(
                f"{source}: {row_label} {label} duplicates {row_label} {calls[c][1]}: (example, call) = ({key!r}, {c}) appears twice"
            )
        calls[c] = (b, label)
    out = {}
    for g, examples in table.items():
        ids = list(examples)
        rows = [[examples[k][c][0] for c in sorted(examples[k])] for k in ids]
        where = [f"{row_label} {min(v[1] for v in examples[k].values())}" for k in ids]
        out[g] = _finish(source, g, ids, rows, where)
    return out


def _read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); save the file as UTF-8") from None


def _read_table(path: Path) -> tuple[list[dict], list[str], str]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        records, columns = [], []
        for line_no, line in enumerate(_read_text(path).splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}: line {line_no}: not valid JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise DataError(f"{path}: line {line_no}: expected a JSON object per line")
            records.append(rec)
            columns.extend(k for k in rec if k not in columns)
        return records, columns, "line"
    if suffix == ".parquet":
        pq = require("pyarrow.parquet", f"reading the Parquet file {str(path)!r}")
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
        return table.to_pylist(), list(table.column_names), "row"
    import csv
    import io

    text = _read_text(path)
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    first = text.splitlines()[0]
    delim = "\t" if suffix == ".tsv" or ("\t" in first and "," not in first) else ","
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    header = [h.strip() for h in next(reader)]
    seen = set()
    for h in header:
        if h in seen:
            raise DataError(f"{path}: column {h!r} appears twice in the header")
        seen.add(h)
    records = []
    for i, row in enumerate(reader, start=1):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise DataError(f"{path}: row {i}: {len(row)} fields but the header has {len(header)}")
        records.append(dict(zip(header, row + [""] * (len(header) - len(row)))))
    return records, header, "row"


def _read_store(path: Path) -> dict[str, CallBits]:
    from ..experiment import RunStore  # lazy: the math core never needs the experiment package

    with RunStore(path) as store:
        rows = store.query(
            """SELECT c.dataset, c.policy, c.example_id, c.repeat, c.correct
               FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
               ORDER BY c.dataset, c.policy, e.position, c.repeat"""
        )
    records = [{"dataset": d, "policy": p, "example_id": x, "repeat": r, "correct": c} for d, p, x, r, c in rows]
    if not records:
        raise DataError(f"{path}: the run store has no recorded calls")
    info = ReadInfo("run store", "example_id", (), "repeat", "correct", ("dataset", "policy"))
    out = _long(records, "example_id", "repeat", "correct", ["dataset", "policy"], str(path), "call")
    return {g: replace(b, read_info=info) for g, b in out.items()}


_TABLES = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".parquet")
_STORES = (".sqlite", ".sqlite3", ".db")


def read_groups(path, *, scorer: str | None = None, allow_incomplete: bool = False, score_map=None,
                columns=None) -> dict[str, CallBits]:
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

    Returns
    -------
    dict
        group label -> CallBits; the label is ``""`` when the file has no group columns.
        Each CallBits' ``read_info`` says which columns were read as what.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    suffix = p.suffix.lower()
    cmap = ColumnMap.coerce(columns, str(p))
    is_log = suffix == ".eval" or (suffix == ".json" and p.stat().st_size > 0)
    if not is_log:
        given = [name for name, on in (("scorer= (--scorer)", scorer is not None),
                                       ("allow_incomplete= (--allow-incomplete)", bool(allow_incomplete)),
                                       ("score_map= (--score-map)", bool(score_map))) if on]
        if given:
            raise DataError(f"{p}: {', '.join(given)} appl{'y' if len(given) > 1 else 'ies'} to inspect_ai logs "
                            f"(.eval, .json) only")
    if not cmap.empty and (is_log or suffix in _STORES):
        raise DataError(f"{p}: column options (--id-col, --call-cols, --call-col, --correct-col, --group-cols, "
                        f"--ignore-cols) apply to tables (.csv, .tsv, .txt, .jsonl, .parquet) only")
    if suffix in _STORES:
        return _read_store(p)
    if is_log:
        from ._inspect_log import read_inspect_log  # lazy: imports inspect_ai when installed

        return read_inspect_log(p, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map)
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty")
    if suffix not in _TABLES:
        raise DataError(f"{p}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite")
    records, cols, label = _read_table(p)
    return _from_records(records, cols, str(p), label, cmap)


def read_bits(path, *, group: str | None = None, scorer: str | None = None, allow_incomplete: bool = False,
              score_map=None, columns=None) -> CallBits:
    """Read one analysis' correctness bits; ``group`` selects among several (``dataset/policy``).

    The other keywords are those of :func:`read_groups`.
    """
    groups = read_groups(path, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map, columns=columns)
    if group is None:
        if len(groups) > 1:
            raise DataError(f"{path}: {len(groups)} groups ({', '.join(groups)}); choose one with group=")
        return next(iter(groups.values()))
    if group not in groups:
        raise DataError(f"{path}: group {group!r} not found (has {', '.join(groups) or 'none'})")
    return groups[group]
