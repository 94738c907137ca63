"""The contact patterns of the two-moment class (m = 2), for one point or arrays of points.

With two moments the dual polynomial is a quadratic, and an optimal law with
two atoms has one of two shapes (Theorem 4.1, computations of Appendix B):

* one atom at an endpoint and one interior tangency: everything is explicit
  (the atoms are x = nu/mu with 0, or z = (mu - nu)/(1 - mu) with 1), which is
  the pattern of the three-vote closed form;
* two interior tangencies x1 < mu < x2: a quadratic tangent to f at both points
  exists iff the mean of the slopes equals the secant slope,
  (f'(x1) + f'(x2)) (x2 - x1) = 2 (f(x2) - f(x1)), and the law on {x1, x2} has
  variance nu - mu^2 iff (mu - x1)(x2 - mu) = nu - mu^2. Newton's method on
  these two equations replaces the 7 x 7 KKT system, for one point or an array.

Both, and the laws on a face found before (:func:`face_weights`), take floats
(one point: :mod:`._exact`) or arrays (many: :mod:`._batch`), and return a
candidate that the caller accepts only after checking the dual on all of [0, 1].
"""

from __future__ import annotations

import math

import numpy as np

from ._contact import Target
from ._tolerances import (
    BITANGENT_MAX_ITER,
    FACE_RESIDUAL,
    FACE_WEIGHT_TOL,
    NEWTON_STALL_AFTER,
    NEWTON_STALL_RATIO,
    NEWTON_STEP_DONE,
)


def lagrange_weights(a: float, b: float, c: float, m0: float, m1: float, m2: float) -> tuple[float, float, float]:
    """Weights on {a, b, c} with moments (m0, m1, m2): E[(Q - b)(Q - c)] = w_a (a - b)(a - c), etc."""
    return (
        (m2 - m1 * (b + c) + m0 * b * c) / ((a - b) * (a - c)),
        (m2 - m1 * (a + c) + m0 * a * c) / ((b - a) * (b - c)),
        (m2 - m1 * (a + b) + m0 * a * b) / ((c - a) * (c - b)),
    )


def face_weights(atoms, mu, nu):
    """Weights of the law on a face's atoms (a, b, c) with moments (1, mu, nu), and where they serve.

    The Lagrange form of the 3 x 3 Vandermonde system, without a linear solve, plus
    one step of iterative refinement on the moment residual: alone, the Lagrange form
    leaves residuals near 1e-12 when two atoms are 1e-3 apart. A face serves a point
    only where its weights are >= -FACE_WEIGHT_TOL and, clipped at 0, meet the moments
    to FACE_RESIDUAL: as tightly as a freshly solved law. ``mu``, ``nu`` floats (one
    point, :mod:`._exact`) or arrays (:mod:`._batch`).

    Returns
    -------
    (weights, serves)
        The three clipped weights, and a bool (array) saying where the face serves.
    """
    a, b, c = atoms
    w = lagrange_weights(a, b, c, 1.0, mu, nu)
    w = [wi + di for wi, di in zip(w, lagrange_weights(a, b, c, *_moment_residual(atoms, w, mu, nu)))]
    scalar = isinstance(mu, float)
    lower, upper = (min, max) if scalar else (np.minimum, np.maximum)
    low = lower(lower(w[0], w[1]), w[2])
    if scalar and low < -FACE_WEIGHT_TOL:  # most faces do not serve a given point: stop early
        return w, False
    w = [upper(wi, 0.0) for wi in w]
    r0, r1, r2 = (abs(r) for r in _moment_residual(atoms, w, mu, nu))
    return w, (low >= -FACE_WEIGHT_TOL) & (upper(upper(r0, r1), r2) <= FACE_RESIDUAL)


def _moment_residual(atoms, w, mu, nu):
    """(1, mu, nu) minus the moments of the weights ``w`` on ``atoms``."""
    a, b, c = atoms
    return (
        1.0 - (w[0] + w[1] + w[2]),
        mu - (w[0] * a + w[1] * b + w[2] * c),
        nu - (w[0] * a * a + w[1] * b * b + w[2] * c * c),
    )


def endpoint_law(T: Target, mu, nu, end: float):
    """The two-atom law with an atom at ``end`` (0 or 1) and its tangent quadratic.

    The interior atom is x = nu/mu with weight mu^2/nu beside 0, or z = (mu - nu)/(1 - mu)
    with weight (1 - mu)/(1 - z) beside 1 (from the mean: the textbook form
    (1 - mu)^2 / (1 - 2 mu + nu) cancels for mu near 1). Floats (one point) or arrays.

    Returns
    -------
    (atoms, weights, value, dual)
        Atoms and weights (..., 2), value (...), dual (..., 3): the quadratic through
        f(end) tangent to f at the interior atom.
    """
    scalar = isinstance(mu, float)
    if end == 0.0:
        x, w = nu / mu, mu * mu / nu
    else:
        x = (mu - nu) / (1.0 - mu)
        w = (1.0 - mu) / (1.0 - x)
    f_end = float(T.values[0] if end == 0.0 else T.values[-1])
    fx, dx, _ = T.jet(x) if scalar else T.jets(x)
    e = x - end
    c = (f_end + dx * e - fx) / (e * e)
    b = dx - 2.0 * c * e  # slope at the end
    dual = _stack([f_end - b * end + c * end * end, b - 2.0 * c * end, c], scalar)
    atoms, weights = ([0.0 * x, x], [1.0 - w, w]) if end == 0.0 else ([x, 0.0 * x + 1.0], [w, 1.0 - w])
    return _stack(atoms, scalar), _stack(weights, scalar), (1.0 - w) * f_end + w * fx, dual


