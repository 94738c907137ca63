"""Outputs never replace what is not a regular file, never overwrite a file unasked, and fail in one line.

Device nodes are made with ``mknod`` in a scratch folder (root only, as CI runs), so the
system's own devices are never at stake; a full disk is ``/dev/full``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import pytest

from certify._files import OutputError, check_output, write_atomically

CERT = ["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "upper"]


def cli(*args, timeout=60, **kw):
    return subprocess.run([sys.executable, "-m", "certify.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


def one_line_error(r, code=2):
    assert r.returncode == code, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    return r.stderr


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")


@root_only
def test_a_character_device_is_written_through_not_replaced(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    r = cli(*CERT, "-o", str(null))
    assert r.returncode == 0, r.stderr
    st = os.stat(null)
    assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3
    assert sorted(os.listdir(tmp_path)) == ["null"]  # no temporary file left either


@root_only
def test_a_block_device_is_refused(tmp_path):
    blk = tmp_path / "blk"
    os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(7, 0))
    assert "is a block device" in one_line_error(cli(*CERT, "-o", str(blk), "--force"))
    assert stat.S_ISBLK(os.stat(blk).st_mode)


def test_a_link_to_standard_output_stays_a_link_and_the_json_reaches_stdout(tmp_path):
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    r = cli(*CERT, "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert '"kind": "sharp-bound-certificate"' in r.stdout


def test_a_link_to_a_file_keeps_the_link_and_replaces_its_target_only_with_force(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("recorded\n")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    assert "exists; pass --force" in one_line_error(cli(*CERT, "-o", str(link)))
    assert target.read_text() == "recorded\n"
    r = cli(*CERT, "-o", str(link), "--force")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and '"sharp-bound-certificate"' in target.read_text()


def test_an_existing_file_is_kept_unless_force(tmp_path):
    out = tmp_path / "c.json"
    out.write_text("mine\n")
    assert one_line_error(cli(*CERT, "-o", str(out))).endswith(f"-o {str(out)!r} exists; pass --force to replace it\n")
    assert out.read_text() == "mine\n"


def test_a_pipe_without_a_reader_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "a named pipe that no process reads" in one_line_error(cli(*CERT, "-o", str(fifo), timeout=30))


def test_a_pipe_with_a_reader_receives_the_certificate(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    opened = threading.Event()

    def read():
        # O_NONBLOCK lets the reader open before any writer exists; then read until EOF.
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        opened.set()
        os.set_blocking(fd, True)
        chunks = []
        while True:
            try:
                b = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not b and chunks:
                break
            if b:
                chunks.append(b)
        os.close(fd)
        got.append(b"".join(chunks))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    opened.wait(10)
    r = cli(*CERT, "-o", str(fifo))
    t.join(30)
    assert r.returncode == 0, r.stderr
    assert got and b'"sharp-bound-certificate"' in got[0]


@pytest.mark.parametrize("args", [["bounds", "--mu", "0.7", "--rho", "0.2"], ["bounds", "--mu", "0.7", "--rho", "0.2", "--json"], CERT])
def test_a_full_disk_on_standard_output_is_one_line(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "certify.cli.main", *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [f"certify {args[0]}: error: standard output: No space left on device"]


@pytest.mark.parametrize("name, rule", [("", "an empty name"), ("a" * 300, "File name too long")])
def test_unusable_names_are_one_line(tmp_path, name, rule):
    out = str(tmp_path / name) if name else name
    assert rule in one_line_error(cli(*CERT, "-o", out))


def test_check_output_rules(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a directory"):
        check_output(tmp_path / "d", option="-o")
    with pytest.raises(OutputError, match="exists; pass --force"):
        check_output(tmp_path / "f", option="-o")
    assert check_output(tmp_path / "f", option="-o", force=True) == tmp_path / "f"
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_output(tmp_path / "f", option="--certificates", folder=True)
    with pytest.raises(OutputError, match="does not exist"):
        check_output(tmp_path / "no" / "x.json", option="-o")
    assert isinstance(OutputError("x"), ValueError)


def test_write_atomically_refuses_a_directory_target(tmp_path):
    with pytest.raises(OutputError, match="is a directory"):
        write_atomically(tmp_path, "x")


@pytest.mark.parametrize("length", [242, 250, 255])
def test_a_name_up_to_255_bytes_is_written(tmp_path, length):
    """The temporary name is short and fixed (not the name plus a suffix), so every valid name works."""
    name = "c" * (length - len(".json")) + ".json"
    r = cli(*CERT, "-o", str(tmp_path / name))
    assert r.returncode == 0, r.stderr
    assert '"sharp-bound-certificate"' in (tmp_path / name).read_text()
    assert os.listdir(tmp_path) == [name]
    # and a name of two-byte characters (é is 2 bytes in UTF-8) of about the same length
    wide = "é" * ((length - 5) // 2) + ".json"
    write_atomically(tmp_path / wide, "{}\n")
    assert (tmp_path / wide).read_text() == "{}\n"
