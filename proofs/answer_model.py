"""Proof check: the answer model's plurality polynomial and pattern probabilities (certify.stats._answer_model).

Setting. Given an example, each call is correct (probability q), the example's one dominant
wrong answer (m), or an answer no other call gives (r = 1 - q - m; a rare wrong answer, counted
as a vote of its own). The model's plurality accuracy of k calls is

    g_k(q, m) = sum over calls in {correct, dominant, rare}^k of P(calls) f(calls),

f the plurality score of the correct answer (fair ties) from its definition
(``proofs/plurality_bounds.py``: ``score``), every rare call a distinct answer. The data of an
example with K calls reduce to (c, d): c correct calls, and d = the dominant answer's count when
it is at least 2, else 0.

Claims, checked in exact arithmetic (sympy polynomials in q and m):

1. g_k built from the definition equals the closed form of the module docstring,
   sum_{x+y+z=k} k!/(x! y! z!) q^x m^y r^z f(x, y), with f = 1 if x >= 2, x > y; 1/2 if
   x = y >= 2; 1/k if x = 1, y <= 1; 0 otherwise -- for k = 1..8 (every call sequence, 3^k);
2. g_k(q, 1 - q) = V_k(q), the fair-tie bit majority, and g_k(q, 0) = U_k(q), the valid
   envelope's two ends (``certify._aggregate_bounds``), for k = 1..24;
3. g_3(q, m) = V_3(q) + q ((1 - q)^2 - m^2): the exact plurality of three calls,
   V_3 + q((1-q)^2 - sum_j w_j^2), with the model's collision sum_j w_j^2 = m^2;
4. the reduced patterns' probabilities from every call sequence equal the module's formulas
   (d >= 2: K!/(c! d! s!) q^c m^d r^s; d = 0: C(K, c) q^c (r^w + w m r^(w-1))) and sum to 1,
   for K = 1..8;
5. the module's floating-point ``model_plurality`` and ``pattern_kernel`` agree with these exact
   polynomials at 66 rational points of the triangle to 1e-13.

Run ``python proofs/answer_model.py``; it writes ``proofs/records/answer_model.json``
(re-checked by the tests).
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import numpy as np
import sympy

from certify._aggregate_bounds import plurality_bounds
from certify.stats import model_plurality, pattern_kernel
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)
from plurality_bounds import score  # noqa: E402

Q, M = sympy.symbols("q m")
R = 1 - Q - M
MAX_SEQUENCE_CALLS = 8
MAX_ENDS_CALLS = 24
CORRECT, DOMINANT = "correct", 1


def _sequence(labels) -> tuple:
    """Calls as the plurality script reads them: each rare call a wrong class of its own."""
    rare = itertools.count(2)
    return tuple(CORRECT if x == "c" else DOMINANT if x == "d" else next(rare) for x in labels)


def _probability(labels):
    return Q ** labels.count("c") * M ** labels.count("d") * R ** labels.count("r")


def from_definition(k: int):
    """g_k summed over every call sequence of the three kinds."""
    total = sympy.Integer(0)
    for labels in itertools.product("cdr", repeat=k):
        f = score(_sequence(labels))
        total += sympy.Rational(f.numerator, f.denominator) * _probability(labels)
    return sympy.expand(total)


def closed_form(k: int):
    """The module's formula as a polynomial in (q, m) (sympy Poly arithmetic: exact and fast)."""
    q, m = sympy.Poly(Q, Q, M), sympy.Poly(M, Q, M)
    r = 1 - q - m
    total = sympy.Poly(0, Q, M)
    for x in range(1, k + 1):
        for y in range(0, k - x + 1):
            f = (sympy.Integer(1) if x > y else sympy.Rational(1, 2) if x == y else 0) if x >= 2 else \
                (sympy.Rational(1, k) if y <= 1 else 0)
            if f == 0:
                continue
            z = k - x - y
            coef = f * sympy.factorial(k) / (sympy.factorial(x) * sympy.factorial(y) * sympy.factorial(z))
            total += q**x * m**y * r**z * coef
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


