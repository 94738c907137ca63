#!/usr/bin/env python3
"""Simulated coverage of the forecast intervals beyond the recorded calls (issue 43, item 6).

Grid: laws of the latent q (inside each family, and outside all of them) x K calls per example
in {3, 5, 10, 20} x N examples in {100, 400, 2000}; per cell ``--reps`` data sets. Each data set
is N draws q_i from the law and S_i ~ Bin(K, q_i). On it, in one run:

* the forecast (:func:`certify.forecast.forecast`: every family fitted to every call, ranked by
  BIC, the first one the goodness-of-fit guard does not reject gives parametric bootstrap
  percentile intervals, B = ``--bootstrap``, level 0.95), and which families the guard rejected;
  with ``--pool M`` the union of the intervals of every family within M BIC units of the chosen
  one and not rejected (recorded apart: each record carries its ``pool``);
* the peers' baseline, a beta-binomial parametric bootstrap (the ``beta`` family alone, same B and
  seed; :func:`certify.forecast.check_family`), given whatever its guard says (the peers have no
  guard).

Targets: V_k at k in {9, 21, 101} (majority of k calls), V_inf = P(Q > 1/2) + P(Q = 1/2)/2,
pass@k at k in {10, 100}, pass@inf = P(Q > 0). Truths are computed from the law itself, not from
the families: beta-binomial sums for Beta components (exact), atoms exactly, and adaptive
quadrature (scipy.integrate.quad) for the MaxEnt and LDGP densities; the samplers are the exact
Beta and normal ones, and for MaxEnt the inverse CDF on a grid of 2^16 points.

Coverage counts only data sets where the guard accepts a family (the issue's requirement: at least
0.90 wherever the guard accepts) and targets the forecast gives (pass@k is withdrawn below 5 calls);
the baseline's coverage counts every data set. With R data sets
per cell the Monte Carlo SE of a coverage near 0.95 is about 0.22 / sqrt(R); the summary pools
cells as well.

Results go to ``benchmarks/forecast_coverage.jsonl``, one line per data set, appended as they
finish; a rerun skips the data sets already there (``--fresh`` starts over).

Usage::

    python3 benchmarks/bench_forecast_coverage.py [--reps 20] [--bootstrap 200] [--workers 2]
        [--laws ...] [--calls 3 5 10 20] [--examples 100 400 2000] [--summary-only]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import zlib  # noqa: E402
from collections import defaultdict  # noqa: E402
from multiprocessing import Pool  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import integrate, special, stats  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "forecast_coverage.jsonl"

from certify.forecast import check_family, fit_family, forecast  # noqa: E402
from certify.likelihood import cell_counts  # noqa: E402

TARGETS = (9, 21, 101, "inf", "pass@10", "pass@100", "pass@inf")
NAMES = ("V9", "V21", "V101", "V_inf", "pass@10", "pass@100", "pass@inf")


# --- laws: components ("beta", w, a, b), ("atom", w, x), ("density", w, logf) -------------------


def _maxent_logf(q):
    # exp(2q - 10q^2 + 10q^3): U-shaped, heavier near 1 (a MaxEnt of degree 3)
    return 2 * q - 10 * q**2 + 10 * q**3


LDGP = (0.3, 1.2)  # Q = Phi(eta - gamma Z)

LAWS: dict[str, tuple[str, list]] = {
    "beta(0.8,1.5)": ("in beta", [("beta", 1.0, 0.8, 1.5)]),
    "beta01": ("in beta01", [("atom", 0.15, 0.0), ("atom", 0.10, 1.0), ("beta", 0.75, 2.0, 3.0)]),
    "beta2": ("in beta2", [("beta", 0.5, 2.0, 20.0), ("beta", 0.5, 20.0, 3.0)]),
    "maxent3": ("in maxent (d=3)", [("density", 1.0, _maxent_logf)]),
    "ldgp": ("in ldgp", [("ldgp", 1.0, *LDGP)]),
    "two atoms": ("outside: 0.15, 0.85", [("atom", 0.5, 0.15), ("atom", 0.5, 0.85)]),
    "uniform": ("outside the d>=2 MaxEnt", [("beta", 1.0, 1.0, 1.0)]),
    "atom 1/2": ("outside: q = 1/2", [("atom", 1.0, 0.5)]),
    "atom 0.2": ("outside: q = 0.2 (diffuse-answer law's bits)", [("atom", 1.0, 0.2)]),
}


def _target_fn(name: str):
    """g(q) of a target as a vectorized function (V_inf, pass@inf handled apart)."""
    if name.startswith("pass@"):
        k = int(name[5:])
        return lambda q: 1.0 - (1.0 - q) ** k
    k = int(name[1:])
    return lambda q: stats.binom.sf(k // 2, k, q)


def _density_grid(logf, size: int = 1 << 16):
    x = (np.arange(size) + 0.5) / size
    f = np.exp(logf(x))
    cdf = np.concatenate([[0.0], np.cumsum(f)])
    cdf /= cdf[-1]
    return np.linspace(0.0, 1.0, size + 1), cdf


def truth(law: str, name: str) -> float:
    """The target's value under the law, computed from the law (not from any family)."""
    total = 0.0
    for comp in LAWS[law][1]:
        kind, w = comp[0], comp[1]
        if kind == "atom":
            x = comp[2]
            if name == "V_inf":
                v = 1.0 if x > 0.5 else 0.5 if x == 0.5 else 0.0
            elif name == "pass@inf":
                v = 1.0 if x > 0 else 0.0
            else:
                v = float(_target_fn(name)(x))
        elif kind == "beta":
            a, b = comp[2], comp[3]
            if name == "V_inf":
                v = float(stats.beta.sf(0.5, a, b))
            elif name == "pass@inf":
                v = 1.0
            elif name.startswith("pass@"):
                v = 1.0 - float(stats.betabinom.pmf(0, int(name[5:]), a, b))
            else:
                k = int(name[1:])
                v = float(stats.betabinom.sf(k // 2, k, a, b))
        elif kind == "ldgp":
            eta, gamma = comp[2], comp[3]
            if name == "V_inf":
                v = float(special.ndtr(eta / gamma))
            elif name == "pass@inf":
                v = 1.0
            else:
                g = _target_fn(name)
                v = integrate.quad(
                    lambda z, g=g, eta=eta, gamma=gamma: g(special.ndtr(eta - gamma * z)) * stats.norm.pdf(z),
                    -12,
                    12,
                    limit=400,
                    epsabs=1e-13,
                    epsrel=1e-12,
                )[0]
        else:  # density
            logf = comp[2]
            z = integrate.quad(lambda q, f=logf: math.exp(f(q)), 0, 1, epsabs=1e-14)[0]
            if name == "V_inf":
                v = integrate.quad(lambda q, f=logf: math.exp(f(q)), 0.5, 1, epsabs=1e-14)[0] / z
            elif name == "pass@inf":
                v = 1.0
            else:
                g = _target_fn(name)
                v = (
                    integrate.quad(
                        lambda q, g=g, f=logf: float(g(q)) * math.exp(f(q)),
                        0,
                        1,
                        points=[0.5],
                        limit=400,
                        epsabs=1e-14,
                        epsrel=1e-12,
                    )[0]
                    / z
                )
        total += w * v
    return total


def draw_q(law: str, n: int, rng: np.random.Generator) -> np.ndarray:
    comps = LAWS[law][1]
    which = rng.choice(len(comps), size=n, p=[c[1] for c in comps])
    q = np.empty(n)
    for j, comp in enumerate(comps):
        idx = np.flatnonzero(which == j)
        if not len(idx):
            continue
        if comp[0] == "atom":
            q[idx] = comp[2]
        elif comp[0] == "beta":
            q[idx] = rng.beta(comp[2], comp[3], len(idx))
        elif comp[0] == "ldgp":
            q[idx] = special.ndtr(comp[2] - comp[3] * rng.standard_normal(len(idx)))
        else:
            grid, cdf = _density_grid(comp[2])
            q[idx] = np.interp(rng.random(len(idx)), cdf, grid)
    return q


def _intervals(target_forecasts) -> list[list[float]]:
    return [[t.estimate, t.lower, t.upper] for t in target_forecasts]


def one(task: tuple) -> dict:
    law, k, n, rep, boot, pool = task
    rng = np.random.default_rng([zlib.crc32(law.encode()), k, n, rep])
    q = draw_q(law, n, rng)
    cells = cell_counts(np.full(n, k), rng.binomial(k, q))
    t0 = time.process_time()
    fc = forecast(cells, TARGETS, bootstrap=boot, seed=rep, pool=pool)
    t_fc = time.process_time() - t0
    t0 = time.process_time()
    if fc.family == "beta" and not fc.pooled:
        base, base_p, base_rej = _intervals(fc.targets), fc.guard.p_value, False
    else:
        chk = check_family(cells, fit_family(cells, "beta"), TARGETS, bootstrap=boot, seed=rep)
        base, base_p, base_rej = _intervals(chk.targets), chk.guard.p_value, bool(chk.guard.rejected)
    t_base = time.process_time() - t0
    return {
        "law": law,
        "K": k,
        "N": n,
        "rep": rep,
        "bootstrap": boot,
        "pool": pool,
        "pooled": [g.family for g in fc.pooled],
        "guard_draws": None if fc.guard is None else fc.guard.draws,
        "family": fc.family,
        "guard_p": None if fc.guard is None else fc.guard.p_value,
        "rejected": [g.family for g in fc.rejected],
        "forecast": None if fc.family is None else _intervals(fc.targets),
        "baseline": base,
        "baseline_p": base_p,
        "baseline_rejected": base_rej,
        "cpu_forecast": round(t_fc, 3),
        "cpu_baseline": round(t_base, 3),
    }


def _done(path: Path) -> set:
    seen = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            seen.add((r["law"], r["K"], r["N"], r["rep"], r["bootstrap"], r.get("pool", 0.0)))
    return seen


def run(args) -> None:
    if args.fresh and OUT.exists():
        OUT.unlink()
    seen = _done(OUT)
    # replicate outermost: stopped at any point, the file holds a balanced grid of the first reps
    tasks = [
        (law, k, n, rep, args.bootstrap, args.pool)
        for rep in range(args.reps)
        for n in args.examples
        for k in args.calls
        for law in args.laws
    ]
    tasks = [t for t in tasks if t not in seen]
    print(f"{len(tasks)} data sets to run ({len(seen)} already in {OUT.name}), {args.workers} workers", flush=True)
    t0 = time.perf_counter()
    with Pool(args.workers) as pool, open(OUT, "a") as f:
        for i, rec in enumerate(pool.imap_unordered(one, tasks), 1):
            f.write(json.dumps(rec) + "\n")
            f.flush()
            if i % 50 == 0 or i == len(tasks):
                print(f"  {i}/{len(tasks)} in {time.perf_counter() - t0:.0f} s", flush=True)


def summary(args) -> None:
    recs = [json.loads(x) for x in OUT.read_text().splitlines()] if OUT.exists() else []
    recs = [
        r
        for r in recs
        if r["bootstrap"] == args.bootstrap
        and r.get("pool", 0.0) == args.pool
        and r["law"] in args.laws
        and r["K"] in args.calls
        and r["N"] in args.examples
    ]
    truths = {law: [truth(law, nm) for nm in NAMES] for law in args.laws}
    cells = defaultdict(list)
    for r in recs:
        cells[(r["law"], r["K"], r["N"])].append(r)
    print(
        f"\n== coverage of the 95% forecast intervals (guard-accepted data sets) and of the beta-binomial "
        f"baseline (all data sets); B = {args.bootstrap} =="
    )
    print(
        "law            K     N  reps accepted  "
        + " ".join(f"{nm:>9s}" for nm in NAMES)
        + "   | baseline "
        + " ".join(f"{nm:>8s}" for nm in NAMES)
    )
    pooled = defaultdict(lambda: [0, 0, 0, 0])  # (law, target) -> cov, given, base cov, base n
    by_k = defaultdict(lambda: [0, 0])
    rows_md = []
    for law in args.laws:
        tv = truths[law]
        for k in args.calls:
            for n in args.examples:
                rs = cells.get((law, k, n), [])
                if not rs:
                    continue
                acc = [r for r in rs if r["forecast"] is not None]
                # a target the forecast withdraws (pass@k below 5 calls: NaN) is not given, not missed
                given = [[r for r in acc if math.isfinite(r["forecast"][j][1])] for j in range(len(NAMES))]
                cov = [
                    sum(r["forecast"][j][1] - 1e-12 <= tv[j] <= r["forecast"][j][2] + 1e-12 for r in given[j])
                    for j in range(len(NAMES))
                ]
                bcov = [
                    sum(r["baseline"][j][1] - 1e-12 <= tv[j] <= r["baseline"][j][2] + 1e-12 for r in rs)
                    for j in range(len(NAMES))
                ]
                for j, nm in enumerate(NAMES):
                    p = pooled[(law, nm)]
                    p[0] += cov[j]
                    p[1] += len(given[j])
                    p[2] += bcov[j]
                    p[3] += len(rs)
                    by_k[(k, nm)][0] += cov[j]
                    by_k[(k, nm)][1] += len(given[j])
                fam = defaultdict(int)
                for r in acc:
                    fam[r["family"].split("(")[0]] += 1
                fams = ",".join(f"{f}:{c}" for f, c in sorted(fam.items(), key=lambda x: -x[1]))
                cov_s = [f"{c / len(g):.2f}" if g else "-" for c, g in zip(cov, given)]
                bcov_s = [f"{c / len(rs):.2f}" for c in bcov]
                print(
                    f"{law:13s} {k:2d} {n:5d} {len(rs):5d} {len(acc):8d}  "
                    + " ".join(f"{s:>9s}" for s in cov_s)
                    + "   |          "
                    + " ".join(f"{s:>8s}" for s in bcov_s)
                    + f"   {fams}"
                )
                rows_md.append(
                    f"| {law} | {k} | {n} | {len(acc)}/{len(rs)} | "
                    + " | ".join(cov_s)
                    + " | "
                    + " | ".join(bcov_s)
                    + f" | {fams} |"
                )
    print("\n== pooled over K and N, per law: forecast coverage (accepted) / baseline coverage (all) ==")
    for law in args.laws:
        parts = []
        for nm in NAMES:
            c, g, bc, bn = pooled[(law, nm)]
            parts.append(f"{nm} {c / g:.3f}/{bc / bn:.3f}" if g else f"{nm} -/{bc / max(bn, 1):.3f}")
        print(f"  {law:13s} " + "  ".join(parts))
    print("\n== pooled over laws and N, per K: forecast coverage (accepted) ==")
    for k in args.calls:
        print(
            f"  K = {k:2d}  "
            + "  ".join(
                f"{nm} {by_k[(k, nm)][0] / by_k[(k, nm)][1]:.3f}" if by_k[(k, nm)][1] else f"{nm} -" for nm in NAMES
            )
        )
    cpu_f = [r["cpu_forecast"] for r in recs]
    cpu_b = [r["cpu_baseline"] for r in recs if r["family"] != "beta"]
    if cpu_f:
        print(
            f"\nCPU per data set: forecast median {np.median(cpu_f):.2f} s (max {max(cpu_f):.1f}); beta-binomial "
            f"baseline median {np.median(cpu_b) if cpu_b else 0:.2f} s where run apart; ratio of medians "
            f"{np.median(cpu_f) / max(np.median(cpu_b) if cpu_b else 1e-9, 1e-9):.2f}"
        )
    if args.markdown:
        print(
            "\n| law | K | N | accepted | "
            + " | ".join(NAMES)
            + " | "
            + " | ".join(f"base {nm}" for nm in NAMES)
            + " | families |"
        )
        print("|" + "---|" * (4 + 2 * len(NAMES) + 1))
        print("\n".join(rows_md))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--laws", nargs="*", default=list(LAWS), choices=list(LAWS))
    parser.add_argument("--calls", nargs="*", type=int, default=[3, 5, 10, 20])
    parser.add_argument("--examples", nargs="*", type=int, default=[100, 400, 2000])
    parser.add_argument("--pool", type=float, default=0.0, help="the forecast's pool margin (0: the chosen family)")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    print(
        "truths: "
        + "; ".join(f"{law}: " + ", ".join(f"{nm} {truth(law, nm):.4f}" for nm in NAMES) for law in args.laws)
    )
    if not args.summary_only:
        run(args)
    summary(args)


if __name__ == "__main__":
    main()
