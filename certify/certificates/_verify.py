"""The independent checker of sharp-bound certificates (paper Theorem 4.1, eqs. (dual-L-main)-(dual-U-main)).

This module is the whole trusted base of a certificate. It is meant to be read
in one sitting: it imports only the standard library and python-flint, shares no
code with the solvers or the certificate builder, and uses exact rational
arithmetic only. Everything it needs -- the objective polynomial, the moments,
the law and the dual polynomial -- is re-derived from the certificate's own data.

What it proves, for side ``s = +1`` (upper) or ``s = -1`` (lower):

1. the law is a probability law on [0, 1] with at most m+1 atoms whose moments
   are exactly the certificate's moments, so its value P = sum w_j g(x_j) is
   attained inside the moment class: P <= U (upper) or P >= L (lower); the
   recorded primal value may be P rounded away from the dual side (to keep the
   file short), so the check is recorded <= P (upper) or recorded >= P (lower);
2. ``s * (p - g) >= 0`` on all of [0, 1] for the dual polynomial p of degree
   <= m, so D = sum_k c_k m_k bounds E g(Q) for every law of the class
   (weak duality, the easy half of Theorem 4.1): U <= D or L >= D;
3. hence the sharp bound lies in the enclosure [min(P, D), max(P, D)].

The sign in (2) is proven by dividing out the listed contact factors
(x, 1 - x, or (x - c)^2 for interior rational c) exactly, and showing the
quotient is strictly positive on [0, 1]: near each atom of the law (where the
quotient may come within 1e-15 of zero) by a Taylor expansion with an exact
tail bound, and on the rest by Descartes' rule of signs with dyadic bisection
(Vincent-Collins-Akritas) on integer polynomials.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from math import comb

import flint

__all__ = ["CHECKS", "SUPPORTED_VERSIONS", "VerificationResult", "verify_dict"]

SUPPORTED_VERSIONS = ("1",)

#: The checks, in the order they run; a result names the first that failed
#: ("json" is reported by :func:`certify.certificates.verify` for unparsable text).
CHECKS = (
    "json",
    "schema_version",
    "structure",
    "readable_floats",
    "objective",
    "moments",
    "atom_count",
    "atoms_in_unit_interval",
    "weights_nonnegative",
    "moment_equations",
    "primal_value",
    "dual_degree",
    "dual_value",
    "contacts",
    "dual_sign",
    "enclosure",
    "value_in_enclosure",
)

#: Bisection depth after which positivity counts as not proven (2^-400 is far
#: below any margin the builder uses, even at 100 digits).
MAX_DEPTH = 400

#: Largest majority index accepted (2n+1 = 20001 votes): bounds the work a file can demand.
MAX_N = 10000

_RATIONAL = re.compile(r"^-?\d+(/[1-9]\d*)?$")


class _Fail(Exception):
    def __init__(self, check: str, message: str):
        super().__init__(message)
        self.check = check


@dataclass(frozen=True)
class VerificationResult:
    """Outcome of :func:`verify_dict`.

    Attributes
    ----------
    ok : bool
        True when every check in :data:`CHECKS` passed.
    check : str or None
        Name of the first failed check (None when ``ok``).
    message : str
        One line: the certified interval, or what failed and why.
    side : str or None
    objective : str or None
    enclosure : tuple of Fraction or None
        The certified interval containing the sharp bound, when ``ok`` (schema version 1).
    bound : Fraction or None
        The proven one-sided bound of a likelihood certificate, when ``ok`` (schema
        version 2, :mod:`certify.certificates._verify_likelihood`).
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


# -- reading exact numbers ---------------------------------------------------

def _exact(pair, where: str) -> Fraction:
    """An exact number is [\"p/q\", readable float]; return p/q."""
    if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and _RATIONAL.match(pair[0])):
        raise _Fail("structure", f"{where}={pair!r} must be [\"p/q\", float]")
    value = Fraction(pair[0])
    readable = pair[1]
    try:
        expected = float(value)
    except OverflowError:
        expected = None
    if readable != expected or isinstance(readable, bool):
        raise _Fail("readable_floats", f"{where}: readable {readable!r} is not float({pair[0]}) = {expected!r}")
    return value


