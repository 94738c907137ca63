#!/usr/bin/env python3
"""Plurality U-statistic over recorded answers: time at 10,000 x 40 and 1,000 x 40, and against brute force.

Measured single-threaded, best of ``--repeats`` runs, on simulated answer codes with a fixed
seed (``certify.aggregates.per_example_plurality``, all k = 1..40 in one call, and k in {1, 3, 5, 9}):

* ``realistic``: q ~ Beta(2, 2); per example 1-7 wrong answers with Dirichlet(0.5) shares;
  10% of the wrong mass abstains;
* ``diffuse``: every call uniform over 0..m-1 or no answer, m uniform in 1..39 per example:
  many wrong answers and nearly every example its own count signature (the costly case).

Beside them pass@k (``per_example_pass_at_k``, all k), and on a small case (200 examples x
12 calls, all k) the ratio to the brute-force average of the plurality score over every
k-subset (itertools.combinations, float scores).

Usage::

    python3 benchmarks/bench_plurality.py [--repeats 3]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify.aggregates import answer_counts, per_example_pass_at_k, per_example_plurality  # noqa: E402


def realistic(n: int, calls: int, rng: np.random.Generator) -> np.ndarray:
    q = rng.beta(2, 2, n)
    m = rng.integers(1, 8, n)
    raw = rng.gamma(0.5, size=(n, 7)) * (np.arange(7) < m[:, None])
    wrong = raw / raw.sum(axis=1, keepdims=True) * 0.9 * (1 - q)[:, None]
    probs = np.column_stack([q, wrong, 0.1 * (1 - q)])
    category = (rng.random((n, calls, 1)) > np.cumsum(probs, axis=1)[:, None, :-1]).sum(axis=-1)
    return np.where(category == probs.shape[1] - 1, -1, category).astype(np.int32)


def diffuse(n: int, calls: int, rng: np.random.Generator) -> np.ndarray:
    m = rng.integers(1, 40, n)
    return ((rng.random((n, calls)) * (m[:, None] + 1)).astype(np.int32) - 1).astype(np.int32)


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def brute_force(codes: np.ndarray, ks) -> dict:
    def score(sub):
        votes = Counter(c for c in sub if c >= 0)
        top = max(votes.values(), default=0)
        return 0.0 if votes[0] == 0 or votes[0] != top else 1.0 / sum(v == top for v in votes.values())

    return {k: np.array([np.mean([score(s) for s in itertools.combinations(row.tolist(), k)]) for row in codes]) for k in ks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(2027)
    every = range(1, 41)
    print("| data | n x K | signatures | plurality, all k (s) | plurality, k in {1,3,5,9} (s) | pass@k, all k (s) |")
    print("|---|---|---|---|---|---|")
    for name, make in (("realistic", realistic), ("diffuse", diffuse)):
        for n in (10_000, 1_000):
            codes = make(n, 40, rng)
            _, correct, abstain, wrong = answer_counts(codes)
            signatures = len(np.unique(np.column_stack([correct, abstain, wrong]), axis=0))
            t_all = best_time(lambda: per_example_plurality(codes, every), args.repeats)
            t_few = best_time(lambda: per_example_plurality(codes, [1, 3, 5, 9]), args.repeats)
            t_pass = best_time(lambda: per_example_pass_at_k(codes, every), args.repeats)
            print(f"| {name} | {n} x 40 | {signatures} | {t_all:.3f} | {t_few:.3f} | {t_pass:.3f} |")
    small = realistic(200, 12, rng)
    ks = range(1, 13)
    t_fast = best_time(lambda: per_example_plurality(small, ks), args.repeats)
    start = time.perf_counter()
    slow = brute_force(small, ks)
    t_slow = time.perf_counter() - start
    fast = per_example_plurality(small, ks)
    err = max(float(np.max(np.abs(fast[k] - slow[k]))) for k in ks)
    print(f"\nbrute force, 200 x 12, all k: {t_slow:.2f} s; ours {t_fast * 1e3:.1f} ms; ratio {t_slow / t_fast:.0f}x; "
          f"largest difference {err:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
