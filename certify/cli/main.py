"""Entry point of the ``certify`` command.

Each command lives in its own module that exposes ``register(subparsers)``; the
module's ``run(args)`` returns the process exit code. Errors of the caller's making
(:class:`certify.InputError`) exit with code 2 and one line on stderr; other
:class:`certify.CertifyError` exit with code 1. No traceback reaches the user: not for
Ctrl-C at any moment (the command's imports of numpy and scipy included: this module and
``import certify`` load nothing heavy, so :func:`main` is running within milliseconds),
a reader of standard output that went away, a closed standard stream or an output
encoding that cannot write a name. Every message line goes through
:func:`certify.cli._output.printable`.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import pkgutil
import sys
from pathlib import Path

from .._errors import CertifyError, InputError
from .._version import package_version
from ._output import printable

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
        self.exit(2, f"{self.prog}: error: {printable(message)}\n")


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
    parser = _Parser(
        prog="certify",
        description="Sharp two-moment certificates for majority voting over repeated LLM calls.",
    )
    parser.add_argument("--version", action="version", version=f"certify {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in [only] if only else command_modules():
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


#: Environment variables that set the BLAS thread pools numpy and scipy load (OpenBLAS, MKL).
#: The solvers' matrices are small (cells x atoms, at most 2,001 rows): a second BLAS thread
#: has no work to share, and on a machine another job shares it spins against that job (a
#: forecast 2.3 to 7.9 times slower beside one or two busy processes, benchmarks/RESULTS.md,
#: "One BLAS thread"). Not OpenMP's OMP_NUM_THREADS: the embedded model's inference
#: (llama.cpp) uses it.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def run() -> int:
    """The ``certify`` command: :func:`main` in a process whose BLAS uses one thread.

    Each variable of :data:`BLAS_THREAD_VARIABLES` the caller has not set is set to 1 before any
    command imports numpy (this module imports nothing heavy); one set by the caller stands.
    The console script and ``python -m certify.cli.main`` run this; :func:`main` itself, called in
    a process of the caller's, leaves that process's environment alone.
    """
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    return main()


def main(argv: list[str] | None = None) -> int:
    """Run one ``certify`` command (module docstring); the process exit code.

    Everything runs inside one handler, the import of the command's module included, so
    that Ctrl-C ends with one line and exit code 130 whenever it comes.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    args = None
    try:
        if not _standard_streams():
            _say(f"{_name(args, argv)}: error: standard output is closed; redirect it to a file or to /dev/null")
            return 1
        parser = build_parser(requested_module(argv))
        args = parser.parse_args(argv)
        code = args.run(args)
        sys.stdout.flush()  # inside the try: a full disk or a closed pipe on stdout is reported here
    except InputError as exc:
        _say(f"{_name(args, argv)}: error: {exc}")
        return 2
    except CertifyError as exc:
        _say(f"{_name(args, argv)}: failed: {exc}")
        return 1
    except KeyboardInterrupt:
        hint = getattr(args, "on_interrupt", None)  # commands that resume say how
        _say(f"{_name(args, argv)}: interrupted" + (f"; {hint}" if hint else ""))
        try:
            sys.stdout.flush()
        except (OSError, ValueError):  # Ctrl-C ended the reader of a pipe too (``certify ... | less``)
            _drop_stdout()
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
        _say(f"{_name(args, argv)}: error: {where}{exc.strerror or exc}")
        return 2
    return int(code or 0)


def _name(args, argv: list[str]) -> str:
    """``certify COMMAND`` for a message: the command parsed, else the one named on the command line."""
    command = getattr(args, "command", None)
    if command is None and requested_module(argv) is not None:
        command = next(a for a in argv if not a.startswith("-"))
    return "certify" if command is None else f"certify {command}"


def _say(line: str) -> None:
    """One message line on stderr (:func:`printable`); nothing when stderr cannot be written."""
    try:
        print(printable(line), file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr is a closed pipe, or was closed: the exit code still tells
        pass


def _standard_streams() -> bool:
    """Make stdout and stderr safe to write to; False when stdout is closed.

    A stream closed when the process started (``certify ... >&-``) is ``None`` in :mod:`sys`.
    A closed stderr becomes the null device, on descriptor 2, so that no file the command opens
    takes that number and receives what is written there. With stdout closed the command's
    result has nowhere to go: it does not run. Text the streams' encoding cannot write (an
    ASCII-only ``PYTHONIOENCODING`` or locale, with names in other scripts) is written with
    backslash escapes (``\\xe9``) instead of failing; JSON is ASCII already.
    """
    if sys.stderr is None:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 2:
            os.dup2(null, 2)
            os.close(null)
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
    if sys.stdout is None:
        return False
    for stream in (sys.stdout, sys.stderr):
        # "strict" fails on such a character, and so do "surrogateescape" and "surrogatepass",
        # which only pass lone surrogates (printable() escapes those before they are written)
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape", "surrogatepass"):
            stream.reconfigure(errors="backslashreplace")
    return True


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of unwritable output is silent."""
    try:
        devnull = open(os.devnull, "w")
        os.dup2(devnull.fileno(), sys.stdout.fileno())
        sys.stdout = devnull
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
