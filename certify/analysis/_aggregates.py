"""Plurality votes and pass@k in the analysis: intervals per budget and verdicts on gains over one call.

:func:`certify.analysis.analyze` reports the paper's bit majority (the ``"majority"`` aggregate)
and, on request, two aggregates of what people do with repeated calls
(:data:`AGGREGATES`):

``"plurality"``
    a plurality vote over the calls' answers with fair ties (self-consistency); needs the
    answers (:attr:`certify.CallBits.answers`). On tasks with more than two possible answers
    the bit majority is only a lower bound of it (``proofs/plurality_bounds.py``).
``"pass@k"``
    best-of-k with a perfect verifier: at least one of k calls correct, pass@k = E[1 - (1-Q)^k];
    needs the bits only.

Each budget's interval comes from :func:`certify.aggregates.aggregate_intervals` (identified by the
calls, or beyond them through the likelihood set, with the route in ``calibration``). A
verdict is the interval of the gain over one call (``k`` calls minus 1 call):

* k <= min_i K_i: the paired per-example U-statistic differences
  (:func:`certify.aggregates.aggregate_estimates`, asymptotic over examples);
* beyond: pass@k's gain is the polynomial 1 - (1-q)^k - q, whose likelihood-ratio interval is
  taken like any objective's; plurality's gain lies in [min_C E[V_k(Q) - Q], max_C E[U_k(Q) - Q]]
  (the pointwise bounds minus q, from one likelihood set C), as for its accuracy.

Plurality beyond the recorded calls also carries the answer model's estimate
(:mod:`certify.aggregates._answer_model`): from the recorded wrong answers, narrower from a few hundred
examples on (``benchmarks/RESULTS.md``), labelled model-based, never certified; verdicts use the
valid interval only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from .._aggregate_bounds import pass_at_k_objective, plurality_bounds
from .._calls import CORRECT, NO_CALL, CallBits
from .._errors import InputError
from .._interval import Interval
from .._objective import V_INF, Objective, budget_json, parse_vote_budget, parse_vote_budgets
from .._records import Record
from ..aggregates import AGGREGATES, ModelEstimate, aggregate_estimates, aggregate_intervals, plurality_model
from ..likelihood import cell_counts, likelihood_envelope, likelihood_intervals, npmle

__all__ = [
    "AGGREGATE_NAMES",
    "AggregateBudget",
    "aggregate_budgets",
    "aggregate_verdict_intervals",
    "answer_codes_of",
    "parse_aggregate",
]

#: Every aggregate ``analyze`` reports: the paper's bit majority, then :data:`AGGREGATES`.
AGGREGATE_NAMES = ("majority",) + AGGREGATES

#: Spellings accepted for each aggregate (``--aggregate pass`` is pass@k).
_SPELLINGS = {"majority": "majority", "plurality": "plurality", "pass": "pass@k", "pass@k": "pass@k"}


def parse_aggregate(value) -> str:
    """The aggregate's name from a spelling (``"pass"`` -> ``"pass@k"``), or a one-line error."""
    name = _SPELLINGS.get(str(value).strip().lower())
    if name is None:
        raise InputError(f"aggregate {value!r}: use majority, plurality or pass")
    return name


@dataclass(frozen=True)
class AggregateBudget(Record):
    """The interval of one aggregate at one budget (a row of ``AnalysisReport.aggregates``).

    Attributes
    ----------
    aggregate : str
        ``"plurality"`` or ``"pass@k"``.
    votes : int or VoteLimit
        k calls, or :data:`certify.V_INF`.
    interval : Interval
        The 1 - alpha interval, made from the most calls of an example (K_max); its ``estimate`` is
        the estimate from the recorded calls (k <= K), None beyond them.
    model : ModelEstimate or None
        Plurality beyond the recorded calls: the answer model's estimate and interval
        (:mod:`certify.aggregates._answer_model`), not certified; None otherwise.
    """

    aggregate: str
    votes: object = field(metadata={"write": budget_json, "read": parse_vote_budget})
    interval: Interval
    model: ModelEstimate | None = None


