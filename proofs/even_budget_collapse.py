"""Proof check: a fair-tie 2n-vote majority has the accuracy of 2n-1 votes (Appendix A.1).

1. Symbolically, for a symbolic n: the two boundary terms cancel,
   q * C(2n-1, n-1) q^(n-1) (1-q)^n == (1-q) * C(2n-1, n) q^n (1-q)^(n-1).
2. Exactly, for every n <= 50: the expanded polynomials are equal coefficient by
   coefficient (rational arithmetic).

Run ``python proofs/even_budget_collapse.py`` to see what was proven; it writes
``proofs/records/even_budget_collapse.json`` (re-checked by the tests).
"""

from __future__ import annotations

import sys
from fractions import Fraction

import sympy

from certify._majority import fair_tie_even_coefficients, majority_monomial_coefficients
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)

MAX_N = 50


def symbolic_identity() -> bool:
    n, q = sympy.symbols("n q", positive=True, integer=False)
    n = sympy.Symbol("n", positive=True, integer=True)
    lhs = q * sympy.binomial(2 * n - 1, n - 1) * q ** (n - 1) * (1 - q) ** n
    rhs = (1 - q) * sympy.binomial(2 * n - 1, n) * q**n * (1 - q) ** (n - 1)
    ratio = sympy.simplify(sympy.combsimp(lhs / rhs))
    return ratio == 1


def exact_identity(max_n: int = MAX_N) -> list[int]:
    checked = []
    for n in range(1, max_n + 1):
        even = fair_tie_even_coefficients(n)
        odd = [Fraction(c) for c in majority_monomial_coefficients(n - 1)]
        odd += [Fraction(0)] * (len(even) - len(odd))
        if list(even) != odd:
            raise AssertionError(f"collapse fails at n={n}")
        checked.append(n)
    return checked


def main() -> int:
    sym = symbolic_identity()
    checked = exact_identity()
    record = {"claim": "P_even_n == P_(n-1) for fair ties", "symbolic_boundary_cancellation": sym, "exact_n": checked}
    out = write_record(__file__, record)
    print(f"boundary terms cancel for symbolic n: {sym}")
    print(f"fair-tie 2n votes == 2n-1 votes exactly for n = 1..{checked[-1]}")
    print(f"record: {out}")
    return 0 if sym else 1


if __name__ == "__main__":
    sys.exit(main())
