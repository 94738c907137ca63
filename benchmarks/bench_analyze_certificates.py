#!/usr/bin/env python3
"""``certify analyze FILE --certificates DIR``: two source trees timed against each other on one file.

The file is generated here with a fixed seed: 1000 examples x 10 calls, latent accuracies
q_i ~ Beta(3, 2). Each repetition runs, alternating so that a change in the machine's load
affects all alike (a fresh output folder each time, the default budgets 3, 5 and V_inf):

* ``before --certificates``: the earlier tree (``--before``);
* ``after --certificates``: this tree (``--after``);
* ``after, no certificates``: this tree's analysis alone, what the certificates cost on top.

Each run counts the likelihood solves -- NPMLEs (one per solving context, ``_npmle`` of
:mod:`certify.likelihood._calibration`) and interval ends (``_solve_end`` of
:mod:`certify.likelihood._intervals`) -- and times the command twice: the whole process, and
the command alone after its imports (about half of a short run). The script prints every
time, the medians and the ratios before / after, and checks the folder this tree wrote with
``certify verify DIR``.

A second comparison runs in this process, warm (after one untimed round), alternating
``--warm`` times: the analysis followed by the old way of certifying, still callable as
:func:`certify.likelihood.certified_intervals` (it solves the NPMLE and every end again),
against the analysis followed by :func:`certify.likelihood.certify_interval` on the intervals
it solved (what ``analyze --certificates`` does now). A process pays about as much again in
imports and first-call set-up, which on a loaded machine hides the difference.

The point of the comparison: ``analyze --certificates`` used to rebuild the objectives and
call the likelihood solver a second time for the certificates (the NPMLE and every interval
end solved twice); now the certificates are built from the intervals the analysis solved.

Usage::

    git archive <old commit> | tar -x -C /tmp/before
    python3 benchmarks/bench_analyze_certificates.py --before /tmp/before [--after .] [--repeat 3] [--warm 5]
"""

from __future__ import annotations

import argparse
import json
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

#: Run in a child process with a tree on PYTHONPATH: the CLI with the two likelihood solve steps
#: wrapped to count their calls, timed without the imports; prints the counts, the seconds (and the CLI
#: module's file, to check which tree ran) as JSON on stderr's last line. The names are
#: the same in both trees; a benchmark may reach into private modules, the library never does.
_COUNTING = """
import json, sys, time
try:  # this layout: the likelihood engine is its own package
    import certify.likelihood._calibration as cal, certify.likelihood._intervals as ivs
except ImportError:  # the layout before the restructuring: one module held both steps
    import certify.stats._likelihood as cal
    ivs = cal
import certify.cli.main as m
counts = {"npmle": 0, "ends": 0}
def counted(name, f):
    def wrapper(*a, **k):
        counts[name] += 1
        return f(*a, **k)
    return wrapper
cal._npmle = counted("npmle", cal._npmle)
ivs._solve_end = counted("ends", ivs._solve_end)
m.build_parser()  # the subcommands' imports, outside the timed call
start = time.perf_counter()
code = m.main(sys.argv[1:])
counts["seconds"] = time.perf_counter() - start
print(json.dumps({**counts, "imported": m.__file__}), file=sys.stderr)
sys.exit(code)
"""


