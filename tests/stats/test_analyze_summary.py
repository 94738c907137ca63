"""The default answer of `certify analyze` (one verdict table per group), --details, to_frame() and plot().

The table's cells are checked against the JSON's verdicts (the same analysis, read back), its
forecasts against the completions computed directly, and the frame against the JSON rows.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from certify import V_INF
from certify._calls import CallBits
from certify._json import to_json
from certify.cli._analysis_text import SCREEN_NOTES, SCREEN_WIDTH
from certify.stats import TargetRow, Verdict, analyze, report_frame

CELL = re.compile(r"(better|worse|changes little|undecided) \[([+-]\d+\.\d), ([+-]\d+\.\d)\](?: ~([+-]\d+\.\d))?")


def _answers_csv(path, n=120, k=5, seed=11, agree=False, groups=("",)):
    """Wide answers (answer1..k) and a target; four options, each example's q drawn from Beta(2, 1.5)."""
    rng = np.random.default_rng(seed)
    head = (["group"] if groups != ("",) else []) + ["example_id"] + [f"answer{j + 1}" for j in range(k)] + ["target"]
    lines = [",".join(head)]
    for g in groups:
        for i in range(n):
            q = rng.beta(2, 1.5)
            if agree:  # every call of an example gives the same answer
                right = np.full(k, rng.random() < q)
            else:
                right = rng.random(k) < q
            wrong = rng.choice(["B", "C", "D"], k)
            row = np.where(right, "A", wrong)
            lines.append(",".join(([g] if g else []) + [f"e{i}", *row, "A"]))
    path.write_text("\n".join(lines) + "\n")
    return path


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "certify.cli.main", *args], capture_output=True, text=True, timeout=600
    )


def _tables(text: str) -> dict[tuple[str, str], str]:
    """{(row label, column header): cell} of every verdict table (wrapped tables joined)."""
    cells = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("aggregate  "):
            dashes = lines[i + 1]
            spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
            heads = [line[a:b].strip() if j + 1 < len(spans) else line[a:].strip() for j, (a, b) in enumerate(spans)]
            for row in lines[i + 2 :]:
                if not row.startswith(("majority", "plurality", "pass@k")):
                    break
                label = row[: spans[0][1]].strip()
                for j, (a, b) in enumerate(spans[1:], 1):
                    end = spans[j + 1][0] if j + 1 < len(spans) else len(row)
                    cells[label, heads[j]] = row[a:end].strip()
    return cells


def test_the_cells_are_the_json_verdicts_rounded_outward_and_forecasts_only_beyond_the_calls(tmp_path):
    path = _answers_csv(tmp_path / "a.csv")
    args = [str(path), "--votes", "3", "5", "9", "21", "inf", "--aggregate", "plurality", "pass"]
    text, js = cli("analyze", *args), cli("analyze", *args, "--json")
    assert text.returncode == 0 and js.returncode == 0, text.stderr + js.stderr
    report = json.loads(js.stdout)["reports"][0]
    cells = _tables(text.stdout)
    labels = {"majority": "majority", "plurality": "plurality", "pass@k": "pass@k"}
    assert len(report["verdicts"]) == 12
    for v in report["verdicts"]:
        cell = cells[labels[v["aggregate"]], f"{v['votes']} calls"]
        m = CELL.fullmatch(cell)
        assert m, cell
        assert m[1] == Verdict.WORDS[v["status"]]
        lo, hi = float(m[2]), float(m[3])
        # rounded outward at one decimal: the shown interval holds the computed one and no more than 0.1 pp beyond
        assert lo <= 100 * v["gain_lower"] + 1e-9 and lo > 100 * v["gain_lower"] - 0.1 - 1e-9
        assert hi >= 100 * v["gain_upper"] - 1e-9 and hi < 100 * v["gain_upper"] + 0.1 + 1e-9
        # better iff the whole interval is above zero
        assert (m[1] == "better") == (v["gain_lower"] > 0)
        # without --forecast only the answer model forecasts, plurality beyond the 5 recorded calls
        assert (m[4] is not None) == (v["votes"] > 5 and v["aggregate"] == "plurality")
        if m[4] is not None:
            model = next(b for b in report["budgets"] if (b["aggregate"], b["votes"]) == ("plurality", v["votes"]))
            one = report["all_calls"]["moments"][0]
            assert float(m[4]) == pytest.approx(100 * (model["model"]["estimate"] - one), abs=0.05 + 1e-9)
    # the limit line: the V_inf interval of the JSON, in percent
    inf = next(b for b in report["budgets"] if b["aggregate"] == "majority" and b["votes"] == "inf")
    assert f"majority [{100 * inf['interval']['lower']:.1f}, {100 * inf['interval']['upper']:.1f}]%" in text.stdout


