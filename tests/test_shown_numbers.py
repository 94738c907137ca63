"""Numbers as the user reads them: signed percentage points, intervals rounded outward."""

from certify._numbers import percent, percentage_points, pp_interval
from certify.cli.main import main


def test_percentage_points_never_show_negative_zero_and_intervals_round_outward():
    """An interval printed in pp contains the computed one; a point estimate of -1e-6 is +0.00, not -0.00."""
    assert percentage_points(-1e-6) == "+0.00"
    assert percentage_points(0.0123) == "+1.23"
    assert percentage_points(-0.0123) == "-1.23"
    assert pp_interval(-1e-7, 0.024601) == "[-0.01, +2.47]"
    assert pp_interval(0.0, 0.0) == "[+0.00, +0.00]"
    for lo, hi in [(0.012345, 0.0456789), (-0.031, -0.0049999), (1e-9, 2e-9)]:
        a, b = (float(x) / 100 for x in pp_interval(lo, hi)[1:-1].split(", "))
        assert a <= lo and hi <= b


def test_percent_never_shows_negative_zero():
    """The pair table's shares: a share computed as -1e-17 reads 0.0 %, not -0.0 %."""
    assert percent(-1e-17) == "0.0"
    assert percent(0.2833333) == "28.3"
    assert percent(1.0) == "100.0"


def test_ragged_data_label_the_range_of_calls(tmp_path, capsys):
    """One example with 20 calls and 59 with 2: the intervals are 'from 2-20 calls', not 'from 20 calls'."""
    rows = ["example_id,call,correct"] + [f"e0,{j},{j % 2}" for j in range(20)]
    rows += [f"e{i},{j},{(i + j) % 3 == 0:d}" for i in range(1, 60) for j in range(2)]
    path = tmp_path / "ragged.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["analyze", str(path), "--votes", "3", "--details"]) == 0
    out = capsys.readouterr().out
    assert "95% from 2-20 calls" in out and "Verdict (95%, from 2-20 calls" in out
    assert "from 20 calls" not in out
    assert main(["analyze", str(path), "--votes", "3"]) == 0
    out = capsys.readouterr().out
    assert "x 2-20 calls" in out and "from 2-20 calls" in out and "from 20 calls" not in out
