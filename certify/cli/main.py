"""Entry point of the ``certify`` command.

Each command lives in its own module that exposes ``register(subparsers)``; the
module's ``run(args)`` returns the process exit code. Errors of the caller's making
(:class:`certify.InputError`) exit with code 2 and one line on stderr; other
:class:`certify.CertifyError` exit with code 1. No traceback reaches the user.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from pathlib import Path

from .._errors import CertifyError, InputError

#: Commands listed first in ``certify --help``; every other public module of this
#: package that defines ``register`` is a command too, listed after them by name.
COMMAND_ORDER = ("bounds",)


def command_modules() -> list[str]:
    """Names of the command modules: one public module per command in this package."""
    here = [str(Path(__file__).parent)]
    found = sorted(m.name for m in pkgutil.iter_modules(here) if not m.name.startswith("_") and m.name != "main")
    return [n for n in COMMAND_ORDER if n in found] + [n for n in found if n not in COMMAND_ORDER]


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def requested_module(argv: list[str]) -> str | None:
    """The command module named on the command line, if it is one (``serve-ollama`` -> ``serve_ollama``)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    name = first.replace("-", "_") if first else None
    return name if name in command_modules() else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``certify`` parser; with ``only``, just that command's module is imported.

    Command modules import what they run (statistics pull in scipy.stats, the
    experiment module an HTTP client), so a single command registers alone and
    ``certify bounds`` starts in well under a second; ``certify --help`` and
    unknown commands register all of them.
    """
    from .. import __version__

    parser = _Parser(
        prog="certify",
        description="Sharp two-moment certificates for majority voting over repeated LLM calls.",
    )
    parser.add_argument("--version", action="version", version=f"certify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in [only] if only else command_modules():
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(requested_module(argv))
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # inside the try: a full disk or a closed pipe on stdout is reported here
    except InputError as exc:
        print(f"certify {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except CertifyError as exc:
        print(f"certify {args.command}: failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        hint = getattr(args, "on_interrupt", None)  # commands that resume say how
        print(f"certify {args.command}: interrupted" + (f"; {hint}" if hint else ""), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``certify ... | head``): stop quietly, as Unix tools do.
        _drop_stdout()
        sys.stderr.close()
        return 141
    except OSError as exc:
        # The system refused a read or a write the command had checked it could make (a full
        # disk, a name too long, a permission): one line naming the file, not a traceback.
        # An OSError without a file name comes from a write to standard output (a path the
        # command opened is always named).
        where = f"{exc.filename}: " if exc.filename else "standard output: "
        _drop_stdout()
        print(f"certify {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    return int(code or 0)


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of unwritable output is silent."""
    try:
        devnull = open(os.devnull, "w")
        os.dup2(devnull.fileno(), sys.stdout.fileno())
        sys.stdout = devnull
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
