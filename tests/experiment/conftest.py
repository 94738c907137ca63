"""Fixtures of the experiment tests: real servers started on loopback ports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from exp_helpers import LoggedServer, free_port, spawn, stop, wait_http
from native_probe import ProbeResult, run_probe


@pytest.fixture(scope="session")
def native_probe() -> ProbeResult:
    """One prompt pass and one generation of the packaged model in a child process."""
    pytest.importorskip("llama_cpp")
    return run_probe("gemma3:270m")


@pytest.fixture(scope="session")
def gguf(native_probe) -> Path:
    """The packaged Gemma 3 270M GGUF, assembled once into the cache.

    Tests that load the model in this process are skipped when the probe's child
    process crashed: the probe's own test fails with the signal, and the rest of the
    suite still runs.
    """
    if native_probe.crashed:
        pytest.skip("native llama.cpp crashed in the probe (see test_native_probe.py)")
    from certify.experiment import resolve_model_path

    return resolve_model_path("gemma3:270m")


def _serve_ollama(mode: str):
    port = free_port()
    proc = spawn("serve-ollama", "--port", str(port), "--mode", mode, "--threads", "1", "--n-ctx", "1024")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/api/tags", proc)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def ollama_choice_server(gguf):
    """``certify serve-ollama --mode choice`` on a free loopback port."""
    yield from _serve_ollama("choice")


@pytest.fixture(scope="session")
def ollama_generate_server(gguf):
    """``certify serve-ollama`` (schema-constrained generation) on a free loopback port."""
    yield from _serve_ollama("generate")


def _llama_server(gguf: Path, log: Path, *extra: str):
    """llama-cpp-python's OpenAI-compatible server on a free loopback port, its output to ``log``.

    The log (a file, so a chatty server never blocks on a full pipe) holds uvicorn's
    access lines (on stdout): tests read the requests certify made and their statuses there.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "gemma3-270m",
           "--host", "127.0.0.1", "--port", str(port), "--n_threads", "1", "--n_threads_batch", "1",
           "--verbose", "False", *extra]
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT, text=True)
    server = LoggedServer(f"http://127.0.0.1:{port}/v1", log)
    try:
        wait_http(server.url + "/models", proc)
        yield server
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def llama_openai_server(gguf, tmp_path_factory):
    """llama-cpp-python's server started as certify/experiment/README.md says (``--chat_format gemma``); its base URL."""
    log = tmp_path_factory.mktemp("llama_gemma") / "server.log"
    for server in _llama_server(gguf, log, "--chat_format", "gemma", "--n_ctx", "1024"):
        yield server.url


@pytest.fixture(scope="session")
def llama_default_server(gguf, tmp_path_factory):
    """llama-cpp-python's server with its defaults: the packaged GGUF names no chat template,
    so the server falls back to llama-2's. A :class:`LoggedServer`."""
    log = tmp_path_factory.mktemp("llama_default") / "server.log"
    yield from _llama_server(gguf, log, "--n_ctx", "512")
