"""The goodness-of-fit guard and the bootstrap intervals of certify.forecast.

Small simulations with loose bounds: a law inside a family is rejected about as often as the
level says (not more than a few times in ten), a law far from every family is rejected by all
of them, and the percentile intervals of a law inside the family contain its values.
"""

import numpy as np
import pytest
from scipy import stats

from certify.forecast import FAMILIES, check_family, fit_family, forecast
from certify.likelihood import cell_counts, npmle


def _cells(law, n, k, seed):
    rng = np.random.default_rng(seed)
    return cell_counts(np.full(n, k), rng.binomial(k, law(rng, n)))


def _four_points(rng, n):
    return rng.choice([0.05, 0.35, 0.65, 0.95], n)


def test_a_law_inside_the_family_is_rarely_rejected():
    rejected = []
    for r in range(10):
        cells = _cells(lambda rng, n: rng.beta(0.8, 1.5, n), 300, 6, 100 + r)
        guard = check_family(cells, fit_family(cells, "beta"), bootstrap=39, seed=r).guard
        assert 0 < guard.p_value <= 1 and guard.used == 39
        rejected.append(guard.rejected)
    assert sum(rejected) <= 3  # expected 0.5 at level 0.05; 3 of 10 has probability 1e-3


def test_a_law_far_from_every_family_is_rejected_by_all_and_gives_no_forecast():
    """Four atoms: no family has four modes (MaxEnt of degree <= 6 has at most three)."""
    cells = _cells(_four_points, 1000, 20, 7)
    result = forecast(cells, [9, "pass@20"], bootstrap=39)
    assert result.family is None and result.fit is None and result.guard is None
    assert len(result.rejected) == len(FAMILIES)
    assert all(g.rejected and g.p_value == pytest.approx(1 / 40) for g in result.rejected)
    assert [g.family for g in result.rejected] == [c.label for c in result.candidates]
    assert all(np.isnan(t.estimate) and np.isnan(t.lower) for t in result.targets)


@pytest.mark.parametrize("family", ["beta", "beta01", "ldgp"])
def test_a_two_point_law_rejects_the_unimodal_families(family):
    """Atoms at 0.15 and 0.85: no Beta (with or without end masses) or probit law is bimodal inside (0, 1)."""
    cells = _cells(lambda rng, n: rng.choice([0.15, 0.85], n), 500, 10, 8)
    fit = fit_family(cells, family)
    guard = check_family(cells, fit, bootstrap=20).guard
    assert guard.statistic == pytest.approx(2 * (npmle(cells).loglik - fit.loglik), rel=1e-9)
    assert guard.statistic > 100 and guard.rejected and guard.p_value == pytest.approx(1 / 21)
    assert guard.family_loglik == fit.loglik


def test_intervals_of_a_law_inside_the_family_contain_its_values():
    a, b = 0.6, 1.4
    cells = _cells(lambda rng, n: rng.beta(a, b, n), 2000, 10, 9)
    check = check_family(cells, fit_family(cells, "beta"), [9, 101, "pass@100", "inf", "pass@100 - V1"], bootstrap=99)
    quad = {
        "V9": stats.beta(a, b).expect(lambda q: stats.binom.sf(4, 9, q)),
        "V101": stats.beta(a, b).expect(lambda q: stats.binom.sf(50, 101, q)),
        "pass@100": 1 - stats.beta(a, b).expect(lambda q: (1 - q) ** 100),
        "V_inf": stats.beta(a, b).sf(0.5),
        "pass@100 - V1": 1 - stats.beta(a, b).expect(lambda q: (1 - q) ** 100) - a / (a + b),
    }
    for t in check.targets:
        assert t.lower <= t.estimate <= t.upper, t
        assert t.lower <= quad[t.target] <= t.upper, (t, quad[t.target])
        assert t.level == pytest.approx(0.95) and "not certified" in t.method
        assert t.width < 0.1


def test_the_same_seed_gives_the_same_draws_alone_and_inside_forecast():
    cells = _cells(lambda rng, n: rng.beta(1.0, 2.0, n), 300, 5, 10)
    result = forecast(cells, [9], bootstrap=29, seed=4, families=["beta", "ldgp"], pool=0)
    assert result.family in ("beta", "ldgp") and not result.rejected
    alone = check_family(cells, result.fit, [9], bootstrap=29, seed=4)
    assert alone.guard == result.guard
    assert alone.targets == result.targets
    again = forecast(cells, [9], bootstrap=29, seed=4, families=["beta", "ldgp"], pool=0)
    assert again == result
    other = check_family(cells, result.fit, [9], bootstrap=29, seed=5)
    assert other.targets != result.targets


