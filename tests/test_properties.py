"""Property tests: for random laws with a few atoms, the sharp bounds bracket E[g],
the returned laws have the given moments and attain their values, and the dual
polynomials are valid minorants / majorants on [0, 1]."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify import parse_objective, sharp_bounds

OBJECTIVES = ["V3", "V5", "V9", "V21", "V101", "P3 - P1", "V5 - q", "q - 3*q**2 + 4*q**5 - 2*q**7", "V1001"]
CHECK = np.linspace(0.0, 1.0, 20001)


@st.composite
def laws(draw, max_atoms=6):
    # Atoms on a 1/1000 grid: repeats, endpoints and near neighbours occur, but not
    # the denormal clusters (1e-308 next to 1e-9) whose moment vectors lie within
    # rounding of the boundary, where no float solver can certify 1e-10.
    k = draw(st.integers(1, max_atoms))
    atoms = [i / 1000 for i in draw(st.lists(st.integers(0, 1000), min_size=k, max_size=k))]
    weights = draw(st.lists(st.floats(0.01, 1.0, allow_nan=False), min_size=k, max_size=k))
    w = np.array(weights) / np.sum(weights)
    return np.array(atoms), w


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(law=laws(), spec=st.sampled_from(OBJECTIVES), order=st.sampled_from([1, 2, 2, 2, 3]))
def test_bounds_bracket_every_law_and_are_attained(law, spec, order):
    atoms, w = law
    obj = parse_objective(spec)
    vals = [float(np.dot(w, atoms**k)) for k in range(1, order + 1)]
    truth = float(np.dot(w, obj.evaluate(atoms)))
    b = sharp_bounds(obj, moments=vals)
    assert b.lower.value <= truth + 1e-10
    assert truth <= b.upper.value + 1e-10
    g = obj.evaluate(CHECK)
    for bound, sign in ((b.lower, -1), (b.upper, 1)):
        # the extremal law: at most m+1 atoms in [0, 1], the given moments, attains the value
        a = np.array(bound.law.atoms)
        assert len(a) <= order + 1
        assert np.all((a >= 0) & (a <= 1)) and min(bound.law.weights) >= 0
        assert abs(sum(bound.law.weights) - 1) <= 1e-12
        np.testing.assert_allclose(bound.law.moments(order), vals, atol=1e-10)
        assert abs(bound.law.expect(obj) - bound.value) <= 1e-12
        # the dual: minorant (lower) / majorant (upper) on a fine grid, same value
        p = np.polynomial.polynomial.polyval(CHECK, bound.dual)
        assert np.max(sign * (g - p)) <= 1e-10
        assert abs(bound.dual_value - bound.value) <= 1e-10
