#!/usr/bin/env python3
"""What plurality and pass@k add to an analysis: `analyze` with every aggregate against the bit majority alone.

One group of simulated answers (q ~ Beta(2, 1.5); a wrong call picks one of three wrong answers),
at 10,000 examples x 40 calls and 1,000 x 10, analysed in-process (reading excluded) with
``votes = 3 5 9 21 inf``:

* ``majority``: ``analyze(data, votes)``;
* ``all``: ``analyze(data, votes, aggregates=("plurality", "pass"))``: the same majority rows
  plus a plurality row and a pass@k row per budget and their gains over one call.

Both share one set of cells and one NPMLE per group (what ``analyze`` builds once); the ratio
``all / majority`` is what the other aggregates cost on top. Each time is the best of
``--repeats`` runs, both measured in the same process, alternating.

With ``--cli-against REV``, the command a user runs instead: ``certify analyze FILE --aggregate
plurality pass`` on a 10,000 x 40 answer file (long form, the same simulated answers), wall time
of a whole process (start-up and reading included), the package at commit REV and this checkout
alternating, best of ``--repeats``; the outputs' texts are compared.

Usage::

    python3 benchmarks/bench_analysis_targets.py [--repeats 2] [--cli-against a6e0b06]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify import V_INF  # noqa: E402
from certify._calls import CallBits  # noqa: E402
from certify.analysis import analyze  # noqa: E402

VOTES = (3, 5, 9, 21, V_INF)


def _data(n: int, k: int, seed: int = 7) -> CallBits:
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 1.5, n)
    right = rng.random((n, k)) < q[:, None]
    codes = np.where(right, 0, rng.integers(1, 4, (n, k))).astype(np.int32)
    return CallBits(tuple(f"e{i}" for i in range(n)), right.astype(float), np.full(n, k), answers=codes)


def _best(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


#: Runs ``certify analyze`` from the tree in argv[1] on the file in argv[2] (both trees' CLI has ``main``).
CLI = """
import sys
sys.path.insert(0, sys.argv[1])
from certify.cli.main import main
raise SystemExit(main(["analyze", sys.argv[2], "--aggregate", "plurality", "pass"]))
"""


def _answer_file(folder: Path, n: int, k: int) -> Path:
    data = _data(n, k)
    codes = np.asarray(data.answers)
    path = folder / f"answers_{n}x{k}.csv"
    with open(path, "w") as out:
        out.write("example_id,call,answer,target\n")
        for i in range(n):
            out.writelines(f"e{i},{j + 1},a{codes[i, j]},a0\n" for j in range(k))
    return path


def cli_against(commit: str, repeats: int) -> None:
    import subprocess
    import tarfile
    import tempfile
    from io import BytesIO

    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "certify"], check=True,
                                 capture_output=True).stdout
        old = Path(tmp) / "old"
        tarfile.open(fileobj=BytesIO(archive)).extractall(old, filter="data")
        path = _answer_file(Path(tmp), 10_000, 40)
        best = {"old": float("inf"), "new": float("inf")}
        text = {}
        for _ in range(repeats):
            for name, tree in (("old", old), ("new", ROOT)):
                t = time.perf_counter()
                run = subprocess.run([sys.executable, "-c", CLI, str(tree), str(path)], capture_output=True, text=True)
                best[name] = min(best[name], time.perf_counter() - t)
                if run.returncode != 0:
                    sys.exit(f"certify analyze from {tree} failed: {run.stderr.strip()[-400:]}")
                text[name] = run.stdout
    same = "same output" if text["old"] == text["new"] else "outputs differ"
    ratio = best["old"] / best["new"]
    print(f"\ncertify analyze 10,000 x 40 --aggregate plurality pass, wall, best of {repeats}: "
          f"{commit} {best['old']:.2f} s, this checkout {best['new']:.2f} s, old / new {ratio:.2f} ({same})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cli-against", metavar="REV", help="also time the command against the package at REV")
    args = parser.parse_args(argv)
    if args.cli_against:
        cli_against(args.cli_against, args.repeats)
        return 0
    print(f"{'data':>12}  {'majority (s)':>12}  {'all (s)':>8}  {'ratio':>6}  {'max |diff| majority rows':>24}")
    for n, k in ((1000, 10), (10_000, 40)):
        data = _data(n, k)
        analyze(data, (3,))  # warm the imports and first-call costs outside the timings
        t_major, major = _best(lambda: analyze(data, VOTES), args.repeats)
        t_all, every = _best(lambda: analyze(data, VOTES, aggregates=("plurality", "pass")), args.repeats)
        # the majority rows must not change when the other aggregates are asked for
        diff = max(
            max(abs(a.interval.lower - b.interval.lower), abs(a.interval.upper - b.interval.upper))
            for a, b in zip(major.budgets, every.budgets)
        )
        print(f"{n:>6} x {k:<3}  {t_major:>12.2f}  {t_all:>8.2f}  {t_all / t_major:>6.2f}  {diff:>24.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
