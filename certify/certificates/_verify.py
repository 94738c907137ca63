"""The independent checker of sharp-bound certificates (paper Theorem 4.1, eqs. (dual-L-main)-(dual-U-main)).

This module is the whole trusted base of a certificate. It is meant to be read
in one sitting: it imports only the standard library and python-flint, shares no
code with the solvers or the certificate builder, and uses exact rational
arithmetic only. Everything it needs -- the objective polynomial, the moments,
the law and the dual polynomial -- is re-derived from the certificate's own data.
The objective's name is part of what is proven: it is read in the objective syntax
of the README by this module's own small parser (:func:`name_polynomial`, bounded
like :mod:`certify._objective`) and must denote exactly the certified polynomial,
so the name a reader sees is the polynomial that was checked.

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

__all__ = ["CHECKS", "SUPPORTED_VERSIONS", "VerificationResult", "name_polynomial", "verify_dict"]

SUPPORTED_VERSIONS = ("1",)

#: The checks, in the order they run; a result names the first that failed
#: ("json" is reported by :func:`certify.certificates.verify` for unparsable text).
CHECKS = (
    "json",
    "schema_version",
    "structure",
    "readable_floats",
    "objective",
    "objective_name",
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

#: The infinite budget V_inf is named by its definition, never given by coefficients
#: (schema 3, and schema 2's second objective form); checkers compare both strings exactly.
ENDPOINT_NAME = "Vinf"
ENDPOINT_DEFINITION = "P(Q > 1/2) + P(Q = 1/2)/2"

#: Largest moment order accepted: the exact moment equations cost (m+1)^2 products of
#: rationals, and the solvers are not used beyond a few dozen moments.
MAX_ORDER = 100

#: Longest objective name read: the objective syntax's own limit (certify/_objective.py).
MAX_NAME_LENGTH = 2000

#: Highest degree a product or power in a name may expand to: the syntax's limit.
MAX_EXPANDED_DEGREE = 512

#: Largest coefficient size (bits of a numerator or of the common denominator) that a
#: product or power in a name may produce. Real names need far less (P_256 expanded:
#: about 520 bits); the cap keeps names such as (1e300*q + 1)**512 from demanding
#: seconds of big-integer work before they are refused.
MAX_NAME_BITS = 1 << 16

#: Largest decimal exponent read in a number's text (1e999999999 would otherwise
#: expand to a billion-digit integer before any check could run); the builder's limit.
MAX_EXPONENT = 1000

#: The magnitudes a number literal in a name may have (0 aside): the syntax's rule.
_NAME_MAGNITUDE = (Fraction(1, 10**300), Fraction(10**300))

_RATIONAL = re.compile(r"-?\d+(/[1-9]\d*)?", re.ASCII)
# A number as typed: a plain ASCII decimal with an optional exponent, or p/q (Python's
# Fraction() would also read underscores and other scripts' digits).
_TYPED = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?0*(?P<exp>\d+))?|\d+/\d+)", re.ASCII)
_NAME_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/^()]))", re.ASCII)
_VOTE_NAME = re.compile(r"^(?:q|([PV])(\d+))$", re.ASCII)


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


# -- reading the file ----------------------------------------------------------

def _show(value, limit: int = 60) -> str:
    """A value from the file (repr; p/q for an exact number), cut to ``limit`` characters: a message stays one short line."""
    text = str(value) if isinstance(value, Fraction) else repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _approx(x: Fraction, digits: int = 3) -> str:
    """x to ``digits`` significant digits for a message, also beyond the range of floats."""
    try:
        value = float(x)
    except OverflowError:
        return f"{'-' if x < 0 else ''}(more than 1e308)"
    return f"{value:.{digits}g}" if value or not x else f"{'-' if x < 0 else ''}(nonzero, below 1e-308)"


def _keys(data, where: str, required, optional=()) -> dict:
    """``data`` is an object with exactly the required keys (and possibly the optional ones).

    Unknown keys are refused: nothing unchecked rides along in a certificate, and a
    reader never sees a field the checker ignored.
    """
    if not isinstance(data, dict):
        raise _Fail("structure", f"{where} must be a JSON object")
    missing = [k for k in required if k not in data]
    extra = sorted(set(data) - set(required) - set(optional))
    if missing or extra:
        raise _Fail("structure", f"{where}: missing keys {_show(missing, 200)}, unexpected keys {_show(extra, 200)}")
    return data



def _exact(pair, where: str) -> Fraction:
    """An exact number is [\"p/q\", readable float]; return p/q."""
    if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and _RATIONAL.fullmatch(pair[0])):
        raise _Fail("structure", f"{where}={_show(pair)} must be [\"p/q\", float]")
    try:
        value = Fraction(pair[0])
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits(), 4300 by default)
        raise _Fail("structure", f"{where}={_show(pair[0])} has more digits than the checker reads") from None
    readable = pair[1]
    try:
        expected = float(value)
    except OverflowError:
        expected = None
    if readable != expected or isinstance(readable, bool):
        raise _Fail("readable_floats", f"{where}: readable {_show(readable)} is not float of the exact value {_show(value)} = {expected!r}")
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


