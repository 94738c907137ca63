"""The guard and the intervals: one parametric bootstrap from the fitted family serves both.

**Guard.** LR = 2 (l(pi-hat) - l(theta-hat)) >= 0, with pi-hat the NPMLE (the maximum over every
law, :func:`certify.likelihood.npmle`) and theta-hat the family's fit. Its null distribution is
not chi-square (the NPMLE's dimension grows with the data; the family may sit on the boundary
of its box), so it is simulated: B draws of N examples with the recorded K_i from the fitted law,
each refitted (the family from theta-hat; the NPMLE cold: a start from the previous draw's NPMLE,
:class:`certify.likelihood.WarmStarts`, measured 40 % slower at 1,000 x 10) and LR* recomputed
on the first G = min(B, max(99, 2 / alpha)) draws (:data:`GUARD_DRAWS`; the NPMLE is most of a
draw's time and p needs no finer resolution than 0.01 to decide at alpha);
p = (1 + #{LR* >= LR}) / (1 + G). MaxEnt keeps its chosen degree in the
draws (the choice of the degree is not repeated: the p-value is conditional on it).

**Intervals.** The same draws' refits theta*_b give E_{theta*_b}[g] for every target; the
interval is their alpha/2 and 1 - alpha/2 percentiles (the percentile bootstrap). Its coverage
is asymptotic and holds only if the family contains the latent law: model-based, not certified
(the distribution-free intervals are :mod:`certify.likelihood`'s).

Draws come from ``numpy.random.default_rng([seed, index of the family in FAMILIES])``: the
same seed gives the same draws for a family whether it is checked alone
(:func:`check_family`) or inside :func:`certify.forecast.forecast`.
"""

from __future__ import annotations

import math

import numpy as np

from .._errors import InputError, SolverError
from .._validation import check_alpha
from ..likelihood import LatentLaw, cell_counts, npmle
from ._catalog import FAMILIES, make_family
from ._families import FitData
from ._fit import as_cells, maximize
from ._results import FamilyCheck, FamilyFit, Guard, TargetForecast
from ._targets import ForecastTarget, parse_targets, target_value
from ._tolerances import (
    DEFAULT_BOOTSTRAP,
    GUARD_DRAWS,
    LR_TIE_TOL,
    MAX_BOOTSTRAP,
    MAX_FAILED_SHARE,
    MIN_BOOTSTRAP,
)

__all__ = ["check_bootstrap", "check_family", "check_reference", "check_seed", "run_check"]


def check_bootstrap(bootstrap, alpha: float) -> int:
    """B in [MIN_BOOTSTRAP, MAX_BOOTSTRAP] with (B + 1) alpha > 1 (None: DEFAULT_BOOTSTRAP), else InputError."""
    if bootstrap is None:
        bootstrap = DEFAULT_BOOTSTRAP
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)):
        raise InputError(f"bootstrap={bootstrap!r} must be an integer number of draws")
    if not MIN_BOOTSTRAP <= bootstrap <= MAX_BOOTSTRAP:
        raise InputError(
            f"bootstrap={int(bootstrap)} must be in {MIN_BOOTSTRAP}..{MAX_BOOTSTRAP} "
            f"(fewer than {MIN_BOOTSTRAP} draws cannot reject at 0.05; more bounds the work)"
        )
    if (bootstrap + 1) * alpha <= 1:
        raise InputError(
            f"bootstrap={int(bootstrap)} cannot reject at alpha={alpha:g}: the smallest p-value is 1/(B + 1); "
            f"use B >= {int(1 / alpha)}"
        )
    return int(bootstrap)


