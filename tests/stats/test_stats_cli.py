"""`certify analyze`, `certify region`, `certify complete`: output shapes, values and every bad-input path."""

import json
import subprocess
import sys

import numpy as np
import pytest
from stats_helpers import eval_sample, simulate_bits, write_eval_zip

from certify import V_INF
from certify.cli.main import main
from certify.stats import complete, project, two_call_from_summary, wald_region
from certify.analysis import AnalysisReport, analyze
from certify.readers import bits_from_array


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def calls_csv(tmp_path_factory):
    rng = np.random.default_rng(21)
    b = simulate_bits(rng.beta(3, 1.2, 1500), 5, rng).astype(int)
    path = tmp_path_factory.mktemp("cli") / "calls.csv"
    lines = ["example_id,b0,b1,b2,b3,b4"] + [f"x{i}," + ",".join(map(str, r)) for i, r in enumerate(b)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_analyze_text_report(capsys, calls_csv):
    code, out, err = run_cli(capsys, "analyze", calls_csv, "--votes", "3", "5", "inf", "--details")
    assert code == 0 and err == ""
    assert "1500 examples x 5 calls" in out
    assert "mu-hat" in out and "rho-hat" in out and "95% two-call" in out and "95% from 5 calls" in out
    assert "Verdict (95%, from 5 calls, distribution-free):" in out and "3 votes: CERTIFIED better than one call" in out
    assert "empirical 3 votes vs 1 vote" in out


def test_analyze_json_equals_api(capsys, calls_csv):
    code, out, _ = run_cli(capsys, "analyze", calls_csv, "--json", "--alpha", "0.1")
    data = json.loads(out)
    assert data["schema_version"] == "3" and len(data["reports"]) == 1
    assert data["$schema"] == "certify/schemas/analyze-v3.json"
    report = AnalysisReport.from_dict(data["reports"][0])
    assert report.alpha == 0.1 and [b.votes for b in report.budgets] == [3, 5, V_INF]
    from certify.readers import read_bits

    api = analyze(read_bits(calls_csv), alpha=0.1)
    assert json.dumps(api.to_dict()) == json.dumps(report.to_dict())


def test_analyze_eval_log(capsys, tmp_path):
    rng = np.random.default_rng(22)
    b = simulate_bits(rng.beta(2, 1, 60), 3, rng)
    samples = [eval_sample(f"s{i}", j + 1, "C" if b[i, j] else "I") for i in range(60) for j in range(3)]
    write_eval_zip(tmp_path / "log.eval", samples)
    code, out, _ = run_cli(capsys, "analyze", tmp_path / "log.eval", "--votes", "3")
    assert code == 0 and "[qnli_task/mockllm/model]: 60 examples x 3 calls" in out


def test_region_json_shape_and_values(capsys):
    code, out, _ = run_cli(capsys, "region", "--mu-hat", "0.7811", "--rho-hat", "0.5563", "--n", "8192", "--votes", "3", "5",
                           "--alpha", "0.05", "--json")
    data = json.loads(out)
    assert code == 0 and [r["votes"] for r in data["results"]] == [3, 5]
    region = wald_region(two_call_from_summary(0.7811, 8192, rho=0.5563))
    for r, v in zip(data["results"], (3, 5)):
        p = project(region, v)
        assert (r["lower"], r["upper"]) == (p.lower, p.upper)
        assert r["lower"] < r["upper"]


def test_region_from_file_and_objective(capsys, calls_csv):
    code, out, _ = run_cli(capsys, "region", calls_csv, "--votes", "inf", "--objective", "V5 - V1")
    assert code == 0 and "infinitely many votes" in out and "V5 - V1" in out
    code, out, _ = run_cli(capsys, "region", "--mu-hat", "0.7", "--nu-hat", "0.532", "--n", "300", "--json")
    assert [r["votes"] for r in json.loads(out)["results"]] == [3, 5, "inf"]


def test_complete_json_shape_and_values(capsys):
    code, out, _ = run_cli(capsys, "complete", "--mu", "0.7", "--rho", "0.2", "--method", "maxent", "--votes", "3", "5", "inf", "--json")
    data = json.loads(out)
    c = complete(mu=0.7, rho=0.2, method="maxent")
    assert code == 0 and [r["votes"] for r in data["results"]] == [3, 5, "inf"]
    # the CLI reads "0.7" and "0.2" as exact rationals, so nu may differ from the float path in the last bit
    assert [r["value"] for r in data["results"]] == pytest.approx([c.value(3), c.value(5), c.value("inf")], abs=1e-14)
    assert set(data["parameters"]) == {"lambda", "kappa"}
    code, out, _ = run_cli(capsys, "complete", "--mu", "0.7", "--rho", "1", "--method", "ldgp")
    assert code == 0 and "boundary limit: two-point law" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["analyze", "/nonexistent/x.csv"], "no such file"),
        (["analyze", "{csv}", "--votes", "three"], "votes='three' must be a positive integer (plain digits) or 'inf'"),
        (["analyze", "{csv}", "--votes", "0"], "votes=0 must be at least 1"),
        (["analyze", "{csv}", "--alpha", "1.5"], "alpha='1.5' must be at least 1e-12 and below 1"),
        (["analyze", "{csv}", "--group", "qnli/x"], "group 'qnli/x' not in"),
        (["analyze", "{bad}"], "row 2, column 'b1': value '7' is not binary"),
        (["region", "--mu-hat", "0.7", "--n", "100"], "give --mu-hat, --rho-hat or --nu-hat, and --n"),
        (["region", "{csv}", "--mu-hat", "0.7"], "give a data FILE or --mu-hat"),
        (["region", "--mu-hat", "abc", "--rho-hat", "0.2", "--n", "100"], "mu-hat='abc' must be a number"),
        (["region", "--mu-hat", "0.7", "--rho-hat", "0.2", "--n", "10.5"], "n='10.5' must be an integer"),
        (["region", "--mu-hat", "0.5", "--nu-hat", "0.6", "--n", "100"], "is not a pair table"),
        (["region", "--mu-hat", "0.5", "--nu-hat", "0", "--n", "1000"], "contradict the repeated-call model"),
        (["region", "--mu-hat", "0.7", "--rho-hat", "0.2", "--n", "100", "--objective", "P3 +"], "objective"),
        (["complete", "--mu", "0.7", "--nu", "0.8"], "infeasible"),
        (["complete", "--mu", "0.7", "--rho", "0.2", "--votes", "-3"], "votes=-3 must be at least 1"),
    ],
)
def test_bad_inputs_exit_2_with_one_line(capsys, calls_csv, tmp_path, args, message):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,b0,b1\na,1,0\nb,1,7\n")
    args = [a.format(csv=calls_csv, bad=bad) for a in args]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and err.startswith(f"certify {args[0]}: error:")


