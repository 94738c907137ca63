"""What the forecasts return: a fitted family, its guard, per-target forecasts, the whole forecast.

Every result is a frozen dataclass; :class:`Forecast` has ``to_dict()`` in the layout of the JSON
Schema ``certify/schemas/forecast-v1.json`` (non-finite numbers become null).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._json import json_ready, schema_id
from .._records import Record
from ._catalog import make_family
from ._targets import parse_target, target_value

__all__ = ["FORECAST_SCHEMA_VERSION", "FamilyCheck", "FamilyFit", "Forecast", "Guard", "TargetForecast"]

#: Layout version of :meth:`Forecast.to_dict` (the schema ``forecast-v1.json``).
FORECAST_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class FamilyFit:
    """A family fitted by maximum likelihood to every recorded call.

    Attributes
    ----------
    family : str
        ``"beta"``, ``"beta01"``, ``"beta2"``, ``"maxent"`` or ``"ldgp"``.
    parameters : tuple of (str, float)
        The fitted parameters by name (:attr:`params` as a dict): beta (a, b); beta01 (w0, w1,
        a, b); beta2 (w, a1, b1, a2, b2; the first component has the smaller mean); maxent
        (theta1 .. thetad, density proportional to exp(theta1 q + ... + thetad q^d)); ldgp
        (eta, gamma; Q = Phi(eta - gamma Z)).
    loglik : float
        l(theta-hat) = sum_c n_c log p_c(theta-hat), binomial coefficients kept (as the NPMLE's).
    size : int
        Number of free parameters.
    n : int
        Examples N.
    degree : int or None
        The MaxEnt degree d (None for the other families).
    converged : bool
        Whether the best start's L-BFGS-B search met its tolerance.
    working : tuple of float
        The optimizer's coordinates (log shapes, logits, Legendre coefficients, (m, log gamma)).
    """

    family: str
    parameters: tuple[tuple[str, float], ...]
    loglik: float
    size: int
    n: int
    degree: int | None
    converged: bool
    working: tuple[float, ...]

    @property
    def params(self) -> dict[str, float]:
        return dict(self.parameters)

    @property
    def aic(self) -> float:
        """Akaike's criterion 2 d - 2 l."""
        return 2.0 * self.size - 2.0 * self.loglik

    @property
    def bic(self) -> float:
        """Schwarz's criterion d log N - 2 l."""
        return self.size * math.log(self.n) - 2.0 * self.loglik

    def criterion(self, name: str) -> float:
        """The value of a criterion (``"bic"`` or ``"aic"``); smaller is better."""
        return self.bic if name == "bic" else self.aic

    @property
    def label(self) -> str:
        """``"maxent(d=3)"`` for MaxEnt, else the family name."""
        return f"{self.family}(d={self.degree})" if self.degree is not None else self.family

    def value(self, target) -> float:
        """E[g(Q)] of a target (any form :func:`parse_target` reads) under the fitted law."""
        return target_value(make_family(self.family, self.degree), np.array(self.working), parse_target(target))

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "degree": self.degree,
            "parameters": dict(self.parameters),
            "loglik": self.loglik,
            "size": self.size,
            "aic": self.aic,
            "bic": self.bic,
            "converged": self.converged,
        }


@dataclass(frozen=True)
class Guard(Record):
    """The goodness-of-fit guard of one family: the likelihood ratio against the NPMLE.

    LR = 2 (l(NPMLE) - l(family)) >= 0, calibrated by a parametric bootstrap from the fitted
    family (simulate the same K_i, refit the family and the NPMLE, recompute LR*):
    p = (1 + #{LR* >= LR}) / (1 + draws used), on the first min(B, max(99, 2 / alpha)) of the B draws
    (:data:`certify.forecast._tolerances.GUARD_DRAWS`).

    Attributes
    ----------
    family : str
        The family's label (``"maxent(d=2)"`` for MaxEnt).
    statistic : float
        The observed LR.
    p_value : float
        The bootstrap p-value.
    draws : int
        Bootstrap draws the likelihood ratio is recomputed on (G <= B).
    used : int
        Those of them whose refit and NPMLE succeeded (the p-value uses these).
    alpha : float
        The level of the test.
    rejected : bool
        p_value < alpha: the data reject the family, which then gives no forecast.
    npmle_loglik, family_loglik : float
        l(NPMLE) and l(family) of the data.
    """

    family: str
    statistic: float
    p_value: float
    draws: int
    used: int
    alpha: float
    rejected: bool
    npmle_loglik: float
    family_loglik: float


