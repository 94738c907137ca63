"""Reading per-example, per-call correctness bits B_ij (paper eq. (hierarchy-main)).

Accepted inputs (format chosen by the file name):

* ``.csv`` / ``.tsv`` / ``.txt`` (comma or tab), ``.jsonl`` / ``.ndjson``, ``.parquet``
  in **wide** form (one row per example, one column per call) or **long** form
  (one row per call: example id, call index, correct). Long form is recognised by
  an id column (``example_id``, ``example``, ``id``, ``sample_id``), a call column
  (``call``, ``repeat``, ``epoch``, ``call_index``) and a bit column (``correct``,
  ``bit``, ``score``, ``value``). In wide form the call columns are those named
  ``b0, b1, ...`` (also ``call1``, ``repeat_2``, ``epoch3`` ...), ordered by their number;
  failing that, every column that is not metadata (id, ``dataset``, ``policy``,
  ``model``, ``task``, ``position``, ``label``, ``q``) is a call column, in file order.
* inspect_ai eval logs: ``.eval`` (a zip of ``header.json`` and
  ``samples/<id>_epoch_<e>.json``) and ``.json`` (one object with ``eval`` and
  ``samples``). Each sample is one call: example = sample ``id``, call = ``epoch``.
  Score values map to bits as ``"C"``/``True``/``1`` -> 1 and ``"I"``/``False``/``0``
  -> 0, and ``"N"`` (no answer) -> 0, matching the run store's rule that an invalid
  output is incorrect; ``"P"`` (partial) and any other value are errors. With
  several scorers pick one with ``scorer=``.
* the project's run store (``.sqlite`` / ``.db``, see ``certify/experiment/README.md``).

Bits are 0/1, ``true``/``false``, ``0.0``/``1.0`` or inspect's ``C``/``I`` (any case).

**Groups.** Columns ``dataset``/``policy`` (run-store exports), ``task``/``model``
(eval logs) split a file into independent analyses named ``dataset/policy``.

**Ragged call counts.** Each example keeps all its recorded calls in call-index
order (K_i of them). The paper's two-call estimator uses each example's first two
calls; the U-statistics use all K_i calls of each example (each example's
estimate is unbiased on its own); quantities needing k calls (moment m_k, a
k-vote empirical accuracy) are reported only when *every* example has at least
k calls, so no example is dropped and no selection on call counts can bias them.
In wide form an empty cell is "not recorded" only after the row's last recorded
call; an empty cell before a recorded call is a missing value (error).

**Errors** (:class:`DataError`, an :class:`~certify.InputError`) name the row
(1-based data row, header excluded; JSONL: line) and the column: non-binary and
missing values, examples with fewer than two calls, empty files, duplicated
(example, call) keys.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._errors import InputError
from .._extras import require

__all__ = ["CallBits", "DataError", "read_bits", "read_groups", "bits_from_array"]

ID_COLUMNS = ("example_id", "example", "id", "sample_id")
CALL_COLUMNS = ("call", "repeat", "epoch", "call_index")
BIT_COLUMNS = ("correct", "bit", "score", "value")
GROUP_COLUMNS = ("dataset", "policy", "task", "model")
META_COLUMNS = set(ID_COLUMNS) | set(GROUP_COLUMNS) | {"position", "label", "q"}
_WIDE_CALL = re.compile(r"^(?:b|call|repeat|epoch|c)_?(\d+)$", re.IGNORECASE)
_TRUE = {"1", "1.0", "true", "c"}
_FALSE = {"0", "0.0", "false", "i"}


class DataError(InputError):
    """A data file is unusable; the message names the file, row and column."""


@dataclass(frozen=True, eq=False)
class CallBits:
    """Correctness bits of one analysis (one policy on one data set).

    Attributes
    ----------
    example_ids : tuple of str
        One id per example (row).
    bits : ndarray, shape (n, K_max)
        B_ij as floats 0/1; entries past an example's K_i calls are NaN.
    counts : ndarray of int, shape (n,)
        K_i, recorded calls per example (all >= 2).
    source : str
        Where the bits came from.
    group : str
        ``dataset/policy`` (or task/model) label, ``""`` for a single-group file.
    """

    example_ids: tuple[str, ...]
    bits: np.ndarray
    counts: np.ndarray
    source: str = ""
    group: str = ""

    @property
    def n(self) -> int:
        return len(self.example_ids)

    @property
    def calls(self) -> int:
        """K = min_i K_i: the number of calls every example has (ragged rule)."""
        return int(self.counts.min())

    @property
    def max_calls(self) -> int:
        return int(self.counts.max())

    @property
    def successes(self) -> np.ndarray:
        """S_i, correct calls per example."""
        return np.nansum(self.bits, axis=1)

    def first(self, k: int) -> np.ndarray:
        """The first k calls of every example, an (n, k) 0/1 array (needs k <= K)."""
        if k > self.calls:
            raise InputError(f"{k} calls requested but some example has only {self.calls}")
        return self.bits[:, :k]


def _where(source: str, row, column) -> str:
    return f"{source}: row {row}, column {column!r}"


def _bit(value, source: str, row, column):
    """0.0 / 1.0 for a binary cell, None for an empty one; DataError otherwise."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, np.generic):
        value = value.item()  # report 0.5, not np.float64(0.5)
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v):
            return None
        if v in (0.0, 1.0):
            return v
        raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)")
    text = str(value).strip()
    if text == "" or text.lower() in ("na", "nan", "null", "none"):
        return None
    low = text.lower()
    if low in _TRUE:
        return 1.0
    if low in _FALSE:
        return 0.0
    raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)")


