#!/usr/bin/env python3
"""The small-count calibration compiled: first-call cost, thresholds old vs new, ``analyze`` of 4 x 2000.

All in one run:

1. **First compiled call** -- in a fresh interpreter with an empty numba cache (a new
   ``NUMBA_CACHE_DIR``), the import of the kernels' module (numba's import) and the first
   ``small_count_drop`` (compilation of every kernel it calls, written to the cache); then again
   in a fresh interpreter on the now warm cache (numba loads the machine code), and a later call
   for comparison.
2. **Thresholds** -- ``small_count_drop`` on a few data sets on the lattice (the NPMLE and the
   interval's extremal laws computed once, with this checkout): CPU seconds per threshold of the old
   code (commit ``--old``, numpy draws from ``numpy.random.Generator``, extracted with
   ``git archive`` into a temporary folder and run in a subprocess) and of this checkout, the
   ratio, and both values. The compiled sampler has its own stream, so the values differ by Monte
   Carlo error; as its scale, the thresholds of the old algorithm (numpy's generator and
   ``np.quantile``) and of the new one (the compiled kernel) under SPREAD_SEEDS other seeds each:
   mean and standard deviation, and the difference of the means with its standard error.
3. **analyze** -- ``certify analyze FILE --votes 3 5`` on 4 examples x 2000 calls (q ~ Beta(2, 1),
   seed ANALYZE_SEED), wall time of the old and the new package, alternating, REPEATS runs each
   after one untimed run of each (the new one fills numba's cache if it is empty).

Usage::

    python benchmarks/bench_compiled_calibration.py [--old COMMIT] [--repeats 3]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify._objective import parse_objective  # noqa: E402
from certify.likelihood import cell_counts, likelihood_intervals, npmle  # noqa: E402
from certify.likelihood._calibration import LatticeProblem, _differences, on_lattice, saturated_ratio  # noqa: E402
from certify.likelihood._calibration_kernels import lattice_quantile  # noqa: E402
from certify.likelihood._tolerances import (  # noqa: E402
    BINOMIAL_INVERSION_MEAN,
    CATEGORICAL_DRAWS,
    DENOMINATOR_FLOOR,
    DRAWS,
    PATH_STEPS,
    SATURATED_NEWTON_STEPS,
    SATURATED_STEP_TOL,
)
from certify.readers import read_bits  # noqa: E402

#: The commit before the compiled calibration: numpy's multinomial draws and ratios.
OLD_COMMIT = "aeafecc"
#: Data sets of the thresholds: (examples, calls, latent law, objective); all on the lattice.
CASES = (
    (200, 3, "near 0 and 1", "V3 - V1"),
    (200, 5, "Beta(2, 1)", "V3 - V1"),
    (200, 10, "Beta(2, 1)", "V3 - V1"),
    (50, 20, "Beta(2, 1)", "V3"),
    (4, 2000, "Beta(2, 1)", "V3 - V1"),
)
#: ... and logs of the examples: (file, objective); the tutorial's first log, V3 on the lattice.
FILE_CASES = (("examples/quiz.eval", "V3"),)
CASE_SEED = 11
#: Seeds of the old and the new algorithm's spread (section 2).
SPREAD_SEEDS = 100
#: Timed calls per threshold and process (after one untimed call).
THRESHOLD_REPS = 5
ANALYZE_SEED = 1
ALPHA = 0.05

#: Section 1, in a fresh interpreter: import, first call, a later call.
_FIRST_CALL = """
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from certify.likelihood._calibration import small_count_drop
import certify.likelihood._calibration_kernels
t1 = time.perf_counter()
case = json.loads(sys.argv[1])
args = [np.array(case[k]) for k in ("counts", "coef", "p_hat", "p_lower", "p_upper")]
small_count_drop(*args, %(alpha)r)
t2 = time.perf_counter()
small_count_drop(*args, %(alpha)r)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "later": t3 - t2, "numba": "numba" in sys.modules}))
"""

#: Section 2, in the old and the new package: seconds and value of every threshold.
_THRESHOLDS = """
import json, sys, time
import numpy as np
import certify.likelihood._calibration as cal
cases = json.loads(sys.stdin.read())
out = []
for case in cases:
    args = [np.array(case[k]) for k in ("counts", "coef", "p_hat", "p_lower", "p_upper")]
    value = cal.small_count_drop(*args, %(alpha)r)
    t = time.process_time()  # CPU time: the machine may be shared
    for _ in range(%(reps)d):
        cal.small_count_drop(*args, %(alpha)r)
    out.append({"value": value, "seconds": (time.process_time() - t) / %(reps)d})
