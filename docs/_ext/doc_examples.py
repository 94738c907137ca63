"""How the examples of the documentation and of README.md are executed (sybil).

Two kinds of example are run, each in a fresh working directory per document (a
temporary directory holding links ``examples`` and ``benchmarks`` to the repository's
  folders), so
that what one example writes (a certificate, a report) is there for the next examples of
the same page and nowhere else:

* **console sessions**: a fenced block of language ``console`` (in README.md also a block
  without a language whose first line starts with ``$``). Each line starting with ``$ `` is
  a command (a line ending in ``\\`` continues it) run by bash; the lines up to the next
  command are its expected output, standard output and standard error together as a
  terminal shows them. ``...`` in the expected output matches any text (doctest's
  ELLIPSIS), the only normalization: it stands where a value truly varies (a time, a path
  outside the working directory, a date). A command must exit 0; an example of an error
  shows the exit code itself (``certify verify bad.json || echo "exit code $?"``);
* **Python**: a fenced block of language ``python``; a block of ``>>>`` lines is a doctest
  (ELLIPSIS and NORMALIZE_WHITESPACE), any other block is executed. The blocks of one page
  share one namespace, in order.

Any other fenced block is not executed: data (``json``, ``toml``, ``text``) or a command
that cannot run here (``shell``), which a page marks right before it with a MyST comment
``% not executed: ...`` saying why and which test covers it (``tests/test_docs.py``
checks that every such block is marked).
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sybil import Sybil
from sybil.parsers.abstract.lexers import LexerCollection
from sybil.parsers.markdown import PythonCodeBlockParser as MarkdownPythonParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer
from sybil.parsers.myst import PythonCodeBlockParser as MystPythonParser

ROOT = Path(__file__).resolve().parents[2]
#: seconds one command of a console session may take
COMMAND_TIMEOUT = 120
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_CHECKER = doctest.OutputChecker()


def parse_session(text: str) -> list[tuple[str, str]]:
    """[(command, expected output)] of a console block."""
    steps: list[list] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + "\n" + lines[i]
            steps.append([command, []])
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"a console block must start with a '$ ' command line, not {line!r}")
        i += 1
    return [(c, "\n".join(out).rstrip()) for c, out in steps]


def _environment() -> dict:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.update({"COLUMNS": "100", "LC_ALL": "C.UTF-8", "TQDM_DISABLE": "1", "MPLBACKEND": "Agg",
                "PYTHONWARNINGS": "ignore::DeprecationWarning"})
    env.pop("PYTHONPATH", None)
    return env


def _normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def run_session(source: str, cwd: str) -> None:
    """Run each command of a console block in ``cwd``; fail on the first output that differs."""
    for command, expected in parse_session(source):
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=_environment(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT)
        got = _normalize(proc.stdout)
        if proc.returncode != 0:
            raise AssertionError(f"$ {command}\nexited with code {proc.returncode}:\n{got}")
        want = _normalize(expected)
        if not _CHECKER.check_output(want + "\n", got + "\n", doctest.ELLIPSIS):
            raise AssertionError(f"$ {command}\n--- expected ---\n{want}\n--- got ---\n{got}")


class _Console:
    """Sybil parser of console sessions (fenced blocks of language ``console``)."""

    def __init__(self, lexer, bare: bool = False):
        self.lexers = LexerCollection([lexer])
        self.bare = bare

    def __call__(self, document):
        for region in self.lexers(document):
            language = region.lexemes["language"].strip()
            source = region.lexemes["source"]
            if language == "console" or (self.bare and language == "" and source.startswith("$ ")):
                region.parsed = str(source)
                region.evaluator = self.evaluate
                yield region

    @staticmethod
    def evaluate(example):
        run_session(example.parsed, example.namespace["cwd"])


def _fence_lexer():
    return RawFencedCodeBlockLexer(info_pattern=re.compile(r"(?P<language>[^\n{]*)$\n", re.MULTILINE),
                                   mapping={"language": "language", "source": "source"})


def _setup(namespace: dict) -> None:
    cwd = tempfile.mkdtemp(prefix="certify-docs-")
    for name in ("examples", "benchmarks"):
        os.symlink(ROOT / name, Path(cwd) / name)
    namespace["cwd"] = cwd
    namespace["_previous_cwd"] = os.getcwd()
    os.chdir(cwd)  # Python examples see the same working directory as the console sessions


def _teardown(namespace: dict) -> None:
    os.chdir(namespace.pop("_previous_cwd"))
    shutil.rmtree(namespace.pop("cwd"), ignore_errors=True)


def docs_sybil(**kw) -> Sybil:
    """The pages of docs/ (MyST Markdown)."""
    return Sybil(parsers=[_Console(_fence_lexer()), MystPythonParser(doctest_optionflags=_FLAGS)],
                 patterns=["*.md"], setup=_setup, teardown=_teardown, path=str(ROOT / "docs"), **kw)


def readme_sybil(**kw) -> Sybil:
    """README.md (CommonMark): ``console`` blocks and bare blocks that start with ``$``."""
    return Sybil(parsers=[_Console(_fence_lexer(), bare=True), MarkdownPythonParser(doctest_optionflags=_FLAGS)],
                 patterns=["README.md"], setup=_setup, teardown=_teardown, path=str(ROOT), **kw)
