"""Plurality voting and pass@k over recorded answers: U-statistics, intervals and polynomial bounds."""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from certify import InputError, majority_polynomial, parse_objective
from certify.stats import per_example_vote_accuracy
from certify.aggregates import AggregateEstimate, aggregate_estimates, answer_counts, pass_at_k_coefficients, pass_at_k_objective, per_example_pass_at_k, per_example_plurality, plurality_bounds, plurality_upper_coefficients
from certify.readers import bits_from_array

#: Floating-point agreement of exact counts divided by C(K, k) (a few ulps of values <= 1).
EXACT = 1e-13
#: z of the Monte Carlo checks: Bonferroni over 3,000 distributions at family-wise level 1e-4,
#: so an implementation that is right fails with probability below 1e-4.
Z_MC = stats.norm.isf(1e-4 / 2 / 3000)


def _score(calls) -> Fraction:
    """Plurality score of the correct answer (code 0) among ``calls`` (negative codes cast no vote)."""
    votes = Counter(c for c in calls if c >= 0)
    top = max(votes.values(), default=0)
    if votes[0] == 0 or votes[0] != top:
        return Fraction(0)
    return Fraction(1, sum(1 for v in votes.values() if v == top))


def _random_codes(rng, n, width, answers, abstain=True, ragged=True):
    low = -1 if abstain else 0
    codes = rng.integers(low, answers, size=(n, width)).astype(np.int32)
    if ragged:
        for i in range(n):
            codes[i, rng.integers(1, width + 1):] = -2
    return codes


@pytest.mark.parametrize("seed", range(6))
def test_plurality_and_pass_at_k_match_brute_force_over_all_subsets(seed):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(3, 9))
    codes = _random_codes(rng, 8, width, int(rng.integers(1, 5)), abstain=bool(seed % 2 == 0))
    codes[0, :width] = np.arange(width) % 2  # a full row with ties between the correct answer and one wrong answer
    ks = range(1, width + 1)
    plural, passed = per_example_plurality(codes, ks), per_example_pass_at_k(codes, ks)
    for i, row in enumerate(codes):
        calls = [int(c) for c in row if c != -2]
        for k in ks:
            if k > len(calls):
                assert np.isnan(plural[k][i]) and np.isnan(passed[k][i])
                continue
            subsets = list(itertools.combinations(calls, k))
            exact = sum((_score(s) for s in subsets), Fraction(0)) / len(subsets)
            assert plural[k][i] == pytest.approx(float(exact), abs=EXACT)
            assert passed[k][i] == pytest.approx(sum(0 in s for s in subsets) / len(subsets), abs=EXACT)


def test_answer_counts_by_hand():
    codes = np.array([[0, 3, 3, -1, 7, 0], [2, 2, 2, 5, -2, -2], [0, 0, 0, -1, -1, -2]], dtype=np.int32)
    calls, correct, abstain, wrong = answer_counts(codes)
    assert calls.tolist() == [6, 4, 5] and correct.tolist() == [2, 0, 3] and abstain.tolist() == [1, 0, 2]
    assert wrong.tolist() == [[2, 1], [3, 1], [0, 0]]


def test_one_wrong_answer_is_the_bit_majority_and_distinct_wrong_answers_the_upper_bound():
    rng = np.random.default_rng(3)
    bits = (rng.random((40, 9)) < rng.random(40)[:, None]).astype(int)
    ks = range(1, 10)
    # codes 0/1: all wrong answers identical, so plurality = the fair-tie bit majority, computed
    # independently by the hypergeometric U-statistic of certify.stats._empirical
    plural = per_example_plurality(1 - bits, ks)
    data = bits_from_array(bits)
    for k in ks:
        np.testing.assert_allclose(plural[k], per_example_vote_accuracy(data, k), atol=EXACT)
    # every wrong call a different answer: f = 1{x >= 2} + 1{x = 1}/k with x ~ hypergeometric
    distinct = np.where(bits == 1, 0, np.arange(1, 10)[None, :])
    plural = per_example_plurality(distinct, ks)
    for k in ks:
        x = stats.hypergeom(9, bits.sum(axis=1), k)
        np.testing.assert_allclose(plural[k], x.sf(1) + x.pmf(1) / k, atol=EXACT)


