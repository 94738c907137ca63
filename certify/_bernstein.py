"""Bernstein-basis polynomials on [0, 1]: exact conversion and stable evaluation.

The Bernstein basis b_{k,d}(q) = C(d,k) q^k (1-q)^(d-k) is the natural basis on
[0, 1]: evaluation is a convex combination of the coefficients, so it never
suffers the cancellation of expanded monomials at high degree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from scipy import special

__all__ = [
    "monomial_to_bernstein",
    "bernstein_to_monomial",
    "elevate",
    "bernstein_basis",
    "bernstein_eval",
    "bernstein_scalar",
]

#: Highest degree evaluated by the scalar loop; C(d, k) s^k stays far from overflow.
SCALAR_MAX_DEGREE = 256


def monomial_to_bernstein(coeffs: Sequence[Fraction], degree: int | None = None) -> tuple[Fraction, ...]:
    """Exact Bernstein coefficients of sum_i a_i q^i in degree ``degree``.

    Uses b_k = sum_{i <= min(k, m)} C(k, i) / C(d, i) a_i for a polynomial of degree m:
    (d + 1)(m + 1) terms, so that a low-degree g at the degree of many calls (V_3 at
    K = 2000) costs thousands of operations, not millions.
    """
    a = [Fraction(c) for c in coeffs]
    d = len(a) - 1 if degree is None else degree
    if d < len(a) - 1:
        raise ValueError("degree is below the polynomial's degree")
    scaled = [a[i] / math.comb(d, i) for i in range(len(a))]
    top = len(a) - 1
    return tuple(sum((math.comb(k, i) * scaled[i] for i in range(min(k, top) + 1)), Fraction(0)) for k in range(d + 1))


def bernstein_to_monomial(bern: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Exact monomial coefficients of a Bernstein polynomial.

    a_j = C(d, j) sum_{k<=j} (-1)^(j-k) C(j, k) b_k.
    """
    b = [Fraction(c) for c in bern]
    d = len(b) - 1
    return tuple(
        math.comb(d, j) * sum(((-1) ** (j - k) * math.comb(j, k) * b[k] for k in range(j + 1)), Fraction(0))
        for j in range(d + 1)
    )


def elevate(bern: Sequence[Fraction], degree: int) -> tuple[Fraction, ...]:
    """Exact degree elevation of Bernstein coefficients to ``degree``."""
    b = [Fraction(c) for c in bern]
    while len(b) - 1 < degree:
        d = len(b) - 1
        b = (
            [b[0]]
            + [Fraction(k, d + 1) * b[k - 1] + Fraction(d + 1 - k, d + 1) * b[k] for k in range(1, d + 1)]
            + [b[-1]]
        )
    return tuple(b)


def bernstein_basis(d: int, q: np.ndarray) -> np.ndarray:
    """Bernstein basis b_{k,d}(q) = C(d, k) q^k (1-q)^(d-k) = Bin(k; d, q), shape (d+1, len(q)), in log space."""
    k = np.arange(d + 1)[:, None]
    logc = special.gammaln(d + 1) - special.gammaln(k + 1) - special.gammaln(d - k + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.exp(logc + special.xlogy(k, q[None, :]) + special.xlog1py(d - k, -q[None, :]))


def bernstein_derivative(bern: Sequence[float]) -> list[float]:
    """Float Bernstein coefficients of the derivative: d (b_{k+1} - b_k) in degree d-1."""
    d = len(bern) - 1
    return [d * (bern[k + 1] - bern[k]) for k in range(d)] if d > 0 else [0.0]


def bernstein_scalar(bern: Sequence[float], t: float) -> float:
    """A Bernstein polynomial at one point, in O(d) scalar operations.

    Sum of b_k C(d, k) s^k times (1-t)^d with s = t / (1-t) <= 1 (the
    Volk-Schumaker scheme), on the reversed coefficients at 1 - t when t > 1/2;
    every term is a product of nonnegative factors, so the error is that of
    summing the d+1 terms. For degrees above :data:`SCALAR_MAX_DEGREE` use
    :func:`bernstein_eval`.
    """
    d = len(bern) - 1
    if d == 0:
        return float(bern[0])
    if t > 0.5:
        bern, t = bern[::-1], 1.0 - t
    if t == 0.0:
        return float(bern[0])
    s = t / (1.0 - t)
    term, acc = 1.0, float(bern[0])
    for k in range(1, d + 1):
        term *= s * (d - k + 1) / k
        acc += term * bern[k]
    return acc * (1.0 - t) ** d


def bernstein_eval(bern: np.ndarray, q, derivative: int = 0):
    """Evaluate a Bernstein polynomial (float coefficients) or a derivative of it.

    Parameters
    ----------
    bern : ndarray
        Coefficients b_0..b_d.
    q : array_like
        Points in [0, 1].
    derivative : int
        Order of the derivative; the derivative of a degree-d Bernstein polynomial
        has coefficients d (b_{k+1} - b_k) in degree d-1.
    """
    b = np.asarray(bern, dtype=float)
    qa = np.asarray(q, dtype=float)
    for _ in range(derivative):
        if len(b) <= 1:
            return np.zeros_like(qa)
        b = (len(b) - 1) * np.diff(b)
    flat = np.atleast_1d(qa).ravel()
    out = b @ bernstein_basis(len(b) - 1, flat)
    return out.reshape(qa.shape) if qa.ndim else float(out[0])
