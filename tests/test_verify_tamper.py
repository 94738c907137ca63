"""The checker refuses every field of a genuine certificate once it is changed, with the reason.

Genuine certificates come from the project's builders (``certify_bound`` for schema 1,
``build_likelihood_certificate`` on simulated data for schema 2); each test edits the
JSON and checks the verdict. The objective's name is part of what is proven: a name
that denotes another polynomial fails ``objective_name``, a name that denotes the same
polynomial in other words passes and is what the verdict prints.
"""

from __future__ import annotations

import copy
import json
import time
from decimal import Decimal
from fractions import Fraction

import flint
import pytest

from certify._bounds import as_objective
from certify._objective import parse_objective
from certify.certificates import CHECKS, LIKELIHOOD_CHECKS, build_likelihood_certificate, certify_bound, verify
from certify.certificates._checking import CheckFailed
from certify.certificates._objective_check import MAX_NAME_LENGTH, majority_polynomial, name_polynomial

from ._likelihood_inputs import em_reference, lagrangian_law, simulate

C = 1.920729410347062  # chi2_{1, 0.95} / 2 as a float


@pytest.fixture(scope="module")
def v3():
    """Upper bound of V3 at mu = 0.7, rho = 0.2: zero width, U = 4921/6250 (Theorem 4.2)."""
    return certify_bound(3, "upper", mu="0.7", rho="0.2").to_dict()


@pytest.fixture(scope="module")
def gain():
    return certify_bound("P3 - P1", "lower", mu="4517/8192", nu="3301/8192").to_dict()


@pytest.fixture(scope="module")
def double():
    return certify_bound("2*V3", "upper", mu="0.7", rho="0.2").to_dict()


@pytest.fixture(scope="module")
def v5_lower():
    cells = simulate(200, 5, seed=3)
    ref = em_reference(cells, points=201, iterations=500)
    lam, law = lagrangian_law(cells, as_objective("V5").evaluate, "lower", 0.01, iterations=100)
    return build_likelihood_certificate("V5", "lower", cells, C, ref, law, lam, alpha=0.05, calibration="chi2(1)/2").to_dict()


def _edited(data: dict, edit) -> dict:
    out = copy.deepcopy(data)
    edit(out)
    return out


def _renamed(data: dict, name: str):
    return verify(_edited(data, lambda d: d["objective"].update(name=name)))


# -- the name is bound to the polynomial --------------------------------------------------

@pytest.mark.parametrize(
    "which, name, why",
    [
        ("v3", "V101", "the 101-vote upper bound is 0.967, not 0.787"),
        ("v3", "V5", "another budget"),
        ("v3", "P3", "paper indexing of 7 votes"),
        ("v3", "V3 + 1/10**20", "off by a constant far below any float"),
        ("gain", "P1 - P3", "the sign of a gain"),
        ("gain", "P3", "half of the gain"),
        ("double", "V3", "an accuracy above 1"),
        ("double", "2*V3 + q - q**2 + q**2", "off by q"),
    ],
)
def test_rename_to_another_polynomial_fails(v3, gain, double, which, name, why):
    data = {"v3": v3, "gain": gain, "double": double}[which]
    assert verify(data).ok
    result = _renamed(data, name)
    assert not result.ok and result.check == "objective_name", (why, result.message)
    assert result.message.startswith(f"objective_name: objective.name={name!r} is not the certified objective"), result.message
    assert "\n" not in result.message


def test_the_reported_renames_no_longer_pass(v3, gain, double):
    # The three renames of the issue, and what each would have claimed.
    assert Fraction(v3["value"][0]) == Fraction(4921, 6250) and _renamed(v3, "V101").check == "objective_name"
    assert Fraction(gain["value"][0]) < 0 < 1 and _renamed(gain, "P1 - P3").check == "objective_name"
    assert Fraction(double["value"][0]) > 1 and _renamed(double, "V3").check == "objective_name"


@pytest.mark.parametrize(
    "which, name",
    [
        ("v3", "V4"),  # an even budget with fair ties has the accuracy of the odd budget below it
        ("v3", "P1"),
        ("v3", "3*q**2 - 2*q**3"),
        ("v3", "3*q^2 - 2*q^3"),
        ("v3", "(V3 + V3)/2"),
        ("v3", "V5 - (V5 - V3)"),
        ("gain", "-(P1 - P3)"),
        ("gain", "V7 - V3"),
        ("double", "V3 + V3"),
        ("double", "6*q**2 - 4*q**3"),
        ("double", "2*(V3)"),
    ],
)
def test_rename_to_the_same_polynomial_passes_and_is_printed(v3, gain, double, which, name):
    data = {"v3": v3, "gain": gain, "double": double}[which]
    result = _renamed(data, name)
    assert result.ok, result.message
    assert result.objective == name and f"E[{name}]" in result.message


