"""`witness_below`: a law of the likelihood set that puts the lower end below a value, no end solved."""

from __future__ import annotations

import numpy as np
import pytest

from certify import InputError
from certify.likelihood import (cell_counts, critical_value, likelihood_bound, log_likelihood, npmle,
                                witness_below)
from certify.planning._planning import _run_chunk, cell_probabilities
from certify._objective import parse_objective, vote_gain


def _data(k: int, n: int, seed: int, hard: float):
    """Examples of which a share ``hard`` has q ~ Beta(2, 5), the rest Beta(8, 2): the gain of
    voting goes from clearly positive (hard small) through 0 to negative."""
    rng = np.random.default_rng(seed)
    q = np.where(rng.random(n) < hard, rng.beta(2, 5, n), rng.beta(8, 2, n))
    return cell_counts(np.full(n, k), rng.binomial(k, q))


def _candidates(cells, objective):
    """Laws that are sometimes witnesses: the ends of nearby data sets and the NPMLE's neighbours."""
    lower = likelihood_bound(cells, objective, "lower")
    return [lower.law(), ((0.2, 0.9), (0.5, 0.5)), ((0.0, 1.0), (0.3, 0.7))]


@pytest.mark.parametrize(("k", "n", "objective"), [(3, 200, "V3 - V1"), (5, 400, "V3 - V1"), (2, 300, "V5 - V1"),
                                                   (10, 150, "V9")])
def test_a_witness_is_in_the_set_and_below_the_value_and_agrees_with_the_solved_end(k, n, objective):
    obj = parse_objective(objective)
    found = {True: 0, False: 0}
    for seed in range(8):
        cells = _data(k, n, seed, hard=0.1 * seed)
        ref = npmle(cells)
        end = likelihood_bound(cells, objective, "lower", reference=ref)
        # the values around the solved end: the witness may only exist below the end's value
        for value in (end.value - 0.05, end.value + 1e-3, end.value + 0.05, 0.0):
            laws = _candidates(_data(k, n, seed + 100, hard=0.1 * seed), objective)
            w = witness_below(cells, objective, value, laws, reference=ref)
            found[w is not None] += 1
            if w is None:
                continue
            atoms, weights = np.asarray(w.atoms), np.asarray(w.weights)
            assert float(weights @ obj.evaluate(atoms)) < value
            # in C, by the independent public functions: l(w) >= l(pi-hat) - c, c the calibration's value
            df = 1 if obj.degree <= k else k
            c = critical_value(0.05, df, n=n, dim=k)
            assert log_likelihood(cells, atoms, weights) >= ref.loglik - c
            assert end.value < value  # the solved end agrees
    assert found[True] > 0 and found[False] > 0  # both outcomes were exercised


def test_the_end_itself_is_a_witness_just_above_its_value():
    cells = _data(5, 300, 1, hard=0.5)
    end = likelihood_bound(cells, "V3 - V1", "lower")
    assert witness_below(cells, "V3 - V1", end.value + 1e-6, [end.law()]) is not None
    # at the end's own value nothing in C is below it: no candidate can witness
    assert witness_below(cells, "V3 - V1", end.value - 1e-6, [end.law(), npmle(cells).law()]) is None


def test_a_mixture_with_the_npmle_pulls_a_law_into_the_set():
    cells = _data(5, 400, 3, hard=0.3)
    ref = npmle(cells)
    end = likelihood_bound(cells, "V3 - V1", "lower", c=8.0, reference=ref)  # an extremal law far outside C
    outside = end.law()
    c = critical_value(0.05, 1, n=400, dim=5)
    assert log_likelihood(cells, outside.atoms, outside.weights) < ref.loglik - c
    gain_hat = ref.law().expect(vote_gain(3))
    w = witness_below(cells, "V3 - V1", gain_hat, [outside], reference=ref)
    assert w is not None and len(w.atoms) > len(outside.atoms)  # a mixture, not the candidate itself


def test_plan_decisions_equal_the_solved_ends():
    # the plan skips the gain's lower end where a witness is found: its certified flags must be
    # exactly those of solving the end for every simulated study
    gain = vote_gain(3)
    # gain 0.025: about a third to three quarters of these small studies certify it
    atoms, weights = np.array([0.3, 0.75, 0.95]), np.array([0.3, 0.4, 0.3])
    for k, n in ((3, 200), (5, 120), (5, 60)):
        p = cell_probabilities(atoms, weights, k)
        seed = np.random.SeedSequence(7, spawn_key=(k, 0))
        _, certified = _run_chunk((p, n, 12, [3, gain], 0.05, seed, (atoms, weights), np.arange(12) % 3 == 0))
        counts = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(k, 0))).multinomial(n, p, size=12)
        solved = [likelihood_bound(cell_counts(np.full(n, k), np.repeat(np.arange(k + 1), row)), gain, "lower").value > 0
                  for row in counts]
        assert certified.tolist() == solved
        assert 0 < sum(solved) < len(solved)  # both outcomes


@pytest.mark.parametrize(("objective", "laws", "message"), [
    ("inf", [((0.5,), (1.0,))], "a witness is for polynomial objectives"),
    ("V3", [((0.5, 1.2), (0.5, 0.5))], "a witness law needs"),
    ("V3", [((0.5, 0.7), (0.5, 0.4))], "a witness law needs"),
    ("V3", [((0.5,), (0.5, 0.5))], "a witness law needs"),
])
def test_bad_witness_inputs(objective, laws, message):
    cells = _data(3, 50, 0, hard=0.2)
    with pytest.raises(InputError, match=message):
        witness_below(cells, objective, 0.5, laws)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "0.5", True, None])
def test_bad_witness_value(value):
    with pytest.raises(InputError, match="must be a finite number"):
        witness_below(_data(3, 50, 0, hard=0.2), "V3", value, [((0.5,), (1.0,))])
