"""Exact proofs that a rational polynomial is positive on [0, 1]: the sign step of every checker.

Each certificate schema reduces its claim to "this polynomial is > 0 on [0, 1]" (after
the checker divides out the exact contact factors): the dual minus the objective for
schema 1 (Theorem 4.1, eqs. (dual-L-main)-(dual-U-main)), the Lagrangian polynomial on
each piece of the objective for schema 2, the dual against the step on each half for
schema 3. The proof is the same for all three: near each hint point (an atom of the
law, where the polynomial may come within 1e-15 of zero) a Taylor expansion with an
exact tail bound, and on the rest Descartes' rule of signs with dyadic bisection
(Vincent-Collins-Akritas) on integer polynomials. Part of the checkers' trusted base:
only the standard library, python-flint and :mod:`._kernel`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import flint

from ._kernel import to_fmpq, to_fraction

__all__ = ["MAX_DEPTH", "on_piece", "positive_on_closed_unit_interval", "positive_on_unit_interval"]

#: Bisection depth after which positivity counts as not proven (2^-400 is far
#: below any margin the builders use, even at 100 digits).
MAX_DEPTH = 400


def on_piece(f: flint.fmpq_poly, start: Fraction, end: Fraction) -> flint.fmpq_poly:
    """f(start + (end - start) t): the piece [start, end] mapped onto t in [0, 1], exactly."""
    return f(flint.fmpq_poly([to_fmpq(start), to_fmpq(end - start)]))


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
    coeffs = h(flint.fmpq_poly([to_fmpq(c), 1])).coeffs()
    a = [to_fraction(v) for v in coeffs[:3]] + [Fraction(0)] * (3 - len(coeffs))
    if a[0] <= 0:
        return None
    tail = flint.fmpq_poly([abs(v) for v in coeffs[3:]] or [0])  # sum_{k>=3} |a_k| y^(k-3)
    for k in range(2, 40):
        r = Fraction(1, 2**k)
        t = to_fraction(v) * r if (v := tail(flint.fmpq(1, 2**k))) else Fraction(0)
        if a[2] > t and a[1] ** 2 < 4 * a[0] * (a[2] - t):
            return r
    return None


def positive_on_closed_unit_interval(h: flint.fmpq_poly, hints) -> tuple[bool, str]:
    """Prove h > 0 on [0, 1]: Taylor windows around the hint points, bisection elsewhere.

    Parameters
    ----------
    h : flint.fmpq_poly
    hints : iterable of Fraction
        Points where h may nearly touch zero (those outside (0, 1) are ignored). They
        affect speed only: every piece of [0, 1] is proven exactly.

    Returns
    -------
    (bool, str)
        Whether h > 0 was proven, and how (or where the proof failed).
    """
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
        ok, why = positive_on_unit_interval(on_piece(h, lo, hi).numer())
        if not ok:
            return False, f"on [{float(lo):.17g}, {float(hi):.17g}]: {why}"
    return True, f"{len(covered)} Taylor windows, {len(gaps)} root-free pieces"
