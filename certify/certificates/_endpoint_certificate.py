"""The :class:`EndpointCertificate` of one side of the infinite-vote bound (schema version 3).

V_inf = P(Q > 1/2) + P(Q = 1/2)/2 (eq. (main-vinf)) is a step function, so its sharp
bounds over a moment class are a supremum and an infimum (Theorem 4.3 for one or two
moments; the Chebyshev-Markov-Stieltjes bounds for any order, :mod:`certify._endpoint`).
A certificate of the upper side states:

* a law ``(atoms, weights)`` with rational atoms reproduces the moments exactly, so
  ``primal_value`` = V_inf(law) <= sup;
* the rational polynomial ``dual`` p of degree <= m satisfies p >= 0 on [0, 1/2] and
  p >= 1 on [1/2, 1], so p >= 1{q >= 1/2} >= V_inf(q) on [0, 1] and every law of the class
  has E[V_inf] <= E[p] = ``dual_value``.

The lower side is the mirror image (p <= 0 on [0, 1/2], p <= 1 on [1/2, 1]). The
objective is fixed, so it is named, never given by coefficients. In JSON every exact
number is a pair ``["p/q", readable float]``; the layout is
``certify/schemas/certificate-v3.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .._errors import InputError
from ._certificate import MomentBoundProperties, Provenance, bound_fields, bound_record
from ._kernel import ENDPOINT_DEFINITION, ENDPOINT_KIND, ENDPOINT_NAME, ENDPOINT_SCHEMA_VERSION

__all__ = ["EndpointCertificate"]


@dataclass(frozen=True)
class EndpointCertificate(MomentBoundProperties):
    """An exact, independently checkable certificate of one side of the V_inf bound.

    Attributes
    ----------
    side : {"lower", "upper"}
    moments_given : tuple of (str, str, str)
        ``(name, text, exact_from)`` for each input as given (as in :class:`Certificate`).
    moments : tuple of Fraction
        Exact moments (m_1, ..., m_m).
    atoms, weights : tuple of Fraction
        A law of the class: reproduces the moments exactly.
    dual : tuple of Fraction
        Monomial coefficients c_0..c_k (k <= m) of p.
    contacts : tuple of (Fraction, int)
        Points x of [0, 1] where p touches its step (0 or 1) and the multiplicity: the
        checker divides them out of the half, [0, 1/2] or [1/2, 1], where the gap vanishes.
    primal_value, dual_value, value : Fraction
        V_inf(law), sum_k c_k m_k, and the claimed supremum / infimum (in the enclosure).
    provenance : Provenance
    schema_version : str
    """

    side: str
    moments_given: tuple[tuple[str, str, str], ...]
    moments: tuple[Fraction, ...]
    atoms: tuple[Fraction, ...]
    weights: tuple[Fraction, ...]
    dual: tuple[Fraction, ...]
    contacts: tuple[tuple[Fraction, int], ...]
    primal_value: Fraction
    dual_value: Fraction
    value: Fraction
    provenance: Provenance
    schema_version: str = field(default=ENDPOINT_SCHEMA_VERSION)

    @property
    def objective_name(self) -> str:
        return ENDPOINT_NAME

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "kind": ENDPOINT_KIND,
            "side": self.side,
            "objective": {"name": ENDPOINT_NAME, "definition": ENDPOINT_DEFINITION},
            **bound_record(self),
        }

    @classmethod
    def from_dict(cls, data: dict) -> EndpointCertificate:
        """Rebuild from :meth:`to_dict` output; InputError for a malformed record (layout only)."""
        if not isinstance(data, dict):
            raise InputError(f"certificate must be a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version != ENDPOINT_SCHEMA_VERSION:
            raise InputError(f"schema_version={version!r} is not supported (expected {ENDPOINT_SCHEMA_VERSION!r})")
        try:
            return cls(
                side=str(data["side"]),
                **bound_fields(data),
                schema_version=version,
            )
        except (KeyError, TypeError) as exc:
            raise InputError(f"certificate record is malformed: missing or wrong field {exc}") from None
