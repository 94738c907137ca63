"""JSON read within limits: bounded bytes, nesting and size measured without recursion, a strict parse.

One implementation for every JSON document certify reads from a user (certificates, inspect_ai
logs, lm-eval samples and JSON-lines tables), so that a hostile file is refused with one line
before it can cost much:

* :func:`read_bytes` reads at most a given number of bytes (a larger file is refused without
  reading past the limit), and only from a regular file (a FIFO or a device could block or
  never end);
* :func:`json_limits` measures the nesting depth of arrays and objects and the number of
  values with a few vectorized passes over the bytes, in blocks of bounded size: no
  recursion (Python's JSON parser recurses once per level and fails with a RecursionError
  near 1000 levels) and no memory beyond a few times the text;
* :func:`parse_json` parses within such limits and refuses what Python's ``json`` would
  accept silently: a key repeated in one object (``json`` keeps the last, so two readers of
  one file could see two documents), the constants ``NaN``, ``Infinity`` and ``-Infinity``
  (not JSON), and an integer longer than Python's int-string limit
  (``sys.get_int_max_str_digits()``, 4300 digits by default; ``json`` raises a bare
  ``ValueError`` for it).

Every refusal is a :class:`NotJson` or :class:`Unreadable` whose message is one line without
the file name; callers put the name (and their own error type) in front.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

__all__ = ["NotJson", "Unreadable", "ValueBudget", "decode_utf8", "json_limits", "parse_json", "read_bytes"]

# A JSON string, unrolled so that a long string is matched in one run of C code. The
# quantifiers are possessive and a string left open runs to the end of the text: without
# both, '"' followed by a million '\"' costs quadratic time (every '"' would start a new
# attempt that scans to the end and fails). An open string is invalid JSON, which the
# parser then reports.
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_AS_STEPS = bytes.maketrans(b"[]{}", b"\x02\x00\x02\x00")  # a step of +1 / -1, after subtracting 1
_BOM = b"\xef\xbb\xbf"

#: Brackets measured at once by :func:`json_limits`: its working memory is five bytes per
#: bracket of one block (20 MiB), whatever the size of the text.
_BLOCK = 2**22


class Unreadable(Exception):
    """A file cannot be read within the limit (not a regular file, an I/O error, too large, not UTF-8)."""


class NotJson(ValueError):
    """The text is not a JSON document within the limits; the message is the one-line reason."""


class ValueBudget:
    """A limit on the JSON values of several documents together (the documents of one log).

    Pass it as ``values=`` to :func:`json_limits` or :func:`parse_json`: each document may
    have at most :attr:`left` values, and a document within the limit uses them up.
    """

    def __init__(self, left: int):
        self.left = left


def read_bytes(path: Path, max_bytes: int, what: str) -> bytes:
    """The bytes of a regular file, refusing more than ``max_bytes`` without reading past them.

    Parameters
    ----------
    path : Path
    max_bytes : int
        The largest file read.
    what : str
        What the file is, for the message (``"a certificate"``).

    Raises
    ------
    Unreadable
        Not a regular file (a directory, a FIFO, a device), an I/O error, or a larger file.
    """
    try:
        if not path.is_file():
            raise Unreadable("is not a regular file")
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise Unreadable(f"is larger than the limit of {max_bytes} bytes ({max_bytes / 2**20:g} MiB) for {what}")
    return data


def decode_utf8(data: bytes, error: type[Exception] = Unreadable) -> str:
    """UTF-8 bytes as text (a leading byte-order mark dropped); ``error`` with the first bad byte otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"is not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def json_limits(data: str | bytes, *, depth: int, values: int | ValueBudget | None = None) -> str | None:
    """Why a JSON text exceeds the limits, or None when it is within them.

    A text with more than four times ``values`` quotes (not after a backslash) is refused at
    once. Then strings are removed (brackets and commas inside them do not count). The nesting
    depth is the running sum of +1 per ``[``/``{`` and -1 per ``]``/``}``, taken with numpy
    over the brackets alone, block by block. The values are at most one more than the
    commas plus the arrays and objects.

    Parameters
    ----------
    data : str or bytes
        The text (bytes as UTF-8).
    depth : int
        Deepest nesting of arrays and objects allowed.
    values : int or ValueBudget, optional
        Most values allowed (a budget: what is left of it, used up when the text is within
        the limits); None for no limit.
    """
    limit = values.left if isinstance(values, ValueBudget) else values
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    # Removing the strings costs about a microsecond per string: refuse first, from two byte
    # counts, a text with too many. Every string is a value or a key, and every key has a
    # value, so the values are at least half the strings, and the strings at least half the
    # quotes that follow no backslash.
    if limit is not None and (raw.count(b'"') - raw.count(b'\\"')) // 4 > limit:
        return f"more than the limit of {limit} JSON values"
    bare = _STRING.sub(b'""', raw)
    brackets = bare.translate(_AS_STEPS, delete=_NOT_BRACKETS)
    del raw
    level, deepest = 0, 0
    for start in range(0, len(brackets), _BLOCK):
        steps = np.frombuffer(brackets, dtype=np.int8, count=min(_BLOCK, len(brackets) - start), offset=start)
        running = np.cumsum(steps - 1, dtype=np.int64) + level
        if running.min() < 0:
            return "not valid JSON: its brackets do not balance"
        deepest = max(deepest, int(running.max()))
        level = int(running[-1])
    if level != 0:
        return "not valid JSON: its brackets do not balance"
    if deepest > depth:
        return f"arrays and objects nest {deepest} levels deep, deeper than the limit of {depth}"
    count = bare.count(b",") + len(brackets) // 2 + 1
    if limit is not None and count > limit:
        return f"more than the limit of {limit} JSON values"
    if isinstance(values, ValueBudget):
        values.left -= count
    return None


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all distinct (module docstring)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise NotJson(f"the key {repeated[:40]!r} appears twice in one object")
    return data


def _no_constant(name: str):
    raise NotJson(f"{name} is not a JSON number")


def parse_json(data: str | bytes, *, depth: int, values: int | ValueBudget | None = None):
    """Parse a JSON document within the limits (module docstring).

    Parameters
    ----------
    data : str or bytes
        The text; bytes must be UTF-8 (a leading byte-order mark is dropped).
    depth, values
        The limits of :func:`json_limits`.

    Returns
    -------
    object
        The document: dicts, lists, str, int, float, bool and None.

    Raises
    ------
    NotJson
        With a one-line reason: a limit, invalid JSON, bytes that are not UTF-8, a repeated
        key, NaN or Infinity, an integer beyond Python's int-string limit.
    """
    problem = json_limits(data, depth=depth, values=values)
    if problem is not None:
        raise NotJson(problem)
    text = decode_utf8(data, NotJson) if isinstance(data, bytes) else data
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise NotJson(f"not valid JSON ({exc})") from None
    except RecursionError:  # cannot happen after the nesting check; kept so that no traceback can
        raise NotJson("nesting too deep for the JSON parser") from None
    except NotJson:
        raise
    except ValueError:  # the one other failure: an integer beyond Python's conversion limit
        raise NotJson(f"a number has more than {sys.get_int_max_str_digits()} digits, more than Python reads") from None
