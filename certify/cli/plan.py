"""``certify plan``: how many examples and calls it takes to certify that k votes beat one call.

Examples
--------
certify plan pilot.csv --votes 5 --alpha 0.05
certify plan pilot.csv --votes 3 --examples 500 1000 4000 --calls 2 5 --reps 200 --json
"""

from __future__ import annotations

import argparse
import sys

from .._errors import InputError
from ..stats._data import read_bits
from ..stats._planning import plan_study
from ._output import print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "plan",
        help="simulated width and probability of certifying a voting gain, per number of examples and calls",
        description=(
            "From pilot data, simulate studies of N examples x K calls under two latent laws (the pilot's NPMLE and "
            "the least favourable law of its likelihood set for the gain) and report the mean 1-alpha interval width "
            "of V_k and the probability that the interval of V_k - V_1 lies above 0. Monte Carlo estimates under the "
            "repeated-call model, not guarantees."
        ),
    )
    p.add_argument("file", metavar="FILE", help="pilot data (any file `certify analyze` reads)")
    p.add_argument("--votes", type=int, required=True, metavar="K", help="the budget whose gain over one call is planned")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (default 0.05)")
    p.add_argument("--examples", nargs="+", type=int, default=[200, 1000, 4000], metavar="N",
                   help="numbers of examples to simulate (default 200 1000 4000)")
    p.add_argument("--calls", nargs="+", type=int, default=[2, 5, 10], metavar="K",
                   help="calls per example to simulate (default 2 5 10)")
    p.add_argument("--reps", type=int, default=50, help="simulated studies per design and scenario (default 50)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--group", help="pilot group (dataset/policy) when the file has several")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha {args.alpha!r} must be in (0, 1)")
    bits = read_bits(args.file, group=args.group)

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\rsimulated {done}/{total} designs", end="" if done < total else "\n", file=sys.stderr)

    plan = plan_study(bits, args.votes, alpha=args.alpha, examples=args.examples, calls=args.calls, reps=args.reps,
                      seed=args.seed, progress=progress)
    if args.json:
        print_json(plan.to_dict())
        return 0
    level = f"{100 * (1 - plan.alpha):g}%"
    print(f"Plan for certifying that {plan.votes} votes beat one call ({level}), from a pilot of {plan.pilot_examples} "
          f"examples; {args.reps} simulated studies per cell (Monte Carlo, not a guarantee)")
    for name, sc in plan.scenarios.items():
        print(f"  scenario {name}: true gain V{plan.votes} - V1 = {100 * sc['gain']:+.2f} pp")
    print()
    rows = [[r.scenario, r.examples, r.calls, f"{r.mean_width:.4f}", f"{r.p_certified:.2f} +- {r.se_certified:.2f}"]
            for r in plan.rows]
    print_table(["scenario", "examples", "calls", f"mean width of V{plan.votes}", "P(certified gain)"], rows)
    return 0
