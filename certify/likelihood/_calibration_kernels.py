"""The small-count calibration's simulation, compiled: multinomial draws and saturated ratios.

:func:`._calibration.small_count_drop` takes the (1 - alpha) quantile of the saturated
likelihood ratio W (eq. (S1) of :mod:`._calibration`) over DRAWS multinomial draws from each of
nine laws. In numpy that was a third of a study plan's time and most of a short analysis of
many calls: each step of the ratio's Newton iteration ran over every draw until the slowest
one converged, and each draw over all K + 1 cells however few the examples (4 examples x 2000
calls: 1.8 s per threshold). Everything here is compiled (numba, ``cache=True``) and is the
only implementation of these steps:

* :func:`saturated_ratios`: W of every row of a count matrix, one safeguarded Newton iteration
  per row over the cells with examples only (with thousands of calls and a few examples most
  of the K + 1 cells of a draw are empty);
* :func:`lattice_quantile`: the draws and their ratios for a set of laws, and the largest of
  the laws' quantiles.

**The sampler.** The draws come from their own stream, xoshiro256** (Blackman and Vigna 2018)
seeded with four words of :class:`numpy.random.SeedSequence` of the counts, so a threshold is
still a deterministic function of the data, and every law restarts the stream (common random
numbers, as before). A draw is either K + 1 conditional binomials (numpy's method; a binomial by
inversion from 0 when its mean is small, else by inversion outwards from its mode, which costs
about its standard deviation) or, when the examples are few against the cells, each example's
cell by bisection of the cumulative probabilities. Both are exact samplers of the multinomial
law (up to the rounding of the probabilities), and each binomial takes one uniform, so the laws'
streams stay aligned draw by draw. Each law's quantile has the old distribution; their maximum,
the threshold, moves within its Monte Carlo error, and its mean over streams by the change of
coupling between the laws (BINOMIAL_INVERSION_MEAN in :mod:`._tolerances`).

Everything here takes and returns arrays, floats and ints only. Tolerances come in as
arguments, from :mod:`._tolerances` at the call sites, so a compiled function cached on disk
never keeps an old constant.

**The cache.** numba writes the compiled machine code next to this module (``__pycache__``) and,
where that directory is not writable (a read-only install), to a user-wide directory (numba's
rules: ``NUMBA_CACHE_DIR`` when set, else the first writable of the source's ``__pycache__``
and ``~/.cache/numba`` or its platform equivalent). A missing or stale cache costs one
compilation at the first call in a process (about 3 CPU seconds for these kernels), never a
wrong result. Where none of them can be written (numba's "no locator available"), the kernels
are compiled without a disk cache (:func:`certify._jit.compiled`): every process then pays that first
compilation; ``NUMBA_CACHE_DIR`` naming a writable folder avoids it (docs/reference/limits.md).
This module is imported by the functions that simulate, not with the package, so that the
commands that never simulate (``certify --version``, ``bounds``, ``verify``) never load numba.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import compiled

__all__ = ["lattice_quantile", "saturated_ratios"]


# constants of xoshiro256** and of the conversion to doubles, as unsigned 64-bit integers: a
# signed literal would turn the arithmetic into floating point
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_SEVEN = np.uint64(7)
_FIFTY_SEVEN = np.uint64(57)
_SEVENTEEN = np.uint64(17)
_FORTY_FIVE = np.uint64(45)
_NINETEEN = np.uint64(19)
_ELEVEN = np.uint64(11)
#: 2^-53: the top 53 bits of a word as a double in [0, 1)
_TO_UNIT = 1.0 / 9007199254740992.0


# -- the stream ------------------------------------------------------------------------------


@compiled
def _uniform(state: np.ndarray) -> float:
    """The next double of xoshiro256** in [0, 1), advancing the four words of ``state``."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    x = s1 * _FIVE
    out = ((x << _SEVEN) | (x >> _FIFTY_SEVEN)) * _NINE
    t = s1 << _SEVENTEEN
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _FORTY_FIVE) | (s3 >> _NINETEEN)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return float(out >> _ELEVEN) * _TO_UNIT


