"""``certify analyze``: certified vote accuracy from a file of correctness bits.

Examples
--------
certify analyze calls.csv --votes 3 5 9 101 inf        # K-call likelihood-ratio intervals
certify analyze calls.csv --calls 3 --votes 5 7 9       # only the first 3 calls of each example
certify analyze calls.csv --method two-call             # the paper's projected Wald region
certify analyze logs/2026-11-20_task.eval --scorer match
certify analyze runs/paper.sqlite --group qnli/llama3.1-8b-t0.2 --json
certify analyze bits.parquet --baseline qnli/llama3.1-8b-t0.2   # paired policy comparisons
certify analyze calls.csv --votes 3 9 inf --certificates certs    # then: certify verify certs
"""

from __future__ import annotations

import argparse
import sys

from .._errors import InputError
from .._files import file_sha256
from .._json import schema_id
from .._numbers import percentage_points, pp_interval
from .._objective import V_INF, parse_objective, parse_vote_budgets
from ..analysis import (
    METHODS,
    REPORT_SCHEMA_VERSION,
    analyze,
    check_certifiable,
    parse_aggregate,
    write_report_certificates,
)
from ..certificates import INDEX_FILE, check_certificate_folder
from ..readers import DEFAULT_NORMALIZATION, NORMALIZATIONS, ColumnMap, parse_score_map, read_groups
from ..stats import compare_policies, votes_label
from ._args import open_run_store, parse_alpha
from ._output import print_json, print_line

#: Most groups (dataset/policy) one `certify analyze` analyses: each costs its own likelihood
#: solves, about 0.1-0.2 s for a small group with the default budgets and more for many calls,
#: so 1,000 take a few minutes; 20,000 groups of a 0.9 MB file would take 45 minutes. Checked
#: right after reading, before any solve; --group analyses one group of a file with more.
MAX_GROUPS = 1000
#: Group names an error message lists before it elides the rest.
SHOWN_GROUPS = 6


