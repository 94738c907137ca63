"""Which reader reads a file: the registry behind :func:`read_groups`.

Each kind of file is one :class:`Reader`: the file-name suffixes it handles, a content test
where a suffix is shared (an lm-eval samples file is a ``.jsonl`` whose first line has the
keys ``doc_id``, ``doc``, ``target``, ``resps``; an empty ``.json`` is no inspect_ai log),
the keywords of :func:`read_groups` that apply to it, and how it reads. :data:`READERS`
lists them, the ones that test content before the plain reader of the same suffix, and
:func:`reader_for` returns the first that handles a path (as inspect_ai picks the recorder
of a log location).

Keywords that do not apply to a file's kind are errors, never silently ignored (column
options for a log or a run store; ``scorer``, ``allow_incomplete``, ``score_map`` for a
table or a store; ``delimiter`` for anything but a delimited text table;
``answer_regex`` for anything but a log, ``ignore_case`` for anything but an lm-eval
samples file; ``answer_normalize`` for a file without answers), except ``open_store``,
which the CLI and the report pass for every file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .._calls import CallBits, DataError
from ._answers import DEFAULT_NORMALIZATION
from ._columns import ColumnMap
from ._csv import read_csv
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
    answer_normalize: str = DEFAULT_NORMALIZATION
    open_store: Callable | None = None

    def given(self) -> set[str]:
        """The names of the keywords set to something other than their default."""
        return {name for name, on in (
            ("scorer", self.scorer is not None), ("allow_incomplete", bool(self.allow_incomplete)),
            ("score_map", bool(self.score_map)), ("columns", not self.columns.empty),
            ("delimiter", self.delimiter is not None), ("answer_regex", self.answer_regex is not None),
            ("ignore_case", bool(self.ignore_case)), ("answer_normalize", self.answer_normalize != DEFAULT_NORMALIZATION),
            ("open_store", self.open_store is not None)) if on}


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
    """

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, ReadOptions], dict[str, CallBits]]
    options: frozenset[str] = frozenset()
    sniff: Callable[[Path], bool] | None = None

    def handles(self, path: Path) -> bool:
        """Whether this reader reads ``path``: its suffix, then (if any) its content test."""
        return path.suffix.lower() in self.suffixes and (self.sniff is None or self.sniff(path))


def _refuse_empty(path: Path) -> None:
    if path.stat().st_size == 0:
        raise DataError(f"{path}: the file is empty")


def _table(read: Callable) -> Callable[[Path, ReadOptions], dict[str, CallBits]]:
    """A table reader as the registry calls it: an empty file is refused as such, and every
    group records how the table's columns were read."""

    def read_checked(path: Path, options: ReadOptions) -> dict[str, CallBits]:
        _refuse_empty(path)
        out, info = read(path, options)
        return {g: replace(b, read_info=info) for g, b in out.items()}

    return read_checked


_LOG_OPTIONS = frozenset({"scorer", "allow_incomplete", "score_map", "answer_regex", "answer_normalize"})

#: Every kind of file read_groups reads; the first that handles a path reads it, so a
#: reader that tests content comes before the plain reader of the same suffix.
READERS: tuple[Reader, ...] = (
    Reader("lm-eval samples", (".jsonl", ".ndjson"),
           lambda p, o: read_lmeval_samples(p, answer_regex=o.answer_regex, ignore_case=o.ignore_case,
                                            answer_normalize=o.answer_normalize),
           frozenset({"answer_regex", "ignore_case", "answer_normalize"}), sniff=is_lmeval_samples),
    Reader("inspect_ai log", (".eval", ".json"),
           lambda p, o: read_inspect_log(p, scorer=o.scorer, allow_incomplete=o.allow_incomplete, score_map=o.score_map,
                                         answer_regex=o.answer_regex, answer_normalize=o.answer_normalize),
           _LOG_OPTIONS, sniff=is_inspect_log),
    Reader("run store", (".sqlite", ".sqlite3", ".db"), lambda p, o: read_store(p, o.open_store),
           frozenset({"open_store"})),
    Reader("delimited table", (".csv", ".tsv", ".txt"), _table(lambda p, o: read_csv(p, o.columns, o.delimiter)),
           frozenset({"columns", "delimiter"})),
    Reader("JSON-lines table", (".jsonl", ".ndjson"), _table(lambda p, o: read_jsonl(p, o.columns)),
           frozenset({"columns"})),
    Reader("Parquet table", (".parquet",), _table(lambda p, o: read_parquet(p, o.columns)), frozenset({"columns"})),
)


