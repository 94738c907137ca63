"""MaxEnt and LDGP completions (paper Sec. 4) against independent mpmath computations.

References: the MaxEnt parameters solve the moment equations of eq. (4.2) with
mpmath.findroot, every integral by mpmath.quad at 30 digits (split at the
density's mode and at q = 1/2); LDGP's r solves Plackett's integral in its
original form int_0^r phi_2(t, t; s) ds = nu - mu^2 (not the arcsine form the
implementation uses), and V_n = E P_n(Phi(eta - gamma Z)) by mpmath.quad over z.
"""

import math

import mpmath as mp
import pytest

from certify import InputError, sharp_bounds
from certify.stats import complete, ldgp_completion, maxent_completion

mp.mp.dps = 30


def _pn(n, q):
    """P_n(q) = P(Bin(2n+1, q) >= n+1), exact binomial sum in mpmath."""
    return mp.fsum(mp.binomial(2 * n + 1, k) * q**k * (1 - q) ** (2 * n + 1 - k) for k in range(n + 1, 2 * n + 2))


def _maxent_reference(mu, nu, guess):
    def moments(lam, kap, f=lambda q: 1):
        dens = lambda q: mp.exp(lam * (q - 0.5) + kap * (q - 0.5) ** 2)  # noqa: E731
        pts = sorted({mp.mpf(0), mp.mpf(0.5), mp.mpf(1), min(max(0.5 - lam / (2 * kap), mp.mpf(0)), mp.mpf(1))})
        z = mp.quad(dens, pts)
        return lambda g: mp.quad(lambda q: g(q) * dens(q), pts) / z

    def eqs(lam, kap):
        e = moments(lam, kap)
        return [e(lambda q: q) - mu, e(lambda q: q * q) - nu]

    lam, kap = mp.findroot(eqs, (mp.mpf(guess[0]), mp.mpf(guess[1])))
    e = moments(lam, kap)
    return float(lam), float(kap), {n: float(e(lambda q: _pn(n, q))) for n in (1, 2)}, float(e(lambda q: 1 if q > 0.5 else 0))


@pytest.mark.parametrize("mu, rho", [(0.7, 0.2), (0.7, 0.8), (0.3, 0.05), (0.55, 0.5)])
def test_maxent_against_mpmath(mu, rho):
    c = maxent_completion(mu=mu, rho=rho)
    nu = c.nu
    lam, kap, vn, vinf = _maxent_reference(mp.mpf(mu), mp.mpf(nu), (c.params["lambda"] * 1.01, c.params["kappa"] * 0.99))
    assert c.params["lambda"] == pytest.approx(lam, rel=1e-9, abs=1e-9)
    assert c.params["kappa"] == pytest.approx(kap, rel=1e-9, abs=1e-9)
    assert abs(c.value(3) - vn[1]) < 1e-8 and abs(c.value(5) - vn[2]) < 1e-8
    assert abs(c.value("inf") - vinf) < 1e-8
    assert math.copysign(1, c.params["lambda"]) == math.copysign(1, mu - 0.5)  # Proposition 5.1 sign rule


def _ldgp_reference(mu, nu):
    t = mp.sqrt(2) * mp.erfinv(2 * mp.mpf(mu) - 1)
    phi2 = lambda s: mp.exp(-t * t / (1 + s)) / (2 * mp.pi * mp.sqrt(1 - s * s))  # noqa: E731
    r = mp.findroot(lambda r: mp.quad(phi2, [0, r]) - (mp.mpf(nu) - mp.mpf(mu) ** 2), (mp.mpf("1e-6"), mp.mpf(1) - mp.mpf("1e-6")), solver="anderson")
    gamma, eta = mp.sqrt(r / (1 - r)), t / mp.sqrt(1 - r)
    z0 = eta / gamma
    v = {n: mp.quad(lambda z: _pn(n, mp.ncdf(eta - gamma * z)) * mp.npdf(z), [-mp.inf, z0 - 1, z0, z0 + 1, mp.inf]) for n in (1, 2)}
    return float(r), float(eta), float(gamma), {n: float(x) for n, x in v.items()}, float(mp.ncdf(eta / gamma))


@pytest.mark.parametrize("mu, rho", [(0.7, 0.2), (0.7, 0.8), (0.3, 0.05), (0.9, 0.5)])
def test_ldgp_against_mpmath(mu, rho):
    c = ldgp_completion(mu=mu, rho=rho)
    r, eta, gamma, vn, vinf = _ldgp_reference(mu, c.nu)
    p = c.params
    assert p["r"] == pytest.approx(r, rel=1e-10)
    assert p["eta"] == pytest.approx(eta, rel=1e-9) and p["gamma"] == pytest.approx(gamma, rel=1e-9)
    assert abs(c.value(3) - vn[1]) < 1e-8 and abs(c.value(5) - vn[2]) < 1e-8
    assert abs(c.value("inf") - vinf) < 1e-8


