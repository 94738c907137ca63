"""Simulated coverage of the K-call likelihood-ratio intervals, beside the two-call projection.

For each latent law, number of calls K and number of examples N, draws ``--reps``
data sets (q_i from the law, S_i ~ Bin(K, q_i)), computes the likelihood-ratio
intervals (``certify.likelihood`` with its default calibration: c = chi2_1(1-alpha)/2
for an objective the K calls identify, chi2_K(1-alpha)/2 for one they do not, eq. (L6), each in
its small-sample F-form)
of V3, V5, V9, V101 and the gain V3 - V1, and counts how often each interval holds the
true value E_pi[g] of the law (computed by quadrature or exactly for atoms). Beside
them: the mean width of the paper's two-call projected Wald interval (Section 4.4)
from the first two calls of the same data sets, and its coverage.

Prints one Markdown table row per (law, K, N) cell: coverage and mean width of
each objective, the two-call width and coverage of V3, and the seconds per data set.
The Monte Carlo standard error of a coverage near 0.95 with 500 replicates is 0.010.

Usage::

    python benchmarks/bench_likelihood_coverage.py [--reps 500] [--laws ...] [--K 2 3 5 10]
        [--N 50 200 1000 8192] [--workers 2] [--alpha 0.05] [--out results.jsonl]

``--table`` prints, from the ``--out`` file alone, the Markdown table of the cells finished
under the current rule (a recheck beside the cell it rechecks) and a summary line, for
``benchmarks/RESULTS.md``.

With ``--out``, each finished cell is appended to a JSON-lines file and cells
already there are skipped, so an interrupted run resumes.

``--beyond`` measures the calibrations of the objectives the K calls do not identify
(V3 at K = 2, V5 at K < 5, V9 at K < 9, V101 and V_inf everywhere) side by side on the same
data sets: the projection (chi2_K, the default), the profile value chi2_1 (as a given c) and
the face calibration (``beyond="face"``, chi2_d); coverage, mean width and the mean d per
objective. Its cells go to their own ``--out`` file (e.g. ``benchmarks/likelihood_coverage_beyond.jsonl``),
and ``--beyond --table`` prints their table.

``--recheck 2000 --below 0.95`` re-runs, on a fresh and independent stream of data sets,
every finished cell whose smallest coverage is below 0.95: 500 replicates cannot tell
0.938 from 0.95 (standard error 0.010). Only the fresh replicates enter the rechecked
record (``"recheck_of"`` names the first run's size), so choosing cells by their first
estimate does not bias the estimate that is reported.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify._majority import majority_polynomial  # noqa: E402
from certify.stats._estimators import two_call_from_summary  # noqa: E402
from certify._objective import parse_objective  # noqa: E402
from certify.likelihood import cell_counts, critical_value, likelihood_intervals, npmle  # noqa: E402
from certify.likelihood._calibration import LatticeProblem  # noqa: E402
from certify.stats._region import EmptyRegionError, project_many, wald_region  # noqa: E402

OBJECTIVES = ("V3", "V5", "V9", "V101", "V3 - V1")
#: The calibration rule measured: profile (chi2_1) if identified, projection (chi2_K) if not,
#: both in their small-sample F-form (certify.likelihood.critical_value with n).
RULE = "identified-profile/projection, F small-sample, small-count lattice"
#: The rule before the small-count calibration: its cells are reused where that calibration never
#: applies (the intervals are then the same numbers), after replaying their data sets to check it.
PREVIOUS_RULE = "identified-profile/projection, F small-sample"

#: Latent laws: ("atoms", atoms, weights) or ("beta", [(weight, a, b), ...]).
LAWS = {
    # smooth, unimodal-ish mixture of betas
    "beta-mix": ("beta", [(0.6, 6.0, 2.0), (0.4, 2.0, 4.0)]),
    # mass near 0 and 1: same-example correlation rho about 0.97
    "near-0-1": ("beta", [(0.75, 40.0, 0.2), (0.25, 0.2, 40.0)]),
    # atoms, one at the majority's jump q = 1/2
    "atom-half": ("atoms", [0.5, 0.85], [0.4, 0.6]),
    # every example equally hard: rho = 0
    "constant": ("atoms", [0.7], [1.0]),
    # mostly below 1/2: voting hurts
    "below-half": ("beta", [(1.0, 3.0, 5.0)]),
    # uniform latent law
    "uniform": ("beta", [(1.0, 1.0, 1.0)]),
}


def draw_q(law, n: int, rng: np.random.Generator) -> np.ndarray:
    if law[0] == "atoms":
        return rng.choice(np.asarray(law[1]), size=n, p=np.asarray(law[2]))
    comps = law[1]
    which = rng.choice(len(comps), size=n, p=[w for w, _, _ in comps])
    a = np.array([c[1] for c in comps])[which]
    b = np.array([c[2] for c in comps])[which]
    return rng.beta(a, b)


def draw_cells(law, k: int, n: int, rng: np.random.Generator):
    """One data set of the grid: n latent q, then k calls each; the draws every benchmark of the
    grid makes in this order, so that a cell's seed gives the same data sets everywhere."""
    q = draw_q(law, n, rng)
    bits = rng.random((n, k)) < q[:, None]
    return cell_counts(np.full(n, k), bits.sum(axis=1))


