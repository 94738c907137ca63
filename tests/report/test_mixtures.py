"""Exact mixture accuracy and moments against independent brute force (and a loose Monte Carlo)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from certify import InputError, sharp_bounds, verify_certificate
from certify.stats import (
    evaluate_mixture,
    mixture_data,
    mixture_estimates,
    optimize_mixture,
    per_example_mixture_accuracy,
    per_example_mixture_moments,
    per_example_vote_accuracy,
    search_mixtures,
    weight_grid,
)
from certify.readers import bits_from_array


def _groups(bits_by_name):
    return {name: bits_from_array(np.asarray(b, dtype=float), [f"x{i}" for i in range(len(b))])
            for name, b in bits_by_name.items()}


TINY = {
    "a": [[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]],
    "b": [[0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]],
    "c": [[1, 1, 0], [0, 0, 0], [1, 0, 1], [0, 1, 1]],
}


def _brute(rows, weights, m):
    """Enumerate every component sequence and every ordered draw of distinct recorded calls."""
    k = len(rows[0])
    total = 0.0
    for seq in itertools.product(range(len(rows)), repeat=m):
        p_seq = math.prod(weights[c] for c in seq)
        if p_seq == 0:
            continue
        need = [seq.count(c) for c in range(len(rows))]
        draws = [list(itertools.permutations(range(k), a)) for a in need]
        acc = 0.0
        for combo in itertools.product(*draws):
            s = sum(rows[c][j] for c, d in enumerate(combo) for j in d)
            acc += 1.0 if 2 * s > m else (0.5 if 2 * s == m else 0.0)
        total += p_seq * acc / math.prod(len(d) for d in draws)
    return total


@pytest.mark.parametrize("weights", [(0.2, 0.5, 0.3), (0.0, 0.7, 0.3), (1.0, 0.0, 0.0), (0.45, 0.1, 0.45)])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_exact_accuracy_matches_brute_force(weights, m):
    data = mixture_data(_groups(TINY))
    got = per_example_mixture_accuracy(data, weights, m)
    for i in range(data.n):
        rows = [TINY[c][i] for c in "abc"]
        assert got[i] == pytest.approx(_brute(rows, weights, m), abs=1e-12)


def test_unit_weight_is_the_hypergeometric_estimate():
    rng = np.random.default_rng(3)
    groups = _groups({"a": (rng.random((30, 5)) < 0.6).astype(int), "b": (rng.random((30, 5)) < 0.4).astype(int)})
    data = mixture_data(groups)
    for m in (1, 3, 4, 5):
        np.testing.assert_allclose(per_example_mixture_accuracy(data, [0, 1], m), per_example_vote_accuracy(groups["b"], m), atol=1e-12)


def test_monte_carlo_sanity():
    rng = np.random.default_rng(11)
    bits = {"a": (rng.random((6, 5)) < 0.7).astype(int), "b": (rng.random((6, 5)) < 0.3).astype(int)}
    data = mixture_data(_groups(bits))
    w = np.array([0.35, 0.65])
    exact = per_example_mixture_accuracy(data, w, 5)
    sims = 20000
    for i in range(data.n):
        wins = 0
        for _ in range(sims // 10):
            comps = rng.choice(2, size=5, p=w)
            s = 0
            for c, name in enumerate("ab"):
                a = int((comps == c).sum())
                s += bits[name][i][rng.permutation(5)[:a]].sum()
            wins += s >= 3
        assert abs(wins / (sims // 10) - exact[i]) < 0.05


@pytest.mark.parametrize("weights", [(0.2, 0.5, 0.3), (0.6, 0.0, 0.4)])
def test_moments_match_two_call_enumeration(weights):
    data = mixture_data(_groups(TINY))
    mu_i, nu_i = per_example_mixture_moments(data, weights)
    for i in range(data.n):
        rows = [TINY[c][i] for c in "abc"]
        # mu: one call; nu: both of two calls correct, by brute-force enumeration of the draws.
        mu = sum(weights[c] * sum(rows[c]) / 3 for c in range(3))
        both = 0.0
        for c1, c2 in itertools.product(range(3), repeat=2):
            if c1 == c2:
                pairs = list(itertools.permutations(range(3), 2))
                p = sum(rows[c1][x] * rows[c1][y] for x, y in pairs) / len(pairs)
            else:
                p = (sum(rows[c1]) / 3) * (sum(rows[c2]) / 3)
            both += weights[c1] * weights[c2] * p
        assert mu_i[i] == pytest.approx(mu, abs=1e-12)
        assert nu_i[i] == pytest.approx(both, abs=1e-12)
    est = mixture_estimates(data, weights)
    x = np.stack([mu_i, nu_i], axis=1)
    np.testing.assert_allclose(np.array(est.cov), np.cov(x, rowvar=False, ddof=1), atol=1e-14)
    assert est.rho == pytest.approx((est.nu - est.mu ** 2) / (est.mu * (1 - est.mu)))
    mix = evaluate_mixture(data, weights, (3,))
    assert mix.mu == pytest.approx(est.mu) and mix.value(1) == pytest.approx(est.mu)


def test_weight_grid_and_bad_input():
    assert len(weight_grid(2, 0.05)) == 19 and len(weight_grid(3, 0.05)) == 171
    assert np.allclose(weight_grid(3, 0.25).sum(axis=1), 1.0)
    with pytest.raises(InputError):
        weight_grid(2, 0.3)
    data = mixture_data(_groups(TINY))
    with pytest.raises(InputError):
        per_example_mixture_accuracy(data, [0.5, 0.6, -0.1], 3)
    with pytest.raises(InputError):
        per_example_mixture_accuracy(data, [0.5, 0.5], 3)
    with pytest.raises(InputError):
        per_example_mixture_accuracy(data, [0.5, 0.25, 0.25], 4)  # K = 3


def _data(seed=5, n=120):
    rng = np.random.default_rng(seed)
    q = {"stable": (rng.random(n) < 0.72).astype(float), "noisy": np.clip(rng.normal(0.66, 0.05, n), 0, 1),
         "mid": rng.beta(3, 1.6, n)}
    return mixture_data(_groups({k: (rng.random((n, 5)) < v[:, None]).astype(int) for k, v in q.items()}), "toy")


def test_search_selects_the_grid_maximum():
    data = _data()
    s = search_mixtures(data, step=0.1)
    assert len(s.grid) == 3 * 9 + 36
    for kind, size in (("pair", 2), ("triple", 3)):
        rows = [g for g in s.grid if len(g.components) == size]
        best_gain = s.selected(kind, "gain")
        best_acc = s.selected(kind, "accuracy")
        assert best_gain.gain(5) == pytest.approx(max(g.gain(5) for g in rows), abs=1e-12)
        assert best_acc.value(5) == pytest.approx(max(g.value(5) for g in rows), abs=1e-12)
        # the grid values are the exact accuracies
        direct = evaluate_mixture(data.subset(best_acc.components), best_acc.weights, (3, 5))
        assert direct.value(5) == pytest.approx(best_acc.value(5), abs=1e-12)


def test_optimizer_beats_the_grid_and_is_certified():
    data = _data()
    opt = optimize_mixture(data, votes=5, objective="certified")
    grid = np.concatenate([np.eye(3), weight_grid(3, 0.1)])
    for w in grid:
        mu_i, nu_i = per_example_mixture_moments(data, w)
        mu, nu = mu_i.mean(), nu_i.mean()
        assert opt.lower >= sharp_bounds(5, mu=mu, nu=min(max(nu, mu * mu), mu)).lower.value - 1e-9
    assert verify_certificate(opt.certificate).ok
    assert float(opt.certificate.value) == pytest.approx(opt.lower)
    emp = optimize_mixture(data, votes=5, objective="empirical")
    best_grid = max(evaluate_mixture(data, w, (5,)).value(5) for w in grid)
    assert emp.value >= best_grid - 1e-12
    with pytest.raises(InputError):
        optimize_mixture(data, objective="median")
