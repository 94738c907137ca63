"""The report's K-call vote curve: likelihood intervals from every call, the 'more calls' table, the figure.

Data: two policies whose latent q are Beta laws, so every true V_k (and V_inf) is known in closed
form -- V_{2n+1} = Pr{BetaBin(2n+1, a, b) >= n+1} and V_inf = Pr{Beta(a, b) > 1/2} -- and is
computed here with scipy, independently of the engine.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from certify import V_INF
from certify.report._table_format import MAX_COLUMNS, votes_text

LAWS = {"p1": (4.0, 1.5), "p2": (1.2, 1.2)}
N, K = 400, 6
VOTES = (1, 3, 5, 7, 9, 11, 15, 21, 31, 51, 101)


def true_v(a, b, votes):
    if votes is V_INF:
        return float(stats.beta(a, b).sf(0.5))
    return float(stats.betabinom(votes, a, b).sf((votes - 1) // 2))


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    pytest.importorskip("matplotlib")
    from certify.report._build import analyze_store

    rng = np.random.default_rng(20261123)
    lines = ["example_id,dataset,policy," + ",".join(f"b{j}" for j in range(K))]
    for pol, (a, b) in LAWS.items():
        q = rng.beta(a, b, N)
        bits = rng.random((N, K)) < q[:, None]
        lines += [f"e{i},ds,{pol}," + ",".join(str(int(x)) for x in row) for i, row in enumerate(bits)]
    path = tmp_path_factory.mktemp("curve") / "calls.csv"
    path.write_text("\n".join(lines) + "\n")
    import certify.report._build as build

    real = build.analyze
    with pytest.MonkeyPatch.context() as mp:  # every analysis the report runs, by method
        mp.setattr(build, "analyze", lambda *a, **kw: ANALYSES.append(kw.get("method")) or real(*a, **kw))
        return path, analyze_store(path, step=0.5)


#: The method of each analysis :func:`analyze_store` ran (filled by the ``results`` fixture).
ANALYSES: list = []


def test_each_group_is_analysed_once(results):
    """One likelihood analysis per group; the paper's two-call report is its two-call view, not a second analysis."""
    _, res = results
    assert ANALYSES == ["likelihood"] * len(LAWS)
    for group, rep in res["reports"].items():
        curve = res["curves"][group]
        assert rep.method == "two-call" and [b.votes for b in rep.budgets] == [3, 5, V_INF]
        for row in rep.budgets:
            same = next(b for b in curve.budgets if b.votes == row.votes)
            assert row.projected == same.projected and (row.interval.lower, row.interval.upper) == (
                same.projected.lower,
                same.projected.upper,
            )
        assert [v.votes for v in rep.verdicts] == [3, 5] and all(v.gain.method == "two-call" for v in rep.verdicts)


def test_curves_use_every_call_and_hold_the_true_values(results):
    _, res = results
    assert set(res["curves"]) == {"ds/p1", "ds/p2"}
    for group, rep in res["curves"].items():
        a, b = LAWS[group.split("/")[1]]
        assert rep.method == "likelihood" and rep.max_calls == K
        assert [r.votes for r in rep.budgets] == [*VOTES, V_INF]
        for row in rep.budgets:
            iv = row.interval
            assert iv.calls == K and iv.lower <= iv.upper
            # identified budgets (k <= K) use chi2_1, the others the projection chi2_K
            identified = row.votes is not V_INF and row.votes <= K
            assert ("profile" in iv.calibration) == identified
            assert iv.route == ("identified" if identified else "beyond the calls")
            truth = true_v(a, b, row.votes)
            assert iv.lower - 1e-9 <= truth <= iv.upper + 1e-9, (group, row.votes, iv, truth)
        # empirical points exist exactly up to K
        assert [r.votes for r in rep.budgets if r.empirical is not None] == [v for v in VOTES if v <= K]


