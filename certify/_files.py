"""File writes: the one helper behind every file certify writes, and the check of an output path.

**Regular files are replaced atomically.** A write goes to a temporary file in the target's
directory and is moved onto the target in one step, so a reader (or a crash) never sees a
torn file. The temporary name is short and fixed in length (``.certify-`` and a random
suffix), never the target's name plus a suffix, so any valid name (up to 255 bytes) can be
written. ``tempfile.mkstemp`` creates the temporary file with mode 0600 whatever the umask;
the result is given the mode a plain ``open(path, "w")`` would give it (0666 minus the
umask), so outputs are shared or private exactly as the user's umask says.

**Only what was checked is replaced.** What is at the output path when it is checked
(:func:`output_state`; a command takes it with :func:`check_output`, before its work) is all
a write may replace. Where nothing was, the file is put in place with ``link()``, which never
replaces anything (a file, a directory or a symbolic link that appeared meanwhile stays, and
the write is an error); an existing file is replaced only while it is still the same file
(device and inode). So a file or a link created at the path while certify computes is never
written over, nor followed.

**Anything else is written through, never replaced.** A symbolic link named as the output
is followed: the file it points to is the target, and the link stays a link. A character
device (``/dev/null``, ``/dev/stdout``) or a named pipe is opened and written as ``>`` in a
shell would; a rename would turn it into a regular file (as root, ``-o /dev/null`` would
replace the system's own device). A pipe is opened without blocking, so a pipe nobody reads
is an error, not a hang. Block devices, directories and sockets are refused (:func:`check_output`).

**An existing regular file is kept unless the caller says otherwise.** :func:`check_output`
refuses it without ``force``, so a certificate or an export is never overwritten by accident.

**A set of files is written as one folder, all or nothing** (:func:`write_folder_atomically`,
or :func:`new_folder` and :func:`publish_folder` for a tree written by several writers):
every file goes into a fresh hidden folder beside the target, which is then renamed onto it.
A failure on the way (a full disk, a name too long) removes what was written and leaves the
target as it was. A non-empty target is replaced only with ``force`` and only when it holds
nothing but files the caller names as its own earlier output (checked again at the moment of
the rename, so nothing that appeared meanwhile is replaced): certify never deletes a file it
did not write. A symbolic link is never taken for the folder (the rename would replace the link).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from ._errors import InputError

__all__ = [
    "OutputError",
    "OutputState",
    "check_folder_writable",
    "check_output",
    "check_replaceable",
    "current_umask",
    "discard_folder",
    "file_sha256",
    "new_folder",
    "output_state",
    "publish_folder",
    "write_atomically",
    "write_file_atomically",
    "write_folder_atomically",
]

#: Bytes read at a time when hashing a file: large data files are hashed without holding them in memory.
_HASH_CHUNK = 1 << 20

#: Names of a folder's entries shown in a refusal (a folder may hold thousands).
_SHOWN_NAMES = 3

#: Start of every temporary name certify makes beside an output: short and fixed, so that a
#: target whose name is 255 bytes long (the file systems' limit) can still be written.
TEMP_PREFIX = ".certify-"

#: errno values of ``link()`` on a file system without hard links (FAT, some network and FUSE
#: file systems): the new file is then put in place through a name claimed with O_EXCL.
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS}


class OutputError(InputError):
    """An output path cannot be written: the message names the path and the reason."""


def _kind(mode: int, *, link: bool = False) -> str | None:
    """What a non-regular file is, in words (``None`` for a regular file); ``link`` names a symbolic link too."""
    tests = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISFIFO, "a named pipe"),
    )
    for test, name in ((stat.S_ISLNK, "a symbolic link"), *tests) if link else tests:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


@dataclass(frozen=True)
class OutputState:
    """What was at an output path when it was looked at: all that a later write may replace.

    Attributes
    ----------
    path : Path
        The output as named.
    real : Path
        The file written: ``path`` itself, or where a symbolic link at ``path`` leads.
    link : tuple of int or None
        (device, inode) of the symbolic link at ``path``; None when ``path`` is not a link.
    found : tuple of int or None
        (device, inode, file type, change time) of what was at ``real`` (``_identity``); None when nothing was there.
    option : str
        The flag that named the output, for messages (may be empty).
    """

    path: Path
    real: Path
    link: tuple[int, int] | None
    found: tuple[int, int, int, int] | None
    option: str = ""

    @property
    def label(self) -> str:
        """The output for a message: the flag (if any) and the path."""
        return f"{self.option} {str(self.path)!r}" if self.option else repr(str(self.path))


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """Device, inode, file type and, for a regular file, its status-change time (0 for others).

    The time tells a file deleted and made again under a reused inode number, or changed in
    place, from the one that was checked; a device or a pipe changes it with every write.
    """
    return st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), st.st_ctime_ns if stat.S_ISREG(st.st_mode) else 0


def _lstat(path) -> os.stat_result | None:
    """``os.lstat`` (links are not followed), None when nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def output_state(path, *, option: str = "") -> OutputState:
    """What is at ``path`` now (:class:`OutputState`), for a write that must replace nothing else.

    Raises
    ------
    OSError
        The path cannot be looked at (no permission, a name too long, a loop of links).
    """
    path = Path(path)
    st = _lstat(path)
    if st is None or not stat.S_ISLNK(st.st_mode):
        return OutputState(path, path, None, None if st is None else _identity(st), option)
    link = (st.st_dev, st.st_ino)
    target = _stat(path)  # a link named as the output is followed (module docstring)
    if target is not None and not stat.S_ISREG(target.st_mode):
        return OutputState(path, path, link, _identity(target), option)  # a device or a pipe: written through the link
    return OutputState(path, Path(os.path.realpath(path)), link, None if target is None else _identity(target), option)


