"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

The data come from :mod:`certify.readers` (``read_bits``, ``read_groups``, ``CallBits``; formats,
column roles, the ragged-count rule and inspect_ai score maps are documented there) and the K-call
likelihood from :mod:`certify.likelihood` (``cell_counts``, ``npmle``, ``likelihood_intervals``,
``certify_interval``): each name has one home, and this package re-exports neither. The intervals an
analysis solved, ``AnalysisReport.likelihood``, are what :func:`certify.likelihood.certify_interval`
turns into exact certificates.

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

The analysis
------------

* :func:`~certify.analyze` -- the whole pipeline on one policy's bits (``method="likelihood"`` or ``"two-call"``).
* :class:`AnalysisReport` -- result of :func:`~certify.analyze` (``to_dict`` / ``from_dict``, ``to_frame``, ``plot``).
* :data:`METHODS` -- the interval methods of :func:`~certify.analyze`, ``("likelihood", "two-call")``.
* :data:`REPORT_SCHEMA_VERSION` -- schema version of an analysis report's JSON.
* :class:`BudgetRow` -- everything reported for one majority budget (its interval, the ``--details`` columns).
* :class:`Verdict` -- certified improvement of ``votes`` calls over one call at level 1 - alpha.
* :class:`ObjectiveInterval` -- the 1 - alpha interval of a polynomial objective in q.
* :class:`SolvedIntervals` -- the likelihood-ratio intervals an analysis solved, kept for their certificates.
* :func:`parse_votes` -- vote budgets from ints or strings: positive counts or V_inf in any spelling.
* :func:`verdict_budgets` -- the budgets whose gain V_k - V_1 gets a verdict.
* :func:`two_call_view` -- the two-call report held by an analysis, solving nothing again.
* :func:`write_report_certificates` -- exact certificates of an analysis's intervals; its proven rows certified.
* :func:`check_certifiable` -- refuse, before solving, data whose certificates the checker would refuse.

One row per target, and the vote curve
--------------------------------------

* :func:`target_rows` -- one :class:`TargetRow` per target of a report, in report order.
* :class:`TargetRow` -- one target of one group: interval, verdict on the gain, forecast beyond the calls.
* :class:`AnalysisTarget` -- what a row estimates: an aggregate of k calls, or an objective.
* :class:`RowForecast` -- a row's model-based forecast beyond the recorded calls, or why there is none.
* :data:`FORECAST_MODELS` -- what each aggregate's forecast beyond the recorded calls comes from.
* :func:`report_frame` -- the target rows of one or several reports as a tidy pandas DataFrame.
* :func:`curve_data` -- the figure data of one report's vote curve.
* :func:`vote_curve_figure` -- each policy's vote accuracy against the number of votes (a matplotlib figure).

Aggregates of k calls over recorded answers (plurality vote, pass@k)
--------------------------------------------------------------------

* :data:`AGGREGATES` -- the aggregates of k calls: ``("plurality", "pass@k")``.
* :data:`AGGREGATE_NAMES` -- every aggregate ``analyze`` reports: the bit majority, then :data:`AGGREGATES`.
* :func:`parse_aggregate` -- the aggregate's name from a spelling (``"pass"`` -> ``"pass@k"``).
* :func:`aggregate_estimates` -- U-statistic accuracy of k calls (k up to the recorded calls) and its gain.
* :func:`aggregate_intervals` -- 1 - alpha intervals for plurality or pass@k of any k, beyond the calls too.
* :func:`certified_aggregate_intervals` -- :func:`aggregate_intervals` with an exact certificate for each end.
* :class:`AggregateEstimate` -- an aggregate's accuracy of k calls, or its gain, with an interval.
* :class:`AggregateBudget` -- the interval of one aggregate at one budget (an entry of ``AnalysisReport.aggregates``).
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

Study planning
--------------

* :func:`plan_study` -- simulated width and probability of certifying a gain, per design.
* :class:`StudyPlan` -- result of :func:`plan_study` (``to_dict`` / ``from_dict``).
* :class:`PlanRow` -- one design under one scenario.
* :data:`DEFAULT_PLAN_REPS` -- simulated studies per default design.
* :data:`DEFAULT_WIDTH_REPS` -- studies per default design whose interval is solved for the mean width.
* :data:`PLAN_SCHEMA_VERSION` -- schema version of a study plan's JSON.

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
from ._aggregate_report import AGGREGATE_NAMES, AggregateBudget, parse_aggregate
from ._aggregates import AGGREGATES, AggregateEstimate, aggregate_estimates
from ._analysis_report import REPORT_SCHEMA_VERSION, AnalysisReport, BudgetRow, ObjectiveInterval, SolvedIntervals
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
from ._planning import DEFAULT_PLAN_REPS, DEFAULT_WIDTH_REPS, PLAN_SCHEMA_VERSION, PlanRow, StudyPlan, plan_study
from ._plurality import MAX_PLURALITY_CALLS, answer_counts, per_example_pass_at_k, per_example_plurality
from ._region import EmptyRegionError, ProjectedInterval, WaldRegion, project, project_many, wald_region
from ._report import METHODS, analyze, parse_votes, two_call_view
from ._report_certificates import check_certifiable, write_report_certificates
from ._summary import FORECAST_MODELS, AnalysisTarget, RowForecast, TargetRow, report_frame, target_rows
from ._verdict import Verdict, verdict_budgets
from ._vote_curve import curve_data, vote_curve_figure

__all__ = [
    "FORECAST_MODELS",
    "TargetRow",
    "AnalysisTarget",
    "RowForecast",
    "curve_data",
    "report_frame",
    "target_rows",
    "vote_curve_figure",
    "COMPLETION_METHODS",
    "DEFAULT_PLAN_REPS",
    "DEFAULT_WIDTH_REPS",
    "METHODS",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "AllCallEstimates",
    "AnalysisReport",
    "BudgetRow",
    "Completion",
    "EmpiricalVote",
    "EmptyRegionError",
    "SolvedIntervals",
    "Mixture",
    "MixtureData",
    "MixtureOptimum",
    "MixtureSearch",
    "NegativeMovement",
    "Overtaking",
    "PairedComparison",
    "PlanRow",
    "ProjectedInterval",
    "StudyPlan",
    "TwoCallEstimates",
    "Verdict",
    "WaldRegion",
    "all_call_estimates",
    "allocation_majority",
    "allocation_probabilities",
    "allocations",
    "analyze",
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
    "parse_votes",
    "two_call_view",
    "write_report_certificates",
    "check_certifiable",
    "per_example_mixture_accuracy",
    "per_example_mixture_moments",
    "per_example_table",
    "per_example_vote_accuracy",
    "plan_study",
    "project",
    "project_many",
    "search_mixtures",
    "two_call_estimates",
    "two_call_from_summary",
    "unit_mixture",
    "verdict_budgets",
    "votes_label",
    "wald_region",
    "weight_grid",
    # repeated-call aggregates over recorded answers
    "AGGREGATES",
    "MAX_PLURALITY_CALLS",
    "PASS_INF",
    "AGGREGATE_NAMES",
    "AggregateBudget",
    "AggregateEstimate",
    "ObjectiveInterval",
    "parse_aggregate",
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
