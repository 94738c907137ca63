"""Accuracy of the embedded Gemma 3 270M on the built-in tasks, per temperature.

Runs the demo's own backend code (``choice`` mode: one prompt pass per example gives the
logits of the task's answers, :func:`choice_probability` turns them into the law of one
call at each temperature) on the first ``--n`` generated examples of each built-in task,
and prints Markdown tables for ``benchmarks/RESULTS.md`` (section "Demo tasks"):

* greedy accuracy (temperature 0), and the share of examples whose greedy answer is
  each of the task's answers;
* per temperature: mean q (the expected accuracy of one call), the fraction of examples
  with q in (0.05, 0.95) (real per-example randomness), and the true gains V3 - V1 and
  V5 - V1 of these examples (majority of right calls) with the standard error of their
  mean, which says how many examples a certified gain needs;
* per temperature, for a task with more than two answers: how the wrong answers fall
  (the share of examples whose likeliest wrong answer holds at least 80 % of the wrong
  mass, and less than 50 %), and the true gains of a plurality vote over the answers
  (fair ties) of 3 and 5 calls, which exceed the majority's when wrong answers spread.

Usage: ``python benchmarks/bench_demo_tasks.py [--tasks lookup3 tally5] [--n 200]
[--seed 20260011] [--temperatures 0.1 0.2 0.5 1.0 2.0] [--top-p 0.95] [--threads 0]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time

import numpy as np

from certify._majority import majority_polynomial
from certify.experiment._backends._embedded import choice_probability, load_model
from certify.experiment._config import DEFAULT_EMBEDDED_MODEL
from certify.experiment._datasets import BUILTIN_GENERATED, builtin_examples
from certify.experiment._protocol import TASKS, build_prompt

# Where the wrong answers of an example count as concentrated on one answer, and as spread.
CONCENTRATED, SPREAD = 0.8, 0.5


def measure(task: str, n: int, seed: int, threads: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Answer logits (n x answers) and label indices of ``n`` examples, and seconds per example."""
    model = load_model(DEFAULT_EMBEDDED_MODEL, 1024, threads)  # the demo's n_ctx
    answers = TASKS[task].answers
    logits, labels = [], []
    t0 = time.perf_counter()
    for ex in builtin_examples(task, seed, n):
        values, _ = model.choice_logits(build_prompt(TASKS[task], ex.fields), "answer", answers)
        logits.append(values)
        labels.append(answers.index(ex.label))
    return np.array(logits), np.array(labels), (time.perf_counter() - t0) / n


def plurality_accuracy(law: np.ndarray, right: int, k: int) -> float:
    """P(the plurality of k calls drawn from ``law`` is answer ``right``), ties broken uniformly."""
    total = 0.0
    for counts in _compositions(k, len(law)):
        top = max(counts)
        if counts[right] == top:
            ways = math.factorial(k) / math.prod(math.factorial(c) for c in counts)
            total += ways * math.prod(p**c for p, c in zip(law, counts)) / counts.count(top)
    return total


def _compositions(k: int, parts: int):
    """Every tuple of ``parts`` non-negative integers summing to ``k``."""
    for cuts in itertools.combinations(range(k + parts - 1), parts - 1):
        edges = (-1, *cuts, k + parts - 1)
        yield tuple(b - a - 1 for a, b in zip(edges, edges[1:]))


def _gain(values: np.ndarray, q: np.ndarray) -> str:
    gain = values - q
    return f"{gain.mean():+.3f} ± {gain.std(ddof=1) / np.sqrt(len(q)):.3f}"


def rows(task: str, logits: np.ndarray, labels: np.ndarray, temperatures, top_p: float) -> tuple[list[str], list[str]]:
    """The task's rows of the one-call table, and of the wrong-answer table (tasks with more than two answers)."""
    out, wrong_rows = [], []
    idx = np.arange(len(labels))
    for t in temperatures:
        law = np.array([choice_probability(values, t, top_p) for values in logits])
        q = law[idx, labels]
        spread = np.mean((q > 0.05) & (q < 0.95))
        cells = [f"{q.mean():.3f}", f"{spread:.2f}"]
        for m in (1, 2):  # paper index: 2m + 1 votes
            cells.append(_gain(majority_polynomial(m, q), q))
        out.append(f"| {task} | {t:g} | " + " | ".join(cells) + " |")
        if logits.shape[1] > 2:
            wrong = law.copy()
            wrong[idx, labels] = 0.0
            mass = wrong.sum(axis=1)
            some = mass > 1e-9  # examples with wrong answers at all
            share = wrong[some].max(axis=1) / mass[some]
            plur = [np.array([plurality_accuracy(p, r, k) for p, r in zip(law, labels)]) for k in (3, 5)]
            wrong_rows.append(
                f"| {task} | {t:g} | {np.mean(share >= CONCENTRATED):.2f} | {np.mean(share < SPREAD):.2f} | "
                + " | ".join(f"{_gain(v, q)} | {np.mean(v):.3f}" for v in plur) + " |"
            )
    return out, wrong_rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=list(BUILTIN_GENERATED), choices=BUILTIN_GENERATED)
    ap.add_argument("--n", type=int, default=200, help="examples per task (the first n generated)")
    ap.add_argument("--seed", type=int, default=20260011, help="generator seed")
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.1, 0.2, 0.5, 1.0, 2.0])
    ap.add_argument("--top-p", type=float, default=0.95)
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: half the cores, as the demo)")
    args = ap.parse_args(argv)
    summary = ["| task | greedy accuracy | greedy answers | s / example |", "|---|---:|---|---:|"]
    table = ["| task | T | mean q | q in (0.05, 0.95) | V3 - V1 ± se | V5 - V1 ± se |", "|---|---:|---:|---:|---:|---:|"]
    wrong = [f"| task | T | wrong mass >= {CONCENTRATED:g} on one answer | < {SPREAD:g} on any one | "
             "plurality V3 - V1 ± se | plurality V3 | plurality V5 - V1 ± se | plurality V5 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for task in args.tasks:
        logits, labels, sec = measure(task, args.n, args.seed, args.threads)
        greedy = logits.argmax(axis=1)  # the first of tied maxima, as temperature 0
        shares = np.bincount(greedy, minlength=logits.shape[1]) / len(greedy)
        named = ", ".join(f"{a} {s:.2f}" for a, s in zip(TASKS[task].answers, shares))
        summary.append(f"| {task} | {np.mean(greedy == labels):.3f} | {named} | {sec:.2f} |")
        one, many = rows(task, logits, labels, args.temperatures, args.top_p)
        table += one
        wrong += many
        print(f"{task}: done", file=sys.stderr, flush=True)
    print(f"n = {args.n} examples per task (seed {args.seed}), top-p {args.top_p:g}\n")
    print("\n".join(summary) + "\n")
    print("\n".join(table))
    if len(wrong) > 2:
        print("\n" + "\n".join(wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
