#!/usr/bin/env python3
"""``certify analyze FILE --certificates DIR``: two source trees timed against each other on one file.

The file is generated here with a fixed seed: 1000 examples x 10 calls, latent accuracies
q_i ~ Beta(3, 2). Each repetition runs the command once with each tree on PYTHONPATH
(``--before`` and ``--after``, alternating, a fresh output folder each time, the default
budgets 3, 5 and V_inf), so a change in the machine's load affects both alike. The script
prints every wall time, the medians and their ratio before / after.

The point of the comparison: ``analyze --certificates`` used to rebuild the objectives and
call the likelihood solver a second time for the certificates (the NPMLE and every interval
end solved twice); now the certificates are built from the intervals the analysis solved.

Usage::

    python3 benchmarks/bench_analyze_certificates.py --before /path/to/old/tree [--after .] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES, CALLS, SEED = 1000, 10, 20261125


def write_data(path: Path) -> Path:
    rng = np.random.default_rng(SEED)
    q = rng.beta(3.0, 2.0, EXAMPLES)
    bits = (rng.random((EXAMPLES, CALLS)) < q[:, None]).astype(int)
    lines = ["example_id," + ",".join(f"call{j + 1}" for j in range(CALLS))]
    lines += [f"e{i}," + ",".join(map(str, row)) for i, row in enumerate(bits)]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(tree: Path, data: Path, out: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-c", "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))",
           "analyze", str(data), "--certificates", str(out)]
    start = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if r.returncode != 0:
        raise SystemExit(f"{tree}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
    return seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="source tree of the earlier version")
    p.add_argument("--after", type=Path, default=ROOT, help="source tree of this version (default: this repository)")
    p.add_argument("--repeat", type=int, default=3, help="repetitions per tree (default 3)")
    args = p.parse_args()
    times: dict[str, list[float]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        data = write_data(Path(tmp) / f"calls_{EXAMPLES}x{CALLS}.csv")
        for i in range(args.repeat):
            for name, tree in (("before", args.before), ("after", args.after)):
                seconds = run(tree.resolve(), data, Path(tmp) / f"certs_{name}_{i}")
                times[name].append(seconds)
                print(f"run {i + 1} {name:6s} {seconds:7.2f} s", flush=True)
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    print(f"\n{EXAMPLES} examples x {CALLS} calls, `certify analyze FILE --certificates DIR`, {args.repeat} runs each")
    print(f"median before {before:.2f} s, after {after:.2f} s: {before / after:.2f}x faster")


if __name__ == "__main__":
    main()