def test_one_call_is_the_correct_share_and_two_calls_without_abstentions_too():
    rng = np.random.default_rng(4)
    codes = _random_codes(rng, 50, 12, 6, abstain=False)
    calls, correct, _, _ = answer_counts(codes)
    h = per_example_plurality(codes, [1, 2])
    p = per_example_pass_at_k(codes, 1)[1]
    ok = calls >= 2
    np.testing.assert_allclose(h[1], correct / calls, atol=EXACT)
    np.testing.assert_allclose(p, correct / calls, atol=EXACT)
    # two calls: both correct (1) or one correct against one wrong answer (1/2): C(c,2) + c(K-c)/2 = c(K-1)/2
    np.testing.assert_allclose(h[2][ok], (correct / calls)[ok], atol=EXACT)


def _exact_plurality(probs, k) -> float:
    """Plurality accuracy of k i.i.d. calls from a distribution over codes 0, 1, ..., -1 (all sequences)."""
    codes = list(probs)
    return sum(float(_score(seq)) * math.prod(probs[c] for c in seq) for seq in itertools.product(codes, repeat=k))


def test_u_statistic_is_unbiased_for_the_plurality_accuracy_of_fresh_calls():
    # E over all K-call records of h(k) equals the plurality accuracy of k fresh calls, exactly
    probs = {0: 0.35, 1: 0.3, 2: 0.2, -1: 0.15}
    K = 6
    records = np.array(list(itertools.product(list(probs), repeat=K)), dtype=np.int32)
    weights = np.prod(np.vectorize(probs.get)(records), axis=1)
    h = per_example_plurality(records, range(1, K + 1))
    passed = per_example_pass_at_k(records, range(1, K + 1))
    for k in range(1, K + 1):
        assert weights @ h[k] == pytest.approx(_exact_plurality(probs, k), abs=1e-12)
        assert weights @ passed[k] == pytest.approx(1 - (1 - probs[0]) ** k, abs=1e-12)


def test_pass_at_k_stays_finite_for_thousands_of_calls():
    K = 5000
    codes = np.full((3, K), 1, dtype=np.int32)
    codes[0, :1] = 0
    codes[1, :2500] = 0
    codes[2, :] = 0
    out = per_example_pass_at_k(codes, [1, 10, 2500, K])
    assert out[1][0] == pytest.approx(1 / K, rel=1e-12) and out[10][0] == pytest.approx(10 / K, rel=1e-12)
    # 1 - C(2500, k)/C(5000, k) by log-gamma for the middle example
    for k in (10, 2500):
        lg = math.lgamma(2501) - math.lgamma(2501 - k) - math.lgamma(K + 1) + math.lgamma(K + 1 - k)
        assert out[k][1] == pytest.approx(1 - math.exp(lg), rel=1e-12, abs=1e-300)
    assert out[K].tolist() == [1.0, 1.0, 1.0] and np.isfinite(out[2500]).all()


def _draw(rng, probs, k, reps):
    """``reps`` draws of k calls per distribution: probs (D, C) over codes 0, 1, ..., C-2 and -1 (last column)."""
    cum = np.cumsum(probs, axis=1)
    category = (rng.random((len(probs), reps, k, 1)) > cum[:, None, None, :-1]).sum(axis=-1)
    return np.where(category == probs.shape[1] - 1, -1, category)


def _scores(draws):
    """Plurality score of the correct answer in each draw (last axis: the k calls), from the definition."""
    same = (draws[..., :, None] == draws[..., None, :]).sum(axis=-1)  # votes for each call's answer
    same = np.where(draws >= 0, same, 0)  # abstentions are no answer
    top = same.max(axis=-1)
    ties = np.where(same == top[..., None], 1.0 / np.maximum(same, 1), 0.0).sum(axis=-1)  # answers at the top
    correct = (draws == 0).sum(axis=-1)
    return np.where((correct >= 1) & (correct == top), 1.0 / np.maximum(ties, 1), 0.0)


def _within(values, target, lower_slack=0.0):
    """values' mean within Z_MC standard errors of target (and at most lower_slack below it)."""
    se = values.std(ddof=1) / math.sqrt(values.size)
    return target - lower_slack - Z_MC * se <= values.mean() <= target + Z_MC * se


