"""Warm starts carried from one data set to the next: a simulation study of many similar data sets.

A study plan (:func:`certify.planning.plan_study`) solves the same objectives on hundreds of data
sets drawn from one law; their NPMLEs, extremal laws and multipliers lie close together. Each
solve then starts from the previous data set's solution instead of cold: the NPMLE from the
previous pi-hat (eq. (L3)); the first objective's end of each side by Newton on (L9) from the
previous data set's extremal law and lambda of that objective, side and calibration (the later
objectives of a batch start from the objective before them, as without warm starts; a
small-count re-solve from the previous data set's re-solve). Every answer is verified exactly as a
cold one (max D <= tolerance, eq. (L5); the certificate of eqs. (L10)-(L11)), so a poor start
costs time, never accuracy: the solvers fall back to their cold paths.
"""

from __future__ import annotations

from ._cells import _as_cells
from ._ends import _EndState
from ._npmle import _latent, _npmle
from ._problem import _Problem
from ._results import LatentLaw
from ._targets import _Law

__all__ = ["WarmStarts"]


class WarmStarts:
    """The last solutions of a sequence of similar data sets, to start the next one's solves.

    Create one per sequence (one design of a simulation study) and pass it to
    :func:`likelihood_intervals` (``warm=``) for every data set of the sequence; it holds no
    more than the last NPMLE and the last solution of each end.
    """

    def __init__(self):
        self._npmle: _Law | None = None
        self._ends: dict[tuple, _EndState] = {}

    def npmle(self, cells) -> LatentLaw:
        """pi-hat of ``cells`` from the previous pi-hat (:func:`npmle`, same check), remembered."""
        prob = _Problem(_as_cells(cells))
        law, dmax, where = _npmle(prob, self._npmle)
        self._npmle = law
        return _latent(prob, law, dmax, where)

    def end(self, key: tuple) -> _EndState | None:
        """The last solution of the end ``key`` = (objective, side, calibration), or None."""
        return self._ends.get(key)

    def keep(self, key: tuple, law: _Law, lam: float) -> None:
        """Remember a solved end with lambda > 0 (a lambda = 0 end is no Newton start)."""
        if lam > 0:
            self._ends[key] = _EndState(law, lam)
