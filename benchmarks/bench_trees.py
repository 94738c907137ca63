#!/usr/bin/env python3
"""Two source trees side by side: sharp bounds per (mu, nu) pair and one likelihood vote curve.

The measures a restructuring must keep: the per-pair time of :func:`certify.sharp_bounds`
(200 random feasible moment pairs at 3, 9 and 101 votes; in a plain loop, in a loop sharing
one :class:`certify.solvers.Faces` where the tree has it, and through
:func:`certify.sharp_bound_arrays`) and the time of one K-call vote
curve (:func:`certify.likelihood_intervals` of V3, V5, ..., V101 on 8192 examples x 10
calls, q ~ Beta(3, 2), 100 interval ends and the NPMLE). Each round runs one child process
per tree and measure (``PYTHONPATH``), alternating, so that a change in the machine's load
touches both alike and nothing one measure leaves in a process helps another; in the child,
an untimed small curve or one pair per budget comes first (imports and first-call set-up are
not what is compared), and the faces that pair found are forgotten in the earlier tree, which
kept them process-wide, so that both trees start every measure from none. The script prints every round, the medians, the ratio
after / before, and the largest difference between the two trees' numbers (0 when the
trees compute the same thing the same way).

Usage::

    git archive <old commit> | tar -x -C /tmp/before
    python3 benchmarks/bench_trees.py --before /tmp/before [--after .] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Run in a child with a tree on PYTHONPATH and one measure as argv[1]; prints one JSON line.
_CHILD = r"""
import json, sys, time
import numpy as np
import certify

measure = sys.argv[1]
out = {"tree": certify.__file__, "seconds": {}, "values": []}
if measure == "curve":
    def cells(n, seed):
        g = np.random.default_rng(seed)
        q = g.beta(3.0, 2.0, n)
        return certify.cell_counts(np.full(n, 10), (g.random((n, 10)) < q[:, None]).sum(axis=1))

    budgets = list(range(3, 102, 2))
    certify.likelihood_intervals(cells(200, 1), budgets[:5])  # untimed: set-up
    data = cells(8192, 20261125)
    start = time.perf_counter()
    curve = certify.likelihood_intervals(data, budgets)
    out["seconds"]["curve"] = time.perf_counter() - start
    out["values"] = [v for iv in curve for v in (iv.lower.value, iv.upper.value)]
else:
    rng = np.random.default_rng(20261125)
    mu = rng.uniform(0.05, 0.95, 200)
    nu = mu * mu + rng.uniform(0.0, 1.0, 200) * (mu - mu * mu)
    if measure == "faces":  # one Faces held by the caller (only after the restructuring)
        try:
            from certify.solvers import Faces
        except ImportError:  # the earlier tree: no such measure
            print(json.dumps(out))
            sys.exit(0)
    import certify.solvers._contact as contact
    for v in (3, 9, 101):
        certify.sharp_bounds(v, mu=0.6, nu=0.4)  # untimed: first-call set-up of the budget
        # The earlier tree kept the faces a solve finds in its process-wide targets: forget the
        # set-up's, so that both trees start the measure from no faces (a benchmark may reach
        # into private modules; the library never does).
        for target in getattr(getattr(contact, "TARGETS", None), "_targets", {}).values():
            if isinstance(getattr(target, "faces", None), dict):
                target.faces.clear()
        start = time.perf_counter()
        if measure == "arrays":
            got = certify.sharp_bound_arrays(v, mu=mu, nu=nu)
            out["values"] += list(got.lower) + list(got.upper)
        else:
            kw = {"faces": Faces()} if measure == "faces" else {}
            got = [certify.sharp_bounds(v, mu=float(m), nu=float(n), **kw) for m, n in zip(mu, nu)]
            out["values"] += [b.lower.value for b in got] + [b.upper.value for b in got]
        out["seconds"][str(v)] = (time.perf_counter() - start) / len(mu)
print(json.dumps(out))
"""

#: The measures; each runs in a fresh process per tree and round, so that what one leaves in a
#: process (the earlier tree kept the faces of the moment problem process-wide) cannot speed up another.
MEASURES = {"loop": "sharp_bounds in a loop (ms / pair)",
            "faces": "sharp_bounds in a loop sharing one Faces (ms / pair)",
            "arrays": "sharp_bound_arrays (ms / pair)",
            "curve": "vote curve V3..V101, N = 8192, K = 10 (s)"}


def _child(tree: Path, measure: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    r = subprocess.run([sys.executable, "-P", "-c", _CHILD, measure], env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"{tree} {measure}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if not out["tree"].startswith(str(tree)):
        raise SystemExit(f"{tree}: the child imported {out['tree']}")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="source tree of the earlier version")
    p.add_argument("--after", type=Path, default=ROOT, help="source tree of this version (default: this repository)")
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    args = p.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    runs = {(name, m): [] for name in trees for m in MEASURES}
    for r in range(args.rounds):
        for m in MEASURES:
            for name, tree in trees.items():
                got = _child(tree, m)
                if not got["seconds"]:  # the tree does not have this measure
                    continue
                runs[name, m].append(got)
                scale = 1.0 if m == "curve" else 1000.0
                times = ", ".join(f"{k} {scale * t:.3f}" for k, t in got["seconds"].items())
                print(f"round {r + 1} {name:6s} {m:6s}: {times}", flush=True)

    def med(name, m, key):
        return statistics.median(o["seconds"][key] for o in runs[name, m])

    def best(name, m, key):
        return min(o["seconds"][key] for o in runs[name, m])

    print(f"\n{args.rounds} rounds, each a fresh process per tree and measure: medians, and the best round (a "
          "process's speed on a shared machine varies by up to 2x, the best round the least)\n")
    print("| measure | before | after | after / before | best before | best after | best after / best before |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for m, label in MEASURES.items():
        scale = 1.0 if m == "curve" else 1000.0
        for key in runs["after", m][0]["seconds"]:
            # before the restructuring every loop shared the process-wide faces: its plain loop is the reference
            ref = m if runs["before", m] else "loop"
            b, a = scale * med("before", ref, key), scale * med("after", m, key)
            bb, ba = scale * best("before", ref, key), scale * best("after", m, key)
            what = label if m == "curve" else label.replace(" (ms", f", {key} votes (ms")
            print(f"| {what} | {b:.3f} | {a:.3f} | {a / b:.2f} | {bb:.3f} | {ba:.3f} | {ba / bb:.2f} |")
    diffs = {m: max((abs(x - y) for x, y in zip(runs["before", m][0]["values"], runs["after", m][0]["values"])), default=0.0)
             for m in MEASURES if runs["before", m]}
    print("\nlargest difference between the trees' numbers: " + ", ".join(f"{m} {d:.3g}" for m, d in diffs.items()))


if __name__ == "__main__":
    main()
