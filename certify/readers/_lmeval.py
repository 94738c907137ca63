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
  ``resps``; the responses are read once. A samples file holds one task: lines of one
  document that disagree on ``resps``, ``target``, ``doc`` (``doc_hash``) or ``prompt_hash``,
  a document twice under one filter, filters that do not list the same documents, and
  documents whose fields differ (two data sets) are refused: such a file joins the files of
  several tasks or runs, and reading it as one would mix them.
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
* with ``answer_regex`` (CLI ``--answer-regex``; :mod:`certify.readers._answer_regex`: the
  regex syntax, the engine and its time and length limits): the first match of the regex in
  the response, its first capture group if the regex has one, else the whole match. The
  regex is applied to responses only, never to the target. For the *last* number of a
  chain-of-thought answer: ``(?r)(?<![0-9-])(-?[0-9]+)`` (or ``(?s).*(?<![0-9-])(-?[0-9]+)``).

**Responses that do not parse** (no match of ``answer_regex``, or a match whose first
group did not take part) give no answer and count as **incorrect**: a call that gave no
readable answer is not a correct call, and that is how lm-eval's own ``regex`` filter
scores it (its fallback ``"[invalid]"``). :attr:`ReadInfo.notes` says how many responses did
not parse (``certify analyze`` prints it). A regex that matches no response at all is
refused: it is a wrong regex, not an all-wrong model.

**Answers** (:attr:`certify.CallBits.answers`): the answer of call j is the text the rule
above compares with the target (the response, or what the regex extracts), stripped and, with
``ignore_case``, casefolded, then normalized by ``answer_normalize`` (``--answer-normalize``,
:func:`certify.readers._answers.normalize_answer`) in the accumulator every source's answers go
through (:func:`certify.readers._tables.read_long`): answers the rule cannot tell apart are one
answer. Calls whose answer equals the target have code 0. lm-eval's own ``filtered_resps``
are not read: the usual filters (``take_first``, ``majority_vote``) keep one response per
document, not one per repeat, and a per-repeat filter such as ``regex`` is what
``answer_regex`` does.

**Checks against the file's own scores.** Each line carries lm-eval's score of the
document under its filter (its metric, ``exact_match`` for a generate_until task). A note
says when no call is read as correct at all, and when some document the file scores above 0
has no call read as correct (the file's mean metric and the accuracy read here are both
named): the answers are then extracted differently from the task's filter (a
chain-of-thought response, a case-insensitive metric), and ``--answer-regex`` /
``--answer-ignore-case`` read them as the task does.

**Not detectable from the file, so not supported:** a ``generate_until`` task with
``doc_to_choice`` logs the *index* of the right choice as its target (lm-eval compares
answers with ``choices[index]``, and the choices are not in the file); its bits would
compare answers with the index. Check the task's YAML before reading such a file.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from pathlib import Path

from .._calls import CallBits, DataError, ReadInfo
from .._json_limits import NotJson, parse_json
from ._answer_regex import AnswerRegex
from ._answers import DEFAULT_NORMALIZATION, normalize_answer
from ._jsonl import jsonl_objects
from ._log_limits import MAX_LOG_DOCUMENT_BYTES, MAX_LOG_JSON_DEPTH
from ._tables import read_long

__all__ = ["LMEVAL_KEYS", "is_lmeval_samples", "read_lmeval_samples"]

#: Keys every line of an lm-eval samples file has (``resps`` or ``filtered_resps`` too).
LMEVAL_KEYS = ("doc_id", "doc", "target")
READER = "certify's built-in reader"  # lm-eval itself is not needed
# lm-eval's file name (evaluation_tracker.py): samples_{task_name}_{datetime.now().isoformat() with ':' -> '-'}.jsonl
_FILE_NAME = re.compile(r"^samples_(.+)_(\d{4}-\d\d-\d\dT[0-9.\-]+)\.jsonl$")


