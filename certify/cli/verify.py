"""``certify verify``: re-check certificate files with the independent exact checker.

Every schema version is accepted: sharp-bound certificates (version 1; the certified
interval rounded outward, the objective as checked and the moments as given and exactly),
likelihood-ratio bound certificates (version 2; only what was proven, e.g. ``lower bound of
E[V101] >= 0.70169 for every law with log-likelihood >= l(reference) - 1.920729 on 8192
examples (K = 10)``) and infinite-vote certificates (version 3).

Each PATH is a certificate file or a directory. A directory with an ``index.json`` (as
``certify analyze --certificates`` writes) is held to it: the index gets a line, every file
it lists is checked, and a file in the folder it does not list (a stale certificate, a
foreign file), a listed file that is missing or changed, or a certificate whose group, data
digest, objective or side differ from its entry fails the check ``index``. A directory
without one stands for its ``*.json`` files (sorted, not recursively). An index given as a
file checks its folder's listing and the files' SHA-256.

Every file gets one line on stdout: ``FILE: OK ...``, ``FILE: FAILED <check>: ...`` (the
first failed check: malformed JSON, unknown schema version, an unknown field, a renamed
objective, a moved atom, a nudged dual coefficient, a raised bound, ...), ``FILE: REFUSED
work_limit: ...`` (a certificate whose check would exceed the checker's work budget:
objective degree, calls, cells, digits, atoms, cost estimates; docs/reference/limits.md) or ``FILE:
UNREADABLE ...`` (larger than MAX_FILE_BYTES, not UTF-8, an I/O error). Exit status 0 when
every file passes, 1 when any fails a check, 2 when any is refused or unreadable or an
argument is unusable (a missing path, a directory without ``*.json`` files; one line on
stderr).

Hostile files are refused before they can cost much: the size cap is applied while
reading, and the bracket nesting and the number of values are measured without
recursion before the JSON parser (which recurses on nesting) sees the text; a key
repeated in one object, NaN or Infinity, and integers beyond Python's 4300-digit
conversion limit fail the check ``json``; the work budget is measured right after parsing.

Examples
--------
certify verify cert.json gain.json
certify verify certs
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .._errors import InputError
from ..certificates import (
    INDEX_FILE,
    MAX_FILE_BYTES,
    FolderIndex,
    IndexProblem,
    NotJson,
    Unreadable,
    entry_problem,
    is_index,
    parse_json,
    read_index,
    read_text,
    verify,
)

_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check certificate files exactly, without any solver",
        description=(
            "Re-check each certificate from the file alone. Sharp bounds (schema 1): the objective's name denotes "
            "exactly the certified polynomial, exact moment equations of the law, the sign of dual - objective on "
            "all of [0,1], and the enclosure. Likelihood-ratio bounds (schema 2): the name, the sign of the "
            "Lagrangian polynomial on all of [0,1] exactly, and the bound with the log-likelihoods in ball "
            "arithmetic. Infinite-vote bounds (schema 3): the law's exact moments and the dual against the step "
            "1{q >= 1/2} on both halves of [0,1]. A directory with an index.json is held to it (no file unlisted, "
            "missing or changed); one without stands for its *.json files (sorted). One line per file; exit 0 when "
            "all pass, 1 when any fails a check, 2 when any is refused by the checker's work limit "
            "(docs/reference/limits.md), "
            f"unreadable (over {MAX_FILE_BYTES // 2**20} MiB, not UTF-8) or an argument is unusable."
        ),
    )
    p.add_argument("files", nargs="+", metavar="PATH", help="certificate JSON files or directories of them")
    p.set_defaults(run=run)


def _shown(path: Path) -> str:
    return str(path) if str(path).isprintable() else repr(str(path))


def certificate_files(paths) -> list[Path]:
    """The paths to check: each file as given, each directory itself (expanded by :func:`check_path`).

    Raises
    ------
    InputError
        A path that does not exist, is neither a file nor a directory, or is a directory
        without any ``*.json`` entry.
    """
    out = []
    for path in map(Path, paths):
        if path.is_dir():
            if not any(path.glob("*.json")):
                raise InputError(f"PATH={str(path)!r} is a directory without any *.json file")
        elif not path.is_file():
            raise InputError(f"PATH={str(path)!r} does not exist or is neither a file nor a directory")
        out.append(path)
    return out


def check_file(path: Path, index: FolderIndex | None = None) -> tuple[int, str]:
    """Exit status (0, 1 or 2) and the one-line verdict for one file.

    With ``index`` (the file's folder index), the certificate must also match its entry.
    An index given as a file checks its folder's listing and the files' SHA-256.
    """
    shown = _shown(path)
    try:
        data = parse_json(read_text(path))
    except Unreadable as exc:
        return 2, f"{shown}: UNREADABLE {exc}"
    except NotJson as exc:
        return 1, f"{shown}: FAILED json: {exc}"
    if is_index(data):
        return _index_line(path)
    if not isinstance(data, dict):  # verify() would take a JSON string for the text of a certificate
        return (
            1,
            f"{shown}: FAILED structure: a certificate must be a JSON object, "
            f"not a JSON {_JSON_TYPES.get(type(data), 'value')}",
        )
    result = verify(data)
    if not result.ok:
        return (
            (2, f"{shown}: REFUSED {result.message}")
            if result.check == "work_limit"
            else (1, f"{shown}: FAILED {result.message}")
        )
    problem = None if index is None else entry_problem(index, path.name, data)
    return (1, f"{shown}: FAILED index: {problem}") if problem else (0, f"{shown}: OK {result.message}")


def _index_line(path: Path) -> tuple[int, str]:
    """The verdict on an index file: valid, and its folder holds exactly the listed files, unchanged."""
    try:
        index = read_index(path)
    except IndexProblem as exc:
        return 1, f"{_shown(path)}: FAILED index: {exc}"
    if index.ok:
        return 0, (
            f"{_shown(path)}: OK index of {len(index.entries)} certificates: each listed file present and unchanged, "
            f"no other file in the folder"
        )
    counts = [(len(index.unlisted), "not listed"), (len(index.missing), "missing"), (len(index.changed), "changed")]
    return 1, f"{_shown(path)}: FAILED index: files {', '.join(f'{n} {what}' for n, what in counts if n)}"


def check_path(path: Path) -> list[tuple[int, str]]:
    """Every verdict line for one PATH: a file, a directory held to its index, or a directory's *.json files."""
    if not path.is_dir():
        return [check_file(path)]
    if not (path / INDEX_FILE).exists():
        return [check_file(file) for file in sorted(path.glob("*.json"))]
    try:
        index = read_index(path / INDEX_FILE)
    except IndexProblem as exc:  # without a valid index the folder is checked file by file, and fails
        others = [check_file(f) for f in sorted(path.glob("*.json")) if f.name != INDEX_FILE]
        return [(1, f"{_shown(path / INDEX_FILE)}: FAILED index: {exc}"), *others]
    lines = [_index_line(path / INDEX_FILE)]
    lines += [
        (1, f"{_shown(path / name)}: FAILED index: not listed in {INDEX_FILE} (a stale or foreign file)")
        for name in index.unlisted
    ]
    for name in index.entries:
        if name in index.missing:
            lines.append((1, f"{_shown(path / name)}: FAILED index: listed in {INDEX_FILE} but missing"))
        elif name in index.changed:
            lines.append(
                (
                    1,
                    f"{_shown(path / name)}: FAILED index: its SHA-256 is not the one {INDEX_FILE} lists "
                    "(changed after it was written)",
                )
            )
        else:
            lines.append(check_file(path / name, index))
    return lines


def run(args: argparse.Namespace) -> int:
    status = 0
    for path in certificate_files(args.files):
        for code, line in check_path(path):
            print(line, flush=True)
            status = max(status, code)
    return status
