"""``certify experiment``: run, inspect and export repeated-call LLM experiments."""

from __future__ import annotations

import signal
import sys

from .report import add_report_arguments

__all__ = ["register"]


#: What an interrupted run prints after 'interrupted' (the store keeps every recorded call).
RESUME_HINT = "every call recorded so far is kept; run the same command again to resume"


def register(subparsers) -> None:
    """Add ``experiment`` with its ``run``, ``status``, ``export`` and ``report`` subcommands."""
    p = subparsers.add_parser(
        "experiment",
        help="run repeated-call LLM experiments and export their correctness bits",
        description="Run the paper's repeated-call protocol, resumably, and export correctness bits.",
    )
    sub = p.add_subparsers(dest="experiment_command", metavar="SUBCOMMAND", parser_class=type(p))
    sub.required = True

    run = sub.add_parser("run", help="make every call of a config that its store lacks (resumes)")
    run.add_argument("config", help="experiment TOML file")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(run=_run, on_interrupt=RESUME_HINT)

    st = sub.add_parser("status", help="progress, invalid answers and accuracy per dataset and policy")
    st.add_argument("store", help="SQLite run store")
    st.set_defaults(run=_status)

    ex = sub.add_parser("export", help="write correctness bits to CSV or Parquet")
    ex.add_argument("store", help="SQLite run store")
    ex.add_argument("--format", choices=("csv", "parquet"), default="csv")
    ex.add_argument(
        "--layout",
        choices=("wide", "long"),
        default="wide",
        help="wide: one row per example with bits b0..b{K-1}; long: one row per call",
    )
    ex.add_argument("-o", "--output", required=True, help="destination file (an existing one is kept unless --force)")
    ex.add_argument("--force", action="store_true", help="replace an existing -o file")
    ex.set_defaults(run=_export)

    rp = sub.add_parser(
        "report", help="tables, figures and certificates of a run store (the same as `certify report STORE`)"
    )
    add_report_arguments(rp, source_help="SQLite run store (or any file `certify analyze` reads)")


def _run(args) -> int:
    from ..experiment import load_config, run_experiment

    cfg = load_config(args.config)
    # SIGTERM stops like Ctrl-C: recorded calls stay, the next run resumes.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    summary = run_experiment(cfg, progress=not args.no_progress)
    print(
        f"{cfg.name}: recorded {summary.recorded} calls ({summary.invalid} invalid), "
        f"{summary.skipped} already in {cfg.store}, {summary.seconds:.1f} s"
    )
    return 0


def _status(args) -> int:
    from ..experiment import RunStore, status

    # Read only: a store on read-only media is read as it is, and nothing is ever written.
    with RunStore(args.store, read_only=True) as store:
        rows = status(store)
        name = store.meta("experiment") or "?"
        serving = store.serving_records()
    print(f"experiment {name}: {args.store}")
    header = f"{'dataset':<14} {'policy':<24} {'recorded':>15} {'invalid':>8} {'accuracy':>9} {'mean q':>7}"
    print(header)
    for r in rows:
        done = f"{r.recorded}/{r.expected}"
        acc = f"{r.accuracy:.4f}" if r.accuracy is not None else "-"
        q = f"{r.mean_q:.4f}" if r.mean_q is not None else "-"
        print(f"{r.dataset:<14} {r.policy:<24} {done:>15} {r.invalid:>8} {acc:>9} {q:>7}")
    total = sum(r.recorded for r in rows), sum(r.expected for r in rows)
    print(f"total {total[0]}/{total[1]} calls" + (" (complete)" if total[0] >= total[1] else ""))
    for policy, facts in sorted(serving.items()):
        print(
            f"served {policy}: response_format {facts.get('response_format')} "
            f"(setting {facts.get('response_format_setting')}), chat template {facts.get('chat_template')}"
        )
    return 0


def _export(args) -> int:
    from ..experiment import RunStore, export_bits

    with RunStore(args.store, read_only=True) as store:
        n = export_bits(store, args.output, fmt=args.format, layout=args.layout, force=args.force)
    print(f"wrote {n} rows to {args.output}", file=sys.stderr)
    return 0