def check_seed(seed) -> int:
    """The seed as a nonnegative int, else InputError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed={seed!r} must be a nonnegative integer")
    return int(seed)


def check_reference(reference, cells) -> LatentLaw:
    """The NPMLE of ``cells``: ``reference`` if given (a LatentLaw of as many examples), else computed."""
    if reference is None:
        return npmle(cells)
    if not isinstance(reference, LatentLaw):
        raise InputError(f"reference={type(reference).__name__} must be a LatentLaw (see certify.likelihood.npmle)")
    if reference.n != cells.n:
        raise InputError(f"reference has N={reference.n} examples and cells N={cells.n}: give the NPMLE of these cells")
    return reference


def guard_draws(draws: int, alpha: float) -> int:
    """How many of the B draws the guard recomputes the likelihood ratio on (:data:`GUARD_DRAWS`)."""
    return min(draws, max(GUARD_DRAWS, math.ceil(2 / alpha)))


def method_text(fit: FamilyFit, draws: int) -> str:
    """How the intervals of a family are made, with their caveat."""
    return (
        f"parametric bootstrap percentile, {draws} draws from the fitted {fit.label} law; approximate "
        "(asymptotic) and model-based: valid only if the family holds, not certified"
    )


def run_check(
    cells,
    data: FitData,
    fit: FamilyFit,
    targets: tuple[ForecastTarget, ...],
    alpha: float,
    draws: int,
    seed: int,
    reference: LatentLaw,
    intervals_if_rejected: bool = True,
) -> FamilyCheck:
    """The bootstrap of one fitted family (module docstring); ``reference`` is the NPMLE of ``cells``.

    With ``intervals_if_rejected=False`` (:func:`certify.forecast.forecast`, which keeps only the
    guard of a rejected family) the draws stop once the guard's G draws reject the family, and
    the check has no targets: the guard is the one the full run gives, since it reads those G
    draws only, and the B - G refits it saves are half of a rejected family's time at B = 200.
    """
    family = make_family(fit.family, fit.degree)
    rng = np.random.default_rng([seed, FAMILIES.index(fit.family)])
    u_hat = np.array(fit.working)
    observed = max(0.0, 2.0 * (reference.loglik - fit.loglik))
    calls = data.example_calls()
    tested = guard_draws(draws, alpha)
    stats: list[float] = []
    values: list[list[float]] = []
    failed = 0
    guard: Guard | None = None
    for b in range(draws):
        if b == tested:
            guard = _guard(fit, reference, observed, stats, tested, alpha)
            if guard.rejected and not intervals_if_rejected:
                _too_many_failed(failed, draws, fit, made=b)
                return FamilyCheck(fit=fit, guard=guard, targets=())
        sim = cell_counts(calls, rng.binomial(calls, family.sample(u_hat, data.n, rng)))
        try:
            u, loglik, _ = maximize(family, FitData.from_cells(sim), [u_hat])
            # the guard's LR* on the first draws only (GUARD_DRAWS: the NPMLE is most of a draw's time)
            top = npmle(sim).loglik if b < tested else None
        except (SolverError, InputError):
            failed += 1
            continue
        if top is not None:
            stats.append(max(0.0, 2.0 * (top - loglik)))
        values.append([target_value(family, u, t) for t in targets])
    _too_many_failed(failed, draws, fit, made=draws)
    if guard is None:  # G = B
        guard = _guard(fit, reference, observed, stats, tested, alpha)
    used = len(values)
    table = np.asarray(values, dtype=float).reshape(used, len(targets))
    method = method_text(fit, draws)
    out = []
    for j, t in enumerate(targets):
        lo, hi = np.quantile(table[:, j], [alpha / 2, 1 - alpha / 2])
        out.append(TargetForecast(t.name, target_value(family, u_hat, t), float(lo), float(hi), 1 - alpha, method))
    return FamilyCheck(fit=fit, guard=guard, targets=tuple(out))


def _too_many_failed(failed: int, draws: int, fit: FamilyFit, made: int) -> None:
    """More than MAX_FAILED_SHARE of the B draws failed (among the ``made`` so far: the full run fails too)."""
    if failed > MAX_FAILED_SHARE * draws:
        raise SolverError(
            "forecast bootstrap", "too many failed draws", f"{failed} of {made} (of B = {draws}) for {fit.label}"
        )


def _guard(fit: FamilyFit, reference: LatentLaw, observed: float, stats: list, tested: int, alpha: float) -> Guard:
    """The guard from the LR* of the first ``tested`` draws (module docstring)."""
    p = (1 + int(np.sum(np.asarray(stats) >= observed - LR_TIE_TOL))) / (len(stats) + 1)
    return Guard(
        family=fit.label,
        statistic=observed,
        p_value=p,
        draws=tested,
        used=len(stats),
        alpha=alpha,
        rejected=p < alpha,
        npmle_loglik=reference.loglik,
        family_loglik=fit.loglik,
    )


def check_family(
    cells,
    fit: FamilyFit,
    targets=(),
    *,
    alpha: float = 0.05,
    bootstrap: int | None = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    reference: LatentLaw | None = None,
) -> FamilyCheck:
    """The guard of one fitted family and, from the same draws, its target intervals.

    Parameters
    ----------
    cells : CellCounts or CallBits
        The data ``fit`` was fitted to.
    fit : FamilyFit
        From :func:`fit_family` or :func:`fit_families`.
    targets : sequence
        Targets in any form :func:`parse_target` reads (may be empty: the guard only).
    alpha : float
        Level of the guard (reject when p < alpha) and 1 - level of the intervals.
    bootstrap : int or None
        B, the number of draws (MIN_BOOTSTRAP .. MAX_BOOTSTRAP); None: DEFAULT_BOOTSTRAP.
    seed : int
        Seed of ``numpy.random.default_rng([seed, family index])``.
    reference : LatentLaw, optional
        A precomputed :func:`certify.likelihood.npmle` of the same cells.

    Returns
    -------
    FamilyCheck

    Raises
    ------
    InputError
        Bad alpha, bootstrap, seed or target.
    SolverError
        More than MAX_FAILED_SHARE of the draws' refits or NPMLEs failed.
    """
    alpha = check_alpha(alpha)
    draws, seed = check_bootstrap(bootstrap, alpha), check_seed(seed)
    if not isinstance(fit, FamilyFit):
        raise InputError(f"fit={type(fit).__name__} must be a FamilyFit (see fit_family)")
    parsed = parse_targets(targets)
    cells = as_cells(cells)
    data = FitData.from_cells(cells)
    if data.n != fit.n:
        raise InputError(f"fit has N={fit.n} examples and cells N={data.n}: check a fit on the data it was fitted to")
    return run_check(cells, data, fit, parsed, alpha, draws, seed, check_reference(reference, cells))
