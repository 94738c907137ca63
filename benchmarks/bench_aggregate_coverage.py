#!/usr/bin/env python3
"""Simulated coverage of the plurality and pass@k intervals (accuracy of k calls and gain over one call).

For each latent law of answer distributions, number of recorded calls K and number of
examples N, draws ``--reps`` data sets (per example an answer distribution from the law,
then K i.i.d. calls from it, as answer codes: 0 correct, 1.. wrong, -1 no answer) and
computes, for k <= K among 3, 5, 9 (plurality) and 2, 3, 5, 9, 10 (pass@k), the intervals of
``certify.aggregates.aggregate_estimates``
(Wilson score interval at the effective sample size, Student t quantile; the same
per-example U-statistics and the same interval function, applied to batches of data sets
at once) for

* the plurality accuracy of k calls and its gain over one call,
* pass@k and its gain over one call,

and counts how often each holds the true value of the law. The truth is exact: the
plurality accuracy of k calls is a sum over the compositions of k into (correct, each
wrong answer, no answer) of multinomial weights times the mixed moments of the answer
distribution (Beta-mixture or atomic q, Dirichlet / equal / fixed wrong-answer shares,
all in closed form) times the plurality score; pass@k is 1 - E(1-Q)^k.

Laws (q: ``beta-mix`` = 0.6 Beta(6, 2) + 0.4 Beta(2, 4); ``atom-half`` = 0.4 at q = 1/2,
0.6 at q = 0.85):

* ``dominant``: one dominant wrong answer (shares 0.9, 0.05, 0.05), q beta-mix;
* ``diffuse``: 12 equally likely wrong answers, q beta-mix;
* ``dirichlet``: 4 wrong answers with Dirichlet(0.5) shares per example, 10% of the wrong
  mass gives no answer, q beta-mix;
* ``atom-half``: 3 wrong answers with Dirichlet(1) shares, q atom-half.

``--bits-widths REPS`` prints instead, per (law, K, N, plurality k), the mean width of the
interval from the answers beside that of the bits-only envelope [min E V_k, max E U_k] on the
same data sets: what recording the answers buys.

Prints one Markdown row per (law, K, N, aggregate, k): coverage and mean width of the
accuracy and of the gain intervals, then a summary. The Monte Carlo standard error of a
coverage near 0.95 is sqrt(0.95 * 0.05 / reps): 0.0049 at the default 2000 replicates.

Usage::

    python benchmarks/bench_aggregate_coverage.py [--reps 2000] [--quick] [--laws ...]
        [--K 3 5 10 20] [--N 100 400 2000] [--alpha 0.05] [--workers 1] [--out cells.jsonl]
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
from scipy.special import betaln, gammaln  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify.likelihood import cell_counts, likelihood_envelope  # noqa: E402
from certify.aggregates import AGGREGATES, per_example_pass_at_k, per_example_plurality, plurality_bounds  # noqa: E402
from certify.aggregates._aggregates import estimate_rows  # noqa: E402  (aggregate_estimates after its per-example values)

#: The budgets k of each aggregate, where k <= K (plurality of 21 and pass@100 or inf are
#: beyond every K here: ``bench_aggregate_beyond_coverage.py``).
VOTES = {"plurality": (3, 5, 9), "pass@k": (2, 3, 5, 9, 10)}
Q_LAWS = {
    "beta-mix": ("beta", [(0.6, 6.0, 2.0), (0.4, 2.0, 4.0)]),
    "atom-half": ("atoms", [0.5, 0.85], [0.4, 0.6]),
}
#: law: (q law, wrong-answer shares, share of the wrong mass that gives no answer); shares are
#: ("fixed", [s_1, ...]), ("equal", m) or ("dirichlet", m, concentration).
LAWS = {
    "dominant": ("beta-mix", ("fixed", [0.9, 0.05, 0.05]), 0.0),
    "diffuse": ("beta-mix", ("equal", 12), 0.0),
    "dirichlet": ("beta-mix", ("dirichlet", 4, 0.5), 0.1),
    "atom-half": ("atom-half", ("dirichlet", 3, 1.0), 0.0),
}
#: Rows per batch of simulated data sets (memory: rows x K answer codes and their counts).
BATCH_ROWS = 200_000
#: Slack for "inside": intervals and truths are doubles computed by different routes.
INSIDE = 1e-12


def n_wrong(shares) -> int:
    return len(shares[1]) if shares[0] == "fixed" else shares[1]


def q_moments(q_law, k: int) -> np.ndarray:
    """E[Q^x (1-Q)^(k-x)] for x = 0..k."""
    x = np.arange(k + 1)
    if q_law[0] == "atoms":
        return sum(w * a**x * (1 - a) ** (k - x) for a, w in zip(q_law[1], q_law[2]))
    return sum(w * np.exp(betaln(a + x, b + k - x) - betaln(a, b)) for w, a, b in q_law[1])


def share_moments(shares, y: np.ndarray) -> np.ndarray:
    """E[prod_j s_j^(y_j)] of the wrong-answer shares, one per row of y."""
    if shares[0] == "fixed":
        return np.prod(np.asarray(shares[1]) ** y, axis=1)
    if shares[0] == "equal":
        return float(shares[1]) ** -y.sum(axis=1)
    m, conc = shares[1], shares[2]
    return np.exp(gammaln(m * conc) - gammaln(m * conc + y.sum(axis=1)) + (gammaln(conc + y) - gammaln(conc)).sum(axis=1))


def compositions(k: int, parts: int) -> np.ndarray:
    """Every way to write k as an ordered sum of ``parts`` nonnegative integers (stars and bars)."""
    bars = np.array(list(itertools.combinations(range(k + parts - 1), parts - 1)), dtype=np.int64).reshape(-1, parts - 1)
    edges = np.column_stack([np.full(len(bars), -1), bars, np.full(len(bars), k + parts - 1)])
    return np.diff(edges, axis=1) - 1


def true_plurality(law, k: int) -> float:
    """Exact plurality accuracy of k calls under the law (module docstring)."""
    q_law, shares, silent = Q_LAWS[law[0]], law[1], law[2]
    m = n_wrong(shares)
    comp = compositions(k, m + 2 if silent else m + 1)
    x, y = comp[:, 0], comp[:, 1:m + 1]
    z = comp[:, m + 1] if silent else np.zeros(len(comp), dtype=np.int64)
    top = y.max(axis=1)
    score = np.where((x >= 1) & (x >= top), 1.0 / (1 + (y == x[:, None]).sum(axis=1)), 0.0)
    weight = np.exp(gammaln(k + 1) - gammaln(comp + 1).sum(axis=1))
    wrong = (1 - silent) ** y.sum(axis=1) * (silent**z if silent else 1.0) * share_moments(shares, y)
    return float(np.sum(weight * q_moments(q_law, k)[x] * wrong * score))


def true_pass(law, k: int) -> float:
    return float(1 - q_moments(Q_LAWS[law[0]], k)[0])


def simulate(law, n: int, calls: int, rng: np.random.Generator) -> np.ndarray:
    """Answer codes of n examples x ``calls`` calls drawn from the law."""
    q_law, shares, silent = Q_LAWS[law[0]], law[1], law[2]
    if q_law[0] == "atoms":
        q = rng.choice(np.asarray(q_law[1]), size=n, p=np.asarray(q_law[2]))
    else:
        comp = rng.choice(len(q_law[1]), size=n, p=[w for w, _, _ in q_law[1]])
        q = rng.beta(np.array([c[1] for c in q_law[1]])[comp], np.array([c[2] for c in q_law[1]])[comp])
    m = n_wrong(shares)
    if shares[0] == "equal":
        wrong = rng.integers(1, m + 1, (n, calls))
    else:
        s = np.tile(shares[1], (n, 1)) if shares[0] == "fixed" else rng.dirichlet(np.full(m, shares[2]), n)
        wrong = 1 + (rng.random((n, calls, 1)) > np.cumsum(s, axis=1)[:, None, :-1]).sum(axis=-1)
    codes = np.where(rng.random((n, calls)) < q[:, None], 0, wrong)
    if silent:
        codes = np.where((codes > 0) & (rng.random((n, calls)) < silent), -1, codes)
    return codes.astype(np.int32)


def run_cell(task) -> dict:
    name, calls, n, reps, alpha, seed, votes = task
    law = LAWS[name]
    ks = {a: [k for k in votes[a] if k <= calls] for a in votes}
    one = true_pass(law, 1)  # one call: the correct-answer probability, for both aggregates
    true_value = {"plurality": true_plurality, "pass@k": true_pass}
    truth = {a: {k: true_value[a](law, k) for k in ks[a]} for a in ks}
    per_example = {"plurality": per_example_plurality, "pass@k": per_example_pass_at_k}
    hits = {(a, k, g): 0 for a in ks for k in ks[a] for g in ("accuracy", "gain")}
    width = dict.fromkeys(hits, 0.0)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    done = 0
    while done < reps:
        batch = min(reps - done, max(1, BATCH_ROWS // n))
        codes = simulate(law, batch * n, calls, rng)
        for agg in ks:
            h = {k: v.reshape(batch, n) for k, v in per_example[agg](codes, [1] + ks[agg]).items()}
            for rep in range(batch):
                for r in estimate_rows({k: v[rep] for k, v in h.items()}, agg, tuple(ks[agg]), 1, alpha, (calls,)):
                    kind = "accuracy" if r.baseline is None else "gain"
                    target = truth[agg][r.votes] - (0.0 if r.baseline is None else one)
                    hits[agg, r.votes, kind] += r.interval.lower - INSIDE <= target <= r.interval.upper + INSIDE
                    width[agg, r.votes, kind] += r.interval.width
        done += batch
    return {"law": name, "K": calls, "N": n, "reps": reps, "alpha": alpha, "votes": ks,
            "truth": {a: {str(k): v for k, v in t.items()} for a, t in truth.items()}, "one_call": one,
            "coverage": {f"{a} {k} {g}": hits[a, k, g] / reps for a, k, g in hits},
            "width": {f"{a} {k} {g}": width[a, k, g] / reps for a, k, g in hits},
            "seconds": time.perf_counter() - start}


def bits_width_cell(task) -> dict:
    """Mean widths, on the same data sets, of the plurality U-statistic interval and of the bits-only envelope.

    The bits-only envelope is what the correctness bits alone allow: [min E V_k(Q), max E U_k(Q)]
    over the likelihood set of the latent law of q (``proofs/plurality_bounds.py``), as
    ``certify.aggregates.aggregate_intervals`` computes it where the answers are not used.
    """
    name, calls, n, reps, alpha, seed, votes = task
    law = LAWS[name]
    ks = [k for k in votes["plurality"] if k <= calls]
    ustat, bits = dict.fromkeys(ks, 0.0), dict.fromkeys(ks, 0.0)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for _ in range(reps):
        codes = simulate(law, n, calls, rng)
        h = per_example_plurality(codes, [1] + ks)
        for r in estimate_rows(h, "plurality", tuple(ks), None, alpha, (calls,)):
            ustat[r.votes] += r.interval.width / reps
        cells = cell_counts(np.full(n, calls), (codes == 0).sum(axis=1))
        abstain = bool((codes == -1).any())
        for k in ks:
            iv = likelihood_envelope(cells, *plurality_bounds(k, abstentions=abstain), alpha=alpha)
            bits[k] += (iv.upper.value - iv.lower.value) / reps
    return {"law": name, "K": calls, "N": n, "reps": reps, "alpha": alpha,
            "widths": [{"k": k, "ustat": ustat[k], "bits": bits[k]} for k in ks], "seconds": time.perf_counter() - start}


def rows(r: dict) -> list[str]:
    out = []
    for agg, ks in r["votes"].items():
        for k in ks:
            c, w = (lambda g: r["coverage"][f"{agg} {k} {g}"]), (lambda g: r["width"][f"{agg} {k} {g}"])
            out.append(f"| {r['law']} | {r['K']} | {r['N']} | {agg} | {k} | {r['truth'][agg][str(k)]:.4f} | "
                       f"{c('accuracy'):.3f} | {w('accuracy'):.4f} | {r['truth'][agg][str(k)] - r['one_call']:+.4f} | "
                       f"{c('gain'):.3f} | {w('gain'):.4f} |")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 replicates, K in {3, 10}, N in {100, 2000}")
    parser.add_argument("--laws", nargs="+", default=list(LAWS), choices=list(LAWS))
    parser.add_argument("--K", nargs="+", type=int, default=[3, 5, 10, 20])
    parser.add_argument("--N", nargs="+", type=int, default=[100, 400, 2000])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--out", type=Path, help="append each finished cell as a JSON line")
    parser.add_argument("--aggregates", nargs="+", default=list(AGGREGATES), choices=list(AGGREGATES))
    parser.add_argument("--votes", nargs="+", type=int, help="the budgets k of every aggregate (default: VOTES)")
    parser.add_argument("--bits-widths", type=int, metavar="REPS",
                        help="instead: mean widths of the plurality interval beside the bits-only envelope, REPS data sets per cell")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.K, args.N = 200, [3, 10], [100, 2000]
    votes = {a: tuple(args.votes) if args.votes else VOTES[a] for a in args.aggregates}
    tasks = [(law, calls, n, args.reps, args.alpha, args.seed + 1000 * i, votes)
             for i, (law, calls, n) in enumerate(itertools.product(args.laws, args.K, args.N))]
    if args.bits_widths:
        return bits_widths(args, votes)
    se = math.sqrt((1 - args.alpha) * args.alpha / args.reps)
    print(f"{args.reps} replicates per cell, alpha = {args.alpha}: Monte Carlo SE of a coverage near {1 - args.alpha} "
          f"is {se:.4f}\n")
    print("| law | K | N | aggregate | k | truth | cov | width | gain truth | cov gain | width gain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    records = []
    with ProcessPoolExecutor(args.workers) as pool:
        for r in pool.map(run_cell, tasks):
            records.append(r)
            print("\n".join(rows(r)), flush=True)
            if args.out:
                with args.out.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
    print()
    for agg in args.aggregates:
        for kind in ("accuracy", "gain"):
            cov = [v for r in records for key, v in r["coverage"].items() if key.startswith(agg + " ") and key.endswith(kind)]
            low = sum(v < 1 - args.alpha - 2 * se for v in cov)
            print(f"{agg} {kind}: {len(cov)} rows (law, K, N, k), coverage min {min(cov):.3f}, mean {np.mean(cov):.3f}, "
                  f"{low} below {1 - args.alpha:.2f} - 2 SE")
    print(f"total {sum(r['seconds'] for r in records):.0f} s of simulation")
    return 0


def bits_widths(args, votes) -> int:
    """``--bits-widths``: one table row per (law, K, N, k), the two mean widths and their ratio."""
    tasks = [(law, calls, n, args.bits_widths, args.alpha, args.seed + 1000 * i, votes)
             for i, (law, calls, n) in enumerate(itertools.product(args.laws, args.K, args.N))]
    print(f"{args.bits_widths} data sets per cell, alpha = {args.alpha}\n")
    print("| law | K | N | k | plurality from answers | bits-only envelope | ratio |\n|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(args.workers) as pool:
        for r in pool.map(bits_width_cell, tasks):
            for w in r["widths"]:
                print(f"| {r['law']} | {r['K']} | {r['N']} | {w['k']} | {w['ustat']:.4f} | {w['bits']:.4f} | "
                      f"{w['ustat'] / w['bits']:.2f} |", flush=True)
            if args.out:
                with args.out.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
