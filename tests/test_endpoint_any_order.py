"""V_inf bounds for every moment order: Chebyshev-Markov-Stieltjes via canonical representations.

Checked against the paper's closed forms (orders 1 and 2, Theorem 4.3), against an
independent linear program over a grid of laws (orders 3 to 6), and by properties a wrong
implementation breaks: every law with the moments has its V_inf inside the bounds, the
approaching sequences stay in the class and reach the bounds, boundary classes are one law.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import linprog

from certify import endpoint_bounds
from certify._endpoint import endpoint_value
from certify._bounds import as_moments
from certify._canonical import boundary_law, canonical_law, is_interior
from certify._results import Law

HALF = Fraction(1, 2)


def _moments_of(atoms, weights, order):
    return [sum(Fraction(w) * Fraction(a) ** j for a, w in zip(atoms, weights)) for j in range(1, order + 1)]


def _beta_moments(a: int, b: int, order: int):
    """E[Q^j] of Beta(a, b), exact: prod_{i<j} (a + i) / (a + b + i)."""
    out, m = [], Fraction(1)
    for i in range(order):
        m *= Fraction(a + i, a + b + i)
        out.append(m)
    return out


def _bounds(exact):
    return endpoint_bounds(moments=as_moments(moments=[f"{c.numerator}/{c.denominator}" for c in exact]))


def _grid_lp(exact, upper: bool, size: int = 4001):
    """sup of P(Q >= 1/2) / inf of P(Q > 1/2) over laws on a grid holding 1/2: an independent LP."""
    x = np.linspace(0.0, 1.0, size)
    assert x[(size - 1) // 2] == 0.5
    a_eq = np.vstack([x**j for j in range(len(exact) + 1)])
    b_eq = np.array([1.0] + [float(c) for c in exact])
    c = -(x >= 0.5).astype(float) if upper else (x > 0.5).astype(float)
    res = linprog(c, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return -res.fun if upper else res.fun


def test_orders_one_and_two_match_theorem_4_3():
    rng = np.random.default_rng(20261123)
    worst = 0.0
    for _ in range(200):
        mu = float(rng.uniform(0.01, 0.99))
        nu = float(rng.uniform(mu * mu, mu))
        closed = endpoint_bounds(mu=mu, nu=nu)
        sigma = canonical_law([Fraction(mu), Fraction(nu)], HALF)
        worst = max(worst, abs(sigma.mass_at_least_t - closed.upper), abs(sigma.mass_above_t - closed.lower))
        one = endpoint_bounds(mu=mu)
        sigma1 = canonical_law([Fraction(mu)], HALF)
        worst = max(worst, abs(sigma1.mass_at_least_t - one.upper), abs(sigma1.mass_above_t - one.lower))
    assert worst < 1e-12


@pytest.mark.parametrize("order", [3, 4, 5, 6])
@pytest.mark.parametrize("ab", [(2, 3), (5, 2), (1, 1)])
def test_orders_three_to_six_match_a_grid_linear_program(order, ab):
    exact = _beta_moments(*ab, order)
    b = _bounds(exact)
    up, lo = _grid_lp(exact, True), _grid_lp(exact, False)
    # A grid law is a law of the class: the LP can only be inside the sharp bounds, and
    # on 4001 points it comes within the grid's resolution of them.
    assert up <= b.upper + 1e-7 and lo >= b.lower - 1e-7
    assert b.upper - up < 2e-3 and lo - b.lower < 2e-3
    # The true law (Beta) lies in the class.
    from scipy.stats import beta

    v = float(beta.sf(0.5, *ab))
    assert b.lower <= v <= b.upper
    assert not (b.lower_attained or b.upper_attained)


@settings(max_examples=60, deadline=None)
@given(
    atoms=st.lists(st.fractions(0, 1, max_denominator=40), min_size=2, max_size=6, unique=True),
    raw=st.lists(st.integers(1, 20), min_size=7, max_size=7),
    order=st.integers(3, 6),
    with_half=st.booleans(),
)
def test_every_law_of_the_class_lies_inside(atoms, raw, order, with_half):
    if with_half and HALF not in atoms:
        atoms = atoms + [HALF]
    weights = [Fraction(r, sum(raw[: len(atoms)])) for r in raw[: len(atoms)]]
    exact = _moments_of(atoms, weights, order)
    b = _bounds(exact)
    v = endpoint_value(Law(tuple(float(a) for a in atoms), tuple(float(w) for w in weights)))
    assert b.lower - 1e-12 <= v <= b.upper + 1e-12


def test_sequences_stay_in_the_class_and_reach_the_bounds():
    exact = _beta_moments(2, 3, 4)
    b = _bounds(exact)
    for side, target in (("upper", b.upper), ("lower", b.lower)):
        gaps = []
        for eps in (1e-2, 1e-4, 1e-6):
            law = b.sequence(side, eps)
            got = [sum(w * a**j for a, w in zip(law.atoms, law.weights)) for j in range(1, 5)]
            assert np.allclose(got, [float(c) for c in exact], atol=1e-13)
            assert min(law.weights) >= 0 and 0 <= min(law.atoms) and max(law.atoms) <= 1
            gaps.append(abs(endpoint_value(law) - target))
        assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-5


@pytest.mark.parametrize(
    "atoms,weights,value",
    [
        ([HALF], [1], 0.5),  # a point mass at 1/2: half of it counts
        ([Fraction(3, 10), Fraction(7, 10)], [HALF, HALF], 0.5),
        ([HALF, 1], [Fraction(1, 3), Fraction(2, 3)], 5 / 6),
        ([0, HALF, 1], [Fraction(1, 4), Fraction(1, 4), HALF], 0.625),
    ],
)
@pytest.mark.parametrize("order", [4, 6])
def test_boundary_classes_are_one_law(atoms, weights, value, order):
    exact = _moments_of(atoms, weights, order)
    assert not is_interior(exact)
    law = boundary_law(exact, HALF)
    assert sorted(law.atoms) == pytest.approx([float(a) for a in atoms], abs=1e-15)
    b = _bounds(exact)
    assert b.lower == b.upper == pytest.approx(value, abs=1e-15)
    assert b.lower_attained and b.upper_attained


def test_sup_one_is_attained_only_by_a_law_above_half():
    # Uniform on [0.6, 1] (moments interior to those of [1/2, 1]): a law on (1/2, 1] attains 1.
    exact = [(Fraction(1) ** (j + 1) - Fraction(3, 5) ** (j + 1)) / ((j + 1) * Fraction(2, 5)) for j in range(1, 5)]
    b = _bounds(exact)
    assert b.upper == 1.0 and b.upper_attained and not b.lower_attained
    # Laws on [1/2, 1] that must keep an atom at 1/2 (the boundary of that moment space): 1 is not attained.
    exact = _moments_of([HALF, Fraction(3, 4), 1], [Fraction(1, 3)] * 3, 4)
    assert is_interior(exact)
    b = _bounds(exact)
    assert b.upper == 1.0 and not b.upper_attained


def test_floating_noise_outside_the_moment_space_is_handled():
    # moments of {0.3, 0.7} as floats: the exact binary values are just outside the moment space
    b = endpoint_bounds(moments=as_moments(moments=[0.5, 0.29, 0.185, 0.1241]))
    assert b.lower == pytest.approx(0.5, abs=1e-9) and b.upper == pytest.approx(0.5, abs=1e-9)


def test_order_one_hundred():
    exact = [Fraction(2, j + 2) for j in range(1, 101)]  # density 2q: P(Q > 1/2) = 3/4
    b = _bounds(exact)
    assert b.lower <= 0.75 <= b.upper and b.upper - b.lower < 0.05
