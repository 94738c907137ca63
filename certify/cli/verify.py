"""``certify verify``: re-check certificate files with the independent exact checker.

Both schema versions are accepted: sharp-bound certificates (version 1; the
certified interval, the objective as checked and the moments as given and exactly)
and likelihood-ratio bound certificates (version 2; the proven statement, e.g.
``lower bound of E[V101] >= 0.70169 (stated calibration, not checked: alpha = 0.05;
...) for every law with log-likelihood >= l(reference) - 1.920729 on 8192 examples
(K = 10)``).

Each PATH is a certificate file or a directory, whose ``*.json`` files are all
checked (in sorted order, not recursively). Every file gets one line on stdout:
``FILE: OK ...``, ``FILE: FAILED <check>: ...`` (the first failed check: malformed
JSON, unknown schema version, an unknown field, a renamed objective, a moved atom, a
nudged dual coefficient, a raised bound, ...) or ``FILE: UNREADABLE ...`` (larger
than MAX_FILE_BYTES, not UTF-8, an I/O error). Exit status 0 when every file
passes, 1 when any fails a check, 2 when any is unreadable or an argument is
unusable (a missing path, a directory without ``*.json`` files; one line on stderr).

Hostile files are refused before they can cost much: the size cap is applied while
reading, and the bracket nesting and the number of values are measured without
recursion before the JSON parser (which recurses on nesting) sees the text; a key
repeated in one object, NaN or Infinity, and integers beyond Python's 4300-digit
conversion limit fail the check ``json``.

Examples
--------
certify verify cert.json gain.json
certify verify runs/embedded_report/certificates
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .._errors import InputError
from ..certificates import MAX_FILE_BYTES, NotJson, Unreadable, parse_json, read_text, verify

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
            "1{q >= 1/2} on both halves of [0,1]. A directory stands for its *.json files (sorted). One line per file; exit 0 when all "
            f"pass, 1 when any fails a check, 2 when any file is unreadable (over {MAX_FILE_BYTES // 2**20} MiB, "
            "not UTF-8) or an argument is unusable."
        ),
    )
    p.add_argument("files", nargs="+", metavar="PATH", help="certificate JSON files or directories of them")
    p.set_defaults(run=run)


def certificate_files(paths) -> list[Path]:
    """The files to check: each file as given, each directory's ``*.json`` entries sorted by name.

    Raises
    ------
    InputError
        A path that does not exist, is neither a file nor a directory, or is a
        directory without any ``*.json`` entry.
    """
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise InputError(f"PATH={str(path)!r} is a directory without any *.json file")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"PATH={str(path)!r} does not exist or is neither a file nor a directory")
    return files


def check_file(path: Path) -> tuple[int, str]:
    """Exit status (0, 1 or 2) and the one-line verdict for one file."""
    shown = str(path) if str(path).isprintable() else repr(str(path))
    try:
        data = parse_json(read_text(path))
    except Unreadable as exc:
        return 2, f"{shown}: UNREADABLE {exc}"
    except NotJson as exc:
        return 1, f"{shown}: FAILED json: {exc}"
    if not isinstance(data, dict):  # verify() would take a JSON string for the text of a certificate
        return 1, f"{shown}: FAILED structure: a certificate must be a JSON object, not a JSON {_JSON_TYPES.get(type(data), 'value')}"
    result = verify(data)
    return (0, f"{shown}: OK {result.message}") if result.ok else (1, f"{shown}: FAILED {result.message}")


def run(args: argparse.Namespace) -> int:
    status = 0
    for path in certificate_files(args.files):
        code, line = check_file(path)
        print(line, flush=True)
        status = max(status, code)
    return status