def test_more_calls_table(results):
    from certify.report._tables import more_calls_table

    _, res = results
    table = more_calls_table(res["curves"])
    assert [r[1] for r in table.rows] == ["p1", "p2"]
    for row, (group, rep) in zip(table.rows, res["curves"].items()):
        a, b = LAWS[group.split("/")[1]]
        better = [v for v in rep.verdicts if v.status == "better" and v.aggregate == "majority"]
        if better:
            best = max(better, key=lambda v: v.gain.lower)
            assert row[3] == f"{best.votes} votes" and row[4] == pytest.approx(100 * best.gain.lower)
            assert best.gain.lower > 0
        else:
            assert row[3] == "none" and row[4] is None
        # the bound on what more votes can add holds for the true law
        assert row[5] / 100 >= true_v(a, b, V_INF) - true_v(a, b, 5) - 1e-9
        assert row[6] / 100 >= true_v(a, b, V_INF) - true_v(a, b, 101) - 1e-9
    # p1 (mean 0.73, spread out) gains from voting; p2 (mean 1/2) cannot gain anything certain
    assert table.rows[0][3] != "none" and table.rows[1][3] == "none"


def test_the_forecast_table_gives_9_21_101_and_infinitely_many_votes_from_a_family_the_data_do_not_reject(results):
    """Beside the certain bounds, a table of the rows' model-based gains (beyond K = 6 calls), named by
    their family; both laws are Beta laws, inside the families, and their true gains lie in the intervals."""
    from certify.report._tables import forecast_table

    _, res = results
    table = forecast_table(res["curves"])
    heads = [c.name for c in table.columns]
    assert len(heads) <= MAX_COLUMNS
    budgets = (9, 21, 101, V_INF)
    cols = [heads.index(f"{votes_text(k)} minus 1 vote, forecast (pp)") for k in budgets]
    model = heads.index("forecast from (goodness-of-fit p)")
    for row, (group, rep) in zip(table.rows, res["curves"].items()):
        a, b = LAWS[group.split("/")[1]]
        fc = rep.forecast
        assert fc is not None and fc.family is not None and not fc.guard.rejected
        more = f" and {len(fc.pooled)} more" if fc.pooled else ""
        assert row[model] == f"{fc.family}{more} (guard p = {fc.guard.p_value:.2f})"
        by_votes = {r.target.votes: r for r in rep.rows() if r.target.aggregate == "majority"}
        for k, j in zip(budgets, cols):
            r = by_votes[k]
            fg = r.forecast.gain
            assert fg.route == "model-based" and not fg.certified
            assert row[j] == pytest.approx((100 * fg.estimate, 100 * fg.lower, 100 * fg.upper))
            truth = 100 * (true_v(a, b, k) - true_v(a, b, 1))
            assert row[j][1] <= truth <= row[j][2], (group, k, row[j], truth)
            if r.verdict is not None:  # model-based, and narrower than what is certain
                assert row[j][2] - row[j][1] < 100 * (r.verdict.gain.upper - r.verdict.gain.lower)
    # rendered as a value with its interval, one decimal
    assert re.search(r"[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]", table.to_markdown())


def test_the_report_without_forecast_has_no_forecast_table_or_band(results):
    from certify.report._build import _tables, analyze_store
    from certify.report._tables import forecast_table
    from certify.analysis import curve_data

    path, _ = results
    res = analyze_store(path, step=0.5, forecast=False)
    assert forecast_table(res["curves"]) is None
    assert "forecast" not in [t.name for t in _tables(res)]
    for rep in res["curves"].values():
        data = curve_data(rep)
        assert rep.forecast is None and data["forecast_inf"] is None
        assert all(x is None for x in data["forecast_lower"] + data["forecast_upper"])


def test_written_report_has_the_curve_figure_and_json(results, tmp_path):
    import json

    from certify.report._build import write_report

    path, res = results
    out = write_report(path, tmp_path / "rep", results=res)
    assert "figures/vote_curves.png" in out.figures and "more_calls" in out.tables and "forecast" in out.tables
    doc = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert set(doc["vote_curves"]) == {"ds/p1", "ds/p2"}
    assert doc["vote_curves"]["ds/p1"]["method"] == "likelihood"
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "What more calls can add" in md and "6 calls per example" in md
    # beyond the recorded calls the markdown puts what is likely beside what is certain, and says which is which
    for rep in res["curves"].values():
        fc = rep.forecast
        assert f"under the {fc.family} family of the latent law" in md
        nine = next(r for r in rep.rows() if r.target.aggregate == "majority" and r.target.votes == 9)
        iv, ahead = nine.interval, nine.forecast.accuracy
        assert iv.route == "beyond the calls" and ahead.route == "model-based"
        assert (
            f"majority of 9 calls: certain [{iv.lower:.3f}, {iv.upper:.3f}], forecast {ahead.estimate:.3f} "
            f"[{ahead.lower:.3f}, {ahead.upper:.3f}]"
        ) in md
    assert "**not certified**" in md
