"""Moment estimators from correctness bits (paper Section 4.4 and Appendix B).

Paper labels: ``sec:finite-sample-main``, ``eq:rho-main``, ``eq:pair-probs-main``, ``app:numerics-main``.

Two estimators are provided:

* :func:`two_call_estimates` -- exactly the paper's: the first two calls of each
  example give X_i = ((B_i1 + B_i2)/2, B_i1 B_i2); theta-hat = (mu-hat, nu-hat) is
  their mean, Sigma-hat their sample covariance, and rho-hat (eq. (rho-main)) gets its
  standard error by the delta method.
* :func:`all_call_estimates` -- beyond the paper: with K_i >= 2 calls on example
  i and S_i correct, the within-example U-statistics
  m_k,i = C(S_i, k) / C(K_i, k) are unbiased for m_k = E[Q^k] (eq. (hierarchy-main) and its
  k-call analogue), and so is their average over examples. Examples are the
  independent units, so the standard errors come from the sample covariance of
  the per-example vectors (m_1,i, ..., m_k,i) -- never from treating the K(K-1)/2
  pairs of an example as independent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from .._calls import CallBits
from .._errors import InputError
from .._moments import PairTable, pair_table, rho_from_nu
from .._numbers import float_or_nan

__all__ = [
    "TwoCallEstimates",
    "AllCallEstimates",
    "two_call_estimates",
    "two_call_from_summary",
    "all_call_estimates",
    "rho_gradient",
]

#: The covariance of the moment estimates is written for the first this-many moments only
#: (:class:`AllCallEstimates`): 64 x 64 numbers are about 100 kB of JSON, and no computation
#: of the package reads more than its leading 2 x 2 block; standard errors cover every moment.
COVARIANCE_MAX_ORDER = 64


def rho_gradient(mu: float, nu: float) -> np.ndarray:
    """Gradient of rho(mu, nu) = (nu - mu^2) / (mu (1 - mu)) (eq. (rho-main)) for the delta method."""
    d = mu * (1.0 - mu)
    if d <= 0:
        return np.array([np.nan, np.nan])
    # d rho / d mu = [-2 mu d - (nu - mu^2)(1 - 2 mu)] / d^2 ;  d rho / d nu = 1 / d
    return np.array([(-2.0 * mu * d - (nu - mu * mu) * (1.0 - 2.0 * mu)) / (d * d), 1.0 / d])


@dataclass(frozen=True)
class TwoCallEstimates:
    """The paper's two-call estimates (Section 4.4, Appendix B "Projection of sampling uncertainty").

    Attributes
    ----------
    n : int
        Number of examples N.
    mu, nu, rho : float
        mu-hat, nu-hat (means of X_i) and rho-hat = (nu-hat - mu-hat^2)/(mu-hat(1 - mu-hat)).
    cov : tuple of tuple of float
        Sigma-hat: the sample covariance (ddof = 1) of the X_i, so that
        Cov(theta-hat) is estimated by Sigma-hat / N.
    pair_counts : tuple of int
        (n11, n10 + n01, n00): examples whose first two calls were both right,
        disagreed, both wrong (the empirical pair table, eq. (pair-probs-main)).
    """

    n: int
    mu: float
    nu: float
    rho: float
    cov: tuple[tuple[float, float], tuple[float, float]]
    pair_counts: tuple[int, int, int]

    @property
    def theta(self) -> np.ndarray:
        return np.array([self.mu, self.nu])

    @property
    def sigma(self) -> np.ndarray:
        return np.array(self.cov, dtype=float)

    @property
    def se_mu(self) -> float:
        return float(np.sqrt(max(self.cov[0][0], 0.0) / self.n))

    @property
    def se_nu(self) -> float:
        return float(np.sqrt(max(self.cov[1][1], 0.0) / self.n))

    @property
    def se_rho(self) -> float:
        """Delta-method SE of rho-hat: sqrt(grad' Sigma-hat grad / N)."""
        g = rho_gradient(self.mu, self.nu)
        return float(np.sqrt(max(g @ self.sigma @ g, 0.0) / self.n))

    @property
    def pair_table(self) -> PairTable:
        return pair_table(self.mu, self.nu)

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "mu": self.mu,
            "nu": self.nu,
            "rho": self.rho,
            "se_mu": self.se_mu,
            "se_nu": self.se_nu,
            "se_rho": self.se_rho,
            "cov": [list(r) for r in self.cov],
            "pair_counts": list(self.pair_counts),
        }

    @classmethod
    def from_dict(cls, d: dict) -> TwoCallEstimates:
        return cls(
            int(d["n"]),
            float(d["mu"]),
            float(d["nu"]),
            float_or_nan(d["rho"]),
            # the 2 x 2 covariance and the three pair counts that to_dict wrote
            cast(tuple[tuple[float, float], tuple[float, float]], tuple(tuple(float(x) for x in r) for r in d["cov"])),
            cast(tuple[int, int, int], tuple(int(c) for c in d["pair_counts"])),
        )