def _stack(parts: list, scalar: bool) -> np.ndarray:
    """Components (floats or arrays) as the last axis of one array."""
    return np.array(parts) if scalar else np.stack(np.broadcast_arrays(*parts), axis=-1)


def bitangent_law(T: Target, mu, nu, x1, x2, max_iter: int = BITANGENT_MAX_ITER):
    """Two interior tangencies x1 < mu < x2 by Newton's method from (x1, x2).

    The one implementation of this pattern: floats solve one point (the per-point
    route of :mod:`._exact`), arrays of one shape solve every entry at once, each
    with the same iteration and stopping rule (the array route of :mod:`._batch`).

    Returns
    -------
    (atoms, weights, value, dual, ok)
        For floats: ``ok`` is the number of iterations, and the whole result is None
        when Newton leaves 0 < x1 < mu < x2 < 1 or does not converge (the pattern is
        not the optimum's). For arrays: atoms and weights (..., 2), value (...), dual
        (..., 3) and ``ok`` a boolean array, False where a float call gives None.
    """
    scalar = isinstance(x1, float)
    jet, larger = (T.jet, max) if scalar else (T.jets, np.maximum)
    var = nu - mu * mu
    # Near the parabola the grid's pattern may put both starts on one side of mu:
    # move the one on the wrong side onto the variance curve (mu - x1)(x2 - mu) = var.
    if scalar:
        x1 = mu - var / (x2 - mu) if x1 >= mu < x2 else x1
        x2 = mu + var / (mu - x1) if x2 <= mu > x1 else x2
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            x1 = np.where((x1 >= mu) & (x2 > mu), mu - var / (x2 - mu), x1)
            x2 = np.where((x2 <= mu) & (x1 < mu), mu + var / (mu - x1), x2)
    prev = math.inf
    live, ok = (True, True) if scalar else (np.ones(np.shape(x1), bool), np.ones(np.shape(x1), bool))
    f1, d1, s1 = jet(x1)
    f2, d2, s2 = jet(x2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # failed rows are marked, not raised
        for it in range(1, max_iter + 1):
            h = x2 - x1
            F = (d1 + d2) * h - 2.0 * (f2 - f1)
            G = (mu - x1) * (x2 - mu) - var
            j11, j12 = s1 * h + d1 - d2, s2 * h + d1 - d2
            j21, j22 = mu - x2, mu - x1
            det = j11 * j22 - j12 * j21
            if scalar and det == 0.0:
                return None
            # Cramer's rule: a 2 x 2 solve without np.linalg, so one point costs no array overhead.
            dx1 = (j12 * G - j22 * F) / det
            dx2 = (j21 * F - j11 * G) / det
            n1, n2 = x1 + dx1, x2 + dx2
            step = larger(abs(dx1), abs(dx2))
            # From a grid start Newton converges in a few steps; steps that stop
            # shrinking mean a wrong pattern (or f flat to rounding).
            good = (
                (0.0 < n1)
                & (n1 < mu)
                & (mu < n2)
                & (n2 < 1.0)
                & (abs(det) < math.inf)
                & ((it <= NEWTON_STALL_AFTER) | (step <= NEWTON_STALL_RATIO * prev))
            )
            if scalar:
                if not good:
                    return None
                x1, x2 = n1, n2
            else:
                ok &= good | ~live
                live &= good
                x1, x2 = np.where(live, n1, x1), np.where(live, n2, x2)
            prev = step
            f1, d1, s1 = jet(x1)
            f2, d2, s2 = jet(x2)
            # Quadratic convergence: after a step below NEWTON_STEP_DONE the error is near its square.
            if scalar and step <= NEWTON_STEP_DONE:
                break
            if not scalar:
                live &= ~(step <= NEWTON_STEP_DONE)
                if not live.any():
                    break
        else:
            if scalar:
                return None
        if not scalar:
            assert isinstance(live, np.ndarray)  # arrays in: ``live`` is the boolean array made above
            ok &= ~live
    h = x2 - x1
    # p(x) = f1 + d1 (x - x1) + c (x - x1)^2 interpolates f(x2) as well
    c = (f2 - f1 - d1 * h) / (h * h)
    w2 = (mu - x1) / h
    w1 = 1.0 - w2
    dual = _stack([f1 - d1 * x1 + c * x1 * x1, d1 - 2.0 * c * x1, c], scalar)
    return _stack([x1, x2], scalar), _stack([w1, w2], scalar), w1 * f1 + w2 * f2, dual, it if scalar else ok