print(json.dumps({"file": cal.__file__, "cases": out}))
"""


def old_checkout(folder: Path, commit: str) -> Path:
    """The package as of ``commit``, from ``git archive`` of this repository's history."""
    archive = folder / "old.tar"
    try:
        with open(archive, "wb") as out:
            subprocess.run(
                ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "certify"], stdout=out, check=True
            )
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"cannot extract commit {commit} from {ROOT} ({exc}); a full clone of the repository is needed")
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "old", filter="data")
    return folder / "old"


def _run(code: str, package: Path, stdin: str = "", args=(), env=None) -> dict:
    """``python -c code`` with ``package`` first on sys.path; its last line of output as JSON."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(package)}
    # cwd: "python -c" puts the working directory first on sys.path, which may be a checkout
    done = subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, env=env, cwd=package, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"the run in {package} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _near_0_1(n: int, calls: int, rng) -> np.ndarray:
    """Success probabilities of n examples: 3/4 of them near 0 (Beta(0.2, 40)), 1/4 near 1."""
    near_0 = rng.random(n) < 0.75
    return np.where(near_0, rng.beta(0.2, 40.0, n), rng.beta(40.0, 0.2, n))


def threshold_cases() -> list[dict]:
    """Inputs of small_count_drop for CASES: counts, coefficients, NPMLE and extremal laws."""
    rng = np.random.default_rng(CASE_SEED)
    data = []
    for n, calls, law, objective in CASES:
        q = _near_0_1(n, calls, rng) if law.startswith("near") else rng.beta(2.0, 1.0, n)
        data.append(
            (
                f"{n} x {calls}, q ~ {law}, {objective}",
                cell_counts(np.full(n, calls), rng.binomial(calls, q)),
                objective,
            )
        )
    for path, objective in FILE_CASES:
        bits = read_bits(ROOT / path)
        bits = bits[0] if isinstance(bits, list) else bits
        data.append(
            (f"{path} ({bits.n} x {bits.calls}), {objective}", cell_counts(bits.counts, bits.successes), objective)
        )
    cases = []
    for name, cells, objective in data:
        n = int(cells.multiplicity.sum())
        (iv,) = likelihood_intervals(cells, [objective])
        lattice = LatticeProblem(cells, parse_objective(objective))
        ref = npmle(cells)
        p_hat = lattice.probabilities(ref.atoms, ref.weights)
        assert on_lattice(n, lattice.coef, p_hat), name
        cases.append(
            {
                "name": name,
                "counts": lattice.counts.tolist(),
                "coef": lattice.coef.tolist(),
                "p_hat": p_hat.tolist(),
                "p_lower": lattice.probabilities(iv.lower.atoms, iv.lower.weights).tolist(),
                "p_upper": lattice.probabilities(iv.upper.atoms, iv.upper.weights).tolist(),
            }
        )
    return cases


def spreads(case: dict) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds of the old algorithm and of the compiled one under SPREAD_SEEDS other seeds each."""
    counts, coef = np.array(case["counts"]), np.array(case["coef"])
    p_hat, ends = np.array(case["p_hat"]), (np.array(case["p_lower"]), np.array(case["p_upper"]))
    laws = np.array([p_hat] + [p_hat + s * (end - p_hat) for end in ends for s in PATH_STEPS])
    laws = np.clip(laws, 0.0, None)
    laws /= laws.sum(axis=1, keepdims=True)
    values = [float(np.clip(coef @ p, coef.min(), coef.max())) for p in laws]
    diffs = np.array([_differences(coef, v) for v in values])
    total = int(counts.sum())
    categorical = total * max(math.log2(len(counts)), 1.0) <= CATEGORICAL_DRAWS * len(counts)
    index = min(math.ceil((DRAWS - 1) * (1.0 - ALPHA)), DRAWS - 1)
    old, new = [], []
    for seed in range(SPREAD_SEEDS):
        sequence = np.random.SeedSequence([seed, *case["counts"]])
        best = 0.0
        for p, v in zip(laws, values):
            rows = np.random.default_rng(sequence).multinomial(total, p, size=DRAWS)
            best = max(best, float(np.quantile(saturated_ratio(rows, coef, v), 1.0 - ALPHA, method="higher")))
        old.append(best / 2.0)
        state = sequence.generate_state(4, dtype=np.uint64)
        new.append(
            lattice_quantile(
                laws,
                diffs,
                total,
                state,
                DRAWS,
                index,
                categorical,
                BINOMIAL_INVERSION_MEAN,
                SATURATED_STEP_TOL,
                SATURATED_NEWTON_STEPS,
                DENOMINATOR_FLOOR,
            )
            / 2.0
        )
    return np.array(old), np.array(new)


