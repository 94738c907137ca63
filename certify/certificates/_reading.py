"""Reading certificate files within limits: size, nesting, value count, repeated keys, NaN.

Shared by :func:`certify.certificates.verify` and ``certify verify``: a hostile file is
refused before it can cost much. The size cap is applied while reading, and the bracket
nesting and the number of values are measured without recursion before the JSON parser
(which recurses on nesting) sees the text.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

__all__ = ["MAX_FILE_BYTES", "MAX_JSON_DEPTH", "MAX_JSON_VALUES", "Unreadable", "NotJson", "read_text", "json_limits",
           "parse_json"]

#: Largest certificate file read (16 MiB). Real certificates are a few kilobytes (measured:
#: 1.9 kB for 1001 votes, 4.6 kB for 1001 votes at 100 digits).
MAX_FILE_BYTES = 16 * 2**20

#: Deepest nesting of JSON arrays and objects accepted. Certificates nest 5 levels deep
#: (certificate, objective, majority list, term, exact pair); Python's JSON parser
#: recurses once per level and fails with a RecursionError near 1000.
MAX_JSON_DEPTH = 32

#: Most JSON values (numbers, strings, arrays, objects, ...) accepted: parsing 2^20 of
#: them takes 0.2-1.3 s on a loaded 2-core machine, and a certificate needs far fewer (a
#: degree-20001 objective, the largest the checker accepts, about 60,000).
MAX_JSON_VALUES = 2**20

# A JSON string, unrolled so that a long string is matched in one run of C code.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_AS_STEPS = bytes.maketrans(b"[]{}", b"\x02\x00\x02\x00")



class Unreadable(Exception):
    """The file cannot be read as text: exit status 2."""


class NotJson(ValueError):
    """The text is not a JSON document within the limits: the check ``json`` fails."""


def read_text(path: Path) -> str:
    """The file's text, refusing more than MAX_FILE_BYTES (without reading beyond the limit) and non-UTF-8 bytes."""
    try:
        if not path.is_file():
            raise Unreadable("is not a regular file")
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise Unreadable(f"is larger than the limit of {MAX_FILE_BYTES} bytes ({MAX_FILE_BYTES // 2**20} MiB) for a certificate")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"is not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def json_limits(text: str, depth: int | None = None, values: int | None = None) -> str | None:
    """Why the JSON text exceeds the reading limits, or None when it is within them.

    Strings are removed first (brackets and commas inside them do not count). The
    nesting depth is the running sum of +1 per ``[``/``{`` and -1 per ``]``/``}``,
    taken with numpy over the brackets alone: no recursion, and a few passes of
    vectorized work whatever the input. The values are at most one more than the
    commas plus the arrays and objects.

    Parameters
    ----------
    text : str
    depth : int, optional
        Deepest nesting of arrays and objects allowed (default MAX_JSON_DEPTH).
    values : int, optional
        Most values allowed (default MAX_JSON_VALUES).
    """
    depth = MAX_JSON_DEPTH if depth is None else depth
    values = MAX_JSON_VALUES if values is None else values
    bare = _STRING.sub(b'""', text.encode("utf-8"))
    brackets = np.frombuffer(bare.translate(_AS_STEPS, delete=_NOT_BRACKETS), dtype=np.int8)
    level = np.cumsum(brackets - 1, dtype=np.int32)  # bytes 2 / 0 are steps +1 / -1; |level| < 2^24
    if len(level) and (level[-1] != 0 or level.min() < 0):
        return "not valid JSON: its brackets do not balance"
    if len(level) and level.max() > depth:
        return f"arrays and objects nest {int(level.max())} levels deep, deeper than the limit of {depth}"
    if bare.count(b",") + len(level) // 2 + 1 > values:
        return f"more than the limit of {values} JSON values for a certificate"
    return None


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all distinct: a repeated key would let two readers see two certificates."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise NotJson(f"the key {repeated[:40]!r} appears twice in one object")
    return data


def _no_constant(name: str):
    raise NotJson(f"{name} is not a JSON number")


def parse_json(text: str):
    """Parse a certificate's JSON text within the limits; :class:`NotJson` with a one-line reason otherwise."""
    problem = json_limits(text)
    if problem is not None:
        raise NotJson(problem)
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
