"""`plan_study` and `certify plan`: simulated width and probability of certifying a voting gain."""

from __future__ import annotations

import json

import numpy as np
import pytest
from stats_helpers import simulate_bits

from certify import InputError
from certify.cli.main import main
from certify.stats import bits_from_array, likelihood_interval
from certify.stats._planning import StudyPlan, plan_study


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
    assert data["schema_version"] == "1" and len(data["rows"]) == 2
    assert {r["scenario"] for r in data["rows"]} == {"npmle", "least-favourable"}
    assert main(["plan", str(path), "--votes", "1"]) == 2
    err = capsys.readouterr().err
    assert "votes=1 must be an integer >= 2" in err and len(err.strip().splitlines()) == 1
