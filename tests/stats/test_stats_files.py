"""Plain files as spreadsheets and other tools write them (issue 16, items 4 and 5).

Byte-order marks, CRLF, semicolon and tab delimiters, quoted fields, blank lines, rows
that end early, directories, binary files, a JSON file that is not a log, and a
streamed file of 200,000 rows. Every count is computed here from the bits the test
wrote; both parsers of :mod:`certify.readers._csv` (pyarrow and Python's csv module)
must give the same result.
"""

import json
import sys

import numpy as np
import pytest

from certify.cli.main import main
from certify.readers import read_bits, read_groups
from certify.readers import ColumnMap, DataError
from certify.readers._cells import DENSE_CELLS, MAX_CELLS_PER_ROW
from certify.readers._csv import open_csv_table, parse_delimiter, read_csv

ENGINES = ["pyarrow", "python"]


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def cli_error(capsys, *args) -> str:
    """The one stderr line of a failed ``certify analyze`` (exit 2), without its prefix."""
    code, out, err = run_cli(capsys, "analyze", *args)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    prefix = "certify analyze: error: "
    assert err.startswith(prefix)
    return err[len(prefix):-1]


def read(path, engine, delimiter=None, columns=None):
    """One group's CallBits and the notes, read with the given parser."""
    out, info = read_csv(path, ColumnMap.coerce(columns), delimiter, engine)
    (bits,) = out.values()
    return bits, info.notes


def wide_bits(rng, n, k):
    return rng.integers(0, 2, size=(n, k))


def assert_bits(bits, ids, rows):
    """CallBits equal to ``rows`` (list of lists of 0/1, ragged) for ``ids``, computed independently."""
    assert bits.example_ids == tuple(ids)
    assert bits.counts.tolist() == [len(r) for r in rows]
    assert np.nansum(bits.bits, axis=1).tolist() == [sum(r) for r in rows]
    for i, r in enumerate(rows):
        assert bits.bits[i, : len(r)].tolist() == r
        assert np.isnan(bits.bits[i, len(r):]).all()


# ---- encodings and line ends ------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bom", [True, False])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_bom_and_crlf_wide(tmp_path, engine, bom, newline):
    rng = np.random.default_rng(1)
    b = wide_bits(rng, 40, 3)
    text = newline.join(["example_id,b0,b1,b2"] + [f"e{i},{r[0]},{r[1]},{r[2]}" for i, r in enumerate(b)]) + newline
    path = tmp_path / "w.csv"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    bits, notes = read(path, engine)
    assert bits.read_info is None or bits.read_info.id == "example_id"
    assert_bits(bits, [f"e{i}" for i in range(40)], b.tolist())
    assert notes == ()


@pytest.mark.parametrize("engine", ENGINES)
def test_bom_crlf_long_with_cli(tmp_path, engine, capsys):
    rng = np.random.default_rng(2)
    b = wide_bits(rng, 30, 4)
    lines = ["example_id,call,correct"] + [f"x{i},{c},{b[i, c]}" for c in range(4) for i in range(30)]
    path = tmp_path / "l.csv"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    bits, _ = read(path, engine)
    assert_bits(bits, [f"x{i}" for i in range(30)], b.tolist())
    code, out, err = run_cli(capsys, "analyze", path, "--votes", "3")
    assert code == 0 and err == ""
    assert out.startswith("columns: id = example_id; call = call; correct = correct (long form)\n")
    assert "30 examples x 4 calls" in out


# ---- delimiters -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sep,name,suffix", [(";", "semicolons", ".csv"), ("\t", "tabs", ".csv"),
                                             ("\t", None, ".tsv"), (";", "semicolons", ".txt")])
def test_sniffed_delimiter(tmp_path, engine, sep, name, suffix):
    rng = np.random.default_rng(3)
    b = wide_bits(rng, 25, 3)
    # a decimal comma in a metadata column must not be taken for the delimiter
    rows = [sep.join(["id", "b0", "b1", "b2", "q"])] + [sep.join([f"r{i}", *map(str, r), "0,5"]) for i, r in enumerate(b)]
    path = tmp_path / f"s{suffix}"
    path.write_text("\n".join(rows) + "\n")
    bits, notes = read(path, engine)
    assert_bits(bits, [f"r{i}" for i in range(25)], b.tolist())
    expected = () if name is None else (f"fields separated by {name} (found in the header line)",)
    assert notes == expected


