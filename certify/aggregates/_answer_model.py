"""A model of the wrong answers: plurality accuracy beyond the recorded calls, labelled model-based.

Why a model
-----------
Beyond the recorded calls, the plurality accuracy of k calls depends on how each example's wrong
answers split, which K calls identify only through moments of degree K. Valid for every answer
distribution is the envelope [min E V_k(Q), max E U_k(Q)] of :mod:`._aggregate_intervals`
(``proofs/plurality_bounds.py``): all wrong answers the same, or all different. It is wide
(0.25-0.68 for 21 calls, ``benchmarks/RESULTS.md``) because it ignores what the recorded wrong
answers show. This module uses them, at the price of an assumption, and says so: its interval is
a **model-based estimate, never certified**, and it is given only beside a goodness-of-fit check
that says whether the recorded answers contradict the assumption.

The model
---------
Each example's calls are i.i.d. from a law of the family of :mod:`._answer_family`: correct (q),
the example's strongest wrong answer (m), or one of L equally likely further wrong answers
(r = 1 - q - m split evenly; L = infinity: every such call an answer no other call gives). One
dominant wrong answer (m = 1 - q), every wrong answer distinct (m = 0, L = infinity) and several
equally likely wrong answers (m = r / L) are all members. Across examples (q, m, L) ~ pi, a law
on the family's grid (step 1/MODEL_GRID in q and m, L in MODEL_BINS or infinity), left
unspecified. The data are each example's whole answer-count pattern (its correct calls and the
counts of each distinct wrong answer); the family's pattern probabilities and its plurality
accuracy g_k(q, m, L) (exact, by a recursion over the equal answers) are in
:mod:`._answer_family`. (An earlier version had only L = infinity and read the patterns through
the count of the most frequent wrong answer: with eight wrong answers of 0.1 each beside q = 0.2
it took the most frequent one for a dominant answer and put plurality of 101 calls at 0.07
[0.005, 0.50] where it is 0.859, and its check passed.)

**Interval.** The likelihood of the patterns under pi and the likelihood-ratio set of
:mod:`certify.likelihood._finite` at the projection level: c from chi2_df with df the identified
dimension of the patterns (their number for K_max calls minus 1: the patterns of fewer calls are
linear images of those of K_max, :func:`._answer_family.pattern_dimension`), in the
small-sample F-form. The interval covers the grid model's value with asymptotic probability at
least 1 - alpha *if the model holds*; the grid adds a discretisation of pi.

**Check.** Two comparisons, either of which rejects the model: (1) the model's interval for the
plurality accuracy of k0 = min_i K_i calls beside the U-statistic's interval from every recorded
call (identified, model-free; when the model read fewer calls than k0, this tests its
extrapolation), rejected when the two intervals do not meet; (2) the goodness-of-fit guard of
:mod:`._answer_guard`, the deviance of the model's fit to the patterns against the saturated
fit, calibrated by a parametric bootstrap (rejected when its p-value is at most alpha). The
check text ends in ": consistent" when neither rejects, and otherwise says "INCONSISTENT", which
comparison rejected and by how much; a rejected model's numbers are then not a forecast
(:attr:`ModelEstimate.rejected`). When the model holds, (1) rejects only if one of two 1 - alpha
intervals misses its value, probability at most 2 alpha (asymptotically); the guard's measured
size is 0-12 % (:mod:`._answer_guard`). (1) compared the model's point instead until
2026-11-28: from 3 of 10-20 calls of 100 examples that point is uncertain enough that a law of
the family was rejected in 27-50 % of data sets, ``benchmarks/RESULTS.md``.)

Calls used: the first K' calls of each example (the calls are i.i.d. given the example, so these
are a smaller sample of the same model), K' the largest number up to ``MODEL_MAX_CALLS`` whose
patterns' identified dimension is at most ``MODEL_DIMENSION_PER_ROOT`` sqrt(N): the patterns of K
calls number 30 at K = 6, 139 at 10, 2714 at 20, and each adds a degree of freedom to the
projection's chi-square, so beyond a few calls more of them widen the interval (100 examples
read 3 calls, 400 read 5, 2000 read 7, 10,000 read 9). Work: one fit, two ends per budget and the
guard's refits, on a grid of 2583 points; ``benchmarks/bench_answer_model_diffuse.py`` measures it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from .._interval import Interval
from .._objective import MAX_EXPANDED_DEGREE, V_INF, parse_vote_budgets
from .._records import Record
from .._validation import check_alpha
from ..likelihood import FiniteModel, critical_value, finite_interval
from ._aggregates import aggregate_estimates
from ._answer_family import answer_patterns, model_grid, model_plurality, pattern_dimension, pattern_kernel
from ._answer_guard import PatternGuard, pattern_guard
from ._plurality import MISSING, _codes_array
from ._tolerances import MODEL_BINS, MODEL_DIMENSION_PER_ROOT, MODEL_GRID, MODEL_MAX_CALLS

__all__ = ["ModelEstimate", "answer_patterns", "model_grid", "model_plurality", "pattern_kernel", "plurality_model"]

MODEL_METHOD = (
    "model-based estimate, not certified: each example's calls are correct (q), its strongest wrong "
    "answer (m) or one of L equally likely other answers (L up to {top}, or every such call distinct; "
    "abstentions count as answers of their own), with (q, m, L) ~ pi on a grid of step 1/{grid}; "
    "likelihood ratio over pi on the answer-count patterns"
)
#: The last words of a check that does not reject the model (the summary reads them).
CONSISTENT = ": consistent"
#: The word that marks a check that rejects it.
INCONSISTENT = "INCONSISTENT"


@dataclass(frozen=True)
class ModelEstimate(Record):
    """The answer model's plurality accuracy of k calls (module docstring): not certified.

    Attributes
    ----------
    interval : Interval
        Route ``"model-based"``: the estimate g_k under the model's maximum-likelihood law on the
        grid, and the likelihood-ratio interval at the projection level (valid if the model holds).
    check : str
        The model's plurality accuracy of k0 = min_i K_i calls beside the U-statistic's interval
        and the goodness-of-fit guard on the answer patterns; ends in ": consistent" when neither
        rejects the model, else says "INCONSISTENT" and by how much (then the interval is the
        rejected model's, not a forecast); empty with one call per example.
    """

    interval: Interval
    check: str = ""

    @property
    def rejected(self) -> bool:
        """True when the recorded answers reject the model: its numbers are then no forecast."""
        return INCONSISTENT in self.check


def calls_read(calls: np.ndarray) -> int:
    """K', the calls per example the model reads (module docstring), from each example's number of calls."""
    used = min(int(calls.max()), MODEL_MAX_CALLS)
    while used > 2 and pattern_dimension(used) > MODEL_DIMENSION_PER_ROOT * math.sqrt(len(calls)):
        used -= 1
    return used


def plurality_model(codes, budgets, alpha: float = 0.05) -> dict:
    """{k: ModelEstimate} for each budget (an int or :data:`certify.V_INF`), from at most MODEL_MAX_CALLS calls per
    example.

    Raises
    ------
    InputError
        Unusable codes, budgets (a count above MAX_EXPANDED_DEGREE = 512) or alpha.
    """
    alpha = check_alpha(alpha)
    budgets = parse_vote_budgets(budgets)
    for k in budgets:
        if k is not V_INF and k > MAX_EXPANDED_DEGREE:
            raise InputError(
                f"votes={k} must be at most {MAX_EXPANDED_DEGREE} for the answer model (its plurality sums "
                f"k^2 / 4 terms), or inf"
            )
    codes = _codes_array(codes)
    calls = (codes != MISSING).sum(axis=1)
    recorded = int(calls.max())
    # the calls are i.i.d. given the example, so the first `used` calls of each are a valid
    # (smaller) sample of the same model; -2 pads only the end of a row
    used = calls_read(calls)
    patterns, counts = answer_patterns(codes[:, :used])
    grid = model_grid()
    q, m, bins, neighbours = grid
    model = FiniteModel(pattern_kernel(patterns, q, m, bins), counts, neighbours)
    df = pattern_dimension(int(patterns[:, 0].max()))
    n = int(counts.sum())
    drop = critical_value(alpha, df, n=n, dim=df)
    calibration = (
        f"projection: chi2_{df} (the answer patterns' identified dimension), small-sample F-form, c = {drop:.4f}; "
        f"asymptotic, and valid only if the model holds"
    )
    if used < recorded:
        calibration += f"; from the first {used} calls of each example"
    method = MODEL_METHOD.format(grid=MODEL_GRID, top=max(MODEL_BINS))
    hat = model.npmle()
    guard = pattern_guard(model, hat, patterns, counts, grid, alpha) if used >= 2 else None
    # every recorded call checks the model: at the fewest calls of an example, beyond the calls it read
    check = _check(codes, model, hat, grid, drop, int(calls.min()), alpha, guard)
    out = {}
    for k in budgets:
        estimate, lower, upper = finite_interval(model, model_plurality(k, q, m, bins), drop, hat)
        note = (
            "no forecast: the recorded answers reject the answer model"
            if INCONSISTENT in check
            else "model-based: valid only if the answer model holds"
        )
        interval = Interval(lower, upper, float(alpha), method, calibration, used, estimate, "model-based", False, note)
        out[k] = ModelEstimate(interval, check)
    return out


def _check(
    codes, model: FiniteModel, hat, grid, drop: float, fewest: int, alpha: float, guard: PatternGuard | None
) -> str:
    """The model's interval for plurality of ``fewest`` calls (identified) beside the U-statistic's, and the guard."""
    parts, reasons = [], []
    if fewest >= 2:
        (row,) = (
            r.interval for r in aggregate_estimates(codes, [fewest], aggregate="plurality", alpha=alpha, baseline=None)
        )
        if row.lower is not None and row.upper is not None:  # both None together (fewer than 2 examples)
            q, m, bins, _ = grid
            value, lower, upper = finite_interval(model, model_plurality(fewest, q, m, bins), drop, hat)
            parts.append(
                f"at {fewest} calls the model gives {value:.4f} [{lower:.4f}, {upper:.4f}]; the recorded answers "
                f"{row.estimate:.4f} [{row.lower:.4f}, {row.upper:.4f}] ({1 - alpha:.0%}, model-free)"
            )
            if upper < row.lower or lower > row.upper:  # the two intervals do not meet (module docstring)
                gap = row.lower - upper if upper < row.lower else lower - row.upper
                reasons.append(f"its interval at {fewest} calls is {gap:.4f} from the recorded answers' interval")
    if guard is not None:
        parts.append(guard.text(alpha))
        if guard.rejected(alpha):
            reasons.append("the answer patterns reject it")
    if not parts:
        return ""
    if reasons:
        return "; ".join(parts) + f": {INCONSISTENT}: " + " and ".join(reasons)
    return "; ".join(parts) + CONSISTENT
