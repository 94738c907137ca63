"""The raw output shared by every solver, before it becomes a :class:`certify.Bound`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Solution:
    """Solution of ``max E[f]`` over a moment class, for f = sign * g.

    Attributes
    ----------
    atoms, weights : ndarray
        Extremal law (at most m+1 atoms).
    dual : ndarray
        Monomial coefficients of a polynomial p >= f on [0, 1].
    solver : str
        Which solver produced it.
    iterations : int
        Exchange / Newton / interior-point iterations, as reported; 0 for a
        certificate that is explicit (boundary laws) or reused (known faces).
    violation : float
        max over [0, 1] of f - p as measured by :func:`._contact.max_violation`
        (NaN when not measured); at most rounding for a valid certificate.
    route : str
        Which route of the pipeline won: one of :data:`ROUTES`.
    """

    atoms: np.ndarray
    weights: np.ndarray
    dual: np.ndarray
    solver: str
    iterations: int = 0
    violation: float = float("nan")
    route: str = ""


#: Routes a :class:`Solution` can record (the map of :mod:`certify.solvers`). The
#: ``exact`` method: "boundary" (the unique law of a boundary moment vector), "face" (a
#: face found before), "bitangent" (two interior contacts, m = 2), "endpoint" (a
#: closed-form endpoint law, m = 2), "hull" (the grid hull's pattern polished by the KKT
#: Newton), "exchange" (the exchange's pattern, polished); the other methods: "sos",
#: "grid".
ROUTES = ("boundary", "face", "bitangent", "endpoint", "hull", "exchange", "sos", "grid")
