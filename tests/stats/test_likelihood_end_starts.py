"""The ends' starts on a grid (`certify.likelihood._end_starts`): near the optima, never the answer.

The grid end is derived in the module docstring; a wrong sign or scaling of its Lagrangian
(the cost g / lambda against l) or a search that stops at the wrong multiplier would put the
start far from the solved end, which these tests measure against the solved ends. The answers
themselves come from Newton, the screen and the certificate: with the starts switched off they
are the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from stats_helpers import LIKELIHOOD_CASES as CASES
from stats_helpers import likelihood_cells as _cells

import certify.likelihood._ends as ends_module
import certify.likelihood._npmle as npmle_module
from certify.likelihood import cell_counts, likelihood_interval, npmle
from certify.likelihood._calibration import _Context
from certify.likelihood._end_starts import end_start
from certify.likelihood._ends import _lambda_guess
from certify.likelihood._problem import _Problem
from certify.likelihood._targets import _Law, _objective, _target


def _start(ctx: _Context, tgt):
    """The start of one end, as :func:`certify.likelihood._ends._solve_end` asks for it."""
    return end_start(ctx.prob, tgt, ctx.level, ctx.ref_law, _lambda_guess(ctx, tgt))


@pytest.mark.parametrize(("k", "n", "law"), CASES)
@pytest.mark.parametrize("objective", [3, 101, "V5 - V1", "inf"])
def test_end_start_is_near_the_solved_end(k, n, law, objective):
    cells = _cells(k, n, law, seed=k * n)
    iv = likelihood_interval(cells, objective)
    ctx = _Context(cells, 0.05, False, None, iv.reference)
    obj = _objective(objective)
    ctx.calibrate(ctx.calibration_of(obj))
    if iv.small_count:
        ctx.set_drop(iv.c)
    for side in ("lower", "upper"):
        end = getattr(iv, side)
        if end.lam == 0:
            continue  # decided before any Lagrangian solve (eq. (L11), lambda = 0)
        tgt = _target(obj, side)
        got = _start(ctx, tgt)
        assert got is not None
        law, lam, _ = got
        (g_at,) = tgt.jet(law.atoms, np.zeros(len(law.atoms), dtype=np.int64), (0,)) if len(tgt.pieces) == 1 else (None,)
        if g_at is not None:  # the start's value: within a grid step's worth of the end
            assert abs(tgt.sign * float(law.weights @ g_at) - end.value) < 2e-3
        assert lam == pytest.approx(end.lam, rel=0.05)


@pytest.mark.parametrize(("k", "n", "law"), CASES[::3])
def test_answers_do_not_depend_on_the_starts(monkeypatch, k, n, law):
    cells = _cells(k, n, law, seed=7 * k + n)
    with_starts = [likelihood_interval(cells, v) for v in (3, 101)]
    monkeypatch.setattr(ends_module, "end_start", lambda *a: None)
    monkeypatch.setattr(npmle_module, "grid_start", lambda *a: None)
    without = [likelihood_interval(cells, v) for v in (3, 101)]
    assert with_starts[0].reference.loglik == pytest.approx(without[0].reference.loglik, abs=1e-9 * n)
    for a, b in zip(with_starts, without):
        assert a.lower.value == pytest.approx(b.lower.value, abs=1e-9)
        assert a.upper.value == pytest.approx(b.upper.value, abs=1e-9)


def test_no_start_beyond_the_cell_limit():
    from certify.likelihood._tolerances import END_START_MAX_CELLS

    calls = np.repeat(np.arange(1, 40), 3)  # ragged counts: many cells
    successes = np.concatenate([[0, k // 2, k] for k in range(1, 40)])
    cells = cell_counts(calls, successes)
    prob = _Problem(cells)
    assert prob.cells.size > END_START_MAX_CELLS
    law = npmle(cells)
    end = end_start(prob, _target(_objective(3), "lower"), law.loglik - 2.0, _Law.unassigned(law.atoms, law.weights), 1.0)
    assert end is None


@pytest.mark.parametrize(("k", "n", "law"), CASES)
@pytest.mark.parametrize("objective", [3, "V5 - V1"])
def test_start_has_no_two_atoms_one_grid_step_apart(k, n, law, objective):
    # a minimum of psi between grid points shows as the pair around it; the start
    # joins such a pair (two atoms that close make Newton's Jacobian nearly singular)
    from certify.likelihood._tolerances import END_START_GRID

    cells = _cells(k, n, law, seed=k * n + 1)
    ref = npmle(cells)
    ctx = _Context(cells, 0.05, False, None, ref)
    obj = _objective(objective)
    ctx.calibrate(ctx.calibration_of(obj))
    for side in ("lower", "upper"):
        got = _start(ctx, _target(obj, side))
        if got is None or got[2]:
            continue  # no start, or flat: any law with the cell probabilities is optimal
        atoms = np.sort(got[0].atoms)
        assert np.all(np.diff(atoms) > 1.0 / (END_START_GRID - 1) + 1e-12)
        assert got[0].weights.sum() == pytest.approx(1.0, abs=1e-12)


def test_neighbouring_grid_atoms_are_joined_at_their_weighted_mean():
    from certify.likelihood._end_starts import _joined

    idx = np.array([0, 1, 5, 9, 10, 11])
    atoms = idx / 128.0
    weights = np.array([0.1, 0.3, 0.2, 0.1, 0.1, 0.2])
    joined, total = _joined(idx, atoms, weights)
    np.testing.assert_allclose(total, [0.4, 0.2, 0.4])
    np.testing.assert_allclose(joined, [(0.3 / 128) / 0.4, 5 / 128, (0.9 + 1.0 + 2.2) / 128 / 0.4])


def test_a_start_never_has_weights_that_are_not_finite():
    # V101's upper end from K = 1000 calls of 50 examples (q ~ Beta(2, 8), the data of
    # tests/stats/test_likelihood.py's K = 1000 case): SciPy 1.17's NNLS returned NaN and
    # infinite weights for the start's candidate atoms, and the start was a law of NaN weights
    rng = np.random.default_rng(1)
    q = rng.beta(2, 8, 50)
    rng.random(50), rng.beta(2, 8, 50), rng.beta(8, 2, 50)
    cells = cell_counts(np.full(50, 1000), rng.binomial(1000, q))
    ctx = _Context(cells, 0.05, False, None, None)
    obj = _objective(101)
    for side in ("lower", "upper"):
        got = _start(ctx, _target(obj, side))
        if got is not None:
            law, lam, _ = got
            assert np.all(np.isfinite(law.weights)) and np.all(law.weights > 0) and np.isfinite(lam)
