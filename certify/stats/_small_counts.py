"""Small-count calibration of the profile likelihood-ratio threshold (eq. (L6), profile case).

Why. The profile calibration c = chi2_{1, 1-alpha} / 2 is a limit. When the estimate of
E[g] rests on cells with a few expected examples -- the three-vote gain V_3 - V_1 from
K = 3 calls is (p_2 - p_1) / 3, and with rho about 0.97 and N = 200 the cells S = 1 and
S = 2 expect 0.8 and 2.1 examples -- the likelihood ratio lives on a lattice and its
upper quantile is not chi2's. The coverage of a likelihood-ratio interval for a Poisson
mean dips to 0.84 at mean 1.9 and stays below 0.94 up to a mean of about 5; the measured
coverage of that gain interval was 0.906 (``benchmarks/bench_likelihood_coverage.py``;
0.906 also by enumerating the counts).

What. For one number of calls K the cells S = 0..K are multinomial and an identified g has
E_pi[g] = sum_S a_S p_S(pi), with a the Bernstein coefficients of g at degree K. The
saturated likelihood ratio of the linear functional a.p = v (eq. (S1) below) reproduces
the lattice: at the true law of that example its exceedance of chi2_{1, 0.95} is 0.094,
the miss rate of the interval itself. Its (1 - alpha) quantile is a jagged function of the
law, so the threshold is the largest quantile over a path of laws near the data (a
Berger-Boos style supremum over nuisance values rather than a plug-in): the NPMLE p-hat
and p-hat + s (p_end - p-hat) for both ends of the interval and s in PATH_STEPS (s = 2
reaches as far again beyond each end, the laws a sampling draw of the data could come
from). Quantiles are simulated with DRAWS multinomial draws from a generator seeded by
the counts, so the result is a deterministic function of the data. The threshold used is
max(c, that quantile / 2); it is applied only where the lattice matters: when cells with
fewer than SMALL_COUNT expected examples carry more than SMALL_SHARE of the variance of
a.n / N under p-hat. Elsewhere the chi-square value stands, unchanged.

Saturated ratio (S1). For counts n over K+1 cells and v inside [min a, max a],

    sup {sum_S n_S log p_S : p in the simplex, a.p = v} is attained at
    p_S = n_S / (N + t (a_S - v)),  with t the root of sum_S n_S (a_S - v) / (N + t (a_S - v)) = 0

on the interval where every N + t (a_S - v) >= 0 (a cell with no examples may then take the
remaining mass, at the end of that interval). The sum decreases in t; its root is found by
Newton's method from t = 0, safeguarded by bisection. W = 2 (sum n log(n/N) - sum n log p).
The calibration stays approximate -- it is measured, with the rest, by simulation.
"""

from __future__ import annotations

import numpy as np

__all__ = ["on_lattice", "saturated_ratio", "small_count_drop"]

#: Expected count under which a cell is on the lattice: the Poisson likelihood-ratio
#: interval covers less than 0.94 for some mean below 5 and at least 0.939 above 20.
SMALL_COUNT = 20.0
#: Share of the variance of a.n / N from such cells above which the calibration runs.
SMALL_SHARE = 0.2
#: Multinomial draws per law: the 0.95 quantile of W to about +-0.1 (its density there ~0.03).
DRAWS = 2000
#: Steps s of the laws p-hat + s (p_end - p-hat) on each side.
PATH_STEPS = (0.5, 1.0, 1.5, 2.0)
#: Relative size below which a_S - v counts as 0 (v from a . p carries a few ulps of rounding).
VALUE_SNAP = 1e-12
#: Safeguarded Newton steps for t at most: from t = 0 Newton converges in a few; a step that
#: leaves the bracket is a bisection, and 2^-80 of the bracket is exact enough.
NEWTON_STEPS = 80
#: A row has converged when Newton moves t by at most this fraction of its initial bracket;
#: W is stationary in t at the root (dW/dt = -2 phi = 0), so its error is second order.
STEP_TOL = 1e-14


