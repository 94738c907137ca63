"""Aggregates of k calls over recorded answers: plurality vote (self-consistency), pass@k, the answer model.

Paper context: beside the bit majority V_k (:mod:`certify.likelihood`), what people do with k
calls is take the most frequent answer (plurality) or count a success when any call is right
(pass@k). Up to the recorded calls both are estimated without bias by U-statistics over each
example's answers; beyond them pass@k is E[1 - (1 - Q)^k], a polynomial in q, and plurality lies
between two polynomials of q (:func:`plurality_bounds`), so the K-call likelihood set bounds
both for any k, pass@inf and plurality of infinitely many calls included. The answer model
(model-based, never certified) forecasts plurality from each example's full answer-count
pattern, with a goodness-of-fit guard.

Plurality vote and pass@k: estimates and intervals
--------------------------------------------------

* :data:`AGGREGATES` -- the aggregates of k calls: ``("plurality", "pass@k")``.
* :func:`aggregate_estimates` -- U-statistic accuracy of k calls (k up to the recorded calls) and its gain.
* :func:`aggregate_intervals` -- 1 - alpha intervals for plurality or pass@k of any k, beyond the calls too.
* :func:`certified_aggregate_intervals` -- :func:`aggregate_intervals` with an exact certificate for each end.
* :class:`AggregateEstimate` -- an aggregate's accuracy of k calls, or its gain, with an interval.
* :data:`PASS_INF` -- pass@inf = P(Q > 0), the objective of pass@k for k = inf.
* :data:`MAX_PLURALITY_CALLS` -- most calls per example for the plurality U-statistic (float64 range).
* :func:`answer_counts` -- per-example counts of the answer codes.
* :func:`per_example_plurality` -- h_i(k): the plurality U-statistic of every example.
* :func:`per_example_pass_at_k` -- unbiased pass@k of every example: 1 - C(K_i - c_i, k) / C(K_i, k).
* :func:`plurality_bounds` -- lower and upper polynomial bounds on the plurality accuracy of k calls given q.
* :func:`plurality_upper_coefficients` -- exact coefficients of U_k(q) = 1 - (1-q)^k - (k-1) q (1-q)^(k-1).
* :func:`pass_at_k_coefficients` -- exact monomial coefficients of 1 - (1-q)^k: pass@k given q.
* :func:`pass_at_k_objective` -- the objective 1 - (1-q)^k, whose expectation is pass@k.

The answer model (plurality beyond the recorded calls; model-based, never certified)
------------------------------------------------------------------------------------

* :func:`plurality_model` -- the answer model's plurality accuracy for each budget.
* :class:`ModelEstimate` -- the answer model's plurality accuracy of k calls: not certified.
* :func:`answer_patterns` -- the distinct patterns (K, c, d) of the examples and their counts.
* :func:`pattern_kernel` -- P(pattern | q, m) for each pattern and point.
* :func:`model_plurality` -- g_k(q, m), the plurality accuracy of k calls under the model.

Layering: at the level of :mod:`certify.stats`; it imports :mod:`certify.likelihood` (and
:mod:`certify.certificates` for the certified ends) and the core, nothing from :mod:`certify.stats`.
The bound polynomials (``PASS_INF``, :func:`plurality_bounds`, ...) live in the core module
``certify/_aggregate_bounds.py``, which the likelihood's targets and the certificates use too.
"""

from .._aggregate_bounds import (
    PASS_INF,
    pass_at_k_coefficients,
    pass_at_k_objective,
    plurality_bounds,
    plurality_upper_coefficients,
)
from ._aggregate_intervals import aggregate_intervals, certified_aggregate_intervals
from ._aggregates import AGGREGATES, AggregateEstimate, aggregate_estimates
from ._answer_model import ModelEstimate, answer_patterns, model_plurality, pattern_kernel, plurality_model
from ._plurality import MAX_PLURALITY_CALLS, answer_counts, per_example_pass_at_k, per_example_plurality

__all__ = [
    "AGGREGATES",
    "MAX_PLURALITY_CALLS",
    "PASS_INF",
    "AggregateEstimate",
    "ModelEstimate",
    "aggregate_estimates",
    "aggregate_intervals",
    "answer_counts",
    "answer_patterns",
    "certified_aggregate_intervals",
    "model_plurality",
    "pass_at_k_coefficients",
    "pass_at_k_objective",
    "pattern_kernel",
    "per_example_pass_at_k",
    "per_example_plurality",
    "plurality_bounds",
    "plurality_model",
    "plurality_upper_coefficients",
]
