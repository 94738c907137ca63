"""Proof check: Proposition 3.1 -- moment identities, pair table and the feasible set.

1. Symbolically (sympy), conditional on q two calls are independent Bernoulli(q):
   E[B1 | q] = q, E[B1 B2 | q] = q^2, so E B1 = mu and E B1 B2 = nu; the pair table
   (eq. (pair-probs-main)) is P(11) = nu, P(10) + P(01) = 2 (mu - nu), P(00) = 1 - 2 mu + nu; and
   Corr(B1, B2) = (nu - mu^2) / (mu (1 - mu)) = rho (eq. (rho-main)).
2. Necessity of 0 <= mu <= 1, mu^2 <= nu <= mu: Var Q = nu - mu^2 >= 0 and
   E[Q (1 - Q)] = mu - nu >= 0 (both integrate a nonnegative function).
3. Sufficiency: the two-point witness (1 - p) delta_0 + p delta_a, a = nu / mu,
   p = mu^2 / nu, has moments (mu, nu) symbolically, and a, p lie in [0, 1] exactly
   when the inequalities hold; checked in exact rationals on a grid of feasible
   points including the boundary (nu = mu^2 gives delta_mu, nu = mu gives {0, 1}).

Run ``python proofs/moment_identities.py``; it writes ``proofs/records/moment_identities.json``.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import sympy
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)

GRID = 24


def symbolic() -> dict:
    q, mu, nu = sympy.symbols("q mu nu", positive=True)
    # Joint law of (B1, B2) given q: product of Bernoulli(q) laws.
    joint = {(x, y): (q if x else 1 - q) * (q if y else 1 - q) for x in (0, 1) for y in (0, 1)}
    e_b1 = sympy.expand(sum(x * p for (x, _), p in joint.items()))
    e_b1b2 = sympy.expand(sum(x * y * p for (x, y), p in joint.items()))
    disagree = sympy.expand(joint[(1, 0)] + joint[(0, 1)])
    both_wrong = sympy.expand(joint[(0, 0)])
    # Replace q^k by the k-th moment (integration against the latent law).
    moment = {0: 1, 1: mu, 2: nu}

    def to_moments(e):
        poly = sympy.Poly(sympy.expand(e), q)
        return sympy.expand(sum(c * moment[k] for (k,), c in zip(poly.monoms(), poly.coeffs())))

    rho = (nu - mu**2) / (mu * (1 - mu))
    e_b1_squared = sympy.expand(sum(x * x * p for (x, _), p in joint.items()))  # B1^2 = B1
    var_b1 = to_moments(e_b1_squared) - mu**2  # = Var B2 by symmetry; both >= 0
    corr = (to_moments(e_b1b2) - mu**2) / var_b1  # Cov / sqrt(Var B1 Var B2) with equal variances
    a, p = nu / mu, mu**2 / nu
    return {
        "E_B1_is_mu": e_b1 == q and to_moments(e_b1) == mu,
        "E_B1B2_is_nu": e_b1b2 == q**2 and to_moments(e_b1b2) == nu,
        "pair_table": to_moments(disagree) == sympy.expand(2 * (mu - nu)) and to_moments(both_wrong) == sympy.expand(1 - 2 * mu + nu),
        "rho_formula": sympy.simplify(corr - rho) == 0,
        "variance_is_nu_minus_mu2": sympy.expand(to_moments((q - mu) ** 2) - (nu - mu**2)) == 0,
        "q_one_minus_q_is_mu_minus_nu": to_moments(q * (1 - q)) == mu - nu,
        "witness_moments": sympy.simplify(p * a - mu) == 0 and sympy.simplify(p * a**2 - nu) == 0,
        "witness_in_unit_interval": sympy.simplify(a - mu - (nu - mu**2) / mu) == 0
        and sympy.simplify(1 - a - (mu - nu) / mu) == 0
        and sympy.simplify(1 - p - (nu - mu**2) / nu) == 0,
    }


def witness(mu: Fraction, nu: Fraction) -> tuple[list[Fraction], list[Fraction]]:
    if mu in (0, 1):
        return [mu], [Fraction(1)]
    a, p = nu / mu, mu * mu / nu
    return ([0, a], [1 - p, p]) if p < 1 else ([a], [Fraction(1)])


def grid_check(n: int = GRID) -> int:
    checked = 0
    for i in range(n + 1):
        mu = Fraction(i, n)
        for j in range(n + 1):
            nu = mu * mu + (mu - mu * mu) * Fraction(j, n)  # mu^2 <= nu <= mu, both ends included
            atoms, weights = witness(mu, nu)
            assert all(0 <= x <= 1 for x in atoms) and all(0 <= w <= 1 for w in weights), (mu, nu)
            assert sum(weights) == 1 and sum(w * x for x, w in zip(atoms, weights)) == mu, (mu, nu)
            assert sum(w * x * x for x, w in zip(atoms, weights)) == nu, (mu, nu)
            checked += 1
    return checked


def main() -> int:
    sym = symbolic()
    points = grid_check()
    record = {"claim": "Proposition 3.1: moment identities, pair table, feasible set with two-point witnesses", "symbolic": sym, "grid_points_exact": points}
    out = write_record(__file__, record)
    for name, ok in sym.items():
        print(f"{name}: {ok}")
    print(f"two-point witness exact on {points} feasible rational points (boundary included)")
    print(f"record: {out}")
    return 0 if all(sym.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
