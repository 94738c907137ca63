"""Accuracy of the embedded Gemma 3 270M on the built-in yes/no tasks, per temperature.

Runs the demo's own backend code (``choice`` mode: one prompt pass per example gives the
Yes/No logits, :func:`choice_probability` turns them into the law of one call at each
temperature) on the first ``--n`` generated examples of each built-in task, and prints a
Markdown table for ``benchmarks/RESULTS.md`` (section "Demo tasks"):

* greedy accuracy (temperature 0), and the share of examples the model answers Yes;
* per temperature: mean q (the expected accuracy of one call), the fraction of examples
  with q in (0.05, 0.95) (real per-example randomness), and the true gains
  V3 - V1 and V5 - V1 of these examples with the standard error of their mean, which
  says how many examples a certified gain needs.

Usage: ``python benchmarks/bench_demo_tasks.py [--tasks lookup3 lookup5] [--n 200]
[--seed 20260011] [--temperatures 0.1 0.2 0.5 1.0 2.0] [--top-p 0.95] [--threads 0]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from certify._majority import majority_polynomial
from certify.experiment._backends._embedded import choice_probability, load_model
from certify.experiment._config import DEFAULT_EMBEDDED_MODEL
from certify.experiment._datasets import BUILTIN_GENERATED, builtin_examples
from certify.experiment._protocol import TASKS, build_prompt


def measure(task: str, n: int, seed: int, threads: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Logit differences l_Yes - l_No and labels (True = Yes) of ``n`` examples, and seconds per example."""
    model = load_model(DEFAULT_EMBEDDED_MODEL, 1024, threads)  # the demo's n_ctx
    diffs, labels = [], []
    t0 = time.perf_counter()
    for ex in builtin_examples(task, seed, n):
        (l_yes, l_no), _ = model.choice_logits(build_prompt(TASKS[task], ex.fields), "answer", ("Yes", "No"))
        diffs.append(l_yes - l_no)
        labels.append(ex.label == "Yes")
    return np.array(diffs), np.array(labels), (time.perf_counter() - t0) / n


def rows(task: str, diff: np.ndarray, yes: np.ndarray, temperatures, top_p: float) -> list[str]:
    """One Markdown row per temperature."""
    out = []
    for t in temperatures:
        p_yes = np.array([choice_probability(d, 0.0, t, top_p) for d in diff])
        q = np.where(yes, p_yes, 1 - p_yes)
        spread = np.mean((q > 0.05) & (q < 0.95))
        cells = [f"{q.mean():.3f}", f"{spread:.2f}"]
        for m in (1, 2):  # paper index: 2m + 1 votes
            gain = majority_polynomial(m, q) - q
            cells.append(f"{gain.mean():+.3f} ± {gain.std(ddof=1) / np.sqrt(len(q)):.3f}")
        out.append(f"| {task} | {t:g} | " + " | ".join(cells) + " |")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=list(BUILTIN_GENERATED), choices=BUILTIN_GENERATED)
    ap.add_argument("--n", type=int, default=200, help="examples per task (the first n generated)")
    ap.add_argument("--seed", type=int, default=20260011, help="generator seed")
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.1, 0.2, 0.5, 1.0, 2.0])
    ap.add_argument("--top-p", type=float, default=0.95)
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: half the cores, as the demo)")
    args = ap.parse_args(argv)
    summary = ["| task | greedy accuracy | answers Yes | s / example |", "|---|---:|---:|---:|"]
    table = ["| task | T | mean q | q in (0.05, 0.95) | V3 - V1 ± se | V5 - V1 ± se |", "|---|---:|---:|---:|---:|---:|"]
    for task in args.tasks:
        diff, yes, sec = measure(task, args.n, args.seed, args.threads)
        greedy = np.mean((diff >= 0) == yes)  # temperature 0: a tie goes to Yes
        summary.append(f"| {task} | {greedy:.3f} | {np.mean(diff >= 0):.2f} | {sec:.2f} |")
        table += rows(task, diff, yes, args.temperatures, args.top_p)
        print(f"{task}: done", file=sys.stderr, flush=True)
    print(f"n = {args.n} examples per task (seed {args.seed}), top-p {args.top_p:g}\n")
    print("\n".join(summary) + "\n")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
