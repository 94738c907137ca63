"""The data of a fit and the Beta families: ``beta``, ``beta01`` (point masses at 0 and 1), ``beta2``.

Model (paper, eq. (hierarchy-main)): example i has a latent q_i ~ pi on [0, 1] and S_i | q_i ~
Bin(K_i, q_i). The data enter through the cells c = (K_c, S_c) with counts n_c, and a family
{pi_theta} is fitted by maximizing the binomial likelihood of every recorded call,

    l(theta) = sum_c n_c log p_c(theta),     p_c(theta) = E_{pi_theta}[Bin(S_c; K_c, Q)],

binomial coefficients kept (the same l as the NPMLE's, :func:`certify.likelihood.npmle`, so the
two compare in the guard). For Beta(a, b) the cell probability is the beta-binomial
C(K, S) B(a + S, b + K - S) / B(a, b) = C(K, S) (a)_S (b)_(K-S) / (a + b)_K (rising factorials,
summed in logs term by term: full precision at any shape), and so is the expectation of
every Bernstein basis polynomial: E[C(k, j) Q^j (1-Q)^(k-j)] is the beta-binomial probability of
(k, j). Every polynomial target -- V_k = sum_{j > k/2} of them, pass@k = 1 - p_(k, 0), any
objective in Bernstein form -- is therefore a finite sum of closed forms, exact at any degree.

A family is a small object with no state beyond its configuration: the optimizer's coordinates u
(bounded, log shapes and logits), the reported parameters, starting points from the moments of the
data, a closure ``model(data)`` returning log p_c and its Jacobian in u, sampling, and the
expectations of the targets.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, expit, gammaln, logsumexp

from .._errors import InputError
from .._objective import Objective
from ..likelihood import CellCounts
from ._tolerances import (
    LOGIT_MAX,
    MAX_CELLS,
    SHAPE_MAX,
    SHAPE_MIN,
    START_CONCENTRATION,
    START_EDGE_SHAPES,
    START_END_WEIGHT,
    START_MAIN_WEIGHT,
    START_MEAN_MARGIN,
    START_SPLIT_CONCENTRATION,
    START_WEIGHT_FLOOR,
)

__all__ = ["BetaFamily", "BetaMixture", "BetaWithEnds", "Family", "FitData", "Model"]

#: log p_c (shape (C,)) and its Jacobian d log p_c / du (shape (C, d)) at the coordinates u.
Model = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]

_LOG_SHAPE = (float(np.log(SHAPE_MIN)), float(np.log(SHAPE_MAX)))
_LOGIT = (-LOGIT_MAX, LOGIT_MAX)


@dataclass(frozen=True, eq=False)
class FitData:
    """Cells as the fits use them: float arrays K, S, n, log C(K, S), and the per-example calls.

    Attributes
    ----------
    calls, successes, counts : ndarray of float, shape (C,)
        K_c, S_c and n_c.
    log_binom : ndarray, shape (C,)
        log C(K_c, S_c).
    n : int
        N, the number of examples.
    max_calls : int
        K_max.
    """

    calls: np.ndarray
    successes: np.ndarray
    counts: np.ndarray
    log_binom: np.ndarray
    n: int
    max_calls: int

    @classmethod
    def from_cells(cls, cells: CellCounts) -> FitData:
        if cells.size > MAX_CELLS:
            raise InputError(
                f"{cells.size} cells (distinct K, S) exceed the limit of {MAX_CELLS}: the quadrature kernels "
                "hold cells x nodes doubles; group examples with similar K"
            )
        k = cells.calls.astype(float)
        s = cells.successes.astype(float)
        return cls(k, s, cells.multiplicity.astype(float), _log_binom(k, s), cells.n, cells.max_calls)

    def example_calls(self) -> np.ndarray:
        """K_i of every example (cells repeated by their counts), for simulating data like these."""
        return np.repeat(self.calls.astype(np.int64), self.counts.astype(np.int64))

    def moments(self) -> tuple[float, float]:
        """Unbiased estimates of E[Q] (mean of S/K) and E[Q^2] (mean of S(S-1)/(K(K-1)) over K >= 2)."""
        m1 = float(self.counts @ (self.successes / self.calls)) / self.n
        two = self.calls >= 2
        k, s, w = self.calls[two], self.successes[two], self.counts[two]
        m2 = float(w @ (s * (s - 1) / (k * (k - 1)))) / float(w.sum())
        return m1, m2

    def share(self, where: np.ndarray) -> float:
        """Share of the examples in the cells selected by a boolean mask."""
        return float(self.counts[where].sum()) / self.n


def _log_binom(k, s):
    return gammaln(k + 1) - gammaln(s + 1) - gammaln(k - s + 1)


def _rising(xs, top: int) -> tuple[np.ndarray, np.ndarray]:
    """log Gamma(x + j) - log Gamma(x) = sum_{i<j} log(x + i) and its x-derivative sum_{i<j} 1/(x + i), j = 0..top.

    One row per x of ``xs`` (shape (len(xs), top + 1) each), computed together. The beta-binomial
    probability is a ratio of such rising factorials; summed term by term they keep full
    relative precision at any shape, where betaln(a + s, b + k - s) - betaln(a, b) cancels
    (a = 4e4: 4e-11 relative error in a log-likelihood, measured against mpmath).
    """
    terms = np.asarray(xs, dtype=float)[:, None] + np.arange(top, dtype=float)
    zero = np.zeros((len(terms), 1))
    return (
        np.concatenate([zero, np.cumsum(np.log(terms), axis=1)], axis=1),
        np.concatenate([zero, np.cumsum(1.0 / terms, axis=1)], axis=1),
    )


def _beta_binomial_jet(k, s, log_binom, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """The log beta-binomial probability C(k, s) B(a + s, b + k - s) / B(a, b) (k and s integers, as
    floats) and its derivatives d/d(log a), d/d(log b), shape (C,) and (C, 2), from one table of
    rising factorials per shape (a fit needs both at every step)."""
    top = int(k.max())
    (ra, rb, rab), (da, db, dab) = _rising((a, b, a + b), top)
    ki, si = k.astype(np.int64), s.astype(np.int64)
    logp = log_binom + ra[si] + rb[ki - si] - rab[ki]
    return logp, np.column_stack([a * (da[si] - dab[ki]), b * (db[ki - si] - dab[ki])])


def _log_beta_binomial(k, s, log_binom, a: float, b: float) -> np.ndarray:
    """The log beta-binomial probability alone (:func:`_beta_binomial_jet`)."""
    return _beta_binomial_jet(k, s, log_binom, a, b)[0]


def _beta_expectation(obj: Objective, a: float, b: float) -> float:
    """E[g(Q)] for Q ~ Beta(a, b): majority terms and Bernstein part as beta-binomial sums."""
    total = 0.0
    for c, n in obj.majority:  # P_n = P(Bin(2n + 1, Q) >= n + 1)
        k = 2 * n + 1
        j = np.arange(n + 1, k + 1, dtype=float)
        kk = np.full_like(j, k)
        total += float(c) * float(np.exp(_log_beta_binomial(kk, j, _log_binom(kk, j), a, b)).sum())
    if len(obj.bernstein):
        d = len(obj.bernstein) - 1
        j = np.arange(d + 1, dtype=float)
        kk = np.full_like(j, d)
        coef = np.array([float(x) for x in obj.bernstein])
        total += float(coef @ np.exp(_log_beta_binomial(kk, j, _log_binom(kk, j), a, b)))
    return total


def _beta_pass(k: int, a: float, b: float) -> float:
    """E[1 - (1 - Q)^k] = 1 - B(a, b + k) / B(a, b) = 1 - (b)_k / (a + b)_k for Q ~ Beta(a, b)."""
    (rb, rab), _ = _rising((b, a + b), k)
    return float(-np.expm1(rb[k] - rab[k]))


def _beta_upper_half(a: float, b: float) -> float:
    """P(Q > 1/2) = I_{1/2}(b, a) for Q ~ Beta(a, b) (no atom at 1/2)."""
    return float(betainc(b, a, 0.5))


def _beta_from_moments(m1: float, m2: float, fallback: float = START_CONCENTRATION) -> tuple[float, float]:
    """Beta shapes matching E[Q] = m1 and E[Q^2] = m2 where those are a Beta's, else concentration ``fallback``."""
    m1 = min(max(m1, START_MEAN_MARGIN), 1 - START_MEAN_MARGIN)
    var = m2 - m1 * m1
    conc = (m1 - m2) / var if 0 < var < m1 * (1 - m1) else fallback
    conc = min(max(conc, 2 * SHAPE_MIN / min(m1, 1 - m1)), SHAPE_MAX / 2)
    return m1 * conc, (1 - m1) * conc


