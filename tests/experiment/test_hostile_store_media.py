"""The run store under hostile conditions (issue "Nothing breaks it, part two", items 14, 15 and 18).

* one run per store whatever name the store is reached by (a symbolic link to it or to its folder);
* a complete store on read-only media is read by ``status``, ``export``, ``analyze`` and ``report``;
* a disk that fills mid-run ends the run with one line, exit 1, and the store intact.

Read-only media and a full disk are real here: a small tmpfs mounted for the test (tests run
as root, whom file modes do not stop), remounted read-only; without the right to mount, the
tests that need one are skipped and say so.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from certify.experiment import CallRecord, RunStore, StoreError, StoreInUseError
from certify.experiment._store import writer_lock
from exp_helpers import BUILTIN_DATASET, cli, policy, spawn, write_config
from hostile_server import GOOD, mount_tmpfs, remount, start_server, stop_server, unmount


# -- item 14: the writer lock is keyed on the store itself ---------------------------------------

def test_the_lock_holds_through_a_link_to_the_store_or_to_its_folder(tmp_path):
    real = tmp_path / "runs" / "s.sqlite"
    real.parent.mkdir()
    (tmp_path / "link.sqlite").symlink_to(real)  # dangling: the store does not exist yet
    (tmp_path / "linked-runs").symlink_to(real.parent, target_is_directory=True)
    with writer_lock(real):
        for other in (tmp_path / "link.sqlite", tmp_path / "linked-runs" / "s.sqlite",
                      tmp_path / "runs" / ".." / "runs" / "s.sqlite"):
            with pytest.raises(StoreInUseError, match=rf"store {str(other)!r} is in use by process {os.getpid()}:"):
                with writer_lock(other):
                    pass
    assert sorted(p.name for p in real.parent.iterdir()) == ["s.sqlite.lock"]  # one lock file, beside the store
    with writer_lock(tmp_path / "link.sqlite"):  # free again
        pass


def test_a_second_run_through_a_symlink_is_refused_and_makes_no_call(tmp_path):
    srv = start_server(lambda hit, path, body: GOOD)
    srv.gate.clear()  # the first run waits on its first call, holding the lock
    try:
        (tmp_path / "link.sqlite").symlink_to(tmp_path / "s.sqlite")
        backends = f'[backends.ollama]\nendpoints = ["{srv.url}"]\nmax_retries = 0\n'
        first_cfg = write_config(tmp_path / "a.toml", store=str(tmp_path / "s.sqlite"), repeats=1,
                                 datasets=BUILTIN_DATASET.format(n=2), backends=backends,
                                 policies=policy("p", "ollama", "m", 1.0, 3))
        second_cfg = write_config(tmp_path / "b.toml", store=str(tmp_path / "link.sqlite"), repeats=1,
                                  datasets=BUILTIN_DATASET.format(n=2) + f'draw_file = "{tmp_path}/d.jsonl"\n',
                                  backends=backends, policies=policy("p", "ollama", "m", 1.0, 3))
        first = spawn("experiment", "run", str(first_cfg), "--no-progress", cwd=tmp_path)
        try:
            deadline = time.monotonic() + 60
            while srv.hits < 1:
                assert first.poll() is None and time.monotonic() < deadline, "the first run never called the server"
                time.sleep(0.02)
            second = cli("experiment", "run", str(second_cfg), "--no-progress", cwd=tmp_path)
            assert second.returncode == 2
            assert second.stderr.splitlines() == [
                f"certify experiment: error: store {str(tmp_path / 'link.sqlite')!r} is in use by process "
                f"{first.pid}: one run per store (wait for it or stop it)"
            ]
            assert srv.hits == 1  # the refused run made no call
            srv.gate.set()
            _, err = first.communicate(timeout=60)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
        assert first.returncode == 0, err
        assert srv.hits == 2
    finally:
        stop_server(srv)


# -- item 15: a complete store on read-only media ------------------------------------------------

@pytest.fixture
def media(tmp_path):
    """A small tmpfs at ``tmp_path/media``, unmounted at the end."""
    where = tmp_path / "media"
    mount_tmpfs(where, "8m")
    yield where
    unmount(where)


def _calls(n_examples, repeats):
    return [CallRecord("d", "p", f"e{i}", r, 1, "Yes", "Yes", "regex", True, bool((i + r) % 3), 0.1, 50, 4, "stop",
                       "x", 1, 0.0) for i in range(n_examples) for r in range(repeats)]


def _complete_store(path, n_examples=6, repeats=3):
    with RunStore(path, create=True) as s:
        s.bind_experiment("t", {"experiment": {"name": "t", "store": str(path), "repeats": repeats}})
        s.bind_draw("d", "compare", "d.jsonl", "ab" * 32, [(f"e{i}", "Yes") for i in range(n_examples)])
        s.bind_policy("p", {"kind": "ollama"})
        s.save(_calls(n_examples, repeats))


def _digests(folder) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_complete_store_on_read_only_media_is_read(media, tmp_path):
    store = media / "s.sqlite"
    _complete_store(store)
    remount(media, "ro")
    before = _digests(media)
    assert list(before) == ["s.sqlite"]

    st = cli("experiment", "status", str(store))
    assert st.returncode == 0, st.stderr
    assert "total 18/18 calls (complete)" in st.stdout
    ex = cli("experiment", "export", str(store), "-o", str(tmp_path / "bits.csv"))
    assert ex.returncode == 0, ex.stderr
    assert len((tmp_path / "bits.csv").read_text().splitlines()) == 7
    an = cli("analyze", str(store), "--votes", "3", "--method", "two-call")
    assert an.returncode == 0 and "Traceback" not in an.stderr, an.stderr
    with RunStore(store) as s:  # the library's default open reads it too
        assert len(s.call_rows()) == 18
        with pytest.raises(StoreError, match=r"cannot write \(attempt to write a readonly database\)"):
            s.set_meta({"x": "1"})
    assert _digests(media) == before  # nothing written, nothing left beside it


def test_a_store_that_needs_recovery_on_read_only_media_says_so(media):
    store = media / "s.sqlite"
    _complete_store(store, n_examples=2, repeats=1)
    # A writer killed after its commit leaves the calls in the write-ahead log only.
    code = (f"import os, sqlite3; db = sqlite3.connect({str(store)!r}, isolation_level=None); "
            "db.execute(\"UPDATE meta SET value = 'x' WHERE key = 'created_at'\"); os._exit(0)")
    subprocess.run([sys.executable, "-c", code], check=True)
    wal = media / "s.sqlite-wal"
    assert wal.stat().st_size > 0
    (media / "s.sqlite-shm").unlink()  # copied to the read-only medium without its index
    remount(media, "ro")
    out = cli("experiment", "status", str(store))
    assert out.returncode == 1
    assert out.stderr.splitlines() == [
        f"certify experiment: failed: store {str(store)!r}: its write-ahead log 's.sqlite-wal' holds calls not yet "
        "merged into the store, and its folder cannot be written; open it once where it can be written "
        "(copy the store with 's.sqlite-wal') to merge them"
    ]


# -- item 18: the disk fills mid-run --------------------------------------------------------------

def test_a_disk_that_fills_mid_run_is_one_line_and_the_store_stays_intact(tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "1m")
    srv = start_server(lambda hit, path, body: {**GOOD, "response": '{"answer": "Yes"}' + " " * 60_000})
    try:
        cfg = write_config(tmp_path / "c.toml", store=str(disk / "s.sqlite"), repeats=2,
                           datasets=BUILTIN_DATASET.format(n=20),
                           backends=f'[backends.ollama]\nendpoints = ["{srv.url}"]\nmax_retries = 0\n',
                           policies=policy("p", "ollama", "m", 1.0, 3))
        out = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
        assert out.returncode == 1
        assert out.stderr.splitlines() == [
            f"certify experiment: failed: store {str(disk / 's.sqlite')!r}: cannot write (database or disk is full); "
            "every call recorded before is kept, and the same command run again resumes from there"
        ]
        remount(disk, "size=16m")  # space again
        db = sqlite3.connect(disk / "s.sqlite")
        try:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            kept = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        finally:
            db.close()
        assert 0 < kept < 40
        again = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert f"recorded {40 - kept} calls (0 invalid), {kept} already in" in again.stdout
    finally:
        stop_server(srv)
        unmount(disk)
