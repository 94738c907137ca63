"""The distributions of ``certify._distributions`` against scipy.stats and exact rationals.

The quantiles are the calls scipy.stats makes, so they must agree with it to the last bit;
the hypergeometric table is exact integer ratios, so it must equal the Fraction, rounded
once. (The point of the module, that ``certify analyze`` never imports scipy.stats, is
checked in ``test_startup.py``.)
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from certify._bernstein import bernstein_basis
from certify._distributions import (
    beta_quantile,
    chi2_quantile,
    f_quantile,
    hypergeometric_pmf,
    normal_quantile,
    t_quantile,
)

LEVELS = [1e-12, 0.001, 0.025, 0.05, 0.5, 0.9, 0.95, 0.975, 0.999]


@pytest.mark.parametrize("p", LEVELS)
@pytest.mark.parametrize("df", [1, 2, 3, 10, 57, 2000])
def test_quantiles_are_scipy_stats_bit_for_bit(p, df):
    assert chi2_quantile(p, df) == float(stats.chi2.ppf(p, df))
    assert t_quantile(p, df) == float(stats.t.ppf(p, df))
    assert f_quantile(p, df, 7) == float(stats.f.ppf(p, df, 7))
    assert normal_quantile(p) == float(stats.norm.ppf(p))
    # scipy.stats.beta.ppf calls Boost, betaincinv cephes: the same quantile to rounding
    assert beta_quantile(p, df / 3, 7.25) == pytest.approx(float(stats.beta.ppf(p, df / 3, 7.25)), rel=1e-12, abs=1e-300)


def test_known_quantiles():
    assert chi2_quantile(0.95, 2) == pytest.approx(-2 * np.log(0.05), rel=1e-14)  # chi2_2 is Exp(1/2)
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, rel=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 60), st.integers(0, 60)), min_size=1, max_size=8), st.integers(0, 60))
def test_hypergeometric_table_is_the_exact_ratio_within_its_roundings(rows, draws):
    """Exact at the mode (one ratio of integers, rounded once); j places away at most 2 j roundings
    (certify._distributions: filled outwards by ratios of neighbouring probabilities)."""
    rows = [(t, min(g, t)) for t, g in rows]
    draws = min([draws] + [t for t, _ in rows])
    table = hypergeometric_pmf([t for t, _ in rows], [g for _, g in rows], draws)
    assert table.shape == (len(rows), draws + 1)
    eps = np.finfo(float).eps
    for (t, g), got in zip(rows, table):
        exact = [Fraction(comb(g, x) * comb(t - g, draws - x), comb(t, draws)) for x in range(draws + 1)]
        mode = (draws + 1) * (g + 1) // (t + 2)
        assert got[mode] == float(exact[mode])
        for x, (value, want) in enumerate(zip(got.tolist(), exact)):
            if want == 0:
                assert value == 0.0
            else:  # each rounding a relative eps / 2: (2 |x - mode| + 1) of them at most
                assert abs(Fraction(value) - want) <= (2 * abs(x - mode) + 1) * eps * want
        assert sum(exact) == 1


def test_hypergeometric_table_matches_scipy_stats_at_large_counts():
    total, good = np.array([2000, 2000, 1500]), np.array([0, 1234, 1500])
    table = hypergeometric_pmf(total, good, 21)
    x = np.arange(22)
    ref = stats.hypergeom.pmf(x[None, :], total[:, None], good[:, None], 21)
    np.testing.assert_allclose(table, ref, rtol=1e-12, atol=1e-300)


def test_bernstein_basis_is_the_binomial_pmf():
    q = np.array([0.0, 1e-9, 0.3, 0.5, 0.999, 1.0])
    basis = bernstein_basis(12, q)
    np.testing.assert_allclose(basis, stats.binom.pmf(np.arange(13)[:, None], 12, q[None, :]), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(basis.sum(axis=0), 1.0, rtol=1e-14)

