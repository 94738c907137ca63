"""Projected Wald regions (eqs. 3.7-3.8): exactness against brute force, coverage, singular cases."""

import numpy as np
import pytest
from scipy import integrate, stats
from stats_brute import brute_interval
from stats_helpers import simulate_bits

from certify import InputError, majority_polynomial, sharp_bounds
from certify.stats import (
    EmptyRegionError,
    project,
    project_many,
    two_call_estimates,
    two_call_from_summary,
    wald_region,
)
from certify.readers import bits_from_array

CASES = [
    ((0.7811, 8192, dict(rho=0.5563)), 3),  # the example
    ((0.7811, 8192, dict(rho=0.5563)), "V5 - V1"),
    ((0.6, 200, dict(rho=0.0)), 5),  # sample on the parabola nu = mu^2
    ((0.52, 300, dict(rho=0.1)), 5),
    ((0.3, 50, dict(rho=0.4)), "inf"),
    ((0.9, 100, dict(rho=1.0)), 3),  # no disagreements: singular Sigma, floor, edge nu = mu
    ((0.45, 1000, dict(rho=0.05)), "V3 - V1"),
]


@pytest.mark.parametrize("summary, objective", CASES)
def test_projection_matches_brute_force(summary, objective):
    mu, n, kw = summary
    region = wald_region(two_call_from_summary(mu, n, **kw))
    p = project(region, objective)
    lo, up = brute_interval(region, objective)
    assert abs(p.lower - lo) < 1e-6 and abs(p.upper - up) < 1e-6
    # the search never beats a feasible point by more than rounding (its optimum is a point of C)
    assert p.lower <= lo + 1e-12 and p.upper >= up - 1e-12
    assert region.contains(*p.lower_at, tol=1e-9) and region.contains(*p.upper_at, tol=1e-9)
    if objective != "inf":
        assert p.lower_gap < 1e-9 and p.upper_gap < 1e-9  # supporting-plane certificate


def test_hull_contains_the_sharp_interval_at_the_estimate():
    est = two_call_from_summary(0.7, 500, rho=0.3)
    p = project(wald_region(est), 3)
    b = sharp_bounds(3, mu=est.mu, nu=est.nu)
    assert p.lower <= b.lower.value and b.upper.value <= p.upper
    # and it shrinks towards the sharp interval as n grows (identification remains)
    big = project(wald_region(two_call_from_summary(0.7, 10**8, rho=0.3)), 3)
    assert big.lower == pytest.approx(b.lower.value, abs=5e-4) and big.upper == pytest.approx(b.upper.value, abs=5e-4)


def test_batched_equals_single():
    regions = [wald_region(two_call_from_summary(m, 400, rho=r)) for m, r in [(0.6, 0.2), (0.8, 0.5)]]
    many = project_many(regions, [3, 5], certify=False)
    for reg, row in zip(regions, many):
        for obj, iv in zip([3, 5], row):
            single = project(reg, obj, certify=False)
            assert (iv.lower, iv.upper) == (single.lower, single.upper)


def _true_v(n, a, b):
    """V_n of a Beta(a, b) latent law by adaptive quadrature (independent of certify's engine)."""
    return integrate.quad(lambda q: float(majority_polynomial(n, q)) * stats.beta.pdf(q, a, b), 0, 1, epsabs=1e-13)[0]


def test_coverage_beta_latent_law():
    """Over simulated data sets, theta is in C_alpha at ~ the nominal rate and the hull covers V_1."""
    rng = np.random.default_rng(11)
    a, b, n, reps, alpha = 2.0, 1.2, 300, 200, 0.05
    theta = np.array([a / (a + b), a * (a + 1) / ((a + b) * (a + b + 1))])
    regions = [wald_region(two_call_estimates(bits_from_array(simulate_bits(rng.beta(a, b, n), 2, rng))), alpha) for _ in range(reps)]
    in_region = np.mean([r.contains(*theta) for r in regions])
    v1 = _true_v(1, a, b)
    hulls = project_many(regions, [3], certify=False)
    covered = np.mean([row[0].lower <= v1 <= row[0].upper for row in hulls])
    tol = 3 * np.sqrt(alpha * (1 - alpha) / reps)
    assert in_region >= 1 - alpha - tol
    assert covered >= in_region  # the hull covers V_1 whenever C contains theta
    assert covered >= 1 - alpha - tol


