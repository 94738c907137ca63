"""What the checkers share: failed checks and results, reading a file's fields, the moment-class checks.

Every checker (schemas 1, 2 and 3) reads the parsed JSON object field by field,
refusing unknown keys and any exact number whose text or readable float is off, and
stops at the first failed check with a one-line message (:class:`CheckFailed`, turned
into a :class:`VerificationResult` by :func:`checked`). The checks of a bound over a
moment class -- the header, the law reproducing the moments exactly, the dual's value,
its contact factors, the enclosure -- are the same for sharp bounds (schema 1) and for
the V_inf bound (schema 3), which differ only in the objective and the sign proof.

Part of the checkers' trusted base: only the standard library, python-flint and
:mod:`._kernel`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import flint

from ._kernel import is_ratio, poly, readable

__all__ = [
    "MAX_EXPONENT",
    "MAX_ORDER",
    "CheckFailed",
    "VerificationResult",
    "approx",
    "check_dual_value",
    "check_enclosure",
    "check_header",
    "check_law",
    "check_primal_value",
    "checked",
    "describe_moments",
    "divide_contacts",
    "enclosure_text",
    "field",
    "read_bound",
    "read_exact",
    "read_exact_list",
    "require_keys",
    "rounded",
    "show",
    "typed_number",
]

#: Largest moment order accepted: the exact moment equations cost (m+1)^2 products of
#: rationals, and the solvers are not used beyond a few dozen moments.
MAX_ORDER = 100

#: Largest decimal exponent read in a number's text (1e999999999 would otherwise
#: expand to a billion-digit integer before any check could run); the builder's limit.
MAX_EXPONENT = 1000

# A number as typed: a plain ASCII decimal with an optional exponent, or p/q (Python's
# Fraction() would also read underscores and other scripts' digits).
_TYPED = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?0*(?P<exp>\d+))?|\d+/\d+)", re.ASCII)


class CheckFailed(Exception):
    """The check ``check`` failed; the message says what and why in one line."""

    def __init__(self, check: str, message: str):
        super().__init__(message)
        self.check = check


@dataclass(frozen=True)
class VerificationResult:
    """Outcome of a checker (:func:`certify.certificates.verify`).

    Attributes
    ----------
    ok : bool
        True when every check of the certificate's schema passed.
    check : str or None
        Name of the first failed check (None when ``ok``).
    message : str
        One line: the certified interval, or what failed and why.
    side : str or None
    objective : str or None
    enclosure : tuple of Fraction or None
        The certified interval containing the sharp bound, when ``ok`` (schema versions 1 and 3).
    bound : Fraction or None
        The proven one-sided bound of a likelihood certificate, when ``ok`` (schema version 2).
    """

    ok: bool
    check: str | None
    message: str
    side: str | None = None
    objective: str | None = None
    enclosure: tuple[Fraction, Fraction] | None = None
    bound: Fraction | None = None

    def __bool__(self) -> bool:
        return self.ok

    @property
    def width(self) -> Fraction | None:
        return None if self.enclosure is None else self.enclosure[1] - self.enclosure[0]


def checked(run, cert) -> VerificationResult:
    """``run(cert)``, with a failed check or malformed data turned into a failed result (never raises)."""
    try:
        return run(cert)
    except CheckFailed as exc:
        side = cert.get("side") if isinstance(cert, dict) else None
        return VerificationResult(False, exc.check, f"{exc.check}: {exc}", side if isinstance(side, str) else None)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError, OverflowError) as exc:
        return VerificationResult(
            False, "structure", f"structure: malformed certificate ({type(exc).__name__}: {show(str(exc), 120)[1:-1]})"
        )


# -- messages ------------------------------------------------------------------


def show(value, limit: int = 60) -> str:
    """A value from the file (repr; p/q for an exact number), cut to ``limit`` characters: a message stays one short
    line."""
    text = str(value) if isinstance(value, Fraction) else repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def approx(x: Fraction, digits: int = 3) -> str:
    """x to ``digits`` significant digits for a message, also beyond the range of floats."""
    try:
        value = float(x)
    except OverflowError:
        return f"{'-' if x < 0 else ''}(more than 1e308)"
    return f"{value:.{digits}g}" if value or not x else f"{'-' if x < 0 else ''}(nonzero, below 1e-308)"


def rounded(x: Fraction, down: bool, digits: int = 17) -> str:
    """x to ``digits`` significant digits, rounded down (``down``) or up: a printed bound stays a true bound.

    Decimal arithmetic on the exact numerator and denominator, so any magnitude prints
    (no overflow to float); plain notation between 1e-8 and 1e12, else an exponent.
    """
    ctx = Context(prec=digits, rounding=ROUND_FLOOR if down else ROUND_CEILING, Emin=-(10**9), Emax=10**9)
    d = ctx.divide(Decimal(x.numerator), Decimal(x.denominator))
    return format(d.normalize(ctx), "f" if not d or -8 < d.adjusted() < 12 else "e")


def enclosure_text(lo: Fraction, hi: Fraction) -> str:
    """``[lo, hi] (width w)`` rounded outward to 17 significant digits (the width up to 3): the printed
    interval contains the exact one, e.g. ``[0.78736, 0.78736] (width 0)`` for 4921/6250."""
    return f"[{rounded(lo, True)}, {rounded(hi, False)}] (width {rounded(hi - lo, False, 3)})"


# -- reading the file ----------------------------------------------------------


def require_keys(data, where: str, required, optional=()) -> dict:
    """``data`` is an object with exactly the required keys (and possibly the optional ones).

    Unknown keys are refused: nothing unchecked rides along in a certificate, and a
    reader never sees a field the checker ignored.
    """
    if not isinstance(data, dict):
        raise CheckFailed("structure", f"{where} must be a JSON object")
    missing = [k for k in required if k not in data]
    extra = sorted(set(data) - set(required) - set(optional))
    if missing or extra:
        raise CheckFailed(
            "structure", f"{where}: missing keys {show(missing, 200)}, unexpected keys {show(extra, 200)}"
        )
    return data


def field(data, key: str, kind, where: str):
    """``data[key]``, which must be present and of type ``kind`` (never a bool standing in for a number)."""
    if not isinstance(data, dict) or key not in data or not isinstance(data[key], kind) or isinstance(data[key], bool):
        raise CheckFailed("structure", f"{where}.{key} is missing or not {getattr(kind, '__name__', kind)}")
    return data[key]


def read_exact(pair, where: str) -> Fraction:
    """An exact number is [\"p/q\", readable float]; return p/q (checks structure, readable_floats)."""
    if not (isinstance(pair, list) and len(pair) == 2 and is_ratio(pair[0])):
        raise CheckFailed("structure", f'{where}={show(pair)} must be ["p/q", float]')
    try:
        value = Fraction(pair[0])
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits(), 4300 by default)
        raise CheckFailed("structure", f"{where}={show(pair[0])} has more digits than the checker reads") from None
    expected = readable(value)
    if pair[1] != expected or isinstance(pair[1], bool):
        raise CheckFailed(
            "readable_floats",
            f"{where}: readable {show(pair[1])} is not float of the exact value {show(value)} = {expected!r}",
        )
    return value