def _clip_shapes(*shapes: float) -> list[float]:
    return [float(np.log(min(max(x, SHAPE_MIN), SHAPE_MAX))) for x in shapes]


class Family(ABC):
    """A parametric family of latent laws: what the fits, the guard and the forecasts ask of it.

    Subclasses set ``name`` and ``names`` (the reported parameters) and implement the abstract
    methods; a family missing one cannot be made (``abc``), so no fit meets an unimplemented step.
    """

    name = ""
    names: tuple[str, ...] = ()
    degree: int | None = None

    @abstractmethod
    def bounds(self) -> list[tuple[float, float]]:
        """Box of the optimizer's coordinates u."""

    @property
    def size(self) -> int:
        """Number of free parameters."""
        return len(self.bounds())

    @abstractmethod
    def natural(self, u: np.ndarray) -> tuple[float, ...]:
        """The reported parameters (``names``) at u."""

    @abstractmethod
    def starts(self, data: FitData) -> list[np.ndarray]:
        """Starting points of the likelihood search."""

    @abstractmethod
    def model(self, data: FitData) -> Model:
        """u -> (log p_c, d log p_c / du) for the cells of ``data``."""

    @abstractmethod
    def sample(self, u: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws of Q from the law at u."""

    @abstractmethod
    def polynomial(self, u: np.ndarray, obj: Objective) -> float:
        """E[g(Q)] of a polynomial objective."""

    @abstractmethod
    def pass_at(self, u: np.ndarray, k: int) -> float:
        """pass@k = E[1 - (1 - Q)^k]."""

    @abstractmethod
    def upper_half(self, u: np.ndarray) -> float:
        """V_inf = P(Q > 1/2) + P(Q = 1/2) / 2."""

    def positive(self, u: np.ndarray) -> float:
        """pass@inf = P(Q > 0)."""
        return 1.0  # a law with a density has no atom at 0


class BetaFamily(Family):
    """Beta(a, b): the beta-binomial model of the peers' forecasts."""

    name = "beta"
    names = ("a", "b")

    def bounds(self):
        return [_LOG_SHAPE, _LOG_SHAPE]

    def natural(self, u):
        return float(np.exp(u[0])), float(np.exp(u[1]))

    def starts(self, data):
        m1, m2 = data.moments()
        return [np.array(_clip_shapes(*_beta_from_moments(m1, m2))), np.zeros(2)]

    def model(self, data):
        k, s, lb = data.calls, data.successes, data.log_binom

        def f(u):
            a, b = np.exp(u)
            return _beta_binomial_jet(k, s, lb, a, b)

        return f

    def sample(self, u, size, rng):
        a, b = np.exp(u)
        return rng.beta(a, b, size)

    def polynomial(self, u, obj):
        return _beta_expectation(obj, *np.exp(u))

    def pass_at(self, u, k):
        return _beta_pass(k, *np.exp(u))

    def upper_half(self, u):
        return _beta_upper_half(*np.exp(u))


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max())
    return e / e.sum()