def test_coverage_extremal_law():
    """A latent law attaining the sharp upper bound: coverage rests on theta in C, the hull still covers."""
    mu, nu = 0.7, 0.55
    law = sharp_bounds(5, mu=mu, nu=nu).upper.law
    v2 = law.expect(lambda q: majority_polynomial(2, q))
    rng = np.random.default_rng(12)
    n, reps, alpha = 400, 200, 0.05
    regions = []
    for _ in range(reps):
        q = rng.choice(np.array(law.atoms), size=n, p=np.array(law.weights) / sum(law.weights))
        regions.append(wald_region(two_call_estimates(bits_from_array(simulate_bits(q, 2, rng))), alpha))
    hulls = project_many(regions, [5], certify=False)
    covered = np.mean([row[0].lower <= v2 <= row[0].upper for row in hulls])
    assert covered >= 1 - alpha - 3 * np.sqrt(alpha * (1 - alpha) / reps)


def test_singular_covariance_floor_and_pinv():
    # every example: both calls agree (no disagreement), so X_i = (B, B) and Sigma-hat has rank 1
    b = np.array([[1, 1]] * 80 + [[0, 0]] * 20, float)
    est = two_call_estimates(bits_from_array(b))
    assert np.linalg.matrix_rank(est.sigma) == 1
    floor = wald_region(est)
    assert floor.floored == 1
    pinv = wald_region(est, singular="pinv")
    f, p = project(floor, 3), project(pinv, 3)
    # pinv leaves the null direction to F alone: a wider (conservative) interval
    assert p.lower <= f.lower + 1e-12 and p.upper >= f.upper - 1e-12 and p.upper - p.lower > f.upper - f.lower
    # all calls correct: Sigma-hat = 0; the floor still gives a small region at the corner (1, 1)
    ones = wald_region(two_call_estimates(bits_from_array(np.ones((500, 2)))))
    iv = project(ones, 3)
    assert iv.upper == 1.0 and 0.97 < iv.lower < 1.0


def test_sample_outside_the_moment_set():
    # nu-hat < mu-hat^2: the region is the part of the ellipse inside F
    est = two_call_from_summary(0.5, 60, nu=0.22)
    region = wald_region(est)
    assert not region.contains(0.5, 0.22)
    p = project(region, 3)
    lo, up = brute_interval(region, 3)
    assert abs(p.lower - lo) < 1e-6 and abs(p.upper - up) < 1e-6


def test_empty_region_rejects_the_model():
    # every example has exactly one correct call of two: (mu-hat, nu-hat) = (1/2, 0), far below nu = mu^2
    b = np.array([[1, 0], [0, 1]] * 100, float)
    with pytest.raises(EmptyRegionError, match="contradict the repeated-call model"):
        wald_region(two_call_estimates(bits_from_array(b)))


def test_region_bad_inputs():
    est = two_call_from_summary(0.7, 100, rho=0.2)
    with pytest.raises(InputError, match="alpha=0 must be in"):
        wald_region(est, 0)
    with pytest.raises(InputError, match="alpha=1.5 must be in"):
        wald_region(est, 1.5)
    with pytest.raises(InputError, match="singular='ridge'"):
        wald_region(est, singular="ridge")
    with pytest.raises(InputError):
        project(wald_region(est), "P3 +")
    with pytest.raises(InputError, match="votes=0"):
        project(wald_region(est), 0)


def test_boundary_points_lie_on_the_boundary():
    for mu, n, kw in [(0.7, 300, dict(rho=0.3)), (0.6, 200, dict(rho=0.0)), (0.9, 100, dict(rho=1.0))]:
        region = wald_region(two_call_from_summary(mu, n, **kw))
        pts = region.boundary(np.linspace(0, 2 * np.pi, 400, endpoint=False))
        assert np.all(region.contains(pts[:, 0], pts[:, 1], tol=1e-9))
        q = region.quad(pts[:, 0], pts[:, 1])
        on_f = np.minimum(np.abs(pts[:, 1] - pts[:, 0] ** 2), np.abs(pts[:, 0] - pts[:, 1])) < 1e-12
        assert np.all(on_f | (np.abs(q - 1) < 1e-9))  # each point is on the ellipse or on an edge of F


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(mu=st.floats(0.05, 0.95), rho=st.floats(0.0, 1.0), n=st.integers(30, 5000), votes=st.sampled_from([3, 5, 7]))
def test_hull_properties(mu, rho, n, votes):
    est = two_call_from_summary(mu, n, rho=rho)
    p = project(wald_region(est), votes)
    b = sharp_bounds(votes, mu=est.mu, nu=est.nu)
    assert p.lower <= b.lower.value + 1e-12 and b.upper.value <= p.upper + 1e-12
    assert 0 <= p.lower <= p.upper <= 1
    assert p.lower_gap < 1e-9 and p.upper_gap < 1e-9