def register(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="certified vote accuracy from per-example, per-call correctness bits",
        description=(
            "1-alpha intervals of vote accuracy from every recorded call (likelihood ratio over the latent law), "
            "two-call estimates, sharp intervals at the estimate, projected 1-alpha intervals (paper Section 4.4), "
            "MaxEnt and LDGP completions, empirical vote accuracies and a verdict on improvement over one call. "
            "FILE is CSV/TSV, JSONL or Parquet (wide: one column per call; long: example_id, call, correct; or each "
            "call's answer with a target column: answer1..answerK, target or example_id, call, answer, target), an "
            "inspect_ai log (.eval or .json; epochs are calls) or a certify run store (.sqlite)."
        ),
    )
    p.add_argument("file", metavar="FILE", help="data file")
    p.add_argument("--votes", nargs="+", metavar="K", default=["3", "5", "inf"], help="vote budgets (default: 3 5 inf)")
    p.add_argument("--alpha", default="0.05", help="1 - confidence level (default 0.05)")
    p.add_argument("--group", help="analyse only this dataset/policy group")
    p.add_argument("--scorer", help="inspect_ai logs: which scorer gives the bits")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="inspect_ai logs: read a run that did not finish (status not 'success') or has unscored samples, "
        "using only the scored samples",
    )
    p.add_argument(
        "--score-map",
        nargs="+",
        action="extend",
        metavar="VALUE=BIT",
        help="inspect_ai logs: read score VALUE as BIT (0 or 1), e.g. --score-map N=0 P=0",
    )
    lm = p.add_argument_group(
        "lm-eval samples", "samples_*.jsonl of lm_eval --log_samples (generate_until, repeats >= 2)"
    )
    lm.add_argument(
        "--answer-regex",
        metavar="REGEX",
        help="the answer in each response: first capture group of the first match, else the whole match; "
        "a response without a match counts as incorrect (default: the whole response)",
    )
    lm.add_argument("--answer-ignore-case", action="store_true", help="compare answer and target ignoring case")
    cols = p.add_argument_group(
        "table columns",
        "CSV/TSV/JSONL/Parquet: roles of columns the documented names do not "
        "cover (see certify.readers); every other column must be documented or ignored",
    )
    cols.add_argument("--id-col", metavar="COL", help="the example id column")
    cols.add_argument("--call-cols", nargs="+", metavar="COL", help="wide form: the call columns, in call order")
    cols.add_argument(
        "--answer-cols",
        nargs="+",
        metavar="COL",
        help="wide form: the answer columns, one per call, in call order (with --target-col or a target column)",
    )
    cols.add_argument("--call-col", metavar="COL", help="long form: the call-index column")
    cols.add_argument("--correct-col", metavar="COL", help="long form: the correct (0/1) column")
    cols.add_argument(
        "--answer-col", metavar="COL", help="long form: the answer column (with --target-col or a target column)"
    )
    cols.add_argument(
        "--target-col",
        metavar="COL",
        help="the column of each example's correct answer; a call is correct when its answer equals it",
    )
    cols.add_argument(
        "--group-cols",
        nargs="*",
        metavar="COL",
        help="columns whose values split the file into groups (none: no groups)",
    )
    cols.add_argument("--ignore-cols", nargs="+", action="extend", metavar="COL", help="columns to drop before reading")
    cols.add_argument(
        "--delimiter",
        metavar="SEP",
        help="CSV/TSV/TXT: the field separator, ',' or ';' or tab (also written \\t); default: tab for "
        ".tsv, else the one of the three found in the header line",
    )
    p.add_argument(
        "--answer-normalize",
        choices=NORMALIZATIONS,
        default=DEFAULT_NORMALIZATION,
        help="how answers are compared with the target and with each other: exact, strip (default: surrounding "
        "white space removed), casefold (also case and runs of white space), number (also numbers by value)",
    )
    p.add_argument("--baseline", metavar="GROUP", help="also compare every other group with GROUP, example by example")
    p.add_argument(
        "--singular", choices=["floor", "pinv"], default="floor", help="rule for a singular covariance (default floor)"
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default="likelihood",
        help="interval method: likelihood (every call; default) or two-call (the paper's projected Wald region)",
    )
    p.add_argument(
        "--calls",
        type=int,
        metavar="K",
        help="likelihood: every interval and verdict (majority, plurality, pass@k, --objective) uses only the "
        "first K calls of each example; the majority's empirical column keeps every call",
    )
    p.add_argument(
        "--simultaneous",
        action="store_true",
        help="likelihood: calibrate so that all intervals hold at once (chi2 with the identified dimension)",
    )
    p.add_argument(
        "--certificates",
        metavar="DIR",
        help="likelihood: write an exact certificate for each interval end (budgets, gains, --objective), and "
        "index.json listing them, as the folder DIR, all or nothing (check them with: certify verify DIR)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="--certificates: replace the certificate set certify wrote in DIR before (never other files)",
    )
    p.add_argument(
        "--aggregate",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="also report these aggregates of k calls: plurality (a vote over the calls' answers, "
        "fair ties; needs answers) and pass (best-of-k: at least one call correct); the bit "
        "majority is always reported",
    )
    p.add_argument(
        "--objective",
        nargs="+",
        action="extend",
        metavar="EXPR",
        help='an interval of any polynomial in q, as in `certify bounds` (e.g. "1 - (1-q)**8", "V5 - V3")',
    )
    p.add_argument(
        "--forecast",
        action="store_true",
        help="likelihood: also forecast the majority and pass@k beyond the recorded calls from the best parametric "
        "family of the latent law the data do not reject (model-based, NOT certified; a parametric bootstrap, "
        "seconds per group)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        metavar="B",
        help="--forecast: parametric bootstrap draws per family tried (default 200)",
    )
    p.add_argument("--seed", type=int, default=0, help="--forecast: seed of the bootstrap draws (default 0)")
    p.add_argument(
        "--details",
        action="store_true",
        help="print every table (estimates, all interval columns, completions, the answer model, every verdict and "
        "note) instead of the one verdict table per group",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    args.alpha = parse_alpha(args.alpha)  # validated once, here: plain decimal or p/q in [1e-12, 1)
    votes = parse_vote_budgets(args.votes)
    if args.method == "two-call" and (args.calls is not None or args.simultaneous or args.certificates is not None):
        raise InputError("--calls, --simultaneous and --certificates apply to --method likelihood only")
    if args.force and args.certificates is None:
        raise InputError("--force applies to --certificates only")
    if not args.forecast and (args.bootstrap is not None or args.seed != 0):
        raise InputError("--bootstrap and --seed apply to --forecast only")
    if args.method == "two-call" and args.forecast:
        raise InputError("--forecast applies to --method likelihood only")
    aggregates = [parse_aggregate(a) for a in args.aggregate or ()]  # every name checked before any work
    objectives = [parse_objective(o) for o in args.objective or ()]
    if args.certificates is not None:  # before any work: an unusable folder costs nothing
        check_certificate_folder(args.certificates, force=args.force)
    columns = ColumnMap(
        id_col=args.id_col,
        call_cols=args.call_cols,
        call_col=args.call_col,
        correct_col=args.correct_col,
        group_cols=args.group_cols,
        ignore_cols=args.ignore_cols,
        answer_cols=args.answer_cols,
        answer_col=args.answer_col,
        target_col=args.target_col,
    )
    groups = read_groups(
        args.file,
        scorer=args.scorer,
        allow_incomplete=args.allow_incomplete,
        score_map=parse_score_map(args.score_map),
        columns=columns,
        delimiter=args.delimiter,
        answer_regex=args.answer_regex,
        ignore_case=args.answer_ignore_case,
        open_store=open_run_store,
        answer_normalize=args.answer_normalize,
    )
    read_info = next(iter(groups.values())).read_info  # how the file was read: the same for every group
    if args.group is not None:
        if args.group not in groups:
            raise InputError(f"group {args.group!r} not in {args.file} (has {_some_groups(groups)})")
        groups = {args.group: groups[args.group]}
    if len(groups) > MAX_GROUPS:
        raise InputError(
            f"{args.file}: {len(groups)} groups, more than the limit of {MAX_GROUPS} per analysis; "
            f"analyse one at a time with --group NAME (groups: {_some_groups(groups)}), or name the "
            f"columns that split the file with --group-cols"
        )
    if args.certificates is not None:
        check_certifiable(groups, votes, objectives, args.calls)
    reports = [
        analyze(
            bits,
            votes,
            args.alpha,
            singular=args.singular,
            method=args.method,
            calls=args.calls,
            simultaneous=args.simultaneous,
            aggregates=aggregates,
            objectives=objectives,
            forecast=args.forecast,
            bootstrap=args.bootstrap,
            seed=args.seed,
        )
        for bits in groups.values()
    ]
    comparisons = _policy_comparisons(groups, args.baseline, votes, args.alpha) if args.baseline is not None else []
    if args.certificates is not None:
        reports, names = write_report_certificates(
            reports, args.certificates, digest=file_sha256(args.file), force=args.force
        )
        print_line(
            f"wrote {len(names)} certificates and {INDEX_FILE} to {args.certificates}; check them with: "
            f"certify verify {args.certificates}",
            file=sys.stderr,
        )
    if args.json:
        out: dict[str, object] = {
            "$schema": schema_id("analyze", REPORT_SCHEMA_VERSION),
            "schema_version": REPORT_SCHEMA_VERSION,
            "source": str(args.file),
            "reports": [r.to_dict() for r in reports],
        }
        out["columns"] = None if read_info is None else read_info.to_dict()
        if args.baseline is not None:
            out["policy_comparisons"] = [c.to_dict() for c in comparisons]
        print_json(out)
        return 0
    if read_info is not None:
        print_line(f"columns: {read_info.describe()}")
        for note in read_info.notes:
            print_line(f"note: {note}")
        print_line()
    for i, r in enumerate(reports):
        if i:
            print_line()
        for line in r.text_lines(details=args.details):
            print_line(line)
    if comparisons:
        print_line()
        print_line(f"Paired comparisons with {args.baseline} (same examples, {100 * (1 - args.alpha):g}% CI):")
        for c in comparisons:
            print_line(
                f"  {c.label_b} - {c.label_a}: {percentage_points(c.difference)} pp "
                f"{pp_interval(*c.interval.ends)} (n = {c.n})"
            )
    return 0


def _some_groups(groups) -> str:
    """The first SHOWN_GROUPS group names (each as repr writes it) and how many there are in all."""
    names = [repr(g) for g in groups]
    if not names:
        return "none"
    return (
        ", ".join(names)
        if len(names) <= SHOWN_GROUPS
        else f"{', '.join(names[:SHOWN_GROUPS])}, ... ({len(names)} in all)"
    )


def _policy_comparisons(groups: dict, baseline: str, votes, alpha: float) -> list:
    """Empirical m-vote accuracy of every group minus the baseline's, on their common examples."""
    if baseline not in groups:
        raise InputError(f"--baseline {baseline!r} is not a group of the file (has {_some_groups(groups)})")
    base = groups[baseline]
    out = []
    for name, bits in groups.items():
        if name == baseline or not set(bits.example_ids) & set(base.example_ids):
            continue
        for v in [1] + [v for v in votes if v is not V_INF]:
            if v <= min(bits.calls, base.calls):
                out.append(
                    compare_policies(
                        base, bits, v, alpha, labels=(f"{baseline}, {votes_label(v)}", f"{name}, {votes_label(v)}")
                    )
                )
    return out
