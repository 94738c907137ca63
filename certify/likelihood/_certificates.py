"""Exact certificates for the ends of K-call likelihood-ratio intervals.

Each end of an interval from :func:`certify.likelihood.likelihood_intervals` carries the
numbers of its concavity certificate (eqs. (L10)-(L11) of :mod:`._ends`): the extremal law
pi*, the multiplier lambda and the constant a. This module turns them into version-2
certificates (:mod:`certify.certificates`), which the independent checker re-proves from the
file alone: the polynomial inequality exactly, the log-likelihood inequality in ball
arithmetic. V_inf (a step, not a polynomial) is proven on its two constant pieces, g = 0 on
[0, 1/2] and g = 1 on [1/2, 1]; pass@inf = P(Q > 0) on the point {0} (g = 0) and [0, 1] (g = 1).
"""

from __future__ import annotations

from ..certificates import LikelihoodCertificate, build_likelihood_certificate
from ._cells import CellCounts
from ._intervals import likelihood_envelope, likelihood_intervals
from ._results import LikelihoodInterval
from ._targets import _parse_all

__all__ = ["certified_envelope", "certified_intervals"]


def _certified(cells, iv: LikelihoodInterval, lower, upper, alpha: float) -> tuple[LikelihoodCertificate, LikelihoodCertificate]:
    """The certificates of an interval's two ends, of the objectives ``lower`` and ``upper``."""
    return tuple(build_likelihood_certificate(objective, end.side, cells, end.c, iv.reference, end, end.lam, alpha=alpha,
                                              calibration=iv.calibration_text())
                 for objective, end in ((lower, iv.lower), (upper, iv.upper)))


def certified_intervals(cells: CellCounts, objectives, *, alpha: float = 0.05, simultaneous: bool = False
                        ) -> list[tuple[LikelihoodInterval, LikelihoodCertificate, LikelihoodCertificate]]:
    """Likelihood-ratio intervals with an exact certificate for each end.

    Parameters
    ----------
    cells : CellCounts
    objectives : sequence
        Vote counts, objective strings (``"V5 - V1"``, ``"1 - (1-q)**8"``), V_inf (:data:`certify.V_INF`
        or ``"inf"``) or pass@inf (``PASS_INF`` or ``"pass_inf"``); one of them alone is a batch of one.
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
    parsed = _parse_all(objectives)
    intervals = likelihood_intervals(cells, parsed, alpha=alpha, simultaneous=simultaneous)
    return [(iv, *_certified(cells, iv, objective, objective, alpha)) for objective, iv in zip(parsed, intervals)]


def certified_envelope(cells: CellCounts, lower, upper, *, alpha: float = 0.05, simultaneous: bool = False
                       ) -> tuple[LikelihoodInterval, LikelihoodCertificate, LikelihoodCertificate]:
    """:func:`~certify.likelihood.likelihood_envelope` with an exact certificate for each end.

    Returns
    -------
    (LikelihoodInterval, certificate of min E[g_lo], certificate of max E[g_up])

    Raises
    ------
    SolverError
        If an end cannot be certified.
    """
    iv = likelihood_envelope(cells, lower, upper, alpha=alpha, simultaneous=simultaneous)
    return (iv, *_certified(cells, iv, lower, upper, alpha))
