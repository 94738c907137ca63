"""Majority-vote polynomials P_n (paper eq. (main-vn)) and the even-budget collapse.

P_n(q) = Pr{Bin(2n+1, q) >= n+1} is evaluated as the regularized incomplete beta
function I_q(n+1, n+1), which stays accurate to a few ulps for budgets of thousands
of votes; the expanded monomial form loses all digits in floating point beyond a few
dozen votes. Exact coefficients are available for verification.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from scipy import special

from ._errors import InputError
from ._tolerances import DENSITY_DIGITS

__all__ = [
    "majority_polynomial",
    "majority_polynomial_jet",
    "majority_index",
    "majority_monomial_coefficients",
    "majority_bernstein_coefficients",
    "fair_tie_even_coefficients",
]


def majority_index(votes: int) -> int:
    """Paper index n of the odd representative of a budget of ``votes`` calls.

    Odd budgets 2n+1 map to n. An even budget 2n with fair (coin-flip) ties has
    the accuracy of the odd budget 2n-1 below it (Appendix A.1), so it maps to n-1.

    Parameters
    ----------
    votes : int
        Number of calls, at least 1.

    Returns
    -------
    int
        The index n such that ``votes`` calls have accuracy V_n.
    """
    if isinstance(votes, bool) or not isinstance(votes, (int, np.integer)):
        raise InputError(f"votes={votes!r} must be a positive integer number of calls")
    votes = int(votes)
    if votes < 1:
        raise InputError(f"votes={votes} must be at least 1 (a budget of at least one call)")
    return (votes - 1) // 2


def majority_polynomial(n: int, q, derivative: int = 0):
    """Evaluate P_n or one of its first two derivatives (paper eq. (main-vn)).

    Parameters
    ----------
    n : int
        Paper index: the budget is 2n+1 votes. ``n = 0`` is one call, P_0(q) = q.
    q : array_like
        Points in [0, 1].
    derivative : {0, 1, 2}
        Which derivative to return.

    Returns
    -------
    ndarray or float
        P_n(q) = I_q(n+1, n+1), or its derivative; the first derivative is the
        Beta(n+1, n+1) density, P_n'(q) = q^n (1-q)^n / B(n+1, n+1).
    """
    return majority_polynomial_jet(n, q, (derivative,))[0]


def majority_polynomial_jet(n: int, q, derivatives=(0, 1, 2)) -> list:
    """P_n and its derivatives at the points ``q``, sharing one evaluation of log(4q(1-q)).

    The array path of :func:`majority_polynomial` (which is this with one derivative):
    Newton's method on the support needs P_n, P_n' and P_n'' at the same few atoms, and the
    density's log is most of the cost of the last two.

    Parameters
    ----------
    n : int
        Paper index (2n+1 votes).
    q : array_like
        Points in [0, 1].
    derivatives : sequence of {0, 1, 2}
        Which derivatives to return, in that order.

    Returns
    -------
    list of ndarray
        One array per requested derivative.
    """
    bad = [d for d in derivatives if d not in (0, 1, 2)]
    if bad:
        raise InputError(f"derivative={bad[0]!r} must be 0, 1 or 2")
    q = np.asarray(q, dtype=float)
    out = []
    log4pq = t = None
    with np.errstate(divide="ignore", invalid="ignore"):  # log 0 at q = 0, 1: density 0 there
        for d in derivatives:
            if d == 0:
                out.append(special.betainc(n + 1, n + 1, q))
            elif n == 0:
                out.append(np.full_like(q, 1.0 if d == 1 else 0.0))
            else:
                if log4pq is None:
                    t = 1.0 - 2.0 * q
                    log4pq = np.where(np.abs(t) <= 0.5, np.log1p(-t * t), np.log(4.0 * q) + np.log1p(-q))
                if d == 1:
                    out.append(np.exp(_log_density_at_half(n) + n * log4pq))
                else:
                    core = 4.0 * np.exp(_log_density_at_half(n) + ((n - 1) * log4pq if n > 1 else 0.0))
                    assert t is not None  # set together with log4pq
                    out.append(n * t * core)
    return out


@lru_cache(maxsize=4096)
def _log_density_at_half(n: int) -> float:
    """log P_n'(1/2) = -log B(n+1, n+1) - n log 4, correctly rounded.

    The density is evaluated as P_n'(1/2) (4 q (1-q))^n: both logs stay small
    near q = 1/2, where P_n' is large, instead of cancelling between two
    numbers near n log 4 (which costs 1e-13 relative at n = 500; and
    ``scipy.special.betaln`` is itself off by 1e-15 relative there). DENSITY_DIGITS-digit
    mpmath once per n costs a fraction of a millisecond.

    Memoized (``lru_cache``): one float per n, at most 4096 of them (every budget a
    curve or a batch uses, many times over). The value is a deterministic function of n,
    computed identically on a miss, so the cache cannot change a result.
    """
    with mpmath.workdps(DENSITY_DIGITS):
        return float(-mpmath.log(mpmath.beta(n + 1, n + 1)) - n * mpmath.log(4))


def _log_4pq(x: float) -> float:
    """log(4 x (1-x)) for 0 < x < 1, accurate near x = 1/2 where it is near 0."""
    if 0.25 <= x <= 0.75:
        t = 1.0 - 2.0 * x  # exact (Sterbenz)
        return math.log1p(-t * t)
    return math.log(4.0 * x) + math.log1p(-x)


def _density_scalar(n: int, x: float) -> tuple[float, float]:
    """P_n'(x) and P_n''(x) at one point, n >= 1."""
    if x <= 0.0 or x >= 1.0:
        return 0.0, (6.0 * (1.0 - 2.0 * x) if n == 1 else 0.0)
    core = 4.0 * math.exp(_log_density_at_half(n) + (n - 1) * _log_4pq(x))  # x^(n-1) (1-x)^(n-1) / B
    return core * x * (1.0 - x), n * (1.0 - 2.0 * x) * core


