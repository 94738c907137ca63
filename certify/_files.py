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

**A set of files is written as one folder, all or nothing** (:func:`write_folder_atomically`):
every file goes into a fresh hidden folder beside the target, which is then renamed onto it.
A failure on the way (a full disk, a name too long) removes what was written and leaves the
target as it was. A non-empty target is replaced only with ``force`` and only when it holds
nothing but files the caller names as its own earlier output: certify never deletes a file
it did not write.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import Callable

from ._errors import InputError

__all__ = ["OutputError", "check_folder_writable", "check_output", "check_replaceable", "current_umask", "file_sha256", "write_atomically",
           "write_file_atomically", "write_folder_atomically"]

#: Bytes read at a time when hashing a file: large data files are hashed without holding them in memory.
_HASH_CHUNK = 1 << 20

#: Names of a folder's entries shown in a refusal (a folder may hold thousands).
_SHOWN_NAMES = 3


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


def file_sha256(path) -> str:
    """SHA-256 of a file's bytes, as 64 lowercase hexadecimal digits (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _entries(path: Path) -> list[str] | None:
    """The names in a folder, sorted; None when nothing exists at ``path``."""
    try:
        return sorted(os.listdir(path))
    except FileNotFoundError:
        return None


def _names(names: list[str]) -> str:
    more = f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else ""
    return ", ".join(repr(n) for n in names[:_SHOWN_NAMES]) + more


def check_replaceable(path, *, option: str, force: bool, previous: Iterable[str] = ()) -> None:
    """Refuse to replace a non-empty folder without ``force``, or one holding files the caller did not write.

    Parameters
    ----------
    path : str or Path
        The output folder (missing or empty: nothing to refuse).
    option : str
        The flag that named it, for the message.
    force : bool
        Allow replacing the folder's earlier set (the CLI's ``--force``).
    previous : iterable of str
        Names of the files the caller wrote there before (e.g. those its index lists); only
        these may be replaced.

    Raises
    ------
    OutputError
        A non-empty folder without ``force``; with ``force``, a folder holding anything else.
    """
    text = str(path)
    try:
        names = _entries(Path(path))
    except OSError as exc:
        raise OutputError(f"{option} {text!r}: {exc.strerror or exc}") from None
    if not names:
        return
    if not force:
        raise OutputError(f"{option} {text!r} is not empty ({_names(names)}); pass --force to replace the set certify wrote there")
    foreign = [n for n in names if n not in set(previous)]
    if foreign:
        raise OutputError(f"{option} {text!r} holds {len(foreign)} file(s) certify did not write there ({_names(foreign)}); "
                          "certify never deletes them: move them away or choose another folder")


def check_folder_writable(path, *, option: str) -> None:
    """Refuse a folder whose parent does not take new entries (read-only, /proc, no permission), before any work.

    Probes by creating and removing an empty hidden folder beside ``path``, as
    :func:`write_folder_atomically` will.
    """
    path = Path(path)
    try:
        Path(tempfile.mkdtemp(prefix=".certify-probe-", dir=path.parent)).rmdir()
    except OSError as exc:
        raise OutputError(f"{option} {str(path)!r}: cannot write in {str(path.parent)!r} ({exc.strerror or exc})") from None


def write_folder_atomically(path, files: dict[str, bytes | str], *, option: str, force: bool = False,
                            previous: Iterable[str] = ()) -> Path:
    """Write ``files`` ({name: content}) as the folder ``path``, all or nothing (module docstring).

    The files are written into a fresh hidden folder beside ``path`` (mode from the umask),
    which is renamed onto ``path`` (missing or empty). A non-empty ``path`` (allowed by
    :func:`check_replaceable`) is first renamed aside, the new folder renamed into place, and
    then the earlier files named in ``previous`` are deleted; between the two renames, for an
    instant, no folder exists at ``path``, but a reader never sees a mix of the two sets.

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        The folder cannot be written (one line naming ``option``, the path and the system's
        reason); nothing is left behind and an earlier set stays in place.
    """
    path = Path(path)
    previous = set(previous)
    check_replaceable(path, option=option, force=force, previous=previous)
    try:
        new = Path(tempfile.mkdtemp(prefix=".certify-new-", dir=path.parent))
    except OSError as exc:
        raise OutputError(f"{option} {str(path)!r}: cannot write in {str(path.parent)!r} ({exc.strerror or exc})") from None
    try:
        for name, data in files.items():
            write_atomically(new / name, data)
        os.chmod(new, 0o777 & ~current_umask())
        _move_into_place(new, path, previous)
    except OSError as exc:
        for name in files:
            (new / name).unlink(missing_ok=True)
        with suppress(OSError):
            new.rmdir()
        raise OutputError(f"{option} {str(path)!r}: cannot write ({exc.strerror or exc}); nothing was written") from None
    return path


def _move_into_place(new: Path, path: Path, previous: set[str]) -> None:
    """Rename ``new`` onto ``path``; an earlier non-empty folder is renamed aside first, then emptied of ``previous``."""
    if not _entries(path):
        os.rename(new, path)  # onto nothing, or onto an empty folder (rename replaces it)
        return
    old = Path(tempfile.mkdtemp(prefix=".certify-old-", dir=path.parent))
    os.rename(path, old)  # onto the empty folder just made
    try:
        os.rename(new, path)
    except OSError:
        os.rename(old, path)
        raise
    with suppress(OSError):  # the new set is in place; what stays of the old one is only left over
        for name in previous:
            (old / name).unlink(missing_ok=True)
        old.rmdir()  # a file that arrived meanwhile keeps it: certify deletes only its own