def test_semicolon_cli_prints_the_delimiter(tmp_path, capsys):
    path = tmp_path / "excel.csv"
    path.write_text("example_id;b0;b1\ne1;1;0\ne2;1;1\ne3;0;0\n")
    code, out, err = run_cli(capsys, "analyze", path, "--votes", "3")
    assert code == 0 and err == ""
    assert out.splitlines()[:2] == ["columns: id = example_id; calls = b0, b1 (wide form)",
                                    "note: fields separated by semicolons (found in the header line)"]
    assert "3 examples x 2 calls" in out


def test_ambiguous_delimiter_asks_for_the_flag(tmp_path, capsys):
    path = tmp_path / "amb.csv"
    path.write_text("example_id;b0;b1,extra\ne1;1;0,x\ne2;1;1,y\n")
    assert cli_error(capsys, path) == (
        f"{path}: the header line contains both comma and semicolon, so the delimiter is ambiguous; "
        "give it with --delimiter ',' or ';' or tab (delimiter=)")
    # given explicitly, the file is split at semicolons only: 'b1,extra' is one column (without a role)
    msg = cli_error(capsys, path, "--delimiter", ";")
    assert "column 'b1,extra' has no documented role" in msg
    path.write_text("example_id;b0;b1,\ne1;1;0\ne2;1;1\n")
    with pytest.raises(DataError, match="ambiguous"):
        read_bits(path)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("flag,sep", [(",", ","), (";", ";"), ("tab", "\t"), ("\\t", "\t"), ("\t", "\t")])
def test_explicit_delimiter(tmp_path, engine, flag, sep):
    b = [[1, 0], [0, 0], [1, 1]]
    path = tmp_path / "d.txt"
    path.write_text("\n".join([sep.join(["id", "b0", "b1"])] + [sep.join([f"k{i}", *map(str, r)]) for i, r in enumerate(b)]))
    bits, notes = read(path, engine, delimiter=flag)
    assert_bits(bits, ["k0", "k1", "k2"], b)
    assert notes == ()  # given, not found: nothing to say
    assert parse_delimiter(flag) == sep


def test_tsv_written_with_commas(tmp_path, capsys):
    path = tmp_path / "commas.tsv"
    path.write_text("example_id,call,correct\na,0,1\na,1,0\nb,0,1\nb,1,1\nc,0,0\nc,1,1\n")
    assert cli_error(capsys, path) == (
        f"{path}: the header line has no tab but has a comma; give the delimiter with --delimiter ',' or ';' or tab "
        "(delimiter=)")
    code, out, _ = run_cli(capsys, "analyze", path, "--delimiter", ",", "--votes", "3")
    assert code == 0 and "3 examples x 2 calls" in out


def test_bad_delimiter_and_wrong_file_type(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("id,b0,b1\na,1,0\n")
    assert cli_error(capsys, path, "--delimiter", "|") == (
        "--delimiter '|' is not a table delimiter; use ',' (comma), ';' (semicolon) or tab")
    jl = tmp_path / "d.jsonl"
    jl.write_text('{"id": "a", "b0": 1, "b1": 0}\n')
    assert cli_error(capsys, jl, "--delimiter", ";") == (
        f"{jl}: --delimiter (delimiter=) applies to delimited text tables (.csv, .tsv, .txt) only")


# ---- files that are not tables ----------------------------------------------------------------


def test_directory(tmp_path, capsys):
    assert cli_error(capsys, tmp_path) == (
        f"{tmp_path}: is a directory, not a data file; give one file (.csv, .tsv, .jsonl, .parquet, .eval, .json or .sqlite)")


def test_binary_file_named_csv(tmp_path, capsys):
    path = tmp_path / "image.csv"
    path.write_bytes(bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFE]) + bytes(range(256)))
    assert cli_error(capsys, path) == (
        f"{path}: not UTF-8 text (a NUL byte at byte 10: a binary file?); save the file as UTF-8 CSV")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,b0,b1\n".encode() + "caf\u00e9,1,0\n".encode("latin-1"))
    for engine in ENGINES:
        with pytest.raises(DataError, match=rf"^{latin}: not UTF-8 text \("):
            read(latin, engine)
    header = tmp_path / "header.csv"
    header.write_bytes("\u00e9t\u00e9,b0,b1\n".encode("latin-1"))
    assert cli_error(capsys, header) == (
        f"{header}: not UTF-8 text (in the header: invalid continuation byte); save the file as UTF-8 CSV")


def test_json_with_samples_not_a_list(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"samples": 5}))
    assert cli_error(capsys, path) == f"{path}: not an inspect_ai eval log: 'samples' is an int, not a list"


