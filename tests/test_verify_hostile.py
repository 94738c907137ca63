"""`certify verify` on hostile files: each refused with one line, quickly, without a traceback.

Every case runs the real command in a subprocess with a timeout: a hang, a crash or a
traceback fails the test, not the suite. The limit is generous for a loaded 2-core
machine (the interpreter and the package alone take 1-3 s to start there); the reading
limits themselves cost well under a second (``test_reading_limits_are_fast``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from certify.certificates import certify_bound, dump
from certify._json_limits import json_limits as core_json_limits
from certify.certificates._reading import MAX_FILE_BYTES, MAX_JSON_DEPTH, MAX_JSON_VALUES
from certify.cli.verify import check_file

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20


def _verify(*paths, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "certify.cli.main", "verify", *map(str, paths)]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False)


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("genuine")
    return json.loads(dump(certify_bound(3, "upper", mu="0.7", rho="0.2"), d / "v3.json").read_text())


def _edited(genuine: dict, edit) -> str:
    data = json.loads(json.dumps(genuine))
    edit(data)
    return json.dumps(data)


def _gain(d):
    d["objective"].update(name="P1 - P3")


HOSTILE = {
    # name: (file text or a function of the genuine certificate, exit status, what the line says)
    "100000 nested [": ("[" * 100_000 + "]" * 100_000, 1, f"FAILED json: arrays and objects nest 100000 levels deep, deeper than the limit of {MAX_JSON_DEPTH}"),
    "100000 nested {": ('{"a":' * 100_000 + "1" + "}" * 100_000, 1, f"nest 100000 levels deep, deeper than the limit of {MAX_JSON_DEPTH}"),
    "100000 nested, mixed": ("[{" * 50_000 + "}]" * 50_000, 1, "FAILED json: arrays and objects nest 100000 levels deep"),
    "100000 crossed": ("[{" * 50_000 + "]}" * 50_000, 1, "FAILED json: arrays and objects nest 100000 levels deep"),
    "100000 unclosed [": ("[" * 100_000, 1, "FAILED json: not valid JSON: its brackets do not balance"),
    "nesting hidden in a value": (lambda g: _edited(g, lambda d: d["provenance"].update(created=json.loads("[" * 40 + "]" * 40))), 1, "nest 42 levels deep"),
    "brackets inside strings do not count": (lambda g: _edited(g, lambda d: d["provenance"].update(created="[" * 100_000)), 0, "OK upper bound of E[V3]"),
    "5 million values": ("[" + ",".join(["[]"] * 5_000_000) + "]", 1, f"more than the limit of {MAX_JSON_VALUES} JSON values"),
    "integer of 100000 digits": ('{"schema_version": "1", "n": ' + "9" * 100_000 + "}", 1, "FAILED json: a number has more than 4300 digits"),
    "exact number of 5000 digits": (lambda g: _edited(g, lambda d: d["law"]["atoms"].__setitem__(0, ["9" * 5000 + "/1", 1.0])), 1, "FAILED structure: law.atoms[0]='99999"),
    "majority index of 4000 digits": (lambda g: _edited(g, lambda d: d["objective"]["majority"][0].update(n=10**4000)), 1, "FAILED objective: objective.majority[0].n=1000"),
    "multiplicity of 4000 digits": (lambda g: _edited(g, lambda d: d["dual"]["contacts"][0].update(multiplicity=10**4000)), 1, "FAILED contacts:"),
    "moment exponent 1e999999999": (lambda g: _edited(g, lambda d: d["moments"]["given"][0].update(text="1e999999999")), 1, "FAILED moments: moments.given[0].text='1e999999999'"),
    "name exponent 1e999999999": (lambda g: _edited(g, lambda d: d["objective"].update(name="1e999999999*V3")), 1, "FAILED objective_name:"),
    "10 MB unknown field": (lambda g: _edited(g, lambda d: d.update(note="x" * 10_000_000)), 1, "FAILED structure: certificate: missing keys [], unexpected keys ['note']"),
    "unknown field in provenance": (lambda g: _edited(g, lambda d: d["provenance"].update(payload=list(range(1000)))), 1, "unexpected keys ['payload']"),
    "repeated key": (lambda g: json.dumps(g).replace('"side": "upper",', '"side": "lower", "side": "upper",'), 1, "FAILED json: the key 'side' appears twice"),
    "NaN": (lambda g: json.dumps(g).replace("0.78736", "NaN", 1), 1, "FAILED json: NaN is not a JSON number"),
    "renamed gain": (lambda g: _edited(g, _gain), 1, "FAILED objective_name: objective.name='P1 - P3' is not the certified objective"),
    "a JSON string": ('"just a string"', 1, "FAILED structure: a certificate must be a JSON object, not a JSON string"),
    "a JSON array": ("[1, 2]", 1, "FAILED structure: a certificate must be a JSON object"),
    "empty file": ("", 1, "FAILED json: not valid JSON"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_file_gets_one_line(genuine, tmp_path, case):
    text, status, expected = HOSTILE[case]
    path = tmp_path / "hostile.json"
    path.write_text(text(genuine) if callable(text) else text)
    r = _verify(path)
    assert r.returncode == status, (r.stdout[:300], r.stderr[-300:])
    assert r.stderr == "" and len(r.stdout.splitlines()) == 1, r.stderr[-500:]
    assert r.stdout.startswith(f"{path}: ") and expected in r.stdout, r.stdout[:300]
    assert len(r.stdout) < 600  # the reason is one short line, whatever the file holds


def test_oversized_file_is_unreadable(tmp_path):
    path = tmp_path / "big.json"
    path.write_text('{"a": "' + "x" * (20 * 2**20) + '"}')  # 20 MB
    r = _verify(path)
    assert r.returncode == 2 and r.stderr == ""
    assert r.stdout == f"{path}: UNREADABLE is larger than the limit of {MAX_FILE_BYTES} bytes (16 MiB) for a certificate\n"


def test_not_utf8_is_unreadable(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "caf\xe9"}')
    r = _verify(path)
    assert r.returncode == 2 and r.stderr == "" and "UNREADABLE is not UTF-8 text (byte 13" in r.stdout


def test_directory_with_one_bad_file(genuine, tmp_path):
    d = tmp_path / "certs"
    d.mkdir()
    (d / "b_v3.json").write_text(json.dumps(genuine))
    (d / "a_gain.json").write_text(json.dumps(certify_bound("P3 - P1", "lower", mu="4517/8192", nu="3301/8192").to_dict()))
    (d / "c_renamed.json").write_text(_edited(genuine, lambda x: x["objective"].update(name="V101")))
    (d / "notes.txt").write_text("not a certificate, not a *.json file")
    r = _verify(d)
    lines = r.stdout.splitlines()
    assert r.returncode == 1 and r.stderr == ""
    assert [line.split(": ")[0] for line in lines] == [str(d / n) for n in ("a_gain.json", "b_v3.json", "c_renamed.json")]
    assert ": OK lower bound of E[P3 - P1]" in lines[0] and ": OK upper bound of E[V3]" in lines[1]
    assert ": FAILED objective_name: objective.name='V101'" in lines[2]
    # Files and directories mix; every file still gets its line, and unreadable beats failed.
    (d / "d_big.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    r = _verify(d / "b_v3.json", d)
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 5 and r.stdout.splitlines()[-1].endswith("(16 MiB) for a certificate")


def test_unusable_paths_exit_2_with_one_line_on_stderr(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = _verify(empty)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "without any *.json file" in r.stderr
    r = _verify(tmp_path / "missing.json")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "does not exist" in r.stderr


def json_limits(text: str) -> str | None:
    """The core's limit check with a certificate's limits, as certify verify applies it."""
    return core_json_limits(text, depth=MAX_JSON_DEPTH, values=MAX_JSON_VALUES)


def test_reading_limits_are_fast():
    # The checks before parsing cost well under a second even at the size limit.
    deep = "[" * (MAX_FILE_BYTES // 2) + "]" * (MAX_FILE_BYTES // 2)
    wide = "[" + ",".join(["[]"] * (MAX_FILE_BYTES // 3 - 1)) + "]"
    long_string = '{"a": "' + "[" * (MAX_FILE_BYTES - 10) + '"}'
    for text, verdict in ((deep, "deeper than the limit"), (wide, "JSON values"), (long_string, None)):
        start = time.perf_counter()
        problem = json_limits(text)
        assert time.perf_counter() - start < 3.0
        assert (problem is None) if verdict is None else (verdict in problem)
    assert json_limits("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is None
    assert f"nest {MAX_JSON_DEPTH + 1} levels deep" in json_limits("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert "do not balance" in json_limits("][") and "do not balance" in json_limits('["]"')
    assert json_limits('{"a": "]]]\\"", "b": ["[\\"["]}') is None  # escaped quotes end no string
    # one open string of escaped quotes at the size limit: every '"' in it once started a scan to the end
    assert "do not balance" in json_limits('["' + '\\"' * (MAX_FILE_BYTES // 2 - 2))


def test_check_file_in_process(genuine, tmp_path):
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(genuine))
    assert check_file(path)[0] == 0
    assert check_file(tmp_path)[0] == 2  # a directory given where a file is read


def test_the_library_function_reads_within_the_same_limits(tmp_path):
    """certify.certificates.verify on text, bytes or a path: one failed check ``json``, never a RecursionError."""
    from certify.certificates import verify

    deep = "[" * 100000 + "]" * 100000
    path = tmp_path / "deep.json"
    path.write_text(deep)
    for given in (deep, deep.encode(), path):
        result = verify(given)
        assert not result.ok and result.check == "json" and "nest" in result.message
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    assert verify(big).check == "json" and "limit" in verify(big).message
