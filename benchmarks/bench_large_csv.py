"""Reading a large long-form CSV: seconds and peak memory of ``certify.readers.read_bits``.

Writes a long-form CSV (``example_id,call,correct``; default 300,000 examples x 10
calls = 3,000,000 rows, 40 MB) to a temporary folder, then reads it in fresh child
processes, one per reader, so that each peak resident set size (``ru_maxrss``) is that
reader's alone (taken when the reader returns, before the counts are checked):

* ``pyarrow``: the streaming reader (:mod:`certify.readers._csv`) with pyarrow parsing;
* ``python``: the same reader with Python's csv module parsing (the base install
  without pyarrow);
* ``pandas``: ``pandas.read_csv`` of the whole file and a pivot to an examples x calls
  array, the usual way to do it by hand (the reference; skipped when pandas is missing).

Every reader's per-example call counts K_i and correct counts S_i are compared with
the ones the generator wrote (an independent check that the fast path reads the file
right). Prints one Markdown row per reader: seconds, peak RSS, RSS after the imports,
and the time and memory ratio to pandas. Wall seconds depend on what else the machine
runs; CPU seconds (``time.process_time``) much less, so both are printed, with the load.

Usage: ``python benchmarks/bench_large_csv.py [--examples 300000] [--calls 10] [--readers pyarrow python pandas]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_file(path: Path, examples: int, calls: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A long-form CSV with calls shuffled within blocks; returns the true (K_i, S_i) per example."""
    rng = np.random.default_rng(seed)
    q = rng.beta(3, 1.5, examples)
    bits = (rng.random((examples, calls)) < q[:, None]).astype(np.int8)
    with open(path, "w", newline="") as fh:
        fh.write("example_id,call,correct\n")
        chunk = 20_000
        for start in range(0, examples, chunk):
            stop = min(start + chunk, examples)
            # call-major order inside a chunk: an example's rows are not adjacent, as in logs
            lines = [f"ex{i:07d},{c},{bits[i, c]}\n" for c in range(calls) for i in range(start, stop)]
            fh.write("".join(lines))
    return np.full(examples, calls), bits.sum(axis=1).astype(np.int64)


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux (bytes on macOS)
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def child(reader: str, path: str) -> dict:
    """Read ``path`` with one reader; the per-example counts go to a .npz next to it."""
    if reader == "pandas":
        import pandas as pd

        before = _rss_mb()
        t0, c0 = time.perf_counter(), time.process_time()
        df = pd.read_csv(path, dtype={"example_id": str})
        wide = df.pivot(index="example_id", columns="call", values="correct")
        ids = [str(i) for i in wide.index]
        k = wide.notna().sum(axis=1).to_numpy()
        s = wide.sum(axis=1).to_numpy().astype(np.int64)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        peak = _rss_mb()
    else:
        from certify.readers import ColumnMap
        from certify.readers._csv import read_csv

        before = _rss_mb()
        t0, c0 = time.perf_counter(), time.process_time()
        out, _ = read_csv(Path(path), ColumnMap(), None, engine=reader)
        (bits,) = out.values()
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        # the reader's peak, before the check below (np.nansum copies the float bits: +24 MB)
        peak = _rss_mb()
        ids = list(bits.example_ids)
        k, s = bits.counts, np.nansum(bits.bits, axis=1).astype(np.int64)
    order = np.argsort(np.array(ids))
    np.savez(f"{path}.{reader}.npz", k=np.asarray(k)[order], s=np.asarray(s)[order])
    return {"reader": reader, "seconds": seconds, "cpu": cpu, "peak_mb": peak, "import_mb": before, "examples": len(ids)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=300_000)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--readers", nargs="+", default=["pyarrow", "python", "pandas"])
    ap.add_argument("--child", nargs=2, metavar=("READER", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.csv"
        t0 = time.perf_counter()
        k_true, s_true = write_file(path, args.examples, args.calls, args.seed)
        rows = args.examples * args.calls
        size = path.stat().st_size / 2**20
        print(f"wrote {rows:,} rows ({args.examples:,} examples x {args.calls} calls, {size:.1f} MB) "
              f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        order = np.argsort(np.array([f"ex{i:07d}" for i in range(args.examples)]))
        results = {}
        for reader in args.readers:
            if reader == "pandas":
                try:
                    import pandas  # noqa: F401
                except ImportError:
                    print("pandas is not installed: no reference row", file=sys.stderr)
                    continue
            env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
            proc = subprocess.run([sys.executable, __file__, "--child", reader, str(path)], capture_output=True,
                                  text=True, env=env)
            if proc.returncode:
                raise SystemExit(f"{reader} failed:\n{proc.stderr}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            got = np.load(f"{path}.{reader}.npz")
            r["counts_ok"] = bool(np.array_equal(got["k"], k_true[order]) and np.array_equal(got["s"], s_true[order]))
            results[reader] = r
        ref = results.get("pandas")
        # wall time depends on what else runs; CPU time much less (both are printed)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"load average {load:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)
        print("| reader | rows | file MB | seconds | CPU seconds | peak RSS MB | RSS after imports MB | time / pandas | "
              "peak / pandas | counts match |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in results.values():
            ratio_t = f"{r['seconds'] / ref['seconds']:.2f}" if ref else "-"
            ratio_m = f"{r['peak_mb'] / ref['peak_mb']:.2f}" if ref else "-"
            print(f"| {r['reader']} | {rows:,} | {size:.1f} | {r['seconds']:.2f} | {r['cpu']:.2f} | {r['peak_mb']:.0f} | "
                  f"{r['import_mb']:.0f} | {ratio_t} | {ratio_m} | {'yes' if r['counts_ok'] else 'NO'} |")


if __name__ == "__main__":
    main()
