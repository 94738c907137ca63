"""The few probability distributions the statistics use, without importing :mod:`scipy.stats`.

Importing :mod:`scipy.stats` costs about 0.8 s (its distributions parse their docstrings
at import), a quarter of a short ``certify analyze`` run, for a few functions. The
chi2, F, t and normal quantiles are the :mod:`scipy.special` calls that ``scipy.stats``
itself makes (``chi2.ppf``, ``f.ppf``, ``t.ppf``, ``norm.ppf``), so their values are the
same to the last bit; the beta quantile is :func:`scipy.special.betaincinv` (``beta.ppf``
calls Boost's, and the two agree to rounding). The hypergeometric probabilities are ratios
of exact integers, each rounded once (Python's int / int is correctly rounded), from one
table per distinct ``(total, good)`` pair: exact where a floating recursion would lose
digits, and the work grows with the distinct pairs (at most K + 1 per call count K), not
with the examples.
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
        ``C(good, x) C(total - good, draws - x) / C(total, draws)``, each correctly rounded.
    """
    total = np.asarray(total, dtype=np.int64).reshape(-1)
    good = np.asarray(good, dtype=np.int64).reshape(-1)
    pairs, row_of = np.unique(np.stack([total, good], axis=1), axis=0, return_inverse=True)
    table = np.empty((len(pairs), draws + 1))
    for i, (t, g) in enumerate(pairs.tolist()):
        subsets = math.comb(t, draws)
        table[i] = [math.comb(g, x) * math.comb(t - g, draws - x) / subsets for x in range(draws + 1)]
    return table[row_of.reshape(-1)]
