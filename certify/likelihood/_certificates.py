"""Exact certificates for the ends of K-call likelihood-ratio intervals.

Each end of an interval from :func:`certify.likelihood.likelihood_intervals` carries the
numbers of its concavity certificate (eqs. (L10)-(L11) of :mod:`._ends`): the extremal law
pi*, the multiplier lambda and the constant a. This module turns them into version-2
certificates (:mod:`certify.certificates`), which the independent checker re-proves from the
file alone: the polynomial inequality exactly, the log-likelihood inequality in ball
arithmetic. V_inf (a step, not a polynomial) is proven on its two constant pieces, g = 0 on
[0, 1/2] and g = 1 on [1/2, 1].
"""

from __future__ import annotations

from ..certificates import LikelihoodCertificate, build_likelihood_certificate
from ._cells import CellCounts
from ._intervals import likelihood_intervals
from ._results import LikelihoodInterval

__all__ = ["certified_intervals"]


def certified_intervals(cells: CellCounts, objectives, *, alpha: float = 0.05, simultaneous: bool = False
                        ) -> list[tuple[LikelihoodInterval, LikelihoodCertificate, LikelihoodCertificate]]:
    """Likelihood-ratio intervals with an exact certificate for each end.

    Parameters
    ----------
    cells : CellCounts
    objectives : sequence
        Vote counts, objective strings (``"V5 - V1"``) or V_inf (:data:`certify.V_INF` or ``"inf"``).
    alpha, simultaneous
        As for :func:`certify.likelihood.likelihood_intervals`.

    Returns
    -------
    list of (LikelihoodInterval, lower certificate, upper certificate)

    Raises
    ------
    SolverError
        If an end cannot be certified (never a certificate that does not verify).
    """
    intervals = likelihood_intervals(cells, objectives, alpha=alpha, simultaneous=simultaneous)
    out = []
    for objective, iv in zip(objectives, intervals):
        ends = [build_likelihood_certificate(objective, end.side, cells, end.c, iv.reference, end, end.lam,
                                             alpha=alpha, calibration=iv.calibration_text()) for end in (iv.lower, iv.upper)]
        out.append((iv, *ends))
    return out
