"""The one interval type and the serialization every result record derives from its fields (issue 42)."""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import certify
from certify import InputError
from certify._interval import ROUTES, Interval
from certify._records import flat_columns, flat_record, record_dict, record_from_dict

ends = st.one_of(st.none(), st.floats(-2, 2, allow_nan=False))


@given(
    lower=ends,
    upper=ends,
    alpha=st.floats(1e-6, 0.5),
    calls=st.one_of(st.none(), st.integers(1, 2000)),
    estimate=ends,
    route=st.sampled_from(ROUTES),
    note=st.text(max_size=20),
)
def test_every_interval_survives_strict_json(lower, upper, alpha, calls, estimate, route, note):
    iv = Interval(lower, upper, alpha, "likelihood", "asymptotic", calls, estimate, route, False, note)
    text = json.dumps(iv.to_dict(), allow_nan=False)
    assert Interval.from_dict(json.loads(text)) == iv
    assert list(iv.to_dict()) == [f.name for f in dataclasses.fields(Interval)]  # field order, one name each


def test_the_interval_says_what_it_is():
    iv = Interval(0.2, 0.5, 0.05, "likelihood", "asymptotic", 5, route="beyond the calls")
    assert iv.level == pytest.approx(0.95) and iv.width == pytest.approx(0.3) and iv.ends == (0.2, 0.5)
    assert iv.contains(0.2) and iv.contains(0.5) and not iv.contains(0.51)
    missing = Interval(None, None, 0.05, "likelihood", "asymptotic", 5, note="the solver failed")
    assert math.isnan(missing.width) and not missing.contains(0.3)
    with pytest.raises(InputError, match="the solver failed"):
        _ = missing.ends
    with pytest.raises(InputError, match="route='guessed' must be one of identified"):
        Interval(0.1, 0.2, 0.05, "m", "c", 3, route="guessed")
    with pytest.raises(InputError, match="never certified"):
        Interval(0.1, 0.2, 0.05, "m", "c", 3, route="model-based", certified=True)
    assert certify.Interval is Interval


@dataclasses.dataclass(frozen=True)
class _Inner:
    value: Fraction
    weights: tuple[float, ...] = ()


@dataclasses.dataclass(frozen=True)
class _Outer:
    name: str
    inner: _Inner | None
    interval: Interval | None = None
    count: int = 0


def test_records_write_exact_numbers_as_fractions_and_nonfinite_as_null():
    outer = _Outer("x", _Inner(Fraction(1, 3), (1.0, math.inf)), None, 2)
    d = record_dict(outer)
    assert d == {"name": "x", "inner": {"value": "1/3", "weights": [1.0, None]}, "interval": None, "count": 2}
    back = record_from_dict(_Outer, json.loads(json.dumps(d)))
    assert back.inner is not None and back.inner.value == Fraction(1, 3) and back.count == 2
    # a field missing from an older file takes its default
    assert record_from_dict(_Outer, {"name": "y", "inner": None}) == _Outer("y", None)


def test_flat_columns_are_the_flattened_json_keys_whatever_is_present():
    iv = Interval(0.1, 0.2, 0.05, "m", "c", 3)
    full = _Outer("x", _Inner(Fraction(1, 2)), iv, 1)
    columns = flat_columns(_Outer)
    leaves = [f"interval.{f.name}" for f in dataclasses.fields(Interval)]
    assert columns == ["name", "inner.value", "inner.weights", *leaves, "count"]

    def flatten(d, prefix=""):
        out = {}
        for k, v in d.items():
            out.update(flatten(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
        return out

    assert list(flat_record(full)) == columns and flat_record(full) == flatten(record_dict(full))
    empty = flat_record(_Outer("y", None))
    assert list(empty) == columns and empty["interval.lower"] is None and empty["inner.value"] is None


def test_a_null_float_reads_back_as_nan_and_an_optional_one_as_none():
    from certify.stats import EmpiricalVote, ProjectedInterval

    vote = EmpiricalVote(3, 0.5, math.nan, 1)  # one example: no standard error
    d = json.loads(json.dumps(vote.to_dict(), allow_nan=False))
    assert d == {"votes": 3, "value": 0.5, "se": None, "n": 1}
    back = EmpiricalVote.from_dict(d)
    assert math.isnan(back.se) and (back.votes, back.value, back.n) == (3, 0.5, 1)
    hull = ProjectedInterval("V3", 0.1, 0.2, (0.5, 0.3), (0.6, 0.4), math.nan, 1e-9, 0.05)
    again = ProjectedInterval.from_dict(json.loads(json.dumps(hull.to_dict(), allow_nan=False)))
    assert again.lower_at == (0.5, 0.3) and math.isnan(again.lower_gap) and again.upper_gap == 1e-9
    assert Interval.from_dict(Interval(None, None, 0.05, "m", "c", None).to_dict()).lower is None
