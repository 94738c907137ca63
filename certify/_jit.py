"""numba's ``njit`` for certify's compiled kernels: with a disk cache where one can be written.

Imported only by the kernel modules (``certify/likelihood/_calibration_kernels.py``,
``certify/aggregates/_answer_kernels.py``), which the functions that need them import, so that the
commands that never simulate do not load numba. Calls into the kernels go through
:func:`certify._compiled.interrupts_held`.
"""

from __future__ import annotations

from numba import njit

__all__ = ["compiled"]


def compiled(function):
    """``numba.njit`` with its disk cache where numba can write one, without it where it cannot.

    numba raises RuntimeError ("cannot cache function ...: no locator available") when it is asked
    to cache a function and neither ``NUMBA_CACHE_DIR``, the source's ``__pycache__`` nor the user
    cache directory is writable: a read-only system. Compiling in memory then costs each process
    one compilation and changes no result.
    """
    try:
        return njit(cache=True)(function)
    except RuntimeError:
        return njit(function)
