"""A real HTTP server on loopback that speaks Ollama's and OpenAI's APIs with the replies a test chooses.

No real server can be made to answer a given call with a field out of range, a lone
surrogate or 300 MB on demand; this one stands for such a server. ``reply(hit, path, body)``
decides each POST's answer: a dict (sent as JSON), bytes (sent as they are), or a
:class:`Stream` (sent in chunks while the client reads, counting what went out).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

GOOD = {"response": '{"answer": "Yes"}', "done": True, "done_reason": "stop", "prompt_eval_count": 50, "eval_count": 4}


def good_completion(content: str = '{"answer": "Yes"}') -> dict:
    """A well-formed OpenAI chat completion."""
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 4}}


@dataclass
class Stream:
    """A reply body sent in ``chunk``-byte pieces, ``size`` bytes in all, as long as the client reads.

    ``declared`` sends a Content-Length header; without it the body ends when the connection closes.
    """

    head: bytes
    size: int
    chunk: int = 1 << 20
    declared: bool = False

    def pieces(self) -> Iterator[bytes]:
        yield self.head
        left = self.size - len(self.head)
        block = b"a" * self.chunk
        while left > 0:
            yield block[:left]
            left -= self.chunk


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, reply: Callable[[int, str, dict], object]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply = reply
        self.lock = threading.Lock()
        self.hits = 0  # POSTs received
        self.delivered: list[tuple[int, object]] = []  # (hit, reply) of every JSON reply sent
        self.sent = 0  # body bytes of streamed replies written to the socket
        self.gate = threading.Event()
        self.gate.set()  # cleared by a test: POSTs wait until it is set again

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _send(self, status: int, data: bytes) -> bool:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False  # the client gave up first

    def do_GET(self):  # noqa: N802
        if self.path.endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode())
        else:
            self._send(200, json.dumps({"models": [{"name": "m:latest", "model": "m:latest"}]}).encode())

    def do_POST(self):  # noqa: N802
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with srv.lock:
            srv.hits += 1
            hit = srv.hits
        srv.gate.wait(60)
        if self.path.startswith("/extras/"):
            self._send(404, b'{"detail": "Not Found"}')
            return
        out = srv.reply(hit, self.path, body)
        if isinstance(out, tuple):  # (status, JSON body): an error reply
            self._send(out[0], json.dumps(out[1]).encode())
        elif isinstance(out, Stream):
            self._stream(out)
        elif isinstance(out, bytes):
            self._send(200, out)
        else:
            # counted before it is sent: the client may record it before this thread runs again
            with srv.lock:
                srv.delivered.append((hit, out))
            if not self._send(200, json.dumps(out).encode()):
                with srv.lock:
                    srv.delivered.remove((hit, out))

    def _stream(self, out: Stream) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if out.declared:
            self.send_header("Content-Length", str(out.size))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for piece in out.pieces():
                self.wfile.write(piece)
                with self.server.lock:
                    self.server.sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what it was sent is counted


@pytest.fixture
def hostile(request):
    """A :class:`HostileServer` answering with ``request.param`` (a ``reply`` function)."""
    srv = HostileServer(request.param)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.gate.set()
    srv.shutdown()
    srv.server_close()


def start_server(reply) -> HostileServer:
    """A :class:`HostileServer` serving in a daemon thread (stop it with :func:`stop_server`)."""
    srv = HostileServer(reply)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return srv


def stop_server(srv: HostileServer) -> None:
    srv.gate.set()
    srv.shutdown()
    srv.server_close()


def mount_tmpfs(where, size: str) -> None:
    """Mount a tmpfs of ``size`` at ``where``, or skip the test saying why it cannot be done here.

    A small file system is how a disk really fills, and remounting it read-only is how
    media really refuse writes (root ignores file modes, not a read-only mount).
    """
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): {done.stderr.strip()}")


def remount(where, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True, capture_output=True)


def unmount(where) -> None:
    if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
