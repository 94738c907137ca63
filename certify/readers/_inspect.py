"""Correctness bits from inspect_ai eval logs (``.eval`` and ``.json``).

**Layout.** One sample of the log is one call: the example is the sample ``id``, the
call is its ``epoch`` (calls in epoch order), the bit is the value of one scorer's
score (``scorer=`` / ``--scorer`` when the log has several). Examples are ordered as
in the log's dataset (``eval.dataset.sample_ids``). The group label is ``task/model``.

**Readers.** When inspect_ai is importable the log is read with its own
``inspect_ai.log.read_eval_log``: both formats and every compression inspect writes.
Otherwise a built-in reader: ``.json`` is parsed as JSON; ``.eval`` is a zip archive
of ``header.json`` (``_journal/start.json`` for a run that never finished) and
``samples/<id>_epoch_<e>.json``, whose members may be stored, deflated (stdlib
``zipfile``) or compressed with zstd (zip method 93, what inspect_ai >= 0.3 writes;
decompressed with the ``zstandard`` package). A zstd log with neither inspect_ai nor
zstandard installed is a one-line error naming ``pip install zstandard``. Both readers
give the same bits.

**Status.** A log whose ``status`` is not ``"success"`` (``"started"``,
``"cancelled"``, ``"error"``) is refused with one line naming the status and the log's
error message, and so is a sample without a score for the scorer (a sample error, an
invalidated sample), unless ``allow_incomplete=True`` (``--allow-incomplete``). Then
only the scored samples are used, examples left with fewer than two scored calls are
dropped, and :class:`~certify.readers.ReadInfo` (``skipped``, ``notes``) says how
many samples were skipped, how many planned samples are missing and which examples
were dropped.

**Score values -> bits.**

=============================================================  ===
``"C"``, ``"1"``, ``"1.0"``, ``"true"``, ``1``, ``1.0``, ``True``  1
``"I"``, ``"0"``, ``"0.0"``, ``"false"``, ``0``, ``0.0``, ``False``  0
=============================================================  ===

Strings in any case, surrounding spaces ignored. Every other value is refused with an
error naming the value, the first sample (id, epoch) that has it and how many do:
``"N"`` (no answer), ``"P"`` (partial credit), fractional scores such as ``0.5``, other
strings, and lists or dicts (a scorer with several values; choose another scorer).
``score_map`` (CLI ``--score-map VALUE=BIT``, repeatable) maps more values, e.g.
``{"N": 0, "P": 0}`` or ``{0.5: 1}``: keys are matched like the values (strings
case-insensitively, numbers and numeric strings by value), may override the built-in
values, and must map to 0 or 1. How many samples each mapped value covered is in the notes.
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo
from .._errors import InputError
from ._tables import read_long

__all__ = ["ZIP_ZSTD", "is_inspect_log", "parse_score_map", "read_inspect_log"]

#: Zip compression method of zstd-compressed members (APPNOTE 4.4.5).
ZIP_ZSTD = 93
_BUILTIN = {1.0: 1.0, 0.0: 0.0, "C": 1.0, "I": 0.0, "TRUE": 1.0, "FALSE": 0.0}
_EXCLUDE = {"messages", "events", "store", "attachments"}  # sample fields the bits never need
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zip local file header (zipfile.structFileHeader)


@dataclass
class _Sample:
    id: object
    epoch: object
    scores: dict
    error: str | None
    invalidated: bool


@dataclass
class _Log:
    status: str
    error: str | None
    task: str | None
    model: str | None
    sample_ids: list | None
    epochs: int | None
    samples: list | None
    reader: str


def _one_line(text, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(value) -> str:
    name = type(value).__name__
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), f"{'an' if name[0] in 'aeiou' else 'a'} {name}")


# ---- score values ------------------------------------------------------------------------------


def _score_key(value):
    """The lookup key of a score value: floats for numbers, upper-case text otherwise, None if unmappable."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        try:
            v = float(value)
        except OverflowError:  # an integer beyond any double is no score value
            return None
        return v if math.isfinite(v) else None
    if isinstance(value, str):
        text = value.strip()
        try:
            v = float(text)
        except ValueError:
            return text.upper()
        return v if math.isfinite(v) else text.upper()
    return None