def _majority(n: int, cache: dict) -> flint.fmpq_poly:
    """P_n of eq. (main-vn): Bernstein coefficients 0^(n+1) 1^(n+1) (``cache`` holds those already converted)."""
    if n not in cache:
        cache[n] = _from_bernstein([Fraction(0)] * (n + 1) + [Fraction(1)] * (n + 1))
    return cache[n]


def _objective(obj) -> tuple[flint.fmpq_poly, str]:
    """g = sum_i c_i P_(n_i) + Bernstein part, and its name (checks objective, objective_name)."""
    name = _get(obj, "name", str, "objective")
    degree = _get(obj, "degree", int, "objective")
    terms: dict[int, Fraction] = {}
    top = 0
    for i, term in enumerate(_get(obj, "majority", list, "objective")):
        _keys(term, f"objective.majority[{i}]", ("coefficient", "n"), ("votes",))
        n = _get(term, "n", int, f"objective.majority[{i}]")
        if not 0 <= n <= MAX_N:
            raise _Fail("objective", f"objective.majority[{i}].n={_show(n)} must lie in 0..{MAX_N}")
        if term.get("votes", 2 * n + 1) != 2 * n + 1:
            raise _Fail("objective", f"objective.majority[{i}].votes={_show(term['votes'])} is not 2n+1 = {2 * n + 1}")
        c = _exact(term.get("coefficient"), f"objective.majority[{i}].coefficient")
        terms[n] = terms.get(n, Fraction(0)) + c
        top = max(top, 2 * n + 1)
    bern = _exact_list(_get(obj, "bernstein", list, "objective"), "objective.bernstein")
    if len(bern) > 2 * MAX_N + 2:
        raise _Fail("objective", f"objective.bernstein has {len(bern)} coefficients, more than {2 * MAX_N + 2}")
    if bern:
        top = max(top, len(bern) - 1)
    if degree != top:
        raise _Fail("objective", f"objective.degree={_show(degree)} but its terms have degree {top}")
    named_terms, named_rest = name_polynomial(name)
    diff = {n: terms.get(n, Fraction(0)) - named_terms.get(n, Fraction(0)) for n in set(terms) | set(named_terms)}
    diff = {n: c for n, c in diff.items() if c}
    # P_n has degree exactly 2n+1 (P_n' = q^n (1 - q)^n / B(n+1, n+1): leading coefficient
    # (-1)^n C(2n, n)). So when the largest differing index n has 2n+1 above the degree of
    # both other parts, name and terms differ before any P_n is expanded: a wrong name on
    # a large objective fails at once.
    if diff and 2 * max(diff) + 1 > max(len(bern) - 1, named_rest.degree()):
        _wrong_name(name, 2 * max(diff) + 1)
    cache: dict[int, flint.fmpq_poly] = {}
    rest = _from_bernstein(bern) if bern else flint.fmpq_poly([])
    g = rest + sum((_poly([c]) * _majority(n, cache) for n, c in terms.items()), flint.fmpq_poly([]))
    # The name's polynomial equals g exactly: only the vote terms whose coefficients differ are expanded.
    delta = rest - named_rest + sum((_poly([c]) * _majority(n, cache) for n, c in diff.items()), flint.fmpq_poly([]))
    if not delta.is_zero():
        _wrong_name(name, delta.degree())
    return g, " ".join(name.split())


def _wrong_name(name: str, degree: int):
    raise _Fail("objective_name", f"objective.name={_show(name)} is not the certified objective: the certified terms minus "
                                  f"the named polynomial is nonzero (degree {degree})")


