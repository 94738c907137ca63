"""Objective syntax, exact coefficients and stable evaluation."""

import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy

from certify import ObjectiveError, parse_objective, vote_accuracy
from certify._objective import majority_objective


def test_paper_and_vote_indexing_agree():
    a = parse_objective("P3 - P1")
    b = parse_objective("V7 - V3")
    assert a.majority == b.majority == ((Fraction(-1), 1), (Fraction(1), 3))
    # P3 - P1 at q = 0.3 from the explicit binomial tails (computed with sympy below).
    q = sympy.Rational(3, 10)
    ref = sum(sympy.binomial(7, l) * q**l * (1 - q) ** (7 - l) for l in range(4, 8)) - (3 * q**2 - 2 * q**3)
    assert a.evaluate(0.3) == pytest.approx(float(ref), abs=1e-15)


def test_even_votes_collapse_in_syntax():
    assert parse_objective("V4").majority == vote_accuracy(3).majority
    assert parse_objective("V2").majority == ((Fraction(1), 0),)


def test_polynomial_and_mixed_forms():
    o = parse_objective("3*q**2 - 2*q**3")
    assert o.monomial_coefficients() == (0, 0, 3, -2)
    assert o.evaluate(0.25) == pytest.approx(3 / 16 - 2 / 64, abs=1e-16)
    mixed = parse_objective("V5 - q")
    assert mixed.monomial_coefficients() == (0, -1, 0, 10, -15, 6)
    caret = parse_objective("q^2/2 + 0.25")
    assert caret.monomial_coefficients() == (Fraction(1, 4), 0, Fraction(1, 2))


def test_products_are_expanded_exactly():
    o = parse_objective("P1*P1")
    assert o.monomial_coefficients() == (0, 0, 0, 0, 9, -12, 4)


def test_coefficient_list_and_sympy_inputs():
    q = sympy.Symbol("q")
    assert parse_objective([0, 0, 3, -2]).monomial_coefficients() == (0, 0, 3, -2)
    assert parse_objective(3 * q**2 - 2 * q**3).monomial_coefficients() == (0, 0, 3, -2)


def test_high_degree_evaluation_is_stable():
    # V1001 - V999: difference of two adjacent budgets, evaluated through betainc.
    o = parse_objective("V1001 - V999")
    vals = o.evaluate(np.linspace(0, 1, 11))
    assert np.all(np.isfinite(vals)) and np.max(np.abs(vals)) < 0.05


@pytest.mark.parametrize("text", ["V5 - 2*V3 + 3*q**2 - q", "V7", "-(V9)", "q**3 - q", "V3 - V3"])
def test_jet_on_arrays_against_exact_derivatives(text):
    """g, g' and g'' on an array (the path Newton uses) against sympy's exact monomial derivatives."""
    o = parse_objective(text)
    q = sympy.Symbol("q")
    poly = sum(sympy.Rational(c.numerator, c.denominator) * q**i for i, c in enumerate(o.monomial_coefficients()))
    points = np.array([0.0, 0.05, 0.3, 0.5, 0.77, 1.0])
    jet = o.evaluate_jet(points)
    assert len(jet) == 3 and all(v.shape == points.shape for v in jet)
    for d, values in enumerate(jet):
        exact = [float(sympy.diff(poly, q, d).subs(q, sympy.Rational(x))) for x in points.tolist()]
        np.testing.assert_allclose(values, exact, rtol=0, atol=1e-12)
    # any order and subset of derivatives gives the same arrays
    d2, d0 = o.evaluate_jet(points, (2, 0))
    assert np.array_equal(d2, jet[2]) and np.array_equal(d0, jet[0])


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("x + 1", "unknown name 'x'"),
        ("V0", "0 votes"),
        ("sin(q)", "unknown name 'sin'"),
        ("1/q", "not a polynomial"),
        ("P1 +", "not a valid expression"),
        ("q; import os", "unexpected character"),
        ("", "empty"),
        ("q**-1", "not a polynomial"),
    ],
)
def test_rejections_name_the_problem(text, fragment):
    with pytest.raises(ObjectiveError, match=fragment.replace("(", r"\(")):
        parse_objective(text)


def test_bad_types():
    with pytest.raises(ObjectiveError):
        parse_objective(3.5)
    with pytest.raises(ObjectiveError):
        parse_objective([])
    with pytest.raises(ObjectiveError):
        parse_objective([float("nan")])
    with pytest.raises(ObjectiveError):
        majority_objective(-1)


def test_round_trip_dict():
    o = parse_objective("(P2 + P1)/2 - 1/4 + q**3")
    assert type(o).from_dict(o.to_dict()) == o


# -- hostile objectives: refused before any expansion, with the limit named --------------------

@pytest.mark.parametrize(("text", "message"), [
    ("9**9**9", "exponent 9**9 must be an integer literal of at most 512"),
    ("(1+q)**2000", "exponent 2000 must be an integer literal of at most 512"),
    ("q**4000", "exponent 4000 must be an integer literal of at most 512"),
    ("q**100000", "exponent 100000 must be an integer literal of at most 512"),
    ("(q**2)**300", "expanding it gives degree up to 600, more than the limit 512"),
    ("V301*V301", "expanding it gives degree up to 602, more than the limit 512"),
    ("1e400*q", "the number 1.00E+400 is outside the allowed magnitudes"),
    ("1e-400*q", "the number 1.00E-400 is outside the allowed magnitudes"),
    ("10**400*q", "10**400 is outside the allowed magnitudes"),
    ("q" + "+q" * 1500, "longer than the limit 2000"),
    ("(" * 60 + "q" + ")" * 60, "parentheses nested 60 deep, more than the limit 50"),
])
def test_hostile_objectives_are_refused_before_expansion(text, message):
    with pytest.raises(ObjectiveError, match=re.escape(message)):
        parse_objective(text)


@pytest.mark.parametrize(("text", "coefficients"), [
    ("2**-1*q", [0, Fraction(1, 2)]),
    ("0.5**2*q - 1/7", [Fraction(-1, 7), Fraction(1, 4)]),
    ("V3**2", [0, 0, 0, 0, 9, -12, 4]),  # (3q^2 - 2q^3)^2
])
def test_small_powers_still_expand_exactly(text, coefficients):
    got = list(parse_objective(text).monomial_coefficients())
    assert got == [Fraction(c) for c in coefficients]


def test_sums_of_large_vote_terms_need_no_expansion():
    assert parse_objective("V4001 - V1").degree == 4001


def test_cli_refuses_a_hostile_objective_at_once():
    run = subprocess.run([sys.executable, "-m", "certify.cli.main", "bounds", "--mu", "0.7", "--rho", "0.2",
                          "--objective", "9**9**9"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "exponent 9**9" in run.stderr and "Traceback" not in run.stderr