def saturated_ratio(counts: np.ndarray, coef: np.ndarray, value: float) -> np.ndarray:
    """Saturated multinomial likelihood ratio W of ``coef . p = value`` (eq. (S1)), per row.

    Parameters
    ----------
    counts : ndarray of int, shape (M, C)
        M count vectors over the C cells.
    coef : ndarray, shape (C,)
        The functional's coefficients a.
    value : float
        v; W is +inf for v outside [min a, max a].

    Returns
    -------
    ndarray, shape (M,)
        W >= 0.
    """
    n = np.asarray(counts, dtype=float)
    coef = np.asarray(coef, dtype=float)
    d = coef - float(value)
    # v = a . p computed in floating point can sit an ulp beyond an extreme of a: snap such
    # differences to 0, or a cell with a_S = max a would read as excluded and W as +inf
    d[np.abs(d) <= VALUE_SNAP * max(1.0, float(np.max(np.abs(coef))))] = 0.0
    total = n.sum(axis=1)
    seen = n > 0
    if not ((d > 0).any() and (d < 0).any()):
        # v at (or beyond) an extreme of a: only the cells with a_S = v may hold mass
        return np.where((seen & (d != 0)).any(axis=1), np.inf, 0.0)
    # domain of t: total + t d_S >= 0 for every cell (the zero cells included); lo_seen and
    # hi_seen are the same ends for the cells with examples, where phi is infinite
    barrier = -total[:, None] / np.where(d == 0, 1.0, d)[None, :]
    pos, neg = d > 0, d < 0
    lo, hi = barrier[:, pos].max(axis=1), barrier[:, neg].min(axis=1)
    lo_seen = np.where(seen[:, pos], barrier[:, pos], -np.inf).max(axis=1)
    hi_seen = np.where(seen[:, neg], barrier[:, neg], np.inf).min(axis=1)
    # past the domain, only cells with examples enter phi and W: with thousands of calls and
    # few examples most of the K + 1 cells are empty in every row, and are left out
    cols = np.flatnonzero(seen.any(axis=0))
    n, d, seen = n[:, cols], d[cols], seen[:, cols]

    def phi_and_slope(t, rows):
        """phi(t) = sum_S n_S d_S / (N + t d_S) and phi'(t) on the given rows."""
        den = total[rows, None] + t[:, None] * d[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(seen[rows], n[rows] * d / den, 0.0)
            return r.sum(axis=1), -np.where(seen[rows], r * d / den, 0.0).sum(axis=1)

    # phi(t) decreases from lo to hi. At an end where only empty cells reach den = 0, phi is
    # finite, and the root may be that end (an empty cell takes the remaining mass).
    every = np.arange(len(total))
    at_lo = (lo > lo_seen) & (phi_and_slope(lo, every)[0] <= 0)
    at_hi = (hi < hi_seen) & (phi_and_slope(hi, every)[0] >= 0)
    tol = STEP_TOL * (hi - lo)
    # safeguarded Newton from t = 0 (inside: lo < 0 < hi), keeping lo with phi > 0 and hi with phi <= 0
    t = np.where(at_lo, lo, np.where(at_hi, hi, 0.0))
    active = ~(at_lo | at_hi)
    for _ in range(NEWTON_STEPS):
        if not active.any():
            break
        ta, la, ha = t[active], lo[active], hi[active]
        phi, slope = phi_and_slope(ta, active)
        up = phi > 0
        la, ha = np.where(up, ta, la), np.where(up, ha, ta)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = ta - phi / slope
        # closed bracket: at the root a Newton step returns t itself, which is an end
        new = np.where((step >= la) & (step <= ha), step, 0.5 * (la + ha))
        t[active], lo[active], hi[active] = new, la, ha
        moving = np.abs(new - ta) > tol[active]
        active[np.flatnonzero(active)[~moving]] = False
    den = total[:, None] + t[:, None] * d[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(seen, np.log(n / den), 0.0)
        log_hat = np.where(seen, np.log(n / total[:, None]), 0.0)
    w = 2.0 * (n * (log_hat - log_p)).sum(axis=1)
    return np.maximum(w, 0.0)


def on_lattice(total: int, coef: np.ndarray, p_hat: np.ndarray) -> bool:
    """Whether cells with fewer than SMALL_COUNT expected examples carry more than SMALL_SHARE
    of the variance of a . n / N under p-hat (the test that turns the calibration on)."""
    coef = np.asarray(coef, dtype=float)
    p_hat = np.asarray(p_hat, dtype=float)
    spread = (coef - coef @ p_hat) ** 2 * p_hat
    return bool(spread.sum() > 0 and spread[total * p_hat < SMALL_COUNT].sum() > SMALL_SHARE * spread.sum())


def small_count_drop(counts: np.ndarray, coef: np.ndarray, p_hat: np.ndarray, p_lower: np.ndarray,
                     p_upper: np.ndarray, alpha: float) -> float | None:
    """The small-count threshold c for one identified objective, or None where it does not apply.

    Parameters
    ----------
    counts : ndarray of int, shape (K+1,)
        Examples with S = 0..K correct calls (one K).
    coef : ndarray, shape (K+1,)
        Bernstein coefficients a of g at degree K (E_pi[g] = a . p(pi)).
    p_hat, p_lower, p_upper : ndarray, shape (K+1,)
        Cell probabilities of the NPMLE and of the two extremal laws of the interval.
    alpha : float
        1 - confidence level.

    Returns
    -------
    float or None
        Half the largest (1 - alpha) quantile of W over the path of laws; None when cells
        with few expected examples carry at most SMALL_SHARE of the variance (the
        chi-square value stands).
    """
    counts = np.asarray(counts, dtype=np.int64)
    coef = np.asarray(coef, dtype=float)
    total = int(counts.sum())
    if not on_lattice(total, coef, p_hat):
        return None
    laws = [p_hat] + [p_hat + s * (end - p_hat) for end in (p_lower, p_upper) for s in PATH_STEPS]
    seed = np.random.SeedSequence([int(x) for x in counts])
    best = 0.0
    for p in laws:
        p = np.clip(p, 0.0, None)
        p = p / p.sum()
        # the same seed for every law: common random numbers make the supremum less noisy
        draws = np.random.default_rng(seed).multinomial(total, p, size=DRAWS)
        w = saturated_ratio(draws, coef, float(np.clip(coef @ p, coef.min(), coef.max())))
        best = max(best, float(np.quantile(w, 1.0 - alpha, method="higher")))
    return best / 2.0
