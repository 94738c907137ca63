#!/usr/bin/env python3
"""One likelihood-ratio interval from cold, NPMLE included: this checkout against an earlier commit and cvxpy.

What a coverage simulation pays per data set: ``likelihood_interval(cells, objective)`` on
fresh cells (a new problem, no warm start), which solves the NPMLE and both ends. For every
cell of the coverage grid's design (3 laws x K in {2, 3, 5, 10} x N in {50, 200, 1000,
8192}) and the objectives V3 and V101, one data set (fixed seeds) is solved by

1. **this checkout** and
2. **the old path** -- the package at commit ``--old`` (default OLD_COMMIT), extracted with
   ``git archive`` --

each in its own process, the two processes alternating ``--repeats`` times; a cell's time is
the best of its repeats (the machine may be shared), reported per end (the interval's time / 2).
The error column is the largest |new - old| of the two ends. Beside them, the cvxpy grid
program of ``bench_likelihood.py`` (2001 atoms, exponential cone, Clarabel; its own grid
NPMLE) for one end of V3 at two cells.

Then the first interval of a fresh process, which loads numba and the compiled kernels: with an
empty cache (``NUMBA_CACHE_DIR`` a new folder: everything compiles) and with that cache warm.

With ``--warm``, what a study plan pays per data set instead: a sequence of WARM_SETS data sets
from one law (beta) per K in {2, 3, 5, 10} at N = 8192, each solved with the previous one's
NPMLE and ends as starts (:class:`certify.likelihood.WarmStarts`, as ``certify plan`` does), V3
only; a data set's time per end is half its interval's (NPMLE included), the median over the
sequence after its first (cold) data set, best of the repeats.

Usage::

    python benchmarks/bench_cold_end.py                 # full run (about 3 minutes)
    python benchmarks/bench_cold_end.py --repeats 1     # quicker
    python benchmarks/bench_cold_end.py --warm --old 5a52693
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: main before the conic starts of the NPMLE and the ends.
OLD_COMMIT = "06e0308"
LAWS = ("beta", "constant", "near-0-1")
CALLS = (2, 3, 5, 10)
EXAMPLES = (50, 200, 1000, 8192)
OBJECTIVES = (3, 101)


def latent(law: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if law == "beta":
        return rng.beta(2.0, 1.0, n)
    if law == "constant":
        return np.full(n, 0.7)
    return np.where(rng.random(n) < 0.3, 0.03, 0.97)  # near-0-1: most examples nearly always or never solved


def datasets(calls: tuple[int, ...] = CALLS, examples: tuple[int, ...] = EXAMPLES):
    """(law, K, N, calls, successes) of one data set per cell of the design (fixed seeds)."""
    for i, law in enumerate(LAWS):
        for k in calls:
            for n in examples:
                rng = np.random.default_rng([2026, i, k, n])
                yield law, k, n, np.full(n, k), rng.binomial(k, latent(law, n, rng))


def worker() -> None:
    """Time every cell in this process (the package first on sys.path) and print JSON."""
    from certify.likelihood import cell_counts, likelihood_interval

    # one untimed interval first: numba's import and the kernels' cache load (0.2-0.5 s, once per
    # process) would otherwise fall on whichever cell first fits a law on a grid
    likelihood_interval(cell_counts(np.full(200, 10), np.random.default_rng(0).binomial(10, 0.6, 200)), 3)
    out = []
    for law, k, n, calls, successes in datasets():
        cells = cell_counts(calls, successes)
        for votes in OBJECTIVES:
            t = time.perf_counter()
            iv = likelihood_interval(cells, votes)
            out.append({"law": law, "k": k, "n": n, "votes": votes, "seconds": time.perf_counter() - t,
                        "ends": [iv.lower.value, iv.upper.value]})
    print(json.dumps({"file": sys.modules["certify"].__file__, "rows": out}))


#: Data sets of one warm sequence (``--warm``).
WARM_SETS = 40


def warm_worker() -> None:
    """Time warm-started intervals in this process (the package first on sys.path) and print JSON."""
    from certify.likelihood import WarmStarts, cell_counts, likelihood_intervals

    out = []
    for k in CALLS:
        warm = WarmStarts()
        times, ends = [], []
        for i in range(WARM_SETS):
            rng = np.random.default_rng([2027, k, i])
            cells = cell_counts(np.full(8192, k), rng.binomial(k, latent("beta", 8192, rng)))
            t = time.perf_counter()
            (iv,) = likelihood_intervals(cells, [3], warm=warm)
            times.append(time.perf_counter() - t)
            ends.append([iv.lower.value, iv.upper.value])
        out.append({"law": "beta", "k": k, "n": 8192, "votes": 3, "seconds": statistics.median(times[1:]),
                    "ends": ends})
    print(json.dumps({"file": sys.modules["certify"].__file__, "rows": out}))


def first_call() -> None:
    """The first interval of a fresh process (numba and every kernel loaded or compiled), then a second."""
    t0 = time.perf_counter()
    from certify.likelihood import cell_counts, likelihood_interval

    cells = cell_counts(np.full(1000, 10), np.random.default_rng(1).binomial(10, np.random.default_rng(2).beta(2, 1, 1000)))
    t1 = time.perf_counter()
    likelihood_interval(cells, 3)
    t2 = time.perf_counter()
    likelihood_interval(cells, 3)
    t3 = time.perf_counter()
    print(json.dumps({"file": sys.modules["certify"].__file__, "import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))


def run_worker(tree: Path, mode: str = "--worker", env: dict | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), **(env or {})}
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), mode], env=env, cwd=tree,
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"the worker in {tree} failed:\n{run.stderr}")
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["file"].startswith(str(tree)), got["file"]
    return got


def old_tree(folder: Path, commit: str) -> Path:
    archive = folder / "old.tar"
    try:
        with open(archive, "wb") as out:
            subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "certify"], stdout=out, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"cannot extract commit {commit} from {ROOT} ({exc}); a full clone of the repository is needed")
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "old", filter="data")
    return folder / "old"


def alternate(folder: Path, commit: str, repeats: int, run) -> tuple[dict, dict]:
    """``run(tree)`` on the package at ``commit`` (extracted into ``folder``) and on this checkout,
    alternating ``repeats`` times. Returns the runs of each ("old", "new") and each row's best
    ``seconds`` over them."""
    old = old_tree(folder, commit)
    runs: dict[str, list] = {"old": [], "new": []}
    for _ in range(repeats):
        runs["old"].append(run(old))
        runs["new"].append(run(ROOT))
    best = {path: np.min([[r["seconds"] for r in one["rows"]] for one in got], axis=0) for path, got in runs.items()}
    return runs, best


def comparison_table(rows: list[dict], keys: tuple[str, ...], old_ms, new_ms, diff, unit: str, what: str,
                     digits: int = 2) -> None:
    """Print a markdown table: each row's ``keys``, its old and new times in ms (``unit`` in the
    heading), their ratio, and ``diff`` (the largest difference of the results, ``what``)."""
    align = ["---" if k == "law" else "---:" for k in keys]
    print(f"\n| {' | '.join(keys)} | old {unit} | new {unit} | old / new | {what} |")
    print(f"|{'|'.join(align)}|---:|---:|---:|---:|")
    for r, o, n, d in zip(rows, old_ms, new_ms, diff):
        lead = " | ".join(str(r[k.lower()]) for k in keys)
        print(f"| {lead} | {o:.{digits}f} | {n:.{digits}f} | {o / n:.2f} | {d:.1e} |")


def medians_by_calls(rows: list[dict], old_ms: np.ndarray, new_ms: np.ndarray, what: str) -> None:
    """Print, for each number of calls K among ``rows``, the median old and new times and their ratio."""
    for k in sorted({r["k"] for r in rows}):
        sel = [i for i, r in enumerate(rows) if r["k"] == k]
        o, n = old_ms[sel], new_ms[sel]
        print(f"\nK = {k}: median {what} old {statistics.median(o):.2f}, new {statistics.median(n):.2f} "
              f"(largest {n.max():.2f}); median ratio old / new {statistics.median(o / n):.2f}")


def cvxpy_end_ms(k: int, n: int) -> tuple[float, float]:
    """One V3 lower end by the cvxpy grid program (its own NPMLE first), in ms, and its value."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT))
    from bench_likelihood import GridProgram, vote

    from certify.likelihood import cell_counts, critical_value

    law, kk, nn, calls, successes = next(d for d in datasets() if d[0] == "beta" and d[1] == k and d[2] == n)
    cells = cell_counts(calls, successes)
    t = time.perf_counter()
    prog = GridProgram(cells)
    l_hat, _ = prog.npmle()
    value, _ = prog.end(vote(3, prog.x), "lower", l_hat - critical_value(0.05, 1, n=n, dim=k), accept_inaccurate=True)
    return 1e3 * (time.perf_counter() - t), value