def _first_record(path: Path):
    """The first non-empty line of a regular file, parsed as JSON; None if unreadable.

    Read within the log limits (:mod:`certify.readers._log_limits`): a FIFO or a device is
    not opened, a first line longer than MAX_LOG_DOCUMENT_BYTES is not read to its end, and
    the parse refuses deep nesting.
    """
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as fh:
            while True:  # lines end at "\n", as json.dumps writes them
                line = fh.readline(MAX_LOG_DOCUMENT_BYTES + 1)
                if not line or len(line) > MAX_LOG_DOCUMENT_BYTES:
                    return None
                if line.strip():
                    return parse_json(line, depth=MAX_LOG_JSON_DEPTH)
    except (OSError, NotJson):
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
    return isinstance(rec, dict) and all(k in rec for k in LMEVAL_KEYS) and ("resps" in rec or "filtered_resps" in rec)


def _short(value, limit: int = 60) -> str:
    """repr(value), cut to ``limit`` characters and kept on one line."""
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _responses(resps, where: str) -> list[str]:
    """``[[r_1, ..., r_K]]`` -> ``[r_1, ..., r_K]``; DataError for any other shape."""
    if not isinstance(resps, list) or not resps:
        raise DataError(f"{where}: 'resps' is {_short(resps)}, not a list of requests' responses")
    pairs = all(
        isinstance(req, list) and req and all(isinstance(r, list) and len(r) == 2 for r in req) for req in resps
    )
    if pairs:
        raise DataError(
            f"{where}: 'resps' holds {len(resps)} request(s) of [log-likelihood, is-greedy] pairs: a "
            f"multiple_choice or loglikelihood task; only generate_until tasks (one text answer per "
            f"repeat) can be read"
        )
    if len(resps) != 1:
        raise DataError(f"{where}: 'resps' holds {len(resps)} requests; a generate_until task has one per document")
    (req,) = resps
    if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
        raise DataError(
            f"{where}: 'resps' is {_short(resps)}, not [[response of repeat 1, ..., of repeat K]] "
            f"(one string per repeat)"
        )
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
            raise DataError(
                f"{where}: target {_short(value)} is a list written as text (a task with several "
                f"targets); lm-eval logs str(list), which one answer cannot be compared with"
            )
    return text


def _doc_fields(rec: dict) -> tuple:
    """What identifies a document across the lines of its filters: its hash (or itself), prompt and target."""
    doc = rec.get("doc_hash") if isinstance(rec.get("doc_hash"), str) else json.dumps(rec["doc"], sort_keys=True)
    return doc, rec.get("prompt_hash"), rec["target"]


def _metric(rec: dict) -> tuple[str, float] | None:
    """The line's own per-sample metric, lm-eval's score of this document: the first metric it lists
    whose value is a number in [0, 1] (``exact_match`` for a generate_until task)."""
    names = rec.get("metrics")
    for name in names if isinstance(names, list) else ():
        value = rec.get(name) if isinstance(name, str) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
            return name, float(value)
    return None


class _Filters:
    """The lines of each filter: which documents it lists, and the file's own metric for each."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[int, int]] = {}  # filter -> doc_id -> line
        self.metric: dict[str, dict[int, tuple[str, float] | None]] = {}

    def add(self, flt: str, doc_id: int, line_no: int, rec: dict, where: str) -> None:
        docs = self.docs.setdefault(flt, {})
        if doc_id in docs:
            raise DataError(
                f"{where}: doc_id {doc_id} under filter {flt!r} already on line {docs[doc_id]}; each "
                f"document appears once per filter (was the file appended to twice, or are two tasks' "
                f"samples files joined?)"
            )
        docs[doc_id] = line_no
        self.metric.setdefault(flt, {})[doc_id] = _metric(rec)

    def check_same_documents(self, source: str) -> None:
        """Every filter lists the same documents: a file whose filters do not mixes tasks (or runs)."""
        (first, docs), *others = self.docs.items()
        for flt, other in others:
            if other.keys() != docs.keys():
                only = sorted(other.keys() - docs.keys()) or sorted(docs.keys() - other.keys())
                where = flt if only[0] in other else first
                raise DataError(
                    f"{source}: filter {flt!r} lists {len(other)} documents and filter {first!r} "
                    f"{len(docs)}, not the same ones (doc_id {only[0]} only under {where!r}, line "
                    f"{(other if where == flt else docs)[only[0]]}): lm-eval writes one samples file per "
                    f"task, each document once per filter; this file mixes tasks or runs: give one task's file"
                )

    def disagreements(self, correct_calls: dict[int, int], accuracy: float) -> list[str]:
        """Notes where the file's own metric scores a document above 0 and no call is read as correct."""
        notes = []
        for flt, metrics in self.metric.items():
            scored = {d: m for d, m in metrics.items() if m is not None}
            if not scored or len(scored) < len(metrics):
                continue
            names = {name for name, _ in scored.values()}
            against = [d for d, (_, v) in sorted(scored.items()) if v > 0 and correct_calls[d] == 0]
            if not against or len(names) != 1:
                continue
            mean = sum(v for _, v in scored.values()) / len(scored)
            notes.append(
                f"the file's own {names.pop()!r} (filter {flt!r}) averages {mean:.3f} over its {len(scored)} "
                f"documents, the calls read here {accuracy:.3f}; {len(against)} document(s) it scores above 0 "
                f"have no call read as correct (the first: doc_id {against[0]}): the answers are extracted "
                f"differently; pass --answer-regex (and --answer-ignore-case) to read them as the task does"
            )
        return notes