def read_exact_list(items, where: str) -> list[Fraction]:
    """A list of exact numbers (:func:`read_exact`)."""
    if not isinstance(items, list):
        raise CheckFailed("structure", f"{where} must be a list")
    return [read_exact(x, f"{where}[{i}]") for i, x in enumerate(items)]


def typed_number(text: str) -> Fraction:
    """A number as typed (``0.7``, ``4517/8192``, ``1e-3``), exactly.

    ValueError for any other text, and for an exponent beyond MAX_EXPONENT before any work.
    """
    typed = _TYPED.fullmatch(text)
    if typed is None:
        raise ValueError(f"{show(text)} is not a plain decimal or fraction p/q")
    exponent = typed.group("exp")
    if exponent and (len(exponent) > 5 or int(exponent) > MAX_EXPONENT):
        raise ValueError(f"the number {show(text)[1:-1]} has a decimal exponent beyond the limit {MAX_EXPONENT}")
    return Fraction(text)


# -- a bound over a moment class (schemas 1 and 3) ------------------------------------

_TOP = (
    "schema_version",
    "kind",
    "side",
    "objective",
    "moments",
    "law",
    "dual",
    "primal_value",
    "dual_value",
    "enclosure",
    "width",
    "value",
    "provenance",
)
_PROVENANCE = ("package", "version", "method", "construction", "digits", "seconds", "created")


def check_header(cert, versions: tuple[str, ...], kind: str) -> tuple[str, int]:
    """Version, kind, the top-level and provenance keys, and the side: (side, s = +1 upper / -1 lower)."""
    if not isinstance(cert, dict):
        raise CheckFailed("structure", "a certificate must be a JSON object")
    version = cert.get("schema_version")
    if version not in versions:
        raise CheckFailed(
            "schema_version", f"schema_version={show(version)} is unknown (supported: {', '.join(versions)})"
        )
    if cert.get("kind") != kind:
        raise CheckFailed("structure", f"kind={show(cert.get('kind'))} must be {kind!r}")
    require_keys(cert, "certificate", _TOP)
    # Provenance is not part of the proof, but it is part of the file a reader sees.
    require_keys(cert["provenance"], "provenance", _PROVENANCE)
    side = field(cert, "side", str, "certificate")
    if side not in ("lower", "upper"):
        raise CheckFailed("structure", f"side={show(side)} must be 'lower' or 'upper'")
    return side, (1 if side == "upper" else -1)


