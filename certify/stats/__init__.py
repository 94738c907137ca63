"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

The data come from :mod:`certify.readers` (``read_bits``, ``read_groups``, ``CallBits``; formats,
column roles, the ragged-count rule and inspect_ai score maps are documented there) and the K-call
likelihood from :mod:`certify.likelihood` (``cell_counts``, ``npmle``, ``likelihood_intervals``,
``certify_interval``): each name has one home, and this package re-exports neither. The analysis of a
file (``analyze``, its report, rows, verdicts, text and certificates) is :mod:`certify.analysis`.

Two-call estimates (paper Section 4.4)
--------------------------------------

* :func:`~certify.two_call_estimates` -- mu-hat, nu-hat, rho-hat and Sigma-hat from the first two calls.
* :func:`two_call_from_summary` -- the same from summary statistics: the pair table fixes Sigma-hat.
* :func:`all_call_estimates` -- unbiased U-statistic estimates of m_1, ..., m_order from all K_i calls.
* :class:`TwoCallEstimates` -- the paper's two-call estimates (Appendix B "Projection of sampling uncertainty").
* :class:`AllCallEstimates` -- U-statistic moment estimates from every call (beyond the paper).

Regions (eqs. (wald-region-main), (projected-set-main))
-------------------------------------------------------

* :func:`~certify.wald_region` -- the feasible Wald region C_alpha from the two-call estimates.
* :class:`WaldRegion` -- the feasible Wald moment region C_alpha.
* :func:`project` -- interval hull [min_C L, max_C U] of the projected region for one objective.
* :func:`~certify.project_many` -- projected interval hulls for several regions and objectives at once.
* :class:`ProjectedInterval` -- interval hull of the projected identified region for one objective.
* :exc:`EmptyRegionError` -- the Wald region misses the feasible set: the data reject the model.

Completions (paper Section 5)
-----------------------------

* :func:`complete` -- the ``method`` completion of (mu, nu), ``"maxent"`` or ``"ldgp"``.
* :func:`~certify.maxent_completion` -- maximum-entropy completion (Proposition 5.1, eq. (maxent-dual-main)).
* :func:`~certify.ldgp_completion` -- LDGP completion (Proposition 5.2): t = Phi^-1(mu), r from Phi_2(t, t; r) = nu.
* :class:`Completion` -- a completed latent law and its vote curve.
* :data:`COMPLETION_METHODS` -- the completion methods, ``("maxent", "ldgp")``.

Empirical votes and paired comparisons
--------------------------------------

* :func:`empirical_vote_accuracy` -- unbiased estimate of V for ``votes`` calls from K >= votes repeats.
* :func:`per_example_vote_accuracy` -- h_m(S_i, K_i): each example's exact hypergeometric majority probability.
* :class:`EmpiricalVote` -- an empirical m-vote accuracy with its standard error.
* :func:`compare_budgets` -- paired difference V(votes_b) - V(votes_a) on the same examples, with an interval.
* :func:`compare_policies` -- paired difference of two policies' vote accuracy on their common examples.
* :func:`paired_comparison` -- mean of paired per-example differences ``b - a`` with its normal interval.
* :class:`PairedComparison` -- a mean paired difference with its normal confidence interval.
* :func:`votes_label` -- how a budget reads wherever a user sees it (``"3 votes"``).

Aggregates of k calls over recorded answers (plurality vote, pass@k)
--------------------------------------------------------------------

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

Mixtures of policies (Section 6, Appendix "Randomized mixture policies")
------------------------------------------------------------------------

* :func:`mixture_data` -- align several policies' bits on their common example ids.
* :class:`MixtureData` -- success counts of several policies on the same examples.
* :func:`allocations` -- every allocation of ``votes`` calls to ``components`` components.
* :func:`allocation_probabilities` -- multinomial probabilities Mult(a; m, w) of each allocation.
* :func:`allocation_majority` -- M_i(a): majority probability of every example under every allocation.
* :func:`per_example_mixture_accuracy` -- h_m(i; w) for every example (exact).
* :func:`per_example_mixture_moments` -- per-example (mu_i, nu_i) of the mixture's two-call law.
* :func:`evaluate_mixture` -- moments and exact empirical vote accuracies of one mixture.
* :class:`Mixture` -- one randomized mixture policy with its moments and exact empirical accuracies.
* :func:`mixture_estimates` -- two-call estimates of a mixture (Section 4.4).
* :func:`weight_grid` -- weights on a grid with every component strictly positive.
* :func:`search_mixtures` -- the paper's mixture grid.
* :class:`MixtureSearch` -- result of :func:`search_mixtures` on one data set.
* :func:`optimize_mixture` -- maximize the certified lower bound (or empirical V) over the weight simplex.
* :class:`MixtureOptimum` -- result of :func:`optimize_mixture`.

