"""The vectorized path gives the per-point engine's values on whole grids."""

import numpy as np
import pytest

from certify import InfeasibleMomentsError, InputError, sharp_bound_arrays, sharp_bounds, three_vote_bounds


def test_three_vote_grid_against_closed_form():
    # Theorem 4.2 on a 120 x 120 (mu, rho) grid including rho = 0, 1 and mu = 0, 1.
    M, R = np.meshgrid(np.linspace(0, 1, 120), np.linspace(0, 1, 120))
    b = sharp_bound_arrays(3, mu=M, rho=R)
    assert b.lower.shape == M.shape
    cf = [three_vote_bounds(m, rho=r) for m, r in zip(M.ravel(), R.ravel())]
    assert np.max(np.abs(b.lower.ravel() - [c.lower for c in cf])) <= 1e-12
    assert np.max(np.abs(b.upper.ravel() - [c.upper for c in cf])) <= 1e-12


@pytest.mark.parametrize("spec", ["V5", "V101", "P3 - P1"])
def test_matches_pointwise_engine(spec):
    rng = np.random.default_rng(11)
    mu = rng.uniform(0, 1, 3000)
    rho = rng.uniform(0, 1, 3000)
    rho[:50] = 0.0
    rho[50:100] = 1.0
    b = sharp_bound_arrays(spec, mu=mu, rho=rho)
    # every point: the vectorized checks must never accept what the engine would not
    ref = [sharp_bounds(spec, mu=m, rho=r) for m, r in zip(mu, rho)]
    assert np.max(np.abs(b.lower - [x.lower.value for x in ref])) <= 1e-12
    assert np.max(np.abs(b.upper - [x.upper.value for x in ref])) <= 1e-12
    assert np.all(b.lower <= b.upper + 1e-15)
    assert b.paths["pointwise"] <= 0.05 * 2 * len(mu)  # the vectorized steps carry the load


@pytest.mark.parametrize("votes", [3, 9, 101])
def test_agrees_with_pointwise_engine_to_rounding(votes):
    # Both paths run the same routes and polishers, so on the same (mu, nu) they agree
    # to 1e-15, also where nu - mu^2 is down to 1e-12 and the contacts crowd around mu.
    rng = np.random.default_rng(20260522)
    mu = rng.uniform(0.02, 0.98, 300)
    gap = np.concatenate([10.0 ** rng.uniform(-12, -6, 140), np.full(10, 1e-12), rng.uniform(0.0, 1.0, 150)])
    nu = np.where(np.arange(300) < 150, mu * mu + gap, mu * mu + gap * mu * (1 - mu))
    b = sharp_bound_arrays(votes, mu=mu, nu=nu)
    ref = [sharp_bounds(votes, mu=m, nu=n) for m, n in zip(mu.tolist(), nu.tolist())]
    assert np.max(np.abs(b.lower - [x.lower.value for x in ref])) <= 1e-15
    assert np.max(np.abs(b.upper - [x.upper.value for x in ref])) <= 1e-15
    assert b.paths["pointwise"] <= 0.15 * 2 * len(mu)


def test_rho_gives_the_same_nu_as_the_point_path():
    # Both paths round mu^2 + rho mu (1 - mu) once, from the exact value: the same nu to
    # the last bit, so the same bounds (a float formula is one ulp off at about a quarter
    # of these points).
    rng = np.random.default_rng(5)
    mu = np.concatenate([rng.uniform(0, 1, 400), rng.uniform(0, 1e-6, 100), [0.0, 1.0, 0.5]])
    rho = np.concatenate([rng.uniform(0, 1, 500), [0.3, 0.7, 1.0]])
    b = sharp_bound_arrays(9, mu=mu, rho=rho)
    ref = [sharp_bounds(9, mu=m, rho=r) for m, r in zip(mu.tolist(), rho.tolist())]
    assert b.nu.tolist() == [x.moments[1] for x in ref]
    assert np.max(np.abs(b.lower - [x.lower.value for x in ref])) <= 1e-15
    assert np.max(np.abs(b.upper - [x.upper.value for x in ref])) <= 1e-15


def test_scalar_inputs_give_zero_dimensional_arrays():
    b = sharp_bound_arrays(5, mu=0.5, rho=0.5)
    ref = sharp_bounds(5, mu=0.5, rho=0.5)
    assert b.lower.shape == () and b.upper.shape == ()
    assert float(b.lower) == pytest.approx(ref.lower.value, abs=1e-15)
    assert float(b.upper) == pytest.approx(ref.upper.value, abs=1e-15)


def test_errors_name_the_index():
    with pytest.raises(InfeasibleMomentsError, match=r"\[1\].*nu <= mu"):
        sharp_bound_arrays(5, mu=[0.5, 0.7], nu=[0.3, 0.8])
    with pytest.raises(InputError, match="finite"):
        sharp_bound_arrays(5, mu=[0.5, np.nan], rho=[0.3, 0.2])
    with pytest.raises(InputError, match="exactly one"):
        sharp_bound_arrays(5, mu=[0.5])
    with pytest.raises(InfeasibleMomentsError, match="rho"):
        sharp_bound_arrays(5, mu=[0.5], rho=[1.5])
