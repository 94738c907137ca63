"""Misbehaving servers on loopback: timeouts, malformed outputs, transient 5xx.

The real model cannot be made to stall or to break its schema on demand, so these
tests run a small Ollama-API server of their own that does exactly that.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from certify.experiment import BackendError, load_config, run_experiment
from exp_helpers import BUILTIN_DATASET, cli, policy, write_config


class _Misbehaving(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour, replies=()):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviour, self.replies, self.hits = behaviour, list(replies), 0
        self.lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out first, as the stall test intends

    def do_GET(self):  # noqa: N802
        self._json(200, {"models": [{"name": "m:latest", "model": "m:latest"}]})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        srv = self.server
        with srv.lock:
            srv.hits += 1
            hit = srv.hits
        if srv.behaviour == "stall":
            time.sleep(3)
            return self._json(200, {"response": '{"answer": "Yes"}', "done": True})
        if srv.behaviour == "flaky" and hit % 3 != 0:
            return self._json(503, {"error": "server busy"})
        text = srv.replies[(hit - 1) % len(srv.replies)] if srv.replies else '{"answer": "Yes"}'
        assert body["format"]["required"] == ["answer"] and body["stream"] is False
        self._json(200, {"response": text, "done": True, "done_reason": "stop", "prompt_eval_count": 50, "eval_count": 4})


@pytest.fixture
def server(request):
    srv = _Misbehaving(*request.param)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _cfg(tmp_path, url, n=3, repeats=2, extra=""):
    return write_config(
        tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=repeats, datasets=BUILTIN_DATASET.format(n=n),
        backends=f'[backends.ollama]\nendpoints = ["{url}"]\ntimeout = 0.5\nmax_retries = 2\nbackoff = 0.05\n{extra}',
        policies=policy("p", "ollama", "m", 1.0, 3),
    )


@pytest.mark.parametrize("server", [("malformed", ["Yes.", "I cannot say", '{"answer": "No"}', "{\"answer\": \"nope\"}"])],
                         indirect=True)
def test_malformed_outputs_are_recorded_and_counted(tmp_path, server):
    cfg = load_config(_cfg(tmp_path, server.url, n=4, repeats=2))
    summary = run_experiment(cfg, progress=False)
    assert (summary.recorded, summary.invalid) == (8, 4)
    rows = sqlite3.connect(cfg.store).execute("SELECT raw_output, answer, parse, valid, correct FROM calls").fetchall()
    by_raw = {r[0]: r[1:] for r in rows}
    assert by_raw["Yes."][:3] == ("Yes", "regex", 1)
    assert by_raw["I cannot say"] == (None, "none", 0, 0)
    assert by_raw['{"answer": "nope"}'] == (None, "none", 0, 0)
    assert by_raw['{"answer": "No"}'][:3] == ("No", "json", 1)
    st = cli("experiment", "status", cfg.store)
    assert " 4 " in st.stdout.splitlines()[2]  # the invalid column


@pytest.mark.parametrize("server", [("flaky",)], indirect=True)
def test_transient_503_is_retried_with_backoff(tmp_path, server):
    cfg = load_config(_cfg(tmp_path, server.url, n=2, repeats=1))
    assert run_experiment(cfg, progress=False).recorded == 2
    attempts = sqlite3.connect(cfg.store).execute("SELECT attempts FROM calls").fetchall()
    assert sorted(a for (a,) in attempts) == [3, 3] and server.hits == 6


@pytest.mark.parametrize("server", [("stall",)], indirect=True)
def test_timeout_gives_up_after_retries_with_one_line(tmp_path, server):
    cfg = load_config(_cfg(tmp_path, server.url, n=1, repeats=1))
    with pytest.raises(BackendError) as err:
        run_experiment(cfg, progress=False)
    assert str(err.value) == f"{server.url}/api/generate: timed out waiting for the reply (gave up after 3 attempts)"
    out = cli("experiment", "run", str(tmp_path / "c.toml"), "--no-progress", cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "timed out" in out.stderr
