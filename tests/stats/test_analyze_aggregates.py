"""analyze with --aggregate and --objective: the rows are the aggregate engines' own numbers, labelled, in valid JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from certify._calls import CallBits
from certify.aggregates import aggregate_estimates, aggregate_intervals
from certify.analysis import analyze
from certify.likelihood import cell_counts, likelihood_intervals


def _data(seed=5, n=150, k=5):
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 1.5, n)
    correct = rng.random((n, k)) < q[:, None]
    codes = np.where(correct, 0, rng.integers(1, 4, (n, k))).astype(np.int32)
    return CallBits(tuple(f"e{i}" for i in range(n)), correct.astype(float), np.full(n, k), answers=codes), codes


def test_aggregate_rows_and_verdicts_are_those_of_the_engines():
    data, codes = _data()
    r = analyze(data, (3, 9), aggregates=("plurality", "pass"), objectives=("1 - (1-q)**8",))
    rows = {(a.aggregate, a.votes): a for a in r.aggregates}
    (p3,) = aggregate_estimates(codes, [3], aggregate="plurality", baseline=None)
    p3_row = rows["plurality", 3].interval
    assert (p3_row.lower, p3_row.upper) == (p3.interval.lower, p3.interval.upper)
    beyond = aggregate_intervals(codes, [9], aggregate="pass@k")[0].interval
    # solved alone rather than beside the 3-call end: the same end to the solver's tolerance
    p9_row = rows["pass@k", 9].interval
    assert (p9_row.lower, p9_row.upper) == pytest.approx((beyond.lower, beyond.upper), abs=1e-9)
    gains = {(v.aggregate, v.votes): v for v in r.verdicts}
    g3 = [e for e in aggregate_estimates(codes, [3], aggregate="plurality", baseline=1) if e.baseline == 1][0]
    p3_gain = gains["plurality", 3].gain
    assert (p3_gain.lower, p3_gain.upper) == (g3.interval.lower, g3.interval.upper)
    assert gains["majority", 3].aggregate == "majority"
    (iv,) = likelihood_intervals(cell_counts(data.counts, data.successes.astype(int)), ["1 - (1-q)**8"])
    assert (r.objectives[0].interval.lower, r.objectives[0].interval.upper) == pytest.approx((iv.lower.value, iv.upper.value), abs=1e-9)
    # plurality of k calls is at least the bit majority's estimate where both are identified
    maj3 = next(b for b in r.budgets if b.votes == 3).empirical.value
    assert rows["plurality", 3].interval.estimate >= maj3 - 1e-12


def _csv(tmp_path, answers: bool):
    data, codes = _data(n=80, k=3)
    path = tmp_path / "d.csv"
    lines = ["example_id,call,correct"]
    for i in range(data.n):
        for j in range(3):
            lines.append(f"e{i},{j},{int(data.bits[i, j])}")
    path.write_text("\n".join(lines) + "\n")
    return path


def cli(*args):
    return subprocess.run([sys.executable, "-m", "certify.cli.main", *args], capture_output=True, text=True, timeout=300)


def test_plurality_without_answers_is_one_line(tmp_path):
    r = cli("analyze", str(_csv(tmp_path, False)), "--aggregate", "plurality")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "--aggregate plurality needs the calls' answers" in r.stderr


@pytest.mark.parametrize("bad, fragment", [(["--aggregate", "mode"], "aggregate 'mode': use majority, plurality or pass"),
                                           (["--objective", "q**"], "")])
def test_bad_aggregate_or_objective_is_one_line(tmp_path, bad, fragment):
    r = cli("analyze", str(_csv(tmp_path, False)), *bad)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and fragment in r.stderr


def test_json_labels_every_entry_and_validates(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from pathlib import Path

    r = cli("analyze", str(_csv(tmp_path, False)), "--aggregate", "pass", "--votes", "3", "9", "inf",
            "--objective", "1 - (1-q)**8", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    schema = json.loads((Path(__file__).resolve().parents[2] / "certify" / "schemas" / "analyze-v3.json").read_text())
    jsonschema.validate(out, schema)
    (rep,) = out["reports"]
    targets = [(row["target"]["aggregate"], row["target"]["votes"]) for row in rep["rows"]]
    assert targets == [("majority", 3), ("majority", 9), ("majority", "inf"), ("pass@k", 3), ("pass@k", 9),
                       ("pass@k", "inf"), ("objective", None)]
    assert rep["rows"][5]["interval"]["upper"] == 1.0  # P(Q > 0)'s upper end is 1 by definition
    assert {row["verdict"]["aggregate"] for row in rep["rows"] if row["verdict"] is not None} == {"majority", "pass@k"}
    assert rep["rows"][-1]["target"]["objective"] == "1 - (1-q)**8"


def _near_deterministic_bits():
    """Counts of the demo's five-answer task at T = 0.05 (K = 5): 153 never right, 136 always, 11 between."""
    from certify.readers import bits_from_array

    successes = [0] * 153 + [1] * 3 + [2] * 3 + [4] * 5 + [5] * 136
    return bits_from_array(np.array([[1] * s + [0] * (5 - s) for s in successes]))


