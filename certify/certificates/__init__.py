"""Auditable certificates of sharp bounds (paper Theorem 4.1) and their independent checker.

Public API:

* :func:`certify_bound` -- an exact :class:`Certificate` for one side of one bound;
* :func:`certify_many` -- many at once (:class:`BatchItem` results);
* :func:`build_likelihood_certificate` -- an exact :class:`LikelihoodCertificate`
  (schema version 2) for one end of a likelihood-ratio bound, from a solver's floats;
* :func:`certify_bound` with the budget :data:`certify.V_INF` (``"inf"``) -- an exact :class:`EndpointCertificate`
  (schema version 3) of the supremum or infimum of E[V_inf], for any moment order up to 20;
* :func:`verify` -- re-check a certificate (object, dict, JSON text or file) with the
  solver-free exact checker of its version (:mod:`certify.certificates._verify`,
  :mod:`certify.certificates._verify_likelihood`, :mod:`certify.certificates._verify_endpoint`,
  on the shared kernel :mod:`~certify.certificates._kernel`, ``_checking``, ``_budget``,
  ``_objective_check``, ``_proofs``);
* :func:`write_certificate_set` -- likelihood certificates (each with its :class:`DataSource`)
  and their ``index.json`` as one folder, all or nothing; :func:`check_certificate_folder`
  refuses an unusable folder first; :func:`read_index` / :func:`entry_problem` hold a folder
  to its index (:mod:`certify.certificates._index`, schema ``certificate-index-v1.json``);
* :func:`dump` / :func:`load` -- JSON files (atomic write), schemas
  ``certify/schemas/certificate-v1.json``, ``-v2.json`` and ``-v3.json`` (:func:`schema`);
  each schema version is one row of :data:`certify.certificates._registry.SCHEMAS`;
* :func:`enclosure_text` -- an enclosure as printed, rounded outward (it contains the exact one);
* the checker's work budget (:mod:`certify.certificates._budget`, check ``work_limit``): :data:`MAX_DEGREE`,
  :data:`MAX_CALLS`, :data:`MAX_CELLS`, :data:`MAX_ATOMS`, :data:`MAX_DIGITS` and cost estimates of the
  proofs (:func:`lagrangian_cost` of a data set's cells, limited by :data:`MAX_LAGRANGIAN_COST`, is the
  one ``analyze --certificates`` checks before solving); the limits :data:`MAX_N` (largest majority index)
  and :data:`MAX_FILE_BYTES`,
  and its guarded reading :func:`read_text` / :func:`parse_json` (errors :class:`Unreadable`,
  :class:`NotJson`), for callers such as ``certify verify``.
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
