#!/usr/bin/env python3
"""The answer model with diffuse wrong answers: its guard's power, its forecasts' coverage and error, its time.

``certify.aggregates.plurality_model`` (the family of :mod:`certify.aggregates._answer_family`: each call
correct, the example's strongest wrong answer, or one of L equally likely other answers, with the
goodness-of-fit guard of :mod:`certify.aggregates._answer_guard`) against the previous model (one
dominant wrong answer and votes of their own, read from ``git archive HEAD``), in one run, each in
a worker process on the same data, single-threaded:

1. **Truth of the issue's law.** q = 0.2 beside eight wrong answers of 0.1: plurality of 101 calls
   exactly (the family's recursion) and by simulation (``--truth-draws`` votes of 101 calls).
2. **Simulated laws**, ``--reps`` data sets each: the issue's two diffuse laws (q = 0.2 with eight
   wrong answers of 0.1; q = 0.25 with five of 0.15; K = 6, N = 400), two laws the family
   describes (``dominant``: shares 0.9, 0.05, 0.05; ``diffuse``: 12 equal wrong answers; q from a
   Beta mixture, ``bench_aggregate_coverage.py``) and four it does not (``dirichlet``: four
   Dirichlet(0.5) shares and 10 % abstentions; ``atom-half``: three Dirichlet(1) shares; the
   same unequal wrong answers in every example, Zipf or geometric, K = 10, N = 2000). Per
   law: the guard's rejection rate (power outside the family, size inside it), and at k = 9, 21,
   101 and inf (where k > K) the coverage of the interval among the data sets the guard accepts,
   the share "rejected or covered", the median absolute error of the estimate and the previous
   model's (and their ratio), the mean width, and the seconds per data set. Truths are exact
   (``bench_aggregate_coverage.true_plurality``, ``bench_aggregate_beyond_coverage.
   true_plurality_equal``; the issue's laws by the family's recursion, checked by simulation in 1)
   except for Zipf and geometric (TRUTH_DRAWS simulated votes).
3. **Development data** (``../shared/data``, long form example_id,call,answer,target): the model
   fitted on the first K0 calls of each example, its forecast of plurality at larger k beside the
   U-statistic of all K recorded calls (abstentions cast no vote there; the model counts them as
   answers of their own), and the previous model's.
4. **Time** at 1,000 x 10 and 10,000 x 40 calls (budgets 41, 101, inf), best of ``--repeats``.
6. **Grid** (``--sections grid``): the issue's two diffuse laws at K in {3, 5, 10, 20} and N in
   {100, 400, 2000}, ``--reps`` data sets per cell, the current model only: the guard's rejection
   rate and, where k > K, the coverage among accepted data sets and "rejected or covered" at
   k = 21, 101 and inf (the issue's rule: each law must be rejected by the guard or covered).
5. **Choices** of the new model: the grid step (1/20, 1/40) and the calls read at 10,000 x 40;
   the intervals' widths by the calls read on ESC and on simulated laws at 100, 400 and 2000
   examples (what ``MODEL_GRID``, ``MODEL_MAX_CALLS`` and ``MODEL_DIMENSION_PER_ROOT`` rest on).

Usage::

    python benchmarks/bench_answer_model_diffuse.py [--reps 20] [--repeats 2] [--skip-data]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
SETS = ("esc_gpt35turbo_lastletters_k40", "mot_llama2-13b_gsm8k_pot1_k10", "mot_llama2-13b_gsm8k_pot2_k10")
VOTES = (9, 21, 101, "inf")
#: Laws shared by every example: q and the wrong answers' probabilities. The issue's two laws (equal
#: wrong answers: inside the family) and two outside it (unequal wrong answers beyond the strongest).
_ZIPF = [0.8 / j / sum(1 / i for i in range(1, 21)) for j in range(1, 21)]
ISSUE_LAWS = {
    "issue-a (q .2, 8 x .1)": (0.2, [0.1] * 8),
    "issue-b (q .25, 5 x .15)": (0.25, [0.15] * 5),
    "zipf (q .2, 20 wrong ~ 1/j)": (0.2, _ZIPF),
    "geometric (q .25; .3 .2 .12 .07 .04 .02)": (0.25, [0.3, 0.2, 0.12, 0.07, 0.04, 0.02]),
}
#: Votes simulated for the truth of a law whose wrong answers are unequal (standard error ~ 4e-4).
TRUTH_DRAWS = 1_000_000
#: (law, K, N) cells of section 2.
CELLS = (
    ("issue-a (q .2, 8 x .1)", 6, 400),
    ("issue-b (q .25, 5 x .15)", 6, 400),
    ("issue-a (q .2, 8 x .1)", 10, 2000),
    ("zipf (q .2, 20 wrong ~ 1/j)", 10, 2000),
    ("geometric (q .25; .3 .2 .12 .07 .04 .02)", 10, 2000),
    ("dominant", 5, 400),
    ("diffuse", 5, 400),
    ("dirichlet", 5, 400),
    ("atom-half", 5, 400),
)


# -- the worker: one implementation of certify on sys.path, a list of data sets ----------------


def worker(root: str, folder: str) -> None:
    sys.path.insert(0, root)
    from certify.aggregates import plurality_model

    spec = json.loads((Path(folder) / "task.json").read_text())
    if spec.get("grid") or spec.get("calls"):  # section 5: the new model with another grid or calls read
        import functools

        import certify.aggregates._answer_model as model_module

        if spec.get("grid"):
            model_module.model_grid = functools.partial(model_module.model_grid, size=spec["grid"])
        if spec.get("calls"):
            model_module.calls_read = lambda calls: min(spec["calls"], int(calls.max()))
    arrays = np.load(Path(folder) / "codes.npz")
    votes = [v if v == "inf" else int(v) for v in spec["votes"]]
    plurality_model(np.array([[0, 1, 1], [0, 0, 2], [1, 0, 0]]), [9])  # load compiled code outside the timing
    out = []
    for name in sorted(arrays.files, key=lambda s: int(s.split("_")[1])):
        codes = arrays[name]
        budgets = [v for v in votes if v == "inf" or v > codes.shape[1]] if spec["beyond"] else votes
        best, result = float("inf"), None
        for _ in range(spec["repeats"]):
            start = time.perf_counter()
            result = plurality_model(codes, budgets)
            best = min(best, time.perf_counter() - start)
        assert result is not None
        rows = {str(k) if isinstance(k, int) else "inf": [e.interval.estimate, e.interval.lower, e.interval.upper, e.check]
                for k, e in result.items()}
        out.append({"seconds": best, "rows": rows})
    (Path(folder) / "out.json").write_text(json.dumps(out))


def run(root: Path, datasets: list[np.ndarray], votes, repeats: int = 1, beyond: bool = True, **choice) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        np.savez(Path(folder) / "codes.npz", **{f"codes_{i}": c for i, c in enumerate(datasets)})
        spec = {"votes": [str(v) for v in votes], "repeats": repeats, "beyond": beyond, **choice}
        (Path(folder) / "task.json").write_text(json.dumps(spec))
        subprocess.run([sys.executable, __file__, "--worker", str(root), folder], check=True)
        return json.loads((Path(folder) / "out.json").read_text())


def head_tree(folder: Path) -> Path:
    """The previous implementation: ``git archive HEAD certify`` (the checkout's git state is untouched)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD", "certify"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


# -- laws and truths ------------------------------------------------------------------------------


def issue_codes(law: str, n: int, calls: int, rng: np.random.Generator) -> np.ndarray:
    q, wrong = ISSUE_LAWS[law]
    p = np.array([q] + wrong)
    return rng.choice(len(p), size=(n, calls), p=p / p.sum()).astype(np.int32)


def issue_truth(law: str, k) -> float:
    from certify import V_INF
    from certify.aggregates import model_plurality

    q, wrong = ISSUE_LAWS[law]
    if len(set(wrong)) == 1:  # every wrong answer equal: the strongest (m) and L = len - 1 more
        return float(model_plurality(V_INF if k == "inf" else k, q, wrong[0], len(wrong) - 1))
    if k == "inf":  # the likeliest answer wins
        return 1.0 if q > max(wrong) else 0.0
    return simulated_plurality(np.array([q] + wrong), k, TRUTH_DRAWS, np.random.default_rng(k))[0]


def simulated_plurality(p: np.ndarray, k: int, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """Plurality of k calls by simulation (fair ties): mean and standard error."""
    scores = []
    for _ in range(max(draws // 100_000, 1)):
        counts = rng.multinomial(k, p, size=100_000)
        top = counts.max(axis=1)
        win = (counts[:, 0] == top) & (top > 0)
        scores.append(np.where(win, 1.0 / (counts == top[:, None]).sum(axis=1), 0.0))
    s = np.concatenate(scores)
    return float(s.mean()), float(s.std() / np.sqrt(len(s)))


def law_codes(name: str, n: int, calls: int, rng):
    if name in ISSUE_LAWS:
        return issue_codes(name, n, calls, rng)
    from bench_aggregate_coverage import LAWS, simulate

    return simulate(LAWS[name], n, calls, rng)


def law_truth(name: str, k) -> float:
    if name in ISSUE_LAWS:
        return issue_truth(name, k)
    from bench_aggregate_beyond_coverage import truth_of
    from bench_aggregate_coverage import LAWS

    if k == "inf":
        return float("nan")  # not needed: the tables below skip inf for these laws
    return truth_of(LAWS[name], k)


# -- real data ------------------------------------------------------------------------------------


def read_codes(path: Path) -> np.ndarray:
    """Answer codes of a long-form file: 0 correct, 1, 2, ... distinct wrong answers, -1 no answer."""
    import csv

    rows: dict[str, list[tuple[int, str, str]]] = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["example_id"], []).append((int(r["call"]), r["answer"], r["target"]))
    width = max(len(v) for v in rows.values())
    codes = np.full((len(rows), width), -2, dtype=np.int32)
    for i, calls in enumerate(rows.values()):
        seen: dict[str, int] = {}
        for j, (_, answer, target) in enumerate(sorted(calls)):
            if answer == "":
                codes[i, j] = -1
            elif answer == target:
                codes[i, j] = 0
            else:
                codes[i, j] = seen.setdefault(answer, len(seen) + 1)
    return codes


# -- sections ----------------------------------------------------------------------------------------


def section_truth(draws: int) -> None:
    rng = np.random.default_rng(43)
    q, wrong = ISSUE_LAWS["issue-a (q .2, 8 x .1)"]
    mean, se = simulated_plurality(np.array([q] + wrong), 101, draws, rng)
    exact = issue_truth("issue-a (q .2, 8 x .1)", 101)
    print(f"1. q = 0.2, eight wrong answers of 0.1: plurality of 101 calls {exact:.5f} (family's recursion), "
          f"{mean:.5f} +- {se:.5f} by simulation of {draws:,} votes\n")


def section_laws(head: Path, reps: int) -> None:
    print("2. simulated laws: guard rejections, coverage among accepted data sets, |error| (median), "
          "width (mean); prev = the previous model\n")
    print("| law | K | N | new rejects (guard, check at K) | prev check rejects | k | truth | coverage (accepted) | "
          "rejected or covered | prev coverage | median abs error | prev median abs error | prev / new error | "
          "width | prev width | s per set | prev s per set |")
    print("|" + "---|" * 17)
    for cell, (name, calls, n) in enumerate(CELLS):
        rng = np.random.default_rng(1000 + cell)
        sets = [law_codes(name, n, calls, rng) for _ in range(reps)]
        new, old = run(ROOT, sets, VOTES), run(head, sets, VOTES)
        checks = [r["rows"][next(iter(r["rows"]))][3] for r in new]
        rejected = np.array(["INCONSISTENT" in c for c in checks])
        by_guard = np.mean(["the answer patterns reject it" in c for c in checks])
        by_check = np.mean(["from the recorded answers' interval" in c for c in checks])
        old_rejected = np.array(["INCONSISTENT" in r["rows"][next(iter(r["rows"]))][3] for r in old])
        for k in [v for v in VOTES if v == "inf" or v > calls]:
            truth = law_truth(name, k)
            if np.isnan(truth):
                continue
            a = np.array([r["rows"][str(k)][:3] for r in new])
            b = np.array([r["rows"][str(k)][:3] for r in old])
            hit = (a[:, 1] <= truth) & (truth <= a[:, 2])
            old_hit = (b[:, 1] <= truth) & (truth <= b[:, 2])
            err, old_err = np.median(np.abs(a[:, 0] - truth)), np.median(np.abs(b[:, 0] - truth))
            accepted = ~rejected
            cov = f"{hit[accepted].mean():.3f} ({accepted.sum()})" if accepted.any() else "- (0)"
            width, old_width = np.mean(a[:, 2] - a[:, 1]), np.mean(b[:, 2] - b[:, 1])
            print(f"| {name} | {calls} | {n} | {rejected.mean():.2f} ({by_guard:.2f}, {by_check:.2f}) | "
                  f"{old_rejected.mean():.2f} | {k} | {truth:.4f} | "
                  f"{cov} | {(hit | rejected).mean():.3f} | {old_hit.mean():.3f} | {err:.4f} | {old_err:.4f} | "
                  f"{old_err / max(err, 1e-12):.2f} | {width:.3f} | {old_width:.3f} | "
                  f"{np.mean([r['seconds'] for r in new]):.2f} | {np.mean([r['seconds'] for r in old]):.2f} |")
    print()


GRID_LAWS = ("issue-a (q .2, 8 x .1)", "issue-b (q .25, 5 x .15)")
GRID_CALLS = (3, 5, 10, 20)
GRID_SIZES = (100, 400, 2000)


def section_grid(reps: int) -> None:
    print("6. the two diffuse laws over K and N: guard rejections, coverage among accepted data sets, "
          "rejected or covered, |error| (median), width (mean); the current model only\n")
    print("| law | K | N | rejects (guard, check at K) | k | truth | coverage (accepted) | rejected or covered | "
          "median abs error | width | s per set |")
    print("|" + "---|" * 11)
    for li, name in enumerate(GRID_LAWS):
        for calls in GRID_CALLS:
            for n in GRID_SIZES:
                rng = np.random.default_rng([2000, li, calls, n])
                sets = [law_codes(name, n, calls, rng) for _ in range(reps)]
                new = run(ROOT, sets, (21, 101, "inf"))
                checks = [r["rows"][next(iter(r["rows"]))][3] for r in new]
                rejected = np.array(["INCONSISTENT" in c for c in checks])
                by_guard = np.mean(["the answer patterns reject it" in c for c in checks])
                by_check = np.mean(["from the recorded answers' interval" in c for c in checks])
                for k in (21, 101, "inf"):
                    truth = law_truth(name, k)
                    a = np.array([r["rows"][str(k)][:3] for r in new])
                    hit = (a[:, 1] <= truth) & (truth <= a[:, 2])
                    accepted = ~rejected
                    cov = f"{hit[accepted].mean():.3f} ({accepted.sum()})" if accepted.any() else "- (0)"
                    print(f"| {name} | {calls} | {n} | {rejected.mean():.2f} ({by_guard:.2f}, {by_check:.2f}) | {k} | "
                          f"{truth:.4f} | {cov} | {(hit | rejected).mean():.3f} | "
                          f"{np.median(np.abs(a[:, 0] - truth)):.4f} | {np.mean(a[:, 2] - a[:, 1]):.3f} | "
                          f"{np.mean([r['seconds'] for r in new]):.2f} |", flush=True)
    print()


def section_data(head: Path) -> None:
    from certify.aggregates import aggregate_estimates

    print("3. development data: fit on the first K0 calls, forecast beside the U-statistic of all K calls\n")
    print("| set | N | K | K0 | k | all-call value | forecast [interval] | inside | check | prev forecast [interval] | "
          "prev inside |")
    print("|" + "---|" * 11)
    for name in SETS:
        path = DATA / f"{name}.csv"
        if not path.exists():
            print(f"| {name} | (missing: {path}) |")
            continue
        codes = read_codes(path)
        calls = codes.shape[1]
        for k0 in (5, 10):
            if k0 >= calls:
                continue
            ks = [k for k in (7, 9, 15, 21, 31, 39) if k0 < k <= calls]
            truth = {r.votes: r.estimate for r in aggregate_estimates(codes, ks, aggregate="plurality", baseline=None)}
            (new,), (old,) = run(ROOT, [codes[:, :k0]], ks), run(head, [codes[:, :k0]], ks)
            for k in ks:
                e, lo, hi, check = new["rows"][str(k)]
                oe, olo, ohi, _ = old["rows"][str(k)]
                verdict = "rejected" if "INCONSISTENT" in check else "consistent"
                p = check.split("(p = ")[1].split(",")[0] if "(p = " in check else "-"
                inside, old_inside = "yes" if lo <= truth[k] <= hi else "no", "yes" if olo <= truth[k] <= ohi else "no"
                print(f"| {name} | {len(codes)} | {calls} | {k0} | {k} | {truth[k]:.4f} | "
                      f"{e:.4f} [{lo:.4f}, {hi:.4f}] | {inside} | {verdict} (p {p}) | "
                      f"{oe:.4f} [{olo:.4f}, {ohi:.4f}] | {old_inside} |")
    print()


def section_time(head: Path, repeats: int) -> None:
    print("4. time (best of repeats, single-threaded, budgets 41, 101, inf)\n")
    print("| N x K | new s | prev s | new / prev |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n, calls in ((1000, 10), (10_000, 40)):
        q = rng.beta(2, 1, n)
        m = (1 - q) * rng.uniform(0, 1, n)
        u = rng.random((n, calls))
        codes = np.where(u < q[:, None], 0, np.where(u < (q + m)[:, None], 1, rng.integers(2, 8, (n, calls))))
        (new,) = run(ROOT, [codes], (41, 101, "inf"), repeats, False)
        (old,) = run(head, [codes], (41, 101, "inf"), repeats, False)
        ratio = new["seconds"] / old["seconds"]
        print(f"| {n:,} x {calls} | {new['seconds']:.2f} | {old['seconds']:.2f} | {ratio:.2f} |")
    print()


def section_choices(head: Path) -> None:
    print("5. the grid step and the calls read (the new model only; MODEL_GRID, MODEL_MAX_CALLS, "
          "MODEL_DIMENSION_PER_ROOT)\n")
    print("| data | grid | calls read | k | estimate [interval] | width | s |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    n, calls = 10_000, 40
    q = rng.beta(2, 1, n)
    m = (1 - q) * rng.uniform(0, 1, n)
    u = rng.random((n, calls))
    codes = np.where(u < q[:, None], 0, np.where(u < (q + m)[:, None], 1, rng.integers(2, 8, (n, calls))))
    for grid, read in ((20, 7), (20, 9), (20, 10), (40, 10), (20, 12), (20, 19)):
        (r,) = run(ROOT, [codes], (41, 101, "inf"), 1, False, grid=grid, calls=read)
        for k, (e, lo, hi, _) in r["rows"].items():
            print(f"| 10,000 x 40 | 1/{grid} | {read} | {k} | {e:.4f} [{lo:.4f}, {hi:.4f}] | {hi - lo:.4f} | "
                  f"{r['seconds']:.1f} |")
    print()
    print("| data | calls read | dimension / sqrt(N) | mean width at 21 calls | mean width at 101 (39 for ESC) |")
    print("|---|---|---|---|---|")
    from certify.aggregates._answer_family import pattern_dimension

    sets = {}
    path = DATA / f"{SETS[0]}.csv"
    if path.exists():
        sets["ESC (500 x 40)"] = ([read_codes(path)], (21, 39))
    for name in ("dominant", "diffuse"):
        for size in (100, 400, 2000):
            sets[f"{name}, {size} x 10 (3 sets)"] = ([law_codes(name, size, 10, rng) for _ in range(3)], (21, 101))
    for label, (data, ks) in sets.items():
        for read in (2, 3, 4, 5, 6, 7, 8, 9, 10):
            rows = run(ROOT, [c[:, :read] for c in data], ks, 1, False, calls=read)
            widths = [np.mean([r["rows"][str(k)][2] - r["rows"][str(k)][1] for r in rows]) for k in ks]
            per = pattern_dimension(read) / np.sqrt(len(data[0]))
            print(f"| {label} | {read} | {per:.1f} | {widths[0]:.3f} | {widths[1]:.3f} |")
    print()


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--truth-draws", type=int, default=2_000_000)
    parser.add_argument("--skip-data", action="store_true")
    parser.add_argument("--sections", nargs="+", default=["truth", "laws", "data", "time", "choices"])
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    with tempfile.TemporaryDirectory() as tmp:
        head = head_tree(Path(tmp))
        if "truth" in args.sections:
            section_truth(args.truth_draws)
        if "laws" in args.sections:
            section_laws(head, args.reps)
        if "data" in args.sections and not args.skip_data:
            section_data(head)
        if "time" in args.sections:
            section_time(head, args.repeats)
        if "choices" in args.sections:
            section_choices(head)
        if "grid" in args.sections:
            section_grid(args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
