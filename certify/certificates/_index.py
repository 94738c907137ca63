"""A folder of likelihood certificates and its ``index.json``: writing the set, holding a folder to it.

``certify analyze --certificates DIR`` writes one certificate per interval end and an index
(``certify/schemas/certificate-index-v1.json``) listing every file with its SHA-256, group,
objective and side, and the SHA-256 of the data file. The set is written all or nothing
(:func:`certify._files.write_folder_atomically`), and file names cannot collide: a group's
name is reduced to letters and digits *and* followed by a short hash of its exact text, so
``gpt-4`` and ``gpt 4`` get two files each.

``certify verify DIR`` holds a folder with an index to it (:func:`read_index`,
:func:`entry_problem`): a file the index does not list (a stale certificate of an earlier
run, a foreign file), a listed file that is missing or whose bytes changed, and a
certificate whose group, data digest, objective or side differ from its entry all fail.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from .._files import check_folder_writable, check_output, check_replaceable, file_sha256, write_folder_atomically
from .._json import schema_id
from ._checking import show
from ._likelihood_certificate import LikelihoodCertificate
from ._reading import NotJson, Unreadable, parse_json, read_text
from ._text import to_json

__all__ = [
    "INDEX_FILE",
    "INDEX_KIND",
    "INDEX_SCHEMA_VERSION",
    "FolderIndex",
    "IndexProblem",
    "certificate_file_name",
    "check_certificate_folder",
    "entry_problem",
    "is_index",
    "read_index",
    "write_certificate_set",
]

#: The index's file name inside a certificate folder.
INDEX_FILE = "index.json"
#: Layout version of the index (``certify/schemas/certificate-index-v1.json``) and its kind.
INDEX_SCHEMA_VERSION = "1"
INDEX_KIND = "certificate-index"

#: Characters of a group's name kept in a file name: enough to recognize it, short enough
#: that any group leaves the name far below the 255 bytes of a file system's limit.
GROUP_CHARS = 40
#: Hexadecimal digits of the SHA-256 of the group's exact text in a file name (32 bits: two
#: groups of one data file that share them are refused by name, never overwritten).
GROUP_HASH_CHARS = 8
#: Characters of an objective's name kept in a file name before a hash of its exact text
#: replaces the rest (``--objective`` takes any expression; a file name holds 255 bytes).
OBJECTIVE_CHARS = 60

_UNSAFE = re.compile(r"[^A-Za-z0-9]+", re.ASCII)
_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
_ENTRY = ("file", "sha256", "group", "objective", "side")
_TOP = ("$schema", "schema_version", "kind", "data_sha256", "certificates")


class IndexProblem(InputError):
    """An index.json that is not a valid certificate index; the message says why in one line."""


def _safe(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("_")


def certificate_file_name(group: str, objective: str, side: str) -> str:
    """The file of one certificate: ``[<group>-<hash>_]<objective>_<side>.json``.

    A data file without groups (group ``""``) gives ``V3_lower.json``; ``gpt-4`` gives
    ``gpt_4-<8 hex digits of SHA-256("gpt-4")>_V3_lower.json``; an objective whose name is
    longer than :data:`OBJECTIVE_CHARS` letters and digits keeps that many, then a hash of its text.
    """
    name = _safe(objective)
    if len(name) > OBJECTIVE_CHARS:
        name = f"{name[:OBJECTIVE_CHARS]}-{_hash(objective)}"
    stem = f"{name}_{side}.json"
    if not group:
        return stem
    return f"{_safe(group)[:GROUP_CHARS]}-{_hash(group)}_{stem}"


def _hash(text: str) -> str:
    """The first :data:`GROUP_HASH_CHARS` hexadecimal digits of the SHA-256 of ``text``'s exact characters."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:GROUP_HASH_CHARS]


def _previous(folder: Path) -> set[str]:
    """The files certify wrote into ``folder`` before: index.json and what it lists (none without a valid index)."""
    try:
        index = read_index(folder / INDEX_FILE)
    except IndexProblem:
        return set()
    return {INDEX_FILE, *index.entries}


