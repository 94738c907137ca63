"""Which reader reads a file: the registry behind :func:`read_groups`.

Each kind of file is one :class:`Reader`: the file-name suffixes it handles, a content test
where a suffix is shared (an lm-eval samples file is a ``.jsonl`` whose first line has the
keys ``doc_id``, ``doc``, ``target``, ``resps``; an empty ``.json`` is no inspect_ai log),
the keywords of :func:`read_groups` that apply to it, and how it reads. :data:`READERS`
lists them, the ones that test content before the plain reader of the same suffix, and
:func:`reader_for` returns the first that handles a path (as inspect_ai picks the recorder
of a log location).

A pandas DataFrame is read like a table file (:mod:`certify.readers._frame`): its reader
accepts the object itself instead of a path.

Keywords that do not apply to a file's kind are errors, never silently ignored (column
options for a log or a run store; ``scorer``, ``allow_incomplete``, ``score_map`` for a
table or a store; ``delimiter`` for anything but a delimited text table;
``answer_regex`` for anything but a log (lm-eval samples, inspect_ai), ``ignore_case`` for
anything but an lm-eval samples file), except ``open_store``, which the CLI and the report
pass for every file, and ``answer_normalize``, which applies wherever answers are read (and
changes nothing where a source has none).

A path is looked at (``stat``, following symbolic links) before anything opens it: a
directory, a named pipe (FIFO: opening it would wait for a writer), a device
(``/dev/zero`` never ends), a socket, a symbolic link loop or a dangling link is
refused with what it is; a file that cannot be read (no permission) is one line too.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo, abbreviate
from ._answers import DEFAULT_NORMALIZATION, NORMALIZATIONS
from ._columns import ColumnMap
from ._csv import read_csv
from ._frame import is_dataframe, read_frame
from ._inspect import is_inspect_log, read_inspect_log
from ._jsonl import read_jsonl
from ._lmeval import is_lmeval_samples, read_lmeval_samples
from ._parquet import read_parquet
from ._store import read_store

__all__ = ["READERS", "ReadOptions", "Reader", "read_bits", "read_groups", "reader_for"]


@dataclass(frozen=True)
class ReadOptions:
    """The keywords of :func:`read_groups`, as every reader receives them (``columns`` already a ColumnMap)."""

    scorer: str | None = None
    allow_incomplete: bool = False
    score_map: object = None
    columns: ColumnMap = ColumnMap()
    delimiter: str | None = None
    answer_regex: str | None = None
    ignore_case: bool = False
    open_store: Callable | None = None
    answer_normalize: str = DEFAULT_NORMALIZATION

    def given(self) -> set[str]:
        """The names of the keywords set to something other than their default."""
        return {
            name
            for name, on in (
                ("scorer", self.scorer is not None),
                ("allow_incomplete", bool(self.allow_incomplete)),
                ("score_map", bool(self.score_map)),
                ("columns", not self.columns.empty),
                ("delimiter", self.delimiter is not None),
                ("answer_regex", self.answer_regex is not None),
                ("ignore_case", bool(self.ignore_case)),
                ("open_store", self.open_store is not None),
                ("answer_normalize", self.answer_normalize != DEFAULT_NORMALIZATION),
            )
            if on
        }


@dataclass(frozen=True)
class Reader:
    """One kind of file :func:`read_groups` reads.

    Attributes
    ----------
    name : str
        What the file is (``"delimited table"``, ``"inspect_ai log"``, ...).
    suffixes : tuple of str
        The lower-case file-name suffixes it handles.
    read : callable
        ``read(path, options)`` -> ``{group: CallBits}`` (``options`` a :class:`ReadOptions`),
        each CallBits' ``read_info`` saying how the file was read.
    options : frozenset of str
        The keywords of :func:`read_groups` that apply to this kind of file.
    sniff : callable, optional
        ``sniff(path)`` -> bool: the content test, for a suffix another kind shares.
    accepts : callable, optional
        ``accepts(obj)`` -> bool, for a reader of objects in memory (a DataFrame), which
        ``read`` then receives instead of a path.
    """

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, ReadOptions], dict[str, CallBits]]
    options: frozenset[str] = frozenset()
    sniff: Callable[[Path], bool] | None = None
    accepts: Callable[[object], bool] | None = None

    def handles(self, source) -> bool:
        """Whether this reader reads ``source``: an object it accepts, or a path by its suffix, then its content
        test."""
        if self.accepts is not None:
            return self.accepts(source)
        if not isinstance(source, Path):
            return False
        return source.suffix.lower() in self.suffixes and (self.sniff is None or self.sniff(source))


def _refuse_empty(path: Path) -> None:
    if path.stat().st_size == 0:
        raise DataError(f"{path}: the file is empty")


def _with_info(read: tuple[dict[str, CallBits], ReadInfo]) -> dict[str, CallBits]:
    """Every group of a table, recording how the table's columns were read."""
    out, info = read
    return {g: replace(b, read_info=info) for g, b in out.items()}


