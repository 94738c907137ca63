"""Majority polynomials P_n: stable evaluation, exact coefficients, even-budget collapse."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from certify import InputError, majority_polynomial
from certify._majority import majority_index
from certify._majority import (
    fair_tie_even_coefficients,
    majority_bernstein_coefficients,
    majority_monomial_coefficients,
    majority_polynomial_jet,
)
from certify._bernstein import bernstein_to_monomial, monomial_to_bernstein


def _binomial_tail_exact(n: int):
    """P_n expanded independently with sympy from its definition sum_{l>n} C(2n+1,l) q^l (1-q)^(2n+1-l)."""
    q = sympy.Symbol("q")
    d = 2 * n + 1
    expr = sum(sympy.binomial(d, l) * q**l * (1 - q) ** (d - l) for l in range(n + 1, d + 1))
    poly = sympy.Poly(sympy.expand(expr), q)
    coeffs = [0] * (d + 1)
    for (k,), c in zip(poly.monoms(), poly.coeffs()):
        coeffs[k] = int(c)
    return coeffs


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 12])
def test_monomial_coefficients_match_sympy_expansion(n):
    assert list(majority_monomial_coefficients(n)) == _binomial_tail_exact(n)


def test_known_small_polynomials():
    # P_1 = 3q^2 - 2q^3 and P_2 = 10q^3 - 15q^4 + 6q^5 (paper Section 4.2 and App. B).
    assert majority_monomial_coefficients(1) == (0, 0, 3, -2)
    assert majority_monomial_coefficients(2) == (0, 0, 0, 10, -15, 6)


@pytest.mark.parametrize("n", range(1, 51))
def test_even_budget_collapse_exact(n):
    # Fair-tie 2n votes equals 2n-1 votes (App. A.1), checked in exact rationals.
    even = fair_tie_even_coefficients(n)
    odd = [Fraction(c) for c in majority_monomial_coefficients(n - 1)]
    odd += [Fraction(0)] * (len(even) - len(odd))
    assert list(even) == odd


@pytest.mark.parametrize("votes,n", [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (1001, 500), (1002, 500)])
def test_majority_index(votes, n):
    assert majority_index(votes) == n


@pytest.mark.parametrize("bad", [0, -3, 2.5, "3", True, None])
def test_majority_index_rejects(bad):
    with pytest.raises(InputError, match="votes"):
        majority_index(bad)


@pytest.mark.parametrize("n", [1, 2, 10, 50, 250, 500, 1000])
def test_stable_evaluation_against_mpmath(n):
    # Reference: mpmath's regularized incomplete beta at 50 digits, and the beta
    # density for the derivative.
    qs = [0.001, 0.2, 0.45, 0.4999, 0.5, 0.5001, 0.55, 0.8, 0.999]
    vals = majority_polynomial(n, np.array(qs))
    der = majority_polynomial(n, np.array(qs), 1)
    with mpmath.workdps(50):
        for q, v, d in zip(qs, vals, der):
            ref = mpmath.betainc(n + 1, n + 1, 0, mpmath.mpf(q), regularized=True)
            dref = mpmath.mpf(q) ** n * (1 - mpmath.mpf(q)) ** n / mpmath.beta(n + 1, n + 1)
            # absolute accuracy near rounding; relative accuracy 1e-12 even in 1e-200 tails
            assert abs(v - float(ref)) <= 1e-12 * float(abs(ref)) + 2e-16
            # the density is exp of a log of size ~n, so relative error grows like n * eps
            assert abs(d - float(dref)) <= 1e-11 * float(abs(dref)) + 1e-300


@pytest.mark.parametrize("n", [1, 3, 20])
def test_second_derivative_against_finite_difference_of_exact_polynomial(n):
    coeffs = [Fraction(c) for c in majority_monomial_coefficients(n)]
    q0 = Fraction(3, 10)
    second = sum(k * (k - 1) * c * q0 ** (k - 2) for k, c in enumerate(coeffs) if k >= 2)
    assert majority_polynomial(n, 0.3, 2) == pytest.approx(float(second), rel=1e-12)


def test_bernstein_form_is_zero_one():
    for n in (0, 1, 5, 30):
        b = majority_bernstein_coefficients(n)
        assert monomial_to_bernstein(majority_monomial_coefficients(n)) == tuple(Fraction(x) for x in b)
        assert bernstein_to_monomial(b) == tuple(Fraction(x) for x in majority_monomial_coefficients(n))


@pytest.mark.parametrize("n,degree", [(1, 2000), (4, 700)])
def test_bernstein_form_at_a_high_degree_is_a_hypergeometric_tail(n, degree):
    """Degree elevation of the 0/1 coefficients: b_k = Pr{at least n+1 of 2n+1 draws without
    replacement from k successes among ``degree``}, exact with Python integers."""
    b = monomial_to_bernstein(majority_monomial_coefficients(n), degree)
    assert len(b) == degree + 1
    d = 2 * n + 1
    for k in (0, 1, n + 1, degree // 3, degree // 2, degree - 1, degree):
        tail = sum(math.comb(k, j) * math.comb(degree - k, d - j) for j in range(n + 1, d + 1))
        assert b[k] == Fraction(tail, math.comb(degree, d))


def test_symmetry_and_half():
    q = np.linspace(0, 1, 101)
    for n in (1, 7, 500):
        np.testing.assert_allclose(majority_polynomial(n, q) + majority_polynomial(n, 1 - q), 1.0, atol=1e-14)
        assert majority_polynomial(n, 0.5) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("n", [0, 1, 2, 9, 50, 500])
@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1,), (2, 2)])
def test_jet_against_mpmath_derivatives(n, order):
    """The shared-log jet in any order against 50-digit derivatives of I_q(n+1, n+1), endpoints included."""
    qs = [0.0, 1e-3, 0.3, 0.4999, 0.5, 0.73, 0.999, 1.0]
    got = majority_polynomial_jet(n, np.array(qs), order)
    assert len(got) == len(order)
    with mpmath.workdps(50):
        beta = mpmath.beta(n + 1, n + 1)
        for q, *vals in zip(qs, *got):
            x = mpmath.mpf(q)
            ref = {0: mpmath.betainc(n + 1, n + 1, 0, x, regularized=True),
                   1: x**n * (1 - x) ** n / beta,
                   # d/dq of the density: n q^(n-1) (1-q)^(n-1) (1 - 2q) / B
                   2: (n * x ** (n - 1) * (1 - x) ** (n - 1) * (1 - 2 * x) / beta) if n else mpmath.mpf(0)}
            for d, v in zip(order, vals):
                assert abs(v - float(ref[d])) <= 1e-11 * float(abs(ref[d])) + 2e-16, (n, q, d)


@pytest.mark.parametrize("order", [(3,), (0, 1, -1)])
def test_jet_rejects_a_derivative_it_does_not_have(order):
    with pytest.raises(InputError, match=r"derivative=(3|-1) must be 0, 1 or 2"):
        majority_polynomial_jet(2, [0.3], order)
