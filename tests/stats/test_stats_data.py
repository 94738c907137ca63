"""Reading correctness bits: every format, the ragged rule, and every bad-input path."""

import json

import numpy as np
import pytest
from stats_helpers import eval_header, eval_sample, write_eval_json, write_eval_zip

from certify import InputError
from certify.readers import CallBits, DataError, bits_from_array, read_bits, read_groups

BITS = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1], [0, 1, 0]], dtype=float)


def _wide_csv(path, sep=","):
    lines = [sep.join(["example_id", "b0", "b1", "b2"])]
    lines += [sep.join([f"e{i}"] + [str(int(b)) for b in row]) for i, row in enumerate(BITS)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _check(bits: CallBits):
    assert bits.example_ids == ("e0", "e1", "e2", "e3")
    np.testing.assert_array_equal(bits.bits, BITS)
    assert bits.calls == 3 and bits.max_calls == 3
    np.testing.assert_array_equal(bits.successes, [2, 3, 1, 1])


def test_wide_csv_and_tsv(tmp_path):
    _check(read_bits(_wide_csv(tmp_path / "a.csv")))
    _check(read_bits(_wide_csv(tmp_path / "a.tsv", "\t")))


def test_long_jsonl_any_row_order(tmp_path):
    rows = [{"example_id": f"e{i}", "call": j, "correct": bool(BITS[i, j])} for i in range(4) for j in range(3)]
    rows.reverse()  # call order comes from the call index, not from the file order
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = read_bits(tmp_path / "a.jsonl")
    order = [got.example_ids.index(f"e{i}") for i in range(4)]
    np.testing.assert_array_equal(got.bits[order], BITS)


def test_parquet_wide_with_store_export_columns_and_groups(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = {
        "dataset": ["qnli"] * 4 + ["qqp"] * 4, "policy": ["p"] * 8,
        "example_id": [f"e{i}" for i in range(4)] * 2, "position": list(range(4)) * 2,
        "label": ["Yes"] * 8, "q": [None] * 8,
    }
    for j in range(3):
        table[f"b{j}"] = [int(b) for b in BITS[:, j]] * 2
    pq.write_table(pa.table(table), tmp_path / "a.parquet")
    groups = read_groups(tmp_path / "a.parquet")
    assert set(groups) == {"qnli/p", "qqp/p"}
    _check(groups["qnli/p"])
    _check(read_bits(tmp_path / "a.parquet", group="qqp/p"))
    with pytest.raises(DataError, match="2 groups"):
        read_bits(tmp_path / "a.parquet")
    with pytest.raises(DataError, match="group 'x' not found"):
        read_bits(tmp_path / "a.parquet", group="x")


def test_ragged_wide_and_long(tmp_path):
    (tmp_path / "r.csv").write_text("id,b0,b1,b2\na,1,0,1\nb,1,1,\nc,0,1,\n")
    got = read_bits(tmp_path / "r.csv")
    np.testing.assert_array_equal(got.counts, [3, 2, 2])
    assert got.calls == 2 and got.max_calls == 3
    assert np.isnan(got.bits[1, 2])
    np.testing.assert_array_equal(got.successes, [2, 2, 1])


def test_eval_zip_and_json(tmp_path):
    samples = [eval_sample(f"e{i}", j + 1, "C" if BITS[i, j] else "I") for i in range(4) for j in range(3)]
    write_eval_zip(tmp_path / "log.eval", samples)
    got = read_bits(tmp_path / "log.eval")
    _check(got)
    assert got.group == "qnli_task/mockllm/model"
    write_eval_json(tmp_path / "log.json", samples)
    _check(read_bits(tmp_path / "log.json"))


def test_eval_value_mapping(tmp_path):
    values = [1, 0.0, True, "N"]  # numeric, boolean and no-answer scores
    samples = [eval_sample("a", e + 1, v) for e, v in enumerate(values)]
    write_eval_json(tmp_path / "log.json", samples, eval_header(epochs=len(values)))  # epochs beyond the log's are refused
    # "N" (no answer) used to become 0 silently; now it needs an explicit mapping
    with pytest.raises(DataError, match=r"epoch 4\), column 'scores.match.value': value 'N' is not binary \(N = no answer\)"):
        read_bits(tmp_path / "log.json")
    np.testing.assert_array_equal(read_bits(tmp_path / "log.json", score_map={"N": 0}).bits, [[1, 0, 1, 0]])


def test_eval_scorer_choice(tmp_path):
    samples = [eval_sample("a", 1, "C"), eval_sample("a", 2, "I")]
    for s in samples:
        s["scores"]["other"] = {"value": "I"}
    write_eval_json(tmp_path / "log.json", samples)
    with pytest.raises(DataError, match=r"choose one with --scorer \(scorer=\)"):
        read_bits(tmp_path / "log.json")
    np.testing.assert_array_equal(read_bits(tmp_path / "log.json", scorer="match").bits, [[1, 0]])
    np.testing.assert_array_equal(read_bits(tmp_path / "log.json", scorer="other").bits, [[0, 0]])
    with pytest.raises(DataError, match="scorer 'nope' not in the log"):
        read_bits(tmp_path / "log.json", scorer="nope")


def test_run_store(tmp_path):
    from certify.experiment import CallRecord, RunStore

    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        store.bind_draw("qnli", "qnli", "draw.jsonl", "0" * 64, [(f"e{i}", "Yes") for i in range(4)])
        calls = [
            CallRecord("qnli", "p1", f"e{i}", j, 1, "{}", "Yes", "json", True, bool(BITS[i, j]), 0.1, None, None, "stop", "local", 1, 0.0)
            for i in range(4) for j in range(3)
        ]
        store.save(calls)
    got = read_groups(tmp_path / "s.sqlite", open_store=RunStore)
    assert list(got) == ["qnli/p1"]
    _check(got["qnli/p1"])


def test_reading_leaves_a_file_that_is_no_store_unchanged(tmp_path):
    """The CLI opens stores read-only: a foreign database and an empty file come back byte for byte,
    and a store corrupted inside a page is a one-line error, not a traceback."""
    import sqlite3
    import subprocess
    import sys

    from certify.experiment import CallRecord, RunStore

    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t(x)")
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    store = tmp_path / "s.sqlite"
    with RunStore(store, create=True) as st:
        st.bind_draw("qnli", "qnli", "draw.jsonl", "0" * 64, [(f"e{i}", "Yes") for i in range(400)])
        st.save([CallRecord("qnli", "p1", f"e{i}", j, 1, "{}", "Yes", "json", True, bool((i * 7 + j) % 5), 0.1, None, None,
                            "stop", "local", 1, 0.0) for i in range(400) for j in range(3)])
    corrupt = tmp_path / "corrupt.sqlite"
    data = bytearray(store.read_bytes())
    data[-4096:-4088] = b"\xff" * 8  # the last page's header: the file opens, reading its rows fails
    corrupt.write_bytes(bytes(data))
    for path, message in ((foreign, "not a usable SQLite run store"), (empty, "not a usable SQLite run store"),
                          (corrupt, "not a usable SQLite run store")):
        before = path.read_bytes()
        run = subprocess.run([sys.executable, "-c", "import sys; from certify.cli.main import main; sys.exit(main())",
                              "analyze", str(path), "--votes", "3"], capture_output=True, text=True)
        assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
        assert path.read_bytes() == before
        if path != corrupt:  # (a store is a WAL database: SQLite may keep its -shm beside it)
            assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(path.name)) == [path.name]


def test_a_score_beyond_any_double_is_not_binary(tmp_path):
    write_eval_json(tmp_path / "h.json", [eval_sample("a", 1, "C"), eval_sample("a", 2, 10**400)])
    with pytest.raises(DataError, match=r"sample 2 \(id 'a', epoch 2\), column 'scores.match.value': value 1000.* is not binary"):
        read_bits(tmp_path / "h.json")


# ---- bad inputs: each names the row and the column ------------------------------------------


@pytest.mark.parametrize(
    "text, match",
    [
        ("id,b0,b1\na,1,0\nb,1,2\n", r"row 2, column 'b1': value '2' is not binary"),
        ("id,b0,b1\na,1,0\nb,yes,1\n", r"row 2, column 'b0': value 'yes' is not binary"),
        ("id,b0,b1,b2\na,1,,1\n", r"row 1, column 'b1': missing value before"),
        ("id,b0,b1\na,1,0\nb,1,\n", r"row 2, example 'b': 1 call\(s\) recorded; at least 2"),
        ("id,b0,b1\na,1,0\na,1,1\n", r"row 2 duplicates row 1: key 'a'"),
        ("id,b0\na,1\n", r"found 1 call column"),
        ("id,b0,b1\n", r"no data rows"),
        ("", r"the file is empty"),
        ("example_id,call,correct\na,0,1\na,0,0\n", r"row 2 duplicates row 1: \(example, call\) = \('a', 0\)"),
        ("example_id,call,correct\na,0,1\na,1,\n", r"row 2, column 'correct': missing value"),
        ("example_id,call,correct\na,x,1\n", r"row 1, column 'call': call index 'x' is not an integer"),
        ("example_id,call,correct\n,0,1\n", r"row 1, column 'example_id': missing example id"),
        ("example_id,call,correct\na,0,1\nb,0,1\nb,1,0\n", r"row 1, example 'a': 1 call"),
    ],
)
def test_bad_tables(tmp_path, text, match):
    (tmp_path / "d.csv").write_text(text)
    with pytest.raises(DataError, match=match) as info:
        read_bits(tmp_path / "d.csv")
    assert isinstance(info.value, InputError) and "\n" not in str(info.value)


def test_bad_files(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_bits(tmp_path / "missing.csv")
    (tmp_path / "x.xlsx").write_text("id,b0,b1\n")
    with pytest.raises(DataError, match="unknown file type"):
        read_bits(tmp_path / "x.xlsx")
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "b0": 1, "b1": 0}\n{oops\n')
    with pytest.raises(DataError, match="line 2: not valid JSON"):
        read_bits(tmp_path / "bad.jsonl")
    (tmp_path / "arr.jsonl").write_text("[1, 0]\n")
    with pytest.raises(DataError, match="line 1: expected a JSON object"):
        read_bits(tmp_path / "arr.jsonl")
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(DataError, match="not a readable Parquet"):
        read_bits(tmp_path / "bad.parquet")
    (tmp_path / "bad.eval").write_text("not a zip")
    with pytest.raises(DataError, match="not a zip archive"):
        read_bits(tmp_path / "bad.eval")
    (tmp_path / "e.json").write_text('{"eval": {}}')
    with pytest.raises(DataError, match="no 'samples' list"):
        read_bits(tmp_path / "e.json")
    write_eval_json(tmp_path / "empty_log.json", [])
    with pytest.raises(DataError, match="no samples"):
        read_bits(tmp_path / "empty_log.json")


def test_bad_eval_scores(tmp_path):
    write_eval_json(tmp_path / "p.json", [eval_sample("a", 1, "C"), eval_sample("a", 2, "P")])
    with pytest.raises(DataError, match=r"sample 2 \(id 'a', epoch 2\), column 'scores.match.value': value 'P' is not binary"):
        read_bits(tmp_path / "p.json")
    write_eval_json(tmp_path / "d.json", [eval_sample("a", 1, "C"), eval_sample("a", 1, "I")])
    with pytest.raises(DataError, match=r"sample 2 duplicates sample 1: \(example, call\) = \('a', 1\)"):
        read_bits(tmp_path / "d.json")
    write_eval_zip(tmp_path / "one.eval", [eval_sample("a", 1, "C"), eval_sample("b", 1, "C")], eval_header(epochs=1))
    with pytest.raises(DataError, match="1 call"):
        read_bits(tmp_path / "one.eval")


def test_bits_from_array_errors():
    with pytest.raises(DataError, match="non-empty 2-d array"):
        bits_from_array(np.zeros(3))
    with pytest.raises(DataError, match=r"row 1, column 'call 1': value 0.5 is not binary"):
        bits_from_array([[1, 0.5]])
    with pytest.raises(DataError, match="2 example ids for 1 rows"):
        bits_from_array([[1, 0]], example_ids=["a", "b"])
    with pytest.raises(DataError, match="row 2 duplicates row 1"):
        bits_from_array([[1, 0], [0, 1]], example_ids=["a", "a"])
    with pytest.raises(InputError, match="3 calls requested"):
        bits_from_array([[1, 0], [0, 1]]).first(3)
