"""Overtaking / negative movements against an independent paired computation; tables against stats."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from scipy.stats import hypergeom

from certify.report import (
    policy_interval_table,
    policy_table,
    se_range_table,
    completion_error_table,
)
from certify.stats import find_negative_movements, find_overtaking, mixture_data, unit_mixture
from certify.analysis import analyze
from certify.readers import bits_from_array

N = 400


def _bits(q, seed):
    rng = np.random.default_rng(seed)
    return bits_from_array((rng.random((len(q), 5)) < np.asarray(q)[:, None]).astype(float), [f"e{i}" for i in range(len(q))])


@pytest.fixture(scope="module")
def groups():
    rng = np.random.default_rng(0)
    return {
        "random": _bits(np.full(N, 0.62), 1),                          # rho ~ 0: voting helps
        "stable": _bits((rng.random(N) < 0.68).astype(float), 2),     # rho ~ 1: voting does nothing
        "below": _bits(np.full(N, 0.30), 3),                           # below 1/2: voting hurts
    }


def _independent(bits, m):
    s = np.nansum(bits.bits, axis=1)
    return np.array([hypergeom(5, int(si), m).sf(m // 2) for si in s])


def test_overtaking_pairs_and_their_paired_intervals(groups):
    data = mixture_data(groups, "toy")
    pols = [unit_mixture(data, n) for n in data.names]
    found = find_overtaking(data, pols)
    pair = next(o for o in found if o.policy_a == "random" and o.policy_b == "stable")
    assert pair.overtakes_at == (5,) or pair.overtakes_at == (3, 5)
    for v, d in zip((1, 3, 5), pair.differences):
        diff = _independent(groups["random"], v) - _independent(groups["stable"], v)
        se = diff.std(ddof=1) / np.sqrt(N)
        assert d.difference == pytest.approx(diff.mean(), abs=1e-12)
        assert d.interval.lower == pytest.approx(diff.mean() - 1.959963984540054 * se, abs=1e-10)
        assert d.interval.upper == pytest.approx(diff.mean() + 1.959963984540054 * se, abs=1e-10)
    # every reported pair really is an overtaking
    for o in found:
        assert o.differences[0].difference < 0 and any(d.difference > 0 for d in o.differences[1:])


def test_negative_movements(groups):
    data = mixture_data(groups, "toy")
    neg = find_negative_movements(data, [unit_mixture(data, n) for n in data.names])
    below = [m for m in neg if m.policy == "below"]
    assert [m.comparison.label_b for m in below] == ["3 votes", "5 votes"]
    assert below[0].significant and below[0].comparison.interval.upper < 0
    d = _independent(groups["below"], 3) - _independent(groups["below"], 1)
    assert below[0].comparison.difference == pytest.approx(d.mean(), abs=1e-12)
    assert not any(m.policy == "random" for m in neg)


@pytest.fixture(scope="module")
def reports(groups):
    return {f"toy/{k}": analyze(b, votes=(3, 5, "inf")) for k, b in groups.items()}


def test_policy_table_values_come_from_the_analysis(groups, reports):
    t = policy_table(reports)
    assert len(t.rows) == 3
    for row, (g, rep) in zip(t.rows, reports.items()):
        rec = dict(zip([c.name for c in t.columns], row))
        bits = groups[g.split("/")[1]]
        # first-two-call estimators, computed here from the bits of calls 1 and 2
        b1, b2 = bits.bits[:, 0], bits.bits[:, 1]
        mu2, nu2 = float(np.mean((b1 + b2) / 2)), float(np.mean(b1 * b2))
        assert rec["mu-hat, first 2 calls (%)"] == pytest.approx(100 * mu2)
        assert rec["rho-hat, first 2 calls (%)"] == pytest.approx(100 * (nu2 - mu2 ** 2) / (mu2 * (1 - mu2)))
        # all-call accuracies (independent hypergeometric computation) and their displayed differences
        v = {m: 100 * float(_independent(bits, m).mean()) if m > 1 else 100 * float(np.mean(bits.bits)) for m in (1, 3, 5)}
        assert rec["1 vote, all K calls (%)"] == pytest.approx(v[1])
        assert rec["3 votes, all K calls (%)"] == pytest.approx(v[3])
        assert rec["5 votes, all K calls (%)"] == pytest.approx(v[5])
        for m in (3, 5):
            shown = round(v[m], 2) - round(v[1], 2)
            assert rec[f"{m} votes minus 1 vote (pp)"] == pytest.approx(shown, abs=1e-9)
        assert rec["calls K"] == 5
    # CSV: one header + 3 rows, numbers rounded to what is shown; LaTeX escapes; Markdown aligned
    rows = list(csv.reader(io.StringIO(t.to_csv())))
    assert len(rows) == 4 and rows[1][3] == f"{100 * reports['toy/random'].two_call.mu:.2f}"
    tex = t.to_latex()
    assert r"\begin{tabular}" in tex and r"(\%)" in tex and r"\hat\mu" in tex
    assert t.to_markdown().count("\n") == 5


def test_policy_interval_table(groups, reports):
    truth = {"toy/random": {3: 0.7, 5: 0.75}}
    t = policy_interval_table(reports, truth)
    assert len(t.rows) == 6
    rows = iter(t.rows)
    for g, rep in reports.items():
        for m, paper in ((3, "V_1"), (5, "V_2")):
            rec = dict(zip([c.name for c in t.columns], next(rows)))
            b = next(b for b in rep.budgets if b.votes == m)
            emp = float(_independent(groups[g.split("/")[1]], m).mean())
            assert rec["votes"] == f"{m} votes ({paper})"
            assert rec["lower 95%, first 2 calls (%)"] == pytest.approx(100 * b.projected.lower)
            assert rec["upper 95%, first 2 calls (%)"] == pytest.approx(100 * b.projected.upper)
            assert rec["empirical, all K calls (%)"] == pytest.approx(100 * emp)
            assert rec["empirical inside"] == (b.projected.lower <= emp <= b.projected.upper)
    assert t.column("true (%)") == [pytest.approx(70.0), pytest.approx(75.0), None, None, None, None]
    assert "true (%)" not in [c.name for c in policy_interval_table(reports).columns]


def test_se_and_completion_tables(reports):
    se = se_range_table(reports)
    mus = [100 * r.two_call.se_mu for r in reports.values()]
    assert se.rows[0][1:] == (pytest.approx(min(mus)), pytest.approx(float(np.median(mus))), pytest.approx(max(mus)))
    ce = completion_error_table(reports)
    errs = []
    for r in reports.values():
        b = next(b for b in r.budgets if b.votes == 3)
        errs.append(100 * (b.ldgp - b.empirical.value))
    row = next(r for r in ce.rows if r[0] == "3 votes (V_1)" and r[1] == "LDGP")
    e = np.array(errs)
    assert row[2:6] == (pytest.approx(e.mean()), pytest.approx(np.abs(e).mean()), pytest.approx(np.sqrt((e * e).mean())),
                        pytest.approx(np.abs(e).max()))
