"""The answer model's family: each example's answer law, its answer-count patterns and its plurality.

The law of one example
----------------------
Given example i, each call is, independently,

* correct with probability q,
* the example's *strongest* wrong answer with probability m,
* otherwise (probability r = 1 - q - m) one of L further wrong answers of equal probability
  r / L each; L = infinity means every such call is an answer no other call gives.

A call that gives no answer counts as a wrong answer of its own (the plurality code casts no vote
for it; the model reads it as a wrong vote, which can only lower the correct answer's chances, so
it errs low where abstentions are common). The strongest wrong answer is at least as likely as each of the others,
m >= r / L, so that no two parameter points are the same law; in the share
s = m / (1 - q) of the strongest wrong answer among the wrong mass and the concentration 1 / L of
the rest this is the family of the issue: s = 1 is one dominant wrong answer (the bit majority),
s = 0 with L = infinity is every wrong answer distinct (U_k), the two ends of the valid envelope
(``proofs/plurality_bounds.py``), and s = 1 / (L + 1) is L + 1 equally likely wrong answers (the
"diffuse" laws that one dominant answer and a diffuse rest cannot describe). The laws of L = 1..8
further answers are separate points; above, L runs over ``MODEL_BINS`` up to 64 (a law of 20 equal
answers lies between 16 and 24, a mixture of the two matches its patterns closely), and beyond 64
comes the all-distinct end: of MODEL_MAX_CALLS = 10 calls with r = 0.5, two share one of 64
equal answers with probability 0.16, one of 32 with 0.29, none at infinity.

Patterns
--------
Example i's K calls reduce to their *pattern* (K, c, lambda): c correct calls and the counts
lambda_1 >= ... >= lambda_b of its b distinct wrong answers (abstentions counted as distinct
wrong answers of one call each), w = K - c = sum lambda_j. Every wrong answer is either the
strongest or one of the L equal ones, so

    P(K, c, lambda) = K! / (c! prod_j lambda_j! prod_s mult_s!) q^c
                      [ (L)_b p^w + (L)_{b-1} sum_j m^(lambda_j) p^(w - lambda_j) ],    (P)

p = r / L, (L)_b = L (L - 1) ... (L - b + 1) the ways to put b counts on distinct equal answers,
mult_s the number of wrong answers with count s (equal counts are interchangeable), the first
term with no count on the strongest answer, the second with the j-th count there. At L = infinity
(L)_b p^w -> r^w when every count is 1 (w = b) and 0 otherwise. The probabilities of each K sum
to 1 (tested; ``proofs/answer_model.py`` checks (P) against every call sequence). The patterns of
K calls number sum_{w <= K} P(w) (P(w) the partitions of w: 30 at K = 6, 139 at 10, 2714 at 20);
the patterns of fewer calls are linear images of them (drop one call uniformly at random), so
that number minus 1 is the identified dimension of the patterns of examples with up to K calls.

Plurality
---------
k fresh calls with x correct, y on the strongest wrong answer and z on the L equal ones: the
correct answer wins when x >= 1 and no other answer exceeds x, and shares a tie with the t others
at x with weight 1 / (1 + t). So

    g_k(q, m, L) = sum_{x >= 1, y <= x} k! / (x! y! z!) q^x m^y r^z T_L(x, z, [y = x]),    (G)
    T_L(x, z, e) = E[ 1 / (1 + e + tau) ; every count <= x ],                                (T)

tau the number of the L equal answers with exactly x of the z calls, which are uniform over
them. T is computed exactly by one recursion over the L answers (the j-th takes n of the s calls
left with probability Binomial(n; s, 1/j), tracking s and tau: about L k^3 / 6 steps for all x,
z <= k at once, :func:`._answer_kernels.tie_tables`); at L = infinity T = 1 / (1 + e) for x >= 2
and 1 / (1 + z + e) for x = 1 (every rest call a vote of its own). The limit k -> infinity is
g_inf = 1 / (1 + t) when q > 0 is the largest of q, m and r / L, t the answers as likely as it,
and 0 otherwise. At L = 1 and m = r = (1 - q) / 2, at m = 1 - q, and at m = 0 with L = infinity
(G) is the exact plurality of two equal wrong answers, the fair-tie bit majority V_k and U_k;
``proofs/answer_model.py`` checks (G) against every call sequence for k <= 6 at L = 1, 2, 3 and
k <= 8 at L = infinity, and the tests against a direct enumeration of the votes, an independent
recursion at 41 and 101 calls, and simulation. Cost: k = 101 takes 0.3 s on the grid of 2583
points, k = 512 (the largest budget, ``MAX_EXPANDED_DEGREE``) 4 s.
"""

