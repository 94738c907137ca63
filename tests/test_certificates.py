"""Exact certificates (issue 3): values against closed forms and mpmath, JSON, tampering.

Reference values are computed independently of the engine and the builder:
Theorem 4.2 closed forms in exact Fractions, the one-call envelope eq. (onecall-envelope-main),
and an mpmath maximisation over the three-atom family {0, t, 1} with
P_n(t) = I_t(n + 1, n + 1) (regularized incomplete beta).
"""

from __future__ import annotations

import ast
import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest

from certify import InputError
from certify.certificates import (
    CHECKS,
    Certificate,
    build_likelihood_certificate,
    certify_bound,
    certify_many,
    dump,
    load,
    schema,
    to_json,
    verify,
)
from certify.certificates._proofs import positive_on_closed_unit_interval
from certify.certificates._registry import SCHEMAS

MU, RHO = Fraction(7, 10), Fraction(1, 5)
NU = MU * MU + RHO * MU * (1 - MU)


@pytest.fixture(scope="module")
def three_upper():
    return certify_bound(3, "upper", mu="0.7", rho="0.2")


@pytest.fixture(scope="module")
def lower101():
    return certify_bound(101, "lower", mu="0.7", rho="0.2")


@pytest.fixture(scope="module")
def upper101():
    return certify_bound(101, "upper", mu="0.7", rho="0.2")


# -- values ------------------------------------------------------------------------

def test_three_vote_closed_form_exact(three_upper):
    # Theorem 4.2: U_1 = 3 nu - 2 nu^2 / mu, L_1 = nu + 2 (mu - nu)^2 / (1 - mu), in Fractions.
    lower = certify_bound(3, "lower", mu="0.7", rho="0.2")
    assert three_upper.enclosure == (3 * NU - 2 * NU * NU / MU,) * 2
    assert lower.enclosure == (NU + 2 * (MU - NU) ** 2 / (1 - MU),) * 2
    assert three_upper.width == 0 and three_upper.provenance.construction == "hermite"
    # The upper law sits on {0, nu/mu} (proof of Theorem 4.2).
    assert three_upper.atoms == (0, NU / MU)


def test_one_call_envelope_exact():
    # Eq. (onecall-envelope-main): with the mean only, U_1^one(mu) = 9 mu / 8 for mu <= 3/4 and L_1^one = (9 mu - 1) / 8 for mu >= 1/4.
    up = certify_bound(3, "upper", moments=["1/2"])
    lo = certify_bound(3, "lower", moments=["1/2"])
    assert up.enclosure == (Fraction(9, 16), Fraction(9, 16))
    assert lo.enclosure == (Fraction(7, 16), Fraction(7, 16))
    assert verify(up).ok and verify(lo).ok


def _three_atom_upper(n: int, mu, nu, dps: int):
    """max over t of E P_n(Q) for laws on {0, t, 1} with moments (mu, nu), in mpmath."""
    with mpmath.workdps(dps):
        mu, nu = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(nu.numerator) / nu.denominator

        def value(t):
            wt = (mu - nu) / (t * (1 - t))
            w1 = (nu - t * mu) / (1 - t)
            return wt * mpmath.betainc(n + 1, n + 1, 0, t, regularized=True) + w1

        def slope(t):  # d/dt of value; P_n'(t) = t^n (1-t)^n / B(n+1, n+1)
            a = mu - nu
            dp = (t * (1 - t)) ** n / mpmath.beta(n + 1, n + 1)
            p = mpmath.betainc(n + 1, n + 1, 0, t, regularized=True)
            return -a * (1 - 2 * t) / (t * (1 - t)) ** 2 * p + a / (t * (1 - t)) * dp - a / (1 - t) ** 2

        t = mpmath.findroot(slope, (mpmath.mpf("0.55"), mpmath.mpf("0.65")), solver="anderson")
        return value(t)


def test_101_upper_matches_mpmath(upper101):
    # U_50 (101 votes) is attained on {0, t, 1}; the mpmath maximum over t lies in the enclosure.
    ref = _three_atom_upper(50, MU, NU, 40)
    lo, hi = upper101.enclosure
    assert upper101.width <= Fraction(1, 10**12)
    assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf("1e-25") <= ref <= mpmath.mpf(hi.numerator) / hi.denominator