def solved_data_sets(name: str, k: int, n: int, reps: int, rng: np.random.Generator, solve):
    """The intervals of a cell's data sets, ``solve(cells, npmle)`` -> {rule: intervals}, one per
    data set; None for one whose solve raised (reported on standard error, counted by the caller:
    a failure is never silently a hit)."""
    for _ in range(reps):
        cells = draw_cells(LAWS[name], k, n, rng)
        try:
            yield solve(cells, npmle(cells))
        except Exception as exc:
            print(f"{name} K={k} N={n}: {type(exc).__name__}: {exc}", file=sys.stderr)
            yield None


def tally(found: dict, goals: list[str], truth: dict, hits: dict, widths: dict) -> None:
    """Add one data set's intervals ({rule: intervals in the order of goals}) to the hits and width sums."""
    for rule, ivs in found.items():
        for g, iv in zip(goals, ivs):
            hits[rule][g] += iv.lower.value - 1e-9 <= truth[g] <= iv.upper.value + 1e-9
            widths[rule][g] += iv.upper.value - iv.lower.value


def true_value(law, objective: str) -> float:
    """E_pi[g] of the law: exact sums for atoms; for a beta component the beta-binomial tail.

    With Q ~ Beta(a, b), the number of correct calls among 2n+1 is beta-binomial, so
    V_{2n+1} = E[P_n(Q)] = Pr{BetaBin(2n+1, a, b) >= n+1} in closed form.
    """
    if objective == "V3 - V1":
        return true_value(law, "V3") - true_value(law, "V1")
    n = (int(objective[1:]) - 1) // 2
    if law[0] == "atoms":
        return float(sum(w * majority_polynomial(n, np.array(x)) for x, w in zip(law[1], law[2])))
    return float(sum(w * stats.betabinom(2 * n + 1, a, b).sf(n) for w, a, b in law[1]))


#: The calibrations of objectives beyond K compared by ``--beyond``.
BEYOND_RULES = ("projection", "profile", "face")
#: The rule of the ``--beyond`` cells (their records are kept apart from the default rule's).
BEYOND_RULE = "beyond-K: projection chi2_K / profile chi2_1 / face chi2_d, F small-sample"


def beyond_objectives(k: int) -> list[str]:
    """The objectives of the vote curve that k calls do not identify (degree > k), and V_inf."""
    return [g for g in ("V3", "V5", "V9", "V101") if int(g[1:]) > k] + ["Vinf"]


def true_limit(law) -> float:
    """V_inf = Pr(Q > 1/2) + Pr(Q = 1/2) / 2 of the law."""
    if law[0] == "atoms":
        return float(sum(w * ((x > 0.5) + 0.5 * (x == 0.5)) for x, w in zip(law[1], law[2])))
    return float(sum(w * stats.beta(a, b).sf(0.5) for w, a, b in law[1]))


