"""The answer model's goodness-of-fit guard: its fit to the answer patterns against the saturated fit.

The statistic
-------------
The model's fit is the maximum-likelihood law pi-hat on the grid (:mod:`._answer_model`); the
saturated fit gives each pattern of K calls its observed share among the examples with K calls.
Their deviance

    D = 2 sum_c n_c log( n_c / (N_K(c) p_c(pi-hat)) )

is small when the model describes the patterns and large when it cannot (a pattern it makes
rare is common, or the other way). D has no usable chi-square reference: most patterns are seen
once or twice (sparse cells), and pi-hat is a nonparametric maximum whose fit is partly on the
boundary of its simplex.

The calibration
---------------
A parametric bootstrap from pi-hat: B draws, each N examples with the recorded numbers of calls,
each example's (q, m, L) drawn from pi-hat and its calls from that law
(:func:`._answer_family.simulate_patterns`); pi-hat is refitted on each draw (the same grid, the
constrained Newton method started from pi-hat, solved to the same tolerance as the fit itself)
and its deviance D*_b computed the same way. The p-value is

    p = (1 + #{b : D*_b >= D - MODEL_GUARD_TIE}) / (B + 1),

and the model is rejected when p <= alpha. B = max(MODEL_GUARD_DRAWS, ceil(1/alpha) - 1): 19 at
alpha = 0.05, when the guard rejects exactly when D exceeds every draw. When pi-hat is the true
law the ranks of D among the D*_b are uniform and the level is floor(alpha (B + 1)) / (B + 1) <=
alpha exactly (1/20 at alpha = 0.05); otherwise it is the usual parametric bootstrap's
approximation, and a liberal one here: measured over 50 data sets per law
(``benchmarks/bench_answer_model_diffuse.py``), it rejected laws of the family in 0-12 % of them
at alpha = 0.05 (10-12 % for one law shared by every example, 0-2 % for laws that vary across
examples), so a true model goes without a forecast somewhat more often than alpha says. It
rejected laws outside the family in 0-20 % (Zipf and geometric wrong answers at 2000 x 10: 12 %
and 20 %): a mixture over the family matches most patterns of a few calls, and there the forecast
intervals still held the truth in every data set measured. The draws come from a generator
seeded with the data's patterns and counts, so the guard is a deterministic function of the data.

The work is B refits: each costs about as much as the fit (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..likelihood import FiniteModel
from ._answer_family import pattern_kernel, simulate_patterns
from ._tolerances import MODEL_GUARD_DRAWS, MODEL_GUARD_TIE

__all__ = ["PatternGuard", "pattern_guard"]


@dataclass(frozen=True)
class PatternGuard:
    """The guard's result (module docstring).

    Attributes
    ----------
    deviance : float
        D of the recorded patterns.
    p_value : float
        The bootstrap p-value.
    draws : int
        B.
    largest : float
        The largest D*_b: D beyond it is "by how much" the model is rejected.
    """

    deviance: float
    p_value: float
    draws: int
    largest: float

    def rejected(self, alpha: float) -> bool:
        return self.p_value <= alpha

    def text(self, alpha: float) -> str:
        verdict = f"p = {self.p_value:.3f} <= {alpha:g}" if self.rejected(alpha) else f"p = {self.p_value:.3f}"
        return (
            f"answer patterns: deviance {self.deviance:.1f} against the saturated fit, the model's own "
            f"draws at most {self.largest:.1f} ({verdict}, parametric bootstrap of {self.draws} draws)"
        )


class _Zero:
    """The target g = 0 in the interface :meth:`FiniteModel.solve` reads (``values`` and ``jet``, as
    :meth:`FiniteModel.npmle`'s own target): its solution is the maximum-likelihood law, here started
    from pi-hat, which a draw from pi-hat moves little (a cold start took up to ten times as long)."""

    __slots__ = ("values",)

    def __init__(self, points: int):
        self.values = np.zeros(points)

    def jet(self, atoms, piece, derivatives=(0,)):
        return [self.values[atoms.astype(np.intp)]]


def _saturated(patterns: np.ndarray, counts: np.ndarray) -> float:
    """The saturated log-likelihood: each pattern of K calls at its share of the examples with K calls."""
    calls = patterns[:, 0]
    total = np.zeros(len(counts))
    for k in np.unique(calls):
        at = calls == k
        total[at] = counts[at].sum()
    return float(counts @ np.log(counts / total))


def _deviance(model: FiniteModel, loglik: float, patterns: np.ndarray, counts: np.ndarray) -> float:
    # loglik is in the units of the model's scaled kernel: its offset restores the log-likelihood
    return max(2.0 * (_saturated(patterns, counts) - (loglik + model.offset)), 0.0)


def _seed(patterns: np.ndarray, counts: np.ndarray) -> np.random.SeedSequence:
    """A seed from the data (SeedSequence hashes every word), so that the guard is a function of the data."""
    return np.random.SeedSequence(np.concatenate([patterns.ravel(), counts]).astype(np.int64).tolist())


def pattern_guard(
    model: FiniteModel,
    hat,
    patterns: np.ndarray,
    counts: np.ndarray,
    grid: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    alpha: float,
) -> PatternGuard:
    """The guard of a fitted answer model (module docstring).

    Parameters
    ----------
    model : FiniteModel
        The patterns' model on the grid, ``hat`` = ``model.npmle()`` its fit.
    patterns, counts : ndarray
        The recorded patterns (:func:`._answer_family.answer_patterns`) and their examples.
    grid : (q, m, L, neighbours)
        The grid of ``model`` (:func:`._answer_family.model_grid`).
    alpha : float
        The level: B = max(MODEL_GUARD_DRAWS, ceil(1/alpha) - 1) draws.
    """
    draws = max(MODEL_GUARD_DRAWS, math.ceil(1.0 / alpha) - 1)  # 1 / (B + 1) <= alpha: p can reach alpha
    law, loglik = hat
    observed = _deviance(model, loglik, patterns, counts)
    q, m, bins, neighbours = grid
    atoms = law.atoms.astype(np.intp)
    weights = law.weights / law.weights.sum()
    calls = np.repeat(patterns[:, 0], counts)
    width = patterns.shape[1] - 2
    rng = np.random.default_rng(_seed(patterns, counts))
    zero = _Zero(len(q))
    # kernel rows of the patterns met so far, kept for this guard only: the draws repeat most patterns
    rows: dict[tuple, np.ndarray] = {}
    replicas = np.empty(draws)
    for b in range(draws):
        pick = atoms[rng.choice(len(atoms), size=len(calls), p=weights)]
        drawn, drawn_counts = np.unique(
            simulate_patterns(rng, calls, q[pick], m[pick], bins[pick], width), axis=0, return_counts=True
        )
        keys = [tuple(r) for r in drawn.tolist()]
        new = [i for i, key in enumerate(keys) if key not in rows]
        if new:
            for i, row in zip(new, pattern_kernel(drawn[new], q, m, bins)):
                rows[keys[i]] = row
        refit = FiniteModel(np.array([rows[key] for key in keys]), drawn_counts, neighbours)
        # every drawn pattern has positive probability under pi-hat's atoms: a valid start
        _, level, _ = refit.solve(zero, 1.0, law.copy())  # type: ignore[arg-type]  # solve reads .values, .jet
        replicas[b] = _deviance(refit, level, drawn, drawn_counts)
    exceed = int(np.sum(replicas >= observed - MODEL_GUARD_TIE))
    return PatternGuard(observed, (1 + exceed) / (draws + 1), draws, float(replicas.max()))