@pytest.mark.parametrize("k", [3, 4, 7])
def test_polynomial_bounds_hold_over_random_answer_distributions(k):
    rng = np.random.default_rng(10 + k)
    n_dist, reps, most_wrong = 3000, 300, 4
    q = rng.random(n_dist)
    used = np.arange(most_wrong) < rng.integers(1, most_wrong + 1, n_dist)[:, None]
    raw = rng.gamma(0.7, size=(n_dist, most_wrong)) * used  # Dirichlet(0.7) over 1..4 wrong answers
    abstain = np.where(rng.random(n_dist) < 0.5, rng.random(n_dist) * 0.3, 0.0)
    wrong = raw / raw.sum(axis=1, keepdims=True) * ((1 - q) * (1 - abstain))[:, None]
    f = _scores(_draw(rng, np.column_stack([q, wrong, (1 - q) * abstain]), k, reps))
    mean, var = f.mean(axis=1), f.var(axis=1, ddof=1)
    lower, upper = plurality_bounds(k)
    pass_k = pass_at_k_objective(k)(q)
    low, top = lower(q), np.where(abstain > 0, pass_k, upper(q))
    # a score in [0, 1] with mean b has variance <= b (1 - b): the SE where the mean sits at the bound
    # (a sample of all zeros from a mean of 0.01 has sample variance 0)
    assert np.all(mean >= low - Z_MC * np.sqrt(np.maximum(var, low * (1 - low)) / reps))
    assert np.all(mean <= top + Z_MC * np.sqrt(np.maximum(var, top * (1 - top)) / reps))
    # sharpness: one wrong answer gives V_k, abstentions only pass@k, distinct wrong answers U_k
    zeros = np.zeros(n_dist)
    assert _within(_scores(_draw(rng, np.column_stack([q, 1 - q, zeros]), k, reps)), lower(q).mean())
    assert _within(_scores(_draw(rng, np.column_stack([q, zeros, 1 - q]), k, reps)), pass_k.mean())
    many = 1000  # equally likely wrong answers: two of k calls share one with probability < C(k, 2)/many
    wrong_draws = rng.integers(1, many + 1, (n_dist, reps, k))
    draws = np.where(rng.random((n_dist, reps, k)) < q[:, None, None], 0, wrong_draws)
    assert _within(_scores(draws), upper(q).mean(), lower_slack=math.comb(k, 2) / many)


