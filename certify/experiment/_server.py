"""An Ollama-API-compatible HTTP server over the embedded model (``certify serve-ollama``).

It speaks the part of Ollama's API that the experiment and the official ``ollama``
client use: ``GET /``, ``GET /api/version``, ``GET /api/tags``, ``POST /api/show``
and ``POST /api/generate`` (``format`` as a JSON schema or ``"json"``; options
``temperature``, ``top_p``, ``top_k``, ``num_predict``, ``seed``; ``raw``;
``stream`` answered as one NDJSON line). Errors are JSON ``{"error": ...}`` with
Ollama's statuses: 400 for a bad request, 404 for an unknown model.

Requests are served by ``instances`` model copies in parallel (each with its own
threads); further requests queue. In ``choice`` mode a request whose ``format`` is
an object schema with one required string-enum property (two or more values) is
answered from one prompt pass (the enum values' next-token law, drawn with the
request's seed), as the embedded backend does; every other request is generated.

Whatever a client sends, the server answers and keeps serving. Connections are read
by one event loop (a connection that sends half a request holds no thread), and a
request reaches a model only once it is complete and checked:

* HTTP/1.0 and 1.1 with ``Content-Length`` bodies: a ``Content-Length`` that is not
  plain decimal digits, a repeated one, or a ``Transfer-Encoding`` is refused and the
  connection closed, so no unread body is ever taken for the next request;
* request line and headers at most :data:`MAX_HEAD_BYTES` bytes and
  :data:`MAX_HEADER_LINES` lines; a body at most :data:`MAX_BODY_BYTES` bytes;
* ``timeout`` seconds for each of: the wait for a request, the rest of its head once
  it has begun, its body, and the client taking the answer;
* at most ``max_connections`` open connections; the ones beyond get 503 and are closed;
* the options in range (:func:`generate_options`) and the ``format`` schema checked
  and bounded (``_backends._grammar``) before llama.cpp sees them; a prompt must fit
  the context.

A refused request gets a 4xx answer (a 503 for a connection beyond the limit) and one
line on stderr, never a traceback.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import math
import os
import queue
import re
import socket
import sys
import time
from datetime import UTC, datetime
from http import HTTPStatus

from ._backends._embedded import (
    EmbeddedModel,
    choice_probability,
    draw_answer,
    resolve_model_path,
)
from ._config import DEFAULT_EMBEDDED_MODEL, MAX_EMBEDDED_N_CTX, check_embedded_capacity
from ._errors import BackendError, InputError

__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_TIMEOUT",
    "MAX_BODY_BYTES",
    "MAX_HEADER_LINES",
    "MAX_HEAD_BYTES",
    "MAX_NUM_PREDICT",
    "MAX_SEED",
    "OllamaServer",
    "enum_choice",
    "generate_options",
]

#: Bytes of a request line and its headers together.
MAX_HEAD_BYTES = 16 * 1024
#: Header lines of a request.
MAX_HEADER_LINES = 64
#: Bytes of a request body (a prompt of the longest context, JSON-escaped, fits).
MAX_BODY_BYTES = 1024 * 1024
#: Open connections served at once; more are answered 503 and closed.
DEFAULT_MAX_CONNECTIONS = 256
#: Seconds allowed for each stage of reading a request and for sending its answer.
DEFAULT_TIMEOUT = 10.0
#: Largest ``num_predict``: the longest context a model copy may have; generation also stops at the context's end.
MAX_NUM_PREDICT = MAX_EMBEDDED_N_CTX
#: Largest ``seed``: llama.cpp's seeds are 32-bit and 2**32 - 1 is its "draw a random seed".
MAX_SEED = 2**32 - 2
#: Largest ``top_k`` (a C int in llama.cpp).
_MAX_TOP_K = 2**31 - 1

# Ranges of the constructor's arguments (the CLI checks the same ones before loading anything);
# the context length and the number of model copies are bounded by what the model and this
# machine hold (check_embedded_capacity, the one rule for them in the package).
_PORTS = (0, 65535)
_THREADS = (0, 1024)
_CONNECTIONS = (1, 4096)

_DEFAULTS = {"temperature": 0.8, "top_p": 0.9, "top_k": 40, "num_predict": 128, "seed": 0}
#: Request fields that change what the model is asked; this server does not implement them.
_UNSUPPORTED_FIELDS = ("system", "template", "suffix", "context", "images")
# A header name is an RFC 9110 token.
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_DIGITS = re.compile(rb"[0-9]+")
#: Seconds a closing connection keeps reading (and dropping) what the client still sends.
_LINGER = 2.0
# What a log line shows as is; anything else (a line break from a request, say) is escaped.
_PRINTABLE = re.compile(r"[^\x20-\x7e]")


class _RequestError(Exception):
    """A request answered with ``status`` and ``{"error": message}``; ``close`` ends the connection."""

    def __init__(self, status: int, message: str, close: bool = False):
        super().__init__(message)
        self.status, self.close = status, close


def _shown(value) -> str:
    """A value from a request, for a message: one line, escaped, short (a container by its size)."""
    if isinstance(value, (dict, list)):
        what = "member" if isinstance(value, dict) else "value"
        return f"{'an object' if isinstance(value, dict) else 'a list'} of {len(value)} {what}{'s' * (len(value) != 1)}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**60:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("latin-1")
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


def enum_choice(fmt) -> tuple[str, tuple[str, ...]] | None:
    """``(key, options)`` if ``fmt`` is an object schema with one required string-enum property."""
    if not isinstance(fmt, dict) or fmt.get("type") != "object":
        return None
    props = fmt.get("properties")
    if not isinstance(props, dict) or len(props) != 1 or fmt.get("required") != list(props):
        return None
    key, spec = next(iter(props.items()))
    if not isinstance(spec, dict) or spec.get("type") != "string":
        return None
    options = spec.get("enum")
    if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) and o for o in options):
        return None
    return key, tuple(options)


def _is_real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def generate_options(options) -> dict:
    """The decoding options of a ``/api/generate`` request, defaulted and range-checked.

    Parameters
    ----------
    options : dict or None
        The request's ``options``. A null value means the default; options other than
        the five below are ignored.

    Returns
    -------
    dict
        ``temperature`` (a finite number >= 0), ``top_p`` (in (0, 1]), ``top_k`` (an
        integer >= 0, 0 meaning no cut), ``num_predict`` (-1 or -2 for "until the context
        is full", or 1 to :data:`MAX_NUM_PREDICT`) and ``seed`` (0 to :data:`MAX_SEED`).

    Raises
    ------
    InputError
        Naming the option, its value and its range.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InputError(f"options={_shown(options)} must be a JSON object")
    opts = {**_DEFAULTS, **{k: v for k, v in options.items() if k in _DEFAULTS and v is not None}}
    checks = {
        # A negative temperature would invert the law (choice mode) or sample untempered.
        "temperature": (lambda v: _is_real(v) and v >= 0, "a number >= 0"),
        "top_p": (lambda v: _is_real(v) and 0 < v <= 1, "a number in (0, 1]"),
        "top_k": (lambda v: _is_int(v) and 0 <= v <= _MAX_TOP_K, f"an integer from 0 to {_MAX_TOP_K}"),
        "num_predict": (
            lambda v: _is_int(v) and (v in (-1, -2) or 1 <= v <= MAX_NUM_PREDICT),
            f"-1, -2 or an integer from 1 to {MAX_NUM_PREDICT}",
        ),
        "seed": (lambda v: _is_int(v) and 0 <= v <= MAX_SEED, f"an integer from 0 to {MAX_SEED}"),
    }
    for key, (ok, rule) in checks.items():
        if not ok(opts[key]):
            raise InputError(f"options.{key}={_shown(opts[key])} must be {rule}")
    return opts


def _check_range(what: str, value, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if not _is_int(value) or not low <= value <= high:
        raise InputError(f"{what}={_shown(value)} must be an integer from {low} to {high}")


class OllamaServer:
    """The server: listening socket, model pool, configuration, and request statistics.

    The socket is bound before the models load, so a busy port is reported at once.

    Parameters
    ----------
    host, port : str, int
        Where to listen (port 0 to 65535; 0 picks a free port, see ``server_address``).
    model : str
        ``gemma3:270m`` or a GGUF path; served under ``name``.
    name : str
        Model name clients ask for.
    mode : {"generate", "choice"}
    instances : int
        Model copies serving requests in parallel: 1 to the CPU cores this process may use,
        within the machine's memory (:func:`certify.experiment.check_embedded_capacity`).
    n_ctx, n_threads : int
        Per-instance context length (256 to :data:`certify.experiment.MAX_EMBEDDED_N_CTX`, within
        the machine's memory) and threads (0 to 1024; 0: half the cores).
    max_connections : int
        Connections served at once (1 to 4096); the ones beyond get 503.
    timeout : float
        Seconds allowed for each stage of reading a request and for sending its answer
        (above 0, at most 3600).

    Raises
    ------
    InputError
        An argument out of its range (before anything is loaded), or an unusable model.
    BackendError
        The address cannot be listened on, or the model cannot be loaded.
    """

    def __init__(
        self,
        host: str,
        port: int,
        model: str = DEFAULT_EMBEDDED_MODEL,
        name: str = DEFAULT_EMBEDDED_MODEL,
        mode: str = "generate",
        instances: int = 1,
        n_ctx: int = 2048,
        n_threads: int = 0,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        timeout: float = DEFAULT_TIMEOUT,
    ):
        if mode not in ("generate", "choice"):
            raise InputError(f"mode {mode!r}: must be generate or choice")
        _check_range("port", port, _PORTS)
        check_embedded_capacity(n_ctx, instances, "n_ctx", "instances")
        _check_range("n_threads", n_threads, _THREADS)
        _check_range("max_connections", max_connections, _CONNECTIONS)
        if not _is_real(timeout) or not 0 < timeout <= 3600:
            raise InputError(f"timeout={_shown(timeout)} must be a number of seconds above 0, at most 3600")
        path = resolve_model_path(model)
        self.model_name, self.mode, self.path = name, mode, path
        self.max_connections, self.timeout = max_connections, float(timeout)
        self.served = 0
        self.socket = self._listen(host, port)
        self.server_address = self.socket.getsockname()
        try:
            self.pool: queue.Queue[EmbeddedModel] = queue.Queue()
            for _ in range(instances):
                self.pool.put(EmbeddedModel(path, n_ctx, n_threads))
        except BaseException:
            self.socket.close()
            raise
        # One worker per model copy: a request waits for a copy in the executor's queue.
        self._workers = concurrent.futures.ThreadPoolExecutor(max_workers=instances, thread_name_prefix="model")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._refusing = 0  # refused connections being closed

    @staticmethod
    def _listen(host: str, port: int) -> socket.socket:
        try:
            family, _, _, _, address = socket.getaddrinfo(
                host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )[0]
            return socket.create_server(address, family=family, backlog=128)
        except OSError as exc:
            # socket.create_server appends the address to the system's reason; the message names it already.
            reason = os.strerror(exc.errno) if exc.errno and not isinstance(exc, socket.gaierror) else exc.strerror
            raise BackendError(f"cannot listen on {host}:{port}: {reason or exc}") from None

    # -- running -------------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (from another thread) or KeyboardInterrupt."""
        asyncio.run(self._serve())

    def shutdown(self) -> None:
        """Make :meth:`serve_forever` return (thread-safe)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)

    def server_close(self) -> None:
        """Close the listening socket and let the model workers end after their current call."""
        self.socket.close()
        self._workers.shutdown(wait=False, cancel_futures=True)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        # asyncio reports trouble it cannot raise (an accept failing for lack of file
        # descriptors, say) through this handler; the default one prints a traceback.
        self._loop.set_exception_handler(
            lambda loop, context: self._log("-", context.get("message", "error"), context.get("exception"))
        )
        server = await asyncio.start_server(self._connection, sock=self.socket, limit=MAX_HEAD_BYTES, backlog=128)
        try:
            await self._stop.wait()
        finally:
            server.close()
            for writer in list(self._open):
                writer.transport.abort()

    # -- logging -------------------------------------------------------------------------

    @staticmethod
    def _log(client: str, message: str, exc: BaseException | None = None) -> None:
        """One line on stderr about one request or connection (control characters escaped)."""
        if exc is not None:
            message = f"{message}: {type(exc).__name__}: {exc}"
        text = _PRINTABLE.sub(
            lambda m: m.group().encode("unicode_escape").decode("ascii"), f"certify serve-ollama: {client} {message}"
        )
        with contextlib.suppress(OSError, ValueError):  # stderr closed or full: the request is answered anyway
            print(text[:500], file=sys.stderr, flush=True)

    # -- one connection ------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve_connection(reader, writer)
        except asyncio.CancelledError:
            # The server is shutting down. The task ends here rather than cancelled: asyncio 3.11's
            # stream callback would report a cancelled connection task as an error.
            pass

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "-"
        if len(self._open) >= self.max_connections:
            self._log(client, f"503: {self.max_connections} connections already open (the limit); closed")
            writer.write(
                _response(
                    503,
                    {"error": f"server busy: {self.max_connections} connections open, the limit; retry later"},
                    close=True,
                    head_only=False,
                    retry_after=1,
                )
            )
            if self._refusing >= self.max_connections:
                writer.transport.abort()  # a flood: no lingering, so refused connections hold no descriptors
                return
            self._refusing += 1
            try:
                await self._close(reader, writer)
            finally:
                self._refusing -= 1
            return
        self._open.add(writer)
        try:
            while await self._exchange(reader, writer, client):
                pass
        except (ConnectionError, OSError):
            pass  # the client went away; there is no one to answer
        except Exception as exc:  # a defect here must not end the server: one line, and the connection closes
            self._log(client, "500: internal error", exc)
        finally:
            self._open.discard(writer)
            await self._close(reader, writer)

    async def _close(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Close a connection so that the client reads its last answer.

        Closing a socket with unread input makes the kernel reset the connection, and a
        reset can destroy the answer before the client reads it: so the sending side is
        shut first, and what the client still sends is read and dropped for a moment
        (:data:`_LINGER` seconds at most).
        """
        try:
            if not writer.is_closing() and writer.can_write_eof():
                writer.write_eof()
                async with asyncio.timeout(min(self.timeout, _LINGER)):
                    while await reader.read(65536):
                        pass
        except (TimeoutError, ConnectionError, OSError, ValueError):
            pass
        writer.close()
        try:
            async with asyncio.timeout(self.timeout):
                await writer.wait_closed()
        except (TimeoutError, ConnectionError, OSError):
            writer.transport.abort()  # a client that does not take its last answer

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, client: str) -> bool:
        """Read one request and answer it; whether the connection stays open for another."""
        started = [False]
        method, request, close = None, "-", True
        try:
            try:
                async with asyncio.timeout(self.timeout):
                    head = await _read_head(reader, started)
            except TimeoutError:
                if not started[0]:
                    return False  # an idle connection: close it quietly
                raise _RequestError(408, f"request head not complete within {self.timeout:g} s", close=True) from None
            if head is None:
                return False
            method, target, version, headers = head
            request = f'"{method} {target[:100]}{"..." if len(target) > 100 else ""}"'
            close = version == "HTTP/1.0" or "close" in headers.get("connection", "").lower()
            length = _body_length(method, headers)
            if length and headers.get("expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            try:
                async with asyncio.timeout(self.timeout):
                    body = await reader.readexactly(length) if length else b""
            except TimeoutError:
                raise _RequestError(
                    408, f"request body ({length} bytes) not received within {self.timeout:g} s", close=True
                ) from None
            except asyncio.IncompleteReadError:
                return False  # the client closed mid-body: no one to answer
            status, payload, content_type = await self._route(method, target.split("?", 1)[0], body)
        except _RequestError as exc:
            self._log(client, f"{request} {exc.status}: {exc}")
            status, payload, content_type = exc.status, {"error": str(exc)}, "application/json"
            close = close or exc.close
        except (ConnectionError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a failure of the server (the model file gone, say): the client learns of it
            self._log(client, f"{request} 500", exc)
            status, payload, content_type = 500, {"error": f"{type(exc).__name__}: {exc}"}, "application/json"
        writer.write(_response(status, payload, content_type=content_type, close=close, head_only=method == "HEAD"))
        try:
            async with asyncio.timeout(self.timeout):
                await writer.drain()
        except TimeoutError:
            self._log(client, f"{request}: the client did not take the answer within {self.timeout:g} s; closed")
            writer.transport.abort()
            return False
        return not close

    async def _route(self, method: str, path: str, body: bytes):
        """``(status, payload, content type)`` of one complete request."""
        if method in ("GET", "HEAD"):
            if path in ("/", ""):
                return 200, b"Ollama is running", "text/plain; charset=utf-8"
            if path == "/api/version":
                return 200, {"version": "0.0.0-certify"}, "application/json"
            if path == "/api/tags":
                return 200, {"models": [self.tag()]}, "application/json"
            raise _RequestError(404, f"path {_shown(path)} not found")
        if path not in ("/api/generate", "/api/show"):
            raise _RequestError(404, f"path {_shown(path)} not found")
        req = _json_object(body)
        if path == "/api/show":
            model = req.get("model", req.get("name"))
            if not isinstance(model, str):
                raise _RequestError(400, f"model={_shown(model)} must be a string")
            if model != self.model_name and f"{model}:latest" != self.model_name:
                raise _RequestError(404, f"model {_shown(model)} not found")
            return 200, {"details": self.tag()["details"], "modelfile": "", "template": ""}, "application/json"
        job = self._generate_job(req)
        start = time.perf_counter_ns()
        try:
            out = await self._run(job)
        except InputError as exc:  # the prompt does not fit the context, the schema is refused...
            raise _RequestError(400, str(exc)) from None
        except BackendError as exc:  # an enum value that is not one token, in choice mode
            raise _RequestError(400, str(exc)) from None
        took = time.perf_counter_ns() - start
        self.served += 1
        reply = {
            "model": self.model_name,
            "created_at": datetime.now(UTC).isoformat(),
            "response": out["text"],
            "done": True,
            "done_reason": "length" if out["stop_reason"] == "length" else "stop",
            "total_duration": took,
            "load_duration": 0,
            "prompt_eval_count": out["prompt_tokens"],
            "prompt_eval_duration": 0,
            "eval_count": out["completion_tokens"],
            "eval_duration": took,
        }
        return 200, reply, "application/x-ndjson" if job["stream"] else "application/json"

    # -- the model -----------------------------------------------------------------------

    def tag(self) -> dict:
        """This model's entry in ``/api/tags``."""
        stat = self.path.stat()
        return {
            "name": self.model_name,
            "model": self.model_name,
            "modified_at": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
            "size": stat.st_size,
            "digest": f"{stat.st_size:x}{int(stat.st_mtime):x}",
            "details": {"format": "gguf", "family": "gemma3", "parameter_size": "270M", "quantization_level": "Q4_K_M"},
        }

    def _generate_job(self, req: dict) -> dict:
        """The checked fields of one ``/api/generate`` body (a model copy checks the schema and the prompt's length)."""
        model = req.get("model")
        if not isinstance(model, str):
            raise _RequestError(400, f"model={_shown(model)} must be a string")
        if model != self.model_name and f"{model}:latest" != self.model_name:
            raise _RequestError(404, f"model {_shown(model)} not found")
        prompt = req.get("prompt")
        if not isinstance(prompt, str):
            raise _RequestError(400, f"prompt={_shown(prompt)} must be a string")
        for key in _UNSUPPORTED_FIELDS:
            if req.get(key) not in (None, "", []):
                raise _RequestError(400, f"{key} is not supported by this server (put it in the prompt)")
        for key in ("raw", "stream"):
            if req.get(key) is not None and not isinstance(req[key], bool):
                raise _RequestError(400, f"{key}={_shown(req[key])} must be true or false")
        try:
            opts = generate_options(req.get("options"))
        except InputError as exc:
            raise _RequestError(400, str(exc)) from None
        fmt = req.get("format")
        if fmt in (None, ""):
            schema = None
        elif fmt == "json":
            schema = {"type": "object"}
        elif isinstance(fmt, dict):
            schema = fmt
        else:
            raise _RequestError(400, f'format={_shown(fmt)} must be "json" or a JSON schema object')
        raw = bool(req.get("raw"))
        choice = enum_choice(schema) if self.mode == "choice" and not raw else None
        return {
            "prompt": prompt,
            "schema": schema,
            "options": opts,
            "raw": raw,
            "choice": choice,
            "stream": req.get("stream", True) is not False,
        }

    def _run(self, job: dict) -> asyncio.Future:
        """Run ``job`` on a free model copy in a worker thread; the future of its output."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def settle(outcome) -> None:
            ok, value = outcome
            if future.done():  # cancelled: the client's connection is gone
                return
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

        def work() -> None:
            outcome: tuple[bool, dict | Exception]
            try:
                outcome = (True, self._compute(job))
            except Exception as exc:
                outcome = (False, exc)
            with contextlib.suppress(RuntimeError):  # the loop ended (shutdown): nobody waits for the answer
                loop.call_soon_threadsafe(settle, outcome)

        self._workers.submit(work)
        return future

    def _compute(self, job: dict) -> dict:
        opts, schema = job["options"], job["schema"]
        model = self.pool.get()
        try:
            if schema is not None:
                model.grammar(schema)  # checks and bounds the schema before anything else
            if job["choice"] is not None:
                key, options = job["choice"]
                logits, n = model.choice_logits(job["prompt"], key, options)
                answer = draw_answer(
                    choice_probability(logits, opts["temperature"], opts["top_p"]), options, opts["seed"]
                )
                return {
                    "text": json.dumps({key: answer}),
                    "prompt_tokens": n,
                    "completion_tokens": 1,
                    "stop_reason": "stop",
                }
            return model.generate(
                job["prompt"],
                schema,
                opts["temperature"],
                opts["top_p"],
                opts["num_predict"],
                opts["seed"],
                opts["top_k"],
                raw=job["raw"],
            )
        finally:
            self.pool.put(model)


# -- HTTP --------------------------------------------------------------------------------


async def _read_head(reader: asyncio.StreamReader, started: list) -> tuple[str, str, str, dict] | None:
    """Method, target, version and headers (lower-case names) of the next request; None if the client closed.

    ``started[0]`` becomes true at the request's first byte (a timeout before it is an idle
    connection, after it a slow or stalled client).
    """
    first = await reader.read(1)  # the first byte alone: a request has begun once it came
    if not first:
        return None
    started[0] = True
    total = 0
    lines: list[bytes] = []
    while True:
        try:
            line = first + await reader.readline()
        except (ValueError, asyncio.LimitOverrunError):
            raise _RequestError(
                431, f"a request line or header is longer than {MAX_HEAD_BYTES} bytes", close=True
            ) from None
        first = b""
        if not line.endswith(b"\n"):
            return None  # the client closed the connection inside the head: no one to answer
        total += len(line)
        if total > MAX_HEAD_BYTES:
            raise _RequestError(431, f"request line and headers exceed {MAX_HEAD_BYTES} bytes", close=True)
        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        if not lines and not line:
            continue  # RFC 9112: an empty line before the request line is ignored
        if not line:
            break
        lines.append(line)
        if len(lines) > MAX_HEADER_LINES + 1:
            raise _RequestError(431, f"more than {MAX_HEADER_LINES} header lines", close=True)
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not parts[1].startswith(b"/"):
        raise _RequestError(400, f"malformed request line {_shown(lines[0][:80])}", close=True)
    method, target, version = (p.decode("latin-1") for p in parts)
    if version not in ("HTTP/1.0", "HTTP/1.1"):
        raise _RequestError(400, f"HTTP version {_shown(version)} is not supported (HTTP/1.0 and 1.1 are)", close=True)
    headers: dict[str, str] = {}
    for raw in lines[1:]:
        name, colon, value = raw.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            # Also a folded line (leading space) and a space before the colon: both smuggling devices.
            raise _RequestError(400, f"malformed header line {_shown(raw[:80])}", close=True)
        key = name.decode("ascii").lower()
        if key in headers and key in ("content-length", "transfer-encoding", "host"):
            raise _RequestError(400, f"header {key} given twice", close=True)
        text = value.strip(b" \t").decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return method, target, version, headers


def _body_length(method: str, headers: dict) -> int:
    """The body's length from ``Content-Length`` (0 without one), refusing what framing cannot trust."""
    if method not in ("GET", "HEAD", "POST"):
        raise _RequestError(405, f"method {_shown(method)} is not supported (GET, HEAD and POST are)", close=True)
    if "transfer-encoding" in headers:
        raise _RequestError(411, "Transfer-Encoding is not supported: send the body with a Content-Length", close=True)
    expect = headers.get("expect")
    if expect is not None and expect.lower() != "100-continue":
        raise _RequestError(417, f"Expect: {_shown(expect)} is not supported", close=True)
    text = headers.get("content-length")
    if text is None:
        return 0
    if not _DIGITS.fullmatch(text.encode("latin-1")):
        raise _RequestError(400, f"Content-Length {_shown(text)} is not a non-negative decimal integer", close=True)
    digits = text.lstrip("0") or "0"  # int() refuses more than 4300 digits, and leading zeros are digits
    if len(digits) > len(str(MAX_BODY_BYTES)) or int(digits) > MAX_BODY_BYTES:
        raise _RequestError(
            413, f"Content-Length {_shown(text)} exceeds the limit of {MAX_BODY_BYTES} bytes", close=True
        )
    return int(digits)


def _json_object(body: bytes) -> dict:
    """The request body as a JSON object (NaN and Infinity refused: they are not JSON)."""

    def constant(name):
        raise ValueError(f"{name} is not JSON")

    try:
        value = json.loads(body, parse_constant=constant) if body else None
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:100]
        raise _RequestError(400, f"request body is not valid JSON ({reason})") from None
    if not isinstance(value, dict):
        raise _RequestError(400, f"request body must be a JSON object, not {_shown(value)}")
    return value


def _response(
    status: int,
    payload,
    *,
    content_type: str = "application/json",
    close: bool,
    head_only: bool,
    retry_after: int | None = None,
) -> bytes:
    """The bytes of one HTTP/1.1 answer (no body for HEAD; its length is the GET answer's)."""
    if isinstance(payload, bytes):
        body = payload
    else:
        body = (json.dumps(payload) + ("\n" if content_type == "application/x-ndjson" else "")).encode()
    lines = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
    ]
    if retry_after is not None:
        lines.append(f"Retry-After: {retry_after}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head_only else body)
