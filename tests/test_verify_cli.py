"""`certify certificate` and `certify verify`: exit codes 0 / 1 / 2 and what they print."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from certify.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    cert, gain = d / "cert.json", d / "gain.json"
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "101", "--side", "upper", "-o", str(cert)]) == 0
    assert main(["certificate", "--mu", "4517/8192", "--nu", "3301/8192", "--objective", "P3 - P1", "--side", "lower", "-o", str(gain)]) == 0
    return cert, gain


def test_verify_passes_and_prints_intervals(files, capsys):
    capsys.readouterr()
    assert main(["verify", *map(str, files)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(": OK " in line for line in out)
    # U_50 at (0.7, 0.2) is 0.96664843173907 (engine, and the mpmath check in test_certificates).
    assert "upper bound of E[V101] in [0.966648431739" in out[0]
    assert "lower bound of E[P3 - P1]" in out[1] and "(width 0)" in out[1]
    # The verdict says for which moments: as given, and exactly.
    assert out[0].endswith("over all laws on [0, 1] with mu = 0.7, rho = 0.2 (exactly m1 = 7/10, m2 = 133/250)")
    assert out[1].endswith("with mu = 4517/8192, nu = 3301/8192 (exactly m1 = 4517/8192, m2 = 3301/8192)")


def test_renamed_objective_fails_on_the_command_line(tmp_path, capsys):
    # The example: a 3-vote certificate renamed V101 claimed the 101-vote bound is 0.78736.
    cert = tmp_path / "c.json"
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "upper", "-o", str(cert)]) == 0
    data = json.loads(cert.read_text())
    data["objective"]["name"] = "V101"
    bad = _write(tmp_path / "renamed.json", data)
    capsys.readouterr()
    assert main(["verify", str(cert), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    # U_1 = 4921/6250 exactly; the printed enclosure is rounded outward, so it is that number itself
    assert out[0].startswith(f"{cert}: OK upper bound of E[V3] in [0.78736, 0.78736] (width 0)")
    assert out[1] == (f"{bad}: FAILED objective_name: objective.name='V101' is not the certified objective: "
                      "the certified terms minus the named polynomial is nonzero (degree 101)")


def test_directory_and_files_mix(files, tmp_path, capsys):
    d = tmp_path / "dir"
    d.mkdir()
    for f in files:
        (d / f.name).write_text(f.read_text())
    capsys.readouterr()
    assert main(["verify", str(d), str(files[0])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0] for line in out] == [str(d / "cert.json"), str(d / "gain.json"), str(files[0])]
    (d / "z.json").write_text('{"schema_version": "1",')
    assert main(["verify", str(d)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[2].startswith(f"{d / 'z.json'}: FAILED json: not valid JSON")


def test_three_vote_certificate_on_stdout(capsys):
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "lower"]) == 0
    data = json.loads(capsys.readouterr().out)
    # Theorem 4.2: L_1 = nu + 2 (mu - nu)^2 / (1 - mu) with nu = 0.532, exactly.
    mu, nu = Fraction(7, 10), Fraction(133, 250)
    assert Fraction(data["value"][0]) == nu + 2 * (mu - nu) ** 2 / (1 - mu)


def test_digits_option(tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "101", "--side", "lower", "--digits", "40", "-o", str(out)]) == 0
    assert Fraction(json.loads(out.read_text())["width"][0]) <= Fraction(1, 10**40)
    assert main(["verify", str(out)]) == 0


def _write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize(
    "edit, check",
    [
        (lambda d: d["law"]["atoms"].__setitem__(1, ["1/2", 0.5]), "moment_equations"),
        (lambda d: d.update(schema_version="9"), "schema_version"),
        (lambda d: d.update(value=["2/1", 2.0]), "value_in_enclosure"),
        (lambda d: d["value"].__setitem__(1, 0.5), "readable_floats"),
        (lambda d: d["dual"]["coefficients"][2].__setitem__(0, "-2/1"), "readable_floats"),
    ],
)
def test_verify_names_failed_check(files, tmp_path, capsys, edit, check):
    data = json.loads(files[0].read_text())
    edit(data)
    bad = _write(tmp_path / "bad.json", data)
    capsys.readouterr()
    assert main(["verify", str(files[1]), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"bad.json: FAILED {check}:" in out and "gain.json: OK" in out


def test_malformed_json_exits_1(tmp_path, capsys):
    bad = _write(tmp_path / "broken.json", '{"schema_version": "1",')
    assert main(["verify", str(bad)]) == 1
    assert "FAILED json:" in capsys.readouterr().out


def test_unusable_arguments_exit_2(files, tmp_path, capsys):
    assert main(["verify", str(files[0]), str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    assert main(["certificate", "--votes", "3", "--side", "upper"]) == 2
    assert main(["certificate", "--mu", "0.7", "--nu", "0.9", "--votes", "3", "--side", "upper"]) == 2
    assert "nu <= mu" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "middle"])
    assert exc.value.code == 2


def test_process_exit_codes(files, tmp_path):
    """The real process: exit 0 for good files, 1 for a tampered one."""
    data = json.loads(files[0].read_text())
    data["dual"]["coefficients"][1] = ["3/1", 3.0]
    bad = _write(tmp_path / "nudged.json", data)
    cmd = [sys.executable, "-m", "certify.cli.main", "verify"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    ok = subprocess.run(cmd + [str(files[0])], check=False, capture_output=True, text=True, env=env, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    fail = subprocess.run(cmd + [str(bad)], check=False, capture_output=True, text=True, env=env, cwd=ROOT)
    assert fail.returncode == 1 and "FAILED dual_value" in fail.stdout


def _printed_interval(line: str) -> tuple[Fraction, Fraction]:
    lo, hi = re.search(r" in \[([^,]+), ([^\]]+)\]", line).groups()
    return Fraction(Decimal(lo)), Fraction(Decimal(hi))


@pytest.mark.parametrize("votes, side", [("3", "upper"), ("101", "lower"), ("101", "upper"), ("inf", "upper")])
def test_printed_enclosures_contain_the_exact_one(tmp_path, capsys, votes, side):
    """OK lines and the ``certificate`` summary round outward: the printed interval contains the certified one."""
    out = tmp_path / "c.json"
    assert main(["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", votes, "--side", side, "-o", str(out)]) == 0
    summary = capsys.readouterr().out
    assert main(["verify", str(out)]) == 0
    line = capsys.readouterr().out
    data = json.loads(out.read_text())
    lo, hi = (Fraction(x[0]) for x in data["enclosure"])
    for text in (summary, line):
        p_lo, p_hi = _printed_interval(text)
        assert p_lo <= lo <= hi <= p_hi and hi - lo <= p_hi - p_lo
        assert p_hi - p_lo <= (hi - lo) + Fraction(2, 10**16)  # 17 significant digits: outward by at most 1e-17 each