def _table(read: Callable) -> Callable[[Path, ReadOptions], dict[str, CallBits]]:
    """A table reader as the registry calls it: an empty file is refused as such, and every
    group records how the table's columns were read."""

    def read_checked(path: Path, options: ReadOptions) -> dict[str, CallBits]:
        _refuse_empty(path)
        return _with_info(read(path, options))

    return read_checked


_LOG_OPTIONS = frozenset({"scorer", "allow_incomplete", "score_map", "answer_regex", "answer_normalize"})
_TABLE_OPTIONS = frozenset({"columns", "answer_normalize"})

#: Every kind of file read_groups reads; the first that handles a path reads it, so a
#: reader that tests content comes before the plain reader of the same suffix.
READERS: tuple[Reader, ...] = (
    Reader(
        "lm-eval samples",
        (".jsonl", ".ndjson"),
        lambda p, o: read_lmeval_samples(
            p, answer_regex=o.answer_regex, ignore_case=o.ignore_case, answer_normalize=o.answer_normalize
        ),
        frozenset({"answer_regex", "ignore_case", "answer_normalize"}),
        sniff=is_lmeval_samples,
    ),
    Reader(
        "inspect_ai log",
        (".eval", ".json"),
        lambda p, o: read_inspect_log(
            p,
            scorer=o.scorer,
            allow_incomplete=o.allow_incomplete,
            score_map=o.score_map,
            answer_regex=o.answer_regex,
            answer_normalize=o.answer_normalize,
        ),
        _LOG_OPTIONS,
        sniff=is_inspect_log,
    ),
    Reader(
        "run store",
        (".sqlite", ".sqlite3", ".db"),
        lambda p, o: read_store(p, o.open_store, o.answer_normalize),
        frozenset({"open_store", "answer_normalize"}),
    ),
    Reader(
        "delimited table",
        (".csv", ".tsv", ".txt"),
        _table(lambda p, o: read_csv(p, o.columns, o.delimiter, answer_normalize=o.answer_normalize)),
        _TABLE_OPTIONS | {"delimiter"},
    ),
    Reader(
        "JSON-lines table",
        (".jsonl", ".ndjson"),
        _table(lambda p, o: read_jsonl(p, o.columns, o.answer_normalize)),
        _TABLE_OPTIONS,
    ),
    Reader(
        "Parquet table",
        (".parquet",),
        _table(lambda p, o: read_parquet(p, o.columns, o.answer_normalize)),
        _TABLE_OPTIONS,
    ),
    Reader(
        "pandas DataFrame",
        (),
        lambda f, o: _with_info(read_frame(f, o.columns, o.answer_normalize)),
        _TABLE_OPTIONS,
        accepts=is_dataframe,
    ),
)


def reader_for(source, readers: tuple[Reader, ...] = READERS) -> Reader | None:
    """The first of ``readers`` that handles ``source`` (:meth:`Reader.handles`: a path, or a DataFrame), None when
    none does."""
    if isinstance(source, (str, os.PathLike)):
        source = Path(source)
    return next((r for r in readers if r.handles(source)), None)


