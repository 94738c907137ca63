"""Config values within their documented ranges that the machine must still hold (issue "Nothing breaks it,
part two", item 19).

* a run streams its pending calls: 2,000 examples x 1,000 repeats never sit in memory as a plan;
* the embedded context (``n_ctx``) and ``serve-ollama --instances`` are bounded by what the model
  and this machine hold, with one line naming the value and the rule;
* every group of policies is run (a run of two backends made the first group's calls only).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from certify._errors import InputError
from certify.experiment import call_seed, load_config, run_experiment
from certify.experiment._config import (EMBEDDED_CONTEXT_BYTES, EMBEDDED_INSTANCE_BYTES, EMBEDDED_LOGITS_BYTES,
                                        check_embedded_capacity, machine_memory)
from exp_helpers import BUILTIN_DATASET, ROOT, cli, policy, write_config
from hostile_server import GOOD, start_server, stop_server


# The CLI, writing its peak resident memory (VmHWM, kB) to $HWM_FILE as it exits. Measured inside
# the process: a child's ru_maxrss also counts the parent's pages it held between fork and exec.
_MEASURED = (
    "import atexit, os, sys, certify.cli.main as m\n"
    "def hwm():\n"
    "    line = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
    "    open(os.environ['HWM_FILE'], 'w').write(line.split()[1])\n"
    "atexit.register(hwm)\n"
    "sys.exit(m.main(sys.argv[1:]))\n"
)


def _peak_rss_mb(args, cwd) -> tuple[int, str, int]:
    """Run ``certify ARGS``; its exit code, its stderr and its peak resident memory in MB."""
    hwm = cwd / "hwm.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HWM_FILE": str(hwm)}
    done = subprocess.run([sys.executable, "-c", _MEASURED, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    return done.returncode, done.stderr, int(hwm.read_text()) // 1024


def test_a_run_of_two_million_calls_streams_its_plan(tmp_path):
    """2,000 examples x 1,000 repeats: the old runner built all 2,000,000 calls (over 1.5 GB) before the first."""
    srv = start_server(lambda hit, path, body: (400, {"error": "no more calls today"}))
    try:
        cfg = write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=1000,
                           datasets=BUILTIN_DATASET.format(n=2000).replace("pool = 500", "pool = 2000"),
                           backends=f'[backends.ollama]\nendpoints = ["{srv.url}"]\n',
                           policies=policy("p", "ollama", "m", 1.0, 3))
        code, err, peak = _peak_rss_mb(["experiment", "run", str(cfg), "--no-progress"], tmp_path)
    finally:
        stop_server(srv)
    assert code == 1
    assert err.splitlines() == [
        f"certify experiment: failed: {srv.url}/api/generate answered HTTP 400: no more calls today"]
    assert srv.hits <= 2  # the calls already handed to the one worker
    assert peak < 400, f"peak resident memory {peak} MB"


def test_a_streamed_run_over_many_chunks_resumes_exactly(tmp_path):
    """1,100 examples (three chunks of the plan): a run stopped midway, then resumed, makes each call once."""
    stop_at = 700
    srv = start_server(lambda hit, path, body: (400, {"error": "stop"}) if hit == stop_at else GOOD)
    try:
        path = write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=1,
                            datasets=BUILTIN_DATASET.format(n=1100).replace("pool = 500", "pool = 2000"),
                            backends=f'[backends.ollama]\nendpoints = ["{srv.url}"]\nconcurrency = 4\n',
                            policies=policy("p", "ollama", "m", 1.0, 3))
        cfg = load_config(path)
        with pytest.raises(Exception, match="HTTP 400: stop"):
            run_experiment(cfg, progress=False)
        db = sqlite3.connect(cfg.store)
        kept = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        db.close()
        summary = run_experiment(cfg, progress=False)
    finally:
        stop_server(srv)
    assert (summary.recorded, summary.skipped) == (1100 - kept, kept)
    db = sqlite3.connect(cfg.store)
    rows = db.execute("SELECT c.example_id, c.repeat, c.seed FROM calls c JOIN examples e "
                      "ON e.dataset = c.dataset AND e.example_id = c.example_id ORDER BY e.position").fetchall()
    db.close()
    assert len(rows) == 1100 and len({r[0] for r in rows}) == 1100
    assert all(seed == call_seed(3, "p", eid, r) for eid, r, seed in rows)
    assert srv.hits == 1100 + 1  # every call once, plus the refused one


def test_every_group_of_policies_is_run(tmp_path):
    """Two policies on different endpoints are two groups: both make their calls in one run."""
    a = start_server(lambda hit, path, body: GOOD)
    b = start_server(lambda hit, path, body: GOOD)
    try:
        path = write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=2,
                            datasets=BUILTIN_DATASET.format(n=3), backends='[backends.ollama]\n',
                            policies=policy("p", "ollama", "m", 1.0, 3, f'endpoints = ["{a.url}"]\n')
                            + policy("q", "ollama", "m", 1.0, 4, f'endpoints = ["{b.url}"]\n'))
        summary = run_experiment(load_config(path), progress=False)
    finally:
        stop_server(a)
        stop_server(b)
    assert summary.recorded == 12
    assert (a.hits, b.hits) == (6, 6)


def test_an_embedded_context_beyond_the_model_is_one_line(tmp_path):
    """n_ctx = 65536 was accepted (the range went to 131072) and failed allocating 64 GiB of logits."""
    cfg = write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), datasets=BUILTIN_DATASET.format(n=2),
                       backends='[backends.embedded]\nmode = "choice"\nn_threads = 1\nn_ctx = 65536\n',
                       policies=policy("p", "embedded", "gemma3:270m", 0.5, 1))
    out = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path, timeout=120)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "certify experiment: error: backends.embedded.n_ctx = 65536: must be an integer from 256 to 32768"]
    assert not (tmp_path / "s.sqlite").exists()


def test_an_embedded_context_this_machine_cannot_hold_is_one_line():
    memory = machine_memory()
    if memory is None or memory >= 32768 * EMBEDDED_LOGITS_BYTES:
        pytest.skip("this machine holds the largest context of the range")
    most = memory // EMBEDDED_LOGITS_BYTES
    with pytest.raises(InputError) as err:
        check_embedded_capacity(most + 1, 1, "backends.embedded.n_ctx", "instances")
    assert str(err.value).startswith(f"backends.embedded.n_ctx = {most + 1}: must be at most {most} on this machine (")
    check_embedded_capacity(min(most, 2048), 1, "backends.embedded.n_ctx", "instances")


def test_serve_ollama_refuses_more_instances_than_the_machine_runs(tmp_path):
    """--instances 40 loaded 40 model copies (over 13 GB) before serving; now one line, no model loaded."""
    cores = len(os.sched_getaffinity(0))
    out = cli("serve-ollama", "--port", "0", "--instances", str(cores + 1), "--n-ctx", "1024", timeout=60)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"certify serve-ollama: error: --instances = {cores + 1}: must be an integer from 1 to {cores}, the CPU cores "
        "this process may use (each model instance computes on at least one)"]
    out = cli("serve-ollama", "--port", "0", "--n-ctx", "65536", timeout=60)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "certify serve-ollama: error: --n-ctx = 65536: must be an integer from 256 to 32768"]


def test_instances_are_bounded_by_the_machine_memory():
    memory = machine_memory()
    if memory is None:
        pytest.skip("the system does not tell its memory")
    each = EMBEDDED_INSTANCE_BYTES + 2048 * EMBEDDED_CONTEXT_BYTES
    if memory // each + 1 <= len(os.sched_getaffinity(0)):
        with pytest.raises(InputError, match=rf"--instances = {memory // each + 1}: must be at most {memory // each} "):
            check_embedded_capacity(2048, memory // each + 1, "--n-ctx", "--instances")
    else:  # more memory than the cores can use: the core count is the bound
        with pytest.raises(InputError, match="the CPU cores this process may use"):
            check_embedded_capacity(2048, len(os.sched_getaffinity(0)) + 1, "--n-ctx", "--instances")


def test_serve_ollama_help_states_the_context_limit_the_check_applies():
    """The help text's range of --n-ctx is the one rule the capacity check applies (no second copy drifts)."""
    from certify.cli.main import build_parser
    from certify.experiment import MAX_EMBEDDED_N_CTX

    text = build_parser("serve_ollama")._subparsers._group_actions[0].choices["serve-ollama"].format_help()
    assert f"256 to {MAX_EMBEDDED_N_CTX}" in " ".join(text.split())
