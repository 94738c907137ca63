"""Reading numbers exactly (the one parser behind moments and objective coefficients), and showing them honestly."""

from __future__ import annotations

import math
import re
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ._errors import InputError

__all__ = [
    "MAX_EXPONENT",
    "MAX_MAGNITUDE",
    "MAX_NUMBER_LENGTH",
    "exact_number",
    "float_or_nan",
    "percentage_points",
    "pp_interval",
    "shown_value",
]

#: Longest number accepted as text. Far above any real input (a 60-digit fraction from a
#: certificate is about 120 characters), and it bounds the digits ``Fraction`` is asked to read.
MAX_NUMBER_LENGTH = 1000
#: Largest decimal exponent accepted in text such as ``1e-300``: ``Fraction("1e999999999")``
#: would build an integer of a billion digits before any check on its value could run.
MAX_EXPONENT = 1000
#: Largest magnitude of a number: beyond it conversion to float overflows (10^308) or any
#: arithmetic on it soon does. Moments and probabilities live in [0, 1]; coefficients are small.
MAX_MAGNITUDE = 10**300

# The only text accepted: a plain ASCII decimal with an optional exponent, or p/q. Python's own
# float() and Fraction() also read underscores ("0_7" is 7), non-ASCII digits ("٧") and inf/nan.
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)
_SYNTAX = "write a plain decimal (0.7, 7e-1) or a fraction p/q"


def float_or_nan(value) -> float:
    """``float(value)``, reading None back as NaN.

    JSON output writes every undefined or infinite number as null
    (:func:`certify._json.json_ready`), so a ``from_dict`` reading a field
    that may be non-finite turns null back into NaN.
    """
    return math.nan if value is None else float(value)


def exact_number(value, what: str, error: type[InputError] = InputError) -> Fraction:
    """The exact rational value of ``value``, or ``error`` naming ``what``.

    Strings are read exactly (``"0.7"`` is 7/10, ``"4517/8192"`` stays as is) and
    must be plain ASCII decimals, optionally with an exponent, or fractions p/q
    (surrounding whitespace is ignored); floats keep their exact binary value and
    Decimals their exact decimal value; sympy rationals are accepted. Every value must be finite and at most
    :data:`MAX_MAGNITUDE` in absolute value.

    Raises
    ------
    InputError (or ``error``)
        Naming ``what``, the value and the rule it breaks.
    """
    return _bounded(_exact(value, what, error), value, what, error)


def _bounded(frac: Fraction, value, what: str, error: type[InputError]) -> Fraction:
    if abs(frac) > MAX_MAGNITUDE:
        raise error(f"{what}={shown_value(value)} is larger in absolute value than the limit 1e300")
    return frac


def shown_value(value) -> str:
    """The value for an error message: one line of reasonable length, whatever the value."""
    if isinstance(value, (int, Fraction)) and abs(Fraction(value)) > MAX_MAGNITUDE:
        # str() of an integer beyond 4300 digits raises, and float() overflows: give its size in bits.
        frac = Fraction(value)
        bits = frac.numerator.bit_length() - frac.denominator.bit_length()
        return f"{'-' if frac < 0 else ''}(about 1e{int(bits * math.log10(2))})"
    text = repr(value) if isinstance(value, str) else " ".join(str(value).split())
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


def _exact(value, what: str, error: type[InputError]) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or value is None:
        raise error(f"{what}={value!r} must be a number")
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, str):
        return _parse_text(value, what, error)
    if isinstance(value, Decimal):
        # Exactly, as text is read; the exponent is checked first for the same reason.
        if not value.is_finite():
            raise error(f"{what}={value!r} must be a finite number")
        if value and abs(value.adjusted()) > MAX_EXPONENT:
            raise error(f"{what}={shown_value(value)} has an exponent beyond the limit of +-{MAX_EXPONENT}")
        return Fraction(value)
    # A sympy number can only exist if sympy is loaded: never import it (0.4 s) for a float.
    sympy = sys.modules.get("sympy")
    if sympy is not None and isinstance(value, sympy.Basic):
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        raise error(f"{what}={value!r} must be a rational number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise error(f"{what}={value!r} must be a number") from None
    if not math.isfinite(x):
        raise error(f"{what}={value!r} must be a finite number")
    return Fraction(x)


def _parse_text(value: str, what: str, error: type[InputError]) -> Fraction:
    """A number written as text, checked against the syntax and the limits before it is read."""
    text = value.strip()
    if len(text) > MAX_NUMBER_LENGTH:
        raise error(
            f"{what}={shown_value(value)} is longer than the limit of {MAX_NUMBER_LENGTH} characters for a number"
        )
    decimal = _DECIMAL.fullmatch(text)
    if decimal is None and _RATIO.fullmatch(text) is None:
        raise error(f"{what}={shown_value(value)} must be a number: {_SYNTAX}")
    if decimal is not None and decimal["exp"] is not None and abs(int(decimal["exp"])) > MAX_EXPONENT:
        raise error(f"{what}={shown_value(value)} has an exponent beyond the limit of +-{MAX_EXPONENT}")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise error(f"{what}={shown_value(value)} divides by zero") from None


def percentage_points(value: float, rounding: str = "nearest", digits: int = 2) -> str:
    """A signed difference of accuracies in percentage points, never ``-0.00``.

    Parameters
    ----------
    value : float
        A difference of probabilities (0.0123 is +1.23 pp).
    rounding : {"nearest", "down", "up"}
        ``"down"`` for the lower end of an interval and ``"up"`` for the upper end: the
        printed interval then contains the computed one, so it never looks narrower (more
        certain) than it is. ``"nearest"`` for point estimates.
    digits : int
        Decimals shown.
    """
    return f"{_percent_rounded(value, rounding, digits):+.{digits}f}"


def percent(value: float, digits: int = 1) -> str:
    """A probability as a percentage rounded to nearest, never ``-0.0`` (0.283 is ``28.3``)."""
    return f"{_percent_rounded(value, 'nearest', digits):.{digits}f}"


def _percent_rounded(value: float, rounding: str, digits: int) -> float:
    """100 * value rounded at ``digits`` decimals as :func:`percentage_points` says; never a negative zero."""
    scaled = 100.0 * float(value) * 10**digits
    if math.isfinite(scaled):
        scaled = {"down": math.floor, "up": math.ceil}.get(rounding, round)(scaled)
    return scaled / 10**digits + 0.0  # + 0.0 turns a negative zero into zero


def pp_interval(lower: float, upper: float, digits: int = 2) -> str:
    """``[lower, upper]`` in percentage points, rounded outward (:func:`percentage_points`)."""
    return f"[{percentage_points(lower, 'down', digits)}, {percentage_points(upper, 'up', digits)}]"
