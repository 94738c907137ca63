"""Proof check: the one-call three-vote envelope, eq. (onecall-envelope-main) of Appendix A.3.

With only the mean mu known, the sharp range of V_1 = E P_1(Q), P_1 = 3 q^2 - 2 q^3, is
given by the convex / concave envelopes of P_1 on [0, 1]:

1. Symbolically (sympy): the chord l_-(q) = (9 q - 1) / 8 touches P_1 at q = 1/4
   (value and slope) and at q = 1, and P_1 - l_- = -2 (q - 1/4)^2 (q - 1) >= 0 on
   [1/4, 1]; P_1 is convex on [0, 1/2] (P_1'' = 6 - 12 q), so the lower envelope is
   P_1 on [0, 1/4] and l_- on [1/4, 1]. By P_1(q) = 1 - P_1(1 - q) the upper envelope
   is 9 q / 8 on [0, 3/4] and P_1 on [3/4, 1]. L_1^one(mu) <= mu on (0, 1): one call
   alone never certifies a three-vote gain.
2. Exactly: certificates with one moment (order 1) at a rational grid of mu equal
   the envelope values and are accepted by the independent checker.

Run ``python proofs/one_call_envelope.py``; it writes ``proofs/records/one_call_envelope.json``.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import sympy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's certify

from certify.certificates import certify_bound, verify
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)


def symbolic() -> dict:
    q, mu = sympy.symbols("q mu", real=True)
    P1 = 3 * q**2 - 2 * q**3
    low = (9 * q - 1) / 8
    up = 9 * q / 8
    quarter = sympy.Rational(1, 4)
    return {
        "chord_touches_at_quarter": P1.subs(q, quarter) == low.subs(q, quarter) and sympy.diff(P1, q).subs(q, quarter) == sympy.diff(low, q).subs(q, quarter),
        "chord_reaches_one": low.subs(q, 1) == 1 == P1.subs(q, 1),
        "lower_gap_factor": sympy.factor(P1 - low) == sympy.factor(-2 * (q - quarter) ** 2 * (q - 1)),
        "convex_on_first_half": sympy.solve(sympy.diff(P1, q, 2) < 0, q) == (sympy.Rational(1, 2) < q),
        "symmetry": sympy.expand(P1 - (1 - P1.subs(q, 1 - q))) == 0,
        "upper_chord_touches_at_three_quarters": P1.subs(q, sympy.Rational(3, 4)) == up.subs(q, sympy.Rational(3, 4))
        and sympy.diff(P1, q).subs(q, sympy.Rational(3, 4)) == sympy.Rational(9, 8),
        "upper_gap_factor": sympy.factor(up - P1) == sympy.factor(2 * q * (q - sympy.Rational(3, 4)) ** 2),
        "no_gain_from_one_call": sympy.simplify(low.subs(q, mu) - mu - (mu - 1) / 8) == 0 and sympy.factor(P1.subs(q, mu) - mu) == sympy.factor(-mu * (1 - mu) * (1 - 2 * mu)),
    }


def envelope(mu: Fraction) -> tuple[Fraction, Fraction]:
    p1 = 3 * mu**2 - 2 * mu**3
    lower = p1 if mu <= Fraction(1, 4) else (9 * mu - 1) / 8
    upper = 9 * mu / 8 if mu <= Fraction(3, 4) else p1
    return lower, upper


def exact_grid(n: int = 16) -> int:
    checked = 0
    for i in range(n + 1):
        mu = Fraction(i, n)
        lower, upper = envelope(mu)
        for side, value in (("lower", lower), ("upper", upper)):
            cert = certify_bound(3, side, moments=[str(mu)])
            assert cert.enclosure == (value, value), (mu, side, cert.enclosure)
            assert verify(cert).ok, (mu, side)
            checked += 1
    return checked


def main() -> int:
    sym = symbolic()
    checked = exact_grid()
    record = {"claim": "eq. (onecall-envelope-main): one-call three-vote envelope; L_1^one(mu) <= mu", "symbolic": sym, "exact_certificates": checked}
    out = write_record(__file__, record)
    for name, ok in sym.items():
        print(f"{name}: {ok}")
    print(f"{checked} exact one-moment certificates equal the envelope (zero width)")
    print(f"record: {out}")
    return 0 if all(sym.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