def _map_table(score_map) -> dict:
    if score_map is None:
        return {}
    if not isinstance(score_map, Mapping):
        raise DataError(f"score_map={score_map!r} must be a dict of score value -> 0 or 1")
    out = {}
    for value, bit in score_map.items():
        key = _score_key(value)
        b = _score_key(bit)
        if key is None:
            raise DataError(f"score_map: key {value!r} must be a string or a number")
        if isinstance(bit, str) and b in ("TRUE", "FALSE"):
            b = 1.0 if b == "TRUE" else 0.0
        if b not in (0.0, 1.0):
            raise DataError(f"score_map: {value!r} -> {bit!r}: a score value must map to 0 or 1")
        out[key] = float(b)
    return out


def parse_score_map(items) -> dict | None:
    """``["N=0", "P=1"]`` (CLI ``--score-map``) -> ``{"N": 0, "P": 1}``; None for none."""
    if not items:
        return None
    out = {}
    for item in items:
        value, sep, bit = str(item).rpartition("=")
        if not sep or not value.strip() or bit.strip().lower() not in ("0", "1", "true", "false"):
            raise InputError(f"--score-map {item!r} must be VALUE=BIT with BIT 0 or 1 (e.g. N=0)")
        out[value.strip()] = 1 if bit.strip().lower() in ("1", "true") else 0
    return out


def _why(value, key) -> str:
    if key == "N":
        return "N = no answer"
    if key == "P":
        return "P = partial credit"
    if isinstance(key, float):
        return "a fractional score" if 0 < key < 1 else "a number other than 0 or 1"
    if key is None:
        return f"{_kind(value)} of values, not one score"
    return "not one of C/I, 1/0, true/false"


# ---- the two readers ---------------------------------------------------------------------------


def _inspect_version() -> str:
    try:
        return metadata.version("inspect_ai")
    except Exception:  # metadata missing in an odd install: the reader still works
        return "(unknown version)"


def _with_inspect(path: Path, read_eval_log) -> _Log:
    version = _inspect_version()
    kwargs = {"exclude_fields": set(_EXCLUDE)} if path.suffix.lower() == ".eval" else {}
    try:
        log = read_eval_log(str(path), **kwargs)
    except Exception as exc:  # pydantic, zip, JSON and I/O errors: all mean "not a log inspect can read"
        raise DataError(f"{path}: inspect_ai {version} cannot read the log: {_one_line(f'{type(exc).__name__}: {exc}')}") from None
    ev = log.eval
    samples = None
    if log.samples is not None:
        samples = [
            _Sample(s.id, s.epoch, {k: (None if sc is None else sc.value) for k, sc in (s.scores or {}).items()},
                    None if s.error is None else s.error.message, getattr(s, "invalidation", None) is not None)
            for s in log.samples
        ]
    dataset = getattr(ev, "dataset", None)
    config = getattr(ev, "config", None)
    return _Log(str(log.status), None if log.error is None else log.error.message, ev.task, ev.model,
                list(getattr(dataset, "sample_ids", None) or []) or None, getattr(config, "epochs", None), samples,
                f"inspect_ai {version}")


