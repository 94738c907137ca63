"""The answer model (certify.stats._answer_model): plurality beyond the calls from the wrong answers, not certified."""

import itertools
import math

import cvxpy as cp
import numpy as np
import pytest

from certify import V_INF, InputError
from certify.likelihood import FiniteModel, finite_interval
from certify.stats import (
    ModelEstimate,
    answer_patterns,
    model_plurality,
    per_example_plurality,
    plurality_bounds,
    plurality_model,
)
from certify.stats import pattern_kernel
from certify.stats._answer_model import MODEL_MAX_CALLS, model_grid

Q = np.linspace(0.0, 1.0, 23)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 9, 21])
def test_the_model_spans_the_two_valid_bounds(k):
    # m = 1 - q: every wrong call the same answer (the fair-tie bit majority V_k);
    # m = 0: every wrong call a different answer (U_k): the ends of proofs/plurality_bounds.py
    lower, upper = plurality_bounds(k)
    np.testing.assert_allclose(model_plurality(k, Q, 1.0 - Q), np.asarray(lower.evaluate(Q), dtype=float), atol=1e-13)
    np.testing.assert_allclose(model_plurality(k, Q, np.zeros_like(Q)), np.asarray(upper.evaluate(Q), dtype=float),
                               atol=1e-13)


def test_three_calls_in_closed_form():
    # plurality of 3 = V_3(q) + q ((1-q)^2 - sum_j w_j^2) without abstentions; under the model the
    # wrong answers' collision probability is m^2 (the rare votes never collide)
    q, m = np.meshgrid(np.linspace(0, 1, 17), np.linspace(0, 1, 17))
    keep = q + m <= 1
    q, m = q[keep], m[keep]
    expected = 3 * q**2 * (1 - q) + q**3 + q * ((1 - q) ** 2 - m**2)
    np.testing.assert_allclose(model_plurality(3, q, m), expected, atol=1e-14)


def _by_compositions(k, q, m):
    """Plurality of k calls under the model by another route: the U-statistic code scores each
    realised vote (all k calls of a row: x correct, y dominant, z answers of their own), weighted
    by its multinomial probability."""
    rows, weights = [], []
    r = 1 - q - m
    for x, y in itertools.product(range(k + 1), repeat=2):
        z = k - x - y
        if z >= 0:
            rows.append([0] * x + [1] * y + list(range(2, 2 + z)))
            weights.append(math.factorial(k) // (math.factorial(x) * math.factorial(y) * math.factorial(z))
                           * q**x * m**y * r**z)
    scores = per_example_plurality(np.array(rows), [k])[k]
    return scores @ np.array(weights)


@pytest.mark.parametrize("k", [2, 3, 5, 6, 21])
def test_the_model_against_the_plurality_of_every_composition(k):
    q, m = np.array([0.2, 0.35, 0.5, 0.05]), np.array([0.3, 0.5, 0.1, 0.9])
    np.testing.assert_allclose(model_plurality(k, q, m), _by_compositions(k, q, m), atol=1e-14)


def test_the_infinite_budget():
    q, m = np.array([0.0, 0.3, 0.3, 0.5, 0.2]), np.array([0.0, 0.3, 0.1, 0.5, 0.7])
    assert model_plurality(V_INF, q, m).tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]


@pytest.mark.parametrize("calls", [1, 2, 3, 5, 8])
def test_pattern_probabilities_sum_to_one(calls):
    q, m, _ = model_grid(12)
    patterns = [(calls, c, 0) for c in range(calls + 1)]
    patterns += [(calls, c, d) for c in range(calls + 1) for d in range(2, calls - c + 1)]
    np.testing.assert_allclose(pattern_kernel(np.array(patterns), q, m).sum(axis=0), 1.0, atol=1e-13)


def test_patterns_of_answer_codes():
    codes = np.array([[0, 0, 1, 1, 2],  # c = 2, top wrong class 2
                      [0, 1, 2, 3, -1],  # every wrong answer once: d = 0
                      [1, 1, 1, 2, 2],  # top class 3; the second repeated class counts as rare votes
                      [0, 0, 1, 1, 2]])
    patterns, counts = answer_patterns(codes)
    assert {tuple(p): int(n) for p, n in zip(patterns.tolist(), counts)} == {(5, 2, 2): 2, (5, 1, 0): 1, (5, 0, 3): 1}


def _cvxpy_end(kernel, counts, values, drop, sign):
    """The same program by Clarabel: min sign * E[g] over grid laws with l >= l-hat - drop."""
    table = kernel / kernel.max(axis=1, keepdims=True)
    pi = cp.Variable(table.shape[1], nonneg=True)
    loglik = counts @ cp.log(table @ pi)
    hat = cp.Problem(cp.Maximize(loglik), [cp.sum(pi) == 1])
    hat.solve(solver=cp.CLARABEL)
    end = cp.Problem(cp.Minimize(sign * values @ pi), [cp.sum(pi) == 1, loglik >= hat.value - drop])
    end.solve(solver=cp.CLARABEL)
    return sign * end.value


