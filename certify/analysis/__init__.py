"""The analysis of a file of repeated calls: every aggregate a target of one likelihood set.

:func:`~certify.analyze` reads one group's calls and routes every target once -- the bit
majority, a plurality vote over answers and pass@k at each budget, and any polynomial
objective -- over one set of cells and one NPMLE (:mod:`certify.likelihood`), from the
estimators and regions of :mod:`certify.stats` and the aggregate intervals of
:mod:`certify.aggregates`. Its result,
:class:`AnalysisReport`, is one row per target (:class:`TargetRow`), each with one
:class:`certify.Interval`; its JSON is ``analyze-v3``, its text what ``certify analyze`` prints,
and its intervals can be proven by exact certificates (:func:`write_report_certificates`).

The analysis
------------

* :func:`~certify.analyze` -- the whole pipeline on one policy's bits (``method="likelihood"`` or ``"two-call"``).
* :class:`AnalysisReport` -- its result: ``rows``, ``to_dict`` / ``from_dict``, ``to_frame``, ``text``, ``plot``.
* :data:`METHODS` -- the interval methods of :func:`~certify.analyze`, ``("likelihood", "two-call")``.
* :data:`REPORT_SCHEMA_VERSION` -- schema version of an analysis report's JSON (``analyze-v3``).
* :class:`BudgetRow` -- everything reported for one majority budget (its interval, the ``--details`` columns).
* :class:`ObjectiveInterval` -- the 1 - alpha interval of a polynomial objective in q.
* :class:`SolvedIntervals` -- the likelihood-ratio intervals an analysis solved, kept for their certificates.
* :func:`parse_votes` -- vote budgets from ints or strings: positive counts or V_inf in any spelling.
* :func:`two_call_view` -- the two-call report held by an analysis, solving nothing again.

Verdicts on the gain over one call
----------------------------------

* :class:`Verdict` -- certified improvement of ``votes`` calls over one call at level 1 - alpha.
* :func:`verdict_budgets` -- the budgets whose gain V_k - V_1 gets a verdict.

Plurality and pass@k in the analysis
------------------------------------

* :class:`AggregateBudget` -- the interval of one aggregate at one budget (an entry of ``AnalysisReport.aggregates``).
* :data:`AGGREGATE_NAMES` -- every aggregate an analysis reports: ``("majority", "plurality", "pass@k")``.
* :func:`parse_aggregate` -- an aggregate's name from a spelling (``"pass"`` is pass@k), or a one-line error.

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

Certificates of an analysis
---------------------------

* :func:`write_report_certificates` -- exact certificates of an analysis's intervals; its proven rows certified.
* :func:`check_certifiable` -- refuse, before solving, data whose certificates the checker would refuse.
"""

from ._aggregates import AGGREGATE_NAMES, AggregateBudget, parse_aggregate
from ._analyze import METHODS, analyze, parse_votes, two_call_view
from ._certificates import check_certifiable, write_report_certificates
from ._results import REPORT_SCHEMA_VERSION, AnalysisReport, BudgetRow, ObjectiveInterval, SolvedIntervals
from ._rows import FORECAST_MODELS, AnalysisTarget, RowForecast, TargetRow, report_frame, target_rows
from ._verdict import Verdict, verdict_budgets
from ._vote_curve import curve_data, vote_curve_figure

__all__ = [
    "analyze",
    "AnalysisReport",
    "METHODS",
    "REPORT_SCHEMA_VERSION",
    "BudgetRow",
    "ObjectiveInterval",
    "SolvedIntervals",
    "parse_votes",
    "two_call_view",
    "Verdict",
    "verdict_budgets",
    "AggregateBudget",
    "AGGREGATE_NAMES",
    "parse_aggregate",
    "target_rows",
    "TargetRow",
    "AnalysisTarget",
    "RowForecast",
    "FORECAST_MODELS",
    "report_frame",
    "curve_data",
    "vote_curve_figure",
    "write_report_certificates",
    "check_certifiable",
]
