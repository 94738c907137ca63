"""Proof check: the exact certificate of a likelihood-ratio interval end, eqs. (L10)-(L11).

Claim. Let cells c = (K_c, S_c) hold n_c examples, N = sum n_c, B_c(q) = C(K_c, S_c) q^S_c
(1 - q)^(K_c - S_c), p_c(pi) = E_pi[B_c], l(pi) = sum n_c log p_c(pi). For any law pi* with all
p_c(pi*) > 0 put h(q) = sum_c n_c B_c(q) / p_c(pi*). For every law pi with l(pi) >= level,

    E_pi[h] >= b := N + level - l(pi*)                                               (L10)

and if g - a - lambda h >= 0 on [0, 1] with lambda >= 0, then E_pi[g] >= a + lambda b  (L11).

1. Symbolically (sympy), for a generic law of three atoms and three cells with symbolic
   counts: E_pi[h] = sum_c n_c p_c(pi) / p_c(pi*) (Fubini for finite sums), E_pi*[h] = N
   (so the bound is attained when l(pi*) = level and psi = a on the support of pi*), and
   x - 1 - log x >= 0 for x > 0 with equality only at x = 1 (the one inequality used:
   its derivative 1 - 1/x changes sign once, at x = 1, where the value is 0).
2. On random data (K in {2, 3, 5, 10}, several latent laws): the engine's intervals are
   turned into exact certificates (``certified_intervals``), every one passes the
   independent checker, and the checker's claimed bound agrees with the solver's value.
3. Brute force, in 50-digit arithmetic (mpmath): thousands of random laws pi inside the set
   {l >= level} (mixtures of pi* with random atoms, kept only when inside) all satisfy
   E_pi[g] >= the certified lower bound and <= the certified upper bound -- the claim itself,
   checked without using the proof.
4. A closed form: all K = 4 calls correct on every example gives the V3 interval
   [exp(-c / N), 1]: the set is {E[Q^4] >= exp(-c / N)}, and V_3(q) - q^4 = q^2 (1 - q)(3 + q) >= 0
   vanishes at 0 and 1, so the minimum is attained by a law on {0, 1}. The certified lower
   bound is below exp(-c / N) by at most 1e-9 (its outward rounding).

Run ``python proofs/likelihood_certificate.py``; it writes
``proofs/records/likelihood_certificate.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mpmath
import numpy as np
import sympy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's certify

from certify._majority import majority_polynomial  # noqa: E402
from certify.certificates import verify  # noqa: E402
from certify.likelihood import cell_counts, certified_intervals  # noqa: E402
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)

DIGITS = 50


def symbolic() -> dict:
    q = sympy.symbols("q")
    th = sympy.symbols("theta1:4", positive=True)
    w = sympy.symbols("w1:4", positive=True)
    ts = sympy.symbols("t1:4", positive=True)  # atoms of pi*
    vs = sympy.symbols("v1:4", positive=True)  # weights of pi*
    n = sympy.symbols("n1:4", positive=True)
    cells = [(2, 1), (3, 0), (3, 3)]
    B = [sympy.binomial(k, s) * q**s * (1 - q) ** (k - s) for k, s in cells]
    E = lambda f, atoms, weights: sum(wj * f.subs(q, xj) for xj, wj in zip(atoms, weights))
    p_star = [E(b, ts, vs) for b in B]
    p_pi = [E(b, th, w) for b in B]
    h = sum(nc * b / pc for nc, b, pc in zip(n, B, p_star))
    fubini = sympy.simplify(E(h, th, w) - sum(nc * pc / ps for nc, pc, ps in zip(n, p_pi, p_star))) == 0
    # E_pi*[h] = sum n_c = N when the weights of pi* sum to one
    at_star = sympy.simplify(E(h, ts, vs).subs(vs[2], 1 - vs[0] - vs[1]) - sum(n)) == 0
    x = sympy.symbols("x", positive=True)
    f = x - 1 - sympy.log(x)
    critical = sympy.solve(sympy.diff(f, x), x)
    log_bound = critical == [1] and f.subs(x, 1) == 0 and sympy.limit(f, x, 0, "+") == sympy.oo \
        and sympy.diff(f, x, 2).subs(x, 1) > 0
    return {"fubini": fubini, "attained_at_reference": at_star, "log_inequality": bool(log_bound)}


def loglik(cells, atoms, weights) -> mpmath.mpf:
    total = mpmath.mpf(0)
    for k, s, cnt in cells:
        p = sum(mpmath.mpf(wj) * mpmath.binomial(k, s) * mpmath.mpf(xj) ** s * (1 - mpmath.mpf(xj)) ** (k - s)
                for xj, wj in zip(atoms, weights))
        total += cnt * mpmath.log(p)
    return total


def objective_value(obj, atoms, weights) -> mpmath.mpf:
    """E_pi[g] at 50 digits for g = V_m or V_m - V_1 (majority polynomials in closed form)."""
    def vote(m, x):
        nv = (m - 1) // 2
        x = mpmath.mpf(x)
        return sum(mpmath.binomial(m, j) * x**j * (1 - x) ** (m - j) for j in range(nv + 1, m + 1))
    if isinstance(obj, int):
        return sum(mpmath.mpf(wj) * vote(obj, xj) for xj, wj in zip(atoms, weights))
    m = int(obj.split()[0][1:])
    return sum(mpmath.mpf(wj) * (vote(m, xj) - mpmath.mpf(xj)) for xj, wj in zip(atoms, weights))


def random_data(rng):
    for k in (2, 3, 5, 10):
        for law in ("beta", "two-atoms", "constant"):
            n = int(rng.choice([60, 400, 3000]))
            if law == "beta":
                q = rng.beta(3.0, 1.5, n)
            elif law == "two-atoms":
                q = rng.choice([0.3, 0.9], n, p=[0.35, 0.65])
            else:
                q = np.full(n, 0.7)
            yield k, law, cell_counts(np.full(n, k), rng.binomial(k, q))


def brute_force(cells_tuple, c, ref_atoms, ref_weights, star_atoms, star_weights, obj, lower, upper, rng, trials):
    """Random laws inside {l >= l(ref) - c}: none may leave [lower, upper] (50 digits)."""
    level = loglik(cells_tuple, ref_atoms, ref_weights) - c
    inside = 0
    worst = mpmath.inf
    for _ in range(trials):
        m = int(rng.integers(1, 4))
        extra = rng.random(m)
        t = float(rng.choice([1e-3, 1e-2, 0.05, 0.2]))
        atoms = list(star_atoms) + list(extra)
        weights = [(1 - t) * wj for wj in star_weights] + list(t * rng.dirichlet(np.ones(m)))
        if loglik(cells_tuple, atoms, weights) < level:
            continue
        inside += 1
        v = objective_value(obj, atoms, weights)
        worst = min(worst, v - lower, upper - v)
    return inside, worst


def main() -> None:
    rng = np.random.default_rng(20261123)
    checked = agreed = 0
    inside_total = 0
    worst_margin = mpmath.inf
    objectives = [3, 5, 101, "V3 - V1"]
    with mpmath.workdps(DIGITS):
        for k, law, cells in random_data(rng):
            for obj, (iv, lo, up) in zip(objectives, certified_intervals(cells, objectives)):
                for cert, end in ((lo, iv.lower), (up, iv.upper)):
                    res = verify(cert.to_dict())
                    checked += res.ok
                    agreed += abs(float(cert.bound) - end.value) <= 1e-9
                cells_tuple = [(kk, s, cnt) for kk, s, cnt in lo.cells]
                ins, worst = brute_force(cells_tuple, mpmath.mpf(lo.c.numerator) / lo.c.denominator,
                                         [mpmath.mpf(x.numerator) / x.denominator for x in lo.reference_atoms],
                                         [mpmath.mpf(x.numerator) / x.denominator for x in lo.reference_weights],
                                         iv.lower.atoms + iv.upper.atoms,
                                         [wj / 2 for wj in iv.lower.weights + iv.upper.weights],
                                         obj, mpmath.mpf(lo.bound.numerator) / lo.bound.denominator,
                                         mpmath.mpf(up.bound.numerator) / up.bound.denominator, rng, 25)
                inside_total += ins
                worst_margin = min(worst_margin, worst)
        # closed form: every call correct
        n, kk = 50, 4
        (iv, lo, _), = certified_intervals(cell_counts([kk] * n, [kk] * n), [3])
        exact = mpmath.exp(-mpmath.mpf(lo.c.numerator) / lo.c.denominator / n)
        # the exact certificate rounds its bound outward (down), by about 1e-12 here
        bound = mpmath.mpf(lo.bound.numerator) / lo.bound.denominator
        closed = exact - mpmath.mpf("1e-9") <= bound <= exact
    total = 2 * len(objectives) * 12
    record = {
        "symbolic": symbolic(),
        "certificates": total,
        "certificates_verified": checked,
        "bounds_agree_with_solver": agreed,
        "random_laws_inside_the_set": inside_total,
        "worst_margin_inside": float(worst_margin),
        "closed_form_all_correct": bool(closed),
    }
    out = write_record(__file__, record)
    ok = (all(record["symbolic"].values()) and checked == total and agreed == total and inside_total > 0
          and worst_margin >= -1e-12 and closed)
    print(f"{out}: {checked}/{total} certificates verified, {inside_total} random laws inside the set, "
          f"worst margin {float(worst_margin):.3g}, closed form {'ok' if closed else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
