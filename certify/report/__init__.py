"""Reproducing the paper end to end: tables, figures, reports and the demo.

* the mixture and overtaking statistics it shows are in :mod:`certify.stats`
  (:func:`~certify.stats.search_mixtures`, :func:`~certify.stats.find_overtaking`, ...);
* tables (Markdown, CSV, LaTeX): :class:`Table` of :class:`Column` (their renderings),
  :func:`policy_table`, :func:`policy_interval_table`, :func:`more_calls_table`,
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
from ._table_format import Column, Table
from ._tables import (
    completion_error_table,
    mixture_table,
    more_calls_table,
    negative_table,
    optimum_table,
    overtaking_table,
    policy_interval_table,
    policy_table,
    se_range_table,
)

__all__ = [
    "Column",
    "DemoResult",
    "ReportResult",
    "Table",
    "analyze_store",
    "completion_error_table",
    "default_config_path",
    "gain_map",
    "mixture_plane",
    "mixture_table",
    "negative_table",
    "optimum_table",
    "overtaking_table",
    "more_calls_table",
    "policy_interval_table",
    "policy_table",
    "region_outline",
    "run_demo",
    "se_range_table",
    "summary_lines",
    "true_vote_accuracy",
    "votability_plane",
    "vote_curves",
    "width_maps",
    "write_report",
]
