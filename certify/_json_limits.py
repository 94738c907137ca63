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
  ``ValueError`` for it); :func:`strict_decoder` makes its decoder once for many small
  documents (JSON lines), and :class:`ValueBudget` shares one value limit among the
  documents of one log.

Every refusal is a :class:`NotJson` or :class:`Unreadable` whose message is one line without
the file name; callers put the name (and their own error type) in front.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

__all__ = [
    "NotJson",
    "Unreadable",
    "ValueBudget",
    "decode_utf8",
    "json_limits",
    "parse_json",
    "read_bytes",
    "strict_decoder",
]

#: Bytes measured at once by :func:`json_limits`: its working memory is about 30 bytes per
#: byte of one block (120 MiB at most), whatever the size of the text.
_BLOCK = 2**22
_QUOTE, _BACKSLASH = 0x22, 0x5C
# b & 0xDF maps '{' / '}' onto '[' / ']' (0x5B / 0x5D) and ',' onto 0x0C, which no other byte
# but a form feed shares (not JSON outside a string, so an over-count only for invalid text)
_FOLD, _OPEN, _CLOSE, _COMMA = 0xDF, 0x5B, 0x5D, 0x0C


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


def _escaped(a: np.ndarray, quotes: np.ndarray, run: int) -> tuple[np.ndarray, int]:
    """Which quotes of a block a backslash escapes, and the run of backslashes that ends the block.

    A quote is escaped when an odd run of backslashes precedes it (``\\"`` escapes, ``\\\\"``
    does not); ``run`` is the length of the run that ended the previous block.
    """
    slashes = np.flatnonzero(a == _BACKSLASH)
    if not len(slashes):
        escaped = np.zeros(len(quotes), dtype=bool)
        if run % 2 and len(quotes) and quotes[0] == 0:
            escaped[0] = True
        return escaped, 0
    gaps = np.flatnonzero(np.diff(slashes) != 1)
    starts, ends = np.r_[slashes[0], slashes[gaps + 1]], np.r_[slashes[gaps], slashes[-1]]
    lengths = ends - starts + 1
    if starts[0] == 0:
        lengths[0] += run
    after = ends[lengths % 2 == 1] + 1  # positions an odd run escapes
    if run % 2 and starts[0] != 0:
        after = np.r_[0, after]
    if not len(after):
        return np.zeros(len(quotes), dtype=bool), int(lengths[-1]) if ends[-1] == len(a) - 1 else 0
    hit = np.searchsorted(after, quotes)
    escaped = after[np.minimum(hit, len(after) - 1)] == quotes
    return escaped, int(lengths[-1]) if ends[-1] == len(a) - 1 else 0


def json_limits(data: str | bytes, *, depth: int, values: int | ValueBudget | None = None) -> str | None:
    """Why a JSON text exceeds the limits, or None when it is within them.

    The text is read in blocks of ``_BLOCK`` bytes with numpy, carrying from block to block
    whether it is inside a string, the run of backslashes it ends with and the nesting level:
    quotes that no odd run of backslashes escapes open and close strings; brackets and commas
    outside strings count. The depth is the running sum of +1 per ``[``/``{`` and -1 per
    ``]``/``}``; the values are at most one more than the commas plus the arrays and objects.
    A text longer than one block is refused at the first block past the depth or the values.
    A backslash outside a string is invalid JSON (the parser then refuses the text, at or
    before it: up to there the parser and this count agree). A text with more than four times
    ``values`` quotes (not after a backslash) is refused at once.

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
    # Every string is a value or a key, and every key has a value: the values are at least
    # half the strings, and the strings half the quotes that follow no backslash.
    if limit is not None and (raw.count(b'"') - raw.count(b'\\"')) // 4 > limit:
        return f"more than the limit of {limit} JSON values"
    inside, run, level, deepest, count = 0, 0, 0, 0, 1
    for start in range(0, len(raw), _BLOCK):
        a = np.frombuffer(raw, dtype=np.uint8, count=min(_BLOCK, len(raw) - start), offset=start)
        quotes = np.flatnonzero(a == _QUOTE)
        escaped, run = _escaped(a, quotes, run)
        quotes = quotes[~escaped]
        folded = a & _FOLD
        marks = np.flatnonzero((folded == _OPEN) | (folded == _CLOSE) | (folded == _COMMA))
        marks = marks[(np.searchsorted(quotes, marks) + inside) % 2 == 0]  # outside strings
        inside = (inside + len(quotes)) % 2
        kinds = folded[marks]
        steps = (kinds == _OPEN).astype(np.int64) - (kinds == _CLOSE)
        count += len(marks) - int((kinds == _CLOSE).sum())  # commas and openings
        if len(steps):
            running = np.cumsum(steps) + level
            if running.min() < 0:
                return "not valid JSON: its brackets do not balance"
            deepest, level = max(deepest, int(running.max())), int(running[-1])
        if start + _BLOCK < len(raw):  # a long text: stop at the first block past a limit
            if deepest > depth:
                return f"arrays and objects nest {deepest} levels deep or more, deeper than the limit of {depth}"
            if limit is not None and count > limit:
                return f"more than the limit of {limit} JSON values"
    if level != 0:
        return "not valid JSON: its brackets do not balance"
    if deepest > depth:
        return f"arrays and objects nest {deepest} levels deep, deeper than the limit of {depth}"
    if limit is not None and count > limit:
        return f"more than the limit of {limit} JSON values"
    if isinstance(values, ValueBudget):
        values.left -= count
    return None


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all distinct (module docstring)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise NotJson(f"the key {key[:40]!r} appears twice in one object")
            seen.add(key)
    return data


def _no_constant(name: str):
    raise NotJson(f"{name} is not a JSON number")


def strict_decoder(parse_float=None) -> json.JSONDecoder:
    """The decoder :func:`parse_json` uses: repeated keys and NaN/Infinity refused (module docstring).

    Parameters
    ----------
    parse_float : callable, optional
        Reads the text of a JSON number with a fraction or exponent (default ``float``;
        ``decimal.Decimal`` keeps its exact value). Make one decoder and pass it to
        :func:`parse_json` for many small documents (JSON lines): making it costs as much
        as parsing a short line.
    """
    return json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=parse_float)


def parse_json(
    data: str | bytes, *, depth: int, values: int | ValueBudget | None = None, decoder: json.JSONDecoder | None = None
):
    """Parse a JSON document within the limits (module docstring).

    Parameters
    ----------
    data : str or bytes
        The text; bytes must be UTF-8 (a leading byte-order mark is dropped).
    depth, values
        The limits of :func:`json_limits`.
    decoder : json.JSONDecoder, optional
        A :func:`strict_decoder` (default: a new one).

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
    if isinstance(data, str):
        opening = data.count("[") + data.count("{")
    else:
        opening = data.count(b"[") + data.count(b"{")
    if opening > depth or values is not None:  # fewer brackets than the depth limit cannot nest deeper than it
        problem = json_limits(data, depth=depth, values=values)
        if problem is not None:
            raise NotJson(problem)
    text = decode_utf8(data, NotJson) if isinstance(data, bytes) else data
    try:
        return (decoder or strict_decoder()).decode(text)
    except json.JSONDecodeError as exc:
        raise NotJson(f"not valid JSON ({exc})") from None
    except RecursionError:  # cannot happen after the nesting check; kept so that no traceback can
        raise NotJson("nesting too deep for the JSON parser") from None
    except NotJson:
        raise
    except ValueError:  # the one other failure: an integer beyond Python's conversion limit
        raise NotJson(f"a number has more than {sys.get_int_max_str_digits()} digits, more than Python reads") from None
