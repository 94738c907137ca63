"""Atomic file writes: the one helper behind every file certify writes.

A write goes to a temporary file in the target's directory and is moved onto the target with
one ``os.replace``, so a reader (or a crash) never sees a torn file. ``tempfile.mkstemp``
creates the temporary file with mode 0600 whatever the umask; the result is given the mode a
plain ``open(path, "w")`` would give it (0666 minus the umask), so outputs are shared or private
exactly as the user's umask says.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["write_atomically", "write_file_atomically", "current_umask"]


def current_umask() -> int:
    """The process umask, read without changing it where the system allows.

    Linux exposes it in ``/proc/self/status``; elsewhere it is read with the classic
    ``os.umask`` set-and-restore (the only portable way before Python 3.13's ``os.getumask``).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_file_atomically(path, writer: Callable[[str], None], *, parents: bool = False) -> Path:
    """Call ``writer(tmp_path)``, give the file the umask's mode, and move it onto ``path`` in one rename.

    Parameters
    ----------
    path : str or Path
        The target.
    writer : callable
        Writes the content to the temporary path it is given.
    parents : bool
        Create missing parent folders (report trees); by default a missing folder is an
        error (``FileNotFoundError``), so that a mistyped path is never silently created.

    Returns
    -------
    Path
    """
    path = Path(path)
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_atomically(path, data: bytes | str, *, parents: bool = False) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically; see :func:`write_file_atomically`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return write_file_atomically(path, lambda tmp: Path(tmp).write_bytes(raw), parents=parents)