def test_near_deterministic_counts_get_every_verdict():
    """These counts once lost pass@9 and pass@21 to 'no bracket' (CNM, fixed at its depth in
    test_likelihood_beyond.py); every budget now has its verdict, and what the analysis
    reports agrees with the aggregate computed alone."""
    bits = _near_deterministic_bits()
    report = analyze(bits, votes=(3, 5, 9, 21), aggregates=("pass@k",))
    assert {v.votes for v in report.verdicts if v.aggregate == "pass@k"} == {3, 5, 9, 21}
    assert not any("solver failed" in n for n in report.notes)
    for row in report.aggregates:
        alone = aggregate_intervals((1 - bits.bits).astype(np.int32), [row.votes], aggregate="pass@k")[0].interval
        assert (row.interval.lower, row.interval.upper) == pytest.approx((alone.lower, alone.upper), abs=1e-9)


def test_a_budget_the_likelihood_solver_cannot_finish_is_left_out_with_a_note(monkeypatch):
    """A solver failure on one budget (simulated: the solver raises for 9 calls) leaves that
    budget out with a note naming it; the other budgets keep the verdicts of a normal run."""
    import certify.analysis._analyze as report_module
    from certify import SolverError

    bits = _near_deterministic_bits()
    normal = analyze(bits, votes=(3, 5, 9, 21), aggregates=("pass@k",))
    solve = report_module.aggregate_verdict_intervals

    def failing(data, aggregate, votes, alpha, *shared):
        if 9 in votes:
            raise SolverError("likelihood", "no bracket", "simulated")
        return solve(data, aggregate, votes, alpha, *shared)

    monkeypatch.setattr(report_module, "aggregate_verdict_intervals", failing)
    report = analyze(bits, votes=(3, 5, 9, 21), aggregates=("pass@k",))
    kept = {v.votes: v for v in report.verdicts if v.aggregate == "pass@k"}
    assert set(kept) == {3, 5, 21}
    assert any("pass@k of 9 calls against one call: no verdict" in n for n in report.notes)
    before = {v.votes: v for v in normal.verdicts if v.aggregate == "pass@k"}
    for k, v in kept.items():
        assert (v.gain.lower, v.gain.upper) == pytest.approx((before[k].gain.lower, before[k].gain.upper), abs=1e-9)


def test_plurality_beyond_the_calls_carries_the_answer_model_labelled_not_certified(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from pathlib import Path

    data, codes = _data(n=120, k=3)
    path = tmp_path / "answers.csv"
    lines = ["example_id,call,answer,target"]
    for i in range(data.n):
        lines += [f"e{i},{j},{'A' if codes[i, j] == 0 else f'W{codes[i, j]}'},A" for j in range(3)]
    path.write_text("\n".join(lines) + "\n")
    r = cli("analyze", str(path), "--aggregate", "plurality", "--votes", "3", "21", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    jsonschema.validate(out, json.loads((Path(__file__).resolve().parents[2] / "certify" / "schemas" / "analyze-v3.json").read_text()))
    (rep,) = out["reports"]
    rows = {r["target"]["votes"]: r for r in rep["rows"] if r["target"]["aggregate"] == "plurality"}
    models = {m["votes"]: m["model"] for m in rep["answer_models"] if m["aggregate"] == "plurality"}
    # identified: the recorded answers speak for themselves
    assert 3 not in models and rows[3]["forecast"] is None and rows[3]["interval"]["route"] == "identified"
    model = models[21]
    assert rows[21]["interval"]["route"] == "beyond the calls"
    assert model["interval"]["route"] == "model-based"
    assert model["interval"]["certified"] is False and "not certified" in model["interval"]["method"]
    assert rows[21]["interval"]["lower"] - 1e-9 <= model["interval"]["estimate"] <= rows[21]["interval"]["upper"] + 1e-9
    assert model["check"].startswith("at 3 calls the model gives")
    # the row beyond the calls carries the same model as its forecast
    assert rows[21]["forecast"]["accuracy"] == model["interval"] and rows[21]["forecast"]["family"] == "answer model"
    text = cli("analyze", str(path), "--aggregate", "plurality", "--votes", "3", "21", "--details")
    assert text.returncode == 0 and "model-based, NOT certified" in text.stdout and "check: at 3 calls" in text.stdout
