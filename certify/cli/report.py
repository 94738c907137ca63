"""``certify report FILE -o DIR``: tables, figures and certificates of any file ``certify analyze`` reads.

The same report is ``certify experiment report STORE -o DIR`` for a run store; both parse
their arguments with :func:`add_report_arguments` and run :func:`run_report`, so the two
spellings cannot drift apart.
"""

from __future__ import annotations

from .._extras import require
from .._validation import check_alpha

__all__ = ["add_report_arguments", "register", "run_report"]


def register(subparsers) -> None:
    """Add the ``report`` command."""
    p = subparsers.add_parser(
        "report",
        help="tables, figures and certificates of a log, a table or a run store (Markdown, CSV, LaTeX)",
        description=(
            "Write a report folder for any file `certify analyze` reads (an inspect_ai log, an lm-eval samples "
            "file, a CSV/TSV/JSONL/Parquet table of calls, a run store): report.md with the verdict tables, the "
            "vote-curve and other figures, the tables as CSV and LaTeX, and an exact certificate behind every "
            "two-call interval end."
        ),
    )
    add_report_arguments(p, source_help="a log, a table of calls or a run store (any file `certify analyze` reads)")


def add_report_arguments(p, *, source_help: str) -> None:
    """The report's arguments, on ``p`` (``certify report`` and ``certify experiment report``)."""
    p.add_argument("store", metavar="FILE", help=source_help)
    p.add_argument(
        "-o",
        "--out",
        required=True,
        help="report directory: new, empty or an earlier report, which is replaced whole "
        "(written beside it, then renamed into place)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (default 0.05)")
    p.add_argument("--step", type=float, default=0.05, help="mixture weight-grid step (default 0.05)")
    p.add_argument(
        "--no-forecast",
        action="store_true",
        help="no forecast beyond the recorded calls (by default the best parametric family the data do not "
        "reject forecasts them: model-based, NOT certified, drawn and tabled apart from the certified intervals)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_report)


def run_report(args) -> int:
    """Write the report (:func:`certify.report.write_report`) and print where it is."""
    check_alpha(args.alpha, "--alpha")
    # Before any work: a missing extra should not surface after minutes of analysis.
    require("matplotlib", "certify report (figures)")
    if not args.no_progress:
        require("tqdm", "certify report (progress bar; --no-progress goes without)")
    from ..report import write_report

    res = write_report(
        args.store,
        args.out,
        alpha=args.alpha,
        step=args.step,
        progress=not args.no_progress,
        forecast=not args.no_forecast,
    )
    print(f"wrote {len(res.tables)} tables, {len(res.figures)} figure files and {res.certificates} certificates")
    print(f"report: {res.report_path}")
    return 0
