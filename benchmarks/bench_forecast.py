#!/usr/bin/env python3
"""Forecasts beyond the recorded calls (certify.forecast): real data, criterion, guard, time.

Four parts, one run, single-threaded BLAS:

1. **Real data** (``../shared/data/*.csv``, long form ``example_id,call,answer,target``; a call is
   correct iff ``answer == target``): fit on the first K0 in {5, 10} calls of each example,
   forecast V_k (k in {9, 21, 39, 99}) and pass@k (k in {10, 20, 40, 100}) for k > K0 up to the
   K recorded, and compare with the value from all K calls (the U-statistics: pass@k =
   mean 1 - C(K-S, k)/C(K, k); V_k = mean over examples of the share of k-subsets with a
   correct majority, the hypergeometric sum). Beside the forecast (family chosen by BIC, the
   guard, the parametric bootstrap percentile interval): the peers' baseline, a beta-binomial
   parametric bootstrap (the ``beta`` family alone, same B), and certify's distribution-free
   likelihood interval (``certify.likelihood.likelihood_intervals``). Per row: truth, estimate,
   interval, covered, width; per set the time of each. Beside them the forecast with ``pool``
   (``--pool``, default 6 BIC units): the union of the intervals of every family within that
   margin of the chosen one and not rejected.
2. **Criterion**: the point errors of the family BIC picks and of the family AIC picks on the same
   (set, K0) pairs (median and largest absolute error over the targets).
3. **Guard**: rejection rate of each family (B = ``--guard-bootstrap``) and of the whole forecast
   (no family accepted), and the coverage of the forecast of V21 and pass@100 when one is given
   (B = ``--bootstrap``), without and with ``pool``, under laws inside and outside the families
   (N = 400, K = 10).
4. **Time** of one forecast at 1,000 x 10 and 10,000 x 40 (B = 200), without and with ``pool``,
   and the ratio to the beta-binomial baseline's time on the same data. With ``--old REV``: the
   default forecast's time at both sizes under commit REV (``git archive``) and under this
   checkout, each in its own process, alternating ``--repeats`` times (best of each), with
   whether the two give the same intervals.

Usage::

    python3 benchmarks/bench_forecast.py [--bootstrap 200] [--replicates 20] [--guard-bootstrap 49] [--pool 6]
    python3 benchmarks/bench_forecast.py --skip real guard time --old 3859f48 --repeats 3
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

from certify.forecast import FAMILIES, check_family, fit_families, fit_family, forecast  # noqa: E402
from certify.likelihood import cell_counts, likelihood_intervals  # noqa: E402


def load(path: Path) -> np.ndarray:
    """Correctness bits, examples x calls (every example of these sets has all K calls)."""
    rows: dict[str, dict[int, bool]] = defaultdict(dict)
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows[r["example_id"]][int(r["call"])] = r["answer"] == r["target"]
    k = max(len(v) for v in rows.values())
    return np.array([[v[j] for j in range(k)] for v in rows.values()], dtype=bool)


def truth_pass(s: np.ndarray, k_all: int, k: int) -> float:
    return float(np.mean([1 - math.comb(k_all - int(x), k) / math.comb(k_all, k) for x in s]))


def truth_vote(s: np.ndarray, k_all: int, k: int) -> float:
    total = math.comb(k_all, k)
    return float(np.mean([sum(math.comb(int(x), j) * math.comb(k_all - int(x), k - j)
                              for j in range(k // 2 + 1, k + 1)) / total for x in s]))


def targets_for(k0: int, k_all: int) -> list[tuple[str, object, str, float | None]]:
    """(name, forecast target, certified objective, k) beyond K0 up to K."""
    out = []
    for k in (9, 21, 39, 99):
        if k0 < k <= k_all:
            out.append((f"V{k}", k, k, ("vote", k)))
    for k in (10, 20, 40, 100):
        if k0 < k <= k_all:
            out.append((f"pass@{k}", f"pass@{k}", f"1 - (1-q)**{k}", ("pass", k)))
    return out


def real_data(args) -> tuple[list, list]:
    rows, crit = [], []
    print("== 1. real data: fit on the first K0 calls, compare with all K ==")
    head = (f"{'set':34s} {'K0':>3s} {'target':>9s} {'truth':>6s} | {'family':>12s} {'p':>5s} {'fcst':>6s} "
            f"{'interval':>15s} {'in':>3s} {'width':>6s} | {'beta':>6s} {'interval':>15s} {'in':>3s} {'width':>6s} | "
            f"{'certified':>15s} {'width':>6s} | {'pool=' + format(args.pool, 'g'):>15s} {'in':>3s} {'width':>6s}")
    print(head)
    for path in sorted(DATA.glob("*.csv")):
        bits = load(path)
        n, k_all = bits.shape
        s_all = bits.sum(axis=1)
        for k0 in (5, 10):
            targets = targets_for(k0, k_all)
            if not targets:
                continue
            cells = cell_counts(np.full(n, k0), bits[:, :k0].sum(axis=1))
            truth = [truth_vote(s_all, k_all, k) if kind == "vote" else truth_pass(s_all, k_all, k) for *_, (kind, k) in targets]
            t0 = time.perf_counter()
            fc = forecast(cells, [t[1] for t in targets], bootstrap=args.bootstrap, seed=0)
            t_fc = time.perf_counter() - t0
            t0 = time.perf_counter()
            pooled = forecast(cells, [t[1] for t in targets], bootstrap=args.bootstrap, seed=0, pool=args.pool)
            t_pool = time.perf_counter() - t0
            t0 = time.perf_counter()
            base = check_family(cells, fit_family(cells, "beta"), [t[1] for t in targets], bootstrap=args.bootstrap, seed=0)
            t_base = time.perf_counter() - t0
            t0 = time.perf_counter()
            cert = likelihood_intervals(cells, [t[2] for t in targets])
            t_cert = time.perf_counter() - t0
            p = fc.guard.p_value if fc.guard else float("nan")
            for (name, *_), tr, f, b, c, g in zip(targets, truth, fc.targets, base.targets, cert, pooled.targets):
                lo_c, hi_c = c.lower.value, c.upper.value
                row = dict(set=path.stem, k0=k0, target=name, truth=tr, family=fc.family or "none", p=p,
                           est=f.estimate, lo=f.lower, hi=f.upper, base=b.estimate, blo=b.lower, bhi=b.upper,
                           base_p=base.guard.p_value, clo=lo_c, chi=hi_c, t_fc=t_fc, t_base=t_base, t_cert=t_cert,
                           plo=g.lower, phi=g.upper)
                rows.append(row)
                cov = "yes" if f.lower <= tr <= f.upper else "NO"
                bcov = "yes" if b.lower <= tr <= b.upper else "NO"
                print(f"{path.stem[:34]:34s} {k0:3d} {name:>9s} {tr:6.3f} | {fc.family or 'none':>12s} {p:5.3f} {f.estimate:6.3f} "
                      f"[{f.lower:5.3f}, {f.upper:5.3f}] {cov:>3s} {f.width:6.3f} | {b.estimate:6.3f} [{b.lower:5.3f}, {b.upper:5.3f}] "
                      f"{bcov:>3s} {b.width:6.3f} | [{lo_c:5.3f}, {hi_c:5.3f}] {hi_c - lo_c:6.3f} | "
                      f"[{g.lower:5.3f}, {g.upper:5.3f}] {'yes' if g.lower <= tr <= g.upper else 'NO':>3s} {g.width:6.3f}")
            print(f"{'':34s}     time: forecast {t_fc:.2f} s ({len(fc.rejected)} families rejected), beta baseline "
                  f"{t_base:.2f} s (guard p {base.guard.p_value:.3f}), certified {t_cert:.2f} s, pooled {t_pool:.2f} s "
                  f"({', '.join([pooled.family or 'none', *[g.family for g in pooled.pooled]])})")
            # the criterion: point errors of every candidate, and which one each criterion picks
            fits = fit_families(cells, criterion="bic")
            aic_maxent = fit_family(cells, "maxent", criterion="aic")
            by_aic = min([f for f in fits if f.family != "maxent"] + [aic_maxent], key=lambda f: f.aic)
            by_bic = fits[0]
            for label, fit in (("bic", by_bic), ("aic", by_aic)):
                err = [abs(fit.value(t[1]) - tr) for t, tr in zip(targets, truth)]
                crit.append(dict(set=path.stem, k0=k0, criterion=label, family=fit.label, med=float(np.median(err)),
                                 max=float(np.max(err))))
    return rows, crit


def summarize_real(rows: list, crit: list, pool: float) -> None:
    covered = [r["lo"] <= r["truth"] <= r["hi"] for r in rows if r["family"] != "none"]
    bcovered = [r["blo"] <= r["truth"] <= r["bhi"] for r in rows]
    err = [abs(r["est"] - r["truth"]) for r in rows if r["family"] != "none"]
    berr = [abs(r["base"] - r["truth"]) for r in rows]
    width = [r["hi"] - r["lo"] for r in rows if r["family"] != "none"]
    bwidth = [r["bhi"] - r["blo"] for r in rows]
    cwidth = [r["chi"] - r["clo"] for r in rows if r["family"] != "none"]
    inside = [r["clo"] - 1e-9 <= r["lo"] and r["hi"] <= r["chi"] + 1e-9 for r in rows if r["family"] != "none"]
    none = sum(r["family"] == "none" for r in rows)
    print(f"\nsummary over {len(rows)} targets ({none} without a forecast: every family rejected):")
    print(f"  forecast: covered {sum(covered)}/{len(covered)}, median |error| {np.median(err):.4f}, "
          f"median width {np.median(width):.4f}, inside the certified interval {sum(inside)}/{len(inside)}")
    print(f"  beta-binomial bootstrap: covered {sum(bcovered)}/{len(bcovered)}, median |error| {np.median(berr):.4f}, "
          f"median width {np.median(bwidth):.4f}")
    pcov = [r["plo"] <= r["truth"] <= r["phi"] for r in rows if r["family"] != "none"]
    pwidth = [r["phi"] - r["plo"] for r in rows if r["family"] != "none"]
    print(f"  forecast with pool={pool:g}: covered {sum(pcov)}/{len(pcov)}, median width {np.median(pwidth):.4f}")
    ratio = [w / b for w, b in zip(width, [r["bhi"] - r["blo"] for r in rows if r["family"] != "none"])]
    print(f"  width ratio forecast / beta baseline: median {np.median(ratio):.2f}; forecast / certified: "
          f"median {np.median([w / c for w, c in zip(width, cwidth)]):.2f}")
    for kind in ("V", "pass"):
        sel = [r for r in rows if r["target"].startswith(kind) and r["family"] != "none"]
        if sel:
            print(f"  {kind:4s}: covered {sum(r['lo'] <= r['truth'] <= r['hi'] for r in sel)}/{len(sel)}, median |error| "
                  f"{np.median([abs(r['est'] - r['truth']) for r in sel]):.4f} (beta baseline "
                  f"{np.median([abs(r['base'] - r['truth']) for r in sel]):.4f})")
    print("\n== 2. criterion: the family each picks and its point errors over the targets of a (set, K0) ==")
    for label in ("bic", "aic"):
        sel = [c for c in crit if c["criterion"] == label]
        picks = ", ".join(f"{c['set'][:10]}/{c['k0']}: {c['family']}" for c in sel)
        print(f"  {label}: median of medians {np.median([c['med'] for c in sel]):.4f}, mean of medians "
              f"{np.mean([c['med'] for c in sel]):.4f}, largest error {max(c['max'] for c in sel):.4f}")
        print(f"       picks {picks}")


LAWS = {
    "beta(0.8,1.5)": (lambda rng, n: rng.beta(0.8, 1.5, n), "inside beta, beta01, beta2"),
    "two-point .15/.85": (lambda rng, n: rng.choice([0.15, 0.85], n), "outside all (near beta2)"),
    "beta2": (lambda rng, n: np.where(rng.random(n) < 0.5, rng.beta(2, 20, n), rng.beta(20, 3, n)), "inside beta2"),
    "four-point": (lambda rng, n: rng.choice([0.05, 0.35, 0.65, 0.95], n), "outside all"),
}


def true_values(law, rng) -> tuple[float, float]:
    q = law(rng, 400_000)
    return float(np.mean(stats.binom.sf(10, 21, q))), float(np.mean(1 - (1 - q) ** 100))


def guard_study(args) -> None:
    print(f"\n== 3. guard: rejection rates over {args.replicates} data sets of N = 400, K = 10 "
          f"(B = {args.guard_bootstrap}, alpha = 0.05); forecasts with B = {args.bootstrap} ==")
    print(f"{'law':18s} {'':26s} " + " ".join(f"{f:>7s}" for f in FAMILIES)
          + f" {'none':>5s} {'cov V21':>8s} {'cov p@100':>9s} {'pooled V21':>10s} {'pooled p@100':>12s} {'width p@100':>14s} {'time':>6s}")
    for name, (law, where) in LAWS.items():
        rng = np.random.default_rng(2024)
        v21, p100 = true_values(law, rng)
        rej = np.zeros(len(FAMILIES))
        none = cov21 = cov100 = given = pcov21 = pcov100 = 0
        widths: list[tuple[float, float]] = []
        t0 = time.perf_counter()
        for r in range(args.replicates):
            cells = cell_counts(np.full(400, 10), rng.binomial(10, law(rng, 400)))
            for i, fam in enumerate(FAMILIES):
                rej[i] += check_family(cells, fit_family(cells, fam), bootstrap=args.guard_bootstrap, seed=r).guard.rejected
            fc = forecast(cells, [21, "pass@100"], bootstrap=args.bootstrap, seed=r)
            if fc.family is None:
                none += 1
                continue
            given += 1
            cov21 += fc.targets[0].lower <= v21 <= fc.targets[0].upper
            cov100 += fc.targets[1].lower <= p100 <= fc.targets[1].upper
            fp = forecast(cells, [21, "pass@100"], bootstrap=args.bootstrap, seed=r, pool=args.pool)
            pcov21 += fp.targets[0].lower <= v21 <= fp.targets[0].upper
            pcov100 += fp.targets[1].lower <= p100 <= fp.targets[1].upper
            widths.append((fc.targets[1].width, fp.targets[1].width))
        rates = " ".join(f"{x / args.replicates:7.2f}" for x in rej)
        c21 = f"{cov21}/{given}" if given else "-"
        c100 = f"{cov100}/{given}" if given else "-"
        p21 = f"{pcov21}/{given}" if given else "-"
        p100s = f"{pcov100}/{given}" if given else "-"
        w = f"{np.median([a for a, _ in widths]):.3f}/{np.median([b for _, b in widths]):.3f}" if widths else "-"
        print(f"{name:18s} {where:26s} {rates} {none / args.replicates:5.2f} {c21:>8s} {c100:>9s} {p21:>10s} {p100s:>12s} "
              f"{w:>14s} {time.perf_counter() - t0:5.0f}s")


def timing(args) -> None:
    print(f"\n== 4. time of one forecast (B = {args.bootstrap}), targets V9, V21, V101, V_inf, pass@10/100, pass@inf ==")
    targets = [9, 21, 101, "inf", "pass@10", "pass@100", "pass@inf"]
    for n, k in ((1000, 10), (10000, 40)):
        rng = np.random.default_rng(7)
        cells = cell_counts(np.full(n, k), rng.binomial(k, rng.beta(0.6, 1.4, n)))
        t0 = time.perf_counter()
        fits = fit_families(cells)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        fc = forecast(cells, targets, bootstrap=args.bootstrap)
        t_fc = time.perf_counter() - t0
        t0 = time.perf_counter()
        fp = forecast(cells, targets, bootstrap=args.bootstrap, pool=args.pool)
        t_pool = time.perf_counter() - t0
        t0 = time.perf_counter()
        check_family(cells, fit_family(cells, "beta"), targets, bootstrap=args.bootstrap)
        t_base = time.perf_counter() - t0
        print(f"  {n:6d} x {k:3d}: forecast {t_fc:6.2f} s (fits of {len(fits)} families {t_fit:.2f} s; chose {fc.family}, "
              f"{len(fc.rejected)} rejected), beta-binomial baseline {t_base:6.2f} s, ratio {t_fc / t_base:.2f}; "
              f"pooled {t_pool:6.2f} s ({len(fp.pooled)} more families), ratio {t_pool / t_base:.2f}")


#: One tree's default forecast at both sizes of section 4: seconds and intervals, as JSON.
TIMED = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from certify.forecast import forecast
from certify.likelihood import cell_counts
out = []
for n, k in ((1000, 10), (10000, 40)):
    rng = np.random.default_rng(7)
    cells = cell_counts(np.full(n, k), rng.binomial(k, rng.beta(0.6, 1.4, n)))
    t0 = time.perf_counter()
    fc = forecast(cells, [9, 21, 101, "inf", "pass@10", "pass@100", "pass@inf"], bootstrap=int(sys.argv[2]))
    out.append([time.perf_counter() - t0, [[t.estimate, t.lower, t.upper] for t in fc.targets]])
print(json.dumps(out))
"""