def test_name_whitespace_is_normalized_in_the_verdict(v3):
    result = _renamed(v3, "  3*q**2\n-\t2*q**3 ")
    assert result.ok and "E[3*q**2 - 2*q**3]" in result.message and "\n" not in result.message


@pytest.mark.parametrize(
    "name, reason",
    [
        ("renamed", "unknown name 'renamed'"),
        ("", "it is empty"),
        ("V3)", "a ')' closes no '('"),
        ("(V3", "a '(' is never closed"),
        ("V3 V5", "after a complete operand"),
        ("1/q", "division by an expression"),
        ("sin(q)", "unknown name 'sin'"),
        ("q**-1", "negative power"),
        ("q**0.5", "exponent must be an integer"),
        ("V0", "a budget of 0 votes"),
        ("V20003", "beyond the largest majority index"),
        ("V1001*q", "too large to expand"),
        ("q**513", "exponent must be an integer of at most 512"),
        ("(1e300*q + 1)**512", "coefficients beyond"),
        ("1e999999999*V3", "decimal exponent beyond"),
        ("1e-301 + V3", "outside the allowed magnitudes"),
        ("V3\x00", "unexpected character '\\x00'"),
        ("V" * (MAX_NAME_LENGTH + 1), f"more than the limit {MAX_NAME_LENGTH}"),
    ],
)
def test_unreadable_name_fails_with_the_rule(v3, name, reason):
    result = _renamed(v3, name)
    assert not result.ok and result.check == "objective_name" and reason in result.message, result.message
    assert len(result.message) < 300 and "\n" not in result.message


def test_wrong_name_on_a_large_objective_fails_before_expanding_it(v3):
    # Expanding P_2000 (4001 votes, the largest the work budget allows) takes seconds; a name of
    # another degree is refused without it.
    def edit(votes):
        def run(d):
            d["objective"].update(name="V3", degree=votes)
            d["objective"]["majority"][0].update(n=(votes - 1) // 2, votes=votes)
        return run

    start = time.perf_counter()
    result = verify(_edited(v3, edit(4001)))
    assert result.check == "objective_name" and "(degree 4001)" in result.message, result.message
    assert time.perf_counter() - start < 5
    assert _renamed(v3, "V4001").check == "objective_name"
    # beyond the budget the degree alone refuses the file, before the name is read
    beyond = verify(_edited(v3, edit(20001)))
    assert beyond.check == "work_limit" and "objective degree = 20001 exceeds the checker's work limit of 4001" in beyond.message
    assert _renamed(v3, "V20001").check == "objective_name"  # a name beyond the largest index is not a certified objective


def test_name_not_a_string_is_structure(v3):
    assert _renamed(v3, 3).check == "structure"


@pytest.mark.parametrize(
    "text",
    ["V3", "V4", "P3 - P1", "V7 - V3", "3*q**2 - 2*q**3", "V5 - q", "(P2 + P1)/2 - 1/4", "P1*P1", "V3**2", "2**-1*q",
     "-q**2", "1.5e-3*q - .5", "5.*V9", "q*-1", "V5*V5*V5", "(1)*q**0 + (-1/2)*q**2", "-(V5)", "1/2*(V3)", "- -q"],
)
def test_checker_reads_names_as_the_objective_parser_does(text):
    # Two independent readings of the same syntax: the checker's (stdlib + flint) and the project's (sympy).
    terms, rest = name_polynomial(text)
    mine = rest + sum((flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator)]) * majority_polynomial(n, {}) for n, c in terms.items()), flint.fmpq_poly([]))
    coeffs = [Fraction(int(c.p), int(c.q)) for c in mine.coeffs()] or [Fraction(0)]
    assert coeffs == list(parse_objective(text).monomial_coefficients())


def test_large_vote_terms_stay_unexpanded():
    # Sums of vote terms are never expanded: V4001 - V1 reads at once, as P_2000 - P_0.
    terms, rest = name_polynomial("V4001 - V1")
    assert terms == {2000: 1, 0: -1} and rest.is_zero()
    with pytest.raises(CheckFailed):
        name_polynomial("V4001*q")
    with pytest.raises(CheckFailed, match="beyond the largest majority index 2000"):
        name_polynomial("V4003 - V1")


# -- every field of a schema-1 certificate --------------------------------------------------

def _set_pair(data, path, value: Fraction) -> None:
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = [f"{value.numerator}/{value.denominator}", float(value)]


def _at(data, path):
    for key in path:
        data = data[key]
    return data