def test_the_finite_interval_agrees_with_an_interior_point_solver():
    rng = np.random.default_rng(5)
    q, m, nb = model_grid(10)
    truth_q = rng.choice([0.3, 0.6, 0.9], size=300)
    u = rng.random((300, 4))
    codes = np.where(u < truth_q[:, None], 0, np.where(u < truth_q[:, None] + 0.5 * (1 - truth_q[:, None]), 1,
                                                       2 + np.arange(4)))
    patterns, counts = answer_patterns(codes)
    kernel = pattern_kernel(patterns, q, m)
    values = model_plurality(9, q, m)
    estimate, lower, upper = finite_interval(FiniteModel(kernel, counts, nb), values, 3.0)
    lo_ref = _cvxpy_end(kernel, counts.astype(float), values, 3.0, 1)
    up_ref = _cvxpy_end(kernel, counts.astype(float), values, 3.0, -1)
    # each end is the Lagrangian bound: on the outer side of the exact end, and within its tolerance
    assert lo_ref - 2e-5 <= lower <= lo_ref + 1e-6
    assert up_ref - 1e-6 <= upper <= up_ref + 2e-5
    assert lower <= estimate <= upper


def test_the_interval_holds_the_value_of_a_law_the_model_describes():
    # (q, m) on grid points; each call correct, the dominant wrong answer, or an answer of its own
    rng = np.random.default_rng(11)
    atoms = np.array([(0.5, 0.3), (0.8, 0.1), (0.25, 0.5)])
    weights = np.array([0.5, 0.3, 0.2])
    pick = rng.choice(3, size=3000, p=weights)
    q, m = atoms[pick, 0][:, None], atoms[pick, 1][:, None]
    u = rng.random((3000, 5))
    codes = np.where(u < q, 0, np.where(u < q + m, 1, 2 + np.arange(5)))
    truth = {k: float(weights @ _by_compositions(k, atoms[:, 0], atoms[:, 1])) for k in (9, 21)}
    model = plurality_model(codes, [9, 21])
    for k in (9, 21):
        assert model[k].lower <= truth[k] <= model[k].upper
        assert abs(model[k].estimate - truth[k]) < 0.05
        assert "not certified" in model[k].method


def test_round_trip_and_limits():
    rng = np.random.default_rng(2)
    codes = np.where(rng.random((50, 3)) < 0.6, 0, rng.integers(1, 3, (50, 3)))
    (est,) = plurality_model(codes, [21]).values()
    assert ModelEstimate.from_dict(est.to_dict()) == est
    assert est.to_dict()["certified"] is False
    # past MODEL_MAX_CALLS the model reads the first calls of each example
    wide = np.concatenate([codes[:, :2], np.where(rng.random((50, MODEL_MAX_CALLS)) < 0.6, 0, 1)], axis=1)
    (long,), (short,) = plurality_model(wide, [21]).values(), plurality_model(wide[:, :MODEL_MAX_CALLS], [21]).values()
    assert (long.estimate, long.lower, long.upper, long.check) == (short.estimate, short.lower, short.upper, short.check)
    assert "from the first" in long.calibration
    # as many calls as the examples support: at least 4 per identified dimension
    many = np.where(rng.random((100, 20)) < 0.6, 0, rng.integers(1, 3, (100, 20)))
    (est,) = plurality_model(many, [21]).values()
    assert est.calibration.endswith("from the first 6 calls of each example")  # df = 6 + 15 = 21 <= 100 / 4
    assert "chi2_21 " in est.calibration and est.check.startswith("at 6 calls")
    # more calls than MODEL_MAX_CALLS and examples enough for it: exactly MODEL_MAX_CALLS are read
    longer = np.where(rng.random((1000, 30)) < 0.6, 0, rng.integers(1, 3, (1000, 30)))
    (longest,) = plurality_model(longer, ["inf"]).values()
    assert longest.calibration.endswith(f"from the first {MODEL_MAX_CALLS} calls of each example")

    with pytest.raises(InputError, match="alpha"):
        plurality_model(codes, [21], alpha=1.5)
    with pytest.raises(InputError, match="votes=100000 must be at most 512"):
        plurality_model(codes, [100000])
    with pytest.raises(InputError):
        plurality_model(codes, [0])
    with pytest.raises(InputError, match="probability 0 at every grid point"):
        FiniteModel(np.zeros((2, 3)), np.ones(2))
    with pytest.raises(InputError, match="kernel of shape"):
        FiniteModel(np.ones((2, 3)), np.ones(3))
