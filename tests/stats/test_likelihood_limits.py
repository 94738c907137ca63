"""Work limits of the likelihood: calls per example, and the exact binomial coefficients of many cells.

Every likelihood computation (NPMLE, intervals, the small-count calibration) has kernel tables,
screening grids and draws that grow with the calls per example K; beyond MAX_CALLS the input is
refused with one line naming K and the limit, before any table is built (with 5 examples, one
interval took 87 s at K = 10,000, and at K = 200,000 the small-count draws alone would need 3 GB).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify import CertifyError
from certify.cli.main import main
from certify import V_INF
from certify.likelihood import WarmStarts, cell_counts, likelihood_bound, likelihood_envelope, likelihood_interval, likelihood_intervals, npmle
import certify.likelihood._calibration as calibration
import certify.likelihood._warm as warm_module
from certify.likelihood._problem import MAX_CALLS, STEP_MAX_CALLS, _binomial_coefficients


def _cells(k: int, n: int = 5):
    rng = np.random.default_rng(k)
    return cell_counts(np.full(n, k), rng.binomial(k, rng.beta(2.0, 1.0, n)))


@pytest.mark.parametrize("solve", [npmle, lambda cells: likelihood_interval(cells, 3)])
def test_more_calls_per_example_than_the_limit_are_refused(solve):
    with pytest.raises(CertifyError) as info:
        solve(_cells(MAX_CALLS + 1))
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(f"K={MAX_CALLS + 1} calls of one example exceeds the likelihood's work limit of {MAX_CALLS}")
    assert f"--calls {MAX_CALLS}" in str(info.value)


def test_the_limit_itself_is_solved():
    iv = likelihood_interval(_cells(MAX_CALLS), 3)
    assert 0.0 <= iv.lower.value <= iv.upper.value <= 1.0


def test_the_cli_refuses_with_one_line_and_suggests_the_calls_option(tmp_path, capsys):
    k = MAX_CALLS + 1
    rng = np.random.default_rng(3)
    bits = (rng.random((4, k)) < 0.7).astype(int)
    path = tmp_path / "wide.csv"
    path.write_text("example_id," + ",".join(f"c{j}" for j in range(k)) + "\n"
                    + "".join(f"e{i}," + ",".join(map(str, row)) + "\n" for i, row in enumerate(bits)))
    code = main(["analyze", str(path), "--votes", "3"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"exceeds the likelihood's work limit of {MAX_CALLS}" in err
    code = main(["analyze", str(path), "--votes", "3", "--calls", "50"])  # the suggested way out
    assert code == 0


@pytest.mark.parametrize("solve", [
    lambda cells: likelihood_intervals(cells, [3, "inf"]),
    lambda cells: likelihood_bound(cells, V_INF, "upper"),
    lambda cells: likelihood_envelope(cells, 3, "inf"),
    lambda cells: likelihood_intervals(cells, ["inf"], warm=WarmStarts()),  # its NPMLE too
])
def test_v_inf_beyond_its_limit_is_refused_before_any_solve(solve, monkeypatch):
    def no_npmle(*args):
        raise AssertionError("the NPMLE ran before the limit was checked")

    monkeypatch.setattr(calibration, "_npmle", no_npmle)
    monkeypatch.setattr(warm_module, "_npmle", no_npmle)
    with pytest.raises(CertifyError, match=rf"^K={STEP_MAX_CALLS + 1} calls of one example exceeds the work limit of "
                                           rf"{STEP_MAX_CALLS} calls per example of the V_inf interval"):
        solve(_cells(STEP_MAX_CALLS + 1))


def test_v_inf_at_its_limit_and_polynomials_beyond_it_are_solved():
    cells = _cells(STEP_MAX_CALLS, n=100)
    inf, v3 = likelihood_intervals(cells, ["inf", 3])
    assert 0.0 <= inf.lower.value <= inf.upper.value <= 1.0
    (v3_more,) = likelihood_intervals(_cells(STEP_MAX_CALLS + 1, n=100), [3])
    assert 0.0 <= v3_more.lower.value <= v3_more.upper.value <= 1.0


@pytest.mark.parametrize("k", [2, 17, 999, 1000, 2000])
def test_binomial_coefficients_are_the_exact_integers(k):
    # every s = 0..k (the recurrence), a few of them (math.comb), and invalid cells
    s_all = np.arange(k + 1)
    ks = np.concatenate([np.full(k + 1, k), [k + 3, k + 3, 7], [k, k]])
    ss = np.concatenate([s_all, [1, k // 2, 3], [-1, k + 1]])
    valid = (ss >= 0) & (ss <= ks)
    got = _binomial_coefficients(ks, ss, valid)
    want = [math.comb(int(a), int(b)) if ok else 0 for a, b, ok in zip(ks, ss, valid)]
    assert got == want
