"""``certify analyze``: certified vote accuracy from a file of correctness bits.

Examples
--------
certify analyze calls.csv --votes 3 5 inf
certify analyze logs/2026-11-20_task.eval --scorer match
certify analyze runs/paper.sqlite --group qnli/llama3.1-8b-t0.2 --json
certify analyze bits.parquet --baseline qnli/llama3.1-8b-t0.2   # paired policy comparisons
"""

from __future__ import annotations

import argparse

from .._errors import InputError
from ..stats._data import read_groups
from ..stats._empirical import compare_policies
from ..stats._report import REPORT_SCHEMA_VERSION, AnalysisReport, analyze, parse_votes
from ._output import print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="certified vote accuracy from per-example, per-call correctness bits",
        description=(
            "Two-call estimates, sharp intervals, projected 1-alpha intervals (paper Section 4.4), MaxEnt and LDGP "
            "completions, empirical vote accuracies and a verdict on certified improvement over one call. FILE is "
            "CSV/TSV, JSONL or Parquet (wide: one column per call; long: example_id, call, correct), an inspect_ai "
            "log (.eval or .json; epochs are calls) or a certify run store (.sqlite)."
        ),
    )
    p.add_argument("file", metavar="FILE", help="data file")
    p.add_argument("--votes", nargs="+", metavar="K", default=["3", "5", "inf"], help="vote budgets (default: 3 5 inf)")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (default 0.05)")
    p.add_argument("--group", help="analyse only this dataset/policy group")
    p.add_argument("--scorer", help="inspect_ai logs: which scorer gives the bits")
    p.add_argument("--baseline", metavar="GROUP", help="also compare every other group with GROUP, example by example")
    p.add_argument("--singular", choices=["floor", "pinv"], default="floor", help="rule for a singular covariance (default floor)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    votes = parse_votes(args.votes)
    groups = read_groups(args.file, scorer=args.scorer)
    if args.group is not None:
        if args.group not in groups:
            raise InputError(f"group {args.group!r} not in {args.file} (has {', '.join(groups) or 'none'})")
        groups = {args.group: groups[args.group]}
    reports = [analyze(bits, votes, args.alpha, singular=args.singular) for bits in groups.values()]
    comparisons = _policy_comparisons(groups, args.baseline, votes, args.alpha) if args.baseline is not None else []
    if args.json:
        out = {"schema_version": REPORT_SCHEMA_VERSION, "source": str(args.file), "reports": [r.to_dict() for r in reports]}
        if args.baseline is not None:
            out["policy_comparisons"] = [c.to_dict() for c in comparisons]
        print_json(out)
        return 0
    for i, r in enumerate(reports):
        if i:
            print()
        print_report(r)
    if comparisons:
        print(f"\nPaired comparisons with {args.baseline} (same examples, {100 * (1 - args.alpha):g}% CI):")
        for c in comparisons:
            print(f"  {c.label_b} - {c.label_a}: {100 * c.difference:+.2f} pp [{100 * c.lower:+.2f}, {100 * c.upper:+.2f}] (n = {c.n})")
    return 0


def _policy_comparisons(groups: dict, baseline: str, votes, alpha: float) -> list:
    """Empirical m-vote accuracy of every group minus the baseline's, on their common examples."""
    if baseline not in groups:
        raise InputError(f"--baseline {baseline!r} is not a group of the file (has {', '.join(groups) or 'none'})")
    base = groups[baseline]
    out = []
    for name, bits in groups.items():
        if name == baseline or not set(bits.example_ids) & set(base.example_ids):
            continue
        for v in [1] + [v for v in votes if v != "inf"]:
            if v <= min(bits.calls, base.calls):
                out.append(compare_policies(base, bits, v, alpha, labels=(f"{baseline} m={v}", f"{name} m={v}")))
    return out


def _f(x, digits=4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _interval(lo, up) -> str:
    return f"[{lo:.4f}, {up:.4f}]"


def print_report(r: AnalysisReport) -> None:
    """The ten-second text report."""
    t = r.two_call
    level = f"{100 * (1 - r.alpha):g}%"
    head = f"{r.source}" + (f" [{r.group}]" if r.group else "")
    calls = f"{r.calls}" if r.calls == r.max_calls else f"{r.calls}-{r.max_calls}"
    print(f"{head}: {r.n} examples x {calls} calls")
    print(f"  one call  mu-hat  = {t.mu:.4f} (SE {t.se_mu:.4f})    rho-hat = {t.rho:.4f} (SE {t.se_rho:.4f})")
    pt = t.pair_table
    print(f"  first two calls: both right {100 * pt.both_correct:.1f}%, disagree {100 * pt.disagree:.1f}%, both wrong {100 * pt.both_wrong:.1f}%")
    if r.all_calls is not None:
        a = r.all_calls
        print(f"  all {r.calls} calls (U-statistics): mu = {a.mu:.4f} (SE {a.se[0]:.4f}), rho = {a.rho:.4f} (SE {a.se_rho:.4f})")
    rows = []
    with_moments = any(b.moment_lower is not None for b in r.budgets)
    for b in r.budgets:
        emp = "-" if b.empirical is None else f"{b.empirical.value:.4f} +- {b.empirical.se:.4f}"
        row = [("V_inf" if b.votes == "inf" else f"{b.votes} votes"), _interval(b.sharp_lower, b.sharp_upper),
               _interval(b.projected.lower, b.projected.upper), _f(b.maxent), _f(b.ldgp), emp]
        if with_moments:
            row.append("-" if b.moment_lower is None else _interval(b.moment_lower, b.moment_upper))
        rows.append(row)
    print()
    headers = ["budget", "sharp at estimate", f"{level} projected", "MaxEnt", "LDGP", "empirical"]
    print_table(headers + ([f"sharp, {r.calls} moments"] if with_moments else []), rows)
    print()
    print(f"Verdict ({level}, distribution-free):")
    for v in r.verdicts:
        print(f"  {v.text}")
    for c in r.comparisons:
        print(f"  empirical {c.label_b} vs {c.label_a}: {100 * c.difference:+.2f} pp [{100 * c.lower:+.2f}, {100 * c.upper:+.2f}]")
    for note in r.notes:
        print(f"  note: {note}")