# -- the objective's name ---------------------------------------------------------

def _number(text: str) -> Fraction:
    """A number as typed (``0.7``, ``4517/8192``, ``1e-3``), exactly.

    ValueError for any other text, and for an exponent beyond MAX_EXPONENT before any work.
    """
    typed = _TYPED.fullmatch(text)
    if typed is None:
        raise ValueError(f"{_show(text)} is not a plain decimal or fraction p/q")
    exponent = typed.group("exp")
    if exponent and (len(exponent) > 5 or int(exponent) > MAX_EXPONENT):
        raise ValueError(f"the number {_show(text)[1:-1]} has a decimal exponent beyond the limit {MAX_EXPONENT}")
    return Fraction(text)


def _name_constant(value) -> Fraction | None:
    """The value as a number when it is constant (no vote term, no q), else None."""
    terms, rest = value
    if terms or rest.degree() > 0:
        return None
    return Fraction(int(rest.coeffs()[0].p), int(rest.coeffs()[0].q)) if rest.degree() == 0 else Fraction(0)


def _name_expanded(value, name: str) -> flint.fmpq_poly:
    """The value as one polynomial in q, expanding its vote terms (each of degree <= MAX_EXPANDED_DEGREE)."""
    terms, rest = value
    for n in terms:
        if 2 * n + 1 > MAX_EXPANDED_DEGREE:
            raise _Fail("objective_name", f"objective.name={_show(name)}: P{n} (degree {2 * n + 1}) is too large to "
                                          f"expand in a product or power (limit {MAX_EXPANDED_DEGREE})")
    return rest + sum((_poly([c]) * _majority(n, {}) for n, c in terms.items()), flint.fmpq_poly([]))


def _bits(p: flint.fmpq_poly) -> int:
    """Size of p's coefficients: bits of the largest integer numerator or of the common denominator."""
    return max(0 if p.is_zero() else int(p.numer().height_bits()), int(p.denom()).bit_length())


def _scaled(value, k: Fraction):
    terms, rest = value
    return {n: k * c for n, c in terms.items() if k * c}, rest * _poly([k])


def _name_apply(op: str, args: list, name: str):
    """One operation of the objective syntax on an exact value (vote terms {n: c}, polynomial in q)."""
    def fail(why: str) -> _Fail:
        return _Fail("objective_name", f"objective.name={_show(name)}: {why}")

    if op in ("u+", "u-"):
        return args[0] if op == "u+" else _scaled(args[0], Fraction(-1))
    a, b = args
    ca, cb = _name_constant(a), _name_constant(b)
    if op in ("+", "-"):
        terms = dict(a[0])
        for n, c in b[0].items():
            terms[n] = terms.get(n, Fraction(0)) + (c if op == "+" else -c)
        rest = a[1] + b[1] if op == "+" else a[1] - b[1]
        return {n: c for n, c in terms.items() if c}, rest
    if op == "/":
        if cb is None:
            raise fail("a division by an expression in q or vote terms is not a polynomial")
        if cb == 0:
            raise fail("division by zero")
        return _scaled(a, 1 / cb)
    if op == "*":
        if ca is not None or cb is not None:  # a scaling keeps vote terms unexpanded (V4001 - V1 stays cheap)
            return _scaled(b, ca) if ca is not None else _scaled(a, cb)
        pa, pb = _name_expanded(a, name), _name_expanded(b, name)
        if pa.degree() + pb.degree() > MAX_EXPANDED_DEGREE:
            raise fail(f"a product has degree {pa.degree() + pb.degree()}, more than the limit {MAX_EXPANDED_DEGREE}")
        if _bits(pa) + _bits(pb) + (min(pa.degree(), pb.degree()) + 1).bit_length() > MAX_NAME_BITS:
            raise fail(f"a product has coefficients beyond {MAX_NAME_BITS} bits")
        return {}, pa * pb
    # op == "**"
    if cb is None or cb.denominator != 1 or abs(cb) > MAX_EXPANDED_DEGREE:
        raise fail(f"an exponent must be an integer of at most {MAX_EXPANDED_DEGREE} in absolute value")
    e = int(cb)
    if ca is not None:
        if ca == 0 and e <= 0:
            raise fail("0 to a power <= 0 is undefined")
        if abs(e) * max(ca.numerator.bit_length(), ca.denominator.bit_length()) > MAX_NAME_BITS:
            raise fail(f"a power of a number has more than {MAX_NAME_BITS} bits")
        return {}, _poly([ca**e])
    if e < 0:
        raise fail("a negative power of an expression in q or vote terms is not a polynomial")
    base = _name_expanded(a, name)
    if base.degree() * e > MAX_EXPANDED_DEGREE:
        raise fail(f"a power has degree {base.degree() * e}, more than the limit {MAX_EXPANDED_DEGREE}")
    if e * (_bits(base) + (base.degree() + 1).bit_length()) > MAX_NAME_BITS:
        raise fail(f"a power has coefficients beyond {MAX_NAME_BITS} bits")
    return {}, base**e