def _exact_list(items, where: str) -> list[Fraction]:
    if not isinstance(items, list):
        raise _Fail("structure", f"{where} must be a list")
    return [_exact(x, f"{where}[{i}]") for i, x in enumerate(items)]


def _get(data, key: str, kind, where: str):
    if not isinstance(data, dict) or key not in data or not isinstance(data[key], kind) or isinstance(data[key], bool):
        raise _Fail("structure", f"{where}.{key} is missing or not {getattr(kind, '__name__', kind)}")
    return data[key]


# -- polynomials ---------------------------------------------------------------

def _poly(coeffs) -> flint.fmpq_poly:
    return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in coeffs]) if coeffs else flint.fmpq_poly([])


def _from_bernstein(b: list[Fraction]) -> flint.fmpq_poly:
    """sum_l b_l C(N, l) x^l (1-x)^(N-l) = x^N R(1/x - 1), R(s) = sum_l b_l C(N, l) s^(N-l)."""
    n = len(b) - 1
    rev = [b[n - i] * comb(n, n - i) for i in range(n + 1)]  # R(s), coefficient of s^i
    shifted = _poly(rev)(flint.fmpq_poly([-1, 1]))  # R(s - 1)
    coeffs = [Fraction(int(c.p), int(c.q)) for c in shifted.coeffs()]
    coeffs += [Fraction(0)] * (n + 1 - len(coeffs))
    return _poly(coeffs[::-1])


def _objective(obj) -> tuple[flint.fmpq_poly, str]:
    """g = sum_i c_i P_(n_i) + Bernstein part, P_n of eq. (main-vn): Bernstein coefficients 0^(n+1) 1^(n+1)."""
    name = _get(obj, "name", str, "objective")
    degree = _get(obj, "degree", int, "objective")
    g = flint.fmpq_poly([])
    top = 0
    for i, term in enumerate(_get(obj, "majority", list, "objective")):
        n = _get(term, "n", int, f"objective.majority[{i}]")
        if not 0 <= n <= MAX_N:
            raise _Fail("objective", f"objective.majority[{i}].n={n} must lie in 0..{MAX_N}")
        if term.get("votes", 2 * n + 1) != 2 * n + 1:
            raise _Fail("objective", f"objective.majority[{i}].votes={term['votes']!r} is not 2n+1 = {2 * n + 1}")
        c = _exact(term.get("coefficient"), f"objective.majority[{i}].coefficient")
        g += _poly([c]) * _from_bernstein([Fraction(0)] * (n + 1) + [Fraction(1)] * (n + 1))
        top = max(top, 2 * n + 1)
    bern = _exact_list(_get(obj, "bernstein", list, "objective"), "objective.bernstein")
    if len(bern) > 2 * MAX_N + 2:
        raise _Fail("objective", f"objective.bernstein has {len(bern)} coefficients, more than {2 * MAX_N + 2}")
    if bern:
        g += _from_bernstein(bern)
        top = max(top, len(bern) - 1)
    if degree != top:
        raise _Fail("objective", f"objective.degree={degree} but its terms have degree {top}")
    return g, name


def _value(p: flint.fmpq_poly, x: Fraction) -> Fraction:
    v = p(flint.fmpq(x.numerator, x.denominator))
    return Fraction(int(v.p), int(v.q))


def _variations(coeffs) -> int:
    signs = [c > 0 for c in coeffs if c != 0]
    return sum(a != b for a, b in pairwise(signs))


