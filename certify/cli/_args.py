"""Argument groups shared by several commands (moments given as mu/nu/rho or raw moments)."""

from __future__ import annotations

import argparse
import re

from .._errors import InputError
from .._numbers import exact_number, shown_value

# ASCII digits only: int() also reads "1_000", "+3" and other scripts' digits.
_COUNT = re.compile(r"\d+", re.ASCII)


def add_moment_arguments(p: argparse.ArgumentParser) -> None:
    """``--mu`` with ``--nu`` or ``--rho`` (two calls), ``--mu`` alone, or ``--moments m1 ... mm``."""
    p.add_argument("--mu", help="one-call accuracy E[Q]")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--nu", help="second moment E[Q^2] = P(two calls both correct)")
    g.add_argument("--rho", help="same-example correlation of two calls")
    p.add_argument("--moments", nargs="+", metavar="M", help="raw moments m1 ... mm instead of --mu/--nu")


#: Highest moment order accepted by ``--moments``. Beyond a few dozen moments the Hankel
#: matrices that decide feasibility are singular to double precision, so the extra moments
#: carry no information the solvers can use, while the checks cost O(m^3) (order 2000 runs
#: for minutes); 100 leaves a wide margin above any number of labeled calls in practice.
MAX_MOMENT_ORDER = 100


def check_moment_arguments(args: argparse.Namespace) -> None:
    """Reject conflicting, missing or too many moment arguments with one line."""
    if args.moments and (args.mu is not None or args.nu is not None or args.rho is not None):
        raise InputError("give --moments or --mu/--nu/--rho, not both")
    if not args.moments and args.mu is None:
        raise InputError("--mu is required (or --moments m1 ... mm)")
    if args.moments and len(args.moments) > MAX_MOMENT_ORDER:
        raise InputError(
            f"--moments has {len(args.moments)} values, more than the limit of {MAX_MOMENT_ORDER} (moment order)"
        )


def parse_int(token: str, what: str, least: int, most: int) -> int:
    """An integer option from the command line: plain ASCII digits (optionally signed) in [least, most].

    argparse's ``type=int`` would also read ``1_000`` and other scripts' digits, and leave
    the range to code that may allocate before it checks.

    Raises
    ------
    InputError
        Naming the option, the value and the rule it breaks.
    """
    text = str(token).strip()
    digits = text[1:] if text[:1] in "+-" else text
    if _COUNT.fullmatch(digits) is None:
        raise InputError(f"{what}={shown_value(token)} must be an integer (plain digits)")
    # A value far out of range is refused before its digits are converted.
    value = int(text) if len(digits.lstrip("0")) <= len(str(max(abs(least), abs(most)))) else None
    if value is None or value < least:
        shown = shown_value(token) if value is None else value
        raise InputError(
            f"{what}={shown} must be an integer >= {least}"
            if text.startswith("-") or value is not None
            else f"{what}={shown} must be an integer <= {most}"
        )
    if value > most:
        raise InputError(f"{what}={value} must be an integer <= {most}")
    return value


#: Smallest ``--alpha``: the quantile at 1 - alpha of a chi-square law must stay finite and
#: distinct from its neighbours in double precision (1 - 1e-17 rounds to 1).
MIN_ALPHA = 1e-12


def parse_alpha(token: str) -> float:
    """A level ``--alpha`` from the command line: a number in [MIN_ALPHA, 1) written as for the moments."""
    alpha = float(exact_number(token, "alpha"))
    if not MIN_ALPHA <= alpha < 1:
        raise InputError(f"alpha={shown_value(token)} must be at least {MIN_ALPHA:g} and below 1")
    return alpha


def as_argument_type(parse, *options):
    """``parse`` as an argparse ``type``: its InputError becomes argparse's one-line usage error (exit 2).

    Parameters
    ----------
    parse : callable
        ``parse(token, *options)`` returning the value or raising InputError.
    *options
        Extra arguments passed to ``parse`` after the token.
    """

    def convert(token: str):
        try:
            return parse(token, *options)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__  # argparse names the type in some messages
    return convert


def open_run_store(path):
    """Open a certify run store for statistics (``open_store=`` of :func:`certify.readers.read_groups`).

    The experiment package is imported only when a command reads a run store.
    """
    from ..experiment import RunStore

    return RunStore(path, read_only=True)
