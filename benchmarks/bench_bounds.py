#!/usr/bin/env python3
"""Sharp bounds of vote accuracy: ``exact`` vs ``sos`` vs ``grid``.

Every method computes the sharp two-moment interval [L, U] of E P_n(Q)
(Theorem 4.1, label ``thm:general-odd-main``; computations in Appendix B) for
the same random feasible (mu, nu), fixed seed, at budgets of 3 to 1001 votes:

* ``exact``: contact-point exchange with Newton polishing (the default method);
* ``sos``: the dual as an exact SOS program, cvxpy + Clarabel and + SCS;
* ``grid``: the primal LP on 2001 equispaced atoms, cvxpy + Clarabel and + HiGHS.

Per method and budget the script reports the median wall time per bound *pair*
(lower + upper), the largest error against an independent 50-digit reference,
the largest dual violation on [0, 1], and both ratios to ``exact`` measured in
the same run. The reference owes nothing to the solvers but a starting point:
the extremal law returned by ``exact`` seeds a 50-digit Newton solve
(``mpmath.findroot``) of the KKT conditions -- moment equations, contact
p(x_j) = g(x_j), tangency p'(x_j) = g'(x_j) at interior atoms -- with
g = P_n = betainc(n+1, n+1, 0, q, regularized=True), and the polished quadratic
is checked to be a majorant / minorant of g on a 401-point mpmath grid plus
points beside each contact (``tests/_reference.py``); a point whose reference
fails that check is left out of the error columns.

Each (method, budget) cell has a wall-time cap; the cvxpy solvers also get the
remaining time as their own time limit. Cells or points that fail are marked
with the reason (solver status, "too large", "time cap").

Also timed: the exact method's five-vote bounds on a 200 x 200 (mu, rho) grid,
in a Python loop and through the vectorized ``certify.sharp_bound_arrays``
(or ``sharp_bounds_many``) when the package has one.

Usage::

    python3 benchmarks/bench_bounds.py            # print the Markdown report
    python3 benchmarks/bench_bounds.py --write    # also update benchmarks/RESULTS.md

The full run takes about 5 minutes on two shared cores (each cell is capped).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import math
import os
import platform
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import certify  # noqa: E402
from certify import InputError, SolverError, sharp_bounds  # noqa: E402
from certify._majority import majority_index  # noqa: E402
from tests._reference import majority_mp, sharp_value_mp  # noqa: E402

HEADING = "## Sharp bounds: exact vs sos vs grid"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
BUDGETS = (3, 5, 9, 21, 51, 101, 201, 1001)

#: (label, method, options, how many of the shared points it gets)
VARIANTS = (
    ("exact", "exact", {}, "exact"),
    ("sos / Clarabel", "sos", {"solver": "CLARABEL"}, "slow"),
    ("sos / SCS", "sos", {"solver": "SCS"}, "slow"),
    ("grid 2001 / Clarabel", "grid", {"solver": "CLARABEL", "size": 2001}, "grid"),
    ("grid 2001 / HiGHS", "grid", {"solver": "HIGHS", "size": 2001}, "grid"),
)

#: A reference polynomial counts as a valid majorant / minorant up to this (50 digits).
REFERENCE_TOL = 1e-30
#: Stand-in for an error below double rounding when forming error ratios.
EPS = 2.0**-53


@dataclass
class Cell:
    """Measurements of one (method, budget) pair."""

    label: str
    votes: int
    tried: int = 0
    times: list = field(default_factory=list)  # seconds per bound pair
    errors: list = field(default_factory=list)  # max |value - reference| per point
    violations: list = field(default_factory=list)
    failures: Counter = field(default_factory=Counter)
    skipped: str = ""
    capped: int = 0  # points not tried because of the time cap

    @property
    def ok(self) -> int:
        return len(self.times)

    @property
    def median_ms(self) -> float:
        return 1e3 * statistics.median(self.times) if self.times else math.nan

    @property
    def max_error(self) -> float:
        return max(self.errors) if self.errors else math.nan


def random_points(count: int, seed: int) -> list[tuple[float, float]]:
    """Feasible (mu, nu): mu, rho uniform on [0.05, 0.95], nu = mu^2 + rho mu (1 - mu) (eq. (rho-main))."""
    rng = np.random.default_rng(seed)
    pts = []
    for _ in range(count):
        mu, rho = rng.uniform(0.05, 0.95, size=2)
        pts.append((float(mu), float(certify.nu_from_rho(mu, rho))))
    return pts


def failure_reason(exc: Exception) -> str:
    if isinstance(exc, SolverError):
        return f"{exc.solver}: {exc.status}"
    return f"{type(exc).__name__}: {exc}"


def run_cell(label: str, method: str, options: dict, votes: int, points, cap: float, references: dict) -> tuple[Cell, dict]:
    """Time one method on ``points`` until the cap; returns the cell and the bounds it found."""
    cell = Cell(label, votes)
    found = {}
    # The harness's own objects (references, earlier cells' results, cvxpy's
    # compiled problems) would make every full garbage collection during the
    # cell scan them: freeze them so that a cell's time is its method's own.
    gc.collect()
    gc.freeze()
    try:
        return _run_points(cell, found, method, options, votes, points, cap, references)
    finally:
        gc.unfreeze()


def _run_points(cell, found, method, options, votes, points, cap, references):
    start = time.perf_counter()
    for i, (mu, nu) in enumerate(points):
        remaining = cap - (time.perf_counter() - start)
        if remaining <= 0:
            cell.capped = len(points) - i
            break
        opts = dict(options)
        if method != "exact":
            opts["time_limit"] = max(remaining, 1.0)  # the cap holds inside one solve too
        cell.tried += 1
        t0 = time.perf_counter()
        try:
            b = sharp_bounds(votes, mu=mu, nu=nu, method=method, **opts)
        except InputError as exc:  # refused before any work, e.g. a degree too large
            cell.skipped = str(exc)
            cell.tried -= 1
            break
        except SolverError as exc:
            reason = failure_reason(exc)
            if "time_limit" in opts and time.perf_counter() - t0 >= 0.95 * opts["time_limit"]:
                reason += " at the time cap"  # e.g. SCS reports a time-out as inaccurate
            cell.failures[reason] += 1
            continue
        cell.times.append(time.perf_counter() - t0)
        cell.violations.append(max(b.lower.violation, b.upper.violation))
        found[i] = b
        ref = references.get((votes, i))
        if ref is not None:
            cell.errors.append(max(abs(b.lower.value - ref[0]), abs(b.upper.value - ref[1])))
    return cell, found


def reference_pair(votes: int, mu: float, nu: float, b) -> tuple[float, float] | None:
    """50-digit (L, U) polished from the laws of ``b``; None when the check fails."""
    g, dg = majority_mp(majority_index(votes))
    theta = [Fraction(1), Fraction(mu), Fraction(nu)]
    values = []
    for bound in (b.lower, b.upper):
        try:
            value, worst = sharp_value_mp(g, dg, theta, bound.law.atoms, bound.law.weights, bound.dual, bound.side, dps=50, check_points=400)
        except (ValueError, ZeroDivisionError):  # findroot did not converge from this pattern
            return None
        if worst > REFERENCE_TOL:
            return None
        values.append(float(value))
    return values[0], values[1]


def time_grid_200(cap: float) -> dict:
    """Exact five-vote bounds over a 200 x 200 (mu, rho) grid in (0, 1)^2.

    Timed as a Python loop over :func:`sharp_bounds` (up to ``cap`` seconds) and,
    when the package has one, through its vectorized entry point, whose values
    are compared with the loop's.
    """
    axis = (np.arange(200) + 0.5) / 200
    loop = np.full((2, 200, 200), np.nan)
    out = {"points": 0, "failures": Counter(), "seconds": 0.0, "vectorized": None, "name": None, "diff": math.nan}
    start = time.perf_counter()
    for i, mu in enumerate(axis):
        for j, rho in enumerate(axis):
            if time.perf_counter() - start > cap:
                break
            try:
                b = sharp_bounds(5, mu=float(mu), rho=float(rho))
                loop[:, i, j] = b.lower.value, b.upper.value
            except SolverError as exc:
                out["failures"][failure_reason(exc)] += 1
            out["points"] += 1
    out["seconds"] = time.perf_counter() - start
    for name in ("sharp_bound_arrays", "sharp_bounds_many"):
        many = getattr(certify, name, None)
        if many is None:
            continue
        out["name"] = name
        MU, RHO = np.meshgrid(axis, axis, indexing="ij")
        t0 = time.perf_counter()
        try:
            res = many(5, mu=MU, rho=RHO)
            out["vectorized"] = time.perf_counter() - t0
            diff = np.abs(np.stack([np.asarray(res.lower), np.asarray(res.upper)]) - loop)
            out["diff"] = float(np.nanmax(diff)) if np.any(np.isfinite(diff)) else math.nan
        except Exception as exc:  # an API of another module: report it, never crash the run
            out["vectorized"] = f"failed: {failure_reason(exc)}"
        break
    return out


def fmt(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "--"
    return f"{x:.{digits}g}" if abs(x) >= 1e-3 or x == 0 else f"{x:.1e}"


def exponent(cells: list) -> float:
    """Least-squares slope of log(median time) against log(degree) over budgets >= 21."""
    pts = [(math.log(c.votes), math.log(c.median_ms)) for c in cells if c.votes >= 21 and c.ok]
    if len(pts) < 2:
        return math.nan
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def report(cells: dict, grid200: dict, args, n_refs: dict, ref_seconds: float, total: float) -> str:
    budgets = args.budgets
    lines = [HEADING, ""]
    versions = ", ".join(f"{p} {metadata.version(p)}" for p in ("cvxpy", "clarabel", "scs", "highspy", "mpmath", "numpy", "scipy"))
    lines += [
        f"`python3 benchmarks/bench_bounds.py` on {datetime.date.today().isoformat()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores shared with other jobs; {versions}. Objective: vote count (P_n, n = (votes-1)//2); "
        f"{args.points} random feasible (mu, nu) with seed {args.seed} (mu, rho uniform on [0.05, 0.95]); exact runs all of them, "
        f"grid the first {args.grid_points}, sos the first {args.slow_points}. Cap {args.cap:.0f} s per cell ({args.exact_cap:.0f} s for exact). "
        f"Whole run {total:.0f} s, of which {ref_seconds:.0f} s for the 50-digit references.",
        "",
        "Time = median wall time per bound pair (lower + upper) through `sharp_bounds`, each point solved once, "
        "with the harness's own objects frozen out of the garbage collector during each cell (`gc.freeze`) "
        "(exact's first call per budget includes the objective's one-time setup: its grid and grid hull, and the first import "
        "of the solver's modules at 3 votes; it is shown in the notes and counted in the median); error = max |value - reference| over both sides "
        "and all solved points with a valid reference; violation = max over [0, 1] of the dual polynomial's failure to be a "
        f"majorant / minorant; x exact = ratio to the exact method in the same run (errors below {EPS:.1e} count as {EPS:.1e}).",
        "",
        "| votes | method | solved | ms / pair | x exact (time) | max error | x exact (error) | max violation | failures / notes |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for votes in budgets:
        ex = cells[("exact", votes)]
        for label, *_ in VARIANTS:
            c = cells[(label, votes)]
            notes = []
            if c.skipped:
                notes.append(f"skipped: {c.skipped}")
            notes += [f"{n} x {reason}" for reason, n in c.failures.most_common()]
            if c.capped:
                notes.append(f"{c.capped} points not tried (time cap)")
            if label == "exact" and n_refs[votes] < ex.ok:
                notes.append(f"reference at {n_refs[votes]} of {ex.ok} points")
            if label == "exact" and c.times:
                # the first point pays the objective's one-time setup (grid, hull)
                notes.append(f"first call {fmt(1e3 * c.times[0], 3)} ms")
            t_ratio = c.median_ms / ex.median_ms if c.ok and ex.ok else math.nan
            e_ratio = max(c.max_error, EPS) / max(ex.max_error, EPS) if c.errors and ex.errors else math.nan
            lines.append(
                f"| {votes} | {label} | {c.ok}/{c.tried} | {fmt(c.median_ms, 3)} | {fmt(t_ratio, 3)} | {fmt(c.max_error)} | "
                f"{fmt(e_ratio, 2)} | {fmt(max(c.violations) if c.violations else math.nan)} | {'; '.join(notes)} |"
            )
    lines += ["", "### Targets (reported, not asserted)", ""]
    for label in ("grid 2001 / Clarabel", "grid 2001 / HiGHS"):
        speed, acc = [], []
        for votes in budgets:
            c, ex = cells[(label, votes)], cells[("exact", votes)]
            if c.ok and ex.ok:
                speed.append((c.median_ms / ex.median_ms, votes))
            if c.errors and ex.errors:
                acc.append((max(c.max_error, EPS) / max(ex.max_error, EPS), votes))
        if speed and acc:
            s_min, a_min = min(speed), min(acc)
            lines.append(
                f"* exact >= 100x faster than {label}: {'met' if s_min[0] >= 100 else 'NOT met'} "
                f"(smallest speed-up {s_min[0]:.3g}x at {s_min[1]} votes, largest {max(speed)[0]:.3g}x); "
                f">= 1000x smaller error: {'met' if a_min[0] >= 1000 else 'NOT met'} (smallest ratio {a_min[0]:.3g} at {a_min[1]} votes)."
            )
    ex101 = cells.get(("exact", 101))
    if ex101 is not None and ex101.times:
        lines.append(f"* 101-vote pair < 2 ms: {'met' if ex101.median_ms < 2 else 'NOT met'} (median {fmt(ex101.median_ms, 3)} ms, max {fmt(1e3 * max(ex101.times), 3)} ms).")
    done, secs = grid200["points"], grid200["seconds"]
    total_est = secs * 40000 / done if done else math.nan
    how = "measured" if done == 40000 else f"extrapolated from {done} of 40000 points in {secs:.0f} s (time cap)"
    fails = "; ".join(f"{n} x {r}" for r, n in grid200["failures"].most_common()) or "no failures"
    lines.append(f"* 5-vote 200 x 200 grid < 5 s: {'met' if total_est < 5 else 'NOT met'} -- Python loop over `sharp_bounds(5, mu=..., rho=...)`: {total_est:.3g} s ({how}; {fails}).")
    vec, name = grid200["vectorized"], grid200["name"]
    if name is None:
        lines.append("  No vectorized entry point (`certify.sharp_bound_arrays` / `sharp_bounds_many`) in this tree.")
    elif isinstance(vec, str):
        lines.append(f"  `certify.{name}`: {vec}.")
    else:
        lines.append(
            f"  Vectorized `certify.{name}(5, mu=MU, rho=RHO)` on the same 40000 points: {vec:.3g} s -- {'met' if vec < 5 else 'NOT met'} "
            f"(largest difference from the loop's values {fmt(grid200['diff'])})."
        )
    lines += ["", "### Where each method stops working (from this run)", ""]
    for label, *_ in VARIANTS:
        row = [cells[(label, v)] for v in budgets]
        clean = [c.votes for c in row if c.ok and not c.failures and not c.skipped]
        broken = [c for c in row if c.failures or c.skipped or (c.tried and not c.ok)]
        desc = [f"no failure at {', '.join(map(str, clean))} votes" if clean else "no budget without failures"]
        for c in broken:
            why = c.skipped or "; ".join(f"{n}/{c.tried} {r}" for r, n in c.failures.most_common())
            desc.append(f"{c.votes} votes: {why}")
        slope = exponent(row)
        if not math.isnan(slope):
            desc.append(f"time grows like votes^{slope:.1f} from 21 votes on")
        errs = [(c.max_error, c.votes) for c in row if c.errors]
        if errs:
            desc.append(f"largest error {fmt(max(errs)[0])} (at {max(errs)[1]} votes)")
        lines.append(f"* **{label}**: " + "; ".join(desc) + ".")
    return "\n".join(lines) + "\n"


def write_section(text: str, path: Path = RESULTS) -> None:
    """Replace this benchmark's section of RESULTS.md (other sections belong to others)."""
    old = path.read_text() if path.exists() else ""
    lines = old.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.rstrip() == HEADING), None)
    if start is None:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        new = "".join(lines[:start]) + text + ("\n" if end < len(lines) else "") + "".join(lines[end:])
    path.write_text(new)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"replace the '{HEADING[3:]}' section of {RESULTS.relative_to(ROOT)}")
    ap.add_argument("--points", type=int, default=20, help="random (mu, nu) points for exact (default 20)")
    ap.add_argument("--grid-points", type=int, default=10, help="of those, how many the grid LP gets (default 10)")
    ap.add_argument("--slow-points", type=int, default=5, help="of those, how many the SOS program gets (default 5)")
    ap.add_argument("--seed", type=int, default=20260522)
    ap.add_argument("--cap", type=float, default=45.0, help="seconds per cvxpy (method, budget) cell (default 45)")
    ap.add_argument("--exact-cap", type=float, default=60.0, help="seconds per exact cell (default 60)")
    ap.add_argument("--grid200-cap", type=float, default=90.0, help="seconds for the 200 x 200 five-vote loop (default 90)")
    ap.add_argument("--budgets", type=lambda s: tuple(int(v) for v in s.split(",")), default=BUDGETS, help="comma-separated vote budgets")
    args = ap.parse_args(argv)

    t_start = time.perf_counter()
    points = random_points(args.points, args.seed)
    limit = {"exact": args.points, "grid": args.grid_points, "slow": args.slow_points}
    cells, references, n_refs = {}, {}, {}
    ref_seconds = 0.0
    for votes in args.budgets:
        # exact first: its laws seed the references used by every other method
        cell, found = run_cell("exact", "exact", {}, votes, points, args.exact_cap, {})
        t0 = time.perf_counter()
        for i, b in found.items():
            ref = reference_pair(votes, *points[i], b)
            if ref is not None:
                references[(votes, i)] = ref
                cell.errors.append(max(abs(b.lower.value - ref[0]), abs(b.upper.value - ref[1])))
        ref_seconds += time.perf_counter() - t0
        n_refs[votes] = sum(1 for key in references if key[0] == votes)
        cells[("exact", votes)] = cell
        print(f"[{time.perf_counter() - t_start:6.0f}s] {votes:5d} votes  exact  {cell.ok}/{cell.tried}  {fmt(cell.median_ms, 3)} ms  refs {n_refs[votes]}", file=sys.stderr, flush=True)
        for label, method, options, key in VARIANTS[1:]:
            cell, _ = run_cell(label, method, options, votes, points[: limit[key]], args.cap, references)
            cells[(label, votes)] = cell
            print(f"[{time.perf_counter() - t_start:6.0f}s] {votes:5d} votes  {label}  {cell.ok}/{cell.tried}  {fmt(cell.median_ms, 3)} ms  {cell.skipped or dict(cell.failures)}", file=sys.stderr, flush=True)
    grid200 = time_grid_200(args.grid200_cap)
    text = report(cells, grid200, args, n_refs, ref_seconds, time.perf_counter() - t_start)
    print(text)
    if args.write:
        write_section(text)
        print(f"wrote {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
