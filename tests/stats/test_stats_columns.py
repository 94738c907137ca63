"""Tables are read by documented column names only (never guessed); explicit column maps; what
`certify analyze` says it read; hand-made inspect_ai logs through the built-in reader (stored,
deflated and zstd members, status, score values) and malformed .json logs."""

import json
import sys
import zipfile

import numpy as np
import pytest
from stats_helpers import eval_header, eval_sample, write_eval_json, write_eval_zip

from certify import InputError
from certify.cli.main import main
from certify.readers import DataError, read_bits, read_groups
from certify.readers import ColumnMap
from certify.readers._inspect import read_inspect_log
from certify.readers._zip import ZIP_ZSTD

BITS = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1], [0, 1, 0]], dtype=float)


def _long_csv(path, header=("doc_id", "repeat", "exact_match"), ids=("d0", "d1", "d2", "d3"), encoding="utf-8"):
    lines = [",".join(header)] + [f"{ids[i]},{j},{int(BITS[i, j])}" for i in range(4) for j in range(3)]
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def _wide_csv(path, header, rows, encoding="utf-8"):
    path.write_text("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows]) + "\n", encoding=encoding)
    return path


def _raises(match, path, **kw):
    with pytest.raises(DataError, match=match) as info:
        read_groups(path, **kw)
    message = str(info.value)
    assert isinstance(info.value, InputError) and "\n" not in message and message.startswith(str(path))
    return message


# ---- the reported misreads --------------------------------------------------------------------


def test_doc_id_repeat_exact_match_is_long_form(tmp_path):
    bits = read_bits(_long_csv(tmp_path / "a.csv"))  # was: wide, "4 examples x 3 calls" of id and repeat columns
    assert bits.example_ids == ("d0", "d1", "d2", "d3")
    np.testing.assert_array_equal(bits.bits, BITS)
    assert bits.read_info.describe() == "id = doc_id; call = repeat; correct = exact_match (long form)"


def test_an_undocumented_column_is_refused_not_read_as_a_call(tmp_path):
    rows = [[f"e{i}", int(BITS[i, 0])] + [int(b) for b in BITS[i]] for i in range(4)]  # a 0/1 target column
    path = _wide_csv(tmp_path / "t.csv", ["example_id", "target", "try1", "try2", "try3"], rows)
    msg = _raises(r"column 'target' has no documented role \(read so far: id = example_id; calls = try1, try2, try3 "
                  r"\(wide form\)\).*--ignore-cols target", path)
    assert "not binary" not in msg
    for columns in ({"ignore_cols": ["target"]}, ColumnMap(ignore_cols=("target",)), ColumnMap(ignore_cols="target")):
        bits = read_bits(path, columns=columns)
        np.testing.assert_array_equal(bits.bits, BITS)
        assert bits.read_info.describe() == "id = example_id; calls = try1, try2, try3; ignored = target (wide form)"


@pytest.mark.parametrize(
    "text, match",
    [
        # a long file whose id column has an undocumented name: it says so, and how to map it
        ("name,repeat,correct\nd0,0,1\nd0,1,0\n", r"long form needs an id column .* or --id-col; column 'name' has no documented role .* e.g. --id-col name$"),
        # a wide file with string ids under an undocumented name
        ("name,b0,b1\nd0,1,0\n", r"column 'name' has no documented role \(read so far: id = row number; calls = b0, b1"),
        # string ids where the call index is: the message says which column was read as what
        ("id,sample,correct\na,d0,1\n", r"row 1, column 'sample': call index 'd0' is not an integer; column 'sample' was read as "
                                        r"the call index \(columns: id = id; call = sample; correct = correct \(long form\)\); "
                                        r"if that is wrong, map columns with --id-col"),
    ],
)
def test_string_ids_never_give_a_not_binary_message(tmp_path, text, match):
    (tmp_path / "s.csv").write_text(text)
    assert "not binary" not in _raises(match, tmp_path / "s.csv")


def test_a_string_in_a_mapped_call_column_names_the_mapping(tmp_path):
    path = _wide_csv(tmp_path / "s.csv", ["name", "b0", "b1"], [["d0", 1, 0]])
    _raises(r"row 1, column 'name': value 'd0' is not binary \(0/1, true/false\); column 'name' was read as a call "
            r"\(columns: id = row number; calls = name, b0, b1 \(wide form\)\)", path, columns={"call_cols": ["name", "b0", "b1"]})
    assert read_bits(path, columns={"id_col": "name"}).example_ids == ("d0",)


def test_bom_prefixed_header(tmp_path):
    bits = read_bits(_long_csv(tmp_path / "b.csv", encoding="utf-8-sig"))
    assert (tmp_path / "b.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert bits.read_info.id == "doc_id" and bits.example_ids == ("d0", "d1", "d2", "d3")
    rows = [[f"e{i}"] + [int(b) for b in BITS[i]] for i in range(4)]
    path = _wide_csv(tmp_path / "b.tsv", ["example_id", "b0", "b1", "b2"], rows, encoding="utf-8-sig")
    path.write_text(path.read_text(encoding="utf-8-sig").replace(",", "\t"), encoding="utf-8-sig")
    assert read_bits(path).example_ids == ("e0", "e1", "e2", "e3")
    (tmp_path / "b.jsonl").write_text('{"id": "a", "b0": 1, "b1": 0}\n', encoding="utf-8-sig")
    assert read_bits(tmp_path / "b.jsonl").example_ids == ("a",)


# ---- explicit mappings ------------------------------------------------------------------------


def test_explicit_long_mapping(tmp_path):
    path = _long_csv(tmp_path / "l.csv", header=("item", "attempt_no", "strict"))
    _raises(r"long form needs an id column", path, columns={"call_col": "attempt_no", "correct_col": "strict"})
    bits = read_bits(path, columns=ColumnMap(id_col="item", call_col="attempt_no", correct_col="strict"))
    np.testing.assert_array_equal(bits.bits, BITS)
    assert bits.read_info.describe() == "id = item; call = attempt_no; correct = strict (long form)"
    # one role explicit, the others by their documented names
    bits = read_bits(_long_csv(tmp_path / "m.csv", header=("doc_id", "repeat", "em_strict")), columns={"correct_col": "em_strict"})
    np.testing.assert_array_equal(bits.bits, BITS)


def test_explicit_wide_mapping_order_and_groups(tmp_path):
    rows = [[f"e{i}", "s1" if i < 2 else "s2"] + [int(b) for b in BITS[i][::-1]] for i in range(4)]
    path = _wide_csv(tmp_path / "w.csv", ["key", "split", "run_c", "run_b", "run_a"], rows)
    groups = read_groups(path, columns={"id_col": "key", "call_cols": ["run_a", "run_b", "run_c"], "group_cols": ["split"]})
    assert list(groups) == ["s1", "s2"]
    np.testing.assert_array_equal(groups["s1"].bits, BITS[:2])
    assert groups["s2"].read_info.describe() == "id = key; calls = run_a, run_b, run_c; groups = split (wide form)"


def test_group_columns_default_and_disabled(tmp_path):
    rows = [["qnli", "p", f"e{i}", i, "Yes", ""] + [int(b) for b in BITS[i]] for i in range(4)]
    path = _wide_csv(tmp_path / "g.csv", ["dataset", "policy", "example_id", "position", "label", "q", "b0", "b1", "b2"], rows)
    (bits,) = read_groups(path).values()
    assert bits.group == "qnli/p"
    assert bits.read_info.describe() == ("id = example_id; calls = b0, b1, b2; groups = dataset, policy; "
                                         "not used = position, label, q (wide form)")
    assert list(read_groups(path, columns={"group_cols": []})) == [""]


def test_run_store_long_export_columns(tmp_path):
    # the export's answer and label are each call's answer and the example's target: the
    # calls keep their answers, and the correct column agrees with answer == label
    header = ["dataset", "policy", "example_id", "position", "label", "repeat", "answer", "valid", "correct", "q"]
    rows = [["qnli", "p", f"e{i}", i, "Yes", j, "Yes" if BITS[i, j] else ("No" if j else ""), int(bool(BITS[i, j] or j)),
             int(BITS[i, j]), ""] for i in range(4) for j in range(3)]
    (bits,) = read_groups(_wide_csv(tmp_path / "x.csv", header, rows)).values()
    np.testing.assert_array_equal(bits.bits, BITS)
    assert bits.read_info.form == "long" and bits.read_info.metadata == ("position", "valid", "q")
    assert bits.read_info.answers == ("answer",) and bits.read_info.target == "label"
    # wrong calls: "No" is answer 1 of its example; an empty answer (call 0) is no answer
    expected = np.where(BITS == 1, 0, np.where(np.arange(3) == 0, -1, 1))
    np.testing.assert_array_equal(bits.answers, expected)
    rows[0][8] = 1 - rows[0][8]  # a correct column that disagrees with answer == label
    with pytest.raises(DataError, match=r"row 1, column 'correct': the bit is 0 but the answer 'Yes' equals the target 'Yes'"):
        read_groups(_wide_csv(tmp_path / "x.csv", header, rows))


@pytest.mark.parametrize(
    "header, columns, match",
    [
        (["id", "sample_id", "b0", "b1"], None, r"columns 'id', 'sample_id' all name the example id; say which with --id-col"),
        (["example_id", "repeat", "epoch", "correct"], None, r"columns 'repeat', 'epoch' all name the call index"),
        (["example_id", "b0", "b1", "correct"], None, r"both numbered call columns \(b0, b1, wide form\) and long-form column"),
        (["example_id", "b0", "b1", "call2"], None, r"numbered call columns with different prefixes"),
        (["example_id", "b1", "b_1"], None, r"two call columns have the same number"),
        (["example_id", "b0", "b1"], {"id_col": "nope"}, r"--id-col 'nope' is not a column of the file"),
        (["example_id", "b0", "b1"], {"id_col": "b0", "call_cols": ["b0", "b1"]}, r"column 'b0' is given two roles"),
        (["example_id", "b0", "b1"], {"ignore_cols": ["b1"], "call_cols": ["b1"]}, r"column 'b1' is both ignored"),
        (["example_id", "b0", "b1"], {"call_cols": ["b0", "b0"]}, r"--call-cols names a column twice"),
        (["example_id", "b0", "b1"], {"call_cols": ["b0", "b1"], "call_col": "b0"}, r"cannot be combined"),
        (["example_id", "b0", "b1"], {"id": "x"}, r"columns: unknown key\(s\) 'id'"),
        (["", "b0", "b1"], None, r"column '' has no documented role"),  # a pandas index
        (["example_id", "repeat", "correct", "f1"], None, r"column 'f1' has no documented role \(read so far: id = example_id; "
                                                          r"call = repeat; correct = correct \(long form\)\)"),
        (["example_id", "b0", "b0"], None, r"column 'b0' appears twice in the header"),
    ],
)
def test_column_rule_errors(tmp_path, header, columns, match):
    path = _wide_csv(tmp_path / "e.csv", header, [["a"] + ["1"] * (len(header) - 1)])
    _raises(match, path, columns=columns)


def test_options_for_the_wrong_kind_of_file(tmp_path):
    path = _long_csv(tmp_path / "a.csv")
    _raises(r"--score-map \(score_map=\) applies to inspect_ai logs \(.eval, .json\) only", path, score_map={"N": 0})
    _raises(r"--scorer \(scorer=\), --allow-incomplete \(allow_incomplete=\)|--allow-incomplete \(allow_incomplete=\), --scorer", path,
            scorer="x", allow_incomplete=True)
    write_eval_json(tmp_path / "log.json", [eval_sample("a", 1, "C"), eval_sample("a", 2, "I")])
    _raises(r"column options .* apply to tables", tmp_path / "log.json", columns={"id_col": "x"})


def test_not_utf8(tmp_path):
    (tmp_path / "l.csv").write_bytes("id,b0,b1\n\xe9,1,0\n".encode("latin-1"))
    _raises(r"not UTF-8 text", tmp_path / "l.csv")


# ---- the CLI says what it read ----------------------------------------------------------------


def test_cli_first_lines_and_json_field(tmp_path, capsys):
    path = _long_csv(tmp_path / "a.csv")
    code = main(["analyze", str(path), "--votes", "3"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "columns: id = doc_id; call = repeat; correct = exact_match (long form)"
    code = main(["analyze", str(path), "--votes", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["columns"]["text"] == "id = doc_id; call = repeat; correct = exact_match (long form)"
    assert (data["columns"]["form"], data["columns"]["id"], data["columns"]["call"], data["columns"]["correct"]) == (
        "long", "doc_id", "repeat", "exact_match")


def test_cli_column_flags(tmp_path, capsys):
    rows = [[f"e{i}", int(BITS[i, 0]), "x"] + [int(b) for b in BITS[i]] for i in range(4)]
    path = _wide_csv(tmp_path / "t.csv", ["example_id", "target", "note", "try1", "try2", "try3"], rows)
    code = main(["analyze", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "columns 'target', 'note' have no documented role" in err and "--ignore-cols target note" in err
    code = main(["analyze", str(path), "--votes", "3", "--ignore-cols", "target", "--ignore-cols", "note"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[0] == "columns: id = example_id; calls = try1, try2, try3; ignored = target, note (wide form)"
    code = main(["analyze", str(path), "--votes", "3", "--ignore-cols", "note", "--id-col", "example_id",
                 "--call-cols", "try3", "try2", "try1", "target"])
    out, _ = capsys.readouterr()
    assert code == 0 and "calls = try3, try2, try1, target" in out.splitlines()[0] and "4 examples x 4 calls" in out
    long_path = _long_csv(tmp_path / "l.csv", header=("item", "n", "ok"))
    code = main(["analyze", str(long_path), "--votes", "3", "--id-col", "item", "--call-col", "n", "--correct-col", "ok"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[0] == "columns: id = item; call = n; correct = ok (long form)"
    code = main(["analyze", str(long_path), "--call-cols", "n", "ok", "--call-col", "n"])
    _, err = capsys.readouterr()
    assert code == 2 and "cannot be combined" in err


# ---- hand-made inspect_ai logs, built-in reader -----------------------------------------------


def _samples(values=None):
    return [eval_sample(f"e{i}", j + 1, (values or {}).get((i, j), "C" if BITS[i, j] else "I")) for i in range(4) for j in range(3)]


def _zip(path, members, compression, monkeypatch=None, frames=1):
    """A .eval-style zip; compression ZIP_ZSTD goes through a zstd compressor (`frames` zstd frames per member)."""
    if compression == ZIP_ZSTD:  # our own compressor, also where zipfile already knows zstd (inspect_ai's patch, 3.14)
        zstandard = pytest.importorskip("zstandard")

        class Frames:  # what zipfile needs of a compressor: compress() and flush()
            def __init__(self):
                self.data = b""

            def compress(self, data):
                self.data += data
                return b""

            def flush(self):
                cut = [len(self.data) * k // frames for k in range(frames + 1)]
                return b"".join(zstandard.ZstdCompressor().compress(self.data[a:b]) for a, b in zip(cut, cut[1:]))

        check, get = zipfile._check_compression, zipfile._get_compressor
        monkeypatch.setattr(zipfile, "_check_compression", lambda t: None if t == ZIP_ZSTD else check(t))
        monkeypatch.setattr(zipfile, "_get_compressor", lambda t, level=None: Frames() if t == ZIP_ZSTD else get(t, level))
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, obj in members.items():
            zf.writestr(name, json.dumps(obj))
    if monkeypatch is not None:
        monkeypatch.undo()
    return path


def _members(samples, header=None):
    header = header or eval_header()
    return {"header.json": header, **{f"samples/{s['id']}_epoch_{s['epoch']}.json": s for s in samples}}


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZIP_ZSTD])
def test_builtin_reader_member_compressions(tmp_path, monkeypatch, compression):
    path = _zip(tmp_path / "log.eval", _members(_samples()), compression, monkeypatch, frames=2)
    with zipfile.ZipFile(path) as zf:
        assert {i.compress_type for i in zf.infolist()} == {compression}
        if compression == ZIP_ZSTD:  # two zstd frames per member, as inspect_ai writes large members
            assert path.read_bytes().count(b"\x28\xb5\x2f\xfd") == 2 * len(zf.infolist())
    (bits,) = read_inspect_log(path, use_inspect=False).values()
    assert bits.example_ids == ("e0", "e1", "e2", "e3") and bits.read_info.reader == "the built-in .eval reader"
    np.testing.assert_array_equal(bits.bits, BITS)


def test_builtin_reader_without_zstandard(tmp_path, monkeypatch):
    path = _zip(tmp_path / "log.eval", _members(_samples()), ZIP_ZSTD, monkeypatch)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard now raises ImportError
    # certify checks every member (size, CRC) before either reader reads the log: inspect_ai cannot stand in
    for use in (False, True):
        with pytest.raises(DataError, match=r"compressed with zstd \(zip method 93\); reading it needs the package "
                                            r"'zstandard', which is not installed: pip install zstandard$"):
            read_inspect_log(path, use_inspect=use)


def test_builtin_reader_corrupt_zstd_member(tmp_path, monkeypatch):
    path = _zip(tmp_path / "log.eval", _members(_samples()), ZIP_ZSTD, monkeypatch)
    data = bytearray(path.read_bytes())
    at = data.index(b"PK\x01\x02")  # flip a byte inside the last member before the central directory
    data[at - 3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"of the .eval archive is (corrupt|not valid JSON)"):
        read_inspect_log(path, use_inspect=False)


@pytest.mark.parametrize("status", ["cancelled", "started", "error"])
def test_unfinished_hand_made_logs(tmp_path, status):
    header = {**eval_header(), "status": status}
    if status == "error":
        header["error"] = {"message": "RuntimeError('model crashed')\nwith a second line", "traceback": "...", "traceback_ansi": "..."}
    write_eval_json(tmp_path / "log.json", _samples(), header)
    for use in (False, None):
        with pytest.raises(DataError, match=rf"the run did not finish: the log's status is '{status}', not 'success'") as info:
            read_inspect_log(tmp_path / "log.json", use_inspect=use)
        assert "\n" not in str(info.value)
        if status == "error":
            assert str(info.value).endswith("error: RuntimeError('model crashed') with a second line")
        (bits,) = read_inspect_log(tmp_path / "log.json", use_inspect=use, allow_incomplete=True).values()
        np.testing.assert_array_equal(bits.bits, BITS)
        assert bits.read_info.status == status and bits.read_info.notes[0].startswith("the run did not finish")


def test_journal_only_eval_is_an_unfinished_run(tmp_path):
    members = _members(_samples())
    start = members.pop("header.json")
    members["_journal/start.json"] = {"version": 2, "eval": start["eval"], "plan": start["plan"]}
    path = _zip(tmp_path / "run.eval", members, zipfile.ZIP_DEFLATED)
    with pytest.raises(DataError, match=r"status is 'started'"):
        read_inspect_log(path, use_inspect=False)
    (bits,) = read_inspect_log(path, use_inspect=False, allow_incomplete=True).values()
    np.testing.assert_array_equal(bits.bits, BITS)


def test_allow_incomplete_drops_examples_with_one_scored_call(tmp_path):
    samples = _samples()
    for s in samples:
        if s["id"] == "e2" and s["epoch"] > 1:
            s["scores"], s["error"] = {}, {"message": "timeout", "traceback": "", "traceback_ansi": ""}
    header = {**eval_header(), "eval": {**eval_header()["eval"], "dataset": {"samples": 4, "sample_ids": ["e0", "e1", "e2", "e3"]}}}
    write_eval_json(tmp_path / "log.json", samples, header)
    with pytest.raises(DataError, match=r"sample 8 \(id 'e2', epoch 2\) has no 'match' score \(sample error: timeout\); 2 of 12"):
        read_bits(tmp_path / "log.json")
    bits = read_bits(tmp_path / "log.json", allow_incomplete=True)
    assert bits.example_ids == ("e0", "e1", "e3") and bits.read_info.skipped == 2
    assert bits.read_info.notes == ("skipped 2 of 12 samples without a 'match' score",
                                    "dropped 1 example(s) with fewer than 2 scored calls (e2)")


def test_fractional_and_multi_valued_scores(tmp_path):
    write_eval_json(tmp_path / "f.json", _samples({(0, 0): 0.5}))
    with pytest.raises(DataError, match=r"value 0.5 is not binary \(a fractional score\); 1 of 12 .* --score-map 0.5=0"):
        read_bits(tmp_path / "f.json")
    bits = read_bits(tmp_path / "f.json", score_map={0.5: 1})
    np.testing.assert_array_equal(bits.bits, BITS)
    assert read_bits(tmp_path / "f.json", score_map={"0.50": "true"}).bits[0, 0] == 1
    with pytest.raises(DataError, match=r"score_map: 'N' -> 2: a score value must map to 0 or 1"):
        read_bits(tmp_path / "f.json", score_map={"N": 2})
    write_eval_json(tmp_path / "d.json", _samples({(1, 1): {"a": 1, "b": 0}}))
    with pytest.raises(DataError, match=r"value \{'a': 1, 'b': 0\} is not binary \(an object of values, not one score\).*"
                                        r"choose a scorer with one value per sample"):
        read_bits(tmp_path / "d.json")


def test_old_n_to_zero_is_gone_and_cli_maps_it(tmp_path, capsys):
    write_eval_zip(tmp_path / "n.eval", _samples({(3, 2): "N"}))
    code = main(["analyze", str(tmp_path / "n.eval"), "--votes", "3"])
    _, err = capsys.readouterr()
    assert code == 2 and "value 'N' is not binary (N = no answer)" in err and err.count("\n") == 1
    code = main(["analyze", str(tmp_path / "n.eval"), "--votes", "3", "--score-map", "N=0"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[1] == "note: score value 'N' read as 0 (score map, 1 sample)"


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"eval": {}, "samples": {"a": 1}}', r"not an inspect_ai eval log: 'samples' is an object, not a list"),
        ('{"eval": {}, "samples": "abc"}', r"'samples' is a string, not a list"),
        ('{"eval": {}, "samples": null}', r"no 'samples' list"),
        ('[{"id": "a", "b0": 1}]', r"the JSON is a list, not an object with 'eval' and 'samples'"),
        ('"hello"', r"the JSON is a string"),
        ('{"eval": {}, "samples": [1, 2]}', r"sample 1 is an int, not an object|inspect_ai .* cannot read the log"),
        ('{"oops', r"not valid JSON"),
    ],
)
def test_malformed_json_logs(tmp_path, text, match):
    (tmp_path / "x.json").write_text(text)
    for use in (False, None):
        with pytest.raises(DataError, match=match) as info:
            read_inspect_log(tmp_path / "x.json", use_inspect=use)
        assert "\n" not in str(info.value)
    _raises(match, tmp_path / "x.json")


def test_hand_made_log_with_int_ids_orders_examples_by_dataset(tmp_path):
    samples = [eval_sample(sid, e, "C" if (sid + e) % 2 else "I") for e in (2, 1) for sid in (10, 9, 1)]
    header = {**eval_header(), "eval": {**eval_header()["eval"], "dataset": {"samples": 3, "sample_ids": [1, 9, 10]}}}
    write_eval_zip(tmp_path / "i.eval", samples, header)
    for use in (False, None):
        (bits,) = read_inspect_log(tmp_path / "i.eval", use_inspect=use).values()
        assert bits.example_ids == ("1", "9", "10")
        np.testing.assert_array_equal(bits.bits, [[0, 1], [0, 1], [1, 0]])
