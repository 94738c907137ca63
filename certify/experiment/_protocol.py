"""The paper's call protocol: prompt, JSON schema, answer parsing and per-call seeds.

This module is the executable form of the appendix "Additional experimental
protocol details" of the paper; every constant here is quoted from it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "ANSWER_SCHEMA",
    "INSTRUCTION_PREFIX",
    "SEED_MODULUS",
    "TASKS",
    "YES_NO",
    "ParsedAnswer",
    "Task",
    "answer_schema",
    "build_prompt",
    "call_seed",
    "instruction_prefix",
    "parse_answer",
]

#: The answers of a yes/no task (the paper's tasks), in the order choice mode reads them.
YES_NO = ("Yes", "No")


def _either(words: tuple[str, ...]) -> str:
    """``a or b``, ``a, b or c``: the answers as the instruction lists them."""
    return " or ".join(filter(None, (", ".join(words[:-1]), words[-1])))


def instruction_prefix(answers: tuple[str, ...]) -> str:
    """The instruction for a task with these answers; for Yes/No, the paper's.

    Parameters
    ----------
    answers : tuple of str
        The task's answers, in order.

    Returns
    -------
    str
        ``Answer the task with A, B or C. Return only valid JSON with key 'answer'
        and value 'A', 'B' or 'C'.`` (one line).
    """
    quoted = tuple(f"'{a}'" for a in answers)
    return (
        f"Answer the task with {_either(answers)}. "
        f"Return only valid JSON with key 'answer' and value {_either(quoted)}."
    )


#: The fixed instruction of ``prompt_strategy="direct"``. The paper prints it on two
#: lines only because its verbatim block cannot wrap; it is one sentence pair.
INSTRUCTION_PREFIX = instruction_prefix(YES_NO)

#: "two blank lines" between the prefix and the body: the prefix's own line end
#: plus two empty lines.
PREFIX_SEPARATOR = "\n\n\n"


def answer_schema(answers: tuple[str, ...]) -> MappingProxyType:
    """The JSON schema a request for a task with these answers asks the server to satisfy."""
    return MappingProxyType(
        {
            "type": "object",
            "properties": {"answer": {"type": "string", "enum": list(answers)}},
            "required": ["answer"],
            "additionalProperties": False,
        }
    )


#: The paper's schema: the one of every yes/no task.
ANSWER_SCHEMA = answer_schema(YES_NO)

#: Seeds are reduced modulo this Mersenne prime, so they fit every API's int32.
SEED_MODULUS = 2**31 - 1


@dataclass(frozen=True)
class Task:
    """A task: which text fields an example has, how they become a prompt body, and its answers.

    Parameters
    ----------
    name : str
        Task name used in configs (``qnli``, ``qqp``, or a built-in task).
    fields : tuple of str
        Field names, in prompt order.
    caps : tuple of int
        Character cap of each field (applied after whitespace normalization).
    body : str
        ``str.format`` template of the task-specific body.
    description : str
        One line for documentation and ``status``.
    answers : tuple of str
        The answers the schema allows, one word each (an example's label is one of
        them); ``YES_NO`` for the paper's yes/no tasks.
    """

    name: str
    fields: tuple[str, ...]
    caps: tuple[int, ...]
    body: str
    description: str
    answers: tuple[str, ...] = YES_NO

    @property
    def instruction(self) -> str:
        """The task's instruction prefix (:func:`instruction_prefix` of its answers)."""
        return instruction_prefix(self.answers)


