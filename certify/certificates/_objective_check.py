"""The objective of a certificate and its name, read exactly (schemas 1 and 2).

A sharp-bound certificate (schema 1) and a likelihood certificate (schema 2) carry
their objective g as exact terms: coefficients c_i of majority accuracies P_(n_i)
(eq. (main-vn)) plus a Bernstein part. :func:`objective_polynomial` rebuilds g from
them, and the objective's name is part of what is proven: it is read in the objective
syntax of the reference (docs/reference/objectives.md) by this module's own small parser (:func:`name_polynomial`,
bounded like :mod:`certify._objective`) and must denote exactly the certified
polynomial, so the name a reader sees is the polynomial that was checked.

Part of the checkers' trusted base: only the standard library, python-flint and the
kernel modules :mod:`._kernel` and :mod:`._checking`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import comb

import flint

from ._budget import MAX_DEGREE
from ._checking import CheckFailed, field, read_exact, read_exact_list, require_keys, show, typed_number
from ._kernel import coefficients, poly, to_fraction

__all__ = [
    "MAX_EXPANDED_DEGREE",
    "MAX_N",
    "MAX_NAME_BITS",
    "MAX_NAME_LENGTH",
    "majority_polynomial",
    "name_polynomial",
    "objective_polynomial",
]

#: Largest majority index accepted: P_MAX_N has the largest degree the work budget allows
#: (2n+1 = MAX_DEGREE = 4001 votes; :mod:`._budget`).
MAX_N = (MAX_DEGREE - 1) // 2

#: Longest objective name read: the objective syntax's own limit (certify/_objective.py).
MAX_NAME_LENGTH = 2000

#: Highest degree a product or power in a name may expand to: the syntax's limit.
MAX_EXPANDED_DEGREE = 512

#: Largest coefficient size (bits of a numerator or of the common denominator) that a
#: product or power in a name may produce. Real names need far less (P_256 expanded:
#: about 520 bits); the cap keeps names such as (1e300*q + 1)**512 from demanding
#: seconds of big-integer work before they are refused.
MAX_NAME_BITS = 1 << 16

#: The magnitudes a number literal in a name may have (0 aside): the syntax's rule.
_NAME_MAGNITUDE = (Fraction(1, 10**300), Fraction(10**300))

_NAME_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/^()]))",
    re.ASCII,
)
_VOTE_NAME = re.compile(r"^(?:q|([PV])(\d+))$", re.ASCII)


# -- the objective's terms ------------------------------------------------------------


def _from_bernstein(b: list[Fraction]) -> flint.fmpq_poly:
    """sum_l b_l C(N, l) x^l (1-x)^(N-l) = x^N R(1/x - 1), R(s) = sum_l b_l C(N, l) s^(N-l)."""
    n = len(b) - 1
    rev = [b[n - i] * comb(n, n - i) for i in range(n + 1)]  # R(s), coefficient of s^i
    shifted = poly(rev)(flint.fmpq_poly([-1, 1]))  # R(s - 1)
    return poly(coefficients(shifted, n + 1)[::-1])


def majority_polynomial(n: int, cache: dict) -> flint.fmpq_poly:
    """P_n of eq. (main-vn): Bernstein coefficients 0^(n+1) 1^(n+1) (``cache`` holds those already converted)."""
    if n not in cache:
        cache[n] = _from_bernstein([Fraction(0)] * (n + 1) + [Fraction(1)] * (n + 1))
    return cache[n]


def objective_polynomial(obj) -> tuple[flint.fmpq_poly, str]:
    """g = sum_i c_i P_(n_i) + Bernstein part, and its name (checks objective, objective_name)."""
    name = field(obj, "name", str, "objective")
    degree = field(obj, "degree", int, "objective")
    terms: dict[int, Fraction] = {}
    top = 0
    for i, term in enumerate(field(obj, "majority", list, "objective")):
        require_keys(term, f"objective.majority[{i}]", ("coefficient", "n"), ("votes",))
        n = field(term, "n", int, f"objective.majority[{i}]")
        if not 0 <= n <= MAX_N:
            raise CheckFailed("objective", f"objective.majority[{i}].n={show(n)} must lie in 0..{MAX_N}")
        if term.get("votes", 2 * n + 1) != 2 * n + 1:
            raise CheckFailed(
                "objective", f"objective.majority[{i}].votes={show(term['votes'])} is not 2n+1 = {2 * n + 1}"
            )
        c = read_exact(term.get("coefficient"), f"objective.majority[{i}].coefficient")
        terms[n] = terms.get(n, Fraction(0)) + c
        top = max(top, 2 * n + 1)
    bern = read_exact_list(field(obj, "bernstein", list, "objective"), "objective.bernstein")
    if len(bern) > 2 * MAX_N + 2:
        raise CheckFailed("objective", f"objective.bernstein has {len(bern)} coefficients, more than {2 * MAX_N + 2}")
    if bern:
        top = max(top, len(bern) - 1)
    if degree != top:
        raise CheckFailed("objective", f"objective.degree={show(degree)} but its terms have degree {top}")
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
    g = rest + sum((poly([c]) * majority_polynomial(n, cache) for n, c in terms.items()), flint.fmpq_poly([]))
    # The name's polynomial equals g exactly: only the vote terms whose coefficients differ are expanded.
    delta = (
        rest
        - named_rest
        + sum((poly([c]) * majority_polynomial(n, cache) for n, c in diff.items()), flint.fmpq_poly([]))
    )
    if not delta.is_zero():
        _wrong_name(name, delta.degree())
    return g, " ".join(name.split())


def _wrong_name(name: str, degree: int):
    raise CheckFailed(
        "objective_name",
        f"objective.name={show(name)} is not the certified objective: the certified terms minus "
        f"the named polynomial is nonzero (degree {degree})",
    )


# -- the objective's name ---------------------------------------------------------


def _name_constant(value) -> Fraction | None:
    """The value as a number when it is constant (no vote term, no q), else None."""
    terms, rest = value
    if terms or rest.degree() > 0:
        return None
    return to_fraction(rest.coeffs()[0]) if rest.degree() == 0 else Fraction(0)


def _name_expanded(value, name: str) -> flint.fmpq_poly:
    """The value as one polynomial in q, expanding its vote terms (each of degree <= MAX_EXPANDED_DEGREE)."""
    terms, rest = value
    for n in terms:
        if 2 * n + 1 > MAX_EXPANDED_DEGREE:
            raise CheckFailed(
                "objective_name",
                f"objective.name={show(name)}: P{n} (degree {2 * n + 1}) is too large to "
                f"expand in a product or power (limit {MAX_EXPANDED_DEGREE})",
            )
    return rest + sum((poly([c]) * majority_polynomial(n, {}) for n, c in terms.items()), flint.fmpq_poly([]))


def _bits(p: flint.fmpq_poly) -> int:
    """Size of p's coefficients: bits of the largest integer numerator or of the common denominator."""
    return max(0 if p.is_zero() else int(p.numer().height_bits()), int(p.denom()).bit_length())


