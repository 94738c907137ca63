"""Reading certificate files within limits: size, nesting, value count, repeated keys, NaN.

Shared by :func:`certify.certificates.verify` and ``certify verify``: a hostile file is
refused before it can cost much. The reading itself is the core's (:mod:`certify._json_limits`:
the size cap applied while reading, nesting and value count measured without recursion
before the JSON parser sees the text); this module holds the limits of a certificate.
"""

from __future__ import annotations

from pathlib import Path

from .._json_limits import NotJson, Unreadable, decode_utf8, read_bytes
from .._json_limits import parse_json as _parse_within

__all__ = ["MAX_FILE_BYTES", "MAX_JSON_DEPTH", "MAX_JSON_VALUES", "Unreadable", "NotJson", "read_text", "parse_json"]

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


def read_text(path: Path) -> str:
    """The file's text, refusing more than MAX_FILE_BYTES (without reading beyond the limit) and non-UTF-8 bytes."""
    return decode_utf8(read_bytes(path, MAX_FILE_BYTES, "a certificate"))


def parse_json(text: str):
    """Parse a certificate's JSON text within the limits; :class:`NotJson` with a one-line reason otherwise."""
    return _parse_within(text, depth=MAX_JSON_DEPTH, values=MAX_JSON_VALUES)