from __future__ import annotations

import math

import numpy as np

from .._compiled import interrupts_held
from .._errors import InputError
from .._objective import V_INF
from ._plurality import answer_counts
from ._tolerances import MODEL_BINS, MODEL_GRID, MODEL_TIE_TOL

__all__ = [
    "answer_patterns",
    "model_grid",
    "model_plurality",
    "pattern_dimension",
    "pattern_kernel",
    "simulate_patterns",
]

#: L of the all-distinct end in the compiled kernels' arrays (``bins`` entries).
ALL_DISTINCT = 0


def _bins_array(bins, shape) -> np.ndarray:
    """L per point as floats, infinity for every rest call distinct (the default)."""
    if bins is None:
        return np.full(shape, np.inf)
    out = np.broadcast_to(np.asarray(bins, dtype=float), shape).copy()
    if np.any(~(out >= 1)) or np.any((out != np.floor(out)) & np.isfinite(out)):
        raise InputError("bins (L, the equal wrong answers of the rest) must be integers >= 1 or inf")
    return out


def _kernel_bins(bins: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(bins), bins, ALL_DISTINCT).astype(np.int64)


def answer_patterns(codes) -> tuple[np.ndarray, np.ndarray]:
    """The distinct answer-count patterns of the examples and how many examples have each.

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (:mod:`certify.aggregates._plurality`).

    Returns
    -------
    patterns : ndarray of int, shape (cells, 2 + W)
        Rows (K, c, lambda_1, ..., lambda_W), W = K_max: calls, correct calls, and the counts of
        the distinct wrong answers in decreasing order, zero-padded, each abstention a wrong answer
        of count 1 (module docstring).
    counts : ndarray of int, shape (cells,)
    """
    calls, correct, abstain, wrong = answer_counts(codes)
    width = max(int(calls.max()), 1)  # room for every call a distinct wrong answer
    rows = np.zeros((len(calls), 2 + width), dtype=np.int64)
    rows[:, 0], rows[:, 1] = calls, correct
    distinct = (wrong > 0).sum(axis=1)
    rows[:, 2 : 2 + wrong.shape[1]] = wrong
    # abstentions follow the distinct wrong answers as counts of 1 (the sort order is kept)
    col = 2 + distinct[:, None] + np.arange(width)[None, :]
    mask = np.arange(width)[None, :] < abstain[:, None]
    r, c = np.nonzero(mask)
    rows[r, col[r, c]] = 1
    patterns, counts = np.unique(rows, axis=0, return_counts=True)
    return patterns, counts


