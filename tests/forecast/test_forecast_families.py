"""The families of certify.forecast against independent computations.

References never go through the package's closed forms or quadrature: beta-binomial
probabilities and Beta expectations come from mpmath at 40 digits (beta functions, tanh-sinh
quadrature), MaxEnt and LDGP integrals from mpmath quadrature of the density, standard errors
from finite differences of scipy.stats' beta-binomial log-pmf.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from certify.forecast import fit_family
from certify.forecast._catalog import make_family
from certify.forecast._families import FitData
from certify.likelihood import cell_counts


def _cells(law, n, k, seed):
    rng = np.random.default_rng(seed)
    return cell_counts(np.full(n, k), rng.binomial(k, law(rng, n)))


@pytest.fixture(scope="module")
def beta_cells():
    return _cells(lambda rng, n: rng.beta(0.7, 1.8, n), 600, 8, 1)


def _mp_bb(k, s, a, b):
    return mpmath.binomial(k, s) * mpmath.beta(a + s, b + k - s) / mpmath.beta(a, b)


def _mp_loglik(cells, prob):
    """sum_c n_c log p_c with p_c = prob(K, S) at 40 digits."""
    with mpmath.workdps(40):
        return float(sum(int(n) * mpmath.log(prob(int(k), int(s))) for k, s, n in
                         zip(cells.calls, cells.successes, cells.multiplicity)))


def test_beta_loglik_is_the_beta_binomial_at_40_digits(beta_cells):
    fit = fit_family(beta_cells, "beta")
    a, b = (mpmath.mpf(fit.params[x]) for x in ("a", "b"))
    ref = _mp_loglik(beta_cells, lambda k, s: _mp_bb(k, s, a, b))
    assert fit.loglik == pytest.approx(ref, rel=1e-12)


def test_beta01_and_beta2_logliks_at_40_digits(beta_cells):
    fit = fit_family(beta_cells, "beta01")
    w0, w1, a, b = (mpmath.mpf(fit.params[x]) for x in ("w0", "w1", "a", "b"))
    ref = _mp_loglik(beta_cells, lambda k, s: w0 * (s == 0) + w1 * (s == k) + (1 - w0 - w1) * _mp_bb(k, s, a, b))
    assert fit.loglik == pytest.approx(ref, rel=1e-12)
    fit = fit_family(beta_cells, "beta2")
    w, a1, b1, a2, b2 = (mpmath.mpf(fit.params[x]) for x in ("w", "a1", "b1", "a2", "b2"))
    ref = _mp_loglik(beta_cells, lambda k, s: w * _mp_bb(k, s, a1, b1) + (1 - w) * _mp_bb(k, s, a2, b2))
    assert fit.loglik == pytest.approx(ref, rel=1e-12)
    assert a1 / (a1 + b1) <= a2 / (a2 + b2)  # the first component has the smaller mean


def _maxent_density(theta):
    def f(q):
        return mpmath.exp(sum(t * q ** (j + 1) for j, t in enumerate(theta)))

    z = mpmath.quad(f, [0, 0.5, 1])
    return lambda q: f(q) / z


def test_maxent_loglik_and_targets_against_mpmath_quadrature(beta_cells):
    fit = fit_family(beta_cells, "maxent", degree=3)
    theta = [mpmath.mpf(fit.params[f"theta{j}"]) for j in (1, 2, 3)]
    with mpmath.workdps(30):
        dens = _maxent_density(theta)
        prob = {}
        for k, s in zip(beta_cells.calls, beta_cells.successes):
            prob[int(k), int(s)] = mpmath.quad(lambda q: dens(q) * mpmath.binomial(k, s) * q**s * (1 - q) ** (k - s), [0, 0.5, 1])
        ref = _mp_loglik(beta_cells, lambda k, s: prob[k, s])
        v9 = mpmath.quad(lambda q: dens(q) * mpmath.betainc(5, 5, 0, q, regularized=True), [0, 0.5, 1])
        vinf = mpmath.quad(dens, [0.5, 1])
        pass20 = mpmath.quad(lambda q: dens(q) * (1 - (1 - q) ** 20), [0, 0.5, 1])
    assert fit.loglik == pytest.approx(ref, rel=1e-12)
    assert fit.value(9) == pytest.approx(float(v9), abs=1e-12)
    assert fit.value("inf") == pytest.approx(float(vinf), abs=1e-12)
    assert fit.value("pass@20") == pytest.approx(float(pass20), abs=1e-12)
    assert fit.value("pass@inf") == 1.0


def test_ldgp_loglik_and_targets_against_mpmath_quadrature(beta_cells):
    fit = fit_family(beta_cells, "ldgp")
    eta, gamma = (mpmath.mpf(fit.params[x]) for x in ("eta", "gamma"))
    with mpmath.workdps(30):
        def expect(g):  # E[g(Phi(eta - gamma Z))]
            return mpmath.quad(lambda z: g(mpmath.ncdf(eta - gamma * z)) * mpmath.npdf(z), [-mpmath.inf, -3, 0, 3, mpmath.inf])

        prob = {(int(k), int(s)): expect(lambda q, k=k, s=s: mpmath.binomial(k, s) * q**s * (1 - q) ** (k - s))
                for k, s in zip(beta_cells.calls, beta_cells.successes)}
        ref = _mp_loglik(beta_cells, lambda k, s: prob[k, s])
        v21 = expect(lambda q: mpmath.betainc(11, 11, 0, q, regularized=True))
    assert fit.loglik == pytest.approx(ref, rel=1e-11)
    assert fit.value(21) == pytest.approx(float(v21), abs=1e-11)
    assert fit.value("inf") == pytest.approx(float(mpmath.ncdf(eta / gamma)), abs=1e-14)


def test_beta_targets_equal_mpmath_integrals_of_the_polynomials(beta_cells):
    """V_k, pass@k, V_inf and a gain of a fitted Beta by a different route: mpmath quad of g against the density."""
    fit = fit_family(beta_cells, "beta")
    a, b = fit.params["a"], fit.params["b"]
    with mpmath.workdps(40):
        am, bm = mpmath.mpf(a), mpmath.mpf(b)

        def expect(g):
            return float(mpmath.quad(lambda q: g(q) * q ** (am - 1) * (1 - q) ** (bm - 1), [0, 0.5, 1]) / mpmath.beta(am, bm))

        for votes in (3, 9, 21, 101):
            n = votes // 2
            ref = expect(lambda q, n=n: mpmath.betainc(n + 1, n + 1, 0, q, regularized=True))
            assert fit.value(votes) == pytest.approx(ref, abs=1e-12)
        assert fit.value(10) == pytest.approx(expect(lambda q: mpmath.betainc(6, 5, 0, q, regularized=True)
                                                     + mpmath.binomial(10, 5) * q**5 * (1 - q) ** 5 / 2), abs=1e-12)
        assert fit.value("pass@100") == pytest.approx(expect(lambda q: 1 - (1 - q) ** 100), abs=1e-12)
        assert fit.value("V_inf") == pytest.approx(expect(lambda q: 1 if q > 0.5 else 0), abs=1e-12)
        mean = a / (a + b)
        assert fit.value("pass@100 - V1") == pytest.approx(expect(lambda q: 1 - (1 - q) ** 100) - mean, abs=1e-12)
        assert fit.value("1 - (1-q)**8") == pytest.approx(expect(lambda q: 1 - (1 - q) ** 8), abs=1e-12)
        assert fit.value("V9 - V1") == pytest.approx(fit.value(9) - mean, abs=1e-14)


@pytest.mark.parametrize("name, degree", [("beta", None), ("beta01", None), ("beta2", None), ("maxent", 3), ("ldgp", None)])
def test_gradients_match_finite_differences(beta_cells, name, degree):
    """The analytic Jacobian of log p_c: a wrong derivative would stall the fits short of the maximum."""
    family = make_family(name, degree)
    data = FitData.from_cells(beta_cells)
    model = family.model(data)
    rng = np.random.default_rng(3)
    lo = np.array([b[0] for b in family.bounds()])
    hi = np.array([b[1] for b in family.bounds()])
    u = np.clip(family.starts(data)[0] + 0.1 * rng.standard_normal(len(lo)), lo, hi)
    _, jac = model(u)
    h = 1e-6
    for i in range(len(u)):
        e = np.zeros(len(u))
        e[i] = h
        fd = (model(u + e)[0] - model(u - e)[0]) / (2 * h)
        assert np.allclose(jac[:, i], fd, rtol=1e-5, atol=1e-7), (name, i)


def test_beta_fit_recovers_the_parameters_within_a_few_standard_errors():
    cells = _cells(lambda rng, n: rng.beta(0.7, 1.8, n), 20000, 8, 11)
    fit = fit_family(cells, "beta")
    k, s, n = cells.calls, cells.successes, cells.multiplicity

    def loglik(x):
        return float(n @ stats.betabinom.logpmf(s, k, math.exp(x[0]), math.exp(x[1])))

    x0 = np.log([fit.params["a"], fit.params["b"]])
    h = 1e-4
    hess = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            ei, ej = np.eye(2)[i] * h, np.eye(2)[j] * h
            hess[i, j] = (loglik(x0 + ei + ej) - loglik(x0 + ei - ej) - loglik(x0 - ei + ej) + loglik(x0 - ei - ej)) / (4 * h * h)
    se = np.sqrt(np.diag(np.linalg.inv(-hess)))  # of log a, log b
    assert np.all(np.abs(x0 - np.log([0.7, 1.8])) < 4 * se)
    assert np.all(se < 0.05)  # the check has teeth: a few SE is a few percent


def test_ldgp_fit_recovers_the_parameters():
    eta, gamma = -0.4, 1.2
    cells = _cells(lambda rng, n: stats.norm.cdf(eta - gamma * rng.standard_normal(n)), 20000, 8, 12)
    fit = fit_family(cells, "ldgp")
    # the SEs at this design are 0.0096 (eta) and 0.0096 (gamma), from the Fisher information of a
    # 120-node Gauss-Hermite likelihood; 0.04 is four of them
    assert fit.params["eta"] == pytest.approx(eta, abs=0.04)
    assert fit.params["gamma"] == pytest.approx(gamma, abs=0.04)


def test_maxent_likelihood_never_falls_with_the_degree(beta_cells):
    logliks = [fit_family(beta_cells, "maxent", degree=d).loglik for d in range(1, 7)]
    assert all(b >= a - 1e-7 for a, b in zip(logliks, logliks[1:]))
    chosen = fit_family(beta_cells, "maxent")  # the degree of least BIC among 2..6 (one parameter fixes the spread)
    assert chosen.degree >= 2
    assert chosen.bic == pytest.approx(min(fit_family(beta_cells, "maxent", degree=d).bic for d in range(2, 7)), abs=1e-6)


def test_beta01_finds_the_point_masses():
    """Examples never and always solved: beta01 puts weights near their shares at 0 and 1."""
    def law(rng, n):
        q = rng.beta(2.0, 2.0, n)
        u = rng.random(n)
        return np.where(u < 0.2, 0.0, np.where(u < 0.3, 1.0, q))

    cells = _cells(law, 4000, 10, 13)
    fit = fit_family(cells, "beta01")
    assert fit.params["w0"] == pytest.approx(0.2, abs=0.03)
    assert fit.params["w1"] == pytest.approx(0.1, abs=0.03)
    assert fit.value("pass@inf") == pytest.approx(1 - fit.params["w0"], abs=1e-15)
    assert fit.loglik > fit_family(cells, "beta").loglik + 10
