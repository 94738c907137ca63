"""Closed-form and scalar contact patterns of the two-moment class (m = 2).

With two moments the dual polynomial is a quadratic, and an optimal law with
two atoms has one of two shapes (Theorem 4.1, computations of Appendix B):

* one atom at an endpoint and one interior tangency: everything is explicit
  (the atoms are x = nu/mu with 0, or z = (mu - nu)/(1 - mu) with 1), which is
  the pattern of the three-vote closed form;
* two interior tangencies x1 < mu < x2: a quadratic tangent to f at both points
  exists iff the mean of the slopes equals the secant slope,
  (f'(x1) + f'(x2)) (x2 - x1) = 2 (f(x2) - f(x1)), and the law on {x1, x2} has
  variance nu - mu^2 iff (mu - x1)(x2 - mu) = nu - mu^2. Newton's method on
  these two scalar equations replaces the 7 x 7 KKT system.

Both return a candidate (atoms, weights, value, dual) that the caller accepts
only after checking the dual on all of [0, 1].
"""

from __future__ import annotations

import math

import numpy as np

from ._contact import Target


def lagrange_weights(a: float, b: float, c: float, m0: float, m1: float, m2: float) -> tuple[float, float, float]:
    """Weights on {a, b, c} with moments (m0, m1, m2): E[(Q - b)(Q - c)] = w_a (a - b)(a - c), etc."""
    return (
        (m2 - m1 * (b + c) + m0 * b * c) / ((a - b) * (a - c)),
        (m2 - m1 * (a + c) + m0 * a * c) / ((b - a) * (b - c)),
        (m2 - m1 * (a + b) + m0 * a * b) / ((c - a) * (c - b)),
    )


def three_atom_weights(a: float, b: float, c: float, mu: float, nu: float) -> tuple[float, float, float]:
    """Weights of the law on distinct atoms {a, b, c} with moments (1, mu, nu).

    The Lagrange form of the 3 x 3 Vandermonde system, without a linear solve,
    plus one step of iterative refinement on the moment residual: alone, the
    Lagrange form leaves residuals near 1e-12 when two atoms are 1e-3 apart.
    """
    w = lagrange_weights(a, b, c, 1.0, mu, nu)
    atoms = (a, b, c)
    r0 = 1.0 - math.fsum(w)
    r1 = mu - math.fsum(wi * x for wi, x in zip(w, atoms))
    r2 = nu - math.fsum(wi * x * x for wi, x in zip(w, atoms))
    d = lagrange_weights(a, b, c, r0, r1, r2)
    return w[0] + d[0], w[1] + d[1], w[2] + d[2]


def endpoint_pattern(mu, nu, end: float):
    """The two-atom law with one atom at ``end`` (0 or 1): its interior atom and that atom's weight.

    x = nu/mu with weight mu^2/nu beside 0; z = (mu - nu)/(1 - mu) with weight
    (1 - mu)/(1 - z) beside 1 (from the mean: the textbook form
    (1 - mu)^2 / (1 - 2 mu + nu) cancels for mu near 1). Floats or arrays.
    """
    if end == 0.0:
        return nu / mu, mu * mu / nu
    z = (mu - nu) / (1.0 - mu)
    return z, (1.0 - mu) / (1.0 - z)


def tangent_quadratic(end: float, f_end, x, fx, dx):
    """Monomial coefficients (a, b, c) of the quadratic through (end, f_end) tangent to f at x.

    Floats or arrays.
    """
    e = x - end
    c = (f_end + dx * e - fx) / (e * e)
    b = dx - 2.0 * c * e  # slope at the end
    return f_end - b * end + c * end * end, b - 2.0 * c * end, c


def endpoint_law(T: Target, mu: float, nu: float, end: float):
    """The two-atom law with an atom at ``end`` (0 or 1) and its tangent quadratic.

    Returns
    -------
    (atoms, weights, value, dual)
        The dual passes through f(end) and is tangent to f at the interior atom.
    """
    x, w = endpoint_pattern(mu, nu, end)
    f_end = float(T.values[0] if end == 0.0 else T.values[-1])
    fx, dx, _ = T.jet(x)
    dual = np.array(tangent_quadratic(end, f_end, x, fx, dx))
    atoms, weights = ((0.0, x), (1.0 - w, w)) if end == 0.0 else ((x, 1.0), (w, 1.0 - w))
    return np.array(atoms), np.array(weights), (1.0 - w) * f_end + w * fx, dual


def bitangent_law(T: Target, mu: float, nu: float, x1: float, x2: float, max_iter: int = 16):
    """Two interior tangencies x1 < mu < x2 by Newton's method from (x1, x2).

    Returns
    -------
    (atoms, weights, value, dual, iterations) or None
        None when Newton leaves 0 < x1 < mu < x2 < 1 or does not converge:
        the pattern is not the optimum's.
    """
    var = nu - mu * mu
    prev = np.inf
    f1, d1, s1 = T.jet(x1)
    f2, d2, s2 = T.jet(x2)
    for it in range(1, max_iter + 1):
        h = x2 - x1
        F = (d1 + d2) * h - 2.0 * (f2 - f1)
        G = (mu - x1) * (x2 - mu) - var
        j11, j12 = s1 * h + d1 - d2, s2 * h + d1 - d2
        j21, j22 = mu - x2, mu - x1
        det = j11 * j22 - j12 * j21
        if det == 0.0 or not math.isfinite(det):
            return None
        dx1 = (j12 * G - j22 * F) / det
        dx2 = (j21 * F - j11 * G) / det
        x1, x2 = x1 + dx1, x2 + dx2
        if not (0.0 < x1 < mu < x2 < 1.0):
            return None
        step = max(abs(dx1), abs(dx2))
        # From a grid start Newton converges in a few steps; steps that stop
        # shrinking mean a wrong pattern (or f flat to rounding).
        if it > 6 and step > 0.5 * prev:
            return None
        prev = step
        f1, d1, s1 = T.jet(x1)
        f2, d2, s2 = T.jet(x2)
        # Quadratic convergence: after a step below 1e-9 the error is near 1e-18.
        if step <= 1e-9:
            break
    else:
        return None
    h = x2 - x1
    # p(x) = f1 + d1 (x - x1) + c (x - x1)^2 interpolates f(x2) as well
    c = (f2 - f1 - d1 * h) / (h * h)
    dual = np.array([f1 - d1 * x1 + c * x1 * x1, d1 - 2.0 * c * x1, c])
    w2 = (mu - x1) / h
    weights = np.array([1.0 - w2, w2])
    return np.array([x1, x2]), weights, weights[0] * f1 + weights[1] * f2, dual, it
