"""Targets of a forecast: functionals E_pi[g(Q)] of the latent law, and their values under a family.

Accepted forms (:func:`parse_target`):

* an int k: V_k, the accuracy of a majority of k calls (fair ties for even k);
* ``"pass@k"``: pass@k = E[1 - (1 - Q)^k], any k up to :data:`MAX_TARGET_DEGREE`;
* V_inf (:data:`certify.V_INF`, ``"inf"``, ``"V_inf"``): P(Q > 1/2) + P(Q = 1/2)/2;
* pass@inf (:data:`certify.PASS_INF`, ``"pass@inf"``): P(Q > 0);
* any of these followed by ``" - V1"`` (or ``" - q"``): its gain over one call, minus E[Q];
* any polynomial objective (:func:`certify.parse_objective` text such as ``"V9 - V1"`` or
  ``"1 - (1-q)**8"``, an :class:`~certify.Objective`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._aggregate_bounds import PASS_INF, is_pass_limit
from .._errors import InputError
from .._objective import Objective, is_vote_limit, parse_objective, vote_accuracy
from ._families import Family
from ._tolerances import MAX_TARGET_DEGREE, MAX_TARGETS

__all__ = ["ForecastTarget", "parse_target", "parse_targets", "target_value"]

_PASS_AT = re.compile(r"pass@(\d+)", re.ASCII)
_GAIN = re.compile(r"(.+?)\s*-\s*(?:V1|q)", re.ASCII)


@dataclass(frozen=True)
class ForecastTarget:
    """One target: what to forecast.

    Attributes
    ----------
    name : str
        How it reads: ``"V9"``, ``"pass@10"``, ``"V_inf"``, ``"pass@inf"``, ``"pass@10 - V1"``,
        or an objective's own name.
    kind : str
        ``"objective"`` (a polynomial, V_k included), ``"pass"`` (pass@k), ``"vote_limit"``
        (V_inf) or ``"pass_limit"`` (pass@inf).
    objective : Objective or None
        The polynomial of kind ``"objective"``.
    calls : int
        k of pass@k (0 for the other kinds).
    gain : bool
        Whether E[Q] is subtracted (the gain over one call).
    """

    name: str
    kind: str
    objective: Objective | None = None
    calls: int = 0
    gain: bool = False


def _special(text: str) -> ForecastTarget | None:
    """V_inf, pass@inf or pass@k from text, else None."""
    if is_vote_limit(text):
        return ForecastTarget("V_inf", "vote_limit")
    if is_pass_limit(text):
        return ForecastTarget("pass@inf", "pass_limit")
    m = _PASS_AT.fullmatch(text.strip())
    if m is None:
        return None
    k = int(m.group(1))
    if not 1 <= k <= MAX_TARGET_DEGREE:
        raise InputError(f"target {text!r}: pass@k needs 1 <= k <= {MAX_TARGET_DEGREE} (pass@inf is the limit)")
    return ForecastTarget(f"pass@{k}", "pass", calls=k)


def parse_target(spec) -> ForecastTarget:
    """A :class:`ForecastTarget` from any accepted form (module docstring).

    Raises
    ------
    InputError
        One line naming the value and the rule (an unknown name, a budget out of range, a
        polynomial of degree above :data:`MAX_TARGET_DEGREE`).
    """
    if isinstance(spec, ForecastTarget):
        return spec
    if spec is PASS_INF:
        return ForecastTarget("pass@inf", "pass_limit")
    if is_vote_limit(spec):
        return ForecastTarget("V_inf", "vote_limit")
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not 1 <= spec <= MAX_TARGET_DEGREE:
            raise InputError(
                f"target {int(spec)}: a vote budget needs 1 <= k <= {MAX_TARGET_DEGREE} ('inf' is the limit)"
            )
        obj = vote_accuracy(int(spec))
        return ForecastTarget(obj.name, "objective", objective=obj)
    if isinstance(spec, str):
        found = _special(spec)
        if found is not None:
            return found
        m = _GAIN.fullmatch(spec.strip())
        head = _special(m.group(1)) if m is not None else None
        if head is not None:
            return ForecastTarget(f"{head.name} - V1", head.kind, calls=head.calls, gain=True)
    if isinstance(spec, (str, Objective, list, tuple)):
        obj = parse_objective(spec)
        if obj.degree > MAX_TARGET_DEGREE:
            raise InputError(f"target {obj.name!r} has degree {obj.degree}, above the limit of {MAX_TARGET_DEGREE}")
        return ForecastTarget(obj.name, "objective", objective=obj)
    raise InputError(f"target {spec!r} must be a vote count, 'pass@k', 'inf', 'pass@inf' or an objective")


def parse_targets(specs) -> tuple[ForecastTarget, ...]:
    """Several targets (one string, number or Objective is one target), at most :data:`MAX_TARGETS`."""
    if (
        isinstance(specs, (str, bytes, int, np.integer, Objective, ForecastTarget))
        or specs is PASS_INF
        or is_vote_limit(specs)
    ):
        specs = [specs]
    out = tuple(parse_target(s) for s in specs)
    if len(out) > MAX_TARGETS:
        raise InputError(
            f"{len(out)} targets exceed the limit of {MAX_TARGETS} (each is evaluated at every bootstrap draw)"
        )
    return out


def target_value(family: Family, u: np.ndarray, target: ForecastTarget) -> float:
    """E[g(Q)] of a target under the law of ``family`` at coordinates ``u``."""
    if target.kind == "objective":
        assert target.objective is not None
        value = family.polynomial(u, target.objective)
    elif target.kind == "pass":
        value = family.pass_at(u, target.calls)
    elif target.kind == "vote_limit":
        value = family.upper_half(u)
    else:
        value = family.positive(u)
    return value - family.pass_at(u, 1) if target.gain else value
