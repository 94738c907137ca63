"""A model of the wrong answers: plurality accuracy beyond the recorded calls, labelled model-based.

Why a model
-----------
Beyond the recorded calls, the plurality accuracy of k calls depends on how each example's wrong
answers split, which K calls identify only through moments of degree K. Valid for every answer
distribution is the envelope [min E V_k(Q), max E U_k(Q)] of :mod:`._aggregate_intervals`
(``proofs/plurality_bounds.py``): all wrong answers the same, or all different. It is wide
(0.25-0.68 for 21 calls, ``benchmarks/RESULTS.md``) because it ignores what the recorded wrong
answers show. This module uses them, at the price of an assumption, and says so: its interval is
a **model-based estimate, never certified**.

The model
---------
Given example i, each call is, independently,

* correct with probability q,
* the example's one *dominant* wrong answer with probability m,
* otherwise (probability r = 1 - q - m) an answer no other call gives: a rare wrong answer or
  no answer, both counted as a vote of its own (a lone wrong vote can tie a lone correct one;
  an abstention could not, so counting it as a vote can only lower the plurality accuracy),

and (q, m) ~ pi, a law on the triangle {q, m >= 0, q + m <= 1}, left unspecified. A
distribution with one dominant wrong answer and a diffuse rest is exact under the model;
several wrong answers of similar weight are not.

**Data.** Example i's calls reduce to (K, c, d): c correct calls and d calls on its most
frequent wrong answer when that answer was given at least twice, else d = 0 (under the model a
wrong answer given twice is the dominant one; a lone wrong answer or abstention is an r-vote,
or the dominant answer given once). A second repeated wrong answer, which the model does not
produce, is counted among the r-votes, which never accumulate: where such an answer could
outvote the correct one, the estimate is too high. (Merging every repeated wrong answer into
the dominant one instead errs the other way, and by more: with 20 calls and three wrong answers
it pushed the estimate of 21 calls to the bit majority, 0.09 below the truth and outside its
interval.) ``benchmarks/RESULTS.md`` measures the coverage under laws the model does not
describe. The patterns' probabilities:

    d >= 2:  P(K, c, d) = K! / (c! d! s!) q^c m^d r^s,            s = K - c - d,
    d = 0:   P(K, c, 0) = C(K, c) q^c (r^w + w m r^(w-1)),        w = K - c,

(d = 0 holds both "dominant answer absent" and "given once"; d = 1 cannot occur). They sum to 1
over the patterns of each K (tested).

**Objective.** The plurality accuracy of k calls under (q, m, r), with uniform tie-breaking,
over the counts (x, y, z) of correct, dominant and r-votes:

    g_k(q, m) = sum_{x + y + z = k} k! / (x! y! z!) q^x m^y r^z f(x, y),
    f = 1 if x >= 2, x > y;  1/2 if x = y >= 2;  1/k if x = 1, y <= 1 (every answer once);  0 else,

and g_inf(q, m) = 1{q > m} + 1{q = m > 0} / 2 (the counts' shares converge to (q, m); the r-votes
never accumulate). At m = 1 - q (r = 0) g_k is the fair-tie bit majority V_k, at m = 0 it is
U_k(q) = P(Bin(k, q) >= 2) + P(Bin(k, q) = 1) / k, the two ends of the valid envelope; g_3 is
V_3(q) + q((1 - q)^2 - m^2), the exact plurality of three calls with collision m^2. These
identities, g_k against its definition over every call sequence, and the pattern probabilities
are checked in exact arithmetic by ``proofs/answer_model.py``.

**Interval.** pi on the grid {(i, j) / G : i + j <= G} (G = ``MODEL_GRID``), the likelihood of the
patterns and the likelihood-ratio set of :mod:`certify.likelihood._finite` at the projection
level: c from chi2_df with df the identified dimension of the patterns, the number of possible
patterns of K_max calls minus 1 (K + K(K - 1)/2: for one K the pattern polynomials are linearly
independent; with ragged counts the smaller K's patterns add no dimension beyond the degree-K_max
forms, (K + 1)(K + 2)/2 - 1, which is then used), in the small-sample F-form. The interval covers
the grid model's value with asymptotic probability at least 1 - alpha *if the model holds*; the
grid adds a discretisation of pi of step 1/G.

Calls used: the first K' calls of each example (the calls are i.i.d. given the example, so these
are a smaller sample of the same model), K' the largest number up to ``MODEL_MAX_CALLS`` with
at least ``MODEL_EXAMPLES_PER_DIMENSION`` examples per identified dimension. More calls than
that make the projection's chi-square (and its small-sample form) so large that the interval is
[0, 1] and its solves slow: with 100 examples x 20 calls (df = 210) one data set took up to
220 s for the interval [0, 1]; with the first 6 calls (df = 21) it is informative. Patterns grow
as K^2 / 2, and CNM's quadratic programs with them: at 10,000 examples x 40 calls the model took
20 s, with the first 20 calls 2 s. The kernel is cells x grid points, cells <= sum over distinct K of
K(K - 1)/2 + K + 1 <= 231 x (number of distinct K).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from .._objective import MAX_EXPANDED_DEGREE, V_INF, parse_vote_budgets
from .._validation import check_alpha
from ..likelihood import FiniteModel, critical_value, finite_interval
from ._aggregates import aggregate_estimates
from ._plurality import MISSING, _codes_array, answer_counts
from ._tolerances import MODEL_EXAMPLES_PER_DIMENSION, MODEL_GRID, MODEL_MAX_CALLS

__all__ = ["ModelEstimate", "answer_patterns", "model_plurality", "pattern_kernel", "plurality_model"]

MODEL_METHOD = (
    "model-based estimate, not certified: each example's calls are correct (q), its one dominant wrong "
    "answer (m) or a vote no other call gives (rare answers and abstentions), with (q, m) ~ pi on a "
    "grid of step 1/{grid}; likelihood ratio over pi"
)


@dataclass(frozen=True)
class ModelEstimate:
    """The answer model's plurality accuracy of k calls (module docstring): not certified.

    Attributes
    ----------
    estimate : float
        g_k under the model's maximum-likelihood law on the grid.
    lower, upper : float
        The likelihood-ratio interval at the projection level (valid if the model holds).
    method, calibration : str
    alpha : float
    check : str
        The model against the recorded answers where both speak: its plurality accuracy of
        k0 = min_i K_i calls beside the U-statistic's interval (identified, model-free), and
        whether it falls inside; empty with one call per example.
    """

    estimate: float
    lower: float
    upper: float
    method: str
    calibration: str
    alpha: float
    check: str = ""

    def to_dict(self) -> dict:
        return {
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "method": self.method,
            "calibration": self.calibration,
            "alpha": self.alpha,
            "check": self.check,
            "certified": False,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ModelEstimate:
        return cls(
            float(d["estimate"]),
            float(d["lower"]),
            float(d["upper"]),
            str(d["method"]),
            str(d["calibration"]),
            float(d["alpha"]),
            str(d.get("check", "")),
        )


def answer_patterns(codes) -> tuple[np.ndarray, np.ndarray]:
    """The distinct patterns (K, c, d) of the examples and how many examples have each.

    Parameters
    ----------
    codes : array_like of int, shape (n, K_max)
        Answer codes (:mod:`certify.stats._plurality`).

    Returns
    -------
    patterns : ndarray of int, shape (cells, 3)
        K calls, c correct, d calls on the most frequent wrong answer when it was given at least
        twice, else 0 (module docstring).
    counts : ndarray of int, shape (cells,)
    """
    calls, correct, _, wrong = answer_counts(codes)
    top = wrong[:, 0] if wrong.shape[1] else np.zeros(len(calls), dtype=np.int64)
    keys = np.column_stack([calls, correct, np.where(top >= 2, top, 0)]).astype(np.int64)
    patterns, counts = np.unique(keys, axis=0, return_counts=True)
    return patterns, counts


def model_grid(size: int = MODEL_GRID) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points (q, m) = (i, j) / size with i + j <= size, and each point's 8 grid neighbours (-1: none)."""
    i, j = np.meshgrid(np.arange(size + 1), np.arange(size + 1), indexing="ij")
    keep = i + j <= size
    index = np.full(i.shape, -1, dtype=np.intp)
    index[keep] = np.arange(int(keep.sum()))
    pi, pj = i[keep], j[keep]
    steps = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
    neighbours = np.full((len(pi), len(steps)), -1, dtype=np.intp)
    for col, (a, b) in enumerate(steps):
        ni, nj = pi + a, pj + b
        inside = (ni >= 0) & (nj >= 0) & (ni <= size) & (nj <= size)
        neighbours[inside, col] = index[ni[inside], nj[inside]]
    return pi / size, pj / size, neighbours