# ---- rows that end early ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_wide_short_rows_are_ragged_with_a_note(tmp_path, engine, capsys):
    rng = np.random.default_rng(4)
    b = wide_bits(rng, 12, 3).tolist()
    lines = ["example_id,b0,b1,b2"]
    rows = []
    for i, r in enumerate(b):
        if i in (3, 7):
            lines.append(f"e{i},{r[0]},{r[1]}")  # the field is missing altogether
            rows.append(r[:2])
        elif i == 9:
            lines.append(f"e{i},{r[0]},{r[1]},")  # the cell is empty (what spreadsheets write)
            rows.append(r[:2])
        else:
            lines.append(f"e{i}," + ",".join(map(str, r)))
            rows.append(r)
    path = tmp_path / "short.csv"
    path.write_text("\n".join(lines) + "\n")
    bits, notes = read(path, engine)
    assert_bits(bits, [f"e{i}" for i in range(12)], rows)
    note = ("3 of 12 examples have fewer than 3 calls (the first: example 'e3', row 4, 2 calls); every recorded "
            "call is used, and quantities needing m calls only for m <= 2")
    assert notes == (note,)
    code, out, err = run_cli(capsys, "analyze", path, "--votes", "3")
    assert code == 0 and f"note: {note}\n" in out and "12 examples x 2-3 calls" in out


@pytest.mark.parametrize("engine", ENGINES)
def test_long_missing_call_index(tmp_path, engine):
    # x1 has calls 0 and 2 only: its two calls are kept in index order, and the note says so
    data = {"x0": [1, 0, 1], "x1": [0, None, 1], "x2": [1, 1, 0]}
    lines = ["example_id,call,correct"] + [f"{k},{c},{v}" for k, vs in data.items() for c, v in enumerate(vs) if v is not None]
    path = tmp_path / "gap.csv"
    path.write_text("\n".join(lines) + "\n")
    bits, notes = read(path, engine)
    assert_bits(bits, ["x0", "x1", "x2"], [[1, 0, 1], [0, 1], [1, 1, 0]])
    assert notes == ("1 of 3 examples has fewer than 3 calls (the first: example 'x1', row 4, 2 calls); every "
                     "recorded call is used, and quantities needing m calls only for m <= 2",)
    # every example has calls 0 and 2: two calls each, and the gap in the numbering is said
    path.write_text("example_id,call,correct\na,0,1\na,2,0\nb,2,1\nb,0,1\n")
    bits, notes = read(path, engine)
    assert_bits(bits, ["a", "b"], [[1, 0], [1, 1]])
    assert notes == ("call indices 0, 2 are not consecutive; each example's calls are used in index order",)


@pytest.mark.parametrize("engine", ENGINES)
def test_row_errors_name_the_row(tmp_path, engine):
    cases = [
        ("id,b0,b1\na,1,0\n\nb,1,7\n", r"row 3, column 'b1': value '7' is not binary"),  # a blank line counts
        ("id,b0,b1\na,1,0\nb,1,0,1\n", r"row 2: 4 fields but the header has 3"),
        ('id,b0,b1\n"a\nb",1,0\nc,1,x\n', r"row 2, column 'b1': value 'x' is not binary"),  # a quoted newline
        ("id,b0,b1\na,1,0\nb,1\nb,0,0\n", r"row 3 duplicates row 2: key 'b' appears twice"),
        ("example_id,call,correct\na,0,1\na,1,1\nb,0,0\n", r"row 3, example 'b': 1 call\(s\) recorded"),
    ]
    for text, message in cases:
        path = tmp_path / "e.csv"
        path.write_text(text)
        with pytest.raises(DataError, match=f"^{path}: {message}"):
            read(path, engine)


def test_call_index_that_is_not_a_call_number(tmp_path):
    # a global counter in the call column: each row a new example and a new call index, so
    # the (examples x calls) array would grow with the square of the file: refused
    rows = int(DENSE_CELLS ** 0.5) + 64
    assert rows * rows > max(DENSE_CELLS, MAX_CELLS_PER_ROW * rows)
    path = tmp_path / "counter.csv"
    path.write_text("example_id,call,correct\n" + "".join(f"e{i},{i},1\n" for i in range(rows)))
    with pytest.raises(DataError, match=rf"^{path}: column 'call' has [0-9,]+ distinct call indices over [0-9,]+ examples"):
        read_bits(path)


def test_many_call_indices_of_few_examples_are_read(tmp_path):
    # 10,000 calls of each of 3 examples: more call indices than any fixed limit, a dense table
    k = 10_000
    bits = np.arange(3 * k).reshape(3, k) % 3 == 0
    path = tmp_path / "many.csv"
    path.write_text("example_id,call,correct\n" + "".join(f"e{i},{j},{int(bits[i, j])}\n" for j in range(k) for i in range(3)))
    got = read_bits(path)
    assert got.example_ids == ("e0", "e1", "e2") and got.bits.shape == (3, k)
    np.testing.assert_array_equal(got.bits, bits.astype(float))


