#!/usr/bin/env python3
"""Simulated coverage of the plurality and pass@k intervals beyond the recorded calls.

The companion of ``bench_aggregate_coverage.py`` (same laws of answer distributions, same
simulation, same exact truths) for the budgets the K recorded calls do not identify:
plurality of 21 calls and pass@k for k in {10, 100, inf}, whenever k > K. Each data set's
intervals come from ``certify.aggregates.aggregate_intervals``, the function ``analyze
--aggregate`` uses: the likelihood set over the latent law of q from every call's correctness,
projection calibration (asymptotic), then

* plurality: [min over the set of E[V_k], max over the set of E[U_k]] (pointwise bounds of
  the plurality accuracy of k calls, ``proofs/plurality_bounds.py``; pass@k replaces U_k when
  calls may give no answer);
* pass@k: min and max over the set of E[1 - (1-Q)^k];
* pass@inf = P(Q > 0): the minimum over the set, the upper end 1 by definition.

The truth of the plurality accuracy of 21 calls is exact: by compositions of 21 over the
answers (``true_plurality``) when there are few of them, and for ``diffuse`` (12 equally
likely wrong answers, too many compositions) by a dynamic program over the wrong answers
(``true_plurality_equal``): given x correct calls of k, the wrong ones are multinomial with
equal shares, and the program sums prod 1/y_j! over the wrong counts y_j <= x, keeping the
number of ties at x.

With ``--model``, the cells are instead the answer model's plurality estimate of 9 and 21
calls (``certify.aggregates.plurality_model``: each call correct, the example's dominant wrong answer
or a vote of its own; model-based, not certified), with its coverage, mean width and mean bias,
under the same laws: ``dominant`` is exactly of the model's kind, the others are not (12 equal
wrong answers; Dirichlet shares with abstentions; three Dirichlet(1) shares).

Each data set costs a few likelihood solves (about a second on one core), so the default is
200 replicates on a reduced grid: the Monte Carlo standard error of a coverage near 0.95 is
0.015, and an interval that covers in every one of 200 data sets has a 95 % lower
confidence bound of 0.985 on its coverage.

Usage::

    python benchmarks/bench_aggregate_beyond_coverage.py [--reps 200] [--laws ...]
        [--K 3 10] [--N 100 2000] [--workers 1] [--out cells.jsonl] [--model]

With ``--out``, finished cells are appended as JSON lines and skipped on a rerun (resume).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_aggregate_coverage import INSIDE, LAWS, Q_LAWS, q_moments, simulate, true_pass, true_plurality  # noqa: E402
from certify.aggregates import aggregate_intervals, plurality_model  # noqa: E402

PLURALITY_VOTES = (21,)
PASS_VOTES = (10, 100, "inf")
#: Budgets of the answer model's plurality estimate (``--model``), where k > K.
MODEL_VOTES = (9, 21)


def true_plurality_equal(law, k: int) -> float:
    """Plurality accuracy of k calls when every wrong answer is equally likely (no abstention)."""
    q_law, shares, silent = Q_LAWS[law[0]], law[1], law[2]
    assert shares[0] == "equal" and not silent
    m = shares[1]
    weights = q_moments(q_law, k)  # E[Q^x (1-Q)^(k-x)]
    total = 0.0
    for x in range(1, k + 1):
        rest = k - x
        # f[r][t]: sum over the counts of the answers so far (each <= x, summing to r, t of them = x) of prod 1/y!
        f = np.zeros((rest + 1, m + 1))
        f[0, 0] = 1.0
        for _ in range(m):
            g = np.zeros_like(f)
            for y in range(min(x, rest) + 1):
                tie = 1 if y == x else 0
                g[y:, tie:] += f[: rest + 1 - y, : m + 1 - tie] / math.factorial(y)
            f = g
        wrong = math.factorial(rest) / m**rest * sum(f[rest, t] / (1 + t) for t in range(m + 1))
        total += math.comb(k, x) * weights[x] * wrong
    return float(total)


def truth_of(law, k: int) -> float:
    return true_plurality_equal(law, k) if law[1][0] == "equal" else true_plurality(law, k)


def run_cell(task) -> dict:
    name, calls, n, reps, alpha, seed = task
    law = LAWS[name]
    budgets = {"plurality": [k for k in PLURALITY_VOTES if k > calls],
               "pass@k": [k for k in PASS_VOTES if k == "inf" or k > calls]}
    truth = {("plurality", k): truth_of(law, k) for k in budgets["plurality"]}
    truth.update({("pass@k", k): (1.0 if k == "inf" else true_pass(law, k)) for k in budgets["pass@k"]})
    # P(Q > 0) = 1 for both q laws here (a Beta mixture; atoms at 0.5 and 0.85)
    hits = dict.fromkeys(truth, 0)
    width = dict.fromkeys(truth, 0.0)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for _ in range(reps):
        codes = simulate(law, n, calls, rng)
        for aggregate, ks in budgets.items():
            for row in aggregate_intervals(codes, ks, aggregate=aggregate, alpha=alpha):
                key = (aggregate, "inf" if row.votes not in ks else row.votes)
                hits[key] += row.interval.lower - INSIDE <= truth[key] <= row.interval.upper + INSIDE
                width[key] += row.interval.width
    return {"law": name, "K": calls, "N": n, "reps": reps, "alpha": alpha,
            "cells": [{"aggregate": a, "k": str(k), "truth": truth[a, k], "coverage": hits[a, k] / reps,
                       "width": width[a, k] / reps} for a, k in truth],
            "seconds": time.perf_counter() - start}


def run_model_cell(task) -> dict:
    """The answer model's plurality intervals (``certify.aggregates.plurality_model``) on the same simulations."""
    name, calls, n, reps, alpha, seed = task
    law = LAWS[name]
    ks = [k for k in MODEL_VOTES if k > calls]
    truth = {k: truth_of(law, k) for k in ks}
    hits, width, bias = dict.fromkeys(ks, 0), dict.fromkeys(ks, 0.0), dict.fromkeys(ks, 0.0)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for _ in range(reps):
        codes = simulate(law, n, calls, rng)
        for k, est in plurality_model(codes, ks, alpha).items():
            hits[k] += est.interval.lower - INSIDE <= truth[k] <= est.interval.upper + INSIDE
            width[k] += est.interval.width
            bias[k] += est.interval.estimate - truth[k]
    return {"law": name, "K": calls, "N": n, "reps": reps, "alpha": alpha,
            "cells": [{"aggregate": "plurality (model)", "k": str(k), "truth": truth[k], "coverage": hits[k] / reps,
                       "width": width[k] / reps, "bias": bias[k] / reps} for k in ks],
            "seconds": time.perf_counter() - start}


