"""Likelihood certificates of pass@inf = P(Q > 0), the step 1{q > 0} (schema version 2).

The checker proves the Lagrangian inequality on the point {0} (g = 0) and on [0, 1] (g = 1). Inputs
come from tests/_likelihood_inputs.py (a grid Lagrangian law by cvxpy), soundness is re-derived in
mpmath at 40 digits, and tampered files must fail the check that names what broke.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from certify._aggregate_bounds import PASS_INF
from certify.certificates import LikelihoodCertificate, build_likelihood_certificate, dump, load, schema, verify
from certify.certificates._verify_likelihood import DEFINED_OBJECTIVES
from certify.cli.main import main
from certify.likelihood import cell_counts, certified_intervals

from ._likelihood_inputs import em_reference, grid_optimum, loglik
from .test_likelihood_certificates import _b_mp, _documented, _expect, _get, _h_mp, _loglik_mp, _mp, _set, _tampered

C = 1.920729410347062  # chi2_{1, 0.95} / 2, as a float


def _positive(q):
    return (np.asarray(q, dtype=float) > 0).astype(float)


@pytest.fixture(scope="module")
def data():
    """Cells where a fifth of the examples is never solved (q = 0), the rest q ~ Beta(2, 2), K = 4."""
    rng = np.random.default_rng(7)
    q = np.where(rng.random(300) < 0.2, 0.0, rng.beta(2.0, 2.0, 300))
    s = rng.binomial(4, q)
    cells = [(4, int(v), int(n)) for v, n in zip(*np.unique(s, return_counts=True))]
    ref = em_reference(cells)
    return cells, ref, loglik(cells, *ref) - C


@pytest.fixture(scope="module")
def lower(data):
    cells, ref, level = data
    lam, law = grid_optimum(cells, _positive, "lower", level)  # the grid holds q = 0
    return build_likelihood_certificate(PASS_INF, "lower", cells, C, ref, law, lam, alpha=0.05, calibration="chi2(1)/2")


def test_the_verifier_names_pass_inf_as_the_package_does():
    assert DEFINED_OBJECTIVES[PASS_INF.name][0] == PASS_INF.definition == "P(Q > 0)"


def test_lower_certificate_is_sound_and_nearly_tight(data, lower):
    jsonschema = pytest.importorskip("jsonschema")
    cells, _, _ = data
    d = lower.to_dict()
    assert d["objective"] == {"name": "pass_inf", "definition": "P(Q > 0)"}
    jsonschema.validate(d, schema(version="2"))
    _documented(d, schema(version="2"))
    assert LikelihoodCertificate.from_dict(d) == lower and lower.definition == "P(Q > 0)" and not lower.is_infinite_budget
    result = verify(d)
    assert result.ok and "lower bound of E[pass_inf] >= " in result.message
    with mpmath.workdps(40):
        h, a, lam = _h_mp(lower), _mp(lower.a), _mp(lower.lam)
        # g - a - lambda h >= 0 with g = 1{q > 0}: at 0 (g = 0), and on a grid of (0, 1] with the atoms (g = 1)
        assert -a - lam * h(mpmath.mpf(0)) >= 0
        grid = [Fraction(i, 2000) for i in range(1, 2001)] + [x for x in lower.atoms if x > 0]
        assert min(1 - a - lam * h(_mp(x)) for x in grid) >= 0
        slack = a + lam * _b_mp(lower) - _mp(lower.bound)
        assert 0 <= slack <= mpmath.mpf(10) ** -11
        # laws in the set (pi_ref and mixtures with pi*) have P(Q > 0) at or above the bound
        level = _loglik_mp(lower.cells, lower.reference_atoms, lower.reference_weights) - _mp(lower.c)
        inside = 0
        for t in (0, Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), 1):
            atoms = lower.reference_atoms + lower.atoms
            weights = tuple(t * w for w in lower.reference_weights) + tuple((1 - t) * w for w in lower.weights)
            if _loglik_mp(lower.cells, atoms, weights) >= level:
                assert mpmath.fsum(_mp(w) for x, w in zip(atoms, weights) if x > 0) >= _mp(lower.bound)
                inside += 1
        assert inside >= 3
    # the grid optimum puts mass on q = 0 (the point piece), and its own P(Q > 0) is close to the bound
    at_zero = float(sum(w for x, w in zip(lower.atoms, lower.weights) if x == 0))
    assert at_zero > 0.1 and -1e-8 < (1 - at_zero) - float(lower.bound) < 1e-2


def test_engine_certificates_of_both_ends(data, tmp_path, capsys):
    cells, _, _ = data
    calls = np.repeat([k for k, _, n in cells], [n for _, _, n in cells])
    correct = np.repeat([s for _, s, n in cells], [n for _, _, n in cells])
    ((iv, lo, up),) = certified_intervals(cell_counts(calls, correct), ["pass_inf"])
    assert verify(lo.to_dict()).ok and verify(up.to_dict()).ok
    assert float(lo.bound) <= iv.lower.value and iv.lower.value - float(lo.bound) < 1e-9
    # the upper end is 1 by definition: lambda = 0 and a = 1 (up to the builder's outward margin)
    assert iv.upper.value == 1.0 and up.lam == 0 and 1 <= up.bound < 1 + Fraction(1, 10**9)
    paths = [dump(lo, tmp_path / "lower.json"), dump(up, tmp_path / "upper.json")]
    assert load(paths[0]) == lo
    capsys.readouterr()
    assert main(["verify", *map(str, paths)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "OK lower bound of E[pass_inf] >= " in out[0] and "OK upper bound of E[pass_inf] <= 1.00000" in out[1]


def _lift_a_above_the_point(d: dict) -> None:
    """lambda halved, a just below min over [0, 1] of 1 - lambda h (the piece g = 1 still holds) and the
    bound with them. At the optimum psi is a both at 0 and at the interior atoms; with lambda halved,
    1 - lambda h rises above -lambda h(0) on [0, 1]: a false claim only the point piece {0} refutes."""
    cert = LikelihoodCertificate.from_dict(d)
    _set(d, ("lagrangian", "lambda"), cert.lam / 2)
    cert = LikelihoodCertificate.from_dict(d)
    with mpmath.workdps(40):
        h, lam = _h_mp(cert), _mp(cert.lam)
        low = min(1 - lam * h(mpmath.mpf(i) / 4000) for i in range(4001))
        a = Fraction(str(mpmath.nstr(low - mpmath.mpf(10) ** -6, 30)))
        assert -lam * h(mpmath.mpf(0)) < _mp(a)  # the point piece fails
        bound = Fraction(str(mpmath.nstr(_mp(a) + lam * _b_mp(cert) - mpmath.mpf(10) ** -9, 30)))
    _set(d, ("lagrangian", "a"), a)
    _set(d, ("bound",), bound)


E9 = Fraction(1, 10**9)
TAMPERS = {
    "definition changed": (lambda d: d["objective"].update(definition="P(Q >= 0)"), "objective"),
    "named Vinf": (lambda d: d["objective"].update(name="Vinf"), "objective"),
    "name not a string": (lambda d: d["objective"].update(name=["pass_inf"]), "objective"),
    "a above the point piece": (_lift_a_above_the_point, "lagrangian_sign"),
    "a raised": (lambda d: _set(d, ("lagrangian", "a"), _get(d, ("lagrangian", "a")) + E9), "lagrangian_sign"),
    "bound raised": (lambda d: _set(d, ("bound",), _get(d, ("bound",)) + E9), "bound"),
    "side flipped": (lambda d: d.update(side="upper"), "lagrangian_sign"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampered_pass_inf_certificate(lower, name):
    edit, check = TAMPERS[name]
    _expect(_tampered(lower, edit), check)


def test_the_point_piece_is_named_when_it_fails(lower):
    result = _tampered(lower, _lift_a_above_the_point)
    assert result.check == "lagrangian_sign" and "[0, 0] (g = 0), a point" in result.message


@pytest.mark.parametrize("side, a, ok", [("lower", 0, True), ("lower", Fraction(1, 100), False),
                                          ("upper", 1, True), ("upper", Fraction(99, 100), False)])
def test_both_pieces_are_checked(lower, side, a, ok):
    # With lambda = 0 the statement is P(Q > 0) >= a (lower) or <= a (upper) for every law: true
    # for a = 0 and a = 1; the lower claim a > 0 fails only at the point q = 0, the upper a < 1 only
    # on the piece g = 1: a checker that skipped either would accept a false certificate.
    def edit(d):
        d["side"] = side
        _set(d, ("lagrangian", "lambda"), 0)
        _set(d, ("lagrangian", "a"), a)
        _set(d, ("bound",), a)

    _expect(_tampered(lower, edit), None if ok else "lagrangian_sign")


def test_json_file_round_trip(lower, tmp_path):
    path = dump(lower, tmp_path / "p.json")
    assert json.loads(path.read_text())["objective"]["name"] == "pass_inf" and verify(load(path)).ok
