#!/usr/bin/env python3
"""The exact method's per-point and array paths in two source trees, measured in one run.

For each budget of ``bench_bounds.py`` (objective P_n, n = (votes - 1) // 2):

* ms / pair: ``sharp_bounds(method="exact")`` on 200 random feasible (mu, nu) (seed
  20260522, mu and rho uniform on [0.05, 0.95]); each point's time is the best of
  three passes, each pass starting from an empty solver state (``TARGETS.clear()``)
  and one untimed setup call; the median over the points is reported;
* at 3, 9 and 101 votes, max |array - point|: ``sharp_bound_arrays`` on 300 points
  (150 with nu - mu^2 = 10^U(-12, -6) or exactly 1e-12, 150 with rho uniform),
  then ``sharp_bounds`` on each, compared.

Also ``sharp_bound_arrays`` on 10^4 random points (mu uniform on [0.02, 0.98], rho on
[0, 1]) at 5, 101 and 1001 votes, after one small warm-up call; and, in the second tree
only, the two majorant screens on one dual each: the per-point screen
(``max_violation`` with the contacts) against the array screen (``_batch._check``) on a
one-row array, median microseconds over the two-atom optima of the 200 points (each
call best of 20), to decide whether one array-first screen can serve both paths. The trees alternate, each
run in its own process (their imports do not mix); timings are medians over rounds.

On a loaded machine separate processes differ by 10-20 % from one another whatever
they run; ``--same-process`` therefore also measures ms / pair with both trees in one
process (the old tree's package copied under the name ``certify_old``; the package
imports itself only relatively), alternating six times per budget.

Usage::

    git archive <old commit> | tar -x -C /tmp/old
    python3 benchmarks/bench_pipeline.py /tmp/old .
    python3 benchmarks/bench_pipeline.py /tmp/old . --same-process
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

BUDGETS = (3, 5, 9, 21, 51, 101, 201, 1001)
AGREEMENT_BUDGETS = (3, 9, 101)
ROUNDS = 5

CHILD = r"""
import gc, json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from certify import sharp_bounds, sharp_bound_arrays
from certify.solvers import TARGETS
what, votes = sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(20260522)
if what == "points":
    mu = rng.uniform(0.05, 0.95, 200); rho = rng.uniform(0.05, 0.95, 200)
    nu = mu * mu + rho * mu * (1 - mu)
    best = np.full(len(mu), np.inf)
    for _ in range(3):
        TARGETS.clear()
        sharp_bounds(votes, mu=0.5, nu=0.3, method="exact")  # one-time setup: grid, hull
        gc.freeze()
        for i, (m, n) in enumerate(zip(mu.tolist(), nu.tolist())):
            t0 = time.perf_counter(); sharp_bounds(votes, mu=m, nu=n, method="exact"); best[i] = min(best[i], time.perf_counter() - t0)
        gc.unfreeze()
    print(json.dumps(float(np.median(best)) * 1e3))
elif what == "arrays":
    mu = rng.uniform(0.02, 0.98, 10000); rho = rng.uniform(0.0, 1.0, 10000)
    nu = mu * mu + rho * mu * (1 - mu)
    sharp_bound_arrays(votes, mu=mu[:10], nu=nu[:10])
    t0 = time.perf_counter(); sharp_bound_arrays(votes, mu=mu, nu=nu); print(json.dumps((time.perf_counter() - t0) * 1e3))
elif what == "screen":
    from certify import parse_objective
    from certify.solvers import max_violation, solve_exact, target
    from certify.solvers._batch import _check
    mu = rng.uniform(0.05, 0.95, 200); rho = rng.uniform(0.05, 0.95, 200)
    nu = mu * mu + rho * mu * (1 - mu)
    obj = parse_objective(f"V{votes}"); T = target(obj, 1)
    def best(call):
        times = []
        for _ in range(20):
            t0 = time.perf_counter(); call(); times.append(time.perf_counter() - t0)
        return min(times) * 1e6
    point, array = [], []
    for m, n in zip(mu.tolist(), nu.tolist()):
        sol = solve_exact(obj, np.array([1.0, m, n]), 1)
        if len(sol.atoms) != 2:
            continue
        point.append(best(lambda: max_violation(T, sol.dual, contacts=sol.atoms)))
        array.append(best(lambda: _check(T, sol.dual[None, :], sol.atoms[None, :])))
    print(json.dumps([float(np.median(point)), float(np.median(array))]))