def _x_vectors(b1: np.ndarray, b2: np.ndarray) -> np.ndarray:
    return np.stack([(b1 + b2) / 2.0, b1 * b2], axis=1)


def two_call_estimates(data: CallBits) -> TwoCallEstimates:
    """mu-hat, nu-hat, rho-hat and Sigma-hat from the first two calls (Section 4.4).

    Parameters
    ----------
    data : CallBits
        Correctness bits; column 0 and 1 are each example's first two calls.

    Returns
    -------
    TwoCallEstimates
    """
    b1, b2 = data.bits[:, 0], data.bits[:, 1]
    x = _x_vectors(b1, b2)
    n = x.shape[0]
    if n < 2:
        raise InputError(f"{n} example(s): the sample covariance of X_i needs at least 2 examples")
    theta = x.mean(axis=0)
    cov = np.cov(x, rowvar=False, ddof=1)
    n11 = int(np.sum((b1 == 1) & (b2 == 1)))
    n00 = int(np.sum((b1 == 0) & (b2 == 0)))
    return TwoCallEstimates(
        n=n,
        mu=float(theta[0]),
        nu=float(theta[1]),
        rho=float(rho_from_nu(theta[0], theta[1])),
        cov=((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1]))),
        pair_counts=(n11, n - n11 - n00, n00),
    )


def two_call_from_summary(mu: float, n: int, *, nu: float | None = None, rho: float | None = None) -> TwoCallEstimates:
    """Two-call estimates from summary statistics: the pair table fixes Sigma-hat.

    X_i takes the values (1, 1), (1/2, 0), (0, 0) with the empirical pair
    probabilities p11 = nu, pd = 2(mu - nu), p00 = 1 - 2 mu + nu (eq. (pair-probs-main)), so the
    sample covariance (ddof = 1) is n/(n-1) times
    [[p11 + pd/4 - mu^2, p11 - mu nu], [p11 - mu nu, nu - nu^2]].

    Parameters
    ----------
    mu : float
        mu-hat.
    n : int
        Number of examples (>= 2).
    nu, rho : float
        Give exactly one: nu-hat, or rho-hat (then nu-hat = mu^2 + rho mu (1 - mu)).
    """
    for name, v in (("mu-hat", mu), ("nu-hat", nu), ("rho-hat", rho)):
        if v is not None and not np.isfinite(v):
            raise InputError(f"{name}={v!r} must be a finite number")
    if (nu is None) == (rho is None):
        raise InputError("give exactly one of nu-hat or rho-hat")
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise InputError(f"n={n!r} must be an integer >= 2 (number of examples)")
    n = int(n)
    if not 0.0 <= mu <= 1.0:
        raise InputError(f"mu-hat={mu!r} must lie in [0, 1]")
    if rho is not None:
        nu = mu * mu + rho * mu * (1.0 - mu)
    assert nu is not None  # exactly one of nu and rho was given (checked above)
    p11, pd, p00 = nu, 2.0 * (mu - nu), 1.0 - 2.0 * mu + nu
    tol = 1e-12
    if min(p11, pd, p00) < -tol:
        raise InputError(
            f"(mu-hat, nu-hat)=({mu!r}, {nu!r}) is not a pair table: need 0 <= nu <= mu and 1 - 2 mu + nu >= 0"
        )
    p11, pd, p00 = max(p11, 0.0), max(pd, 0.0), max(p00, 0.0)
    c = n / (n - 1.0)
    s11 = c * (p11 + pd / 4.0 - mu * mu)
    s12 = c * (p11 - mu * nu)
    s22 = c * (nu - nu * nu)
    counts = (int(round(p11 * n)), int(round(pd * n)), int(round(p00 * n)))
    return TwoCallEstimates(n, float(mu), float(nu), float(rho_from_nu(mu, nu)), ((s11, s12), (s12, s22)), counts)


