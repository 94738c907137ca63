"""The run store: one SQLite file per experiment, one row per completed call.

The file is in WAL mode with ``synchronous=FULL`` and every batch of results is
written in one transaction, so a process killed at any instant leaves every
committed call intact and no half-written row. Rows are only ever inserted
(``INSERT OR IGNORE``): nothing recorded is overwritten. See the README of this
package for the schema.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from ._errors import InputError, NotAStoreError, StoreError, StoreInUseError

if TYPE_CHECKING:
    from dataclasses import Field
    from typing import Any, ClassVar

try:
    import fcntl
except ImportError:  # not POSIX (Windows): no advisory lock, see writer_lock
    fcntl = None  # type: ignore[assignment]  # an optional module: None where it does not exist

__all__ = ["CallRecord", "LatentRecord", "RunStore", "SCHEMA_VERSION", "SERVING_FORMAT", "UNKNOWN", "writer_lock"]

SCHEMA_VERSION = 1

#: Version of the ``serving`` metadata entry (JSON). A new key in ``meta`` leaves the
#: tables, hence ``SCHEMA_VERSION``, unchanged: stores written before it still open.
SERVING_FORMAT = 1

# Serving facts that define what a policy's calls saw: a store never mixes two values.
_SERVING_PROTOCOL = ("response_format", "chat_template")
#: A serving fact the server does not reveal; it conflicts with no recorded value.
UNKNOWN = "unknown"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS draws (
    dataset TEXT PRIMARY KEY, task TEXT NOT NULL, path TEXT NOT NULL,
    sha256 TEXT NOT NULL, n INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS examples (
    dataset TEXT NOT NULL, example_id TEXT NOT NULL, position INTEGER NOT NULL,
    label TEXT NOT NULL, PRIMARY KEY (dataset, example_id));
CREATE TABLE IF NOT EXISTS policies (name TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS latent (
    dataset TEXT NOT NULL, policy TEXT NOT NULL, example_id TEXT NOT NULL,
    p_yes REAL NOT NULL, q REAL NOT NULL, logit_yes REAL, logit_no REAL,
    prompt_tokens INTEGER, PRIMARY KEY (dataset, policy, example_id));
CREATE TABLE IF NOT EXISTS calls (
    dataset TEXT NOT NULL, policy TEXT NOT NULL, example_id TEXT NOT NULL,
    repeat INTEGER NOT NULL, seed INTEGER NOT NULL, raw_output TEXT NOT NULL,
    answer TEXT, parse TEXT NOT NULL, valid INTEGER NOT NULL, correct INTEGER NOT NULL,
    latency_s REAL NOT NULL, prompt_tokens INTEGER, completion_tokens INTEGER,
    stop_reason TEXT, endpoint TEXT NOT NULL, attempts INTEGER NOT NULL,
    finished_at REAL NOT NULL, PRIMARY KEY (dataset, policy, example_id, repeat));
"""


class _Record:
    """to_dict/from_dict and SQL column helpers shared by the record dataclasses."""

    if TYPE_CHECKING:  # every subclass is a dataclass: the fields asdict() and fields() read
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def to_dict(self) -> dict:
        """Plain-dict form (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        """Build from a dict with exactly the record's keys."""
        names = [f.name for f in fields(cls)]
        if set(d) != set(names):
            raise InputError(f"{cls.__name__} needs keys {', '.join(names)}; got {', '.join(sorted(d))}")
        return cls(**d)

    @classmethod
    def columns(cls) -> list[str]:
        return [f.name for f in fields(cls)]


