"""What the portable llama.cpp build costs: choice- and generate-mode throughput of two builds.

The README installs llama-cpp-python with ``CMAKE_ARGS="-DGGML_NATIVE=OFF"`` (kernels
for the x86-64 baseline llama.cpp enables without native tuning: AVX2, FMA, F16C,
BMI2) instead of the default native build (kernels for the building CPU; crashed on an
AVX-512 + AMX host). This script measures both builds of the same release in one run,
alternating them round by round, with Gemma 3 270M Q4_K_M through the embedded
backend's own model class and one thread (as the demo runs it):

* choice mode: one prompt pass per built-in yes/no question (the demo's hot path),
  prompt passes per second;
* generate mode: schema-constrained generations (Gemma's turn format, the answer
  JSON grammar, temperature 1), calls and completion tokens per second.

Error column: the largest difference between the builds' Yes/No logits over the same
prompts, and how many greedy answers differ.

Build the two wheels first (the native one without pip's cache, so the cache keeps
the portable wheel that the README's commands reuse)::

    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip wheel --no-deps llama-cpp-python==0.3.36 -w wheels/portable
    pip wheel --no-deps --no-cache-dir llama-cpp-python==0.3.36 -w wheels/native
    python benchmarks/bench_llama_build.py --build portable=wheels/portable/*.whl --build native=wheels/native/*.whl

Each wheel is unpacked into a temporary directory and put first on the path of a
worker process; everything else (NumPy, the package) comes from this environment.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_WORKER = r"""
import json, sys, time
import llama_cpp
from certify.experiment import ANSWER_SCHEMA, TASKS, build_prompt, load_model
prompts, generations = int(sys.argv[1]), int(sys.argv[2])
model = load_model("gemma3:270m", 1024, 1)
fields = [("parity", lambda i: {"number": str(1000 + 37 * i)}),
          ("compare", lambda i: {"first": str(17 * i % 997), "second": str(31 * i % 991)})]
texts = [build_prompt(TASKS[name], make(i)) for i in range(prompts) for name, make in fields][:prompts]
model.choice_logits(texts[0], "answer", ("Yes", "No"))  # warm-up: the shared head enters the KV cache
start = time.perf_counter()
logits = [model.choice_logits(t, "answer", ("Yes", "No"))[0] for t in texts]
choice_s = time.perf_counter() - start
schema = json.loads(json.dumps(dict(ANSWER_SCHEMA)))
start, tokens = time.perf_counter(), 0
for i in range(generations):
    tokens += model.generate(texts[i % len(texts)], schema, 1.0, 0.95, 16, 1000 + i)["completion_tokens"]
generate_s = time.perf_counter() - start
print(json.dumps({"choice_s": choice_s, "generate_s": generate_s, "tokens": tokens, "logits": logits,
                  "info": llama_cpp.llama_print_system_info().decode().strip(), "version": llama_cpp.__version__}))
"""


def unpack(wheel: Path, into: Path) -> Path:
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(into)
    return into


def run_worker(site: Path, prompts: int, generations: int) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", _WORKER, str(prompts), str(generations)], env=env,
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        raise SystemExit(f"worker for {site} failed with {out.returncode}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=WHEEL",
                    help="a build to measure (the first is the reference for ratios); give two")
    ap.add_argument("--prompts", type=int, default=300, help="choice-mode prompt passes per round")
    ap.add_argument("--generations", type=int, default=40, help="generate-mode calls per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; builds alternate within each round")
    args = ap.parse_args()
    builds = dict(item.split("=", 1) for item in args.build)
    with tempfile.TemporaryDirectory() as tmp:
        sites = {name: unpack(Path(w), Path(tmp) / name) for name, w in builds.items()}
        runs: dict[str, list[dict]] = {name: [] for name in builds}
        for r in range(args.rounds):
            order = list(builds) if r % 2 == 0 else list(builds)[::-1]
            for name in order:
                runs[name].append(run_worker(sites[name], args.prompts, args.generations))
                print(f"round {r + 1}: {name} done", file=sys.stderr)
    ref = list(builds)[0]
    ref_logits = runs[ref][0]["logits"]
    med = {name: {k: statistics.median(x[k] for x in rs) for k in ("choice_s", "generate_s", "tokens")}
           for name, rs in runs.items()}
    print(f"llama-cpp-python {runs[ref][0]['version']}, Gemma 3 270M Q4_K_M, 1 thread, "
          f"{args.prompts} prompt passes and {args.generations} generations per round, "
          f"median of {args.rounds} rounds (builds alternating)\n")
    print("| build | choice: passes/s | generate: calls/s | generate: tokens/s | choice speed vs " + ref + " | generate speed vs " + ref + " "
          "| max logit diff vs " + ref + " | greedy answers differing |")
    print("|---|---|---|---|---|---|---|---|")
    for name in builds:
        m = med[name]
        logits = runs[name][0]["logits"]
        diff = max(abs(a - b) for la, lb in zip(logits, ref_logits) for a, b in zip(la, lb))
        flips = sum((la[0] >= la[1]) != (lb[0] >= lb[1]) for la, lb in zip(logits, ref_logits))
        print(f"| {name} | {args.prompts / m['choice_s']:.1f} | {args.generations / m['generate_s']:.2f} "
              f"| {m['tokens'] / m['generate_s']:.1f} | {med[ref]['choice_s'] / m['choice_s']:.3f} "
              f"| {med[ref]['generate_s'] / m['generate_s']:.3f} | {diff:.2e} | {flips}/{len(logits)} |")
    print()
    for name in builds:
        print(f"- {name}: `{runs[name][0]['info']}`")


if __name__ == "__main__":
    main()