@pytest.mark.parametrize(
    "args",
    [["complete", "--mu", "0.7"], ["complete", "--mu", "0.7", "--rho", "0.2", "--method", "spline"],
     ["region", "--rho-hat", "0.2", "--nu-hat", "0.5"], ["analyze"], ["region", "--alpha", "x"]],
)
def test_argparse_errors_exit_2(capsys, args):
    with pytest.raises(SystemExit) as info:
        main(args)
    _, err = capsys.readouterr()
    assert info.value.code == 2 and "error:" in err.splitlines()[-1]


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "certify.cli.main", "complete", "--mu", "0.7", "--rho", "0.2", "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["method"] == "maxent"


def test_report_round_trip_and_verdicts():
    rng = np.random.default_rng(23)
    # strongly heterogeneous, noisy calls: lots of recoverable randomness -> certified gain
    strong = analyze(bits_from_array(simulate_bits(rng.beta(4, 2, 3000), 3, rng)), votes=(3, 5))
    assert [v.status for v in strong.verdicts] == ["better", "better"]
    assert strong.budgets[0].empirical is not None and strong.budgets[1].empirical is None  # K = 3 < 5
    assert strong.all_calls is not None and strong.all_calls.order == 3
    # few examples: the projected gain interval straddles 0
    weak = analyze(bits_from_array(simulate_bits(rng.beta(4, 2, 40), 2, rng)), votes=("inf",))
    assert [v.votes for v in weak.verdicts] == [3] and weak.verdicts[0].status == "undetermined"
    assert "NOT certified" in weak.verdicts[0].text
    again = AnalysisReport.from_dict(json.loads(json.dumps(weak.to_dict())))
    assert json.dumps(again.to_dict()) == json.dumps(weak.to_dict())
    bad = weak.to_dict()
    bad["schema_version"] = "99"
    with pytest.raises(ValueError, match="schema_version='99'"):
        AnalysisReport.from_dict(bad)


def test_analyze_groups_and_policy_comparison(capsys, tmp_path):
    rng = np.random.default_rng(24)
    q = rng.beta(3, 1.5, 300)
    lines = ["dataset,policy,example_id,position,label,q,b0,b1,b2"]
    bits = {}
    for pol, shift in (("p1", 0.0), ("p2", 0.1)):
        b = simulate_bits(np.clip(q + shift, 0, 1), 3, rng).astype(int)
        bits[pol] = b
        lines += [f"qnli,{pol},e{i},{i},Yes,," + ",".join(map(str, b[i])) for i in range(300)]
    (tmp_path / "m.csv").write_text("\n".join(lines) + "\n")
    code, out, _ = run_cli(capsys, "analyze", tmp_path / "m.csv", "--votes", "3", "--baseline", "qnli/p1", "--json")
    data = json.loads(out)
    assert code == 0 and [r["group"] for r in data["reports"]] == ["qnli/p1", "qnli/p2"]
    comps = data["policy_comparisons"]
    assert [c["label_b"] for c in comps] == ["qnli/p2, 1 vote", "qnli/p2, 3 votes"]
    # m = 1: mean of all calls
    assert comps[0]["interval"]["estimate"] == pytest.approx(bits["p2"].mean() - bits["p1"].mean())
    assert comps[0]["interval"]["lower"] <= comps[0]["interval"]["estimate"] <= comps[0]["interval"]["upper"]
    assert data["reports"][0]["details"][0]["moment_lower"] is not None  # K = 3: sharp interval from 3 moments
    code, out, err = run_cli(capsys, "analyze", tmp_path / "m.csv", "--baseline", "qnli/zz")
    assert code == 2 and "--baseline 'qnli/zz' is not a group" in err
