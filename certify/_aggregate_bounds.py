"""Polynomials in q that bound plurality voting and give best-of-k coverage (pass@k).

Given an example whose k calls are i.i.d. draws from an answer distribution with
correct-answer probability q, two aggregates of the k answers are:

* pass@k, at least one call correct (a perfect verifier): its probability is exactly
  1 - (1-q)^k, whatever the wrong answers are;
* plurality voting (self-consistency): the most frequent answer wins, ties broken
  uniformly at random, and a call without an answer casts no vote. Its accuracy depends
  on how the wrong mass splits, but for every split it lies between

      V_k(q)                                  (all wrong answers identical: the bit
                                               majority of paper eq. (main-vn), fair ties
                                               for even k, Appendix A.1)
      U_k(q) = P(Bin(k,q) >= 2) + P(Bin(k,q) = 1)/k
             = 1 - (1-q)^k - (k-1) q (1-q)^(k-1)   (all wrong answers distinct)

  when every call answers, and between V_k(q) and 1 - (1-q)^k when calls may abstain.
  The proof is pointwise in the realised calls (``proofs/plurality_bounds.py``); both
  bounds are sharp.

Each is an :class:`~certify._objective.Objective`, so the moment machinery bounds its
expectation over the latent law of q like any vote accuracy. The polynomials are built
from exact monomial coefficients (expanded from the closed forms above); their Bernstein
coefficients in degree k are the pointwise bounds at k calls with j correct
(0 / 1/k / 1 and 0 / 1), which the proof script checks.

As k grows, 1 - (1-q)^k increases to the step 1{q > 0}, so pass@inf = P(Q > 0) is the share
of examples that some call eventually solves (monotone convergence). Like V_inf
(:data:`~certify._objective.V_INF`) it is not a polynomial; :data:`PASS_INF` names it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ._errors import ObjectiveError
from ._objective import MAX_EXPANDED_DEGREE, Objective, OneInstance, vote_accuracy
from ._validation import check_votes

__all__ = [
    "pass_at_k_coefficients",
    "plurality_upper_coefficients",
    "pass_at_k_objective",
    "plurality_bounds",
    "PassLimit",
    "PASS_INF",
    "is_pass_limit",
]


def _check_votes(votes) -> int:
    # the objective is stored by exact Bernstein coefficients of degree `votes`, whose
    # conversion from monomials costs O(votes^2) rational operations
    return check_votes(
        votes,
        MAX_EXPANDED_DEGREE,
        f"votes={votes} is above {MAX_EXPANDED_DEGREE}, the largest degree of an expanded polynomial objective",
        ObjectiveError,
    )


def pass_at_k_coefficients(votes: int) -> tuple[Fraction, ...]:
    """Exact monomial coefficients c_0..c_k of 1 - (1-q)^k: pass@k given q.

    Parameters
    ----------
    votes : int
        k, the number of calls, 1 <= k <= 512.

    Returns
    -------
    tuple of Fraction
        c_0 = 0 and c_j = (-1)^(j+1) C(k, j) for j >= 1.
    """
    k = _check_votes(votes)
    return (Fraction(0),) + tuple(Fraction((-1) ** (j + 1) * math.comb(k, j)) for j in range(1, k + 1))


def plurality_upper_coefficients(votes: int) -> tuple[Fraction, ...]:
    """Exact monomial coefficients of U_k(q) = 1 - (1-q)^k - (k-1) q (1-q)^(k-1).

    The largest plurality accuracy of k calls over every answer distribution with
    correct-answer probability q in which every call answers (wrong answers all distinct).

    Parameters
    ----------
    votes : int
        k, the number of calls, 1 <= k <= 512.

    Returns
    -------
    tuple of Fraction
        c_0..c_k (U_1 = U_2 = q: trailing zeros are kept, the length is always k + 1).
    """
    k = _check_votes(votes)
    coeffs = list(pass_at_k_coefficients(k))
    for j in range(1, k + 1):  # - (k-1) q (1-q)^(k-1) = - (k-1) sum_i C(k-1, i) (-1)^i q^(i+1)
        coeffs[j] -= (k - 1) * math.comb(k - 1, j - 1) * (-1) ** (j - 1)
    return tuple(coeffs)


def pass_at_k_objective(votes: int) -> Objective:
    """The objective 1 - (1-q)^k, whose expectation over the latent law is pass@k.

    Parameters
    ----------
    votes : int
        k, 1 <= k <= 512.

    Returns
    -------
    Objective
        Named ``"1 - (1-q)**k"`` (text that :func:`~certify._objective.parse_objective` reads back).
    """
    return Objective.from_coefficients(pass_at_k_coefficients(votes), name=f"1 - (1-q)**{int(votes)}")


def plurality_bounds(votes: int, *, abstentions: bool = False) -> tuple[Objective, Objective]:
    """Lower and upper polynomial bounds on the plurality accuracy of k calls given q.

    Parameters
    ----------
    votes : int
        k, 1 <= k <= 512 (any parity: an even k breaks ties fairly).
    abstentions : bool
        Whether calls may produce no answer. Without abstentions the upper bound is
        U_k; with them it is pass@k, 1 - (1-q)^k (the correct answer wins whenever it
        is the only answer given).

    Returns
    -------
    (Objective, Objective)
        ``V{k}`` (the fair-tie bit majority, Appendix A.1) and the upper bound, named by
        text that :func:`~certify._objective.parse_objective` reads back.
    """
    k = _check_votes(votes)
    lower = vote_accuracy(k)
    if abstentions:
        return lower, pass_at_k_objective(k)
    return lower, Objective.from_coefficients(
        plurality_upper_coefficients(k), name=f"1 - (1-q)**{k} - {k - 1}*q*(1-q)**{k - 1}"
    )


class PassLimit(OneInstance):
    """pass@inf = lim_k E[1 - (1-Q)^k] = P(Q > 0): the share of examples some call solves.

    A step function of q (0 at q = 0, 1 on (0, 1]), not a polynomial: the likelihood engine
    bounds it on constant pieces (:mod:`certify.likelihood`), its certificates are proven on
    them (:mod:`certify.certificates`). There is one instance, :data:`PASS_INF`; code tests an
    objective with ``obj is PASS_INF``. Its name is ``"pass_inf"``, its definition
    ``"P(Q > 0)"``; :func:`is_pass_limit` reads every accepted spelling.
    """

    __slots__ = ()
    _global = "PASS_INF"
    name = "pass_inf"
    definition = "P(Q > 0)"


#: pass@inf = P(Q > 0) (the only :class:`PassLimit`).
PASS_INF = PassLimit()

#: Spellings of pass@inf accepted in user text (case and blanks ignored).
PASS_INF_SPELLINGS = ("pass_inf", "pass@inf", "p(q>0)")


def is_pass_limit(value) -> bool:
    """True when ``value`` names pass@inf: :data:`PASS_INF` or a spelling of :data:`PASS_INF_SPELLINGS`
    (``"pass_inf"``, ``"pass@inf"``, ``"P(Q > 0)"``, ...)."""
    if value is PASS_INF:
        return True
    return isinstance(value, str) and "".join(value.split()).lower() in PASS_INF_SPELLINGS
