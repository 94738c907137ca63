"""Reproducing the paper end to end: tables, figures, reports and the demo.

The mixture and overtaking statistics it shows are in :mod:`certify.stats`
(:func:`~certify.stats.search_mixtures`, :func:`~certify.stats.find_overtaking`, ...).

Tables (Markdown, CSV, LaTeX)
-----------------------------

* :class:`Table` -- a titled table of raw values with Markdown, CSV and LaTeX renderings.
* :class:`Column` -- a table column.
* :func:`policy_table` -- per-policy estimates: the first half of the paper's "Detailed LLM table".
* :func:`policy_interval_table` -- certified two-call intervals per policy and budget: its second half.
* :func:`more_calls_table` -- what more votes can still bring, from the K-call likelihood-ratio intervals.
* :func:`forecast_table` -- what more votes are likely to bring under a family the data do not reject (not certified).
* :func:`se_range_table` -- minimum, median and maximum example-level standard errors of the two-call estimates.
* :func:`completion_error_table` -- errors of point summaries against the empirical 3- and 5-vote accuracies.
* :func:`mixture_table` -- mixtures selected by k-vote gain or absolute accuracy (Appendix mixtures).
* :func:`optimum_table` -- optimizer results over the whole weight simplex, with the sharp lower bound.
* :func:`overtaking_table` -- overtaking pairs with paired 95% intervals at 1, 3 and 5 votes.
* :func:`negative_table` -- negative movements: budget steps where voting hurts, with paired 95% intervals.

Figures (PNG and PDF)
---------------------

* :func:`width_maps` -- identified widths U_1 - L_1 (three votes) and U_inf - L_inf over (mu, rho).
* :func:`gain_map` -- identified least three-vote gain L_1 - mu over known (mu, rho) (Theorem 4.2).
* :func:`votability_plane` -- policies in the (mu-hat, rho-hat) plane with their Wald regions (Section 4.4).
* :func:`region_outline` -- the boundary of a feasible Wald region C_alpha in the (mu, rho) plane.
* :func:`mixture_plane` -- mixture-grid policies, base policies and the selected mixtures, per data set.
* :func:`vote_curves` -- the vote-curve figure (:func:`certify.analysis.vote_curve_figure`) as PNG and PDF.

The report
----------

* :func:`analyze_store` -- every analysis behind the report, as result objects.
* :func:`write_report` -- write the full report of a run store.
* :class:`ReportResult` -- what :func:`write_report` wrote.
* :func:`true_vote_accuracy` -- the run's true V of each ``dataset/policy`` of a ``choice``-mode store (eq. (main-vn)).

The demo (``certify demo``)
---------------------------

* :func:`run_demo` -- run the demo experiment (resuming its store), analyse it and write the report.
* :class:`DemoResult` -- what :func:`run_demo` did.
* :func:`summary_lines` -- a short fixed-width summary table, one line per policy, plus the report path.
* :func:`default_config_path` -- the demo config: ``examples/embedded.toml`` of a checkout, else the packaged copy.
"""

from ._build import ReportResult, analyze_store, true_vote_accuracy, write_report
from ._demo import DemoResult, default_config_path, run_demo, summary_lines
from ._figures import gain_map, mixture_plane, region_outline, votability_plane, vote_curves, width_maps
from ._table_format import Column, Table
from ._tables import (
    completion_error_table,
    forecast_table,
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
    "forecast_table",
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
