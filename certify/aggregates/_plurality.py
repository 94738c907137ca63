"""Plurality voting and pass@k from recorded answers: exact U-statistics over k-subsets of calls.

Answer codes
------------
Example i's recorded calls are a row of ``codes`` (shape (n, K_max), integers):
0 is the correct answer, 1, 2, ... are distinct wrong answers (numbered per example;
equal codes in one row are the same answer), -1 is a call that gave no answer (it
casts no vote and counts as incorrect) and -2 pads a row past the example's K_i calls
(only at the end of a row). Given the example, its calls are i.i.d. draws from an
answer distribution with correct-answer probability q_i, and q_i ~ pi.

Plurality
---------
k calls vote; the answer with the most votes wins, ties broken uniformly at random, so
the correct answer scores f = 1/t when its count is at least 1 and equals the largest
count, t being the number of answers at that count, and 0 otherwise. The U-statistic
of f over all C(K_i, k) k-subsets of example i's calls,

    h_i(k) = C(K_i, k)^-1 sum_{|J| = k} f(calls J),

has expectation, given the answer distribution, the plurality accuracy of k fresh calls
on that example; the mean over examples is unbiased for the population's plurality
accuracy (the analogue for answers of the hypergeometric majority U-statistic of
:func:`certify.stats.per_example_vote_accuracy`; at k = 1 both are the correct share
c_i / K_i). With c correct calls, wrong classes of sizes w_1, w_2, ... and a
abstentions, a k-subset with x correct calls, y_j from class j and z abstentions occurs
in C(c, x) prod_j C(w_j, y_j) C(a, z) ways (multivariate hypergeometric). Writing the
tie weight as 1/(1 + tau) = int_0^1 u^tau du, where tau is the number of wrong answers
tied with the correct one, the count of subsets weighted by f factorises over classes
for each x:

    sum_J f = sum_{x >= 1} C(c, x) [t^(k-x)] (1+t)^a prod_j g_{x,j}(t, u) |_{u^tau -> 1/(1+tau)},
    g_{x,j}(t, u) = sum_{y < x} C(w_j, y) t^y + u C(w_j, x) t^x

(a class may not outvote the correct answer). A class with w_j < x has g = (1+t)^(w_j)
and joins the abstentions' factor, so only the at most (K - c)/x classes of size >= x
are multiplied in one by one, tracking tau as a second polynomial variable; every
coefficient is an integer count, exact in floating point while counts stay below 2^53
(K_i <= 56) and correctly rounded binomials beyond. All k come out of one pass. Examples sharing the count
signature (c, a, sorted class sizes) share h_i, so the work is per distinct signature
and vectorised across signatures.

pass@k
------
At least one of k calls correct (a perfect verifier). The unbiased estimator per
example is 1 - C(K_i - c_i, k)/C(K_i, k), computed as the running product
prod_{r<k} (K_i - c_i - r)/(K_i - r) of factors in [0, 1] (no overflow at any K_i);
its expectation given q_i is 1 - (1 - q_i)^k. At k = 1 plurality, pass@1 and the
bit majority all equal the mean bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .._errors import InputError

__all__ = [
    "CORRECT",
    "ABSTAIN",
    "MISSING",
    "MAX_PLURALITY_CALLS",
    "answer_counts",
    "budget_tuple",
    "miss_probabilities",
    "per_example_plurality",
    "per_example_pass_at_k",
]

#: Answer code of the correct answer.
CORRECT = 0
#: Answer code of a call that produced no answer (no vote; incorrect).
ABSTAIN = -1
#: Padding past an example's recorded calls (ragged data).
MISSING = -2
#: Most calls per example for the plurality U-statistic: subset counts reach
#: C(K, K/2) < 2^K, and float64 overflows past 2^1024.
MAX_PLURALITY_CALLS = 1000
#: Cells of one (signatures, degree, tau) work block: 128K doubles (1 MB), which stays in
#: cache; measured fastest of 2^14..2^24 at 10,000 x 40 (larger blocks were up to 3x slower).
_POLY_BLOCK = 1 << 17
#: Cells (rows x budgets) of one running-product block of pass@k: 4M doubles, 32 MB.
_PASS_BLOCK = 1 << 22


def _codes_array(codes) -> np.ndarray:
    """Validated (n, K_max) integer array of answer codes."""
    arr = np.asarray(codes)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise InputError(
            f"answer codes of shape {arr.shape} must be a 2-D array with at least one example and one call"
        )
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise InputError(
            f"answer codes of dtype {arr.dtype} must be integers (0 correct, 1, 2, ... wrong, -1 no answer, -2 no call)"
        )
    low = arr.min()
    if low < MISSING:
        row = int(np.argwhere(arr < MISSING)[0, 0])
        raise InputError(
            f"answer code {int(low)} (example {row}) must be at least {MISSING}: 0 correct, 1, 2, ... wrong, "
            f"-1 no answer, -2 no call"
        )
    missing = arr == MISSING
    gap = missing[:, :-1] & ~missing[:, 1:]
    if gap.any():
        row = int(np.argwhere(gap)[0, 0])
        raise InputError(f"example {row} has a call after a -2 (no call); -2 may only pad the end of a row")
    if missing[:, 0].any():
        row = int(np.argwhere(missing[:, 0])[0, 0])
        raise InputError(f"example {row} has no calls (its row is all -2); every example needs at least one call")
    return arr


def answer_counts(codes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-example counts of the answer codes.

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (module docstring).

    Returns
    -------
    calls, correct, abstain : ndarray of int, shape (n,)
        K_i, c_i (code 0) and a_i (code -1).
    wrong : ndarray of int, shape (n, M)
        Sizes of each example's wrong-answer classes in decreasing order, zero-padded
        (M is the largest number of distinct wrong answers of an example, possibly 0).
    """
    arr = _codes_array(codes)
    n, width = arr.shape
    calls = (arr != MISSING).sum(axis=1)
    correct = (arr == CORRECT).sum(axis=1)
    abstain = (arr == ABSTAIN).sum(axis=1)
    s = np.sort(arr, axis=1)  # wrong answers (the largest codes) end each row, equal codes adjacent
    start = s > CORRECT
    start[:, 1:] &= s[:, 1:] != s[:, :-1]
    rows, cols = np.nonzero(start)  # row-major: each row's runs in order
    ends = np.empty_like(cols)
    ends[:-1] = np.where(rows[1:] == rows[:-1], cols[1:], width)
    ends[-1:] = width  # a row's last run of wrong answers reaches the row's end
    slot = np.cumsum(start, axis=1)[rows, cols] - 1
    wrong = np.zeros((n, int(slot.max()) + 1 if len(slot) else 0), dtype=np.int64)
    wrong[rows, slot] = ends - cols
    wrong = -np.sort(-wrong, axis=1)
    return calls, correct, abstain, wrong


