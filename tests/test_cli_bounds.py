"""``certify bounds``: the table, the JSON shape, and every bad-input path (exit 2, one line)."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from certify import parse_objective, three_vote_bounds
from certify.cli.main import main

from ._reference import bernstein_grid_bounds, beta_moments


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_and_values(capsys):
    code, out, err = run_cli(capsys, "bounds", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "4", "101", "inf", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["mu"] == 0.7 and data["nu"] == pytest.approx(0.532)
    votes = [r["votes"] for r in data["results"]]
    assert votes == [3, 4, 101, "inf"]
    cf = three_vote_bounds(0.7, rho=0.2)  # Theorem 4.2 closed form
    r3, r4 = data["results"][0], data["results"][1]
    assert r3["lower"] == pytest.approx(cf.lower, abs=1e-12) and r3["upper"] == pytest.approx(cf.upper, abs=1e-12)
    assert r4["lower"] == r3["lower"] and r4["upper"] == r3["upper"]  # fair ties: 4 votes = 3 votes
    for key in ("lower_law", "upper_law"):
        assert set(r3[key]) == {"atoms", "weights"}
    assert len(r3["lower_dual"]) == 3 and len(r3["upper_dual"]) == 3
    inf = data["results"][-1]
    assert "lower_dual" not in inf and inf["upper"] == 1.0
    # Theorem 4.3: L_inf = 1 - G(1 - mu, 1 - 2 mu + nu) on the fractional branch
    mu, nu = 0.3, 1 - 2 * 0.7 + data["nu"]
    assert inf["lower"] == pytest.approx(1 - (nu - mu * mu) / (nu + 0.25 - mu), abs=1e-14)


def test_objective_entry(capsys):
    code, out, _ = run_cli(capsys, "bounds", "--mu", "0.7", "--nu", "0.532", "--objective", "P3 - P1", "--json")
    data = json.loads(out)
    assert code == 0 and data["results"][0]["objective"] == "P3 - P1" and "votes" not in data["results"][0]
    assert data["results"][0]["lower"] < data["results"][0]["upper"]


def test_fraction_inputs_and_higher_order(capsys):
    code, out, _ = run_cli(capsys, "bounds", "--mu", "4517/8192", "--nu", "3301/8192", "--votes", "3", "--json")
    assert code == 0 and json.loads(out)["mu"] == 4517 / 8192
    code, out, _ = run_cli(capsys, "bounds", "--moments", "0.5", "0.3", "0.2", "--votes", "5", "--json")
    assert code == 0 and len(json.loads(out)["results"][0]["upper_dual"]) == 4


def test_text_table(capsys):
    code, out, _ = run_cli(capsys, "bounds", "--mu", "0.7", "--rho", "0.2")
    assert code == 0
    assert "3 votes" in out and "5 votes" in out and "infinitely many votes" in out and "0.7201600000" in out
    assert "note:" not in out  # two moments: every dual holds to rounding


def test_a_dual_that_holds_only_roughly_is_noted_beside_the_table(capsys):
    # 10 moments of Beta(6.2, 2): the duals of V101 have monomial coefficients near 1e5 and fail by
    # about 1e-5 in double precision, so the table's ten decimals overstate them. The note gives the
    # bounds that hold with the violation; HiGHS on a 4001-point grid in the Bernstein basis (cell
    # probabilities) gives inner bounds, which the noted ones must contain.
    moments = beta_moments(Fraction(31, 5), Fraction(2), 10)
    code, out, _ = run_cli(capsys, "bounds", "--moments", *[f"{m.numerator}/{m.denominator}" for m in moments],
                           "--votes", "3", "101")
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and notes[0].startswith("note: 101 votes: the dual polynomials fail by up to")
    lower = float(notes[0].split("lower >= ")[1].split(",")[0])
    upper = float(notes[0].split("upper <= ")[1])
    lo, up = bernstein_grid_bounds(parse_objective("V101"), moments)
    assert lower <= lo + 1e-7 and upper >= up - 1e-7
    assert lo - lower <= 1e-4 and upper - up <= 1e-4


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--mu", "0.7", "--nu", "0.8"], "nu <= mu"),
        (["--mu", "0.7", "--nu", "0.3"], "mu^2 <= nu"),
        (["--mu", "nan", "--nu", "0.3"], "mu='nan'"),
        (["--mu", "0.7", "--rho", "0.2", "--votes", "0"], "votes=0"),
        (["--mu", "0.7", "--rho", "0.2", "--votes", "three"], "votes='three'"),
        (["--mu", "0.7", "--rho", "0.2", "--objective", "P3 - Z"], "unknown name 'Z'"),
        (["--rho", "0.2"], "--mu is required"),
        (["--mu", "0.7", "--moments", "0.7", "0.5"], "not both"),
        (["--mu", "0.7", "--nu", "0.5", "--rho", "0.1"], "not allowed with"),
        (["--mu", "0.7", "--rho", "0.2", "--method", "magic"], "invalid choice"),
    ],
)
def test_bad_input_exit_2_one_line(capsys, args, fragment):
    with pytest.raises(SystemExit) if fragment in ("not allowed with", "invalid choice") else _nullcontext():
        code, out, err = run_cli(capsys, "bounds", *args)
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1 and fragment in err
        return
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_console_script_runs_in_a_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "certify.cli.main", "bounds", "--mu", "0.7", "--nu", "0.8"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


@pytest.mark.parametrize("mu", ["0.3", "0.7", "0.1", "0.5", "0.9999", "1/3"])
def test_v_inf_on_the_edge_nu_equals_mu_is_mu_at_both_ends(capsys, mu):
    """nu = mu holds one law, on {0, 1}: V_inf = P(Q > 1/2) = mu exactly, never an upper end below the lower."""
    from fractions import Fraction

    code, out, _ = run_cli(capsys, "bounds", "--mu", mu, "--rho", "1", "--votes", "inf", "--json")
    assert code == 0
    (entry,) = json.loads(out)["results"]
    assert entry["lower"] == entry["upper"] == float(Fraction(mu))
    assert entry["lower_attained"] and entry["upper_attained"]


@pytest.mark.parametrize("mu, rho", [("0.7", "0.2"), ("0.55", "0.05"), ("1/3", "1/7"), ("0.9", "0.01")])
def test_the_reported_rho_is_the_given_rho(capsys, mu, rho):
    """rho given, nu = mu^2 + rho mu (1 - mu) computed exactly: reading rho back gives the same number."""
    from fractions import Fraction

    code, out, _ = run_cli(capsys, "bounds", "--mu", mu, "--rho", rho, "--json")
    assert code == 0
    assert json.loads(out)["rho"] == float(Fraction(rho))