def test_digits_40_for_101_votes():
    cert = certify_bound(101, "upper", mu="0.7", rho="0.2", digits=40)
    assert cert.width <= Fraction(1, 10**40)
    with mpmath.workdps(60):
        ref = _three_atom_upper(50, MU, NU, 60)
        lo, hi = cert.enclosure
        assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf("1e-50") <= ref <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf("1e-50")
    assert verify(cert).ok


def test_gain_objective_and_binary64_inputs():
    # P3 - P1 from counts stays exact; float inputs are taken bit for bit ("binary64").
    gain = certify_bound("P3 - P1", "lower", mu="4517/8192", nu="3301/8192")
    assert gain.moments == (Fraction(4517, 8192), Fraction(3301, 8192)) and verify(gain).ok
    flt = certify_bound(5, "lower", mu=0.7, rho=0.2)
    assert flt.moments[0] == Fraction(0.7) and ("mu", "0.7", "binary64") in flt.moments_given
    assert verify(flt).ok and flt.width <= Fraction(1, 10**12)


def test_three_moments():
    cert = certify_bound(5, "upper", moments=["0.7", "0.53", "0.42"])
    assert cert.order == 3 and len(cert.dual) <= 4 and verify(cert).ok


def test_irrational_principal_atoms_get_a_padding_atom():
    # Uniform moments 1/2..1/5: the engine's lower law sits on the Gauss-Radau nodes 0, (6 -+ sqrt 6)/10,
    # which are irrational; the exact law adds a rational atom with a tiny weight instead.
    cert = certify_bound("V7 - V3", "lower", moments=["1/2", "1/3", "1/4", "1/5"])
    radau = sorted([0.0, (6 - 6**0.5) / 10, (6 + 6**0.5) / 10])
    heavy = sorted(float(x) for x, w in zip(cert.atoms, cert.weights) if w > Fraction(1, 10**9))
    assert heavy == pytest.approx(radau, abs=1e-12)
    assert len(cert.atoms) <= 5 and cert.width <= Fraction(1, 10**12) and verify(cert).ok


def test_grid_engine_is_made_exact_too():
    # The grid LP spreads an atom over neighbouring grid points; after merging and polishing
    # the certificate is as tight as the one from the exact engine.
    grid = certify_bound(5, "lower", mu="0.7", rho="0.2", method="grid")
    exact = certify_bound(5, "lower", mu="0.7", rho="0.2")
    assert verify(grid).ok and grid.provenance.method == "grid"
    assert abs(grid.value - exact.value) <= Fraction(1, 10**12) and grid.width <= Fraction(1, 10**12)


def test_enclosure_orientation(lower101, upper101):
    assert lower101.enclosure == (lower101.dual_value, lower101.primal_value)
    assert upper101.enclosure == (upper101.primal_value, upper101.dual_value)
    assert 0 <= lower101.width <= Fraction(1, 10**12)


# -- JSON, schema, files ------------------------------------------------------------

def test_round_trip(lower101):
    assert Certificate.from_dict(json.loads(to_json(lower101))) == lower101


def _documented(data, node, path="$"):
    """Every key of ``data`` appears in the schema node's properties, each with a description."""
    if isinstance(data, dict):
        props = node["properties"]
        for key, value in data.items():
            assert key in props, f"{path}.{key} is not in the schema"
            sub = props[key]
            assert "description" in sub, f"{path}.{key} has no description"
            if isinstance(value, dict):
                _documented(value, sub, f"{path}.{key}")
            elif isinstance(value, list) and value and isinstance(value[0], dict):
                _documented(value[0], sub["items"], f"{path}.{key}[0]")


def test_schema_documents_every_field(upper101):
    _documented(upper101.to_dict(), schema())
    assert schema()["properties"]["schema_version"]["const"] == upper101.schema_version


def test_schema_validates_certificates(upper101):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(to_json(upper101)), schema())
    bad = upper101.to_dict()
    bad["law"]["atoms"][0] = "0"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema())


def test_dump_is_atomic_and_loads(tmp_path, upper101):
    path = dump(upper101, tmp_path / "c.json")
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
    assert load(path) == upper101 and verify(path).ok


