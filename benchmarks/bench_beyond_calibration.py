"""Calibrations beyond the recorded calls, measured through the profile drop of the true value.

The interval of E_pi[g] at drop c covers the true value g* iff D(g*) <= c, with D the profile
drop of eq. (P1) (``certify.likelihood.profile_drop``). So one D(g*) per data set gives the
coverage of every constant calibration at once, and the (1 - alpha) quantile of 2 D(g*) over a
cell's data sets is the smallest chi-square value any constant calibration needs there (the
"oracle" value of that law: no rule that does not know the law can do better everywhere).

For each (law, K, N) cell of ``bench_likelihood_coverage.py`` (the same data sets: same seeds
and draws) and each objective the K calls do not identify, it records D(g*) per data set and
prints: the coverage of chi2_K (the projection, the default) and chi2_1 (both in the F-form the
engine uses), and the oracle value beside them.

``--simulate B`` also measures candidate (b) of the calibration issue, a simulated quantile at
the least favourable laws of the set: per data set, the two extremal laws of the projection
interval (each in the likelihood set, each with its value at the edge of its own identified
set: the boundary configuration that needs the level), B multinomial data sets of N examples
from each, D of that law's value on each, and c = the larger of the two (1 - alpha) quantiles.
Its coverage (D(g*) <= c) and its mean width against the projection's are reported.

Usage::

    python benchmarks/bench_beyond_calibration.py [--reps 500] [--laws ...] [--K 2 3 5 10]
        [--N 50 200 1000 8192] [--objectives V101 Vinf] [--simulate B] [--workers 2]
        [--out benchmarks/beyond_calibration.jsonl]
    python benchmarks/bench_beyond_calibration.py --table --out benchmarks/beyond_calibration.jsonl

With ``--out`` each finished cell is appended (one JSON line) and finished cells are skipped.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_likelihood_coverage import (  # noqa: E402
    LAWS, beyond_objectives, cell_seed, draw_cells, grid_arguments, true_limit, true_value,
)

from certify.likelihood import cell_counts, critical_value, likelihood_intervals, npmle, profile_drop  # noqa: E402
from certify.likelihood._tolerances import PROFILE_DROP_FLOOR  # noqa: E402

def law_cells(atoms, weights, k: int, n: int, rng: np.random.Generator):
    """N examples' counts of correct calls out of k under a finite law: one multinomial draw."""
    p = np.asarray(weights) @ stats.binom.pmf(np.arange(k + 1)[None, :], k, np.asarray(atoms)[:, None])
    counts = rng.multinomial(n, p / p.sum())
    return cell_counts(np.full(n, k), np.repeat(np.arange(k + 1), counts))


def simulated_drop(cells, goal: str, iv, draws: int, alpha: float, rng: np.random.Generator) -> float:
    """Candidate (b): the larger (1 - alpha) quantile of D at the two extremal laws of ``iv``."""
    k = int(cells.calls.max())
    n = int(cells.n)
    quantiles = []
    for end in (iv.lower, iv.upper):
        drops = [profile_drop(law_cells(end.atoms, end.weights, k, n, rng), goal, end.value) for _ in range(draws)]
        quantiles.append(float(np.quantile(drops, 1.0 - alpha, method="higher")))
    return max(quantiles)