def read_lmeval_samples(
    path, *, answer_regex: str | None = None, ignore_case: bool = False, answer_normalize: str = DEFAULT_NORMALIZATION
) -> dict[str, CallBits]:
    """Read an lm-eval ``samples_*.jsonl`` file (module docstring) into ``{task: CallBits}`` with answers.

    Parameters
    ----------
    path : str or Path
        A samples file lm-eval wrote with ``--log_samples`` for a ``generate_until`` task
        with ``repeats: K`` (K >= 2).
    answer_regex : str, optional
        Extracts the answer from each response: the first match's first capture group,
        else the whole match; a response without a match gives no answer (incorrect).
        ``None``: the whole response is the answer.
    ignore_case : bool
        Compare answer and target case-insensitively (``str.casefold``).
    answer_normalize : {"exact", "strip", "casefold", "number"}
        How the wrong answers are told apart (:func:`certify.readers._answers.normalize_answer`).

    Returns
    -------
    dict
        One entry, task name (from the file name, ``""`` if it does not follow lm-eval's
        naming) -> CallBits, with bits ordered by ``doc_id``, calls in repeat order, and the
        answers of the calls. ``read_info.notes`` says how many responses did not parse, how
        many filters the file repeats each document for, and where the reading disagrees
        with the file's own metric.

    Raises
    ------
    DataError
        For a file that is not a samples file of one ``generate_until`` task with repeats,
        and for a regex that matches no response (module docstring).
    """
    p = Path(path)
    source = str(p)
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    regex = None if answer_regex is None else AnswerRegex(answer_regex)
    normalize_answer("", answer_normalize)  # an unknown normalization is refused before the file is read

    docs: dict[int, tuple[list[str], str, int, tuple]] = {}  # doc_id -> (responses, target, first line, fields)
    filters = _Filters()
    doc_keys = None  # the keys of the first line's doc: one task's documents all have the same
    for line_no, rec in jsonl_objects(p, "a JSON object per line (an lm-eval sample)"):
        where = f"{source}: line {line_no}"
        missing = [k for k in (*LMEVAL_KEYS, "resps") if k not in rec]
        if missing:
            raise DataError(
                f"{where}: no {', '.join(map(repr, missing))} key; lines of lm-eval --log_samples files "
                f"have doc_id, doc, target, resps, filtered_resps, filter"
            )
        doc_id = rec["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, int):
            raise DataError(f"{where}: doc_id {_short(doc_id)} is not an integer")
        where = f"{where} (doc_id {doc_id})"
        keys = sorted(rec["doc"]) if isinstance(rec["doc"], dict) else None
        if doc_keys is None:
            doc_keys = (keys, line_no)
        elif keys != doc_keys[0]:
            raise DataError(
                f"{where}: its 'doc' has the fields {_short(keys)}, line {doc_keys[1]}'s "
                f"{_short(doc_keys[0])}: documents of two data sets; lm-eval writes one samples file per "
                f"task: give one task's file"
            )
        flt = rec.get("filter", "")
        if not isinstance(flt, str):
            raise DataError(f"{where}: filter {_short(flt)} is not a filter name")
        filters.add(flt, doc_id, line_no, rec, where)
        responses = _responses(rec["resps"], where)
        target = _target(rec["target"], where)
        fields = _doc_fields(rec)
        if doc_id in docs:
            before, _, first, before_fields = docs[doc_id]
            if before != responses or before_fields != fields:
                field = "resps" if before != responses else ("target" if before_fields[2] != fields[2] else "doc")
                raise DataError(
                    f"{where}: {field!r} differs from line {first} of the same doc_id under another filter; "
                    f"the document and its raw responses are the same under every filter (are two tasks' "
                    f"samples files joined?)"
                )
            continue
        docs[doc_id] = (responses, target, line_no, fields)
    if not docs:
        raise DataError(f"{p}: the file has no samples")
    filters.check_same_documents(source)

    ks = {len(r) for r, _, _, _ in docs.values()}
    if ks == {1}:
        raise DataError(
            f"{p}: every document has 1 response: the task ran without repeats; certify needs at least 2 "
            f"calls per example (set repeats: K, K >= 2, in the task's YAML)"
        )

    def norm(text: str) -> str:
        text = text.strip()
        return text.casefold() if ignore_case else text

    records, labels, unparsed, total = [], [], 0, 0
    example = None
    correct_calls: dict[int, int] = {}
    for doc_id in sorted(docs):
        responses, target, line_no, _ = docs[doc_id]
        gold = norm(target)
        if len(responses) < 2:
            raise DataError(
                f"{source}: line {line_no} (doc_id {doc_id}): {len(responses)} response recorded; at least 2 "
                f"calls per example are needed"
            )
        correct_calls[doc_id] = 0
        for j, r in enumerate(responses, start=1):
            answer = r if regex is None else regex.answer(r, f"{source}: line {line_no} (doc_id {doc_id}), repeat {j}")
            total += 1
            if answer is None:
                unparsed += 1
                example = example if example is not None else r
            bit = answer is not None and norm(answer) == gold
            correct_calls[doc_id] += bit
            # the answer is the text the rule compares with the target, in the rule's form
            # (stripped, casefolded with ignore_case), so that answers equal under the rule are one answer
            records.append(
                {
                    "doc_id": str(doc_id),
                    "repeat": j,
                    "correct": int(bit),
                    "answer": None if answer is None else norm(answer),
                }
            )
            labels.append(line_no)
    if regex is not None and unparsed == total:
        raise DataError(
            f"{p}: --answer-regex {regex.shown} matches none of the {total} responses "
            f"(e.g. {_short(example)}); fix the regex"
        )
    # the answers take the path of every source's answers: normalized and coded by the accumulator
    (bits,) = read_long(
        records,
        "doc_id",
        "repeat",
        "correct",
        [],
        source,
        "line",
        labels=labels,
        answer_col="answer",
        answer_normalize=answer_normalize,
    ).values()

    rule = "exact match after stripping whitespace" + (", ignoring case" if ignore_case else ", case-sensitive")
    notes = []
    if regex is not None:
        notes.append(
            f"{unparsed} of {total} responses did not match the answer regex {regex.shown} and count as incorrect"
        )
    if len(filters.docs) > 1:
        notes.append(
            f"the file lists each document under {len(filters.docs)} filters "
            f"({', '.join(map(repr, filters.docs))}); the raw responses ('resps') are the same under each and "
            f"are read once"
        )
    if len(ks) > 1:
        notes.append(f"documents have {min(ks)} to {max(ks)} responses each (ragged repeats)")
    correct = sum(correct_calls.values())
    if correct == 0:
        what = "response" if regex is None else f"answer the regex {regex.shown} extracts"
        notes.append(
            f"no {what} equals its target ({rule}): chain-of-thought responses need --answer-regex to "
            f"extract the answer, e.g. '(?r)(?<![0-9-])(-?[0-9]+)' for the last number"
        )
    notes.extend(filters.disagreements(correct_calls, correct / total))
    what = "resps" if regex is None else f"{'first group' if regex.groups else 'match'} of {regex.shown} in resps"
    m = _FILE_NAME.match(p.name)
    group = m.group(1) if m else ""
    info = ReadInfo(
        "lm-eval samples",
        "doc_id",
        (),
        "repeat (position in resps)",
        f"{what} vs target ({rule})",
        reader=READER,
        notes=tuple(notes),
    )
    return {group: replace(bits, group=group, read_info=info)}
