"""Running numba-compiled kernels from Python: Ctrl-C while their machine code loads.

The compiled kernels (``certify/likelihood/_calibration_kernels.py`` and any other module that
uses numba) are imported by the functions that call them, so that the commands that never
simulate do not load numba (``tests/test_startup_imports.py``). Calling one goes through
:func:`interrupts_held`.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["interrupts_held"]


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold SIGINT (Ctrl-C) while the compiled kernels load and run; deliver it when they return.

    numba loads its cached machine code (and compiles it) through ctypes callbacks from LLVM: a
    KeyboardInterrupt raised inside one cannot propagate, Python prints "Exception ignored on
    calling ctypes callback function" with a traceback, and the command runs on. Compiled code
    never checks for signals anyway, so holding one until the kernel returns delays nothing that
    was not already delayed; the interrupt then arrives as a KeyboardInterrupt in Python code,
    which the CLI turns into one line and exit code 130. Only the main thread receives signals.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
