"""Stores and configs a user points `certify` at: nothing foreign is written, nothing nested hangs or crashes.

Every case ends with one line and exit 2 (or a correct result), and the files come back as they were.
"""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from certify.experiment import CallRecord, RunStore, load_config, run_experiment
from certify.experiment import _backends
from certify import _extras
from certify._errors import InputError
from exp_helpers import BUILTIN_DATASET, EMBEDDED_CHOICE, cli, policy, write_config


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign_db(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (x TEXT)")
    db.execute("INSERT INTO notes VALUES ('mine')")
    db.commit()
    db.close()


def test_a_foreign_database_is_never_turned_into_a_store(tmp_path):
    path = tmp_path / "other.sqlite"
    _foreign_db(path)
    before = digest(path)
    with pytest.raises(InputError, match="not a usable SQLite run store"):
        RunStore(path, create=True)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_analyze_leaves_no_wal_or_shm_beside_a_store_it_only_reads(tmp_path):
    path = tmp_path / "s.sqlite"
    with RunStore(path, create=True) as s:
        s.bind_draw("d", "compare", "d.jsonl", "ab" * 32, [(f"e{i}", "Yes") for i in range(6)])
        s.save([CallRecord("d", "p", f"e{i}", r, 1, "Yes", "Yes", "regex", True, bool((i * 3 + r) % 4), 0.1, None, None,
                           None, "x", 1, 0.0) for i in range(6) for r in range(3)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    before = digest(path)
    out = cli("analyze", str(path), "--votes", "3", "--method", "two-call")
    assert "Traceback" not in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    assert digest(path) == before


def test_a_missing_extra_is_found_before_the_store_is_created(tmp_path, monkeypatch):
    """The requirement table is consulted first: a package the backend needs that is absent stops the run."""
    cfg_path = write_config(tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), datasets=BUILTIN_DATASET.format(n=2),
                            backends=EMBEDDED_CHOICE, policies=policy("p", "embedded", "gemma3:270m", 0.5, 1))
    monkeypatch.setitem(_extras.EXTRA_OF, "certify_no_such_package_xyz", "experiment")
    monkeypatch.setitem(_backends.REQUIREMENTS, "embedded", (("certify_no_such_package_xyz", "the embedded backend"),))
    with pytest.raises(InputError, match="certify_no_such_package_xyz"):
        run_experiment(load_config(cfg_path), progress=False)
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("text", ["a = " + "[" * 5000 + "]" * 5000, "a = " + "{b = " * 3000 + "1" + "}" * 3000])
def test_a_deeply_nested_config_is_one_line(tmp_path, text):
    (tmp_path / "deep.toml").write_text(text + "\n")
    out = cli("experiment", "run", "deep.toml", cwd=tmp_path, timeout=60)
    assert out.returncode == 2
    assert out.stderr.splitlines() == ["certify experiment: error: config 'deep.toml': arrays or inline tables nested too deeply for a config"]


@pytest.mark.parametrize("path", ["/dev/zero", "FIFO"])
def test_a_config_that_is_not_a_regular_file_is_refused_at_once(tmp_path, path):
    import os

    if path == "FIFO":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    out = cli("experiment", "run", path, cwd=tmp_path, timeout=30)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [f"certify experiment: error: config {path!r}: cannot read (not a regular file)"]


@pytest.mark.parametrize("store", ["/proc/certify-no-such/s.sqlite", "a" * 300 + ".sqlite"])
def test_a_store_path_the_system_refuses_is_one_line(tmp_path, store):
    write_config(tmp_path / "c.toml", store=store, datasets=BUILTIN_DATASET.format(n=2),
                 backends=EMBEDDED_CHOICE, policies=policy("p", "embedded", "gemma3:270m", 0.5, 1))
    out = cli("experiment", "run", str(tmp_path / "c.toml"), "--no-progress", cwd=tmp_path, timeout=120)
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
