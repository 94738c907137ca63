"""Entry point of the ``certify`` command.

Each command lives in its own module that exposes ``register(subparsers)``; the
module's ``run(args)`` returns the process exit code. Errors of the caller's making
(:class:`certify.InputError`) exit with code 2 and one line on stderr; other
:class:`certify.CertifyError` exit with code 1. No traceback reaches the user.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .._errors import CertifyError, InputError

#: Command modules, in the order ``certify --help`` lists them.
COMMAND_MODULES = ("bounds", "experiment", "serve_ollama")


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(
        prog="certify",
        description="Sharp two-moment certificates for majority voting over repeated LLM calls.",
    )
    parser.add_argument("--version", action="version", version=f"certify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
    except InputError as exc:
        print(f"certify {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except CertifyError as exc:
        print(f"certify {args.command}: failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"certify {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
