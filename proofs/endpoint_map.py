"""Proof check: Theorem 4.3 -- the infinite-vote endpoint map and its one-sided sequences.

h(q) = 1{q > 1/2} + 1/2 1{q = 1/2}; U_inf = sup E h(Q) = G(mu, nu), L_inf = 1 - G(1 - mu, 1 - 2 mu + nu).

1. Symbolically (sympy):
   * psi_a(q) = ((q - a) / (1/2 - a))^2 >= h on [0, 1] for a < 1/2 (it is >= 0, and >= 1
     for q >= 1/2 because q - a >= 1/2 - a > 0); its bound (nu - 2 a mu + a^2) / (1/2 - a)^2
     is stationary at a* = (mu/2 - nu) / (1/2 - mu) with value (nu - mu^2) / (nu + 1/4 - mu);
     nu + 1/4 - mu = (nu - mu^2) + (mu - 1/2)^2;
   * psi_0(q) = 3 q - 2 q^2 >= h: 3 q - 2 q^2 - 1 = (2 q - 1)(1 - q) >= 0 on [1/2, 1];
   * h(q) + h(1 - q) = 1 gives the reflection formula for L_inf.
2. In high precision (mpmath, 50 digits), on a grid of (mu, nu) covering every branch:
   the paper's sequences -- {x_eps, 1/2 + eps} on the fractional branch, {0, 1/2 + eps, 1}
   on the linear branch, {x, 1} when saturated -- match (mu, nu) to 1e-45, have weights in
   [0, 1], stay on one side (V_inf(law_eps) <= G) and approach G as eps -> 0; and G agrees
   with ``certify.endpoint_bounds`` (both sides) to 1e-12.

Run ``python proofs/endpoint_map.py``; it writes ``proofs/records/endpoint_map.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mpmath
import sympy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's certify

from certify import endpoint_bounds
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)

DPS = 50
EPS = [mpmath.mpf(10) ** (-k) for k in (3, 6, 12, 24)]


def symbolic() -> dict:
    q, mu, nu, a = sympy.symbols("q mu nu a", real=True)
    half = sympy.Rational(1, 2)
    bound = (nu - 2 * a * mu + a**2) / (half - a) ** 2
    a_star = (mu / 2 - nu) / (half - mu)
    value = (nu - mu**2) / (nu + sympy.Rational(1, 4) - mu)
    return {
        "psi_a_at_least_one_right_of_half": sympy.expand((q - a) ** 2 - (half - a) ** 2 - (q - half) * (q + half - 2 * a)) == 0,
        "stationary_point": sympy.simplify(sympy.diff(bound, a).subs(a, a_star)) == 0,
        "fractional_value": sympy.simplify(bound.subs(a, a_star) - value) == 0,
        "denominator_identity": sympy.expand(nu + sympy.Rational(1, 4) - mu - ((nu - mu**2) + (mu - half) ** 2)) == 0,
        "psi_0_dominates": sympy.factor(3 * q - 2 * q**2 - 1) == sympy.factor((2 * q - 1) * (1 - q)),
    }


def G(mu, nu):
    """Eq. (endpoint-map-main) in mpmath."""
    if mu == mpmath.mpf(1) / 2 and nu == mpmath.mpf(1) / 4:
        return mpmath.mpf(1) / 2
    if mu <= mpmath.mpf(1) / 2 and nu <= mu / 2:
        return (nu - mu**2) / (nu + mpmath.mpf(1) / 4 - mu)
    return min(mpmath.mpf(1), 3 * mu - 2 * nu)


def upper_sequence(mu, nu, eps):
    """The laws of the proof of Theorem 4.3 (atoms, weights)."""
    half = mpmath.mpf(1) / 2
    if mu <= half and nu <= mu / 2:
        t = half + eps
        x = (mu * t - nu) / (t - mu)
        p = (mu - x) / (t - x)
        return [x, t], [1 - p, p]
    if 3 * mu - 2 * nu > 1:
        x = (mu - nu) / (1 - mu)
        w1 = (nu - mu**2) / (1 - 2 * mu + nu)
        return [x, mpmath.mpf(1)], [1 - w1, w1]
    s = half + eps
    ws = (mu - nu) / (s * (1 - s))
    w1 = (nu - s * mu) / (1 - s)
    return [mpmath.mpf(0), s, mpmath.mpf(1)], [1 - ws - w1, ws, w1]


def v_inf(atoms, weights):
    half = mpmath.mpf(1) / 2
    return mpmath.fsum(w for x, w in zip(atoms, weights) if x > half) + mpmath.fsum(w / 2 for x, w in zip(atoms, weights) if x == half)


def check_point(mu, nu) -> dict:
    g = G(mu, nu)
    values, branch_ok = [], True
    for eps in EPS:
        atoms, weights = upper_sequence(mu, nu, eps)
        moments_err = max(abs(mpmath.fsum(w * x**k for x, w in zip(atoms, weights)) - m) for k, m in ((0, 1), (1, mu), (2, nu)))
        branch_ok &= moments_err < mpmath.mpf(10) ** -45
        branch_ok &= all(-mpmath.mpf(10) ** -45 <= w <= 1 for w in weights) and all(0 <= x <= 1 for x in atoms)
        values.append(v_inf(atoms, weights))
    one_sided = all(v <= g + mpmath.mpf(10) ** -45 for v in values)
    approaches = abs(values[-1] - g) < mpmath.mpf(10) ** -20
    lib = endpoint_bounds(mu=float(mu), nu=float(nu))
    g_low = 1 - G(1 - mu, 1 - 2 * mu + nu)
    agrees = abs(lib.upper - float(g)) < 1e-12 and abs(lib.lower - float(g_low)) < 1e-12
    # The library's own sequences (float): moments match, one-sided, close to the bound.
    for side, bound in (("upper", float(g)), ("lower", float(g_low))):
        law = lib.sequence(side, 1e-7)
        m = [sum(w * x**k for x, w in zip(law.atoms, law.weights)) for k in range(3)]
        v = sum(w for x, w in zip(law.atoms, law.weights) if x > 0.5)
        agrees &= max(abs(m[0] - 1), abs(m[1] - float(mu)), abs(m[2] - float(nu))) < 1e-12
        agrees &= (v <= bound + 1e-12 if side == "upper" else v >= bound - 1e-12) and abs(v - bound) < 1e-5
    return {"mu": float(mu), "nu": float(nu), "G": float(g), "sequences_valid": bool(branch_ok), "one_sided": one_sided, "approaches": approaches, "library_agrees": bool(agrees)}


def main() -> int:
    sym = symbolic()
    points = []
    with mpmath.workdps(DPS):
        for mu in (mpmath.mpf(i) / 10 for i in range(1, 10)):
            for frac in (mpmath.mpf(1) / 5, mpmath.mpf(1) / 2, mpmath.mpf(4) / 5):
                nu = mu**2 + frac * (mu - mu**2)
                points.append(check_point(mu, nu))
    flags = ("sequences_valid", "one_sided", "approaches", "library_agrees")
    record = {
        "claim": "Theorem 4.3: U_inf = G(mu, nu), L_inf = 1 - G(1 - mu, 1 - 2 mu + nu), one-sided sharpness sequences",
        "symbolic": sym,
        "points": points,
        "all_points": {f: all(p[f] for p in points) for f in flags},
    }
    out = write_record(__file__, record)
    for name, ok in sym.items():
        print(f"{name}: {ok}")
    for f in flags:
        print(f"{f} on all {len(points)} points (mpmath, {DPS} digits): {record['all_points'][f]}")
    print(f"record: {out}")
    return 0 if all(sym.values()) and all(record["all_points"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
