"""The answer model's compiled steps: pattern probabilities, tie tables and plurality sums.

The model and every formula are in :mod:`._answer_family`; this module holds the loops over
patterns, grid points and vote counts that numpy would run as millions of small array
operations, compiled (numba, ``cache=True``) and the only implementation of these steps:

* :func:`pattern_table`: P(pattern | q, m, L) for every pattern and grid point;
* :func:`tie_tables`: for z calls spread uniformly over L equal answers, the expected tie
  weight of a correct answer with x votes (eq. (T) of :mod:`._answer_family`), for every
  x + z <= k and every L of a list, by one pass over the answers;
* :func:`plurality_sum`: g_k at every grid point from those tables.

Everything here takes and returns arrays, floats and ints only; L = 0 stands for "every call
an answer of its own" (L = infinity). This module is imported by the functions that compute,
not with the package, so that the commands that never model answers (``certify --version``,
``bounds``, ``verify``) never load numba; its cache is numba's (see
:mod:`certify.likelihood._calibration_kernels`).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import compiled

__all__ = ["log_factorials", "pattern_table", "plurality_sum", "tie_tables"]


@compiled
def log_factorials(top: int) -> np.ndarray:
    """log n! for n = 0..top."""
    out = np.zeros(top + 1)
    for n in range(2, top + 1):
        out[n] = out[n - 1] + math.log(n)
    return out


@compiled
def _power(base: float, exponent: int) -> float:
    """base ** exponent with 0 ** 0 = 1 (a probability raised to a count)."""
    if exponent == 0:
        return 1.0
    return base**exponent


@compiled
def pattern_table(patterns: np.ndarray, q: np.ndarray, m: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """P(pattern | q, m, L) (eq. (P) of :mod:`._answer_family`), patterns x points.

    ``patterns`` rows are (K, c, lambda_1, ..., lambda_W), the wrong answers' counts in decreasing
    order and zero-padded; ``bins`` holds L per point (0: infinity).
    """
    cells, width = patterns.shape
    points = q.shape[0]
    top = 0
    for row in range(cells):
        top = max(top, patterns[row, 0])
    logfact = log_factorials(top)
    out = np.zeros((cells, points))
    for row in range(cells):
        calls, c = patterns[row, 0], patterns[row, 1]
        blocks = 0
        log_a = logfact[calls] - logfact[c]
        run = 0
        for col in range(2, width):
            size = patterns[row, col]
            if size == 0:
                break
            blocks += 1
            log_a -= logfact[size]
            # equal counts are interchangeable: divide by the factorial of each multiplicity
            run = run + 1 if col > 2 and patterns[row, col - 1] == size else 1
            log_a -= math.log(run)
        wrong = calls - c
        coef = math.exp(log_a)
        for j in range(points):
            qj, mj, lj = q[j], m[j], bins[j]
            r = max(1.0 - qj - mj, 0.0)
            share = r / lj if lj > 0 else 0.0
            # (L)_b p^w = prod_{i<b} (L - i) / L * r^b * p^(w - b): every factor at most 1
            fall = 1.0
            for i in range(blocks):
                fall *= (lj - i) / lj if lj > 0 else 1.0
            total = 0.0
            if lj == 0 or blocks <= lj:
                if fall > 0:
                    total = fall * _power(r, blocks) * _power(share, wrong - blocks)
            # one block on the dominant answer, the other b - 1 on distinct equal answers
            if blocks > 0 and (lj == 0 or blocks - 1 <= lj):
                fall1 = 1.0
                for i in range(blocks - 1):
                    fall1 *= (lj - i) / lj if lj > 0 else 1.0
                rest = 0.0
                for col in range(2, 2 + blocks):
                    size = patterns[row, col]
                    rest += _power(mj, size) * _power(share, wrong - size - (blocks - 1))
                total += fall1 * _power(r, blocks - 1) * rest
            out[row, j] = coef * _power(qj, c) * total
    return out


@compiled
def tie_tables(votes: int, bins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """T_e[l, x, z] = E[1 / (1 + e + tau); every count <= x] for z calls uniform over L = bins[l].

    tau is the number of the L answers with exactly x of the z calls; e = 0 and 1 (the two
    tables). One pass adds the answers one at a time: after j answers, F_x[s, tau] is the
    probability that s calls uniform over j answers leave every count <= x with tau at x, and
    answer j + 1 takes n of s calls with probability Binomial(n; s, 1 / (j + 1)). ``bins`` must
    be increasing and positive.
    """
    k = votes
    nb = bins.shape[0]
    top = bins[nb - 1]
    logfact = log_factorials(k)
    t0 = np.zeros((nb, k + 1, k + 1))
    t1 = np.zeros((nb, k + 1, k + 1))
    # F_x for every x >= 1, flattened: x's block holds (k - x + 1) x (taus) entries
    taus = np.zeros(k + 1, dtype=np.int64)
    start = np.zeros(k + 2, dtype=np.int64)
    for x in range(1, k + 1):
        taus[x] = (k - x) // x + 1
        start[x + 1] = start[x] + (k - x + 1) * taus[x]
    f = np.zeros(start[k + 1])
    g = np.zeros(start[k + 1])
    for x in range(1, k + 1):
        f[start[x]] = 1.0  # no answers yet: no calls, tau = 0
    pmf = np.zeros((k + 1, k + 1))
    level = 0
    for j in range(top):
        # Binomial(n; s, a) with a = 1 / (j + 1), the new answer's share of the j + 1
        a = 1.0 / (j + 1)
        for s in range(k + 1):
            for n in range(s + 1):
                if j == 0:
                    pmf[s, n] = 1.0 if n == s else 0.0
                else:
                    pmf[s, n] = math.exp(
                        logfact[s] - logfact[n] - logfact[s - n] + n * math.log(a) + (s - n) * math.log1p(-a)
                    )
        for x in range(1, k + 1):
            nt = taus[x]
            base = start[x]
            for s in range(k - x + 1):
                # s calls leave at most s // x answers at x: the other entries stay 0
                for t in range(min(nt, s // x + 1)):
                    acc = 0.0
                    for n in range(min(x, s) + 1):
                        if n == x:
                            if t >= 1:
                                acc += pmf[s, n] * f[base + (s - n) * nt + t - 1]
                        else:
                            acc += pmf[s, n] * f[base + (s - n) * nt + t]
                    g[base + s * nt + t] = acc
        f, g = g, f
        if j + 1 == bins[level]:
            for x in range(1, k + 1):
                nt = taus[x]
                base = start[x]
                for z in range(k - x + 1):
                    e0 = 0.0
                    e1 = 0.0
                    for t in range(nt):
                        v = f[base + z * nt + t]
                        e0 += v / (1.0 + t)
                        e1 += v / (2.0 + t)
                    t0[level, x, z] = e0
                    t1[level, x, z] = e1
            level += 1
    return t0, t1


@compiled
def plurality_sum(
    votes: int, q: np.ndarray, m: np.ndarray, level: np.ndarray, t0: np.ndarray, t1: np.ndarray
) -> np.ndarray:
    """g_k at each point (eq. (G) of :mod:`._answer_family`); ``level`` indexes the tables, -1: L infinite."""
    k = votes
    logfact = log_factorials(k)
    out = np.zeros(q.shape[0])
    for j in range(q.shape[0]):
        qj, mj = q[j], m[j]
        r = max(1.0 - qj - mj, 0.0)
        if qj <= 0.0:
            continue
        lq = math.log(qj)
        lm = math.log(mj) if mj > 0 else -np.inf
        lr = math.log(r) if r > 0 else -np.inf
        lv = level[j]
        total = 0.0
        for x in range(1, k + 1):
            for y in range(min(x, k - x) + 1):
                z = k - x - y
                if (y > 0 and mj <= 0.0) or (z > 0 and r <= 0.0):
                    continue
                log_w = logfact[k] - logfact[x] - logfact[y] - logfact[z] + x * lq
                if y > 0:
                    log_w += y * lm
                if z > 0:
                    log_w += z * lr
                if log_w < -745.0:  # below the smallest double: the term is 0
                    continue
                if lv < 0:
                    # every rest call an answer of its own: with x >= 2 none reaches x; with
                    # x = 1 all z tie with the correct one
                    if x >= 2:
                        tie = 0.5 if y == x else 1.0
                    else:
                        tie = 1.0 / (1.0 + z + (1 if y == 1 else 0))
                else:
                    tie = t1[lv, x, z] if y == x else t0[lv, x, z]
                total += math.exp(log_w) * tie
        out[j] = total
    return out
