"""Shared helpers for tests/stats: simulated bits and tiny inspect_ai logs written by hand."""

import json
import zipfile

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