def _leaves(node, path=()):
    """(path, kind) of every field: 'pair' for an exact number, 'object' for an object, else 'scalar'."""
    if isinstance(node, list) and len(node) == 2 and isinstance(node[0], str) and "/" in node[0]:
        yield path, "pair"
    elif isinstance(node, dict):
        yield path, "object"
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    else:
        yield path, "scalar"


#: A change of each scalar field of the V3 certificate, and the check that must catch it.
SCALAR_EDITS = {
    ("schema_version",): ("9", "schema_version"),
    ("kind",): ("bounds", "structure"),
    ("side",): ("lower", "dual_sign"),
    ("objective", "name"): ("V101", "objective_name"),
    ("objective", "degree"): (5, "objective"),
    ("objective", "majority", 0, "n"): (2, "objective"),
    ("objective", "majority", 0, "votes"): (5, "objective"),
    ("moments", "order"): (3, "structure"),
    ("moments", "given", 0, "name"): ("nu", "moments"),
    ("moments", "given", 0, "text"): ("0.71", "moments"),
    ("moments", "given", 0, "exact_from"): ("binary64", "moments"),
    ("moments", "given", 1, "name"): ("nu", "moments"),
    ("moments", "given", 1, "text"): ("0.21", "moments"),
    ("moments", "given", 1, "exact_from"): ("binary64", "moments"),
    ("dual", "contacts", 0, "multiplicity"): (2, "contacts"),
    ("dual", "contacts", 1, "multiplicity"): (4, "contacts"),
}


@pytest.mark.parametrize("text", ["0_7", "\u0660.\u0667", " 0.7", "inf", "nan", "1e1001", "7/0", "0x1p-1", ""])
def test_moment_text_must_be_a_plain_number(v3, text):
    # Python's Fraction() and float() read more than the project writes ("0_7" is 7, Arabic-Indic digits);
    # the checker reads only what the builder writes, so a verdict never shows a disguised number.
    for rule in ("text", "binary64"):
        result = verify(_edited(v3, lambda d: d["moments"]["given"][0].update(text=text, exact_from=rule)))
        assert result.check == "moments" and "moments.given[0].text=" in result.message, result.message


def test_every_field_is_covered(v3):
    # The tables below name every field of the certificate: a new field fails here until it is tampered too.
    scalars = {p for p, kind in _leaves(v3) if kind == "scalar" and p[0] != "provenance"}
    assert scalars == set(SCALAR_EDITS)
    assert len([p for p, kind in _leaves(v3) if kind == "pair"]) >= 15


@pytest.mark.parametrize("path", list(SCALAR_EDITS), ids=lambda p: ".".join(map(str, p)))
def test_every_scalar_field_is_bound(v3, path):
    value, check = SCALAR_EDITS[path]
    data = _edited(v3, lambda d: _at(d, path[:-1]).__setitem__(path[-1], value))
    result = verify(data)
    assert not result.ok and result.check == check, result.message


def test_every_exact_number_is_bound_and_its_float_checked(v3):
    # Zero width: moving any exact number either way must fail; so must a readable float that lies.
    for path in [p for p, kind in _leaves(v3) if kind == "pair"]:
        old = Fraction(_at(v3, path)[0])
        for eps in (Fraction(1, 10**30), -Fraction(1, 10**30)):
            result = verify(_edited(v3, lambda d: _set_pair(d, path, old + eps)))
            assert not result.ok and result.check in CHECKS and result.check not in ("json", "structure"), (path, result.message)
        result = verify(_edited(v3, lambda d: _at(d, path).__setitem__(1, float(old) + 0.5)))
        assert result.check == "readable_floats" and ".".join(map(str, path)) in result.message.replace("[", ".").replace("]", ""), result.message


def test_every_key_is_required_and_no_other_is_accepted(v3):
    for path, kind in _leaves(v3):
        if kind != "object":
            continue
        extra = verify(_edited(v3, lambda d: _at(d, path).update(note="x" * 1000)))
        assert extra.check == "structure" and "unexpected keys ['note']" in extra.message, (path, extra.message)
        for key in _at(v3, path):
            if path + (key,) == ("objective", "majority", 0, "votes"):
                continue  # optional, for reading: checked against n when present
            missing = verify(_edited(v3, lambda d: _at(d, path).pop(key)))
            expected = "schema_version" if path + (key,) == ("schema_version",) else "structure"
            assert missing.check == expected and not missing.ok, (path, key, missing.message)


def test_provenance_values_are_informational(v3):
    result = verify(_edited(v3, lambda d: d["provenance"].update(seconds=99.0, created="yesterday")))
    assert result.ok and result.message == verify(v3).message