def model_grid(size: int = MODEL_GRID, bins=MODEL_BINS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The grid of the family: points (q, m, L) and each point's grid neighbours.

    (q, m) = (i, j) / size with i + j <= size, for each L of ``bins`` and for L = infinity, keeping
    m >= r / L (module docstring) and the points with r = 0 once (L does not matter there).

    Returns
    -------
    q, m, L : ndarray, shape (J,)
        L is infinity for every rest call distinct.
    neighbours : ndarray of int, shape (J, 26)
        The points one step away in i, j and the position of L in the list (-1: none).
    """
    levels = [float(b) for b in bins] + [math.inf]
    i, j, lv = np.meshgrid(np.arange(size + 1), np.arange(size + 1), np.arange(len(levels)), indexing="ij")
    lval = np.array(levels)[lv]
    rest = size - i - j
    keep = rest >= 0
    finite = np.isfinite(lval)
    keep &= ~finite | ((rest > 0) & (j * np.where(finite, lval, 1.0) >= rest))
    index = np.full(i.shape, -1, dtype=np.intp)
    index[keep] = np.arange(int(keep.sum()))
    pi, pj, pl = i[keep], j[keep], lv[keep]
    steps = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]
    neighbours = np.full((len(pi), len(steps)), -1, dtype=np.intp)
    for col, (a, b, c) in enumerate(steps):
        ni, nj, nl = pi + a, pj + b, pl + c
        inside = (ni >= 0) & (nj >= 0) & (ni <= size) & (nj <= size) & (nl >= 0) & (nl < len(levels))
        neighbours[inside, col] = index[ni[inside], nj[inside], nl[inside]]
    return pi / size, pj / size, lval[keep], neighbours


def pattern_kernel(patterns, q, m, bins=None) -> np.ndarray:
    """P(pattern | q, m, L), eq. (P), for each pattern (rows) and point (columns); L = infinity by default."""
    q, m = np.atleast_1d(np.asarray(q, dtype=float)), np.atleast_1d(np.asarray(m, dtype=float))
    q, m = np.broadcast_arrays(q, m)
    level = _kernel_bins(_bins_array(bins, q.shape))
    patterns = np.ascontiguousarray(np.atleast_2d(np.asarray(patterns, dtype=np.int64)))
    if patterns.shape[1] < 3:  # no wrong answer in any row: one empty count column
        patterns = np.concatenate([patterns, np.zeros((len(patterns), 3 - patterns.shape[1]), dtype=np.int64)], axis=1)
    with interrupts_held():
        from ._answer_kernels import pattern_table  # numba loads with the first model

        return pattern_table(
            patterns, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(m, dtype=float), level
        )


def model_plurality(votes, q, m, bins=None) -> np.ndarray:
    """g_k(q, m, L), eq. (G), the plurality accuracy of k calls (or V_INF) at each point; L = infinity by default."""
    q, m = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(m, dtype=float))
    shape = q.shape
    q, m = q.ravel(), m.ravel()
    bins = _bins_array(bins, shape).ravel()
    if votes is V_INF:
        return _at_infinity(q, m, bins).reshape(shape)
    k = int(votes)
    finite = np.unique(bins[np.isfinite(bins)]).astype(np.int64)
    level = np.full(len(q), -1, dtype=np.int64)
    with interrupts_held():
        from ._answer_kernels import plurality_sum, tie_tables  # numba loads with the first model

        if len(finite):
            t0, t1 = tie_tables(k, finite)
            level[np.isfinite(bins)] = np.searchsorted(finite, bins[np.isfinite(bins)])
        else:
            t0 = t1 = np.zeros((1, 1, 1))
        return plurality_sum(k, np.ascontiguousarray(q), np.ascontiguousarray(m), level, t0, t1).reshape(shape)


def _at_infinity(q: np.ndarray, m: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """g_inf: the correct answer wins when it is the likeliest, and shares ties fairly."""
    r = np.clip(1.0 - q - m, 0.0, 1.0)
    share = np.where(np.isfinite(bins), r / bins, 0.0)
    top = np.maximum(m, share)
    ties = (np.abs(m - q) <= MODEL_TIE_TOL).astype(float)
    ties += np.where(np.isfinite(bins) & (np.abs(share - q) <= MODEL_TIE_TOL), bins, 0.0)
    out = np.where(q > top + MODEL_TIE_TOL, 1.0, np.where(np.abs(q - top) <= MODEL_TIE_TOL, 1.0 / (1.0 + ties), 0.0))
    return np.where(q > 0, out, 0.0)


def pattern_dimension(calls: int) -> int:
    """The identified dimension of the patterns of up to ``calls`` calls: their number minus 1 (module docstring)."""
    partitions = [1] + [0] * calls
    for part in range(1, calls + 1):
        for total in range(part, calls + 1):
            partitions[total] += partitions[total - part]
    return max(sum(partitions) - 1, 1)


def simulate_patterns(rng: np.random.Generator, calls: np.ndarray, q, m, bins, width: int) -> np.ndarray:
    """Pattern rows (as :func:`answer_patterns`) of examples with ``calls`` calls, example e from (q, m, L)[e]."""
    calls = np.asarray(calls, dtype=np.int64)
    q, m, bins = (np.asarray(a, dtype=float) for a in (q, m, bins))
    n = len(calls)
    r = np.clip(1.0 - q - m, 0.0, 1.0)
    split = rng.multinomial(calls, np.column_stack([q, m, r]) / (q + m + r)[:, None])
    rows = np.zeros((n, 2 + width), dtype=np.int64)
    rows[:, 0], rows[:, 1] = calls, split[:, 0]
    wrong = np.zeros((n, width + 1), dtype=np.int64)
    wrong[:, 0] = split[:, 1]
    for level in np.unique(bins):
        at = np.flatnonzero(bins == level)
        if not np.isfinite(level):
            # every rest call an answer of its own: counts of 1
            wrong[at, 1:] = np.arange(width)[None, :] < split[at, 2][:, None]
        else:
            spread = rng.multinomial(split[at, 2], np.full(int(level), 1.0 / level))
            wrong[at, 1 : 1 + min(int(level), width)] = np.sort(spread, axis=1)[:, ::-1][:, :width]
    wrong = -np.sort(-wrong, axis=1)
    rows[:, 2:] = wrong[:, :width]
    return rows
