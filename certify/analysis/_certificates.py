"""Exact certificates of an analysis's intervals, and the analysis with its proven ends marked certified.

``certify analyze --certificates DIR`` proves every likelihood interval an analysis solved (the
majority's budgets and V_inf, their gains over one call, the ``--objective`` rows): one exact
certificate per end (:func:`certify.likelihood.certify_interval`, which never returns a
certificate that does not verify), written with their index as one folder that
``certify verify DIR`` re-checks. The intervals are the ones the analysis solved
(``AnalysisReport.likelihood``); nothing is solved again.

A certificate proves a rational bound on its end. Each proven row's :class:`~certify.Interval`
then reports that bound, rounded outward to a float (so the float interval holds the proven one),
with ``certified=True`` and a note naming the certificate files; every other row keeps
``certified=False``. Plurality and pass@k are not certified by this folder.

:func:`check_certifiable` refuses, before any solve, data whose certificates the checker would
refuse (its work limits in :mod:`certify.certificates`).
"""

from __future__ import annotations

from dataclasses import replace

from .._errors import InputError
from .._interval import Interval
from .._objective import V_INF, vote_accuracy
from ..certificates import (
    MAX_CALLS,
    MAX_CELLS,
    MAX_DEGREE,
    MAX_LAGRANGIAN_COST,
    DataSource,
    LikelihoodCertificate,
    lagrangian_cost,
    write_certificate_set,
)
from ..likelihood import CellCounts, certify_interval
from ._results import AnalysisReport
from ._verdict import Verdict, verdict_status

__all__ = ["check_certifiable", "write_report_certificates"]


def check_certifiable(groups: dict, votes, objectives, calls: int | None) -> None:
    """Refuse, before solving, data whose certificates the checker would refuse (its work budget).

    Parameters
    ----------
    groups : dict
        {group name: CallBits} to be analysed.
    votes : sequence
        The parsed budgets.
    objectives : sequence of Objective
        The parsed ``--objective`` objectives.
    calls : int or None
        The analysis's ``calls=`` (its first calls of each example), None for every call.

    Raises
    ------
    InputError
        An objective's degree, the calls per example, the number of cells or the Lagrangian's cost
        beyond the checker's limit, naming the value and the limit.
    """
    top = max([vote_accuracy(v).degree for v in votes if v is not V_INF] + [o.degree for o in objectives], default=0)
    if top > MAX_DEGREE:
        raise InputError(
            f"--certificates: an objective of degree {top} exceeds the checker's work limit of {MAX_DEGREE} "
            f"(V{MAX_DEGREE}); certify verify would refuse its certificates"
        )
    for group, bits in groups.items():
        cells = CellCounts.from_bits(bits, calls)
        where = f" (group {group!r})" if group else ""
        if cells.max_calls > MAX_CALLS:
            raise InputError(
                f"--certificates: {cells.max_calls} calls per example{where} exceed the checker's work limit of "
                f"{MAX_CALLS}; use --calls {MAX_CALLS}"
            )
        if len(cells.calls) > MAX_CELLS:
            raise InputError(
                f"--certificates: {len(cells.calls)} distinct (calls, correct) cells{where} exceed the checker's "
                f"work limit of {MAX_CELLS}"
            )
        cost = lagrangian_cost(int(k) for k in cells.calls)
        if cost > MAX_LAGRANGIAN_COST:
            raise InputError(
                f"--certificates: the Lagrangian's cost estimate {cost:.3g} of {len(cells.calls)} cells of up to "
                f"{cells.max_calls} calls{where} exceeds the checker's work limit of {MAX_LAGRANGIAN_COST:.3g}; "
                f"use fewer calls (--calls)"
            )


def _proven(interval: Interval, lower: LikelihoodCertificate, upper: LikelihoodCertificate, names) -> Interval:
    """``interval`` with the certificates' bounds as its ends, marked certified (module docstring)."""
    note = f"ends proven by the exact certificates {names[0]} and {names[1]} (certify verify re-checks them)"
    return interval.proven(lower.bound, upper.bound, note)