def write_data(path: Path) -> Path:
    rng = np.random.default_rng(SEED)
    q = rng.beta(3.0, 2.0, EXAMPLES)
    bits = (rng.random((EXAMPLES, CALLS)) < q[:, None]).astype(int)
    lines = ["example_id," + ",".join(f"call{j + 1}" for j in range(CALLS))]
    lines += [f"e{i}," + ",".join(map(str, row)) for i, row in enumerate(bits)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(tree: Path, argv: list[str], program: str = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"
         ) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    # -P: the working directory is not put before PYTHONPATH, so run from a checkout the tree given is the one imported
    r = subprocess.run([sys.executable, "-P", "-c", program, *argv], env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if r.returncode != 0:
        raise SystemExit(f"{tree} {' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
    return seconds, r


def warm_comparison(data: Path, rounds: int) -> dict[str, list[float]]:
    """Seconds of analysis + certificates the old way (solving again) and the new way, alternating, in this process."""
    from certify.likelihood import certified_intervals, certify_interval
    from certify.readers import read_groups
    from certify.analysis import analyze

    bits = next(iter(read_groups(data).values()))

    def old() -> int:
        report = analyze(bits)
        solved = report.likelihood
        return sum(2 for _ in certified_intervals(solved.cells, list(solved.objectives), alpha=report.alpha))

    def new() -> int:
        solved = analyze(bits).likelihood
        return sum(len(certify_interval(solved.cells, o, iv)) for o, iv in zip(solved.objectives, solved.intervals))

    old(), new()  # untimed: lazy imports and first-call set-up
    times: dict[str, list[float]] = {"analyze + certified_intervals (solves again)": [], "analyze + certify_interval": []}
    for _ in range(rounds):
        for name, run_once in zip(times, (old, new)):
            start = time.perf_counter()
            run_once()
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="source tree of the earlier version")
    p.add_argument("--after", type=Path, default=ROOT, help="source tree of this version (default: this repository)")
    p.add_argument("--repeat", type=int, default=3, help="repetitions per configuration (default 3)")
    p.add_argument("--warm", type=int, default=5, help="rounds of the in-process comparison (default 5; 0 skips it)")
    args = p.parse_args()
    before, after = args.before.resolve(), args.after.resolve()
    configs = {"before --certificates": (before, True), "after --certificates": (after, True),
               "after, no certificates": (after, False)}
    times: dict[str, list[float]] = {name: [] for name in configs}
    inner: dict[str, list[float]] = {name: [] for name in configs}
    counts: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = str(write_data(Path(tmp) / f"calls_{EXAMPLES}x{CALLS}.csv"))
        for i in range(args.repeat):
            for k, (name, (tree, certs)) in enumerate(configs.items()):
                argv = ["analyze", data] + (["--certificates", str(Path(tmp) / f"certs_{i}_{k}")] if certs else [])
                seconds, r = _run(tree, argv, _COUNTING)
                counts[name] = json.loads(r.stderr.strip().splitlines()[-1])
                if not Path(counts[name]["imported"]).is_relative_to(tree):
                    raise SystemExit(f"{name}: imported {counts[name]['imported']}, not the tree {tree}")
                times[name].append(seconds)
                inner[name].append(counts[name]["seconds"])
                print(f"run {i + 1} {name:24s} {seconds:7.2f} s ({inner[name][-1]:.2f} s without imports)", flush=True)
        seconds, r = _run(after, ["verify", str(Path(tmp) / "certs_0_1")])  # the folder this tree wrote first
        oks = sum(": OK " in line for line in r.stdout.splitlines())
        sys.path.insert(0, str(after))  # the in-process comparison runs the --after tree
        warm = warm_comparison(Path(data), args.warm) if args.warm else {}
    medians = {name: statistics.median(t) for name, t in times.items()}
    inners = {name: statistics.median(t) for name, t in inner.items()}
    print(f"\n{EXAMPLES} examples x {CALLS} calls, `certify analyze FILE [--certificates DIR]`, {args.repeat} runs each (medians)\n")
    print("| configuration | s (process) | s (without imports) | NPMLE solves | end solves |")
    print("|---|---|---|---|---|")
    for name in configs:
        print(f"| {name} | {medians[name]:.2f} | {inners[name]:.2f} | {counts[name]['npmle']} | {counts[name]['ends']} |")
    ratio = medians["before --certificates"] / medians["after --certificates"]
    ratio_inner = inners["before --certificates"] / inners["after --certificates"]
    print(f"\n--certificates before / after: {ratio:.2f}x faster as a process, {ratio_inner:.2f}x without the imports; the "
          f"certificates cost {inners['after --certificates'] - inners['after, no certificates']:.2f} s on top of the analysis")
    print(f"certify verify of this tree's folder: exit {r.returncode}, {oks} OK lines, {seconds:.2f} s")
    if warm:
        print(f"\nIn this process (certify from {Path(sys.modules['certify'].__file__).parents[1]}), warm, {args.warm} rounds (medians):\n")
        print("| analysis + 10 certificates | s | rounds |")
        print("|---|---|---|")
        for name, t in warm.items():
            print(f"| {name} | {statistics.median(t):.2f} | {', '.join(f'{x:.2f}' for x in t)} |")
        old, new = (statistics.median(t) for t in warm.values())
        print(f"\nsolving once: {old / new:.2f}x faster")


if __name__ == "__main__":
    main()