def check_certificate_folder(folder, *, force: bool, option: str = "--certificates") -> Path:
    """Refuse a certificate folder that cannot be written, before any work (see :func:`write_certificate_set`).

    Raises
    ------
    OutputError
        An empty name, a file where the folder belongs, a missing parent folder, a place
        that takes no new folder, a non-empty folder without ``force``, or one holding files
        certify did not write there.
    """
    path = check_output(folder, option=option, folder=True)
    check_replaceable(path, option=option, force=force, previous=_previous(path))
    check_folder_writable(path, option=option)
    return path


def write_certificate_set(
    folder, certificates: list[LikelihoodCertificate], *, force: bool = False, option: str = "--certificates"
) -> list[str]:
    """Write likelihood certificates and their index as the folder ``folder``, all or nothing.

    Parameters
    ----------
    folder : str or Path
    certificates : list of LikelihoodCertificate
        Each with its :class:`~certify.certificates.DataSource`, all from one data file.
    force : bool
        Replace the certificate set certify wrote there earlier (never other files).
    option : str
        The flag that named the folder, for messages.

    Returns
    -------
    list of str
        The certificate files' names, in the order given.

    Raises
    ------
    InputError
        A certificate without a source, two data files, or two certificates that would share
        a file name (naming both).
    OutputError
        The folder cannot be written; nothing is left behind.
    """
    sources = {c.source.data_sha256 if c.source is not None else None for c in certificates}
    if None in sources or len(sources) != 1:
        raise InputError(
            "a certificate set needs certificates of one data file, each with its source (group and data SHA-256)"
        )
    files: dict[str, str] = {}
    entries: list[dict[str, str]] = []
    owner: dict[str, tuple[str, str, str]] = {}
    for cert in certificates:
        source = cert.source
        assert source is not None  # every certificate has a source (checked above)
        name = certificate_file_name(source.group, cert.objective_name, cert.side)
        key = (source.group, cert.objective_name, cert.side)
        if name in owner:
            raise InputError(f"the certificates of {show(owner[name])} and {show(key)} would share the file {name!r}")
        owner[name] = key
        files[name] = to_json(cert)
        entries.append(
            {
                "file": name,
                "sha256": hashlib.sha256(files[name].encode("utf-8")).hexdigest(),
                "group": source.group,
                "objective": cert.objective_name,
                "side": cert.side,
            }
        )
    index = {
        "$schema": schema_id(INDEX_KIND, INDEX_SCHEMA_VERSION),
        "schema_version": INDEX_SCHEMA_VERSION,
        "kind": INDEX_KIND,
        "data_sha256": sources.pop(),
        "certificates": entries,
    }
    files[INDEX_FILE] = json.dumps(index, indent=1) + "\n"
    path = Path(folder)
    write_folder_atomically(path, files, option=option, force=force, previous=_previous(path))
    return [e["file"] for e in entries]


# -- holding a folder to its index --------------------------------------------------------


@dataclass(frozen=True)
class FolderIndex:
    """A valid index and how its folder compares with it.

    Attributes
    ----------
    path : Path
        The index file.
    data_sha256 : str
    entries : dict
        File name -> its entry (``file``, ``sha256``, ``group``, ``objective``, ``side``), in the index's order.
    unlisted, missing, changed : tuple of str
        Names in the folder the index does not list; listed names that are absent (or not
        regular files); listed files whose SHA-256 differs from the index's.
    """

    path: Path
    data_sha256: str
    entries: dict
    unlisted: tuple[str, ...]
    missing: tuple[str, ...]
    changed: tuple[str, ...]

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def ok(self) -> bool:
        return not (self.unlisted or self.missing or self.changed)


def is_index(data) -> bool:
    """Whether a parsed JSON value claims to be a certificate index (its ``kind``)."""
    return isinstance(data, dict) and data.get("kind") == INDEX_KIND


