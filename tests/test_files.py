"""Atomic writes: the mode follows the umask, failures leave the old file and no temporary file."""

from __future__ import annotations

import os
import stat

import pytest

from certify._files import current_umask, write_atomically, write_file_atomically


@pytest.fixture
def umask():
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask):
        os.umask(mask)
    yield set_mask
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o000])
def test_mode_follows_the_umask(tmp_path, umask, mask):
    umask(mask)
    assert current_umask() == mask
    path = write_atomically(tmp_path / "x.json", "{}\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert path.read_text() == "{}\n"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = write_atomically(tmp_path / "x.txt", b"old")

    def broken(tmp):
        with open(tmp, "wb") as fh:
            fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_file_atomically(path, broken)
    assert path.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


def test_missing_folder_is_an_error_unless_asked(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "no" / "x.txt", "a")
    assert not (tmp_path / "no").exists()
    assert write_atomically(tmp_path / "no" / "x.txt", "a", parents=True).read_text() == "a"


def test_certificates_and_reports_honour_the_umask(tmp_path, umask):
    from certify.certificates import certify_bound, dump
    from certify.report._figures import atomic_write

    umask(0o022)
    cert = dump(certify_bound(3, "upper", mu=0.7, nu=0.55), tmp_path / "c.json")
    table = atomic_write(tmp_path / "tables" / "t.md", "| a |\n")
    for p in (cert, table):
        assert stat.S_IMODE(p.stat().st_mode) == 0o644


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_a_folder_is_written_whole_with_the_umasks_modes(tmp_path, umask, mask):
    from certify._files import write_folder_atomically

    umask(mask)
    out = write_folder_atomically(tmp_path / "set", {"a.json": "1\n", "b.json": b"2\n"}, option="--x")
    assert sorted(p.name for p in out.iterdir()) == ["a.json", "b.json"] and (out / "b.json").read_bytes() == b"2\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask for p in out.iterdir())
    assert [p.name for p in tmp_path.iterdir()] == ["set"]


def test_replacing_a_folder_deletes_only_the_named_earlier_files(tmp_path):
    from certify._files import OutputError, write_folder_atomically

    out = write_folder_atomically(tmp_path / "set", {"a.json": "old", "b.json": "old"}, option="--x")
    with pytest.raises(OutputError, match="is not empty"):
        write_folder_atomically(out, {"c.json": "new"}, option="--x", previous={"a.json", "b.json"})
    with pytest.raises(OutputError, match=r"holds 1 file\(s\) certify did not write there \('b.json'\)"):
        write_folder_atomically(out, {"c.json": "new"}, option="--x", force=True, previous={"a.json"})
    write_folder_atomically(out, {"c.json": "new"}, option="--x", force=True, previous={"a.json", "b.json"})
    assert [p.name for p in out.iterdir()] == ["c.json"] and [p.name for p in tmp_path.iterdir()] == ["set"]
    # onto an empty folder: no --force needed
    (tmp_path / "empty").mkdir()
    write_folder_atomically(tmp_path / "empty", {"d.json": "x"}, option="--x")
    assert [p.name for p in (tmp_path / "empty").iterdir()] == ["d.json"]
