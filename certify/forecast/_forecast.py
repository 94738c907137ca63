"""The forecast: fit the families, rank them, guard them in turn, forecast from the first accepted.

1. Fit every eligible family (:func:`fit_families`; MaxEnt at its chosen degree) and rank them by
   the criterion (BIC by default, :mod:`._fit`).
2. From the best-ranked down: the parametric bootstrap of the family (:mod:`._bootstrap`) gives
   its guard p-value and, from the same draws, its target intervals. A family with p < alpha is
   rejected (recorded with its LR and p-value) and the next one is tried.
3. The first family not rejected gives the forecast. When every family is rejected there is no
   forecast: the targets carry NaN and ``family`` is None.
4. The families ranked after it whose criterion is within ``pool`` of its own (default
   DEFAULT_POOL) are checked as well, and each interval is the union of the intervals of those
   not rejected (``pool=0``: the chosen family's alone).
5. From fewer than PASS_MIN_CALLS calls per example pass@k and pass@inf are not forecast (NaN, and
   the method says why): their measured coverage there is below 0.90.

Work is bounded by the caps of :mod:`._tolerances`: at most MAX_CELLS cells, MAX_TARGETS targets
of degree at most MAX_TARGET_DEGREE, B <= MAX_BOOTSTRAP draws per family tried, MaxEnt degree
at most MAXENT_MAX_DEGREE.
"""

from __future__ import annotations

import math

import numpy as np

from .._errors import InputError
from .._validation import check_alpha
from ..likelihood import LatentLaw
from ._bootstrap import check_bootstrap, check_reference, check_seed, run_check
from ._families import FitData
from ._fit import as_cells, check_criterion, fit_families
from ._results import FamilyCheck, Forecast, Guard, TargetForecast
from ._targets import parse_targets
from ._tolerances import DEFAULT_BOOTSTRAP, DEFAULT_POOL, MAX_POOL, PASS_MIN_CALLS

__all__ = ["NOTE", "forecast"]

#: Said with every forecast.
NOTE = (
    "a forecast within a parametric family of latent laws, fitted to every recorded call; its intervals "
    "are parametric bootstrap percentiles, approximate and valid only if the family holds: not certified"
)


def _check_pool(pool) -> float:
    real = isinstance(pool, (int, float, np.integer, np.floating)) and not isinstance(pool, (bool, np.bool_))
    if not real or not math.isfinite(float(pool)) or not 0 <= float(pool) <= MAX_POOL:
        raise InputError(f"pool={pool!r} must be a criterion margin in [0, {MAX_POOL:g}]")
    return float(pool)


def _pooled(chosen: FamilyCheck, others: list[FamilyCheck], targets) -> tuple[TargetForecast, ...]:
    """The chosen family's estimates with the union of every pooled family's percentile intervals."""
    if not others:
        return chosen.targets
    labels = ", ".join(c.fit.label for c in [chosen, *others])
    out = []
    for j, t in enumerate(chosen.targets):
        method = (
            f"union of the parametric bootstrap percentile intervals of the "
            f"fitted {labels} laws (not rejected, criterion within the pool margin of the best); approximate "
            "and model-based: valid only if one of these families holds, not certified"
        )
        lower = min(c.targets[j].lower for c in [chosen, *others])
        upper = max(c.targets[j].upper for c in [chosen, *others])
        out.append(TargetForecast(t.target, t.estimate, lower, upper, t.level, method))
    return tuple(out)


def _within_reach(forecasts: tuple[TargetForecast, ...], targets, calls: int) -> tuple[TargetForecast, ...]:
    """The forecasts, with pass@k and pass@inf withdrawn (NaN, and why) below PASS_MIN_CALLS calls."""
    if calls >= PASS_MIN_CALLS:
        return forecasts
    why = (
        f"no forecast: pass@k from {calls} calls per example covered below 0.90 in simulation (needs {PASS_MIN_CALLS})"
    )
    nan = math.nan
    return tuple(
        TargetForecast(f.target, nan, nan, nan, f.level, why) if t.kind in ("pass", "pass_limit") else f
        for f, t in zip(forecasts, targets)
    )


