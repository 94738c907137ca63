"""Correctness bits and answers from inspect_ai eval logs (``.eval`` and ``.json``).

**Layout.** One sample of the log is one call: the example is the sample ``id``, the
call is its ``epoch`` (calls in epoch order), the bit is the value of one scorer's
score (``scorer=`` / ``--scorer`` when the log has several). Examples are ordered as
in the log's dataset (``eval.dataset.sample_ids``). The group label is ``task/model``.
Epochs are 1, 2, ... up to the log's ``eval.config.epochs``: a log whose ``epochs`` is not
a positive integer, or with a sample of epoch 0, a negative epoch or an epoch beyond
``epochs``, is refused (such a sample was not written by the run the log describes).

**Readers and limits** (:mod:`certify.readers._inspect_files`). When inspect_ai is
importable the log is read with its own ``inspect_ai.log.read_eval_log``: both formats and
every layout inspect writes. Otherwise a built-in reader: ``.json`` is parsed as JSON;
``.eval`` is a zip archive of ``header.json`` (``_journal/start.json`` for a run that
never finished) and ``samples/<id>_epoch_<e>.json``, whose members may be stored, deflated
or compressed with zstd (zip method 93, what inspect_ai >= 0.3 writes; the ``zstandard``
package). Both readers give the same bits and answers. Either way the file is first
loaded within the limits of :mod:`certify.readers._log_limits` (docs/reference/limits.md): the
members of a ``.eval`` are decompressed in blocks and checked against their sizes and
CRCs, and every JSON document is parsed strictly (nesting, size, a key repeated in one
object, NaN, integers beyond Python's digit limit); a log past a limit or damaged is
refused with one line.

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

**Answers** (:attr:`certify.CallBits.answers`). The answer of a call is the scorer's
``Score.answer`` when the scorer set it; else the sample's output completion, through
``answer_regex`` (``--answer-regex``, :mod:`certify.readers._answer_regex`: the first
match's first group, else the whole match; no match is no answer) when one is given, or
whole. The calls then go, with their answer texts, through the accumulator every source's
answers go through (:func:`certify.readers._tables.read_long`): compared after
``answer_normalize`` (``--answer-normalize``, :func:`certify.readers._answers.normalize_answer`),
an empty one is no answer. The score decides correctness: every call scored correct has answer
code 0 whatever its text, and the answers only tell the wrong calls apart. The notes say how
many answers came from the completion, and how many calls scored incorrect gave no answer.
"""

from __future__ import annotations

import math
import zipfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo
from .._errors import InputError
from ._answer_regex import AnswerRegex
from ._answers import DEFAULT_NORMALIZATION, normalize_answer
from ._inspect_files import Log, Sample, kind, load, one_line, read_with_inspect
from ._tables import read_long

__all__ = ["is_inspect_log", "parse_score_map", "read_inspect_log"]

_BUILTIN = {1.0: 1.0, 0.0: 0.0, "C": 1.0, "I": 0.0, "TRUE": 1.0, "FALSE": 0.0}


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
        return f"{kind(value)} of values, not one score"
    return "not one of C/I, 1/0, true/false"


# ---- log -> bits and answers --------------------------------------------------------------------


def _natural(sid: str):
    return (0, int(sid), "") if sid.isdigit() else (1, 0, sid)


def _check_epochs(log: Log, samples: list[Sample], source: str) -> None:
    """The epoch rule of the module docstring."""
    epochs = log.epochs
    if epochs is not None and (isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1):
        raise DataError(f"{source}: eval.config.epochs is {epochs!r}; a log runs a positive whole number of epochs")
    for i, s in enumerate(samples, start=1):
        if s.id is None or isinstance(s.id, (dict, list)):
            raise DataError(f"{source}: sample {i}: id {s.id!r} is not a sample id")
        if isinstance(s.epoch, bool) or not isinstance(s.epoch, int):
            raise DataError(f"{source}: sample {i} (id {s.id!r}): epoch {s.epoch!r} is not an integer")
        if s.epoch < 1 or (epochs is not None and s.epoch > epochs):
            rule = (
                "epochs count from 1"
                if s.epoch < 1
                else f"the log ran {epochs} epoch{'s' if epochs != 1 else ''} (eval.config.epochs)"
            )
            raise DataError(f"{source}: sample {i} (id {s.id!r}): epoch {s.epoch} is outside the log's epochs: {rule}")


def _answer_text(s: Sample, scorer, regex: AnswerRegex | None, where: str) -> tuple[str | None, bool]:
    """The call's answer text (module docstring) and whether it came from the completion."""
    given = s.answers.get(scorer)
    if given is not None:
        return given, False
    return (s.completion if regex is None else regex.answer(s.completion, where)), True


