"""Data sets: GLUE QNLI/QQP (hub or local files), built-in tasks, and the draw file.

Every source yields :class:`Example` objects with normalized, capped text fields
and a label, one of the task's answers (Yes or No, but for a built-in task with
several answers). :func:`draw_examples` then picks N of them without replacement
with a fixed seed and writes the draw file (JSONL) that every policy of the
experiment reuses.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from .._extras import require
from .._files import write_atomically
from ._config import DatasetConfig
from ._errors import DatasetError, InputError
from ._protocol import TASKS, YES_NO, Task

__all__ = ["BUILTIN_GENERATED", "Example", "builtin_examples", "draw_examples", "load_population", "normalize"]

# Raw GLUE labels (TSV strings, hub integers) mapped to the yes/no answer.
_LABEL_MAPS = {
    "qnli": {"0": "Yes", "entailment": "Yes", "1": "No", "not_entailment": "No"},
    "qqp": {"1": "Yes", "duplicate": "Yes", "0": "No", "not_duplicate": "No"},
}
# Column of GLUE's TSV layout that holds the label, and of the example id.
_TSV_LABEL = {"qnli": "label", "qqp": "is_duplicate"}
_ID_KEYS = ("idx", "index", "id")

# Nouns of the built-in membership task: short, common, one word each.
_WORDS = (
    "apple",
    "river",
    "candle",
    "tiger",
    "pencil",
    "garden",
    "window",
    "rabbit",
    "guitar",
    "bottle",
    "mountain",
    "orange",
    "bridge",
    "camera",
    "ladder",
    "pillow",
    "rocket",
    "spoon",
    "turtle",
    "violin",
    "wallet",
    "anchor",
    "basket",
    "cactus",
    "dolphin",
    "engine",
    "feather",
    "glove",
    "hammer",
    "island",
    "jacket",
    "kettle",
    "lemon",
    "mirror",
    "needle",
    "onion",
    "parrot",
    "quilt",
    "saddle",
    "tomato",
    "umbrella",
    "valley",
    "walnut",
    "zebra",
    "blanket",
    "cherry",
    "donkey",
    "forest",
)

# Names of the built-in lookup tasks: short, common first names.
_NAMES = (
    "Anna",
    "Ben",
    "Carl",
    "Dora",
    "Emma",
    "Finn",
    "Gina",
    "Hugo",
    "Ivan",
    "Jane",
    "Kate",
    "Leo",
    "Mia",
    "Nora",
    "Omar",
    "Paul",
    "Rosa",
    "Sam",
    "Tina",
    "Uma",
    "Vera",
    "Will",
    "Yara",
    "Zoe",
)


@dataclass(frozen=True)
class Example:
    """One example.

    Parameters
    ----------
    example_id : str
        Identifier, unique within its data set (GLUE ``idx``/``id``, or ``task-00042``).
    label : str
        The correct answer, one of the task's answers (``"Yes"`` or ``"No"`` for a
        yes/no task).
    fields : dict of str to str
        The task's text fields, normalized and capped.
    """

    example_id: str
    label: str
    fields: dict = field(hash=False)

    def to_dict(self) -> dict:
        """One draw-file line: ``{"id", "label", <fields>}``."""
        return {"id": self.example_id, "label": self.label, **self.fields}

    @classmethod
    def from_dict(cls, d: dict, task: Task) -> Example:
        """Read a draw-file line of ``task``."""
        missing = [k for k in ("id", "label", *task.fields) if k not in d]
        if missing or d["label"] not in task.answers:
            raise InputError(
                f"draw line {d!r:.80}: needs id, a label of {', '.join(task.answers)} "
                f"and fields {', '.join(task.fields)}"
            )
        return cls(str(d["id"]), d["label"], {k: str(d[k]) for k in task.fields})


def normalize(text: str, cap: int) -> str:
    """Collapse every whitespace run to one space, strip, and keep the first ``cap`` characters."""
    return " ".join(str(text).split())[:cap]


def _make(task: Task, example_id, label_raw, row: dict, where: str) -> Example:
    label = _LABEL_MAPS.get(task.name, {}).get(str(label_raw).strip()) if label_raw is not None else None
    if label is None:
        if str(label_raw) in task.answers:
            label = str(label_raw)
        else:
            raise InputError(f"{where}: label {label_raw!r} is not a {task.name} label (unlabeled test split?)")
    texts = {}
    for name, cap in zip(task.fields, task.caps):
        if name not in row:
            raise InputError(f"{where}: missing field {name!r} of task {task.name}")
        texts[name] = normalize(row[name] if row[name] is not None else "", cap)
    return Example(str(example_id), label, texts)


def _read_rows(path: Path, task: Task) -> list[tuple[object, object, dict]]:
    """(id, raw label, row) of every record of a local TSV/JSONL/Parquet file."""
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        with path.open(encoding="utf-8", newline="") as fh:
            # GLUE's TSVs are unquoted: a stray quote must not swallow lines.
            reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            rows = []
            for line, row in enumerate(reader, start=2):
                if None in row or None in row.values():
                    raise InputError(f"{path}:{line}: wrong number of tab-separated columns")
                rows.append(row)
        label_key = _TSV_LABEL[task.name]
    elif suffix in (".jsonl", ".json"):
        rows = []
        with path.open(encoding="utf-8") as fh:
            for line, text in enumerate(fh, start=1):
                if text.strip():
                    try:
                        rows.append(json.loads(text))
                    except ValueError:
                        raise InputError(f"{path}:{line}: not a JSON object") from None
        label_key = "label"
    elif suffix == ".parquet":
        pq = require("pyarrow.parquet", f"reading the Parquet file {str(path)!r}")
        rows = pq.read_table(path).to_pylist()
        label_key = "label"
    else:
        raise InputError(f"data file {str(path)!r}: extension must be .tsv, .jsonl or .parquet")
    out = []
    for i, row in enumerate(rows):
        key = next((k for k in _ID_KEYS if k in row), None)
        out.append((row[key] if key else i, row.get(label_key, row.get("label")), row))
    return out


def _hub_rows(cfg: DatasetConfig) -> list[tuple[object, object, dict]]:
    datasets = require("datasets", f"dataset {cfg.name!r} (source hub)")
    try:
        ds = datasets.load_dataset(cfg.hub_name, cfg.task, split=cfg.split)
    except Exception as exc:  # the library raises many unrelated types when offline
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(
            f"dataset {cfg.name!r}: cannot load {cfg.hub_name}/{cfg.task} split {cfg.split} from the hub ({first}); "
            'use source = "file" with a local copy'
        ) from None
    return [(row.get("idx", i), row["label"], row) for i, row in enumerate(ds)]


def _h(*parts) -> int:
    """A 64-bit integer hash of ``parts``: the generators' only randomness, stable everywhere."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _yes_no(yes: bool) -> str:
    return YES_NO[0] if yes else YES_NO[1]


