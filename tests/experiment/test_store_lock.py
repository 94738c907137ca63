"""One writer per store (issue 16, item 6): a second run on a store in use is refused at once.

Two real ``certify experiment run`` processes on one real SQLite store. The first
must still be running when the second starts, so its calls go to a small
Ollama-API server on loopback that holds every reply until the test opens a gate
(no real server can be paused on demand).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from certify.experiment import CallRecord, RunStore, StoreInUseError
from certify.experiment._store import writer_lock
from exp_helpers import BUILTIN_DATASET, cli, policy, spawn, write_config


class _Gated(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _GatedHandler)
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.posts = 0

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class _GatedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _json(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client was killed while waiting, as the crash test intends

    def do_GET(self):  # noqa: N802
        self._json({"models": [{"name": "m:latest", "model": "m:latest"}]})

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.posts += 1
        self.server.gate.wait(60)
        self._json({"response": '{"answer": "Yes"}', "done": True, "done_reason": "stop",
                    "prompt_eval_count": 50, "eval_count": 4})


@pytest.fixture
def gated():
    srv = _Gated()
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.gate.set()
    srv.shutdown()
    srv.server_close()


def _config(tmp_path, url, repeats):
    return write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=repeats,
                        datasets=BUILTIN_DATASET.format(n=2),
                        backends=f'[backends.ollama]\nendpoints = ["{url}"]\nmax_retries = 0\n',
                        policies=policy("p", "ollama", "m", 1.0, 3))


def _wait_for_post(server, n, proc, seconds=60):
    deadline = time.monotonic() + seconds
    while server.posts < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the first run never called the server"
        time.sleep(0.02)


def _count(store):
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    finally:
        db.close()


def test_second_run_on_a_store_in_use_is_refused_and_a_crash_releases_the_lock(tmp_path, gated):
    cfg, store = _config(tmp_path, gated.url, repeats=1), tmp_path / "s.sqlite"
    first = spawn("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    try:
        _wait_for_post(gated, 1, first)  # the first run holds the lock and waits on its first call
        start = time.monotonic()
        second = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
        assert second.returncode == 2 and time.monotonic() - start < 30
        assert second.stderr.splitlines() == [
            f"certify experiment: error: store {str(store)!r} is in use by process {first.pid}: "
            "one run per store (wait for it or stop it)"
        ]
        assert gated.posts == 1  # the refused run made no call
        gated.gate.set()
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert "recorded 2 calls (0 invalid), 0 already in" in out
    assert gated.posts == 2 and _count(store) == 2

    # a run killed while it holds the lock leaves no stale lock: the kernel drops it with the process
    gated.gate.clear()
    cfg = _config(tmp_path, gated.url, repeats=2)
    crashed = spawn("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    _wait_for_post(gated, 3, crashed)
    crashed.send_signal(signal.SIGKILL)
    crashed.wait()
    gated.gate.set()
    again = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "recorded 2 calls (0 invalid), 2 already in" in again.stdout
    assert _count(store) == 4


def test_lock_names_the_holder_and_is_free_again_after_the_block(tmp_path):
    store = tmp_path / "s.sqlite"
    with writer_lock(store):
        # a second open file description on the same lock file conflicts even within one process
        with pytest.raises(StoreInUseError, match=rf"is in use by process {os.getpid()}:"):
            with writer_lock(store):
                pass
    with writer_lock(store):
        pass
    assert (tmp_path / "s.sqlite.lock").read_text() == ""  # released: no pid left behind


def test_save_returns_only_the_calls_it_added(tmp_path):
    def call(repeat):
        return CallRecord("d", "p", "e1", repeat, 1, "Yes", "Yes", "regex", True, True, 0.1, None, None, None, "x", 1, 0.0)

    with RunStore(tmp_path / "s.sqlite", create=True) as s:
        assert s.save([call(0)]) == [call(0)]
        assert s.save([call(0), call(1)]) == [call(1)]  # repeat 0 was there already: not counted again
        assert s.query("SELECT COUNT(*) FROM calls") == [(2,)]
