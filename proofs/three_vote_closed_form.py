"""Proof check: Theorem 4.2 -- closed-form three-vote bounds, width <= 1/8, improvement criterion.

1. Symbolically (sympy), with P_1(q) = 3 q^2 - 2 q^3:
   * p_U(q) = P_1(q) + 2 q (q - a)^2, a = nu / mu, is a quadratic majorant on [0, 1]
     (the added term is >= 0) with E p_U = 3 nu - 2 nu^2 / mu, attained by the law
     on {0, a} with moments (mu, nu): so U_1 = 3 nu - 2 nu^2 / mu;
   * p_L(q) = P_1(q) - 2 (1 - q) (q - b)^2, b = (mu - nu) / (1 - mu), is a quadratic
     minorant with E p_L = nu + 2 (mu - nu)^2 / (1 - mu), attained on {b, 1};
   * the rho forms of eqs. (L1-three-main)-(U1-three-main) agree; U_1 - L_1 = 2 mu (1 - mu) rho (1 - rho),
     which is at most 2 * 1/4 * 1/4 = 1/8;
   * L_1 - mu = mu (1 - mu) (1 - rho) (2 mu (1 - rho) - 1): for mu > 1/2 a uniform
     gain holds exactly when rho < 1 - 1 / (2 mu).
2. Exactly, on a rational grid: the independent checker accepts certificates
   whose enclosures are the closed forms with zero width.

Run ``python proofs/three_vote_closed_form.py``; it writes
``proofs/records/three_vote_closed_form.json`` with one certificate the tests re-verify.
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
    q, mu, rho = sympy.symbols("q mu rho", positive=True)
    nu = mu**2 + rho * mu * (1 - mu)
    P1 = 3 * q**2 - 2 * q**3
    a, b = nu / mu, (mu - nu) / (1 - mu)
    pU = sympy.expand(P1 + 2 * q * (q - a) ** 2)
    pL = sympy.expand(P1 - 2 * (1 - q) * (q - b) ** 2)
    E = lambda p: sympy.Poly(p, q).coeff_monomial(1) + sympy.Poly(p, q).coeff_monomial(q) * mu + sympy.Poly(p, q).coeff_monomial(q**2) * nu
    U = 3 * nu - 2 * nu**2 / mu
    L = nu + 2 * (mu - nu) ** 2 / (1 - mu)
    s = mu * (1 - mu) * (1 - rho)
    # two-point laws: {0, a} with weight mu / a on a; {b, 1} with weight (mu - b) / (1 - b) on 1
    wa = mu / a
    w1 = (mu - b) / (1 - b)
    up_law = [(0, 1 - wa), (a, wa)]
    lo_law = [(b, 1 - w1), (1, w1)]
    mom = lambda law, k: sum(w * x**k for x, w in law)
    val = lambda law: sum(w * P1.subs(q, x) for x, w in law)
    width = sympy.factor(sympy.simplify(U - L))
    gain = sympy.factor(sympy.simplify(L - mu))
    r = sympy.symbols("r")
    return {
        "majorant_is_quadratic": sympy.Poly(pU, q).degree() <= 2,
        "minorant_is_quadratic": sympy.Poly(pL, q).degree() <= 2,
        "dual_values": sympy.simplify(E(pU) - U) == 0 and sympy.simplify(E(pL) - L) == 0,
        "upper_law_moments": all(sympy.simplify(mom(up_law, k) - m) == 0 for k, m in ((0, 1), (1, mu), (2, nu))),
        "lower_law_moments": all(sympy.simplify(mom(lo_law, k) - m) == 0 for k, m in ((0, 1), (1, mu), (2, nu))),
        "laws_attain": sympy.simplify(val(up_law) - U) == 0 and sympy.simplify(val(lo_law) - L) == 0,
        "rho_forms": sympy.simplify(U - (mu + s * (2 * mu + 2 * rho * (1 - mu) - 1))) == 0 and sympy.simplify(L - (mu + s * (2 * mu * (1 - rho) - 1))) == 0,
        "width_formula": sympy.simplify(width - 2 * mu * (1 - mu) * rho * (1 - rho)) == 0,
        "width_at_most_one_eighth": sympy.maximum(r * (1 - r), r, sympy.Interval(0, 1)) == sympy.Rational(1, 4),
        "gain_factorization": sympy.simplify(gain - mu * (1 - mu) * (1 - rho) * (2 * mu * (1 - rho) - 1)) == 0,
        "improvement_threshold": [sympy.simplify(x - (1 - 1 / (2 * mu))) for x in sympy.solve(2 * mu * (1 - rho) - 1, rho)] == [0],
    }


def exact_grid() -> tuple[int, dict]:
    checked, sample = 0, None
    for mu in (Fraction(1, 5), Fraction(1, 2), Fraction(7, 10), Fraction(9, 10)):
        for rho in (Fraction(0), Fraction(1, 5), Fraction(1, 2), Fraction(4, 5)):
            nu = mu * mu + rho * mu * (1 - mu)
            U, L = 3 * nu - 2 * nu * nu / mu, nu + 2 * (mu - nu) ** 2 / (1 - mu)
            for side, value in (("upper", U), ("lower", L)):
                cert = certify_bound(3, side, mu=str(mu), rho=str(rho))
                assert cert.enclosure == (value, value) and verify(cert).ok, (mu, rho, side)
                checked += 1
                if (mu, rho, side) == (Fraction(7, 10), Fraction(1, 5), "lower"):
                    sample = cert.to_dict()
    return checked, sample


def main() -> int:
    sym = symbolic()
    checked, sample = exact_grid()
    record = {"claim": "Theorem 4.2: three-vote closed forms, width <= 1/8, improvement iff rho < 1 - 1/(2 mu)", "symbolic": sym, "exact_certificates": checked, "certificate": sample}
    out = write_record(__file__, record)
    for name, ok in sym.items():
        print(f"{name}: {ok}")
    print(f"{checked} exact certificates equal the closed forms with zero width")
    print(f"record: {out}")
    return 0 if all(sym.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
