"""The few probability distributions the statistics use, without importing :mod:`scipy.stats`.

Importing :mod:`scipy.stats` costs about 0.8 s (its distributions parse their docstrings
at import), a quarter of a short ``certify analyze`` run, for a few functions. The
chi2, F, t and normal quantiles are the :mod:`scipy.special` calls that ``scipy.stats``
itself makes (``chi2.ppf``, ``f.ppf``, ``t.ppf``, ``norm.ppf``), so their values are the
same to the last bit; the beta quantile is :func:`scipy.special.betaincinv` (``beta.ppf``
calls Boost's, and the two agree to rounding). The hypergeometric probabilities come from
one table per distinct ``(total, good)`` pair, so the work grows with the distinct pairs (at
most K + 1 per call count K), not with the examples. Each table is anchored at its mode, the
largest probability, by one ratio of exact integers (Python's int / int is correctly rounded),
and filled outwards by the ratio of neighbouring probabilities, a ratio of small integers: no
binomial coefficient is ever a float, so nothing overflows, and a value j places from the mode
carries at most 2 j roundings (relative error below 5e-13 for j <= 1000, far smaller than
any shown digit). Exact integers for every entry cost (draws + 1) products of many-digit
binomial coefficients per pair: for the 2001 pairs of K = 2000 calls 0.6 s with V101's 101
draws and 87 s with 1000 draws, against 15 ms and 0.2 s anchored at the mode.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = ["beta_quantile", "chi2_quantile", "f_quantile", "t_quantile", "normal_quantile", "hypergeometric_pmf"]


def beta_quantile(p: float, a: float, b: float) -> float:
    """The p-quantile of Beta(a, b), a, b > 0 (``scipy.stats.beta.ppf``)."""
    return float(special.betaincinv(a, b, p))


def chi2_quantile(p: float, df: int) -> float:
    """The p-quantile of chi2 with ``df`` degrees of freedom (``scipy.stats.chi2.ppf``)."""
    return float(2.0 * special.gammaincinv(df / 2, p))


def f_quantile(p: float, dfn: int, dfd: int) -> float:
    """The p-quantile of the F distribution with (dfn, dfd) degrees of freedom (``scipy.stats.f.ppf``)."""
    return float(special.fdtri(dfn, dfd, p))


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (``scipy.stats.t.ppf``)."""
    return float(special.stdtrit(df, p))


def normal_quantile(p: float) -> float:
    """The p-quantile of the standard normal law (``scipy.stats.norm.ppf``)."""
    return float(special.ndtri(p))


def hypergeometric_pmf(total, good, draws: int) -> np.ndarray:
    """P(x of ``draws`` calls drawn without replacement are correct), x = 0..draws, per row.

    Parameters
    ----------
    total, good : array_like of int, shape (n,)
        Each row's number of calls and of correct calls among them (``good <= total``).
    draws : int
        Calls drawn, at most every row's ``total``.

    Returns
    -------
    ndarray, shape (n, draws + 1)
        ``C(good, x) C(total - good, draws - x) / C(total, draws)``: correctly rounded at the
        mode, within 2 |x - mode| roundings elsewhere (module docstring).
    """
    total = np.asarray(total, dtype=np.int64).reshape(-1)
    good = np.asarray(good, dtype=np.int64).reshape(-1)
    pairs, row_of = np.unique(np.stack([total, good], axis=1), axis=0, return_inverse=True)
    t, g = pairs[:, 0], pairs[:, 1]
    bad = t - g - draws  # x + bad >= 0 on the support, which is max(0, -bad) <= x <= min(good, draws)
    # the mode floor((draws + 1)(good + 1) / (total + 2)) lies on the support
    mode = (draws + 1) * (g + 1) // (t + 2)
    table = np.zeros((len(pairs), draws + 1))
    rows = np.arange(len(pairs))
    subsets = {n: math.comb(n, draws) for n in set(t.tolist())}
    table[rows, mode] = [
        math.comb(gi, m) * math.comb(ti - gi, draws - m) / subsets[ti]
        for ti, gi, m in zip(t.tolist(), g.tolist(), mode.tolist())
    ]
    # P(x + 1) / P(x) = (good - x)(draws - x) / ((x + 1)(x + 1 + bad)): every factor is an exact
    # integer in a double (below 2^53), a factor 0 ends the support, and the denominators are
    # positive from the mode up; downwards the same ratio inverted, clipped at 0 below the support
    for step in range(1, draws + 1):
        up = mode + step <= draws
        if up.any():
            r, x = rows[up], mode[up] + step - 1
            table[r, x + 1] = table[r, x] * ((g[up] - x) * (draws - x)) / ((x + 1) * (x + 1 + bad[up]))
        down = mode - step >= 0
        if down.any():
            r, x = rows[down], mode[down] - step + 1
            num = np.maximum(x * (x + bad[down]), 0)
            table[r, x - 1] = table[r, x] * num / ((g[down] - x + 1) * (draws - x + 1))
    return table[row_of.reshape(-1)]
