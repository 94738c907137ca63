"""The :class:`LikelihoodCertificate`: one end of a likelihood-ratio bound, exactly (schema version 2).

It states that every law pi of the latent success probability with
l(pi) >= l(pi_ref) - c has E_pi[g] >= bound (side ``lower``) or <= bound
(``upper``), and carries the proof: the law pi*, the multiplier lambda and the
constant a of the Lagrangian inequality checked by
:mod:`certify.certificates._verify_likelihood`. In JSON every exact number is a
pair ``["p/q", readable float]``; the layout is ``certify/schemas/certificate-v2.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .._errors import InputError
from ._certificate import parse_pair
from ._kernel import ENDPOINT_NAME, LIKELIHOOD_KIND, LIKELIHOOD_SCHEMA_VERSION, exact_pair
from ._verify_likelihood import DEFINED_OBJECTIVES

__all__ = ["DataSource", "LikelihoodCertificate", "LikelihoodProvenance"]


@dataclass(frozen=True)
class LikelihoodProvenance:
    """How a likelihood certificate was produced (informational; the checker ignores it).

    Attributes
    ----------
    version : str
        ``certify`` package version.
    margin : float
        How far a was lowered below the exact minimum of s g - lambda h, so that the
        Lagrangian polynomial is strictly positive (objective units).
    seconds : float
        Wall time to produce the certificate, its self-check included.
    created : str
        UTC timestamp, ISO 8601.
    """

    version: str
    margin: float
    seconds: float
    created: str
    package: str = "certify"

    def to_dict(self) -> dict:
        return {
            "package": self.package,
            "version": self.version,
            "margin": self.margin,
            "seconds": self.seconds,
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: dict) -> LikelihoodProvenance:
        try:
            return cls(
                str(data["version"]),
                float(data["margin"]),
                float(data["seconds"]),
                str(data["created"]),
                str(data["package"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"provenance={data!r} is malformed ({exc})") from None


@dataclass(frozen=True)
class DataSource:
    """Which data a likelihood certificate was computed from (recorded, not proven: the proof is about its cells).

    ``certify verify DIR`` compares both fields with the folder's ``index.json``, so a
    certificate cannot be read as another group's or another data file's.

    Attributes
    ----------
    group : str
        The group of the data file (``dataset/policy``; ``""`` for a file without groups).
    data_sha256 : str
        SHA-256 of the data file's bytes, 64 lowercase hexadecimal digits.
    """

    group: str
    data_sha256: str

    def to_dict(self) -> dict:
        return {"group": self.group, "data_sha256": self.data_sha256}

    @classmethod
    def from_dict(cls, data: dict) -> DataSource:
        try:
            return cls(str(data["group"]), str(data["data_sha256"]))
        except (KeyError, TypeError) as exc:
            raise InputError(f"source={data!r} is malformed ({exc})") from None


def _law_dict(atoms, weights) -> dict:
    return {"atoms": [exact_pair(x) for x in atoms], "weights": [exact_pair(w) for w in weights]}


def _law(data: dict, where: str) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    return tuple(parse_pair(x, f"{where}.atoms") for x in data["atoms"]), tuple(
        parse_pair(w, f"{where}.weights") for w in data["weights"]
    )


@dataclass(frozen=True)
class LikelihoodCertificate:
    """An exact, independently checkable likelihood-ratio bound on E_pi[g(Q)].

    For side ``lower`` (s = +1; ``upper`` is s = -1) the proof is: g - a - lambda h >= 0
    on [0, 1] with h = sum_c n_c B_c / p_c(pi*), and E_pi[h] >= b = l(pi_ref) - c -
    l(pi*) + N on the set, so E_pi[g] >= a + lambda b >= ``bound``. For ``upper``:
    a - g - lambda h >= 0 and E_pi[g] <= a - lambda b <= ``bound``.

    Attributes
    ----------
    side : {"lower", "upper"}
    objective_name : str
        ``"Vinf"`` for the infinite budget V_inf, ``"pass_inf"`` for pass@inf = P(Q > 0) (no
        terms: JSON gives their definition).
    majority, bernstein, degree
        The objective's exact terms, as in :class:`~certify.certificates.Certificate`
        (empty and 0 for V_inf and pass@inf).
    cells : tuple of (int, int, int)
        (K, S, n): n examples with K calls of which S were correct; sorted, distinct (K, S).
    c : Fraction
        The allowed log-likelihood drop: the set is {pi : l(pi) >= l(pi_ref) - c}.
    alpha : float or None
        1 - confidence level behind c (informational).
    calibration : str or None
        How c was chosen, e.g. ``"chi2(1)/2"`` (informational).
    reference_atoms, reference_weights : tuple of Fraction
        The reference law pi_ref (the NPMLE, or any law: a lower l(pi_ref) enlarges the set).
    atoms, weights : tuple of Fraction
        The law pi* that defines h (any law with every p_c(pi*) > 0).
    lam : Fraction
        The multiplier lambda >= 0.
    a : Fraction
        The constant of the Lagrangian inequality (objective units).
    bound : Fraction
        The proven bound.
    provenance : LikelihoodProvenance
    source : DataSource or None
        The group and data file behind ``cells`` (optional; recorded by ``analyze --certificates``).
    schema_version : str
    """

    side: str
    objective_name: str
    majority: tuple[tuple[Fraction, int], ...]
    bernstein: tuple[Fraction, ...]
    degree: int
    cells: tuple[tuple[int, int, int], ...]
    c: Fraction
    alpha: float | None
    calibration: str | None
    reference_atoms: tuple[Fraction, ...]
    reference_weights: tuple[Fraction, ...]
    atoms: tuple[Fraction, ...]
    weights: tuple[Fraction, ...]
    lam: Fraction
    a: Fraction
    bound: Fraction
    provenance: LikelihoodProvenance
    source: DataSource | None = None
    schema_version: str = field(default=LIKELIHOOD_SCHEMA_VERSION)

    @property
    def is_infinite_budget(self) -> bool:
        """True for V_inf, written by its definition instead of polynomial terms."""
        return self.objective_name == ENDPOINT_NAME

    @property
    def definition(self) -> str | None:
        """The definition of a step objective written by name and definition (V_inf, pass@inf), else None."""
        entry = DEFINED_OBJECTIVES.get(self.objective_name)
        return None if entry is None else entry[0]

    @property
    def n(self) -> int:
        """N, the number of examples."""
        return sum(n for _, _, n in self.cells)

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "kind": LIKELIHOOD_KIND,
            "side": self.side,
            "objective": {"name": self.objective_name, "definition": self.definition}
            if self.definition is not None
            else {
                "name": self.objective_name,
                "degree": self.degree,
                "majority": [{"coefficient": exact_pair(c), "n": n, "votes": 2 * n + 1} for c, n in self.majority],
                "bernstein": [exact_pair(b) for b in self.bernstein],
            },
            "cells": [{"calls": k, "successes": s, "count": n} for k, s, n in self.cells],
            **({} if self.source is None else {"source": self.source.to_dict()}),
            "threshold": {"c": exact_pair(self.c), "alpha": self.alpha, "calibration": self.calibration},
            "reference_law": _law_dict(self.reference_atoms, self.reference_weights),
            "law": _law_dict(self.atoms, self.weights),
            "lagrangian": {"lambda": exact_pair(self.lam), "a": exact_pair(self.a)},
            "bound": exact_pair(self.bound),
            "provenance": self.provenance.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> LikelihoodCertificate:
        """Rebuild from :meth:`to_dict` output; InputError for a malformed record.

        Only the layout is checked here; use :func:`certify.certificates.verify` for the mathematics.
        """
        if not isinstance(data, dict):
            raise InputError(f"certificate must be a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version != LIKELIHOOD_SCHEMA_VERSION or data.get("kind") != LIKELIHOOD_KIND:
            raise InputError(
                f"schema_version={version!r}, kind={data.get('kind')!r} is not a likelihood certificate "
                f"(expected {LIKELIHOOD_SCHEMA_VERSION!r}, {LIKELIHOOD_KIND!r})"
            )
        try:
            obj, thr, lag = data["objective"], data["threshold"], data["lagrangian"]
            ref_atoms, ref_weights = _law(data["reference_law"], "reference_law")
            atoms, weights = _law(data["law"], "law")
            alpha = thr["alpha"]
            return cls(
                side=str(data["side"]),
                objective_name=str(obj["name"]),
                majority=tuple(
                    (parse_pair(t["coefficient"], "objective.majority.coefficient"), int(t["n"]))
                    for t in obj.get("majority", ())
                ),
                bernstein=tuple(parse_pair(b, "objective.bernstein") for b in obj.get("bernstein", ())),
                degree=int(obj.get("degree", 0)),
                cells=tuple((int(x["calls"]), int(x["successes"]), int(x["count"])) for x in data["cells"]),
                c=parse_pair(thr["c"], "threshold.c"),
                alpha=None if alpha is None else float(alpha),
                calibration=None if thr["calibration"] is None else str(thr["calibration"]),
                reference_atoms=ref_atoms,
                reference_weights=ref_weights,
                atoms=atoms,
                weights=weights,
                lam=parse_pair(lag["lambda"], "lagrangian.lambda"),
                a=parse_pair(lag["a"], "lagrangian.a"),
                bound=parse_pair(data["bound"], "bound"),
                provenance=LikelihoodProvenance.from_dict(data["provenance"]),
                source=None if "source" not in data else DataSource.from_dict(data["source"]),
                schema_version=version,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"certificate record is malformed: missing or wrong field {exc}") from None
