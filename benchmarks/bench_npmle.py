#!/usr/bin/env python3
"""The NPMLE alone, cold: this checkout against an earlier commit, and what the compiled code costs to load.

``npmle(cells)`` on fresh cells (no warm start) for every cell of the coverage grid's design
(3 laws x K in {2, 3, 5, 10, 20, 40} x N in {50, 200, 1000, 8192}), one data set each (fixed
seeds), solved by

1. **this checkout** and
2. **the old path** -- the package at commit ``--old`` (default OLD_COMMIT), extracted with
   ``git archive`` --

each in its own process, the two alternating ``--repeats`` times; a cell's time is the best
of its repeats and of ``--calls`` calls within a process. The error column is the largest
difference of the two log-likelihoods (both are within the NPMLE's gap of the supremum).

Then the first call of a fresh process, which loads numba and the compiled kernels: with an
empty cache (``NUMBA_CACHE_DIR`` a new folder: everything compiles) and with that cache warm.

Usage::

    python benchmarks/bench_npmle.py                 # about 2 minutes
    python benchmarks/bench_npmle.py --old 5a52693 --repeats 3
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_cold_end import alternate, comparison_table, datasets, medians_by_calls  # noqa: E402

#: main before the compiled quadratic program and the grid start.
OLD_COMMIT = "5a52693"
CALLS = (2, 3, 5, 10, 20, 40)
EXAMPLES = (50, 200, 1000, 8192)


def worker(calls: int) -> None:
    """Time every cell in this process (the package first on sys.path) and print JSON."""
    from certify.likelihood import cell_counts, npmle

    out = []
    for law, k, n, kk, successes in datasets(CALLS, EXAMPLES):
        cells = cell_counts(kk, successes)
        best = np.inf
        for _ in range(calls):
            t = time.perf_counter()
            fit = npmle(cells)
            best = min(best, time.perf_counter() - t)
        out.append({"law": law, "k": k, "n": n, "seconds": best, "loglik": fit.loglik})
    print(json.dumps({"file": sys.modules["certify"].__file__, "rows": out}))


def first_call() -> None:
    """The first NPMLE of a fresh process, which loads numba and the kernels, and the second."""
    t0 = time.perf_counter()
    from certify.likelihood import cell_counts, npmle

    q = np.random.default_rng(2).beta(2, 1, 1000)
    cells = cell_counts(np.full(1000, 10), np.random.default_rng(1).binomial(10, q))
    t1 = time.perf_counter()
    npmle(cells)
    t2 = time.perf_counter()
    npmle(cells)
    t3 = time.perf_counter()
    print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))


def run(tree: Path, *args: str, env: dict | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), **(env or {})}
    got = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], env=env, cwd=tree,
                         capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"the worker in {tree} failed:\n{got.stderr}")
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default=OLD_COMMIT, help=f"commit of the old path (default {OLD_COMMIT})")
    ap.add_argument("--repeats", type=int, default=2, help="alternating runs of each path (default 2)")
    ap.add_argument("--calls", type=int, default=3, help="fits of each data set per run (default 3)")
    ap.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--first-call", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if args.first_call:
        first_call()
        return
    print(f"# NPMLE benchmark -- Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start; old = {args.old}")
    with tempfile.TemporaryDirectory() as tmp:
        runs, best = alternate(Path(tmp), args.old, args.repeats, lambda tree: run(tree, "--worker", str(args.calls)))
        cache = Path(tmp) / "numba-cache"
        cache.mkdir()
        cold = run(ROOT, "--first-call", env={"NUMBA_CACHE_DIR": str(cache)})
        warm = run(ROOT, "--first-call", env={"NUMBA_CACHE_DIR": str(cache)})
    rows = runs["new"][0]["rows"]
    diff = [abs(r["loglik"] - o["loglik"]) for r, o in zip(rows, runs["old"][0]["rows"])]
    comparison_table(rows, ("law", "K", "N"), 1e3 * best["old"], 1e3 * best["new"], diff, "ms",
                     "abs diff of l(pi-hat)")
    medians_by_calls(rows, 1e3 * best["old"], 1e3 * best["new"], "ms")
    print(f"\nall {len(rows)} fits: {best['old'].sum():.3f} s old, {best['new'].sum():.3f} s new "
          f"({best['old'].sum() / best['new'].sum():.2f}x); largest difference of l(pi-hat) {max(diff):.1e}")
    for name, got in (("empty cache", cold), ("warm cache", warm)):
        print(f"first NPMLE of a process, {name}: import {1e3 * got['import']:.0f} ms, first fit "
              f"{1e3 * got['first']:.0f} ms (numba and the kernels loaded), second fit {1e3 * got['second']:.1f} ms")


if __name__ == "__main__":
    main()
