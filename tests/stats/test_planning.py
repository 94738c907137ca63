"""`plan_study` and `certify plan`: simulated width and probability of certifying a voting gain."""

from __future__ import annotations

import json

import numpy as np
import pytest
from stats_helpers import simulate_bits

from certify import InputError
from certify.cli.main import main
from certify.readers import bits_from_array
from certify.likelihood import likelihood_interval
from certify.planning._planning import StudyPlan, plan_study


@pytest.fixture(scope="module")
def gaining_pilot():
    rng = np.random.default_rng(41)
    return bits_from_array(simulate_bits(rng.beta(6, 2, 300), 5, rng))


def test_plan_is_reproducible_and_round_trips(gaining_pilot):
    a = plan_study(gaining_pilot, 3, examples=(100,), calls=(2,), reps=10, seed=3)
    b = plan_study(gaining_pilot, 3, examples=(100,), calls=(2,), reps=10, seed=3)
    assert a == b
    assert StudyPlan.from_dict(json.loads(json.dumps(a.to_dict()))) == a


def test_scenarios_bracket_the_pilots_gain_interval(gaining_pilot):
    plan = plan_study(gaining_pilot, 5, examples=(50,), calls=(2,), reps=10)
    iv = likelihood_interval(gaining_pilot, "V5 - V1")
    # the least favourable law sits at the lower end of the pilot's gain interval, the NPMLE inside it
    assert plan.scenarios["least-favourable"]["gain"] == pytest.approx(iv.lower.value, abs=1e-9)
    assert iv.lower.value - 1e-9 <= plan.scenarios["npmle"]["gain"] <= iv.upper.value + 1e-9


def test_more_examples_and_calls_certify_more_often(gaining_pilot):
    plan = plan_study(gaining_pilot, 3, examples=(40, 2000), calls=(2, 10), reps=20, seed=1)
    p = {(r.scenario, r.examples, r.calls): r.p_certified for r in plan.rows}
    w = {(r.scenario, r.examples, r.calls): r.mean_width for r in plan.rows}
    for s in ("npmle", "least-favourable"):
        assert p[(s, 2000, 10)] == 1.0 and p[(s, 40, 2)] < 0.6
        assert w[(s, 2000, 10)] < w[(s, 40, 10)] and w[(s, 2000, 10)] < w[(s, 2000, 2)]


