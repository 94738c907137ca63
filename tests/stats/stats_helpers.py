"""Shared helpers for tests/stats: simulated bits, tiny inspect_ai logs written by hand, plurality by enumeration."""

import itertools
import json
import zipfile
from collections import Counter
from fractions import Fraction

import numpy as np


def simulate_bits(q, calls, rng):
    """B_ij ~ Bernoulli(q_i) independently given q_i (paper eq. (hierarchy-main))."""
    q = np.asarray(q, float)
    return (rng.random((len(q), calls)) < q[:, None]).astype(float)


def eval_sample(sid, epoch, value, scorer="match"):
    """One sample of an inspect_ai log as inspect writes it (the fields this reader uses, plus typical ones)."""
    return {
        "id": sid,
        "epoch": epoch,
        "input": f"question {sid}",
        "target": "Yes",
        "messages": [],
        "output": {"model": "mockllm/model", "choices": [], "completion": "Yes"},
        "scores": {scorer: {"value": value, "answer": "Yes", "explanation": "exact match"}},
        "metadata": {},
    }


def eval_header(task="qnli_task", model="mockllm/model", epochs=3):
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": task, "model": model, "created": "2026-11-20T10:00:00+00:00", "config": {"epochs": epochs},
                 "dataset": {"name": "qnli", "samples": 4}},
        "plan": {"steps": []},
        "results": {"total_samples": 4, "completed_samples": 4, "scores": []},
        "stats": {},
    }


def write_eval_zip(path, samples, header=None):
    """A `.eval` log: a zip with header.json, samples/<id>_epoch_<e>.json, summaries and journal files."""
    header = header or eval_header()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header["eval"], "plan": header["plan"]}))
        zf.writestr("header.json", json.dumps(header))
        for s in samples:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        zf.writestr("summaries.json", json.dumps([{"id": s["id"], "epoch": s["epoch"]} for s in samples]))
        zf.writestr("reductions.json", json.dumps([]))


def write_eval_json(path, samples, header=None):
    log = dict(header or eval_header())
    log["samples"] = samples
    with open(path, "w") as fh:
        json.dump(log, fh)


def plurality_by_subsets(codes, k) -> float:
    """Plurality accuracy of k calls by enumerating every k-subset of each example's recorded calls
    (answer codes: 0 correct, 1.. wrong answers, -1 no answer, -2 no call): the correct answer wins
    a t-way tie with weight 1/t, no answer casts no vote; the mean over examples, exactly."""
    total = Fraction(0)
    for row in np.asarray(codes):
        calls = [int(c) for c in row if c != -2]
        subsets = list(itertools.combinations(calls, k))
        score = Fraction(0)
        for subset in subsets:
            votes = Counter(c for c in subset if c >= 0)
            top = max(votes.values(), default=0)
            if votes[0] and votes[0] == top:
                score += Fraction(1, sum(v == top for v in votes.values()))
        total += score / len(subsets)
    return float(total / len(codes))


def likelihood_cells(k: int, n: int, law: str, seed: int):
    """Cell counts of n examples x k calls from one of three latent laws: "beta" (Beta(2, 1)),
    "two-point" (0.15 and 0.8) or "near-0-1" (0.03 and 0.97: nearly never or always solved)."""
    from certify.likelihood import cell_counts

    rng = np.random.default_rng(seed)
    if law == "beta":
        q = rng.beta(2.0, 1.0, n)
    elif law == "two-point":
        q = np.where(rng.random(n) < 0.3, 0.15, 0.8)
    else:
        q = np.where(rng.random(n) < 0.3, 0.03, 0.97)
    return cell_counts(np.full(n, k), rng.binomial(k, q))


#: (K, N, law) of the likelihood starts' tests.
LIKELIHOOD_CASES = [(k, n, law) for k in (3, 5, 10) for n in (200, 4000) for law in ("beta", "two-point", "near-0-1")]