else:
    mu = rng.uniform(0.02, 0.98, 300)
    gap = np.concatenate([10.0 ** rng.uniform(-12, -6, 140), np.full(10, 1e-12), rng.uniform(0.0, 1.0, 150)])
    nu = np.where(np.arange(300) < 150, mu * mu + gap, mu * mu + gap * mu * (1 - mu))
    arr = sharp_bound_arrays(votes, mu=mu, nu=nu)
    worst = 0.0
    for i in range(300):
        b = sharp_bounds(votes, mu=float(mu[i]), nu=float(nu[i]), method="exact")
        worst = max(worst, abs(b.lower.value - arr.lower[i]), abs(b.upper.value - arr.upper[i]))
    print(json.dumps(worst))
"""


SAME_PROCESS = r"""
import importlib, shutil, sys, tempfile, time
from pathlib import Path
import numpy as np
old_tree, new_tree, votes = sys.argv[1], sys.argv[2], int(sys.argv[3])
copy = Path(tempfile.mkdtemp())
shutil.copytree(Path(old_tree) / "certify", copy / "certify_old")
sys.path[:0] = [new_tree, str(copy)]
rng = np.random.default_rng(20260522)
mu = rng.uniform(0.05, 0.95, 200); rho = rng.uniform(0.05, 0.95, 200)
points = list(zip(mu.tolist(), (mu * mu + rho * mu * (1 - mu)).tolist()))
def per_pair(name):
    pkg, state = importlib.import_module(name), importlib.import_module(name + ".solvers").TARGETS
    best = np.full(len(points), np.inf)
    for _ in range(3):
        state.clear(); pkg.sharp_bounds(votes, mu=0.5, nu=0.3, method="exact")
        for i, (m, n) in enumerate(points):
            t0 = time.perf_counter(); pkg.sharp_bounds(votes, mu=m, nu=n, method="exact"); best[i] = min(best[i], time.perf_counter() - t0)
    return float(np.median(best)) * 1e3
times = {"certify_old": [], "certify": []}
for _ in range(6):
    for name in times:
        times[name].append(per_pair(name))
print(json.dumps([float(np.median(times["certify_old"])), float(np.median(times["certify"]))]))
""".replace("import importlib,", "import importlib, json,")


def same_process(old: str, new: str) -> None:
    print("| votes | before ms / pair | after ms / pair | after / before |")
    print("|---:|---:|---:|---:|")
    for votes in BUDGETS:
        out = subprocess.run([sys.executable, "-c", SAME_PROCESS, old, new, str(votes)], capture_output=True, text=True, check=True)
        a, b = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {votes} | {a:.3f} | {b:.3f} | {b / a:.2f} |", flush=True)


def run(tree: str, what: str, votes: int):
    out = subprocess.run([sys.executable, "-c", CHILD, tree, what, str(votes)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(old: str, new: str, what: str, votes: int, rounds: int) -> tuple[float, float]:
    times = {old: [], new: []}
    for _ in range(rounds):
        for tree in (old, new):
            times[tree].append(run(tree, what, votes))
    return statistics.median(times[old]), statistics.median(times[new])


def main() -> None:
    old, new = sys.argv[1], sys.argv[2]
    if "--same-process" in sys.argv[3:]:
        same_process(old, new)
        return
    print("| votes | before ms / pair | after ms / pair | after / before | before max abs(array - point) | after max abs(array - point) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for votes in BUDGETS:
        a, b = timed(old, new, "points", votes, ROUNDS)
        agree = [f"{run(tree, 'agree', votes):.1e}" if votes in AGREEMENT_BUDGETS else "--" for tree in (old, new)]
        print(f"| {votes} | {a:.3f} | {b:.3f} | {b / a:.2f} | {agree[0]} | {agree[1]} |", flush=True)
    print()
    print("| sharp_bound_arrays, 10^4 points | before ms | after ms | after / before |")
    print("|---|---:|---:|---:|")
    for votes in (5, 101, 1001):
        a, b = timed(old, new, "arrays", votes, ROUNDS)
        print(f"| {votes} votes | {a:.0f} | {b:.0f} | {b / a:.2f} |", flush=True)
    print()
    print("| votes | per-point screen us / dual | array screen, one row, us / dual | array / per-point |")
    print("|---:|---:|---:|---:|")
    for votes in (3, 101, 1001):
        point, array = run(new, "screen", votes)
        print(f"| {votes} | {point:.0f} | {array:.0f} | {array / point:.1f} |", flush=True)


if __name__ == "__main__":
    main()
