"""The checker's work budget (certify/certificates/_budget.py): hostile certificates are refused at once,
genuine ones at the largest size certify writes are checked.

Hostile files (tests/fuzz_inputs.py: a V3 certificate claiming V10001, K = 10000 calls, a
5000-digit atom, 20000 cells, ...) used to run for minutes and gigabytes; each is now refused
right after parsing, in a fresh process, with one line naming the value and the limit (exit 2).
The time each takes is printed, not asserted (a loaded machine says little); the subprocess
timeout only turns a hang into a failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from certify.certificates import MAX_DEGREE, build_likelihood_certificate, certify_bound, dump, to_json, verify
from certify.certificates._budget import MAX_CALLS, MAX_DIGITS, MAX_LAGRANGIAN_COST, check_budget, lagrangian_cost, objective_degree
from certify.certificates._checking import CheckFailed
from certify.cli.main import main

from .fuzz_inputs import GENUINE_LIKELIHOOD, GENUINE_SHARP, HOSTILE_CERTIFICATES, costly_lagrangian, huge_calls, huge_degree, huge_digits

ROOT = Path(__file__).resolve().parent.parent
#: Seconds before a check counts as a hang: refusals take 1-3 s; the slow genuine checks take minutes.
TIMEOUT = 900


def _verify(path: Path) -> tuple[subprocess.CompletedProcess, float]:
    cmd = [sys.executable, "-m", "certify.cli.main", "verify", str(path)]
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return r, time.perf_counter() - start


@pytest.mark.parametrize("name", list(HOSTILE_CERTIFICATES))
def test_hostile_certificate_is_refused_in_one_line(tmp_path, name):
    cert, says = HOSTILE_CERTIFICATES[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(cert))
    r, seconds = _verify(path)
    print(f"{name}: {path.stat().st_size} bytes refused in {seconds:.2f} s (process start included)")
    assert r.returncode == 2 and r.stderr == "" and len(r.stdout.splitlines()) == 1, (r.stdout[:300], r.stderr[-300:])
    assert r.stdout.startswith(f"{path}: REFUSED work_limit: ") and says in r.stdout
    assert "exceeds the checker's work limit of" in r.stdout and len(r.stdout) < 400


def test_the_budget_reads_the_shape_only():
    assert objective_degree(huge_degree(10001)["objective"]) == 10001
    assert objective_degree({"degree": True, "majority": [{"n": "5000"}, 7], "bernstein": ["1/1"] * 12}) == 11
    assert objective_degree(None) == 0
    for genuine in (GENUINE_SHARP, GENUINE_LIKELIHOOD):
        check_budget(genuine)  # nothing to refuse
        assert verify(genuine).ok
    check_budget(huge_digits(MAX_DIGITS))  # at the limit itself: passes the budget (and fails later checks)
    with pytest.raises(CheckFailed, match=f"digits of an exact number = {MAX_DIGITS + 1} "):
        check_budget(huge_digits(MAX_DIGITS + 1))
    check_budget(huge_calls(MAX_CALLS))
    with pytest.raises(CheckFailed, match=f"calls K = {MAX_CALLS + 1} "):
        check_budget(huge_calls(MAX_CALLS + 1))
    # the Lagrangian: K x (binomial digits 0.3 K + 39 of the rounded weight) per cell; 300 cells of K = 2000 fit, 320 do not
    assert lagrangian_cost([MAX_CALLS, 10]) == MAX_CALLS * (603 + 39) + 10 * (4 + 39)
    check_budget(costly_lagrangian(cells=300))
    with pytest.raises(CheckFailed, match=f"the Lagrangian's cost estimate .* exceeds the checker's work limit of {MAX_LAGRANGIAN_COST}"):
        check_budget(costly_lagrangian(cells=320))
    for malformed in ([], "text", {"schema_version": "1", "objective": 3, "law": [], "dual": None}, {"schema_version": 7}):
        check_budget(malformed)  # left to the structure checks


def test_certificate_command_stops_at_the_checkers_degree(capsys):
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", str(MAX_DEGREE + 2), "--side", "upper"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"more than the limit of {MAX_DEGREE}" in err


@pytest.mark.slow
def test_a_certificate_of_the_largest_degree_certify_writes_verifies(tmp_path):
    """V4001 (certify certificate's largest budget): built, then checked in a fresh process within the budget."""
    start = time.perf_counter()
    path = dump(certify_bound(MAX_DEGREE, "upper", mu="0.7", rho="0.2"), tmp_path / "v4001.json")
    built = time.perf_counter() - start
    r, seconds = _verify(path)
    print(f"V{MAX_DEGREE}: built and self-checked in {built:.1f} s, checked again in {seconds:.1f} s")
    assert r.returncode == 0 and r.stdout.startswith(f"{path}: OK upper bound of E[V{MAX_DEGREE}] in [0.99999999999999"), r.stdout


@pytest.mark.slow
def test_a_likelihood_certificate_of_the_most_calls_verifies(tmp_path):
    """K = MAX_CALLS calls (``analyze --certificates``' largest): a certificate of V3 whose law pi* has six
    18-digit atoms as analyze writes them, built and checked within the budget. (A genuine one from 300
    examples, 263 cells and 39 atoms, also passes; it takes minutes: the cell probabilities alone 90 s.)"""
    cells = [(MAX_CALLS, s, 1) for s in range(0, MAX_CALLS + 1, 67)]
    atoms = [k / 7 + 1e-3 for k in range(1, 7)]
    law = (atoms, [1 / 6] * 6)
    start = time.perf_counter()
    cert = build_likelihood_certificate(3, "lower", cells, 2.0, law, law, 1e-4)
    built = time.perf_counter() - start
    path = tmp_path / "k2000.json"
    path.write_text(to_json(cert))
    r, seconds = _verify(path)
    print(f"K = {MAX_CALLS}, {len(cells)} cells: built in {built:.1f} s, checked in {seconds:.1f} s")
    assert r.returncode == 0 and ": OK lower bound of E[V3] >= " in r.stdout, r.stdout