def test_maxent_matches_moments_near_the_boundary():
    """Near both boundary curves the solved density reproduces (mu, nu) to relative 1e-9 of the distance."""
    for mu, rho in [(0.3, 1e-6), (0.7, 1e-9), (0.7, 1 - 1e-6), (0.2, 0.9999), (0.999, 0.99)]:
        c = maxent_completion(mu=mu, rho=rho)
        q, w = c._rule()
        var, spread = c.nu - mu * mu, mu - c.nu
        assert abs(w @ q - mu) < 1e-9 * math.sqrt(min(var, spread)) + 1e-15
        # centred forms: Var Q = nu - mu^2 and E[Q(1 - Q)] = mu - nu, each to relative 1e-8
        assert w @ (q - mu) ** 2 == pytest.approx(var, rel=1e-8)
        assert w @ (q * (1 - q)) == pytest.approx(spread, rel=1e-8)


def test_boundary_limits_and_continuity():
    mu = 0.7
    for method in ("maxent", "ldgp"):
        point = complete(mu=mu, rho=0.0, method=method)
        two = complete(mu=mu, rho=1.0, method=method)
        assert point.boundary == "point" and two.boundary == "two-point"
        # rho = 0: point mass at mu; V_3 = P_1(0.7) = 3 (.49) - 2 (.343) = 0.784
        assert point.value(3) == pytest.approx(0.784, abs=1e-15) and point.value("inf") == 1.0
        assert two.value(3) == mu and two.value(101) == mu and two.value("inf") == mu
        near0 = complete(mu=mu, rho=1e-9, method=method)
        near1 = complete(mu=mu, rho=1 - 1e-9, method=method)
        assert abs(near0.value(5) - point.value(5)) < 1e-6
        assert abs(near1.value(5) - mu) < 1e-6
    assert complete(mu=0.5, rho=0.0, method="ldgp").value("inf") == 0.5


def test_reflection_symmetry():
    """Q -> 1 - Q maps (mu, nu) to (1 - mu, 1 - 2 mu + nu) and V_n to 1 - V_n for both completions."""
    mu, nu = 0.62, 0.45
    for method in ("maxent", "ldgp"):
        a = complete(mu=mu, nu=nu, method=method)
        b = complete(mu=1 - mu, nu=1 - 2 * mu + nu, method=method)
        for v in (3, 5, 9):
            assert a.value(v) + b.value(v) == pytest.approx(1.0, abs=1e-12)


def test_even_budget_equals_odd_below():
    c = maxent_completion(mu=0.7, rho=0.3)
    assert c.value(4) == c.value(3)


def test_round_trip():
    c = ldgp_completion(mu=0.7, rho=0.3)
    from certify.stats import Completion

    assert Completion.from_dict(c.to_dict()) == c


def test_completion_bad_inputs():
    with pytest.raises(InputError, match="method='spline'"):
        complete(mu=0.7, rho=0.2, method="spline")
    with pytest.raises(InputError, match="infeasible"):
        maxent_completion(mu=0.7, nu=0.8)
    with pytest.raises(InputError):
        ldgp_completion(mu=1.5, rho=0.2)
    with pytest.raises(InputError, match="two moments"):
        maxent_completion(mu=0.7)
    with pytest.raises(InputError, match="votes=0"):
        maxent_completion(mu=0.7, rho=0.2).value(0)


def test_completions_never_fail_across_the_moment_set():
    """A sweep to the edges of F (mu down to 1e-9, rho within 1e-12 of 0 and 1e-9 of 1): finite values in [0, 1]."""
    for mu in (1e-9, 1e-4, 0.2, 0.5, 0.77, 1 - 1e-6):
        for rho in (1e-12, 1e-8, 0.01, 0.5, 0.99, 1 - 1e-9):
            for method in ("maxent", "ldgp"):
                c = complete(mu=mu, rho=rho, method=method)
                values = c.values([3, 5, 101, "inf"])
                assert all(math.isfinite(v) and -1e-12 <= v <= 1 + 1e-12 for v in values), (mu, rho, method, values)
                # a completion is one law of the moment class, so it lies inside the sharp interval
                for votes, v in zip((3, 5), values):
                    b = sharp_bounds(votes, mu=c.mu, nu=c.nu)
                    assert b.lower.value - 1e-9 <= v <= b.upper.value + 1e-9, (mu, rho, method, votes)
