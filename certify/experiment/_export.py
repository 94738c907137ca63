"""Reading a run store back: progress summaries and correctness-bit exports.

Exports (CSV or Parquet, each written to a temporary file and renamed into place):

* ``long``: one row per recorded call — ``dataset, policy, example_id, position,
  label, repeat, answer, valid, correct, q``.
* ``wide``: one row per (dataset, policy, example) — ``dataset, policy, example_id,
  position, label, q, b0 .. b{K-1}`` where ``b_r`` is the correctness bit of
  repeat ``r`` (empty/null while that call is not recorded).

``q`` is the latent success probability (embedded ``choice`` mode), else empty.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from .._extras import require
from .._files import check_output, output_state, write_file_atomically
from ._errors import InputError
from ._store import RunStore

__all__ = ["StatusRow", "export_bits", "status"]

FORMATS = ("csv", "parquet")
LAYOUTS = ("wide", "long")


@dataclass(frozen=True)
class StatusRow:
    """Progress and quality of one (dataset, policy).

    Attributes
    ----------
    dataset, policy : str
    recorded, expected : int
        Calls in the store, and calls the experiment asks for (N x K).
    invalid : int
        Recorded calls without one of the task's answers.
    accuracy : float or None
        Mean correctness of the recorded calls.
    mean_q : float or None
        Mean latent success probability (choice mode).
    """

    dataset: str
    policy: str
    recorded: int
    expected: int
    invalid: int
    accuracy: float | None
    mean_q: float | None

    def to_dict(self) -> dict:
        """Plain-dict form."""
        return asdict(self)


def _repeats(store: RunStore) -> int:
    config = store.meta("config")
    return json.loads(config)["experiment"]["repeats"] if config else 0


def status(store: RunStore) -> list[StatusRow]:
    """One :class:`StatusRow` per (dataset, policy) the store knows, in name order."""
    repeats = _repeats(store)
    rows = store.query(
        """
        SELECT d.dataset, p.name, d.n,
               (SELECT COUNT(*) FROM calls c WHERE c.dataset = d.dataset AND c.policy = p.name),
               (SELECT COALESCE(SUM(1 - c.valid), 0) FROM calls c WHERE c.dataset = d.dataset AND c.policy = p.name),
               (SELECT AVG(c.correct) FROM calls c WHERE c.dataset = d.dataset AND c.policy = p.name),
               (SELECT AVG(l.q) FROM latent l WHERE l.dataset = d.dataset AND l.policy = p.name)
        FROM draws d CROSS JOIN policies p ORDER BY d.dataset, p.name
        """
    )
    return [StatusRow(ds, pol, rec, n * repeats, inv, acc, q) for ds, pol, n, rec, inv, acc, q in rows]


def _long_rows(store: RunStore) -> tuple[list[str], list[tuple]]:
    cols = ["dataset", "policy", "example_id", "position", "label", "repeat", "answer", "valid", "correct", "q"]
    rows = store.query(
        """
        SELECT c.dataset, c.policy, c.example_id, e.position, e.label, c.repeat, c.answer, c.valid, c.correct, l.q
        FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
        LEFT JOIN latent l ON l.dataset = c.dataset AND l.policy = c.policy AND l.example_id = c.example_id
        ORDER BY c.dataset, c.policy, e.position, c.repeat
        """
    )
    return cols, rows


def _wide_rows(store: RunStore) -> tuple[list[str], list[tuple]]:
    repeats = max(_repeats(store), (store.query("SELECT MAX(repeat) + 1 FROM calls")[0][0] or 0))
    bits = ", ".join(f"MAX(CASE WHEN c.repeat = {r} THEN c.correct END)" for r in range(repeats)) or "NULL"
    rows = store.query(
        f"""
        SELECT c.dataset, c.policy, c.example_id, e.position, e.label, l.q, {bits}
        FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
        LEFT JOIN latent l ON l.dataset = c.dataset AND l.policy = c.policy AND l.example_id = c.example_id
        GROUP BY c.dataset, c.policy, c.example_id ORDER BY c.dataset, c.policy, e.position
        """
    )
    cols = ["dataset", "policy", "example_id", "position", "label", "q"] + [f"b{r}" for r in range(repeats)]
    return cols, rows


def export_bits(
    store: RunStore, out: str | Path, fmt: str = "csv", layout: str = "wide", *, force: bool = False
) -> int:
    """Write the store's correctness bits to ``out``.

    Parameters
    ----------
    store : RunStore
    out : str or Path
        Destination file: a new file, an existing one with ``force`` (replaced atomically), or a
        device or pipe (written through; :mod:`certify._files`).
    fmt : {"csv", "parquet"}
    layout : {"wide", "long"}
    force : bool
        Replace an existing regular file.

    Returns
    -------
    int
        Number of rows written.

    Raises
    ------
    InputError
        ``out`` is a directory, an existing file without ``force``, or its folder does not exist
        (none is created).
    """
    if fmt not in FORMATS:
        raise InputError(f"format {fmt!r}: must be one of {', '.join(FORMATS)}")
    if layout not in LAYOUTS:
        raise InputError(f"layout {layout!r}: must be one of {', '.join(LAYOUTS)}")
    out = check_output(out, option="output", force=force)
    seen = output_state(out, option="output")  # what the write may replace: nothing that appears while rows are read
    cols, rows = (_wide_rows if layout == "wide" else _long_rows)(store)
    if fmt == "csv":

        def write(tmp):
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(cols)
                w.writerows(rows)
    else:
        pa = require("pyarrow", "writing Parquet")
        pq = require("pyarrow.parquet", "writing Parquet")

        types = {
            "position": pa.int64(),
            "repeat": pa.int64(),
            "q": pa.float64(),
            "valid": pa.int8(),
            "correct": pa.int8(),
        }
        schema = pa.schema(
            [(c, types.get(c, pa.int8() if c[0] == "b" and c[1:].isdigit() else pa.string())) for c in cols]
        )
        table = pa.Table.from_pylist([dict(zip(cols, r)) for r in rows], schema=schema)

        def write(tmp):
            pq.write_table(table, tmp)

    write_file_atomically(out, write, expect=seen)
    return len(rows)
