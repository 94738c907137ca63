"""``certify complete``: MaxEnt and LDGP point completions of the vote curve (paper Sec. 4).

Examples
--------
certify complete --mu 0.7 --rho 0.2 --method maxent --votes 3 5 inf --json
certify complete --mu 0.7 --nu 0.532 --method ldgp
"""

from __future__ import annotations

import argparse

from .._bounds import as_moments
from .._errors import InputError
from .._json import schema_id
from .._objective import budget_json, parse_vote_budgets
from .._results import SCHEMA_VERSION
from ..stats import COMPLETION_METHODS, complete, votes_label
from ._output import print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "complete",
        help="maximum-entropy or LDGP point completion of the vote curve",
        description="A single modeled vote curve from (mu, nu): maximum entropy (Proposition 5.1) "
        "or LDGP (Proposition 5.2). These are model-based completions, not distribution-free guarantees.",
    )
    p.add_argument("--mu", required=True, help="one-call accuracy E[Q]")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--nu", help="second moment E[Q^2]")
    g.add_argument("--rho", help="same-example correlation")
    p.add_argument("--method", choices=COMPLETION_METHODS, default="maxent", help="completion (default maxent)")
    p.add_argument("--votes", nargs="+", metavar="K", default=["3", "5", "inf"], help="vote budgets (default: 3 5 inf)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    votes = parse_vote_budgets(args.votes)
    mom = as_moments(mu=args.mu, nu=args.nu, rho=args.rho)
    if mom.order != 2:
        raise InputError("give --mu with --nu or --rho")
    c = complete(mu=mom.mu, nu=mom.nu, method=args.method)
    results = [{"votes": budget_json(v), "value": c.value(v)} for v in votes]
    out = {
        "$schema": schema_id("complete", SCHEMA_VERSION),
        "schema_version": SCHEMA_VERSION,
        "method": c.method,
        "mu": c.mu,
        "nu": c.nu,
        "rho": mom.rho,
        "parameters": c.params,
        "boundary": c.boundary,
        "results": results,
    }
    if args.json:
        print_json(out)
        return 0
    params = ", ".join(f"{k} = {v:.6g}" for k, v in c.parameters)
    extra = f" (boundary limit: {c.boundary} law)" if c.boundary else ""
    print(f"{c.method} completion of mu = {c.mu:.6g}, nu = {c.nu:.6g}: {params}{extra}")
    print_table(["budget", "value"], [[votes_label(r["votes"]), f"{r['value']:.10f}"] for r in results])
    return 0