def run_beyond_cell(task) -> dict:
    """Coverage and width of the three calibrations beyond K on one cell's data sets."""
    name, k, n, reps, alpha, seed, _ = task
    law = LAWS[name]
    goals = beyond_objectives(k)
    truth = {g: true_limit(law) if g == "Vinf" else true_value(law, g) for g in goals}
    asked = [("inf" if g == "Vinf" else g) for g in goals]
    rng = np.random.default_rng(seed)
    hits = {r: {g: 0 for g in goals} for r in BEYOND_RULES}
    widths = {r: {g: 0.0 for g in goals} for r in BEYOND_RULES}
    face_df = {g: 0.0 for g in goals}
    failures = 0
    profile_c = critical_value(alpha, 1, n=n, dim=k)
    start = time.perf_counter()
    def solve(cells, ref):
        return {"projection": likelihood_intervals(cells, asked, alpha=alpha, reference=ref),
                "profile": likelihood_intervals(cells, asked, c=profile_c, reference=ref),
                "face": likelihood_intervals(cells, asked, alpha=alpha, reference=ref, beyond="face")}

    for found in solved_data_sets(name, k, n, reps, rng, solve):  # the same data sets as the default run of this cell
        if found is None:
            failures += 1
            continue
        tally(found, goals, truth, hits, widths)
        for g, iv in zip(goals, found["face"]):
            face_df[g] += iv.df
    done = max(reps - failures, 1)
    return {
        "law": name, "K": k, "N": n, "reps": reps, "failures": failures, "alpha": alpha, "rule": BEYOND_RULE,
        "coverage": {r: {g: v / done for g, v in hits[r].items()} for r in BEYOND_RULES},
        "width": {r: {g: v / done for g, v in widths[r].items()} for r in BEYOND_RULES},
        "face_df": {g: v / done for g, v in face_df.items()},
        "truth": truth, "seconds_per_set": (time.perf_counter() - start) / reps,
    }


def beyond_row(r: dict) -> str:
    """One Markdown row per objective of a --beyond cell: coverage and width of each calibration."""
    lines = []
    for g in r["truth"]:
        cov = " | ".join(f"{r['coverage'][c][g]:.3f}" for c in BEYOND_RULES)
        wid = " | ".join(f"{r['width'][c][g]:.4f}" for c in BEYOND_RULES)
        cut = 1 - r["width"]["face"][g] / r["width"]["projection"][g] if r["width"]["projection"][g] > 0 else 0.0
        fail = f" ({r['failures']} failed)" if r["failures"] else ""
        lines.append(f"| {r['law']} | {r['K']} | {r['N']} | {g} | {r['reps']}{fail} | {cov} | {wid} | {cut:+.0%} "
                     f"| {r['face_df'][g]:.2f} |")
    return "\n".join(lines)


BEYOND_HEAD = ("| law | K | N | objective | reps | cov chi2_K | cov chi2_1 | cov face | width chi2_K | width chi2_1 "
               "| width face | face narrower by | mean d |\n|" + "---|" * 13)


def beyond_table(records: list[dict]) -> None:
    """RESULTS.md table of the --beyond cells, with the smallest coverage of each calibration."""
    order = list(LAWS)
    cells = sorted((r for r in records if r.get("rule") == BEYOND_RULE),
                   key=lambda r: (r["N"], r["K"], order.index(r["law"])))
    print(BEYOND_HEAD)
    for r in cells:
        print(beyond_row(r))
    for rule in BEYOND_RULES:
        lows = sorted(((r["coverage"][rule][g], g, r) for r in cells for g in r["truth"]), key=lambda t: t[0])
        v, g, r = lows[0]
        se = math.sqrt(0.95 * 0.05 / r["reps"])
        print(f"\n{rule}: smallest coverage {v:.3f} ({g}, {r['law']}, K = {r['K']}, N = {r['N']}, {r['reps']} data sets, "
              f"MC SE at 0.95: {se:.3f}); objective-cells below 0.94: {sum(t[0] < 0.94 for t in lows)} of {len(lows)}.")
    wide = [(r, g) for r in cells for g in r["truth"] if r["K"] >= 5 and r["width"]["projection"][g] > 0]
    if wide:
        cuts = [1 - r["width"]["face"][g] / r["width"]["projection"][g] for r, g in wide]
        print(f"face width below chi2_K's at K >= 5: smallest {min(cuts):.0%}, median {float(np.median(cuts)):.0%}, "
              f"largest {max(cuts):.0%} over {len(cuts)} objective-cells.")


