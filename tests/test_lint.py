"""The package's code passes its linter, its formatter's check and its type checker (pyproject.toml).

Each tool runs as a user would run it, from the repository root, with the configuration in
pyproject.toml ([tool.ruff], [tool.ruff.lint], [tool.mypy]); a finding fails the test with the
tool's own report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "certify"],
        ["ruff", "format", "--check", "certify"],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_the_package_is_clean(command):
    run = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{' '.join(command)}:\n{run.stdout}{run.stderr}"


def test_a_finding_fails_the_check(tmp_path):
    """The check can fail: a module with an unused import and a wrong return type is reported by both tools."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f() -> int:\n    return 'x'\n")
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert ruff.returncode == 1 and "F401" in ruff.stdout
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file", "/dev/null", str(bad)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert mypy.returncode == 1 and "Incompatible return value type" in mypy.stdout
