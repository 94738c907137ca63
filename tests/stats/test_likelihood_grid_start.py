"""The compiled steps of CNM (`certify.likelihood._cnm_kernels`) against another solver.

The simplex quadratic program (L8) and the NPMLE among laws on a grid are convex programs;
Clarabel (through cvxpy) solves the same programs by an interior-point method, a different
algorithm, and the optimal values must agree. The grid NPMLE is only the start of the NPMLE:
its cell probabilities are close to the NPMLE's, it is absent exactly where the frequencies
are saturated, and the NPMLE does not depend on it.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stats_helpers import LIKELIHOOD_CASES as CASES
from stats_helpers import likelihood_cells as _cells

from certify._errors import SolverError
from certify.likelihood import cell_counts, npmle
from certify.likelihood._cnm import WorkBudget, _simplex_qp
from certify.likelihood._cnm_kernels import grid_lagrangian
from certify.likelihood._end_starts import grid_steps
from certify.likelihood._npmle import grid_start
from certify.likelihood._problem import _Problem
from certify.likelihood._tolerances import (
    ARMIJO,
    CNM_MIN_STEP,
    CNM_ZERO_WEIGHT,
    NPMLE_START_GRID,
    QP_ITER_PER_ATOM,
    QP_MULTIPLIER_RTOL,
    QP_NULL_RTOL,
    QP_SCALE_LIMIT,
    TINY,
)


def _qp_by_clarabel(qmat: np.ndarray, lin: np.ndarray) -> float:
    m = len(lin)
    w = cp.Variable(m)
    # Q = A'A: the quadratic as a sum of squares keeps cvxpy's convexity check exact
    root = np.linalg.cholesky(qmat + 1e-12 * np.eye(m))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(root.T @ w) + lin @ w), [w >= 0, cp.sum(w) == 1])
    prob.solve(solver=cp.CLARABEL)
    return float(prob.value)


@settings(max_examples=60, deadline=None)
@given(
    cells=st.integers(2, 8),
    atoms=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_simplex_program_reaches_the_interior_point_optimum(cells, atoms, seed):
    # Q = A'A is singular whenever there are more atoms than cells: the flat directions of the
    # active-set method are exercised as well as its Newton steps
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((cells, atoms))
    qmat, lin = a.T @ a, rng.standard_normal(atoms) * 3.0
    w0 = np.zeros(atoms)
    w0[rng.integers(atoms)] = 1.0
    w = _simplex_qp(qmat, lin, w0)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    ours = 0.5 * w @ qmat @ w + lin @ w
    assert ours <= _qp_by_clarabel(qmat, lin) + 1e-6 * (1.0 + abs(ours))


def test_the_simplex_program_stops_at_its_work_budget():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 10))
    w0 = np.full(10, 0.1)
    with pytest.raises(SolverError, match="quadratic-program iterations"):
        _simplex_qp(a.T @ a, rng.standard_normal(10), w0, WorkBudget(0, "a test"))
    budget = WorkBudget(1000, "a test")
    _simplex_qp(a.T @ a, rng.standard_normal(10), w0, budget)
    assert 0 < budget.limit - budget.left <= QP_ITER_PER_ATOM * 11


def _grid_fit(prob: _Problem, gap_tol: float) -> tuple[np.ndarray, np.ndarray]:
    points = np.linspace(0.0, 1.0, NPMLE_START_GRID)
    kernel = np.ascontiguousarray(prob.kernel(points))
    w0 = np.full(NPMLE_START_GRID, 1.0 / NPMLE_START_GRID)
    w, gap = grid_lagrangian(kernel, prob.n, np.zeros(NPMLE_START_GRID), w0, gap_tol, 500, grid_steps())
    assert gap <= gap_tol
    return kernel, w


@pytest.mark.parametrize(("k", "n", "law"), CASES[::2])
def test_the_grid_lagrangian_reaches_the_interior_point_optimum(k, n, law):
    prob = _Problem(_cells(k, n, law, seed=3 * k + n))
    kernel, w = _grid_fit(prob, 1e-9 * prob.N)
    ours = float(prob.n @ np.log(kernel @ w))
    x = cp.Variable(kernel.shape[1], nonneg=True)
    ref = cp.Problem(cp.Maximize(prob.n @ cp.log(kernel @ x)), [cp.sum(x) == 1])
    ref.solve(solver=cp.CLARABEL)
    # Clarabel's weights sum to 1 only to its feasibility tolerance (1 + 2e-7 was seen, worth
    # 2e-7 N of log-likelihood): scaled back onto the simplex they are a grid law, which no law
    # on the grid beats by more than our gap, and which is within Clarabel's accuracy of the optimum
    theirs = np.maximum(x.value, 0.0)
    theirs_loglik = float(prob.n @ np.log(kernel @ (theirs / theirs.sum())))
    assert ours >= theirs_loglik - 1e-9 * prob.N
    assert ours <= theirs_loglik + 1e-6 * prob.N


@pytest.mark.parametrize(("k", "n", "law"), CASES)
def test_the_grid_start_has_the_npmle_cell_probabilities(k, n, law):
    cells = _cells(k, n, law, seed=k + n)
    prob = _Problem(cells)
    start = grid_start(prob)
    ref = npmle(cells)
    p_hat = prob.kernel(np.asarray(ref.atoms)) @ np.asarray(ref.weights)
    # no start where D = 0 everywhere: the frequencies themselves are the NPMLE's cell
    # probabilities, and CNM picks which law of them is reported (the module's docstring)
    saturated = bool(np.allclose(p_hat, prob.n / prob.N, rtol=0, atol=1e-7))
    assert (start is None) == saturated
    if start is not None:
        p_start = prob.kernel(start.atoms) @ start.weights
        assert np.max(np.abs(p_start - p_hat)) < 1e-3
        assert start.weights.sum() == pytest.approx(1.0, abs=1e-12)
        # neighbouring grid atoms are joined: two atoms that close make Newton's Jacobian singular
        assert np.all(np.diff(np.sort(start.atoms)) > 1.0 / (NPMLE_START_GRID - 1) + 1e-12)


def test_an_observed_cell_keeps_a_positive_probability_at_thousands_of_calls():
    # S / K = 1 / 2000 rounds to the grid's end 0, where B_c = 0 for S > 0: the start keeps such
    # cells off the ends, so that the fit's log-likelihood is finite from the first step
    cells = cell_counts(np.full(6, 2000), np.array([1, 3, 1990, 1999, 0, 2000]))
    law = npmle(cells)
    assert np.isfinite(law.loglik)
    assert law.max_gradient <= 1e-6 * 6 + 1e-6


@settings(max_examples=40, deadline=None)
@given(
    cells=st.integers(3, 12),
    atoms=st.integers(2, 16),
    spread=st.floats(0.0, 40.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_simplex_program_converges_when_the_columns_span_many_orders(cells, atoms, spread, seed):
    # A_cj = sqrt(n_c) B_c(theta_j) / p_c spans dozens of orders of magnitude when some cell is
    # nearly impossible under the current law (1e-145 to 1e30 in Q at K = 1000). Unscaled, the
    # active-set method took curved directions for flat ones and cycled to its iteration limit;
    # it must stop within its limit
    rng = np.random.default_rng(seed)
    scales = 10.0 ** (spread * (rng.random(atoms) - 0.5))
    a = rng.random((cells, atoms)) * scales
    qmat = a.T @ a
    lin = -2.0 * a.sum(axis=0) * rng.random(atoms)
    w0 = np.zeros(atoms)
    w0[rng.integers(atoms)] = 1.0
    budget = WorkBudget(10**6, "a test")
    w = _simplex_qp(qmat, lin, w0, budget)
    assert budget.limit - budget.left < QP_ITER_PER_ATOM * (atoms + 1)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, rel=1e-12)
    # a descent from the start, never above it (CNM takes the answer as a direction and line-searches it)
    def value(x):
        return 0.5 * x @ qmat @ x + x @ lin

    assert value(w) <= value(w0) + 1e-12 * abs(value(w0))


@pytest.mark.parametrize("seed", range(4))
def test_the_npmle_does_not_depend_on_the_grid_start_with_ragged_calls(monkeypatch, seed):
    # K_i from 1 to 12 per example: cells of several K, which the snapped empirical start and
    # the grid's kernel must treat per cell
    import certify.likelihood._npmle as npmle_module

    rng = np.random.default_rng(seed)
    calls = rng.integers(1, 13, 300)
    cells = cell_counts(calls, rng.binomial(calls, rng.beta(0.8, 0.6, 300)))
    with_start = npmle(cells)
    monkeypatch.setattr(npmle_module, "grid_start", lambda prob: None)
    without = npmle(cells)
    gap = 1e-9 * (1 + 300)
    assert with_start.loglik == pytest.approx(without.loglik, abs=2 * gap)
    assert with_start.max_gradient <= gap and without.max_gradient <= gap
