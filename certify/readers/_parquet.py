"""Parquet tables (``.parquet``, with the ``parquet`` extra): wide or long form, read in batches.

The schema's column names get their roles by :mod:`certify.readers._columns`; only the
role columns are read, ``1 << 16`` rows at a time, each batch encoded by pyarrow
(:func:`~certify.readers._blocks.encode_arrow`). A file pyarrow cannot read is a
one-line :class:`DataError`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._calls import CallBits, DataError, ReadInfo
from .._extras import require
from ._answers import DEFAULT_NORMALIZATION
from ._blocks import Block, encode_arrow
from ._columns import ColumnMap
from ._tables import read_table

__all__ = ["read_parquet"]

#: Rows per batch read from the file.
BATCH_ROWS = 1 << 16


def read_parquet(
    path: Path, cmap: ColumnMap, answer_normalize: str = DEFAULT_NORMALIZATION
) -> tuple[dict[str, CallBits], ReadInfo]:
    """A Parquet table's CallBits per group, and how its columns were read."""
    pq = require("pyarrow.parquet", f"reading the Parquet file {str(path)!r}")
    try:
        pf = pq.ParquetFile(path)
        columns = list(pf.schema_arrow.names)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    if pf.metadata.num_rows == 0:
        raise DataError(f"{path}: the file has no data rows")

    def blocks(names):
        start = 1
        try:
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=names):
                rows = np.arange(start, start + batch.num_rows, dtype=np.int64)
                start += batch.num_rows
                yield Block(rows, {n: encode_arrow(batch.column(i)) for i, n in enumerate(names)})
        except Exception as exc:  # a corrupt page or column chunk, found while reading
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None

    return read_table(columns, cmap, str(path), "row", blocks, answer_normalize=answer_normalize)
