"""The solvers' state is visible and clearable, and it never changes a value.

The exact solver keeps, per objective and side, a grid hull, faces of the moment problem
and compiled programs in its :class:`certify.solvers.Target` (held by
``certify.solvers.TARGETS``). A solve may take another route once faces are known; the
sharp value must not change beyond rounding.
"""

from __future__ import annotations

import numpy as np

from certify import sharp_bounds
from certify._objective import vote_accuracy
from certify.solvers import TARGETS


def _points(n=25, seed=7):
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.05, 0.95, n)
    nu = mu * mu + rng.uniform(0.02, 0.98, n) * (mu - mu * mu)
    return list(zip(mu.tolist(), nu.tolist()))


def _values(points, votes=7):
    out = []
    for mu, nu in points:
        b = sharp_bounds(vote_accuracy(votes), mu=mu, nu=nu)
        out.append((b.lower.value, b.upper.value))
    return np.array(out)


def test_state_lives_in_the_target_and_clear_drops_it(fresh_solver_state):
    assert len(TARGETS) == 0
    _values(_points(8))
    assert len(TARGETS) == 2  # one target per side of V7
    targets = list(TARGETS._targets.values())
    assert all(t.hull is not None for t in targets)  # two moments: the grid hull was built
    assert any(len(t.faces.get(3, ())) for t in targets)  # and faces were remembered
    targets[0].clear()
    assert targets[0].hull is None and targets[0].faces == {} and targets[0].programs == {}
    TARGETS.clear()
    assert len(TARGETS) == 0


def test_values_do_not_depend_on_what_was_solved_before(fresh_solver_state):
    points = _points()
    cold = []
    for p in points:  # every point from an empty state
        TARGETS.clear()
        cold.append(_values([p])[0])
    TARGETS.clear()
    warm = _values(points)  # one after another: later points may reuse faces of earlier ones
    reverse = _values(points[::-1])[::-1]  # and in the other order, with faces from both runs
    assert np.max(np.abs(np.array(cold) - warm)) <= 1e-15
    assert np.max(np.abs(np.array(cold) - reverse)) <= 1e-15


def test_cache_is_bounded():
    from certify.solvers import TargetCache

    cache = TargetCache(maxsize=3)
    objs = [vote_accuracy(k) for k in (3, 5, 7, 9)]
    for o in objs:
        cache.get(o, 1)
    assert len(cache) == 3
    first = cache.get(objs[1], 1)
    assert cache.get(objs[1], 1) is first
