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
from ._answers import DEFAULT_NORMALIZATION
from ._tables import read_long

__all__ = ["CallTable", "read_call_table", "read_store"]


class CallTable(Protocol):
    """A source of correctness bits, one row per call: how a higher layer hands its bits to the readers.

    ``call_rows()`` returns ``(dataset, policy, example_id, repeat, correct)`` tuples ordered
    by dataset, policy, example and repeat, or the same with a sixth item, the call's parsed
    answer (``None`` for a call without one), when the source records answers (all rows
    alike); :class:`certify.experiment.RunStore` is one, with answers (the readers never
    import the experiment: the experiment, the report or the CLI hands the store over, with
    :func:`read_call_table` or ``read_groups(..., open_store=RunStore)``). The bits decide
    which calls are correct; the answers group the wrong ones (:attr:`CallBits.answers`).
    """

    def call_rows(self) -> Iterable[tuple]: ...


_FIELDS = ("dataset", "policy", "example_id", "repeat", "correct", "answer")


def read_call_table(
    table: CallTable, source: str = "run store", answer_normalize: str = DEFAULT_NORMALIZATION
) -> dict[str, CallBits]:
    """One :class:`CallBits` per ``dataset/policy`` group of a :class:`CallTable` (``source`` names it in messages).

    The notes of the read (ragged call counts: a repeat missing for some example; repeats
    that skip a number) are kept in each ``read_info``.
    """
    rows = list(table.call_rows())
    if not rows:
        raise DataError(f"{source}: the run store has no recorded calls")
    width = len(rows[0])
    if width not in (5, 6) or any(len(r) != width for r in rows):
        raise DataError(
            f"{source}: call rows must all be (dataset, policy, example_id, repeat, correct) or all "
            f"(dataset, policy, example_id, repeat, correct, answer)"
        )
    fields = _FIELDS[:width]
    records = [dict(zip(fields, r)) for r in rows]
    answer = "answer" if width == 6 else None
    out = read_long(
        records,
        "example_id",
        "repeat",
        "correct",
        ["dataset", "policy"],
        source,
        "call",
        answer_col=answer,
        answer_normalize=answer_normalize,
    )
    groups = {}
    for g, b in out.items():
        read = b.read_info
        assert read is not None  # read_long gives every group its read_info
        groups[g] = replace(
            b,
            read_info=ReadInfo(
                "run store",
                "example_id",
                (),
                "repeat",
                "correct",
                ("dataset", "policy"),
                notes=read.notes,
                answers=read.answers,
            ),
        )
    return groups


def read_store(path: Path, open_store, answer_normalize: str = DEFAULT_NORMALIZATION) -> dict[str, CallBits]:
    """The groups of the run store at ``path``, opened with ``open_store(path)`` (a context manager giving a
    CallTable)."""
    if open_store is None:
        raise DataError(
            f"{path}: a run store is read through the experiment that wrote it: pass "
            f"open_store=certify.experiment.RunStore (the CLI and the report do)"
        )
    with open_store(path) as store:
        return read_call_table(store, str(path), answer_normalize)