def majority_scalar(n: int, x: float, derivative: int = 0) -> float:
    """Scalar fast path of :func:`majority_polynomial` (no array overhead)."""
    if derivative == 0:
        return float(special.betainc(n + 1, n + 1, x))
    if n == 0:
        return 1.0 if derivative == 1 else 0.0
    return _density_scalar(n, x)[derivative - 1]


def majority_jet(n: int, x: float) -> tuple[float, float, float]:
    """P_n(x), P_n'(x), P_n''(x) at one point, sharing the density's evaluation."""
    value = float(special.betainc(n + 1, n + 1, x))
    if n == 0:
        return value, 1.0, 0.0
    return (value, *_density_scalar(n, x))


@lru_cache(maxsize=256)
def majority_monomial_coefficients(n: int) -> tuple[int, ...]:
    """Exact integer monomial coefficients c_0..c_{2n+1} of P_n.

    Integrating P_n'(q) = (2n+1) C(2n, n) q^n (1-q)^n term by term gives
    c_{n+1+i} = (2n+1) C(2n, n) C(n, i) (-1)^i / (n+1+i), which are integers.

    Memoized (``lru_cache``): one tuple of 2n + 2 exact integers per n, at most 256 of
    them (the budgets in use; V_1001's is 2004 integers of up to ~900 digits). Exact and
    immutable, so a cached table equals a recomputed one and cannot change a result.
    """
    lead = (2 * n + 1) * math.comb(2 * n, n)
    coeffs = [0] * (2 * n + 2)
    for i in range(n + 1):
        num = lead * math.comb(n, i)
        c, r = divmod(num, n + 1 + i)
        if r:  # pragma: no cover - would contradict the integrality proof
            raise ArithmeticError("majority coefficient is not an integer")
        coeffs[n + 1 + i] = c if i % 2 == 0 else -c
    return tuple(coeffs)


def majority_bernstein_coefficients(n: int) -> tuple[int, ...]:
    """Bernstein coefficients of P_n in degree 2n+1: 0 for k <= n, 1 for k > n."""
    return tuple(0 if k <= n else 1 for k in range(2 * n + 2))


def fair_tie_even_coefficients(n: int) -> tuple[Fraction, ...]:
    """Exact monomial coefficients of the fair-tie 2n-vote accuracy (Appendix A.1).

    Pr{Bin(2n, q) > n} + Pr{Bin(2n, q) = n} / 2, expanded independently of
    :func:`majority_monomial_coefficients` so that the collapse identity
    P_n^even = P_{n-1} can be checked rather than assumed.
    """
    if n < 1:
        raise InputError(f"n={n} must be at least 1 for an even budget of 2n votes")
    d = 2 * n
    coeffs = [Fraction(0)] * (d + 1)
    for k in range(n, d + 1):
        weight = Fraction(1, 2) if k == n else Fraction(1)
        base = weight * math.comb(d, k)
        # q^k (1-q)^(d-k) = sum_j C(d-k, j) (-1)^j q^(k+j)
        for j in range(d - k + 1):
            coeffs[k + j] += base * math.comb(d - k, j) * (-1) ** j
    return tuple(coeffs)
