"""The documentation site: it builds with warnings as errors, and its examples run.

* ``test_site_builds_without_warnings``: ``sphinx-build -W --keep-going -b html docs OUT``,
  the API reference generated from the numpydoc docstrings, the command-line reference
  from the argparse parser, the JSON Schema pages from ``certify/schemas``.
* The examples of the pages are collected from ``docs/`` by sybil (``docs/conftest.py``);
  README.md's console sessions and Python blocks run here, by the same machinery
  (``docs/_ext/doc_examples.py``).
* The ``>>>`` examples of the docstrings run (doctest): the API pages show them.
* Every fenced block that is not run is marked on the line before it with why.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("sybil")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from doc_examples import readme_sybil  # noqa: E402

#: fenced blocks that hold data or a file's text, not a command to run
DATA_LANGUAGES = {"json", "toml", "text", "csv", "yaml", "sql", "markdown"}
#: languages run by the docs tests
RUN_LANGUAGES = {"console", "python"}


def test_site_builds_without_warnings(tmp_path):
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-6000:]
    cli = html.unescape(re.sub(r"<[^>]+>", "", (out / "reference" / "cli.html").read_text(encoding="utf-8")))
    assert "--votes" in cli and "\u2013votes" not in cli  # options as typed, not typeset
    for command in ("bounds", "analyze", "certificate", "verify", "plan", "experiment", "serve-ollama", "demo"):
        assert f"certify {command}" in cli, command
    api = out / "reference" / "api" / "generated"
    assert (api / "certify.sharp_bounds.html").is_file() and (api / "certify.aggregates.aggregate_intervals.html").is_file()
    schemas = (out / "reference" / "schemas.html").read_text(encoding="utf-8")
    for path in sorted((ROOT / "certify" / "schemas").glob("*.json")):
        assert f"certify/schemas/{path.name}" in schemas, path.name


def test_docstring_examples_run():
    """The ``>>>`` examples of the docstrings, which the API reference shows."""
    import doctest
    import importlib

    modules = []
    for path in sorted((ROOT / "certify").rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            modules.append(importlib.import_module(name))
    attempted = 0
    for module in modules:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted > 0


def _readme_examples():
    document = readme_sybil().parse(ROOT / "README.md")
    return document, list(document.examples())


def test_readme_examples_run():
    """README.md's console sessions (output compared) and Python blocks, in order, in one namespace."""
    document, examples = _readme_examples()
    assert examples, "README.md has no example that runs"
    sybil = readme_sybil()
    sybil.setup(document.namespace)
    try:
        for example in examples:
            example.evaluate()
    finally:
        sybil.teardown(document.namespace)


def _fences(text: str):
    """(language, line number, previous non-blank line) of each top-level fenced block of a page."""
    lines = text.splitlines()
    i, out = 0, []
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})(.*)$", lines[i])
        if m:
            fence, info = m.group(1), m.group(2).strip()
            previous = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            out.append((info, i + 1, previous))
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                i += 1
        i += 1
    return out


def test_every_block_that_is_not_run_says_why():
    pages = sorted(DOCS.rglob("*.md"))
    pages = [p for p in pages if "_build" not in p.parts and "generated" not in p.parts]
    assert len(pages) > 10
    for page in pages:
        for info, line, previous in _fences(page.read_text(encoding="utf-8")):
            where = f"{page.relative_to(ROOT)}:{line}"
            if info.startswith("{") or info in RUN_LANGUAGES or info in DATA_LANGUAGES:
                continue
            assert info == "shell", f"{where}: a fenced block of language {info!r}: use console (run) or shell (marked)"
            assert previous.startswith("% not executed: "), f"{where}: a shell block is not run: say why on the line before"
