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
    "ParsedAnswer",
    "Task",
    "build_prompt",
    "call_seed",
    "parse_answer",
]

#: The fixed instruction of ``prompt_strategy="direct"``. The paper prints it on two
#: lines only because its verbatim block cannot wrap; it is one sentence pair.
INSTRUCTION_PREFIX = (
    "Answer the task with Yes or No. Return only valid JSON with key 'answer' "
    "and value 'Yes' or 'No'."
)

#: "two blank lines" between the prefix and the body: the prefix's own line end
#: plus two empty lines.
PREFIX_SEPARATOR = "\n\n\n"

#: The JSON schema every request asks the server to satisfy.
ANSWER_SCHEMA = MappingProxyType(
    {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
        "required": ["answer"],
        "additionalProperties": False,
    }
)

#: Seeds are reduced modulo this Mersenne prime, so they fit every API's int32.
SEED_MODULUS = 2**31 - 1

_LABELS = {"Yes": True, "No": False}
# Word-bounded so that "not" or "nothing" never count as "no"; first hit wins.
_FALLBACK = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Task:
    """A yes/no task: which text fields an example has and how they become a prompt body.

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
    """

    name: str
    fields: tuple[str, ...]
    caps: tuple[int, ...]
    body: str
    description: str


TASKS: MappingProxyType[str, Task] = MappingProxyType(
    {
        "qnli": Task(
            "qnli",
            ("question", "sentence"),
            (1200, 3500),
            "Question:\n{question}\n\nSentence:\n{sentence}\n\n"
            "Does the sentence entail an answer to the question?",
            "GLUE QNLI; Yes = entailment",
        ),
        "qqp": Task(
            "qqp",
            ("question1", "question2"),
            (1200, 1200),
            "Question 1:\n{question1}\n\nQuestion 2:\n{question2}\n\n"
            "Do these two questions ask the same thing?",
            "GLUE QQP; Yes = duplicate",
        ),
        "compare": Task(
            "compare",
            ("first", "second"),
            (64, 64),
            "First number:\n{first}\n\nSecond number:\n{second}\n\n"
            "Is the first number larger than the second number?",
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
    }
)


def build_prompt(task: Task, fields: dict[str, str]) -> str:
    """Return the exact prompt: prefix, two blank lines, task body, trailing newline.

    Parameters
    ----------
    task : Task
        The task whose body template is used.
    fields : dict of str to str
        The example's (already normalized and capped) text fields.

    Returns
    -------
    str
        The prompt sent to the model (before any chat template).
    """
    return INSTRUCTION_PREFIX + PREFIX_SEPARATOR + task.body.format(**fields) + "\n"


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of parsing one raw model output.

    Attributes
    ----------
    answer : str or None
        ``"Yes"``, ``"No"``, or ``None`` when the output holds no answer.
    method : str
        ``"json"`` (schema-conforming JSON), ``"regex"`` (fallback), or ``"none"``.
    """

    answer: str | None
    method: str

    @property
    def valid(self) -> bool:
        """Whether an answer was recovered."""
        return self.answer is not None


def parse_answer(raw: str) -> ParsedAnswer:
    """Parse a raw output: JSON field ``answer`` first, then the yes/no regex fallback.

    JSON that decodes but whose ``answer`` is not exactly ``"Yes"``/``"No"`` (for
    example ``"yes"``) also falls back to the regex, which then reads it.

    Parameters
    ----------
    raw : str
        The model's output text.

    Returns
    -------
    ParsedAnswer
    """
    try:
        obj = json.loads(raw)
    except (ValueError, TypeError):
        obj = None
    if isinstance(obj, dict) and obj.get("answer") in _LABELS:
        return ParsedAnswer(obj["answer"], "json")
    match = _FALLBACK.search(raw or "")
    if match:
        return ParsedAnswer(match.group(1).capitalize(), "regex")
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