def test_the_default_answer_fits_a_screen_and_details_keep_every_table(tmp_path):
    path = _answers_csv(tmp_path / "a.csv")
    votes = ["3", "5", "9", "21", "51", "101", "inf"]
    out = cli("analyze", str(path), "--votes", *votes, "--aggregate", "plurality", "pass").stdout
    table = [
        line for line in out.splitlines() if line.startswith(("aggregate", "---", "majority", "plurality", "pass@k"))
    ]
    assert table and max(map(len, table)) <= SCREEN_WIDTH
    assert len(out.splitlines()) <= 30
    assert sum(line.startswith("aggregate  ") for line in out.splitlines()) >= 2  # six budgets wrap
    details = cli("analyze", str(path), "--votes", *votes, "--aggregate", "plurality", "pass", "--details").stdout
    for part in ("mu-hat", "budget", "sharp at estimate", "LDGP", "Verdict (95%", "    check: at"):
        assert part in details and part not in out


def test_a_note_on_numbers_only_the_details_show_is_kept_to_the_details(tmp_path):
    # every example's calls agree: the two-call covariance is singular, which touches only the
    # two-call column (--details), not the intervals from every call the table shows
    path = _answers_csv(tmp_path / "a.csv", agree=True)
    out = cli("analyze", str(path), "--votes", "3")
    details = cli("analyze", str(path), "--votes", "3", "--details")
    js = json.loads(cli("analyze", str(path), "--votes", "3", "--json").stdout)["reports"][0]
    assert any(n.startswith("Sigma-hat") for n in js["notes"])
    assert "Sigma-hat" in details.stdout and "Sigma-hat" not in out.stdout
    assert sum(line.startswith("note:") for line in out.stdout.splitlines()) <= SCREEN_NOTES


def test_calls_reaches_every_aggregate_alike(tmp_path):
    path = _answers_csv(tmp_path / "a.csv")
    args = [str(path), "--votes", "3", "5", "--aggregate", "plurality", "pass"]
    out = cli("analyze", *args, "--calls", "3").stdout
    assert "from 3 calls)" in out and "5 calls (" not in out
    assert "~ forecast beyond the 3 calls used (of 5 recorded) (model-based" in out
    assert "beyond the 5 recorded calls" not in out
    details = cli("analyze", *args, "--calls", "3", "--details").stdout
    assert "Beyond the 3 calls used (of 5 recorded), what is certain" in details
    full = json.loads(cli("analyze", *args, "--json").stdout)["reports"][0]
    cut = json.loads(cli("analyze", *args, "--json", "--calls", "3").stdout)["reports"][0]
    assert {b["interval"]["calls"] for b in full["budgets"]} == {5}
    assert {b["interval"]["calls"] for b in cut["budgets"]} == {3}
    # with 3 calls, every aggregate of 5 is beyond the calls: no estimate, a beyond-the-calls calibration
    for b in cut["budgets"]:
        if b["aggregate"] != "majority" and b["votes"] == 5:
            assert b["empirical"] is None and "beyond the recorded calls" in b["interval"]["calibration"]
    # and is what the file cut to its first 3 calls gives with every call
    lines = path.read_text().splitlines()
    cols = lines[0].split(",")
    keep = [i for i, c in enumerate(cols) if c not in ("answer4", "answer5")]
    short = tmp_path / "short.csv"
    short.write_text("\n".join(",".join(line.split(",")[i] for i in keep) for line in lines) + "\n")
    ref = json.loads(
        cli("analyze", str(short), "--votes", "3", "5", "--aggregate", "plurality", "pass", "--json").stdout
    )
    ref_rows = {(b["aggregate"], b["votes"]): b["interval"] for b in ref["reports"][0]["budgets"]}
    for b in cut["budgets"]:
        want = ref_rows[b["aggregate"], b["votes"]]
        assert (b["interval"]["lower"], b["interval"]["upper"]) == pytest.approx(
            (want["lower"], want["upper"]), abs=1e-9
        )


