"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

* the data come from :mod:`certify.readers` (``read_bits``, ``read_groups``, ``CallBits``; formats,
  column roles, the ragged-count rule and inspect_ai score maps are documented there) and the
  K-call likelihood from :mod:`certify.likelihood` (``cell_counts``, ``npmle``,
  ``likelihood_intervals``, ``certify_interval``): each name has one home, and this package
  re-exports neither;
* estimators: :func:`two_call_estimates` (paper Section 4.4), :func:`two_call_from_summary`,
  :func:`all_call_estimates` (U-statistics from every call), with
  :class:`TwoCallEstimates`, :class:`AllCallEstimates`;
* regions: :func:`wald_region` (eq. (wald-region-main)), :func:`project` / :func:`project_many`
  (interval hull of eq. (projected-set-main)), :class:`WaldRegion`, :class:`ProjectedInterval`,
  :class:`EmptyRegionError`;
* empirical votes: :func:`empirical_vote_accuracy`, :func:`per_example_vote_accuracy`,
  :func:`compare_budgets`, :func:`compare_policies`;
* paired comparisons: :func:`paired_comparison` -> :class:`PairedComparison`, :func:`votes_label`;
* mixtures of policies (Section 6, Appendix "Randomized mixture policies";
  :mod:`certify.stats._mixtures`): :func:`mixture_data` -> :class:`MixtureData`, exact
  :func:`per_example_mixture_accuracy` / :func:`per_example_mixture_moments` /
  :func:`evaluate_mixture` -> :class:`Mixture`, :func:`mixture_estimates`,
  :func:`weight_grid`, :func:`search_mixtures` -> :class:`MixtureSearch`,
  :func:`optimize_mixture` -> :class:`MixtureOptimum`;
* overtaking and negative movements with paired intervals (:mod:`certify.stats._overtaking`):
  :func:`find_overtaking` -> :class:`Overtaking`, :func:`find_negative_movements` ->
  :class:`NegativeMovement`, :func:`per_example_table`, :func:`unit_mixture`;
* completions (Sec. 4): :func:`maxent_completion`, :func:`ldgp_completion`,
  :func:`complete`, :class:`Completion`;
* the whole pipeline: :func:`analyze` -> :class:`AnalysisReport` (``method="likelihood"`` or
  ``"two-call"``; each budget's :class:`IntervalEstimate`), :func:`parse_votes`,
  :func:`verdict_budgets`, :func:`two_call_view` (the two-call report held by an analysis, solving
  nothing again); the intervals it solved, ``AnalysisReport.likelihood``, are what
  :func:`certify.likelihood.certify_interval` turns into exact certificates;
* one row per target: :func:`target_rows` -> :class:`TargetRow` (interval, verdict on the gain over
  one call, forecast beyond the calls with :data:`FORECAST_MODELS`), :func:`report_frame` (a tidy
  pandas DataFrame; also ``AnalysisReport.to_frame()``); the vote curve: :func:`curve_data`,
  :func:`vote_curve_figure` (a matplotlib figure; also ``AnalysisReport.plot()``);
* study planning: :func:`plan_study` -> :class:`StudyPlan` of :class:`PlanRow` (:data:`DEFAULT_PLAN_REPS` studies
  per design, the width from :data:`DEFAULT_WIDTH_REPS` of them);
* the answer model (plurality beyond the recorded calls from the recorded wrong answers;
  model-based, never certified): :func:`plurality_model` -> :class:`ModelEstimate`,
  :func:`answer_patterns`, :func:`pattern_kernel`, :func:`model_plurality`;
* aggregates of k calls over recorded answers (plurality vote, pass@k): :func:`aggregate_estimates`
  (U-statistics, k up to the recorded calls) and :func:`aggregate_intervals` /
  :func:`certified_aggregate_intervals` (any k, beyond the recorded calls through the likelihood
  set, :data:`PASS_INF` = P(Q > 0) for k = inf), all -> :class:`AggregateEstimate`;
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
from ._interval import IntervalEstimate
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
from ._report import (
    METHODS,
    REPORT_SCHEMA_VERSION,
    AnalysisReport,
    BudgetRow,
    ObjectiveInterval,
    SolvedIntervals,
    Verdict,
    analyze,
    parse_votes,
    two_call_view,
    verdict_budgets,
)
from ._summary import FORECAST_MODELS, TargetRow, report_frame, target_rows
from ._vote_curve import curve_data, vote_curve_figure

__all__ = [
    "FORECAST_MODELS",
    "TargetRow",
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
    "IntervalEstimate",
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
