"""Throughput of the experiment backends on this machine (prints a Markdown table).

Measures, with Gemma 3 270M Q4_K_M:

* embedded ``choice`` mode: calls/s for a whole run (one prompt pass per example,
  shared by all policies and repeats) and seconds per prompt pass;
* embedded ``generate`` mode: calls/s of schema-constrained generation;
* ``certify serve-ollama`` over HTTP against client concurrency, in generate mode,
  with 1 and 2 model instances.

Usage: ``python benchmarks/bench_experiment.py [--examples 24] [--calls 12]``.
Every request goes to a server this script starts on 127.0.0.1 and stops.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify.experiment import (  # noqa: E402
    ANSWER_SCHEMA,
    TASKS,
    build_prompt,
    load_config,
    load_model,
    run_experiment,
)

SCHEMA = json.loads(json.dumps(dict(ANSWER_SCHEMA)))


def bench_choice(examples: int, tmp: Path) -> tuple[float, float, int]:
    """Calls/s of a choice-mode run: 3 temperatures x K = 5 over ``examples`` examples."""
    cfg = tmp / "choice.toml"
    cfg.write_text(f"""
[experiment]
name = "bench"
store = "{tmp / 'choice.sqlite'}"
repeats = 5
[[datasets]]
name = "compare"
n = {examples}
seed = 1
[backends.embedded]
mode = "choice"
n_threads = 1
n_ctx = 1024
[defaults]
backend = "embedded"
model = "gemma3:270m"
""" + "".join(f'[[policies]]\nname = "t{t}"\ntemperature = {t}\nseed_base = {i}\n' for i, t in enumerate((0.2, 1.0, 2.0))))
    config = load_config(cfg)
    load_model("gemma3:270m", 1024, 1)  # load outside the timing
    summary = run_experiment(config, progress=False)
    return summary.recorded / summary.seconds, summary.seconds / examples, summary.recorded


def bench_generate(calls: int) -> float:
    """Calls/s of in-process schema-constrained generation."""
    model = load_model("gemma3:270m", 1024, 1)
    prompts = [build_prompt(TASKS["compare"], {"first": str(100 + i), "second": str(150 - i)}) for i in range(calls)]
    start = time.perf_counter()
    for i, p in enumerate(prompts):
        model.generate(p, SCHEMA, 1.0, 0.95, 16, i)
    return calls / (time.perf_counter() - start)


def bench_server(calls: int, instances: int, concurrencies: list[int]) -> list[tuple[int, float]]:
    """Calls/s of serve-ollama (generate mode) against client concurrency."""
    port = 18000 + os.getpid() % 1000 + instances
    launch = ("import sys, certify.cli.main as m; "
              "sys.exit(m.main(sys.argv[1:]))")
    threads = "1"  # one thread per instance: 2 threads on 2 shared cores ran 5x slower here
    proc = subprocess.Popen([sys.executable, "-c", launch, "serve-ollama", "--port", str(port), "--instances",
                             str(instances), "--threads", threads, "--n-ctx", "1024"],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(url + "/api/tags", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        out = []
        with httpx.Client(timeout=300) as client:
            def one(i):
                body = {"model": "gemma3:270m", "stream": False, "format": SCHEMA,
                        "prompt": build_prompt(TASKS["parity"], {"number": str(1000 + i)}),
                        "options": {"temperature": 1.0, "top_p": 0.95, "num_predict": 16, "seed": i}}
                r = client.post(url + "/api/generate", json=body)
                r.raise_for_status()

            one(-1)  # warm-up: the first request builds the schema grammar
            for c in concurrencies:
                start = time.perf_counter()
                with cf.ThreadPoolExecutor(c) as pool:
                    list(pool.map(one, range(calls)))
                out.append((c, calls / (time.perf_counter() - start)))
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=24, help="examples in the choice-mode run")
    ap.add_argument("--calls", type=int, default=12, help="calls per generate / server measurement")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rate, per_pass, n = bench_choice(args.examples, Path(tmp))
    print("| measurement | calls/s | note |\n|---|---:|---|")
    print(f"| embedded choice, run of {n} calls (3 temperatures x K=5) | {rate:.1f} | {per_pass:.2f} s per example |")
    print(f"| embedded generate (schema grammar), {args.calls} calls | {bench_generate(args.calls):.2f} | in process |")
    for instances in (1, 2):
        for c, r in bench_server(args.calls, instances, [1, 2, 4]):
            print(f"| serve-ollama generate, {instances} instance(s), concurrency {c} | {r:.2f} | HTTP, loopback |")


if __name__ == "__main__":
    main()
