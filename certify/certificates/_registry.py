"""The registry of certificate schema versions: one row per kind of certificate file.

Each row ties a schema version and kind (the two fields every file states) to the
record class that holds it, the builder that makes it, the independent checker that
re-checks it with its checks in order, and its JSON Schema file.
:func:`certify.certificates.dump`, :func:`~certify.certificates.load`,
:func:`~certify.certificates.verify` and :func:`~certify.certificates.schema`
consult this table; a new schema version is one new row.

Versioning rules. A version's meaning never changes: a field whose absence would change
what a file states, or a change of any existing field, needs a new version (a new row).
A field may be added to a version only as an optional one that is not part of the proof,
so that every file without it stays valid and means the same (the likelihood
certificate's ``source``, which names the group and data file behind its cells). A checker
older than the field refuses a file that carries it (unknown keys are refused
everywhere), so it can never misread one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from ._build import build_certificate
from ._certificate import Certificate
from ._checking import VerificationResult, show
from ._endpoint_build import build_endpoint_certificate
from ._endpoint_certificate import EndpointCertificate
from ._kernel import (
    ENDPOINT_KIND,
    ENDPOINT_SCHEMA_VERSION,
    LIKELIHOOD_KIND,
    LIKELIHOOD_SCHEMA_VERSION,
    SCHEMA_VERSION,
    SHARP_KIND,
)
from ._likelihood_build import build_likelihood_certificate
from ._likelihood_certificate import LikelihoodCertificate
from ._verify import CHECKS, verify_dict
from ._verify_endpoint import CHECKS as ENDPOINT_CHECKS
from ._verify_endpoint import verify_endpoint_dict
from ._verify_likelihood import CHECKS as LIKELIHOOD_CHECKS
from ._verify_likelihood import verify_likelihood_dict

__all__ = ["SCHEMAS", "SCHEMA_DIR", "Schema", "for_data", "for_record", "for_version", "verify_record"]

#: The JSON Schema files of certify's outputs (certificate-v<version>.json among them).
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@dataclass(frozen=True)
class Schema:
    """One certificate schema: what a file of this version and kind is, and who makes and checks it.

    Attributes
    ----------
    version : str
        The file's ``schema_version``.
    kind : str
        The file's ``kind``.
    record : type
        The class holding such a certificate (``from_dict`` reads the layout, ``to_dict`` writes it).
    build : callable
        The builder that produces a record from a numerical solution.
    verify : callable
        The independent checker: parsed JSON object -> :class:`VerificationResult`, never raising.
    checks : tuple of str
        The checker's checks, in the order they run.
    path : pathlib.Path
        The JSON Schema of the file layout.
    """

    version: str
    kind: str
    record: type[Certificate] | type[LikelihoodCertificate] | type[EndpointCertificate]
    build: Callable
    verify: Callable[[object], VerificationResult]
    checks: tuple[str, ...]
    path: Path


SCHEMAS = (
    Schema(
        SCHEMA_VERSION,
        SHARP_KIND,
        Certificate,
        build_certificate,
        verify_dict,
        CHECKS,
        SCHEMA_DIR / "certificate-v1.json",
    ),
    Schema(
        LIKELIHOOD_SCHEMA_VERSION,
        LIKELIHOOD_KIND,
        LikelihoodCertificate,
        build_likelihood_certificate,
        verify_likelihood_dict,
        LIKELIHOOD_CHECKS,
        SCHEMA_DIR / "certificate-v2.json",
    ),
    Schema(
        ENDPOINT_SCHEMA_VERSION,
        ENDPOINT_KIND,
        EndpointCertificate,
        build_endpoint_certificate,
        verify_endpoint_dict,
        ENDPOINT_CHECKS,
        SCHEMA_DIR / "certificate-v3.json",
    ),
)


def _known() -> str:
    return ", ".join(f"{entry.version!r} ({entry.kind})" for entry in SCHEMAS)


def _row(version) -> Schema | None:
    return next((entry for entry in SCHEMAS if entry.version == version), None)


def for_version(version) -> Schema:
    """The row of a schema version; InputError naming it and listing the known ones otherwise."""
    entry = _row(version)
    if entry is None:
        raise InputError(f"schema_version={show(version)} is not a certificate schema version (known: {_known()})")
    return entry


def for_data(data) -> Schema:
    """The row of a parsed certificate file: its ``schema_version`` and ``kind`` must both be one row's."""
    if not isinstance(data, dict):
        raise InputError(f"certificate must be a JSON object, not {type(data).__name__}")
    version, kind = data.get("schema_version"), data.get("kind")
    for entry in SCHEMAS:
        if (entry.version, entry.kind) == (version, kind):
            return entry
    raise InputError(
        f"schema_version={show(version)}, kind={show(kind)} is not a known certificate (known: {_known()})"
    )


def for_record(certificate) -> Schema:
    """The row of a certificate object; InputError for anything that is not one of the record classes."""
    for entry in SCHEMAS:
        if isinstance(certificate, entry.record):
            return entry
    raise InputError(
        f"{type(certificate).__name__} is not a certificate (known: {', '.join(e.record.__name__ for e in SCHEMAS)})"
    )


def _fail(check: str, message: str) -> VerificationResult:
    return VerificationResult(False, check, f"{check}: {message}")


def verify_record(data) -> VerificationResult:
    """Check a parsed certificate file with the checker of its ``schema_version``; never raises on bad data.

    A kind that belongs to another version fails the check ``schema_version``; an unknown
    kind is left to the version's checker (check ``structure``).
    """
    if not isinstance(data, dict):
        return _fail("structure", "a certificate must be a JSON object")
    version, kind = data.get("schema_version"), data.get("kind")
    entry = _row(version)
    if entry is None:
        known = ", ".join(repr(e.version) for e in SCHEMAS)
        return _fail("schema_version", f"schema_version={show(version)} is unknown (supported: {known})")
    if kind != entry.kind and any(kind == e.kind for e in SCHEMAS):
        return _fail("schema_version", f"schema_version={show(version)} does not hold kind {show(kind)}")
    return entry.verify(data)