@dataclass(frozen=True)
class AllCallEstimates:
    """U-statistic moment estimates from every call (beyond the paper).

    Attributes
    ----------
    n : int
        Examples used.
    calls : tuple of int
        (min K_i, max K_i): the call counts across examples.
    order : int
        Highest moment estimated: min K_i (every example identifies m_k for k <= K_i).
    moments : tuple of float
        (m_1-hat, ..., m_order-hat), m_k-hat = mean_i C(S_i, k) / C(K_i, k).
    se : tuple of float
        Standard error of each moment: sqrt(s_k^2 / n), s_k^2 the sample variance (ddof = 1)
        of the per-example k-th terms.
    cov : tuple of tuple of float
        Sample covariance of the per-example vectors of the first
        min(order, :data:`COVARIANCE_MAX_ORDER`) moments; Cov(moments) = cov / n. Capped
        because the full matrix grows as order^2: 2,000 calls per example would make 4
        million numbers (100 MB of JSON) that no computation here reads.
    """

    n: int
    calls: tuple[int, int]
    order: int
    moments: tuple[float, ...]
    se: tuple[float, ...]
    cov: tuple[tuple[float, ...], ...]

    @property
    def mu(self) -> float:
        return self.moments[0]

    @property
    def nu(self) -> float:
        return self.moments[1]

    @property
    def rho(self) -> float:
        return float(rho_from_nu(self.mu, self.nu))

    @property
    def se_rho(self) -> float:
        g = rho_gradient(self.mu, self.nu)
        s = np.array(self.cov, dtype=float)[:2, :2]
        return float(np.sqrt(max(g @ s @ g, 0.0) / self.n))

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "calls": list(self.calls),
            "order": self.order,
            "moments": list(self.moments),
            "se": list(self.se),
            "rho": self.rho,
            "se_rho": self.se_rho,
            "cov": [list(r) for r in self.cov],
        }

    @classmethod
    def from_dict(cls, d: dict) -> AllCallEstimates:
        return cls(
            int(d["n"]),
            cast(tuple[int, int], tuple(int(c) for c in d["calls"])),  # (min K_i, max K_i), as to_dict wrote
            int(d["order"]),
            tuple(float(m) for m in d["moments"]),
            tuple(float(e) for e in d["se"]),
            tuple(tuple(float(x) for x in r) for r in d["cov"]),
        )


def all_call_estimates(data: CallBits, order: int | None = None) -> AllCallEstimates:
    """Unbiased U-statistic estimates of m_1, ..., m_order from all K_i calls.

    Given q_i, the S_i correct calls out of K_i are Binomial(K_i, q_i), and
    E[C(S_i, k) | q_i] = C(K_i, k) q_i^k, so C(S_i, k)/C(K_i, k) is the average of
    the k-call product B_ij1 ... B_ijk over all k-subsets of the example's calls.

    Parameters
    ----------
    data : CallBits
    order : int, optional
        Highest moment; default and maximum min_i K_i (ragged rule: a moment is
        estimated only if every example identifies it).
    """
    k_i = data.counts
    s_i = data.successes
    kmin = int(k_i.min())
    order = kmin if order is None else int(order)
    if not 1 <= order <= kmin:
        raise InputError(f"order={order} must be between 1 and the smallest call count {kmin}")
    n = len(k_i)
    if n < 2:
        raise InputError(f"{n} example(s): standard errors need at least 2 examples")
    # C(S, k) / C(K, k) = prod_{j < k} (S - j) / (K - j): a running product of ratios in
    # [0, 1] (zero from j = S on), where the two binomials overflow beyond k ~ 1000
    j = np.arange(order)
    ratios = np.maximum(s_i[:, None] - j, 0) / (k_i[:, None] - j)
    per = np.cumprod(ratios, axis=1)
    cov = np.atleast_2d(np.cov(per[:, :COVARIANCE_MAX_ORDER], rowvar=False, ddof=1))
    se = np.sqrt(np.maximum(per.var(axis=0, ddof=1), 0.0) / n)
    return AllCallEstimates(
        n=n,
        calls=(kmin, int(k_i.max())),
        order=order,
        moments=tuple(float(v) for v in per.mean(axis=0)),
        se=tuple(float(e) for e in se),
        cov=tuple(tuple(float(x) for x in row) for row in cov),
    )