def _report():
    rng = np.random.default_rng(4)
    n, k = 150, 5
    q = rng.beta(2, 1.5, n)
    right = rng.random((n, k)) < q[:, None]
    codes = np.where(right, 0, rng.integers(1, 4, (n, k))).astype(np.int32)
    data = CallBits(tuple(f"e{i}" for i in range(n)), right.astype(float), np.full(n, k), answers=codes, group="g1")
    return analyze(data, (3, 9, V_INF), aggregates=("plurality", "pass"), objectives=("1 - (1-q)**8",))


def test_to_frame_has_one_row_per_target_with_the_json_numbers():
    pytest.importorskip("pandas")
    r = _report()
    frame = r.to_frame()
    assert list(frame.columns) == [f.name for f in dataclasses.fields(TargetRow)]
    assert list(frame.columns) == list(r.rows()[0].to_dict())
    assert len(frame) == len(r.budgets) + len(r.aggregates) + len(r.objectives)
    d = r.to_dict()
    for b in d["budgets"]:
        row = frame[(frame["aggregate"] == b["aggregate"]) & (frame.votes == b["votes"])]
        assert len(row) == 1
        assert row.lower.iloc[0] == b["interval"]["lower"] and row.upper.iloc[0] == b["interval"]["upper"]
    for v in d["verdicts"]:
        row = frame[(frame["aggregate"] == v["aggregate"]) & (frame.votes == v["votes"])]
        assert (row.gain_lower.iloc[0], row.gain_upper.iloc[0], row.verdict.iloc[0]) == (
            v["gain_lower"],
            v["gain_upper"],
            v["status"],
        )
    obj = frame[frame["aggregate"] == "objective"]
    assert obj.objective.tolist() == ["1 - (1-q)**8"] and obj.lower.iloc[0] == d["objectives"][0]["interval"]["lower"]
    # identified rows carry the recorded calls' estimate and no forecast; beyond them the reverse
    ident = frame[frame.route == "identified"]
    assert ident.estimate.notna().all() and ident.forecast.isna().all()
    assert frame[frame.route == "beyond the calls"].estimate.isna().all()
    both = report_frame([r, dataclasses.replace(r, group="g2")])
    assert len(both) == 2 * len(frame) and set(both.group) == {"g1", "g2"}


def test_a_rejected_answer_model_forecasts_nothing_and_says_why():
    r = _report()
    beyond = [a for a in r.aggregates if a.model is not None]
    assert beyond
    rejected = dataclasses.replace(
        r,
        aggregates=tuple(
            dataclasses.replace(a, model=dataclasses.replace(a.model, check="at 5 calls ...: INCONSISTENT: x"))
            if a.model is not None
            else a
            for a in r.aggregates
        ),
    )
    for row in rejected.rows():
        if row.aggregate == "plurality" and row.route == "beyond the calls":
            assert row.forecast is None and row.forecast_gain is None
            assert "reject" in row.forecast_model
    kept = [row for row in r.rows() if row.aggregate == "plurality" and row.forecast is not None]
    assert kept and all(row.forecast == a.model.estimate for row, a in zip(kept, beyond))


def test_plot_returns_the_vote_curve_and_leaves_matplotlib_settings_alone():
    matplotlib = pytest.importorskip("matplotlib")
    before = (matplotlib.get_backend(), dict(matplotlib.rcParams))
    r = _report()
    fig = r.plot()
    assert (matplotlib.get_backend(), dict(matplotlib.rcParams)) == before
    (ax,) = [a for a in fig.axes if a.get_visible() and a.axison]
    assert ax.get_title() == "g1"
    # the band's edges are the majority intervals of the finite budgets
    finite = [b for b in r.budgets if b.votes is not V_INF]
    lines = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
    for end in ("lower", "upper"):
        want = np.array([getattr(b.interval, end) for b in finite])
        assert any(len(y) == len(want) and np.allclose(y, want) for y in lines)


