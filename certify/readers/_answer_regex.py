"""The answer regex (``answer_regex=``, ``--answer-regex``): an answer out of a response, with bounded work.

lm-eval samples files and inspect_ai logs record what the model wrote; the answer in it is
what the regex picks: the first match of the regex in the text (a search), its first capture
group if the regex has one, else the whole match. No match, or a match whose first group did
not take part, is *no answer*.

**Syntax and engine.** Python ``re`` syntax, flags inline (``(?i)``, ``(?s)``), matched by the
`regex <https://pypi.org/project/regex/>`_ package (its default ``VERSION0`` behaves as ``re``)
because ``re`` cannot stop a search: a regex that backtracks (``(?s)(.*?,){15}z`` on a long
text) runs for hours. ``regex`` also adds the flag ``(?r)``, a search from the end: the *last*
number of a chain-of-thought answer is ``(?r)(?<![0-9-])(-?[0-9]+)``, and the equivalent
``(?s).*(?<![0-9-])(-?[0-9]+)`` (quadratic in ``re`` on a long text without digits) is also
linear in ``regex``.

**Limits** (docs/reference/limits.md): a search that takes more than :data:`REGEX_SECONDS` seconds
on one response, or searches that take more than :data:`REGEX_TOTAL_SECONDS` seconds over one
file, stop the reading with one line naming the regex and the response; a response longer
than :data:`MAX_REGEX_CHARS` characters is refused before the regex sees it (no real model
writes that much in one answer; a search over it could cost too much even when linear).
"""

from __future__ import annotations

import time

import regex

from .._calls import DataError

__all__ = ["MAX_REGEX_CHARS", "REGEX_SECONDS", "REGEX_TOTAL_SECONDS", "AnswerRegex", "show_regex"]

#: Longest response (in characters) the answer regex is applied to: 1,000,000, about 250,000
#: tokens, beyond the longest output any model writes in one call today.
MAX_REGEX_CHARS = 1_000_000

#: Most seconds one search may take. A linear regex searches a response of MAX_REGEX_CHARS
#: characters in milliseconds; one that needs more backtracks without bound.
REGEX_SECONDS = 1.0

#: Most seconds all searches of one file may take together, so that a regex just under
#: REGEX_SECONDS per response cannot stall a file of many responses (reading stays within
#: half a minute).
REGEX_TOTAL_SECONDS = 20.0


def show_regex(pattern: str) -> str:
    """A regex as the user typed it, in quotes (repr would double every backslash), on one line."""
    return "'" + pattern.replace("\n", "\\n") + "'"


def _excerpt(text: str, limit: int = 60) -> str:
    shown = repr(text[:limit]).replace("\n", "\\n")
    return shown + (f"... ({len(text)} characters)" if len(text) > limit else "")


class AnswerRegex:
    """One compiled answer regex and the search time it has spent on one file.

    Parameters
    ----------
    pattern : str
        The regex as given (module docstring).

    Raises
    ------
    DataError
        An empty or invalid regex.
    """

    def __init__(self, pattern):
        if not isinstance(pattern, str) or not pattern:
            raise DataError(f"--answer-regex (answer_regex=) {pattern!r} must be a non-empty regular expression")
        try:
            self.compiled = regex.compile(pattern)
        except regex.error as exc:
            raise DataError(
                f"--answer-regex (answer_regex=) {show_regex(pattern)} is not a valid Python regular expression ({exc})"
            ) from None
        self.pattern = pattern
        self.spent = 0.0  # seconds of searching so far (REGEX_TOTAL_SECONDS)

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def shown(self) -> str:
        return show_regex(self.pattern)

    def answer(self, text: str, where: str) -> str | None:
        """The answer in ``text`` (module docstring), None for no answer; ``where`` names the response in errors."""
        if len(text) > MAX_REGEX_CHARS:
            raise DataError(
                f"{where}: the response has {len(text)} characters, more than the limit of {MAX_REGEX_CHARS} "
                f"that --answer-regex (answer_regex=) is applied to"
            )
        budget = min(REGEX_SECONDS, REGEX_TOTAL_SECONDS - self.spent)
        start = time.perf_counter()
        try:
            if budget <= 0:
                raise TimeoutError
            m = self.compiled.search(text, timeout=budget)
        except TimeoutError:
            if budget < REGEX_SECONDS:
                raise DataError(
                    f"{where}: --answer-regex {self.shown} has searched the responses for more than "
                    f"{REGEX_TOTAL_SECONDS:g} s in all (this one: {_excerpt(text)}); write a regex that "
                    f"does not backtrack, e.g. '(?r)(?<![0-9-])(-?[0-9]+)' for the last number"
                ) from None
            raise DataError(
                f"{where}: --answer-regex {self.shown} took more than {REGEX_SECONDS:g} s on the response "
                f"{_excerpt(text)}: it backtracks without bound on this text; write one that does not, "
                f"e.g. '(?r)(?<![0-9-])(-?[0-9]+)' for the last number"
            ) from None
        finally:
            self.spent += time.perf_counter() - start
        if m is None:
            return None
        return m.group(1) if self.compiled.groups else m.group(0)