def _to_bits(
    log: Log, source: str, scorer, allow_incomplete: bool, table: dict, regex: AnswerRegex | None, normalize: str
) -> dict[str, CallBits]:
    finished = log.status == "success"
    status = f"status {log.status!r}" + ("" if log.error is None else f", error: {one_line(log.error)}")
    if not finished and not allow_incomplete:
        raise DataError(
            f"{source}: the run did not finish: the log's status is {log.status!r}, not 'success'; pass "
            f"--allow-incomplete (allow_incomplete=True) to use its scored samples"
            + ("" if log.error is None else f"; error: {one_line(log.error)}")
        )
    samples = log.samples or []
    if not samples:
        raise DataError(f"{source}: the eval log has no samples" + ("" if finished else f" ({status})"))
    _check_epochs(log, samples, source)
    names = sorted({k for s in samples for k in s.scores}, key=str)
    if scorer is None:
        if not names:
            raise DataError(f"{source}: no sample of the log has a score ({status}); nothing to read")
        if len(names) != 1:
            raise DataError(f"{source}: the log has scorers {names}; choose one with --scorer (scorer=)")
        scorer = names[0]
    elif scorer not in names:
        raise DataError(f"{source}: scorer {scorer!r} not in the log (has {', '.join(map(str, names)) or 'none'})")
    column = f"scores.{scorer}.value"

    def label(i, s):
        return f"sample {i} (id {s.id!r}, epoch {s.epoch!r})"

    used: list[tuple[int, Sample, object]] = []
    unscored: list[tuple[int, Sample, object]] = []
    for i, s in enumerate(samples, start=1):
        value = s.scores.get(scorer)
        (unscored if s.invalidated or value is None else used).append((i, s, value))
    if unscored and not allow_incomplete:
        i, s, _ = unscored[0]
        why = "invalidated" if s.invalidated else (f"sample error: {one_line(s.error, 100)}" if s.error else "no score")
        raise DataError(
            f"{source}: {label(i, s)} has no {scorer!r} score ({why}); {len(unscored)} of {len(samples)} samples "
            f"have none; pass --allow-incomplete (allow_incomplete=True) to use only the scored samples"
        )
    if not used:
        raise DataError(f"{source}: no sample has a {scorer!r} score ({status}); nothing to read")

    records, labels, completed = [], [], []
    bad: dict[object, tuple[tuple[int, Sample, object, object], int]] = {}
    mapped: Counter[tuple[object, float]] = Counter()
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
        text, from_completion = _answer_text(s, scorer, regex, f"{source}: {label(i, s)}")
        records.append({"example_id": str(s.id), "call": s.epoch, "correct": bit, "answer": text})
        labels.append(i)
        completed.append(from_completion)
    if bad:
        (i, s, value, key), count = next(iter(bad.values()))
        others = [f"{t!r} ({c})" for t, ((_, _, _, _), c) in list(bad.items())[1:]]
        hint = (
            "choose a scorer with one value per sample"
            if key is None
            else (
                f"map it explicitly, e.g. --score-map {value.strip() if isinstance(value, str) else value}=0 "
                f"(score_map={{{(value.strip() if isinstance(value, str) else value)!r}: 0}})"
            )
        )
        raise DataError(
            f"{source}: {label(i, s)}, column {column!r}: value {value!r} is not binary ({_why(value, key)}); "
            f"{count} of {len(used)} scored samples have it"
            + (f", other unmapped values: {', '.join(others)}" if others else "")
            + f"; {hint}"
        )

    notes = []
    if not finished:
        notes.append(f"the run did not finish ({status}); only its scored samples are used")
    if unscored:
        notes.append(f"skipped {len(unscored)} of {len(samples)} samples without a {scorer!r} score")
    if log.sample_ids and isinstance(log.epochs, int) and len(log.sample_ids) * log.epochs > len(samples):
        planned = len(log.sample_ids) * log.epochs
        notes.append(
            f"{planned - len(samples)} of {planned} planned samples ({len(log.sample_ids)} x {log.epochs} epochs) "
            f"are not in the log"
        )
    if allow_incomplete:
        per_id = Counter(r["example_id"] for r in records)
        short = [k for k, c in per_id.items() if c < 2]
        if short:
            keep = [j for j, r in enumerate(records) if per_id[r["example_id"]] >= 2]
            records, labels, completed = (
                [records[j] for j in keep],
                [labels[j] for j in keep],
                [completed[j] for j in keep],
            )
            notes.append(
                f"dropped {len(short)} example(s) with fewer than 2 scored calls ({', '.join(short[:5])}"
                f"{', ...' if len(short) > 5 else ''})"
            )
            if not records:
                raise DataError(f"{source}: no example has 2 or more scored calls ({status}); nothing to analyse")
    for (key, bit), count in sorted(mapped.items(), key=lambda t: str(t[0][0])):
        notes.append(f"score value {key!r} read as {int(bit)} (score map, {count} sample{'s' if count != 1 else ''})")
    # the answers take the path of every source's answers: normalized and coded by the accumulator
    (bits,) = read_long(
        records,
        "example_id",
        "call",
        "correct",
        [],
        source,
        "sample",
        labels=labels,
        answer_col="answer",
        answer_normalize=normalize,
    ).values()
    if any(completed):
        how = (
            f"extracted by the answer regex {regex.shown}"
            if regex is not None
            else "the whole completion (pass --answer-regex to extract it)"
        )
        notes.append(
            f"{sum(completed)} of {len(records)} calls have no Score.answer from the scorer: their answer is the "
            f"output completion, {how}"
        )
    if bits.abstentions:
        notes.append(
            f"{bits.abstentions} of {len(records)} calls gave no answer "
            f"(empty{', or no match of the answer regex' if regex else ''}) "
            f"and are scored incorrect: they cast no vote"
        )
    rank = {str(sid): k for k, sid in enumerate(log.sample_ids or [])}
    order = sorted(
        range(bits.n), key=lambda r: (rank.get(bits.example_ids[r], len(rank)), _natural(bits.example_ids[r]))
    )
    group = "/".join(str(x) for x in (log.task, log.model) if x is not None)
    assert bits.answers is not None  # read_long with an answer column gives the calls' answers
    info = ReadInfo(
        "inspect_ai log",
        "sample id",
        (),
        "epoch",
        column,
        reader=log.reader,
        status=log.status,
        skipped=len(unscored),
        notes=tuple(notes),
    )
    return {
        group: CallBits(
            tuple(bits.example_ids[r] for r in order),
            bits.bits[order],
            bits.counts[order],
            source,
            group,
            info,
            bits.answers[order],
        )
    }


