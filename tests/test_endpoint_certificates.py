"""Certificates of the V_inf bounds (schema 3): built exactly, checked independently, never fooled.

Values are compared with :func:`certify.endpoint_bounds` (closed forms for orders 1-2,
canonical representations beyond) and the dual's step property is re-checked here on a
grid in exact rationals; every field of a genuine certificate is tampered with and must be
refused by the check that owns it.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import jsonschema
import pytest

from certify import endpoint_bounds
from certify._bounds import as_moments
from certify.certificates import ENDPOINT_CHECKS, EndpointCertificate, certify_bound, load, schema, to_json, verify

from .test_cli_bounds import run_cli

MOM3 = ["0.7", "0.532", "0.42"]


@pytest.fixture(scope="module")
def upper3():
    return certify_bound("inf", "upper", moments=MOM3)


@pytest.fixture(scope="module")
def lower2():
    return certify_bound("inf", "lower", mu="0.7", rho="0.2")


def _pairs(node, path=()):
    if isinstance(node, list) and len(node) == 2 and isinstance(node[0], str) and "/" in node[0]:
        yield path
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _pairs(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _pairs(v, path + (i,))


def _at(data, path):
    for key in path:
        data = data[key]
    return data


def _edited(data, path, value):
    out = copy.deepcopy(data)
    _at(out, path[:-1])[path[-1]] = value
    return out


def _pair(x: Fraction):
    return [f"{x.numerator}/{x.denominator}", float(x)]


@pytest.mark.parametrize(
    "given,side",
    [({"mu": "0.7"}, "upper"), ({"mu": "0.7"}, "lower"), ({"mu": "0.7", "rho": "0.2"}, "upper"), ({"mu": "0.3", "nu": "0.15"}, "lower"),
     ({"moments": MOM3}, "lower"), ({"moments": ["0.3", "0.15", "0.09", "0.06"]}, "upper"),
     ({"moments": [f"2/{j + 2}" for j in range(1, 11)]}, "upper"),  # a free node falls exactly on 1
     ({"moments": [f"2/{j + 2}" for j in range(1, 21)]}, "lower")],
)
def test_enclosure_holds_the_bound_and_verifies(given, side):
    cert = certify_bound("inf", side, **given)
    b = endpoint_bounds(moments=as_moments(moments=given.get("moments"), mu=given.get("mu"), nu=given.get("nu"), rho=given.get("rho")))
    lo, hi = cert.enclosure
    target = b.upper if side == "upper" else b.lower
    assert float(lo) - 1e-15 <= target <= float(hi) + 1e-15
    assert cert.width < Fraction(1, 10**15)
    assert verify(cert).ok


def test_dual_is_a_majorant_of_the_step_on_an_exact_grid(upper3, lower2):
    for cert, s in ((upper3, 1), (lower2, -1)):
        coeffs = cert.dual
        for j in range(2001):
            x = Fraction(j, 2000)
            p = sum(c * x**k for k, c in enumerate(coeffs))
            step = 1 if (x >= Fraction(1, 2) if s > 0 else x > Fraction(1, 2)) else 0
            assert s * (p - step) >= 0, (s, x)


def test_ok_line_names_the_objective_side_and_moments(upper3, lower2):
    up = verify(upper3)
    assert up.ok and up.message.startswith("supremum of E[Vinf] (infinitely many votes: P(Q > 1/2) + P(Q = 1/2)/2)")
    assert "m1 = 0.7, m2 = 0.532, m3 = 0.42 (exactly m1 = 7/10, m2 = 133/250, m3 = 21/50)" in up.message
    low = verify(lower2)
    assert low.ok and low.message.startswith("infimum of E[Vinf]") and "mu = 0.7, rho = 0.2" in low.message


def test_round_trip_schema_and_file(upper3, tmp_path):
    data = json.loads(to_json(upper3))
    jsonschema.validate(data, schema("3"))
    assert EndpointCertificate.from_dict(data) == upper3
    path = tmp_path / "vinf.json"
    path.write_text(to_json(upper3))
    assert load(path) == upper3 and verify(path).ok
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema("1"))


SCALARS = {
    ("schema_version",): ("1", "schema_version"),
    ("kind",): ("sharp-bound-certificate", "schema_version"),
    ("side",): ("lower", "dual_sign"),
    ("objective", "name"): ("V101", "objective"),
    ("objective", "definition"): ("P(Q >= 1/2)", "objective"),
    ("moments", "order"): (2, "structure"),
    ("moments", "given", 0, "name"): ("mu", "moments"),
    ("moments", "given", 0, "text"): ("0.71", "moments"),
    ("moments", "given", 0, "exact_from"): ("binary64", "moments"),
    ("dual", "contacts", 0, "multiplicity"): (3, "contacts"),
}


@pytest.mark.parametrize("path", list(SCALARS), ids=lambda p: ".".join(map(str, p)))
def test_every_scalar_field_is_bound(upper3, path):
    value, check = SCALARS[path]
    result = verify(_edited(upper3.to_dict(), path, value))
    assert not result.ok and result.check == check, result.message


def test_every_exact_number_is_bound(upper3, lower2):
    for cert in (upper3, lower2):
        data = cert.to_dict()
        for path in _pairs(data):
            if path[0] == "provenance":
                continue
            old = Fraction(_at(data, path)[0])
            # 1e-30 is below the width (about 1e-19) for the enclosure's inner numbers, so the
            # value is moved by more: it must leave the enclosure either way.
            step = Fraction(1, 10**12) if path[0] == "value" else Fraction(1, 10**30)
            for eps in (step, -step):
                result = verify(_edited(data, path, _pair(old + eps)))
                assert not result.ok and result.check in ENDPOINT_CHECKS and result.check not in ("json", "structure"), (path, result.message)
            result = verify(_edited(data, path, [_at(data, path)[0], float(old) + 0.5]))
            assert result.check == "readable_floats", (path, result.message)


def test_primal_value_may_only_widen(upper3):
    data = upper3.to_dict()
    lower = Fraction(data["primal_value"][0]) - Fraction(1, 10**25)
    widened = _edited(_edited(_edited(data, ("primal_value",), _pair(lower)), ("enclosure", 0), _pair(lower)),
                      ("width",), _pair(Fraction(data["dual_value"][0]) - lower))
    assert verify(widened).ok
    higher = Fraction(data["primal_value"][0]) + Fraction(1, 10**25)
    assert verify(_edited(data, ("primal_value",), _pair(higher))).check == "primal_value"


def test_every_key_is_required_and_no_other_is_accepted(upper3):
    data = upper3.to_dict()
    objects = [(), ("objective",), ("moments",), ("law",), ("dual",), ("provenance",), ("dual", "contacts", 0), ("moments", "given", 0)]
    for path in objects:
        extra = copy.deepcopy(data)
        _at(extra, path)["note"] = "x"
        assert verify(extra).check == "structure"
        for key in list(_at(data, path)):
            missing = copy.deepcopy(data)
            del _at(missing, path)[key]
            result = verify(missing)
            assert not result.ok and result.check in ("structure", "schema_version"), (path, key, result.message)


def test_a_polynomial_certificate_cannot_pass_as_vinf():
    v101 = certify_bound(101, "upper", mu="0.7", rho="0.2").to_dict()
    v101["schema_version"] = "3"
    assert not verify(v101).ok


def test_cli_certificate_and_verify(capsys, tmp_path):
    out = tmp_path / "vinf.json"
    code, text, err = run_cli(capsys, "certificate", "--moments", *MOM3, "--votes", "inf", "--side", "upper", "-o", str(out))
    assert code == 0 and "supremum in [0.96981818181818" in text
    code, text, err = run_cli(capsys, "verify", str(out))
    assert code == 0 and "OK supremum of E[Vinf]" in text


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--mu", "0.7", "--rho", "0.2", "--votes", "inf", "--side", "upper", "--digits", "30"], "do not apply to --votes inf"),
        (["--moments", *[f"2/{j + 2}" for j in range(1, 22)], "--votes", "inf", "--side", "upper"], "moment order 21 is above 20"),
        (["--moments", "0.5", "0.25", "0.125", "--votes", "inf", "--side", "upper"], "boundary of the moment space"),
    ],
)
def test_cli_refusals_are_one_line(capsys, args, fragment):
    code, out, err = run_cli(capsys, "certificate", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, err


def test_every_field_is_documented_in_the_schema(upper3):
    from .test_likelihood_certificates import _documented

    _documented(upper3.to_dict(), schema("3"))
