"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

The data come from :mod:`certify.readers` (``read_bits``, ``read_groups``, ``CallBits``; formats,
column roles, the ragged-count rule and inspect_ai score maps are documented there) and the K-call
likelihood from :mod:`certify.likelihood` (``cell_counts``, ``npmle``, ``likelihood_intervals``,
``certify_interval``): each name has one home, and this package re-exports neither. Plurality and
pass@k over recorded answers and the answer model are :mod:`certify.aggregates`, study plans
:mod:`certify.planning`, forecasts from families of the latent law :mod:`certify.forecast`, and the
analysis of a file (``analyze``, its report, rows, verdicts, text and certificates)
:mod:`certify.analysis`.

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
]
