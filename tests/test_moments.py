"""Moment classes: conversions, pair table, feasibility with named inequalities."""

from fractions import Fraction

import numpy as np
import pytest

from certify import InfeasibleMomentsError, InputError, moment_class, nu_from_rho, rho_from_nu
from certify._moments import pair_table


def test_rho_nu_round_trip():
    for mu in (0.1, 0.5, 0.93):
        for rho in (0.0, 0.3, 1.0):
            assert rho_from_nu(mu, nu_from_rho(mu, rho)) == pytest.approx(rho, abs=1e-14)


def test_pair_table_sums_to_one():
    t = pair_table(0.7, 0.532)
    assert t.both_correct + t.disagree + t.both_wrong == pytest.approx(1.0)
    assert t.disagree == pytest.approx(2 * (0.7 - 0.532))


def test_exact_rationals_are_kept():
    m = moment_class(mu="4517/8192", nu="3301/8192")
    assert m.exact == (Fraction(4517, 8192), Fraction(3301, 8192))
    assert moment_class(mu="0.7", rho="0.2").exact[1] == Fraction(7, 10) ** 2 + Fraction(2, 10) * Fraction(7, 10) * Fraction(3, 10)


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(mu=0.7, nu=0.3), "mu^2 <= nu"),
        (dict(mu=0.7, nu=0.8), "nu <= mu"),
        (dict(mu=1.2, nu=0.5), "0 <= mu <= 1"),
        (dict(mu=-0.1, rho=0.5), "0 <= mu <= 1"),
        (dict(mu=0.5, rho=1.5), "0 <= rho <= 1"),
        (dict(values=[0.5, 0.3, 0.3]), "positive semidefinite"),
        (dict(values=[0.5, 0.26, 0.2, 0.3]), "m4 <= m3"),
    ],
)
def test_infeasible_inputs_name_the_inequality(kwargs, fragment):
    with pytest.raises(InfeasibleMomentsError, match=fragment.replace("^", r"\^")):
        moment_class(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(mu=float("nan"), nu=0.3), dict(mu="abc", nu=0.3), dict(mu=0.5, nu=0.3, rho=0.1), dict(), dict(values=[])])
def test_unusable_inputs(kwargs):
    with pytest.raises(InputError):
        moment_class(**kwargs)


def test_floating_noise_is_snapped_to_the_boundary():
    mu = 0.3238135593220339
    m = moment_class(mu=mu, nu=mu - 1e-16)
    assert m.nu == mu
    m = moment_class(mu=0.3, nu=0.09 - 1e-15)
    assert m.nu == 0.3 * 0.3


def test_higher_order_feasible_from_a_law():
    atoms, w = np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.5, 0.3])
    vals = [float(np.dot(w, atoms**k)) for k in range(1, 5)]
    assert moment_class(values=vals).order == 4

