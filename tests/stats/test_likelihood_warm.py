"""`WarmStarts`: a sequence of similar data sets solved from each other's solutions gives the cold answers."""

from __future__ import annotations

import numpy as np
import pytest

from certify import InputError
from certify.likelihood import WarmStarts, cell_counts, likelihood_bound, likelihood_intervals, npmle

#: The ends are optima verified by their certificates to CERT_TOL = 1e-10 (plus rounding); warm
#: and cold solves stop at different points within that, so they agree to a little more.
AGREE = 1e-8


def _studies(k: int, n: int, count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q = np.where(rng.random(n) < 0.3, rng.beta(1, 4, n), rng.beta(8, 2, n))
        yield cell_counts(np.full(n, k), rng.binomial(k, q))


@pytest.mark.parametrize(("k", "n"), [(2, 300), (5, 150), (10, 800)])
def test_warm_started_sequence_gives_the_cold_ends(k, n):
    warm = WarmStarts()
    objectives = [3, "V3 - V1", 15]  # identified (k >= 3), a gain, and beyond K
    for cells in _studies(k, n, 6, seed=k):
        hot = likelihood_intervals(cells, objectives, warm=warm)
        cold = likelihood_intervals(cells, objectives)
        for h, c in zip(hot, cold):
            # the small-count threshold is a quantile at laws on the path to the ends: equal up to their accuracy
            assert h.small_count == c.small_count and h.c == pytest.approx(c.c, rel=AGREE)
            assert h.lower.value == pytest.approx(c.lower.value, abs=AGREE)
            assert h.upper.value == pytest.approx(c.upper.value, abs=AGREE)
        # the warm NPMLE maximizes the likelihood as well as the cold one (eq. (L5))
        assert hot[0].reference.loglik == pytest.approx(npmle(cells).loglik, abs=1e-6 * cells.n)
        assert hot[0].reference.max_gradient <= 1e-6 * cells.n


@pytest.mark.parametrize(("k", "n"), [(3, 200), (5, 150)])
def test_warm_started_lower_bound_is_the_cold_intervals_end(k, n):
    """A study plan asks for the gain's lower end alone, from the previous study's solutions: it
    is the lower end of the cold interval, with the small-count threshold where that applies
    (which needs both ends: at N = 150, K = 5 these data sets are on the lattice)."""
    warm = WarmStarts()
    small = []
    for cells in _studies(k, n, 6, seed=10 + k):
        hot = likelihood_bound(cells, "V3 - V1", "lower", warm=warm)
        cold = likelihood_intervals(cells, ["V3 - V1"])[0]
        small.append(cold.small_count)
        assert hot.c == pytest.approx(cold.c, rel=AGREE)
        assert hot.value == pytest.approx(cold.lower.value, abs=AGREE)
    assert any(small) or k == 3


def test_warm_must_be_warm_starts():
    cells = cell_counts([3] * 20, [0, 1, 2, 3] * 5)
    with pytest.raises(InputError, match="warm=dict must be a WarmStarts"):
        likelihood_intervals(cells, [3], warm={})
    with pytest.raises(InputError, match="warm=dict must be a WarmStarts"):
        likelihood_bound(cells, 3, "lower", warm={})
