"""Forecasts beyond the recorded calls from parametric families of the latent law, with a guard.

Paper context: example i has a latent q_i ~ pi on [0, 1] and its K_i calls give S_i ~ Bin(K_i, q_i).
Beyond the recorded calls, what the calls allow is an interval over every law pi
(:mod:`certify.likelihood`, certified); here pi is instead assumed to lie in a parametric family,
fitted by maximum likelihood to every call, which gives a point forecast and a narrower,
model-based interval for V_k, pass@k, V_inf, pass@inf, their gains over one call and any polynomial
objective. The data say when a family is wrong: each family's likelihood is compared with the
NPMLE's (the maximum over every law) by a parametric bootstrap, and a rejected family gives no
forecast. Nothing here is certified.

Families (:data:`FAMILIES`):

* ``beta``: Beta(a, b), the beta-binomial model (closed form);
* ``beta01``: Beta with point masses w0 at 0 and w1 at 1 (examples never or always solved);
* ``beta2``: a mixture of two Betas;
* ``maxent``: density proportional to exp(theta_1 q + ... + theta_d q^d), d = 2 .. min(K_max, 6)
  chosen by the criterion (the paper's MaxEnt is d = 2);
* ``ldgp``: Q = Phi(eta - gamma Z), Z ~ N(0, 1) (the paper's Proposition 5.2).

Fitting (:mod:`._fit`)
----------------------

* :data:`FAMILIES` -- the family names, ``("beta", "beta01", "beta2", "maxent", "ldgp")``.
* :data:`CRITERIA` -- what ranks the families, ``("bic", "aic")`` (smaller is better; BIC by default).
* :func:`fit_family` -- one family's maximum-likelihood fit:
  ``fit_family(cells, family, *, degree=None, criterion="bic") -> FamilyFit``.
* :func:`fit_families` -- every eligible family, best criterion first:
  ``fit_families(cells, families=None, *, criterion="bic") -> tuple[FamilyFit, ...]``.
* :class:`FamilyFit` -- a fitted family: parameters, log-likelihood, AIC and BIC, ``value(target)``.

The guard and the forecast (:mod:`._bootstrap`, :mod:`._forecast`)
------------------------------------------------------------------

* :func:`check_family` -- one family's parametric bootstrap, its guard and intervals:
  ``check_family(cells, fit, targets=(), *, alpha=0.05, bootstrap=200, seed=0, reference=None)
  -> FamilyCheck``.
* :func:`forecast` -- the forecast from the best family the data do not reject:
  ``forecast(cells, targets, alpha=0.05, families=None, bootstrap=200, seed=0, criterion="bic",
  pool=20.0, reference=None) -> Forecast`` (the intervals join those of every family within ``pool``
  BIC units not rejected, ``pool=0``: the chosen family's alone; pass@k is not forecast from fewer
  than 5 calls; ``reference``: the NPMLE of the cells, if already computed).
* :class:`Guard` -- LR = 2 (l(NPMLE) - l(family)), its bootstrap p-value, B, whether it rejects.
* :class:`FamilyCheck` -- one family's guard and its target intervals from the same draws.
* :class:`TargetForecast` -- one target's estimate, lower and upper end, level and method.
* :class:`Forecast` -- the family, its fit and guard, the rejected families, the targets; ``to_dict()``.
* :data:`FORECAST_SCHEMA_VERSION` -- layout version of ``Forecast.to_dict()`` (``forecast-v1.json``).

Targets (:mod:`._targets`)
--------------------------

* :func:`parse_target` -- a target from a vote count, ``"pass@k"``, ``"inf"``, ``"pass@inf"``, a
  gain (``"pass@10 - V1"``) or an objective.
* :class:`ForecastTarget` -- what to forecast: name, kind, polynomial or k, whether E[Q] is subtracted.

Modules:

=====================  ==========================================================================
``_families``          the fit data; the Beta families (closed-form beta-binomial cells and targets)
``_quadrature``        MaxEnt and LDGP by split Gauss-Legendre quadrature
``_catalog``           the families by name
``_fit``               maximum likelihood (L-BFGS-B, several starts), the criterion, the MaxEnt degree
``_targets``           targets and their values under a family
``_bootstrap``         the guard and the percentile intervals from one parametric bootstrap
``_forecast``          ranking, guarding in turn, the forecast
``_results``           the result dataclasses
``_tolerances``        every tolerance, tuning constant and work cap, with why
=====================  ==========================================================================

Layering: at the level of :mod:`certify.stats`; it imports :mod:`certify.likelihood` and the core.
"""

from ._bootstrap import check_family
from ._catalog import FAMILIES
from ._fit import CRITERIA, fit_families, fit_family
from ._forecast import forecast
from ._results import FORECAST_SCHEMA_VERSION, FamilyCheck, FamilyFit, Forecast, Guard, TargetForecast
from ._targets import ForecastTarget, parse_target

__all__ = [
    "CRITERIA",
    "FAMILIES",
    "FORECAST_SCHEMA_VERSION",
    "FamilyCheck",
    "FamilyFit",
    "Forecast",
    "Guard",
    "ForecastTarget",
    "TargetForecast",
    "check_family",
    "fit_families",
    "fit_family",
    "forecast",
    "parse_target",
]
