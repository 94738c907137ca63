"""Independent 50-digit references for sharp bounds (used by tests and benchmarks).

Given the contact pattern of an extremal law (which atoms are endpoints and
which are interior), the sharp value solves the KKT system: moment equations,
p(x_j) = g(x_j) at atoms, p'(x_j) = g'(x_j) at interior atoms. We solve it with
mpmath at 50 digits and then check that p is a minorant / majorant of g on a
fine grid, also at 50 digits, so the reference owes nothing to the float solver
except its starting point.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath
import numpy as np
from scipy.optimize import linprog
from scipy.stats import binom


def majority_mp(n: int):
    """P_n and its derivative as mpmath functions (regularized incomplete beta)."""

    def g(q):
        return mpmath.betainc(n + 1, n + 1, 0, q, regularized=True)

    def dg(q):
        return q**n * (1 - q) ** n / mpmath.beta(n + 1, n + 1)

    return g, dg


def polynomial_mp(coeffs):
    """A monomial-coefficient polynomial and its derivative as mpmath functions."""
    cs = [mpmath.mpf(c.numerator) / c.denominator if hasattr(c, "numerator") else mpmath.mpf(c) for c in coeffs]

    def g(q):
        return mpmath.polyval(cs[::-1], q)

    def dg(q):
        return mpmath.polyval([k * cs[k] for k in range(len(cs) - 1, 0, -1)], q)

    return g, dg


def sharp_value_mp(g, dg, theta, atoms, weights, y, side: str, dps: int = 50, check_points: int = 400):
    """50-digit sharp value from a starting contact pattern; returns (value, max violation).

    ``theta`` = (1, m_1, ..., m_m) as exact rationals or strings; ``atoms`` in
    [0, 1] (exact 0 and 1 are endpoint contacts). Raises if the polished
    polynomial is not a valid minorant / majorant.
    """
    with mpmath.workdps(dps):
        th = [mpmath.mpf(t.numerator) / t.denominator if hasattr(t, "numerator") else mpmath.mpf(t) for t in theta]
        m1 = len(th)
        fixed = [a if a in (0.0, 1.0) else None for a in atoms]
        inner = [j for j, a in enumerate(fixed) if a is None]
        s = len(atoms)

        def unpack(z):
            yy = z[:m1]
            ww = z[m1 : m1 + s]
            xs = [mpmath.mpf(fixed[j]) if fixed[j] is not None else None for j in range(s)]
            for k, j in enumerate(inner):
                xs[j] = z[m1 + s + k]
            return yy, ww, xs

        def p(yy, x):
            return sum(yy[k] * x**k for k in range(m1))

        def dp(yy, x):
            return sum(k * yy[k] * x ** (k - 1) for k in range(1, m1))

        def F(*z):
            yy, ww, xs = unpack(z)
            eqs = [sum(ww[j] * xs[j] ** k for j in range(s)) - th[k] for k in range(m1)]
            eqs += [p(yy, xs[j]) - g(xs[j]) for j in range(s)]
            eqs += [dp(yy, xs[j]) - dg(xs[j]) for j in inner]
            return eqs

        z0 = [mpmath.mpf(v) for v in list(y) + list(weights) + [atoms[j] for j in inner]]
        z = mpmath.findroot(F, z0, tol=mpmath.mpf(10) ** (-(dps - 5)), maxsteps=100)
        z = [z[i] for i in range(len(z0))] if hasattr(z, "rows") else [z]
        yy, ww, xs = unpack(z)
        value = sum(ww[j] * g(xs[j]) for j in range(s))
        sign = 1 if side == "upper" else -1
        worst = mpmath.mpf(0)
        for i in range(check_points + 1):
            q = mpmath.mpf(i) / check_points
            worst = max(worst, sign * (g(q) - p(yy, q)))
        for x in xs:  # also just beside each contact
            for dx in (mpmath.mpf("1e-4"), mpmath.mpf("-1e-4")):
                q = x + dx
                if 0 <= q <= 1:
                    worst = max(worst, sign * (g(q) - p(yy, q)))
        return value, worst


def beta_moments(a, b, order: int) -> list:
    """m_1..m_order of Beta(a, b), exactly: m_k = prod_{i<k} (a + i) / (a + b + i) (Fractions in, Fractions out)."""
    out, m = [], 1
    for k in range(order):
        m = m * (a + k) / (a + b + k)
        out.append(m)
    return out


def bernstein_grid_bounds(objective, moments: list, size: int = 4001) -> tuple[float, float]:
    """Inner bounds of E[g] over laws on a grid of ``size`` points with the given exact moments, by
    HiGHS, constrained through the cell probabilities p_s = C(K, s) E[Q^s (1 - Q)^(K - s)] (the
    Bernstein basis: well conditioned where the monomial moments are not, up to K = 20)."""
    order = len(moments)
    m = [Fraction(1)] + [Fraction(v) for v in moments]
    p = [float(comb(order, s) * sum(comb(order - s, j) * (-1) ** j * m[s + j] for j in range(order - s + 1)))
         for s in range(order + 1)]
    x = np.linspace(0.0, 1.0, size)
    kernel = binom.pmf(np.arange(order + 1)[:, None], order, x[None, :])
    g = objective.evaluate(x)
    lo = linprog(g, A_eq=kernel, b_eq=p, bounds=(0, None), method="highs")
    up = linprog(-g, A_eq=kernel, b_eq=p, bounds=(0, None), method="highs")
    assert lo.status == 0 and up.status == 0
    return float(lo.fun), float(-up.fun)