def against_old(args) -> None:
    import json
    import subprocess
    import tarfile
    import tempfile
    from io import BytesIO

    print(f"\n== 4b. the default forecast (pooled, B = {args.bootstrap}): commit {args.old} against this checkout, "
          f"best of {args.repeats} ==")
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old, "certify"], check=True,
                                 capture_output=True).stdout
        tarfile.open(fileobj=BytesIO(archive)).extractall(tmp, filter="data")
        best: dict[str, list] = {}
        for _ in range(args.repeats):
            for name, tree in (("old", tmp), ("new", str(ROOT))):
                run = subprocess.run([sys.executable, "-c", TIMED, tree, str(args.bootstrap)], check=True,
                                     capture_output=True, text=True)
                got = json.loads(run.stdout.splitlines()[-1])
                if name not in best:
                    best[name] = got
                else:
                    for i, (seconds, _) in enumerate(got):
                        best[name][i][0] = min(best[name][i][0], seconds)
    for i, size in enumerate(("1,000 x 10", "10,000 x 40")):
        (old, old_values), (new, new_values) = best["old"][i], best["new"][i]
        same = "same intervals" if old_values == new_values else "intervals DIFFER"
        print(f"  {size}: old {old:6.2f} s, new {new:6.2f} s, old / new {old / new:.2f} ({same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--guard-bootstrap", type=int, default=49)
    parser.add_argument("--pool", type=float, default=6.0)
    parser.add_argument("--skip", nargs="*", default=[], choices=["real", "guard", "time"])
    parser.add_argument("--old", help="a commit to time the default forecast against (section 4b)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if "real" not in args.skip:
        summarize_real(*real_data(args), args.pool)
    if "guard" not in args.skip:
        guard_study(args)
    if "time" not in args.skip:
        timing(args)
    if args.old:
        against_old(args)


if __name__ == "__main__":
    main()