def _compare(seed: int, i: int) -> tuple[dict, str]:
    digits = 2 + _h("compare", seed, i, "digits") % 4
    lo, hi = 10 ** (digits - 1), 10**digits - 1
    a = lo + _h("compare", seed, i, "a") % (hi - lo + 1)
    if _h("compare", seed, i, "near") % 2:
        # Half the pairs differ only in the last digits, which is where models slip.
        b = a + (1 + _h("compare", seed, i, "delta") % 9) * (1 if a < hi - 9 else -1)
    else:
        b = lo + _h("compare", seed, i, "b") % (hi - lo + 1)
        b = b if b != a else (b + 1 if b < hi else b - 1)
    yes = _h("compare", seed, i, "label") % 2 == 0
    first, second = (max(a, b), min(a, b)) if yes else (min(a, b), max(a, b))
    return {"first": str(first), "second": str(second)}, _yes_no(yes)


def _membership(seed: int, i: int) -> tuple[dict, str]:
    order = sorted(_WORDS, key=lambda w: _h("membership", seed, i, "perm", w))
    items, outsider = order[:6], order[6]
    yes = _h("membership", seed, i, "label") % 2 == 0
    item = items[_h("membership", seed, i, "pick") % 6] if yes else outsider
    return {"items": ", ".join(items), "item": item}, _yes_no(yes)


def _parity(seed: int, i: int) -> tuple[dict, str]:
    n = 1 + _h("parity", seed, i, "n") % 99998
    yes = _h("parity", seed, i, "label") % 2 == 0
    if (n % 2 == 0) != yes:
        n += 1
    return {"number": str(n)}, _yes_no(yes)


def _lookup(size: int):
    """The generator of ``lookup<size>``: ``size`` names, each with a Yes/No answer, and one queried name.

    Every name but the queried one answered No, and the queried one answered Yes on
    a balanced coin, so the label is the queried name's answer. (With random answers
    for the other names the embedded 270M model is at chance; this layout is what it
    can read.)
    """
    task = f"lookup{size}"

    def generate(seed: int, i: int) -> tuple[dict, str]:
        names = sorted(_NAMES, key=lambda w: _h(task, seed, i, "perm", w))[:size]
        pick = _h(task, seed, i, "pick") % size
        yes = _h(task, seed, i, "label") % 2 == 0
        answers = ", ".join(f"{name}: {'Yes' if yes and k == pick else 'No'}" for k, name in enumerate(names))
        return {"answers": answers, "name": names[pick]}, _yes_no(yes)

    return generate


