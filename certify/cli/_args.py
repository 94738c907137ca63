"""Argument groups shared by several commands (moments given as mu/nu/rho or raw moments)."""

from __future__ import annotations

import argparse

from .._errors import InputError


def add_moment_arguments(p: argparse.ArgumentParser) -> None:
    """``--mu`` with ``--nu`` or ``--rho`` (two calls), ``--mu`` alone, or ``--moments m1 ... mm``."""
    p.add_argument("--mu", help="one-call accuracy E[Q]")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--nu", help="second moment E[Q^2] = P(two calls both correct)")
    g.add_argument("--rho", help="same-example correlation of two calls")
    p.add_argument("--moments", nargs="+", metavar="M", help="raw moments m1 ... mm instead of --mu/--nu")


def check_moment_arguments(args: argparse.Namespace) -> None:
    """Reject conflicting or missing moment arguments with one line."""
    if args.moments and (args.mu is not None or args.nu is not None or args.rho is not None):
        raise InputError("give --moments or --mu/--nu/--rho, not both")
    if not args.moments and args.mu is None:
        raise InputError("--mu is required (or --moments m1 ... mm)")


def parse_vote_count(token: str) -> int:
    """A vote budget from the command line: a positive integer."""
    try:
        k = int(str(token).strip())
    except ValueError:
        raise InputError(f"votes={token!r} must be a positive integer or 'inf'") from None
    if k < 1:
        raise InputError(f"votes={k} must be at least 1 (a budget of at least one call)")
    return k
