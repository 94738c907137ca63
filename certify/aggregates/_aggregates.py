"""Intervals for plurality accuracy and pass@k of k calls, and for their gains over one call.

The per-example U-statistics of :mod:`certify.aggregates._plurality` are independent across
examples (the examples are the sampling units, paper eq. (hierarchy-main)), and so are the
paired differences h_i(k) - h_i(j) of two budgets on the same example, in which the
example's difficulty cancels. Their mean m has the asymptotic (central limit theorem)
interval m +- t sd / sqrt(n), t = t_{n-1, 1-alpha/2}. Near the end of the range (pass@k
close to 1 with a few examples far below) that interval is far too short: the values are
skewed, and the rare examples far from the end, which carry most of the variance, are
often absent from the sample. The interval used is Clopper-Pearson's at an effective sample
size (Korn and Graubard 1998, for proportions estimated from surveys):

    lower = Beta_{alpha/2}(x, n* - x + 1),   upper = Beta_{1-alpha/2}(x + 1, n* - x),   x = m n*,

    n* = n / min(1, v / (m (1 - m))) * (z / t)^2,   z = z_{1-alpha/2},

on values rescaled to [0, 1] (a plurality gain d in [-1, 1] as (d + 1)/2, a pass@k gain from
the range its per-example values can take given the call counts; lower = 0 when m = 0, upper
= 1 when m = 1), where v / (m (1 - m)) is the design effect: the variance v against that of
0/1 values with the same mean, m (1 - m), the largest a [0, 1] value can have, and (z / t)^2
spends the n - 1 degrees of freedom of v. For a gain v is the sample variance. For an
accuracy v also counts one pseudo-example at the far end of the range (value 0 when
m >= 1/2): v = (sum (u_i - m)^2 + max(m, 1 - m)^2) / n. Like the added observations of the
Agresti-Coull interval, it keeps the design effect away from 0 when no example at the far
end has been seen; it changes the width by O(1/n) otherwise. For 0/1 values (pass@K from K
calls, one call) the design effect is 1 and the interval is Clopper-Pearson's at n (z / t)^2
<= n: at least as wide as the exact binomial interval. An earlier Wilson score interval at
the same effective size covered pass@10 only 0.85 of the time when one example in 2,500
fails (N = 400: one failure in the sample put its upper end below the truth); the exact
binomial tails do not. To first order in 1/sqrt(n) the interval is the t-interval; it stays
inside the range (all n accuracies 1: the lower end is (alpha/2)^(1/n*)). Its calibration is
asymptotic except for 0/1 values; ``benchmarks/bench_aggregate_coverage.py`` measures it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._distributions import beta_quantile, normal_quantile, t_quantile
from .._errors import InputError
from .._interval import Interval
from .._objective import V_INF, budget_json, parse_vote_budget
from .._records import Record
from .._validation import check_alpha
from ._plurality import budget_tuple, miss_probabilities, per_example_pass_at_k, per_example_plurality

__all__ = ["AGGREGATES", "AggregateEstimate", "aggregate_estimates"]

#: The aggregates of k calls: plurality vote over answers (fair ties), and pass@k (at least one correct).
AGGREGATES = ("plurality", "pass@k")
_PER_EXAMPLE = {"plurality": per_example_plurality, "pass@k": per_example_pass_at_k}
_METHOD = {
    "plurality": "U-statistic of the plurality vote (fair ties) over all k-subsets of each example's calls",
    "pass@k": "unbiased pass@k per example, 1 - C(K_i - c_i, k)/C(K_i, k)",
}
CALIBRATION = (
    "asymptotic: central limit theorem over examples; Clopper-Pearson interval at the effective sample "
    "size n m(1-m)/v (z/t)^2 (Korn and Graubard 1998; v: the variance, for an accuracy with one "
    "pseudo-example at the far end), at least as wide as the exact binomial interval for 0/1 values"
)


@dataclass(frozen=True)
class AggregateEstimate(Record):
    """An aggregate's accuracy of k calls, or its gain over ``baseline`` calls, with an interval.

    Attributes
    ----------
    aggregate : str
        ``"plurality"`` or ``"pass@k"``.
    votes : int or VoteLimit
        k, the number of calls aggregated; :data:`certify.V_INF` (``"inf"`` in JSON) for the
        limit of infinitely many calls (:mod:`certify.aggregates._aggregate_intervals`).
    baseline : int or None
        ``None`` for the accuracy of k calls; j for the paired gain (k calls minus j calls).
    interval : Interval
        The 1 - alpha interval (module docstring; its ends None with fewer than 2 examples), its
        route (identified by the calls, or beyond them) and calibration; its ``estimate`` is the mean
        over examples of the per-example U-statistic (or of its paired difference), or for an
        interval from the likelihood set the NPMLE's value when the calls identify it, else None.
    se : float or None
        sd / sqrt(n); ``None`` with fewer than 2 examples or from the likelihood set.
    n : int
        Examples.
    """

    aggregate: str
    votes: object = field(metadata={"write": budget_json, "read": parse_vote_budget})
    baseline: int | None
    interval: Interval
    se: float | None
    n: int

    @property
    def label(self) -> str:
        """``"plurality of 5 calls"`` or ``"pass@k gain, 5 calls over 1"``."""
        calls = (
            "infinitely many calls" if self.votes is V_INF else f"{self.votes} call" + ("" if self.votes == 1 else "s")
        )
        if self.baseline is None:
            return f"{self.aggregate} of {calls}"
        return f"{self.aggregate} gain, {calls} over {self.baseline}"


def _mean_interval(
    values: np.ndarray, alpha: float, low: float, high: float, *, guard: bool
) -> tuple[float, float | None, float | None, float | None]:
    """Mean, its standard error and the 1 - alpha interval of the module docstring (``None``s below 2 values).

    ``guard``: add the pseudo-example at the far end of [low, high] to the variance (accuracies).
    """
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, None, None, None
    span = high - low
    u = (values - low) / span
    m = (mean - low) / span  # the mean on [0, 1]
    squares = float(np.sum((u - m) ** 2))
    bernoulli = m * (1 - m)
    if guard:
        variance = (squares + max(m, 1 - m) ** 2) / n  # n - 1 degrees of freedom and the pseudo-example
    else:
        variance = squares / (n - 1)
    # design effect: the variance against that of 0/1 values with the same mean; at most 1 (the
    # largest a [0, 1] value can have), and 1 when every value sits at one end
    effect = min(variance / bernoulli, 1.0) if bernoulli > 0 else 1.0
    se = float(values.std(ddof=1)) / math.sqrt(n)
    if effect <= 0:  # every value the same, inside the range (a gain without its guard): no spread to show
        return mean, se, mean, mean
    size = n / effect * (normal_quantile(1 - alpha / 2) / t_quantile(1 - alpha / 2, n - 1)) ** 2
    x = min(max(m, 0.0), 1.0) * size
    lo = 0.0 if x <= 0 else beta_quantile(alpha / 2, x, size - x + 1.0)
    hi = 1.0 if x >= size else beta_quantile(1 - alpha / 2, x + 1.0, size - x)
    return mean, se, max(low, low + span * lo), min(high, low + span * hi)


def aggregate_estimates(
    codes, votes, *, aggregate: str = "plurality", alpha: float = 0.05, baseline: int | None = 1
) -> tuple[AggregateEstimate, ...]:
    """Accuracy of k calls under an aggregate, and its paired gain over ``baseline`` calls.

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (0 correct, 1, 2, ... wrong, -1 no answer, -2 no call; see
        :mod:`certify.aggregates._plurality`).
    votes : int or sequence of int
        Budgets k, each at most min_i K_i (every example must have k calls for the mean
        to be unbiased).
    aggregate : {"plurality", "pass@k"}
        Plurality vote over answers with fair ties, or at least one correct call.
    alpha : float
        1 - confidence level of the intervals.
    baseline : int or None
        Budget the gains are measured from (default one call); ``None``: no gain rows.

    Returns
    -------
    tuple of AggregateEstimate
        One accuracy row per k in the order given, then one gain row per k != baseline.
    """
    if aggregate not in _PER_EXAMPLE:
        raise InputError(f"aggregate={aggregate!r} must be one of {', '.join(AGGREGATES)}")
    alpha = check_alpha(alpha)
    ks = budget_tuple(votes)
    if baseline is not None:
        if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)) or baseline < 1:
            raise InputError(f"baseline={baseline!r} must be a positive integer number of calls or None")
        baseline = int(baseline)
    wanted = ks + (() if baseline is None else (baseline,))
    per_example = _PER_EXAMPLE[aggregate](codes, wanted)
    for k, h in per_example.items():
        if np.isnan(h).any():
            raise InputError(
                f"votes={k} exceeds the calls of example {int(np.argmax(np.isnan(h)))}; an unbiased "
                f"{aggregate} of {k} calls needs at least {k} calls on every example"
            )
    calls = tuple(int(c) for c in np.unique((np.asarray(codes) != -2).sum(axis=1)))
    return estimate_rows(per_example, aggregate, ks, baseline, alpha, calls)


def pass_gain_range(k: int, baseline: int, calls) -> tuple[float, float]:
    """The values a per-example pass@k gain over pass@baseline can take, whatever the data.

    With c of K calls correct, the unbiased estimates differ by
    f(c) = C(K - c, baseline)/C(K, baseline) - C(K - c, k)/C(K, k) (zero at c = 0 and c = K,
    nonnegative for k > baseline); the range is [min f, max f] over c and the call counts K,
    each f computed as the per-example estimates are (:func:`._plurality.miss_probabilities`),
    so every observed gain is one of these numbers. The work is one pass over
    sum_K (K + 1) pairs, at most the number of recorded calls times max(k, baseline).
    """
    counts = np.asarray(calls, dtype=np.int64)
    big_k = np.repeat(counts, counts + 1)
    c = np.concatenate([np.arange(n + 1) for n in counts])
    miss = miss_probabilities(big_k, c, (baseline, k))
    f = (1.0 - miss[:, 1]) - (1.0 - miss[:, 0])
    return float(f.min()), float(f.max())


def estimate_rows(
    per_example: dict,
    aggregate: str,
    votes: tuple[int, ...],
    baseline: int | None,
    alpha: float,
    calls: tuple[int, ...],
) -> tuple[AggregateEstimate, ...]:
    """The rows of :func:`aggregate_estimates` from per-example values ``{k: (n,) array}`` (checked, complete).

    ``calls``: the distinct numbers of calls of the examples. A pass@k gain is rescaled from the
    range its per-example values can take (:func:`pass_gain_range`), not from [-1, 1]: the
    design effect of values that sit at the two ends of that range is 1, and the interval is
    then the binomial one (for K = 3, every pass@2 gain is 0 or 1/3).
    """
    rows = []
    for k in votes:
        rows.append(
            _row(
                aggregate,
                k,
                None,
                _mean_interval(per_example[k], alpha, 0.0, 1.0, guard=True),
                alpha,
                calls,
                len(per_example[k]),
            )
        )
    for k in votes:
        if baseline is not None and k != baseline:
            gain = per_example[k] - per_example[baseline]
            # k != baseline and k <= every K: a pass@k gain's range has positive length
            low, high = pass_gain_range(k, baseline, calls) if aggregate == "pass@k" else (-1.0, 1.0)
            mean, se, lower, upper = _mean_interval(gain, alpha, low, high, guard=False)
            if aggregate == "pass@k" and k > baseline and lower is not None:
                # pass@k never falls below pass@baseline (every example's unbiased estimate grows
                # with k): cutting the interval at 0 keeps every value the parameter can take
                lower = max(lower, 0.0)
            rows.append(_row(aggregate, k, baseline, (mean, se, lower, upper), alpha, calls, len(gain)))
    return tuple(rows)


def _row(aggregate: str, k: int, baseline: int | None, mean_interval, alpha: float, calls, n: int) -> AggregateEstimate:
    """A row of U-statistic means over ``n`` examples (identified by the calls: each example has at least k)."""
    mean, se, lower, upper = mean_interval
    method = _METHOD[aggregate] + ("" if baseline is None else ", paired difference per example")
    interval = Interval(lower, upper, float(alpha), method, CALIBRATION, max(calls), mean)
    return AggregateEstimate(aggregate, k, baseline, interval, se, n)
