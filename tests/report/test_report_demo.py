"""End to end: `certify demo` on a tiny embedded run, the report's files, determinism, CLI errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"

CONFIG = """
[experiment]
name = "tiny"
store = "runs/tiny.sqlite"
repeats = 5

[[datasets]]
name = "parity"
n = 12
seed = 20260003

[backends.embedded]
mode = "choice"
n_ctx = 1024

[defaults]
backend = "embedded"
model = "gemma3:270m"
top_p = 0.95
num_predict = 16

[[policies]]
name = "t0.5"
temperature = 0.5
seed_base = 11

[[policies]]
name = "t2.0"
temperature = 2.0
seed_base = 12
"""


def cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", LAUNCH, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    pytest.importorskip("llama_cpp")
    pytest.importorskip("matplotlib")
    from certify.experiment import resolve_model_path

    resolve_model_path("gemma3:270m")
    d = tmp_path_factory.mktemp("demo")
    (d / "tiny.toml").write_text(CONFIG)
    r = cli("demo", "--config", "tiny.toml", "--out", "rep", "--no-progress", cwd=d)
    assert r.returncode == 0, r.stderr[-3000:]
    return d, r


def test_demo_prints_report_path_and_summary(demo):
    d, r = demo
    assert "report: rep/report.md" in r.stdout
    assert "parity/t0.5" in r.stdout and "parity/t2.0" in r.stdout and "3 votes: 95% interval" in r.stdout
    assert "120 recorded now" in r.stdout
    # the same 3 calls three ways: majority of the bits, plurality of the answers, pass@3
    assert "majority of 3 (pp)" in r.stdout and "plurality of 3 (pp)" in r.stdout and "pass@3 (pp)" in r.stdout
    line = next(row for row in r.stdout.splitlines() if row.startswith("parity/t0.5"))
    assert line.count("[") == 4, line  # the 3-vote interval, then three gains


def test_report_directory_contents(demo):
    d, _ = demo
    rep = d / "rep"
    md = (rep / "report.md").read_text()
    for name in ("policy_table", "policy_interval_table", "more_calls", "se_range_table", "completion_error_table",
                 "mixture_gain_table", "mixture_accuracy_table", "mixture_optimum_table", "overtaking_table", "negative_table"):
        for ext in ("md", "csv", "tex"):
            assert (rep / "tables" / f"{name}.{ext}").stat().st_size > 0
        assert f"tables/{name}.csv" in md
    for name in ("width_maps", "votability_plane", "gain_map", "mixture_plane", "vote_curves"):
        png, pdf = rep / "figures" / f"{name}.png", rep / "figures" / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 5_000
        assert f"figures/{name}.png" in md
    # true V_n of the choice run is in the interval table
    assert "true (%)" in (rep / "tables" / "policy_interval_table.csv").read_text().splitlines()[0]
    # the answer model beyond the recorded calls, labelled, with its check against the recorded answers
    model = [line for line in md.splitlines() if line.startswith("Plurality accuracy beyond the recorded calls")]
    assert model and all("**not certified**" in line and "Check: at " in line and "21 calls " in line for line in model)


def test_certificates_back_the_intervals(demo):
    from certify import load_certificate, verify_certificate

    d, _ = demo
    index = json.loads((d / "rep" / "certificates" / "index.json").read_text())
    assert len(index) == 2 * 2 * 4 + 1  # 2 policies x budgets 3, 5 x 4 endpoints + the mixture optimum
    for item in index[:3] + index[-1:]:
        cert = load_certificate(d / "rep" / "certificates" / item["file"])
        assert verify_certificate(cert).ok
        assert float(cert.value) == pytest.approx(item["certified"])
        assert item["certified"] == pytest.approx(item["reported"], abs=1e-6)


def test_report_is_deterministic_and_resume_is_idempotent(demo):
    d, _ = demo
    r = cli("experiment", "report", "runs/tiny.sqlite", "-o", "again", "--no-progress", cwd=d)
    assert r.returncode == 0, r.stderr
    r2 = cli("demo", "--config", "tiny.toml", "--out", "third", "--no-progress", cwd=d)
    assert r2.returncode == 0 and "0 recorded now, 120 already" in r2.stdout
    for other in ("again", "third"):
        a = sorted(p.relative_to(d / "rep") for p in (d / "rep").rglob("*") if p.is_file())
        b = sorted(p.relative_to(d / other) for p in (d / other).rglob("*") if p.is_file())
        assert a == b
        for p in a:
            assert (d / "rep" / p).read_bytes() == (d / other / p).read_bytes(), p


def test_report_errors_are_one_line(tmp_path):
    r = cli("experiment", "report", "missing.sqlite", "-o", "x", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    (tmp_path / "bad.toml").write_text("[experiment\n")
    r = cli("demo", "--config", "bad.toml", "--no-progress", cwd=tmp_path)
    assert r.returncode == 2 and "not valid TOML" in r.stderr and len(r.stderr.strip().splitlines()) == 1