def _stat(path) -> os.stat_result | None:
    """``os.stat`` (links are followed), None when nothing is there (a dangling link)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _changed(state: OutputState) -> str | None:
    """What differs at the output from ``state`` (in words), or None: the check made just before a write."""
    if state.link is not None:
        st = _lstat(state.path)
        if st is None or not stat.S_ISLNK(st.st_mode) or (st.st_dev, st.st_ino) != state.link:
            return "the symbolic link was replaced"
        if state.real != state.path and Path(os.path.realpath(state.path)) != state.real:
            return "the symbolic link now leads elsewhere"
        st = _stat(state.path)
    else:
        st = _lstat(state.path)
    if st is None:
        return None if state.found is None or stat.S_ISREG(state.found[2]) else "it was removed"
    if state.found is None:
        return f"{_kind(st.st_mode, link=True) or 'a file'} appeared there"
    if _identity(st) != state.found:
        return f"it was replaced by {_kind(st.st_mode, link=True) or 'another file'}"
    return None


def _refuse_change(state: OutputState, what: str) -> OutputError:
    return OutputError(f"{state.label}: {what} while certify worked; it is kept and nothing was written")


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
        a directory where a file is wanted (or the reverse); a block device or a socket; a
        symbolic link where a folder is wanted.
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
        if path.is_symlink():
            raise OutputError(
                f"{option} {text!r} is a symbolic link; name the folder itself (certify renames a new "
                f"folder into place, which would replace the link)"
            )
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


def _write_through(target: str, writer: Callable[[str], object], mode: int) -> None:
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


def write_file_atomically(
    path, writer: Callable[[str], object], *, parents: bool = False, expect: OutputState | None = None
) -> Path:
    """Call ``writer(tmp_path)``, give the file the umask's mode, and put it at ``path`` in one step.

    Parameters
    ----------
    path : str or Path
        The target.
    writer : callable
        Writes the content to the temporary path it is given.
    parents : bool
        Create missing parent folders (report trees); by default a missing folder is an
        error (``FileNotFoundError``), so that a mistyped path is never silently created.
    expect : OutputState, optional
        What was at ``path`` when the caller checked it (:func:`output_state`, taken before
        its work); only that may be replaced. By default, what is there when the write starts.

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        The target is a directory, a block device or a socket; or it changed since ``expect``
        (a file or a link appeared, the file was replaced): it is kept and nothing is written.
    OSError
        The system refused the write (no space, no permission, a pipe nobody reads).
    """
    path = Path(path)
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    state = expect if expect is not None else output_state(path)
    found = state.found
    kind = None if found is None else _kind(found[2])
    if found is not None and kind is not None:
        if kind not in ("a character device", "a named pipe"):
            raise OutputError(
                f"{state.label} is {kind}; certify writes regular files, character devices and pipes only"
            )
        what = _changed(state)
        if what is not None:
            raise _refuse_change(state, what)
        _write_through(str(state.real), writer, found[2])
        return path
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=state.real.parent)
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        _publish(tmp, state)
    finally:
        Path(tmp).unlink(missing_ok=True)  # a write that failed; or the name left beside the file link() placed
    return path


def _publish(tmp: str, state: OutputState) -> None:
    """Put the finished temporary file at ``state.real``, replacing only what ``state`` found there."""
    what = _changed(state)
    if what is not None:
        raise _refuse_change(state, what)
    if state.found is not None and _lstat(state.real) is not None:
        os.replace(tmp, state.real)  # the same file as checked (_changed): the one thing certify may replace
        return
    try:
        os.link(tmp, state.real)  # never replaces: fails if anything at all appeared at the name, a link included
        return
    except FileExistsError:
        raise _refuse_change(state, "a file appeared there") from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
    # No hard links here: claim the name with O_EXCL (which fails on anything there, a link
    # included), then replace the empty file certify just made, if it is still that file.
    try:
        fd = os.open(state.real, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise _refuse_change(state, "a file appeared there") from None
    claimed = _identity(os.fstat(fd))
    os.close(fd)
    now = _lstat(state.real)
    if now is None or _identity(now) != claimed:
        raise _refuse_change(state, "a file appeared there")
    try:
        os.replace(tmp, state.real)
    except OSError:
        with suppress(OSError):  # the empty file claimed above is certify's own: not left behind
            os.unlink(state.real)
        raise


def write_atomically(path, data: bytes | str, *, parents: bool = False, expect: OutputState | None = None) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically; see :func:`write_file_atomically`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return write_file_atomically(path, lambda tmp: Path(tmp).write_bytes(raw), parents=parents, expect=expect)


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


def _folders_of(previous: set[str]) -> set[str]:
    """The sub-folders (relative, ``/``-separated) that the files named in ``previous`` lie in."""
    out: set[str] = set()
    for name in previous:
        parts = name.split("/")[:-1]
        out.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def _foreign(path: Path, previous: set[str]) -> list[str]:
    """Entries of the folder ``path`` that are not the caller's earlier files (relative names, sorted).

    Only sub-folders that hold a file named in ``previous`` are looked into (and never
    through a link), so the work is bounded by the caller's own layout.
    """
    folders, out = _folders_of(previous), []

    def walk(folder: Path, prefix: str) -> None:
        for name in sorted(os.listdir(folder)):
            rel, full = prefix + name, folder / name
            is_dir = stat.S_ISDIR(os.lstat(full).st_mode)
            if is_dir and rel in folders:
                walk(full, rel + "/")
            elif is_dir or rel not in previous:
                out.append(rel + ("/" if is_dir else ""))

    walk(path, "")
    return out


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
        Names of the files the caller wrote there before (e.g. those its index lists), relative
        to the folder with ``/`` between a sub-folder and its file (``tables/a.csv``); only
        these may be replaced.

    Raises
    ------
    OutputError
        A non-empty folder without ``force``; with ``force``, a folder holding anything else.
    """
    text = str(path)
    try:
        names = _entries(Path(path))
        if not names:
            return
        if not force:
            raise OutputError(
                f"{option} {text!r} is not empty ({_names(names)}); pass --force to replace the set certify wrote there"
            )
        foreign = _foreign(Path(path), set(previous))
    except OSError as exc:
        raise OutputError(f"{option} {text!r}: {exc.strerror or exc}") from None
    if foreign:
        raise OutputError(
            f"{option} {text!r} holds {len(foreign)} file(s) certify did not write there ({_names(foreign)}); "
            "certify never deletes them: move them away or choose another folder"
        )


