"""Wall time of the full ``certify demo`` (the real ``examples/embedded.toml``), stage by stage.

Runs the demo from a fresh temporary directory (new store, new report), exactly as a
user would after installing, through the public CLI entry point in a subprocess,
then reads the stage times (experiment, analysis, report) it prints. Prints a
Markdown table for ``benchmarks/RESULTS.md`` (section "Demo").

Usage: ``python benchmarks/bench_demo.py [--config examples/embedded.toml] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"
_STAGES = re.compile(r"time: experiment ([\d.]+) s, analysis ([\d.]+) s, report ([\d.]+) s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "examples" / "embedded.toml"))
    ap.add_argument("--keep", help="run in this directory and keep it (default: a temporary one)")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="certify-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCH, "demo", "--config", str(Path(args.config).resolve()),
                           "--out", "report", "--no-progress"], cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return proc.returncode
    m = _STAGES.search(proc.stdout)
    exp, ana, rep = (float(x) for x in m.groups())
    print(proc.stdout)
    print("| stage | seconds |")
    print("|---|---:|")
    print(f"| experiment (run the calls) | {exp:.1f} |")
    print(f"| analysis (per-policy analyses, mixtures, overtaking) | {ana:.1f} |")
    print(f"| report (tables, figures, certificates) | {rep:.1f} |")
    print(f"| total wall time incl. interpreter start and model load | {wall:.1f} |")
    print(f"\ncores: {os.cpu_count()}; work dir: {work}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
