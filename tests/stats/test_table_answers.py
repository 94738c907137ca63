"""Answers in tables, DataFrames and the run store: codes checked against a direct per-row computation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import certify
from certify._calls import CORRECT, NO_ANSWER, NO_CALL
from certify.cli.main import main
from certify.readers import ColumnMap, DataError, normalize_answer, read_bits, read_call_table, read_groups

RNG_SEED = 27


def _table(n: int, k: int, seed: int):
    """Answers (some empty) and targets, as text, and the codes a reader must give them under ``strip``."""
    rng = np.random.default_rng(seed)
    pool = ["Paris", " Paris", "Rome", "rome", "5", "5.0", "", "Oslo "]
    answers = rng.choice(pool, size=(n, k))
    targets = rng.choice(["Paris", "Rome", "5"], size=n)
    codes = np.empty((n, k), dtype=np.int32)
    for i in range(n):
        seen: dict = {}
        for j in range(k):
            key = normalize_answer(answers[i, j], "strip")
            if key is None:
                codes[i, j] = NO_ANSWER
            elif key == targets[i]:
                codes[i, j] = CORRECT
            else:
                codes[i, j] = seen.setdefault(key, len(seen) + 1)
    return answers, targets, codes


def _csv(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows]) + "\n")
    return path


@pytest.mark.parametrize("form", ["wide", "long"])
def test_csv_answers_give_the_codes_of_a_direct_computation(tmp_path, form):
    answers, targets, codes = _table(30, 5, RNG_SEED)
    if form == "wide":
        rows = [[f"e{i}", *[f'"{a}"' for a in answers[i]], targets[i]] for i in range(30)]
        path = _csv(tmp_path / "w.csv", ["example_id", *[f"answer{j + 1}" for j in range(5)], "target"], rows)
    else:
        rows = [[f"e{i}", j, f'"{answers[i, j]}"', targets[i]] for j in range(5) for i in range(30)]
        path = _csv(tmp_path / "l.csv", ["example_id", "call", "answer", "target"], rows)
    bits = read_bits(path)
    assert bits.example_ids == tuple(f"e{i}" for i in range(30))
    np.testing.assert_array_equal(bits.answers, codes)
    np.testing.assert_array_equal(bits.bits, (codes == CORRECT).astype(float))
    assert bits.read_info.target == "target"


def test_jsonl_parquet_and_dataframe_read_as_the_csv(tmp_path):
    answers, targets, codes = _table(20, 4, RNG_SEED + 1)
    records = [{"example_id": f"e{i}", "call": j, "answer": answers[i, j], "target": targets[i]}
               for i in range(20) for j in range(4)]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    frame = pd.DataFrame(records)
    frame.to_parquet(tmp_path / "a.parquet")
    wide = pd.DataFrame({"example_id": [f"e{i}" for i in range(20)], "target": targets,
                         **{f"answer_{j}": answers[:, j] for j in range(4)}})
    for source in (tmp_path / "a.jsonl", tmp_path / "a.parquet", frame, wide, frame.set_index("example_id")):
        bits = read_bits(source)
        np.testing.assert_array_equal(bits.answers, codes)
        assert bits.example_ids == tuple(f"e{i}" for i in range(20))


def test_normalizations_change_which_answers_are_equal(tmp_path):
    path = _csv(tmp_path / "n.csv", ["example_id", "answer1", "answer2", "answer3", "target"],
                [["a", "PARIS", "paris ", "Paris", "paris"], ["b", "5.0", "10/2", "5", "5"]])
    expected = {"exact": [[1, 2, 3], [1, 2, 0]], "strip": [[1, 0, 2], [1, 2, 0]],
                "casefold": [[0, 0, 0], [1, 2, 0]], "number": [[0, 0, 0], [0, 0, 0]]}
    for how, codes in expected.items():
        np.testing.assert_array_equal(read_bits(path, answer_normalize=how).answers, codes)
    with pytest.raises(DataError, match=r"--answer-normalize 'lower' \(answer_normalize=\): use one of"):
        read_bits(path, answer_normalize="lower")


def test_bits_and_answers_together_must_agree(tmp_path):
    header = ["example_id", "b1", "b2", "b3", "answer1", "answer2", "answer3", "target"]
    good = [["a", 1, 0, "", "x", "y", "", "x"], ["b", 0, 0, 1, "", "y", "z", "z"]]
    bits = read_bits(_csv(tmp_path / "g.csv", header, good))
    assert bits.counts.tolist() == [2, 3]
    np.testing.assert_array_equal(bits.answers, [[CORRECT, 1, NO_CALL], [NO_ANSWER, 1, CORRECT]])
    bad = [["a", 1, 1, "", "x", "y", "", "x"], ["b", 0, 0, 1, "", "y", "z", "z"]]
    with pytest.raises(DataError, match=r"row 1, column 'b2': the bit is 1 but the answer 'y' does not equal the target 'x'"):
        read_bits(_csv(tmp_path / "b.csv", header, bad))
    orphan = [["a", 1, 0, "", "x", "y", "w", "x"], ["b", 0, 0, 1, "", "y", "z", "z"]]
    with pytest.raises(DataError, match=r"row 1, column 'answer3': an answer for a call that is not recorded"):
        read_bits(_csv(tmp_path / "o.csv", header, orphan))


@pytest.mark.parametrize("header, rows, match", [
    (["example_id", "call", "answer", "correct"], [["a", 0, "x", 1], ["a", 1, "y", 0]],
     r"answer column answer without a target column \(target, label\)"),
    (["example_id", "answer1", "answer2"], [["a", "x", "y"]], r"answer columns answer1, answer2 without a target column"),
    (["example_id", "b1", "b2", "answer1", "answer2", "answer3", "target"], [["a", 1, 0, "x", "y", "z", "x"]],
     r"answer column 'answer3' has no matching call column \(number 3; call columns: b1, b2\)"),
    (["example_id", "b1", "b2", "b3", "answer1", "answer2", "target"], [["a", 1, 0, 1, "x", "y", "x"]],
     r"call column 'b3' has no matching answer column"),
    (["example_id", "call", "answer", "target"], [["a", 0, "x", "x"], ["a", 1, "x", "y"]],
     r"row 2: example 'a' has the target 'y' here and 'x' in another row; an example has one target"),
    (["example_id", "call", "answer", "target"], [["a", 0, "x", "x"], ["a", 1, "x", " "]], r"row 2, column 'target': missing target"),
])
def test_answer_errors_are_one_line(tmp_path, header, rows, match):
    path = _csv(tmp_path / "e.csv", header, rows)
    with pytest.raises(DataError, match=match) as info:
        read_bits(path)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(path))


def test_a_target_column_of_mixed_kinds_is_refused(tmp_path):
    lines = [{"example_id": "a", "call": 0, "answer": "5", "target": 5},
             {"example_id": "a", "call": 1, "answer": "5", "target": 5},
             {"example_id": "b", "call": 0, "answer": "x", "target": "x"}]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(DataError, match=r"column 'target' mixes numbers \(line 1\) and texts \(line 3\)"):
        read_bits(tmp_path / "m.jsonl")
    frame = pd.DataFrame({"example_id": ["a", "b"], "answer1": ["1", "x"], "answer2": ["1", "x"], "target": [1, "x"]})
    with pytest.raises(DataError, match=r"^DataFrame: column 'target' mixes numbers"):
        read_bits(frame)


def test_explicit_answer_columns_and_the_cli(tmp_path, capsys):
    path = _csv(tmp_path / "x.csv", ["qid", "r1", "r2", "r3", "gold"],
                [[f"q{i}", "A", "B" if i % 2 else "A", "A", "A" if i % 3 else "B"] for i in range(12)])
    columns = ColumnMap(id_col="qid", answer_cols=("r1", "r2", "r3"), target_col="gold")
    bits = read_bits(path, columns=columns)
    assert bits.read_info.describe() == "id = qid; answers = r1, r2, r3; target = gold (wide form)"
    expected = [[int(("A" if i % 3 else "B") == a) for a in ("A", "B" if i % 2 else "A", "A")] for i in range(12)]
    np.testing.assert_array_equal(bits.bits, expected)
    code = main(["analyze", str(path), "--votes", "3", "--id-col", "qid", "--answer-cols", "r1", "r2", "r3",
                 "--target-col", "gold", "--answer-normalize", "casefold"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("columns: id = qid; answers = r1, r2, r3; target = gold (wide form)")


def test_analyze_takes_a_dataframe():
    frame = pd.DataFrame({"example_id": [f"e{i}" for i in range(40)] * 3, "call": np.repeat([0, 1, 2], 40),
                          "answer": ["y" if (i * 7 + c) % 4 else "n" for c in range(3) for i in range(40)], "target": "y"})
    report = certify.analyze(frame, votes=[3])
    assert report.n == 40 and report.calls == 3
    expected = np.mean([np.mean([(i * 7 + c) % 4 != 0 for c in range(3)]) for i in range(40)])
    assert report.two_call.mu == pytest.approx(np.mean([[(i * 7 + c) % 4 != 0 for c in range(2)] for i in range(40)]))
    assert 0 < expected < 1


class _Store:
    def __init__(self, rows):
        self.rows = rows

    def call_rows(self):
        return self.rows


def test_call_tables_with_answers_and_a_missing_repeat():
    rows = [("d", "p", "a", 0, 1, "Yes"), ("d", "p", "a", 1, 0, "No"), ("d", "p", "a", 2, 0, None),
            ("d", "p", "b", 0, 0, "No"), ("d", "p", "b", 2, 1, "Yes")]  # b lost repeat 1
    (bits,) = read_call_table(_Store(rows), "s.sqlite").values()
    np.testing.assert_array_equal(bits.answers, [[CORRECT, 1, NO_ANSWER], [1, CORRECT, NO_CALL]])
    assert bits.read_info.form == "run store" and bits.read_info.answers == ("answer",)
    assert bits.read_info.notes == ("d/p: 1 of 2 examples has fewer than 3 calls (the first: example 'b', call 4, 2 calls); "
                                    "every recorded call is used, and quantities needing m calls only for m <= 2",)
    with pytest.raises(DataError, match=r"call rows must all be"):
        read_call_table(_Store([("d", "p", "a", 0, 1), ("d", "p", "a", 1, 0, "No")]))


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("how", ["casefold", "number"])
def test_superscripts_are_not_digits_and_no_text_is_a_number(tmp_path, fmt, how):
    """'10²' is not the target '102', '2⁴' not '24', and the text NUL + '5/1' (the old key of the
    number 5) is not the target 5: each example has one such answer and one correct call, so
    every example's one-call accuracy is 1/2, not 1."""
    pairs = [("10²", "102"), ("2⁴", "24"), ("\x005/1", "5"), ("\x001/2", "0.5")]
    records = [{"example_id": f"e{i}", "call": j, "answer": answer, "target": target}
               for i, (wrong, target) in enumerate(pairs) for j, answer in enumerate((wrong, target))]
    path = tmp_path / f"a.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        pd.DataFrame(records).to_parquet(path)
    bits = read_bits(path, answer_normalize=how)
    np.testing.assert_array_equal(bits.bits, [[0, 1]] * len(pairs))
    np.testing.assert_array_equal(bits.answers, [[1, CORRECT]] * len(pairs))