def check_folder_writable(path, *, option: str) -> None:
    """Refuse a folder whose parent does not take new entries (read-only, /proc, no permission), before any work.

    Probes by creating and removing an empty hidden folder beside ``path``, as
    :func:`write_folder_atomically` will.
    """
    path = Path(path)
    try:
        Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}probe-", dir=path.parent)).rmdir()
    except OSError as exc:
        raise OutputError(
            f"{option} {str(path)!r}: cannot write in {str(path.parent)!r} ({exc.strerror or exc})"
        ) from None


def new_folder(path, *, option: str) -> Path:
    """A fresh hidden folder beside ``path`` (same file system) to write a set into, for :func:`publish_folder`.

    Raises
    ------
    OutputError
        The parent folder takes no new entries.
    """
    path = Path(path)
    try:
        return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}new-", dir=path.parent))
    except OSError as exc:
        raise OutputError(
            f"{option} {str(path)!r}: cannot write in {str(path.parent)!r} ({exc.strerror or exc})"
        ) from None


def discard_folder(new: Path) -> None:
    """Remove a folder made by :func:`new_folder` and everything written into it (all certify's own)."""
    shutil.rmtree(new, ignore_errors=True)


def publish_folder(new, path, *, option: str, force: bool = False, previous: Iterable[str] = ()) -> Path:
    """Rename the finished folder ``new`` (from :func:`new_folder`) onto ``path``, all or nothing.

    ``path`` is checked again at this moment (:func:`check_replaceable`): it must be missing,
    an empty folder, or (with ``force``) a folder holding only the files named in
    ``previous``, which is renamed aside, the new folder renamed into place, and then the
    earlier files named in ``previous`` are deleted; between the two renames, for an instant,
    no folder exists at ``path``, but a reader never sees a mix of the two sets. On any
    failure ``new`` is removed and ``path`` is left as it was.

    Raises
    ------
    OutputError
        ``path`` is no longer a folder that may be replaced, or the system refused a rename
        (one line naming ``option``, the path and the reason).
    """
    new, path = Path(new), Path(path)
    previous = set(previous)
    try:
        st = _lstat(path)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            what = _kind(st.st_mode, link=True) or "a file"
            raise OutputError(
                f"{option} {str(path)!r}: {what} appeared there while certify worked; it is kept and "
                "nothing was written"
            )
        check_replaceable(path, option=option, force=force, previous=previous)
        os.chmod(new, 0o777 & ~current_umask())
        _move_into_place(new, path, previous)
    except OutputError:
        discard_folder(new)
        raise
    except OSError as exc:
        discard_folder(new)
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
            raise OutputError(
                f"{option} {str(path)!r}: something appeared there while certify worked; it is kept and "
                "nothing was written"
            ) from None
        raise OutputError(
            f"{option} {str(path)!r}: cannot write ({exc.strerror or exc}); nothing was written"
        ) from None
    return path


