"""The JSON text of a certificate file: one exact pair ``["p/q", float]`` (or one data cell) per line."""

from __future__ import annotations

import json
import re

from ._certificate import Certificate
from ._endpoint_certificate import EndpointCertificate
from ._likelihood_certificate import LikelihoodCertificate
from ._registry import for_record

__all__ = ["to_json"]

_PAIR = re.compile(r'\[\s+("-?\d+/\d+"),\s+([^\s\]]+)\s+\]')
_CELL = re.compile(r'\{\s+"calls": (\d+),\s+"successes": (\d+),\s+"count": (\d+)\s+\}')


def to_json(certificate: Certificate | LikelihoodCertificate | EndpointCertificate) -> str:
    """JSON text of a certificate, one ``["p/q", float]`` pair (or one data cell) per line.

    InputError for an object that is not one of the registered certificate classes.
    """
    for_record(certificate)
    text = json.dumps(certificate.to_dict(), indent=1, allow_nan=False)
    text = _CELL.sub(r'{"calls": \1, "successes": \2, "count": \3}', text)
    return _PAIR.sub(r"[\1, \2]", text) + "\n"
