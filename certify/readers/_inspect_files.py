"""inspect_ai log files (``.eval``, ``.json``) into the few fields the bits and answers need.

Two readers give one :class:`Log`: inspect_ai's own ``read_eval_log`` when it is importable
(it knows every layout inspect has written), else the built-in one. Before either reads, the
file is loaded here within the limits of :mod:`certify.readers._log_limits` and checked
strictly (:func:`load`): a ``.json`` log is read up to MAX_LOG_DOCUMENT_BYTES; every member
of a ``.eval`` archive is decompressed in blocks and checked against its size and CRC
(:mod:`certify.readers._zip`); every JSON document is parsed by the core's strict parser
(:mod:`certify._json_limits`: nesting, value count, a key repeated in one object, NaN, an
integer beyond Python's digit limit). A file either reader would read differently (``status``
twice: Python keeps the last) or that only one of them would accept (a flipped byte, which
inspect_ai's reader does not check) is refused with one line, and the two readers agree.
The built-in reader is the loaded fields themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .._calls import DataError
from .._json_limits import NotJson, Unreadable, ValueBudget, parse_json, read_bytes
from ._log_limits import MAX_LOG_DOCUMENT_BYTES, MAX_LOG_JSON_DEPTH, MAX_LOG_JSON_VALUES
from ._zip import Archive

__all__ = ["Log", "Sample", "kind", "load", "one_line", "read_with_inspect"]

_EXCLUDE = {"messages", "events", "store", "attachments"}  # sample fields the bits and answers never need


@dataclass
class Sample:
    """One sample (one call): its scores and what the model answered."""

    id: object
    epoch: object
    scores: dict  # scorer -> the score's value
    answers: dict  # scorer -> Score.answer (None when the scorer set none)
    completion: str  # the output's completion ("" for none)
    error: str | None
    invalidated: bool


@dataclass
class Log:
    """The fields of a log the bits and answers need."""

    status: str
    error: str | None
    task: str | None
    model: str | None
    sample_ids: list | None
    epochs: object
    samples: list | None
    reader: str


def one_line(text, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind(value) -> str:
    name = type(value).__name__
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
    )


# ---- the strict load (the built-in reader) ----------------------------------------------------


class _Documents:
    """Parses the JSON documents of one log, their values together within MAX_LOG_JSON_VALUES."""

    def __init__(self, path: Path):
        self.path, self.budget = path, ValueBudget(MAX_LOG_JSON_VALUES)

    def parse(self, data: bytes, what: str):
        try:
            return parse_json(data, depth=MAX_LOG_JSON_DEPTH, values=self.budget)
        except NotJson as exc:
            whole = "JSON values" in str(exc) and self.budget.left < MAX_LOG_JSON_VALUES
            raise DataError(
                f"{self.path}: {what} is not a JSON document certify reads: {exc}"
                + (f" (what is left of {MAX_LOG_JSON_VALUES} for the whole log)" if whole else "")
            ) from None


def _completion(output) -> str:
    """``ModelOutput.completion`` as inspect_ai computes it: the field, else the first choice's text."""
    if not isinstance(output, dict):
        return ""
    text = output.get("completion")
    if isinstance(text, str) and text:
        return text
    choices = output.get("choices")
    message = (
        choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    )
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: the text ones, one per line (ChatMessage.text)
        return "\n".join(
            c["text"]
            for c in content
            if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str)
        )
    return ""


def _sample(s, i: int, path: Path) -> Sample:
    if not isinstance(s, dict):
        raise DataError(f"{path}: sample {i} is {kind(s)}, not an object")
    scores = s.get("scores") or {}
    if not isinstance(scores, dict):
        raise DataError(f"{path}: sample {i}: 'scores' is {kind(scores)}, not an object")
    answers = {k: (v.get("answer") if isinstance(v, dict) else None) for k, v in scores.items()}
    odd = next((k for k, a in answers.items() if a is not None and not isinstance(a, str)), None)
    if odd is not None:  # inspect_ai's Score.answer is a string: its reader refuses the log too
        raise DataError(f"{path}: sample {i}: scores.{odd}.answer is {kind(answers[odd])}, not a string")
    err = s.get("error")
    return Sample(
        s.get("id"),
        s.get("epoch", 1),
        {k: (v.get("value") if isinstance(v, dict) else v) for k, v in scores.items()},
        answers,
        _completion(s.get("output")),
        None if err is None else str(err.get("message") if isinstance(err, dict) else err),
        s.get("invalidation") is not None,
    )


