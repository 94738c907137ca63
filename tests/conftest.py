"""Shared fixtures: every test starts with the solvers' state empty (certify.solvers.TARGETS).

The targets only memoize what is a function of the objective (samples, grid hull,
compiled programs), so no result depends on them; clearing before each test keeps a
test's cost, and what it observes of the cache, independent of the tests before it.
"""

import pytest

from certify.solvers import TARGETS


@pytest.fixture(autouse=True)
def fresh_solver_state():
    TARGETS.clear()
    yield TARGETS