def is_inspect_log(path) -> bool:
    """Whether ``path`` (a ``.eval`` or ``.json`` file) is read as an inspect_ai log.

    Every ``.eval`` file is (one that is no zip archive is then refused as such); a ``.json``
    file is when it is not empty: an empty one is reported as an empty file, not as a
    broken log.
    """
    p = Path(path)
    return p.suffix.lower() == ".eval" or p.stat().st_size > 0


def read_inspect_log(
    path,
    *,
    scorer: str | None = None,
    allow_incomplete: bool = False,
    score_map=None,
    answer_regex: str | None = None,
    answer_normalize: str = DEFAULT_NORMALIZATION,
    use_inspect: bool | None = None,
) -> dict[str, CallBits]:
    """Read an inspect_ai log (module docstring) into ``{task/model: CallBits}`` with answers.

    Parameters
    ----------
    path : str or Path
        A ``.eval`` or ``.json`` log.
    scorer, allow_incomplete, score_map, answer_regex, answer_normalize
        As in :func:`certify.readers.read_groups`.
    use_inspect : bool, optional
        ``None``: inspect_ai's reader when it is importable, else the built-in one;
        ``True``: inspect_ai's (a DataError when it is not installed); ``False``: the built-in one.
    """
    p = Path(path)
    table = {**_BUILTIN, **_map_table(score_map)}
    regex = None if answer_regex is None else AnswerRegex(answer_regex)
    normalize_answer("", answer_normalize)  # an unknown normalization is refused before the file is read
    if p.suffix.lower() == ".eval" and not zipfile.is_zipfile(p):
        raise DataError(f"{p}: not an inspect_ai .eval log (not a zip archive)")
    # within the limits and checked, whichever reader then reads the log; first, as importing
    # inspect_ai takes seconds
    log = load(p)
    if use_inspect is not False:
        try:
            from inspect_ai.log import read_eval_log  # optional: the built-in reader gives the same bits
        except ImportError:
            if use_inspect:
                raise DataError(
                    f"{p}: use_inspect=True but inspect_ai is not installed: pip install inspect-ai"
                ) from None
        else:
            del log  # checked; inspect_ai's reading is the one used
            log = read_with_inspect(p, read_eval_log)
    return _to_bits(log, str(p), scorer, allow_incomplete, table, regex, answer_normalize)
