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


# ---- what appears at the output while certify works is never replaced, nor followed -----------------


def _write_later(path, seen):
    from certify._files import write_file_atomically

    return write_file_atomically(path, lambda tmp: open(tmp, "w").write("certify\n"), expect=seen)


@pytest.mark.parametrize("appears", ["a file", "a link to a file", "a dangling link", "a directory"])
def test_what_appears_after_the_check_is_kept(tmp_path, appears):
    from certify._files import OutputError, output_state

    out, victim = tmp_path / "out.json", tmp_path / "victim.txt"
    victim.write_text("precious\n")
    seen = output_state(out, option="-o")  # nothing there when the command checked, before its work
    if appears == "a file":
        out.write_text("appeared\n")
    elif appears == "a link to a file":
        out.symlink_to(victim.name)
    elif appears == "a dangling link":
        out.symlink_to("nowhere.txt")
    else:
        out.mkdir()
    with pytest.raises(OutputError, match=rf"^-o '{out}': .* appeared there while certify worked; it is kept"):
        _write_later(out, seen)
    assert victim.read_text() == "precious\n" and not (tmp_path / "nowhere.txt").exists()
    if appears == "a file":
        assert out.read_text() == "appeared\n"
    assert out.is_symlink() == ("link" in appears)
    assert not list(tmp_path.glob(".certify-*"))


def test_a_file_replaced_after_the_check_is_kept(tmp_path):
    from certify._files import OutputError, output_state

    out = tmp_path / "out.json"
    out.write_text("checked\n")
    seen = output_state(out)  # --force: this file may be replaced, and only this one
    out.rename(tmp_path / "kept.json")
    out.write_text("another\n")  # another file in its place (an editor's save)
    with pytest.raises(OutputError, match="it was replaced by another file while certify worked"):
        _write_later(out, seen)
    assert out.read_text() == "another\n" and (tmp_path / "kept.json").read_text() == "checked\n"
    out.unlink()
    out.symlink_to("elsewhere")
    seen = output_state(out)
    out.unlink()
    out.symlink_to("another.txt")
    with pytest.raises(OutputError, match="the symbolic link (was replaced|now leads elsewhere) while certify worked"):
        _write_later(out, seen)
    assert not (tmp_path / "another.txt").exists() and not (tmp_path / "elsewhere").exists()


def test_the_checked_file_and_a_file_that_was_removed_are_written(tmp_path):
    from certify._files import output_state

    out = tmp_path / "out.json"
    out.write_text("checked\n")
    _write_later(out, output_state(out))
    assert out.read_text() == "certify\n"
    seen = output_state(out)
    out.unlink()
    _write_later(out, seen)  # gone meanwhile: written where nothing is, replacing nothing
    assert out.read_text() == "certify\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_file_created_during_the_write_itself_is_kept(tmp_path):
    """Without an earlier check, what was there when the write started is all it may replace."""
    from certify._files import OutputError

    out = tmp_path / "out.json"

    def slow_writer(tmp):
        with open(tmp, "w") as fh:
            fh.write("certify\n")
        out.write_text("appeared\n")  # another process, while certify's file is being written

    with pytest.raises(OutputError, match="a file appeared there while certify worked"):
        write_file_atomically(out, slow_writer)
    assert out.read_text() == "appeared\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_folder_that_appeared_or_changed_before_the_rename_is_kept(tmp_path):
    from certify._files import OutputError, new_folder, publish_folder, write_atomically as write

    out = tmp_path / "set"
    new = new_folder(out, option="--x")
    write(new / "a.json", "1\n")
    out.write_text("appeared\n")  # a file where the folder goes
    with pytest.raises(OutputError, match=r"^--x '.*set': a file appeared there while certify worked; it is kept"):
        publish_folder(new, out, option="--x")
    assert out.read_text() == "appeared\n" and sorted(p.name for p in tmp_path.iterdir()) == ["set"]
    out.unlink()
    out.mkdir()
    (out / "mine.txt").write_text("x")  # a folder with a file certify did not write
    new = new_folder(out, option="--x")
    with pytest.raises(OutputError, match=r"holds 1 file\(s\) certify did not write there \('mine.txt'\)"):
        publish_folder(new, out, option="--x", force=True, previous={"a.json"})
    assert [p.name for p in out.iterdir()] == ["mine.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["set"]
