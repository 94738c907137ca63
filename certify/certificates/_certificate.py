"""The :class:`Certificate` of one side of one sharp bound (paper Theorem 4.1).

A certificate carries everything needed to re-check the bound from the file
alone: the objective's exact definition, the moments as given and as exact
rationals, a primal law with at most m+1 rational atoms reproducing the moments
exactly, a rational dual polynomial (minorant for the lower side, majorant for
the upper side), the contact factors that make the gap exact, the certified
enclosure and provenance. In JSON every exact number is a pair
``["p/q", readable float]``; the layout is ``certify/schemas/certificate-v1.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .._errors import InputError
from .._moments import Moments
from ._kernel import SCHEMA_VERSION, SHARP_KIND, exact_pair, is_ratio

__all__ = [
    "Certificate",
    "MomentBoundProperties",
    "Provenance",
    "bound_fields",
    "bound_record",
    "describe_inputs",
    "moments_given",
    "parse_pair",
]


def parse_pair(pair, where: str) -> Fraction:
    """The exact value of a ``["p/q", float]`` pair (layout only: the float is not compared); InputError naming
    ``where`` otherwise."""
    try:
        if not (isinstance(pair, list) and len(pair) == 2 and is_ratio(pair[0])):
            raise ValueError
        return Fraction(pair[0])  # ValueError beyond the digits Python converts (sys.get_int_max_str_digits())
    except ValueError:
        raise InputError(f'{where}={pair!r} must be a pair ["p/q", float]') from None


def describe_inputs(mu=None, nu=None, rho=None, moments=None) -> tuple[tuple[str, str, str], ...] | None:
    """The inputs as given, for the certificate: (name, text, exact_from) per number.

    None for a :class:`~certify.Moments` object (:func:`moments_given` then writes its exact values).
    """

    def one(name, v):
        if isinstance(v, str):
            return (name, v.strip(), "text")
        if isinstance(v, Fraction):
            return (name, f"{v.numerator}/{v.denominator}", "text")
        if isinstance(v, int) and not isinstance(v, bool):
            return (name, str(v), "text")
        return (name, repr(float(v)), "binary64")

    if isinstance(moments, Moments):
        return None
    if moments is not None:
        return tuple(one(f"m{k + 1}", v) for k, v in enumerate(moments))
    out = [one("mu", mu)]
    if nu is not None:
        out.append(one("nu", nu))
    if rho is not None:
        out.append(one("rho", rho))
    return tuple(out)


def moments_given(mom: Moments, given) -> tuple[tuple[str, str, str], ...]:
    """The record's ``moments_given``: ``given`` (from :func:`describe_inputs`), else the exact moments as text."""
    if given is not None:
        return tuple(given)
    names = ["mu", "nu"] if mom.order == 2 else ["mu"] if mom.order == 1 else [f"m{k + 1}" for k in range(mom.order)]
    return tuple((n, f"{x.numerator}/{x.denominator}", "text") for n, x in zip(names, mom.exact))