def positive_on_unit_interval(h: flint.fmpz_poly, max_depth: int = MAX_DEPTH) -> tuple[bool, str]:
    """Prove h > 0 on [0, 1] by Descartes' rule with dyadic bisection.

    On each piece, h is carried as an integer polynomial on [0, 1]; zero sign
    variations of (1 + x)^d h(1 / (1 + x)) mean no root in the open piece.
    Returns (proven, reason).
    """
    d = h.degree()
    if d <= 0:
        return (d == 0 and h.coeffs()[0] > 0), "constant"
    if h(0) <= 0 or h(1) <= 0:
        return False, "not positive at an end of the interval"
    shift = flint.fmpz_poly([1, 1])
    stack = [(h, 0)]
    while stack:
        p, depth = stack.pop()
        c = p.coeffs()
        if _variations(flint.fmpz_poly(c[::-1])(shift).coeffs()) == 0:
            continue
        if depth >= max_depth:
            return False, f"not proven after {max_depth} bisections"
        left = flint.fmpz_poly([ck * (flint.fmpz(2) ** (d - k)) for k, ck in enumerate(c)])  # 2^d p(x / 2)
        left = left // left.content()
        if left(1) <= 0:
            return False, f"nonpositive value at a dyadic point of depth {depth + 1}"
        stack.append((left, depth + 1))
        stack.append((left(shift), depth + 1))
    return True, "no root"


def _window(h: flint.fmpq_poly, c: Fraction) -> Fraction | None:
    """A radius r with h > 0 on [c - r, c + r], from the Taylor expansion at c.

    With h(c + t) = sum a_k t^k and T = sum_{k>=3} |a_k| r^(k-2), for |t| <= r
    h(c + t) >= a_0 + a_1 t + (a_2 - T) t^2, which is positive when a_0 > 0,
    a_2 > T and a_1^2 < 4 a_0 (a_2 - T). This settles the neighbourhood of a
    near-contact in one step instead of many bisections.
    """
    coeffs = h(flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator), 1])).coeffs()
    a = [Fraction(int(v.p), int(v.q)) for v in coeffs[:3]] + [Fraction(0)] * (3 - len(coeffs))
    if a[0] <= 0:
        return None
    tail = flint.fmpq_poly([abs(v) for v in coeffs[3:]] or [0])  # sum_{k>=3} |a_k| y^(k-3)
    for k in range(2, 40):
        r = Fraction(1, 2**k)
        t = Fraction(int(v.p), int(v.q)) * r if (v := tail(flint.fmpq(1, 2**k))) else Fraction(0)
        if a[2] > t and a[1] ** 2 < 4 * a[0] * (a[2] - t):
            return r
    return None


