"""``certify bounds``: sharp bounds of vote accuracies and polynomial objectives.

Examples
--------
certify bounds --mu 0.7 --rho 0.2 --votes 3 5 9 101 inf
certify bounds --mu 0.7 --nu 0.532 --objective "P3 - P1" --json
certify bounds --moments 0.7 0.532 0.42 --votes 3 5
"""

from __future__ import annotations

import argparse
import math

from .._bounds import as_moments, sharp_bounds
from .._endpoint import endpoint_bounds
from .._objective import parse_objective, vote_accuracy
from .._results import SCHEMA_VERSION
from ._args import add_moment_arguments, check_moment_arguments, parse_vote_count
from .._json import schema_id
from ._output import format_law, print_json, print_table

DEFAULT_VOTES = ("3", "5", "inf")


def register(sub) -> None:
    p = sub.add_parser(
        "bounds",
        help="sharp lower/upper bounds of vote accuracy or any polynomial objective",
        description=(
            "Sharp bounds of E[g(Q)] over all laws of the latent success probability Q on [0,1] "
            "with the given moments (Theorem 4.1). Give --mu with --nu or --rho (two labeled calls), "
            "--mu alone (one call), or --moments m1 m2 ... (order m). Numbers may be fractions like 4517/8192."
        ),
    )
    add_moment_arguments(p)
    p.add_argument("--votes", nargs="+", metavar="K", help="vote budgets: counts (odd or even) or 'inf' (default: 3 5 inf)")
    p.add_argument("--objective", nargs="+", metavar="EXPR", default=[], help='objectives such as "P3 - P1", "V7 - V3", "3*q**2 - 2*q**3"')
    p.add_argument("--method", default="exact", choices=["exact", "sos", "grid"], help="solver (default: exact)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(run=run)


def _parse_votes(tokens) -> list:
    return ["inf" if tok.strip().lower() in ("inf", "infinity") else parse_vote_count(tok) for tok in tokens]


def run(args: argparse.Namespace) -> int:
    check_moment_arguments(args)
    mom = as_moments(mu=args.mu, nu=args.nu, rho=args.rho, moments=args.moments)
    votes = _parse_votes(args.votes if args.votes is not None else ([] if args.objective else DEFAULT_VOTES))
    objectives = [parse_objective(text) for text in args.objective]

    results = []
    for v in votes:
        if v == "inf":
            e = endpoint_bounds(moments=mom)
            results.append(
                {
                    "votes": "inf",
                    "lower": e.lower,
                    "upper": e.upper,
                    "lower_attained": e.lower_attained,
                    "upper_attained": e.upper_attained,
                }
            )
        else:
            results.append({"votes": v, **_entry(vote_accuracy(v), mom, args.method)})
    for obj in objectives:
        results.append({"objective": obj.name, **_entry(obj, mom, args.method)})

    header = {"$schema": schema_id("bounds", SCHEMA_VERSION), "schema_version": SCHEMA_VERSION, "mu": mom.mu}
    if mom.order >= 2:
        header["nu"] = mom.nu
        header["rho"] = mom.rho
    header.update({"moments": list(mom.values), "method": args.method, "results": results})
    if args.json:
        print_json(header)
    else:
        _print_text(header)
    return 0


def _entry(obj, mom, method: str) -> dict:
    b = sharp_bounds(obj, moments=mom, method=method)
    return {
        "objective": obj.name,
        "lower": b.lower.value,
        "upper": b.upper.value,
        "width": b.width,
        "lower_law": b.lower.law.to_dict(),
        "upper_law": b.upper.law.to_dict(),
        "lower_dual": list(b.lower.dual),
        "upper_dual": list(b.upper.dual),
        "lower_dual_value": b.lower.dual_value,
        "upper_dual_value": b.upper.dual_value,
        "lower_violation": b.lower.violation,
        "upper_violation": b.upper.violation,
    }


def _print_text(data: dict) -> None:
    desc = f"mu = {data['mu']:.6g}"
    if "nu" in data:
        rho = data["rho"]
        desc += f", nu = {data['nu']:.6g}" + ("" if isinstance(rho, float) and math.isnan(rho) else f" (rho = {rho:.6g})")
    elif len(data["moments"]) > 2:
        desc = "moments = (" + ", ".join(f"{m:.6g}" for m in data["moments"]) + ")"
    print(f"Sharp bounds over all laws on [0,1] with {desc}; method {data['method']}")
    rows = []
    for r in data["results"]:
        label = f"V{r['votes']}" if "votes" in r and r["votes"] != "inf" else ("V_inf" if "votes" in r else r["objective"])
        if "votes" in r and r["votes"] == "inf":
            lo_law = "attained" if r["lower_attained"] else "infimum, approached only"
            up_law = "attained" if r["upper_attained"] else "supremum, approached only"
        else:
            lo_law = format_law(r["lower_law"]["atoms"], r["lower_law"]["weights"])
            up_law = format_law(r["upper_law"]["atoms"], r["upper_law"]["weights"])
        rows.append([label, f"{r['lower']:.10f}", f"{r['upper']:.10f}", f"{r['upper'] - r['lower']:.3e}", lo_law, up_law])
    print_table(["objective", "lower", "upper", "width", "lower law {atom: weight}", "upper law {atom: weight}"], rows)
