"""``certify bounds``: sharp bounds of vote accuracies and polynomial objectives.

Examples
--------
certify bounds --mu 0.7 --rho 0.2 --votes 3 5 9 101 inf
certify bounds --mu 0.7 --nu 0.532 --objective "P3 - P1" --json
certify bounds --moments 0.7 0.532 0.42 --votes 3 5

Budgets are counts up to :data:`certify._objective.MAX_VOTES` or ``inf`` (for every moment
order: Theorem 4.3 for one or two moments, the Chebyshev-Markov-Stieltjes bounds above).
The default budgets are 3 5 inf. Moments within
FEASIBILITY_TOL of the boundary of the moment space are snapped onto it; the text output
then says which value was given and which was used. No printed or JSON number is -0.
"""

from __future__ import annotations

import argparse
import math

from .._bounds import as_moments, sharp_bounds
from .._endpoint import endpoint_bounds
from .._json import schema_id
from .._moments import FEASIBILITY_TOL
from .._objective import (
    MAX_VOTES,
    V_INF,
    budget_json,
    is_vote_limit,
    parse_objective,
    parse_vote_budgets,
    vote_accuracy,
    votes_label,
)
from .._results import SCHEMA_VERSION
from ._args import add_moment_arguments, check_moment_arguments
from ._output import format_law, print_json, print_table

DEFAULT_VOTES = ("3", "5", "inf")
#: Half the last digit of the table's bounds (ten decimals): a dual failing by more is noted.
SHOWN_VIOLATION = 5e-11


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
    p.add_argument(
        "--votes",
        nargs="+",
        metavar="K",
        help=f"vote budgets: counts (odd or even, at most {MAX_VOTES}) or 'inf' (default: 3 5 inf)",
    )
    p.add_argument(
        "--objective",
        nargs="+",
        metavar="EXPR",
        default=[],
        help='objectives such as "P3 - P1", "V7 - V3", "3*q**2 - 2*q**3"',
    )
    p.add_argument("--method", default="exact", choices=["exact", "sos", "grid"], help="solver (default: exact)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_moment_arguments(args)
    mom = as_moments(mu=args.mu, nu=args.nu, rho=args.rho, moments=args.moments)
    votes = (
        parse_vote_budgets(args.votes)
        if args.votes is not None
        else ([] if args.objective else parse_vote_budgets(DEFAULT_VOTES))
    )
    # Every objective is built (and refused if it must be) before any bound is computed.
    targets = [("votes", budget_json(v), None if v is V_INF else vote_accuracy(v)) for v in votes]
    targets += [("objective", obj.name, obj) for obj in map(parse_objective, args.objective)]

    results = []
    for key, label, obj in targets:
        if obj is not None:
            results.append({key: label, **_entry(obj, mom, args.method)})
            continue
        e = endpoint_bounds(moments=mom)
        results.append(
            {
                "votes": budget_json(V_INF),
                "lower": e.lower,
                "upper": e.upper,
                "lower_attained": e.lower_attained,
                "upper_attained": e.upper_attained,
            }
        )

    header = {"$schema": schema_id("bounds", SCHEMA_VERSION), "schema_version": SCHEMA_VERSION, "mu": mom.mu}
    if mom.order >= 2:
        header["nu"] = mom.nu
        header["rho"] = mom.rho
    header.update({"moments": list(mom.values), "method": args.method, "results": results})
    header = plain_zeros(header)
    if args.json:
        print_json(header)
    else:
        _print_snapped(mom)
        _print_text(header)
    return 0


def plain_zeros(data):
    """``data`` with every float -0.0 replaced by 0.0 (nested dicts and lists).

    Solvers return -0.0 for an atom at the left end or a vanishing coefficient; printed,
    it reads as a negative number (``{-0: 1}``), and it says nothing the value 0 does not.
    """
    if isinstance(data, float):
        return data + 0.0  # -0.0 + 0.0 is +0.0; every other float is unchanged
    if isinstance(data, dict):
        return {k: plain_zeros(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [plain_zeros(v) for v in data]
    return data


def _print_snapped(mom) -> None:
    """Name the moments that validation snapped onto the boundary of the moment space.

    A value within FEASIBILITY_TOL of the boundary is replaced by the boundary value, so
    ``--mu 1e-300`` is computed as mu = 0; the table's header shows the value used, and
    this line shows what was given.
    """
    for i, (used, given) in enumerate(zip(mom.values, mom.exact)):
        if used != float(given):
            print(
                f"note: m{i + 1} = {float(given)!r} is within {FEASIBILITY_TOL:g} of the boundary of the "
                f"moment space and was snapped to {used!r}"
            )


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
    # The moments used, in full (the shortest text that reads back as the same double): a
    # rounded header could show "mu = 0" for 1e-300 or hide digits the user typed. rho is
    # derived, so it is rounded.
    desc = f"mu = {data['mu']!r}"
    if len(data["moments"]) > 2:  # every moment the bounds use, not only the first two
        desc = "moments = (" + ", ".join(repr(m) for m in data["moments"]) + ")"
    elif "nu" in data:
        rho = data["rho"]
        desc += f", nu = {data['nu']!r}" + ("" if isinstance(rho, float) and math.isnan(rho) else f" (rho = {rho:.6g})")
    print(f"Sharp bounds over all laws on [0,1] with {desc}; method {data['method']}")
    rows = []
    for r in data["results"]:
        label = _label(r)
        if is_vote_limit(r.get("votes")):
            lo_law = "attained" if r["lower_attained"] else "infimum, approached only"
            up_law = "attained" if r["upper_attained"] else "supremum, approached only"
        else:
            lo_law = format_law(r["lower_law"]["atoms"], r["lower_law"]["weights"])
            up_law = format_law(r["upper_law"]["atoms"], r["upper_law"]["weights"])
        rows.append([label, _fixed(r["lower"]), _fixed(r["upper"]), f"{r['upper'] - r['lower']:.3e}", lo_law, up_law])
    print_table(
        ["budget / objective", "lower", "upper", "width", "lower law {atom: weight}", "upper law {atom: weight}"], rows
    )
    for r in data["results"]:
        _print_violation(r)


def _label(r: dict) -> str:
    """The row's name: its vote budget, or its objective."""
    return votes_label(r["votes"]) if "votes" in r else r["objective"]


def _print_violation(r: dict) -> None:
    """A note where a dual polynomial fails by more than the table's last digit (high moment
    orders, where its monomial coefficients are large): the bounds then hold only to about that,
    and the certain ones are the dual values widened by the violation (eq. (dual-L-main))."""
    lo_v, up_v = r.get("lower_violation", 0.0), r.get("upper_violation", 0.0)
    if max(lo_v, up_v) <= SHOWN_VIOLATION:
        return
    print(
        f"note: {_label(r)}: the dual polynomials fail by up to {max(lo_v, up_v):.1e} in double precision, so these "
        f"bounds hold only to about that: lower >= {_fixed(r['lower_dual_value'] - lo_v)}, "
        f"upper <= {_fixed(r['upper_dual_value'] + up_v)}"
    )


def _fixed(x: float) -> str:
    """``x`` with ten decimals; a value that rounds to zero prints as 0.0000000000, never -0.0000000000."""
    text = f"{x:.10f}"
    return text.lstrip("-") if float(text) == 0 else text