def test_from_dict_rejects_unknown_version(upper101):
    data = upper101.to_dict()
    data["schema_version"] = "2"
    with pytest.raises(InputError, match="schema_version"):
        Certificate.from_dict(data)


# -- the registry of schema versions --------------------------------------------------

def _one_of_each():
    """A certificate of every schema: a sharp bound (1), a likelihood bound (2), a V_inf bound (3)."""
    cells = [(3, 0, 2), (3, 1, 5), (3, 2, 9), (3, 3, 4)]
    law = ([Fraction(1, 4), Fraction(3, 4)], [Fraction(1, 2), Fraction(1, 2)])
    return {
        "1": certify_bound(3, "upper", mu="0.7", rho="0.2"),
        "2": build_likelihood_certificate(3, "lower", cells, "1.92", law, law, 0.0),
        "3": certify_bound("inf", "lower", mu="0.7", rho="0.2"),
    }


def test_every_schema_version_is_one_registry_row(tmp_path):
    certs = _one_of_each()
    assert [row.version for row in SCHEMAS] == sorted(certs) and len({row.kind for row in SCHEMAS}) == len(SCHEMAS)
    for row in SCHEMAS:
        cert = certs[row.version]
        assert type(cert) is row.record and row.build.__module__.startswith("certify.certificates")
        data = json.loads(to_json(cert))
        assert (data["schema_version"], data["kind"]) == (row.version, row.kind)
        assert schema(row.version) == json.loads(row.path.read_text())
        assert schema(row.version)["properties"]["kind"]["const"] == row.kind
        assert row.verify(data).ok and verify(data).ok and row.verify(data) == verify(data)
        assert load(dump(cert, tmp_path / f"v{row.version}.json")) == cert
        # each checker refuses the other rows' files at its first checks
        for other in SCHEMAS:
            if other is not row:
                assert other.verify(data).check in ("schema_version", "structure")
                assert verify({**data, "kind": other.kind}).check == "schema_version"


def test_unknown_versions_and_kinds_are_one_line_errors(tmp_path, upper101):
    data = upper101.to_dict()
    for version, kind in (("4", "sharp-bound-certificate"), ("1", "bounds"), ("2", "sharp-bound-certificate"), (None, None)):
        path = tmp_path / "c.json"
        path.write_text(json.dumps({**data, "schema_version": version, "kind": kind}))
        with pytest.raises(InputError, match=r"is not a known certificate \(known: '1' \(sharp-bound-certificate\), "
                                             r"'2' \(likelihood-bound-certificate\), '3' \(endpoint-bound-certificate\)\)$") as err:
            load(path)
        assert "\n" not in str(err.value) and repr(version) in str(err.value)
    with pytest.raises(InputError, match="schema_version='4' is not a certificate schema version"):
        schema("4")
    with pytest.raises(InputError, match="dict is not a certificate"):
        to_json(data)
    result = verify({**data, "schema_version": "4"})
    assert (result.ok, result.check) == (False, "schema_version") and "'1', '2', '3'" in result.message


# -- tampering ----------------------------------------------------------------------

def _set(data: dict, path: tuple, value: Fraction) -> None:
    """Replace an exact pair and its readable float consistently."""
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = [f"{value.numerator}/{value.denominator}", float(value)]


def _get(data: dict, path: tuple) -> Fraction:
    node = data
    for key in path:
        node = node[key]
    return Fraction(node[0])


