"""``certify certificate``: write an exact, independently checkable certificate of one bound.

Examples
--------
certify certificate --mu 0.7 --rho 0.2 --votes 101 --side upper -o cert.json
certify certificate --mu 4517/8192 --nu 3301/8192 --objective "P3 - P1" --side lower -o gain.json
certify certificate --mu 0.7 --rho 0.2 --votes 101 --side lower --digits 40 -o cert40.json
certify certificate --moments 0.7 0.532 0.42 --votes inf --side upper -o vinf.json
"""

from __future__ import annotations

import argparse
import sys

from .._errors import InputError
from .._files import check_output, output_state, write_atomically
from .._objective import V_INF, parse_objective, parse_vote_budget, vote_accuracy
from ..certificates import MAX_N, certify_bound, enclosure_text, to_json
from ._args import add_moment_arguments, as_argument_type, check_moment_arguments, parse_int

#: Highest objective degree certified: the checker's largest majority term P_MAX_N (2 MAX_N + 1 votes).
#: Build time grows fast with it (about 3 s at 1001 votes, 30 s at 4001 on one core).
MAX_DEGREE = 2 * MAX_N + 1


def register(sub) -> None:
    p = sub.add_parser(
        "certificate",
        help="exact certificate (primal law + dual polynomial) of one side of a sharp bound",
        description=(
            "Certify one side of the sharp bound of E[g(Q)] over all laws on [0,1] with the given moments "
            "(Theorem 4.1): an exact rational law reproducing the moments and an exact rational dual polynomial, "
            "accepted by the independent checker before it is written. Numbers like 4517/8192 or 0.7 are exact."
        ),
    )
    add_moment_arguments(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--votes", metavar="K", help="vote budget (majority accuracy V_K), or inf (the supremum / infimum of V_inf)"
    )
    what.add_argument("--objective", metavar="EXPR", help='polynomial objective such as "P3 - P1"')
    p.add_argument("--side", required=True, choices=["lower", "upper"], help="which side of the bound")
    # Plain digits here; the certificate builder enforces its own range of D.
    p.add_argument(
        "--digits",
        type=as_argument_type(parse_int, "digits", 1, 10**9),
        metavar="D",
        help="enclosure width at most 10^-D (default 12)",
    )
    p.add_argument(
        "--method", default="exact", choices=["exact", "sos", "grid"], help="engine for the numerical solution"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the certificate here (default: JSON on stdout); "
        "an existing file is kept unless --force, a device or pipe is written through",
    )
    p.add_argument("--force", action="store_true", help="replace an existing -o file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_moment_arguments(args)
    seen = None
    if args.output is not None:
        check_output(args.output, option="-o", force=args.force)
        # what the write may replace: a file or a link that appears while the certificate is built is kept
        seen = output_state(args.output, option="-o")
    votes = None if args.votes is None else parse_vote_budget(args.votes)
    if votes is V_INF:
        if args.digits is not None or args.method != "exact":
            raise InputError(
                "--digits and --method do not apply to --votes inf "
                "(its certificate is built exactly, width about 1e-19)"
            )
        cert = certify_bound(V_INF, args.side, mu=args.mu, nu=args.nu, rho=args.rho, moments=args.moments)
        return _write(cert, args, "supremum" if args.side == "upper" else "infimum", seen)
    if votes is not None:
        objective = vote_accuracy(votes)
    else:
        objective = parse_objective(args.objective)
    if objective.degree > MAX_DEGREE:
        # Building it would take hours (exact arithmetic on the degree), and `certify verify` refuses it anyway.
        raise InputError(
            f"objective {objective.name[:60]!r} has degree {objective.degree}, more than the limit of "
            f"{MAX_DEGREE} that `certify verify` checks (V{MAX_DEGREE}); certificates stop there"
        )
    cert = certify_bound(
        objective,
        args.side,
        mu=args.mu,
        nu=args.nu,
        rho=args.rho,
        moments=args.moments,
        digits=args.digits,
        method=args.method,
    )
    return _write(cert, args, "sharp value", seen)


def _write(cert, args, what: str, seen) -> int:
    lo, hi = cert.enclosure
    summary = f"{cert.side} bound of E[{cert.objective_name}]: {what} in {enclosure_text(lo, hi)}"
    if args.output is not None:
        try:
            write_atomically(args.output, to_json(cert), expect=seen)  # as certificates.dump, held to `seen`
        except OSError as exc:
            raise InputError(f"-o {args.output!r}: cannot write ({exc.strerror or exc})") from None
        print(f"{summary}; written to {args.output}")
    else:
        sys.stdout.write(to_json(cert))
        print(summary, file=sys.stderr)
    return 0