@dataclass(frozen=True)
class CallRecord(_Record):
    """Everything recorded about one call.

    Attributes
    ----------
    dataset, policy, example_id : str
        What was asked, under which condition.
    repeat : int
        Repeat index (0-based).
    seed : int
        The per-call decoding seed sent to the backend.
    raw_output : str
        The model's text exactly as returned.
    answer : str or None
        Parsed answer, one of the task's (``"Yes"``/``"No"``); ``None`` for an invalid output.
    parse : str
        ``json``, ``regex`` or ``none`` (see :func:`certify.experiment.parse_answer`).
    valid : bool
        Whether an answer was recovered.
    correct : bool
        ``answer == label``; an invalid output counts as incorrect.
    latency_s : float
        Wall time of the successful request (choice mode: of the draw).
    prompt_tokens, completion_tokens : int or None
        Token counts reported by the backend.
    stop_reason : str or None
        The backend's stop reason (``stop``, ``length``, ``choice``...).
    endpoint : str
        Which endpoint served the call.
    attempts : int
        Requests made, 1 + retries.
    finished_at : float
        Unix time the result arrived.
    """

    dataset: str
    policy: str
    example_id: str
    repeat: int
    seed: int
    raw_output: str
    answer: str | None
    parse: str
    valid: bool
    correct: bool
    latency_s: float
    prompt_tokens: int | None
    completion_tokens: int | None
    stop_reason: str | None
    endpoint: str
    attempts: int
    finished_at: float


@dataclass(frozen=True)
class LatentRecord(_Record):
    """An example's latent answer law under a policy (embedded ``choice`` mode).

    A task with more answers than Yes/No is stored as a right call against a wrong
    one: ``p_yes = q``, ``logit_yes`` the label's logit and ``logit_no`` the
    log-sum-exp of the other answers' logits.

    Attributes
    ----------
    p_yes : float
        Probability that one call answers Yes (temperature and top-p applied).
    q : float
        Latent success probability q_i: ``p_yes`` if the label is Yes, else ``1 - p_yes``.
    logit_yes, logit_no : float
        Raw next-token logits of the two answers after the forced JSON prefix.
    prompt_tokens : int
        Tokens in the prompt pass.
    """

    dataset: str
    policy: str
    example_id: str
    p_yes: float
    q: float
    logit_yes: float
    logit_no: float
    prompt_tokens: int