def test_polynomial_coefficients_and_objectives():
    q = np.linspace(0, 1, 101)
    for k in range(1, 12):
        lower, upper = plurality_bounds(k)
        _, upper_abst = plurality_bounds(k, abstentions=True)
        closed = 1 - (1 - q) ** k - (k - 1) * q * (1 - q) ** (k - 1)
        np.testing.assert_allclose(upper(q), closed, atol=1e-14)
        np.testing.assert_allclose(upper_abst(q), 1 - (1 - q) ** k, atol=1e-14)
        np.testing.assert_allclose(lower(q), majority_polynomial((k - 1) // 2, q), atol=1e-14)
        assert np.all(lower(q) <= upper(q) + 1e-15) and np.all(upper(q) <= upper_abst(q) + 1e-15)
        assert parse_objective(upper.name).monomial_coefficients() == upper.monomial_coefficients()
        assert parse_objective(upper_abst.name).monomial_coefficients() == pass_at_k_coefficients(k)
        assert len(plurality_upper_coefficients(k)) == k + 1
    assert plurality_upper_coefficients(2) == (0, 1, 0) and plurality_upper_coefficients(1) == (0, 1)
    assert pass_at_k_objective(3).bernstein == (0, 1, 1, 1)
    with pytest.raises(InputError, match="votes=0"):
        plurality_bounds(0)
    with pytest.raises(InputError, match="votes=513"):
        pass_at_k_coefficients(513)


def test_ten_thousand_examples_of_forty_answers():
    rng = np.random.default_rng(5)
    n, K = 10_000, 40
    q = rng.beta(2, 2, n)
    wrong = rng.integers(1, 8, (n, K))
    codes = np.where(rng.random((n, K)) < q[:, None], 0, wrong).astype(np.int32)
    codes[rng.random((n, K)) < 0.05] = -1
    h = per_example_plurality(codes, range(1, K + 1))
    p = per_example_pass_at_k(codes, range(1, K + 1))
    correct = (codes == 0).sum(axis=1)
    np.testing.assert_allclose(h[1], correct / K, atol=EXACT)
    np.testing.assert_allclose(h[K], [float(_score(row)) for row in codes], atol=EXACT)  # the one K-subset
    assert all(np.all((h[k] >= 0) & (h[k] <= 1 + EXACT)) for k in h)
    assert all(np.all(p[k + 1] >= p[k] - EXACT) for k in range(1, K))


def _clopper_pearson_effective(values, alpha, low, high, far_example):
    """Clopper-Pearson at the effective size n m(1-m)/v (z/t)^2 (Korn and Graubard 1998), from scipy.stats.

    v: the sample variance, or with ``far_example`` that of the values and one more example at
    the far end of the range (counted in the squares, not in the mean).
    """
    u = (values - low) / (high - low)
    n, m = len(u), u.mean()
    far = 0.0 if m >= 0.5 else 1.0
    v = (np.sum((u - m) ** 2) + (far - m) ** 2) / n if far_example else u.var(ddof=1)
    size = n / min(v / (m * (1 - m)), 1.0) * (stats.norm.ppf(1 - alpha / 2) / stats.t.ppf(1 - alpha / 2, n - 1)) ** 2
    x = m * size
    ends = stats.beta.ppf(alpha / 2, x, size - x + 1), stats.beta.ppf(1 - alpha / 2, x + 1, size - x)
    return low + (high - low) * np.array(ends)


def test_intervals_by_hand_and_records():
    rng = np.random.default_rng(6)
    codes = _random_codes(rng, 30, 7, 4, ragged=False)
    rows = aggregate_estimates(codes, [3, 5], alpha=0.1)
    assert [(r.votes, r.baseline) for r in rows] == [(3, None), (5, None), (3, 1), (5, 1)]
    h = per_example_plurality(codes, [1, 3, 5])
    for r, values in zip(rows, (h[3], h[5], h[3] - h[1], h[5] - h[1])):
        iv = r.interval
        assert iv.estimate == pytest.approx(values.mean(), abs=EXACT)
        assert r.se == pytest.approx(values.std(ddof=1) / math.sqrt(30), abs=EXACT)
        lower, upper = _clopper_pearson_effective(values, 0.1, -1.0 if r.baseline else 0.0, 1.0,
                                                  far_example=r.baseline is None)
        assert (iv.lower, iv.upper) == pytest.approx((lower, upper), abs=1e-12)
        assert iv.lower < iv.estimate < iv.upper
        assert AggregateEstimate.from_dict(r.to_dict()) == r and "Clopper-Pearson" in iv.calibration
    (one,) = aggregate_estimates(codes[:1], 2, aggregate="pass@k", baseline=None)
    assert one.to_dict()["se"] is None and one.interval.lower is None and one.label == "pass@k of 2 calls"
    assert AggregateEstimate.from_dict(one.to_dict()) == one


def test_interval_near_the_end_of_the_range_and_for_many_examples():
    # every example passes: the t-interval would be the point 1; the Clopper-Pearson end is (alpha/2)^(1/n*)
    (row,) = aggregate_estimates(np.zeros((50, 4), dtype=np.int32), 3, aggregate="pass@k", baseline=None)
    size = 50 * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, 49)) ** 2
    assert row.interval.upper == 1.0 and row.interval.lower == pytest.approx(0.025 ** (1 / size), abs=EXACT)
    # one failure in 400 0/1 values (pass@K from K calls): the upper end is the exact binomial one
    # at n* <= n, so it is at least Clopper-Pearson's (the Wilson end, 0.99958, missed pass@10 = 0.9996)
    codes = np.zeros((400, 3), dtype=np.int32)
    codes[0] = 1
    (row,) = aggregate_estimates(codes, 3, aggregate="pass@k", baseline=None)
    assert row.interval.upper >= stats.beta.ppf(0.975, 400, 1) > 0.9999 and row.interval.lower < 399 / 400
    # many examples: the t-interval to first order
    rng = np.random.default_rng(7)
    codes = _random_codes(rng, 20_000, 9, 3, ragged=False)
    acc, gain = aggregate_estimates(codes, 5)
    for r in (acc, gain):
        half = stats.t.ppf(0.975, 19_999) * r.se
        assert r.interval.lower == pytest.approx(r.interval.estimate - half, abs=0.02 * half)
        assert r.interval.upper == pytest.approx(r.interval.estimate + half, abs=0.02 * half)


