"""Overtaking and negative movements, with paired example-level confidence intervals.

Paper Appendix "Overtaking examples": a policy A with lower one-call accuracy than
a comparator B overtakes it when V(A) > V(B) after three or five votes -- explained
by a lower same-example correlation rho (eq. (rho-main)), not by one-call accuracy.
Appendix "A negative movement": an adjacent budget step (1 -> 3, 3 -> 5 calls) where
the empirical vote accuracy falls.

Every difference is a mean of paired per-example differences on the same examples
(exact hypergeometric / mixture accuracies of :mod:`certify.stats._mixtures`), with
the normal interval of :func:`certify.stats.compare_policies`, so example difficulty
cancels.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from ._empirical import PairedComparison, paired_comparison, votes_label
from ._mixtures import Mixture, MixtureData, per_example_mixture_accuracy

# Differences smaller than this are rounding noise of exact computations, not movements.
_TOL = 1e-12

__all__ = [
    "Overtaking",
    "NegativeMovement",
    "find_overtaking",
    "find_negative_movements",
    "per_example_table",
    "unit_mixture",
]


def per_example_table(data: MixtureData, policies, votes) -> dict:
    """Per-example exact accuracies: ``{(label, votes): ndarray (n,)}`` for every policy and budget.

    ``policies`` are :class:`Mixture` objects on ``data``'s components (a base policy
    is the mixture with one unit weight).
    """
    out = {}
    for p in policies:
        sub = data.subset(p.components)
        for v in votes:
            out[p.label, v] = per_example_mixture_accuracy(sub, p.weights, v)
    return out


@dataclass(frozen=True)
class Overtaking:
    """A lower one-call policy A beating a higher one-call comparator B after voting.

    Attributes
    ----------
    dataset : str
    policy_a, policy_b : str
        Labels (mixtures as ``w*name + ...``).
    rho_a, rho_b : float
        Their same-example correlations.
    differences : tuple of PairedComparison
        V(A) - V(B) at each budget in ``votes`` (first is one call).
    votes : tuple of int
    overtakes_at : tuple of int
        Budgets above one call at which V(A) > V(B).
    """

    dataset: str
    policy_a: str
    policy_b: str
    rho_a: float
    rho_b: float
    differences: tuple[PairedComparison, ...]
    votes: tuple[int, ...]
    overtakes_at: tuple[int, ...]

    @property
    def significant(self) -> bool:
        """The one-call deficit and a later advantage both have intervals excluding zero."""
        first = self.differences[0].interval.ends[1] < 0
        later = any(d.interval.ends[0] > 0 for v, d in zip(self.votes, self.differences) if v in self.overtakes_at)
        return first and later

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "rho_a": self.rho_a,
            "rho_b": self.rho_b,
            "votes": list(self.votes),
            "overtakes_at": list(self.overtakes_at),
            "significant": self.significant,
            "differences": [d.to_dict() for d in self.differences],
        }


def find_overtaking(data: MixtureData, policies, votes=(1, 3, 5), alpha: float = 0.05) -> tuple[Overtaking, ...]:
    """Every ordered pair (A, B) with V_1call(A) < V_1call(B) and V(A) > V(B) at some larger budget.

    Parameters
    ----------
    data : MixtureData
    policies : sequence of Mixture
        Base policies (unit weights) and mixtures on ``data``.
    votes : sequence of int
        Budgets; must start with 1.
    alpha : float

    Returns
    -------
    tuple of Overtaking
        Sorted by the largest advantage of A at the top budget, descending.
    """
    votes = tuple(int(v) for v in votes)
    if not votes or votes[0] != 1:
        raise InputError(f"votes={votes!r} must start with 1 (the one-call comparison)")
    table = per_example_table(data, policies, votes)
    out = []
    for a, b in itertools.permutations(policies, 2):
        if a.label == b.label:
            continue
        diffs = tuple(paired_comparison(table[b.label, v], table[a.label, v], b.label, a.label, alpha) for v in votes)
        if diffs[0].difference > -_TOL:
            continue
        ahead = tuple(v for v, d in zip(votes[1:], diffs[1:]) if d.difference > _TOL)
        if ahead:
            out.append(Overtaking(data.dataset, a.label, b.label, a.rho, b.rho, diffs, votes, ahead))
    out.sort(key=lambda o: (-o.differences[-1].difference, o.policy_a, o.policy_b))
    return tuple(out)


@dataclass(frozen=True)
class NegativeMovement:
    """An adjacent budget step where voting lowers the empirical accuracy.

    Attributes
    ----------
    dataset, policy : str
    comparison : PairedComparison
        V(to) - V(from) on the same examples, with its 1 - alpha interval.
    """

    dataset: str
    policy: str
    comparison: PairedComparison

    @property
    def significant(self) -> bool:
        """The interval excludes zero."""
        return self.comparison.interval.ends[1] < 0

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "policy": self.policy,
            "significant": self.significant,
            "comparison": self.comparison.to_dict(),
        }


def find_negative_movements(
    data: MixtureData, policies, votes=(1, 3, 5), alpha: float = 0.05
) -> tuple[NegativeMovement, ...]:
    """Adjacent steps votes[k] -> votes[k+1] with a negative mean paired difference, for every policy."""
    votes = tuple(int(v) for v in votes)
    table = per_example_table(data, policies, votes)
    out = []
    for p in policies:
        for lo, hi in zip(votes, votes[1:]):
            c = paired_comparison(table[p.label, lo], table[p.label, hi], votes_label(lo), votes_label(hi), alpha)
            if c.difference < -_TOL:
                out.append(NegativeMovement(data.dataset, p.label, c))
    return tuple(out)


def unit_mixture(data: MixtureData, name: str, votes=(3, 5)) -> Mixture:
    """The base policy ``name`` as a one-component mixture (exact hypergeometric accuracies)."""
    from ._mixtures import evaluate_mixture

    return evaluate_mixture(data.subset([name]), np.ones(1), votes)