#: Binding strength of the operators (Python's: unary signs bind less tightly than ** on their right).
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "u+": 3, "u-": 3, "**": 4}


def name_polynomial(name: str) -> tuple[dict[int, Fraction], flint.fmpq_poly]:
    """Read an objective name in the objective syntax of the README, exactly.

    ``P_n`` is the accuracy of 2n+1 votes, ``V_k`` that of k votes (an even k has the
    accuracy of k-1: fair ties), ``q`` the variable; numbers are exact decimals or
    integers; ``+ - * / ** ^`` and parentheses as in Python. Operator precedence parsing
    with explicit stacks: no recursion, so no nesting depth can exhaust the interpreter.

    Parameters
    ----------
    name : str
        The objective's name, e.g. ``"V101"``, ``"P3 - P1"``, ``"2*V3"``, ``"3*q**2 - 2*q**3"``.

    Returns
    -------
    terms : dict of int to Fraction
        Coefficient of each P_n that enters linearly (kept unexpanded, any n <= MAX_N).
    rest : flint.fmpq_poly
        The remaining polynomial in q (products and powers of vote terms expanded).

    Raises
    ------
    _Fail
        ``objective_name`` when the name is not a polynomial in this syntax or exceeds a
        limit (MAX_NAME_LENGTH characters, degree MAX_EXPANDED_DEGREE for expansions,
        MAX_NAME_BITS for coefficients, MAX_N for vote indices).
    """
    def fail(why: str) -> _Fail:
        return _Fail("objective_name", f"objective.name={_show(name)}: {why}")

    if len(name) > MAX_NAME_LENGTH:
        raise fail(f"{len(name)} characters, more than the limit {MAX_NAME_LENGTH}")
    values: list = []
    ops: list[str] = []

    def reduce() -> None:
        op = ops.pop()
        arity = 1 if op.startswith("u") else 2
        args, values[-arity:] = values[-arity:], []
        values.append(_name_apply(op, args, name))

    operand_next, pos = True, 0
    while pos < len(name):
        m = _NAME_TOKEN.match(name, pos)
        if m is None or m.end() == pos:
            rest = name[pos:].strip()
            if not rest:
                break
            raise fail(f"unexpected character {rest[0]!r}; the syntax is P3 - P1, V7 - V3, 3*q**2 - 2*q**3")
        pos = m.end()
        num, word, op = m.group("num"), m.group("name"), m.group("op")
        if operand_next and (num or word):
            if num:
                try:
                    x = _number(num)
                except ValueError as exc:
                    raise fail(str(exc)) from None
                if x and not _NAME_MAGNITUDE[0] <= x <= _NAME_MAGNITUDE[1]:
                    raise fail(f"the number {num[:20]} is outside the allowed magnitudes [1e-300, 1e300]")
                values.append(({}, _poly([x])))
            else:
                vote = _VOTE_NAME.match(word)
                if vote is None:
                    raise fail(f"unknown name {_show(word)}; use q, Pn (2n+1 votes) or Vk (k votes)")
                if vote.group(1) is None:
                    values.append(({}, _poly([0, 1])))
                else:
                    digits = vote.group(2).lstrip("0") or "0"
                    index = int(digits) if len(digits) < 10 else 4 * MAX_N  # any index this long is beyond MAX_N
                    if vote.group(1) == "V" and index < 1:
                        raise fail(f"{word}: a budget of {index} votes is not allowed (need at least 1)")
                    n = index if vote.group(1) == "P" else (index - 1) // 2
                    if n > MAX_N:
                        raise fail(f"{word} is beyond the largest majority index {MAX_N} ({2 * MAX_N + 1} votes)")
                    values.append(({n: Fraction(1)}, flint.fmpq_poly([])))
            operand_next = False
        elif operand_next and op in ("(", "+", "-"):
            ops.append("(" if op == "(" else "u" + op)
        elif not operand_next and op == ")":
            while ops and ops[-1] != "(":
                reduce()
            if not ops:
                raise fail("a ')' closes no '('")
            ops.pop()
        elif not operand_next and op in ("+", "-", "*", "/", "**", "^"):
            op = "**" if op == "^" else op
            while ops and ops[-1] != "(" and (_PRECEDENCE[ops[-1]] > _PRECEDENCE[op] or (_PRECEDENCE[ops[-1]] == _PRECEDENCE[op] and op != "**")):
                reduce()
            ops.append(op)
            operand_next = True
        else:
            where = "where a number, q, Pn, Vk or '(' belongs" if operand_next else "after a complete operand"
            raise fail(f"{(num or word or op)[:20]!r} {where}")
    if operand_next:
        raise fail("it is empty or ends with an operator" if values or ops else "it is empty")
    while ops:
        if ops[-1] == "(":
            raise fail("a '(' is never closed")
        reduce()
    return values[0]


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

