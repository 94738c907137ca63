"""The project's run store (``.sqlite``, ``.sqlite3``, ``.db``), read through the :class:`CallTable` protocol.

A run store is written and opened by :mod:`certify.experiment`, which sits above the
readers; the readers never import it. Whoever reads a store hands over a way to open
it (``open_store=``, e.g. :class:`certify.experiment.RunStore`), and the store hands
back its calls as rows of a :class:`CallTable`: one long-form record per call, grouped
by ``dataset/policy`` (``certify/experiment/README.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from .._calls import CallBits, DataError, ReadInfo
from ._tables import read_long

__all__ = ["CallTable", "read_call_table", "read_store"]


class CallTable(Protocol):
    """A source of correctness bits, one row per call: how a higher layer hands its bits to the readers.

    ``call_rows()`` returns ``(dataset, policy, example_id, repeat, correct)`` tuples ordered
    by dataset, policy, example and repeat; :class:`certify.experiment.RunStore` is one
    (the readers never import the experiment: the experiment, the report or the CLI hands
    the store over, with :func:`read_call_table` or ``read_groups(..., open_store=RunStore)``).
    """

    def call_rows(self) -> Iterable[tuple]: ...


def read_call_table(table: CallTable, source: str = "run store") -> dict[str, CallBits]:
    """One :class:`CallBits` per ``dataset/policy`` group of a :class:`CallTable` (``source`` names it in messages)."""
    rows = table.call_rows()
    records = [{"dataset": d, "policy": p, "example_id": x, "repeat": r, "correct": c} for d, p, x, r, c in rows]
    if not records:
        raise DataError(f"{source}: the run store has no recorded calls")
    info = ReadInfo("run store", "example_id", (), "repeat", "correct", ("dataset", "policy"))
    out = read_long(records, "example_id", "repeat", "correct", ["dataset", "policy"], source, "call")
    return {g: replace(b, read_info=info) for g, b in out.items()}


def read_store(path: Path, open_store) -> dict[str, CallBits]:
    """The groups of the run store at ``path``, opened with ``open_store(path)`` (a context manager giving a CallTable)."""
    if open_store is None:
        raise DataError(f"{path}: a run store is read through the experiment that wrote it: pass "
                        f"open_store=certify.experiment.RunStore (the CLI and the report do)")
    with open_store(path) as store:
        return read_call_table(store, str(path))