def _moments(mom) -> tuple[list[Fraction], str]:
    """Re-derive the exact moments from the inputs as given (eq. (rho-main) for rho).

    Returns the moments m_1..m_m and the inputs as one readable phrase (``mu = 0.7, rho = 0.2``).
    """
    given = field(mom, "given", list, "moments")
    values, shown = {}, []
    for i, item in enumerate(given):
        require_keys(item, f"moments.given[{i}]", ("name", "text", "exact_from"))
        name = field(item, "name", str, f"moments.given[{i}]")
        text = field(item, "text", str, f"moments.given[{i}]")
        rule = field(item, "exact_from", str, f"moments.given[{i}]")
        if rule not in ("text", "binary64"):
            raise CheckFailed("moments", f"moments.given[{i}].exact_from={show(rule)} must be 'text' or 'binary64'")
        try:
            number = typed_number(text)  # the text's syntax and exponent are checked for both rules
            values[name] = number if rule == "text" else Fraction(float(text))
        except (ValueError, ZeroDivisionError, OverflowError):
            raise CheckFailed(
                "moments",
                f"moments.given[{i}].text={show(text)} is not a plain decimal or fraction p/q "
                f"with an exponent of at most {MAX_EXPONENT}",
            ) from None
        shown.append(f"{name} = {' '.join(text.split())}" + (" (binary64)" if rule == "binary64" else ""))
    names = [item["name"] for item in given]
    if names == ["mu", "rho"]:
        mu, rho = values["mu"], values["rho"]
        exact = [mu, mu * mu + rho * mu * (1 - mu)]
    elif names in (["mu"], ["mu", "nu"]) or (names and names == [f"m{k + 1}" for k in range(len(names))]):
        exact = [values[n] for n in names]
    else:
        raise CheckFailed("moments", f"moments.given names {show(names)} must be mu, mu+nu, mu+rho or m1..mm")
    return exact, ", ".join(shown)


def read_bound(cert: dict) -> tuple:
    """The exact fields every moment-class certificate shares (schemas 1 and 3), checked for layout.

    Checks structure, readable_floats and moments: the order, the checker's order limit,
    and that ``moments.exact`` are the exact values of ``moments.given``. Returns, in this order,
    theta = (1, m_1, ..., m_m), the verdict's description of the inputs (given), the law (atoms,
    weights), the dual (coefficients, contacts) and the values (primal, dual value, enclosure,
    width, value): what both moment-class checkers unpack.
    """
    mom = require_keys(cert["moments"], "moments", ("order", "given", "exact"))
    law = require_keys(cert["law"], "law", ("atoms", "weights"))
    dual = require_keys(cert["dual"], "dual", ("coefficients", "contacts"))
    theta = [Fraction(1)] + read_exact_list(field(mom, "exact", list, "moments"), "moments.exact")
    m = len(theta) - 1
    if field(mom, "order", int, "moments") != m or m < 1:
        raise CheckFailed("structure", f"moments.order={show(mom['order'])} but {m} exact moments are listed")
    if m > MAX_ORDER:
        raise CheckFailed("moments", f"moments.order={m} is above the largest order the checker accepts, {MAX_ORDER}")
    exact, given = _moments(mom)
    if exact != theta[1:]:
        raise CheckFailed("moments", "moments.exact are not the exact values of moments.given")
    contacts = []
    for i, c in enumerate(field(dual, "contacts", list, "dual")):
        require_keys(c, f"dual.contacts[{i}]", ("point", "multiplicity"))
        contacts.append(
            (
                read_exact(field(c, "point", list, f"dual.contacts[{i}]"), f"dual.contacts[{i}].point"),
                field(c, "multiplicity", int, f"dual.contacts[{i}]"),
            )
        )
    enclosure = read_exact_list(field(cert, "enclosure", list, "certificate"), "enclosure")
    # every field read (and refused) in the order the checks always took, then the enclosure's length
    out = (
        theta,
        given,
        read_exact_list(field(law, "atoms", list, "law"), "law.atoms"),
        read_exact_list(field(law, "weights", list, "law"), "law.weights"),
        read_exact_list(field(dual, "coefficients", list, "dual"), "dual.coefficients"),
        contacts,
        read_exact(cert["primal_value"], "primal_value"),
        read_exact(cert["dual_value"], "dual_value"),
        enclosure,
        read_exact(cert["width"], "width"),
        read_exact(cert["value"], "value"),
    )
    if len(enclosure) != 2:
        raise CheckFailed("structure", f"enclosure has {len(enclosure)} numbers, not 2")
    return out