def _refuse_options(path: str | Path, reader: Reader | None, options: ReadOptions) -> None:
    """A DataError for keywords given for a kind of file they do not apply to (module docstring)."""
    wrong = options.given() - (reader.options if reader is not None else frozenset())
    if "answer_regex" in wrong:
        raise DataError(
            f"{path}: --answer-regex (answer_regex=) applies to logs only (lm-eval samples files: .jsonl "
            f"lines with doc_id, doc, target, resps; inspect_ai logs: .eval, .json)"
        )
    if "ignore_case" in wrong:
        raise DataError(
            f"{path}: --answer-ignore-case (ignore_case=) applies to lm-eval samples files only (.jsonl "
            f"lines with doc_id, doc, target, resps)"
        )
    given = [
        f"{flag} ({name}=)"
        for name, flag in (
            ("scorer", "--scorer"),
            ("allow_incomplete", "--allow-incomplete"),
            ("score_map", "--score-map"),
        )
        if name in wrong
    ]
    if given:
        raise DataError(
            f"{path}: {', '.join(given)} appl{'y' if len(given) > 1 else 'ies'} to inspect_ai logs (.eval, .json) only"
        )
    if "delimiter" in wrong:
        raise DataError(f"{path}: --delimiter (delimiter=) applies to delimited text tables (.csv, .tsv, .txt) only")
    # a file no reader handles is reported as of an unknown type instead: the column options may
    # be right for it once it is saved as a table
    if "columns" in wrong and reader is not None:
        raise DataError(
            f"{path}: column options (--id-col, --call-cols, --answer-cols, --call-col, --correct-col, "
            f"--answer-col, --target-col, --group-cols, --ignore-cols) apply to tables (.csv, .tsv, .txt, "
            f".jsonl, .parquet) only"
        )


def _regular_file(p: Path) -> None:
    """A DataError saying what ``p`` is when it is not a readable regular file (module docstring); never opens it."""
    try:
        mode = p.stat().st_mode  # follows symbolic links
    except FileNotFoundError:
        raise DataError(f"{p}: a symbolic link to a missing file" if p.is_symlink() else f"{p}: no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataError(f"{p}: a symbolic link loop, not a data file") from None
        raise DataError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise DataError(
            f"{p}: is a directory, not a data file; give one file (.csv, .tsv, .jsonl, .parquet, .eval, "
            f".json or .sqlite)"
        )
    kind = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else None
        if stat.S_ISREG(mode)
        else "not a regular file"
    )
    if kind is not None:
        raise DataError(f"{p}: is {kind}, not a regular file; save the data to a file and give its path")
    if not os.access(p, os.R_OK):
        raise DataError(f"{p}: cannot be read (permission denied)")


