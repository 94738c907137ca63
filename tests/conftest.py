"""Shared fixtures: every test starts with the solvers' state empty (certify.solvers.TARGETS).

The exact solver remembers faces of the moment problem per objective; which route a
solve takes may depend on them (its value does not). Clearing before each test makes
every test's routes independent of the tests that ran before it.
"""

import pytest

from certify.solvers import TARGETS


@pytest.fixture(autouse=True)
def fresh_solver_state():
    TARGETS.clear()
    yield TARGETS