def _pairs(node, path=()):
    """Paths of every exact pair in a certificate dict."""
    if isinstance(node, list) and len(node) == 2 and isinstance(node[0], str) and "/" in node[0]:
        yield path
    elif isinstance(node, dict):
        for k, v in node.items():
            if k != "provenance":
                yield from _pairs(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _pairs(v, path + (i,))


def test_every_exact_number_is_bound(three_upper):
    # The 3-vote certificate has zero width, so moving any exact number either way must be caught.
    base = three_upper.to_dict()
    paths = list(_pairs(base))
    assert len(paths) >= 12
    for path in paths:
        for eps in (Fraction(1, 10**30), -Fraction(1, 10**30)):
            data = copy.deepcopy(base)
            _set(data, path, _get(base, path) + eps)
            result = verify(data)
            assert not result.ok, (path, eps)
            assert result.check in CHECKS


def _tampered(cert, edit):
    data = copy.deepcopy(cert.to_dict())
    edit(data)
    return verify(data)


def _lower_dual(data, delta):
    """Raise the minorant's constant term and keep every derived number consistent."""
    c0 = _get(data, ("dual", "coefficients", 0)) + delta
    _set(data, ("dual", "coefficients", 0), c0)
    d = _get(data, ("dual_value",)) + delta
    _set(data, ("dual_value",), d)
    _set(data, ("enclosure", 0), d)
    _set(data, ("width",), _get(data, ("enclosure", 1)) - d)


TAMPERS = {
    "nudged dual coefficient": (lambda d: _set(d, ("dual", "coefficients", 1), _get(d, ("dual", "coefficients", 1)) + Fraction(1, 10**9)), "dual_value"),
    "nudged dual, consistent values": (lambda d: _lower_dual(d, Fraction(1, 10**9)), "dual_sign"),
    "moved atom": (lambda d: _set(d, ("law", "atoms", 0), _get(d, ("law", "atoms", 0)) + Fraction(1, 10**9)), "moment_equations"),
    "atom outside [0, 1]": (lambda d: _set(d, ("law", "atoms", 1), Fraction(11, 10)), "atoms_in_unit_interval"),
    "changed weight": (lambda d: _set(d, ("law", "weights", 0), _get(d, ("law", "weights", 0)) + Fraction(1, 10**9)), "moment_equations"),
    "negative weight": (lambda d: _set(d, ("law", "weights", 0), -_get(d, ("law", "weights", 0))), "weights_nonnegative"),
    "extra atoms": (lambda d: d["law"].update(atoms=d["law"]["atoms"] * 2, weights=d["law"]["weights"] * 2), "atom_count"),
    "value outside the enclosure": (lambda d: _set(d, ("value",), _get(d, ("enclosure", 1)) + Fraction(1, 10**6)), "value_in_enclosure"),
    "enclosure too narrow": (lambda d: _set(d, ("enclosure", 0), _get(d, ("enclosure", 1))), "enclosure"),
    "primal value too low (lower side)": (lambda d: _set(d, ("primal_value",), _get(d, ("primal_value",)) - Fraction(1, 10**6)), "primal_value"),
    "objective changed": (lambda d: d["objective"]["majority"][0].update(n=49, votes=99) or d["objective"].update(degree=99, name="V99"), "primal_value"),
    "objective changed, name kept": (lambda d: d["objective"]["majority"][0].update(n=49, votes=99) or d["objective"].update(degree=99), "objective_name"),
    "objective degree": (lambda d: d["objective"].update(degree=100), "objective"),
    "moments exact changed": (lambda d: _set(d, ("moments", "exact", 1), _get(d, ("moments", "exact", 1)) + Fraction(1, 10**9)), "moments"),
    "moments given changed": (lambda d: d["moments"]["given"][1].update(text="0.21"), "moments"),
    "moment order": (lambda d: d["moments"].update(order=3), "structure"),
    "schema version": (lambda d: d.update(schema_version="2"), "schema_version"),
    "readable float": (lambda d: d["law"]["atoms"][0].__setitem__(1, 0.5), "readable_floats"),
    "not p/q": (lambda d: d["dual"]["coefficients"][0].__setitem__(0, "0.5"), "structure"),
    "missing law": (lambda d: d.pop("law"), "structure"),
    "wrong kind": (lambda d: d.update(kind="bounds"), "structure"),
    "side flipped": (lambda d: d.update(side="upper"), "primal_value"),
    "bogus contact": (lambda d: d["dual"]["contacts"].append({"point": ["1/2", 0.5], "multiplicity": 2}), "contacts"),
    "odd interior contact": (lambda d: d["dual"]["contacts"].append({"point": ["1/2", 0.5], "multiplicity": 1}), "contacts"),
    "dual degree": (lambda d: d["dual"]["coefficients"].append(["0/1", 0.0]) or d["dual"]["coefficients"].append(["0/1", 0.0]), "dual_degree"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampered_certificate_is_rejected(lower101, name):
    edit, check = TAMPERS[name]
    result = _tampered(lower101, edit)
    assert not result.ok
    assert result.check == check, result.message


def test_dropped_endpoint_contact_is_rejected(upper101):
    # The 101-vote majorant touches g at 0 and 1; without those factors s*(p - g) vanishes at the ends.
    assert [float(c) for c, _ in upper101.contacts] == [0.0, 1.0]
    result = _tampered(upper101, lambda d: d["dual"].update(contacts=[]))
    assert result.check == "dual_sign"


def test_malformed_json_and_the_name_is_bound_to_the_terms(lower101):
    assert verify("{not json").check == "json"
    assert verify("[1, 2]").check == "structure"
    # The name is what a reader believes: it must be the certified polynomial.
    assert _tampered(lower101, lambda d: d["objective"].update(name="renamed")).check == "objective_name"
    assert _tampered(lower101, lambda d: d["objective"].update(name="V99")).check == "objective_name"
    # another name of the same polynomial (V_{2n+1} = P_n) still verifies
    assert _tampered(lower101, lambda d: d["objective"].update(name="P50")).ok


# -- the checker itself ---------------------------------------------------------------

def test_positivity_prover_on_near_double_roots():
    # (x - 1/3)^2 + 10^-30 > 0 on [0, 1]; (x - 1/3)^2 - 10^-30 dips below zero near 1/3.
    sq = flint.fmpq_poly([flint.fmpq(1, 9), flint.fmpq(-2, 3), 1])
    eps = flint.fmpq(1, 10**30)
    assert positive_on_closed_unit_interval(sq + eps, [Fraction(1, 3)])[0]
    assert positive_on_closed_unit_interval(sq + eps, [])[0]
    assert not positive_on_closed_unit_interval(sq - eps, [Fraction(1, 3)])[0]
    assert not positive_on_closed_unit_interval(sq - eps, [])[0]


#: The three checkers (schemas 1, 2, 3) and the kernel modules they share: the whole trusted base.
TRUSTED = {"_verify", "_verify_likelihood", "_verify_endpoint", "_kernel", "_checking", "_budget", "_objective_check", "_proofs"}
#: What the trusted base may import from outside certify.certificates: a few standard modules and python-flint.
TRUSTED_OUTSIDE = {"__future__", "re", "dataclasses", "datetime", "decimal", "fractions", "itertools", "math", "flint"}


def test_the_checkers_import_only_stdlib_flint_and_the_kernel():
    """No solver, builder or record module is reachable from a checker, and nothing but flint outside the standard library."""
    folder = Path(__file__).resolve().parent.parent / "certify" / "certificates"
    seen, todo = set(), ["_verify", "_verify_likelihood", "_verify_endpoint"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse((folder / f"{name}.py").read_text())
        outside = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                outside.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 2 and name == "_kernel":
                # the package version for provenance, and nothing else of the package: its module
                # imports the standard library only
                assert node.module == "_version", f"_kernel imports certify.{node.module}"
                version = ast.parse((folder.parent / "_version.py").read_text())
                imported = {n.module.split(".")[0] for n in ast.walk(version) if isinstance(n, ast.ImportFrom)}
                imported |= {a.name.split(".")[0] for n in ast.walk(version) if isinstance(n, ast.Import) for a in n.names}
                assert imported <= {"__future__", "importlib"}, imported
            elif isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1 and node.module, f"{name}: only sibling modules of certify.certificates"
                todo.append(node.module)
            elif isinstance(node, ast.ImportFrom):
                outside.add(node.module.split(".")[0])
        assert outside <= TRUSTED_OUTSIDE, (name, outside - TRUSTED_OUTSIDE)
    assert seen == TRUSTED, seen ^ TRUSTED


# -- batch -------------------------------------------------------------------------------

def test_certify_many():
    items = certify_many(
        [
            (3, {"mu": "0.7", "rho": "0.2"}, "both"),
            {"objective": "P3 - P1", "mu": "4517/8192", "nu": "3301/8192", "side": "upper"},
            (3, {"mu": "0.7", "nu": "0.9"}, "upper"),
        ],
        errors="collect",
    )
    assert [i.index for i in items] == [0, 0, 1, 2]
    assert [i.certificate.side for i in items[:2]] == ["lower", "upper"]
    assert all(verify(i.certificate).ok for i in items[:3])
    assert not items[3].ok and "nu <= mu" in items[3].error
    with pytest.raises(InputError):
        certify_many([(3, {"mu": "0.7", "nu": "0.9"}, "upper")])