@pytest.mark.parametrize("engine", ENGINES)
def test_quoting_blank_rows_and_spaces(tmp_path, engine):
    text = ('" example_id ", b0 ,"b1"\r\n'
            '"a,1",1,0\r\n'
            '\r\n'
            ',,\r\n'  # a row of delimiters, as spreadsheets export formatted empty rows
            '"say ""hi""\n twice",0,1\r\n'
            'plain,1,1')
    path = tmp_path / "q.csv"
    path.write_text(text, newline="")
    bits, _ = read(path, engine)
    assert_bits(bits, ["a,1", 'say "hi"\n twice', "plain"], [[1, 0], [0, 1], [1, 1]])
    assert open_csv_table(path).header == ("example_id", "b0", "b1")


def test_python_parser_without_pyarrow(tmp_path, monkeypatch):
    # a base install has no pyarrow: the same file reads with Python's csv module
    path = tmp_path / "p.csv"
    path.write_text("example_id;b0;b1\ne1;1;0\ne2;1;1\n")
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)
    assert open_csv_table(path).engine == "python"
    bits = read_bits(path)
    assert_bits(bits, ["e1", "e2"], [[1, 0], [1, 1]])


# ---- a large file, streamed -------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_long(tmp_path_factory):
    """200,000 long-form rows in two groups, calls in shuffled order, some examples short."""
    rng = np.random.default_rng(5)
    n, k = 12_000, 10
    q = rng.beta(2, 1, n)
    b = (rng.random((n, k)) < q[:, None]).astype(int)
    calls = np.full(n, k)
    calls[rng.choice(n, 500, replace=False)] = rng.integers(2, k, 500)  # ragged: 500 examples end early
    cells = [(i, c) for i in range(n) for c in range(calls[i])]
    order = rng.permutation(len(cells))
    lines = ["example_id,call,correct,policy"]
    for j in order:
        i, c = cells[j]
        lines.append(f"ex{i},{c},{b[i, c]},{'p' + str(i % 2)}")
    path = tmp_path_factory.mktemp("large") / "large.csv"
    path.write_text("\n".join(lines) + "\n")
    first_row = {}
    for row, j in enumerate(order, start=1):
        first_row.setdefault(cells[j][0], row)
    return path, b, calls, first_row, len(cells)


@pytest.mark.parametrize("engine", ENGINES)
def test_streamed_counts_equal_numpy(large_long, engine):
    path, b, calls, first_row, rows = large_long
    assert rows > 100_000
    out, info = read_csv(path, ColumnMap(), None, engine)
    assert list(out) == sorted(out, key=lambda g: min(first_row[i] for i in range(int(g[1]), len(b), 2)))
    for g, bits in out.items():
        members = np.arange(int(g[1]), len(b), 2)
        members = members[np.argsort([first_row[i] for i in members])]  # order of first appearance
        assert bits.example_ids == tuple(f"ex{i}" for i in members)
        assert np.array_equal(bits.counts, calls[members])
        expected_s = np.array([b[i, : calls[i]].sum() for i in members])
        assert np.array_equal(np.nansum(bits.bits, axis=1), expected_s)
        mask = np.arange(b.shape[1])[None, :] < calls[members][:, None]
        assert np.array_equal(bits.bits[mask], b[members][mask])
        assert np.isnan(bits.bits[~mask]).all()
    assert len(info.notes) == 2 and all("examples have fewer than 10 calls" in note for note in info.notes)


def test_streamed_duplicate_across_blocks(tmp_path):
    # the repeated (example, call) is far apart: it is found across blocks of either parser
    lines = ["example_id,call,correct"] + [f"e{i},{c},1" for c in range(2) for i in range(80_000)]
    lines.append("e5,1,0")
    path = tmp_path / "dup.csv"
    path.write_text("\n".join(lines) + "\n")
    for engine in ENGINES:
        with pytest.raises(DataError, match=rf"^{path}: row 160001 duplicates row 80006: \(example, call\) = \('e5', 1\)"):
            read(path, engine)


def test_groups_and_public_api_agree(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("dataset\tpolicy\texample_id\tb0\tb1\nd\tp\ta\t1\t0\nd\tq\ta\t0\t0\nd\tp\tb\t1\t1\n")
    groups = read_groups(path)
    assert list(groups) == ["d/p", "d/q"]
    assert_bits(groups["d/p"], ["a", "b"], [[1, 0], [1, 1]])
    assert_bits(groups["d/q"], ["a"], [[0, 0]])
    assert read_bits(path, group="d/p").example_ids == ("a", "b")