def _object(value) -> dict:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _log(header: dict, samples: list, reader: str) -> Log:
    ev = _object(header.get("eval"))
    dataset = _object(ev.get("dataset"))
    config = _object(ev.get("config"))
    error = header.get("error")
    ids = dataset.get("sample_ids")
    return Log(
        str(header.get("status", "started")),
        None if error is None else str(error.get("message") if isinstance(error, dict) else error),
        ev.get("task"),
        ev.get("model"),
        list(ids) if isinstance(ids, list) and ids else None,
        config.get("epochs"),
        samples,
        reader,
    )


def _json_log(path: Path) -> Log:
    try:
        data = read_bytes(
            path, MAX_LOG_DOCUMENT_BYTES, "an inspect_ai .json log (convert it to .eval: inspect log convert)"
        )
    except Unreadable as exc:
        raise DataError(f"{path}: {exc}") from None
    if not data.strip():
        raise DataError(f"{path}: the file is empty")
    log = _Documents(path).parse(data, "the file")
    del data
    if not isinstance(log, dict):
        raise DataError(
            f"{path}: not an inspect_ai eval log: the JSON is {kind(log)}, not an object with 'eval' and "
            f"'samples' (tables go in .jsonl, one object per line)"
        )
    if log.get("samples") is None:
        raise DataError(f"{path}: not an inspect_ai eval log (no 'samples' list)")
    if not isinstance(log["samples"], list):
        raise DataError(f"{path}: not an inspect_ai eval log: 'samples' is {kind(log['samples'])}, not a list")
    samples = [_sample(s, i, path) for i, s in enumerate(log.pop("samples"), start=1)]
    return _log(log, samples, "the built-in .json reader")


def _eval_log(path: Path) -> Log:
    docs = _Documents(path)
    headers: dict[str, object] = {}
    samples: list[Sample] = []
    with Archive(path) as archive:
        for info, last in archive.entries():  # every entry is read once: the ones used are parsed
            name = info.filename
            if last and name in ("header.json", "_journal/start.json"):
                headers[name] = docs.parse(archive.read(info), f"member {name!r}")
            elif last and name.startswith("samples/") and name.endswith(".json"):
                # one member parsed at a time and cut to the fields used: memory is one sample's
                samples.append(_sample(docs.parse(archive.read(info), f"member {name!r}"), len(samples) + 1, path))
            else:
                archive.check(info)
    if "header.json" in headers:
        header = headers["header.json"]
    elif "_journal/start.json" in headers:  # the run never wrote its header: it did not finish
        header = headers["_journal/start.json"]
        if isinstance(header, dict):
            header = {**header, "status": header.get("status", "started")}
    else:
        raise DataError(
            f"{path}: not an inspect_ai .eval log (neither header.json nor _journal/start.json in the archive)"
        )
    if not isinstance(header, dict):
        raise DataError(f"{path}: header.json of the .eval archive is {kind(header)}, not an object")
    return _log(header, samples, "the built-in .eval reader")


def load(path: Path) -> Log:
    """The log as the built-in reader reads it, within the limits and checked (module docstring)."""
    return _eval_log(path) if path.suffix.lower() == ".eval" else _json_log(path)


# ---- inspect_ai's reader ------------------------------------------------------------------------


def _inspect_version() -> str:
    try:
        return metadata.version("inspect_ai")
    except Exception:  # metadata missing in an odd install: the reader still works
        return "(unknown version)"


def read_with_inspect(path: Path, read_eval_log) -> Log:
    """The log as inspect_ai's ``read_eval_log`` reads it (call :func:`load` first: it checks the file)."""
    version = _inspect_version()
    kwargs = {"exclude_fields": set(_EXCLUDE)} if path.suffix.lower() == ".eval" else {}
    try:
        log = read_eval_log(str(path), **kwargs)
    except Exception as exc:  # pydantic, zip, JSON and I/O errors: all mean "not a log inspect can read"
        raise DataError(
            f"{path}: inspect_ai {version} cannot read the log: {one_line(f'{type(exc).__name__}: {exc}')}"
        ) from None
    ev = log.eval
    samples = None
    if log.samples is not None:
        samples = [
            Sample(
                s.id,
                s.epoch,
                {k: (None if sc is None else sc.value) for k, sc in (s.scores or {}).items()},
                {k: (None if sc is None else sc.answer) for k, sc in (s.scores or {}).items()},
                s.output.completion if s.output is not None else "",
                None if s.error is None else s.error.message,
                getattr(s, "invalidation", None) is not None,
            )
            for s in log.samples
        ]
    dataset = getattr(ev, "dataset", None)
    config = getattr(ev, "config", None)
    return Log(
        str(log.status),
        None if log.error is None else log.error.message,
        ev.task,
        ev.model,
        list(getattr(dataset, "sample_ids", None) or []) or None,
        getattr(config, "epochs", None),
        samples,
        f"inspect_ai {version}",
    )