def first_call(case: dict) -> None:
    print("## 1. First compiled call (small_count_drop, fresh interpreter)\n")
    print("| numba cache | import of the kernels' module | first call | a later call |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as cache:
        for label in ("empty", "warm"):
            got = _run(_FIRST_CALL % {"alpha": ALPHA}, ROOT, args=[json.dumps(case)], env={"NUMBA_CACHE_DIR": cache})
            print(f"| {label} | {got['import']:.2f} s | {got['first']:.2f} s | {1e3 * got['later']:.1f} ms |")
    print()


def thresholds(cases: list[dict], old: Path, commit: str) -> None:
    print(f"## 2. Thresholds, old ({commit}) vs new, {THRESHOLD_REPS} calls each\n")
    code = _THRESHOLDS % {"alpha": ALPHA, "reps": THRESHOLD_REPS}
    got_old = _run(code, old, stdin=json.dumps(cases))
    assert got_old["file"].startswith(str(old)), got_old["file"]  # the old code ran, not this checkout
    got_new = _run(code, ROOT, stdin=json.dumps(cases))
    print(
        f"| data | old CPU ms | new CPU ms | old / new | old c | new c | {SPREAD_SEEDS} seeds: old mean +- sd | "
        "new mean +- sd | new - old |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    total_old = total_new = 0.0
    for case, a, b in zip(cases, got_old["cases"], got_new["cases"]):
        old, new = spreads(case)
        total_old += a["seconds"]
        total_new += b["seconds"]
        se = math.sqrt(old.var(ddof=1) / len(old) + new.var(ddof=1) / len(new))
        print(
            f"| {case['name']} | {1e3 * a['seconds']:.1f} | {1e3 * b['seconds']:.2f} | "
            f"{a['seconds'] / b['seconds']:.1f}x | {a['value']:.4f} | {b['value']:.4f} | "
            f"{old.mean():.4f} +- {old.std(ddof=1):.4f} | {new.mean():.4f} +- {new.std(ddof=1):.4f} | "
            f"{new.mean() - old.mean():+.4f} +- {se:.4f} |"
        )
    print(
        f"\nall thresholds: old {1e3 * total_old:.1f} ms, new {1e3 * total_new:.1f} ms, "
        f"ratio {total_old / total_new:.1f}x (CPU time of one process each)\n"
    )


def analyze_file(folder: Path) -> Path:
    rng = np.random.default_rng(ANALYZE_SEED)
    q = rng.beta(2.0, 1.0, 4)
    lines = ["id,call,correct"]
    for i, qi in enumerate(q):
        lines += [f"e{i},{c + 1},{int(b)}" for c, b in enumerate(rng.random(2000) < qi)]
    path = folder / "calls_4x2000.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def analyze_wall(path: Path, package: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``certify analyze`` process."""
    env = {**os.environ, "PYTHONPATH": str(package)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "certify.cli.main", "analyze", str(path), "--votes", "3", "5"],
        env=env,
        cwd=package,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def analyze(folder: Path, old: Path, repeats: int) -> None:
    print(f"## 3. certify analyze (4 examples x 2000 calls, --votes 3 5), {repeats} runs each\n")
    path = analyze_file(folder)
    analyze_wall(path, old), analyze_wall(path, ROOT)  # untimed: file caches, numba's cache
    times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for _ in range(repeats):
        times["old"].append(analyze_wall(path, old))
        times["new"].append(analyze_wall(path, ROOT))
    for label, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"- {label}: wall {', '.join(f'{w:.2f}' for w in walls)} (median {statistics.median(walls):.2f} s); "
            f"CPU {', '.join(f'{c:.2f}' for c in cpus)} (median {statistics.median(cpus):.2f} s)"
        )
    wall_ratio = statistics.median([w for w, _ in times["old"]]) / statistics.median([w for w, _ in times["new"]])
    cpu_ratio = statistics.median([c for _, c in times["old"]]) / statistics.median([c for _, c in times["new"]])
    print(f"\nratio old / new (medians): wall {wall_ratio:.2f}x, CPU {cpu_ratio:.2f}x")
    print(f"load average after the runs: {', '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default=OLD_COMMIT, help=f"commit of the old code (default {OLD_COMMIT})")
    ap.add_argument("--repeats", type=int, default=3, help="timed analyze runs of each package (default 3)")
    args = ap.parse_args()
    cases = threshold_cases()
    with tempfile.TemporaryDirectory() as tmp:
        old = old_checkout(Path(tmp), args.old)
        first_call(cases[2])
        thresholds(cases, old, args.old)
        analyze(Path(tmp), old, args.repeats)


if __name__ == "__main__":
    main()
