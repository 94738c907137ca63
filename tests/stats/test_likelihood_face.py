"""The face calibration of objectives beyond the recorded calls (``beyond="face"``).

References are independent of the engine: the critical value from scipy's F quantile by its
formula, the face dimension by counting the extremal laws' atoms here, and the intervals at that
drop through the given-c path.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import f as f_dist
from test_likelihood import simulated_cells

from certify import InputError
from certify.likelihood import cell_counts, likelihood_interval, likelihood_intervals, npmle
from certify.likelihood._calibration import face_df

def beyond(K):
    """Objectives K calls do not identify: V9 below 9 calls, V101 and V_inf."""
    return ["V9"] * (K < 9) + [101, "inf"]


def f_form(alpha, df, n, dim):
    """c = (n/2) log(1 + df F_{df, n-dim, 1-alpha} / (n - dim)), straight from scipy."""
    return 0.5 * n * math.log(1.0 + df * f_dist.ppf(1.0 - alpha, df, n - dim) / (n - dim))


def parameters(end):
    """2 r + b - 1 of one extremal law, counted here: r atoms with weight inside (0, 1), b at 0 or 1."""
    inside = sum(1 for x, w in zip(end.atoms, end.weights) if w > 0 and 0 < x < 1)
    edge = sum(1 for x, w in zip(end.atoms, end.weights) if w > 0 and x in (0.0, 1.0))
    return 2 * inside + edge - 1


def law(atoms, weights):
    return SimpleNamespace(atoms=np.array(atoms, dtype=float), weights=np.array(weights, dtype=float))


def test_face_df_counts_free_parameters():
    assert face_df([law([0.7], [1.0])], 5) == 1                      # one interior atom: the profile's df
    assert face_df([law([0.3, 0.8], [0.4, 0.6])], 5) == 3            # two interior atoms
    assert face_df([law([0.4, 1.0], [0.5, 0.5])], 5) == 2            # an atom at 1 has no free location
    assert face_df([law([1.0], [1.0])], 5) == 1                      # no parameter at all: at least 1
    assert face_df([law([0.3, 0.8, 0.9], [0.5, 0.5, 0.0])], 5) == 3  # an atom without weight does not count
    assert face_df([law([0.7], [1.0]), law([0.1, 0.4, 0.9], [0.2, 0.3, 0.5])], 4) == 4  # the larger end, at most K


@pytest.mark.parametrize("K,N,seed", [(10, 60, 3), (5, 400, 8), (10, 2000, 5)])
def test_face_ends_are_the_ends_at_the_independent_drop(K, N, seed):
    cells = simulated_cells(K, N, seed)
    ref = npmle(cells)
    projection = likelihood_intervals(cells, beyond(K), reference=ref)
    face = likelihood_intervals(cells, beyond(K), reference=ref, beyond="face")
    for prj, iv in zip(projection, face):
        assert prj.calibration == "projection" and iv.calibration == "face"
        d = min(max(parameters(prj.lower), parameters(prj.upper), 1), K)
        assert iv.df == d
        assert iv.c == pytest.approx(f_form(0.05, d, N, K), rel=1e-12)
        given = likelihood_interval(cells, iv.objective, c=f_form(0.05, d, N, K), reference=ref)
        assert iv.lower.value == pytest.approx(given.lower.value, abs=1e-7)
        assert iv.upper.value == pytest.approx(given.upper.value, abs=1e-7)


@pytest.mark.parametrize("K,N,seed", [(10, 60, 3), (5, 400, 8), (3, 200, 2)])
def test_face_lies_between_the_profile_and_the_projection(K, N, seed):
    cells = simulated_cells(K, N, seed)
    ref = npmle(cells)
    profile_c = f_form(0.05, 1, N, K)
    projection = likelihood_intervals(cells, beyond(K), reference=ref)
    profile = likelihood_intervals(cells, beyond(K), c=profile_c, reference=ref)
    face = likelihood_intervals(cells, beyond(K), reference=ref, beyond="face")
    for prj, pro, iv in zip(projection, profile, face):
        assert profile_c - 1e-12 <= iv.c <= prj.c + 1e-12
        assert prj.c == pytest.approx(f_form(0.05, K, N, K), rel=1e-12)
        # nested sets: a smaller drop, a shorter interval inside the longer one
        assert prj.lower.value - 1e-7 <= iv.lower.value <= pro.lower.value + 1e-7
        assert pro.upper.value - 1e-7 <= iv.upper.value <= prj.upper.value + 1e-7


def test_face_leaves_identified_objectives_and_the_default_alone():
    cells = simulated_cells(5, 300, 4)
    ref = npmle(cells)
    default = likelihood_intervals(cells, [3, "V5 - V1", 101], reference=ref)
    face = likelihood_intervals(cells, [3, "V5 - V1", 101], reference=ref, beyond="face")
    assert [iv.calibration for iv in default] == ["profile", "profile", "projection"]
    assert [iv.calibration for iv in face][:2] == ["profile", "profile"]
    for a, b in zip(default[:2], face[:2]):
        assert (a.c, a.lower.value, a.upper.value) == (b.c, b.lower.value, b.upper.value)


def test_unknown_beyond_is_an_input_error():
    cells = cell_counts(np.full(20, 3), np.arange(20) % 4)
    with pytest.raises(InputError, match="beyond='chi1'"):
        likelihood_intervals(cells, [101], beyond="chi1")
    assert issubclass(InputError, ValueError)