def test_no_gain_is_rarely_certified():
    # q uniform on [0, 1]: V_k - V_1 = 0 for every k, so a certified gain is a false one
    rng = np.random.default_rng(42)
    pilot = bits_from_array(simulate_bits(rng.uniform(size=400), 4, rng))
    plan = plan_study(pilot, 3, examples=(400,), calls=(4,), reps=30, seed=2)
    for r in plan.rows:
        assert r.p_certified <= 0.15, r


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"votes": 1}, "votes=1 must be an integer >= 2"),
    ({"votes": 3, "reps": 5}, "reps=5 must be an integer >= 10"),
    ({"votes": 3, "examples": (1,)}, "examples=1 must be an integer >= 2"),
    ({"votes": 3, "calls": (1,)}, "calls=1 must be an integer >= 2"),
    ({"votes": 3, "alpha": 1.5}, "alpha=1.5 must be in (0, 1)"),
])
def test_bad_plan_inputs(gaining_pilot, kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan_study(gaining_pilot, **kwargs)


def test_cli_plan_json_and_errors(tmp_path, capsys, gaining_pilot):
    path = tmp_path / "pilot.csv"
    path.write_text("example_id,b0,b1,b2,b3,b4\n" + "".join(
        f"e{i}," + ",".join(str(int(x)) for x in row) + "\n" for i, row in enumerate(gaining_pilot.bits)))
    assert main(["plan", str(path), "--votes", "3", "--examples", "60", "--calls", "3", "--reps", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == "3" and len(data["rows"]) == 2 and data["pilot_calls"] == 5
    assert data["$schema"] == "certify/schemas/plan-v3.json" and not any(r["beyond_pilot"] for r in data["rows"])
    assert {r["scenario"] for r in data["rows"]} == {"npmle", "least-favourable"}
    assert main(["plan", str(path), "--votes", "1"]) == 2
    err = capsys.readouterr().err
    assert "votes=1 must be an integer >= 2" in err and len(err.strip().splitlines()) == 1


def test_counts_have_the_law_of_per_example_draws():
    # the multinomial over cells against q_i ~ pi, S_i ~ Bin(K, q_i) example by example:
    # pooled cell frequencies of 400 studies of 50 examples, a chi-square test of homogeneity
    from scipy.stats import chi2_contingency

    from certify.planning._planning import cell_probabilities, simulate_counts

    atoms, weights, k, n, studies = np.array([0.0, 0.35, 0.9]), np.array([0.2, 0.3, 0.5]), 4, 50, 400
    rng = np.random.default_rng(7)
    counts = simulate_counts(cell_probabilities(atoms, weights, k), n, studies, rng)
    assert counts.shape == (studies, k + 1) and np.all(counts.sum(axis=1) == n)
    q = rng.choice(atoms, size=(studies, n), p=weights)
    direct = np.stack([np.bincount(row, minlength=k + 1) for row in rng.binomial(k, q)])
    assert chi2_contingency(np.stack([counts.sum(axis=0), direct.sum(axis=0)]))[1] > 0.01
    # the spread between studies too: the variance of n_S is N p_S (1 - p_S) under both
    p = cell_probabilities(atoms, weights, k)
    for sample in (counts, direct):
        np.testing.assert_allclose(sample.var(axis=0, ddof=1), n * p * (1 - p), rtol=0.2)
    # and the probabilities themselves: p_S = sum_j w_j C(K, S) a_j^S (1 - a_j)^(K - S)
    from math import comb
    expected = [sum(w * comb(k, s) * a**s * (1 - a) ** (k - s) for a, w in zip(atoms, weights)) for s in range(k + 1)]
    np.testing.assert_allclose(p, expected, rtol=1e-12)


@pytest.mark.parametrize(("q", "certain"), [(0.85, True), (0.3, False)])
def test_a_gain_the_pilot_makes_certain_or_impossible(q, certain):
    # every example has the same q: V3 - V1 = 3 q^2 - 2 q^3 - q is +0.089 at 0.85 and -0.084 at 0.3,
    # far beyond the sampling error of a 600 x 5 pilot, so both scenarios keep its sign and
    # 2000-example studies certify a gain in every replicate, or in none
    rng = np.random.default_rng(11)
    pilot = bits_from_array(simulate_bits(np.full(600, q), 5, rng))
    plan = plan_study(pilot, 3, examples=(2000,), calls=(5,), reps=30, seed=4)
    for name, sc in plan.scenarios.items():
        assert (sc["gain"] > 0.03) if certain else (sc["gain"] < -0.03), (name, sc["gain"])
    for r in plan.rows:
        assert r.reps == 30 and r.se_certified == 0.0
        assert r.p_certified == (1.0 if certain else 0.0), r


def test_the_plan_does_not_depend_on_the_number_of_workers(gaining_pilot):
    kwargs = dict(examples=(80,), calls=(3,), reps=30, seed=5)  # two chunks per design
    one = plan_study(gaining_pilot, 3, workers=1, **kwargs)
    assert plan_study(gaining_pilot, 3, workers=2, **kwargs) == one
    seen = []
    plan_study(gaining_pilot, 3, progress=lambda done, total: seen.append((done, total)), **kwargs)
    assert seen[-1] == (60, 60) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_bad_workers(gaining_pilot):
    with pytest.raises(InputError, match="workers=0 must be an integer >= 1"):
        plan_study(gaining_pilot, 3, workers=0)


def test_cli_plan_text_is_silent_on_a_non_terminal(tmp_path, capsys, gaining_pilot):
    path = tmp_path / "pilot.csv"
    path.write_text("example_id,b0,b1,b2,b3,b4\n" + "".join(
        f"e{i}," + ",".join(str(int(x)) for x in row) + "\n" for i, row in enumerate(gaining_pilot.bits)))
    assert main(["plan", str(path), "--votes", "3", "--examples", "60", "--calls", "3", "--reps", "16",
                 "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no progress report into a log or a pipe
    assert "the width from 16 of them" in out and "<= 0.125 for the probability" in out  # 1 / (2 sqrt(16))
    assert out.count(" +- ") == 4  # width and probability, two rows
    assert "beyond the pilot" not in out  # 3 calls: within the pilot's 5


def test_cli_plan_says_when_designs_need_moments_the_pilot_does_not_identify(tmp_path, capsys, gaining_pilot):
    path = tmp_path / "pilot.csv"
    path.write_text("example_id,b0,b1,b2\n" + "".join(
        f"e{i}," + ",".join(str(int(x)) for x in row[:3]) + "\n" for i, row in enumerate(gaining_pilot.bits)))
    assert main(["plan", str(path), "--votes", "3", "--examples", "60", "--calls", "2", "3", "5", "--reps", "10",
                 "--workers", "1"]) == 0
    out, _ = capsys.readouterr()
    assert "designs with 5 calls use moments beyond the pilot's 3 calls" in out


@pytest.mark.parametrize(("reps", "width_reps"), [(400, 100), (30, 7), (10, 10), (50, 80), (37, 2)])
def test_width_studies_are_exactly_width_reps_spread_over_the_chunks(reps, width_reps):
    from certify.planning._planning import CHUNK, width_studies

    chunks = [width_studies(start, min(CHUNK, reps - start), reps, width_reps) for start in range(0, reps, CHUNK)]
    chosen = np.flatnonzero(np.concatenate(chunks))
    m = min(width_reps, reps)
    assert len(chosen) == m and chosen[-1] == reps - 1
    # evenly spread: consecutive chosen studies are floor(reps / m) or ceil(reps / m) apart
    assert set(np.diff(chosen)) <= {reps // m, -(-reps // m)}


def test_the_mean_width_of_a_subset_estimates_the_mean_of_all(gaining_pilot):
    kwargs = dict(examples=(150,), calls=(3,), reps=40, seed=6)
    every = plan_study(gaining_pilot, 3, width_reps=40, **kwargs)
    part = plan_study(gaining_pilot, 3, width_reps=10, **kwargs)
    for a, b in zip(every.rows, part.rows):
        # the same studies, so the same decisions; the widths of the 10 are 10 of the 40
        assert (a.p_certified, a.reps, a.width_reps, b.width_reps) == (b.p_certified, 40, 40, 10)
        assert a.se_width < b.se_width and abs(a.mean_width - b.mean_width) <= 4 * b.se_width
        assert 0 < b.se_width < 0.05 * b.mean_width