def answer_codes_of(data: CallBits, aggregate: str) -> np.ndarray:
    """The answer codes an aggregate reads: the recorded answers, or for pass@k the bits alone.

    pass@k depends on how many calls are correct only, so without answers every incorrect
    call is coded as one wrong answer. A plurality vote needs the answers themselves.
    """
    if data.answers is not None:
        return data.answers
    if aggregate == "plurality":
        where = f" of group {data.group!r}" if data.group else ""
        raise InputError(
            f"--aggregate plurality needs the calls' answers, and {data.source or 'the data'}{where} records "
            f"correctness only: give answer and target columns (or a log with answers), or use "
            f"--aggregate majority or pass"
        )
    bits = data.bits
    return np.where(np.isnan(bits), NO_CALL, np.where(bits == 1, CORRECT, 1)).astype(np.int32)


def aggregate_budgets(
    data: CallBits, aggregate: str, votes, alpha: float, cells=None, reference=None
) -> tuple[AggregateBudget, ...]:
    """One :class:`AggregateBudget` per budget (module docstring); ``cells`` and ``reference`` (the
    group's cells and NPMLE, shared by every target of an analysis) are built when not given."""
    votes = parse_vote_budgets(votes)
    codes = answer_codes_of(data, aggregate)
    rows = aggregate_intervals(codes, list(votes), aggregate=aggregate, alpha=alpha, cells=cells, reference=reference)
    beyond = [v for v in votes if v is V_INF or v > data.calls] if aggregate == "plurality" else []
    model = plurality_model(codes, beyond, alpha) if beyond else {}
    return tuple(
        AggregateBudget(aggregate, v, replace(r.interval, calls=data.max_calls), model.get(v))
        for v, r in zip(votes, rows)
    )


def _minus_q(objective: Objective, name: str) -> Objective:
    """g(q) - q, the gain of g over one call (one call is correct with probability q)."""
    coeffs = list(objective.monomial_coefficients()) + [Fraction(0)]
    coeffs[1] -= 1
    return Objective.from_coefficients(coeffs, name=name)


def aggregate_verdict_intervals(
    data: CallBits, aggregate: str, budgets, alpha: float, cells=None, reference=None
) -> list[tuple[int, Interval]]:
    """(k, the gain's interval) per finite budget k > 1 (module docstring); ``cells`` and
    ``reference`` as in :func:`aggregate_budgets`."""
    codes = answer_codes_of(data, aggregate)
    fewest = int(data.calls)
    out = []
    identified = [k for k in budgets if k <= fewest]
    if identified:
        rows = aggregate_estimates(codes, identified, aggregate=aggregate, alpha=alpha, baseline=1)
        for r in rows:
            if r.baseline == 1:
                assert isinstance(r.votes, int)  # a finite budget of ``identified``
                out.append((r.votes, r.interval))
    beyond = [k for k in budgets if k > fewest]
    if beyond:
        if cells is None:
            cells = cell_counts(data.counts, data.successes.astype(int))
        if reference is None:
            reference = npmle(cells)  # one NPMLE for every gain
        if aggregate == "pass@k":
            gains = [_minus_q(pass_at_k_objective(k), f"pass@{k} - pass@1") for k in beyond]
            for k, iv in zip(beyond, likelihood_intervals(cells, gains, alpha=alpha, reference=reference)):
                out.append((k, iv.interval(cells.max_calls)))
        else:
            abstain = bool(data.abstentions)
            for k in beyond:
                lower, upper = plurality_bounds(k, abstentions=abstain)
                iv = likelihood_envelope(
                    cells,
                    _minus_q(lower, f"{lower.name} - q"),
                    _minus_q(upper, f"{upper.name} - q"),
                    alpha=alpha,
                    reference=reference,
                )
                out.append((k, iv.interval(cells.max_calls)))
    order = {k: i for i, k in enumerate(budgets)}
    return sorted(out, key=lambda t: order[t[0]])