def budget_tuple(votes) -> tuple[int, ...]:
    """Requested budgets k as a tuple of distinct ints >= 1, in the order given (one int is one budget)."""
    if isinstance(votes, (int, np.integer)) and not isinstance(votes, bool):
        votes = (votes,)
    if isinstance(votes, (str, bytes)) or not isinstance(votes, (Sequence, np.ndarray, range)) or len(votes) == 0:
        raise InputError(f"votes={votes!r} must be a positive integer or a non-empty sequence of them")
    for k in votes:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InputError(f"votes={k!r} must be a positive integer number of calls")
    return tuple(dict.fromkeys(int(k) for k in votes))


def _check_budgets(votes, calls: np.ndarray, what: str) -> tuple[int, ...]:
    ks = budget_tuple(votes)
    if max(ks) > calls.max():
        raise InputError(
            f"votes={max(ks)} exceeds every example's calls (at most {int(calls.max())}); {what} of "
            f"{max(ks)} calls needs at least {max(ks)} recorded calls"
        )
    return ks


def _binomials(most: int, top: int) -> np.ndarray:
    """C(n, j) for n <= most, j <= top, each correctly rounded to a double (exact below 2^53)."""
    return np.array([[float(math.comb(n, j)) for j in range(top + 1)] for n in range(most + 1)])


