"""``certify serve-ollama``: an Ollama-API-compatible server over the embedded model."""

from __future__ import annotations

import signal
import sys

from ._args import as_argument_type, parse_int

__all__ = ["register"]

# The integer options: (lowest, highest, default, help). Their ranges are those OllamaServer
# accepts, checked here too so that a bad option is refused before the model loads
# (certify.experiment is imported only to serve). --n-ctx and --instances are only read as
# integers here: their one rule, what the model and this machine hold, is
# certify.experiment.check_embedded_capacity, called in _run before loading.
_INT_OPTIONS = {
    "--port": (0, 65535, 11434, "port, 0 to 65535 (default 11434; 0 picks a free one)"),
    "--instances": (
        1,
        2**31 - 1,
        1,
        "model copies serving requests in parallel (default 1; at most the CPU cores, within memory)",
    ),
    "--threads": (0, 1024, 0, "threads per instance, 0 to 1024 (default 0: half the cores)"),
    "--n-ctx": (1, 2**31 - 1, 2048, "context length per instance (default 2048; 256 to 32768, within memory)"),
    "--max-connections": (1, 4096, 256, "connections served at once, 1 to 4096 (default 256); the ones beyond get 503"),
    "--timeout": (
        1,
        3600,
        10,
        "seconds for each stage of reading a request and of sending its answer, 1 to 3600 (default 10)",
    ),
}


def register(subparsers) -> None:
    """Add the ``serve-ollama`` command."""
    p = subparsers.add_parser(
        "serve-ollama",
        help="serve the embedded model over Ollama's /api/generate and /api/tags",
        description="Serve the embedded Gemma 3 270M (or a GGUF) with Ollama's HTTP API.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--model", default="gemma3:270m", help="gemma3:270m (packaged) or a GGUF path")
    p.add_argument("--name", default="gemma3:270m", help="model name clients ask for")
    p.add_argument(
        "--mode",
        choices=("generate", "choice"),
        default="generate",
        help="choice: answer single-enum schemas from one prompt pass",
    )
    for option, (low, high, default, text) in _INT_OPTIONS.items():
        # argparse names the option ("argument --port: ..."); the message names the value and the range
        p.add_argument(option, type=as_argument_type(parse_int, option[2:], low, high), default=default, help=text)
    p.set_defaults(run=_run)


def _run(args) -> int:
    from ..experiment import OllamaServer, check_embedded_capacity

    # Before any model is loaded: a context or a number of instances this machine cannot hold is one line.
    check_embedded_capacity(args.n_ctx, args.instances, "--n-ctx", "--instances")
    server = OllamaServer(
        args.host,
        args.port,
        model=args.model,
        name=args.name,
        mode=args.mode,
        instances=args.instances,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        max_connections=args.max_connections,
        timeout=args.timeout,
    )
    host, port = server.server_address[:2]
    host = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL
    # SIGTERM shuts down like Ctrl-C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(f"serving {args.name} ({args.mode} mode) on http://{host}:{port}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print(f"served {server.served} generate requests", file=sys.stderr)
    return 0
