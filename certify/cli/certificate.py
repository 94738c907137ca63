"""``certify certificate``: write an exact, independently checkable certificate of one bound.

Examples
--------
certify certificate --mu 0.7 --rho 0.2 --votes 101 --side upper -o cert.json
certify certificate --mu 4517/8192 --nu 3301/8192 --objective "P3 - P1" --side lower -o gain.json
certify certificate --mu 0.7 --rho 0.2 --votes 101 --side lower --digits 40 -o cert40.json
"""

from __future__ import annotations

import argparse
import sys

from ._args import add_moment_arguments, check_moment_arguments, parse_vote_count
from .._objective import parse_objective, vote_accuracy
from ..certificates import certify_bound, dump, to_json


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
    what.add_argument("--votes", metavar="K", help="vote budget (majority accuracy V_K)")
    what.add_argument("--objective", metavar="EXPR", help='polynomial objective such as "P3 - P1"')
    p.add_argument("--side", required=True, choices=["lower", "upper"], help="which side of the bound")
    p.add_argument("--digits", type=int, metavar="D", help="enclosure width at most 10^-D (default 12)")
    p.add_argument("--method", default="exact", choices=["exact", "sos", "grid"], help="engine for the numerical solution")
    p.add_argument("-o", "--output", metavar="FILE", help="write the certificate here (default: JSON on stdout)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_moment_arguments(args)
    if args.votes is not None:
        objective = vote_accuracy(parse_vote_count(args.votes))
    else:
        objective = parse_objective(args.objective)
    cert = certify_bound(objective, args.side, mu=args.mu, nu=args.nu, rho=args.rho, moments=args.moments, digits=args.digits, method=args.method)
    lo, hi = cert.enclosure
    summary = f"{cert.side} bound of E[{cert.objective_name}]: sharp value in [{float(lo):.17g}, {float(hi):.17g}] (width {float(hi - lo):.3g})"
    if args.output:
        dump(cert, args.output)
        print(f"{summary}; written to {args.output}")
    else:
        sys.stdout.write(to_json(cert))
        print(summary, file=sys.stderr)
    return 0
