"""A small version of the coverage simulation (benchmarks/bench_likelihood_coverage.py runs the full grid).

The true values come from the latent law in closed form (beta-binomial tails), not from
the package: V_k = E[P_n(Q)] = Pr{BetaBin(k, a, b) >= (k+1)/2} for Q ~ Beta(a, b).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from certify.likelihood import cell_counts, likelihood_intervals


def _beta_vote(k: int, a: float, b: float) -> float:
    return float(stats.betabinom(k, a, b).sf((k - 1) // 2))


@pytest.mark.parametrize(("calls", "n"), [(5, 200), (2, 400)])
def test_profile_intervals_cover_at_the_nominal_level(calls, n):
    a, b = 6.0, 2.0
    truth = {"V3": _beta_vote(3, a, b), "V9": _beta_vote(9, a, b)}
    truth["V3 - V1"] = truth["V3"] - a / (a + b)
    rng = np.random.default_rng(1000 + calls)
    reps, hits = 100, dict.fromkeys(truth, 0)
    for _ in range(reps):
        q = rng.beta(a, b, n)
        cells = cell_counts(np.full(n, calls), rng.binomial(calls, q))
        for name, iv in zip(truth, likelihood_intervals(cells, list(truth))):
            hits[name] += iv.lower.value <= truth[name] <= iv.upper.value
    # 95% intervals: fewer than 88 hits in 100 has probability 0.4% at coverage 0.95
    for name, h in hits.items():
        assert h >= 88, (name, h)
