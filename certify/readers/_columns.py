"""Column roles of tables: which column is the example id, the calls, the bit, the answers, the groups.

**Tables: the reader never guesses.** Every column gets exactly one role, decided by
its name (case-insensitive) from the lists below, or by an explicit mapping
(:class:`ColumnMap`; CLI flags of the same names). A column that has no role is an
error naming it.

* *id* (one of): ``example_id, example, id, sample_id, doc_id, question_id, item_id, qid``.
  Wide form may have none (examples are then numbered by row); long form needs one.
* **long form** (one row per call): an id column, a *call* column (call index, an
  integer: ``call, call_index, repeat, epoch, attempt, try, trial, sample``) and a
  *correct* column (the bit: ``correct, is_correct, bit, score, value, exact_match,
  em, acc, accuracy, pass, passed``), or an *answer* column (``answer``) and a *target*
  column (``target, label``), or all three. Calls are ordered by the call index.
* **wide form** (one row per example): the call columns are those named by a prefix
  ``b, c, bit, call, repeat, epoch, try, attempt, trial, sample, correct`` and a number,
  with an optional ``_``, ``-`` or space (``b0, b1``, ``call1``, ``repeat_2``, ``epoch3``,
  ``try1``, ``attempt_2``, ``sample3``), all with the same prefix and distinct numbers;
  answer columns are named ``answer`` and a number the same way (``answer1``,
  ``answer_2``), with a *target* column. Calls are ordered by the number; with both bit
  and answer columns, each answer column goes with the call column of its number, and a
  number that has one and not the other is an error. At least two calls are needed.
  Numbers that skip one (``call1, call2, call4``) are read in order, with a note.
* The form is long when a call or correct column is present, wide otherwise; a file
  with both numbered call columns and a call/correct column is an error.
* **Answers** (:mod:`certify.readers._answers`): a call is correct when its answer equals
  the target after the normalization ``--answer-normalize`` (default ``strip``); a correct
  column or bit columns, if also present, must agree row by row. An empty answer is a call
  that produced no answer (no vote; incorrect). Answers without a target column are an
  error; a ``target`` column without answers has no role (an error, as any unknown
  column), and ``label`` is then read and not used.
* *groups*: ``dataset`` / ``policy`` (run-store exports) or, if neither is present,
  ``task`` / ``model`` split the file into independent analyses named ``dataset/policy``.
* *metadata*, read and not used: ``dataset, policy, task, model`` (when not groups),
  ``position, label, q, answer, valid`` (the run-store exports' extra columns; ``answer``
  and ``label`` are answers and target in a long-form export: its calls keep their answers).
* Anything else (``f1``, an unnamed pandas index ...) is an error naming the column. Two
  columns matching the same role (``id`` and ``sample_id``; ``repeat`` and ``epoch``) are
  an error too.

Explicit mapping, :class:`ColumnMap` (or a dict with the same keys; CLI flag in brackets):
``id_col`` (``--id-col``), ``call_cols`` (``--call-cols``: wide form, calls in the
given order), ``answer_cols`` (``--answer-cols``: wide form, one per call, in call order),
``call_col``, ``correct_col`` and ``answer_col`` (``--call-col``, ``--correct-col``,
``--answer-col``: long form), ``target_col`` (``--target-col``), ``group_cols``
(``--group-cols``), ``ignore_cols`` (``--ignore-cols``: dropped before anything else;
``--group-cols`` with no names: no groups). A role given explicitly replaces the name
lists for that role; the others are still found by name. What was read as what is
recorded in :attr:`CallBits.read_info` (:class:`ReadInfo`); ``certify analyze`` prints it
first (``--json``: the ``columns`` field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .._calls import DataError, ReadInfo, abbreviate

__all__ = [
    "ANSWER_COLUMNS",
    "CALL_COLUMNS",
    "CORRECT_COLUMNS",
    "ColumnMap",
    "ID_COLUMNS",
    "TARGET_COLUMNS",
    "WIDE_PREFIXES",
    "resolve_columns",
    "role_columns",
    "role_context",
]

ID_COLUMNS = ("example_id", "example", "id", "sample_id", "doc_id", "question_id", "item_id", "qid")
CALL_COLUMNS = ("call", "call_index", "repeat", "epoch", "attempt", "try", "trial", "sample")
CORRECT_COLUMNS = (
    "correct",
    "is_correct",
    "bit",
    "score",
    "value",
    "exact_match",
    "em",
    "acc",
    "accuracy",
    "pass",
    "passed",
)
ANSWER_COLUMNS = ("answer",)
TARGET_COLUMNS = ("target", "label")
GROUP_COLUMNS = ("dataset", "policy", "task", "model")
META_COLUMNS = frozenset(GROUP_COLUMNS) | {"position", "label", "q", "answer", "valid"}
WIDE_PREFIXES = ("b", "c", "bit", "call", "repeat", "epoch", "try", "attempt", "trial", "sample", "correct")
ANSWER_PREFIXES = ("answer",)
# ASCII digits only: \d would also match "١" (Arabic-Indic one) and read it as call 1
_WIDE_CALL = re.compile(
    r"^(" + "|".join(sorted(WIDE_PREFIXES, key=len, reverse=True)) + r")[_\- ]?([0-9]+)$", re.IGNORECASE
)
_WIDE_ANSWER = re.compile(r"^(" + "|".join(ANSWER_PREFIXES) + r")[_\- ]?([0-9]+)$", re.IGNORECASE)
_MAP_HINT = (
    "map columns with --id-col, --call-cols/--answer-cols (wide), --call-col/--correct-col/--answer-col (long), "
    "--target-col, --group-cols or --ignore-cols"
)


@dataclass(frozen=True)
class ColumnMap:
    """Explicit column roles for tables (:mod:`certify.readers._columns`); every field is optional.

    Attributes
    ----------
    id_col : str, optional
        The example id column.
    call_cols : tuple of str
        Wide form: the call (bit) columns, in call order.
    answer_cols : tuple of str
        Wide form: the answer columns, one per call, in call order (paired with
        ``call_cols`` by position when both are given).
    call_col, correct_col, answer_col : str, optional
        Long form: the call-index column, the correct (bit) column and the answer column.
    target_col : str, optional
        The column of each example's correct answer (with answers).
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
    answer_cols: tuple[str, ...] = ()
    answer_col: str | None = None
    target_col: str | None = None

    def __post_init__(self):
        for name in ("call_cols", "answer_cols", "ignore_cols", "group_cols"):
            value = getattr(self, name)
            if value is None:
                if name != "group_cols":  # None: nothing given (the CLI's default)
                    object.__setattr__(self, name, ())
                continue
            if isinstance(value, str):
                value = (value,)
            object.__setattr__(self, name, tuple(str(v) for v in value))

    @classmethod
    def coerce(cls, columns, source: str = "columns") -> ColumnMap:
        """A ColumnMap from None, a ColumnMap or a dict with the same keys."""
        if columns is None:
            return cls()
        if isinstance(columns, cls):
            return columns
        if isinstance(columns, Mapping):
            unknown = sorted(set(columns) - set(cls.__dataclass_fields__))
            if unknown:
                raise DataError(
                    f"{source}: columns: unknown key(s) {', '.join(map(repr, unknown))}; "
                    f"use {', '.join(cls.__dataclass_fields__)}"
                )
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
    raise DataError(
        f"{source}: {option} {name!r} is not a column of the file (columns: {', '.join(map(repr, columns))})"
    )


