"""The moment-space check of any order (certify._moments._check_general) on prefixes that double.

A failure anywhere must still be found (the conditions of a prefix are necessary for the whole
vector, but not sufficient), moments of genuine laws must pass at any order, and data with
many calls must be refused quickly.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from certify import InfeasibleMomentsError, moment_class


def _u_statistics(examples: int, calls: int, seed: int) -> np.ndarray:
    """m_k = mean_i C(S_i, k) / C(K, k), k = 1..K, of binomial data with q ~ Beta(2, 1)."""
    rng = np.random.default_rng(seed)
    s = rng.binomial(calls, rng.beta(2.0, 1.0, examples))
    j = np.arange(calls)
    return np.cumprod(np.maximum(s[:, None] - j, 0) / (calls - j), axis=1).mean(axis=0)


def _size(message: str) -> int:
    """The largest index i, j of the failed matrix, read from the message."""
    return int(re.search(r"\(i, j <?=? ?(\d+)\)", message).group(1))


def test_few_examples_of_many_calls_fail_at_a_small_prefix():
    # 4 examples x 2000 calls: the first 16 moments already fit no law
    with pytest.raises(InfeasibleMomentsError, match="positive semidefinite") as err:
        moment_class(values=list(_u_statistics(4, 2000, 1)))
    assert _size(str(err.value)) <= 8


def test_a_failure_beyond_the_prefixes_is_still_found():
    # 300 examples x 2000 calls (seed 3): every Hankel condition of the first 100 moments holds,
    # those of all 2000 fail by 0.06 (measured), far beyond the rounding of the eigenvalues
    values = _u_statistics(300, 2000, 3)
    assert moment_class(values=list(values[:100])).order == 100
    with pytest.raises(InfeasibleMomentsError, match="positive semidefinite") as err:
        moment_class(values=list(values))
    assert _size(str(err.value)) > 50


@pytest.mark.parametrize("order", [17, 64, 500])
@pytest.mark.parametrize(
    "atoms, weights",
    [([0.1, 0.5, 0.9], [0.2, 0.5, 0.3]), ([0.7], [1.0]), ([0.0, 1.0], [0.4, 0.6]), ([0.0, 0.3, 1.0], [0.1, 0.6, 0.3])],
)
def test_moments_of_a_law_pass_at_any_order(order, atoms, weights):
    # boundary laws (few atoms, 0 and 1 among them): singular Hankel matrices, whose smallest
    # eigenvalues in doubles are rounding of either sign (-5.6e-13 for atoms 0 and 1 at order 2000)
    atoms, weights = np.array(atoms), np.array(weights)
    values = [float(weights @ atoms**k) for k in range(1, order + 1)]
    assert moment_class(values=values).order == order


def test_the_largest_rounding_passes_at_order_2000():
    # atoms at 0 and 1: every moment is 0.6, the Hankel matrix's norm is largest (600 at size
    # 1001) and so is the rounding of its smallest eigenvalue
    assert moment_class(values=[0.6] * 2000).order == 2000