def _subset_counts(correct, abstain, wrong, top: int, comb: np.ndarray) -> np.ndarray:
    """sum over k-subsets of f, for every signature and k = 0..top (module docstring).

    ``correct``, ``abstain`` (S,) and ``wrong`` (S, M) describe distinct signatures;
    ``comb`` is :func:`_binomials` up to their calls. Returns (S, top + 1) floats: integer
    counts weighted by the tie fractions.
    """
    total = np.zeros((len(correct), top + 1))
    for x in range(1, min(top, int(correct.max(initial=0))) + 1):
        rows = np.nonzero(correct >= x)[0]
        depth = top - x  # degree in t of the wrong-and-abstain part
        big = (wrong[rows] >= x).sum(axis=1)
        rows = rows[np.argsort(-big, kind="stable")]  # most big classes first: slot j updates a prefix
        big = -np.sort(-big)
        block = max(1, _POLY_BLOCK // ((depth + 1) * (min(int(big[0]), depth // x) + 1)))
        for lo in range(0, len(rows), block):
            r, b = rows[lo : lo + block], big[lo : lo + block]
            w = wrong[r, : int(b[0])]  # big classes first (sizes decrease along a row)
            # classes below x never reach the correct count: (1+t)^size, with the abstentions
            free = abstain[r] + np.where(wrong[r] < x, wrong[r], 0).sum(axis=1)
            ties = min(w.shape[1], depth // x)  # tau <= number of big classes and tau x <= depth
            poly = np.zeros((len(r), depth + 1, ties + 1))
            poly[:, :, 0] = comb[correct[r], x][:, None] * comb[free, : depth + 1]
            for j in range(w.shape[1]):
                m = int(np.count_nonzero(b > j))  # rows with a j-th big class (a prefix)
                if m == 0:
                    break
                cur, size = poly[:m], w[:m, j]
                new = np.zeros_like(cur)
                for y in range(min(x, depth + 1)):
                    new[:, y:, :] += comb[size, y][:, None, None] * cur[:, : depth + 1 - y, :]
                if x <= depth and ties:  # y = x: one more wrong answer tied with the correct one
                    new[:, x:, 1:] += comb[size, x][:, None, None] * cur[:, : depth + 1 - x, :-1]
                poly[:m] = new
            weighted = poly @ (1.0 / np.arange(1, ties + 2))  # u^tau -> 1/(1 + tau)
            total[r, x:] += weighted
    return total


def per_example_plurality(codes, votes) -> dict[int, np.ndarray]:
    """h_i(k): the plurality U-statistic of every example, for each requested k.

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (module docstring); K_i <= :data:`MAX_PLURALITY_CALLS`.
    votes : int or sequence of int
        Budgets k >= 1 (any parity: ties are broken fairly), each at most max_i K_i.

    Returns
    -------
    dict of int to ndarray, shape (n,)
        For each k, the average of the plurality score f over all k-subsets of the
        example's calls; NaN for an example with fewer than k calls.
    """
    calls, correct, abstain, wrong = answer_counts(codes)
    ks = _check_budgets(votes, calls, "a plurality vote")
    if calls.max() > MAX_PLURALITY_CALLS:
        raise InputError(
            f"an example has {int(calls.max())} calls, more than {MAX_PLURALITY_CALLS} "
            f"(subset counts would overflow double precision)"
        )
    signature = np.column_stack([correct, abstain, wrong])
    distinct, index = np.unique(signature, axis=0, return_inverse=True)
    index = index.reshape(-1)
    comb = _binomials(int(calls.max()), max(ks))
    counts = _subset_counts(distinct[:, 0], distinct[:, 1], distinct[:, 2:], max(ks), comb)
    sig_calls = distinct[:, 0] + distinct[:, 1] + distinct[:, 2:].sum(axis=1)
    out = {}
    for k in ks:
        with np.errstate(invalid="ignore", divide="ignore"):  # C(K_i, k) = 0 where k > K_i
            value = np.where(sig_calls >= k, counts[:, k] / comb[sig_calls, k], np.nan)
        out[k] = value[index]
    return out


def per_example_pass_at_k(codes, votes) -> dict[int, np.ndarray]:
    """Unbiased pass@k of every example: 1 - C(K_i - c_i, k) / C(K_i, k).

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes; any K_i (no overflow: a running product of factors in [0, 1]).
    votes : int or sequence of int
        Budgets k >= 1, each at most max_i K_i.

    Returns
    -------
    dict of int to ndarray, shape (n,)
        For each k, the probability that a random k-subset of the example's calls holds
        a correct one; NaN for an example with fewer than k calls.
    """
    calls, correct, _, _ = answer_counts(codes)
    ks = _check_budgets(votes, calls, "pass@k")
    pairs, index = np.unique(np.column_stack([calls, correct]), axis=0, return_inverse=True)
    miss = miss_probabilities(pairs[:, 0], pairs[:, 1], ks)
    return {k: 1.0 - miss[index.reshape(-1), i] for i, k in enumerate(ks)}


def miss_probabilities(calls, correct, ks) -> np.ndarray:
    """C(K - c, k) / C(K, k) for each pair (K, c) and each k: a random k-subset of K calls misses all c correct ones.

    A running product of factors in [0, 1] (no overflow at any K), in blocks of rows so that
    memory stays bounded; NaN where k > K. Returns shape (len(calls), len(ks)).
    """
    calls = np.asarray(calls, dtype=np.int64).reshape(-1, 1)
    correct = np.asarray(correct, dtype=np.int64).reshape(-1, 1)
    top = max(ks)
    miss = np.empty((len(calls), len(ks)))
    block = max(1, _PASS_BLOCK // top)
    r = np.arange(top)
    for lo in range(0, len(calls), block):
        big_k, c = calls[lo : lo + block], correct[lo : lo + block]
        with np.errstate(invalid="ignore", divide="ignore"):
            factor = np.clip(big_k - c - r, 0, None) / (big_k - r)  # P(draw r+1 wrong | first r wrong)
        run = np.cumprod(np.where(r < big_k, factor, np.nan), axis=1)
        miss[lo : lo + block] = run[:, [k - 1 for k in ks]]
    return miss
