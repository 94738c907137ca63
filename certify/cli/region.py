"""``certify region``: projected 1-alpha intervals from summary statistics or a data file (paper Section 4.4).

Examples
--------
certify region --mu-hat 0.7811 --rho-hat 0.5563 --n 8192 --votes 3 5 --alpha 0.05 --json
certify region calls.csv --votes 3 5 inf
"""

from __future__ import annotations

import argparse
from typing import TypedDict

from .._errors import InputError
from .._json import schema_id
from .._numbers import exact_number
from .._objective import budget_json, parse_objective, parse_vote_budgets
from .._results import SCHEMA_VERSION
from ..readers import read_bits
from ..stats import project_many, two_call_estimates, two_call_from_summary, votes_label, wald_region
from ._args import as_argument_type, open_run_store, parse_alpha, parse_int
from ._output import print_json, print_table

#: Largest --n: far above any benchmark, and the estimators' arithmetic stays exact in floats.
MAX_EXAMPLES = 10**12


class _Result(TypedDict, total=False):
    """One projected interval as the JSON output gives it: of a vote budget or of an objective."""

    votes: int | str
    objective: str
    lower: float
    upper: float
    lower_at: list[float]
    upper_at: list[float]
    lower_gap: float
    upper_gap: float


def register(sub) -> None:
    p = sub.add_parser(
        "region",
        help="projected Wald intervals of vote accuracy (sampling + identification uncertainty)",
        description=(
            "Interval hull of the feasible Wald region (eq. (wald-region-main)) projected through the sharp bounds "
            "(eq. (projected-set-main)). "
            "Give --mu-hat with --rho-hat or --nu-hat and --n (the pair table fixes the covariance), or a data FILE."
        ),
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="data file (as for `certify analyze`)")
    p.add_argument("--mu-hat", help="estimated one-call accuracy")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--rho-hat", help="estimated same-example correlation")
    g.add_argument("--nu-hat", help="estimated P(both of two calls correct)")
    p.add_argument("--n", help="number of examples")
    p.add_argument("--group", help="data file: which dataset/policy group")
    p.add_argument("--votes", nargs="+", metavar="K", default=["3", "5", "inf"], help="vote budgets (default: 3 5 inf)")
    p.add_argument("--objective", nargs="+", metavar="EXPR", default=[], help='polynomial objectives such as "V5 - V1"')
    p.add_argument(
        "--alpha", type=as_argument_type(parse_alpha), default="0.05", help="1 - confidence level (default 0.05)"
    )
    p.add_argument("--singular", choices=["floor", "pinv"], default="floor", help="rule for a singular covariance")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Options first: a bad budget or level is refused before any file is read.
    votes = parse_vote_budgets(args.votes)
    alpha = args.alpha
    for text in args.objective:
        parse_objective(text)
    summary = [args.mu_hat, args.rho_hat, args.nu_hat, args.n]
    if args.file is not None:
        if any(v is not None for v in summary):
            raise InputError("give a data FILE or --mu-hat/--rho-hat/--nu-hat/--n, not both")
        est = two_call_estimates(read_bits(args.file, group=args.group, open_store=open_run_store))
    else:
        if args.mu_hat is None or args.n is None or (args.rho_hat is None and args.nu_hat is None):
            raise InputError("give --mu-hat, --rho-hat or --nu-hat, and --n (or a data FILE)")
        est = two_call_from_summary(
            _number(args.mu_hat, "mu-hat"),
            parse_int(args.n, "n", 2, MAX_EXAMPLES),
            nu=None if args.nu_hat is None else _number(args.nu_hat, "nu-hat"),
            rho=None if args.rho_hat is None else _number(args.rho_hat, "rho-hat"),
        )
    region = wald_region(est, alpha, singular=args.singular)
    targets = list(votes) + list(args.objective)
    intervals = project_many([region], targets)[0]
    results: list[_Result] = []
    for t, iv in zip(targets, intervals):
        entry: _Result = {"votes": budget_json(t)} if t in votes else {"objective": iv.objective}
        entry.update(
            {
                "lower": iv.lower,
                "upper": iv.upper,
                "lower_at": list(iv.lower_at),
                "upper_at": list(iv.upper_at),
                "lower_gap": iv.lower_gap,
                "upper_gap": iv.upper_gap,
            }
        )
        results.append(entry)
    out = {
        "$schema": schema_id("region", SCHEMA_VERSION),
        "schema_version": SCHEMA_VERSION,
        "mu_hat": est.mu,
        "nu_hat": est.nu,
        "rho_hat": est.rho,
        "n": est.n,
        "se_mu": est.se_mu,
        "se_nu": est.se_nu,
        "se_rho": est.se_rho,
        "alpha": alpha,
        "region": region.to_dict(),
        "results": results,
    }
    if args.json:
        print_json(out)
        return 0
    print(
        f"{100 * (1 - alpha):g}% projected intervals: mu-hat = {est.mu:.6g} (SE {est.se_mu:.3g}), "
        f"rho-hat = {est.rho:.6g} (SE {est.se_rho:.3g}), n = {est.n}"
    )
    rows = [
        [
            votes_label(r["votes"]) if "votes" in r else r["objective"],
            f"{r['lower']:.6f}",
            f"{r['upper']:.6f}",
            f"{r['upper'] - r['lower']:.4f}",
        ]
        for r in results
    ]
    print_table(["objective", "lower", "upper", "width"], rows)
    return 0


def _number(text: str, what: str) -> float:
    """A summary statistic from the command line, read as the moments are (:func:`certify._numbers.exact_number`)."""
    return float(exact_number(text, what))