def _finish(source: str, group: str, ids: list[str], rows: list[list[float]], where: list) -> CallBits:
    """Validate call counts (>= 2) and pack ragged rows into a NaN-padded array."""
    for key, r, w in zip(ids, rows, where):
        if len(r) < 2:
            raise DataError(f"{source}: {w}, example {key!r}: {len(r)} call(s) recorded; at least 2 are needed")
    kmax = max(len(r) for r in rows)
    bits = np.full((len(rows), kmax), np.nan)
    for i, r in enumerate(rows):
        bits[i, : len(r)] = r
    counts = np.array([len(r) for r in rows], dtype=int)
    return CallBits(tuple(ids), bits, counts, source, group)


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
    rows = [_wide_row([a[i, j] for j in range(a.shape[1])], [f"call {j}" for j in range(a.shape[1])], source, i + 1)
            for i in range(a.shape[0])]
    _no_duplicates(ids, [f"row {i + 1}" for i in range(len(ids))], source)
    return _finish(source, group, ids, rows, [f"row {i + 1}" for i in range(len(ids))])


def _wide_row(cells, names, source, row) -> list[float]:
    vals = [_bit(c, source, row, n) for c, n in zip(cells, names)]
    last = max((j for j, v in enumerate(vals) if v is not None), default=-1)
    for j in range(last):
        if vals[j] is None:
            raise DataError(f"{_where(source, row, names[j])}: missing value before the recorded call in column {names[last]!r}")
    return [v for v in vals[: last + 1]]


def _no_duplicates(keys, where, source) -> None:
    seen: dict = {}
    for k, w in zip(keys, where):
        if k in seen:
            raise DataError(f"{source}: {w} duplicates {seen[k]}: key {k!r} appears twice")
        seen[k] = w


def _pick(columns, names) -> str | None:
    low = {c.lower(): c for c in columns}
    return next((low[n] for n in names if n in low), None)


def _group_of(record: dict, gcols: list[str]) -> str:
    return "/".join(str(record[c]) for c in gcols)


