#!/usr/bin/env python3
"""``certify plan``: studies per second of the old path and the new one, and the default plan's time.

All in one run, on a pilot of 200 examples x 3 calls (q ~ Beta(2, 1), fixed seed) and the gain
of 3 votes over one call:

1. **Old path** -- ``plan_study`` as it was at commit ``--old`` (default OLD_COMMIT: per-example
   simulation, every study solved cold), one process, extracted from this repository's history
   with ``git archive`` into a temporary folder and run in a subprocess on the same pilot. From
   commit SAME_DRAWS on, the old path simulates the same studies, and with as many studies per
   design on both paths the two plans are compared row by row (the error column).
2. **New path** -- ``plan_study`` of this checkout, one worker, on the same designs and studies
   per design, the V3 width solved in a quarter of them (the default plan's DEFAULT_WIDTH_REPS of
   DEFAULT_PLAN_REPS; the mean widths then differ from the old path's by Monte Carlo error, printed
   in units of the new standard error). Both are timed in CPU seconds of the process (the machine may be shared, and
   wall time then measures the neighbours), and reported as studies per CPU second.
3. **Per design** (``--per-design [REPS]``) -- each design alone (both scenarios), one process:
   CPU ms per study and the shares of that time spent in the NPMLE and in the small-count
   thresholds (``small_count_drop``, the saturated ratios among them), which the plan does not
   change: their calibration is that of the identified objectives' intervals.
4. **Default plan** -- ``plan_study`` with the CLI's defaults (designs 200/1000/4000 examples x
   2/5/10 calls, DEFAULT_PLAN_REPS studies per design and scenario) on ``--workers`` processes:
   wall time, CPU time of all processes, and the largest Monte Carlo standard error.

Usage::

    python benchmarks/bench_plan.py              # full run (old path 10 studies per design)
    python benchmarks/bench_plan.py --quick      # fewer studies; no default plan
    python benchmarks/bench_plan.py --old 06e0308 --old-reps 50   # against a later commit, same studies
    python benchmarks/bench_plan.py --per-design                   # and where each design's time goes
    python benchmarks/bench_plan.py --quick --per-design 400       # at the default plan's 400 studies
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify.cli.plan import DEFAULT_WORKERS  # noqa: E402
from certify.likelihood import WarmStarts, _calibration  # noqa: E402
from certify.planning import DEFAULT_PLAN_REPS, DEFAULT_WIDTH_REPS, plan_study  # noqa: E402
from certify.readers import bits_from_array  # noqa: E402

#: The code before the fast plan (main at the time): the old path of the comparison.
OLD_COMMIT = "cb6d2a9"
#: The first commit whose plan draws the studies as today's does (multinomial counts, chunked seeds).
SAME_DRAWS = "6cd2bad"
#: The CLI's default designs.
EXAMPLES, CALLS = (200, 1000, 4000), (2, 5, 10)
VOTES = 3

#: Run in a subprocess with the old package first on sys.path: the pilot is rebuilt there from
#: the same seed, and the CPU time of plan_study printed as JSON.
_TIMER = """
import json, sys, time
import numpy as np
try:
    from certify.planning import plan_study
except ImportError:  # before the planner was a package of its own
    from certify.stats import plan_study
try:
    from certify.readers import bits_from_array
except ImportError:  # before the readers were a package of their own
    from certify.stats import bits_from_array
rng = np.random.default_rng(%(seed)d)
q = rng.beta(2.0, 1.0, %(n)d)
bits = bits_from_array((rng.random((%(n)d, %(k)d)) < q[:, None]).astype(float))
t = time.process_time()
plan = plan_study(bits, %(votes)d, examples=%(examples)r, calls=%(calls)r, reps=%(reps)d, seed=0)
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "studies": len(plan.rows) * %(reps)d, "file": __import__("certify").__file__,
                  "rows": [[r.p_certified, r.mean_width] for r in plan.rows]}))
