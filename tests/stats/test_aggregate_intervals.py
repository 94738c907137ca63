"""Plurality accuracy and pass@k at any k (certify.stats.aggregate_intervals): routes, bounds, certificates."""

import json

import numpy as np
import pytest
from scipy import stats

from certify import InputError, V_INF
from certify.certificates import verify
from certify.likelihood import cell_counts, likelihood_envelope, likelihood_interval, likelihood_intervals
from certify.stats import (
    PASS_INF,
    AggregateEstimate,
    aggregate_estimates,
    aggregate_intervals,
    certified_aggregate_intervals,
    pass_at_k_objective,
    plurality_bounds,
)


def answer_codes(q, calls, rng, wrong=(0.6, 0.3, 0.1), abstain=0.0):
    """Example i answers correctly w.p. q_i, else no answer w.p. ``abstain``, else one of len(wrong) wrong answers."""
    u = rng.random((len(q), calls))
    pick = rng.choice(np.arange(1, len(wrong) + 1), size=(len(q), calls), p=np.asarray(wrong) / sum(wrong))
    codes = np.where(u < q[:, None], 0, np.where(u < q[:, None] + abstain * (1 - q[:, None]), -1, pick))
    return codes


def cells_of(codes):
    return cell_counts((codes != -2).sum(axis=1), (codes == 0).sum(axis=1))


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(3)
    q = np.where(rng.random(400) < 0.15, 0.0, rng.beta(2.0, 1.5, 400))
    return q, answer_codes(q, 4, rng)


def test_plurality_routes(population):
    _, codes = population
    rows = aggregate_intervals(codes, [3, 4, 9, "inf"], aggregate="plurality")
    assert [r.votes for r in rows] == [3, 4, 9, V_INF]
    # identified: exactly the U-statistic rows
    for row, direct in zip(rows[:2], aggregate_estimates(codes, [3, 4], aggregate="plurality", baseline=None)):
        assert row == direct
    # beyond: min E[V_k], max E[U_k] from one set at the projection level
    cells = cells_of(codes)
    lower, upper = plurality_bounds(9)
    env = likelihood_envelope(cells, lower, upper)
    assert (rows[2].lower, rows[2].upper) == pytest.approx(env.as_tuple(), abs=1e-12)
    assert rows[2].estimate is None and rows[2].se is None and rows[2].baseline is None
    assert rows[2].calibration.startswith("beyond the recorded calls; asymptotic, projection likelihood ratio")
    assert "hold jointly" in rows[2].calibration and "U_9(Q)" in rows[2].method
    inf = likelihood_interval(cells, "inf", reference=env.reference)
    assert rows[3].lower == pytest.approx(inf.lower.value, abs=1e-12) and rows[3].upper == 1.0
    assert "1 by definition" in rows[3].method and rows[3].label == "plurality of infinitely many calls"


def test_pass_routes(population):
    _, codes = population
    rows = aggregate_intervals(codes, [1, 4, 20, "inf"], aggregate="pass@k")
    cells = cells_of(codes)
    direct = likelihood_intervals(cells, [pass_at_k_objective(k) for k in (1, 4, 20)] + [PASS_INF])
    for row, iv in zip(rows, direct):
        assert (row.lower, row.upper) == pytest.approx(iv.as_tuple(), abs=1e-12)
        assert row.aggregate == "pass@k" and row.n == 400
    assert [r.calibration.split(";")[0] for r in rows] == ["identified by the calls"] * 2 + ["beyond the recorded calls"] * 2
    # identified: the NPMLE's value, inside the interval, near the unbiased per-example mean
    unbiased = aggregate_estimates(codes, [1, 4], aggregate="pass@k", baseline=None)
    for row, u in zip(rows[:2], unbiased):
        assert row.lower <= row.estimate <= row.upper and row.estimate == pytest.approx(u.estimate, abs=0.01)
    assert rows[2].estimate is None and rows[3].estimate is None and rows[3].upper == 1.0
    # pass@k rises with k under one calibration: 20 calls and inf share the projection level
    assert rows[2].lower <= rows[3].lower


