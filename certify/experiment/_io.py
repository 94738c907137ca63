"""Small file helpers: atomic writes and content hashes."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text", "file_sha256", "write_atomically"]


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and ``os.replace``: never a torn file."""
    write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def write_atomically(path: Path, writer) -> None:
    """Call ``writer(tmp_path)`` then move the result onto ``path`` in one rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file: the identity of a draw file in the store."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