def write_folder_atomically(
    path, files: Mapping[str, bytes | str], *, option: str, force: bool = False, previous: Iterable[str] = ()
) -> Path:
    """Write ``files`` ({name: content}) as the folder ``path``, all or nothing (module docstring).

    The files are written into a fresh hidden folder beside ``path`` (:func:`new_folder`),
    which is renamed onto ``path`` (:func:`publish_folder`).

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
    new = new_folder(path, option=option)
    try:
        for name, data in files.items():
            write_atomically(new / name, data)
    except OSError as exc:
        discard_folder(new)
        raise OutputError(
            f"{option} {str(path)!r}: cannot write ({exc.strerror or exc}); nothing was written"
        ) from None
    except BaseException:
        discard_folder(new)
        raise
    return publish_folder(new, path, option=option, force=force, previous=previous)


def _move_into_place(new: Path, path: Path, previous: set[str]) -> None:
    """Rename ``new`` onto ``path``; an earlier non-empty folder is renamed aside first, then emptied of
    ``previous``."""
    if not _entries(path):
        os.rename(new, path)  # onto nothing, or onto an empty folder (rename replaces only an empty one)
        return
    old = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}old-", dir=path.parent))
    os.rename(path, old)  # onto the empty folder just made
    try:
        os.rename(new, path)
    except OSError:
        os.rename(old, path)
        raise
    with suppress(OSError):  # the new set is in place; what stays of the old one is only left over
        for name in previous:
            (old / name).unlink(missing_ok=True)
        for folder in sorted(_folders_of(previous), key=lambda f: -f.count("/")):
            with suppress(OSError):
                (old / folder).rmdir()
        old.rmdir()  # a file that arrived meanwhile keeps it: certify deletes only its own