def forecast(
    cells,
    targets,
    alpha: float = 0.05,
    families=None,
    bootstrap: int | None = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    criterion: str = "bic",
    pool: float = DEFAULT_POOL,
    reference: LatentLaw | None = None,
) -> Forecast:
    """Forecast targets beyond the recorded calls from the best family the data do not reject.

    Parameters
    ----------
    cells : CellCounts or CallBits
        The recorded calls (at least one example with K_i >= 2).
    targets : sequence
        Targets (:func:`parse_target`): vote counts, ``"pass@k"``, ``"inf"``, ``"pass@inf"``,
        gains (``"pass@100 - V1"``), objectives.
    alpha : float
        Level of the guard and 1 - level of the intervals, in (0, 1).
    families : sequence of str, optional
        The families to consider (default: every one with at most K_max parameters).
    bootstrap : int or None
        B, parametric bootstrap draws per family tried (MIN_BOOTSTRAP .. MAX_BOOTSTRAP, with
        (B + 1) alpha > 1); None: DEFAULT_BOOTSTRAP (200).
    seed : int
        Seed of the draws.
    criterion : {"bic", "aic"}
        Ranks the families.
    pool : float
        Criterion margin in [0, MAX_POOL]: every family whose criterion is within ``pool`` of the
        chosen one's is checked too, and the intervals are the union of those not rejected (the
        estimates stay the chosen family's). Default DEFAULT_POOL (= MAX_POOL, 20 BIC units);
        0: the chosen family's intervals alone. Families the data cannot tell apart can forecast
        differently far beyond the recorded calls; pooling them widens the intervals by that
        disagreement, at one bootstrap per family pooled. Measured
        (``benchmarks/bench_forecast_coverage.py``, N = 400, nine laws): pass@100 covered 0.94-1.00
        at K >= 5 pooled against 0.74-0.89 alone.
    reference : LatentLaw, optional
        A precomputed :func:`certify.likelihood.npmle` of the same cells (the guard's l(NPMLE)).

    Returns
    -------
    Forecast

    Raises
    ------
    InputError
        Bad cells, alpha, bootstrap, seed, criterion, pool, family or target; too many cells or
        targets.
    SolverError
        A bootstrap with more than MAX_FAILED_SHARE failed draws.
    """
    alpha = check_alpha(alpha)
    draws, seed = check_bootstrap(bootstrap, alpha), check_seed(seed)
    criterion = check_criterion(criterion)
    pool = _check_pool(pool)
    parsed = parse_targets(targets)
    cells = as_cells(cells)
    data = FitData.from_cells(cells)
    reference = check_reference(reference, cells)
    ranked = fit_families(cells, families, criterion=criterion)
    rejected: list[Guard] = []
    chosen: FamilyCheck | None = None
    others: list[FamilyCheck] = []
    for fit in ranked:
        if chosen is not None and fit.criterion(criterion) - chosen.fit.criterion(criterion) > pool:
            break
        # a rejected family's guard is all the forecast keeps of it: its draws stop there
        check = run_check(cells, data, fit, parsed, alpha, draws, seed, reference, intervals_if_rejected=False)
        if check.guard.rejected:
            rejected.append(check.guard)
        elif chosen is None:
            chosen = check
        else:
            others.append(check)
    if chosen is not None:
        return Forecast(
            family=chosen.fit.label,
            fit=chosen.fit,
            guard=chosen.guard,
            rejected=tuple(rejected),
            candidates=ranked,
            criterion=criterion,
            targets=_within_reach(_pooled(chosen, others, parsed), parsed, data.max_calls),
            alpha=alpha,
            bootstrap=draws,
            seed=seed,
            note=NOTE,
            pool=pool,
            pooled=tuple(c.guard for c in others),
        )
    nan = math.nan
    empty = tuple(
        TargetForecast(t.name, nan, nan, nan, 1 - alpha, "no forecast: every family was rejected") for t in parsed
    )
    return Forecast(
        family=None,
        fit=None,
        guard=None,
        rejected=tuple(rejected),
        candidates=ranked,
        criterion=criterion,
        targets=empty,
        alpha=alpha,
        bootstrap=draws,
        seed=seed,
        note=NOTE,
        pool=pool,
        pooled=(),
    )
