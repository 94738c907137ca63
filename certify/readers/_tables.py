"""From a header and blocks of rows to CallBits per group: the steps every table shares.

A table with named columns (CSV, TSV, JSON lines, Parquet) is read by :func:`read_table`:
its columns get their roles (:func:`~certify.readers._columns.resolve_columns`), the blocks
of the role columns stream into one :class:`~certify.readers._cells.Cells`, and the notes
of the result join the :class:`ReadInfo`. Records already in memory take the same path:
:func:`read_long` for the one-record-per-call lists of inspect_ai logs and run stores,
:func:`bits_from_array` for an (examples x calls) array.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from .._calls import CallBits, DataError, ReadInfo
from ._answers import DEFAULT_NORMALIZATION
from ._blocks import Block, Encoded, encode_texts, encode_values
from ._cells import Cells
from ._columns import ColumnMap, resolve_columns, role_columns, role_context

__all__ = ["bits_from_array", "read_long", "read_table", "records_block"]


def read_table(
    columns: Iterable[str],
    cmap: ColumnMap,
    source: str,
    row_label: str,
    blocks: Callable[[list[str]], Iterable[Block]],
    skip_blank: bool = False,
    answer_normalize: str = DEFAULT_NORMALIZATION,
) -> tuple[dict[str, CallBits], ReadInfo]:
    """A table's CallBits per group and how its columns were read.

    Parameters
    ----------
    columns : iterable of str
        The table's column names (the header).
    cmap : ColumnMap
        Explicit column roles.
    source : str
        File name for messages.
    row_label : str
        What a row is called in messages (``"row"``, ``"line"``).
    blocks : callable
        ``blocks(names)`` yields the table's rows in :class:`Block` s of the named columns.
    skip_blank : bool
        Drop rows whose read cells are all empty (text tables: a blank line is no record).
    answer_normalize : str
        How answers are compared with targets and each other (:mod:`certify.readers._answers`).
    """
    info = resolve_columns(list(columns), cmap, source)
    cells = Cells(source, row_label, info, lambda column: role_context(info, column), normalize=answer_normalize)
    for block in blocks(role_columns(info)):
        cells.add(block, skip_blank=skip_blank)
    out, notes = cells.finish()
    return out, replace(info, notes=(*info.notes, *notes))


def records_block(records: list[dict], columns, rows=None) -> Block:
    """A Block of JSON-like records (``rows``: their row numbers, default 1, 2, ...); a missing key is an empty cell."""
    rows = np.arange(1, len(records) + 1, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    columns = list(columns)
    picked: list[Sequence] | None
    try:  # every record has every column (the usual table): the cells are picked out in C
        picked = list(zip(*map(operator.itemgetter(*columns), records))) if len(columns) > 1 else None
    except KeyError:
        picked = None
    if picked is None:
        picked = [[rec.get(c) for rec in records] for c in columns]
    return Block(rows, {c: encode_values(list(cells)) for c, cells in zip(columns, picked)})


def read_long(
    records: list[dict],
    id_col: str,
    call_col: str,
    bit_col: str,
    gcols,
    source: str,
    row_label: str,
    labels=None,
    answer_col: str | None = None,
    answer_normalize: str = DEFAULT_NORMALIZATION,
) -> dict[str, CallBits]:
    """Long records (one per call) -> CallBits per group; ``labels[i]`` names record i in messages.

    The bits decide which calls are correct; ``answer_col``, if given, names each record's
    answer (``None``: no answer), which groups the wrong calls (:attr:`CallBits.answers`).
    Each CallBits' ``read_info`` is a long-form :class:`ReadInfo` whose ``notes`` say what the
    reader noticed (ragged call counts, call indices that skip a number): a caller that
    describes its source otherwise keeps these notes.
    """
    info = ReadInfo(
        "long", id_col, (), call_col, bit_col, tuple(gcols), answers=(answer_col,) if answer_col is not None else ()
    )
    cells = Cells(source, row_label, info, labels=labels, normalize=answer_normalize)
    cells.add(records_block(records, role_columns(info)))
    out, notes = cells.finish()
    info = replace(info, notes=tuple(notes))
    return {g: replace(b, read_info=info) for g, b in out.items()}


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
    names = tuple(f"call {j}" for j in range(a.shape[1]))
    columns = {"id": encode_texts(ids)}
    for name, col in zip(names, a.T):
        values, codes = np.unique(col, return_inverse=True)  # NaNs are one value
        columns[name] = Encoded(values.tolist(), codes.reshape(-1))
    cells = Cells(source, "row", ReadInfo("wide", "id", names))
    cells.add(Block(np.arange(1, a.shape[0] + 1, dtype=np.int64), columns))
    out, _ = cells.finish()
    return replace(next(iter(out.values())), group=group, read_info=None)
