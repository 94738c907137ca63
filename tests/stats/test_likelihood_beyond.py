"""The likelihood engine on data it once failed: one example with many calls beside many with two.

References are independent of the engine's kernel, screen and solvers (tests/stats/test_likelihood.py):
binomial probabilities by direct products, the grid program by cvxpy + Clarabel.
"""

import warnings

import pytest
from test_likelihood import check_end, grid_solve, loglik

from certify.likelihood import cell_counts, likelihood_intervals

# -- issue 28: one example with many calls beside many with two --------------------------------

#: One example with 100 calls (70 correct) and 50 with 2: the intervals once failed ("not converged").
RAGGED = cell_counts([2] * 50 + [100], [0] * 9 + [1] * 25 + [2] * 16 + [70])


def test_one_long_example_beside_short_ones():
    """l(pi_lambda) jumps at lambda* (the law keeps or drops a small atom near 0.7 for the long example)
    and Brent's method stopped on the side whose law is strictly inside the set: its value then exceeded
    the certificate a + lambda b by 0.05. The end is the mixture of the two sides at the level. On the
    way, a cell probability near 1e-160 made CNM's quadratic model overflow: no warning escapes now."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ivs = likelihood_intervals(RAGGED, [3, "V3 - V1", "inf"])
    level = ivs[0].reference.loglik - ivs[0].c
    g3 = lambda x: 3 * x**2 - 2 * x**3  # noqa: E731
    for sign, end in ((1, ivs[0].lower), (-1, ivs[0].upper)):
        check_end(RAGGED, end, g3, level)
        if end.lam > 0:  # complementary slackness: the constraint is active
            assert loglik(RAGGED, end.atoms, end.weights) == pytest.approx(level, abs=1e-7 * abs(level))
        grid, w = grid_solve(RAGGED, g3, sign, level)
        viol = max(0.0, level - loglik(RAGGED, grid, w))
        assert sign * (float(g3(grid) @ w) - end.value) >= -end.lam * viol - 1e-9
    for iv in ivs:
        assert -1.0 <= iv.lower.value <= iv.upper.value <= 1.0