def _rest(q: np.ndarray, m: np.ndarray) -> np.ndarray:
    return np.clip(1.0 - q - m, 0.0, 1.0)


def pattern_kernel(patterns: np.ndarray, q: np.ndarray, m: np.ndarray) -> np.ndarray:
    """P(pattern | q, m) for each pattern (rows) and point (columns), module docstring."""
    r = _rest(q, m)
    out = np.empty((len(patterns), len(q)))
    for row, (k, c, d) in enumerate(np.asarray(patterns, dtype=np.int64).tolist()):
        w = k - c
        if d == 0:
            rest = r**w + (w * m * r ** (w - 1) if w else 0.0)
            out[row] = math.comb(k, c) * q**c * rest
        else:
            s = w - d
            out[row] = (
                math.factorial(k) // (math.factorial(c) * math.factorial(d) * math.factorial(s)) * q**c * m**d * r**s
            )
    return out


def model_plurality(votes, q: np.ndarray, m: np.ndarray) -> np.ndarray:
    """g_k(q, m), the plurality accuracy of k calls under the model (module docstring), at each point."""
    q, m = np.asarray(q, dtype=float), np.asarray(m, dtype=float)
    if votes is V_INF:
        return np.where(q > m, 1.0, np.where((q == m) & (q > 0), 0.5, 0.0))
    k = int(votes)
    r = _rest(q, m)
    total = np.zeros(np.broadcast(q, m).shape)
    for x in range(1, k + 1):
        for y in range(0, min(x, k - x) + 1):
            if x == 1:
                score = 1.0 / k if y <= 1 else 0.0
            else:
                score = 1.0 if x > y else 0.5
            z = k - x - y
            weight = math.factorial(k) // (math.factorial(x) * math.factorial(y) * math.factorial(z))
            total += score * weight * q**x * m**y * r**z
    return total