def reader_for(path, readers: tuple[Reader, ...] = READERS) -> Reader | None:
    """The first of ``readers`` that handles ``path`` (:meth:`Reader.handles`), None when none does."""
    p = Path(path)
    return next((r for r in readers if r.handles(p)), None)


def _refuse_options(path: Path, reader: Reader | None, options: ReadOptions) -> None:
    """A DataError for keywords given for a kind of file they do not apply to (module docstring)."""
    wrong = options.given() - (reader.options if reader is not None else frozenset())
    if "answer_regex" in wrong:
        raise DataError(f"{path}: answer_regex= (--answer-regex) applies to logs only (lm-eval samples files: .jsonl "
                        f"lines with doc_id, doc, target, resps; inspect_ai logs: .eval, .json)")
    if "ignore_case" in wrong:
        raise DataError(f"{path}: ignore_case= (--answer-ignore-case) applies to lm-eval samples files only (.jsonl "
                        f"lines with doc_id, doc, target, resps)")
    if "answer_normalize" in wrong:
        raise DataError(f"{path}: answer_normalize= (--answer-normalize) applies to files with answers only")
    given = [f"{name}= ({flag})" for name, flag in (("scorer", "--scorer"), ("allow_incomplete", "--allow-incomplete"),
                                                   ("score_map", "--score-map")) if name in wrong]
    if given:
        raise DataError(f"{path}: {', '.join(given)} appl{'y' if len(given) > 1 else 'ies'} to inspect_ai logs "
                        f"(.eval, .json) only")
    if "delimiter" in wrong:
        raise DataError(f"{path}: delimiter= (--delimiter) applies to delimited text tables (.csv, .tsv, .txt) only")
    # a file no reader handles is reported as of an unknown type instead: the column options may
    # be right for it once it is saved as a table
    if "columns" in wrong and reader is not None:
        raise DataError(f"{path}: column options (--id-col, --call-cols, --call-col, --correct-col, --group-cols, "
                        f"--ignore-cols) apply to tables (.csv, .tsv, .txt, .jsonl, .parquet) only")


def read_groups(path, *, scorer: str | None = None, allow_incomplete: bool = False, score_map=None,
                columns=None, delimiter: str | None = None, answer_regex: str | None = None,
                ignore_case: bool = False, answer_normalize: str = DEFAULT_NORMALIZATION,
                open_store=None) -> dict[str, CallBits]:
    """Read correctness bits, one :class:`CallBits` per group (formats: :mod:`certify.readers`).

    Parameters
    ----------
    path : str or Path
    scorer : str, optional
        inspect_ai logs with several scorers: which one gives the bits.
    allow_incomplete : bool
        inspect_ai logs: read a log whose ``status`` is not ``"success"`` (or with
        unscored samples), using only the scored samples (:mod:`certify.readers._inspect`).
    score_map : dict, optional
        inspect_ai logs: extra score values -> bit, e.g. ``{"N": 0, "P": 0}``.
    columns : ColumnMap or dict, optional
        Tables: explicit column roles (``id_col``, ``call_cols``, ``call_col``,
        ``correct_col``, ``group_cols``, ``ignore_cols``).
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
    options = ReadOptions(scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map,
                          columns=ColumnMap.coerce(columns, str(p)), delimiter=delimiter, answer_regex=answer_regex,
                          ignore_case=ignore_case, answer_normalize=answer_normalize, open_store=open_store)
    reader = reader_for(p)
    _refuse_options(p, reader, options)
    if reader is None:
        _refuse_empty(p)
        raise DataError(f"{p}: unknown file type {p.suffix.lower()!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json "
                        f"or .sqlite")
    return reader.read(p, options)


def read_bits(path, *, group: str | None = None, scorer: str | None = None, allow_incomplete: bool = False,
              score_map=None, columns=None, delimiter: str | None = None, answer_regex: str | None = None,
              ignore_case: bool = False, answer_normalize: str = DEFAULT_NORMALIZATION, open_store=None) -> CallBits:
    """Read one analysis' correctness bits; ``group`` selects among several (``dataset/policy``).

    The other keywords are those of :func:`read_groups`.
    """
    groups = read_groups(path, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map, columns=columns,
                         delimiter=delimiter, answer_regex=answer_regex, ignore_case=ignore_case,
                         answer_normalize=answer_normalize, open_store=open_store)
    if group is None:
        if len(groups) > 1:
            raise DataError(f"{path}: {len(groups)} groups ({', '.join(groups)}); choose one with group=")
        return next(iter(groups.values()))
    if group not in groups:
        raise DataError(f"{path}: group {group!r} not found (has {', '.join(groups) or 'none'})")
    return groups[group]