TASKS: MappingProxyType[str, Task] = MappingProxyType(
    {
        "qnli": Task(
            "qnli",
            ("question", "sentence"),
            (1200, 3500),
            "Question:\n{question}\n\nSentence:\n{sentence}\n\nDoes the sentence entail an answer to the question?",
            "GLUE QNLI; Yes = entailment",
        ),
        "qqp": Task(
            "qqp",
            ("question1", "question2"),
            (1200, 1200),
            "Question 1:\n{question1}\n\nQuestion 2:\n{question2}\n\nDo these two questions ask the same thing?",
            "GLUE QQP; Yes = duplicate",
        ),
        "compare": Task(
            "compare",
            ("first", "second"),
            (64, 64),
            "First number:\n{first}\n\nSecond number:\n{second}\n\nIs the first number larger than the second number?",
            "built-in: two distinct integers; Yes = the first is larger",
        ),
        "membership": Task(
            "membership",
            ("items", "item"),
            (512, 64),
            "List:\n{items}\n\nWord:\n{item}\n\nDoes the list contain the word?",
            "built-in: six distinct nouns and a query noun; Yes = the noun is in the list",
        ),
        "parity": Task(
            "parity",
            ("number",),
            (64,),
            "Number:\n{number}\n\nIs the number even?",
            "built-in: one integer; Yes = it is even",
        ),
        # The lookup bodies ask "What is the answer of ...?" rather than a yes/no
        # question: under the fixed instruction prefix Gemma 3 270M answers Yes to the
        # plain yes/no questions measured, and says No only with the answers in view
        # and this wording (benchmarks/RESULTS.md, "Demo tasks").
        "lookup3": Task(
            "lookup3",
            ("answers", "name"),
            (256, 32),
            "Answers:\n{answers}\n\nWhat is the answer of {name}?",
            "built-in: three names with their answers, all No but possibly the queried name's; "
            "Yes = the queried name answered Yes",
        ),
        "lookup5": Task(
            "lookup5",
            ("answers", "name"),
            (256, 32),
            "Answers:\n{answers}\n\nWhat is the answer of {name}?",
            "built-in: five names with their answers, all No but possibly the queried name's; "
            "Yes = the queried name answered Yes",
        ),
        # Five answers, so that a plurality vote over repeated calls can differ from the
        # majority of right calls. Gemma 3 270M is right about half the time here (chance:
        # a fifth; benchmarks/bench_demo_tasks.py); asked "Who answered Yes?" over a
        # lookup table, or "What is the color of Ben?", it mostly gave the first name or
        # color listed (20-35 % right in trials of 40 examples).
        "tally5": Task(
            "tally5",
            ("votes",),
            (256,),
            "Votes:\n{votes}\n\nWhich color has the most votes?",
            "built-in: a shuffled list of votes for five colors, one ahead by at least two; the answer is that color",
            ("red", "blue", "green", "yellow", "white"),
        ),
    }
)


def build_prompt(task: Task, fields: dict[str, str]) -> str:
    """Return the exact prompt: instruction prefix, two blank lines, task body, trailing newline.

    Parameters
    ----------
    task : Task
        The task whose instruction and body template are used.
    fields : dict of str to str
        The example's (already normalized and capped) text fields.

    Returns
    -------
    str
        The prompt sent to the model (before any chat template).
    """
    return task.instruction + PREFIX_SEPARATOR + task.body.format(**fields) + "\n"


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of parsing one raw model output.

    Attributes
    ----------
    answer : str or None
        One of the task's answers (``"Yes"``, ``"No"``), or ``None`` when the output
        holds none.
    method : str
        ``"json"`` (schema-conforming JSON), ``"regex"`` (fallback), or ``"none"``.
    """

    answer: str | None
    method: str

    @property
    def valid(self) -> bool:
        """Whether an answer was recovered."""
        return self.answer is not None


def parse_answer(raw: str, answers: tuple[str, ...] = YES_NO) -> ParsedAnswer:
    """Parse a raw output: JSON field ``answer`` first, then a word-bounded regex fallback.

    JSON that decodes but whose ``answer`` is not exactly one of ``answers`` (for
    example ``"yes"``) also falls back to the regex: the first case-insensitive,
    word-bounded occurrence of an answer in the text (so ``not`` or ``nothing`` never
    count as ``no``), returned in the task's spelling.

    Parameters
    ----------
    raw : str
        The model's output text.
    answers : tuple of str
        The task's answers (default: Yes/No).

    Returns
    -------
    ParsedAnswer
    """
    try:
        obj = json.loads(raw)
    except (ValueError, TypeError):
        obj = None
    if isinstance(obj, dict) and obj.get("answer") in answers:
        return ParsedAnswer(obj["answer"], "json")
    spelling = {a.lower(): a for a in answers}
    words = "|".join(re.escape(a) for a in answers)
    match = re.search(rf"\b({words})\b", raw or "", re.IGNORECASE)
    if match:
        return ParsedAnswer(spelling[match.group(1).lower()], "regex")
    return ParsedAnswer(None, "none")


def call_seed(seed_base: int, condition: str, example_id: str, repeat: int) -> int:
    """Per-call decoding seed, a stable hash of the paper's four pieces.

    ``int(SHA-256(f"{seed_base}|{condition}|{example_id}|{repeat}"), big-endian)
    mod (2**31 - 1)``, the text encoded as UTF-8.

    Parameters
    ----------
    seed_base : int
        The condition's seed base (e.g. 20263001).
    condition : str
        The condition (policy) name.
    example_id : str
        The example identifier from the draw file.
    repeat : int
        Repeat index, 0-based.

    Returns
    -------
    int
        A seed in ``[0, 2**31 - 2]``.
    """
    text = f"{seed_base}|{condition}|{example_id}|{repeat}"
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest, "big") % SEED_MODULUS