class BetaWithEnds(Family):
    """w0 delta_0 + w1 delta_1 + (1 - w0 - w1) Beta(a, b): examples never or always solved.

    Coordinates u = (l0, l1, log a, log b) with weights softmax(l0, l1, 0).
    """

    name = "beta01"
    names = ("w0", "w1", "a", "b")

    def bounds(self):
        return [_LOGIT, _LOGIT, _LOG_SHAPE, _LOG_SHAPE]

    @staticmethod
    def _weights(u) -> np.ndarray:
        return _softmax(np.array([u[0], u[1], 0.0]))

    def natural(self, u):
        w = self._weights(u)
        return float(w[0]), float(w[1]), float(np.exp(u[2])), float(np.exp(u[3]))

    def starts(self, data):
        zero, full = data.share(data.successes == 0), data.share(data.successes == data.calls)
        mid = (data.successes > 0) & (data.successes < data.calls)
        m1, m2 = data.moments()
        if mid.any():
            w = data.counts[mid]
            k, s = data.calls[mid], data.successes[mid]
            m1 = float(w @ (s / k) / w.sum())
            two = k >= 2
            if two.any():
                m2 = float(w[two] @ (s[two] * (s[two] - 1) / (k[two] * (k[two] - 1))) / w[two].sum())
        out = []
        for w0, w1 in ((zero / 2, full / 2), (START_END_WEIGHT, START_END_WEIGHT)):
            w0, w1 = max(w0, START_WEIGHT_FLOOR), max(w1, START_WEIGHT_FLOOR)
            rest = max(1.0 - w0 - w1, START_WEIGHT_FLOOR)
            lo, hi = np.log(w0 / rest), np.log(w1 / rest)
            out.append(np.array([lo, hi, *_clip_shapes(*_beta_from_moments(m1, m2))]))
        return out

    def model(self, data):
        k, s, lb = data.calls, data.successes, data.log_binom
        at0 = np.where(s == 0, 0.0, -np.inf)
        at1 = np.where(s == k, 0.0, -np.inf)

        def f(u):
            w = self._weights(u)
            a, b = np.exp(u[2:])
            log_beta, dlog_beta = _beta_binomial_jet(k, s, lb, a, b)
            comp = np.column_stack([at0, at1, log_beta]) + np.log(w)
            logp = logsumexp(comp, axis=1)
            r = np.exp(comp - logp[:, None])  # responsibilities of the three components
            jac = np.empty((len(k), 4))
            jac[:, 0] = r[:, 0] - w[0]  # d log softmax_m / d l_j = [m = j] - w_j, averaged by r
            jac[:, 1] = r[:, 1] - w[1]
            jac[:, 2:] = r[:, 2:3] * dlog_beta
            return logp, jac

        return f

    def sample(self, u, size, rng):
        w = self._weights(u)
        a, b = np.exp(u[2:])
        which = rng.choice(3, size=size, p=w)
        q = rng.beta(a, b, size)
        return np.where(which == 0, 0.0, np.where(which == 1, 1.0, q))

    def polynomial(self, u, obj):
        w = self._weights(u)
        return float(
            w[0] * obj.evaluate(0.0) + w[1] * obj.evaluate(1.0) + w[2] * _beta_expectation(obj, *np.exp(u[2:]))
        )

    def pass_at(self, u, k):
        w = self._weights(u)
        return float(w[1] + w[2] * _beta_pass(k, *np.exp(u[2:])))

    def upper_half(self, u):
        w = self._weights(u)
        return float(w[1] + w[2] * _beta_upper_half(*np.exp(u[2:])))

    def positive(self, u):
        return float(1.0 - self._weights(u)[0])


