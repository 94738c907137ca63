"""Numbers as the user reads them: signed percentage points, intervals rounded outward."""

from certify._numbers import percentage_points, pp_interval


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