def _moments(mom) -> tuple[list[Fraction], str]:
    """Re-derive the exact moments from the inputs as given (eq. (rho-main) for rho).

    Returns the moments m_1..m_m and the inputs as one readable phrase (``mu = 0.7, rho = 0.2``).
    """
    given = _get(mom, "given", list, "moments")
    values, shown = {}, []
    for i, item in enumerate(given):
        _keys(item, f"moments.given[{i}]", ("name", "text", "exact_from"))
        name = _get(item, "name", str, f"moments.given[{i}]")
        text = _get(item, "text", str, f"moments.given[{i}]")
        rule = _get(item, "exact_from", str, f"moments.given[{i}]")
        if rule not in ("text", "binary64"):
            raise _Fail("moments", f"moments.given[{i}].exact_from={_show(rule)} must be 'text' or 'binary64'")
        try:
            exact = _number(text)  # the text's syntax and exponent are checked for both rules
            values[name] = exact if rule == "text" else Fraction(float(text))
        except (ValueError, ZeroDivisionError, OverflowError):
            raise _Fail("moments", f"moments.given[{i}].text={_show(text)} is not a plain decimal or fraction p/q "
                                   f"with an exponent of at most {MAX_EXPONENT}") from None
        shown.append(f"{name} = {' '.join(text.split())}" + (" (binary64)" if rule == "binary64" else ""))
    names = [item["name"] for item in given]
    if names == ["mu", "rho"]:
        mu, rho = values["mu"], values["rho"]
        exact = [mu, mu * mu + rho * mu * (1 - mu)]
    elif names in (["mu"], ["mu", "nu"]) or (names and names == [f"m{k + 1}" for k in range(len(names))]):
        exact = [values[n] for n in names]
    else:
        raise _Fail("moments", f"moments.given names {_show(names)} must be mu, mu+nu, mu+rho or m1..mm")
    return exact, ", ".join(shown)


_TOP = ("schema_version", "kind", "side", "objective", "moments", "law", "dual", "primal_value", "dual_value", "enclosure", "width", "value", "provenance")
_PROVENANCE = ("package", "version", "method", "construction", "digits", "seconds", "created")


def check_header(cert, versions: tuple[str, ...], kind: str) -> tuple[str, int]:
    """Version, kind, the top-level and provenance keys, and the side: (side, s = +1 upper / -1 lower)."""
    if not isinstance(cert, dict):
        raise _Fail("structure", "a certificate must be a JSON object")
    version = cert.get("schema_version")
    if version not in versions:
        raise _Fail("schema_version", f"schema_version={_show(version)} is unknown (supported: {', '.join(versions)})")
    if cert.get("kind") != kind:
        raise _Fail("structure", f"kind={_show(cert.get('kind'))} must be {kind!r}")
    _keys(cert, "certificate", _TOP)
    # Provenance is not part of the proof, but it is part of the file a reader sees.
    _keys(cert["provenance"], "provenance", _PROVENANCE)
    side = _get(cert, "side", str, "certificate")
    if side not in ("lower", "upper"):
        raise _Fail("structure", f"side={_show(side)} must be 'lower' or 'upper'")
    return side, (1 if side == "upper" else -1)


