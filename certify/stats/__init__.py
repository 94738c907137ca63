"""Statistics on correctness bits: from repeated-call data to certified vote accuracy.

* data: :func:`read_bits`, :func:`read_groups`, :func:`bits_from_array`, :class:`CallBits`,
  :class:`ColumnMap`, :class:`ReadInfo`, :class:`DataError` (formats, column roles and the
  ragged-count rule in :mod:`certify.stats._data`; inspect_ai logs, their status rule and
  score mapping in :mod:`certify.stats._inspect_log`);
* estimators: :func:`two_call_estimates` (paper Section 4.4), :func:`two_call_from_summary`,
  :func:`all_call_estimates` (U-statistics from every call), with
  :class:`TwoCallEstimates`, :class:`AllCallEstimates`;
* regions: :func:`wald_region` (eq. (wald-region-main)), :func:`project` / :func:`project_many`
  (interval hull of eq. (projected-set-main)), :class:`WaldRegion`, :class:`ProjectedInterval`,
  :class:`EmptyRegionError`;
* empirical votes: :func:`empirical_vote_accuracy`, :func:`per_example_vote_accuracy`,
  :func:`compare_budgets`, :func:`compare_policies`;
* completions (Sec. 4): :func:`maxent_completion`, :func:`ldgp_completion`,
  :func:`complete`, :class:`Completion`;
* every call (the K-call likelihood): :func:`cell_counts` / :class:`CellCounts`, the NPMLE
  :func:`npmle` -> :class:`LatentLaw`, likelihood-ratio intervals :func:`likelihood_interval`,
  :func:`likelihood_intervals`, :func:`likelihood_bound` -> :class:`LikelihoodInterval`,
  :class:`LikelihoodEnd` (derivation in :mod:`certify.stats._likelihood`);
* the whole pipeline: :func:`analyze` -> :class:`AnalysisReport` (``method="likelihood"`` or
  ``"two-call"``; each budget's :class:`IntervalEstimate`).
"""

from ._completions import COMPLETION_METHODS, Completion, complete, ldgp_completion, maxent_completion
from ._data import CallBits, ColumnMap, DataError, ReadInfo, bits_from_array, read_bits, read_groups
from ._empirical import (
    EmpiricalVote,
    PairedComparison,
    compare_budgets,
    compare_policies,
    empirical_vote_accuracy,
    per_example_vote_accuracy,
)
from ._estimators import (
    AllCallEstimates,
    TwoCallEstimates,
    all_call_estimates,
    two_call_estimates,
    two_call_from_summary,
)
from ._region import EmptyRegionError, ProjectedInterval, WaldRegion, project, project_many, wald_region
from ._likelihood import (
    CellCounts,
    LatentLaw,
    LikelihoodEnd,
    LikelihoodInterval,
    cell_counts,
    likelihood_bound,
    likelihood_interval,
    likelihood_intervals,
    npmle,
)
from ._report import METHODS, REPORT_SCHEMA_VERSION, AnalysisReport, BudgetRow, IntervalEstimate, Verdict, analyze, parse_votes

__all__ = [
    "COMPLETION_METHODS",
    "METHODS",
    "REPORT_SCHEMA_VERSION",
    "AllCallEstimates",
    "AnalysisReport",
    "BudgetRow",
    "CallBits",
    "CellCounts",
    "ColumnMap",
    "Completion",
    "DataError",
    "EmpiricalVote",
    "EmptyRegionError",
    "IntervalEstimate",
    "LatentLaw",
    "LikelihoodEnd",
    "LikelihoodInterval",
    "PairedComparison",
    "ProjectedInterval",
    "ReadInfo",
    "TwoCallEstimates",
    "Verdict",
    "WaldRegion",
    "all_call_estimates",
    "analyze",
    "bits_from_array",
    "cell_counts",
    "compare_budgets",
    "compare_policies",
    "complete",
    "empirical_vote_accuracy",
    "ldgp_completion",
    "likelihood_bound",
    "likelihood_interval",
    "likelihood_intervals",
    "maxent_completion",
    "npmle",
    "parse_votes",
    "per_example_vote_accuracy",
    "project",
    "project_many",
    "read_bits",
    "read_groups",
    "two_call_estimates",
    "two_call_from_summary",
    "wald_region",
]
