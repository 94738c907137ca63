"""One rule per shared argument (certify/_validation.py), applied alike by every public function that takes it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify import InputError, ObjectiveError
from certify._validation import check_alpha, check_votes
from certify.likelihood import critical_value
from certify.readers import bits_from_array
from certify.stats import two_call_estimates, wald_region
from certify.analysis import analyze


@pytest.mark.parametrize("alpha", [0.05, 1e-9, 0.999, np.float32(0.05), np.float64(0.1), np.longdouble(0.2)])
def test_a_level_in_the_open_unit_interval_is_taken_as_a_float(alpha):
    value = check_alpha(alpha)
    assert type(value) is float and value == float(alpha)


@pytest.mark.parametrize("alpha", [0, 1, 0.0, 1.0, -0.1, 1.5, math.nan, math.inf, True, np.bool_(True), "0.05", None,
                                   [0.05], np.array([0.05])])
def test_anything_else_is_refused_with_the_value_named(alpha):
    with pytest.raises(InputError, match=r"^alpha=.* must be in \(0, 1\)$"):
        check_alpha(alpha)


def _bits():
    rng = np.random.default_rng(0)
    q = rng.beta(2, 1, 60)
    return bits_from_array((rng.random((60, 3)) < q[:, None]).astype(np.int8))


@pytest.mark.parametrize("alpha", [np.float32(0.05), 0.05])
def test_the_public_functions_agree_on_a_numpy_level(alpha):
    """analyze refused np.float32(0.05) while critical_value took it; now both take it, and give the same numbers."""
    bits = _bits()
    assert critical_value(alpha) == pytest.approx(critical_value(0.05))
    report = analyze(bits, votes=[3], alpha=alpha, method="two-call")
    assert report.alpha == pytest.approx(0.05)
    region, reference = (wald_region(two_call_estimates(bits), alpha=a) for a in (alpha, 0.05))
    # float32(0.05) is 0.05000000074505806: the same region to single precision
    assert np.allclose(region.shape, reference.shape, rtol=1e-6)


@pytest.mark.parametrize("call", [lambda a: critical_value(a), lambda a: analyze(_bits(), votes=[3], alpha=a),
                                  lambda a: wald_region(two_call_estimates(_bits()), alpha=a)])
def test_the_public_functions_refuse_alike(call):
    for bad in (True, math.nan, 1.0):
        with pytest.raises(InputError, match=r"alpha=.* must be in \(0, 1\)"):
            call(bad)


def test_votes_are_positive_integers_within_the_callers_limit():
    assert check_votes(np.int64(3), 5, "beyond") == 3 and type(check_votes(np.int64(3), 5, "beyond")) is int
    for bad in (0, -1, 2.0, True, "3"):
        with pytest.raises(InputError, match="must be a positive integer number of calls"):
            check_votes(bad, 5, "beyond")
    with pytest.raises(InputError, match="^votes=7 is too many$"):
        check_votes(7, 5, "votes=7 is too many")
    with pytest.raises(ObjectiveError):
        check_votes(0, 5, "beyond", ObjectiveError)