@compiled
def _binomial(
    state: np.ndarray, n: int, pp: float, log_p: float, log_q: float, logfact: np.ndarray, switch: float
) -> int:
    """One draw of Binomial(n, pp), pp <= 1/2, by inversion.

    ``log_p``, ``log_q``: log pp and log(1 - pp); ``logfact``: log m! for m = 0..n at least.
    Below a mean of ``switch`` the search starts at 0 and costs about the mean; above it, it
    starts at the mode and alternates outwards, costing about the standard deviation. P(mode)
    comes from logarithms, accurate to about eps n log n relatively, far below the Monte Carlo
    error of anything drawn here.
    """
    if n <= 0 or pp <= 0.0:
        return 0
    ratio = pp / (1.0 - pp)
    u = _uniform(state)
    if n * pp < switch:
        x = 0
        f = math.exp(n * log_q)
        while True:
            u -= f
            if u <= 0.0 or x == n:
                return x
            f *= (n - x) / (x + 1.0) * ratio
            x += 1
    mode = min(int((n + 1) * pp), n)
    f = math.exp(logfact[n] - logfact[mode] - logfact[n - mode] + mode * log_p + (n - mode) * log_q)
    u -= f
    lo, hi, flo, fhi = mode, mode, f, f
    # u left over once both ends are reached is rounding of the total mass: the mode then
    while u > 0.0 and (lo > 0 or hi < n):
        if hi < n:
            fhi *= (n - hi) / (hi + 1.0) * ratio
            hi += 1
            u -= fhi
            if u <= 0.0:
                return hi
        if lo > 0:
            flo *= lo / ((n - lo + 1.0) * ratio)
            lo -= 1
            u -= flo
            if u <= 0.0:
                return lo
    return mode


@compiled
def _chain(p: np.ndarray, shares: np.ndarray, logs: np.ndarray) -> None:
    """The conditional binomials of a multinomial with cell probabilities ``p``, into the work arrays.

    Cell c (but the last) is Binomial(rest, p_c / (p_c + ... + p_last)) given the examples left;
    ``shares[c]`` holds the smaller of that probability and its complement, negated when it
    is the complement (the draw is then rest minus a draw of it), and ``logs[c]`` its
    logarithm and that of one minus it.
    """
    mass = 1.0
    for c in range(p.shape[0] - 1):
        share = min(max(p[c] / mass, 0.0), 1.0) if mass > 0.0 else 1.0
        flip = share > 0.5
        pp = 1.0 - share if flip else share
        shares[c] = -pp if flip else pp
        logs[c, 0] = math.log(pp) if pp > 0.0 else -math.inf
        logs[c, 1] = math.log1p(-pp)
        mass -= p[c]


@compiled
def _multinomial(
    state: np.ndarray,
    total: int,
    shares: np.ndarray,
    logs: np.ndarray,
    logfact: np.ndarray,
    switch: float,
    out: np.ndarray,
) -> None:
    """Counts of ``total`` examples over the cells by conditional binomials (:func:`_chain`), into ``out``."""
    rest = total
    cells = out.shape[0]
    for c in range(cells - 1):
        if rest == 0:
            out[c] = 0
            continue
        pp = shares[c]
        x = _binomial(state, rest, abs(pp), logs[c, 0], logs[c, 1], logfact, switch)
        if pp < 0.0:
            x = rest - x
        out[c] = x
        rest -= x
    out[cells - 1] = rest