def run_cell(task) -> dict:
    name, k, n, reps, alpha, goals, draws, seed, first = task
    law = LAWS[name]
    goals = [g for g in beyond_objectives(k) if not goals or g in goals]
    truth = {g: true_limit(law) if g == "Vinf" else true_value(law, g) for g in goals}
    asked = {g: "inf" if g == "Vinf" else g for g in goals}
    rng = np.random.default_rng(seed)  # the coverage benchmark's data sets of this cell
    sim_rng = np.random.default_rng([seed, 2, first])
    drops = {g: [] for g in goals}
    simulated = {g: [] for g in goals}
    widths = {g: [] for g in goals}
    failures = 0
    start = time.perf_counter()
    for i in range(first + reps):
        cells = draw_cells(law, k, n, rng)  # the same draws, in the same order, as the coverage benchmark
        if i < first:  # drawn, not measured: data sets first .. first + reps - 1 of the cell
            continue
        try:  # every objective of a data set, or none of them: the lists stay aligned
            ref = npmle(cells)
            found = {g: profile_drop(cells, asked[g], truth[g], reference=ref) for g in goals}
            sims = {}
            if draws:
                proj = likelihood_intervals(cells, [asked[g] for g in goals], alpha=alpha, reference=ref)
                for g, iv in zip(goals, proj):
                    c_sim = simulated_drop(cells, asked[g], iv, draws, alpha, sim_rng)
                    at = likelihood_intervals(cells, [asked[g]], c=max(c_sim, PROFILE_DROP_FLOOR), reference=ref)[0]
                    sims[g] = (c_sim, [iv.upper.value - iv.lower.value, at.upper.value - at.lower.value])
        except Exception as exc:  # counted and reported: a failure is never silently a hit
            failures += 1
            print(f"{name} K={k} N={n}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        for g in goals:
            drops[g].append(found[g])
            if draws:
                simulated[g].append(sims[g][0])
                widths[g].append(sims[g][1])
    return {
        "law": name, "K": k, "N": n, "reps": reps, "first": first, "failures": failures, "alpha": alpha, "draws": draws,
        "truth": truth, "drops": drops, "simulated": simulated if draws else None,
        "widths": widths if draws else None, "seconds_per_set": (time.perf_counter() - start) / reps,
    }


def summary(r: dict, g: str) -> dict:
    """Coverage of chi2_K, chi2_1 (F-forms) and candidate (b); the oracle value 2 D at 1 - alpha."""
    k, n, alpha = r["K"], r["N"], r["alpha"]
    d = np.array(r["drops"][g])
    out = {
        "projection": float(np.mean(d <= critical_value(alpha, k, n=n, dim=k))),
        "profile": float(np.mean(d <= critical_value(alpha, 1, n=n, dim=k))),
        "oracle": 2.0 * float(np.quantile(d, 1.0 - alpha, method="higher")),
        "chi2_K": 2.0 * critical_value(alpha, k, n=n, dim=k),
        "chi2_1": 2.0 * critical_value(alpha, 1, n=n, dim=k),
    }
    if r.get("simulated"):
        c = np.array(r["simulated"][g])
        w = np.array(r["widths"][g])
        out["simulated"] = float(np.mean(d <= c))  # D below the floor is 0: held at c = 0 too
        out["simulated_value"] = 2.0 * float(np.mean(c))
        out["narrower"] = 1.0 - float(w[:, 1].mean() / w[:, 0].mean())
    return out


HEAD = ("| law | K | N | objective | reps | cov chi2_K | cov chi2_1 | 2 D at 0.95 (oracle) | chi2_K (F) | chi2_1 (F) "
        "| cov (b) | mean 2c (b) | (b) narrower by |\n|" + "---|" * 13)


def rows(r: dict) -> str:
    lines = []
    for g in r["truth"]:
        s = summary(r, g)
        fail = f" ({r['failures']} failed)" if r["failures"] else ""
        b = (f"{s['simulated']:.3f} | {s['simulated_value']:.2f} | {s['narrower']:+.0%}" if "simulated" in s
             else "- | - | -")
        lines.append(f"| {r['law']} | {r['K']} | {r['N']} | {g} | {r['reps']}{fail} | {s['projection']:.3f} "
                     f"| {s['profile']:.3f} | {s['oracle']:.2f} | {s['chi2_K']:.2f} | {s['chi2_1']:.2f} | {b} |")
    return "\n".join(lines)


def pooled(records: list[dict]) -> list[dict]:
    """Records of one cell and design (different ``--first`` ranges) as one: their data sets joined."""
    out: dict[tuple, dict] = {}
    for r in records:
        key = (r["law"], r["K"], r["N"], r["draws"], tuple(r["truth"]))
        if key not in out:
            out[key] = json.loads(json.dumps(r))
            continue
        m = out[key]
        m["reps"] += r["reps"]
        m["failures"] += r["failures"]
        for field in ("drops", "simulated", "widths"):
            if r.get(field):
                for g in m[field]:
                    m[field][g] += r[field][g]
    return list(out.values())


def table(records: list[dict]) -> None:
    order = list(LAWS)
    records = sorted(pooled(records), key=lambda r: (r["draws"] > 0, r["N"], r["K"], order.index(r["law"])))
    print(HEAD)
    for r in records:
        print(rows(r))
    for k in sorted({r["K"] for r in records}):
        worst = max(((summary(r, g), g, r) for r in records if r["K"] == k for g in r["truth"]),
                    key=lambda t: t[0]["oracle"], default=None)
        if worst is not None:
            s, g, r = worst
            print(f"\nK = {k}: largest oracle value 2 D at 0.95 = {s['oracle']:.2f} ({g}, {r['law']}, N = {r['N']}, "
                  f"{r['reps']} data sets); chi2_K (F) there {s['chi2_K']:.2f}, chi2_1 (F) {s['chi2_1']:.2f}.")


def main() -> None:
    ap = grid_arguments(__doc__.splitlines()[0])
    ap.add_argument("--objectives", nargs="+", default=[], help="only these (e.g. V101 Vinf); default: every one beyond K")
    ap.add_argument("--simulate", type=int, default=0, metavar="B", help="candidate (b) with B draws per extremal law")
    ap.add_argument("--first", type=int, default=0, metavar="R",
                    help="measure data sets R .. R + reps - 1 of each cell (the first R are drawn and skipped)")
    ap.add_argument("--table", action="store_true", help="print the table of the --out file and exit")
    args = ap.parse_args()
    records = [json.loads(line) for line in args.out.read_text().splitlines()] if args.out and args.out.exists() else []
    if args.table:
        table(records)
        return
    done = {(r["law"], r["K"], r["N"], r["reps"], r["draws"], tuple(r["truth"]), r.get("first", 0)) for r in records}
    tasks = []
    for n in args.N:
        for k in args.K:
            for name in args.laws:
                goals = [g for g in beyond_objectives(k) if not args.objectives or g in args.objectives]
                if goals and (name, k, n, args.reps, args.simulate, tuple(goals), args.first) not in done:
                    tasks.append((name, k, n, args.reps, args.alpha, args.objectives, args.simulate,
                                  cell_seed(args.seed, name, k, n), args.first))
    print(HEAD, flush=True)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for r in pool.map(run_cell, tasks):
            print(rows(r), flush=True)
            if args.out:
                with args.out.open("a") as fh:  # one line per finished cell: an interruption loses one cell
                    fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
