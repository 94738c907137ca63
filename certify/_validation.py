"""Checks of the arguments every layer shares, made once at each public function.

One rule per argument, so that the same value is accepted or refused alike everywhere: before
this module ``analyze`` refused ``np.float32(0.05)`` while :func:`certify.likelihood.critical_value`
took it, and the confidence level was checked at eight places by three different rules; a number
of votes was checked by three copies of one function.
"""

from __future__ import annotations

import math

import numpy as np

from ._errors import InputError

__all__ = ["check_alpha", "check_votes"]


def check_alpha(alpha, name: str = "alpha") -> float:
    """The level's complement 1 - confidence, as a float: a real number strictly between 0 and 1.

    Parameters
    ----------
    alpha : int, float or NumPy scalar
        The value given; ``bool`` is refused (``True`` is not a level).
    name : str
        How the message names it (``alpha``, ``--alpha``).

    Returns
    -------
    float

    Raises
    ------
    InputError
        ``alpha`` is not a real number, or not in (0, 1) (NaN included).
    """
    real = isinstance(alpha, (int, float, np.integer, np.floating)) and not isinstance(alpha, (bool, np.bool_))
    if not real or not math.isfinite(float(alpha)) or not 0 < float(alpha) < 1:
        raise InputError(f"{name}={alpha!r} must be in (0, 1)")
    return float(alpha)


def check_votes(votes, most: int, beyond: str, error: type[InputError] = InputError) -> int:
    """A number of calls voted over, as an int: a positive integer at most ``most``.

    Parameters
    ----------
    votes : int or NumPy integer
        The value given; ``bool`` is refused.
    most : int
        The largest number the caller can use (the recorded calls, a degree limit).
    beyond : str
        The message past ``most``, naming the value and why (the caller's own rule).
    error : type
        The exception raised: :class:`InputError` or a subclass of it (an objective's
        :class:`certify.ObjectiveError`).

    Returns
    -------
    int
    """
    if isinstance(votes, (bool, np.bool_)) or not isinstance(votes, (int, np.integer)) or votes < 1:
        raise error(f"votes={votes!r} must be a positive integer number of calls")
    if votes > most:
        raise error(beyond)
    return int(votes)
