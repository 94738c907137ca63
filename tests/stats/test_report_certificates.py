"""An analysis's intervals proven by exact certificates: the rows say certified only where proven (issue 42)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from certify import InputError
from certify.certificates import INDEX_FILE, load, verify
from certify.readers import CallBits, bits_from_array
from certify.analysis import analyze, write_report_certificates


def _bits(seed: int = 3, n: int = 120, calls: int = 4) -> CallBits:
    rng = np.random.default_rng(seed)
    q = rng.beta(2.0, 1.2, n)
    return bits_from_array((rng.random((n, calls)) < q[:, None]).astype(float), source="sim.csv")


def test_proven_rows_are_certified_and_hold_the_solved_interval(tmp_path):
    report = analyze(_bits(), votes=(3, 9, "inf"), aggregates=["pass"], objectives=["1 - (1-q)**8"])
    assert not any(r.interval is not None and r.interval.certified for r in report.rows())
    (proven,), names = write_report_certificates([report], tmp_path / "certs", digest="0" * 64)
    assert len(names) == 2 * len(report.likelihood.intervals)  # two ends of every solved interval
    assert (tmp_path / "certs" / INDEX_FILE).is_file()
    rows = {r.target.key: r for r in proven.rows()}
    before = {r.target.key: r for r in report.rows()}
    for key, row in rows.items():
        if key[0] in ("majority", "objective"):
            if row.interval is not None:
                new, old = row.interval, before[key].interval
                assert new.certified and "certify verify" in new.note
                # the proven bounds, rounded outward, hold the interval the solver found (to its margins)
                assert new.lower <= old.lower + 1e-12 and new.upper >= old.upper - 1e-12
                assert old.lower - new.lower < 1e-6 and new.upper - old.upper < 1e-6
            if row.verdict is not None:
                assert row.verdict.gain.certified
        else:  # pass@k is not certified by this folder
            assert not row.interval.certified and (row.verdict is None or not row.verdict.gain.certified)
    # each proven end is the certificate's bound, and the certificate verifies
    lower_file = next(n for n in names if n.startswith("V3_lower"))
    certificate = load(tmp_path / "certs" / lower_file)
    assert verify(certificate).ok
    v3 = rows[("majority", 3)].interval
    assert Fraction(v3.lower) <= certificate.bound < Fraction(np.nextafter(v3.lower, 1.0))
    # the JSON says so, and reads back
    again = type(proven).from_dict(json.loads(json.dumps(proven.to_dict())))
    assert [r.interval.certified for r in again.rows() if r.interval is not None] == [
        r.interval.certified for r in proven.rows() if r.interval is not None
    ]


def test_a_two_call_analysis_has_nothing_to_certify(tmp_path):
    report = analyze(_bits(), votes=(3,), method="two-call")
    with pytest.raises(InputError, match="method='likelihood'"):
        write_report_certificates([report], tmp_path / "certs", digest="0" * 64)
    assert not (tmp_path / "certs").exists()
