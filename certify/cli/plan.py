"""``certify plan``: how many examples and calls it takes to certify that k votes beat one call.

Examples
--------
certify plan pilot.csv --votes 5 --alpha 0.05
certify plan pilot.csv --votes 3 --examples 500 1000 4000 --calls 2 5 --reps 200 --json
certify plan pilot.csv --votes 3 --workers 4
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys

from .._errors import InputError
from .._json import schema_id
from .._numbers import percentage_points, shown_value
from .._objective import is_vote_limit
from ..planning import DEFAULT_PLAN_REPS, DEFAULT_WIDTH_REPS, plan_study
from ..readers import read_bits
from ._args import open_run_store, parse_alpha, parse_int
from ._output import print_json, print_table

#: Largest number of examples of a simulated study: each study draws arrays of this length
#: (80 MB per array at the limit), so a typo such as 10^12 stops here instead of in MemoryError.
MAX_EXAMPLES = 10**7
#: Most calls per example of a simulated study (its likelihood has K + 1 count classes).
MAX_CALLS = 1000
#: Most simulated studies per design and scenario; the Monte Carlo error at 10^5 is below 0.2%.
MAX_REPS = 10**5
#: Largest budget planned: every simulated study computes likelihood intervals of V_k, whose
#: grids grow with k (one study of 50 examples takes about 1 s at 10001 votes, 3 s at 100001).
MAX_PLAN_VOTES = 10001
#: Seeds of NumPy's PCG64 are nonnegative; 128 bits are all it uses.
MAX_SEED = 2**128 - 1
#: Most worker processes: each holds a copy of the solver (about 100 MB with NumPy and SciPy).
MAX_WORKERS = 64
#: Default workers: two cores halve the wall time; more would take a shared machine's cores.
DEFAULT_WORKERS = min(2, os.cpu_count() or 1)


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
    # Numbers are read in run(), so that a bad one exits with code 2 and one line like every input error.
    p.add_argument(
        "--votes",
        required=True,
        metavar="K",
        help=f"the budget whose gain over one call is planned (2 to {MAX_PLAN_VOTES})",
    )
    p.add_argument("--alpha", default="0.05", help="1 - confidence level (default 0.05)")
    p.add_argument(
        "--examples",
        nargs="+",
        default=["200", "1000", "4000"],
        metavar="N",
        help=f"numbers of examples to simulate (default 200 1000 4000; at most {MAX_EXAMPLES})",
    )
    p.add_argument(
        "--calls",
        nargs="+",
        default=["2", "5", "10"],
        metavar="K",
        help=f"calls per example to simulate (default 2 5 10; at most {MAX_CALLS})",
    )
    p.add_argument(
        "--reps",
        default=str(DEFAULT_PLAN_REPS),
        help=f"simulated studies per design and scenario (default {DEFAULT_PLAN_REPS}, Monte Carlo SE <= 0.025; "
        f"10 to {MAX_REPS})",
    )
    p.add_argument(
        "--width-reps",
        default=str(DEFAULT_WIDTH_REPS),
        help=f"of those, the studies whose V_k interval is solved for the mean width (default {DEFAULT_WIDTH_REPS}; "
        f"2 to {MAX_REPS}; at least --reps solves every study's)",
    )
    p.add_argument(
        "--workers",
        default=str(DEFAULT_WORKERS),
        help=f"processes that simulate (default {DEFAULT_WORKERS}; 1 to {MAX_WORKERS})",
    )
    p.add_argument("--seed", default="0", help="random seed (default 0)")
    p.add_argument("--group", help="pilot group (dataset/policy) when the file has several")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Every option is read before the pilot file, so a bad one costs nothing.
    if is_vote_limit(args.votes):
        raise InputError(
            f"votes={shown_value(args.votes)} is V_inf, whose gain over one call is not a polynomial and "
            f"cannot be planned; give a count from 2 to {MAX_PLAN_VOTES}"
        )
    votes = parse_int(args.votes, "votes", 2, MAX_PLAN_VOTES)
    alpha = parse_alpha(args.alpha)
    examples = [parse_int(n, "examples", 2, MAX_EXAMPLES) for n in args.examples]
    calls = [parse_int(k, "calls", 2, MAX_CALLS) for k in args.calls]
    reps = parse_int(args.reps, "reps", 10, MAX_REPS)
    width_reps = parse_int(args.width_reps, "width-reps", 2, MAX_REPS)
    seed = parse_int(args.seed, "seed", 0, MAX_SEED)
    workers = parse_int(args.workers, "workers", 1, MAX_WORKERS)
    bits = read_bits(args.file, group=args.group, open_store=open_run_store)
    # the progress report goes to a terminal only: a log or a pipe gets the result alone
    show = not args.json and sys.stderr.isatty()
    with _progress_bar(show) as progress, _sigterm_interrupts():
        plan = plan_study(
            bits,
            votes,
            alpha=alpha,
            examples=examples,
            calls=calls,
            reps=reps,
            width_reps=width_reps,
            seed=seed,
            workers=workers,
            progress=progress,
        )
    if args.json:
        print_json({"$schema": schema_id("plan", plan.schema_version), **plan.to_dict()})
        return 0
    level = f"{100 * (1 - plan.alpha):g}%"
    print(
        f"Plan for certifying that {plan.votes} votes beat one call ({level}), from a pilot of {plan.pilot_examples} "
        f"examples; {reps} simulated studies per design, the width from {plan.rows[0].width_reps} of them "
        f"(Monte Carlo, not a guarantee; standard errors after +-, <= {0.5 / math.sqrt(reps):.3f} for the probability)"
    )
    for name, sc in plan.scenarios.items():
        print(f"  scenario {name}: true gain V{plan.votes} - V1 = {percentage_points(sc['gain'])} pp")
    beyond = plan.beyond_pilot()
    if beyond:
        # K calls need K moments of the latent law; the pilot identifies only its own K
        print(
            f"  designs with {', '.join(map(str, beyond))} calls use moments beyond the pilot's "
            f"{plan.pilot_calls} calls: "
            f"they come from the scenario laws as solved, one choice among laws the pilot supports equally"
        )
    print()
    rows = [
        [
            r.scenario,
            r.examples,
            r.calls,
            f"{r.mean_width:.4f} +- {r.se_width:.4f}",
            f"{r.p_certified:.3f} +- {r.se_certified:.3f}",
        ]
        for r in plan.rows
    ]
    print_table(["scenario", "examples", "calls", f"mean width of V{plan.votes}", "P(certified gain)"], rows)
    return 0


@contextlib.contextmanager
def _sigterm_interrupts():
    """SIGTERM stops the simulation as Ctrl-C does: plan_study stops its worker processes, and
    the command ends with one line (exit 130). Its default action would end this process at
    once and leave the workers behind. The previous handler is restored after."""
    try:
        previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not the main thread (the command run from a thread): signals go elsewhere
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _progress_bar(show: bool):
    """A progress callback (done, total) for :func:`plan_study`: tqdm's bar on standard error when
    installed (the ``report`` extra), else one rewritten line; a no-op when ``show`` is false."""
    if not show:
        yield None
        return
    try:
        from tqdm import tqdm  # optional ([report] extra): imported only when a bar is shown
    except ImportError:
        tqdm = None
    if tqdm is None:

        def line(done: int, total: int) -> None:
            print(f"\rsimulated {done}/{total} studies", end="" if done < total else "\n", file=sys.stderr)

        yield line
        return
    bar = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # the total is known from the first report on
            bar = tqdm(total=total, unit="study", file=sys.stderr, leave=False)
        bar.update(done - bar.n)

    try:
        yield advance
    finally:
        if bar is not None:
            bar.close()
