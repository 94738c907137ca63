"""Sharp bounds at high moment orders: how often the exact method succeeds, and how well.

For each order m, LAWS_PER_ORDER Beta(a, b) laws with a, b drawn from {0.5, 0.6, ..., 5.9}
(seed SEED) give exact rational moments m_1..m_m, and ``certify.sharp_bounds`` solves V9 and
V101 at them. A success is compared with HiGHS on a 4001-point grid in the Bernstein basis (the
cell probabilities of m calls, well conditioned where monomial moments are not): the grid gives
inner bounds, so |exact - grid| is the exact method's error plus the grid's (below 1e-6 here).
Printed per order: successes, failures by status, the largest dual violation of a success (what
``certify bounds`` notes beside its table) and the largest |exact - grid|, and the seconds.

Usage::

    python benchmarks/bench_high_order.py [--orders 8 10 12 15 20] [--laws 10]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
from scipy import optimize, stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify import InfeasibleMomentsError, SolverError, parse_objective, sharp_bounds  # noqa: E402

SEED = 7
OBJECTIVES = ("V9", "V101")
GRID = 4001


def beta_moments(a: Fraction, b: Fraction, order: int) -> list[Fraction]:
    """m_k = prod_{i<k} (a + i) / (a + b + i), exactly."""
    out, m = [], Fraction(1)
    for k in range(order):
        m *= (a + k) / (a + b + k)
        out.append(m)
    return out


def grid_bounds(objective, moments: list[Fraction]) -> tuple[float, float]:
    """Inner bounds by HiGHS over laws on a grid, constrained through the cell probabilities (eq. (L2))."""
    order = len(moments)
    m = [Fraction(1)] + moments
    p = [float(comb(order, s) * sum(comb(order - s, j) * (-1) ** j * m[s + j] for j in range(order - s + 1)))
         for s in range(order + 1)]
    x = np.linspace(0.0, 1.0, GRID)
    kernel = stats.binom.pmf(np.arange(order + 1)[:, None], order, x[None, :])
    g = objective.evaluate(x)
    lo = optimize.linprog(g, A_eq=kernel, b_eq=p, bounds=(0, None), method="highs")
    up = optimize.linprog(-g, A_eq=kernel, b_eq=p, bounds=(0, None), method="highs")
    return lo.fun, -up.fun


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", nargs="+", type=int, default=[8, 10, 12, 15, 20])
    ap.add_argument("--laws", type=int, default=10, help="Beta laws per order")
    args = ap.parse_args()
    objectives = [parse_objective(s) for s in OBJECTIVES]
    print("| order | solves | succeeded | failed (status: count) | largest violation | largest abs(exact - grid) | seconds |")
    print("|---|---|---|---|---|---|---|")
    for order in args.orders:
        rng = np.random.default_rng(SEED)
        outcome, violation, error = collections.Counter(), 0.0, 0.0
        start = time.perf_counter()
        for _ in range(args.laws):
            a, b = (Fraction(int(v), 10) for v in rng.integers(5, 60, 2))
            moments = beta_moments(a, b, order)
            for obj in objectives:
                try:
                    bounds = sharp_bounds(obj, moments=[f"{m.numerator}/{m.denominator}" for m in moments])
                except (SolverError, InfeasibleMomentsError) as exc:
                    outcome[getattr(exc, "status", type(exc).__name__)] += 1
                    continue
                outcome["ok"] += 1
                violation = max(violation, bounds.lower.violation, bounds.upper.violation)
                lo, up = grid_bounds(obj, moments)
                error = max(error, abs(bounds.lower.value - lo), abs(bounds.upper.value - up))
        failed = ", ".join(f"{k}: {v}" for k, v in outcome.items() if k != "ok") or "-"
        print(f"| {order} | {2 * args.laws} | {outcome['ok']} | {failed} | {violation:.1e} | {error:.1e} "
              f"| {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
