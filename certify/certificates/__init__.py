"""Auditable certificates of sharp bounds (paper Theorem 4.1) and their independent checker.

A certificate holds exact rational numbers for one side of one bound; :func:`verify` re-proves
it with the solver-free exact checker of its schema version (:mod:`certify.certificates._verify`,
:mod:`certify.certificates._verify_likelihood`, :mod:`certify.certificates._verify_endpoint`, on
the shared kernel :mod:`~certify.certificates._kernel`, ``_checking``, ``_budget``,
``_objective_check``, ``_proofs``). Each schema version is one row of
:data:`certify.certificates._registry.SCHEMAS`.

Building certificates
---------------------

* :func:`~certify.certify_bound` -- exact certificate of one side of the sharp bound of E[g(Q)] (Theorem 4.1).
* :func:`~certify.certify_many` -- certificates for many bounds, in order.
* :class:`BatchItem` -- one outcome of :func:`~certify.certify_many`: a certificate, or the error that stopped it.
* :func:`build_likelihood_certificate` -- exact certificate of one end of a likelihood-ratio bound, from floats.
* :data:`DEFAULT_DIGITS` -- without ``digits`` the enclosure width is at most 10^-DEFAULT_DIGITS.

With the budget :data:`certify.V_INF` (``"inf"``), :func:`~certify.certify_bound` returns an
:class:`EndpointCertificate` of the supremum or infimum of E[V_inf], for any moment order up to 20.

Certificate records
-------------------

* :class:`Certificate` -- one side of a sharp bound over a moment class (schema version 1).
* :class:`Provenance` -- how a certificate was produced.
* :class:`LikelihoodCertificate` -- a likelihood-ratio bound on E_pi[g(Q)] (schema version 2).
* :class:`LikelihoodProvenance` -- how a likelihood certificate was produced (the checker ignores it).
* :class:`DataSource` -- which data a likelihood certificate was computed from (recorded, not proven).
* :class:`EndpointCertificate` -- one side of the V_inf bound (schema version 3).

Checking
--------

* :func:`verify` -- re-check a certificate (object, dict, JSON text or file) with its version's checker.
* :class:`VerificationResult` -- outcome of a checker: ``ok`` and what was proven, or the failed check.
* :data:`CHECKS` -- the checks of schema version 1, in the order they run.
* :data:`LIKELIHOOD_CHECKS` -- the checks of schema version 2, in the order they run.
* :data:`ENDPOINT_CHECKS` -- the checks of schema version 3, in the order they run.
* :func:`enclosure_text` -- an enclosure as printed, rounded outward (it contains the exact one).

Files and schemas
-----------------

* :func:`dump` -- write a certificate as JSON atomically (temporary file, then ``os.replace``).
* :func:`load` -- read a certificate file of any version (layout only; :func:`verify` checks the mathematics).
* :func:`to_json` -- JSON text of a certificate, one ``["p/q", float]`` pair (or one data cell) per line.
* :func:`schema` -- the JSON Schema of certificate files of one version.
* :data:`SCHEMA_DIR` -- the folder of the JSON Schema files of certify's outputs.
* :data:`SCHEMA_VERSION` -- sharp bound of E[g(Q)] over a moment class: ``certificate-v1.json``.
* :data:`LIKELIHOOD_SCHEMA_VERSION` -- one end of a likelihood-ratio bound: ``certificate-v2.json``.
* :data:`ENDPOINT_SCHEMA_VERSION` -- supremum or infimum of E[V_inf] (Theorem 4.3): ``certificate-v3.json``.

Certificate folders (``certificate-index-v1.json``)
---------------------------------------------------

* :func:`write_certificate_set` -- likelihood certificates and their index as one folder, all or nothing.
* :func:`check_certificate_folder` -- refuse a certificate folder that cannot be written, before any work.
* :func:`read_index` -- read an index.json (within the reading limits) and compare its folder with it.
* :func:`entry_problem` -- why a verified certificate does not match its index entry, or None.
* :func:`is_index` -- whether a parsed JSON value claims to be a certificate index.
* :func:`certificate_file_name` -- the file of one certificate: ``[<group>-<hash>_]<objective>_<side>.json``.
* :class:`FolderIndex` -- a valid index and how its folder compares with it.
* :exc:`IndexProblem` -- an index.json that is not a valid certificate index; the message says why.
* :data:`INDEX_FILE` -- the index's file name inside a certificate folder.

The checker's work budget (check ``work_limit``)
------------------------------------------------

* :data:`MAX_DEGREE` -- highest objective degree (schemas 1 and 2): V_4001.
* :data:`MAX_CALLS` -- most calls K of a cell (schema 2).
* :data:`MAX_CELLS` -- most cells, distinct (K, S) pairs (schema 2).
* :data:`MAX_ATOMS` -- most atoms of a law.
* :data:`MAX_DIGITS` -- largest numerator or denominator (decimal digits) of any exact number.
* :data:`MAX_LAGRANGIAN_COST` -- largest :func:`lagrangian_cost`; ``analyze --certificates`` checks it first.
* :func:`lagrangian_cost` -- the size of the cells' polynomials summed into the Lagrangian, from their K alone.
* :data:`MAX_N` -- largest majority index accepted (2 MAX_N + 1 = MAX_DEGREE votes).

Guarded reading (for callers such as ``certify verify``)
--------------------------------------------------------

* :func:`read_text` -- a file's text, refusing more than :data:`MAX_FILE_BYTES` and non-UTF-8 bytes.
* :func:`parse_json` -- parse a certificate's JSON text within the limits.
* :data:`MAX_FILE_BYTES` -- largest certificate file read (16 MiB).
* :exc:`Unreadable` -- a file cannot be read within the limit; the message says why.
* :exc:`NotJson` -- the text is not a JSON document within the limits; the message says why.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import overload

from .._bounds import as_moments
from .._errors import InputError
from .._files import write_atomically
from .._objective import Objective, VoteLimit, is_vote_limit
from ._batch import BatchItem, certify_many
from ._budget import MAX_ATOMS, MAX_CALLS, MAX_CELLS, MAX_DEGREE, MAX_DIGITS, MAX_LAGRANGIAN_COST, lagrangian_cost
from ._build import DEFAULT_DIGITS, build_certificate
from ._certificate import Certificate, Provenance, describe_inputs
from ._checking import VerificationResult, enclosure_text
from ._endpoint_build import build_endpoint_certificate
from ._endpoint_certificate import EndpointCertificate
from ._index import (
    INDEX_FILE,
    FolderIndex,
    IndexProblem,
    certificate_file_name,
    check_certificate_folder,
    entry_problem,
    is_index,
    read_index,
    write_certificate_set,
)
from ._kernel import ENDPOINT_SCHEMA_VERSION, LIKELIHOOD_SCHEMA_VERSION, SCHEMA_VERSION
from ._likelihood_build import build_likelihood_certificate
from ._likelihood_certificate import DataSource, LikelihoodCertificate, LikelihoodProvenance
from ._objective_check import MAX_N
from ._reading import MAX_FILE_BYTES, NotJson, Unreadable, parse_json, read_text
from ._registry import SCHEMA_DIR, SCHEMAS, for_data, for_version, verify_record
from ._text import to_json
from ._verify import CHECKS
from ._verify_endpoint import CHECKS as ENDPOINT_CHECKS
from ._verify_likelihood import CHECKS as LIKELIHOOD_CHECKS

__all__ = [
    "CHECKS",
    "DEFAULT_DIGITS",
    "ENDPOINT_CHECKS",
    "ENDPOINT_SCHEMA_VERSION",
    "INDEX_FILE",
    "LIKELIHOOD_CHECKS",
    "LIKELIHOOD_SCHEMA_VERSION",
    "MAX_ATOMS",
    "MAX_CALLS",
    "MAX_CELLS",
    "MAX_DEGREE",
    "MAX_DIGITS",
    "MAX_FILE_BYTES",
    "MAX_LAGRANGIAN_COST",
    "MAX_N",
    "SCHEMA_DIR",
    "SCHEMA_VERSION",
    "BatchItem",
    "Certificate",
    "DataSource",
    "EndpointCertificate",
    "FolderIndex",
    "IndexProblem",
    "LikelihoodCertificate",
    "LikelihoodProvenance",
    "NotJson",
    "Provenance",
    "Unreadable",
    "VerificationResult",
    "build_likelihood_certificate",
    "certify_bound",
    "certificate_file_name",
    "certify_many",
    "check_certificate_folder",
    "dump",
    "enclosure_text",
    "entry_problem",
    "is_index",
    "lagrangian_cost",
    "load",
    "parse_json",
    "read_index",
    "read_text",
    "schema",
    "to_json",
    "verify",
    "write_certificate_set",
]


@overload
def certify_bound(
    objective: VoteLimit,
    side: str,
    *,
    mu=None,
    nu=None,
    rho=None,
    moments=None,
    digits: int | None = None,
    method: str = "exact",
) -> EndpointCertificate: ...


@overload
def certify_bound(
    objective: int | Objective,
    side: str,
    *,
    mu=None,
    nu=None,
    rho=None,
    moments=None,
    digits: int | None = None,
    method: str = "exact",
) -> Certificate: ...


@overload
def certify_bound(
    objective: object,
    side: str,
    *,
    mu=None,
    nu=None,
    rho=None,
    moments=None,
    digits: int | None = None,
    method: str = "exact",
) -> Certificate | EndpointCertificate: ...


def certify_bound(
    objective, side: str, *, mu=None, nu=None, rho=None, moments=None, digits: int | None = None, method: str = "exact"
) -> Certificate | EndpointCertificate:
    """Exact certificate of one side of the sharp bound of E[g(Q)] (Theorem 4.1).

    Parameters
    ----------
    objective : Objective, int, str, sequence or sympy expression
        An int is a vote budget (``101`` means V_101); strings follow the objective
        syntax (``"P3 - P1"``); :data:`certify.V_INF` (or ``"inf"``, any spelling of
        :func:`certify.parse_vote_budget`) is the infinite-vote endpoint V_inf, whose
        certificate (:class:`EndpointCertificate`, schema 3) encloses the supremum or
        infimum (``digits`` and ``method`` do not apply: its width is about 1e-19).
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
    if is_vote_limit(objective):
        return build_endpoint_certificate(mom, side, given=given)
    return build_certificate(objective, mom, side, given=given, digits=digits, method=method)