def rows(r: dict) -> list[str]:
    return [f"| {r['law']} | {r['K']} | {r['N']} | {c['aggregate']} | {c['k']} | {c['truth']:.4f} | "
            f"{c['coverage']:.3f} | {c['width']:.4f} |" + (f" {c['bias']:+.4f} |" if "bias" in c else "")
            for c in r["cells"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--laws", nargs="+", default=list(LAWS), choices=list(LAWS))
    parser.add_argument("--K", nargs="+", type=int, default=[3, 10])
    parser.add_argument("--N", nargs="+", type=int, default=[100, 2000])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--out", type=Path, help="append each finished cell as a JSON line; skip those already there")
    parser.add_argument("--model", action="store_true",
                        help="the answer model's plurality estimate (not certified) at k in MODEL_VOTES instead, with its bias")
    args = parser.parse_args()
    done = {}
    if args.out is not None and args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            if r["reps"] == args.reps and r["alpha"] == args.alpha:
                done[r["law"], r["K"], r["N"]] = r
    se = math.sqrt(0.95 * 0.05 / args.reps)
    print(f"{args.reps} replicates per cell, alpha = {args.alpha}: Monte Carlo SE of a coverage near 0.95 is {se:.3f}\n")
    if args.model:
        print("| law | K | N | aggregate | k | truth | coverage | mean width | mean bias |\n|---|---|---|---|---|---|---|---|---|")
    else:
        print("| law | K | N | aggregate | k | truth | coverage | mean width |\n|---|---|---|---|---|---|---|---|")
    tasks = [(law, K, N, args.reps, args.alpha, args.seed + i)
             for i, (law, K, N) in enumerate(itertools.product(args.laws, args.K, args.N)) if (law, K, N) not in done]
    results = list(done.values())
    for r in results:
        print("\n".join(rows(r)), flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        for r in pool.map(run_model_cell if args.model else run_cell, tasks):
            results.append(r)
            print("\n".join(rows(r)), flush=True)
            if args.out is not None:
                with args.out.open("a") as f:
                    f.write(json.dumps(r) + "\n")
    cells = [c for r in results for c in r["cells"]]
    worst = min(cells, key=lambda c: c["coverage"])
    seconds = sum(r["seconds"] for r in results) / sum(r["reps"] for r in results)
    print(f"\n{len(cells)} rows: coverage from {worst['coverage']:.3f} ({worst['aggregate']} {worst['k']}) to "
          f"{max(c['coverage'] for c in cells):.3f}; {seconds:.2f} s per data set")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
