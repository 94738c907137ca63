"""pandas DataFrames (``certify.analyze(df)``, ``read_groups(df)``): a table in memory, read as a table file is.

A DataFrame's columns (names as text) get their roles by :mod:`certify.readers._columns`,
in wide or long form, with answers and a target like any table; a named index (``df.set_index("example_id")``)
is read as columns first, an unnamed one is dropped. Rows are numbered by position
(1-based) in messages. Missing values (``NaN``, ``None``, ``pd.NA``) are empty cells. The
role columns stream into the accumulator of :mod:`certify.readers._cells` in blocks of
:data:`BLOCK_ROWS` rows, each distinct value converted once.

pandas is optional: nothing here imports it to ask whether an object is a DataFrame
(:func:`is_dataframe` looks for an already imported pandas: an object can only be a
DataFrame once pandas is imported).
"""

from __future__ import annotations

import sys

import numpy as np

from .._calls import CallBits, DataError, ReadInfo
from ._blocks import Block, encode_values
from ._columns import ColumnMap
from ._tables import read_table

__all__ = ["BLOCK_ROWS", "is_dataframe", "read_frame"]

#: Rows per block handed to the accumulator.
BLOCK_ROWS = 1 << 16

SOURCE = "DataFrame"


def is_dataframe(obj) -> bool:
    """Whether ``obj`` is a pandas DataFrame, without importing pandas (see the module docstring)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def read_frame(frame, cmap: ColumnMap, answer_normalize: str) -> tuple[dict[str, CallBits], ReadInfo]:
    """A DataFrame's CallBits per group, and how its columns were read."""
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    columns = [str(c).strip() for c in frame.columns]
    seen = set()
    for c in columns:
        if c in seen:
            raise DataError(f"{SOURCE}: column {c!r} appears twice")
        seen.add(c)
    if len(frame) == 0:
        raise DataError(f"{SOURCE}: no data rows")

    def blocks(names):
        at = [columns.index(n) for n in names]
        for start in range(0, len(frame), BLOCK_ROWS):
            part = frame.iloc[start : start + BLOCK_ROWS, at]
            out = {}
            for j, name in enumerate(names):
                col = part.iloc[:, j]
                # missing values of every dtype (NaN, None, pd.NA, NaT) as None, the empty cell
                out[name] = encode_values(col.astype(object).where(col.notna(), None).tolist())
            yield Block(np.arange(start + 1, start + len(part) + 1, dtype=np.int64), out)

    return read_table(columns, cmap, SOURCE, "row", blocks, answer_normalize=answer_normalize)
