"""The members of a zip archive (an inspect_ai ``.eval`` log), decompressed within limits and checked.

Every member is decompressed in blocks of :data:`BLOCK_BYTES`, never as a whole: its expanded
size may not pass its declared size, :data:`~certify.readers._log_limits.MAX_LOG_DOCUMENT_BYTES`,
nor, with the members before it, :data:`~certify.readers._log_limits.MAX_LOG_ARCHIVE_BYTES`, and
it must end at its declared size with its declared CRC-32. A bomb (a small archive whose
members expand to gigabytes) is refused from its declared sizes before anything is
decompressed, or at the first block past a limit when the sizes lie; a member with a flipped
byte is refused by its CRC whichever reader then reads the log, so that inspect_ai's reader
(which does not check CRCs) and the built-in one agree.

Members may be stored, deflated (the methods stdlib ``zipfile`` reads) or compressed with
zstd (zip method 93, what inspect_ai >= 0.3 writes; the ``zstandard`` package, a dependency:
an install without it gets a one-line error naming ``pip install zstandard``).
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from .._calls import DataError
from ._log_limits import MAX_LOG_ARCHIVE_BYTES, MAX_LOG_DOCUMENT_BYTES

__all__ = ["BLOCK_BYTES", "ZIP_ZSTD", "Archive"]

#: Zip compression method of zstd-compressed members (APPNOTE 4.4.5).
ZIP_ZSTD = 93
#: Bytes decompressed at a time (1 MiB): the memory a member costs beyond its own bytes.
BLOCK_BYTES = 2**20
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zip local file header (zipfile.structFileHeader)


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


class _Slice:
    """``read(n)`` over ``size`` bytes of an open file from ``start``: the compressed bytes of one member."""

    def __init__(self, fh, start: int, size: int):
        self.fh, self.pos, self.left = fh, start, size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left)
        self.fh.seek(self.pos)
        data = self.fh.read(n)
        self.pos += len(data)
        self.left -= len(data)
        return data


class Archive:
    """A zip archive whose members are read within the limits (module docstring).

    Use as a context manager; :meth:`entries` lists the entries, :meth:`read` gives one's
    bytes, :meth:`check` reads one without keeping it (its size and CRC). The expanded bytes
    of every read count towards MAX_LOG_ARCHIVE_BYTES.

    Raises
    ------
    DataError
        Not a zip archive; the declared sizes of the members past the limits.
    """

    def __init__(self, path: Path):
        self.path = path
        try:
            self.zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise DataError(f"{path}: not an inspect_ai .eval log (not a zip archive: {exc})") from None
        self.fh = open(path, "rb")
        self.expanded = 0
        infos = self.zf.infolist()
        big = next((i for i in infos if i.file_size > MAX_LOG_DOCUMENT_BYTES), None)
        if big is not None:
            self.close()
            raise DataError(
                f"{path}: member {big.filename!r} of the .eval archive declares {big.file_size} bytes "
                f"decompressed, more than the limit of {_mib(MAX_LOG_DOCUMENT_BYTES)} for one log document"
            )
        total = sum(i.file_size for i in infos)
        if total > MAX_LOG_ARCHIVE_BYTES:
            self.close()
            raise DataError(
                f"{path}: the members of the .eval archive declare {total} bytes decompressed, more than "
                f"the limit of {_mib(MAX_LOG_ARCHIVE_BYTES)} for one log"
            )

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.zf.close()
        if hasattr(self, "fh"):
            self.fh.close()

    def entries(self) -> Iterator[tuple[zipfile.ZipInfo, bool]]:
        """Every entry in archive order, and whether it is the last of its name (the one every zip
        reader takes; an earlier one is superseded, yet still checked)."""
        infos = self.zf.infolist()
        last = {info.filename: info for info in infos}
        for info in infos:
            yield info, last[info.filename] is info

    def read(self, info: zipfile.ZipInfo) -> bytes:
        """The bytes of one entry, checked."""
        return b"".join(self._blocks(info))

    def check(self, info: zipfile.ZipInfo) -> None:
        """Read one entry to its end without keeping it: its size and CRC."""
        for _ in self._blocks(info):
            pass

    def _corrupt(self, info: zipfile.ZipInfo, why: str) -> DataError:
        return DataError(f"{self.path}: member {info.filename!r} of the .eval archive is corrupt ({why})")

    def _blocks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """The member's bytes, block by block, with the size, limit and CRC checks."""
        size, crc = 0, 0
        for block in self._decompressed(info):
            size += len(block)
            self.expanded += len(block)
            if size > info.file_size:
                raise self._corrupt(info, f"it decompresses to more than its declared {info.file_size} bytes")
            if self.expanded > MAX_LOG_ARCHIVE_BYTES:  # repeated entries can pass the declared total
                raise DataError(
                    f"{self.path}: the members of the .eval archive decompress to more than the limit of "
                    f"{_mib(MAX_LOG_ARCHIVE_BYTES)} for one log"
                )
            crc = zlib.crc32(block, crc)
            yield block
        if size != info.file_size:
            raise self._corrupt(info, f"it decompresses to {size} bytes, not its declared {info.file_size}")
        if crc != info.CRC:
            raise self._corrupt(info, f"CRC-32 {crc:08x}, not its declared {info.CRC:08x}")

    def _decompressed(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        if info.compress_type == ZIP_ZSTD:
            yield from self._zstd(info)
            return
        try:
            # zipfile decompresses as it is read and never past the declared size; it checks
            # the CRC itself too, after the last block (the one check in _blocks comes first)
            with self.zf.open(info) as member:
                while block := member.read(BLOCK_BYTES):
                    yield block
        except NotImplementedError:
            raise DataError(
                f"{self.path}: member {info.filename!r} uses zip compression method {info.compress_type}, "
                f"which the built-in reader cannot read"
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise self._corrupt(info, str(exc)) from None

    def _zstd(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        try:
            import zstandard  # a dependency, yet imported here: only zstd members need it
        except ImportError:
            raise DataError(
                f"{self.path}: the log is compressed with zstd (zip method 93); reading it needs the "
                f"package 'zstandard', which is not installed: pip install zstandard"
            ) from None

        self.fh.seek(info.header_offset)
        head = self.fh.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
            raise self._corrupt(info, "bad local header")
        fields = _LOCAL_HEADER.unpack(head)
        raw = _Slice(self.fh, info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11], info.compress_size)
        try:
            # zstandard reads a source through its read(); its stub lists only IO[bytes] and buffers
            reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)  # type: ignore[arg-type]  # stub too narrow
            while block := reader.read(BLOCK_BYTES):
                yield block
        except zstandard.ZstdError as exc:
            raise self._corrupt(info, str(exc)) from None
