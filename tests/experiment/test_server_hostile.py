"""``certify serve-ollama`` against hostile clients: a 4xx and one log line per bad request, and it serves on.

The servers are real ``certify serve-ollama`` processes on loopback; the HTTP-level
requests go over raw sockets, so that the bytes are exactly the hostile ones.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from certify.experiment._server import MAX_NUM_PREDICT
from hypothesis import strategies as st

from certify.experiment import ANSWER_SCHEMA, TASKS, answer_schema, build_prompt, load_model
from certify.experiment._backends._embedded import GRAMMAR_CACHE_SIZE
from certify.experiment._backends._grammar import SchemaError, checked_schema, grammar_text
from exp_helpers import CLI, ROOT, _default_sigint, cli, free_port, stop, wait_http

SCHEMA = json.loads(json.dumps(dict(ANSWER_SCHEMA)))
PROMPT = build_prompt(TASKS["parity"], {"number": "12"})


@dataclass
class Served:
    """A running ``certify serve-ollama``: its port and the file its stderr goes to."""

    port: int
    log: Path
    proc: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def mark(self) -> int:
        """The log's current end: :meth:`lines` after it are the lines written since."""
        return self.log.stat().st_size

    def lines(self, since: int) -> list[str]:
        with self.log.open("rb") as fh:
            fh.seek(since)
            return fh.read().decode("utf-8", "replace").splitlines()

    def generate(self, body) -> httpx.Response:
        return httpx.post(self.url + "/api/generate", content=json.dumps(body), timeout=120)

    def check_alive(self) -> None:
        """The process runs and answers an ordinary request (an ordinary generate, in choice mode)."""
        assert self.proc.poll() is None, f"server exited with {self.proc.returncode}"
        r = self.generate({"model": "gemma3:270m", "prompt": PROMPT, "format": SCHEMA, "stream": False,
                           "options": {"temperature": 1.0, "seed": 3}})
        assert r.status_code == 200 and json.loads(r.json()["response"])["answer"] in ("Yes", "No")


def _serve(tmp: Path, *options: str):
    port = free_port()
    log = tmp / "stderr.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("w") as err:
        proc = subprocess.Popen([*CLI, "serve-ollama", "--port", str(port), "--mode", "choice", "--threads", "1",
                                 "--n-ctx", "1024", *options], env=env, stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=_default_sigint)
    served = Served(port, log, proc)
    try:
        wait_http(served.url + "/api/version", proc)
        yield served
    finally:
        stop(proc)
        text = log.read_text()
        assert "Traceback" not in text, text[-3000:]


@pytest.fixture(scope="module")
def server(gguf, tmp_path_factory):
    """``certify serve-ollama --mode choice`` with the default limits (256 connections, 10 s)."""
    yield from _serve(tmp_path_factory.mktemp("hostile"))