def test_abstentions_raise_the_plurality_upper_bound_to_pass_at_k():
    rng = np.random.default_rng(5)
    q = rng.beta(2.0, 2.0, 300)
    codes = answer_codes(q, 3, rng, abstain=0.3)
    assert (codes == -1).any()
    (row,) = aggregate_intervals(codes, 7, aggregate="plurality")
    env = likelihood_envelope(cells_of(codes), 7, pass_at_k_objective(7))
    assert (row.lower, row.upper) == pytest.approx(env.as_tuple(), abs=1e-12)
    assert "1 - (1-Q)^7, as calls may abstain" in row.method
    no_abstain = likelihood_envelope(cells_of(codes), *plurality_bounds(7))
    assert row.upper >= no_abstain.upper.value - 1e-12  # U_7 <= pass@7 pointwise


def test_ragged_calls_between_the_fewest_and_the_most():
    """Budgets up to the fewest calls are identified U-statistics; above the most calls, beyond; in
    between, both bounds are identified by the longest examples (profile level, two one-sided halves)."""
    rng = np.random.default_rng(8)
    q = rng.beta(3.0, 2.0, 300)
    codes = answer_codes(q, 5, rng)
    codes[:100, 3:] = -2  # a third of the examples has 3 calls
    rows = aggregate_intervals(codes, [3, 5, 7], aggregate="plurality")
    assert rows[0].method.startswith("U-statistic")
    assert rows[1].calibration.startswith("identified by the calls; asymptotic, profile") and "alpha/2" in rows[1].calibration
    assert rows[2].calibration.startswith("beyond the recorded calls; asymptotic, projection")


def test_the_interval_holds_the_true_plurality_accuracy():
    """Wrong answers all distinct (drawn from a million): plurality of k calls given q is U_k(q) exactly,
    and of infinitely many calls 1{q > 0}. The population is large and the truth its mean."""
    rng = np.random.default_rng(12)
    n = 3000
    q = np.where(rng.random(n) < 0.1, 0.0, rng.beta(2.0, 2.0, n))
    u = rng.random((n, 3))
    codes = np.where(u < q[:, None], 0, rng.integers(1, 10**6, size=(n, 3)))
    rows = aggregate_intervals(codes, [9, "inf"], aggregate="plurality")
    truth_9 = float(np.mean(stats.binom.sf(1, 9, q) + stats.binom.pmf(1, 9, q) / 9))
    assert rows[0].lower <= truth_9 <= rows[0].upper
    assert rows[1].lower <= float(np.mean(q > 0)) <= rows[1].upper == 1.0


def test_certified_aggregate_intervals(population):
    _, codes = population
    out = certified_aggregate_intervals(codes, [3, 9, "inf"], aggregate="plurality")
    assert out[0][1] is None and out[0][2] is None  # the U-statistic route: nothing exact to certify
    for row, lo, up in out[1:]:
        assert verify(lo.to_dict()).ok and verify(up.to_dict()).ok
        assert float(lo.bound) <= row.lower and row.lower - float(lo.bound) < 1e-9
        assert float(up.bound) >= row.upper and float(up.bound) - row.upper < 1e-9
    assert out[1][1].objective_name == "V9" and out[2][1].objective_name == "Vinf" and out[2][2].objective_name == "pass_inf"
    # the same numbers as without certificates
    plain = aggregate_intervals(codes, [3, 9, "inf"], aggregate="plurality")
    for (r, _, _), p in zip(out, plain):
        assert (r.lower, r.upper) == pytest.approx((p.lower, p.upper), abs=1e-12)
    ((row, lo, up),) = certified_aggregate_intervals(codes, 12, aggregate="pass@k")
    assert verify(lo.to_dict()).ok and verify(up.to_dict()).ok and lo.objective_name == "1 - (1-q)**12"


def test_rows_round_trip_through_json(population):
    _, codes = population
    for row in aggregate_intervals(codes, [4, "inf"], aggregate="pass@k") + aggregate_intervals(codes, [2, "inf"]):
        d = json.loads(json.dumps(row.to_dict()))
        assert AggregateEstimate.from_dict(d) == row
    assert aggregate_intervals(codes, "inf")[0].to_dict()["votes"] == "inf"


@pytest.mark.parametrize("kwargs, message", [
    (dict(votes=3, aggregate="majority"), "aggregate='majority' must be one of plurality, pass@k"),
    (dict(votes=3, alpha=1.5), "alpha=1.5 must be in (0, 1)"),
    (dict(votes=0), "votes=0 must be at least 1"),
    (dict(votes=600, aggregate="pass@k"), "votes=600 is above 512"),
    (dict(votes=600), "votes=600 is above 512"),
])
def test_bad_arguments_are_one_line(population, kwargs, message):
    _, codes = population
    with pytest.raises(InputError) as err:
        aggregate_intervals(codes, **kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)
