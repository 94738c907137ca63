"""Matplotlib for certify's figures: one style, and figures that leave the caller's matplotlib alone.

A figure is a :class:`matplotlib.figure.Figure` made without :mod:`matplotlib.pyplot`: no backend
is chosen and no global ``rcParams`` change, so ``AnalysisReport.plot()`` in a notebook displays
inline and the user's settings stay theirs. The style is applied while the figure is drawn
(``matplotlib.rc_context``); the report's writer uses the same style when it saves.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ._extras import require

__all__ = ["STYLE", "matplotlib_module", "style", "new_figure"]

#: certify's figure style: the report's fonts, and a fixed SVG hash salt and PDF compression so
#: that saved files are byte-for-byte reproducible.
STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "svg.hashsalt": "certify",
    "pdf.compression": 6,
}


def matplotlib_module(purpose: str = "drawing figures") -> Any:
    """``matplotlib``, or a one-line :class:`~certify._extras.MissingExtraError` naming the extra."""
    return require("matplotlib", purpose)


def style(purpose: str = "drawing figures") -> AbstractContextManager:
    """A context in which matplotlib draws with :data:`STYLE` (restored on exit)."""
    return matplotlib_module(purpose).rc_context(STYLE)


def new_figure(purpose: str = "drawing figures", **kwargs) -> Any:
    """A :class:`matplotlib.figure.Figure` (keyword arguments as its constructor takes them), made
    outside pyplot."""
    figure = require("matplotlib.figure", purpose)
    return figure.Figure(**kwargs)
