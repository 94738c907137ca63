"""Reproducing the paper end to end: tables, mixtures, overtaking, figures, reports and the demo.

* mixtures (Section 6 "Policy design consequences", Appendix "Randomized mixture
  policies"; computed in :mod:`certify.stats`, re-exported here): :func:`mixture_data`, exact :func:`per_example_mixture_accuracy` /
  :func:`evaluate_mixture` (multinomial allocation x hypergeometric draws, no
  simulation), :func:`mixture_estimates` (Section 4.4 inputs), :func:`search_mixtures`
  (pair/triple weight grid), :func:`optimize_mixture` (whole simplex, certified L_n);
* overtaking and negative movements with paired intervals (also from :mod:`certify.stats`): :func:`find_overtaking`,
  :func:`find_negative_movements`;
* tables (Markdown, CSV, LaTeX): :class:`Table`, :func:`policy_table`, :func:`policy_interval_table`,
  :func:`more_calls_table`,
  :func:`se_range_table`, :func:`completion_error_table`, :func:`mixture_table`,
  :func:`overtaking_table`, :func:`negative_table`;
* figures (PNG and PDF): :func:`width_maps`, :func:`votability_plane` (with each policy's
  two-call Wald region, :func:`region_outline`), :func:`gain_map`, :func:`mixture_plane`,
  :func:`vote_curves`;
* the report: :func:`analyze_store`, :func:`write_report` -> :class:`ReportResult`;
* the demo: :func:`run_demo` -> :class:`DemoResult`, :func:`summary_lines` (``certify demo``).
"""

from ._build import ReportResult, analyze_store, true_vote_accuracy, write_report
from ._demo import DemoResult, default_config_path, run_demo, summary_lines
from ._figures import gain_map, mixture_plane, region_outline, votability_plane, vote_curves, width_maps
# The mixture and overtaking statistics live in certify.stats; re-exported here for the report's users.
from ..stats import (
    Mixture,
    MixtureData,
    MixtureOptimum,
    MixtureSearch,
    evaluate_mixture,
    mixture_data,
    mixture_estimates,
    optimize_mixture,
    per_example_mixture_accuracy,
    per_example_mixture_moments,
    search_mixtures,
    weight_grid,
)
from ..stats import NegativeMovement, Overtaking, find_negative_movements, find_overtaking
from ._tables import (
    Column,
    Table,
    completion_error_table,
    mixture_table,
    negative_table,
    optimum_table,
    overtaking_table,
    more_calls_table,
    policy_interval_table,
    policy_table,
    se_range_table,
)

__all__ = [
    "Column",
    "DemoResult",
    "Mixture",
    "MixtureData",
    "MixtureOptimum",
    "MixtureSearch",
    "NegativeMovement",
    "Overtaking",
    "ReportResult",
    "Table",
    "analyze_store",
    "completion_error_table",
    "default_config_path",
    "evaluate_mixture",
    "find_negative_movements",
    "find_overtaking",
    "gain_map",
    "mixture_data",
    "mixture_estimates",
    "mixture_plane",
    "mixture_table",
    "negative_table",
    "optimize_mixture",
    "optimum_table",
    "overtaking_table",
    "per_example_mixture_accuracy",
    "per_example_mixture_moments",
    "more_calls_table",
    "policy_interval_table",
    "policy_table",
    "region_outline",
    "run_demo",
    "se_range_table",
    "search_mixtures",
    "summary_lines",
    "true_vote_accuracy",
    "votability_plane",
    "vote_curves",
    "weight_grid",
    "width_maps",
    "write_report",
]
