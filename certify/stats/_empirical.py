"""Empirical majority-vote accuracy from K repeated calls, and paired comparisons.

For an example with K_i calls of which S_i are correct, a uniformly chosen
m-subset of its calls has a correct strict majority with the hypergeometric
probability

    h_m(S_i, K_i) = sum_{j > m/2} C(S_i, j) C(K_i - S_i, m - j) / C(K_i, m).

Given q_i the calls are i.i.d. Bernoulli(q_i), so h_m is the U-statistic of the
majority kernel and E[h_m | q_i] = P_n(q_i) with m = 2n + 1 (eq. (momentclass-main)): the
average over examples is unbiased for V_n, with the ordinary standard error of
a mean of independent per-example values. Even m uses fair coin-flip ties
(half the tie probability), unbiased for the even-budget accuracy, which equals
V of the odd budget below (Sec. 2). By the ragged-count rule of
:mod:`certify.readers._cells`, m must not exceed the smallest K_i.

Paired comparisons (two budgets on the same examples, or two policies on the
same example ids) use per-example differences, so example difficulty cancels
and the standard error is that of the mean difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._calls import CallBits
from .._distributions import hypergeometric_pmf, normal_quantile
from .._errors import InputError
from .._interval import Interval
from .._objective import votes_label
from .._records import Record
from .._validation import check_alpha, check_votes

__all__ = [
    "EmpiricalVote",
    "PairedComparison",
    "per_example_vote_accuracy",
    "empirical_vote_accuracy",
    "compare_budgets",
    "compare_policies",
    "paired_comparison",
    "votes_label",
]


@dataclass(frozen=True)
class EmpiricalVote(Record):
    """Empirical m-vote accuracy.

    Attributes
    ----------
    votes : int
        Budget m.
    value : float
        Mean over examples of h_m(S_i, K_i).
    se : float
        Standard error sd(h_m)/sqrt(n).
    n : int
        Examples.
    """

    votes: int
    value: float
    se: float
    n: int


@dataclass(frozen=True)
class PairedComparison(Record):
    """Mean of paired per-example differences (b - a) with a normal confidence interval.

    Attributes
    ----------
    label_a, label_b : str
        What is compared, e.g. ``"1 vote"`` and ``"5 votes"``, or two policies' labels.
    interval : Interval
        Its ``estimate`` is the mean of (b_i - a_i), its ends the mean -/+ z_{1-alpha/2} se
        (asymptotic, over examples); identified by the calls it was computed from.
    se : float
        sd(b_i - a_i) / sqrt(n).
    n : int
        Paired examples.
    """

    #: How its interval is made and calibrated.
    METHOD: ClassVar[str] = "mean of paired per-example differences"
    CALIBRATION: ClassVar[str] = "asymptotic: normal interval over examples (central limit theorem)"

    label_a: str
    label_b: str
    interval: Interval
    se: float
    n: int

    @property
    def difference(self) -> float:
        """The mean paired difference (the interval's estimate)."""
        assert self.interval.estimate is not None  # every comparison has its mean
        return self.interval.estimate


def _check_votes(votes, data: CallBits) -> int:
    return check_votes(
        votes,
        data.calls,
        f"votes={votes} exceeds the calls every example has (K = {data.calls}); an empirical "
        f"{votes}-vote accuracy needs at least {votes} calls on each example",
    )


def per_example_vote_accuracy(data: CallBits, votes: int) -> np.ndarray:
    """h_m(S_i, K_i) for every example: exact hypergeometric majority probability (fair ties for even m)."""
    m = _check_votes(votes, data)
    k, s = data.counts, data.successes.astype(int)
    # one value per distinct (K_i, S_i): the number of correct calls in a random m-subset is hypergeometric
    pairs, row_of = np.unique(np.stack([k, s], axis=1), axis=0, return_inverse=True)
    pmf = hypergeometric_pmf(pairs[:, 0], pairs[:, 1], m)
    win = pmf[:, m // 2 + 1 :].sum(axis=1)
    if m % 2 == 0:
        win = win + 0.5 * pmf[:, m // 2]  # fair coin-flip ties
    return win[row_of.reshape(-1)]


def empirical_vote_accuracy(data: CallBits, votes: int) -> EmpiricalVote:
    """Unbiased estimate of V for ``votes`` calls from K >= votes repeats, with its standard error."""
    h = per_example_vote_accuracy(data, votes)
    se = float(np.std(h, ddof=1) / np.sqrt(len(h))) if len(h) > 1 else float("nan")
    return EmpiricalVote(int(votes), float(h.mean()), se, len(h))


def paired_comparison(
    a: np.ndarray, b: np.ndarray, label_a: str, label_b: str, alpha: float = 0.05
) -> PairedComparison:
    """Mean of the paired per-example differences ``b - a`` with its normal 1 - alpha interval.

    ``a`` and ``b`` are per-example values on the same examples (e.g. exact vote or
    mixture accuracies); ``label_a`` / ``label_b`` name the two sides.
    """
    alpha = check_alpha(alpha)
    d = b - a
    n = len(d)
    if n < 2:
        raise InputError(f"{n} paired example(s): a standard error needs at least 2")
    se = float(np.std(d, ddof=1) / np.sqrt(n))
    z = normal_quantile(1 - alpha / 2)
    mean = float(d.mean())
    interval = Interval(
        mean - z * se,
        mean + z * se,
        float(alpha),
        PairedComparison.METHOD,
        PairedComparison.CALIBRATION,
        None,
        mean,
        "identified",
    )
    return PairedComparison(label_a, label_b, interval, se, n)


def compare_budgets(data: CallBits, votes_a: int, votes_b: int, alpha: float = 0.05) -> PairedComparison:
    """Paired difference V(votes_b) - V(votes_a) on the same examples, with a 1 - alpha interval."""
    return paired_comparison(
        per_example_vote_accuracy(data, votes_a),
        per_example_vote_accuracy(data, votes_b),
        votes_label(votes_a),
        votes_label(votes_b),
        alpha,
    )


def compare_policies(
    a: CallBits, b: CallBits, votes: int, alpha: float = 0.05, *, labels=("a", "b")
) -> PairedComparison:
    """Paired difference of ``votes``-vote accuracy, policy b minus policy a, on their common example ids."""
    common = sorted(set(a.example_ids) & set(b.example_ids))
    if not common:
        raise InputError("the two policies share no example ids; a paired comparison needs the same examples")
    ia = {k: i for i, k in enumerate(a.example_ids)}
    ib = {k: i for i, k in enumerate(b.example_ids)}
    ha = per_example_vote_accuracy(a, votes)[[ia[k] for k in common]]
    hb = per_example_vote_accuracy(b, votes)[[ib[k] for k in common]]
    return paired_comparison(ha, hb, str(labels[0]), str(labels[1]), alpha)
