"""Blocks of rows: how every table reaches the streaming accumulator of bits.

A table (CSV, TSV, JSONL, Parquet, run store, inspect_ai records, an array) is handed to
:class:`certify.readers._cells.Cells` as consecutive :class:`Block` s of rows; a block
gives, per column, the distinct cell values of the block and one code per row
(:class:`Encoded`), so that the reader of bits converts each distinct value once instead
of every cell. The encoders here build such columns from Python values, from texts (CSV
cells) and from pyarrow arrays (Parquet, and CSV parsed by pyarrow).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

__all__ = ["Block", "Encoded", "encode_arrow", "encode_texts", "encode_values"]


@dataclass(frozen=True)
class Encoded:
    """One column of a block: ``values[codes[r]]`` is the cell of row r.

    Attributes
    ----------
    values : list
        The distinct cell values of the block (texts for CSV; any JSON or Parquet
        value for other tables), each converted once by the reader of bits.
    codes : ndarray of intp
        One index into ``values`` per row of the block.
    texts : bool
        Every value is a ``str`` (CSV cells), so text rules can run over ``values`` at C speed.
    """

    values: list
    codes: np.ndarray
    texts: bool = False


@dataclass(frozen=True)
class Block:
    """Consecutive rows of a table.

    Attributes
    ----------
    rows : ndarray of int64
        The 1-based data-row number of every row of the block (increasing within a
        block only up to padded short rows, which come last; row numbers of one block
        are all larger than those of the blocks before it).
    columns : dict
        Column name -> :class:`Encoded`.
    """

    rows: np.ndarray
    columns: dict


def _hashable(value):
    """A dict key that tells values apart exactly as they are (``1``, ``1.0`` and ``True`` differ; so do the
    JSON numbers ``1.0`` and ``1.00``, read as equal Decimals, whose texts an answer keeps)."""
    if isinstance(value, Decimal):
        return (Decimal, str(value))
    try:
        hash(value)
    except TypeError:
        return ("unhashable", repr(value))
    return (type(value), value)


#: Value types that a dict tells apart exactly as they are (with None): a column of one of
#: them is encoded in C, without a key per value (``1``, ``1.0`` and ``True``, which a dict
#: takes for one key, are never in one such column).
_PLAIN = (
    frozenset({str, type(None)}),
    frozenset({int, type(None)}),
    frozenset({float, type(None)}),
    frozenset({bool, type(None)}),
)


def encode_values(values: list) -> Encoded:
    """:class:`Encoded` of a list of Python values (JSON records, padded CSV rows)."""
    types = set(map(type, values))
    if any(types <= plain for plain in _PLAIN):
        distinct: list = list(dict.fromkeys(values))
        index: dict = dict(zip(distinct, range(len(distinct))))
        codes = np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values))
        return Encoded(distinct, codes, types == {str})
    index = {}
    distinct = []
    codes = np.empty(len(values), dtype=np.intp)
    for r, v in enumerate(values):
        key = _hashable(v)
        c = index.get(key)
        if c is None:
            c = index[key] = len(distinct)
            distinct.append(v)
        codes[r] = c
    return Encoded(distinct, codes)


def encode_texts(values: list[str]) -> Encoded:
    """:class:`Encoded` of a list of strings (CSV cells): one dict lookup per cell."""
    distinct = list(dict.fromkeys(values))
    index = dict(zip(distinct, range(len(distinct))))
    return Encoded(distinct, np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values)), True)


def encode_arrow(array, memory_pool=None) -> Encoded:
    """:class:`Encoded` of a pyarrow array (a null is the value ``None``)."""
    import pyarrow.compute as pc  # optional (the parquet extra): only callers holding pyarrow arrays get here

    try:
        d = pc.dictionary_encode(array, null_encoding="encode", memory_pool=memory_pool)
    except Exception:  # types without a dictionary kernel (lists, structs): one value at a time
        return encode_values(array.to_pylist())
    if hasattr(d, "combine_chunks"):
        d = d.combine_chunks(memory_pool=memory_pool)
    values = d.dictionary.to_pylist()
    texts = (str(d.dictionary.type) in ("string", "large_string")) and d.dictionary.null_count == 0
    indices = d.indices  # int32 without nulls (nulls are encoded as a value)
    if str(indices.type) != "int32":
        return encode_values(array.to_pylist())
    # read the index buffer directly: Array.to_numpy / __array__ import pandas (100 MB of memory)
    codes = np.frombuffer(indices.buffers()[1], dtype=np.int32, count=len(indices), offset=4 * indices.offset)
    return Encoded(values, codes.astype(np.intp), texts)
