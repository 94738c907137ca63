"""Kill-and-resume: SIGKILL mid-run loses no recorded call and the finished store equals an uninterrupted run."""

from __future__ import annotations

import signal
import sqlite3
import time

from exp_helpers import BUILTIN_DATASET, EMBEDDED_CHOICE, cli, policy, spawn, write_config

# Columns that are the same in any two runs of the same config (timings are not).
STABLE = ("dataset, policy, example_id, repeat, seed, raw_output, answer, parse, valid, correct, "
          "prompt_tokens, completion_tokens, stop_reason, endpoint, attempts")
N, K, POLICIES = 14, 3, 2


def _config(tmp_path, name, n=N):
    return write_config(
        tmp_path / f"{name}.toml", store=str(tmp_path / f"{name}.sqlite"), repeats=K, name="resume",
        datasets=BUILTIN_DATASET.format(n=n), backends=EMBEDDED_CHOICE,
        policies=policy("t05", "embedded", "gemma3:270m", 0.5, 1) + policy("t20", "embedded", "gemma3:270m", 2.0, 2),
    )


def _rows(path, cols="*", table="calls"):
    db = sqlite3.connect(path)
    try:
        return sorted(db.execute(f"SELECT {cols} FROM {table}").fetchall(), key=repr)
    finally:
        db.close()


def _count(path) -> int:
    try:
        return _rows(path, "COUNT(*)")[0][0]
    except sqlite3.Error:
        return 0


def _kill_when(proc, path, lo, hi, seconds=120):
    """SIGKILL ``proc`` as soon as the store holds between lo and hi calls (bounded wait)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        n = _count(path)
        if lo <= n < hi:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return n
        time.sleep(0.02)
    raise AssertionError(f"run ended (rc={proc.returncode}) before it could be killed mid-way")


def test_sigkill_then_resume_matches_uninterrupted_run(tmp_path, gguf):
    total = N * K * POLICIES
    ref = cli("experiment", "run", str(_config(tmp_path, "ref")), "--no-progress", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    assert f"recorded {total} calls (0 invalid)" in ref.stdout

    cfg = _config(tmp_path, "cut")
    store = tmp_path / "cut.sqlite"
    proc = spawn("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    _kill_when(proc, store, 1, total // 2)
    before = _rows(store)  # everything the killed run had committed, timings included
    assert 0 < len(before) < total

    again = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"{len(before)} already in" in again.stdout
    after = _rows(store)
    assert set(before) <= set(after)  # no recorded call lost or rewritten
    assert _rows(store, STABLE) == _rows(tmp_path / "ref.sqlite", STABLE)
    assert _rows(store, table="latent") == _rows(tmp_path / "ref.sqlite", table="latent")
    assert _rows(store, table="examples") == _rows(tmp_path / "ref.sqlite", table="examples")
    assert sqlite3.connect(store).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_sigint_stops_cleanly_and_resumes(tmp_path, gguf):
    # Enough examples that the run is still going when the first calls are committed (with
    # N = 14 a busy machine could finish the whole run before the signal was sent).
    n = 4 * N
    cfg = _config(tmp_path, "int", n)
    store = tmp_path / "int.sqlite"
    proc = spawn("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    deadline = time.monotonic() + 120
    while _count(store) < 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("certify experiment: interrupted; every call recorded so far is kept; "
                                            "run the same command again to resume")
    done = _count(store)
    again = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    assert again.returncode == 0 and f"{done} already in" in again.stdout
    assert _count(store) == n * K * POLICIES
