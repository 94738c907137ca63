"""Helpers of the experiment tests: the CLI as a subprocess, free ports, config snippets."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

# The real entry point, certify.cli.main, run from the source tree.
LAUNCH = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"
CLI = [sys.executable, "-c", LAUNCH]
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd=None, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run ``certify ARGS`` to completion and capture its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _default_sigint() -> None:
    # A test suite started in the background (``cmd &`` in a script, nohup) inherits SIGINT
    # ignored, and a Python child keeps it ignored: give the child the default Ctrl-C, as a
    # user's terminal does, so the interrupt tests test the interrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(*args: str, cwd=None) -> subprocess.Popen:
    """Start ``certify ARGS`` in the background, with Ctrl-C (SIGINT) at its default."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([*CLI, *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    """Poll ``url`` until it answers (bounded), failing early if the server died."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            detail = proc.stderr.read()[-2000:] if proc.stderr else "(stderr in its log file)"
            raise RuntimeError(f"server exited with {proc.returncode}: {detail}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up in {seconds} s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_config(path: Path, *, store: str, datasets: str, backends: str, policies: str,
                 repeats: int = 2, name: str = "t") -> Path:
    """Write an experiment TOML assembled from table snippets."""
    path.write_text(
        f'[experiment]\nname = "{name}"\nstore = "{store}"\nrepeats = {repeats}\n\n{datasets}\n{backends}\n{policies}\n'
    )
    return path


BUILTIN_DATASET = '[[datasets]]\nname = "compare"\nn = {n}\nseed = 7\npool = 500\n'
EMBEDDED_CHOICE = '[backends.embedded]\nmode = "choice"\nn_threads = 1\nn_ctx = 1024\n'


def policy(name: str, backend: str, model: str, temperature: float, seed_base: int, extra: str = "") -> str:
    return (
        f'[[policies]]\nname = "{name}"\nbackend = "{backend}"\nmodel = "{model}"\n'
        f"temperature = {temperature}\nseed_base = {seed_base}\n{extra}"
    )


_ACCESS = re.compile(r'"(GET|POST) (\S+) HTTP/[\d.]+" (\d{3})')


@dataclass(frozen=True)
class LoggedServer:
    """A server on loopback whose output (uvicorn's access log included) goes to ``log``."""

    url: str
    log: Path

    def mark(self) -> int:
        """The log's current end: pass it to :meth:`requests` to see only later requests."""
        return self.log.stat().st_size

    def requests(self, since: int = 0) -> list[tuple[str, str, int]]:
        """(method, path, HTTP status) of every request logged after ``since``."""
        with self.log.open("rb") as fh:
            fh.seek(since)
            text = fh.read().decode("utf-8", "replace")
        return [(m, path, int(code)) for m, path, code in _ACCESS.findall(text)]
