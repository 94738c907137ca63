"""The report's verdict table: budgets as columns, one row per aggregate, the gains rounded outward."""

from types import SimpleNamespace

from certify._interval import Interval
from certify.report._tables import verdict_table
from certify.analysis import Verdict


def _verdict(aggregate, votes, lo, up):
    status = "better" if lo > 0 else "worse" if up < 0 else "undetermined"
    gain = Interval(lo, up, 0.05, "likelihood", "asymptotic, profile likelihood ratio", 5)
    return Verdict(votes, gain, status, "", aggregate)


def test_rows_follow_the_aggregates_and_cells_the_verdicts():
    report = SimpleNamespace(verdicts=(
        _verdict("majority", 3, -0.0064, 0.02721), _verdict("majority", 5, 0.0300, 0.0957),
        _verdict("pass@k", 3, 0.2585, 0.3742), _verdict("pass@k", 5, 0.28771, 0.4376),
        _verdict("plurality", 3, -0.051, -0.0021)))
    lines = verdict_table(report, (3, 5)).splitlines()
    assert lines[0] == "| gain over one call (pp) | 3 calls | 5 calls |"
    assert lines[1] == "|---|---|---|"
    # majority first, then plurality, then pass@k, whatever the order of the verdicts
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| majority of k bits", "| plurality of k answers",
                                                           "| pass@k (any of k correct)"]
    assert lines[2] == "| majority of k bits | [-0.64, +2.73] *undecided* | [+3.00, +9.57] **better** |"
    # a budget without a verdict is '-', a certified loss is 'worse'
    assert lines[3] == "| plurality of k answers | [-5.10, -0.21] **worse** | - |"
    assert lines[4] == "| pass@k (any of k correct) | [+25.85, +37.42] **better** | [+28.77, +43.76] **better** |"


def test_an_aggregate_without_verdicts_has_no_row():
    report = SimpleNamespace(verdicts=(_verdict("majority", 3, 0.01, 0.02),))
    table = verdict_table(report, (3,))
    assert "plurality" not in table and "pass@k" not in table and "**better**" in table
