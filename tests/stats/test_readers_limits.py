"""Hostile files for the table readers and the run store: bounded work, one line, no misreads.

The large and special files (sparse files of gigabytes, files without line ends, FIFOs,
devices, symbolic link loops) are made here in a scratch folder and read by the real CLI
in a child process under a memory cap (RLIMIT_AS) and a time limit: each must end with
exit 2 and one line on stderr.
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from certify import InputError
from certify.readers import DataError, read_bits, read_groups
from certify.readers._csv import MAX_LINE_BYTES, open_csv_table
from certify.readers._jsonl import MAX_DEPTH, MAX_LINE_BYTES as MAX_JSONL_LINE

ROOT = Path(__file__).resolve().parents[2]
#: The brief of every hostile input: 30 s and 2 GB of address space (which includes the
#: libraries every certify process maps, about 1 GB of it).
SECONDS = 30
MEMORY = 2 * 2**30
ENGINES = ["pyarrow", "python"]


#: What the certify launcher runs.
CLI = "import sys, certify.cli.main as m; sys.exit(m.main(sys.argv[1:]))"
#: The JSON-lines table reader alone, as the CLI reports its errors (the registry tries the
#: lm-eval samples reader first, whose own limits are tested with it).
JSONL = ("import sys\nfrom pathlib import Path\nfrom certify.readers import ColumnMap, DataError\n"
         "from certify.readers._jsonl import read_jsonl\ntry:\n    read_jsonl(Path(sys.argv[1]), ColumnMap())\n"
         "except DataError as exc:\n    print(f'certify: error: {exc}', file=sys.stderr)\n    sys.exit(2)\n")


def _cli(*argv, code: str = CLI) -> subprocess.CompletedProcess:
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True,
                          timeout=SECONDS, preexec_fn=cap, env=env)


def _refused(proc, says: str) -> None:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert says in lines[0], lines[0]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """name -> path of each hostile file (generators: truncate, a FIFO, a symlink loop, ...)."""
    d = tmp_path_factory.mktemp("hostile")
    files = {}
    for suffix in ("csv", "jsonl"):
        p = d / f"sparse.{suffix}"
        with open(p, "wb") as fh:  # truncate -s 2G: 2 GiB of NUL bytes that take no disk space
            fh.truncate(2 * 2**30)
        files[f"sparse {suffix}"] = p
        p = d / f"one_line.{suffix}"
        with open(p, "wb") as fh:  # a header, then 40 MB without a line end
            fh.write(b"example_id,b0,b1\n" if suffix == "csv" else b'{"example_id": "')
            fh.write(b"a" * (40 * 2**20))
        files[f"one line {suffix}"] = p
    p = d / "header_line.csv"
    p.write_bytes(b"b" * (40 * 2**20))
    files["header line csv"] = p
    fifo = d / "pipe.csv"
    os.mkfifo(fifo)
    files["fifo"] = fifo
    (d / "zero.csv").symlink_to("/dev/zero")
    files["device"] = d / "zero.csv"
    (d / "loop_a.csv").symlink_to(d / "loop_b.csv")
    (d / "loop_b.csv").symlink_to(d / "loop_a.csv")
    files["loop"] = d / "loop_a.csv"
    (d / "dangling.csv").symlink_to(d / "nowhere.csv")
    files["dangling"] = d / "dangling.csv"
    return files


@pytest.mark.parametrize("name, says", [
    ("sparse csv", "NUL byte at byte 0"), ("sparse jsonl", "NUL byte"),
    ("one line csv", f"line 2 is longer than the limit of {MAX_LINE_BYTES:,} bytes"),
    ("one line jsonl", f"line 1 is longer than the limit of {MAX_JSONL_LINE:,} bytes"),
    ("header line csv", "line 1 is longer than the limit"),
    ("fifo", "is a named pipe (FIFO), not a regular file"), ("device", "is a device, not a regular file"),
    ("loop", "a symbolic link loop"), ("dangling", "a symbolic link to a missing file"),
])
def test_hostile_files_end_in_one_line_within_the_caps(hostile, name, says):
    if name.endswith("jsonl"):
        _refused(_cli(hostile[name], code=JSONL), says)
    else:
        _refused(_cli("analyze", hostile[name], "--votes", "3"), says)


@pytest.mark.parametrize("command", [("analyze",), ("plan", "--votes", "3"), ("region",)])
def test_unreadable_inputs_in_every_command_that_reads_files(hostile, tmp_path, command):
    (tmp_path / "dir.csv").mkdir()
    _refused(_cli(command[0], tmp_path / "dir.csv", *command[1:]), "is a directory")
    _refused(_cli(command[0], hostile["fifo"], *command[1:]), "named pipe")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file whatever its permissions")
def test_a_file_without_read_permission(tmp_path):
    p = tmp_path / "secret.csv"
    p.write_text("example_id,b0,b1\na,1,0\n")
    p.chmod(0)
    with pytest.raises(DataError, match="permission denied"):
        read_bits(p)


@pytest.mark.parametrize("engine", ENGINES)
def test_nul_bytes_anywhere_and_rows_past_the_limit(tmp_path, engine):
    from certify.readers._csv import read_csv
    from certify.readers import ColumnMap

    p = tmp_path / "n.csv"
    p.write_bytes(b"example_id,b0,b1\n" + b"e,1,0\n" * 200_000 + b"x\x00,1,0\n")
    with pytest.raises(DataError, match=r"NUL byte at byte 1200018"):
        read_csv(p, ColumnMap(), None, engine)
    # a quoted field spanning many short lines: pyarrow parses a row within a block or two,
    # Python's csv module a field of 131,072 characters
    p.write_bytes(b"example_id,b0,b1\n" + b'a,1,"' + b"0\n" * (2 * MAX_LINE_BYTES) + b'"\n')
    with pytest.raises(DataError, match=r"row 1 on is longer than the limit|row 1: not readable as CSV \(field larger") as info:
        read_csv(p, ColumnMap(), None, engine)
    assert len(str(info.value)) < 300
    p.write_bytes(b"example_id,b0,b1\n" + b'a,1,"' + b"0\n" * 50_000 + b'"\n')  # within the limits, not a bit
    with pytest.raises(DataError, match=r"value '0\\n0\\n0.*\.\.\. \([0-9]+ characters\) is not binary") as info:
        read_csv(p, ColumnMap(), None, engine)
    assert len(str(info.value)) < 500


@pytest.mark.parametrize("engine", ENGINES)
def test_short_and_long_rows_are_alike(tmp_path, engine):
    from certify.readers._csv import read_csv
    from certify.readers import ColumnMap

    p = tmp_path / "r.csv"
    p.write_text("example_id,b0,b1,b2\na,1,0\nb,1,1,0,,\nc,0,1,1\n")  # a dropped and two added empty cells
    out, info = read_csv(p, ColumnMap(), None, engine)
    (bits,) = out.values()
    assert bits.counts.tolist() == [2, 3, 3] and bits.bits[:, :2].tolist() == [[1, 0], [1, 1], [0, 1]]
    p.write_text("example_id,b0,b1,b2\na,1,0,1\nb,1,1,0,,1\n")
    with pytest.raises(DataError, match=r"row 2: 6 fields but the header has 4, and a field beyond the header is not empty"):
        read_csv(p, ColumnMap(), None, engine)


def test_header_only_files_have_no_data_rows(tmp_path):
    for text in ("example_id,b0,b1", "example_id,b0,b1\n", "example_id,b0,b1\r\n"):
        p = tmp_path / "h.csv"
        p.write_text(text, newline="")
        with pytest.raises(DataError, match=r"h\.csv: the file has no data rows"):
            read_bits(p)


def test_ids_are_stripped_and_call_indices_are_ascii_integers(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("example_id,b0,b1\ne1,1,0\n e1 ,1,1\n")
    with pytest.raises(DataError, match=r"row 2 duplicates row 1: key 'e1' appears twice"):
        read_bits(p)
    p.write_text("example_id,call,correct\n e1,0,1\ne1 ,1,0\n")
    assert read_bits(p).example_ids == ("e1",)
    for index, why in (("1_0", "ASCII digits"), ("\u0661", "ASCII digits"), ("1e1", ""), ("99999999999999999999", "")):
        p.write_text(f"example_id,call,correct\ne1,0,1\ne1,{index},1\n", encoding="utf-8")
        with pytest.raises(DataError, match=rf"row 2, column 'call': call index '{index}' is not an integer.*{why}"):
            read_bits(p)


@pytest.mark.parametrize("number, bit", [("1", 1), ("1.0", 1), ("1e0", 1), ("0.000", 0), ("0.99999999999999999", None),
                                          ("1.0000000000000001", None), ("1E-400", None)])
def test_a_json_number_is_a_bit_only_when_it_is_exactly_0_or_1(tmp_path, number, bit):
    p = tmp_path / "b.jsonl"
    p.write_text(f'{{"example_id": "a", "b0": {number}, "b1": 1}}\n')
    if bit is None:
        with pytest.raises(DataError, match=rf"value '{number}' is not binary"):
            read_bits(p)
    else:
        assert read_bits(p).bits.tolist() == [[bit, 1]]


@pytest.mark.parametrize("text, says", [
    ('{"example_id": "a", "b0": 1, "b0": 0, "b1": 1}', "the key 'b0' appears twice in one object"),
    ('{"example_id": "a", "b0": NaN, "b1": 1}', "NaN is not a JSON number"),
    ('{"example_id": "a", "b0": ' + "1" * 5000 + ', "b1": 1}', "more than 4300 digits"),
    ('{"example_id": "a", "b0": 1, "b1": 1, "x": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}",
     f"deeper than the limit of {MAX_DEPTH}"),
    ('{"example_id": "a", "b0": 1, "b1": 1, "x": ' + "[" * 100_000 + "}", "do not balance"),
])
def test_jsonl_lines_are_parsed_strictly(tmp_path, text, says):
    p = tmp_path / "s.jsonl"
    p.write_text('{"example_id": "z", "b0": 1, "b1": 0}\n' + text + "\n")
    with pytest.raises(DataError, match="line 2: .*" + says.replace("(", r"\(").replace("[", r"\[")):
        read_bits(p)


def test_jsonl_is_streamed_and_a_late_key_is_still_a_column(tmp_path, monkeypatch):
    import certify.readers._jsonl as jsonl

    monkeypatch.setattr(jsonl, "BLOCK_LINES", 4)
    rows = [{"example_id": f"e{i}", "b0": i % 2, "b1": 1} for i in range(10)]
    rows[7]["b2"] = 0  # a third call for one example, first seen in the second block
    p = tmp_path / "late.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bits = read_bits(p)
    assert bits.read_info.calls == ("b0", "b1", "b2") and bits.counts.tolist() == [2] * 7 + [3] + [2] * 2
    rows[9]["f1"] = 0.5  # an undocumented key seen late is still an error naming it
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"column 'f1' has no documented role"):
        read_bits(p)


def test_wide_call_columns_that_skip_a_number_get_a_note(tmp_path):
    p = tmp_path / "g.csv"
    p.write_text("example_id,call1,call2,call4\na,1,0,1\nb,0,0,1\n")
    bits = read_bits(p)
    assert bits.read_info.notes == ("the call columns call1, call2, call4 skip the number 3; the columns present are "
                                    "read as consecutive calls, in the order of their numbers",)


def test_run_store_calls_of_unknown_examples_are_refused(tmp_path):
    from certify.experiment import RunStore

    path = tmp_path / "s.sqlite"
    with RunStore(path, create=True) as store:
        store.bind_draw("d", "parity", "draw.jsonl", "0" * 64, [(f"e{i}", "Yes") for i in range(3)])
    db = sqlite3.connect(path)
    columns = [r[1] for r in db.execute("PRAGMA table_info(calls)")]
    row = {"dataset": "d", "policy": "p", "repeat": 0, "seed": 1, "raw_output": "", "answer": "Yes", "parse": "json",
           "valid": 1, "correct": 1, "latency_s": 0.0, "endpoint": "x", "attempts": 1, "finished_at": 0.0}
    for example in ("e0", "e1", "e2", "gone"):
        for repeat in (0, 1):
            values = {**row, "example_id": example, "repeat": repeat}
            db.execute(f"INSERT INTO calls VALUES ({', '.join('?' * len(columns))})", [values.get(c) for c in columns])
    db.commit()
    db.close()
    with pytest.raises(InputError, match=r"2 recorded call\(s\) of 1 example\(s\) missing from its examples table, the first d/gone"):
        read_groups(path, open_store=lambda p: RunStore(p, read_only=True))


def test_a_frame_that_is_not_readable_is_one_line():
    with pytest.raises(DataError, match=r"^list: not a data file path or a pandas DataFrame$"):
        read_groups([1, 2, 3])


def test_pyarrow_reads_no_more_once_the_rows_are_refused(tmp_path, monkeypatch):
    """pyarrow reads ahead on its own thread, through Python: a refusal stops that reading before it
    is raised, and no Python exception is raised on that thread (a process that ended while the
    thread still held one aborted: "terminate called without an active exception", exit -6)."""
    pytest.importorskip("pyarrow")
    import threading

    import certify.readers._csv as csv_read

    calls = []
    read = csv_read._CheckedFile.readinto

    def spy(self, buffer):
        n = read(self, buffer)
        calls.append((threading.get_ident(), n, self.stopped, self.refusal is not None))
        return n

    monkeypatch.setattr(csv_read._CheckedFile, "readinto", spy)
    p = tmp_path / "t.csv"
    # many blocks of good rows, then a value that is not a bit far from the start
    p.write_bytes(b"example_id,b0,b1\n" + b"".join(b"e%d,1,0\n" % i for i in range(3_000_000)) + b"z,2,0\n")
    table = csv_read.open_csv_table(p, engine="pyarrow")
    blocks = table.blocks(["example_id", "b0", "b1"])
    next(blocks)  # the caller refuses a value in the first block and stops
    blocks.close()
    done = len(calls)
    assert calls[-1][1] == 0, calls[-3:]  # the reading ran to an end before close() returned
    assert any(t != threading.get_ident() for t, *_ in calls)  # pyarrow's own thread read the file
    threading.Event().wait(0.2)
    assert len(calls) == done  # and nothing reads after it

    calls.clear()  # an over-long line: kept by the file, raised on this thread after the reads ended
    p.write_bytes(b"example_id,b0,b1\n" + b"e,1,0\n" * 200_000 + b"x" * (MAX_LINE_BYTES + 10) + b"\n")
    with pytest.raises(DataError, match="line 200002 is longer than the limit"):
        list(csv_read.open_csv_table(p, engine="pyarrow").blocks(["example_id", "b0", "b1"]))
    assert calls[-1][1] == 0 and calls[-1][3]
