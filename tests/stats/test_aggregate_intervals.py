"""Plurality accuracy and pass@k at any k (certify.aggregates.aggregate_intervals): routes, bounds, certificates."""

import json
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from certify import InputError, V_INF
from certify.certificates import verify
from certify.likelihood import cell_counts, likelihood_envelope, likelihood_interval, likelihood_intervals
from certify.aggregates import PASS_INF, AggregateEstimate, aggregate_estimates, aggregate_intervals, certified_aggregate_intervals, pass_at_k_objective, plurality_bounds


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
    nine, inf_row = rows[2].interval, rows[3].interval
    assert (nine.lower, nine.upper) == pytest.approx(env.as_tuple(), abs=1e-12)
    assert nine.estimate is None and rows[2].se is None and rows[2].baseline is None
    assert nine.route == "beyond the calls" and nine.calibration.startswith("asymptotic, projection likelihood ratio")
    assert "hold jointly" in nine.calibration and "U_9(Q)" in nine.method
    assert [r.interval.route for r in rows] == ["identified"] * 2 + ["beyond the calls"] * 2
    inf = likelihood_interval(cells, "inf", reference=env.reference)
    assert inf_row.lower == pytest.approx(inf.lower.value, abs=1e-12) and inf_row.upper == 1.0
    assert "1 by definition" in inf_row.method and rows[3].label == "plurality of infinitely many calls"


def test_pass_routes(population):
    _, codes = population
    rows = aggregate_intervals(codes, [1, 4, 20, "inf"], aggregate="pass@k")
    cells = cells_of(codes)
    direct = likelihood_intervals(cells, [pass_at_k_objective(k) for k in (1, 4, 20)] + [PASS_INF])
    for row, iv in zip(rows, direct):
        assert (row.interval.lower, row.interval.upper) == pytest.approx(iv.as_tuple(), abs=1e-12)
        assert row.aggregate == "pass@k" and row.n == 400
    assert [r.interval.route for r in rows] == ["identified"] * 2 + ["beyond the calls"] * 2
    # identified: the NPMLE's value, inside the interval, near the unbiased per-example mean
    unbiased = aggregate_estimates(codes, [1, 4], aggregate="pass@k", baseline=None)
    for row, u in zip(rows[:2], unbiased):
        iv = row.interval
        assert iv.lower <= iv.estimate <= iv.upper and iv.estimate == pytest.approx(u.interval.estimate, abs=0.01)
    assert rows[2].interval.estimate is None and rows[3].interval.estimate is None and rows[3].interval.upper == 1.0
    # pass@k rises with k under one calibration: 20 calls and inf share the projection level
    assert rows[2].interval.lower <= rows[3].interval.lower


def test_abstentions_raise_the_plurality_upper_bound_to_pass_at_k():
    rng = np.random.default_rng(5)
    q = rng.beta(2.0, 2.0, 300)
    codes = answer_codes(q, 3, rng, abstain=0.3)
    assert (codes == -1).any()
    (row,) = aggregate_intervals(codes, 7, aggregate="plurality")
    env = likelihood_envelope(cells_of(codes), 7, pass_at_k_objective(7))
    assert (row.interval.lower, row.interval.upper) == pytest.approx(env.as_tuple(), abs=1e-12)
    assert "1 - (1-Q)^7, as calls may abstain" in row.interval.method
    no_abstain = likelihood_envelope(cells_of(codes), *plurality_bounds(7))
    assert row.interval.upper >= no_abstain.upper.value - 1e-12  # U_7 <= pass@7 pointwise


def test_ragged_calls_between_the_fewest_and_the_most():
    """Budgets up to the fewest calls are identified U-statistics; above the most calls, beyond; in
    between, both bounds are identified by the longest examples (profile level, two one-sided halves)."""
    rng = np.random.default_rng(8)
    q = rng.beta(3.0, 2.0, 300)
    codes = answer_codes(q, 5, rng)
    codes[:100, 3:] = -2  # a third of the examples has 3 calls
    rows = aggregate_intervals(codes, [3, 5, 7], aggregate="plurality")
    first, middle, beyond = (r.interval for r in rows)
    assert first.method.startswith("U-statistic") and first.route == "identified"
    assert middle.route == "identified" and middle.calibration.startswith("asymptotic, profile")
    assert "alpha/2" in middle.calibration
    assert beyond.route == "beyond the calls" and beyond.calibration.startswith("asymptotic, projection")
    assert [r.interval.calls for r in rows] == [5, 5, 5]  # the most calls of an example


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
    assert rows[0].interval.lower <= truth_9 <= rows[0].interval.upper
    assert rows[1].interval.lower <= float(np.mean(q > 0)) <= rows[1].interval.upper == 1.0


def test_certified_aggregate_intervals(population):
    _, codes = population
    out = certified_aggregate_intervals(codes, [3, 9, "inf"], aggregate="plurality")
    assert out[0][1] is None and out[0][2] is None  # the U-statistic route: nothing exact to certify
    for row, lo, up in out[1:]:
        assert verify(lo.to_dict()).ok and verify(up.to_dict()).ok
        # the row reports the proven bounds rounded outward: exactly below / above them, by one float
        assert Fraction(row.interval.lower) <= lo.bound < Fraction(np.nextafter(row.interval.lower, 1.0))
        assert Fraction(np.nextafter(row.interval.upper, 0.0)) < up.bound <= Fraction(row.interval.upper)
        assert row.interval.certified and "certify verify" in row.interval.note
    assert out[1][1].objective_name == "V9" and out[2][1].objective_name == "Vinf" and out[2][2].objective_name == "pass_inf"
    # the same numbers as without certificates
    plain = aggregate_intervals(codes, [3, 9, "inf"], aggregate="plurality")
    for (r, _, _), p in zip(out, plain):
        assert (r.interval.lower, r.interval.upper) == pytest.approx((p.interval.lower, p.interval.upper), abs=1e-9)
        assert not p.interval.certified
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
