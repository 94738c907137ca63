#!/usr/bin/env python3
"""One BLAS thread against the BLAS default: the ``certify`` command's setting, measured.

The console script (``certify.cli.main.run``) sets ``OPENBLAS_NUM_THREADS=1`` and
``MKL_NUM_THREADS=1`` unless the caller set them. This script times the same work in child
processes with the variables unset (OpenBLAS then starts one thread per core) and set to 1, on
an idle machine and beside ``--neighbours`` busy processes (a pure-Python loop each: what another
job on a shared machine looks like), in one run:

1. ``certify.forecast`` of V9 and pass@10 at 1,000 x 10 (q ~ Beta(2, 1), the pooled default);
2. ``certify plan`` of a 200 x 3 pilot with ``--votes 5`` (the default plan, its worker processes
   inheriting the setting).

Wall seconds of each, best of ``--repeats``, and the ratio default / one thread. The results of
the two settings are compared too (they must be equal: the thread count changes no number here).

Usage::

    python benchmarks/bench_blas_threads.py [--repeats 1] [--neighbours 0 1 2] [--skip-plan]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BLAS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")

FORECAST = """
import json, sys, time
import numpy as np
from certify.forecast import forecast
from certify.likelihood import cell_counts
rng = np.random.default_rng(1)
q = rng.beta(2, 1, 1000)
cells = cell_counts(np.full(1000, 10), rng.binomial(10, q))
start = time.perf_counter()
r = forecast(cells, ["V9", "pass@10"])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "values": [[t.estimate, t.lower, t.upper] for t in r.targets]}))
"""


def _env(one_thread: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in BLAS}
    env["PYTHONPATH"] = str(ROOT)
    if one_thread:
        env["OPENBLAS_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    return env


def _neighbours(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def _forecast(one_thread: bool) -> tuple[float, list]:
    import json

    out = subprocess.run([sys.executable, "-c", FORECAST], env=_env(one_thread), capture_output=True, text=True,
                         check=True)
    got = json.loads(out.stdout.splitlines()[-1])
    return got["seconds"], got["values"]


def _plan(one_thread: bool, pilot: Path) -> tuple[float, str]:
    # main(), not the console script's run(): the environment alone says how many threads
    code = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, "plan", str(pilot), "--votes", "5"], env=_env(one_thread),
                         capture_output=True, text=True, check=True)
    return time.perf_counter() - start, out.stdout


def _pilot(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    q = rng.beta(2, 1, 200)
    bits = (rng.random((200, 3)) < q[:, None]).astype(int)
    path = folder / "pilot.csv"
    path.write_text("example_id,c0,c1,c2\n" + "".join(f"e{i},{','.join(map(str, r))}\n" for i, r in enumerate(bits)))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--neighbours", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--skip-plan", action="store_true")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; wall seconds, best of {args.repeats}\n")
    print("| work | busy neighbours | BLAS default (s) | one BLAS thread (s) | default / one | same results |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        pilot = _pilot(Path(tmp))
        for count in args.neighbours:
            work = [("forecast 1,000 x 10", _forecast)]
            if not args.skip_plan:
                work.append(("certify plan 200 x 3 --votes 5", lambda one: _plan(one, pilot)))
            for name, job in work:
                busy = _neighbours(count)
                try:
                    times, results = {}, {}
                    for one in (False, True):
                        runs = [job(one) for _ in range(args.repeats)]
                        times[one] = min(t for t, _ in runs)
                        results[one] = runs[0][1]
                finally:
                    for p in busy:
                        p.kill()
                        p.wait()
                same = "yes" if results[False] == results[True] else "NO"
                print(f"| {name} | {count} | {times[False]:.1f} | {times[True]:.1f} | "
                      f"{times[False] / times[True]:.2f} | {same} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
