"""``certify experiment report``: the full report of a run store (wired in :mod:`certify.cli.experiment`)."""

from __future__ import annotations

import argparse

__all__ = ["add_report_parser"]


def add_report_parser(sub) -> None:
    """Add the ``report`` subcommand to the ``experiment`` group."""
    rp = sub.add_parser("report", help="tables, figures and certificates of a run store (Markdown, CSV, LaTeX)")
    rp.add_argument("store", help="SQLite run store (or any file `certify analyze` reads)")
    rp.add_argument("-o", "--out", required=True, help="report directory (files inside are replaced)")
    rp.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (default 0.05)")
    rp.add_argument("--step", type=float, default=0.05, help="mixture weight-grid step (default 0.05)")
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.set_defaults(run=_report)


def _report(args: argparse.Namespace) -> int:
    from .._errors import InputError
    from .._extras import require
    from ._build import write_report

    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha {args.alpha!r} must be in (0, 1)")
    # Before any work: a missing extra should not surface after minutes of analysis.
    require("matplotlib", "certify experiment report (figures)")
    if not args.no_progress:
        require("tqdm", "certify experiment report (progress bar; --no-progress goes without)")
    res = write_report(args.store, args.out, alpha=args.alpha, step=args.step, progress=not args.no_progress)
    print(f"wrote {len(res.tables)} tables, {len(res.figures)} figure files and {res.certificates} certificates")
    print(f"report: {res.report_path}")
    return 0
