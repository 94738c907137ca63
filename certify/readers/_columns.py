"""Column roles of tables: which column is the example id, the calls, the bit, the groups.

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
What was read as what is recorded in :attr:`CallBits.read_info` (:class:`ReadInfo`);
``certify analyze`` prints it first (``--json``: the ``columns`` field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .._calls import DataError, ReadInfo, abbreviate

__all__ = ["CALL_COLUMNS", "CORRECT_COLUMNS", "ColumnMap", "ID_COLUMNS", "WIDE_PREFIXES", "resolve_columns",
           "role_columns", "role_context"]

ID_COLUMNS = ("example_id", "example", "id", "sample_id", "doc_id", "question_id", "item_id", "qid")
CALL_COLUMNS = ("call", "call_index", "repeat", "epoch", "attempt", "try", "trial", "sample")
CORRECT_COLUMNS = ("correct", "is_correct", "bit", "score", "value", "exact_match", "em", "acc", "accuracy", "pass", "passed")
GROUP_COLUMNS = ("dataset", "policy", "task", "model")
META_COLUMNS = frozenset(GROUP_COLUMNS) | {"position", "label", "q", "answer", "valid"}
WIDE_PREFIXES = ("b", "c", "bit", "call", "repeat", "epoch", "try", "attempt", "trial", "sample", "correct")
_WIDE_CALL = re.compile(r"^(" + "|".join(sorted(WIDE_PREFIXES, key=len, reverse=True)) + r")[_\- ]?(\d+)$", re.IGNORECASE)
_MAP_HINT = "map columns with --id-col, --call-cols (wide), --call-col/--correct-col (long), --group-cols or --ignore-cols"


@dataclass(frozen=True)
class ColumnMap:
    """Explicit column roles for tables (:mod:`certify.readers._columns`); every field is optional.

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


def resolve_columns(columns: list[str], cmap: ColumnMap, source: str) -> ReadInfo:
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


def role_context(info: ReadInfo, column: str) -> str:
    """The tail of a value error in a role column: what was read as what, and how to remap."""
    role = "the correct bit" if column == info.correct else "the call index" if column == info.call else "a call"
    return f"; column {column!r} was read as {role} (columns: {info.describe()}); if that is wrong, {_MAP_HINT}"


def role_columns(info: ReadInfo) -> list[str]:
    """The columns a table is read from (metadata and ignored columns are not read)."""
    return [c for c in (info.id, info.call, info.correct, *info.calls, *info.groups) if c is not None]