def test_one_set_of_cells_and_one_npmle_per_group_serve_every_target(monkeypatch):
    """Majority budgets and gains, plurality and pass@k rows and gains, beyond the calls and within:
    one NPMLE solve and one build of the data's cells per group and number of calls used."""
    import certify.likelihood._calibration as calibration
    import certify.likelihood._cells as cells_module
    import certify.likelihood._npmle as npmle_module

    solves, builds = [], []
    for module in (calibration, npmle_module):
        original = module._npmle

        def counted(*args, _original=original, **kwargs):
            solves.append(1)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "_npmle", counted)
    post_init = cells_module.CellCounts.__post_init__

    def built(self):
        post_init(self)
        if self.n == n:  # the data's cells (the small-count calibration's lattice of every S is another object)
            builds.append(1)

    monkeypatch.setattr(cells_module.CellCounts, "__post_init__", built)
    rng = np.random.default_rng(4)
    n, k = 150, 5
    q = rng.beta(2, 1.5, n)
    right = rng.random((n, k)) < q[:, None]
    codes = np.where(right, 0, rng.integers(1, 4, (n, k))).astype(np.int32)
    data = CallBits(tuple(f"e{i}" for i in range(n)), right.astype(float), np.full(n, k), answers=codes)
    r = analyze(data, (3, 5, 9, 21, V_INF), aggregates=("plurality", "pass"), objectives=("1 - (1-q)**8",))
    assert len(r.aggregates) == 10 and len(r.verdicts) == 12
    assert (len(solves), len(builds)) == (1, 1)
    solves.clear(), builds.clear()
    analyze(data, (3, 9), aggregates=("plurality", "pass"), calls=3)
    assert (len(solves), len(builds)) == (1, 1)


def _bits(n=300, k=5, seed=8):
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 1.5, n)
    right = rng.random((n, k)) < q[:, None]
    return CallBits(tuple(f"e{i}" for i in range(n)), right.astype(float), np.full(n, k), group="g")


def test_a_forecast_fills_the_rows_beyond_the_calls_and_only_those():
    jsonschema = pytest.importorskip("jsonschema")
    from importlib.resources import files

    r = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",), forecast=True, bootstrap=40, seed=1)
    f = r.forecast
    assert f is not None and f.family is not None and not f.guard.rejected
    by_name = {t.target: t for t in f.targets}
    assert set(by_name) == {
        "V9",
        "V9 - V1",
        "V_inf",
        "V_inf - V1",
        "pass@9",
        "pass@9 - V1",
        "pass@inf",
        "pass@inf - V1",
    }
    for row in r.rows():
        if row.route == "identified":
            assert row.forecast is None and row.forecast_model is None
            continue
        name = {"majority": "V", "pass@k": "pass@"}[row.aggregate] + ("inf" if row.votes is V_INF else str(row.votes))
        name = "V_inf" if name == "Vinf" else name
        assert (row.forecast, row.forecast_lower, row.forecast_upper) == (
            by_name[name].estimate,
            by_name[name].lower,
            by_name[name].upper,
        )
        assert row.forecast_gain == by_name[f"{name} - V1"].estimate
        assert f.family in row.forecast_model and "guard p" in row.forecast_model
    # the JSON carries it, in the forecast schema's layout, inside a valid analysis
    doc = {"$schema": "certify/schemas/analyze-v2.json", "schema_version": "2", "source": "x", "columns": None}
    doc["reports"] = [json.loads(to_json(r.to_dict()))]
    schemas = files("certify") / "schemas"
    jsonschema.validate(doc, json.loads((schemas / "analyze-v2.json").read_text()))
    jsonschema.validate(doc["reports"][0]["forecast"], json.loads((schemas / "forecast-v1.json").read_text()))
    # without forecast=True nothing is forecast for the majority or pass@k
    plain = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",))
    assert plain.forecast is None and all(row.forecast is None for row in plain.rows())


def test_every_family_rejected_means_no_forecast_and_says_so():
    r = analyze(_bits(), (3, 9), forecast=True, bootstrap=40)
    guards = (r.forecast.guard,)
    none_left = dataclasses.replace(r.forecast, family=None, fit=None, guard=None, rejected=guards)
    row = next(x for x in dataclasses.replace(r, forecast=none_left).rows() if x.votes == 9)
    assert row.forecast is None and row.forecast_gain is None
    assert (
        row.forecast_model.startswith("no forecast: the data reject every family")
        and guards[0].family in row.forecast_model
    )