def _model_df(calls: np.ndarray) -> int:
    """The identified dimension of the patterns of examples with these numbers of calls (module docstring)."""
    top = int(calls.max())
    if np.all(calls == top):
        return max(top + top * (top - 1) // 2, 1)
    return (top + 1) * (top + 2) // 2 - 1


def plurality_model(codes, budgets, alpha: float = 0.05) -> dict:
    """{k: ModelEstimate} for each budget (an int or :data:`certify.V_INF`), from at most MODEL_MAX_CALLS calls per
    example.

    Raises
    ------
    InputError
        Unusable codes, budgets (a count above MAX_EXPANDED_DEGREE = 512: its polynomial costs
        k^2 / 2 terms) or alpha; a pattern the model cannot produce at any grid point (never, for
        valid codes).
    """
    alpha = check_alpha(alpha)
    budgets = parse_vote_budgets(budgets)
    for k in budgets:
        if k is not V_INF and k > MAX_EXPANDED_DEGREE:
            raise InputError(
                f"votes={k} must be at most {MAX_EXPANDED_DEGREE} for the answer model (its polynomial "
                f"has degree k), or inf"
            )
    codes = _codes_array(codes)
    calls = (codes != MISSING).sum(axis=1)
    recorded = int(calls.max())
    # the calls are i.i.d. given the example, so the first `used` calls of each are a valid
    # (smaller) sample of the same model; -2 pads only the end of a row
    used = min(recorded, MODEL_MAX_CALLS)
    while used > 2 and MODEL_EXAMPLES_PER_DIMENSION * _model_df(np.minimum(calls, used)) > len(calls):
        used -= 1
    truncated = used < recorded
    codes = codes[:, :used]
    patterns, counts = answer_patterns(codes)
    q, m, neighbours = model_grid()
    model = FiniteModel(pattern_kernel(patterns, q, m), counts, neighbours)
    df = _model_df(patterns[:, 0])
    n = int(counts.sum())
    drop = critical_value(alpha, df, n=n, dim=df)
    calibration = (
        f"projection: chi2_{df} (the patterns' identified dimension), small-sample F-form, c = {drop:.4f}; "
        f"asymptotic, and valid only if the model holds"
    )
    method = MODEL_METHOD.format(grid=MODEL_GRID)
    hat = model.npmle()
    check = _check(codes, hat[0], q, m, int(patterns[:, 0].min()), alpha)
    if truncated:
        calibration += f"; from the first {used} calls of each example"
    out = {}
    for k in budgets:
        estimate, lower, upper = finite_interval(model, model_plurality(k, q, m), drop, hat)
        out[k] = ModelEstimate(estimate, lower, upper, method, calibration, float(alpha), check)
    return out


def _check(codes, hat, q: np.ndarray, m: np.ndarray, fewest: int, alpha: float) -> str:
    """The model's plurality of ``fewest`` calls (identified) beside the U-statistic's interval."""
    if fewest < 2:
        return ""
    (row,) = aggregate_estimates(codes, [fewest], aggregate="plurality", alpha=alpha, baseline=None)
    atoms = hat.atoms.astype(np.intp)
    value = float(model_plurality(fewest, q[atoms], m[atoms]) @ hat.weights)
    if row.lower is None or row.upper is None:  # both None together (fewer than 2 examples)
        return ""
    inside = row.lower <= value <= row.upper
    verdict = "consistent" if inside else "INCONSISTENT: the model does not describe these answers"
    return (
        f"at {fewest} calls the model gives {value:.4f}; the recorded answers {row.estimate:.4f} "
        f"[{row.lower:.4f}, {row.upper:.4f}] ({1 - alpha:.0%}, model-free): {verdict}"
    )
