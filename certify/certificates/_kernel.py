"""What the three certificate schemas share: their identifiers, exact rationals, precision, provenance.

Builders, records and checkers all read and write exact numbers the same way: a
rational x is ``flint.fmpq`` in polynomial arithmetic, :class:`fractions.Fraction`
elsewhere, and the text ``"p/q"`` (with a readable float beside it) in a file. This
module is part of the checkers' trusted base (with :mod:`._proofs`, :mod:`._checking`
and :mod:`._objective_check`): it imports only the standard library and python-flint,
and reads the package's own version for provenance (:mod:`certify._version`, standard
library only: the package root, whose lazy names reach every layer, is never imported).

Every change of working precision in :mod:`certify.certificates` goes through
:func:`workprec` (ball arithmetic of the likelihood bound in python-flint, Newton
polishing of the sharp-bound builder in mpmath).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from fractions import Fraction

import flint

from .._version import package_version

__all__ = [
    "ENDPOINT_DEFINITION",
    "ENDPOINT_KIND",
    "ENDPOINT_NAME",
    "ENDPOINT_SCHEMA_VERSION",
    "LIKELIHOOD_KIND",
    "LIKELIHOOD_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "SHARP_KIND",
    "coefficients",
    "exact_pair",
    "is_ratio",
    "now",
    "poly",
    "readable",
    "solve",
    "to_fmpq",
    "to_fraction",
    "value_at",
    "version",
    "workprec",
]

# -- schema identifiers ------------------------------------------------------------
# Each file states its schema version and kind; a reader dispatches on them
# (certify.certificates._registry) and each checker insists on its own pair.

#: Sharp bound of E[g(Q)] over a moment class (Theorem 4.1): certificate-v1.json.
SCHEMA_VERSION = "1"
SHARP_KIND = "sharp-bound-certificate"

#: One end of a likelihood-ratio bound on E_pi[g(Q)]: certificate-v2.json.
LIKELIHOOD_SCHEMA_VERSION = "2"
LIKELIHOOD_KIND = "likelihood-bound-certificate"

#: Supremum or infimum of E[V_inf] over a moment class (Theorem 4.3 and its any-order form): certificate-v3.json.
ENDPOINT_SCHEMA_VERSION = "3"
ENDPOINT_KIND = "endpoint-bound-certificate"

#: The infinite budget V_inf (eq. (main-vinf)) is named by its definition, never given by
#: coefficients (schema 3, and schema 2's second objective form); checkers compare both strings exactly.
ENDPOINT_NAME = "Vinf"
ENDPOINT_DEFINITION = "P(Q > 1/2) + P(Q = 1/2)/2"

# -- exact rationals ---------------------------------------------------------------

# The text of an exact number in a file: ASCII decimal digits, p or p/q with q >= 1
# (Python's Fraction() would also read spaces, underscores, decimals and other scripts' digits).
_RATIONAL = re.compile(r"-?\d+(/[1-9]\d*)?", re.ASCII)


def is_ratio(text) -> bool:
    """Whether ``text`` is an exact number as files write it: ``"p/q"`` or ``"p"`` in ASCII digits."""
    return isinstance(text, str) and _RATIONAL.fullmatch(text) is not None


def to_fmpq(x) -> flint.fmpq:
    """A Fraction (or int) as python-flint's exact rational."""
    return flint.fmpq(x.numerator, x.denominator)


def to_fraction(v) -> Fraction:
    """A python-flint rational (fmpq or fmpz) as a Fraction."""
    return Fraction(int(v.p), int(v.q))


def readable(x: Fraction) -> float | None:
    """The float written beside an exact number: float(x), or None where it overflows."""
    try:
        return float(x)
    except OverflowError:
        return None


def exact_pair(x) -> list:
    """``["p/q", readable float]``, the form of every exact number in a certificate file."""
    x = Fraction(x)
    return [f"{x.numerator}/{x.denominator}", readable(x)]


def poly(coeffs) -> flint.fmpq_poly:
    """The polynomial sum_k c_k x^k from exact coefficients (Fractions or ints)."""
    return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in coeffs])


def value_at(p: flint.fmpq_poly, x) -> Fraction:
    """p(x) exactly, for a rational x."""
    return to_fraction(p(to_fmpq(x)))


def coefficients(p: flint.fmpq_poly, length: int) -> list[Fraction]:
    """p's monomial coefficients c_0, c_1, ... as Fractions, padded with zeros to ``length``."""
    out = [to_fraction(c) for c in p.coeffs()]
    return out + [Fraction(0)] * (length - len(out))


def solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The exact solution of a consistent system of full column rank (square or overdetermined), else None.

    FLINT's exact row reduction of the augmented matrix [A | b]: the system has exactly
    one solution when the reduced form has a pivot in every column of A and none in b.
    In exact arithmetic the solution does not depend on the elimination order, so this
    is the value any exact method returns.
    """
    ncol = len(rows[0])
    augmented = flint.fmpq_mat(len(rows), ncol + 1, [to_fmpq(x) for row, b in zip(rows, rhs) for x in (*row, b)])
    reduced, rank = augmented.rref()
    # Pivots sit in increasing columns, so rank ncol with the last one on the diagonal puts them all in A.
    if rank != ncol or reduced[ncol - 1, ncol - 1] != 1:
        return None
    return [to_fraction(reduced[i, ncol]) for i in range(ncol)]


# -- precision ---------------------------------------------------------------------


def workprec(bits: int, context=flint.ctx):
    """Context manager: ``context`` computes at ``bits`` bits inside the block, restored after.

    Modelled on :func:`mpmath.workprec`. The arbitrary-precision libraries keep their
    precision in a process-wide context; changing it only for a block (and back on any
    exit) keeps every other caller's arithmetic as it was.

    Parameters
    ----------
    bits : int
        Working precision in bits.
    context : optional
        python-flint's ``flint.ctx`` (arb balls; the default) or ``mpmath.mp``.
    """
    return context.workprec(bits)


# -- provenance ----------------------------------------------------------------------


def version() -> str:
    """The certify version a certificate's provenance records."""
    return package_version()


def now() -> str:
    """The UTC time a certificate's provenance records, ISO 8601 to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