def test_a_forecast_interval_outside_the_certain_one_is_reported_against_its_family():
    from certify.stats._forecast_step import outside_notes

    r = analyze(_bits(), (3, 9), forecast=True, bootstrap=40)
    rows = r.rows()
    assert outside_notes(rows, r.forecast) == [] or all(
        "evidence against" in n for n in outside_notes(rows, r.forecast)
    )
    row = next(x for x in rows if x.votes == 9 and x.aggregate == "majority")
    moved = dataclasses.replace(row, forecast_lower=row.lower - 0.05)
    (note,) = outside_notes([moved], r.forecast)
    assert f"evidence against the {r.forecast.family} family" in note


def test_the_cli_forecast_shows_beside_the_certain_interval(tmp_path):
    path = _answers_csv(tmp_path / "a.csv")
    out = cli(
        "analyze", str(path), "--votes", "3", "9", "--aggregate", "pass", "--forecast", "--bootstrap", "40"
    ).stdout
    cells = _tables(out)
    assert CELL.fullmatch(cells["majority", "9 calls"])[4] is not None
    assert CELL.fullmatch(cells["pass@k", "9 calls"])[4] is not None
    assert "not rejected (guard p = " in out and "fitted to every call" in out
    plain = cli("analyze", str(path), "--votes", "3", "9", "--aggregate", "pass").stdout
    assert CELL.fullmatch(_tables(plain)["majority", "9 calls"])[4] is None and "--forecast:" in plain
    bad = cli("analyze", str(path), "--bootstrap", "40")
    assert bad.returncode == 2 and "--bootstrap and --seed apply to --forecast only" in bad.stderr


def test_an_objective_beyond_the_calls_is_forecast_and_one_within_them_is_not():
    r = analyze(_bits(), (3,), objectives=("1 - (1-q)**8", "V5 - V3"), forecast=True, bootstrap=40)
    rows = {x.objective: x for x in r.rows() if x.aggregate == "objective"}
    (made,) = [t for t in r.forecast.targets if t.target == "1 - (1-q)**8"]
    beyond = rows["1 - (1-q)**8"]
    assert (beyond.forecast, beyond.forecast_lower, beyond.forecast_upper) == (made.estimate, made.lower, made.upper)
    # degree 5 = the recorded calls: identified, nothing to forecast
    assert rows["V5 - V3"].forecast is None and all(t.target != "V5 - V3" for t in r.forecast.targets)


def test_an_unsolved_sharp_range_at_the_all_call_moments_leaves_that_column_empty(monkeypatch):
    """The exact solver can fail at many moments (thousands of calls): the analysis goes on, says so in
    a --details note, and every interval it reports is the same."""
    import certify.stats._report as report_module
    from certify import SolverError

    data = _bits()
    normal = analyze(data, (3, 5))

    def failing(*args, **kwargs):
        if "moments" in kwargs:
            raise SolverError("sharp bound", "no law found", "simulated")
        return original(*args, **kwargs)

    original = report_module.sharp_bounds
    monkeypatch.setattr(report_module, "sharp_bounds", failing)
    r = analyze(data, (3, 5))
    assert all(b.moment_lower is None and b.moment_upper is None for b in r.budgets)
    assert [b.interval for b in r.budgets] == [b.interval for b in normal.budgets]
    (note,) = [n for n in r.notes if "was not solved" in n]
    assert note in r.details_only_notes


DETAIL = re.compile(
    r"^  (\S.*?)\s+certain \[(\d\.\d{4}), (\d\.\d{4})\]  forecast (\d\.\d{4}) \[(\d\.\d{4}), (\d\.\d{4})\] \((.+)\)$"
)
DETAIL_GAIN = re.compile(
    r"^    gain over one call\s+certain \[([+-]\d+\.\d\d), ([+-]\d+\.\d\d)\] pp  forecast ([+-]\d+\.\d\d)"
)


