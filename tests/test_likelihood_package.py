"""The package certify.likelihood: its public names, its named tolerances, Newton's watchdog state.

The numbers of the likelihood engine are tested in tests/stats/test_likelihood.py and its
neighbours; here, the structure those numbers rely on: each public name has one home
(certify.stats re-exports neither the likelihood's nor the readers'), every tolerance is a named
constant with its reason, and the watchdog state of Newton's method on (L9) follows the
rule it replaced (an integer: -1 line-search mode, 0 fresh, k > 0 relaxed steps).
"""

from __future__ import annotations

import ast
import importlib
import itertools
from pathlib import Path

import pytest

import certify
import certify.likelihood as likelihood
import certify.stats as stats
from certify.likelihood._newton import _Acceptance, _Watchdog
from certify.likelihood._tolerances import WATCHDOG_STEPS

PACKAGE = Path(likelihood.__file__).resolve().parent

#: Names of the likelihood engine and the readers: each has one home, and certify.stats (which
#: consumes both) offers none of them again.
HOMED = {"certify.likelihood": ("CellCounts", "LatentLaw", "LikelihoodEnd", "LikelihoodInterval", "cell_counts",
                                "certified_intervals", "certify_interval", "is_infinite_budget", "likelihood_bound",
                                "likelihood_interval", "likelihood_intervals", "npmle"),
         "certify.readers": ("CallBits", "CallTable", "ColumnMap", "DataError", "ReadInfo", "bits_from_array",
                             "parse_score_map", "read_bits", "read_call_table", "read_groups")}


@pytest.mark.parametrize("home, name", [(home, n) for home, names in HOMED.items() for n in names])
def test_statistics_do_not_re_export_the_likelihood_or_reader_names(home, name):
    assert name in importlib.import_module(home).__all__
    assert name not in stats.__all__ and not hasattr(stats, name)


@pytest.mark.parametrize("name", ["cell_counts", "likelihood_intervals", "npmle"])
def test_the_top_level_names_are_the_likelihood_ones(name):
    assert getattr(certify, name) is getattr(likelihood, name)


def test_every_public_name_is_defined():
    for name in likelihood.__all__:
        assert getattr(likelihood, name).__module__.startswith("certify.likelihood._")


def _tolerance_constants() -> list[tuple[str, int, bool]]:
    """(name, line, documented) of each constant of _tolerances.py: documented when a ``#:``
    comment opens the group of assignments it belongs to."""
    path = PACKAGE / "_tolerances.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, ast.Assign):
            i = node.lineno - 2  # the line above, 0-based
            while i >= 0 and lines[i].strip() and not lines[i].lstrip().startswith("#"):
                i -= 1  # another assignment of the same group
            out.append((node.targets[0].id, node.lineno, i >= 0 and lines[i].startswith("#:")))
    return out


def test_every_tolerance_says_why():
    constants = _tolerance_constants()
    assert len(constants) > 40
    assert [name for name, _, documented in constants if not documented] == []


def _small_float_literals(source: str) -> list[tuple[int, float]]:
    """(line, value) of each float literal of magnitude below 1e-3 in code (docstrings are strings)."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and 0 < abs(node.value) < 1e-3]


def test_no_tolerance_literal_outside_the_tolerances_module():
    """Small float literals in code are tolerances: they belong, named, in _tolerances.py."""
    found = [f"{path.name}:{line}: {value!r}" for path in sorted(PACKAGE.glob("*.py")) if path.name != "_tolerances.py"
             for line, value in _small_float_literals(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_literal_walk_sees_literals():
    assert _small_float_literals('"""tol 1e-9"""\nx = y <= 1e-12 * z + 0.5\n') == [(2, 1e-12)]


# -- the watchdog state against the integer rule it replaced ----------------------------------

def _old_rule(events):
    """The integer state of Newton's watchdog before _Watchdog: the three predicates after each event."""
    relaxed, seen = 0, []
    for event in events:
        if event == "decrease":  # a new best point (or a blocked step): fresh
            relaxed = 0
        elif event == "relaxed":  # a full step accepted without a real decrease
            relaxed = relaxed + 1 if relaxed >= 0 else relaxed
        elif event == "fall back":  # relaxed steps did not pay off: line-search mode
            relaxed = -1
        seen.append((0 <= relaxed < WATCHDOG_STEPS, relaxed > 0))
    return seen


def _new_rule(events):
    state, seen = _Watchdog(), []
    for event in events:
        if event == "decrease":
            state = _Watchdog()
        elif event == "relaxed":
            state = state.after_relaxed_step()
        elif event == "fall back":
            state = _Watchdog(_Acceptance.LINE_SEARCH)
        seen.append((state.may_relax(), state.relaxed_in_vain()))
    return seen


@pytest.mark.parametrize("length", range(1, 9))
def test_watchdog_state_follows_the_integer_rule(length):
    for events in itertools.product(("decrease", "relaxed", "fall back"), repeat=length):
        assert _new_rule(events) == _old_rule(events), events


def test_watchdog_relaxes_a_bounded_number_of_steps():
    state = _Watchdog()
    for _ in range(WATCHDOG_STEPS):
        assert state.may_relax()
        state = state.after_relaxed_step()
        assert state.relaxed_in_vain()
    assert not state.may_relax()
    line_search = _Watchdog(_Acceptance.LINE_SEARCH)
    assert not line_search.may_relax() and not line_search.relaxed_in_vain()
    assert line_search.after_relaxed_step() == line_search
