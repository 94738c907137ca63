"""File writes: the one helper behind every file certify writes, and the check of an output path.

**Regular files are replaced atomically.** A write goes to a temporary file in the target's
directory and is moved onto the target with one ``os.replace``, so a reader (or a crash) never
sees a torn file. ``tempfile.mkstemp`` creates the temporary file with mode 0600 whatever the
umask; the result is given the mode a plain ``open(path, "w")`` would give it (0666 minus the
umask), so outputs are shared or private exactly as the user's umask says.

**Anything else is written through, never replaced.** A symbolic link is followed: the file it
points to is the target, and the link stays a link. A character device (``/dev/null``,
``/dev/stdout``) or a named pipe is opened and written as ``>`` in a shell would; a rename
would turn it into a regular file (as root, ``-o /dev/null`` would replace the system's own
device). A pipe is opened without blocking, so a pipe nobody reads is an error, not a hang.
Block devices, directories and sockets are refused (:func:`check_output`).

**An existing regular file is kept unless the caller says otherwise.** :func:`check_output`
refuses it without ``force``, so a certificate or an export is never overwritten by accident.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable

from ._errors import InputError

__all__ = ["OutputError", "check_output", "current_umask", "write_atomically", "write_file_atomically"]


class OutputError(InputError):
    """An output path cannot be written: the message names the path and the reason."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (``None`` for a regular file)."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISFIFO, "a named pipe")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def check_output(path, *, option: str, force: bool = False, folder: bool = False) -> Path:
    """Refuse an output path that cannot or must not be written, before any work is done.

    Parameters
    ----------
    path : str or Path
        The output the user named.
    option : str
        The flag that named it (``-o``, ``--certificates``), for the message.
    force : bool
        Allow replacing an existing regular file (the CLI's ``--force``).
    folder : bool
        The output is a folder (created if missing; its parent must exist).

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        An empty name; a missing parent folder; an existing regular file without ``force``;
        a directory where a file is wanted (or the reverse); a block device or a socket.
    """
    text = str(path)
    if not text:
        raise OutputError(f"{option} '': an empty name; give a {'folder' if folder else 'file'} name")
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{option} {text!r}: {exc.strerror or exc}") from None
    if folder:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{option} {text!r} is {_kind(st.st_mode) or 'a file'}, not a folder")
    elif st is not None:
        kind = _kind(st.st_mode)
        if kind in ("a directory", "a block device", "a socket", "not a regular file"):
            raise OutputError(f"{option} {text!r} is {kind}; give a file name")
        if kind is None and not force:
            raise OutputError(f"{option} {text!r} exists; pass --force to replace it")
    parent = Path(os.path.realpath(path)).parent if st is not None else path.parent
    if st is None and not parent.is_dir():
        raise OutputError(f"{option} {text!r}: the folder {str(parent)!r} does not exist")
    return path


def _write_through(target: str, writer: Callable[[str], None], mode: int) -> None:
    """Write a character device or a named pipe in place (module docstring).

    The writer is given the path itself; a pipe is first opened with ``O_NONBLOCK``, which
    fails at once (``ENXIO``) when no process reads it, instead of blocking forever.
    """
    if stat.S_ISFIFO(mode):
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise OSError(errno.ENXIO, "a named pipe that no process reads", target) from None
            raise
        os.close(fd)  # a reader is there: the writer's own blocking open succeeds now
    writer(target)


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

    Raises
    ------
    OutputError
        The target is a directory, a block device or a socket.
    OSError
        The system refused the write (no space, no permission, a pipe nobody reads).
    """
    path = Path(path)
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = os.stat(path).st_mode  # follows links, /proc/self/fd/1 included
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        kind = _kind(mode)
        if kind not in ("a character device", "a named pipe"):
            raise OutputError(f"{str(path)!r} is {kind}; certify writes regular files, character devices and pipes only")
        _write_through(str(path), writer, mode)
        return path
    real = Path(os.path.realpath(path))  # a link is followed: its target is replaced, the link stays
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_atomically(path, data: bytes | str, *, parents: bool = False) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically; see :func:`write_file_atomically`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return write_file_atomically(path, lambda tmp: Path(tmp).write_bytes(raw), parents=parents)
