"""Every script in proofs/ runs, succeeds, and writes a record whose claims hold."""

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

PROOFS = sorted(p for p in (Path(__file__).resolve().parent.parent / "proofs").glob("*.py") if not p.name.startswith("_"))

def _all_true(flags: dict) -> bool:
    return bool(flags) and all(v is True for v in flags.values())


def _three_vote(r) -> bool:
    # Re-verify the recorded certificate and compare with Theorem 4.2 at mu = 7/10, rho = 1/5:
    # L_1 = nu + 2 (mu - nu)^2 / (1 - mu), nu = mu^2 + rho mu (1 - mu), in exact Fractions.
    from certify.certificates import verify

    mu, rho = Fraction(7, 10), Fraction(1, 5)
    nu = mu * mu + rho * mu * (1 - mu)
    result = verify(r["certificate"])
    return _all_true(r["symbolic"]) and r["exact_certificates"] == 32 and result.ok and result.enclosure == (nu + 2 * (mu - nu) ** 2 / (1 - mu),) * 2


def _maxent_ldgp(r) -> bool:
    signs = all((p["maxent"]["lambda"] > 0) == (float(p["mu"]) > 0.5) for p in r["points"] if p["mu"] != "0.5")
    return all(_all_true(v) for v in r["all_points"].values()) and len(r["points"]) == 9 and signs


def _plurality_bounds(r) -> bool:
    # Call patterns of k calls: r calls wrong (set-partitioned into classes, Bell(r) ways), the
    # other k - r each correct or abstaining.
    bell = [1]
    for m in range(8):
        bell.append(sum(math.comb(m, j) * bell[j] for j in range(m + 1)))
    patterns = {str(k): sum(math.comb(k, w) * bell[w] * 2 ** (k - w) for w in range(k + 1)) for k in range(1, 9)}
    return (r["patterns"] == patterns and _all_true(r["pointwise"]) and len(r["pointwise"]) == 6
            and _all_true(r["polynomials"]) and len(r["polynomials"]) == 4 and r["exact_k"] == list(range(1, 31)))


#: What each record must say; a script without an entry here fails the test.
CHECKS = {
    "even_budget_collapse": lambda r: r["symbolic_boundary_cancellation"] is True and r["exact_n"] == list(range(1, 51)),
    "moment_identities": lambda r: _all_true(r["symbolic"]) and r["grid_points_exact"] == 625,
    "three_vote_closed_form": _three_vote,
    "one_call_envelope": lambda r: _all_true(r["symbolic"]) and r["exact_certificates"] == 34,
    "endpoint_map": lambda r: _all_true(r["symbolic"]) and _all_true(r["all_points"]) and len(r["points"]) == 27,
    "maxent_ldgp": _maxent_ldgp,
    "likelihood_certificate": lambda r: (_all_true(r["symbolic"]) and r["certificates"] == 96
                                         and r["certificates_verified"] == 96 and r["bounds_agree_with_solver"] == 96
                                         and r["random_laws_inside_the_set"] > 100 and r["worst_margin_inside"] >= -1e-12
                                         and r["closed_form_all_correct"] is True),
    "plurality_bounds": _plurality_bounds,
    "answer_model": lambda r: (_all_true(r["checks"]) and len(r["checks"]) == 6 and r["sequence_k"] == list(range(1, 9))
                               and r["ends_k"] == list(range(1, 25)) and r["points"] == 66),
}


@pytest.mark.parametrize("script", PROOFS, ids=[p.stem for p in PROOFS])
def test_proof_script(script):
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((script.parent / "records" / f"{script.stem}.json").read_text())
    assert CHECKS[script.stem](record)