def _run(cert) -> VerificationResult:
    side, s = check_header(cert, SUPPORTED_VERSIONS, "sharp-bound-certificate")
    obj = _keys(cert["objective"], "objective", ("name", "degree", "majority", "bernstein"))
    g, name = _objective(obj)
    b = read_bound(cert)
    theta, given, atoms, weights, coeffs, contacts = b["theta"], b["given"], b["atoms"], b["weights"], b["coeffs"], b["contacts"]
    primal, dual_value, enclosure, width, value = b["primal"], b["dual_value"], b["enclosure"], b["width"], b["value"]

    check_law(atoms, weights, theta)
    attained = sum(w * _value(g, x) for x, w in zip(atoms, weights))
    if (primal > attained) if s > 0 else (primal < attained):
        raise _Fail("primal_value", f"primal_value={_show(primal)} is not {'<=' if s > 0 else '>='} sum_j w_j g(x_j) = {_approx(attained)}")

    check_dual_value(coeffs, theta, dual_value)

    f = divide_contacts((_poly(coeffs) - g) * s, contacts, "s*(p - g)")
    if not f.is_zero():
        ok, why = positive_on_closed_unit_interval(f, atoms)
        if not ok:
            raise _Fail("dual_sign", f"the {'majorant' if s > 0 else 'minorant'} property s*(p - g) >= 0 on [0, 1] fails: {why}")

    lo, hi = check_enclosure(enclosure, width, value, primal, dual_value, s)
    moments = ", ".join(f"m{k + 1} = {_show(x, 200)}" for k, x in enumerate(theta[1:]))
    msg = (f"{side} bound of E[{name}] in [{_approx(lo, 17)}, {_approx(hi, 17)}] (width {_approx(hi - lo)}) "
           f"over all laws on [0, 1] with {given} (exactly {moments})")
    return VerificationResult(True, None, msg, side, name, (lo, hi))


def read_bound(cert: dict) -> dict:
    """The exact fields every moment-class certificate shares (schemas 1 and 3), checked for layout.

    Checks structure, readable_floats and moments: the order, the checker's order limit,
    and that ``moments.exact`` are the exact values of ``moments.given``. Returns theta =
    (1, m_1, ..., m_m), the verdict's description of the inputs, and the law, dual and values.
    """
    mom = _keys(cert["moments"], "moments", ("order", "given", "exact"))
    law = _keys(cert["law"], "law", ("atoms", "weights"))
    dual = _keys(cert["dual"], "dual", ("coefficients", "contacts"))
    theta = [Fraction(1)] + _exact_list(_get(mom, "exact", list, "moments"), "moments.exact")
    m = len(theta) - 1
    if _get(mom, "order", int, "moments") != m or m < 1:
        raise _Fail("structure", f"moments.order={_show(mom['order'])} but {m} exact moments are listed")
    if m > MAX_ORDER:
        raise _Fail("moments", f"moments.order={m} is above the largest order the checker accepts, {MAX_ORDER}")
    exact, given = _moments(mom)
    if exact != theta[1:]:
        raise _Fail("moments", "moments.exact are not the exact values of moments.given")
    contacts = []
    for i, c in enumerate(_get(dual, "contacts", list, "dual")):
        _keys(c, f"dual.contacts[{i}]", ("point", "multiplicity"))
        contacts.append((_exact(_get(c, "point", list, f"dual.contacts[{i}]"), f"dual.contacts[{i}].point"),
                         _get(c, "multiplicity", int, f"dual.contacts[{i}]")))
    enclosure = _exact_list(_get(cert, "enclosure", list, "certificate"), "enclosure")
    out = {
        "theta": theta,
        "given": given,
        "atoms": _exact_list(_get(law, "atoms", list, "law"), "law.atoms"),
        "weights": _exact_list(_get(law, "weights", list, "law"), "law.weights"),
        "coeffs": _exact_list(_get(dual, "coefficients", list, "dual"), "dual.coefficients"),
        "contacts": contacts,
        "primal": _exact(cert["primal_value"], "primal_value"),
        "dual_value": _exact(cert["dual_value"], "dual_value"),
        "enclosure": enclosure,
        "width": _exact(cert["width"], "width"),
        "value": _exact(cert["value"], "value"),
    }
    if len(enclosure) != 2:
        raise _Fail("structure", f"enclosure has {len(enclosure)} numbers, not 2")
    return out