class RunStore:
    """An open run store.

    Parameters
    ----------
    path : str or Path
        The SQLite file.
    create : bool
        Create the file if absent; otherwise a missing file is an :class:`InputError`.
    read_only : bool
        Open without writing anything (statistics, status, export). An existing store
        (``create=False``) that cannot be written, on read-only media or in a folder that
        is not the caller's to write, is opened this way too; a complete store on
        read-only media is read as it is (see :meth:`_open_read_only`).

    Raises
    ------
    StoreError
        The system refused a write (``database or disk is full``): one line, the calls
        committed before are intact. Writes to a store opened read-only fail the same way.
    """

    def __init__(self, path: str | Path, create: bool = False, read_only: bool = False):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError(f"store {str(self.path)!r}: no such file")
        # A file that exists is a store already, or it is not ours to write: another program's
        # database comes back unchanged. A missing path or an empty file (SQLite's empty
        # database, nothing in it to lose) becomes a new store.
        if create and not read_only and self.path.exists() and self.path.stat().st_size > 0:
            self._check_existing()
        # An existing store that cannot be written (read-only media, a folder not ours) is
        # opened to be read: status, export and report only read it.
        read_only = read_only or (not create and not _writable(self.path))
        # SQLite creates -wal and -shm beside a WAL store even for a read-only connection, and
        # only a writer removes them: those this reader made are removed again by close().
        self._made = [] if not read_only else [f for f in _sidecars(self.path) if not f.exists()]
        try:
            if read_only:
                # statistics only read: a file that is not a store must come back unchanged
                version = self._open_read_only()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Autocommit mode: transactions are opened explicitly with BEGIN IMMEDIATE.
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA busy_timeout = 10000")
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = FULL")
                self._db.executescript(_SCHEMA)
                version = self.meta("schema_version")
        except sqlite3.DatabaseError as exc:
            if _out_of_space(exc):
                raise self._write_failed(exc) from None
            raise self._unusable(exc) from None
        if version is None and read_only:
            raise self._unusable("no schema version")
        if version is None:
            self.set_meta({"schema_version": str(SCHEMA_VERSION), "created_at": str(time.time())})
        elif version != str(SCHEMA_VERSION):
            raise StoreError(f"store {str(self.path)!r}: schema version {version}, this certify reads {SCHEMA_VERSION}")

    def _open_read_only(self) -> str | None:
        """Connect without writing anything and return the schema version.

        SQLite reads a WAL store through its -shm index, which it must be able to create
        beside the store: on read-only media (a folder that cannot be written) that open
        fails. A store whose write-ahead log is absent or empty holds every committed call
        in its main file, and nothing can change it there, so it is then opened as
        ``immutable`` (no -shm, no locks). A non-empty log holds calls the main file lacks:
        reading without it would lose them, so such a store is refused with what to do.
        """
        uri = self.path.resolve().as_uri()
        self._db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout = 10000")
        try:
            return self.meta("schema_version")
        except sqlite3.OperationalError:
            if _writable(self.path):
                raise  # not a read-only medium: the error is the file's own
        self._db.close()
        wal = _sidecars(self.path)[0]
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"store {str(self.path)!r}: its write-ahead log {wal.name!r} holds calls not yet merged into the "
                f"store, and its folder cannot be written; open it once where it can be written (copy the store "
                f"with {wal.name!r}) to merge them"
            )
        self._db = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False)
        return self.meta("schema_version")

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite).

        A read-only store removes the empty -wal and -shm files its own connection created,
        unless a run holds the writer lock (its connection uses them).
        """
        self._db.close()
        wal = self.path.with_name(self.path.name + "-wal")
        if self._made and wal.exists() and wal.stat().st_size == 0 and not _writer_active(self.path):
            for f in self._made:
                f.unlink(missing_ok=True)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- metadata -------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        """A metadata value, or ``None``."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, items: dict[str, str]) -> None:
        """Insert or update metadata entries in one transaction."""
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", items.items())

    def bind_experiment(self, name: str, config: dict) -> None:
        """Claim the store for experiment ``name`` (refusing another's store) and record its config."""
        owner = self.meta("experiment")
        if owner is not None and owner != name:
            raise StoreError(f"store {str(self.path)!r} belongs to experiment {owner!r}, not {name!r}")
        self.set_meta({"experiment": name, "config": json.dumps(config, sort_keys=True)})

    def bind_policy(self, name: str, identity: dict) -> None:
        """Record a policy's identity, refusing a changed one (its calls would mix two protocols)."""
        text = json.dumps(identity, sort_keys=True)
        row = self._db.execute("SELECT identity FROM policies WHERE name = ?", (name,)).fetchone()
        if row is None:
            with self._transaction():
                self._db.execute("INSERT INTO policies VALUES (?, ?)", (name, text))
        elif row[0] != text:
            old = json.loads(row[0])
            diff = ", ".join(f"{k} {old.get(k)!r} -> {v!r}" for k, v in identity.items() if old.get(k) != v)
            raise StoreError(f"policy {name!r} differs from the one recorded in {str(self.path)!r} ({diff}); rename it")

    def bind_draw(self, dataset: str, task: str, path: str, sha256: str, labels: list[tuple[str, str]]) -> None:
        """Record a data set's draw file and examples, refusing a different draw for the same name."""
        row = self._db.execute("SELECT sha256, path FROM draws WHERE dataset = ?", (dataset,)).fetchone()
        if row is not None:
            if row[0] != sha256:
                raise StoreError(
                    f"dataset {dataset!r}: draw file {path!r} differs from the one recorded "
                    f"({row[1]!r}, sha256 {row[0][:12]})"
                )
            return
        with self._transaction():
            self._db.execute("INSERT INTO draws VALUES (?, ?, ?, ?, ?)", (dataset, task, path, sha256, len(labels)))
            self._db.executemany(
                "INSERT INTO examples VALUES (?, ?, ?, ?)",
                [(dataset, eid, pos, label) for pos, (eid, label) in enumerate(labels)],
            )

    def serving(self, policies: list[str]) -> dict:
        """What earlier runs recorded about how ``policies`` were served (empty if nothing).

        Policies that share a backend are served alike, so their records must agree
        on the response format.
        """
        recorded = {name: rec for name, rec in self.serving_records().items() if name in policies}
        formats = {rec.get("response_format") for rec in recorded.values()}
        if len(formats) > 1:
            pairs = ", ".join(f"{n}: {r.get('response_format')}" for n, r in sorted(recorded.items()))
            raise StoreError(
                f"policies recorded with different response formats share one backend ({pairs}); "
                "give them separate [backends] tables"
            )
        return next(iter(recorded.values()), {})

    def bind_serving(self, policy: str, facts: dict) -> None:
        """Record how ``policy`` is served (response format, chat template), refusing a change.

        A first record is kept for good: it describes the calls already made. A later
        run whose facts differ from it (``unknown`` matches anything) is refused, as
        :meth:`bind_policy` refuses a changed identity.
        """
        doc = self._serving()
        old = doc["policies"].setdefault(policy, facts)
        for key in _SERVING_PROTOCOL:
            was, now = old.get(key), facts.get(key)
            if was != now and UNKNOWN not in (was, now):
                raise StoreError(
                    f"policy {policy!r}: its calls in {str(self.path)!r} used {key.replace('_', ' ')} {was!r}, "
                    f"this run would use {now!r}; a store never mixes two protocols (rename the policy)"
                )
        self.set_meta({"serving": json.dumps(doc, sort_keys=True)})

    def serving_records(self) -> dict[str, dict]:
        """Every policy's serving record by policy name (see :meth:`bind_serving`)."""
        return self._serving()["policies"]

    def _serving(self) -> dict:
        text = self.meta("serving")
        if text is None:
            return {"format": SERVING_FORMAT, "policies": {}}
        doc = json.loads(text)
        if doc.get("format") != SERVING_FORMAT:
            raise StoreError(
                f"store {str(self.path)!r}: serving record format {doc.get('format')}, "
                f"this certify reads {SERVING_FORMAT}"
            )
        return doc

    # -- calls ----------------------------------------------------------------
    def completed(self, dataset: str, policy: str, example_ids: list[str] | None = None) -> set[tuple[str, int]]:
        """(example_id, repeat) of every recorded call of a (dataset, policy), or of its ``example_ids`` only.

        A run asks for a chunk of examples at a time (at most a few hundred ids, one query),
        so that it never loads every recorded call of a large store.
        """
        rows = self._select("example_id, repeat", "calls", dataset, policy, example_ids)
        return {(r[0], r[1]) for r in rows}

    def _select(self, columns: str, table: str, dataset: str, policy: str, example_ids: list[str] | None):
        """Rows of ``columns`` of ``table`` for a (dataset, policy), of ``example_ids`` only if given (one query).

        ``columns`` and ``table`` are this module's own constants, never user input.
        """
        sql = f"SELECT {columns} FROM {table} WHERE dataset = ? AND policy = ?"
        if example_ids is None:
            return self._db.execute(sql, (dataset, policy))
        return self._db.execute(
            f"{sql} AND example_id IN ({', '.join('?' * len(example_ids))})", (dataset, policy, *example_ids)
        )

    def count_completed(self, dataset: str, policy: str, repeats: int) -> int:
        """Recorded calls of a (dataset, policy) with a repeat below ``repeats`` and an example of the draw."""
        ((n,),) = self.query(
            """SELECT COUNT(*) FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
               WHERE c.dataset = ? AND c.policy = ? AND c.repeat < ?""",
            (dataset, policy, repeats),
        )
        return n

    def latents(self, dataset: str, policy: str, example_ids: list[str] | None = None) -> dict[str, float]:
        """Recorded ``p_yes`` by example id (choice mode), reused on resume; of ``example_ids`` only if given."""
        rows = self._select("example_id, p_yes", "latent", dataset, policy, example_ids)
        return dict(rows.fetchall())

    def save(self, calls: list[CallRecord], latents: Sequence[LatentRecord] = ()) -> list[CallRecord]:
        """Insert results in one transaction; rows already present are kept, never replaced.

        Returns
        -------
        list of CallRecord
            The calls actually inserted (not those the store already held), so that a
            run counts only what it added.
        """
        added = []
        with self._transaction():
            if latents:
                self._db.executemany(_insert_sql(LatentRecord, "latent"), [_row(r) for r in latents])
            sql = _insert_sql(CallRecord, "calls")
            for call in calls:
                if self._db.execute(sql, _row(call)).rowcount:
                    added.append(call)
        return added

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Run a read-only query (for status and export)."""
        return self._db.execute(sql, params).fetchall()

    def call_rows(self) -> list[tuple]:
        """Every recorded call as ``(dataset, policy, example_id, repeat, correct, answer)``.

        Ordered by dataset, policy, the example's position in the draw and repeat: the
        :class:`certify.readers.CallTable` through which the readers read a store
        (:func:`certify.readers.read_call_table`); ``answer`` is the parsed answer (``None``
        for an output without one). A call whose example is not in the store's examples
        table has no place in the draw: the store is refused rather than read without it.
        """
        try:
            ((calls, examples, first),) = self.query(
                """SELECT COUNT(*), COUNT(DISTINCT c.dataset || '/' || c.example_id),
                          MIN(c.dataset || '/' || c.example_id)
                   FROM calls c LEFT JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
                   WHERE e.example_id IS NULL"""
            )
            if calls:
                raise self._unusable(
                    f"{calls} recorded call(s) of {examples} example(s) missing from its examples table, "
                    f"the first {first}"
                )
            return self.query(
                """SELECT c.dataset, c.policy, c.example_id, c.repeat, c.correct, c.answer
                   FROM calls c JOIN examples e ON e.dataset = c.dataset AND e.example_id = c.example_id
                   ORDER BY c.dataset, c.policy, e.position, c.repeat"""
            )
        except sqlite3.DatabaseError as exc:  # a corrupted page shows only when it is read
            raise self._unusable(exc) from None

    def _check_existing(self) -> None:
        """Refuse to turn an existing file that is not a certify run store into one."""
        if not self.path.is_file():
            raise InputError(f"store {str(self.path)!r}: not a regular file")
        try:
            with RunStore(self.path, read_only=True):
                pass
        except NotAStoreError:
            raise
        except StoreError:
            pass  # a store of another schema version: the writable open names the version

    def _unusable(self, why) -> NotAStoreError:
        """The one message for a file that cannot be read as a run store."""
        return NotAStoreError(f"store {str(self.path)!r}: not a usable SQLite run store ({why})")

    def _write_failed(self, exc: BaseException) -> StoreError:
        """The one message for a write the system refused (disk full, read-only, I/O error).

        SQLite rolls the failed transaction back: every call committed before it is intact.
        """
        why = getattr(exc, "strerror", None) or str(exc)
        return StoreError(
            f"store {str(self.path)!r}: cannot write ({why}); every call recorded before is kept, "
            "and the same command run again resumes from there"
        )

    def _transaction(self):
        return _Transaction(self)


def _insert_sql(rec_type, table: str) -> str:
    cols = rec_type.columns()
    return f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"


def _row(record: _Record) -> tuple:
    return tuple(getattr(record, c) for c in record.columns())


def _sidecars(path: Path) -> tuple[Path, Path]:
    """SQLite's -wal and -shm files of a store."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _lock_path(store: str | Path) -> Path:
    """The writer lock file of a store: ``<store>.lock`` beside the file the path names.

    Symbolic links (of the store or of a folder on its way) and ``..`` are resolved first, so
    that every name of one store locks one file. A store that does not exist yet resolves
    like one that does (a dangling link names the file it will create).
    """
    real = Path(os.path.realpath(store))
    return real.with_name(real.name + ".lock")


