"""The call types every reader produces and every statistic reads.

:class:`CallBits` holds the correctness bits B_ij of one analysis (example i, call j; the
hierarchy of eq. (hierarchy-main): B_ij ~ Bernoulli(q_i) given q_i), :class:`ReadInfo` says
how a file was read, and :class:`DataError` is the one error of an unusable data file. This
module sits below the readers (``certify.stats``' file readers) and below the statistics and
the likelihood engine, so that both can name these types without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ._errors import InputError

__all__ = ["CORRECT", "CallBits", "DataError", "NO_ANSWER", "NO_CALL", "ReadInfo"]

#: Answer code of a correct call (:attr:`CallBits.answers`).
CORRECT = 0
#: Answer code of a call that produced no answer: no vote, and incorrect as one call.
NO_ANSWER = -1
#: Answer code past an example's recorded calls (ragged data).
NO_CALL = -2


class DataError(InputError):
    """A data file is unusable; the message names the file, row and column."""


@dataclass(frozen=True)
class ReadInfo:
    """How a file was read: which column (or log field) gave what.

    Attributes
    ----------
    form : str
        ``"wide"``, ``"long"``, ``"inspect_ai log"`` or ``"run store"``.
    id : str or None
        The id column (``None``: examples numbered by row).
    calls : tuple of str
        Wide form: the call columns in call order.
    call, correct : str or None
        Long form (and logs, stores): the call-index and correct columns / fields.
    groups, metadata, ignored : tuple of str
        Group columns; columns read and not used; columns dropped on request.
    reader : str
        For logs: which reader read it (``"inspect_ai 0.3.285"`` or the built-in one).
    status : str or None
        For logs: the log's ``status``.
    skipped : int
        For logs read with ``allow_incomplete``: samples without a usable score.
    notes : tuple of str
        Anything else the user should know (skipped samples, mapped score values).
    answers : tuple of str
        The columns (fields) holding each call's answer: wide form, one per call in call
        order; long form, logs and stores, the one answer column. Empty without answers.
    target : str or None
        The column holding each example's correct answer, when correctness is computed
        from answers (answer == target after normalization).
        (:meth:`to_dict` does not list ``answers`` and ``target``: its JSON form is fixed by the
        ``analyze`` schema; its ``text`` names them.)
    """

    form: str
    id: str | None = None
    calls: tuple[str, ...] = ()
    call: str | None = None
    correct: str | None = None
    groups: tuple[str, ...] = ()
    metadata: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    reader: str = ""
    status: str | None = None
    skipped: int = 0
    notes: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    target: str | None = None

    def describe(self) -> str:
        """One line: ``id = doc_id; call = repeat; correct = exact_match (long form)``."""
        parts = [f"id = {self.id if self.id is not None else 'row number' if self.form == 'wide' else 'none'}"]
        if self.calls:
            parts.append(f"calls = {abbreviate(self.calls)}")
        if self.call is not None:
            parts.append(f"call = {self.call}")
        if self.correct is not None:
            parts.append(f"correct = {self.correct}")
        if self.answers:
            parts.append(f"answer{'s' if len(self.answers) > 1 else ''} = {abbreviate(self.answers)}")
        if self.target is not None:
            parts.append(f"target = {self.target}")
        if self.groups:
            parts.append(f"groups = {', '.join(self.groups)}")
        if self.metadata:
            parts.append(f"not used = {', '.join(self.metadata)}")
        if self.ignored:
            parts.append(f"ignored = {', '.join(self.ignored)}")
        what = {"wide": "wide form", "long": "long form"}.get(self.form, self.form)
        extra = [
            x
            for x in (
                f"status {self.status!r}" if self.status else "",
                f"read with {self.reader}" if self.reader else "",
            )
            if x
        ]
        return "; ".join(parts) + f" ({', '.join([what] + extra)})"

    def to_dict(self) -> dict:
        return {
            "form": self.form,
            "id": self.id,
            "calls": list(self.calls),
            "call": self.call,
            "correct": self.correct,
            "groups": list(self.groups),
            "metadata": list(self.metadata),
            "ignored": list(self.ignored),
            "reader": self.reader,
            "status": self.status,
            "skipped_samples": self.skipped,
            "notes": list(self.notes),
            "text": self.describe(),
        }


def abbreviate(names, limit: int = 6, noun: str = "columns") -> str:
    """Names joined by commas, the middle elided past ``limit`` (for messages and read summaries).

    A message stays one short line however many names there are: past ``limit`` it shows the
    first three, the last and how many ``noun`` there are in all.
    """
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:3]) + f", ..., {names[-1]} ({len(names)} {noun})"


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
    read_info : ReadInfo or None
        Which columns were read as what (``None`` for arrays).
    answers : ndarray of int32, shape (n, K_max), or None
        The answer of every call, as codes that keep exactly what a vote over answers needs:
        :data:`CORRECT` (0) for a correct call, 1, 2, ... for distinct wrong answers (equal
        codes in one row are the same answer after normalization; codes are not comparable
        across rows), :data:`NO_ANSWER` (-1) for a call that produced no answer (it casts no
        vote and is incorrect) and :data:`NO_CALL` (-2) past an example's K_i calls.
        ``None`` when the source records correctness only. ``answers == CORRECT`` is ``bits == 1``
        wherever a call exists (checked on construction).
    """

    example_ids: tuple[str, ...]
    bits: np.ndarray
    counts: np.ndarray
    source: str = ""
    group: str = ""
    read_info: ReadInfo | None = field(default=None, repr=False)
    answers: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.answers is None:
            return
        codes = np.asarray(self.answers)
        if codes.shape != self.bits.shape or not np.issubdtype(codes.dtype, np.integer):
            raise InputError(
                f"answers: an integer array of shape {self.bits.shape} is needed, got {codes.dtype} {codes.shape}"
            )
        called = ~np.isnan(self.bits)
        if not np.array_equal(codes == NO_CALL, ~called) or not np.array_equal(
            codes[called] == CORRECT, self.bits[called] == 1
        ):
            raise InputError(
                "answers: the codes disagree with the bits (code 0 must mark exactly the correct calls, "
                "-2 exactly the missing ones)"
            )
        if (codes < NO_CALL).any():
            raise InputError(f"answers: codes below {NO_CALL} are not defined")
        object.__setattr__(self, "answers", codes.astype(np.int32, copy=False))

    @property
    def has_answers(self) -> bool:
        """Whether the answers of the calls were recorded (a plurality vote needs them)."""
        return self.answers is not None

    @property
    def abstentions(self) -> int:
        """Calls that produced no answer (0 without answers)."""
        return 0 if self.answers is None else int((self.answers == NO_ANSWER).sum())

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

    @cached_property
    def successes(self) -> np.ndarray:
        """S_i, correct calls per example (computed once: the bits are never changed)."""
        return np.nansum(self.bits, axis=1)

    def first_calls(self, k: int) -> CallBits:
        """The same examples with only their first ``k`` calls (an example with fewer keeps all of its K_i).

        What ``calls=`` (``--calls``) analyses: the bits, the counts and the answers cut alike.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InputError(f"calls={k!r} must be a positive integer number of calls per example")
        k = int(k)
        answers = None if self.answers is None else self.answers[:, :k]
        return replace(self, bits=self.bits[:, :k], counts=np.minimum(self.counts, k), answers=answers)

    def first(self, k: int) -> np.ndarray:
        """The first k calls of every example, an (n, k) 0/1 array (needs k <= K)."""
        if k > self.calls:
            raise InputError(f"{k} calls requested but some example has only {self.calls}")
        return self.bits[:, :k]
