"""Exact certificates for the ends of K-call likelihood-ratio intervals.

Each end of an interval from :func:`certify.likelihood.likelihood_intervals` carries the
numbers of its concavity certificate (eqs. (L10)-(L11) of :mod:`._ends`): the extremal law
pi*, the multiplier lambda and the constant a. :func:`certify_interval` turns the two ends of
an interval already solved into version-2 certificates (:mod:`certify.certificates`), which
the independent checker re-proves from the file alone: the polynomial inequality exactly, the
log-likelihood inequality in ball arithmetic. V_inf (a step, not a polynomial) is proven on
its two constant pieces, g = 0 on [0, 1/2] and g = 1 on [1/2, 1]; pass@inf = P(Q > 0) on the
point {0} (g = 0) and [0, 1] (g = 1). Nothing is solved again:
:func:`certified_intervals` is :func:`likelihood_intervals` followed by :func:`certify_interval`,
:func:`certified_envelope` the same for :func:`likelihood_envelope`.
"""

from __future__ import annotations

from ..certificates import DataSource, LikelihoodCertificate, build_likelihood_certificate
from ._cells import CellCounts
from ._intervals import likelihood_envelope, likelihood_intervals
from ._results import LikelihoodInterval
from ._targets import _parse_all

__all__ = ["certified_envelope", "certified_intervals", "certify_interval"]


def _certified(
    cells, interval: LikelihoodInterval, lower, upper, source: DataSource | None
) -> tuple[LikelihoodCertificate, LikelihoodCertificate]:
    """The certificates of an interval's two ends, of the objectives ``lower`` and ``upper`` (equal but for
    envelopes)."""
    lower_certificate, upper_certificate = (
        build_likelihood_certificate(
            objective,
            end.side,
            cells,
            end.c,
            interval.reference,
            end,
            end.lam,
            alpha=interval.alpha,
            calibration=interval.calibration_text(),
            source=source,
        )
        for objective, end in ((lower, interval.lower), (upper, interval.upper))
    )
    return lower_certificate, upper_certificate


def certify_interval(
    cells: CellCounts, objective, interval: LikelihoodInterval, *, source: DataSource | None = None
) -> tuple[LikelihoodCertificate, LikelihoodCertificate]:
    """Exact certificates of both ends of a likelihood-ratio interval already solved.

    Parameters
    ----------
    cells : CellCounts
        The data the interval was computed from.
    objective : int, str, VoteLimit or Objective
        The interval's objective as it was given to :func:`likelihood_intervals`.
    interval : LikelihoodInterval
        Its ends (laws, multipliers), level c, alpha, calibration and NPMLE are used as they are.
    source : DataSource, optional
        The group and data file behind ``cells``, recorded in each certificate.

    Returns
    -------
    (lower certificate, upper certificate)

    Raises
    ------
    SolverError
        If an end cannot be certified (never a certificate that does not verify).
    """
    return _certified(cells, interval, objective, objective, source)


def certified_intervals(
    cells: CellCounts, objectives, *, alpha: float = 0.05, simultaneous: bool = False
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
    return [(iv, *certify_interval(cells, objective, iv)) for objective, iv in zip(parsed, intervals)]


def certified_envelope(
    cells: CellCounts, lower, upper, *, alpha: float = 0.05, simultaneous: bool = False
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
    return (iv, *_certified(cells, iv, lower, upper, None))
