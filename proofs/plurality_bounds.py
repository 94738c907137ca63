"""Proof check: plurality accuracy of k calls lies between V_k(q) and U_k(q) (or pass@k).

Setting. An example's k calls are i.i.d. draws from an answer distribution whose
correct-answer probability is q; a call may also give no answer (abstain: no vote).
The plurality vote gives the correct answer the score

    f = 1/t  if its count c >= 1 and c equals the largest count among answers
             (t answers share that count; ties broken uniformly at random),
    f = 0    otherwise.

Claim. For every answer distribution with correct-answer probability q,

    V_k(q) <= E f <= U_k(q) = P(Bin(k,q) >= 2) + P(Bin(k,q) = 1)/k     (no abstentions),
    V_k(q) <= E f <= 1 - (1-q)^k                                     (abstentions allowed),

where V_k is the fair-tie bit majority of k calls (paper eq. (main-vn); even k,
Appendix A.1). All bounds are sharp.

Proof. The bounds are pointwise in the realised calls and depend on them only through
c, the number of correct calls, which is Bin(k, q) whatever the wrong answers are.

Lower. Merge every wrong answer and every abstention into one wrong answer, of count
k - c; call the merged score f_m = 1{c > k/2} + 1{c = k/2}/2 (the fair-tie bit majority
of the k correctness bits). If c > k - c, every answer other than the correct one has
at most k - c < c votes, so f = 1 = f_m. If c = k - c >= 1, every wrong answer has at
most c votes and at most one of them can have c (it would hold every other call), so
f >= 1/2 = f_m. Otherwise f_m = 0 <= f. Hence f >= f_m and E f >= E f_m = V_k(q).

Upper. If c = 0 then f = 0. If c >= 2 then f <= 1. If c = 1 and no call abstains, the
correct answer reaches the largest count only if every other answer also has one vote,
i.e. all k answers are distinct, and then t = k and f = 1/k. So f <= 1{c >= 2} +
1{c = 1}/k and E f <= U_k(q). With abstentions only f <= 1{c >= 1} remains, whose
expectation is 1 - (1-q)^k.

Sharpness. With a single wrong answer (all wrong mass on it) f = f_m for every
realisation, so E f = V_k(q). With wrong answers that are all distinct (a continuous
wrong-answer distribution, or the limit of m equally likely wrong answers as m grows)
f equals the upper bound for every realisation. When every incorrect call abstains,
f = 1{c >= 1}.

The polynomials. Taking expectations over c ~ Bin(k, q): V_k has Bernstein coefficients
1{j > k/2} + 1{j = k/2}/2 in degree k, U_k has 0, 1/k, 1, ..., 1 and pass@k has 0, 1,
..., 1.

This script checks, in exact arithmetic:

1. pointwise, for every k <= 8 and every call pattern (each call correct, abstaining or
   in a wrong class; the wrong classes a set partition of the wrong calls):
   f_m <= f <= upper, f_m equals the fair-tie bit majority of c, and the bounds are the
   pointwise envelopes (attained at one wrong class / all-distinct wrong answers /
   abstentions only);
2. the polynomials, for every k <= 30: the expectation over Bin(k, q) of the pointwise
   bounds, expanded with sympy, equals V_k from :mod:`certify._majority` (fair ties) and
   U_k and 1 - (1-q)^k from :mod:`certify._aggregate_bounds`, both as coefficient lists
   and as the :class:`~certify._objective.Objective` they build.

Run ``python proofs/plurality_bounds.py``; it writes ``proofs/records/plurality_bounds.json``
(re-checked by the tests).
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction

import sympy

from certify._aggregate_bounds import pass_at_k_coefficients, plurality_bounds, plurality_upper_coefficients
from certify._majority import fair_tie_even_coefficients, majority_monomial_coefficients
from _record import write_record  # noqa: E402  (proofs/ is on sys.path when run as a script)

MAX_PATTERN_CALLS = 8
MAX_POLYNOMIAL_CALLS = 30
CORRECT, ABSTAIN = "correct", None


def patterns(k: int):
    """Every call pattern of k calls: a tuple of labels, 'correct', None (abstain) or a wrong class 1, 2, ...

    Wrong classes are numbered in order of first appearance (a restricted growth string),
    so each set partition of the wrong calls appears exactly once.
    """
    def extend(prefix, classes):
        if len(prefix) == k:
            yield tuple(prefix)
            return
        for label in (CORRECT, ABSTAIN, *range(1, classes + 2)):
            yield from extend(prefix + [label], max(classes, label) if isinstance(label, int) else classes)

    yield from extend([], 0)


def score(calls) -> Fraction:
    """Plurality score f of the correct answer, from its definition."""
    votes = Counter(c for c in calls if c is not ABSTAIN)
    if votes[CORRECT] == 0:
        return Fraction(0)
    top = max(votes.values())
    return Fraction(1, sum(1 for v in votes.values() if v == top)) if votes[CORRECT] == top else Fraction(0)


def bit_majority(c: int, k: int) -> Fraction:
    return Fraction(1) if 2 * c > k else Fraction(1, 2) if 2 * c == k else Fraction(0)


def upper(c: int, k: int, abstentions: bool) -> Fraction:
    if abstentions:
        return Fraction(int(c >= 1))
    return Fraction(1) if c >= 2 else Fraction(1, k) if c == 1 else Fraction(0)


def pointwise(max_k: int = MAX_PATTERN_CALLS) -> tuple[dict, dict]:
    counts, flags = {}, {"lower": True, "merged_is_bit_majority": True, "upper": True,
                         "lower_attained": True, "upper_attained": True, "upper_with_abstentions_attained": True}
    for k in range(1, max_k + 1):
        seen = 0
        low_hit, up_hit, abst_hit = set(), set(), set()
        for calls in patterns(k):
            seen += 1
            c = calls.count(CORRECT)
            abstains = ABSTAIN in calls
            wrong = [x for x in calls if isinstance(x, int)]
            f = score(calls)
            f_m = score(tuple(CORRECT if x == CORRECT else 1 for x in calls))
            flags["merged_is_bit_majority"] &= f_m == bit_majority(c, k)
            flags["lower"] &= f_m <= f
            flags["upper"] &= f <= upper(c, k, abstentions=abstains)
            if not abstains and len(set(wrong)) <= 1:  # one wrong answer: the bound is attained
                flags["lower_attained"] &= f == f_m
                low_hit.add(c)
            if not abstains and len(set(wrong)) == len(wrong):  # all wrong answers distinct
                flags["upper_attained"] &= f == upper(c, k, abstentions=False)
                up_hit.add(c)
            if not wrong:  # incorrect calls all abstain
                flags["upper_with_abstentions_attained"] &= f == upper(c, k, abstentions=True)
                abst_hit.add(c)
        every = set(range(k + 1))
        flags["lower_attained"] &= low_hit == every
        flags["upper_attained"] &= up_hit == every
        flags["upper_with_abstentions_attained"] &= abst_hit == every
        counts[str(k)] = seen
    return counts, flags


def _expected(k: int, bound) -> list[Fraction]:
    """Monomial coefficients of E over c ~ Bin(k, q) of bound(c), expanded by sympy."""
    q = sympy.Symbol("q")
    poly = sympy.Poly(sum(sympy.Rational(bound(c).numerator, bound(c).denominator) * sympy.binomial(k, c)
                          * q**c * (1 - q) ** (k - c) for c in range(k + 1)), q)
    coeffs = [Fraction(int(a.p), int(a.q)) for a in reversed(poly.all_coeffs())]
    return _trim(coeffs)


def _trim(coeffs) -> list[Fraction]:
    coeffs = [Fraction(c) for c in coeffs]
    while len(coeffs) > 1 and coeffs[-1] == 0:
        coeffs.pop()
    return coeffs


def polynomials(max_k: int = MAX_POLYNOMIAL_CALLS) -> tuple[list[int], dict]:
    flags = {"lower_is_V_k": True, "upper_is_U_k": True, "upper_with_abstentions_is_pass_at_k": True,
             "objectives_agree": True}
    for k in range(1, max_k + 1):
        v_k = (majority_monomial_coefficients((k - 1) // 2) if k % 2 else fair_tie_even_coefficients(k // 2))
        lower = _expected(k, lambda c: bit_majority(c, k))
        up = _expected(k, lambda c: upper(c, k, abstentions=False))
        up_abst = _expected(k, lambda c: upper(c, k, abstentions=True))
        flags["lower_is_V_k"] &= lower == _trim(v_k)
        flags["upper_is_U_k"] &= up == _trim(plurality_upper_coefficients(k))
        flags["upper_with_abstentions_is_pass_at_k"] &= up_abst == _trim(pass_at_k_coefficients(k))
        lo_obj, up_obj = plurality_bounds(k)
        flags["objectives_agree"] &= (_trim(lo_obj.monomial_coefficients()) == lower
                                      and _trim(up_obj.monomial_coefficients()) == up
                                      and _trim(plurality_bounds(k, abstentions=True)[1].monomial_coefficients()) == up_abst)
    return list(range(1, max_k + 1)), flags


def main() -> int:
    counts, point_flags = pointwise()
    exact_k, poly_flags = polynomials()
    record = {"claim": "V_k(q) <= plurality accuracy of k calls <= U_k(q) (1 - (1-q)^k with abstentions), sharp",
              "patterns": counts, "pointwise": point_flags, "polynomials": poly_flags, "exact_k": exact_k}
    out = write_record(__file__, record)
    print(f"call patterns checked for k = 1..{MAX_PATTERN_CALLS}: {sum(counts.values())}")
    for name, ok in {**point_flags, **poly_flags}.items():
        print(f"  {name}: {ok}")
    print(f"polynomials exact for k = 1..{exact_k[-1]}")
    print(f"record: {out}")
    return 0 if all(point_flags.values()) and all(poly_flags.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
