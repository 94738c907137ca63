"""Maximum-likelihood fits of the families and the choice among them.

Each family is fitted by L-BFGS-B on -l(u) / N in its bounded coordinates u with the exact
gradient (:mod:`._families`, :mod:`._quadrature`), from every start the family proposes; the
best start wins. MaxEnt is fitted at each degree d = 1 .. min(K_max, :data:`MAXENT_MAX_DEGREE`),
each degree starting from the previous one's solution with theta_d = 0 (the same law, so the
likelihood never falls with d), and the degree is chosen among d >= :data:`MAXENT_MIN_DEGREE` by
the same criterion as the family.

**The criterion.** Families are ranked by BIC = d log N - 2 l (default) or AIC = 2 d - 2 l,
smaller first. Measured on the six development data sets (``benchmarks/bench_forecast.py``: fit
on the first K0 in {5, 10} calls, forecast V_k and pass@k beyond K0 up to the K recorded, compare
with the value from all K; 10 (set, K0) pairs): the median over pairs of the family's median
absolute error is 0.010 for BIC's choice and 0.009 for AIC's, the mean 0.016 and 0.017, the
largest error 0.21 and 0.31 -- AIC picks beta01, beta2 or a MaxEnt of degree 4 where BIC picks
Beta or LDGP, and the richer family's forecast far beyond K0 is the less stable (AIC's 0.31 is
beta01's pass@100 from 5 calls of HumanEval). BIC is the default for its smaller worst case.

**Which families are fitted.** A family with more free parameters than K_max is not: the cells
identify at most K_max moments of the latent law, so its parameters would not be identified (at
K_max = 2 only beta, ldgp and maxent of degrees 1-2 are fitted).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from .._calls import CallBits
from .._errors import InputError
from ..likelihood import CellCounts
from ._catalog import FAMILIES, make_family
from ._families import Family, FitData
from ._results import FamilyFit
from ._tolerances import FIT_FTOL, FIT_GTOL, FIT_MAX_ITER, MAXENT_MAX_DEGREE, MAXENT_MIN_DEGREE

__all__ = ["CRITERIA", "as_cells", "fit_families", "fit_family", "maximize"]

#: Criteria that rank the families (smaller is better).
CRITERIA = ("bic", "aic")


def as_cells(cells) -> CellCounts:
    """CellCounts from CellCounts or CallBits, else InputError."""
    if isinstance(cells, CellCounts):
        return cells
    if isinstance(cells, CallBits):
        return CellCounts.from_bits(cells)
    raise InputError(
        f"cells={type(cells).__name__} must be CellCounts (see certify.likelihood.cell_counts) or CallBits"
    )


def check_criterion(criterion) -> str:
    if criterion not in CRITERIA:
        raise InputError(f"criterion={criterion!r} must be one of {', '.join(CRITERIA)}")
    return criterion


def maximize(family: Family, data: FitData, starts) -> tuple[np.ndarray, float, bool]:
    """(u-hat, l(u-hat), converged) of the best of L-BFGS-B runs from ``starts``."""
    model = family.model(data)
    counts, n = data.counts, float(data.n)
    bounds = family.bounds()
    lo, hi = np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])

    def objective(u):
        logp, jac = model(u)
        return -float(counts @ logp) / n, -(counts @ jac) / n

    best: tuple[np.ndarray, float, bool] | None = None
    for start in starts:
        res = minimize(
            objective,
            np.clip(np.asarray(start, dtype=float), lo, hi),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": FIT_MAX_ITER, "gtol": FIT_GTOL, "ftol": FIT_FTOL},
        )
        u = np.clip(res.x, lo, hi)
        value = float(counts @ model(u)[0])
        if np.isfinite(value) and (best is None or value > best[1]):
            best = (u, value, bool(res.success))
    if best is None:
        raise InputError(f"the {family.name} family has no start with a finite likelihood on these cells")
    return best


def _result(family: Family, data: FitData, u: np.ndarray, loglik: float, converged: bool) -> FamilyFit:
    return FamilyFit(
        family=family.name,
        parameters=tuple(zip(family.names, family.natural(u))),
        loglik=loglik,
        size=family.size,
        n=data.n,
        degree=family.degree,
        converged=converged,
        working=tuple(float(x) for x in u),
    )


def _eligible(name: str, data: FitData) -> bool:
    size = MAXENT_MIN_DEGREE if name == "maxent" else make_family(name).size
    return size <= data.max_calls


def _maxent(data: FitData, degree: int | None, criterion: str) -> FamilyFit:
    top = min(data.max_calls, MAXENT_MAX_DEGREE) if degree is None else degree
    start = np.zeros(0)
    fits = []
    for d in range(1, top + 1):
        family = make_family("maxent", d)
        u, loglik, ok = maximize(family, data, [np.concatenate([start, [0.0]])])
        start = u
        if (degree is None and d >= MAXENT_MIN_DEGREE) or d == degree:
            fits.append(_result(family, data, u, loglik, ok))
    return min(fits, key=lambda f: f.criterion(criterion))


def _fit(name: str, data: FitData, degree: int | None, criterion: str) -> FamilyFit:
    if name == "maxent":
        return _maxent(data, degree, criterion)
    family = make_family(name)
    return _result(family, data, *maximize(family, data, family.starts(data)))


def fit_family(cells, family: str, *, degree: int | None = None, criterion: str = "bic") -> FamilyFit:
    """Fit one family by maximum likelihood to every recorded call.

    Parameters
    ----------
    cells : CellCounts or CallBits
    family : str
        One of :data:`FAMILIES`.
    degree : int, optional
        MaxEnt only: a fixed degree d (1 .. MAXENT_MAX_DEGREE, at most K_max); default: the
        degree of MAXENT_MIN_DEGREE .. min(K_max, MAXENT_MAX_DEGREE) with the smallest ``criterion``.
    criterion : {"bic", "aic"}
        What chooses the MaxEnt degree.

    Returns
    -------
    FamilyFit

    Raises
    ------
    InputError
        An unknown family, a degree out of range, or a family with more parameters than K_max.
    """
    criterion = check_criterion(criterion)
    data = FitData.from_cells(as_cells(cells))
    if family not in FAMILIES:
        make_family(family)  # raises, naming the families
    if degree is not None and family != "maxent":
        raise InputError(f"degree={degree!r} applies to the maxent family only, not {family!r}")
    if degree is not None:
        make_family("maxent", degree)  # checks the range
        if degree > data.max_calls:
            raise InputError(f"maxent degree={degree} exceeds K_max={data.max_calls}: the calls identify K_max moments")
    elif not _eligible(family, data):
        raise InputError(
            f"family {family!r} has {make_family(family).size} parameters, more than K_max={data.max_calls}: "
            "the calls identify K_max moments of the latent law"
        )
    return _fit(family, data, degree, criterion)


def fit_families(cells, families=None, *, criterion: str = "bic") -> tuple[FamilyFit, ...]:
    """Fit several families and rank them by ``criterion``, best (smallest) first.

    Parameters
    ----------
    cells : CellCounts or CallBits
    families : sequence of str, optional
        Default: every family of :data:`FAMILIES` with at most K_max parameters. A family named
        here that has more raises InputError.
    criterion : {"bic", "aic"}

    Returns
    -------
    tuple of FamilyFit
    """
    criterion = check_criterion(criterion)
    cells = as_cells(cells)
    data = FitData.from_cells(cells)
    names = _family_names(families, data)
    fits = [_fit(name, data, None, criterion) for name in names]
    return tuple(sorted(fits, key=lambda f: f.criterion(criterion)))


def _family_names(families, data: FitData) -> list[str]:
    if families is None:
        return [name for name in FAMILIES if _eligible(name, data)]
    if isinstance(families, str):
        families = [families]
    names = list(dict.fromkeys(families))
    if not names:
        raise InputError("families=[] must name at least one family")
    for name in names:
        if name not in FAMILIES:
            make_family(name)  # raises, naming the families
        if not _eligible(name, data):
            raise InputError(
                f"family {name!r} has {make_family(name).size} parameters, more than K_max={data.max_calls}: "
                "the calls identify K_max moments of the latent law"
            )
    return names