def _from_records(records: list[dict], columns: list[str], source: str, row_label: str) -> dict[str, CallBits]:
    """Wide or long records -> CallBits per group."""
    if not records:
        raise DataError(f"{source}: the file has no data rows")
    id_col, call_col, bit_col = _pick(columns, ID_COLUMNS), _pick(columns, CALL_COLUMNS), _pick(columns, BIT_COLUMNS)
    gcols = [c for c in columns if c.lower() in ("dataset", "policy")] or [c for c in columns if c.lower() in ("task", "model")]
    if id_col and call_col and bit_col:
        return _long(records, id_col, call_col, bit_col, gcols, source, row_label)
    numbered = sorted(((int(m.group(1)), c) for c in columns if (m := _WIDE_CALL.match(c))), key=lambda t: t[0])
    calls = [c for _, c in numbered] or [c for c in columns if c.lower() not in META_COLUMNS]
    if len(calls) < 2:
        raise DataError(
            f"{source}: found {len(calls)} call column(s) ({', '.join(calls) or 'none'}); wide form needs at least 2 "
            f"(b0, b1, ...), long form needs columns {ID_COLUMNS[0]}, {CALL_COLUMNS[0]}, {BIT_COLUMNS[0]}"
        )
    groups: dict[str, tuple[list, list, list]] = {}
    for i, rec in enumerate(records, start=1):
        g = _group_of(rec, gcols)
        ids, rows, where = groups.setdefault(g, ([], [], []))
        ids.append(str(rec[id_col]) if id_col else str(i))
        rows.append(_wide_row([rec.get(c) for c in calls], calls, source, i))
        where.append(f"{row_label} {i}")
    out = {}
    for g, (ids, rows, where) in groups.items():
        _no_duplicates(ids, where, source)
        out[g] = _finish(source, g, ids, rows, where)
    return out


def _long(records, id_col, call_col, bit_col, gcols, source, row_label) -> dict[str, CallBits]:
    table: dict[str, dict[str, dict]] = {}
    for i, rec in enumerate(records, start=1):
        key = rec.get(id_col)
        if key is None or str(key).strip() == "" or (isinstance(key, float) and math.isnan(key)):
            raise DataError(f"{_where(source, i, id_col)}: missing example id")
        call = rec.get(call_col)
        try:
            c = float(call)
            if not c.is_integer():
                raise ValueError
            c = int(c)
        except (TypeError, ValueError):
            raise DataError(f"{_where(source, i, call_col)}: call index {call!r} is not an integer") from None
        b = _bit(rec.get(bit_col), source, i, bit_col)
        if b is None:
            raise DataError(f"{_where(source, i, bit_col)}: missing value")
        calls = table.setdefault(_group_of(rec, gcols), {}).setdefault(str(key), {})
        if c in calls:
            raise DataError(
                f"{source}: {row_label} {i} duplicates {row_label} {calls[c][1]}: (example, call) = ({str(key)!r}, {c}) appears twice"
            )
        calls[c] = (b, i)
    out = {}
    for g, examples in table.items():
        ids = list(examples)
        rows = [[examples[k][c][0] for c in sorted(examples[k])] for k in ids]
        where = [f"{row_label} {min(v[1] for v in examples[k].values())}" for k in ids]
        out[g] = _finish(source, g, ids, rows, where)
    return out


def _read_table(path: Path) -> tuple[list[dict], list[str], str]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        records, columns = [], []
        with open(path, encoding="utf-8") as fh:
            for line_no, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}: line {line_no}: not valid JSON ({exc.msg})") from None
                if not isinstance(rec, dict):
                    raise DataError(f"{path}: line {line_no}: expected a JSON object per line")
                records.append(rec)
                columns.extend(k for k in rec if k not in columns)
        return records, columns, "line"
    if suffix == ".parquet":
        pq = require("pyarrow.parquet", f"reading the Parquet file {str(path)!r}")
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
        return table.to_pylist(), list(table.column_names), "row"
    import csv

    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    delim = "\t" if suffix == ".tsv" or ("\t" in text.splitlines()[0] and "," not in text.splitlines()[0]) else ","
    reader = csv.reader(text.splitlines(), delimiter=delim)
    header = [h.strip() for h in next(reader)]
    records = []
    for i, row in enumerate(reader, start=1):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise DataError(f"{path}: row {i}: {len(row)} fields but the header has {len(header)}")
        records.append(dict(zip(header, row + [""] * (len(header) - len(row)))))
    return records, header, "row"


def _score_bit(value, source, where, scorer):
    if isinstance(value, str) and value.strip().upper() == "N":
        return 0.0  # no answer: scored incorrect, as the run store scores an invalid output
    b = _bit(value, source, where, f"scores.{scorer}.value")
    if b is None:
        raise DataError(f"{source}: {where}, column 'scores.{scorer}.value': missing score")
    return b


