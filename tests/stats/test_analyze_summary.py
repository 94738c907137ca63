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
from certify.analysis._text import SCREEN_NOTES, SCREEN_WIDTH
from certify.analysis import Verdict, analyze, report_frame

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
    verdicts = [row["verdict"] for row in report["rows"] if row["verdict"] is not None]
    assert len(verdicts) == 12
    models = {(a["aggregate"], a["votes"]): a["model"] for a in report["answer_models"]}
    for v in verdicts:
        cell = cells[labels[v["aggregate"]], f"{v['votes']} calls"]
        m = CELL.fullmatch(cell)
        assert m, cell
        assert m[1] == Verdict.WORDS[v["status"]]
        lo, hi = float(m[2]), float(m[3])
        gain = v["gain"]
        # rounded outward at one decimal: the shown interval holds the computed one and no more than 0.1 pp beyond
        assert lo <= 100 * gain["lower"] + 1e-9 and lo > 100 * gain["lower"] - 0.1 - 1e-9
        assert hi >= 100 * gain["upper"] - 1e-9 and hi < 100 * gain["upper"] + 0.1 + 1e-9
        # better iff the whole interval is above zero
        assert (m[1] == "better") == (gain["lower"] > 0)
        # without --forecast only the answer model forecasts, plurality beyond the 5 recorded calls
        assert (m[4] is not None) == (v["votes"] > 5 and v["aggregate"] == "plurality")
        if m[4] is not None:
            model = models["plurality", v["votes"]]
            one = report["all_calls"]["moments"][0]
            assert float(m[4]) == pytest.approx(100 * (model["interval"]["estimate"] - one), abs=0.05 + 1e-9)
    # the limit line: the V_inf interval of the JSON, in percent
    inf = next(
        row for row in report["rows"] if row["target"]["aggregate"] == "majority" and row["target"]["votes"] == "inf"
    )
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
    assert {row["interval"]["calls"] for row in full["rows"]} == {5}
    assert {row["interval"]["calls"] for row in cut["rows"]} == {3}
    # with 3 calls, every aggregate of 5 is beyond the calls: no estimate, a beyond-the-calls route
    for row in cut["rows"]:
        if row["target"]["aggregate"] != "majority" and row["target"]["votes"] == 5:
            assert row["interval"]["estimate"] is None and row["interval"]["route"] == "beyond the calls"
    # and is what the file cut to its first 3 calls gives with every call
    lines = path.read_text().splitlines()
    cols = lines[0].split(",")
    keep = [i for i, c in enumerate(cols) if c not in ("answer4", "answer5")]
    short = tmp_path / "short.csv"
    short.write_text("\n".join(",".join(line.split(",")[i] for i in keep) for line in lines) + "\n")
    ref = json.loads(
        cli("analyze", str(short), "--votes", "3", "5", "--aggregate", "plurality", "pass", "--json").stdout
    )
    ref_rows = {(r["target"]["aggregate"], r["target"]["votes"]): r["interval"] for r in ref["reports"][0]["rows"]}
    assert len(ref_rows) == len(cut["rows"])
    for row in cut["rows"]:
        want = ref_rows[row["target"]["aggregate"], row["target"]["votes"]]
        assert (row["interval"]["lower"], row["interval"]["upper"]) == pytest.approx(
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
    assert list(frame.columns) == list(r.rows()[0].flat())
    assert len(frame) == len(r.budgets) + len(r.aggregates) + len(r.objectives) == len(r.to_dict()["rows"])
    d = r.to_dict()
    aggregate, votes = frame["target.aggregate"], frame["target.votes"]
    intervals = [row for row in d["rows"] if row["target"]["aggregate"] != "objective"]
    assert len(intervals) == len(r.budgets) + len(r.aggregates)
    for b in intervals:
        row = frame[(aggregate == b["target"]["aggregate"]) & (votes == b["target"]["votes"])]
        assert len(row) == 1
        assert row["interval.lower"].iloc[0] == b["interval"]["lower"]
        assert row["interval.upper"].iloc[0] == b["interval"]["upper"]
    verdicts = [row["verdict"] for row in d["rows"] if row["verdict"] is not None]
    assert len(verdicts) == len(r.verdicts)
    for v in verdicts:
        row = frame[(aggregate == v["aggregate"]) & (votes == v["votes"])]
        got = (row["verdict.gain.lower"].iloc[0], row["verdict.gain.upper"].iloc[0], row["verdict.status"].iloc[0])
        assert got == (v["gain"]["lower"], v["gain"]["upper"], v["status"])
    obj = frame[aggregate == "objective"]
    (objective,) = [row for row in d["rows"] if row["target"]["aggregate"] == "objective"]
    assert obj["target.objective"].tolist() == ["1 - (1-q)**8"]
    assert obj["interval.lower"].iloc[0] == objective["interval"]["lower"]
    # identified rows carry the recorded calls' estimate and no forecast; beyond them the reverse
    ident = frame[frame["interval.route"] == "identified"]
    assert len(ident) and ident["interval.estimate"].notna().all() and ident["forecast.model"].isna().all()
    beyond = frame[frame["interval.route"] == "beyond the calls"]
    assert len(beyond) and beyond["interval.estimate"].isna().all()
    both = report_frame([r, dataclasses.replace(r, group="g2")])
    assert len(both) == 2 * len(frame) and set(both.group) == {"g1", "g2"}


def _flatten(d: dict, prefix: str = "") -> dict:
    """A JSON dict with its nested dicts flattened to dotted keys, in order."""
    out = {}
    for key, value in d.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def test_the_frame_columns_are_the_keys_of_a_flattened_json_row():
    """A JSON row holding an interval, a verdict and a forecast (accuracy and gain), flattened with
    dots, has exactly the DataFrame's columns, in order, and the frame's row holds its values."""
    pandas = pytest.importorskip("pandas")
    r = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",), forecast=True, bootstrap=40, seed=1)
    rows = json.loads(to_json(r.to_dict()))["rows"]
    full = [
        i
        for i, row in enumerate(rows)
        if row["interval"] is not None
        and row["verdict"] is not None
        and row["forecast"] is not None
        and row["forecast"]["accuracy"] is not None
        and row["forecast"]["gain"] is not None
    ]
    assert {(rows[i]["target"]["aggregate"], rows[i]["target"]["votes"]) for i in full} == {
        ("majority", 9),
        ("pass@k", 9),
    }
    frame = r.to_frame()
    assert len(frame) == len(rows)
    for i in full:
        flat = _flatten(rows[i])
        assert list(frame.columns) == list(flat)
        for key, value in flat.items():
            got = frame[key].iloc[i]
            assert pandas.isna(got) if value is None else got == value, (key, got, value)


def _v2_interval(iv) -> dict:
    return {
        "lower": iv.lower,
        "upper": iv.upper,
        "method": iv.method,
        "calibration": iv.calibration,
        "alpha": iv.alpha,
        "calls": iv.calls,
    }


def _v2_gain_method(v) -> str:
    """How v2 named a verdict's method: the majority's by the analysis' method, an aggregate's by its route."""
    if v.aggregate == "majority":
        return v.gain.method
    if v.gain.route == "identified":  # U-statistics of k-subsets of each example's calls
        return "paired U-statistic differences over examples"
    return f"likelihood ratio, {v.gain.calibration}"


def _v2_layout(r) -> dict:
    """The report as certify wrote it in ``analyze-v2`` (before one row per target): the majority
    budgets and the aggregates in ``budgets``, the verdicts and the objectives apart."""
    d = r.to_dict()
    budgets = [{"aggregate": "majority", **b.details(), "interval": _v2_interval(b.interval)} for b in r.budgets]
    for a in r.aggregates:
        iv = _v2_interval(a.interval)
        if a.interval.method.startswith("likelihood ratio"):  # v2 prefixed a likelihood row's route
            words = "identified by the calls" if a.interval.route == "identified" else "beyond the recorded calls"
            iv["calibration"] = f"{words}; {iv['calibration']}"
        model = None
        if a.model is not None:
            m = a.model.interval
            model = {
                "estimate": m.estimate,
                "lower": m.lower,
                "upper": m.upper,
                "method": m.method,
                "calibration": m.calibration,
                "alpha": m.alpha,
                "check": a.model.check,
                "certified": False,
            }
        budgets.append(
            {
                "aggregate": a.aggregate,
                "votes": "inf" if a.votes is V_INF else a.votes,
                "interval": iv,
                "empirical": a.interval.estimate,
                "model": model,
            }
        )
    verdicts = [
        {
            "aggregate": v.aggregate,
            "votes": v.votes,
            "gain_lower": v.gain.lower,
            "gain_upper": v.gain.upper,
            "status": v.status,
            "method": _v2_gain_method(v),
            "reason": v.reason,
            "text": v.text,
        }
        for v in r.verdicts
    ]
    objectives = [{"objective": o.objective, "interval": _v2_interval(o.interval)} for o in r.objectives]
    comparisons = [
        {
            "label_a": c.label_a,
            "label_b": c.label_b,
            "difference": c.interval.estimate,
            "se": c.se,
            "lower": c.interval.lower,
            "upper": c.interval.upper,
            "alpha": c.interval.alpha,
            "n": c.n,
        }
        for c in r.comparisons
    ]
    keep = ("source", "group", "n", "calls", "max_calls", "alpha", "two_call", "all_calls", "region")
    return {
        "schema_version": "2",
        **{k: d[k] for k in keep},
        "budgets": budgets,
        "verdicts": verdicts,
        "objectives": objectives,
        "completions": d["completions"],
        "comparisons": comparisons,
        "notes": d["notes"],
        "method": d["method"],
        "forecast": d["forecast"],
    }


def test_a_v2_report_reads_into_rows_with_the_same_numbers():
    """A report in the old layout (analyze-v2, built by hand and valid against its schema) reads into
    an AnalysisReport whose rows carry the intervals, estimates, routes, verdicts and answer-model
    forecasts of the analysis that wrote it."""
    jsonschema = pytest.importorskip("jsonschema")
    from importlib.resources import files

    from certify.analysis import AnalysisReport

    r = _report()
    old = json.loads(to_json(_v2_layout(r)))
    doc = {"$schema": "certify/schemas/analyze-v2.json", "schema_version": "2", "source": "x", "columns": None}
    schema = json.loads((files("certify") / "schemas" / "analyze-v2.json").read_text())
    jsonschema.validate({**doc, "reports": [old]}, schema)
    back = AnalysisReport.from_dict(old)
    # (the budgets' other columns compared as JSON: a projected interval's unsolved gap is NaN, never equal)
    assert [b.interval for b in back.budgets] == [b.interval for b in r.budgets]
    assert to_json([b.details() for b in back.budgets]) == to_json([b.details() for b in r.budgets])
    assert back.objectives == r.objectives
    assert r.comparisons and back.comparisons == r.comparisons
    want = {row.target.key: row for row in r.rows()}
    got = {row.target.key: row for row in back.rows()}
    assert list(got) == list(want)
    assert {row.target.aggregate for row in want.values()} == {"majority", "plurality", "pass@k", "objective"}
    for key, row in want.items():
        iv, read = row.interval, got[key].interval
        assert (read.lower, read.upper, read.alpha, read.calls, read.method) == (
            iv.lower,
            iv.upper,
            iv.alpha,
            iv.calls,
            iv.method,
        ), key
        assert (read.route, read.estimate) == (iv.route, iv.estimate), key
        # v2 wrote a likelihood aggregate's route before its calibration; the rest is the same text
        assert read.calibration.endswith(iv.calibration), key
        if row.verdict is None:
            assert got[key].verdict is None, key
        else:
            v, w = got[key].verdict, row.verdict
            assert (v.votes, v.aggregate, v.status, v.reason) == (w.votes, w.aggregate, w.status, w.reason), key
            assert (v.gain.lower, v.gain.upper, v.gain.alpha) == (w.gain.lower, w.gain.upper, w.gain.alpha), key
        if row.forecast is None:
            assert got[key].forecast is None, key
        else:  # the answer model beyond the calls (no family forecast was asked for)
            f, g = got[key].forecast, row.forecast
            assert (f.model, f.family, f.rejected) == (g.model, g.family, g.rejected), key
            a, b = f.accuracy, g.accuracy
            assert (a.estimate, a.lower, a.upper, a.route) == (b.estimate, b.lower, b.upper, "model-based"), key
            assert f.gain.estimate == g.gain.estimate, key
    assert any(row.forecast is not None for row in want.values())


def test_calls_3_of_5_changes_every_row_to_3_calls_and_its_route(tmp_path):
    """--calls 3 on 5-call data: every row (majority, plurality, pass@k, objective) and every gain is
    made from 3 calls; a target of degree 4 or 5 leaves the calls (no estimate, the projection
    calibration), one of degree at most 3 stays identified (the profile calibration, or the
    U-statistic's)."""
    path = _answers_csv(tmp_path / "a.csv")
    args = [str(path), "--votes", "3", "5", "--aggregate", "plurality", "pass", "--objective", "1 - (1-q)**4", "q"]
    full = json.loads(cli("analyze", *args, "--json").stdout)["reports"][0]
    cut = json.loads(cli("analyze", *args, "--json", "--calls", "3").stdout)["reports"][0]
    degree = {"1 - (1-q)**4": 4, "q": 1}

    def key(row):
        t = row["target"]
        return (t["aggregate"], t["objective"] if t["aggregate"] == "objective" else t["votes"])

    assert (
        [key(row) for row in cut["rows"]]
        == [key(row) for row in full["rows"]]
        == [
            ("majority", 3),
            ("majority", 5),
            ("plurality", 3),
            ("plurality", 5),
            ("pass@k", 3),
            ("pass@k", 5),
            ("objective", "1 - (1-q)**4"),
            ("objective", "q"),
        ]
    )
    for report, calls in ((full, 5), (cut, 3)):
        for row in report["rows"]:
            aggregate, target = key(row)
            iv = row["interval"]
            assert iv["calls"] == calls, (calls, key(row))
            if row["verdict"] is not None:
                assert row["verdict"]["gain"]["calls"] == calls, (calls, key(row))
            identified = (degree[target] if aggregate == "objective" else target) <= calls
            assert iv["route"] == ("identified" if identified else "beyond the calls"), (calls, key(row))
            if not identified:
                assert iv["estimate"] is None and "projection likelihood ratio" in iv["calibration"], (calls, key(row))
                if row["verdict"] is not None:
                    assert row["verdict"]["gain"]["route"] == "beyond the calls", (calls, key(row))
                continue
            assert "projection" not in iv["calibration"], (calls, key(row))
            assert "profile likelihood ratio" in iv["calibration"] or iv["method"].startswith("U-statistic"), key(row)
            if aggregate != "objective":
                assert iv["estimate"] is not None, (calls, key(row))
    # the majority of 5 votes: identified by the 5 recorded calls, beyond the 3 used
    full5, cut5 = (next(row["interval"] for row in r["rows"] if key(row) == ("majority", 5)) for r in (full, cut))
    assert full5["route"] == "identified" and full5["estimate"] == full["details"][1]["empirical"]["value"]
    assert "profile likelihood ratio" in full5["calibration"]
    assert cut5["route"] == "beyond the calls" and cut5["estimate"] is None
    assert "projection likelihood ratio" in cut5["calibration"]


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
    checked = 0
    for row in rejected.rows():
        if row.target.aggregate == "plurality" and row.interval.route == "beyond the calls":
            assert row.forecast.accuracy is None and row.forecast.gain is None and row.forecast.rejected
            assert "reject" in row.forecast.model
            checked += 1
    assert checked == len(beyond)
    kept = [
        row
        for row in r.rows()
        if row.target.aggregate == "plurality" and row.forecast is not None and row.forecast.accuracy is not None
    ]
    assert len(kept) == len(beyond)
    assert all(row.forecast.accuracy.estimate == a.model.interval.estimate for row, a in zip(kept, beyond))


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
        if row.interval.route == "identified":
            assert row.forecast is None
            continue
        target = row.target
        name = {"majority": "V", "pass@k": "pass@"}[target.aggregate] + (
            "inf" if target.votes is V_INF else str(target.votes)
        )
        name = "V_inf" if name == "Vinf" else name
        accuracy = row.forecast.accuracy
        assert (accuracy.estimate, accuracy.lower, accuracy.upper) == (
            by_name[name].estimate,
            by_name[name].lower,
            by_name[name].upper,
        )
        assert accuracy.route == "model-based" and not accuracy.certified
        assert row.forecast.gain.estimate == by_name[f"{name} - V1"].estimate
        assert f.family in row.forecast.model and "guard p" in row.forecast.model
        assert row.forecast.family == f.family and row.forecast.gof_p == f.guard.p_value and not row.forecast.rejected
    # the JSON carries it, in the forecast schema's layout, inside a valid analysis
    doc = {"$schema": "certify/schemas/analyze-v3.json", "schema_version": "3", "source": "x", "columns": None}
    doc["reports"] = [json.loads(to_json(r.to_dict()))]
    schemas = files("certify") / "schemas"
    jsonschema.validate(doc, json.loads((schemas / "analyze-v3.json").read_text()))
    jsonschema.validate(doc["reports"][0]["forecast"], json.loads((schemas / "forecast-v1.json").read_text()))
    # without forecast=True nothing is forecast for the majority or pass@k
    plain = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",))
    assert plain.forecast is None and all(row.forecast is None for row in plain.rows())


def test_every_family_rejected_means_no_forecast_and_says_so():
    r = analyze(_bits(), (3, 9), forecast=True, bootstrap=40)
    guards = (r.forecast.guard,)
    none_left = dataclasses.replace(r.forecast, family=None, fit=None, guard=None, rejected=guards)
    row = next(x for x in dataclasses.replace(r, forecast=none_left).rows() if x.target.votes == 9)
    assert row.forecast.accuracy is None and row.forecast.gain is None and row.forecast.rejected
    assert (
        row.forecast.model.startswith("no forecast: the data reject every family")
        and guards[0].family in row.forecast.model
    )


def test_a_forecast_interval_outside_the_certain_one_is_reported_against_its_family():
    from certify.analysis._forecast_step import outside_notes

    r = analyze(_bits(), (3, 9), forecast=True, bootstrap=40)
    rows = r.rows()
    assert outside_notes(rows, r.forecast) == [] or all(
        "evidence against" in n for n in outside_notes(rows, r.forecast)
    )
    row = next(x for x in rows if x.target.votes == 9 and x.target.aggregate == "majority")
    accuracy = dataclasses.replace(row.forecast.accuracy, lower=row.interval.lower - 0.05)
    moved = dataclasses.replace(row, forecast=dataclasses.replace(row.forecast, accuracy=accuracy))
    (note,) = outside_notes([moved], r.forecast)
    assert f"evidence against the {r.forecast.family} family" in note
    assert f"the {r.forecast.family} forecast of majority of 9 votes [" in note


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
    rows = {x.target.objective: x for x in r.rows() if x.target.aggregate == "objective"}
    (made,) = [t for t in r.forecast.targets if t.target == "1 - (1-q)**8"]
    beyond = rows["1 - (1-q)**8"]
    assert beyond.interval.route == "beyond the calls" and rows["V5 - V3"].interval.route == "identified"
    accuracy = beyond.forecast.accuracy
    assert (accuracy.estimate, accuracy.lower, accuracy.upper) == (made.estimate, made.lower, made.upper)
    # degree 5 = the recorded calls: identified, nothing to forecast
    assert rows["V5 - V3"].forecast is None and all(t.target != "V5 - V3" for t in r.forecast.targets)


def test_an_unsolved_sharp_range_at_the_all_call_moments_leaves_that_column_empty(monkeypatch):
    """The exact solver can fail at many moments (thousands of calls): the analysis goes on, says so in
    a --details note, and every interval it reports is the same."""
    import certify.analysis._analyze as report_module
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


def test_details_put_each_forecast_beside_the_certain_interval():
    """--details: beyond the calls, ``certain [a, b]  forecast x [c, d] (family, fit p)`` per target,
    every number the row's, read back from the text; the gain line likewise; identified targets absent."""
    r = analyze(_bits(), (3, 9, V_INF), aggregates=("pass",), forecast=True, bootstrap=40, seed=1)
    out = r.text_lines(details=True)
    start = 1 + next(
        i for i, line in enumerate(out) if line.startswith("Beyond the 5 recorded calls, what is certain (95%")
    )
    assert out[start].startswith("beside what is likely (forecast: model-based, NOT certified)")
    ahead = [row for row in r.rows() if row.interval.route != "identified"]
    assert ahead and all(row.forecast is not None and row.forecast.accuracy is not None for row in ahead)
    lines = iter(out[start + 1 :])
    fit = f"{r.forecast.family}, fit p {r.forecast.guard.p_value:.2f}"
    for row in ahead:
        acc = next(lines)
        m = DETAIL.match(acc)
        assert m, acc
        votes = row.target.votes
        label = (
            f"pass@{'inf' if votes is V_INF else votes}"
            if row.target.aggregate == "pass@k"
            else (f"majority of {'inf' if votes is V_INF else votes} calls")
        )
        assert m.group(1) == label and m.group(7) == fit
        got = [float(x) for x in m.groups()[1:6]]
        accuracy = row.forecast.accuracy
        assert got == pytest.approx(
            [row.interval.lower, row.interval.upper, accuracy.estimate, accuracy.lower, accuracy.upper], abs=5e-5
        )
        assert row.forecast.gain is not None and row.forecast.gain.estimate is not None
        forecast_gain = row.forecast.gain.estimate
        gain = next(lines)
        if row.verdict is None:  # no certain gain (V_inf): the forecast's alone
            only = re.match(r"^    gain over one call\s+forecast ([+-]\d+\.\d\d) \[", gain)
            assert only and float(only.group(1)) == pytest.approx(100 * forecast_gain, abs=5e-3), gain
            continue
        g = DETAIL_GAIN.match(gain)
        assert g, gain
        lo, hi, point = (float(x) for x in g.groups())
        # the certain gain is rounded outward at 0.01 pp, the forecast's point to the nearest
        certain = row.verdict.gain
        assert lo <= 100 * certain.lower < lo + 0.01 + 1e-9 and hi - 0.01 - 1e-9 < 100 * certain.upper <= hi
        assert point == pytest.approx(100 * forecast_gain, abs=5e-3)
    assert not any("majority of 3 calls  " in line and "forecast" in line for line in out)
    # without a forecast there is no such section
    assert "beside what is likely" not in analyze(_bits(), (3, 9)).text(details=True)


def test_plot_draws_the_forecast_band_beyond_the_calls_only():
    pytest.importorskip("matplotlib")
    from certify.analysis import curve_data

    r = analyze(_bits(), (1, 3, 5, 9, 21, V_INF), forecast=True, bootstrap=40, seed=1)
    data = curve_data(r)
    rows = {
        row.target.votes: row.forecast.accuracy
        for row in r.rows()
        if row.target.aggregate == "majority" and row.forecast is not None
    }
    assert set(rows) == {9, 21, V_INF}
    for v, lo, hi in zip(data["votes"], data["forecast_lower"], data["forecast_upper"]):
        if v <= 5:
            assert lo is None and hi is None
        else:
            assert (lo, hi) == (rows[v].lower, rows[v].upper)
    assert data["forecast_inf"] == (rows[V_INF].lower, rows[V_INF].upper)
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
    for end in ("lower", "upper"):
        want = np.array([getattr(rows[v], end) for v in beyond])
        assert any(len(y) == len(want) and np.allclose(y, want) for y in dashed)
    plain = analyze(_bits(), (1, 3, 5, 9, 21, V_INF)).plot()
    assert not [c for c in plain.axes[0].collections if c.get_hatch() == "////"]


@pytest.mark.parametrize("details", [False, True])
def test_the_cli_prints_the_text_python_gets(tmp_path, details):
    """The analysis writes its own text (the CLI parses, calls, prints): the same lines from Python."""
    from certify.readers import read_bits

    path = _answers_csv(tmp_path / "a.csv")
    args = [str(path), "--votes", "3", "9", "inf", "--aggregate", "plurality", "pass"] + (["--details"] if details else [])
    out = cli("analyze", *args)
    assert out.returncode == 0, out.stderr
    report = analyze(read_bits(path), (3, 9, "inf"), aggregates=("plurality", "pass"))
    text = report.text(details=details)
    assert text == "\n".join(report.text_lines(details=details)) and text.splitlines()[0].startswith(str(path))
    # after the reader's lines (which columns gave what) and a blank line, exactly the report's text
    printed = out.stdout.splitlines()
    assert printed[printed.index("") + 1 :] == report.text_lines(details=details)