def test_a_pass_at_k_gain_is_scaled_from_the_values_it_can_take():
    from certify.aggregates._aggregates import pass_gain_range

    # brute force over every set of correct calls: the gain of the unbiased estimates per example
    for K, k in ((3, 2), (5, 3), (10, 10), (7, 4)):
        gains = []
        for c in range(K + 1):
            subsets_k = list(itertools.combinations(range(K), k))
            passk = Fraction(sum(any(i < c for i in sub) for sub in subsets_k), len(subsets_k))
            gains.append(passk - Fraction(c, K))
        lo, hi = pass_gain_range(k, 1, (K,))
        assert lo == 0 == min(gains) and float(max(gains)) <= hi <= float(max(gains)) * (1 + 1e-14)
    # K = 3: every pass@2 gain is 0 or 1/3, a scaled 0/1 value, so the interval is Clopper-Pearson's
    # on the count of 1/3s at n* = n (z/t)^2
    rng = np.random.default_rng(11)
    codes = np.where(rng.random((80, 3)) < rng.beta(2, 2, 80)[:, None], 0, 1).astype(np.int32)
    (gain,) = [r for r in aggregate_estimates(codes, 2, aggregate="pass@k") if r.baseline == 1]
    ones = int(np.sum(((codes == 0).sum(axis=1) % 3) != 0))
    size = 80 * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, 79)) ** 2
    x = ones / 80 * size
    ends = np.array([stats.beta.ppf(0.025, x, size - x + 1), stats.beta.ppf(0.975, x + 1, size - x)]) / 3
    assert gain.interval.estimate == pytest.approx(ones / 240, abs=EXACT)
    assert (gain.interval.lower, gain.interval.upper) == pytest.approx(tuple(ends), abs=1e-9)


def test_bad_inputs_are_one_line_input_errors():
    good = np.array([[0, 1, -1], [1, 0, -2]], dtype=np.int32)
    cases = [
        (np.array([[0, -3]]), "must be at least -2"),
        (np.array([[0, -2, 1]]), "after a -2"),
        (np.array([[0, 1], [-2, -2]]), "no calls"),
        (np.array([[0.0, 1.0]]), "must be integers"),
        (np.array([0, 1]), "2-D array"),
    ]
    for codes, message in cases:
        with pytest.raises(InputError, match=message):
            per_example_plurality(codes, 1)
    with pytest.raises(InputError, match="votes=4 exceeds every example"):
        per_example_pass_at_k(good, 4)
    with pytest.raises(InputError, match="votes=0"):
        per_example_plurality(good, [0])
    with pytest.raises(InputError, match="votes=3 exceeds the calls of example 1"):
        aggregate_estimates(good, 3)
    with pytest.raises(InputError, match="aggregate='best'"):
        aggregate_estimates(good, 1, aggregate="best")
    with pytest.raises(InputError, match="alpha=1.5"):
        aggregate_estimates(good, 1, alpha=1.5)


def test_the_pass_at_k_gain_interval_never_reaches_below_zero():
    """Every example always right or always wrong: the gain of pass@3 is 0 on each, and its interval
    starts at 0 (never below: pass@k never falls below one call). With one example right 4 times
    in 5, some q lies strictly inside (0, 1), so the gain is positive, and the interval stays above 0."""
    codes = np.zeros((60, 5), dtype=np.int32)
    codes[30:] = 1
    rows = {(r.votes, r.baseline): r for r in aggregate_estimates(codes, [3], aggregate="pass@k")}
    iv = rows[3, 1].interval
    assert iv.estimate == 0.0 == iv.lower < iv.upper
    codes[0, 0] = 1  # one example has one wrong call: a positive gain of pass@3 of 1/5 on it
    rows = {(r.votes, r.baseline): r for r in aggregate_estimates(codes, [3], aggregate="pass@k")}
    gain = rows[3, 1].interval
    assert gain.estimate == pytest.approx((1.0 - 0.8) / 60)  # 1 - C(1, 3)/C(5, 3) = 1 against 4/5
    assert 0.0 <= gain.lower < gain.estimate < gain.upper
