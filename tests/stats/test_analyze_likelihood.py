"""`analyze` and `certify analyze` with the K-call likelihood-ratio intervals (the default method)."""

from __future__ import annotations

import math
import json

import numpy as np
import pytest
from stats_helpers import simulate_bits

from certify import V_INF, InputError
from certify.cli.main import main
from certify.analysis import analyze
from certify.readers import bits_from_array
from certify.likelihood import cell_counts, likelihood_interval, likelihood_intervals


@pytest.fixture(scope="module")
def ten_calls():
    rng = np.random.default_rng(31)
    q = rng.beta(6, 2, 2000)
    return q, simulate_bits(q, 10, rng)


def test_budget_intervals_are_the_likelihood_intervals_of_every_call(ten_calls):
    _, b = ten_calls
    rep = analyze(bits_from_array(b), votes=(3, 5, 101, "inf"))
    direct = likelihood_intervals(cell_counts(np.full(len(b), 10), b.sum(axis=1)), [3, 5, 101, "inf", "V3 - V1",
                                                                                     "V5 - V1", "V101 - V1"])
    for row, iv in zip(rep.budgets, direct):
        assert row.interval.method == "likelihood" and row.interval.calls == 10
        assert (row.interval.lower, row.interval.upper) == pytest.approx((iv.lower.value, iv.upper.value), abs=1e-12)
    # the verdict is the interval of the gain itself, not a difference of two intervals
    for v, iv in zip(rep.verdicts, direct[4:]):
        assert (v.gain.lower, v.gain.upper) == pytest.approx((iv.lower.value, iv.upper.value), abs=1e-12)
        assert v.gain.method == "likelihood" and v.status == "better"
    assert rep.method == "likelihood"


def test_identified_budgets_hold_the_empirical_value_and_beat_the_two_call_width(ten_calls):
    q, b = ten_calls
    rep = analyze(bits_from_array(b), votes=(3, 5, 9))
    two = analyze(bits_from_array(b), votes=(3, 5, 9), method="two-call")
    for row, trow in zip(rep.budgets, two.budgets):
        lo, up = row.interval.lower, row.interval.upper
        assert lo <= row.empirical.value <= up
        assert up - lo < 0.5 * (trow.interval.upper - trow.interval.lower)
        assert trow.interval.method == "two-call" and trow.interval.calls == 2
        assert (trow.interval.lower, trow.interval.upper) == (trow.projected.lower, trow.projected.upper)


def test_first_calls_only_equals_the_truncated_data(ten_calls):
    _, b = ten_calls
    sub = analyze(bits_from_array(b), votes=(3, 5), calls=3)
    cut = analyze(bits_from_array(b[:, :3]), votes=(3, 5))
    assert [r.interval.calls for r in sub.budgets] == [3, 3]
    for x, y in zip(sub.budgets, cut.budgets):
        assert (x.interval.lower, x.interval.upper) == pytest.approx((y.interval.lower, y.interval.upper), abs=1e-12)


def test_cli_first_calls_only_says_the_empirical_column_uses_every_call(tmp_path, capsys, ten_calls):
    _, b = ten_calls
    path = tmp_path / "calls.csv"
    np.savetxt(path, b[:300], fmt="%d", delimiter=",", header=",".join(f"c{j}" for j in range(10)), comments="")
    assert main(["analyze", str(path), "--votes", "5", "--calls", "3", "--details"]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("budget"))
    assert "95% from 3 calls" in header and "empirical (10 calls)" in header
    assert main(["analyze", str(path), "--votes", "5", "--details"]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("budget"))
    assert "95% from 10 calls" in header and "empirical (" not in header


def test_two_calls_likelihood_against_the_two_call_projection():
    # K = 2: both methods use the same pairs, and V3 is not identified by 2 calls, so the
    # likelihood interval uses the projection calibration chi2(2) -- the Wald region's. The
    # likelihood-ratio and Wald regions of (mu, nu) agree to first order, so the two intervals
    # nearly coincide, and both hold the sharp two-moment interval of the true law.
    from certify import sharp_bounds

    rng = np.random.default_rng(32)
    q = rng.beta(3, 1.5, 4000)
    b = simulate_bits(q, 2, rng)
    lik = analyze(bits_from_array(b), votes=(3,)).budgets[0].interval
    two = analyze(bits_from_array(b), votes=(3,), method="two-call").budgets[0].interval
    assert "chi2(2, 0.95)" in lik.calibration and "projection" in lik.calibration
    width = two.upper - two.lower
    assert abs(two.lower - lik.lower) < 0.05 * width and abs(two.upper - lik.upper) < 0.05 * width
    mu, nu = 3 / 4.5, 3 * 4 / (4.5 * 5.5)  # Beta(3, 1.5) moments
    sharp = sharp_bounds(3, mu=mu, nu=nu)
    assert lik.lower <= sharp.lower.value and sharp.upper.value <= lik.upper