def check_law(atoms: list[Fraction], weights: list[Fraction], theta: list[Fraction]) -> None:
    """A law of the class: 1..m+1 atoms in [0, 1], weights >= 0, every moment reproduced exactly."""
    m = len(theta) - 1
    if not 1 <= len(atoms) <= m + 1 or len(atoms) != len(weights):
        raise _Fail("atom_count", f"law has {len(atoms)} atoms and {len(weights)} weights; need 1..{m + 1} of each, equal counts")
    for j, x in enumerate(atoms):
        if not 0 <= x <= 1:
            raise _Fail("atoms_in_unit_interval", f"law.atoms[{j}]={_show(x)} is outside [0, 1]")
    for j, w in enumerate(weights):
        if w < 0:
            raise _Fail("weights_nonnegative", f"law.weights[{j}]={_show(w)} is negative")
    for k in range(m + 1):
        got = sum(w * x**k for x, w in zip(atoms, weights))
        if got != theta[k]:
            what = "total mass" if k == 0 else f"moment m{k}"
            raise _Fail("moment_equations", f"{what} of the law is off by {_approx(got - theta[k])} from {_approx(theta[k])}")


def check_dual_value(coeffs: list[Fraction], theta: list[Fraction], dual_value: Fraction) -> None:
    """Degree <= m, and dual_value = sum_k c_k m_k exactly (eq. (dual-U-main))."""
    m = len(theta) - 1
    if len(coeffs) > m + 1 or not coeffs:
        raise _Fail("dual_degree", f"dual has {len(coeffs)} coefficients; a degree <= {m} polynomial has 1..{m + 1}")
    if sum(c * t for c, t in zip(coeffs, theta)) != dual_value:
        raise _Fail("dual_value", f"dual_value={_show(dual_value)} is not sum_k c_k m_k")


def divide_contacts(f: flint.fmpq_poly, contacts, what: str) -> flint.fmpq_poly:
    """f with each contact factor divided out: x at 0, 1 - x at 1, (x - c) inside (even multiplicity)."""
    for point, mult in contacts:
        interior = 0 < point < 1
        if not 0 <= point <= 1 or mult < 1 or (interior and mult % 2):
            raise _Fail("contacts", f"contact {_show(point)} with multiplicity {_show(mult)}: need a point of [0, 1], even multiplicity inside")
        factor = _poly([-point, 1]) if point < 1 else _poly([1, -1])
        for _ in range(mult):
            if f.is_zero():
                break
            f, rem = divmod(f, factor)
            if not rem.is_zero():
                raise _Fail("contacts", f"{what} does not vanish to order {_show(mult)} at the contact {_show(point)}")
    return f


def check_enclosure(enclosure, width, value, primal, dual_value, s: int) -> tuple[Fraction, Fraction]:
    """[primal, dual] (upper, s = 1) or [dual, primal] (lower) as stated, with the value inside."""
    lo, hi = (primal, dual_value) if s > 0 else (dual_value, primal)
    if enclosure != [lo, hi] or lo > hi or width != hi - lo:
        raise _Fail("enclosure", f"enclosure [{_show(enclosure[0])}, {_show(enclosure[1])}] / width {_show(width)} is not "
                                 f"[{_show(lo)}, {_show(hi)}] / {_show(hi - lo)} with lower <= upper")
    if not lo <= value <= hi:
        raise _Fail("value_in_enclosure", f"value={_show(value)} lies outside the enclosure [{_show(lo)}, {_show(hi)}]")
    return lo, hi


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
    return checked(_run, cert)


def checked(run, cert) -> VerificationResult:
    """``run(cert)``, with a failed check or malformed data turned into a failed result (never raises)."""
    try:
        return run(cert)
    except _Fail as exc:
        side = cert.get("side") if isinstance(cert, dict) else None
        return VerificationResult(False, exc.check, f"{exc.check}: {exc}", side if isinstance(side, str) else None)
    except (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError, OverflowError) as exc:
        return VerificationResult(False, "structure", f"structure: malformed certificate ({type(exc).__name__}: {_show(str(exc), 120)[1:-1]})")
