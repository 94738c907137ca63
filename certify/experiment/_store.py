"""The run store: one SQLite file per experiment, one row per completed call.

The file is in WAL mode with ``synchronous=FULL`` and every batch of results is
written in one transaction, so a process killed at any instant leaves every
committed call intact and no half-written row. Rows are only ever inserted
(``INSERT OR IGNORE``): nothing recorded is overwritten. See the README of this
package for the schema.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ._errors import InputError, StoreError

__all__ = ["CallRecord", "LatentRecord", "RunStore", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

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
        Parsed answer ``"Yes"``/``"No"``; ``None`` for an invalid output.
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
    """

    def __init__(self, path: str | Path, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError(f"store {str(self.path)!r}: no such file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: transactions are opened explicitly with BEGIN IMMEDIATE.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 10000")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.executescript(_SCHEMA)
            version = self.meta("schema_version")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"store {str(self.path)!r}: not a usable SQLite run store ({exc})") from None
        if version is None:
            self.set_meta({"schema_version": str(SCHEMA_VERSION), "created_at": str(time.time())})
        elif version != str(SCHEMA_VERSION):
            raise StoreError(f"store {str(self.path)!r}: schema version {version}, this certify reads {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite)."""
        self._db.close()

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
                    f"dataset {dataset!r}: draw file {path!r} differs from the one recorded ({row[1]!r}, sha256 {row[0][:12]})"
                )
            return
        with self._transaction():
            self._db.execute("INSERT INTO draws VALUES (?, ?, ?, ?, ?)", (dataset, task, path, sha256, len(labels)))
            self._db.executemany(
                "INSERT INTO examples VALUES (?, ?, ?, ?)",
                [(dataset, eid, pos, label) for pos, (eid, label) in enumerate(labels)],
            )

    # -- calls ----------------------------------------------------------------
    def completed(self, dataset: str, policy: str) -> set[tuple[str, int]]:
        """(example_id, repeat) of every recorded call of a (dataset, policy)."""
        rows = self._db.execute(
            "SELECT example_id, repeat FROM calls WHERE dataset = ? AND policy = ?", (dataset, policy)
        )
        return {(r[0], r[1]) for r in rows}

    def latents(self, dataset: str, policy: str) -> dict[str, float]:
        """Recorded ``p_yes`` by example id (choice mode), reused on resume."""
        rows = self._db.execute(
            "SELECT example_id, p_yes FROM latent WHERE dataset = ? AND policy = ?", (dataset, policy)
        )
        return dict(rows.fetchall())

    def save(self, calls: list[CallRecord], latents: list[LatentRecord] = ()) -> None:
        """Insert results in one transaction; rows already present are kept, never replaced."""
        with self._transaction():
            for rec_type, table, recs in ((LatentRecord, "latent", latents), (CallRecord, "calls", calls)):
                if recs:
                    cols = rec_type.columns()
                    sql = f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
                    self._db.executemany(sql, [tuple(getattr(r, c) for c in cols) for r in recs])

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Run a read-only query (for status and export)."""
        return self._db.execute(sql, params).fetchall()

    def _transaction(self):
        return _Transaction(self._db)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception (including Ctrl-C)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self):
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")