def _plain_name(name) -> bool:
    return (
        isinstance(name, str)
        and name.endswith(".json")
        and name != INDEX_FILE
        and "/" not in name
        and "\\" not in name
        and name.isprintable()
        and not name.startswith(".")
    )


def _entries(data) -> dict:
    """The index's entries by file name, its layout checked (IndexProblem with the first fault)."""
    if not is_index(data):
        raise IndexProblem(
            f"not a certificate index (kind {show(data.get('kind') if isinstance(data, dict) else data)}, "
            f"need {INDEX_KIND!r})"
        )
    if (
        data.get("schema_version") != INDEX_SCHEMA_VERSION
        or set(data) != set(_TOP)
        or data["$schema"] != schema_id(INDEX_KIND, INDEX_SCHEMA_VERSION)
    ):
        raise IndexProblem(
            f"needs schema_version {INDEX_SCHEMA_VERSION!r}, its $schema and exactly the keys {', '.join(_TOP)}"
        )
    if not (isinstance(data["data_sha256"], str) and _SHA256.fullmatch(data["data_sha256"])):
        raise IndexProblem(f"data_sha256={show(data['data_sha256'])} is not 64 lowercase hexadecimal digits")
    if not isinstance(data["certificates"], list):
        raise IndexProblem("certificates must be a list")
    entries = {}
    for i, entry in enumerate(data["certificates"]):
        if not (
            isinstance(entry, dict) and set(entry) == set(_ENTRY) and all(isinstance(entry[k], str) for k in _ENTRY)
        ):
            raise IndexProblem(f"certificates[{i}] needs exactly the string fields {', '.join(_ENTRY)}")
        if not _plain_name(entry["file"]) or entry["file"] in entries:
            raise IndexProblem(f"certificates[{i}].file={show(entry['file'])} is not a plain *.json name listed once")
        if not _SHA256.fullmatch(entry["sha256"]) or entry["side"] not in ("lower", "upper"):
            raise IndexProblem(
                f"certificates[{i}] needs a SHA-256 of 64 lowercase hexadecimal digits and side lower or upper"
            )
        entries[entry["file"]] = entry
    return entries


def read_index(path) -> FolderIndex:
    """Read an index.json (within the certificate reading limits) and compare its folder with it.

    Raises
    ------
    IndexProblem
        The file cannot be read, is not JSON, or is not a valid certificate index.
    """
    path = Path(path)
    try:
        data = parse_json(read_text(path))
    except (Unreadable, NotJson) as exc:
        raise IndexProblem(str(exc)) from None
    entries = _entries(data)
    present = sorted(p.name for p in path.parent.iterdir() if p.name != INDEX_FILE)
    missing, changed = [], []
    for name, entry in entries.items():
        file = path.parent / name
        if not file.is_file():
            missing.append(name)
        elif file_sha256(file) != entry["sha256"]:
            changed.append(name)
    return FolderIndex(
        path,
        data["data_sha256"],
        entries,
        tuple(n for n in present if n not in entries),
        tuple(missing),
        tuple(changed),
    )


def entry_problem(index: FolderIndex, name: str, cert) -> str | None:
    """Why a verified certificate does not match its index entry (group, data digest, objective, side), or None."""
    entry = index.entries[name]
    source = cert.get("source") if isinstance(cert, dict) else None
    if not isinstance(source, dict):
        return f"records no source (group, data SHA-256), but {INDEX_FILE} lists it for group {show(entry['group'])}"
    stated = {
        "group": source.get("group"),
        "data SHA-256": source.get("data_sha256"),
        "objective": cert.get("objective", {}).get("name"),
        "side": cert.get("side"),
    }
    listed = {
        "group": entry["group"],
        "data SHA-256": index.data_sha256,
        "objective": entry["objective"],
        "side": entry["side"],
    }
    for what, value in stated.items():
        if value != listed[what]:
            return f"its {what} is {show(value)}, but {INDEX_FILE} lists {show(listed[what])}"
    return None