def test_pooling_joins_the_intervals_of_the_families_within_the_margin():
    cells = _cells(lambda rng, n: rng.beta(0.8, 1.5, n), 400, 10, 12)
    targets = [21, "pass@100"]
    alone = forecast(cells, targets, bootstrap=29, seed=3, pool=0)
    pooled = forecast(cells, targets, bootstrap=29, seed=3)  # the default pools within 20 BIC units
    assert pooled.family == alone.family and pooled.guard == alone.guard and not alone.pooled
    assert pooled.pool == 20.0 and pooled.pooled
    best = pooled.fit.bic
    members = [pooled.fit] + [c for c in pooled.candidates if c.label in {g.family for g in pooled.pooled}]
    assert all(c.bic - best <= 20.0 and not g.rejected for c, g in zip(members[1:], pooled.pooled))
    for j, (a, p) in enumerate(zip(alone.targets, pooled.targets)):
        assert p.estimate == a.estimate
        own = [check_family(cells, m, targets, bootstrap=29, seed=3).targets[j] for m in members]
        assert p.lower == min(t.lower for t in own) and p.upper == max(t.upper for t in own)
        assert "union" in p.method and "not certified" in p.method


def test_from_fewer_than_five_calls_pass_at_k_is_withdrawn_and_says_why():
    """Below PASS_MIN_CALLS calls pass@k and pass@inf (and their gains) carry NaN and the reason;
    majority targets are still forecast; from 5 calls the same targets are all forecast."""
    from certify.forecast._tolerances import PASS_MIN_CALLS

    assert PASS_MIN_CALLS == 5
    targets = [9, "pass@10", "pass@inf", "pass@10 - V1", "inf"]
    few = forecast(_cells(lambda rng, n: rng.beta(1.0, 2.0, n), 300, 3, 21), targets, bootstrap=20)
    by = {t.target: t for t in few.targets}
    for name in ("pass@10", "pass@inf", "pass@10 - V1"):
        assert np.isnan(by[name].estimate) and np.isnan(by[name].lower) and np.isnan(by[name].upper)
        assert by[name].method.startswith("no forecast: pass@k from 3 calls per example")
    for name in ("V9", "V_inf"):
        assert 0 <= by[name].lower <= by[name].estimate <= by[name].upper <= 1
    enough = forecast(_cells(lambda rng, n: rng.beta(1.0, 2.0, n), 300, 5, 21), targets, bootstrap=20)
    assert all(np.isfinite(t.estimate) and t.lower <= t.upper for t in enough.targets)


def test_a_rejected_family_stops_at_the_guards_draws_with_the_guard_of_the_full_run(monkeypatch):
    """Inside forecast() a family the guard rejects keeps only its guard, so its draws stop after the
    guard's G = 99 of B = 120: the same guard as check_family's full run of the same draws, and
    G refits instead of B. (Two atoms: no unimodal family holds them; a family the guard accepts
    draws all B, as the pooling test's intervals show.)"""
    import certify.forecast._bootstrap as bootstrap

    cells = _cells(lambda rng, n: rng.choice([0.15, 0.85], n), 300, 10, 8)
    refits: dict[str, int] = {}
    fit_one = bootstrap.maximize

    def counting(family, data, starts):
        refits[family.name] = refits.get(family.name, 0) + 1
        return fit_one(family, data, starts)

    monkeypatch.setattr(bootstrap, "maximize", counting)
    result = forecast(cells, [21], bootstrap=120, seed=3, families=["beta", "beta01", "ldgp"])
    assert sorted(g.family for g in result.rejected) == ["beta", "beta01", "ldgp"] and result.family is None
    assert refits == {"beta": 99, "beta01": 99, "ldgp": 99}
    monkeypatch.undo()
    for guard in result.rejected:
        fit = next(c for c in result.candidates if c.label == guard.family)
        assert check_family(cells, fit, [21], bootstrap=120, seed=3).guard == guard