Overtaking and negative movements (Appendix "Overtaking examples", "A negative movement")
------------------------------------------------------------------------------------------

* :func:`find_overtaking` -- pairs where a policy lower on one call beats a higher one after voting.
* :class:`Overtaking` -- a lower one-call policy A beating a higher one-call comparator B after voting.
* :func:`find_negative_movements` -- adjacent budget steps with a negative mean paired difference.
* :class:`NegativeMovement` -- an adjacent budget step where voting lowers the empirical accuracy.
* :func:`per_example_table` -- per-example exact accuracies for every policy and budget.
* :func:`unit_mixture` -- a base policy as a one-component mixture.
"""

# repeated-call aggregates over recorded answers: plurality vote and pass@k
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
from ._completions import COMPLETION_METHODS, Completion, complete, ldgp_completion, maxent_completion
from ._empirical import (
    EmpiricalVote,
    PairedComparison,
    compare_budgets,
    compare_policies,
    empirical_vote_accuracy,
    paired_comparison,
    per_example_vote_accuracy,
    votes_label,
)
from ._estimators import (
    AllCallEstimates,
    TwoCallEstimates,
    all_call_estimates,
    two_call_estimates,
    two_call_from_summary,
)
from ._mixtures import (
    Mixture,
    MixtureData,
    MixtureOptimum,
    MixtureSearch,
    allocation_majority,
    allocation_probabilities,
    allocations,
    evaluate_mixture,
    mixture_data,
    mixture_estimates,
    optimize_mixture,
    per_example_mixture_accuracy,
    per_example_mixture_moments,
    search_mixtures,
    weight_grid,
)
from ._overtaking import (
    NegativeMovement,
    Overtaking,
    find_negative_movements,
    find_overtaking,
    per_example_table,
    unit_mixture,
)
from ._plurality import MAX_PLURALITY_CALLS, answer_counts, per_example_pass_at_k, per_example_plurality
from ._region import EmptyRegionError, ProjectedInterval, WaldRegion, project, project_many, wald_region

__all__ = [
    "COMPLETION_METHODS",
    "AllCallEstimates",
    "Completion",
    "EmpiricalVote",
    "EmptyRegionError",
    "Mixture",
    "MixtureData",
    "MixtureOptimum",
    "MixtureSearch",
    "NegativeMovement",
    "Overtaking",
    "PairedComparison",
    "ProjectedInterval",
    "TwoCallEstimates",
    "WaldRegion",
    "all_call_estimates",
    "allocation_majority",
    "allocation_probabilities",
    "allocations",
    "compare_budgets",
    "compare_policies",
    "complete",
    "empirical_vote_accuracy",
    "evaluate_mixture",
    "find_negative_movements",
    "find_overtaking",
    "ldgp_completion",
    "maxent_completion",
    "mixture_data",
    "mixture_estimates",
    "optimize_mixture",
    "paired_comparison",
    "per_example_mixture_accuracy",
    "per_example_mixture_moments",
    "per_example_table",
    "per_example_vote_accuracy",
    "project",
    "project_many",
    "search_mixtures",
    "two_call_estimates",
    "two_call_from_summary",
    "unit_mixture",
    "votes_label",
    "wald_region",
    "weight_grid",
    # repeated-call aggregates over recorded answers
    "AGGREGATES",
    "MAX_PLURALITY_CALLS",
    "PASS_INF",
    "AggregateEstimate",
    "aggregate_estimates",
    "aggregate_intervals",
    "certified_aggregate_intervals",
    "answer_counts",
    "pass_at_k_coefficients",
    "pass_at_k_objective",
    "per_example_pass_at_k",
    "per_example_plurality",
    "plurality_bounds",
    "plurality_upper_coefficients",
    # the answer model (plurality beyond the calls; model-based, not certified)
    "ModelEstimate",
    "answer_patterns",
    "model_plurality",
    "pattern_kernel",
    "plurality_model",
]