def _writable(store: Path) -> bool:
    """Whether the store and its folder can be written (SQLite writes -wal and -shm beside it)."""
    return os.access(store.parent, os.W_OK) and (not store.exists() or os.access(store, os.W_OK))


def _out_of_space(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed because the system refused a write (disk full, I/O error)."""
    return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_FULL", "SQLITE_IOERR"))


#: ``errno`` values of a write the system refused for want of space (or of a failing disk).
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EIO)


def _lock_failed(store: Path, lock: Path, exc: OSError) -> StoreError:
    return StoreError(f"store {str(store)!r}: cannot write its lock file {str(lock)!r} ({exc.strerror or exc})")


def _writer_active(store: Path) -> bool:
    """Whether a run holds the store's writer lock now (:func:`writer_lock`); never creates the lock file."""
    lock = _lock_path(store)
    if fcntl is None or not lock.exists():
        return False
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return True  # cannot tell: keep the files
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the descriptor releases the shared lock


@contextmanager
def writer_lock(store: str | Path):
    """Hold the store's writer lock for the duration of the ``with`` block.

    Two runs on one store would both make every missing call (twice the API cost),
    so a run takes an exclusive ``flock`` on ``<store>.lock`` and writes its pid there.
    ``flock`` rather than SQLite's own locks: SQLite locks a store only for the
    length of a transaction, and a run commits batch by batch so that a kill loses
    little; and the kernel releases a ``flock`` when its process dies, however it
    dies, so a crash never leaves a stale lock. The lock file is never deleted
    (unlinking it would let a second process lock a fresh file while the first
    still holds the old one). Readers (``status``, ``export``) take no lock.

    The lock file sits beside the store's real path (:func:`_lock_path`): a store
    reached through a symbolic link, or through a linked folder, is the same store.

    Raises
    ------
    StoreInUseError
        Another process holds the lock (the message names its pid).
    StoreError
        The system refused to write the lock file (a full disk).
    """
    path = Path(store)
    lock = _lock_path(path)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in _NO_SPACE:
            raise  # a path the system refuses (no such folder, a name too long): the caller's input
        raise _lock_failed(path, lock, exc) from None
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "(pid not yet written)"
                raise StoreInUseError(
                    f"store {str(path)!r} is in use by process {holder}: one run per store (wait for it or stop it)"
                ) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError as exc:
            raise _lock_failed(path, lock, exc) from None
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # a process that is refused in between reads no stale pid
    finally:
        os.close(fd)  # releases the flock


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception (including Ctrl-C).

    A write the system refuses (``database or disk is full``, a read-only store, an I/O
    error) becomes one :class:`StoreError`. SQLite may already have rolled the transaction
    back itself (it does on a full disk), so ROLLBACK is sent only to an open one.
    """

    def __init__(self, store: RunStore):
        self._store = store
        self._db = store._db

    def __enter__(self):
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise self._store._write_failed(exc) from None

    def __exit__(self, exc_type, exc, tb):
        failed = exc if exc_type is not None and issubclass(exc_type, sqlite3.OperationalError) else None
        if exc_type is None:
            try:
                self._db.execute("COMMIT")
                return False
            except sqlite3.OperationalError as commit_exc:
                failed = commit_exc
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.OperationalError:
                pass  # SQLite ended it already; what failed first is what is reported
        if failed is not None:
            raise self._store._write_failed(failed) from None
        return False
