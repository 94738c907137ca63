"""``analyze --certificates DIR`` writes a set that cannot be lost, mixed or misread; ``verify DIR`` holds it to its index.

File names cannot collide (groups ``gpt-4`` and ``gpt 4``), every certificate records its
group and the data file's SHA-256, the folder is written all or nothing (a full disk, an
unwritable place, a name too long: one line, exit 2, nothing left behind), a non-empty folder
is replaced only with ``--force`` and never when it holds files certify did not write, and
``verify DIR`` fails on an unlisted, missing or changed file and on a certificate whose entry
does not match. The analysis solves each interval once: the certificates are built from it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

import certify._files
from certify.certificates import INDEX_FILE, SCHEMA_DIR, load, verify
from certify.cli.main import main

GROUPS = ("gpt-4", "gpt 4")
ARGS = ("--votes", "3")  # objectives V3 and V3 - V1: four certificates per group


def _write_data(path: Path) -> Path:
    rng = np.random.default_rng(28)
    lines = ["dataset,policy,example_id,b0,b1,b2"]
    for g, a in zip(GROUPS, (3.0, 1.5)):
        q = rng.beta(a, 1.0, 80)
        bits = rng.random((80, 3)) < q[:, None]
        lines += [f"d,{g},x{i}," + ",".join(str(int(b)) for b in row) for i, row in enumerate(bits)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _analyze(data: Path, folder, *extra) -> int:
    return main(["analyze", str(data), *ARGS, "--certificates", str(folder), *extra])


def _verify(folder) -> tuple[int, list[str]]:
    r = subprocess.run(["certify", "verify", str(folder)], capture_output=True, text=True, check=False,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert r.stderr == ""
    return r.returncode, r.stdout.splitlines()


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("sets")
    data = _write_data(d / "calls.csv")
    assert _analyze(data, d / "certs") == 0
    return data, d / "certs"


@pytest.fixture
def fresh(written, tmp_path):
    """A private copy of the written set (and its data file), free to damage."""
    data, certs = written
    shutil.copy(data, tmp_path / data.name)
    shutil.copytree(certs, tmp_path / "certs")
    return tmp_path / data.name, tmp_path / "certs"


def test_groups_that_differ_only_in_punctuation_get_their_own_files(written, capsys):
    data, certs = written
    index = json.loads((certs / INDEX_FILE).read_text())
    files = sorted(p.name for p in certs.iterdir())
    assert len(files) == 2 * 4 + 1 == len(index["certificates"]) + 1
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    assert index["data_sha256"] == digest
    seen = set()
    for entry in index["certificates"]:
        text = (certs / entry["file"]).read_bytes()
        assert hashlib.sha256(text).hexdigest() == entry["sha256"]
        cert = load(certs / entry["file"])
        assert cert.source.group == entry["group"] and cert.source.data_sha256 == digest
        assert (cert.objective_name, cert.side) == (entry["objective"], entry["side"])
        assert verify(certs / entry["file"]).ok
        seen.add((entry["group"], entry["objective"], entry["side"]))
    assert seen == {(f"d/{g}", o, s) for g in GROUPS for o in ("V3", "V3 - V1") for s in ("lower", "upper")}
    schema = json.loads((SCHEMA_DIR / "certificate-index-v1.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(index)) == []


def test_verify_holds_the_folder_to_its_index(written):
    _, certs = written
    code, lines = _verify(certs)
    assert code == 0 and len(lines) == 1 + 8
    assert lines[0] == f"{certs / INDEX_FILE}: OK index of 8 certificates: each listed file present and unchanged, no other file in the folder"
    assert all(": OK " in line for line in lines)


def test_a_stale_file_fails(fresh):
    _, certs = fresh
    stale = certs / "V5_lower.json"  # e.g. left from an earlier run
    shutil.copy(next(certs.glob("*V3_lower.json")), stale)
    (certs / "notes.txt").write_text("mine\n")
    code, lines = _verify(certs)
    assert code == 1
    assert f"{stale}: FAILED index: not listed in {INDEX_FILE} (a stale or foreign file)" in lines
    assert f"{certs / 'notes.txt'}: FAILED index: not listed in {INDEX_FILE} (a stale or foreign file)" in lines
    assert lines[0] == f"{certs / INDEX_FILE}: FAILED index: files 2 not listed"


def test_a_missing_or_changed_file_fails(fresh):
    _, certs = fresh
    entries = json.loads((certs / INDEX_FILE).read_text())["certificates"]
    gone, edited = certs / entries[0]["file"], certs / entries[1]["file"]
    gone.unlink()
    edited.write_text(edited.read_text().replace('"margin"', ' "margin"', 1))  # same certificate, other bytes
    code, lines = _verify(certs)
    assert code == 1 and lines[0] == f"{certs / INDEX_FILE}: FAILED index: files 1 missing, 1 changed"
    assert f"{gone}: FAILED index: listed in {INDEX_FILE} but missing" in lines
    assert f"{edited}: FAILED index: its SHA-256 is not the one {INDEX_FILE} lists (changed after it was written)" in lines


@pytest.mark.parametrize("field, value, says", [("group", "d/gpt-5", "its group is 'd/gpt-4', but index.json lists 'd/gpt-5'"),
                                                ("objective", "V5", "its objective is 'V3', but index.json lists 'V5'"),
                                                ("side", "upper", "its side is 'lower', but index.json lists 'upper'")])
def test_a_certificate_that_does_not_match_its_entry_fails(fresh, field, value, says):
    _, certs = fresh
    index = json.loads((certs / INDEX_FILE).read_text())
    entry = next(e for e in index["certificates"] if (e["group"], e["objective"], e["side"]) == ("d/gpt-4", "V3", "lower"))
    entry[field] = value
    (certs / INDEX_FILE).write_text(json.dumps(index))
    code, lines = _verify(certs)
    assert code == 1 and f"{certs / entry['file']}: FAILED index: {says}" in lines


def test_another_data_file_fails(fresh):
    _, certs = fresh
    index = json.loads((certs / INDEX_FILE).read_text())
    index["data_sha256"] = "0" * 64
    (certs / INDEX_FILE).write_text(json.dumps(index))
    code, lines = _verify(certs)
    assert code == 1 and sum("FAILED index: its data SHA-256 is" in line for line in lines) == 8


def test_a_broken_index_fails_and_every_certificate_still_gets_its_line(fresh):
    _, certs = fresh
    (certs / INDEX_FILE).write_text('{"kind": "certificate-index", "schema_version": "1"}')
    code, lines = _verify(certs)
    assert code == 1 and lines[0].startswith(f"{certs / INDEX_FILE}: FAILED index: needs schema_version '1'")
    assert len(lines) == 9 and all(": OK " in line for line in lines[1:])


def test_a_non_empty_folder_is_replaced_only_with_force(fresh, capsys):
    data, certs = fresh
    before = {p.name: p.read_bytes() for p in certs.iterdir()}
    capsys.readouterr()
    assert _analyze(data, certs) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not empty" in err and "--force" in err
    assert {p.name: p.read_bytes() for p in certs.iterdir()} == before
    # --force replaces certify's own set: same files, same certificates (times aside)
    assert _analyze(data, certs, "--force") == 0
    assert sorted(p.name for p in certs.iterdir()) == sorted(before)
    assert _verify(certs)[0] == 0
    assert not list(certs.parent.glob(".certify-*"))


def test_force_never_deletes_a_file_certify_did_not_write(fresh, capsys):
    data, certs = fresh
    (certs / "notes.txt").write_text("mine\n")
    before = {p.name: p.read_bytes() for p in certs.iterdir()}
    capsys.readouterr()
    assert _analyze(data, certs, "--force") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "certify did not write there ('notes.txt')" in err and "never deletes" in err
    assert {p.name: p.read_bytes() for p in certs.iterdir()} == before


def test_an_old_set_without_index_is_not_replaced(fresh, capsys):
    data, certs = fresh
    (certs / INDEX_FILE).unlink()
    capsys.readouterr()
    assert _analyze(data, certs, "--force") == 2
    assert "holds 8 file(s) certify did not write there" in capsys.readouterr().err


def _one_line_and_nothing_left(capsys, code: int, folder: Path, says: str) -> None:
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and says in err, err
    assert not folder.exists() or not any(folder.iterdir())
    parent = folder.parent if folder.parent.exists() else None
    assert parent is None or not list(parent.glob(".certify-*"))


def test_an_empty_name_is_one_line(written, capsys):
    data, _ = written
    capsys.readouterr()
    assert main(["analyze", str(data), *ARGS, "--certificates", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--certificates '': an empty name" in err


@pytest.mark.parametrize("where", ["long name", "proc", "a file"])
def test_unusable_folders_are_one_line(written, tmp_path, capsys, where):
    data, _ = written
    folder = {"long name": tmp_path / ("c" * 300), "proc": Path("/proc/x"), "a file": tmp_path / "f"}[where]
    if where == "a file":
        folder.write_text("")
    capsys.readouterr()
    code = _analyze(data, folder)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--certificates" in err, err
    assert where == "a file" or folder.name not in os.listdir(folder.parent)
    assert not list(tmp_path.glob(".certify-*"))


def test_a_failed_write_leaves_nothing(written, tmp_path, capsys, monkeypatch):
    """Failure injection: the disk fills up at the third file; no partial set, and an earlier set is kept."""
    data, certs = written
    real, calls = certify._files.write_atomically, []

    def failing(path, content, **kw):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, content, **kw)

    monkeypatch.setattr(certify._files, "write_atomically", failing)
    capsys.readouterr()
    _one_line_and_nothing_left(capsys, _analyze(data, tmp_path / "new"), tmp_path / "new",
                               "cannot write (No space left on device); nothing was written")
    # replacing an earlier set that fails keeps the earlier set whole
    shutil.copytree(certs, tmp_path / "old")
    before = {p.name: p.read_bytes() for p in (tmp_path / "old").iterdir()}
    calls.clear()
    assert _analyze(data, tmp_path / "old", "--force") == 2
    assert "No space left on device" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "old").iterdir()} == before
    assert not list(tmp_path.glob(".certify-*"))


@pytest.fixture
def small_disk(tmp_path):
    """A 12 kB tmpfs (root only): room for a few certificates, not for the set."""
    mount = tmp_path / "disk"
    mount.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12k", "tmpfs", str(mount)], capture_output=True, check=False)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root); test_a_failed_write_leaves_nothing injects the failure instead")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_leaves_nothing(written, small_disk, capsys):
    data, _ = written
    capsys.readouterr()
    _one_line_and_nothing_left(capsys, _analyze(data, small_disk / "certs"), small_disk / "certs",
                               "nothing was written")
    assert list(small_disk.iterdir()) == []


def test_read_only_place_is_one_line(written, tmp_path, capsys):
    data, _ = written
    ro = tmp_path / "ro"
    ro.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True, check=False)
    if r.returncode != 0:
        os.chmod(ro, 0o500)  # not root: permissions suffice
    try:
        capsys.readouterr()
        _one_line_and_nothing_left(capsys, _analyze(data, ro / "certs"), ro / "certs", "--certificates")
    finally:
        if r.returncode == 0:
            subprocess.run(["umount", str(ro)], check=False)


def test_each_interval_is_solved_once(written, tmp_path, monkeypatch, capsys):
    """One NPMLE and one batch of interval ends per group: the certificates are built from the analysis."""
    import certify.likelihood._calibration as calibration
    import certify.likelihood._intervals as intervals
    import certify.likelihood._npmle as npmle_module

    data, _ = written
    counts = {"npmle": 0, "ends": 0}
    real_ends = intervals._all_ends

    for module in (calibration, npmle_module):  # the analysis's own solve, or one inside a batch

        def npmle(*a, _real=module._npmle, **kw):
            counts["npmle"] += 1
            return _real(*a, **kw)

        monkeypatch.setattr(module, "_npmle", npmle)

    def ends(*a, **kw):
        counts["ends"] += 1
        return real_ends(*a, **kw)

    monkeypatch.setattr(intervals, "_all_ends", ends)
    assert _analyze(data, tmp_path / "certs") == 0
    assert counts == {"npmle": len(GROUPS), "ends": len(GROUPS)}
    assert "wrote 8 certificates and index.json" in capsys.readouterr().err


def test_objectives_are_certified_too(written, tmp_path, capsys):
    """``--objective`` intervals get their two certificates beside the budgets' and gains', listed in the index."""
    data, _ = written
    assert _analyze(data, tmp_path / "certs", "--objective", "1 - (1-q)**8") == 0
    assert "wrote 12 certificates and index.json" in capsys.readouterr().err
    index = json.loads((tmp_path / "certs" / INDEX_FILE).read_text())
    assert sorted({e["objective"] for e in index["certificates"]}) == ["1 - (1-q)**8", "V3", "V3 - V1"]
    code, lines = _verify(tmp_path / "certs")
    assert code == 0 and len(lines) == 1 + 12 and all(": OK " in line for line in lines)
    assert any(": OK lower bound of E[1 - (1-q)**8] >= " in line for line in lines)


def test_data_beyond_the_lagrangian_budget_are_refused_before_solving(tmp_path, capsys, monkeypatch):
    """320 examples of K = 2000 calls with 320 distinct counts: the Lagrangian's cost 320 x 2000 x (603 + 39)
    = 4.1e8 exceeds MAX_LAGRANGIAN_COST, so analyze refuses before reading further or solving."""
    import certify.analysis._analyze as report
    from certify.certificates import MAX_CALLS, MAX_LAGRANGIAN_COST, lagrangian_cost

    examples = 320
    assert lagrangian_cost([MAX_CALLS] * examples) == examples * MAX_CALLS * (603 + 39) > MAX_LAGRANGIAN_COST
    data = tmp_path / "wide.csv"
    header = "example_id," + ",".join(f"c{j}" for j in range(MAX_CALLS))
    data.write_text(header + "\n" + "".join(f"e{i}," + ",".join("1" if j < i else "0" for j in range(MAX_CALLS)) + "\n"
                                            for i in range(examples)))
    monkeypatch.setattr(report, "likelihood_intervals", lambda *a, **k: pytest.fail("solved before refusing"))
    assert main(["analyze", str(data), "--certificates", str(tmp_path / "certs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the Lagrangian's cost estimate 4.11e+08 of 320 cells of up to 2000 calls" in err
    assert not (tmp_path / "certs").exists()


def test_a_long_objective_keeps_a_short_file_name_that_names_its_exact_text():
    """Any --objective expression gives a file name far below 255 bytes; two long ones sharing a prefix differ."""
    from certify.certificates._index import OBJECTIVE_CHARS, certificate_file_name

    long_a = " + ".join(f"q**{k}/{k + 1}" for k in range(1, 80))
    long_b = long_a + " + q"
    a, b = (certificate_file_name("gpt-4", o, "upper") for o in (long_a, long_b))
    assert a != b and len(a.encode()) < 150 and len(b.encode()) < 150
    digest = hashlib.sha256(long_a.encode()).hexdigest()[:8]
    assert a.endswith(f"-{digest}_upper.json") and len(a.split("_upper")[0]) < 40 + 9 + OBJECTIVE_CHARS + 10
    # short names are kept as they were: V3 - V1 is still V3_V1
    assert certificate_file_name("", "V3 - V1", "lower") == "V3_V1_lower.json"
