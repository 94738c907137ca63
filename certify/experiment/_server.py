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
"""

from __future__ import annotations

import json
import queue
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ._backends._embedded import (
    EmbeddedModel,
    choice_probability,
    draw_answer,
    resolve_model_path,
)
from ._config import DEFAULT_EMBEDDED_MODEL
from ._errors import BackendError, InputError

__all__ = ["OllamaServer", "enum_choice"]

_DEFAULTS = {"temperature": 0.8, "top_p": 0.9, "top_k": 40, "num_predict": 128, "seed": 0}


class _RequestError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def enum_choice(fmt) -> tuple[str, tuple[str, ...]] | None:
    """``(key, options)`` if ``fmt`` is an object schema with one required string-enum property."""
    if not isinstance(fmt, dict) or fmt.get("type") != "object":
        return None
    props = fmt.get("properties")
    if not isinstance(props, dict) or len(props) != 1 or fmt.get("required") != list(props):
        return None
    key, spec = next(iter(props.items()))
    options = spec.get("enum") if isinstance(spec, dict) else None
    if spec.get("type") != "string" or not isinstance(options, list) or len(options) < 2:
        return None
    if not all(isinstance(o, str) and o for o in options):
        return None
    return key, tuple(options)


class OllamaServer(ThreadingHTTPServer):
    """The server: model pool, configuration, and request statistics.

    Parameters
    ----------
    host, port : str, int
        Where to listen (port 0 picks a free port; see ``server_address``).
    model : str
        ``gemma3:270m`` or a GGUF path; served under ``name``.
    name : str
        Model name clients ask for.
    mode : {"generate", "choice"}
    instances : int
        Model copies serving requests in parallel.
    n_ctx, n_threads : int
        Per-instance context length and threads.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str, port: int, model: str = DEFAULT_EMBEDDED_MODEL, name: str = DEFAULT_EMBEDDED_MODEL,
                 mode: str = "generate", instances: int = 1, n_ctx: int = 2048, n_threads: int = 0):
        if mode not in ("generate", "choice"):
            raise InputError(f"mode {mode!r}: must be generate or choice")
        if instances < 1:
            raise InputError(f"instances = {instances}: must be at least 1")
        path = resolve_model_path(model)
        self.model_name, self.mode, self.path = name, mode, path
        self.pool: queue.Queue[EmbeddedModel] = queue.Queue()
        for _ in range(instances):
            self.pool.put(EmbeddedModel(path, n_ctx, n_threads))
        self.served = 0
        try:
            super().__init__((host, port), _Handler)
        except OSError as exc:
            raise BackendError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None

    def tag(self) -> dict:
        """This model's entry in ``/api/tags``."""
        stat = self.path.stat()
        return {
            "name": self.model_name,
            "model": self.model_name,
            "modified_at": datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat(),
            "size": stat.st_size,
            "digest": f"{stat.st_size:x}{int(stat.st_mtime):x}",
            "details": {"format": "gguf", "family": "gemma3", "parameter_size": "270M",
                        "quantization_level": "Q4_K_M"},
        }

    def generate(self, req: dict) -> dict:
        """Answer one ``/api/generate`` body (already decoded)."""
        if not isinstance(req, dict):
            raise _RequestError(400, "request body must be a JSON object")
        model = req.get("model")
        if model != self.model_name and f"{model}:latest" != self.model_name:
            raise _RequestError(404, f"model '{model}' not found")
        prompt = req.get("prompt")
        if not isinstance(prompt, str):
            raise _RequestError(400, "prompt must be a string")
        opts = {**_DEFAULTS, **(req.get("options") or {})}
        try:
            temperature, top_p = float(opts["temperature"]), float(opts["top_p"])
            top_k, num_predict, seed = int(opts["top_k"]), int(opts["num_predict"]), int(opts["seed"])
        except (TypeError, ValueError):
            raise _RequestError(400, "options temperature, top_p, top_k, num_predict, seed must be numbers") from None
        if num_predict < 0:
            num_predict = 2048
        fmt = req.get("format")
        schema = {"type": "object"} if fmt == "json" else fmt if isinstance(fmt, dict) else None
        if fmt not in (None, "", "json") and schema is None:
            raise _RequestError(400, "format must be \"json\" or a JSON schema object")
        start = time.perf_counter_ns()
        model_obj = self.pool.get()
        try:
            choice = enum_choice(schema) if self.mode == "choice" and not req.get("raw") else None
            if choice is not None:
                key, options = choice
                logits, n = model_obj.choice_logits(prompt, key, options)
                answer = draw_answer(choice_probability(logits, temperature, top_p), options, seed)
                out = {"text": json.dumps({key: answer}), "prompt_tokens": n, "completion_tokens": 1,
                       "stop_reason": "stop"}
            else:
                out = model_obj.generate(prompt, schema, temperature, top_p, num_predict, seed, top_k,
                                         raw=bool(req.get("raw")))
        finally:
            self.pool.put(model_obj)
        took = time.perf_counter_ns() - start
        self.served += 1
        return {
            "model": self.model_name,
            "created_at": datetime.now(timezone.utc).isoformat(),
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


class _Handler(BaseHTTPRequestHandler):
    server: OllamaServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - quiet: one line per request is noise
        pass

    def _send(self, status: int, body, content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else (json.dumps(body) + ("\n" if content_type != "application/json" else "")).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to tell it

    def do_HEAD(self):  # noqa: N802 - http.server API
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):  # noqa: N802
        if self.path in ("/", ""):
            self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
        elif self.path == "/api/version":
            self._send(200, {"version": "0.0.0-certify"})
        elif self.path == "/api/tags":
            self._send(200, {"models": [self.server.tag()]})
        else:
            self._send(404, {"error": f"path {self.path} not found"})

    def do_POST(self):  # noqa: N802
        try:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except ValueError:
                raise _RequestError(400, "request body is not valid JSON") from None
            if self.path == "/api/generate":
                reply = self.server.generate(body)
                if body.get("stream", True):
                    self._send(200, reply, "application/x-ndjson")
                else:
                    self._send(200, reply)
            elif self.path == "/api/show":
                if not isinstance(body, dict) or body.get("model") != self.server.model_name:
                    raise _RequestError(404, f"model '{(body or {}).get('model')}' not found")
                self._send(200, {"details": self.server.tag()["details"], "modelfile": "", "template": ""})
            else:
                raise _RequestError(404, f"path {self.path} not found")
        except _RequestError as exc:
            self._send(exc.status, {"error": str(exc)})
        except Exception as exc:  # the client gets a 500 with the reason, the server lives on
            self._send(500, {"error": f"{type(exc).__name__}: {exc}"})