def test_simultaneous_calibration_is_wider(ten_calls):
    _, b = ten_calls
    one = analyze(bits_from_array(b[:400]), votes=(3,)).budgets[0].interval
    all_ = analyze(bits_from_array(b[:400]), votes=(3,), simultaneous=True).budgets[0].interval
    assert all_.lower < one.lower and one.upper < all_.upper
    assert "simultaneous" in all_.calibration and "chi2(10, 0.95)" in all_.calibration and "small-sample" in all_.calibration
    direct = likelihood_interval(bits_from_array(b[:400]), 3, simultaneous=True)
    assert (all_.lower, all_.upper) == pytest.approx((direct.lower.value, direct.upper.value), abs=1e-12)


def test_cli_json_carries_the_interval_and_the_method(tmp_path, capsys, ten_calls):
    _, b = ten_calls
    path = tmp_path / "c.csv"
    path.write_text("example_id," + ",".join(f"b{j}" for j in range(10)) + "\n"
                    + "".join(f"e{i}," + ",".join(str(int(x)) for x in row) + "\n" for i, row in enumerate(b[:300])))
    assert main(["analyze", str(path), "--votes", "3", "101", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rep = data["reports"][0]
    assert rep["method"] == "likelihood"
    assert [row["target"]["votes"] for row in rep["rows"]] == [3, 101]
    for entry in rep["rows"]:
        assert set(entry["interval"]) == {"lower", "upper", "alpha", "method", "calibration", "calls", "estimate",
                                          "route", "certified", "note"}
        assert entry["interval"]["alpha"] == 0.05 and entry["interval"]["lower"] <= entry["interval"]["upper"]
        assert entry["interval"]["method"] == "likelihood" and entry["interval"]["calls"] == 10
        assert entry["interval"]["certified"] is False  # no --certificates: computed in floating point
    assert rep["details"][0]["empirical"] is not None and rep["details"][1]["empirical"] is None
    # the identified budget's interval surrounds the empirical vote value; beyond the calls it is a range
    (three, hundred_one) = (row["interval"] for row in rep["rows"])
    assert three["route"] == "identified" and three["estimate"] == rep["details"][0]["empirical"]["value"]
    assert hundred_one["route"] == "beyond the calls" and hundred_one["estimate"] is None


@pytest.mark.parametrize(("args", "message"), [
    (["--calls", "1"], "calls=1 must be an integer from 2 to 10"),
    (["--calls", "11"], "calls=11 must be an integer from 2 to 10"),
    (["--method", "two-call", "--calls", "3"], "--calls, --simultaneous and --certificates apply to --method likelihood only"),
    (["--method", "two-call", "--simultaneous"], "--calls, --simultaneous and --certificates apply to --method likelihood only"),
])
def test_cli_bad_method_options_are_one_line_exit_2(tmp_path, capsys, ten_calls, args, message):
    _, b = ten_calls
    path = tmp_path / "c.csv"
    path.write_text("example_id," + ",".join(f"b{j}" for j in range(10)) + "\n"
                    + "".join(f"e{i}," + ",".join(str(int(x)) for x in row) + "\n" for i, row in enumerate(b[:50])))
    assert main(["analyze", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_certificates_prove_every_interval_end(tmp_path, capsys, ten_calls):
    from certify.certificates import load, verify

    _, b = ten_calls
    path = tmp_path / "c.csv"
    path.write_text("example_id," + ",".join(f"b{j}" for j in range(10)) + "\n"
                    + "".join(f"e{i}," + ",".join(str(int(x)) for x in row) + "\n" for i, row in enumerate(b[:500])))
    certs = tmp_path / "certs"
    assert main(["analyze", str(path), "--votes", "3", "9", "inf", "--certificates", str(certs), "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)["reports"][0]
    assert "wrote 10 certificates" in err
    files = sorted(f for f in certs.glob("*.json") if f.name != "index.json")
    assert (certs / "index.json").is_file()  # the set's index (tests/test_certificate_sets.py)
    assert [f.name for f in files] == ["V3_V1_lower.json", "V3_V1_upper.json", "V3_lower.json", "V3_upper.json",
                                       "V9_V1_lower.json", "V9_V1_upper.json", "V9_lower.json", "V9_upper.json",
                                       "Vinf_lower.json", "Vinf_upper.json"]
    intervals = {f"V{row['target']['votes']}": row["interval"] for row in report["rows"]}
    intervals.update({f"V{row['verdict']['votes']} - V1": row["verdict"]["gain"] for row in report["rows"]
                      if row["verdict"] is not None})
    # every interval with its two certificates says so, and names them
    assert sorted(intervals) == ["V3", "V3 - V1", "V9", "V9 - V1", "Vinf"]
    for name, stated in intervals.items():
        assert stated["certified"] is True, name
        stem = name.replace(" - ", "_")
        assert f"{stem}_lower.json" in stated["note"] and f"{stem}_upper.json" in stated["note"], (name, stated["note"])
    for f in files:
        result = verify(f)
        assert result.ok, (f.name, result)
        cert = load(f)
        stated = intervals[cert.objective_name][cert.side]
        # the proven bound is the reported end, rounded outward by at most 1e-9
        assert abs(float(cert.bound) - stated) < 1e-9
        assert (float(cert.bound) <= stated + 1e-15) if cert.side == "lower" else (float(cert.bound) >= stated - 1e-15)
    assert main(["analyze", str(path), "--method", "two-call", "--certificates", str(certs)]) == 2
    assert "--certificates apply to --method likelihood only" in capsys.readouterr().err


def test_verdicts_say_why():
    """Each verdict gives its reason; the uninformative and no-change cases are recognized."""
    from certify import sharp_bounds
    from certify.analysis._verdict import verdict_reason

    rng = np.random.default_rng(3)
    # voting helps: q mostly above 1/2 and spread out
    good = analyze(bits_from_array(simulate_bits(rng.beta(5, 1.5, 600), 5, rng)), votes=(3,)).verdicts[0]
    assert good.status == "better" and f"gains at least {math.floor(1e4 * good.gain.lower) / 100:.2f} pp" in good.text  # rounded down: never more than proven
    # voting hurts: most examples below 1/2
    bad = analyze(bits_from_array(simulate_bits(rng.beta(1.5, 5, 600), 5, rng)), votes=(3,)).verdicts[0]
    assert bad.status == "worse" and "loses at least" in bad.text and "less than half the time" in bad.text
    # every example's calls agree: the gain is exactly 0
    same = np.repeat(rng.random((300, 1)) < 0.7, 4, axis=1)
    flat = analyze(bits_from_array(same), votes=(3,)).verdicts[0]
    assert "voting changes nothing" in flat.text
    # an interval at least as wide as the one-moment range at mu is uninformative; a narrower one is not
    span = sharp_bounds("V5 - V1", mu=0.6)
    assert verdict_reason(5, span.lower.value - 0.01, span.upper.value + 0.01, 0.6).startswith("uninformative")
    assert verdict_reason(5, span.lower.value / 2, span.upper.value / 2, 0.6).startswith("the interval holds both")
    assert good.to_dict()["reason"] and type(good).from_dict(good.to_dict()) == good


def test_a_negligible_gain_is_certified_as_such():
    """An interval of the gain inside +-1 pp that holds 0 is the verdict 'negligible', with its reason."""
    from certify.analysis._verdict import NEGLIGIBLE_GAIN, verdict_status

    assert verdict_status(0.001, 0.02) == "better" and verdict_status(-0.02, -0.001) == "worse"
    assert verdict_status(-0.004, 0.006) == "negligible" and verdict_status(-0.004, NEGLIGIBLE_GAIN + 1e-9) == "undetermined"
    rng = np.random.default_rng(8)
    # nearly deterministic examples, q in {0.003, 0.997} half and half: the true 3-vote gain is 0
    # (a gain certified above 0, however small, is 'better', which takes precedence)
    q = np.where(rng.random(3000) < 0.5, 0.997, 0.003)
    v = analyze(bits_from_array(simulate_bits(q, 5, rng)), votes=(3,)).verdicts[0]
    assert v.status == "negligible", v.text
    assert -NEGLIGIBLE_GAIN <= v.gain.lower <= 0 <= v.gain.upper <= NEGLIGIBLE_GAIN
    assert "CERTIFIED to change little" in v.text and "less than 1 pp either way" in v.text


def test_an_empty_wald_region_drops_only_the_two_call_column(tmp_path, capsys):
    """Every example's calls read 1, 0, 1: the first two calls always disagree, so the two-call Wald
    region misses the moment set. The likelihood intervals use every call and are reported, with the
    two-call column dropped and a note; the two-call method itself still refuses the data."""
    from certify.stats import EmptyRegionError
    from certify.analysis import AnalysisReport

    b = np.tile([1.0, 0.0, 1.0], (30, 1))
    rep = analyze(bits_from_array(b), votes=(3, "inf"))
    direct = likelihood_intervals(cell_counts(np.full(30, 3), np.full(30, 2)), [3, "inf", "V3 - V1"])
    for row, iv in zip(rep.budgets, direct):
        assert row.projected is None and (row.interval.lower, row.interval.upper) == pytest.approx(iv.as_tuple(), abs=1e-12)
    assert rep.region is None and (rep.verdicts[0].gain.lower, rep.verdicts[0].gain.upper) == pytest.approx(direct[2].as_tuple())
    assert any(note.startswith("no two-call interval: the Wald region") for note in rep.notes)
    assert AnalysisReport.from_dict(json.loads(json.dumps(rep.to_dict()))) == rep
    with pytest.raises(EmptyRegionError):
        analyze(bits_from_array(b), votes=(3,), method="two-call")
    path = tmp_path / "alt.csv"
    path.write_text("example_id,c0,c1,c2\n" + "".join(f"e{i},1,0,1\n" for i in range(30)))
    assert main(["analyze", str(path), "--details"]) == 0
    out = capsys.readouterr().out
    assert "note: no two-call interval" in out
    header = next(line for line in out.splitlines() if line.startswith("budget"))
    assert "from 3 calls" in header and "two-call" not in header and "sharp at estimate" in header
    assert main(["analyze", str(path), "--method", "two-call"]) == 2


def test_two_call_view_is_the_two_call_analysis():
    """The two-call report derived from a likelihood analysis of more budgets equals the two-call analysis itself."""
    from certify.analysis import two_call_view

    rng = np.random.default_rng(26)
    data = bits_from_array(simulate_bits(rng.beta(3, 1.5, 300), 4, rng))
    direct = analyze(data, votes=(3, 5, V_INF), method="two-call").to_dict()
    wide = analyze(data, votes=(1, 3, 5, 9, V_INF), method="likelihood")
    view = two_call_view(wide, data, (3, 5, V_INF)).to_dict()
    # The sharp interval at the U-statistic moments may differ in its last bit: the exact solver's route
    # depends on the faces the analysis met before (its Faces), and the wider analysis meets more.
    for a, b in zip(direct["details"], view["details"]):
        for key in ("moment_lower", "moment_upper"):
            x, y = a.pop(key), b.pop(key)
            assert (x is None and y is None) or x == pytest.approx(y, rel=1e-14, abs=1e-15)
    assert json.dumps(direct) == json.dumps(view)
    with pytest.raises(InputError, match="holds no two-call interval of 7 votes"):
        two_call_view(wide, data, (7,))


def test_two_call_view_ignores_aggregates_and_objectives():
    """An analysis that also holds pass@k rows, their verdicts and an --objective interval gives the same view:
    the verdicts are the majority's, taken on the projected gains; the view holds neither aggregates nor objectives."""
    from certify.analysis import two_call_view

    rng = np.random.default_rng(28)
    data = bits_from_array(simulate_bits(rng.beta(2, 1.5, 200), 4, rng))
    direct = analyze(data, votes=(3, V_INF), method="two-call")
    wide = analyze(data, votes=(1, 3, 9, V_INF), aggregates=["pass"], objectives=["1 - (1-q)**8"])
    assert any(v.aggregate == "pass@k" for v in wide.verdicts) and wide.objectives
    view = two_call_view(wide, data, (3, V_INF))
    assert view.verdicts == direct.verdicts and view.comparisons == direct.comparisons
    assert view.aggregates == () and view.objectives == () and view.method == "two-call" and view.likelihood is None
    assert [b.interval for b in view.budgets] == [b.interval for b in direct.budgets]


def test_two_call_view_of_an_empty_region_raises_like_the_two_call_analysis():
    from certify.stats import EmptyRegionError
    from certify.analysis import two_call_view

    data = bits_from_array(np.tile([1.0, 0.0, 1.0], (30, 1)))
    rep = analyze(data, votes=(3, "inf"))
    assert rep.region is None and rep.likelihood is not None
    with pytest.raises(EmptyRegionError, match="no two-call interval"):
        two_call_view(rep, data, (3,))
