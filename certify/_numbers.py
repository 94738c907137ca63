"""Reading numbers exactly: the one parser behind moments and objective coefficients."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np

from ._errors import InputError


def float_or_nan(value) -> float:
    """``float(value)``, reading None back as NaN.

    JSON output writes every undefined or infinite number as null
    (:func:`certify._json.json_ready`), so a ``from_dict`` reading a field
    that may be non-finite turns null back into NaN.
    """
    return math.nan if value is None else float(value)


def exact_number(value, what: str, error: type[InputError] = InputError) -> Fraction:
    """The exact rational value of ``value``, or ``error`` naming ``what``.

    Strings are read exactly (``"0.7"`` is 7/10, ``"4517/8192"`` stays as is);
    floats keep their exact binary value; sympy rationals are accepted.
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or value is None:
        raise error(f"{what}={value!r} must be a number")
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise error(f"{what}={value!r} is not a number or fraction p/q") from None
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