def patterns_from_sequences(calls: int) -> dict:
    out = {}
    for labels in itertools.product("cdr", repeat=calls):
        d = labels.count("d")
        key = (labels.count("c"), d if d >= 2 else 0)
        out[key] = out.get(key, 0) + _probability(labels)
    return {key: sympy.expand(v) for key, v in out.items()}


def pattern_formula(calls: int, c: int, d: int):
    w = calls - c
    if d == 0:
        return sympy.expand(sympy.binomial(calls, c) * Q**c * (R**w + (w * M * R ** (w - 1) if w else 0)))
    s = w - d
    return sympy.expand(sympy.factorial(calls) / (sympy.factorial(c) * sympy.factorial(d) * sympy.factorial(s))
                        * Q**c * M**d * R**s)


def _points():
    return [(Fraction(i, 10), Fraction(j, 10)) for i in range(11) for j in range(11 - i)]


def main() -> int:
    flags = {"definition_is_closed_form": True, "ends_are_V_k_and_U_k": True, "three_calls_collision_form": True,
             "patterns_match_formulas": True, "patterns_sum_to_one": True, "floats_agree": True}
    points = _points()
    qs = np.array([float(a) for a, _ in points])
    ms = np.array([float(b) for _, b in points])
    for k in range(1, MAX_SEQUENCE_CALLS + 1):
        exact = from_definition(k)
        flags["definition_is_closed_form"] &= sympy.Poly(exact, Q, M) == closed_form(k)
        values = np.array([float(exact.subs({Q: sympy.Rational(a.numerator, a.denominator),
                                              M: sympy.Rational(b.numerator, b.denominator)})) for a, b in points])
        flags["floats_agree"] &= bool(np.max(np.abs(model_plurality(k, qs, ms) - values)) <= 1e-13)
        patterns = patterns_from_sequences(k)
        flags["patterns_match_formulas"] &= all(sympy.expand(v - pattern_formula(k, c, d)) == 0
                                                for (c, d), v in patterns.items())
        flags["patterns_sum_to_one"] &= sympy.expand(sum(patterns.values()) - 1) == 0
        keys = sorted(patterns)
        table = pattern_kernel(np.array([(k, c, d) for c, d in keys]), qs, ms)
        exact_table = np.array([[float(patterns[key].subs({Q: sympy.Rational(a.numerator, a.denominator),
                                                            M: sympy.Rational(b.numerator, b.denominator)}))
                                 for a, b in points] for key in keys])
        flags["floats_agree"] &= bool(np.max(np.abs(table - exact_table)) <= 1e-13)
    for k in range(1, MAX_ENDS_CALLS + 1):
        g = closed_form(k)
        lower, upper = plurality_bounds(k)
        at_zero = sympy.Poly(sum(c * Q**i for (i, j), c in g.terms() if j == 0), Q, M)  # m = 0
        flags["ends_are_V_k_and_U_k"] &= _on_diagonal(g) == _poly_of(lower) and at_zero == _poly_of(upper)
    v3 = _poly_of(plurality_bounds(3)[0])
    flags["three_calls_collision_form"] &= closed_form(3) == v3 + sympy.Poly(Q * ((1 - Q) ** 2 - M**2), Q, M)
    flags = {key: bool(v) for key, v in flags.items()}
    record = {"claim": "the answer model's plurality polynomial g_k(q, m) and reduced-pattern probabilities",
              "sequence_k": list(range(1, MAX_SEQUENCE_CALLS + 1)), "ends_k": list(range(1, MAX_ENDS_CALLS + 1)),
              "points": len(points), "checks": flags}
    out = write_record(__file__, record)
    for name, ok in flags.items():
        print(f"  {name}: {ok}")
    print(f"record: {out}")
    return 0 if all(flags.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