def positive_on_closed_unit_interval(h: flint.fmpq_poly, hints) -> tuple[bool, str]:
    """Prove h > 0 on [0, 1]: Taylor windows around the hint points, bisection elsewhere."""
    covered = []
    for hint in sorted({x for x in hints if 0 < x < 1}):
        for bits in (32, 64, 128, 256):  # a short dyadic centre keeps the pieces' integers small
            c = Fraction(round(hint * 2**bits), 2**bits)
            r = _window(h, c)
            if r is not None:
                scale = 2 ** (r.denominator.bit_length() + 2)
                lo, hi = Fraction(-((-(c - r) * scale) // 1), scale), Fraction((c + r) * scale // 1, scale)
                covered.append((max(lo, Fraction(0)), min(hi, Fraction(1))))
                break
    gaps, start = [], Fraction(0)
    for lo, hi in covered:
        if lo > start:
            gaps.append((start, lo))
        start = max(start, hi)
    if start < 1:
        gaps.append((start, Fraction(1)))
    for lo, hi in gaps:
        piece = h(flint.fmpq_poly([flint.fmpq(lo.numerator, lo.denominator), flint.fmpq((hi - lo).numerator, (hi - lo).denominator)]))
        ok, why = positive_on_unit_interval(piece.numer())
        if not ok:
            return False, f"on [{float(lo):.17g}, {float(hi):.17g}]: {why}"
    return True, f"{len(covered)} Taylor windows, {len(gaps)} root-free pieces"


# -- the checks ----------------------------------------------------------------

def _moments(mom) -> list[Fraction]:
    """Re-derive the exact moments from the inputs as given (eq. (rho-main) for rho)."""
    given = _get(mom, "given", list, "moments")
    values = {}
    for i, item in enumerate(given):
        name = _get(item, "name", str, f"moments.given[{i}]")
        text = _get(item, "text", str, f"moments.given[{i}]")
        rule = _get(item, "exact_from", str, f"moments.given[{i}]")
        try:
            values[name] = Fraction(text) if rule == "text" else Fraction(float(text)) if rule == "binary64" else None
        except (ValueError, ZeroDivisionError, OverflowError):
            raise _Fail("moments", f"moments.given[{i}].text={text!r} is not a number") from None
        if values[name] is None:
            raise _Fail("moments", f"moments.given[{i}].exact_from={rule!r} must be 'text' or 'binary64'")
    names = [item["name"] for item in given]
    if names == ["mu", "rho"]:
        mu, rho = values["mu"], values["rho"]
        return [mu, mu * mu + rho * mu * (1 - mu)]
    if names in (["mu"], ["mu", "nu"]):
        return [values[n] for n in names]
    if names == [f"m{k + 1}" for k in range(len(names))] and names:
        return [values[n] for n in names]
    raise _Fail("moments", f"moments.given names {names} must be mu, mu+nu, mu+rho or m1..mm")


def _run(cert) -> VerificationResult:
    if not isinstance(cert, dict):
        raise _Fail("structure", "a certificate must be a JSON object")
    version = cert.get("schema_version")
    if version not in SUPPORTED_VERSIONS:
        raise _Fail("schema_version", f"schema_version={version!r} is unknown (supported: {', '.join(SUPPORTED_VERSIONS)})")
    if cert.get("kind") != "sharp-bound-certificate":
        raise _Fail("structure", f"kind={cert.get('kind')!r} must be 'sharp-bound-certificate'")
    side = _get(cert, "side", str, "certificate")
    if side not in ("lower", "upper"):
        raise _Fail("structure", f"side={side!r} must be 'lower' or 'upper'")
    s = 1 if side == "upper" else -1
    g, name = _objective(_get(cert, "objective", dict, "certificate"))

    mom = _get(cert, "moments", dict, "certificate")
    theta = [Fraction(1)] + _exact_list(_get(mom, "exact", list, "moments"), "moments.exact")
    m = len(theta) - 1
    if _get(mom, "order", int, "moments") != m or m < 1:
        raise _Fail("structure", f"moments.order={mom['order']} but {m} exact moments are listed")
    if _moments(mom) != theta[1:]:
        raise _Fail("moments", "moments.exact are not the exact values of moments.given")

    law = _get(cert, "law", dict, "certificate")
    atoms = _exact_list(_get(law, "atoms", list, "law"), "law.atoms")
    weights = _exact_list(_get(law, "weights", list, "law"), "law.weights")
    dual = _get(cert, "dual", dict, "certificate")
    coeffs = _exact_list(_get(dual, "coefficients", list, "dual"), "dual.coefficients")
    contacts = []
    for i, c in enumerate(_get(dual, "contacts", list, "dual")):
        contacts.append((_exact(_get(c, "point", list, f"dual.contacts[{i}]"), f"dual.contacts[{i}].point"), _get(c, "multiplicity", int, f"dual.contacts[{i}]")))
    primal = _exact(cert.get("primal_value"), "primal_value")
    dual_value = _exact(cert.get("dual_value"), "dual_value")
    enclosure = _exact_list(_get(cert, "enclosure", list, "certificate"), "enclosure")
    width = _exact(cert.get("width"), "width")
    value = _exact(cert.get("value"), "value")
    if len(enclosure) != 2:
        raise _Fail("structure", f"enclosure has {len(enclosure)} numbers, not 2")

    if not 1 <= len(atoms) <= m + 1 or len(atoms) != len(weights):
        raise _Fail("atom_count", f"law has {len(atoms)} atoms and {len(weights)} weights; need 1..{m + 1} of each, equal counts")
    for j, x in enumerate(atoms):
        if not 0 <= x <= 1:
            raise _Fail("atoms_in_unit_interval", f"law.atoms[{j}]={x} is outside [0, 1]")
    for j, w in enumerate(weights):
        if w < 0:
            raise _Fail("weights_nonnegative", f"law.weights[{j}]={w} is negative")
    for k in range(m + 1):
        got = sum(w * x**k for x, w in zip(atoms, weights))
        if got != theta[k]:
            what = "total mass" if k == 0 else f"moment m{k}"
            raise _Fail("moment_equations", f"{what} of the law is off by {float(got - theta[k]):.3g} from {float(theta[k])!r}")
    attained = sum(w * _value(g, x) for x, w in zip(atoms, weights))
    if (primal > attained) if s > 0 else (primal < attained):
        raise _Fail("primal_value", f"primal_value={primal} is not {'<=' if s > 0 else '>='} sum_j w_j g(x_j) = {float(attained)!r}")

    if len(coeffs) > m + 1 or not coeffs:
        raise _Fail("dual_degree", f"dual has {len(coeffs)} coefficients; a degree <= {m} polynomial has 1..{m + 1}")
    if sum(c * t for c, t in zip(coeffs, theta)) != dual_value:
        raise _Fail("dual_value", f"dual_value={dual_value} is not sum_k c_k m_k")

    f = (_poly(coeffs) - g) * s
    for point, mult in contacts:
        interior = 0 < point < 1
        if not 0 <= point <= 1 or mult < 1 or (interior and mult % 2):
            raise _Fail("contacts", f"contact {point} with multiplicity {mult}: need a point of [0, 1], even multiplicity inside")
        factor = _poly([-point, 1]) if point < 1 else _poly([1, -1])
        for _ in range(mult):
            if f.is_zero():
                break
            f, rem = divmod(f, factor)
            if not rem.is_zero():
                raise _Fail("contacts", f"s*(p - g) does not vanish to order {mult} at the contact {point}")
    if not f.is_zero():
        ok, why = positive_on_closed_unit_interval(f, atoms)
        if not ok:
            raise _Fail("dual_sign", f"the {'majorant' if s > 0 else 'minorant'} property s*(p - g) >= 0 on [0, 1] fails: {why}")

    lo, hi = (primal, dual_value) if s > 0 else (dual_value, primal)
    if enclosure != [lo, hi] or lo > hi or width != hi - lo:
        raise _Fail("enclosure", f"enclosure {enclosure} / width {width} is not [{lo}, {hi}] / {hi - lo} with lower <= upper")
    if not lo <= value <= hi:
        raise _Fail("value_in_enclosure", f"value={value} lies outside the enclosure [{lo}, {hi}]")
    msg = f"{side} bound of E[{name}] in [{float(lo):.17g}, {float(hi):.17g}] (width {float(hi - lo):.3g})"
    return VerificationResult(True, None, msg, side, name, (lo, hi))


def verify_dict(cert) -> VerificationResult:
    """Check a certificate given as a parsed JSON object; never raises on bad data.

    Parameters
    ----------
    cert : dict
        The certificate as loaded from JSON (see ``certify/schemas/certificate-v1.json``).

    Returns
    -------
    VerificationResult
        ``ok`` with the certified interval, or the name of the first failed check.
    """
    try:
        return _run(cert)
    except _Fail as exc:
        side = cert.get("side") if isinstance(cert, dict) else None
        return VerificationResult(False, exc.check, f"{exc.check}: {exc}", side if isinstance(side, str) else None)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError) as exc:
        return VerificationResult(False, "structure", f"structure: malformed certificate ({type(exc).__name__}: {exc})")