@compiled
def _categorical(
    state: np.ndarray, total: int, cdf: np.ndarray, tally: np.ndarray, cell: np.ndarray, cnt: np.ndarray
) -> int:
    """Draw each of ``total`` examples' cell: the first whose cumulative probability exceeds a
    uniform (``cdf`` is 1 from the last cell with mass on). The cells with examples, in the order
    they were first drawn, go to ``cell`` and their counts to ``cnt``; returns how many.

    ``tally`` (one entry per cell) must be all zero, and is left so: nothing here costs a pass
    over the cells, only the bisection's log of their number per example.
    """
    top = cdf.shape[0] - 1
    k = 0
    for _ in range(total):
        u = _uniform(state)
        lo, hi = 0, top  # the cell is in [lo, hi]: cdf[hi] > u
        while lo < hi:
            mid = (lo + hi) // 2
            if cdf[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        if tally[lo] == 0:
            cell[k] = lo
            k += 1
        tally[lo] += 1
    for j in range(k):
        cnt[j] = tally[cell[j]]
        tally[cell[j]] = 0
    return k


@compiled
def _sparse(n: np.ndarray, cell: np.ndarray, cnt: np.ndarray) -> int:
    """The cells with examples of the count vector ``n``, ascending, into ``cell`` and ``cnt``; returns how many."""
    k = 0
    for c in range(n.shape[0]):
        if n[c] > 0:
            cell[k] = c
            cnt[k] = n[c]
            k += 1
    return k


# -- the saturated ratio (eq. (S1)) ----------------------------------------------------------


@compiled
def _ratio(
    cell: np.ndarray,
    cnt: np.ndarray,
    k: int,
    d: np.ndarray,
    dmax: float,
    dmin: float,
    step_tol: float,
    newton_steps: int,
    floor: float,
) -> float:
    """W of the counts ``cnt[:k]`` in the cells ``cell[:k]`` (each once; the others are empty)
    for a . p = v, ``d`` = a - v (snapped), ``dmax`` and ``dmin`` its extremes over all cells.

    The arithmetic of eq. (S1): the root t of phi(t) = sum_S n_S d_S / (N + t d_S) on the
    domain where every N + t d_S >= 0, by Newton's method from t = 0 safeguarded by bisection.
    Only the cells with examples enter phi and W (an empty cell's term is 0), summed in the
    order given (ascending from :func:`_sparse`; the order changes W by rounding only); the
    empty ones only bound the domain, through dmax and dmin.
    """
    total = 0.0
    reach = False  # an example in a cell with d != 0
    lo_seen_d, hi_seen_d = 0.0, 0.0  # largest d > 0 and smallest d < 0 among the cells with examples
    for j in range(k):
        dc = d[cell[j]]
        total += cnt[j]
        if dc != 0.0:
            reach = True
            lo_seen_d = max(lo_seen_d, dc)
            hi_seen_d = min(hi_seen_d, dc)
    if not (dmax > 0.0 and dmin < 0.0):
        # v at (or beyond) an extreme of a: only the cells with a_S = v may hold mass
        return math.inf if reach else 0.0
    lo, hi = -total / dmax, -total / dmin
    lo_seen = -total / lo_seen_d if lo_seen_d > 0.0 else -math.inf
    hi_seen = -total / hi_seen_d if hi_seen_d < 0.0 else math.inf
    t = 0.0
    active = True
    # phi(t) decreases from lo to hi; at an end where only empty cells reach N + t d = 0 phi
    # is finite, and the root may be that end (an empty cell takes the remaining mass)
    if lo > lo_seen and _phi(cell, cnt, k, d, total, lo, floor)[0] <= 0.0:
        t, active = lo, False
    elif hi < hi_seen and _phi(cell, cnt, k, d, total, hi, floor)[0] >= 0.0:
        t, active = hi, False
    tol = step_tol * (hi - lo)
    for _ in range(newton_steps):
        if not active:
            break
        phi, slope = _phi(cell, cnt, k, d, total, t, floor)
        if phi > 0.0:
            lo = t
        else:
            hi = t
        step = t - phi / slope if slope != 0.0 else math.nan
        # closed bracket: at the root a Newton step returns t itself, which is an end
        new = step if lo <= step <= hi else 0.5 * (lo + hi)
        active = abs(new - t) > tol
        t = new
    w = 0.0
    for j in range(k):
        w += cnt[j] * np.log((total + d[cell[j]] * t) / total)  # log(p-hat_S / p_S)
    w *= 2.0
    return 0.0 if w < 0.0 else w


@compiled
def _phi(
    cell: np.ndarray, cnt: np.ndarray, k: int, d: np.ndarray, total: float, t: float, floor: float
) -> tuple[float, float]:
    """phi(t) = sum_S n_S d_S / (N + t d_S) and phi'(t) over the cells with examples.

    A cell with examples at its barrier gets a huge term of the right sign instead of an
    infinite one (the floor); sums that overflow are infinite, which the caller's bracket takes.
    """
    phi = 0.0
    slope = 0.0
    for j in range(k):
        dc = d[cell[j]]
        inv = 1.0 / max(dc * t + total, floor)
        r = cnt[j] * dc * inv
        phi += r
        slope += r * dc * inv
    return phi, -slope


@compiled
def _extremes(d: np.ndarray) -> tuple[float, float]:
    """max d and min d, by a loop: numpy's reductions (and slice assignments) are generic code
    whose compilation took seconds here."""
    dmax, dmin = d[0], d[0]
    for c in range(1, d.shape[0]):
        dmax = max(dmax, d[c])
        dmin = min(dmin, d[c])
    return dmax, dmin


@compiled
def saturated_ratios(counts: np.ndarray, d: np.ndarray, step_tol: float, newton_steps: int, floor: float) -> np.ndarray:
    """W >= 0 of every row of ``counts`` (M x C, int) for ``d`` = a - v (snapped to 0 near 0)."""
    rows, cells = counts.shape
    dmax, dmin = _extremes(d)
    cell = np.empty(cells, dtype=np.int64)
    cnt = np.empty(cells, dtype=np.int64)
    out = np.empty(rows)
    for i in range(rows):
        k = _sparse(counts[i], cell, cnt)
        out[i] = _ratio(cell, cnt, k, d, dmax, dmin, step_tol, newton_steps, floor)
    return out


# -- the simulated quantile --------------------------------------------------------------------


@compiled
def _select(w: np.ndarray, index: int) -> float:
    """The ``index``-th smallest of ``w`` (0-based), reordering ``w`` in place (quickselect).

    Written out rather than ``np.partition``, whose compilation alone took 5 s.
    """
    lo, hi = 0, w.shape[0] - 1
    while lo < hi:
        # median of three as the pivot, then Hoare's partition of w[lo..hi]
        mid = (lo + hi) // 2
        a, b, c = w[lo], w[mid], w[hi]
        pivot = max(min(a, b), min(max(a, b), c))
        i, j = lo, hi
        while i <= j:
            while w[i] < pivot:
                i += 1
            while w[j] > pivot:
                j -= 1
            if i <= j:
                w[i], w[j] = w[j], w[i]
                i += 1
                j -= 1
        if index <= j:
            hi = j
        elif index >= i:
            lo = i
        else:
            break
    return w[index]


@compiled
def lattice_quantile(
    laws: np.ndarray,
    diffs: np.ndarray,
    total: int,
    seed: np.ndarray,
    draws: int,
    index: int,
    categorical: bool,
    switch: float,
    step_tol: float,
    newton_steps: int,
    floor: float,
) -> float:
    """The largest over the laws (rows of ``laws``) of the ``index``-th smallest of W over ``draws`` draws.

    Parameters
    ----------
    laws : ndarray, shape (L, C)
        Cell probabilities, each row summing to 1.
    diffs : ndarray, shape (L, C)
        a - v of each law's own value v = a . p (snapped to 0 near 0).
    total : int
        Examples per draw.
    seed : ndarray of uint64, shape (4,)
        The stream's state at the start of every law.
    draws, index : int
        Draws per law, and the order statistic taken (0-based: numpy's ``method="higher"``
        quantile is index ceil((draws - 1) (1 - alpha))).
    categorical : bool
        Draw each example's cell (few examples, many cells) instead of conditional binomials.
    switch, step_tol, newton_steps, floor :
        :func:`_binomial`'s switch between its two searches and :func:`_ratio_of_row`'s tolerances.

    Returns
    -------
    float
        The largest quantile, +inf when more draws than alpha of some law cannot reach its value.
    """
    cells = laws.shape[1]
    state = np.empty(4, dtype=np.uint64)
    counts = np.empty(cells, dtype=np.int64)
    cell = np.empty(cells, dtype=np.int64)
    cnt = np.empty(cells, dtype=np.int64)
    tally = np.zeros(cells, dtype=np.int64)
    cdf = np.empty(cells)
    shares = np.empty(cells)
    logs = np.empty((cells, 2))
    logfact = np.empty(total + 1)
    for m in range(total + 1):
        logfact[m] = math.lgamma(m + 1.0)
    w = np.empty(draws)
    best = 0.0
    for law in range(laws.shape[0]):
        p, d = laws[law], diffs[law]
        dmax, dmin = _extremes(d)
        for i in range(4):
            state[i] = seed[i]  # the same stream for every law: common random numbers steady the maximum
        if categorical:
            # the cumulative probabilities end at exactly 1 from the last cell with mass on, so
            # that rounding of the sum never sends a uniform to a cell without any
            acc, last = 0.0, 0
            for c in range(cells):
                acc += p[c]
                cdf[c] = acc
                if p[c] > 0.0:
                    last = c
            for c in range(last, cells):
                cdf[c] = 1.0
        else:
            _chain(p, shares, logs)
        for r in range(draws):
            if categorical:
                k = _categorical(state, total, cdf, tally, cell, cnt)
            else:
                _multinomial(state, total, shares, logs, logfact, switch, counts)
                k = _sparse(counts, cell, cnt)
            w[r] = _ratio(cell, cnt, k, d, dmax, dmin, step_tol, newton_steps, floor)
        quantile = _select(w, index)
        if quantile > best:
            best = quantile
    return best