def _eval_samples(path: Path) -> tuple[list[dict], dict]:
    suffix = path.suffix.lower()
    if suffix == ".eval":
        try:
            with zipfile.ZipFile(path) as zf:
                names = zf.namelist()
                header = json.loads(zf.read("header.json")) if "header.json" in names else {}
                samples = [json.loads(zf.read(n)) for n in sorted(names) if n.startswith("samples/") and n.endswith(".json")]
        except zipfile.BadZipFile:
            raise DataError(f"{path}: not an inspect_ai .eval log (not a zip archive)") from None
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: a member of the .eval archive is not valid JSON ({exc.msg})") from None
        return samples, header
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    try:
        log = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc.msg})") from None
    if not isinstance(log, dict) or "samples" not in log:
        raise DataError(f"{path}: not an inspect_ai eval log (no 'samples' list)")
    return log.get("samples") or [], log


def _read_eval(path: Path, scorer: str | None) -> dict[str, CallBits]:
    samples, header = _eval_samples(path)
    source = str(path)
    if not samples:
        raise DataError(f"{source}: the eval log has no samples")
    names = sorted({k for s in samples for k in (s.get("scores") or {})})
    if scorer is None:
        if len(names) != 1:
            raise DataError(f"{source}: the log has scorers {names or 'none'}; choose one with scorer=")
        scorer = names[0]
    elif scorer not in names:
        raise DataError(f"{source}: scorer {scorer!r} not in the log (has {', '.join(names)})")
    ev = header.get("eval", {}) if isinstance(header, dict) else {}
    group = "/".join(str(ev[k]) for k in ("task", "model") if k in ev)
    records = []
    for i, s in enumerate(samples, start=1):
        where = f"sample {i} (id {s.get('id')!r}, epoch {s.get('epoch')!r})"
        score = (s.get("scores") or {}).get(scorer)
        if score is None:
            raise DataError(f"{source}: {where}, column 'scores.{scorer}': missing score")
        value = score.get("value") if isinstance(score, dict) else score
        records.append({"example_id": s.get("id"), "call": s.get("epoch", 1), "correct": _score_bit(value, source, where, scorer)})
    (bits,) = _long(records, "example_id", "call", "correct", [], source, "sample").values()
    return {group: CallBits(bits.example_ids, bits.bits, bits.counts, source, group)}


def _read_store(path: Path) -> dict[str, CallBits]:
    from ..experiment import RunStore  # lazy: the math core never needs the experiment package

    with RunStore(path) as store:
        rows = store.query(
            """SELECT c.dataset, c.policy, c.example_id, c.repeat, c.correct
               FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
               ORDER BY c.dataset, c.policy, e.position, c.repeat"""
        )
    records = [{"dataset": d, "policy": p, "example_id": x, "repeat": r, "correct": c} for d, p, x, r, c in rows]
    if not records:
        raise DataError(f"{path}: the run store has no recorded calls")
    return _long(records, "example_id", "repeat", "correct", ["dataset", "policy"], str(path), "call")


def read_groups(path, *, scorer: str | None = None) -> dict[str, CallBits]:
    """Read correctness bits, one :class:`CallBits` per group (see the module docstring).

    Parameters
    ----------
    path : str or Path
    scorer : str, optional
        inspect_ai logs with several scorers: which one gives the bits.

    Returns
    -------
    dict
        group label -> CallBits; the label is ``""`` when the file has no group columns.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    suffix = p.suffix.lower()
    if suffix in (".sqlite", ".sqlite3", ".db"):
        return _read_store(p)
    if suffix == ".eval" or (suffix == ".json" and p.stat().st_size > 0):
        return _read_eval(p, scorer)
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty")
    if suffix not in (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".parquet"):
        raise DataError(f"{p}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite")
    records, columns, label = _read_table(p)
    return _from_records(records, columns, str(p), label)


def read_bits(path, *, group: str | None = None, scorer: str | None = None) -> CallBits:
    """Read one analysis' correctness bits; ``group`` selects among several (``dataset/policy``)."""
    groups = read_groups(path, scorer=scorer)
    if group is None:
        if len(groups) > 1:
            raise DataError(f"{path}: {len(groups)} groups ({', '.join(groups)}); choose one with group=")
        return next(iter(groups.values()))
    if group not in groups:
        raise DataError(f"{path}: group {group!r} not found (has {', '.join(groups) or 'none'})")
    return groups[group]