def read_groups(
    path,
    *,
    scorer: str | None = None,
    allow_incomplete: bool = False,
    score_map=None,
    columns=None,
    delimiter: str | None = None,
    answer_regex: str | None = None,
    ignore_case: bool = False,
    open_store=None,
    answer_normalize: str = DEFAULT_NORMALIZATION,
) -> dict[str, CallBits]:
    """Read correctness bits, one :class:`CallBits` per group (formats: :mod:`certify.readers`).

    Parameters
    ----------
    path : str, Path or pandas.DataFrame
        A file, or a DataFrame in wide or long form (read as a table file is).
    scorer : str, optional
        inspect_ai logs with several scorers: which one gives the bits.
    allow_incomplete : bool
        inspect_ai logs: read a log whose ``status`` is not ``"success"`` (or with
        unscored samples), using only the scored samples (:mod:`certify.readers._inspect`).
    score_map : dict, optional
        inspect_ai logs: extra score values -> bit, e.g. ``{"N": 0, "P": 0}``.
    columns : ColumnMap or dict, optional
        Tables: explicit column roles (``id_col``, ``call_cols``, ``answer_cols``,
        ``call_col``, ``correct_col``, ``answer_col``, ``target_col``, ``group_cols``,
        ``ignore_cols``).
    delimiter : str, optional
        ``.csv`` / ``.tsv`` / ``.txt``: ``","``, ``";"`` or ``"\\t"`` (also ``"tab"``); default:
        tab for ``.tsv``, else the one of the three the header line contains
        (:mod:`certify.readers._csv`).
    answer_regex : str, optional
        Logs: extracts each response's answer (:mod:`certify.readers._answer_regex`); lm-eval
        samples files (:mod:`certify.readers._lmeval`) and inspect_ai logs whose scorer set
        no ``Score.answer``.
    ignore_case : bool
        lm-eval samples files: compare answers and targets ignoring case.
    answer_normalize : {"exact", "strip", "casefold", "number"}
        How answers are compared (:mod:`certify.readers._answers`; default ``"strip"``).
    open_store : callable, optional
        Run stores (``.sqlite``, ``.sqlite3``, ``.db``): opens the path as a context manager
        giving a :class:`~certify.readers.CallTable`, e.g. :class:`certify.experiment.RunStore`.
    answer_normalize : {"strip", "exact", "casefold", "number"}
        How answers are compared, with targets and with each other
        (:mod:`certify.readers._answers`; CLI ``--answer-normalize``).

    Returns
    -------
    dict
        group label -> CallBits; the label is ``""`` when the file has no group columns.
        Each CallBits' ``read_info`` says which columns were read as what; ``answers`` holds
        the answer codes where the source records answers.
    """
    if answer_normalize not in NORMALIZATIONS:
        raise DataError(
            f"--answer-normalize {answer_normalize!r} (answer_normalize=): use one of {', '.join(NORMALIZATIONS)}"
        )
    in_memory = not isinstance(path, (str, os.PathLike))
    p = type(path).__name__ if in_memory else Path(path)
    options = ReadOptions(
        scorer=scorer,
        allow_incomplete=allow_incomplete,
        score_map=score_map,
        columns=ColumnMap.coerce(columns, str(p)),
        delimiter=delimiter,
        answer_regex=answer_regex,
        ignore_case=ignore_case,
        open_store=open_store,
        answer_normalize=answer_normalize,
    )
    if in_memory:
        reader = reader_for(path)
        if reader is None:
            raise DataError(f"{p}: not a data file path or a pandas DataFrame")
        _refuse_options(p, reader, options)
        return reader.read(path, options)
    assert isinstance(p, Path)  # not in memory: p is Path(path)
    _regular_file(p)
    reader = reader_for(p)
    _refuse_options(p, reader, options)
    if reader is None:
        _refuse_empty(p)
        raise DataError(
            f"{p}: unknown file type {p.suffix.lower()!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite"
        )
    try:
        return reader.read(p, options)
    except OSError as exc:  # the file changed under us, or an I/O error: a one-line refusal, not a traceback
        raise DataError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def read_bits(
    path,
    *,
    group: str | None = None,
    scorer: str | None = None,
    allow_incomplete: bool = False,
    score_map=None,
    columns=None,
    delimiter: str | None = None,
    answer_regex: str | None = None,
    ignore_case: bool = False,
    open_store=None,
    answer_normalize: str = DEFAULT_NORMALIZATION,
) -> CallBits:
    """Read one analysis' correctness bits; ``group`` selects among several (``dataset/policy``).

    The other keywords are those of :func:`read_groups`; ``path`` may be a pandas DataFrame.
    """
    groups = read_groups(
        path,
        scorer=scorer,
        allow_incomplete=allow_incomplete,
        score_map=score_map,
        columns=columns,
        delimiter=delimiter,
        answer_regex=answer_regex,
        ignore_case=ignore_case,
        open_store=open_store,
        answer_normalize=answer_normalize,
    )
    name = path if isinstance(path, (str, os.PathLike)) else type(path).__name__
    if group is None:
        if len(groups) > 1:
            raise DataError(
                f"{name}: {len(groups)} groups ({abbreviate(map(repr, groups), noun='groups')}); "
                "choose one with --group (group=)"
            )
        return next(iter(groups.values()))
    if group not in groups:
        raise DataError(
            f"{name}: group {group!r} not found (has {abbreviate(map(repr, groups), noun='groups') or 'none'}); "
            "choose one with --group (group=)"
        )
    return groups[group]
