"""``certify verify``: re-check certificate files with the independent exact checker.

Both schema versions are accepted: sharp-bound certificates (version 1; the
certified interval is printed) and likelihood-ratio bound certificates (version 2;
the proven statement is printed, e.g. ``lower bound of E[V101] >= 0.70169 for every
law with log-likelihood >= l(reference) - 1.920729 on 8192 examples (K = 10)``).

Exit status 0 when every file passes, 1 when any check fails (the failed check is
named: malformed JSON, unknown schema version, a moved atom, a nudged dual
coefficient, a raised bound, ...), 2 for unusable arguments such as a missing file.

Examples
--------
certify verify cert.json gain.json
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .._errors import InputError
from ..certificates import verify


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check certificate files exactly, without any solver",
        description=(
            "Re-check each certificate from the file alone. Sharp bounds (schema 1): exact moment equations of "
            "the law, the sign of dual - objective on all of [0,1], and the enclosure. Likelihood-ratio bounds "
            "(schema 2): the sign of the Lagrangian polynomial on all of [0,1] exactly, and the bound with the "
            "log-likelihoods in ball arithmetic. Exit 0 when all pass, 1 naming the first failed check of any "
            "file, 2 for unusable arguments."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate JSON files")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise InputError(f"FILE={str(path)!r} does not exist or is not a file")
    failed = 0
    for path in paths:
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"FILE={str(path)!r} cannot be read ({exc})") from None
        result = verify(text)
        if result.ok:
            print(f"{path}: OK {result.message}")
        else:
            failed += 1
            print(f"{path}: FAILED {result.message}")
    return 1 if failed else 0
