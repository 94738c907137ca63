"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

* data, re-exported from :mod:`certify.readers` (formats, column roles, the ragged-count
  rule, inspect_ai logs and their score mapping are documented there): :func:`read_bits`,
  :func:`read_groups`, :func:`bits_from_array`, :class:`CallBits`; :class:`CallTable` /
  :func:`read_call_table` take the bits of a higher layer's source (a
  :class:`certify.experiment.RunStore`: readers and statistics never import the experiment);
  :class:`ColumnMap`, :class:`ReadInfo`, :class:`DataError`;
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
* every call (the K-call likelihood): :func:`cell_counts` / :class:`CellCounts`, the NPMLE
  :func:`npmle` -> :class:`LatentLaw`, likelihood-ratio intervals :func:`likelihood_interval`,
  :func:`likelihood_intervals`, :func:`likelihood_bound` -> :class:`LikelihoodInterval`,
  :class:`LikelihoodEnd` (re-exported from :mod:`certify.likelihood`, where the derivation lives);
* the whole pipeline: :func:`analyze` -> :class:`AnalysisReport` (``method="likelihood"`` or
  ``"two-call"``; each budget's :class:`IntervalEstimate`), :func:`parse_votes`,
  :func:`verdict_budgets`, :func:`two_call_view` (the two-call report held by an analysis, solving
  nothing again); exact certificates of likelihood intervals :func:`certified_intervals` and
  :func:`certify_interval` (of the intervals an analysis already solved, ``AnalysisReport.likelihood``;
  both also from :mod:`certify.likelihood`);
* study planning: :func:`plan_study` -> :class:`StudyPlan` of :class:`PlanRow` (:data:`DEFAULT_PLAN_REPS` studies per design);
* aggregates of k calls over recorded answers (plurality vote, pass@k): :func:`aggregate_estimates`
  (U-statistics, k up to the recorded calls) and :func:`aggregate_intervals` /
  :func:`certified_aggregate_intervals` (any k, beyond the recorded calls through the likelihood
  set, :data:`PASS_INF` = P(Q > 0) for k = inf), all -> :class:`AggregateEstimate`;
* inspect_ai score values: :func:`parse_score_map`; the infinite budget: :func:`is_infinite_budget`.
"""

from ._completions import COMPLETION_METHODS, Completion, complete, ldgp_completion, maxent_completion
from .._calls import CallBits, DataError, ReadInfo
from ..readers import (
    CallTable,
    ColumnMap,
    bits_from_array,
    parse_score_map,
    read_bits,
    read_call_table,
    read_groups,
)
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
from ._region import EmptyRegionError, ProjectedInterval, WaldRegion, project, project_many, wald_region
from ..likelihood import (
    CellCounts,
    LatentLaw,
    LikelihoodEnd,
    LikelihoodInterval,
    cell_counts,
    certified_intervals,
    certify_interval,
    is_infinite_budget,
    likelihood_bound,
    likelihood_interval,
    likelihood_intervals,
    npmle,
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
from ._report import (
    METHODS,
    REPORT_SCHEMA_VERSION,
    AnalysisReport,
    BudgetRow,
    IntervalEstimate,
    ObjectiveInterval,
    SolvedIntervals,
    Verdict,
    analyze,
    parse_votes,
    two_call_view,
    verdict_budgets,
)
from ._planning import DEFAULT_PLAN_REPS, PLAN_SCHEMA_VERSION, PlanRow, StudyPlan, plan_study
# repeated-call aggregates over recorded answers: plurality vote and pass@k
from .._aggregate_bounds import PASS_INF, pass_at_k_coefficients, pass_at_k_objective, plurality_bounds, plurality_upper_coefficients
from ._aggregates import AGGREGATES, AggregateEstimate, aggregate_estimates
from ._aggregate_intervals import aggregate_intervals, certified_aggregate_intervals
from ._aggregate_report import AGGREGATE_NAMES, AggregateBudget, parse_aggregate
from ._plurality import MAX_PLURALITY_CALLS, answer_counts, per_example_pass_at_k, per_example_plurality

__all__ = [
    "COMPLETION_METHODS",
    "DEFAULT_PLAN_REPS",
    "METHODS",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "AllCallEstimates",
    "AnalysisReport",
    "BudgetRow",
    "CallBits",
    "CallTable",
    "CellCounts",
    "ColumnMap",
    "Completion",
    "DataError",
    "EmpiricalVote",
    "EmptyRegionError",
    "IntervalEstimate",
    "SolvedIntervals",
    "LatentLaw",
    "LikelihoodEnd",
    "LikelihoodInterval",
    "Mixture",
    "MixtureData",
    "MixtureOptimum",
    "MixtureSearch",
    "NegativeMovement",
    "Overtaking",
    "PairedComparison",
    "PlanRow",
    "ProjectedInterval",
    "ReadInfo",
    "StudyPlan",
    "TwoCallEstimates",
    "Verdict",
    "WaldRegion",
    "all_call_estimates",
    "allocation_majority",
    "allocation_probabilities",
    "allocations",
    "analyze",
    "bits_from_array",
    "cell_counts",
    "certified_intervals",
    "certify_interval",
    "compare_budgets",
    "compare_policies",
    "complete",
    "empirical_vote_accuracy",
    "evaluate_mixture",
    "find_negative_movements",
    "find_overtaking",
    "is_infinite_budget",
    "ldgp_completion",
    "likelihood_bound",
    "likelihood_interval",
    "likelihood_intervals",
    "maxent_completion",
    "mixture_data",
    "mixture_estimates",
    "npmle",
    "optimize_mixture",
    "paired_comparison",
    "parse_score_map",
    "parse_votes",
    "two_call_view",
    "per_example_mixture_accuracy",
    "per_example_mixture_moments",
    "per_example_table",
    "per_example_vote_accuracy",
    "plan_study",
    "project",
    "project_many",
    "read_bits",
    "read_call_table",
    "read_groups",
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
]
