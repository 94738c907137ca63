"""The run store: WAL mode, insert-only rows, refusal to mix experiments, policies or draws."""

from __future__ import annotations

import sqlite3

import pytest

from certify.experiment import CallRecord, LatentRecord, RunStore, StoreError


def _call(repeat=0, raw='{"answer": "Yes"}', answer="Yes", correct=True) -> CallRecord:
    return CallRecord("d", "p", "e1", repeat, 99, raw, answer, "json", answer is not None, correct,
                      0.5, 10, 3, "stop", "http://h", 1, 1.0)


def test_wal_mode_and_records_round_trip(tmp_path):
    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        store.save([_call()], [LatentRecord("d", "p", "e1", 0.7, 0.7, 1.0, 0.2, 12)])
    db = sqlite3.connect(tmp_path / "s.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    row = db.execute("SELECT * FROM calls").fetchone()
    assert CallRecord.from_dict(dict(zip(CallRecord.columns(), row))) == _call()
    assert _call().to_dict()["raw_output"] == '{"answer": "Yes"}'


def test_recorded_rows_are_never_replaced(tmp_path):
    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        store.save([_call()])
        store.save([_call(raw="No", answer="No", correct=False), _call(repeat=1)])
        rows = store.query("SELECT repeat, raw_output FROM calls ORDER BY repeat")
        assert rows == [(0, '{"answer": "Yes"}'), (1, '{"answer": "Yes"}')]
        assert store.completed("d", "p") == {("e1", 0), ("e1", 1)}


def test_store_refuses_another_experiment_a_changed_policy_and_a_changed_draw(tmp_path):
    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        store.bind_experiment("a", {})
        with pytest.raises(StoreError, match="belongs to experiment 'a', not 'b'"):
            store.bind_experiment("b", {})
        store.bind_policy("p", {"temperature": 0.2, "model": "m"})
        store.bind_policy("p", {"temperature": 0.2, "model": "m"})
        with pytest.raises(StoreError, match=r"policy 'p' differs .*temperature 0.2 -> 1.0"):
            store.bind_policy("p", {"temperature": 1.0, "model": "m"})
        store.bind_draw("d", "qnli", "x.jsonl", "aa" * 32, [("e1", "Yes")])
        with pytest.raises(StoreError, match="draw file 'y.jsonl' differs"):
            store.bind_draw("d", "qnli", "y.jsonl", "bb" * 32, [("e1", "Yes")])


def test_missing_and_foreign_files(tmp_path):
    from certify._errors import InputError

    with pytest.raises(InputError, match="no such file"):
        RunStore(tmp_path / "none.sqlite")
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable SQLite run store"):
        RunStore(tmp_path / "junk.sqlite")


def test_interrupted_transaction_leaves_nothing(tmp_path):
    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        bad = _call(repeat=1)
        object.__setattr__(bad, "seed", object())  # unbindable: the insert fails mid-batch
        with pytest.raises(sqlite3.Error):
            store.save([_call(), bad])
        assert store.query("SELECT COUNT(*) FROM calls") == [(0,)]


def test_serving_records_keep_the_first_facts_and_refuse_a_change(tmp_path):
    json_object = {"response_format": "json_object", "response_format_setting": "auto", "chat_template": "gemma"}
    with RunStore(tmp_path / "s.sqlite", create=True) as store:
        assert store.serving(["a"]) == {}
        store.bind_serving("a", json_object)
        # unknown conflicts with nothing, and the first record stays (it describes the calls made)
        store.bind_serving("a", {**json_object, "chat_template": "unknown"})
        assert store.serving(["a", "z"]) == json_object
        with pytest.raises(StoreError, match="used chat template 'gemma', this run would use 'llama-2'"):
            store.bind_serving("a", {**json_object, "chat_template": "llama-2"})
        store.bind_serving("b", {**json_object, "response_format": "text"})
        with pytest.raises(StoreError, match=r"different response formats share one backend \(a: json_object, b: text\)"):
            store.serving(["a", "b"])
        store.set_meta({"serving": '{"format": 2, "policies": {}}'})
        with pytest.raises(StoreError, match="serving record format 2, this certify reads 1"):
            store.serving_records()