def test_details_put_each_forecast_beside_the_certain_interval(capsys):
    """--details: beyond the calls, ``certain [a, b]  forecast x [c, d] (family, fit p)`` per target,
    every number the row's, read back from the text; the gain line likewise; identified targets absent."""
    from certify.cli._analysis_text import print_details

    r = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",), forecast=True, bootstrap=40, seed=1)
    print_details(r)
    out = capsys.readouterr().out.splitlines()
    start = 1 + next(
        i for i, line in enumerate(out) if line.startswith("Beyond the 5 recorded calls, what is certain (95%")
    )
    assert out[start].startswith("beside what is likely (forecast: model-based, NOT certified)")
    ahead = [row for row in r.rows() if row.route != "identified"]
    assert ahead and all(row.forecast is not None for row in ahead)
    lines = iter(out[start + 1 :])
    fit = f"{r.forecast.family}, fit p {r.forecast.guard.p_value:.2f}"
    for row in ahead:
        acc = next(lines)
        m = DETAIL.match(acc)
        assert m, acc
        label = (
            f"pass@{'inf' if row.votes is V_INF else row.votes}"
            if row.aggregate == "pass@k"
            else (f"majority of {'inf' if row.votes is V_INF else row.votes} calls")
        )
        assert m.group(1) == label and m.group(7) == fit
        got = [float(x) for x in m.groups()[1:6]]
        assert got == pytest.approx(
            [row.lower, row.upper, row.forecast, row.forecast_lower, row.forecast_upper], abs=5e-5
        )
        assert row.forecast_gain is not None
        gain = next(lines)
        if row.gain_lower is None:  # no certain gain (V_inf): the forecast's alone
            only = re.match(r"^    gain over one call\s+forecast ([+-]\d+\.\d\d) \[", gain)
            assert only and float(only.group(1)) == pytest.approx(100 * row.forecast_gain, abs=5e-3), gain
            continue
        g = DETAIL_GAIN.match(gain)
        assert g, gain
        lo, hi, point = (float(x) for x in g.groups())
        # the certain gain is rounded outward at 0.01 pp, the forecast's point to the nearest
        assert lo <= 100 * row.gain_lower < lo + 0.01 + 1e-9 and hi - 0.01 - 1e-9 < 100 * row.gain_upper <= hi
        assert point == pytest.approx(100 * row.forecast_gain, abs=5e-3)
    assert not any("majority of 3 calls  " in line and "forecast" in line for line in out)
    # without a forecast there is no such section
    print_details(analyze(_bits(), (3, 9)))
    assert "beside what is likely" not in capsys.readouterr().out


def test_plot_draws_the_forecast_band_beyond_the_calls_only():
    pytest.importorskip("matplotlib")
    from certify.stats import curve_data

    r = analyze(_bits(), (1, 3, 5, 9, 21, V_INF), forecast=True, bootstrap=40, seed=1)
    data = curve_data(r)
    rows = {row.votes: row for row in r.rows() if row.aggregate == "majority"}
    for v, lo, hi in zip(data["votes"], data["forecast_lower"], data["forecast_upper"]):
        if v <= 5:
            assert lo is None and hi is None
        else:
            assert (lo, hi) == (rows[v].forecast_lower, rows[v].forecast_upper)
    assert data["forecast_inf"] == (rows[V_INF].forecast_lower, rows[V_INF].forecast_upper)
    more = f" and {len(r.forecast.pooled)} more" if r.forecast.pooled else ""
    assert data["forecast_model"] == f"{r.forecast.family} family{more}, guard p = {r.forecast.guard.p_value:.2f}"
    fig = r.plot()
    ax = fig.axes[0]
    hatched = [c for c in ax.collections if c.get_hatch() == "////"]
    assert len(hatched) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("forecast beyond the calls" in t and "NOT certified" in t for t in labels)
    # the band's dashed edges are the forecast ends of the budgets beyond the calls
    beyond = [v for v in data["votes"] if v > 5]
    dashed = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines() if line.get_linestyle() == "--"]
    for end in ("forecast_lower", "forecast_upper"):
        want = np.array([rows[v].__getattribute__(end) for v in beyond])
        assert any(len(y) == len(want) and np.allclose(y, want) for y in dashed)
    plain = analyze(_bits(), (1, 3, 5, 9, 21, V_INF)).plot()
    assert not [c for c in plain.axes[0].collections if c.get_hatch() == "////"]