def _scaled(value, k: Fraction):
    terms, rest = value
    return {n: k * c for n, c in terms.items() if k * c}, rest * poly([k])


def _name_apply(op: str, args: list, name: str):
    """One operation of the objective syntax on an exact value (vote terms {n: c}, polynomial in q)."""

    def fail(why: str) -> CheckFailed:
        return CheckFailed("objective_name", f"objective.name={show(name)}: {why}")

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
        # a scaling keeps vote terms unexpanded (V4001 - V1 stays cheap)
        if ca is not None:
            return _scaled(b, ca)
        if cb is not None:
            return _scaled(a, cb)
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
        return {}, poly([ca**e])
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
    """Read an objective name in the objective syntax of docs/reference/objectives.md, exactly.

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
    CheckFailed
        ``objective_name`` when the name is not a polynomial in this syntax or exceeds a
        limit (MAX_NAME_LENGTH characters, degree MAX_EXPANDED_DEGREE for expansions,
        MAX_NAME_BITS for coefficients, MAX_N for vote indices).
    """

    def fail(why: str) -> CheckFailed:
        return CheckFailed("objective_name", f"objective.name={show(name)}: {why}")

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
                    x = typed_number(num)
                except ValueError as exc:
                    raise fail(str(exc)) from None
                if x and not _NAME_MAGNITUDE[0] <= x <= _NAME_MAGNITUDE[1]:
                    raise fail(f"the number {num[:20]} is outside the allowed magnitudes [1e-300, 1e300]")
                values.append(({}, poly([x])))
            else:
                vote = _VOTE_NAME.match(word)
                if vote is None:
                    raise fail(f"unknown name {show(word)}; use q, Pn (2n+1 votes) or Vk (k votes)")
                if vote.group(1) is None:
                    values.append(({}, poly([0, 1])))
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
            while (
                ops
                and ops[-1] != "("
                and (_PRECEDENCE[ops[-1]] > _PRECEDENCE[op] or (_PRECEDENCE[ops[-1]] == _PRECEDENCE[op] and op != "**"))
            ):
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