def test_consistent_rename_with_changed_terms_is_caught_by_the_proof(v3):
    # Name and terms changed together (V3 -> V5): the name now binds, so the mathematics must fail.
    def edit(d):
        d["objective"].update(name="V5", degree=5)
        d["objective"]["majority"][0].update(n=2, votes=5)

    result = verify(_edited(v3, edit))
    assert not result.ok and result.check in ("primal_value", "contacts", "dual_sign"), result.message


def test_verdict_states_objective_side_moments_and_enclosure(v3, gain):
    msg = verify(v3).message
    assert msg == ("upper bound of E[V3] in [0.78736, 0.78736] (width 0) over all laws on "
                   "[0, 1] with mu = 0.7, rho = 0.2 (exactly m1 = 7/10, m2 = 133/250)")
    assert "with mu = 4517/8192, nu = 3301/8192 (exactly m1 = 4517/8192, m2 = 3301/8192)" in verify(gain).message
    floats = certify_bound(3, "lower", mu=0.7, rho=0.2).to_dict()  # floats are taken bit for bit
    assert "mu = 0.7 (binary64), rho = 0.2 (binary64) (exactly m1 = 3152519739159347/4503599627370496, m2 = " in verify(floats).message


# -- schema 2 -----------------------------------------------------------------------------

def test_likelihood_renames(v5_lower):
    assert verify(v5_lower).ok
    for name in ("V7", "2*V5", "V5 + 1/10**30", "renamed", "V5 - V5"):
        result = _renamed(v5_lower, name)
        assert not result.ok and result.check == "objective_name", (name, result.message)
    for name in ("V6", "P2", "(V5 + V5)/2"):
        result = _renamed(v5_lower, name)
        assert result.ok and f"E[{name}]" in result.message, (name, result.message)


def test_likelihood_coefficient_change_is_caught_by_the_name(v5_lower):
    # Doubling g made a true statement about 2*V5 pass under the name V5; now the name refuses it.
    def scale(k):
        return lambda d: d["objective"]["majority"][0].update(coefficient=[str(k), float(k)])

    assert verify(_edited(v5_lower, scale(Fraction(2)))).check == "objective_name"
    doubled = verify(_edited(v5_lower, lambda d: scale(Fraction(2))(d) or d["objective"].update(name="2*V5")))
    assert doubled.ok and "E[2*V5] >= " in doubled.message  # true: 2 V5 >= V5 >= the bound
    halved = verify(_edited(v5_lower, lambda d: scale(Fraction(1, 2))(d) or d["objective"].update(name="V5/2")))
    assert halved.check == "lagrangian_sign", halved.message  # named honestly, but the bound is false for V5/2


def test_likelihood_every_object_refuses_unknown_keys(v5_lower):
    for path, kind in _leaves(v5_lower):
        if kind == "object":
            result = verify(_edited(v5_lower, lambda d: _at(d, path).update(note=1)))
            assert result.check == "structure" and "unexpected keys ['note']" in result.message, (path, result.message)


@pytest.mark.parametrize("label", ["chi2(1)/2\nOK", "x\rOK", "\x1b[32mOK", "x" * 201, 3])
def test_likelihood_calibration_label_is_printable(v5_lower, label):
    result = verify(_edited(v5_lower, lambda d: d["threshold"].update(calibration=label)))
    assert result.check == "structure" and "threshold.calibration" in result.message, result.message


def test_likelihood_verdict_states_the_data_summary(v5_lower):
    result = verify(v5_lower)
    n = sum(c["count"] for c in v5_lower["cells"])
    assert result.ok and n == 200
    assert result.message.startswith("lower bound of E[V5] >= 0.")
    printed = result.message.split(" >= ")[1].split(" ")[0]
    assert result.message == (f"lower bound of E[V5] >= {printed} for every law with log-likelihood >= l(reference) - 1.920729 "
                              "on 200 examples (K = 5)")
    exact = Fraction(v5_lower["bound"][0])  # rounded down to 10 significant digits: the printed bound is still proven
    assert exact - Fraction(1, 10**10) < Fraction(Decimal(printed)) <= exact
    # alpha and the calibration label are the producer's unchecked notes: they never reach the verdict
    bare = verify(_edited(v5_lower, lambda d: d["threshold"].update(alpha=None, calibration=None)))
    assert bare.ok and bare.message == result.message


def test_likelihood_verdict_ignores_an_injected_label(v5_lower):
    claim = "for EVERY law on [0, 1], no data needed (exact)"
    injected = verify(_edited(v5_lower, lambda d: d["threshold"].update(calibration=claim, alpha=0.999)))
    assert injected.ok and claim not in injected.message and "0.999" not in injected.message
    assert injected.message == verify(v5_lower).message
    assert "objective_name" in LIKELIHOOD_CHECKS and json.dumps(v5_lower)