def warm_main(args) -> None:
    print(f"# warm interval benchmark -- Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start; old = {args.old}; {WARM_SETS} data sets per K")
    with tempfile.TemporaryDirectory() as tmp:
        runs, best = alternate(Path(tmp), args.old, args.repeats, lambda tree: run_worker(tree, "--warm-worker"))
    rows = runs["new"][0]["rows"]
    diff = [max(abs(a - b) for x, y in zip(r["ends"], o["ends"]) for a, b in zip(x, y))
            for r, o in zip(rows, runs["old"][0]["rows"])]
    comparison_table(rows, ("K", "N"), 500 * best["old"], 500 * best["new"], diff, "ms / end",
                     "max abs diff of the ends")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default=OLD_COMMIT, help=f"commit of the old path (default {OLD_COMMIT})")
    ap.add_argument("--repeats", type=int, default=3, help="alternating runs of each path (default 3)")
    ap.add_argument("--warm", action="store_true", help="time warm-started sequences instead (module docstring)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--first-call", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    if args.first_call:
        first_call()
        return
    if args.warm_worker:
        warm_worker()
        return
    if args.warm:
        warm_main(args)
        return
    print(f"# cold interval benchmark -- Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start; old = {args.old}")
    with tempfile.TemporaryDirectory() as tmp:
        runs, best = alternate(Path(tmp), args.old, args.repeats, run_worker)
        cache = Path(tmp) / "numba-cache"
        cache.mkdir()
        first = [run_worker(ROOT, "--first-call", {"NUMBA_CACHE_DIR": str(cache)}) for _ in range(2)]
    rows = runs["new"][0]["rows"]
    diff = [max(abs(a - b) for a, b in zip(r["ends"], o["ends"])) for r, o in zip(rows, runs["old"][0]["rows"])]
    comparison_table(rows, ("law", "K", "N", "votes"), 500 * best["old"], 500 * best["new"], diff, "ms / end",
                     "max abs diff of the ends", digits=1)
    medians_by_calls(rows, 500 * best["old"], 500 * best["new"], "ms per end")
    total_old, total_new = 500 * best["old"].sum(), 500 * best["new"].sum()
    print(f"\nall {len(rows)} intervals: {2 * total_old / 1e3:.2f} s old, {2 * total_new / 1e3:.2f} s new "
          f"({total_old / total_new:.2f}x); largest difference of an end {max(diff):.1e}")
    for name, got in zip(("empty cache", "warm cache"), first):
        print(f"first interval of a process (K = 10, N = 1000, V3), {name}: import {1e3 * got['import']:.0f} ms, "
              f"first {1e3 * got['first']:.0f} ms (numba and the kernels loaded), second {1e3 * got['second']:.1f} ms")
    for k, n in ((3, 200), (5, 1000), (10, 8192)):
        try:
            ms, value = cvxpy_end_ms(k, n)
        except Exception as exc:  # Clarabel through cvxpy fails on some grids: say so, do not stop
            print(f"cvxpy grid program, V3 lower end, beta, K = {k}, N = {n}: failed ({type(exc).__name__}: {exc})")
            continue
        mine = next(i for i, r in enumerate(rows) if r["law"] == "beta" and r["k"] == k and r["n"] == n and r["votes"] == 3)
        print(f"cvxpy grid program, V3 lower end, beta, K = {k}, N = {n}: {ms:.0f} ms (NPMLE included), value "
              f"{value:.6f}; ours {rows[mine]['ends'][0]:.6f} in {1e3 * best['new'][mine]:.1f} ms for both ends "
              f"({ms / (1e3 * best['new'][mine]):.0f}x)")


if __name__ == "__main__":
    main()
