"""Planning a study from pilot data: how many examples and calls certify that k votes beat one.

From pilot data (cells of K_i calls with S_i correct), two latent laws are taken as
scenarios for the truth:

``npmle``
    pi-hat, the nonparametric maximum-likelihood law of the pilot (eq. (L3) of
    :mod:`certify.likelihood`): the best single guess.
``least-favourable``
    the law of the pilot's likelihood set {pi : l(pi) >= l(pi-hat) - c} at which the
    gain E[V_k - V_1] is smallest (the extremal law of the lower end of its
    likelihood-ratio interval, eq. (L9)): the most pessimistic truth the pilot supports.

For each scenario and each design (N examples, K calls per example) the study is
simulated ``reps`` times (q_i from the scenario law, S_i ~ Bin(K, q_i)); each simulated
study gets the same likelihood-ratio intervals :func:`certify.stats.analyze` reports,
and the plan records the mean width of the V_k interval and the fraction of studies whose
gain interval lies above 0 (the probability of certifying that k votes beat one call),
with its Monte Carlo standard error. These are simulation estimates under the
conditional-i.i.d. model, not guarantees; the pilot's own uncertainty enters only
through the two scenarios.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from .._numbers import float_or_nan
from .._objective import parse_objective
from ..likelihood import CellCounts, cell_counts, likelihood_bound, likelihood_intervals, npmle

__all__ = ["PLAN_SCHEMA_VERSION", "PlanRow", "StudyPlan", "plan_study"]

PLAN_SCHEMA_VERSION = "1"

#: Scenario names, in the order they are reported.
SCENARIOS = ("npmle", "least-favourable")


@dataclass(frozen=True)
class PlanRow:
    """One design under one scenario.

    Attributes
    ----------
    scenario : str
        ``"npmle"`` or ``"least-favourable"``.
    examples, calls : int
        N and K of the simulated study.
    mean_width : float
        Mean width of the 1 - alpha interval of V_k over the replicates.
    p_certified : float
        Fraction of replicates whose interval of V_k - V_1 lies above 0.
    se_certified : float
        Monte Carlo standard error of ``p_certified``.
    reps : int
    """

    scenario: str
    examples: int
    calls: int
    mean_width: float
    p_certified: float
    se_certified: float
    reps: int

    def to_dict(self) -> dict:
        return {"scenario": self.scenario, "examples": self.examples, "calls": self.calls,
                "mean_width": self.mean_width, "p_certified": self.p_certified,
                "se_certified": self.se_certified, "reps": self.reps}

    @classmethod
    def from_dict(cls, d: dict) -> "PlanRow":
        return cls(str(d["scenario"]), int(d["examples"]), int(d["calls"]), float_or_nan(d["mean_width"]),
                   float_or_nan(d["p_certified"]), float_or_nan(d["se_certified"]), int(d["reps"]))


@dataclass(frozen=True)
class StudyPlan:
    """Result of :func:`plan_study` (``to_dict``/``from_dict``; ``schema_version``).

    Attributes
    ----------
    votes : int
        The budget k whose gain over one call is to be certified.
    alpha : float
    pilot_examples : int
    scenarios : dict
        ``{name: {"atoms": [...], "weights": [...], "gain": E[V_k - V_1]}}``.
    rows : tuple of PlanRow
    seed : int
    """

    votes: int
    alpha: float
    pilot_examples: int
    scenarios: dict
    rows: tuple[PlanRow, ...]
    seed: int
    schema_version: str = PLAN_SCHEMA_VERSION

    def to_dict(self) -> dict:
        return {"schema_version": self.schema_version, "votes": self.votes, "alpha": self.alpha,
                "pilot_examples": self.pilot_examples, "scenarios": self.scenarios,
                "rows": [r.to_dict() for r in self.rows], "seed": self.seed}

    @classmethod
    def from_dict(cls, d: dict) -> "StudyPlan":
        if str(d.get("schema_version")) != PLAN_SCHEMA_VERSION:
            raise InputError(f"schema_version={d.get('schema_version')!r}: this version reads {PLAN_SCHEMA_VERSION!r}")
        return cls(int(d["votes"]), float(d["alpha"]), int(d["pilot_examples"]), dict(d["scenarios"]),
                   tuple(PlanRow.from_dict(r) for r in d["rows"]), int(d["seed"]))


def _positive_ints(values, what: str, least: int) -> tuple[int, ...]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise InputError(f"{what}={v!r} must be an integer >= {least}")
        out.append(int(v))
    if not out:
        raise InputError(f"give at least one value of {what}")
    return tuple(out)


def _simulate(atoms: np.ndarray, weights: np.ndarray, n: int, k: int, rng: np.random.Generator) -> CellCounts:
    q = rng.choice(atoms, size=n, p=weights)
    return cell_counts(np.full(n, k), rng.binomial(k, q))


def plan_study(pilot, votes: int, *, alpha: float = 0.05, examples=(200, 500, 1000, 2000), calls=(2, 3, 5, 10),
               reps: int = 100, seed: int = 0, progress=None) -> StudyPlan:
    """Simulated width and probability of certifying a gain, per design (module docstring).

    Parameters
    ----------
    pilot : CellCounts or CallBits
        The pilot data.
    votes : int
        Budget k (>= 2) whose gain V_k - V_1 is to be certified.
    alpha : float
        1 - confidence level of the simulated studies' intervals.
    examples, calls : sequence of int
        Designs: every pair (N, K), N >= 2, K >= 2.
    reps : int
        Simulated studies per design and scenario (>= 10).
    seed : int
        Seed of NumPy's PCG64: the plan is reproducible.
    progress : callable, optional
        Called with (done, total) after each design.

    Returns
    -------
    StudyPlan
    """
    if isinstance(votes, bool) or not isinstance(votes, (int, np.integer)) or votes < 2:
        raise InputError(f"votes={votes!r} must be an integer >= 2 (the budget whose gain over one call is planned)")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"alpha={alpha!r} must be in (0, 1)")
    examples = _positive_ints(examples, "examples", 2)
    calls = _positive_ints(calls, "calls", 2)
    (reps,) = _positive_ints([reps], "reps", 10)
    cells = pilot if isinstance(pilot, CellCounts) else CellCounts.from_bits(pilot)
    gain = f"V{votes} - V1"
    reference = npmle(cells)
    worst = likelihood_bound(cells, gain, "lower", alpha=alpha, reference=reference)
    gain_of = parse_objective(gain)
    laws, scenarios = {}, {}
    for name, law in (("npmle", reference), ("least-favourable", worst)):
        atoms, weights = np.asarray(law.atoms, dtype=float), np.asarray(law.weights, dtype=float)
        laws[name] = (atoms, weights / weights.sum())  # sums to 1 up to rounding; rng.choice needs it exactly
        scenarios[name] = {"atoms": atoms.tolist(), "weights": weights.tolist(),
                           "gain": float(np.dot(weights, gain_of.evaluate(atoms)))}
    rng = np.random.default_rng(seed)
    rows, total, done = [], len(SCENARIOS) * len(examples) * len(calls), 0
    for name in SCENARIOS:
        atoms, weights = laws[name]
        for n in examples:
            for k in calls:
                widths, certified = [], 0
                for _ in range(reps):
                    iv_v, iv_gain = likelihood_intervals(_simulate(atoms, weights, n, k, rng), [votes, gain], alpha=alpha)
                    widths.append(iv_v.width)
                    certified += iv_gain.lower.value > 0
                p = certified / reps
                rows.append(PlanRow(name, n, k, float(np.mean(widths)), p, math.sqrt(p * (1 - p) / reps), reps))
                done += 1
                if progress is not None:
                    progress(done, total)
    return StudyPlan(int(votes), float(alpha), cells.n, scenarios, tuple(rows), int(seed))