def _json_log(path: Path) -> dict:
    """The parsed ``.json`` log, checked to be an object with a ``samples`` list."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text, so not an inspect_ai eval log") from None
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    try:
        log = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(log, dict):
        raise DataError(f"{path}: not an inspect_ai eval log: the JSON is {_kind(log)}, not an object with 'eval' and "
                        f"'samples' (tables go in .jsonl, one object per line)")
    if log.get("samples") is None:
        raise DataError(f"{path}: not an inspect_ai eval log (no 'samples' list)")
    if not isinstance(log["samples"], list):
        raise DataError(f"{path}: not an inspect_ai eval log: 'samples' is {_kind(log['samples'])}, not a list")
    return log


def _raw_member(fh, info: zipfile.ZipInfo, path: Path) -> bytes:
    """The compressed bytes of one zip member, located through its local header."""
    fh.seek(info.header_offset)
    head = fh.read(_LOCAL_HEADER.size)
    if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
        raise DataError(f"{path}: member {info.filename!r} of the .eval archive is corrupt (bad local header)")
    fields = _LOCAL_HEADER.unpack(head)
    fh.seek(info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11])
    raw = fh.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise DataError(f"{path}: member {info.filename!r} of the .eval archive is truncated")
    return raw


def _member(zf: zipfile.ZipFile, fh, name: str, path: Path):
    info = zf.getinfo(name)  # the last entry of that name, as every zip reader does
    if info.compress_type == ZIP_ZSTD:
        try:
            import zstandard  # optional: only zstd members need it
        except ImportError:
            raise DataError(
                f"{path}: the log is compressed with zstd (zip method 93); reading it needs the package 'zstandard' "
                f"(or 'inspect_ai'), and neither is installed: pip install zstandard"
            ) from None
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(_raw_member(fh, info, path)), read_across_frames=True)
            data = reader.read()
        except zstandard.ZstdError as exc:
            raise DataError(f"{path}: member {name!r} of the .eval archive is corrupt ({exc})") from None
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise DataError(f"{path}: member {name!r} of the .eval archive is corrupt (size or CRC mismatch)")
    else:
        try:
            data = zf.read(info)
        except NotImplementedError:
            raise DataError(f"{path}: member {name!r} uses zip compression method {info.compress_type}, which the built-in "
                            f"reader cannot read: pip install inspect_ai") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise DataError(f"{path}: member {name!r} of the .eval archive is corrupt ({exc})") from None
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: member {name!r} of the .eval archive is not valid JSON ({getattr(exc, 'msg', exc)})") from None


def _eval_zip(path: Path) -> tuple[dict, list]:
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fh:
        names = list(dict.fromkeys(zf.namelist()))
        if "header.json" in names:
            header = _member(zf, fh, "header.json", path)
        elif "_journal/start.json" in names:  # the run never wrote its header: it did not finish
            header = _member(zf, fh, "_journal/start.json", path)
            if isinstance(header, dict):
                header = {**header, "status": header.get("status", "started")}
        else:
            raise DataError(f"{path}: not an inspect_ai .eval log (neither header.json nor _journal/start.json in the archive)")
        samples = [_member(zf, fh, n, path) for n in names if n.startswith("samples/") and n.endswith(".json")]
    if not isinstance(header, dict):
        raise DataError(f"{path}: header.json of the .eval archive is {_kind(header)}, not an object")
    return header, samples


def _builtin(path: Path, log: dict | None) -> _Log:
    if log is None:
        header, samples = _eval_zip(path)
        reader = "the built-in .eval reader"
    else:
        header, samples = log, log["samples"]
        reader = "the built-in .json reader"
    ev = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    dataset = ev.get("dataset") if isinstance(ev.get("dataset"), dict) else {}
    config = ev.get("config") if isinstance(ev.get("config"), dict) else {}
    error = header.get("error")
    out = []
    for i, s in enumerate(samples, start=1):
        if not isinstance(s, dict):
            raise DataError(f"{path}: sample {i} is {_kind(s)}, not an object")
        scores = s.get("scores") or {}
        if not isinstance(scores, dict):
            raise DataError(f"{path}: sample {i}: 'scores' is {_kind(scores)}, not an object")
        err = s.get("error")
        out.append(_Sample(s.get("id"), s.get("epoch", 1),
                           {k: (v.get("value") if isinstance(v, dict) else v) for k, v in scores.items()},
                           None if err is None else str(err.get("message") if isinstance(err, dict) else err),
                           s.get("invalidation") is not None))
    return _Log(str(header.get("status", "started")), None if error is None else str(error.get("message") if isinstance(error, dict) else error),
                ev.get("task"), ev.get("model"), list(dataset.get("sample_ids") or []) or None, config.get("epochs"), out, reader)


# ---- log -> bits -------------------------------------------------------------------------------


def _natural(sid: str):
    return (0, int(sid), "") if sid.isdigit() else (1, 0, sid)


def _to_bits(log: _Log, source: str, scorer, allow_incomplete: bool, table: dict) -> dict[str, CallBits]:
    finished = log.status == "success"
    status = f"status {log.status!r}" + ("" if log.error is None else f", error: {_one_line(log.error)}")
    if not finished and not allow_incomplete:
        raise DataError(f"{source}: the run did not finish: the log's status is {log.status!r}, not 'success'; pass "
                        f"--allow-incomplete (allow_incomplete=True) to use its scored samples"
                        + ("" if log.error is None else f"; error: {_one_line(log.error)}"))
    samples = log.samples or []
    if not samples:
        raise DataError(f"{source}: the eval log has no samples" + ("" if finished else f" ({status})"))
    for i, s in enumerate(samples, start=1):
        if s.id is None or isinstance(s.id, (dict, list)):
            raise DataError(f"{source}: sample {i}: id {s.id!r} is not a sample id")
        if isinstance(s.epoch, bool) or not isinstance(s.epoch, int):
            raise DataError(f"{source}: sample {i} (id {s.id!r}): epoch {s.epoch!r} is not an integer")
    names = sorted({k for s in samples for k in s.scores}, key=str)
    if scorer is None:
        if not names:
            raise DataError(f"{source}: no sample of the log has a score ({status}); nothing to read")
        if len(names) != 1:
            raise DataError(f"{source}: the log has scorers {names}; choose one with scorer= (--scorer)")
        scorer = names[0]
    elif scorer not in names:
        raise DataError(f"{source}: scorer {scorer!r} not in the log (has {', '.join(map(str, names)) or 'none'})")
    column = f"scores.{scorer}.value"

    def label(i, s):
        return f"sample {i} (id {s.id!r}, epoch {s.epoch!r})"

    used, unscored = [], []
    for i, s in enumerate(samples, start=1):
        value = s.scores.get(scorer)
        (unscored if s.invalidated or value is None else used).append((i, s, value))
    if unscored and not allow_incomplete:
        i, s, _ = unscored[0]
        why = "invalidated" if s.invalidated else (f"sample error: {_one_line(s.error, 100)}" if s.error else "no score")
        raise DataError(f"{source}: {label(i, s)} has no {scorer!r} score ({why}); {len(unscored)} of {len(samples)} samples "
                        f"have none; pass --allow-incomplete (allow_incomplete=True) to use only the scored samples")
    if not used:
        raise DataError(f"{source}: no sample has a {scorer!r} score ({status}); nothing to read")

    records, labels, bad, mapped = [], [], {}, Counter()
    for i, s, value in used:
        key = _score_key(value)
        bit = table.get(key) if key is not None else None
        if bit is None:
            tag = key if key is not None else repr(value)
            first, count = bad.get(tag, ((i, s, value, key), 0))
            bad[tag] = (first, count + 1)
            continue
        if key not in _BUILTIN or _BUILTIN[key] != bit:
            mapped[(key, bit)] += 1
        records.append({"example_id": str(s.id), "call": s.epoch, "correct": bit})
        labels.append(i)
    if bad:
        (i, s, value, key), count = next(iter(bad.values()))
        others = [f"{t!r} ({c})" for t, ((_, _, _, _), c) in list(bad.items())[1:]]
        hint = "choose a scorer with one value per sample" if key is None else (
            f"map it explicitly, e.g. --score-map {value.strip() if isinstance(value, str) else value}=0 "
            f"(score_map={{{(value.strip() if isinstance(value, str) else value)!r}: 0}})")
        raise DataError(f"{source}: {label(i, s)}, column {column!r}: value {value!r} is not binary ({_why(value, key)}); "
                        f"{count} of {len(used)} scored samples have it"
                        + (f", other unmapped values: {', '.join(others)}" if others else "") + f"; {hint}")

    notes = []
    if not finished:
        notes.append(f"the run did not finish ({status}); only its scored samples are used")
    if unscored:
        notes.append(f"skipped {len(unscored)} of {len(samples)} samples without a {scorer!r} score")
    if log.sample_ids and isinstance(log.epochs, int) and len(log.sample_ids) * log.epochs > len(samples):
        planned = len(log.sample_ids) * log.epochs
        notes.append(f"{planned - len(samples)} of {planned} planned samples ({len(log.sample_ids)} x {log.epochs} epochs) "
                     f"are not in the log")
    if allow_incomplete:
        per_id = Counter(r["example_id"] for r in records)
        short = [k for k, c in per_id.items() if c < 2]
        if short:
            keep = [j for j, r in enumerate(records) if per_id[r["example_id"]] >= 2]
            records, labels = [records[j] for j in keep], [labels[j] for j in keep]
            notes.append(f"dropped {len(short)} example(s) with fewer than 2 scored calls ({', '.join(short[:5])}"
                         f"{', ...' if len(short) > 5 else ''})")
            if not records:
                raise DataError(f"{source}: no example has 2 or more scored calls ({status}); nothing to analyse")
    for (key, bit), count in sorted(mapped.items(), key=lambda t: str(t[0][0])):
        notes.append(f"score value {key!r} read as {int(bit)} (score map, {count} sample{'s' if count != 1 else ''})")

    (bits,) = read_long(records, "example_id", "call", "correct", [], source, "sample", labels=labels).values()
    rank = {str(sid): k for k, sid in enumerate(log.sample_ids or [])}
    order = sorted(range(bits.n), key=lambda r: (rank.get(bits.example_ids[r], len(rank)), _natural(bits.example_ids[r])))
    group = "/".join(str(x) for x in (log.task, log.model) if x is not None)
    info = ReadInfo("inspect_ai log", "sample id", (), "epoch", column, reader=log.reader, status=log.status,
                    skipped=len(unscored), notes=tuple(notes))
    return {group: CallBits(tuple(bits.example_ids[r] for r in order), bits.bits[order], bits.counts[order], source, group, info)}


def is_inspect_log(path) -> bool:
    """Whether ``path`` (a ``.eval`` or ``.json`` file) is read as an inspect_ai log.

    Every ``.eval`` file is (one that is no zip archive is then refused as such); a ``.json``
    file is when it is not empty: an empty one is reported as an empty file, not as a
    broken log.
    """
    p = Path(path)
    return p.suffix.lower() == ".eval" or p.stat().st_size > 0


def read_inspect_log(path, *, scorer: str | None = None, allow_incomplete: bool = False, score_map=None,
                     use_inspect: bool | None = None) -> dict[str, CallBits]:
    """Read an inspect_ai log (module docstring) into ``{task/model: CallBits}``.

    Parameters
    ----------
    path : str or Path
        A ``.eval`` or ``.json`` log.
    scorer, allow_incomplete, score_map
        As in :func:`certify.readers.read_groups`.
    use_inspect : bool, optional
        ``None``: inspect_ai's reader when it is importable, else the built-in one;
        ``True``: inspect_ai's (a DataError when it is not installed); ``False``: the built-in one.
    """
    p = Path(path)
    table = {**_BUILTIN, **_map_table(score_map)}
    is_eval = p.suffix.lower() == ".eval"
    if is_eval and not zipfile.is_zipfile(p):
        raise DataError(f"{p}: not an inspect_ai .eval log (not a zip archive)")
    parsed = None if is_eval else _json_log(p)
    read_eval_log = None
    if use_inspect is not False:
        try:
            from inspect_ai.log import read_eval_log  # optional: the built-in reader gives the same bits
        except ImportError:
            if use_inspect:
                raise DataError(f"{p}: use_inspect=True but inspect_ai is not installed: pip install inspect-ai") from None
    log = _with_inspect(p, read_eval_log) if read_eval_log is not None else _builtin(p, parsed)
    return _to_bits(log, str(p), scorer, allow_incomplete, table)
