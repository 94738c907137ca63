"""Closed forms: Theorem 4.2 (three votes), eq. (onecall-envelope-main), Appendix A.3 and Theorem 4.3 (infinite votes)."""

import numpy as np
import pytest
from scipy.optimize import linprog

from certify import (
    InputError,
    endpoint_bounds,
    improvement_threshold,
    one_call_three_vote_envelope,
    three_vote_bounds,
)
from certify._endpoint import endpoint_value

GRID = [(mu, rho) for mu in np.linspace(0.01, 0.99, 60) for rho in np.linspace(0, 1, 41)]


def test_three_vote_width_and_rho_form():
    for mu, rho in GRID:
        b = three_vote_bounds(mu, rho=rho)
        s = mu * (1 - mu) * (1 - rho)
        # eq. (main-vinf)-(3.4) in the rho parametrization, written out independently
        assert b.lower == pytest.approx(mu + s * (2 * mu * (1 - rho) - 1), abs=1e-14)
        assert b.upper == pytest.approx(mu + s * (2 * mu + 2 * rho * (1 - mu) - 1), abs=1e-14)
        assert b.width == pytest.approx(2 * mu * (1 - mu) * rho * (1 - rho), abs=1e-14)
        assert b.width <= 1 / 8 + 1e-15
    assert three_vote_bounds(0.5, rho=0.5).width == pytest.approx(1 / 8, abs=1e-15)


def test_improvement_criterion():
    for mu, rho in GRID:
        b = three_vote_bounds(mu, rho=rho)
        threshold = improvement_threshold(mu)
        if abs(rho - threshold) < 1e-9 or rho in (1.0,):
            continue
        assert b.certifies_improvement == (mu > 0.5 and rho < threshold)


def test_three_vote_endpoints():
    assert three_vote_bounds(0.0, nu=0.0).lower == 0.0
    b = three_vote_bounds(1.0, nu=1.0)
    assert b.lower == b.upper == 1.0


def test_one_call_envelope_pieces_meet():
    # value and slope continuity at 1/4 and 3/4 (proof of eq. (onecall-envelope-main), Appendix A.3)
    lo_a, _ = one_call_three_vote_envelope(0.25 - 1e-9)
    lo_b, _ = one_call_three_vote_envelope(0.25 + 1e-9)
    assert lo_a == pytest.approx(lo_b, abs=1e-8)
    _, up_a = one_call_three_vote_envelope(0.75 - 1e-9)
    _, up_b = one_call_three_vote_envelope(0.75 + 1e-9)
    assert up_a == pytest.approx(up_b, abs=1e-8)
    for mu in np.linspace(0.01, 0.99, 99):
        lo, up = one_call_three_vote_envelope(mu)
        assert lo <= mu + 1e-15  # one call never certifies a three-vote gain


def _endpoint_lp(mu, nu, side):
    """sup / inf of V_inf over laws on a fine grid that straddles 1/2 by 1e-9 (an independent LP)."""
    x = np.unique(np.concatenate([np.linspace(0, 1, 4001), [0.5 - 1e-9, 0.5 + 1e-9]]))
    h = np.where(x > 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))
    A = np.vstack([np.ones_like(x), x, x * x])
    sign = -1.0 if side == "upper" else 1.0
    res = linprog(sign * h, A_eq=A, b_eq=[1, mu, nu], bounds=(0, None), method="highs")
    assert res.status == 0
    return sign * res.fun


@pytest.mark.parametrize("mu,rho", [(0.3, 0.2), (0.3, 0.7), (0.45, 0.05), (0.7, 0.2), (0.7, 0.8), (0.55, 0.5), (0.9, 0.3), (0.2, 0.95)])
def test_endpoint_against_grid_lp(mu, rho):
    b = endpoint_bounds(mu, rho=rho)
    nu = mu * mu + rho * mu * (1 - mu)
    assert b.upper == pytest.approx(_endpoint_lp(mu, nu, "upper"), abs=1e-5)
    assert b.lower == pytest.approx(_endpoint_lp(mu, nu, "lower"), abs=1e-5)


@pytest.mark.parametrize("mu,rho", [(0.3, 0.2), (0.7, 0.2), (0.7, 0.8), (0.55, 0.5), (0.3, 1.0), (0.6, 0.0), (0.5, 0.0)])
def test_endpoint_sequences_have_the_moments_and_converge(mu, rho):
    b = endpoint_bounds(mu, rho=rho)
    nu = b.moments[1]
    for side, bound, attained in (("upper", b.upper, b.upper_attained), ("lower", b.lower, b.lower_attained)):
        gaps = []
        for eps in (1e-2, 1e-4, 1e-6):
            law = b.sequence(side, eps)
            np.testing.assert_allclose(law.moments(2), [mu, nu], atol=1e-12)
            assert min(law.weights) >= -1e-15 and all(0 <= a <= 1 for a in law.atoms)
            gaps.append(abs(endpoint_value(law) - bound))
        if attained:
            assert gaps[-1] <= 1e-12
        else:
            assert gaps[-1] <= 1e-5 and gaps[-1] <= gaps[0]


def test_endpoint_special_points_and_one_call():
    b = endpoint_bounds(0.5, nu=0.25)
    assert b.lower == b.upper == 0.5
    b = endpoint_bounds(0.3)
    assert (b.lower, b.upper) == (0.0, pytest.approx(0.6))
    b = endpoint_bounds(0.7)
    assert (b.lower, b.upper) == (pytest.approx(0.4), 1.0)
    assert not b.lower_attained and b.upper_attained


def test_endpoint_brackets_random_laws():
    # Moments computed exactly (V_inf jumps at 1/2, so a point mass at 1/2 must
    # not become one at 0.49999999999999994 through rounding).
    from fractions import Fraction

    rng = np.random.default_rng(3)
    for _ in range(300):
        k = int(rng.integers(1, 5))
        atoms = [Fraction(int(i), 20) for i in rng.integers(0, 21, size=k)]
        raw = [Fraction(int(i)) for i in rng.integers(1, 100, size=k)]
        w = [r / sum(raw) for r in raw]
        mu = float(sum(wi * a for wi, a in zip(w, atoms)))
        nu = float(sum(wi * a * a for wi, a in zip(w, atoms)))
        b = endpoint_bounds(mu, nu=nu)
        v = float(sum(wi for wi, a in zip(w, atoms) if a > Fraction(1, 2)) + sum(wi for wi, a in zip(w, atoms) if a == Fraction(1, 2)) / 2)
        assert b.lower - 1e-12 <= v <= b.upper + 1e-12


def test_sequence_rejects_bad_arguments():
    b = endpoint_bounds(0.7, rho=0.2)
    with pytest.raises(InputError, match="side"):
        b.sequence("middle", 1e-3)
    with pytest.raises(InputError, match="eps"):
        b.sequence("upper", 0.0)
    # Order 3 has bounds too (tests/test_endpoint_any_order.py); its sequences check eps alike.
    with pytest.raises(InputError, match="eps"):
        endpoint_bounds(moments=certify_moments()).sequence("lower", 0.5)


def certify_moments():
    from certify import moment_class

    return moment_class(values=[0.5, 0.3, 0.2])
