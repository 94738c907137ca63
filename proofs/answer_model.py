"""Proof check: the answer model's plurality and pattern probabilities (certify.aggregates._answer_family).

Setting. Given an example, each call is correct (probability q), the example's strongest wrong
answer (m), or one of L further wrong answers of probability p = r / L each (r = 1 - q - m);
L = infinity: every such call an answer no other call gives. The model's plurality accuracy of
k calls is

    g_k(q, m, L) = sum over call sequences of P(calls) f(calls),

f the plurality score of the correct answer (fair ties) from its definition
(``proofs/plurality_bounds.py``: ``score``). The module computes it as

    (G)  sum_{x >= 1, y <= x} k! / (x! y! z!) q^x m^y r^z T_L(x, z, [y = x]),
    (T)  T_L(x, z, e) = E[1 / (1 + e + tau); every count <= x], z calls uniform over L answers,
         tau the answers at exactly x; T_inf = 1 / (1 + e) for x >= 2, 1 / (1 + z + e) for x = 1,

and the probability of an answer-count pattern (K, c, lambda) (c correct, lambda the wrong
answers' counts in decreasing order) as

    (P)  K! / (c! prod lambda_j! prod_s mult_s!) q^c [(L)_b p^w + (L)_{b-1} sum_j m^lambda_j p^(w - lambda_j)].

Claims, checked in exact arithmetic (Fractions; sympy polynomials for the ends):

1. (G) with T_L from its definition (every count vector of z calls over L answers) equals the sum
   over every call sequence, coefficient by coefficient of q^x m^y r^z (homogeneous monomials of
   degree k are independent after r = 1 - q - m), for k = 1..8 at L = infinity and k = 1..6 at
   L = 1, 2, 3;
2. g_k(q, 1 - q, L) = V_k(q), the fair-tie bit majority, for every L (at r = 0 only z = 0 terms
   remain and T_L(x, 0, e) = 1 / (1 + e), checked), and g_k(q, 0, infinity) = U_k(q), the valid
   envelope's two ends (``certify._aggregate_bounds``), for k = 1..24;
3. g_3(q, m, L) = V_3(q) + q ((1 - q)^2 - m^2 - r^2 / L): the exact plurality of three calls
   with the model's collision probability m^2 + L p^2 (L = 1, 2, 3, infinity);
4. the patterns' probabilities from every call sequence equal (P) and sum to 1 (K = 1..8 at
   L = infinity, K = 1..6 at L = 1, 2, 3);
5. the module's floating-point ``model_plurality`` and ``pattern_kernel`` agree with these exact
   values at 66 rational points of the triangle (q, m multiples of 1/10) to 1e-13.

Run ``python proofs/answer_model.py``; it writes ``proofs/records/answer_model.json``
(re-checked by the tests).
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import sympy

from certify._aggregate_bounds import plurality_bounds
from certify.aggregates import model_plurality, pattern_kernel
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)
from plurality_bounds import CORRECT, score  # noqa: E402

Q, M = sympy.symbols("q m")
MAX_SEQUENCE_CALLS = 8
MAX_BINS_CALLS = 6
BINS = (1, 2, 3)
MAX_ENDS_CALLS = 24
INF = 0  # L = infinity in this script's keys
DOMINANT = "dominant"


def _labels(bins: int) -> list:
    """The kinds of call: correct, dominant, and the L equal answers (or 'r': a new answer each time)."""
    return ["c", "d"] + ([f"b{j}" for j in range(bins)] if bins else ["r"])


def _sequence(labels) -> tuple:
    """Calls as the plurality script reads them: each 'r' call a wrong class of its own."""
    rare = itertools.count()
    names = {"c": CORRECT, "d": DOMINANT}
    return tuple(names.get(x, f"rare{next(rare)}" if x == "r" else x) for x in labels)


def _exponents(labels) -> tuple[int, int, int]:
    """(x, y, z): correct, dominant and rest calls (P = q^x m^y p^z with p = r / L, or r^z at infinity)."""
    return labels.count("c"), labels.count("d"), len(labels) - labels.count("c") - labels.count("d")


def definition(k: int, bins: int) -> dict:
    """sum over call sequences of f q^x m^y p^z, as {(x, y, z): coefficient of q^x m^y r^z}."""
    out: dict = {}
    for labels in itertools.product(_labels(bins), repeat=k):
        key = _exponents(labels)
        weight = score(_sequence(labels)) / (Fraction(bins) ** key[2] if bins else 1)
        out[key] = out.get(key, Fraction(0)) + weight
    return {key: v for key, v in out.items() if v != 0}


def tie_weight(bins: int, x: int, z: int, e: int) -> Fraction:
    """T_L(x, z, e) of (T), from its definition: every count vector of z calls over the L answers."""
    if not bins:
        return Fraction(1, 1 + e) if x >= 2 else Fraction(1, 1 + z + e)
    total = Fraction(0)
    for counts in itertools.product(range(min(x, z) + 1), repeat=bins):
        if sum(counts) != z:
            continue
        ways = math.factorial(z)
        for n in counts:
            ways //= math.factorial(n)
        total += Fraction(ways, bins**z) / (1 + e + sum(1 for n in counts if n == x))
    return total


def closed_form(k: int, bins: int) -> dict:
    """(G) as {(x, y, z): coefficient of q^x m^y r^z}."""
    out = {}
    for x in range(1, k + 1):
        for y in range(0, min(x, k - x) + 1):
            z = k - x - y
            coef = Fraction(math.factorial(k), math.factorial(x) * math.factorial(y) * math.factorial(z))
            value = coef * tie_weight(bins, x, z, int(y == x))
            if value:
                out[(x, y, z)] = value
    return out


def _poly(coefficients: dict):
    """A {(x, y, z): c} form as a sympy Poly in (q, m) with r = 1 - q - m (Poly arithmetic: fast)."""
    q, m = sympy.Poly(Q, Q, M), sympy.Poly(M, Q, M)
    r = 1 - q - m
    total = sympy.Poly(0, Q, M)
    for (x, y, z), c in coefficients.items():
        total += q**x * m**y * r**z * sympy.Rational(c.numerator, c.denominator)
    return total


def _on_diagonal(g):
    """g(q, 1 - q) as a Poly in (q, m), by Poly arithmetic (sympy's subs is slow at degree 24)."""
    powers = [sympy.Poly(1, Q, M)]
    for _ in range(g.total_degree()):
        powers.append(powers[-1] * sympy.Poly(1 - Q, Q, M))
    total = sympy.Poly(0, Q, M)
    for (i, j), c in g.terms():
        total += sympy.Poly(Q**i, Q, M) * powers[j] * c
    return total


def _poly_of(objective):
    """An objective's monomial coefficients as a Poly in (q, m)."""
    return sympy.Poly(sum(sympy.Rational(c.numerator, c.denominator) * Q**i
                          for i, c in enumerate(objective.monomial_coefficients())), Q, M)


def _evaluate(coefficients: dict, q: Fraction, m: Fraction) -> Fraction:
    r = 1 - q - m
    return sum((c * q**x * m**y * r**z for (x, y, z), c in coefficients.items()), Fraction(0))


def patterns_from_sequences(calls: int, bins: int) -> dict:
    """{(c, lambda): {(x, y, z): coefficient of q^x m^y p^z}} over every call sequence."""
    out: dict = {}
    for labels in itertools.product(_labels(bins), repeat=calls):
        wrong = Counter(_sequence(labels))
        c = wrong.pop(CORRECT, 0)
        key = (c, tuple(sorted(wrong.values(), reverse=True)))
        exps = _exponents(labels)
        terms = out.setdefault(key, {})
        terms[exps] = terms.get(exps, 0) + 1
    return out


def _value(terms: dict, bins: int, q: Fraction, m: Fraction) -> Fraction:
    r = 1 - q - m
    p = r / bins if bins else r
    return sum((Fraction(n) * q**x * m**y * p**z for (x, y, z), n in terms.items()), Fraction(0))


def pattern_formula(calls: int, c: int, lam: tuple, bins: int, q: Fraction, m: Fraction) -> Fraction:
    """(P) in Fractions (at L = infinity, its limit: (L)_b p^w -> r^w when w = b, else 0)."""
    r = 1 - q - m
    w, b = calls - c, len(lam)
    coef = Fraction(math.factorial(calls), math.factorial(c))
    for s in lam:
        coef /= math.factorial(s)
    for mult in Counter(lam).values():
        coef /= math.factorial(mult)

    def spread(blocks: int, mass: int) -> Fraction:
        """(L)_blocks p^mass, or its limit."""
        if not bins:
            return r**mass if mass == blocks else Fraction(0)
        fall = math.prod(range(bins - blocks + 1, bins + 1)) if blocks <= bins else 0
        return fall * (r / bins) ** mass

    total = spread(b, w) + sum((m**s * spread(b - 1, w - s) for s in lam), Fraction(0))
    return coef * q**c * total


def _points():
    return [(Fraction(i, 10), Fraction(j, 10)) for i in range(11) for j in range(11 - i)]


def _row(calls: int, c: int, lam: tuple) -> list:
    return [calls, c] + list(lam) + [0] * (calls - len(lam))


def main() -> int:
    flags = {"definition_is_closed_form": True, "ends_are_V_k_and_U_k": True, "three_calls_collision_form": True,
             "patterns_match_formulas": True, "patterns_sum_to_one": True, "floats_agree": True}
    points = _points()
    qs = np.array([float(a) for a, _ in points])
    ms = np.array([float(b) for _, b in points])
    cases = [(INF, k) for k in range(1, MAX_SEQUENCE_CALLS + 1)]
    cases += [(bins, k) for bins in BINS for k in range(1, MAX_BINS_CALLS + 1)]
    for bins, k in cases:
        exact = closed_form(k, bins)
        flags["definition_is_closed_form"] &= definition(k, bins) == exact
        values = np.array([float(_evaluate(exact, a, b)) for a, b in points])
        floats = model_plurality(k, qs, ms, bins if bins else np.inf)
        flags["floats_agree"] &= bool(np.max(np.abs(floats - values)) <= 1e-13)
        patterns = patterns_from_sequences(k, bins)
        keys = sorted(patterns)
        total = [Fraction(0)] * len(points)
        table = pattern_kernel(np.array([_row(k, c, lam) for c, lam in keys]), qs, ms, bins if bins else np.inf)
        for row, key in enumerate(keys):
            exact_row = [_value(patterns[key], bins, a, b) for a, b in points]
            flags["patterns_match_formulas"] &= exact_row == [pattern_formula(k, *key, bins, a, b) for a, b in points]
            total = [t + v for t, v in zip(total, exact_row)]
            flags["floats_agree"] &= bool(np.max(np.abs(table[row] - np.array([float(v) for v in exact_row]))) <= 1e-13)
        flags["patterns_sum_to_one"] &= all(t == 1 for t in total)
    for bins in BINS:  # at r = 0 every L gives the same g_k: T_L(x, 0, e) = 1 / (1 + e)
        flags["ends_are_V_k_and_U_k"] &= all(tie_weight(bins, x, 0, e) == Fraction(1, 1 + e)
                                             for x in range(1, MAX_ENDS_CALLS + 1) for e in (0, 1))
    for k in range(1, MAX_ENDS_CALLS + 1):
        g = _poly(closed_form(k, INF))
        lower, upper = plurality_bounds(k)
        at_zero = sympy.Poly(sum(c * Q**i for (i, j), c in g.terms() if j == 0), Q, M)  # m = 0
        flags["ends_are_V_k_and_U_k"] &= _on_diagonal(g) == _poly_of(lower) and at_zero == _poly_of(upper)
    v3 = _poly_of(plurality_bounds(3)[0])
    for bins in (INF,) + BINS:
        collision = sympy.Poly(M**2 + ((1 - Q - M) ** 2 / bins if bins else 0), Q, M)
        flags["three_calls_collision_form"] &= _poly(closed_form(3, bins)) == v3 + sympy.Poly(Q * (1 - Q) ** 2, Q, M) \
            - sympy.Poly(Q, Q, M) * collision
    flags = {key: bool(v) for key, v in flags.items()}
    record = {"claim": "the answer model's plurality g_k(q, m, L) and answer-count pattern probabilities",
              "sequence_k": list(range(1, MAX_SEQUENCE_CALLS + 1)),
              "sequence_k_bins": {str(b): list(range(1, MAX_BINS_CALLS + 1)) for b in BINS},
              "ends_k": list(range(1, MAX_ENDS_CALLS + 1)), "points": len(points), "checks": flags}
    out = write_record(__file__, record)
    for name, ok in flags.items():
        print(f"  {name}: {ok}")
    print(f"record: {out}")
    return 0 if all(flags.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