def verify(certificate) -> VerificationResult:
    """Re-check a certificate with the independent exact checker of its schema version.

    Parameters
    ----------
    certificate : Certificate, LikelihoodCertificate, EndpointCertificate, dict, str or os.PathLike
        A certificate object, its ``to_dict()``, JSON text, or a path to a JSON file.

    Returns
    -------
    VerificationResult
        ``ok`` and what was proven (the certified interval for versions 1 and 3, the bound
        for version 2), or the name of the first failed check (``json`` for text that is not
        JSON, ``schema_version`` for a version the registry does not know).
    """
    records: tuple[type[Certificate | LikelihoodCertificate | EndpointCertificate], ...]
    records = tuple(entry.record for entry in SCHEMAS)
    if isinstance(certificate, records):
        certificate = certificate.to_dict()
    try:  # text is read within the limits of certify.certificates._reading: no hostile input can stall it
        if isinstance(certificate, os.PathLike):
            certificate = read_text(Path(certificate))
        if isinstance(certificate, bytes):
            certificate = certificate.decode("utf-8")
        if isinstance(certificate, str):
            certificate = parse_json(certificate)
    except (NotJson, Unreadable, UnicodeDecodeError) as exc:
        return VerificationResult(False, "json", f"json: {exc}")
    return verify_record(certificate)


def dump(certificate: Certificate | LikelihoodCertificate | EndpointCertificate, path) -> Path:
    """Write a certificate as JSON atomically (temporary file, then ``os.replace``; mode from the umask)."""
    return write_atomically(path, to_json(certificate))


def load(path) -> Certificate | LikelihoodCertificate | EndpointCertificate:
    """Read a certificate file of any version (layout only; call :func:`verify` for the mathematics).

    The file's ``schema_version`` and ``kind`` choose the record class; InputError naming
    them and listing the known ones when they are no registered schema's.
    """
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    return for_data(data).record.from_dict(data)


def schema(version: str = SCHEMA_VERSION) -> dict:
    """The JSON Schema of certificate files of one version (``certify/schemas/certificate-v<version>.json``)."""
    return json.loads(for_version(str(version)).path.read_text())
