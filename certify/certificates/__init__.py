"""Auditable certificates of sharp bounds (paper Theorem 4.1) and their independent checker.

Public API:

* :func:`certify_bound` -- an exact :class:`Certificate` for one side of one bound;
* :func:`certify_many` -- many at once (:class:`BatchItem` results);
* :func:`verify` -- re-check a certificate (object, dict, JSON text or file) with the
  solver-free exact checker of :mod:`certify.certificates._verify`;
* :func:`dump` / :func:`load` -- JSON files (atomic write), schema
  ``certify/schemas/certificate-v1.json``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from .._bounds import as_moments
from .._errors import InputError
from ._batch import BatchItem, certify_many
from ._build import DEFAULT_DIGITS, build_certificate, describe_inputs
from ._certificate import SCHEMA_VERSION, Certificate, Provenance
from ._verify import CHECKS, VerificationResult, verify_dict

__all__ = [
    "CHECKS",
    "DEFAULT_DIGITS",
    "SCHEMA_VERSION",
    "BatchItem",
    "Certificate",
    "Provenance",
    "VerificationResult",
    "certify_bound",
    "certify_many",
    "dump",
    "load",
    "schema",
    "to_json",
    "verify",
]

_PAIR = re.compile(r'\[\s+("-?\d+/\d+"),\s+([^\s\]]+)\s+\]')

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "certificate-v1.json"


def certify_bound(objective, side: str, *, mu=None, nu=None, rho=None, moments=None, digits: int | None = None, method: str = "exact") -> Certificate:
    """Exact certificate of one side of the sharp bound of E[g(Q)] (Theorem 4.1).

    Parameters
    ----------
    objective : Objective, int, str, sequence or sympy expression
        An int is a vote budget (``101`` means V_101); strings follow the objective
        syntax (``"P3 - P1"``).
    side : {"lower", "upper"}
    mu, nu, rho, moments
        The moment class as for :func:`certify.sharp_bounds`. Strings such as
        ``"4517/8192"`` or ``"0.7"`` are exact; floats are taken bit for bit.
    digits : int, optional
        Enclosure width at most 10^-digits (default 12).
    method : {"exact", "sos", "grid"}
        Engine method for the numerical solution that is then made exact.

    Returns
    -------
    Certificate
        Accepted by :func:`verify` before it is returned.

    Examples
    --------
    >>> c = certify_bound(3, "upper", mu="0.7", rho="0.2")
    >>> c.width == 0, float(c.value)   # U_1 = 3 nu - 2 nu^2 / mu (Theorem 4.2)
    (True, 0.78736)
    """
    mom = as_moments(mu, nu, rho, moments)
    given = describe_inputs(mu=mu, nu=nu, rho=rho, moments=moments)
    return build_certificate(objective, mom, side, given=given, digits=digits, method=method)


def verify(certificate) -> VerificationResult:
    """Re-check a certificate with the independent exact checker.

    Parameters
    ----------
    certificate : Certificate, dict, str or os.PathLike
        A :class:`Certificate`, its ``to_dict()``, JSON text, or a path to a JSON file.

    Returns
    -------
    VerificationResult
        ``ok`` and the certified interval, or the name of the first failed check
        (``json`` for text that is not JSON).
    """
    if isinstance(certificate, Certificate):
        return verify_dict(certificate.to_dict())
    if isinstance(certificate, os.PathLike):
        certificate = Path(certificate).read_text()
    if isinstance(certificate, (str, bytes)):
        try:
            certificate = json.loads(certificate)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return VerificationResult(False, "json", f"json: not valid JSON ({exc})")
    return verify_dict(certificate)


def dump(certificate: Certificate, path) -> Path:
    """Write a certificate as JSON atomically (temporary file, then ``os.replace``)."""
    path = Path(path)
    data = to_json(certificate)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def to_json(certificate: Certificate) -> str:
    """JSON text of a certificate, one ``["p/q", float]`` pair per line."""
    text = json.dumps(certificate.to_dict(), indent=1, allow_nan=False)
    return _PAIR.sub(r"[\1, \2]", text) + "\n"


def load(path) -> Certificate:
    """Read a certificate file (layout only; call :func:`verify` for the mathematics)."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    return Certificate.from_dict(data)


def schema() -> dict:
    """The JSON Schema of certificate files (``certify/schemas/certificate-v1.json``)."""
    return json.loads(SCHEMA_PATH.read_text())
