"""Reading a file by its type: :func:`read_groups` and :func:`read_bits`.

Options that do not apply to a file's type (column options for a log or a run store;
``scorer``, ``allow_incomplete``, ``score_map`` for a table or a store) are errors.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .._calls import CallBits, DataError
from ._columns import ColumnMap
from ._csv import read_csv
from ._inspect import read_inspect_log
from ._jsonl import read_jsonl
from ._lmeval import is_lmeval_samples, read_lmeval_samples
from ._parquet import read_parquet
from ._store import read_store

__all__ = ["read_bits", "read_groups"]

_TABLES = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".parquet")
_STORES = (".sqlite", ".sqlite3", ".db")
_DELIMITED = (".csv", ".tsv", ".txt")


def read_groups(path, *, scorer: str | None = None, allow_incomplete: bool = False, score_map=None,
                columns=None, delimiter: str | None = None, answer_regex: str | None = None,
                ignore_case: bool = False, open_store=None) -> dict[str, CallBits]:
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
        lm-eval samples files: extracts each response's answer (:mod:`certify.readers._lmeval`).
    ignore_case : bool
        lm-eval samples files: compare answers and targets ignoring case.
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
    suffix = p.suffix.lower()
    cmap = ColumnMap.coerce(columns, str(p))
    is_log = suffix == ".eval" or (suffix == ".json" and p.stat().st_size > 0)
    # lm-eval's samples_*.jsonl: recognized by the keys of its first line, never by the file name
    is_lmeval = suffix in (".jsonl", ".ndjson") and is_lmeval_samples(p)
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
        return read_store(p, open_store)
    if is_lmeval:
        return read_lmeval_samples(p, answer_regex=answer_regex, ignore_case=ignore_case)
    if is_log:
        return read_inspect_log(p, scorer=scorer, allow_incomplete=allow_incomplete, score_map=score_map)
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty")
    if suffix not in _TABLES:
        raise DataError(f"{p}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite")
    if suffix in _DELIMITED:
        out, info = read_csv(p, cmap, delimiter)
    elif suffix == ".parquet":
        out, info = read_parquet(p, cmap)
    else:
        out, info = read_jsonl(p, cmap)
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