@dataclass(frozen=True)
class Provenance:
    """How a certificate was produced.

    Attributes
    ----------
    method : str
        Engine method that found the numerical solution (``exact``, ``sos``, ``grid``).
    construction : str
        How the exact dual was obtained: ``hermite`` (interpolation at the
        rational contacts, zero gap) or ``lift`` (rationalized dual lifted by the
        exact amount that makes it valid).
    version : str
        ``certify`` package version.
    seconds : float
        Wall time to produce the certificate (including its self-check).
    digits : int or None
        Requested precision: enclosure width <= 10^-digits (None: default 1e-12).
    created : str
        UTC timestamp, ISO 8601.
    """

    method: str
    construction: str
    version: str
    seconds: float
    digits: int | None
    created: str
    package: str = "certify"

    def to_dict(self) -> dict:
        return {
            "package": self.package,
            "version": self.version,
            "method": self.method,
            "construction": self.construction,
            "digits": self.digits,
            "seconds": self.seconds,
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Provenance:
        try:
            return cls(
                method=str(data["method"]),
                construction=str(data["construction"]),
                version=str(data["version"]),
                seconds=float(data["seconds"]),
                digits=None if data.get("digits") is None else int(data["digits"]),
                created=str(data["created"]),
                package=str(data.get("package", "certify")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"provenance={data!r} is malformed ({exc})") from None


class MomentBoundProperties:
    """What a certificate over a moment class derives from its side, moments and two values."""

    # declared here for the type checker; the dataclasses that inherit this define them as fields
    side: str
    moments: tuple[Fraction, ...]
    primal_value: Fraction
    dual_value: Fraction

    @property
    def order(self) -> int:
        """Moment order m."""
        return len(self.moments)

    @property
    def enclosure(self) -> tuple[Fraction, Fraction]:
        """[primal, dual] for the upper side, [dual, primal] for the lower side."""
        if self.side == "upper":
            return (self.primal_value, self.dual_value)
        return (self.dual_value, self.primal_value)

    @property
    def width(self) -> Fraction:
        lo, hi = self.enclosure
        return hi - lo

    @property
    def bound(self) -> Fraction:
        """The valid one-sided bound: E[g] <= bound (upper) or >= bound (lower) over the class."""
        return self.dual_value


@dataclass(frozen=True)
class Certificate(MomentBoundProperties):
    """An exact, independently checkable certificate of one side of a sharp bound.

    For side ``upper`` (``lower`` is the mirror image) it states: the law
    ``(atoms, weights)`` lies in the moment class, so its value
    ``primal_value <= U``; the polynomial ``dual`` of degree <= m is a majorant
    of g on [0, 1], so ``U <= dual_value`` (Theorem 4.1, eq. (dual-U-main)). Hence the
    sharp bound U lies in :attr:`enclosure`.

    Attributes
    ----------
    side : {"lower", "upper"}
    objective_name : str
        Readable name (``"V101"``, ``"P3 - P1"``).
    majority : tuple of (Fraction, int)
        Terms c * P_n of the objective (P_n: majority of 2n+1 votes, eq. (main-vn)).
    bernstein : tuple of Fraction
        Bernstein coefficients of the objective's remaining polynomial part.
    degree : int
        Degree bound of the objective.
    moments_given : tuple of (str, str, str)
        ``(name, text, exact_from)`` for each input as given: names ``mu``,
        ``nu``, ``rho`` or ``m1..mm``; ``exact_from`` is ``"text"`` (the text is
        read as an exact decimal or fraction) or ``"binary64"`` (the exact value
        of the float the text denotes).
    moments : tuple of Fraction
        Exact moments (m_1, ..., m_m).
    atoms, weights : tuple of Fraction
        Primal law; reproduces the moments exactly.
    dual : tuple of Fraction
        Monomial coefficients c_0..c_k (k <= m) of the dual polynomial p.
    contacts : tuple of (Fraction, int)
        Exact contact factors of s * (p - g): x at 0, 1 - x at 1, (x - c)^2 inside.
    primal_value, dual_value : Fraction
        sum_j w_j g(x_j) (exact when short, else rounded down for the upper side and
        up for the lower side, which only widens the enclosure) and sum_k c_k m_k.
    value : Fraction
        The claimed sharp bound (the attained primal value).
    provenance : Provenance
    schema_version : str
    """

    side: str
    objective_name: str
    majority: tuple[tuple[Fraction, int], ...]
    bernstein: tuple[Fraction, ...]
    degree: int
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
    schema_version: str = field(default=SCHEMA_VERSION)

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "kind": SHARP_KIND,
            "side": self.side,
            "objective": {
                "name": self.objective_name,
                "degree": self.degree,
                "majority": [{"coefficient": exact_pair(c), "n": n, "votes": 2 * n + 1} for c, n in self.majority],
                "bernstein": [exact_pair(b) for b in self.bernstein],
            },
            **bound_record(self),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Certificate:
        """Rebuild from :meth:`to_dict` output; InputError for a malformed record.

        Only the layout is checked here; use :func:`certify.certificates.verify`
        to check the mathematics.
        """
        if not isinstance(data, dict):
            raise InputError(f"certificate must be a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise InputError(f"schema_version={version!r} is not supported (expected {SCHEMA_VERSION!r})")
        try:
            obj = data["objective"]
            return cls(
                side=str(data["side"]),
                objective_name=str(obj["name"]),
                majority=tuple(
                    (parse_pair(t["coefficient"], "objective.majority.coefficient"), int(t["n"]))
                    for t in obj["majority"]
                ),
                bernstein=tuple(parse_pair(b, "objective.bernstein") for b in obj["bernstein"]),
                degree=int(obj["degree"]),
                **bound_fields(data),
                schema_version=version,
            )
        except (KeyError, TypeError) as exc:
            raise InputError(f"certificate record is malformed: missing or wrong field {exc}") from None


def bound_record(cert) -> dict:
    """The JSON fields every moment-class certificate shares (schemas 1 and 3), in file order.

    ``cert`` has ``order``, ``moments_given``, ``moments``, ``atoms``, ``weights``, ``dual``,
    ``contacts``, ``primal_value``, ``dual_value``, ``enclosure``, ``value`` and ``provenance``.
    """
    lo, hi = cert.enclosure
    return {
        "moments": {
            "order": cert.order,
            "given": [{"name": n, "text": t, "exact_from": r} for n, t, r in cert.moments_given],
            "exact": [exact_pair(x) for x in cert.moments],
        },
        "law": {"atoms": [exact_pair(x) for x in cert.atoms], "weights": [exact_pair(w) for w in cert.weights]},
        "dual": {
            "coefficients": [exact_pair(c) for c in cert.dual],
            "contacts": [{"point": exact_pair(c), "multiplicity": k} for c, k in cert.contacts],
        },
        "primal_value": exact_pair(cert.primal_value),
        "dual_value": exact_pair(cert.dual_value),
        "enclosure": [exact_pair(lo), exact_pair(hi)],
        "width": exact_pair(hi - lo),
        "value": exact_pair(cert.value),
        "provenance": cert.provenance.to_dict(),
    }


def bound_fields(data: dict) -> dict:
    """Constructor arguments read from the fields of :func:`bound_record` (layout only; KeyError/TypeError if
    missing)."""
    mom, law, dual = data["moments"], data["law"], data["dual"]
    return {
        "moments_given": tuple((str(g["name"]), str(g["text"]), str(g["exact_from"])) for g in mom["given"]),
        "moments": tuple(parse_pair(x, "moments.exact") for x in mom["exact"]),
        "atoms": tuple(parse_pair(x, "law.atoms") for x in law["atoms"]),
        "weights": tuple(parse_pair(x, "law.weights") for x in law["weights"]),
        "dual": tuple(parse_pair(x, "dual.coefficients") for x in dual["coefficients"]),
        "contacts": tuple(
            (parse_pair(c["point"], "dual.contacts.point"), int(c["multiplicity"])) for c in dual["contacts"]
        ),
        "primal_value": parse_pair(data["primal_value"], "primal_value"),
        "dual_value": parse_pair(data["dual_value"], "dual_value"),
        "value": parse_pair(data["value"], "value"),
        "provenance": Provenance.from_dict(data["provenance"]),
    }