def _number(pattern: re.Pattern, column: str):
    m = pattern.match(column.strip())
    return (m.group(1).lower(), int(m.group(2))) if m else None


def _numbered(pattern: re.Pattern, free: list[str], what: str, source: str) -> list[tuple[int, str]]:
    """(number, column) of the numbered columns of one kind, by number; one prefix, distinct numbers."""
    numbered = sorted(((_number(pattern, c), c) for c in free if _number(pattern, c)), key=lambda t: t[0][1])
    if len({p for (p, _), _ in numbered}) > 1:
        raise DataError(
            f"{source}: numbered {what} columns with different prefixes ({abbreviate([c for _, c in numbered])}); "
            f"say which are the calls, in order, with --{what}-cols"
        )
    numbers = [k for (_, k), _ in numbered]
    if len(set(numbers)) != len(numbers):
        raise DataError(
            f"{source}: two {what} columns have the same number ({abbreviate([c for _, c in numbered])}); "
            f"say which are the calls, in order, with --{what}-cols"
        )
    return [(k, c) for (_, k), c in numbered]


def _gap_note(numbered: list[tuple[int, str]], what: str) -> str | None:
    """A note when the numbers of the call columns skip one: a column may have been lost."""
    numbers = [k for k, _ in numbered]
    if not numbers or numbers[-1] - numbers[0] + 1 == len(numbers):
        return None
    missing = sorted(set(range(numbers[0], numbers[-1] + 1)) - set(numbers))
    return (
        f"the {what} columns {abbreviate([c for _, c in numbered])} skip the number"
        f"{'s' if len(missing) > 1 else ''} {abbreviate(map(str, missing))}; the columns present are read "
        f"as consecutive calls, in the order of their numbers"
    )