def describe_moments(theta: list[Fraction]) -> str:
    """The exact moments for a verdict: ``m1 = p/q, m2 = p/q``."""
    return ", ".join(f"m{k + 1} = {show(x, 200)}" for k, x in enumerate(theta[1:]))


def check_law(atoms: list[Fraction], weights: list[Fraction], theta: list[Fraction]) -> None:
    """A law of the class: 1..m+1 atoms in [0, 1], weights >= 0, every moment reproduced exactly."""
    m = len(theta) - 1
    if not 1 <= len(atoms) <= m + 1 or len(atoms) != len(weights):
        raise CheckFailed(
            "atom_count",
            f"law has {len(atoms)} atoms and {len(weights)} weights; need 1..{m + 1} of each, equal counts",
        )
    for j, x in enumerate(atoms):
        if not 0 <= x <= 1:
            raise CheckFailed("atoms_in_unit_interval", f"law.atoms[{j}]={show(x)} is outside [0, 1]")
    for j, w in enumerate(weights):
        if w < 0:
            raise CheckFailed("weights_nonnegative", f"law.weights[{j}]={show(w)} is negative")
    for k in range(m + 1):
        got = sum(w * x**k for x, w in zip(atoms, weights))
        if got != theta[k]:
            what = "total mass" if k == 0 else f"moment m{k}"
            raise CheckFailed(
                "moment_equations", f"{what} of the law is off by {approx(got - theta[k])} from {approx(theta[k])}"
            )


def check_primal_value(primal: Fraction, attained: Fraction, s: int, what: str) -> None:
    """The recorded primal value is the law's value ``attained`` (named ``what``) or lies beyond it, away from the
    dual."""
    if (primal > attained) if s > 0 else (primal < attained):
        raise CheckFailed(
            "primal_value", f"primal_value={show(primal)} is not {'<=' if s > 0 else '>='} {what} = {approx(attained)}"
        )


def check_dual_value(coeffs: list[Fraction], theta: list[Fraction], dual_value: Fraction) -> None:
    """Degree <= m, and dual_value = sum_k c_k m_k exactly (eq. (dual-U-main))."""
    m = len(theta) - 1
    if len(coeffs) > m + 1 or not coeffs:
        raise CheckFailed(
            "dual_degree", f"dual has {len(coeffs)} coefficients; a degree <= {m} polynomial has 1..{m + 1}"
        )
    if sum(c * t for c, t in zip(coeffs, theta)) != dual_value:
        raise CheckFailed("dual_value", f"dual_value={show(dual_value)} is not sum_k c_k m_k")


def divide_contacts(f: flint.fmpq_poly, contacts, what: str) -> flint.fmpq_poly:
    """f with each contact factor divided out: x at 0, 1 - x at 1, (x - c) inside (even multiplicity)."""
    for point, mult in contacts:
        interior = 0 < point < 1
        if not 0 <= point <= 1 or mult < 1 or (interior and mult % 2):
            raise CheckFailed(
                "contacts",
                f"contact {show(point)} with multiplicity {show(mult)}: "
                "need a point of [0, 1], even multiplicity inside",
            )
        factor = poly([-point, 1]) if point < 1 else poly([1, -1])
        for _ in range(mult):
            if f.is_zero():
                break
            f, rem = divmod(f, factor)
            if not rem.is_zero():
                raise CheckFailed(
                    "contacts", f"{what} does not vanish to order {show(mult)} at the contact {show(point)}"
                )
    return f


def check_enclosure(enclosure, width, value, primal, dual_value, s: int) -> tuple[Fraction, Fraction]:
    """[primal, dual] (upper, s = 1) or [dual, primal] (lower) as stated, with the value inside."""
    lo, hi = (primal, dual_value) if s > 0 else (dual_value, primal)
    if enclosure != [lo, hi] or lo > hi or width != hi - lo:
        raise CheckFailed(
            "enclosure",
            f"enclosure [{show(enclosure[0])}, {show(enclosure[1])}] / width {show(width)} is not "
            f"[{show(lo)}, {show(hi)}] / {show(hi - lo)} with lower <= upper",
        )
    if not lo <= value <= hi:
        raise CheckFailed(
            "value_in_enclosure", f"value={show(value)} lies outside the enclosure [{show(lo)}, {show(hi)}]"
        )
    return lo, hi
