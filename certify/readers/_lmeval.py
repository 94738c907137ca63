"""Correctness bits from lm-evaluation-harness sample logs (``samples_<task>_<date>.jsonl``).

lm-eval (``lm_eval --log_samples``, or ``EvaluationTracker.save_results_samples``)
writes one such file per task; certify reads the ones of ``generate_until`` tasks run
with ``repeats: K`` (K >= 2). lm-eval itself is not needed to read them.

**Recognizing the file.** By content, never by name: a ``.jsonl`` file whose first
non-empty line is a JSON object with the keys ``doc_id``, ``doc``, ``target`` and
``resps`` or ``filtered_resps`` (:func:`is_lmeval_samples`); lm-eval writes every
line with these keys.

**Layout** (lm-eval 0.4, ``lm_eval/evaluator.py`` and
``lm_eval/loggers/evaluation_tracker.py``; the tests read files lm-eval 0.4.13 writes).
One line per document and per filter of the task: ``doc_id`` (the example), ``target``
(``str(doc_to_target(doc))``),
``resps`` (the raw responses: one list per request, and within it one response per
repeat, in the order the model produced them), ``filtered_resps`` (after the task's
filter pipeline) and ``filter`` (the pipeline's name). A ``generate_until`` document has
one request, so ``resps == [[r_1, ..., r_K]]``, and call j of the example is ``r_j``.

* The bits come from ``resps``, not ``filtered_resps``: the usual filters (``take_first``,
  ``majority_vote``, ``none``) collapse the K repeats into one answer.
* A task with several filters repeats each document once per filter with the same
  ``resps``; the responses are read once (lines of one document that disagree on
  ``resps`` are an error, and so is a document twice under one filter).
* Examples are ordered by ``doc_id``; their ids are ``str(doc_id)``. The group label is
  the task name from the file name (lm-eval's ``samples_<task>_<date>.jsonl``: what lies
  between the first and the last ``_``), ``""`` for a file named otherwise.
* Refused with one line: a ``multiple_choice`` / ``loglikelihood`` task (its ``resps``
  are log-likelihood pairs, not answers), a run without repeats (one response per
  document: set ``repeats: K`` with K >= 2 in the task's YAML), a target that is empty
  or a list written as text (a task with several targets: lm-eval logs ``str(list)``),
  a line that is not a JSON object with these keys.

**Exact-match rule.** Call j is correct (bit 1) when the answer of ``r_j`` equals the
target after stripping surrounding whitespace from both (Python ``str.strip``); the
comparison is case-sensitive, as lm-eval's ``exact_match`` is by default, unless
``ignore_case=True`` (CLI ``--answer-ignore-case``; both sides ``str.casefold``-ed). Nothing else is normalized
(punctuation, articles, number formats): write the regex or the task's target so that
equal answers are equal strings. The answer of ``r_j`` is

* without ``answer_regex``: the whole response;
* with ``answer_regex`` (CLI ``--answer-regex``): the first match of the regex in the
  response (``re.search``), its first capture group if the regex has one, else the
  whole match. Python ``re`` syntax; flags go inline (``(?i)``, ``(?s)``). The regex
  is applied to responses only, never to the target. For the *last* number of a
  chain-of-thought answer: ``(?s).*(?<![0-9-])(-?[0-9]+)``.

**Responses that do not parse** (no match of ``answer_regex``, or a match whose first
group did not take part) count as **incorrect**: a call that gave no readable answer
is not a correct call, and that is how lm-eval's own ``regex`` filter scores it (its
fallback ``"[invalid]"``). :attr:`ReadInfo.notes` says how many responses did not parse
(``certify analyze`` prints it). A regex that matches no response at all is refused:
it is a wrong regex, not an all-wrong model.

**Not detectable from the file, so not supported:** a ``generate_until`` task with
``doc_to_choice`` logs the *index* of the right choice as its target (lm-eval compares
answers with ``choices[index]``, and the choices are not in the file); its bits would
compare answers with the index. Check the task's YAML before reading such a file.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np

from .._calls import CallBits, DataError, ReadInfo
from ._jsonl import jsonl_objects

__all__ = ["LMEVAL_KEYS", "is_lmeval_samples", "read_lmeval_samples"]

#: Keys every line of an lm-eval samples file has (``resps`` or ``filtered_resps`` too).
LMEVAL_KEYS = ("doc_id", "doc", "target")
READER = "certify's built-in reader"  # lm-eval itself is not needed
# lm-eval's file name (evaluation_tracker.py): samples_{task_name}_{datetime.now().isoformat() with ':' -> '-'}.jsonl
_FILE_NAME = re.compile(r"^samples_(.+)_(\d{4}-\d\d-\d\dT[0-9.\-]+)\.jsonl$")


def _first_record(path: Path):
    """The first non-empty line of a text file, parsed as JSON; None if unreadable."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            for line in fh:  # newline="": lines end at "\n" (or "\r\n"), as json.dumps writes them
                if line.strip():
                    return json.loads(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def is_lmeval_samples(path) -> bool:
    """Whether ``path`` is an lm-eval samples file, judged by its first non-empty line.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    bool
        True when that line is a JSON object with the keys ``doc_id``, ``doc``, ``target``
        and ``resps`` or ``filtered_resps``; False otherwise (also for unreadable files,
        which the table reader then reports).
    """
    rec = _first_record(Path(path))
    return (isinstance(rec, dict) and all(k in rec for k in LMEVAL_KEYS)
            and ("resps" in rec or "filtered_resps" in rec))


def _short(value, limit: int = 60) -> str:
    """repr(value), cut to ``limit`` characters and kept on one line."""
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _responses(resps, where: str) -> list[str]:
    """``[[r_1, ..., r_K]]`` -> ``[r_1, ..., r_K]``; DataError for any other shape."""
    if not isinstance(resps, list) or not resps:
        raise DataError(f"{where}: 'resps' is {_short(resps)}, not a list of requests' responses")
    pairs = all(isinstance(req, list) and req and all(isinstance(r, list) and len(r) == 2 for r in req) for req in resps)
    if pairs:
        raise DataError(f"{where}: 'resps' holds {len(resps)} request(s) of [log-likelihood, is-greedy] pairs: a "
                        f"multiple_choice or loglikelihood task; only generate_until tasks (one text answer per "
                        f"repeat) can be read")
    if len(resps) != 1:
        raise DataError(f"{where}: 'resps' holds {len(resps)} requests; a generate_until task has one per document")
    (req,) = resps
    if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
        raise DataError(f"{where}: 'resps' is {_short(resps)}, not [[response of repeat 1, ..., of repeat K]] "
                        f"(one string per repeat)")
    if not req:
        raise DataError(f"{where}: 'resps' holds no response")
    return req


def _target(value, where: str) -> str:
    if not isinstance(value, str):
        raise DataError(f"{where}: target {_short(value)} is not a string (lm-eval writes str(target))")
    text = value.strip()
    if not text:
        raise DataError(f"{where}: target {value!r} is empty after stripping whitespace; no answer can match it")
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            parsed = None
        if isinstance(parsed, list):
            raise DataError(f"{where}: target {_short(value)} is a list written as text (a task with several "
                            f"targets); lm-eval logs str(list), which one answer cannot be compared with")
    return text


def _show(regex: str) -> str:
    """A regex as the user typed it, in quotes (repr would double every backslash)."""
    return "'" + regex.replace("\n", "\\n") + "'"  # one line even for a regex with a newline


def _compile(answer_regex: str | None):
    if answer_regex is None:
        return None
    if not isinstance(answer_regex, str) or not answer_regex:
        raise DataError(f"answer_regex {_short(answer_regex)} must be a non-empty regular expression")
    try:
        return re.compile(answer_regex)
    except re.error as exc:
        raise DataError(f"answer_regex {_show(answer_regex)} is not a valid Python regular expression ({exc})") from None


def _answer(response: str, regex) -> str | None:
    """The answer in one response (module docstring); None when it does not parse."""
    if regex is None:
        return response
    m = regex.search(response)
    if m is None:
        return None
    return m.group(1) if regex.groups else m.group(0)


def read_lmeval_samples(path, *, answer_regex: str | None = None, ignore_case: bool = False) -> dict[str, CallBits]:
    """Read an lm-eval ``samples_*.jsonl`` file (module docstring) into ``{task: CallBits}``.

    Parameters
    ----------
    path : str or Path
        A samples file lm-eval wrote with ``--log_samples`` for a ``generate_until`` task
        with ``repeats: K`` (K >= 2).
    answer_regex : str, optional
        Extracts the answer from each response: the first match's first capture group,
        else the whole match; a response without a match counts as incorrect.
        ``None``: the whole response is the answer.
    ignore_case : bool
        Compare answer and target case-insensitively (``str.casefold``).

    Returns
    -------
    dict
        One entry, task name (from the file name, ``""`` if it does not follow lm-eval's
        naming) -> CallBits, with bits ordered by ``doc_id`` and calls in repeat order.
        ``read_info.notes`` says how many responses did not parse and how many filters
        the file repeats each document for.

    Raises
    ------
    DataError
        For a file that is not a samples file of a ``generate_until`` task with repeats,
        and for a regex that matches no response (module docstring).
    """
    p = Path(path)
    source = str(p)
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    regex = _compile(answer_regex)

    docs: dict[int, tuple[list[str], str, int]] = {}  # doc_id -> (responses, target, first line)
    seen: dict[tuple[str, int], int] = {}  # (filter, doc_id) -> line
    filters: list[str] = []
    for line_no, rec in jsonl_objects(p, "a JSON object per line (an lm-eval sample)"):
        where = f"{source}: line {line_no}"
        missing = [k for k in (*LMEVAL_KEYS, "resps") if k not in rec]
        if missing:
            raise DataError(f"{where}: no {', '.join(map(repr, missing))} key; lines of lm-eval --log_samples files "
                            f"have doc_id, doc, target, resps, filtered_resps, filter")
        doc_id = rec["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, int):
            raise DataError(f"{where}: doc_id {_short(doc_id)} is not an integer")
        where = f"{where} (doc_id {doc_id})"
        flt = rec.get("filter", "")
        if not isinstance(flt, str):
            raise DataError(f"{where}: filter {_short(flt)} is not a filter name")
        if flt not in filters:
            filters.append(flt)
        if (flt, doc_id) in seen:
            raise DataError(f"{where}: doc_id {doc_id} under filter {flt!r} already on line {seen[flt, doc_id]}; "
                            f"each document appears once per filter (was the file appended to twice?)")
        seen[flt, doc_id] = line_no
        responses = _responses(rec["resps"], where)
        target = _target(rec["target"], where)
        if doc_id in docs:
            before, before_target, first = docs[doc_id]
            if before != responses or before_target != target:
                field = "resps" if before != responses else "target"
                raise DataError(f"{where}: {field!r} differs from line {first} of the same doc_id under another filter; "
                                f"the raw responses of one document are the same under every filter")
            continue
        docs[doc_id] = (responses, target, line_no)
    if not docs:
        raise DataError(f"{p}: the file has no samples")

    ks = {len(r) for r, _, _ in docs.values()}
    if ks == {1}:
        raise DataError(f"{p}: every document has 1 response: the task ran without repeats; certify needs at least 2 "
                        f"calls per example (set repeats: K, K >= 2, in the task's YAML)")

    def norm(text: str) -> str:
        text = text.strip()
        return text.casefold() if ignore_case else text

    ids, rows, unparsed, total = [], [], 0, 0
    example = None
    for doc_id in sorted(docs):
        responses, target, line_no = docs[doc_id]
        gold = norm(target)
        row = []
        for r in responses:
            answer = _answer(r, regex)
            total += 1
            if answer is None:
                unparsed += 1
                example = example if example is not None else r
                row.append(0.0)
            else:
                row.append(1.0 if norm(answer) == gold else 0.0)
        if len(row) < 2:
            raise DataError(f"{source}: line {line_no} (doc_id {doc_id}): {len(row)} response recorded; at least 2 "
                            f"calls per example are needed")
        ids.append(str(doc_id))
        rows.append(row)
    if regex is not None and unparsed == total:
        raise DataError(f"{p}: answer_regex {_show(answer_regex)} matches none of the {total} responses "
                        f"(e.g. {_short(example)}); fix the regex")
    counts = np.array([len(r) for r in rows], dtype=int)
    bits = np.full((len(rows), int(counts.max())), np.nan)  # NaN past an example's last call (ragged rule)
    for i, row in enumerate(rows):
        bits[i, : len(row)] = row

    notes = []
    if regex is not None:
        notes.append(f"{unparsed} of {total} responses did not match the answer regex {_show(answer_regex)} "
                     f"and count as incorrect")
    if len(filters) > 1:
        notes.append(f"the file lists each document under {len(filters)} filters ({', '.join(map(repr, filters))}); "
                     f"the raw responses ('resps') are the same under each and are read once")
    if len(ks) > 1:
        notes.append(f"documents have {min(ks)} to {max(ks)} responses each (ragged repeats)")
    rule = ("exact match after stripping whitespace" + (", ignoring case" if ignore_case else ", case-sensitive"))
    what = ("resps" if regex is None else
            f"{'first group' if regex.groups else 'match'} of {_show(answer_regex)} in resps")
    m = _FILE_NAME.match(p.name)
    group = m.group(1) if m else ""
    info = ReadInfo("lm-eval samples", "doc_id", (), "repeat (position in resps)", f"{what} vs target ({rule})",
                    reader=READER, notes=tuple(notes))
    return {group: CallBits(tuple(ids), bits, counts, source, group, info)}