def _pair_wide(calls: list[tuple[int, str]], answers: list[tuple[int, str]], source: str) -> None:
    """Bit and answer columns of one wide table go together by number; one without the other is an error."""
    call_at, answer_at = dict(calls), dict(answers)
    for k, col in answers:
        if k not in call_at:
            raise DataError(
                f"{source}: answer column {col!r} has no matching call column (number {k}; call columns: "
                f"{abbreviate(call_at.values())}); pair them by number or drop it with --ignore-cols"
            )
    for k, col in calls:
        if k not in answer_at:
            raise DataError(
                f"{source}: call column {col!r} has no matching answer column (number {k}; answer columns: "
                f"{abbreviate(answer_at.values())}); pair them by number or drop it with --ignore-cols"
            )


def resolve_columns(columns: list[str], cmap: ColumnMap, source: str) -> ReadInfo:
    """Give every column a role (module docstring) or raise a DataError naming the ones without."""
    wide_given = bool(cmap.call_cols or cmap.answer_cols)
    long_given = cmap.call_col is not None or cmap.correct_col is not None or cmap.answer_col is not None
    if wide_given and long_given:
        raise DataError(
            f"{source}: --call-cols/--answer-cols (call_cols/answer_cols, wide form) cannot be combined with "
            f"--call-col/--correct-col/--answer-col (call_col/correct_col/answer_col, long form)"
        )
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

    def take_list(names, option, role):
        cols = tuple(take(c, option, role) for c in names)
        if len(set(cols)) != len(cols):
            raise DataError(f"{source}: {option} names a column twice ({', '.join(cols)})")
        return cols

    def take_one(name, option, role):
        return take(name, option, role) if name is not None else None

    id_col = take_one(cmap.id_col, "--id-col", "id")
    call_cols = take_list(cmap.call_cols, "--call-cols", "call")
    answer_cols = take_list(cmap.answer_cols, "--answer-cols", "answer")
    if call_cols and answer_cols and len(call_cols) != len(answer_cols):
        raise DataError(
            f"{source}: --call-cols names {len(call_cols)} columns and --answer-cols {len(answer_cols)}; "
            f"give one answer column per call, in the same order"
        )
    call_col = take_one(cmap.call_col, "--call-col", "call index")
    correct_col = take_one(cmap.correct_col, "--correct-col", "correct")
    answer_col = take_one(cmap.answer_col, "--answer-col", "answer")
    target_col = take_one(cmap.target_col, "--target-col", "target")
    group_cols = None if cmap.group_cols is None else take_list(cmap.group_cols, "--group-cols", "group")
    free = [c for c in columns if c not in ignored and c not in explicit]

    def by_name(names, role, option):
        found = [c for c in free if c.strip().lower() in names]
        if len(found) > 1:
            raise DataError(
                f"{source}: columns {', '.join(map(repr, found))} all name the {role}; "
                f"say which with {option} (and drop the others with --ignore-cols)"
            )
        return found[0] if found else None

    if id_col is None:
        id_col = by_name(ID_COLUMNS, "example id", "--id-col")
    if not wide_given and not long_given:
        numbered = [c for c in free if _number(_WIDE_CALL, c) or _number(_WIDE_ANSWER, c)]
        long_named = [c for c in free if c.strip().lower() in CALL_COLUMNS + CORRECT_COLUMNS]
        if numbered and long_named:
            raise DataError(
                f"{source}: both numbered call columns ({abbreviate(numbered)}, wide form) and long-form column(s) "
                f"({', '.join(long_named)}); say which with --call-cols (wide) or --call-col/--correct-col (long)"
            )
        form = "long" if long_named else "wide"
    else:
        form = "wide" if wide_given else "long"
    problems, notes = [], []
    if form == "long":
        if call_col is None:
            call_col = by_name(CALL_COLUMNS, "call index", "--call-col")
        if correct_col is None:
            correct_col = by_name(CORRECT_COLUMNS, "correct bit", "--correct-col")
        if answer_col is None:
            answer_col = by_name(ANSWER_COLUMNS, "answer", "--answer-col")
        answer_cols = (answer_col,) if answer_col is not None else ()
        if id_col is None:
            problems.append(f"long form needs an id column ({', '.join(ID_COLUMNS)}) or --id-col")
        if call_col is None:
            problems.append(f"long form needs a call-index column ({', '.join(CALL_COLUMNS)}) or --call-col")
        if correct_col is None and answer_col is None:
            problems.append(
                f"long form needs a correct column ({', '.join(CORRECT_COLUMNS)}) or --correct-col, or an "
                f"answer column ({', '.join(ANSWER_COLUMNS)}, with a target column) or --answer-col"
            )
    else:
        if not call_cols and not answer_cols:
            calls_n = _numbered(_WIDE_CALL, free, "call", source)
            answers_n = _numbered(_WIDE_ANSWER, free, "answer", source)
            if calls_n and answers_n:
                _pair_wide(calls_n, answers_n, source)
            note = _gap_note(calls_n or answers_n, "call" if calls_n else "answer")
            if note is not None:
                notes.append(note)
            call_cols = tuple(c for _, c in calls_n)
            answer_cols = tuple(c for _, c in answers_n)
    if answer_cols:
        if target_col is None:
            target_col = by_name(TARGET_COLUMNS, "target", "--target-col")
        if target_col is None:
            raise DataError(
                f"{source}: answer column{'s' if len(answer_cols) > 1 else ''} {abbreviate(answer_cols)} "
                f"without a target column ({', '.join(TARGET_COLUMNS)}): a call is correct when its answer "
                f"equals the target; give it with --target-col, or drop the answers with --ignore-cols"
            )
    elif target_col is not None:
        raise DataError(
            f"{source}: --target-col {target_col!r} without answer columns; give them with "
            f"{'--answer-col' if form == 'long' else '--answer-cols'}"
        )
    taken = {id_col, call_col, correct_col, target_col, *call_cols, *answer_cols} - {None}
    if group_cols is None:
        rest = [c for c in free if c not in taken]
        group_cols = tuple(c for c in rest if c.strip().lower() in ("dataset", "policy")) or tuple(
            c for c in rest if c.strip().lower() in ("task", "model")
        )
    taken |= set(group_cols)
    metadata = tuple(c for c in free if c not in taken and c.strip().lower() in META_COLUMNS)
    unknown = [c for c in free if c not in taken and c not in metadata]
    info = ReadInfo(
        form,
        id_col,
        call_cols,
        call_col,
        correct_col,
        group_cols,
        metadata,
        ignored,
        notes=tuple(notes),
        answers=answer_cols,
        target=target_col,
    )
    if form == "wide" and len(call_cols or answer_cols) < 2:
        found = call_cols or answer_cols
        problems.append(
            f"found {len(found)} call column(s) ({', '.join(found) or 'none'}); wide form needs at least 2 "
            f"named {', '.join(p + 'N' for p in WIDE_PREFIXES[:4])}... (b0, b1, ...) or answerN, or given with "
            f"--call-cols, long form needs columns {ID_COLUMNS[0]}, {CALL_COLUMNS[0]}, {CORRECT_COLUMNS[0]}"
        )
    if unknown:
        names = ", ".join(repr(c) for c in unknown)
        missing = [
            flag
            for flag, col in (
                ("--id-col", id_col),
                ("--call-col", call_col),
                ("--correct-col", correct_col if answer_col is None else answer_col),
            )
            if form == "long" and col is None
        ]
        example = (
            f"{missing[0]} {_shell(unknown[0])}"
            if len(missing) == 1 and len(unknown) == 1
            else f"--ignore-cols {' '.join(_shell(c) for c in unknown)}"
        )
        problems.append(
            f"column{'s' if len(unknown) > 1 else ''} {names} {'have' if len(unknown) > 1 else 'has'} "
            "no documented role "
            f"(read so far: {info.describe()}); {_MAP_HINT}, e.g. {example}"
        )
    if problems:
        raise DataError(f"{source}: " + "; ".join(problems))
    return info


def _shell(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_.\-]+", name) else repr(name)


def role_context(info: ReadInfo, column: str) -> str:
    """The tail of a value error in a role column: what was read as what, and how to remap."""
    role = (
        "the correct bit"
        if column == info.correct
        else "the call index"
        if column == info.call
        else "the target"
        if column == info.target
        else "an answer"
        if column in info.answers
        else "a call"
    )
    return f"; column {column!r} was read as {role} (columns: {info.describe()}); if that is wrong, {_MAP_HINT}"


def role_columns(info: ReadInfo) -> list[str]:
    """The columns a table is read from (metadata and ignored columns are not read)."""
    return list(
        dict.fromkeys(
            c
            for c in (info.id, info.call, info.correct, *info.calls, *info.answers, info.target, *info.groups)
            if c is not None
        )
    )
