"""The solvers' state is visible and clearable, and no result depends on what ran before.

The exact solver keeps, per objective and side, samples, a grid hull and compiled
programs in its :class:`certify.solvers.Target` (held by ``certify.solvers.TARGETS``):
deterministic functions of the objective, so a solve gives the same floats from an
empty or a full cache, after any history. Faces of the moment problem, which change a
solve's route, live only in a :class:`certify.solvers.Faces` that a caller creates and
passes (a batch does).
"""

from __future__ import annotations

import numpy as np

from certify import sharp_bound_arrays, sharp_bounds
from certify._objective import vote_accuracy
from certify.solvers import TARGETS, Faces, solve_exact


def _points(n=25, seed=7):
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.05, 0.95, n)
    nu = mu * mu + rng.uniform(0.02, 0.98, n) * (mu - mu * mu)
    return list(zip(mu.tolist(), nu.tolist()))


def _solutions(points, votes=7):
    """Every float of each point's two bounds: values, laws, duals, violations."""
    out = []
    for mu, nu in points:
        b = sharp_bounds(vote_accuracy(votes), mu=mu, nu=nu)
        out.append(tuple((s.value, s.law.atoms, s.law.weights, s.dual, s.violation) for s in (b.lower, b.upper)))
    return out


def test_state_lives_in_the_target_and_clear_drops_it(fresh_solver_state):
    assert len(TARGETS) == 0
    _solutions(_points(8))
    assert len(TARGETS) == 2  # one target per side of V7
    targets = list(TARGETS._targets.values())
    assert all(t.hull is not None for t in targets)  # two moments: the grid hull was built
    assert not hasattr(targets[0], "faces")  # faces are never kept per process
    targets[0].clear()
    assert targets[0].hull is None and targets[0].programs == {}
    TARGETS.clear()
    assert len(TARGETS) == 0


def test_same_floats_after_any_history(fresh_solver_state):
    # Each point from an empty state; then all points in order, in reverse order, after
    # other objectives and after a batch over the same points: identical floats each time.
    points = _points()
    cold = []
    for p in points:
        TARGETS.clear()
        cold += _solutions([p])
    TARGETS.clear()
    assert _solutions(points) == cold
    assert _solutions(points[::-1])[::-1] == cold
    sharp_bounds(vote_accuracy(9), mu=0.6, nu=0.4)
    sharp_bounds("P3 - P1", moments=[0.5, 0.3, 0.2])
    assert _solutions(points) == cold
    mu, nu = np.array(points).T
    sharp_bound_arrays(vote_accuracy(7), mu=mu, nu=nu)  # a batch finds and reuses faces of its own
    assert _solutions(points) == cold


def test_faces_are_shared_only_through_a_faces_object(fresh_solver_state):
    obj, theta = vote_accuracy(9), np.array([1.0, 0.1655, 0.1547])
    faces = Faces()
    first = solve_exact(obj, theta, 1, faces)
    assert first.route == "hull" and len(faces) == 1  # three contacts: a face, remembered
    again = solve_exact(obj, theta, 1, faces)
    assert again.route == "face"
    assert abs(float(again.weights @ again.atoms) - theta[1]) <= 1e-15
    alone = solve_exact(obj, theta, 1)  # no Faces: the same route and floats as the first solve
    assert alone.route == "hull"
    assert alone.atoms.tolist() == first.atoms.tolist() and alone.weights.tolist() == first.weights.tolist()
    assert alone.dual.tolist() == first.dual.tolist()


def test_cache_is_bounded():
    from certify.solvers import TargetCache

    cache = TargetCache(maxsize=3)
    objs = [vote_accuracy(k) for k in (3, 5, 7, 9)]
    for o in objs:
        cache.get(o, 1)
    assert len(cache) == 3
    first = cache.get(objs[1], 1)
    assert cache.get(objs[1], 1) is first
