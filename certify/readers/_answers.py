"""Answers of calls: one normalization, and the per-example codes a vote over answers needs.

A plurality vote (self-consistency) compares the answers of one example's calls with each
other and with the correct answer; nothing else about an answer matters. So readers turn
answer text into :attr:`certify.CallBits.answers` codes in two steps:

1. :func:`normalize_answer` maps a text to the key it is compared by, under one of
   :data:`NORMALIZATIONS` (``--answer-normalize``; default ``"strip"``):

   ``exact``
       the text as recorded;
   ``strip``
       leading and trailing white space removed;
   ``casefold``
       as ``strip``, then: full-width and half-width forms read as their ordinary characters
       (``５`` is ``5``, ``Ａ`` is ``a``, the ideographic space is a space), canonically
       equivalent texts made one (a precomposed ``é`` is ``e`` with a combining accent),
       Unicode case folding (``Straße`` is ``strasse``, the ``ﬁ`` ligature is ``fi``) and runs of
       white space made one space. Nothing else is merged: superscripts, subscripts, circled
       numbers and vulgar fractions stay as they are (``10²`` is not ``102``, ``½`` is not
       ``1/2``), and so do mathematical letters; these are the only parts of Unicode's
       compatibility mappings (NFKC) applied;
   ``number``
       as ``casefold``, and a text that reads as a number (``5``, ``+5``, ``5.0``, ``5e0``,
       ``1,000``, ``3/4``, in ASCII digits after the width step) compares as that number,
       exactly (``5`` = ``5.00`` = ``10/2``); other texts compare as with ``casefold``. A
       number's key is an :class:`AnswerNumber`, which is never equal to a text's key, so
       no text (whatever characters it holds) is scored as a number.

   An empty key (an empty or blank answer) or ``None`` is *no answer*: the call casts no vote
   and, as one call, is incorrect.
2. :func:`answer_codes` turns interned keys of an (examples x calls) table into codes per
   example: 0 for a correct call, 1, 2, ... for its distinct wrong answers in order of first
   appearance, -1 for no answer and -2 where an example has no such call. The bits decide
   which calls are correct (a source's own scorer may accept answers that differ as text:
   they are then all the correct answer, which is what a vote over them would elect).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._calls import CORRECT, NO_ANSWER, NO_CALL, DataError

__all__ = [
    "NORMALIZATIONS",
    "DEFAULT_NORMALIZATION",
    "MAX_ANSWER_NUMBER_LENGTH",
    "AnswerNumber",
    "normalize_answer",
    "answer_codes",
    "NO_ANSWER_ID",
    "NO_CALL_ID",
]

NORMALIZATIONS = ("exact", "strip", "casefold", "number")
DEFAULT_NORMALIZATION = "strip"

#: Longest text read as a number under ``number``: longer texts compare as text. It bounds
#: the digits Fraction is asked to read (a 10^6-digit "number" would take seconds).
MAX_ANSWER_NUMBER_LENGTH = 100

#: Interned-key ids of :func:`answer_codes`' input for a call without an answer and for no call.
NO_ANSWER_ID = -1
NO_CALL_ID = -2

_SPACE = re.compile(r"\s+")
# Width variants only (the <wide> and <narrow> compatibility decompositions: U+3000 and the
# Halfwidth and Fullwidth Forms block): full NFKC would also turn "10²" into "102" and "1½"
# into "11⁄2", merging answers that differ in value.
_WIDTH = {
    c: unicodedata.normalize("NFKC", chr(c))
    for c in (0x3000, *range(0xFF00, 0xFFF0))
    if unicodedata.decomposition(chr(c)).split(" ")[0] in ("<wide>", "<narrow>")
}
# ASCII digits only: Python's own number parsing also reads "١" (Arabic-Indic one) and "1_0".
_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d*)?(?:[eE][+-]?\d{1,4})?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)


@dataclass(frozen=True)
class AnswerNumber:
    """The key of an answer that reads as a number under ``number``: its exact value.

    A key of its own type, not a text: it equals only the key of an equal number, never the
    key of any text (a text beginning with NUL included).

    Attributes
    ----------
    value : Fraction
    """

    value: Fraction

    def __repr__(self) -> str:
        return f"number {self.value}"


def _fold(text: str) -> str:
    """``casefold``'s text (module docstring): widths, canonical equivalence, case, white space.

    Case folding is done between canonical decomposition and composition, so that texts that
    are canonically equivalent before folding stay equal after it (Unicode's canonical caseless match).
    """
    text = unicodedata.normalize("NFD", text.translate(_WIDTH)).casefold()
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text))


def _as_number(text: str) -> Fraction | None:
    """The exact number a text reads as, or None (see the module docstring)."""
    if len(text) > MAX_ANSWER_NUMBER_LENGTH or not text or not any(ch.isdigit() for ch in text):
        return None
    if _RATIO.fullmatch(text):
        num, den = text.lstrip("+").split("/")
        return None if int(den) == 0 else Fraction(int(num), int(den))
    if not _NUMBER.fullmatch(text) or not any("0" <= ch <= "9" for ch in text.split("e")[0].split("E")[0]):
        return None
    try:
        return Fraction(text.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None


def normalize_answer(text: str | None, how: str = DEFAULT_NORMALIZATION) -> str | AnswerNumber | None:
    """The key an answer is compared by, or None for no answer (module docstring).

    Parameters
    ----------
    text : str or None
    how : {"exact", "strip", "casefold", "number"}

    Returns
    -------
    str or AnswerNumber or None
        A text's key is a text; a number under ``"number"`` becomes an :class:`AnswerNumber`
        of its exact value, so ``5`` and ``5.0`` share one key and no text shares it.
    """
    if how not in NORMALIZATIONS:
        raise DataError(f"--answer-normalize {how!r}: use one of {', '.join(NORMALIZATIONS)}")
    if text is None:
        return None
    if how != "exact":
        text = text.strip()
    if how in ("casefold", "number"):
        text = _fold(text)
    if how == "number":
        value = _as_number(text)
        if value is not None:
            return AnswerNumber(value)
    return text or None


def answer_codes(ids: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Per-example answer codes (:attr:`certify.CallBits.answers`) from interned answer ids.

    Parameters
    ----------
    ids : ndarray of int64, shape (n, K)
        An id per call, equal ids for equal keys (any numbering, shared across rows or not);
        :data:`NO_ANSWER_ID` for no answer, :data:`NO_CALL_ID` where the call does not exist.
    correct : ndarray of bool, shape (n, K)
        Which calls are correct (by the source's bits).

    Returns
    -------
    ndarray of int32, shape (n, K)
        0 correct, 1.. distinct wrong answers of the row in order of first appearance,
        -1 no answer, -2 no call. Cost O(nK log nK), no Python loop over rows.
    """
    ids = np.asarray(ids, dtype=np.int64)
    correct = np.asarray(correct, dtype=bool)
    n, k = ids.shape
    codes = np.full((n, k), NO_CALL, dtype=np.int32)
    codes[ids == NO_ANSWER_ID] = NO_ANSWER
    codes[correct & (ids != NO_CALL_ID)] = CORRECT
    wrong = (ids >= 0) & ~correct
    rows, cols = np.nonzero(wrong)  # row-major: by row, then by call
    if rows.size:
        keys = ids[rows, cols]
        # Distinct (row, id) pairs, each at its first call; their rank within the row in
        # order of first appearance is the code.
        order = np.lexsort((cols, keys, rows))
        r, kk = rows[order], keys[order]
        first = np.ones(r.size, dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (kk[1:] != kk[:-1])
        group = np.cumsum(first) - 1  # pair index of every wrong call
        pr, pc = r[first], cols[order][first]  # each pair's row and first call
        by_appearance = np.lexsort((pc, pr))
        rank = np.empty(pr.size, dtype=np.int64)
        starts = np.r_[0, np.flatnonzero(pr[by_appearance][1:] != pr[by_appearance][:-1]) + 1]
        pos = np.arange(pr.size) - np.repeat(starts, np.diff(np.r_[starts, pr.size]))
        rank[by_appearance] = pos + 1
        codes[r, cols[order]] = rank[group]
    return codes