def write_report_certificates(
    reports: list[AnalysisReport], folder, *, digest: str, force: bool = False
) -> tuple[list[AnalysisReport], list[str]]:
    """Prove every likelihood interval of ``reports`` and write the certificates as the folder ``folder``.

    Parameters
    ----------
    reports : list of AnalysisReport
        From :func:`~certify.analyze` with ``method="likelihood"`` (which keeps what it solved).
    folder : str or Path
        Written all or nothing by :func:`certify.certificates.write_certificate_set`.
    digest : str
        SHA-256 of the data file, recorded in each certificate with its group.
    force : bool
        Replace a certificate set certify wrote there earlier (never other files).

    Returns
    -------
    (reports, names)
        The reports with each proven interval certified (module docstring), and the certificate
        files' names in the order written.

    Raises
    ------
    InputError
        A report without solved likelihood intervals (the two-call method).
    SolverError
        An end that cannot be certified (never a certificate that does not verify).
    """
    certificates: list[LikelihoodCertificate] = []
    pairs: list[list[tuple[LikelihoodCertificate, LikelihoodCertificate]]] = []
    for report in reports:
        solved = report.likelihood
        if solved is None:
            raise InputError(f"group {report.group!r}: certificates need method='likelihood' (its solved intervals)")
        source = DataSource(report.group, digest)
        mine = []
        for objective, interval in zip(solved.objectives, solved.intervals):
            lower, upper = certify_interval(solved.cells, objective, interval, source=source)
            mine.append((lower, upper))
            certificates += [lower, upper]
        pairs.append(mine)
    names = write_certificate_set(folder, certificates, force=force)
    out, at = [], 0
    for report, mine in zip(reports, pairs):
        files = [(names[at + 2 * i], names[at + 2 * i + 1]) for i in range(len(mine))]
        at += 2 * len(mine)
        out.append(_certified_report(report, mine, files))
    return out, names


def _certified_report(report: AnalysisReport, pairs, files) -> AnalysisReport:
    """The report with the intervals it solved replaced by their proven ones, in the solver's order:
    the budgets, then the majority's gains (its verdicts), then the objectives."""
    proven = [_proven(iv, lo, up, f) for iv, (lo, up), f in zip(_solved_order(report), pairs, files)]
    budgets = tuple(replace(b, interval=iv) for b, iv in zip(report.budgets, proven))
    gains = iter(proven[len(budgets) : len(proven) - len(report.objectives)])
    verdicts = tuple(_proven_verdict(v, next(gains)) if v.aggregate == "majority" else v for v in report.verdicts)
    objectives = tuple(
        replace(o, interval=iv) for o, iv in zip(report.objectives, proven[len(proven) - len(report.objectives) :])
    )
    return replace(report, budgets=budgets, verdicts=verdicts, objectives=objectives)


def _proven_verdict(verdict: Verdict, gain: Interval) -> Verdict:
    """The verdict on the proven gain: its status from the proven ends (rounded outward, they can only
    widen the interval, by far less than a percentage point)."""
    assert gain.lower is not None and gain.upper is not None
    status = verdict_status(gain.lower, gain.upper)
    reason = verdict.reason if status == verdict.status else "the proven ends, rounded outward, reach the threshold"
    return replace(verdict, gain=gain, status=status, reason=reason)


def _solved_order(report: AnalysisReport) -> list[Interval]:
    """The reported intervals in the order of ``report.likelihood.objectives`` (:class:`SolvedIntervals`)."""
    budgets = [b.interval for b in report.budgets]
    gains = [v.gain for v in report.verdicts if v.aggregate == "majority"]
    order = budgets + gains + [o.interval for o in report.objectives]
    assert report.likelihood is not None and len(order) == len(report.likelihood.intervals)
    return order  # type: ignore[return-value]  # every likelihood budget row holds its interval