def rho_of(law) -> float:
    mu, nu = true_moment(law, 1), true_moment(law, 2)
    return (nu - mu * mu) / (mu * (1 - mu)) if 0 < mu < 1 else float("nan")


def true_moment(law, k: int) -> float:
    if law[0] == "atoms":
        return float(sum(w * x**k for x, w in zip(law[1], law[2])))
    return float(sum(w * stats.beta(a, b).moment(k) for w, a, b in law[1]))


def lattice_applies(name: str, k: int, n: int, reps: int, seed: int) -> bool:
    """Replay a cell's data sets: does the small-count calibration apply to any of them?"""
    law = LAWS[name]
    rng = np.random.default_rng(seed)
    objectives = [parse_objective(g) for g in OBJECTIVES]
    for _ in range(reps):
        cells = draw_cells(law, k, n, rng)
        ref = npmle(cells)
        if any(LatticeProblem(cells, obj).on_lattice(ref) for obj in objectives if LatticeProblem.applies(cells, obj)):
            return True
    return False


def run_cell(task) -> dict:
    name, k, n, reps, alpha, seed, previous = task
    if previous is not None and not lattice_applies(name, k, n, reps, seed):
        return {**previous, "rule": RULE, "reused_from": PREVIOUS_RULE}
    law = LAWS[name]
    truth = {g: true_value(law, g) for g in OBJECTIVES}
    rng = np.random.default_rng(seed)
    hits = {g: 0 for g in OBJECTIVES}
    calibration = {}
    widths = {g: 0.0 for g in OBJECTIVES}
    two_hits = two_width = 0.0
    two_empty = 0
    failures = 0
    start = time.perf_counter()
    for _ in range(reps):
        q = draw_q(law, n, rng)
        bits = rng.random((n, k)) < q[:, None]
        s = bits.sum(axis=1)
        try:
            ivs = likelihood_intervals(cell_counts(np.full(n, k), s), OBJECTIVES, alpha=alpha)
        except Exception as exc:  # counted and reported: a failure is never silently a hit
            failures += 1
            print(f"{name} K={k} N={n}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        for g, iv in zip(OBJECTIVES, ivs):
            calibration[g] = iv.calibration
            hits[g] += iv.lower.value - 1e-9 <= truth[g] <= iv.upper.value + 1e-9
            widths[g] += iv.upper.value - iv.lower.value
        b1, b2 = bits[:, 0].astype(float), bits[:, 1].astype(float)
        est = two_call_from_summary(float(np.mean((b1 + b2) / 2)), n, nu=float(np.mean(b1 * b2)))
        try:
            (proj,) = project_many([wald_region(est, alpha)], ["V3"], certify=False)[0]
        except EmptyRegionError:  # the two-call method rejects the model: no interval, so no coverage
            two_empty += 1
            continue
        two_hits += proj.lower - 1e-9 <= truth["V3"] <= proj.upper + 1e-9
        two_width += proj.upper - proj.lower
    done = reps - failures
    return {
        "law": name, "K": k, "N": n, "reps": reps, "failures": failures, "alpha": alpha, "rule": RULE,
        "calibration": calibration,
        "coverage": {g: hits[g] / max(done, 1) for g in OBJECTIVES},
        "width": {g: widths[g] / max(done, 1) for g in OBJECTIVES},
        "two_call_V3": {"coverage": two_hits / max(done, 1), "width": two_width / max(done - two_empty, 1),
                        "empty": two_empty},
        "truth": truth, "seconds_per_set": (time.perf_counter() - start) / reps,
    }


def row(r: dict) -> str:
    cov = " | ".join(f"{r['coverage'][g]:.3f}" for g in OBJECTIVES)
    wid = " | ".join(f"{r['width'][g]:.4f}" for g in OBJECTIVES)
    t = r["two_call_V3"]
    fail = f" ({r['failures']} failed)" if r["failures"] else ""
    empty = f" ({t['empty']} empty)" if t.get("empty") else ""
    return (f"| {r['law']} | {r['K']} | {r['N']} | {cov} | {wid} | {t['coverage']:.3f}{empty} | {t['width']:.4f} "
            f"| {r['seconds_per_set']:.3f}{fail} |")


def table(records: list[dict]) -> None:
    """RESULTS.md table of the current rule's cells (first runs, then rechecks), with a summary."""
    order = list(LAWS)
    cells = sorted((r for r in records if r.get("rule") == RULE),
                   key=lambda r: (r["N"], r["K"], order.index(r["law"]), r.get("recheck_of", 0)))
    print(f"| law | K | N | {' | '.join(f'cov {g}' for g in OBJECTIVES)} | {' | '.join(f'width {g}' for g in OBJECTIVES)} "
          "| two-call cov V3 | two-call width V3 | s / data set | run |")
    print("|" + "---|" * (3 + 2 * len(OBJECTIVES) + 4))
    for r in cells:
        run = ("replayed: calibration never applies, previous cell" if "reused_from" in r
               else f"recheck on {r['reps']} fresh data sets" if "recheck_of" in r else f"measured, {r['reps']} data sets")
        print(row(r) + f" {run} |")
    first = [r for r in cells if "recheck_of" not in r]
    measured = [r for r in first if "reused_from" not in r]
    worst = min(measured, key=lambda r: min(r["coverage"].values()))
    g = min(worst["coverage"], key=worst["coverage"].get)
    grid = sorted({(r["K"], r["N"]) for r in first})
    print(f"\nCells: {len(first)} ({len(measured)} measured, {len(first) - len(measured)} replayed), "
          f"rechecks: {len(cells) - len(first)}; (K, N) = {', '.join(f'({k}, {n})' for k, n in grid)}. "
          f"Smallest coverage of a measured cell: {worst['coverage'][g]:.3f} ({g}, {worst['law']}, K = {worst['K']}, "
          f"N = {worst['N']}); failed data sets: {sum(r['failures'] for r in cells)}.")
    # the estimate of a cell is its recheck where there is one: only fresh data sets, so choosing the
    # cells to recheck by their first estimate does not bias it
    final = {(r["law"], r["K"], r["N"]): r for r in cells}  # sorted: a recheck comes after its first run
    lows = sorted(((v, g, r) for r in final.values() for g, v in r["coverage"].items()), key=lambda t: t[0])
    v, g, r = lows[0]
    print(f"Each cell at its final estimate (the recheck where there is one): smallest coverage {v:.4f} "
          f"({g}, {r['law']}, K = {r['K']}, N = {r['N']}, {r['reps']} data sets); "
          f"objective-cells below 0.94: {sum(t[0] < 0.94 for t in lows)}, below 0.95: {sum(t[0] < 0.95 for t in lows)} "
          f"of {len(lows)}.")


def cell_seed(seed: int, name: str, k: int, n: int) -> int:
    """The seed of one (law, K, N) cell: every benchmark of this grid draws the same data sets."""
    return seed + 1000 * list(LAWS).index(name) + 10 * k + int(math.log2(n))


def grid_arguments(description: str) -> argparse.ArgumentParser:
    """The options of the coverage grid (laws x K x N, replicates, level, workers, seed, --out)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--laws", nargs="+", default=list(LAWS), choices=list(LAWS))
    ap.add_argument("--K", nargs="+", type=int, default=[2, 3, 5, 10])
    ap.add_argument("--N", nargs="+", type=int, default=[50, 200, 1000, 8192])
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--out", type=Path, help="JSON-lines file of finished cells (resumes)")
    return ap


def main() -> None:
    ap = grid_arguments(__doc__.splitlines()[0])
    ap.add_argument("--recheck", type=int, metavar="REPS",
                    help="re-run cells of --out below --below on REPS fresh data sets (independent seeds)")
    ap.add_argument("--below", type=float, default=0.95, help="smallest coverage that triggers --recheck")
    ap.add_argument("--table", action="store_true", help="print the RESULTS.md table of the --out file and exit")
    ap.add_argument("--beyond", action="store_true",
                    help="compare the calibrations of the objectives beyond K (projection, profile, face)")
    args = ap.parse_args()
    if args.table:
        if not (args.out and args.out.exists()):
            ap.error("--table reads the cells of --out FILE: give an existing file")
        (beyond_table if args.beyond else table)([json.loads(line) for line in args.out.read_text().splitlines()])
        return
    if args.beyond:
        run_beyond(args)
        return
    done, previous = {}, {}
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            key = (r["law"], r["K"], r["N"], r["reps"], r["alpha"])
            if r.get("rule") == RULE:
                done[key] = r
            elif r.get("rule") == PREVIOUS_RULE and "recheck_of" not in r:
                previous[key] = r  # reused only if the replay shows the new calibration never applies
    # the seed of a cell depends on its law's place in LAWS, not in --laws: a partial run draws the same data
    tasks = [(name, k, n, args.reps, args.alpha, cell_seed(args.seed, name, k, n),
              previous.get((name, k, n, args.reps, args.alpha)))
             for name in args.laws for k in args.K for n in args.N
             if (name, k, n, args.reps, args.alpha) not in done]
    if args.recheck:
        # Fresh seeds (offset by 10^6): the recheck shares no data set with the first run.
        flagged = [r for r in done.values() if r["reps"] == args.reps and min(r["coverage"].values()) < args.below
                   and (r["law"], r["K"], r["N"], args.recheck, args.alpha) not in done]
        tasks = [(r["law"], r["K"], r["N"], args.recheck, args.alpha,
                  args.seed + 10**6 + 1000 * list(LAWS).index(r["law"]) + 10 * r["K"] + int(math.log2(r["N"])), None)
                 for r in flagged if r["law"] in args.laws]
    tasks.sort(key=lambda t: (t[2], t[1]))  # small N first: fastest, and where the calibration is tested hardest
    for name in args.laws:
        print(f"- {name}: mu = {true_moment(LAWS[name], 1):.4f}, rho = {rho_of(LAWS[name]):.4f}, "
              + ", ".join(f"{g} = {true_value(LAWS[name], g):.4f}" for g in OBJECTIVES))
    print()
    head = " | ".join(f"cov {g}" for g in OBJECTIVES) + " | " + " | ".join(f"width {g}" for g in OBJECTIVES)
    print(f"| law | K | N | {head} | two-call cov V3 | two-call width V3 | s / data set |")
    print("|" + "---|" * (3 + 2 * len(OBJECTIVES) + 3))
    for r in done.values():
        print(row(r), flush=True)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for r in pool.map(run_cell, tasks):
            if args.recheck:
                r["recheck_of"] = args.reps
            print(row(r), flush=True)
            if args.out:
                with args.out.open("a") as fh:  # one line per finished cell: an interruption loses one cell at most
                    fh.write(json.dumps(r) + "\n")


def run_beyond(args) -> None:
    """The --beyond run: cells in the order of --laws (boundary laws first if listed first), resumable."""
    done = set()
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            if r.get("rule") == BEYOND_RULE:
                done.add((r["law"], r["K"], r["N"], r["reps"], r["alpha"]))
    # the seed of a cell is the default run's: the same data sets as its recorded cell
    tasks = [(name, k, n, args.reps, args.alpha, cell_seed(args.seed, name, k, n),
              None)
             for n in args.N for k in args.K for name in args.laws if (name, k, n, args.reps, args.alpha) not in done]
    print(BEYOND_HEAD, flush=True)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for r in pool.map(run_beyond_cell, tasks):
            print(beyond_row(r), flush=True)
            if args.out:
                with args.out.open("a") as fh:  # one line per finished cell: an interruption loses one cell at most
                    fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
