"""Objective syntax, exact coefficients and stable evaluation."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from certify import ObjectiveError, majority_objective, parse_objective, vote_accuracy


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