def _tally(seed: int, i: int) -> tuple[dict, str]:
    """``tally5``: votes for the task's five colors in a shuffled list; the label is the color with the most.

    The winner is drawn uniformly and gets 4 to 6 votes; every other color gets from 0
    to two fewer than the winner, so the winner leads by at least two votes.
    """
    colors = TASKS["tally5"].answers
    winner = _h("tally5", seed, i, "winner") % len(colors)
    top = 4 + _h("tally5", seed, i, "top") % 3
    counts = [top if k == winner else _h("tally5", seed, i, "count", k) % (top - 1) for k in range(len(colors))]
    votes = [color for color, count in zip(colors, counts) for _ in range(count)]
    order = sorted(range(len(votes)), key=lambda j: _h("tally5", seed, i, "order", j))
    return {"votes": ", ".join(votes[j] for j in order)}, colors[winner]


_GENERATORS = {
    "compare": _compare,
    "membership": _membership,
    "parity": _parity,
    "lookup3": _lookup(3),
    "lookup5": _lookup(5),
    "tally5": _tally,
}


def builtin_examples(task: str, seed: int, count: int) -> list[Example]:
    """The first ``count`` examples of a built-in task generated from ``seed`` (ids ``task-00042``).

    Parameters
    ----------
    task : str
        A built-in task name (a key of :data:`BUILTIN_GENERATED`).
    seed : int
        Generator seed: the same seed gives the same examples on every platform.
    count : int
        How many examples (the population size, ``pool``).

    Returns
    -------
    list of Example

    Raises
    ------
    InputError
        ``task`` is not a built-in task.
    """
    if task not in _GENERATORS:
        raise InputError(f"task {task!r}: not a built-in task (one of {', '.join(_GENERATORS)})")
    spec = TASKS[task]
    out = []
    for i in range(count):
        fields, label = _GENERATORS[task](seed, i)
        out.append(_make(spec, f"{task}-{i:05d}", label, fields, f"task {task!r}"))
    return out


#: Names of the tasks generated in process (``source = "builtin"``), in definition order.
BUILTIN_GENERATED = tuple(_GENERATORS)


def load_population(cfg: DatasetConfig) -> list[Example]:
    """All examples the data set's source offers, before the draw.

    Parameters
    ----------
    cfg : DatasetConfig

    Returns
    -------
    list of Example

    Raises
    ------
    InputError
        A local file is missing, of an unknown type, or holds a bad record.
    DatasetError
        The hub cannot be reached or the ``datasets`` package is missing.
    """
    task = TASKS[cfg.task]
    if cfg.source == "builtin":
        return builtin_examples(cfg.task, cfg.seed, cfg.pool)
    if cfg.source == "hub":
        rows = _hub_rows(cfg)
    else:
        path = Path(cfg.path)
        if not path.is_file():
            raise InputError(f"dataset {cfg.name!r}: path {cfg.path!r} is not a file")
        rows = _read_rows(path, task)
    return [_make(task, i, lab, row, f"dataset {cfg.name!r} record {i}") for i, lab, row in rows]


def _draw_key(seed: int, example_id: str) -> bytes:
    return hashlib.sha256(f"{seed}|{example_id}".encode()).digest()


def draw_examples(cfg: DatasetConfig) -> list[Example]:
    """The data set's N drawn examples, read from its draw file or drawn and written once.

    The draw orders the population by ``SHA-256(f"{seed}|{example_id}")`` and keeps the
    first N: a uniformly random subset without replacement that is stable across
    platforms and library versions. An existing draw file is authoritative and is
    reused as is, so every policy sees the same examples.

    Parameters
    ----------
    cfg : DatasetConfig

    Returns
    -------
    list of Example
        In draw order.
    """
    task = TASKS[cfg.task]
    path = Path(cfg.draw_file)
    if path.is_file():
        with path.open(encoding="utf-8") as fh:
            drawn = [Example.from_dict(json.loads(line), task) for line in fh if line.strip()]
        if len(drawn) != cfg.n:
            raise InputError(f"draw file {str(path)!r} holds {len(drawn)} examples but datasets.{cfg.name}.n = {cfg.n}")
        return drawn
    population = load_population(cfg)
    ids = [e.example_id for e in population]
    if len(set(ids)) != len(ids):
        raise InputError(f"dataset {cfg.name!r}: example ids are not unique")
    if cfg.n > len(population):
        raise InputError(f"dataset {cfg.name!r}: n = {cfg.n} exceeds the {len(population)} examples available")
    drawn = sorted(population, key=lambda e: _draw_key(cfg.seed, e.example_id))[: cfg.n]
    write_atomically(path, "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in drawn), parents=True)
    return drawn
