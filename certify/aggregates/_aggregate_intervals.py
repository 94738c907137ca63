"""Plurality accuracy and pass@k at any number of calls k, beyond the recorded calls included.

The data are answer codes (:mod:`certify.aggregates._plurality`): example i's K_i calls are i.i.d.
draws from its answer distribution, with correct-answer probability q_i ~ pi (paper eq.
(hierarchy-main)); the correctness bits alone (K_i, S_i) give the likelihood of pi, and
:mod:`certify.likelihood` bounds E_pi[g] over the set C = {pi : l(pi) >= l(pi-hat) - c}. Each
interval's ``route`` says which way it was made (identified by the calls, or beyond them):

pass@k = E[1 - (1-Q)^k], k finite
    E_pi[g] of the polynomial g = 1 - (1-q)^k (:func:`~certify._aggregate_bounds.pass_at_k_objective`):
    its likelihood-ratio interval. Identified when k <= K_max (profile calibration, like V_k;
    ``estimate`` is the NPMLE's value), beyond the recorded calls otherwise (projection
    calibration: the identified dimension's chi-square; no estimate, the calls do not
    determine it).
pass@inf = P(Q > 0)
    the share of examples some call eventually solves (the limit of pass@k). Lower end:
    min over C of P(Q > 0) = 1 - max over C of P(Q = 0), the step 1{q > 0} minimized on its
    pieces (:mod:`certify.likelihood._targets`), projection calibration. Upper end: 1 by
    definition (:data:`~certify.likelihood._results.PASS_INF_NOTE`): moving a law's mass at 0
    to eps > 0 keeps it in C, so no data set bounds P(Q > 0) below 1 from above.
plurality of k <= min_i K_i calls
    identified: the mean of the per-example U-statistics with its Clopper-Pearson interval at the effective size
    (:func:`~certify.aggregates.aggregate_estimates`; asymptotic, over examples).
plurality of k > min_i K_i calls (k = inf included)
    plurality accuracy is not E_pi[g] for any g: it depends on how each example's wrong
    answers split. For every split, V_k(q) <= plurality accuracy given q <= U_k(q) (pass@k
    when calls may abstain; for k = inf, V_inf and 1{q > 0}), pointwise
    (:func:`~certify._aggregate_bounds.plurality_bounds`, ``proofs/plurality_bounds.py``),
    so for the true law pi_0, E_pi0[V_k] <= accuracy <= E_pi0[U_k]. The interval is
    [min_C E[V_k], max_C E[U_k]] from one set C (:func:`~certify.likelihood.likelihood_envelope`):
    on the event {pi_0 in C} both ends hold at once. Beyond K_max the projection calibration
    makes that event's probability the stated level (asymptotically), so the union of the two
    objectives costs nothing: one event covers both. With ragged counts and
    min K_i < k <= K_max both objectives are identified and c is the profile value: each
    end is one side of a two-sided 1 - alpha interval, missing with probability about
    alpha / 2, so the interval misses with at most about alpha.

Coverage of these asymptotic calibrations is measured by simulation
(``benchmarks/bench_aggregate_coverage.py`` calls :func:`aggregate_intervals` per data set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .._aggregate_bounds import PASS_INF, PassLimit, pass_at_k_objective, plurality_bounds
from .._errors import InputError
from .._objective import V_INF, Objective, VoteLimit, parse_vote_budgets
from .._validation import check_alpha
from ..likelihood import (
    CellCounts,
    LatentLaw,
    LikelihoodInterval,
    cell_counts,
    certified_envelope,
    certified_intervals,
    likelihood_envelope,
    likelihood_intervals,
    npmle,
)
from ._aggregates import AGGREGATES, AggregateEstimate, aggregate_estimates
from ._plurality import answer_counts

if TYPE_CHECKING:
    from ..certificates import LikelihoodCertificate

__all__ = ["aggregate_intervals", "certified_aggregate_intervals"]

_PASS_METHOD = "likelihood ratio over the latent law from every call: min and max of E[1 - (1-Q)^{k}] over the set"
_PASS_INF_METHOD = (
    "likelihood ratio over the latent law from every call: min of P(Q > 0) over the set; the upper end is "
    "1 by definition (moving a law's mass at q = 0 to a small eps > 0 keeps it in the set and solves "
    "every example)"
)
_PLURALITY_METHOD = (
    "likelihood ratio over the latent law from every call: min of E[{lower}] (every wrong answer the "
    "same) and max of E[{upper}] (every wrong answer different) over one set"
)
_ENVELOPE_COVERAGE = {
    "projection": "both ends from one set at the projection level, so they hold jointly",
    "profile": "each end one side of a profile interval (about alpha/2 each), so about 1 - alpha for both",
}


def _likelihood_row(aggregate: str, votes, iv, method: str, cells, estimate=None) -> AggregateEstimate:
    """An AggregateEstimate from a likelihood interval of ``cells`` (its route: whether the calls identify it)."""
    calibration = iv.calibration_text()
    if aggregate == "plurality":
        calibration += f"; {_ENVELOPE_COVERAGE[iv.calibration]}"
    interval = replace(iv.interval(cells.max_calls), method=method, calibration=calibration, estimate=estimate)
    return AggregateEstimate(aggregate, votes, None, interval, None, cells.n)


def _plurality_rows(codes, budgets, cells, abstentions: bool, alpha: float, certify: bool, reference) -> dict:
    """{k: (row, lower certificate, upper certificate)}: U-statistics up to the fewest calls, else the envelope."""
    fewest = int(cells.calls.min())
    identified = [k for k in budgets if k is not V_INF and k <= fewest]
    out: dict[object, tuple[AggregateEstimate, LikelihoodCertificate | None, LikelihoodCertificate | None]] = {}
    if identified:
        for row in aggregate_estimates(codes, identified, aggregate="plurality", alpha=alpha, baseline=None):
            out[row.votes] = (row, None, None)
    beyond = [k for k in budgets if k not in out]
    if reference is None and beyond and not certify:
        reference = npmle(cells)  # one NPMLE for every budget
    lower: Objective | VoteLimit
    upper: Objective | PassLimit
    for k in beyond:
        if k is V_INF:
            lower, upper = V_INF, PASS_INF
            names = ("V_inf(Q)", "1{Q > 0}, 1 by definition")
        else:
            lower, upper = plurality_bounds(k, abstentions=abstentions)
            names = (f"V_{k}(Q)", f"1 - (1-Q)^{k}, as calls may abstain" if abstentions else f"U_{k}(Q)")
        if certify:
            iv, lo, up = certified_envelope(cells, lower, upper, alpha=alpha)
        else:
            iv, lo, up = likelihood_envelope(cells, lower, upper, alpha=alpha, reference=reference), None, None
        method = _PLURALITY_METHOD.format(lower=names[0], upper=names[1])
        out[k] = (_likelihood_row("plurality", k, iv, method, cells), lo, up)
    return out


def _pass_rows(budgets, cells, alpha: float, certify: bool, reference) -> dict:
    """{k: (row, lower certificate, upper certificate)}: the likelihood interval of 1 - (1-q)^k or of P(Q > 0)."""
    objectives = [PASS_INF if k is V_INF else pass_at_k_objective(k) for k in budgets]
    solved: Sequence[tuple[LikelihoodInterval, LikelihoodCertificate | None, LikelihoodCertificate | None]]
    if certify:
        solved = certified_intervals(cells, objectives, alpha=alpha)
    else:
        solved = [(iv, None, None) for iv in likelihood_intervals(cells, objectives, alpha=alpha, reference=reference)]
    out = {}
    for k, objective, (iv, lo, up) in zip(budgets, objectives, solved):
        estimate = None
        if iv.calibration == "profile":  # identified: the NPMLE's value, inside the interval up to rounding
            assert isinstance(objective, Objective)  # only polynomials are identified (pass@inf never is)
            ref = iv.reference
            estimate = float(np.asarray(objective.evaluate(np.asarray(ref.atoms))) @ np.asarray(ref.weights))
            estimate = min(max(estimate, iv.lower.value), iv.upper.value)
        method = _PASS_INF_METHOD if k is V_INF else _PASS_METHOD.format(k=k)
        out[k] = (_likelihood_row("pass@k", k, iv, method, cells, estimate), lo, up)
    return out


def _rows(codes, votes, aggregate: str, alpha: float, certify: bool, cells=None, reference=None) -> tuple:
    """(AggregateEstimate, lower certificate or None, upper certificate or None) per budget, in order."""
    if aggregate not in AGGREGATES:
        raise InputError(f"aggregate={aggregate!r} must be one of {', '.join(AGGREGATES)}")
    alpha = check_alpha(alpha)
    budgets = parse_vote_budgets(votes)
    calls, correct, abstain, _ = answer_counts(codes)
    cells = _shared_cells(cells, calls, correct)
    if reference is not None and not isinstance(reference, LatentLaw):
        raise InputError(f"reference={type(reference).__name__} must be the LatentLaw npmle() returns for these calls")
    if aggregate == "plurality":
        out = _plurality_rows(codes, budgets, cells, bool(abstain.any()), alpha, certify, reference)
    else:
        out = _pass_rows(budgets, cells, alpha, certify, reference)
    return tuple(out[k] for k in budgets)


def _shared_cells(cells, calls: np.ndarray, correct: np.ndarray) -> CellCounts:
    """The cells of the codes: ``cells`` when given (an analysis builds them once for every target),
    checked to be those of the codes, else built here."""
    if cells is None:
        return cell_counts(calls, correct)
    if not isinstance(cells, CellCounts):
        raise InputError(f"cells={type(cells).__name__} must be the CellCounts of the codes (cell_counts)")
    # the same (K, S) histogram: an analysis's cells of the same calls, never another data set's
    mine = np.unique(np.stack([calls, correct]), axis=1, return_counts=True)
    theirs = np.unique(
        np.stack([np.repeat(cells.calls, cells.multiplicity), np.repeat(cells.successes, cells.multiplicity)]),
        axis=1,
        return_counts=True,
    )
    if not (np.array_equal(mine[0], theirs[0]) and np.array_equal(mine[1], theirs[1])):
        raise InputError("cells are not the cells of these codes (their (calls, correct) counts differ)")
    return cells


def aggregate_intervals(
    codes,
    votes,
    *,
    aggregate: str = "plurality",
    alpha: float = 0.05,
    cells: CellCounts | None = None,
    reference: LatentLaw | None = None,
) -> tuple[AggregateEstimate, ...]:
    """1 - alpha intervals for plurality accuracy or pass@k of k calls, any k (module docstring).

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (0 correct, 1, 2, ... wrong, -1 no answer, -2 no call; see
        :mod:`certify.aggregates._plurality`).
    votes : int, str or sequence
        Budgets k: positive counts (up to 512 where a polynomial of degree k is needed:
        pass@k and the plurality upper bound) or the infinite budget (``"inf"``,
        :data:`certify.V_INF`), read by :func:`certify.parse_vote_budget`.
    aggregate : {"plurality", "pass@k"}
    alpha : float
        1 - confidence level.
    cells : CellCounts, optional
        The cells of ``codes`` (:func:`~certify.likelihood.cell_counts` of each example's calls
        and correct calls), when the caller has them: :func:`analyze` builds them once for
        every target of a group. Checked to be the codes' cells.
    reference : LatentLaw, optional
        :func:`~certify.likelihood.npmle` of those cells, solved once for every target.

    Returns
    -------
    tuple of AggregateEstimate
        One per budget, in the order given; each ``interval`` names its route (identified or
        beyond the recorded calls) and how the level is reached; its ``estimate`` is None where
        the calls do not determine the value.

    Raises
    ------
    InputError
        Unusable codes, budgets or alpha (a budget above 512 that needs a polynomial of its degree).
    SolverError
        If a likelihood end does not reach its tolerance.
    """
    return tuple(row for row, _, _ in _rows(codes, votes, aggregate, alpha, False, cells, reference))


def certified_aggregate_intervals(codes, votes, *, aggregate: str = "plurality", alpha: float = 0.05) -> tuple:
    """:func:`aggregate_intervals` with an exact certificate for each likelihood end.

    Returns
    -------
    tuple of (AggregateEstimate, LikelihoodCertificate or None, LikelihoodCertificate or None)
        The certificates of the lower and upper end (``certify verify`` re-proves them); a row with
        certificates reports their proven bounds, rounded outward, and is marked certified
        (:meth:`certify.Interval.proven`). None for the U-statistic route (plurality of
        k <= min_i K_i calls), whose interval is an asymptotic statement about a mean over
        examples with nothing exact to certify.
    """
    out = []
    for row, lower, upper in _rows(codes, votes, aggregate, alpha, certify=True):
        if lower is not None and upper is not None:
            note = "ends proven by the exact certificates returned beside it (certify verify re-checks them)"
            row = replace(row, interval=row.interval.proven(lower.bound, upper.bound, note))
        out.append((row, lower, upper))
    return tuple(out)