@dataclass(frozen=True)
class TargetForecast(Record):
    """One target's forecast: estimate and interval within the chosen family (NaN without one).

    Attributes
    ----------
    target : str
        The target's name (``"V9"``, ``"pass@100"``, ``"V_inf"``, ...).
    estimate : float
        E[g] under the fitted law.
    lower, upper : float
        The parametric bootstrap percentile interval.
    level : float
        1 - alpha.
    method : str
        How the interval was made, with its caveat.
    """

    target: str
    estimate: float
    lower: float
    upper: float
    level: float
    method: str

    @property
    def width(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True)
class FamilyCheck:
    """One family's parametric bootstrap: its guard and, from the same draws, its target intervals.

    Attributes
    ----------
    fit : FamilyFit
    guard : Guard
    targets : tuple of TargetForecast
        Estimates and percentile intervals (:func:`check_family` computes them whether or not the
        guard rejects; inside :func:`forecast`, a rejected family's check has none).
    """

    fit: FamilyFit
    guard: Guard
    targets: tuple[TargetForecast, ...]


@dataclass(frozen=True)
class Forecast:
    """A forecast beyond the recorded calls from the best family the data do not reject.

    Attributes
    ----------
    family : str or None
        The chosen family's label; None when every family tried was rejected.
    fit : FamilyFit or None
        Its fit.
    guard : Guard or None
        Its guard (not rejected).
    rejected : tuple of Guard
        The guards of the families tried and rejected, in the order tried (best criterion first).
    candidates : tuple of FamilyFit
        Every family fitted, ranked by the criterion (best first).
    criterion : str
        ``"bic"`` or ``"aic"``.
    targets : tuple of TargetForecast
        One per target, in the order given (NaN values when ``family`` is None).
    alpha : float
        1 - level of the intervals, and the level of the guard.
    bootstrap : int
        B, draws per family.
    seed : int
        Seed of the bootstrap.
    note : str
        What the forecast is and is not.
    pool : float
        The criterion margin of the pooled families (0: the chosen family's intervals alone).
    pooled : tuple of Guard
        The guards of the other families (not rejected, criterion within ``pool`` of the chosen
        one's) whose intervals are joined to the chosen family's.
    """

    family: str | None
    fit: FamilyFit | None
    guard: Guard | None
    rejected: tuple[Guard, ...]
    candidates: tuple[FamilyFit, ...]
    criterion: str
    targets: tuple[TargetForecast, ...]
    alpha: float
    bootstrap: int
    seed: int
    note: str
    pool: float = 0.0
    pooled: tuple[Guard, ...] = ()
    schema_version: str = FORECAST_SCHEMA_VERSION

    def target(self, name: str) -> TargetForecast:
        """The forecast of the target named ``name``."""
        for t in self.targets:
            if t.target == name:
                return t
        raise KeyError(name)

    def to_dict(self) -> dict:
        """The forecast as JSON-ready data (schema ``forecast-v1.json``; non-finite numbers are null)."""
        return json_ready(
            {
                "$schema": schema_id("forecast", self.schema_version),
                "schema_version": self.schema_version,
                "family": self.family,
                "fit": self.fit.to_dict() if self.fit is not None else None,
                "guard": self.guard.to_dict() if self.guard is not None else None,
                "rejected": [g.to_dict() for g in self.rejected],
                "candidates": [c.to_dict() for c in self.candidates],
                "criterion": self.criterion,
                "alpha": self.alpha,
                "bootstrap": self.bootstrap,
                "seed": self.seed,
                "note": self.note,
                "pool": self.pool,
                "pooled": [g.to_dict() for g in self.pooled],
                "targets": [t.to_dict() for t in self.targets],
            }
        )
