"""Bounded work for many groups and long vote lists: `certify analyze` refuses more than MAX_GROUPS groups
before any solve, and a vote list is merged (each budget once, in order) and holds at most MAX_BUDGETS."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stats_helpers import simulate_bits

from certify import V_INF, InputError
from certify._objective import MAX_BUDGETS, parse_vote_budgets
from certify.cli.analyze import MAX_GROUPS
from certify.readers import ColumnMap, bits_from_array, read_groups
from certify.analysis import analyze

#: The console script, as a user runs it.
CERTIFY = Path(sys.executable).with_name("certify")
#: Seconds a launch may take before the test gives up on it: a refusal takes about two (imports
#: included); what the limits stop ran for minutes (1,001 groups) or tens of minutes (20,000 budgets).
DEADLINE = 120

needs_cli = pytest.mark.skipif(not CERTIFY.exists(), reason="the certify console script is not installed")


def _write_groups(path: Path, groups: int, examples: int = 3, calls: int = 3) -> Path:
    rng = np.random.default_rng(5)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["example_id", "policy", *(f"c{j + 1}" for j in range(calls))])
        for g in range(groups):
            for i in range(examples):
                w.writerow([f"e{i}", f"g{g}", *rng.integers(0, 2, calls)])
    return path


def _certify(*args) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([str(CERTIFY), *map(str, args)], capture_output=True, text=True, timeout=DEADLINE)
    except subprocess.TimeoutExpired:  # its message would repeat the whole command line
        pytest.fail(f"certify {args[0]} ran for more than {DEADLINE} s")


@needs_cli
def test_more_groups_than_the_limit_are_refused_before_any_solve(tmp_path):
    data = _write_groups(tmp_path / "many.csv", MAX_GROUPS + 1)
    r = _certify("analyze", data, "--votes", "3")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"certify analyze: error: {data}: {MAX_GROUPS + 1} groups, more than the limit of {MAX_GROUPS} "
                        f"per analysis; analyse one at a time with --group NAME (groups: 'g0', 'g1', 'g2', 'g3', 'g4', "
                        f"'g5', ... ({MAX_GROUPS + 1} in all)), or name the columns that split the file with "
                        f"--group-cols\n")
    # narrowed to one group, the same file is analysed
    r = _certify("analyze", data, "--votes", "3", "--group", "g7", "--json")
    assert r.returncode == 0, r.stderr
    assert [rep["group"] for rep in json.loads(r.stdout)["reports"]] == ["g7"]


@needs_cli
def test_a_missing_group_lists_a_few_of_many(tmp_path):
    data = _write_groups(tmp_path / "some.csv", 40)
    r = _certify("analyze", data, "--group", "nope")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "(has 'g0', 'g1', 'g2', 'g3', 'g4', 'g5', ... (40 in all))" in r.stderr, r.stderr


@needs_cli
def test_a_repeated_budget_is_one_budget(tmp_path):
    data = _write_groups(tmp_path / "one.csv", 1, examples=40, calls=4)
    r = _certify("analyze", data, "--json", "--votes", *["3"] * 20000, "inf", "3", "Infinity", "5", "5")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)["reports"][0]
    assert [row["target"]["votes"] for row in report["rows"]] == [3, "inf", 5]
    assert [d["votes"] for d in report["details"]] == [3, "inf", 5]


@needs_cli
def test_more_budgets_than_the_limit_are_refused(tmp_path):
    data = _write_groups(tmp_path / "one.csv", 1, examples=40, calls=4)
    r = _certify("analyze", data, "--votes", *range(1, MAX_BUDGETS + 2))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"certify analyze: error: votes: more than {MAX_BUDGETS} distinct vote budgets, the limit of "
                        f"one list (each costs its own intervals); give fewer\n")


def test_vote_lists_merge_repeats_in_order_and_stop_at_the_limit():
    assert parse_vote_budgets(["5", 3, "inf", 5, V_INF, "3", "Infinity", np.int64(7)]) == (5, 3, V_INF, 7)
    assert len(parse_vote_budgets(range(1, MAX_BUDGETS + 1))) == MAX_BUDGETS
    with pytest.raises(InputError, match=f"more than {MAX_BUDGETS} distinct vote budgets") as info:
        parse_vote_budgets(range(1, 10**6))  # refused at the 101st, not after reading them all
    assert isinstance(info.value, ValueError)
    rng = np.random.default_rng(3)
    report = analyze(bits_from_array(simulate_bits(rng.beta(3, 1, 80), 3, rng)), votes=[3, 3, "inf", 3])
    assert [b.votes for b in report.budgets] == [3, V_INF]


def test_groups_come_in_order_of_first_row_with_their_examples(tmp_path):
    # rows of three groups interleaved: each group and each of its examples in order of first appearance
    rows = [("b", "x", 1, 0), ("a", "y", 1, 1), ("b", "w", 0, 0), ("c", "x", 1, 0), ("a", "x", 0, 1),
            ("b", "z", 1, 1), ("c", "v", 0, 0), ("a", "u", 1, 0)]
    path = tmp_path / "mixed.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "example_id", "c1", "c2"])
        w.writerows(rows)
    groups = read_groups(path, columns=ColumnMap(group_cols=["policy"]))
    assert list(groups) == ["b", "a", "c"]
    for name, bits in groups.items():
        mine = [r for r in rows if r[0] == name]
        assert bits.example_ids == tuple(r[1] for r in mine)
        assert bits.bits.tolist() == [[float(r[2]), float(r[3])] for r in mine]


def test_read_bits_names_a_few_of_many_groups(tmp_path):
    """read_bits (the planner's reader) listed every group in its 'choose one' message: 5,000 names on one line."""
    from certify.readers import DataError, read_bits

    path = _write_groups(tmp_path / "many.csv", 5000, examples=2)
    for kw in ({}, {"group": "nope"}):
        with pytest.raises(DataError) as err:
            read_bits(path, **kw)
        text = str(err.value)
        assert "'g0', 'g1', 'g2', ..., 'g4999' (5000 groups)" in text and "choose one with --group" in text
        assert len(text) < 300