class BetaMixture(Family):
    """w Beta(a1, b1) + (1 - w) Beta(a2, b2), reported with the component of smaller mean first.

    Coordinates u = (logit w, log a1, log b1, log a2, log b2). The likelihood is multimodal (and
    symmetric under swapping the components): four starts, from a split of the examples at the
    median of S/K, from the Beta of the moments with a component near 0 or near 1 added, and from
    two components at means 1/4 and 3/4.
    """

    name = "beta2"
    names = ("w", "a1", "b1", "a2", "b2")

    def bounds(self):
        return [_LOGIT] + [_LOG_SHAPE] * 4

    def natural(self, u):
        w = float(expit(u[0]))
        a1, b1, a2, b2 = (float(x) for x in np.exp(u[1:]))
        if a1 / (a1 + b1) > a2 / (a2 + b2):
            return 1.0 - w, a2, b2, a1, b1
        return w, a1, b1, a2, b2

    def starts(self, data):
        m1, m2 = data.moments()
        frac = data.successes / data.calls
        order = np.argsort(frac, kind="stable")
        cum = np.cumsum(data.counts[order]) / data.n
        low = np.zeros(len(frac), dtype=bool)
        low[order[cum <= 0.5]] = True
        out = []
        if low.any() and (~low).any():
            parts = [_group_moments(data, low), _group_moments(data, ~low)]
            w = data.share(low)
            out.append(np.array([np.log(w / (1 - w)), *_clip_shapes(*parts[0], *parts[1])]))
        main = _beta_from_moments(m1, m2)
        logit = float(np.log(START_MAIN_WEIGHT / (1 - START_MAIN_WEIGHT)))
        small, large = START_EDGE_SHAPES
        out.append(np.array([logit, *_clip_shapes(*main, small, large)]))
        out.append(np.array([logit, *_clip_shapes(*main, large, small)]))
        out.append(np.array([0.0, *_clip_shapes(1.0, 3.0, 3.0, 1.0)]))
        return out

    def model(self, data):
        k, s, lb = data.calls, data.successes, data.log_binom

        def f(u):
            w = float(expit(u[0]))
            a1, b1, a2, b2 = np.exp(u[1:])
            log1, dlog1 = _beta_binomial_jet(k, s, lb, a1, b1)
            log2, dlog2 = _beta_binomial_jet(k, s, lb, a2, b2)
            l1 = log1 + np.log(w)
            l2 = log2 + np.log1p(-w)
            logp = np.logaddexp(l1, l2)
            r1 = np.exp(l1 - logp)
            jac = np.empty((len(k), 5))
            jac[:, 0] = r1 - w  # d/d logit of log(w p1 + (1 - w) p2)
            jac[:, 1:3] = r1[:, None] * dlog1
            jac[:, 3:5] = (1 - r1)[:, None] * dlog2
            return logp, jac

        return f

    def sample(self, u, size, rng):
        w = float(expit(u[0]))
        a1, b1, a2, b2 = np.exp(u[1:])
        first = rng.random(size) < w
        return np.where(first, rng.beta(a1, b1, size), rng.beta(a2, b2, size))

    def _mix(self, u, fn) -> float:
        w = float(expit(u[0]))
        a1, b1, a2, b2 = np.exp(u[1:])
        return float(w * fn(a1, b1) + (1 - w) * fn(a2, b2))

    def polynomial(self, u, obj):
        return self._mix(u, lambda a, b: _beta_expectation(obj, a, b))

    def pass_at(self, u, k):
        return self._mix(u, lambda a, b: _beta_pass(k, a, b))

    def upper_half(self, u):
        return self._mix(u, _beta_upper_half)


def _group_moments(data: FitData, where: np.ndarray) -> tuple[float, float]:
    """Beta shapes from the moments of the examples in some cells (START_SPLIT_CONCENTRATION without K >= 2)."""
    k, s, w = data.calls[where], data.successes[where], data.counts[where]
    m1 = float(w @ (s / k) / w.sum())
    two = k >= 2
    if not two.any():
        return _beta_from_moments(m1, -1.0, fallback=START_SPLIT_CONCENTRATION)
    m2 = float(w[two] @ (s[two] * (s[two] - 1) / (k[two] * (k[two] - 1))) / w[two].sum())
    return _beta_from_moments(m1, m2, fallback=START_SPLIT_CONCENTRATION)