"""

PILOT = {"seed": 2026, "n": 200, "k": 3}


def pilot_bits():
    rng = np.random.default_rng(PILOT["seed"])
    q = rng.beta(2.0, 1.0, PILOT["n"])
    return bits_from_array((rng.random((PILOT["n"], PILOT["k"])) < q[:, None]).astype(float))


def old_checkout(folder: Path, commit: str) -> Path:
    """The package as of ``commit``, from ``git archive`` of this repository's history."""
    archive = folder / "old.tar"
    try:
        with open(archive, "wb") as out:
            subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "certify"],
                           stdout=out, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"cannot extract commit {commit} from {ROOT} ({exc}); a full clone of the repository is needed")
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "old", filter="data")
    return folder / "old"


def time_old(reps: int, commit: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        old = old_checkout(Path(tmp), commit)
        code = _TIMER % {**PILOT, "votes": VOTES, "examples": EXAMPLES, "calls": CALLS, "reps": reps}
        env = {**os.environ, "PYTHONPATH": str(old)}
        # cwd: "python -c" puts the working directory first on sys.path, which may be a checkout
        run = subprocess.run([sys.executable, "-c", code], env=env, cwd=old, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"the old path at {commit} failed:\n{run.stderr}")
        out = run.stdout
        got = json.loads(out.strip().splitlines()[-1])
        assert got["file"].startswith(str(old)), got["file"]  # the old code ran, not this checkout
        return got


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def width_share(reps: int) -> int:
    """The default plan's share of studies with a width (DEFAULT_WIDTH_REPS of DEFAULT_PLAN_REPS) at ``reps``."""
    return max(2, round(reps * DEFAULT_WIDTH_REPS / DEFAULT_PLAN_REPS))


def time_new(bits, reps: int, workers: int) -> dict:
    """The new path; the widths from the default plan's share of the studies (a quarter)."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    plan = plan_study(bits, VOTES, examples=EXAMPLES, calls=CALLS, reps=reps, width_reps=width_share(reps), seed=0,
                      workers=workers)
    return {"cpu": cpu_seconds() - cpu, "wall": time.perf_counter() - wall, "studies": len(plan.rows) * reps,
            "se": max(r.se_certified for r in plan.rows), "plan": plan}


@contextmanager
def timed(owner, name: str, clock: collections.Counter, label: str):
    """Count the CPU seconds spent in ``owner.name`` under ``clock[label]`` while the block runs.

    The plan calls these functions through their modules' globals, so replacing the attribute
    times every call; no profiler runs, whose overhead per Python call would shift the shares
    towards the solvers' Python code (under cProfile the thresholds read 24 % instead of 34 %).
    """
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            clock[label] += time.process_time() - start

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, inner)


def per_design(bits, reps: int) -> None:
    """CPU ms per study of each design (both scenarios, one process) and the shares of the NPMLE
    and of the small-count thresholds, the saturated ratios among them."""
    print(f"\nper design ({reps} studies per scenario, widths from {width_share(reps)}; one process)\n")
    print("| examples | calls | ms per study | NPMLE | small-count thresholds | of which saturated ratios |")
    print("|---:|---:|---:|---:|---:|---:|")
    totals = collections.Counter()
    for n in EXAMPLES:
        for k in CALLS:
            clock = collections.Counter()
            with timed(WarmStarts, "npmle", clock, "npmle"), timed(_calibration, "small_count_drop", clock, "thresholds"), \
                    timed(_calibration, "saturated_ratio", clock, "ratios"):
                cpu = time.process_time()
                plan_study(bits, VOTES, examples=(n,), calls=(k,), reps=reps, width_reps=width_share(reps), seed=0)
                clock["all"] = time.process_time() - cpu
            totals.update(clock)
            print(f"| {n} | {k} | {1e3 * clock['all'] / (2 * reps):.1f} | {100 * clock['npmle'] / clock['all']:.0f} % "
                  f"| {100 * clock['thresholds'] / clock['all']:.0f} % | {100 * clock['ratios'] / clock['all']:.0f} % |")
    share = {key: 100 * totals[key] / totals["all"] for key in ("npmle", "thresholds", "ratios")}
    print(f"\nall designs: {totals['all']:.1f} CPU s; the NPMLE {totals['npmle']:.1f} s ({share['npmle']:.0f} %), the "
          f"small-count thresholds {totals['thresholds']:.1f} s ({share['thresholds']:.0f} %: their multinomial draws and "
          f"quantiles {totals['thresholds'] - totals['ratios']:.1f} s, saturated ratios {totals['ratios']:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 studies per design for both paths; no default plan")
    ap.add_argument("--old-reps", type=int, default=10, help="studies per design of the old path (default 10)")
    ap.add_argument("--new-reps", type=int, default=50, help="studies per design of the new path, one worker (default 50)")
    ap.add_argument("--old", default=OLD_COMMIT,
                    help=f"commit of the old path (default {OLD_COMMIT}; from {SAME_DRAWS} on the studies are the same "
                         "draws, and the plans are compared row by row)")
    ap.add_argument("--per-design", type=int, nargs="?", const=100, default=0, metavar="REPS",
                    help="also time each design alone, REPS studies per scenario (default 100)")
    ap.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help=f"workers of the default plan (default {DEFAULT_WORKERS})")
    args = ap.parse_args()
    new_reps = 10 if args.quick else args.new_reps
    print(f"# certify plan benchmark -- Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    print(f"pilot {PILOT['n']} x {PILOT['k']} calls (q ~ Beta(2, 1)), gain V{VOTES} - V1, designs {EXAMPLES} x {CALLS}, "
          f"2 scenarios: {2 * len(EXAMPLES) * len(CALLS)} designs\n")
    old_reps = new_reps if args.quick else args.old_reps
    old = time_old(old_reps, args.old)
    bits = pilot_bits()
    new = time_new(bits, new_reps, 1)
    old_rate, new_rate = old["studies"] / old["cpu"], new["studies"] / new["cpu"]
    print("| path | studies | CPU s | studies per CPU s | ms per study |")
    print("|---|---:|---:|---:|---:|")
    print(f"| old ({args.old}), 1 worker | {old['studies']} | {old['cpu']:.1f} | {old_rate:.2f} | {1e3 / old_rate:.0f} |")
    print(f"| new (this checkout), 1 worker | {new['studies']} | {new['cpu']:.1f} | {new_rate:.2f} | {1e3 / new_rate:.0f} |")
    print(f"\nratio new / old: {new_rate / old_rate:.2f}x studies per CPU second")
    if old_reps == new_reps:
        # the same seeds: from SAME_DRAWS on both paths simulate the same studies, so the plans
        # differ only by what the solvers changed (before it, by Monte Carlo error)
        rows = np.array([[r.p_certified, r.mean_width] for r in new["plan"].rows])
        diff = np.abs(rows - np.array(old["rows"]))
        # the new mean width is over a quarter of the studies: an estimate of the old one (the mean
        # over all of them), off by Monte Carlo error; with few studies its own standard error is
        # too rough to scale by, so the difference is given relative to the width
        rel = diff[:, 1] / rows[:, 1]
        print(f"largest difference, new - old plan: P(certified) {diff[:, 0].max():.3g}, mean width {diff[:, 1].max():.3g} "
              f"(at most {100 * rel.max():.1f} % of the width; the new one from {new['plan'].rows[0].width_reps} of "
              f"{new_reps} studies)")
    if args.per_design:
        per_design(bits, args.per_design)
    if args.quick:
        return
    full = time_new(bits, DEFAULT_PLAN_REPS, args.workers)
    print(f"\ndefault plan ({DEFAULT_PLAN_REPS} studies per design, {full['studies']} studies, {args.workers} workers): "
          f"{full['wall']:.1f} s wall, {full['cpu']:.1f} CPU s ({full['studies'] / full['cpu']:.2f} studies per CPU s), "
          f"largest Monte Carlo SE {full['se']:.4f}; load average {os.getloadavg()[0]:.1f} at the end")
    print("\n| scenario | examples | calls | P(certified) | SE | mean width of V3 | SE |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in full["plan"].rows:
        print(f"| {r.scenario} | {r.examples} | {r.calls} | {r.p_certified:.3f} | {r.se_certified:.3f} | {r.mean_width:.4f} "
              f"| {r.se_width:.4f} |")


if __name__ == "__main__":
    main()
