"""``certify serve-ollama``: an Ollama-API-compatible server over the embedded model."""

from __future__ import annotations

import signal
import sys

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``serve-ollama`` command."""
    p = subparsers.add_parser(
        "serve-ollama",
        help="serve the embedded model over Ollama's /api/generate and /api/tags",
        description="Serve the embedded Gemma 3 270M (or a GGUF) with Ollama's HTTP API.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=11434, help="port (default 11434; 0 picks a free one)")
    p.add_argument("--model", default="gemma3:270m", help="gemma3:270m (packaged) or a GGUF path")
    p.add_argument("--name", default="gemma3:270m", help="model name clients ask for")
    p.add_argument("--mode", choices=("generate", "choice"), default="generate",
                   help="choice: answer single-enum schemas from one prompt pass")
    p.add_argument("--instances", type=int, default=1, help="model copies serving requests in parallel")
    p.add_argument("--threads", type=int, default=0, help="threads per instance (0: half the cores)")
    p.add_argument("--n-ctx", type=int, default=2048, help="context length per instance")
    p.set_defaults(run=_run)


def _run(args) -> int:
    from ..experiment import OllamaServer

    server = OllamaServer(args.host, args.port, model=args.model, name=args.name, mode=args.mode,
                          instances=args.instances, n_ctx=args.n_ctx, n_threads=args.threads)
    host, port = server.server_address[:2]
    # SIGTERM shuts down like Ctrl-C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(f"serving {args.name} ({args.mode} mode) on http://{host}:{port}", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print(f"served {server.served} generate requests", file=sys.stderr)
    return 0