def _exchange(port: int, data: bytes, seconds: float = 30) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it (or ``seconds`` pass)."""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except TimeoutError:
            return got + b"<still open>"
    return got


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def _refused_once(served: Served, body, status: int, words: str) -> None:
    """``body`` to /api/generate gets ``status`` with an error naming ``words``, and exactly one log line."""
    mark = served.mark()
    r = served.generate(body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    lines = served.lines(mark)
    assert len(lines) == 1 and lines[0].startswith("certify serve-ollama: 127.0.0.1:") and words in lines[0], lines


# -- item 1: schemas that crashed llama.cpp (SIGSEGV), and item 2: unbounded grammar sizes ----------------


@pytest.mark.parametrize("schema, words", [
    ({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}, "refers to itself"),
    ({"$defs": {"n": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}},
      "$ref": "#/$defs/n"}, "recursive schemas are not supported"),
    ({"enum": []}, "enum=[] must be a non-empty list"),
    ({"anyOf": []}, "must be a non-empty list of schemas"),
    ({"oneOf": []}, "must be a non-empty list of schemas"),
    ({"type": []}, "non-empty list of distinct ones"),
    ({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}, "does not resolve"),
    ({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}, "only a reference into"),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 999999}, "minItems=999999 must be an integer from 0"),
    ({"type": "string", "maxLength": 5000}, "maxLength=5000 must be an integer from 0"),
    ({"type": "string", "enum": ["say \"yes\"", "no"]}, "holds \"\\\"\": a quote, a backslash"),
    ({"type": "string", "pattern": "^\\d+$"}, "pattern is not supported"),
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}, "minimum is not supported"),
    ({"type": ["string", "null"], "maxLength": 3}, "maxLength is not enforced beside type"),
    ({"type": "object", "properties": {f"p{i}": {"type": "string", "maxLength": 900} for i in range(5)}},
     "add up to more than 4000"),
])
def test_a_schema_llama_cpp_cannot_take_is_a_400_and_the_server_lives_on(server, schema, words):
    _refused_once(server, {"model": "gemma3:270m", "prompt": "Say hi.", "format": schema, "stream": False}, 400,
                  words)
    server.check_alive()


def test_choice_mode_refuses_an_answer_of_several_tokens(server):
    schema = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["Yes, surely", "No"]}},
              "required": ["answer"]}
    _refused_once(server, {"model": "gemma3:270m", "prompt": PROMPT, "format": schema, "stream": False}, 400,
                  "choice mode needs 1")


def test_a_schema_inlined_through_refs_is_served(server):
    # pydantic's shape: the enum in $defs, referenced with a description beside the $ref
    schema = {"$defs": {"Answer": {"type": "string", "enum": ["Yes", "No"]}}, "type": "object",
              "properties": {"answer": {"$ref": "#/$defs/Answer", "description": "the answer"},
                             "why": {"type": "string", "maxLength": 20}},
              "required": ["answer", "why"]}
    r = server.generate({"model": "gemma3:270m", "prompt": PROMPT, "format": schema, "stream": False,
                         "options": {"num_predict": 48, "seed": 5}})
    assert r.status_code == 200
    reply = r.json()
    if reply["done_reason"] == "stop":
        out = json.loads(reply["response"])
        assert out["answer"] in ("Yes", "No") and len(out["why"]) <= 20


_TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"]
_NAMES = st.text(max_size=6)  # any characters: quotes, backslashes, control characters, emoji
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), _NAMES)
_COUNTS = st.one_of(st.integers(0, 30), st.integers(-2, 2000), st.booleans())
_LEAVES = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"type": st.sampled_from(_TYPES)}),
    st.fixed_dictionaries({"type": st.lists(st.sampled_from(_TYPES), max_size=3)}),
    st.fixed_dictionaries({"enum": st.lists(_SCALARS, max_size=4)}, optional={"type": st.sampled_from(_TYPES)}),
    st.fixed_dictionaries({"const": _SCALARS}, optional={"type": st.sampled_from(_TYPES)}),
    st.fixed_dictionaries({"type": st.just("string")}, optional={
        "minLength": _COUNTS, "maxLength": _COUNTS, "format": st.sampled_from(["date", "date-time", "uuid", "email"])}),
    st.fixed_dictionaries({"$ref": st.sampled_from(["#", "#/$defs/a", "#/properties/x", "#/items", "#/anyOf/0"])}),
)


def _composite(children):
    return st.one_of(
        st.fixed_dictionaries({"properties": st.dictionaries(_NAMES, children, max_size=4)}, optional={
            "type": st.just("object"), "required": st.lists(_NAMES, max_size=3),
            "additionalProperties": st.one_of(st.booleans(), children)}),
        st.fixed_dictionaries({"anyOf": st.lists(children, max_size=3)}),
        st.fixed_dictionaries({"oneOf": st.lists(children, max_size=3)}),
        st.fixed_dictionaries({"allOf": st.lists(children, max_size=3)}, optional={"type": st.just("object")}),
        st.fixed_dictionaries({"items": children}, optional={"type": st.just("array"), "minItems": _COUNTS,
                                                             "maxItems": _COUNTS}),
        st.fixed_dictionaries({"prefixItems": st.lists(children, max_size=3)}, optional={"items": st.just(False)}),
        st.fixed_dictionaries({"$defs": st.fixed_dictionaries({"a": children})}, optional={
            "$ref": st.just("#/$defs/a"), "properties": st.dictionaries(st.sampled_from(["x", "y"]), children)}),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=st.recursive(_LEAVES, _composite, max_leaves=12))
def test_a_schema_is_refused_in_words_or_becomes_a_grammar_llama_cpp_parses(gguf, schema):
    # llama.cpp crashes on a grammar it cannot parse: the checks must leave no schema that gets that far
    model = load_model("gemma3:270m", 1024, 1)
    try:
        model.grammar(schema)
    except SchemaError as exc:
        assert "cannot parse" not in str(exc) and "cannot translate" not in str(exc), json.dumps(schema)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_checks_leave_the_experiment_s_grammars_as_they_were(task):
    # the calls of a run are reproducible from their seeds: the answer schema's grammar must not change
    json_schema_to_gbnf = pytest.importorskip("llama_cpp.llama_grammar").json_schema_to_gbnf
    schema = json.loads(json.dumps(dict(answer_schema(TASKS[task].answers))))
    assert grammar_text(checked_schema(schema)) == json_schema_to_gbnf(json.dumps(schema))


def test_the_grammar_cache_of_a_model_is_bounded(gguf):
    model = load_model("gemma3:270m", 1024, 1)
    schemas = [{"type": "array", "items": {"type": "integer"}, "minItems": n, "maxItems": 1000} for n in range(40)]
    grammars = [model.grammar(s) for s in schemas]
    assert len(model._grammars) == GRAMMAR_CACHE_SIZE
    assert model.grammar(schemas[-1]) is grammars[-1]  # the latest are kept...
    assert model.grammar(schemas[0]) is not grammars[0]  # ...the oldest were dropped


# -- item 3: Content-Length that is not a length, and request smuggling ------------------------------------

SMUGGLED = b"GET /api/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.mark.parametrize("framing, status", [
    (b"Content-Length: abc\r\n", 400),
    (b"Content-Length: 1e11\r\n", 400),
    (b"Content-Length: 100000000000\r\n", 413),
    (b"Content-Length: " + b"9" * 5000 + b"\r\n", 413),
    (b"Content-Length: -5\r\n", 400),
    (b"Content-Length: +5\r\n", 400),
    (b"Content-Length: 5, 5\r\n", 400),
    (b"Content-Length: 2\r\nContent-Length: 2\r\n", 400),
    (b"Transfer-Encoding: chunked\r\n", 411),
    (b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", 411),
])
def test_a_body_length_that_cannot_be_trusted_is_refused_and_the_connection_closed(server, framing, status):
    mark = server.mark()
    reply = _exchange(server.port, b"POST /api/generate HTTP/1.1\r\nHost: x\r\n" + framing + b"\r\n" + SMUGGLED)
    # one answer, then the connection closed: what followed the head is never read as a request
    assert _status(reply) == status and reply.count(b"HTTP/1.1 ") == 1 and reply.endswith(b"}")
    assert b"Connection: close" in reply
    lines = server.lines(mark)
    assert len(lines) == 1 and f" {status}: " in lines[0] and "smuggled" not in lines[0]
    server.check_alive()


def test_a_keep_alive_connection_reads_exactly_its_bodies(server):
    body = json.dumps({"model": "gemma3:270m"}).encode()
    # a length with 5000 leading zeros is still a plain decimal length (Python's int() refuses 4300 digits)
    reply = _exchange(server.port, b"POST /api/show HTTP/1.1\r\nHost: x\r\nContent-Length: %s%d\r\n\r\n%s"
                      b"GET /api/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                      % (b"0" * 5000, len(body), body))
    first, second = reply.split(b"HTTP/1.1 ")[1:]
    assert first.startswith(b"200") and b'"details"' in first
    assert second.startswith(b"200") and second.endswith(b'{"version": "0.0.0-certify"}')


@pytest.mark.parametrize("head, status", [
    (b"GET / HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\n" + b"X: a\r\n" * 70 + b"\r\n", 431),
    (b"GET / HTTP/2.0\r\n\r\n", 400),
    (b"GET /\r\n\r\n", 400),
    (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 400),  # a TLS hello on the plain port
    (b"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),
    (b"DELETE /api/delete HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"POST /api/show HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Length: 2\r\n\r\n{}", 417),
])
def test_a_malformed_head_is_a_4xx_and_one_line(server, head, status):
    mark = server.mark()
    reply = _exchange(server.port, head)
    assert _status(reply) == status and reply.count(b"HTTP/1.1 ") == 1
    assert len(server.lines(mark)) == 1
    server.check_alive()


# -- item 4: connections that send half a header ---------------------------------------------------------


def test_half_headers_hold_no_worker_and_connections_beyond_the_limit_get_503(server):
    mark = server.mark()
    held = []
    try:
        # The issue's 400 connections, as many as the default limit (256) lets be open at once.
        for _ in range(250):
            held.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
            held[-1].sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Half: ")
        r = httpx.get(server.url + "/", timeout=30)
        assert r.status_code == 200 and r.text == "Ollama is running"
        # 20 more, one after the other, each with a whole request and kept open: the 6 free places
        # are served (and stay taken), every connection beyond them gets 503 at once
        statuses = []
        for _ in range(20):
            held.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
            held[-1].sendall(b"GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n")
            statuses.append(_status(held[-1].recv(4096)))
        assert set(statuses) <= {200, 503} and statuses.count(503) >= 14, statuses
    finally:
        for s in held:
            s.close()
    lines = server.lines(mark)
    assert all(" 503: 256 connections already open (the limit)" in line for line in lines), lines[:3]
    server.check_alive()


@pytest.fixture
def quick_server(gguf, tmp_path):
    """A server with a 1-second timeout and room for 4 connections."""
    yield from _serve(tmp_path, "--timeout", "1", "--max-connections", "4")


def test_a_stalled_client_times_out_and_its_place_is_freed(quick_server):
    port = quick_server.port
    mark = quick_server.mark()
    # half a head, half a body: 408 and closed; an idle connection: closed without a word
    reply = _exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Half: ")
    assert _status(reply) == 408 and b"Connection: close" in reply and b"<still open>" not in reply
    reply = _exchange(port, b"POST /api/show HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\"")
    assert _status(reply) == 408 and b"<still open>" not in reply
    assert _exchange(port, b"") == b""
    lines = quick_server.lines(mark)
    assert len(lines) == 2 and all(" 408: " in line for line in lines), lines
    # 4 stalled clients fill the places; once they time out, an ordinary request is served again
    stalled = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(4)]
    try:
        for s in stalled:
            s.sendall(b"GET / HTTP/1.1\r\n")
        assert _status(_exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")) == 503
        assert all(_status(s.recv(4096)) == 408 for s in stalled)
    finally:
        for s in stalled:
            s.close()
    quick_server.check_alive()


# -- item 5: option ranges, and bodies of the wrong shape --------------------------------------------------


@pytest.mark.parametrize("options, words", [
    ({"temperature": -0.5}, "options.temperature=-0.5 must be a number >= 0"),
    ({"temperature": "0.5"}, "options.temperature=\"0.5\" must be a number >= 0"),
    ({"top_p": 0}, "options.top_p=0 must be a number in (0, 1]"),
    ({"top_p": 1.5}, "options.top_p=1.5 must be a number in (0, 1]"),
    ({"top_k": -1}, "options.top_k=-1 must be an integer from 0"),
    ({"top_k": 2.5}, "options.top_k=2.5 must be an integer from 0"),
    ({"num_predict": 0}, f"options.num_predict=0 must be -1, -2 or an integer from 1 to {MAX_NUM_PREDICT}"),
    ({"num_predict": 10**7}, "options.num_predict=10000000 must be -1, -2 or an integer"),
    ({"seed": -1}, "options.seed=-1 must be an integer from 0 to 4294967294"),
    ({"seed": 2**32 - 1}, "options.seed=4294967295 must be an integer from 0 to 4294967294"),
    ({"seed": True}, "options.seed=true must be an integer"),
    ([1, 2], "options=a list of 2 values must be a JSON object"),
])
def test_an_option_out_of_range_is_a_400(server, options, words):
    # choice mode: a negative temperature used to invert the answer law ("Yes" 21/30 against 4/30 at +0.5)
    _refused_once(server, {"model": "gemma3:270m", "prompt": PROMPT, "format": SCHEMA, "stream": False,
                           "options": options}, 400, words)


@pytest.mark.parametrize("path, body, words", [
    ("/api/show", b"[1, 2]", "request body must be a JSON object, not a list of 2 values"),
    ("/api/show", b"{\"model\": 5}", "model=5 must be a string"),
    ("/api/generate", b"[]", "request body must be a JSON object"),
    ("/api/generate", b"{\"model\": \"gemma3:270m\", \"prompt\": \"hi\", \"options\": {\"top_p\": NaN}}",
     "NaN is not JSON"),
    ("/api/generate", b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    ("/api/generate", b"{\"model\": \"gemma3:270m\", \"prompt\": \"hi\", \"system\": \"Be brief.\"}",
     "system is not supported"),
    ("/api/generate", b"{\"model\": \"gemma3:270m\", \"prompt\": \"hi\", \"format\": [1]}",
     "format=a list of 1 value must be"),
])
def test_a_body_of_the_wrong_shape_is_a_400(server, path, body, words):
    mark = server.mark()
    r = httpx.post(server.url + path, content=body, timeout=60)
    assert r.status_code == 400 and words in r.json()["error"]
    assert len(server.lines(mark)) == 1


def test_a_prompt_longer_than_the_context_is_a_400(server):
    long = "word " * 1500  # about 1500 tokens, the server's context is 1024
    for body in ({"model": "gemma3:270m", "prompt": long, "format": SCHEMA, "stream": False},  # choice pass
                 {"model": "gemma3:270m", "prompt": long, "raw": True, "stream": False}):  # generation
        _refused_once(server, body, 400, "tokens; the context holds 1024 (n_ctx)")
    server.check_alive()


# -- item 6: CLI options out of range --------------------------------------------------------------------


@pytest.mark.parametrize("option, value, words", [
    ("--port", "70000", "port=70000 must be an integer <= 65535"),
    ("--port", "-1", "port=-1 must be an integer >= 0"),
    ("--threads", "-2", "threads=-2 must be an integer >= 0"),
    ("--threads", "1_0", "threads='1_0' must be an integer (plain digits)"),
    ("--max-connections", "0", "max-connections=0 must be an integer >= 1"),
    ("--timeout", "1e3", "timeout='1e3' must be an integer (plain digits)"),
])
def test_a_cli_option_out_of_range_is_refused_before_the_model_loads(option, value, words):
    # the model named does not exist: a refusal that names the option came before any model was looked at
    out = cli("serve-ollama", option, value, "--model", "/nonexistent/model.gguf", timeout=60)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [f"certify serve-ollama: error: argument {option}: {words}"]
