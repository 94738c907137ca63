"""Randomized mixtures of policies, computed exactly from the recorded correctness bits.

A randomized policy picks component c with probability w_c, independently on every
call (paper Section 6 "Policy design consequences", Appendix "Randomized mixture
policies"). With the selector weights fixed it is again a conditional-i.i.d. solver
with its own latent Q_mix, so it goes through the same two-call pipeline
(Proposition 3.1, Theorems 4.1-4.3, Section 4.4 projected regions).

**Exact empirical vote accuracy.** Example i has S_ic correct calls among the K
recorded calls of component c. An m-vote mixture decision is modelled without any
simulation as:

1. the allocation a = (a_1, ..., a_C) of the m calls across components is
   Multinomial(m; w) (every call picks its component independently);
2. within component c, the a_c calls are a uniformly random a_c-subset of its K
   recorded calls, so its number of correct answers is Hypergeometric(K, S_ic, a_c);
   the components are independent given the allocation.

So h_m(i; w) = sum_a Mult(a; m, w) M_i(a), where M_i(a) is the probability that the
sum of the independent hypergeometric counts is a strict majority (fair coin-flip
ties for even m, as in :func:`certify.stats.per_example_vote_accuracy`). M_i(a) does
not depend on w, so a whole weight grid costs one matrix product. With one component
(w = e_c) this is exactly the hypergeometric estimate of that policy; given the latent
laws it is unbiased for the mixture's V (the U-statistic argument of
:mod:`certify.stats._empirical`, applied per component).

**Moments** from the same arrays: the two-call law of the mixture gives, per example,
mu_i = sum_c w_c S_ic / K and
nu_i = sum_{c != d} w_c w_d (S_ic/K)(S_id/K) + sum_c w_c^2 S_ic (S_ic - 1) / (K (K - 1)),
the probability that two mixture calls are both correct (two calls of the same
component are two distinct recorded calls). Their means are (mu-hat, nu-hat), their
sample covariance the Sigma-hat of Section 4.4, and rho-hat follows eq. (rho-main).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .._bounds import sharp_bound_arrays
from .._calls import CallBits
from .._distributions import hypergeometric_pmf
from .._errors import InputError
from .._moments import rho_from_nu
from .._validation import check_votes
from ..certificates import Certificate, certify_bound
from ._estimators import TwoCallEstimates

__all__ = [
    "MixtureData",
    "Mixture",
    "MixtureSearch",
    "MixtureOptimum",
    "mixture_data",
    "allocations",
    "allocation_probabilities",
    "allocation_majority",
    "per_example_mixture_accuracy",
    "per_example_mixture_moments",
    "mixture_estimates",
    "evaluate_mixture",
    "weight_grid",
    "search_mixtures",
    "optimize_mixture",
]


@dataclass(frozen=True, eq=False)
class MixtureData:
    """Success counts of several policies on the same examples.

    Attributes
    ----------
    names : tuple of str
        Component (policy) names, in column order.
    example_ids : tuple of str
        The common examples, in the first policy's order.
    successes : ndarray of int, shape (n, C)
        S_ic, correct answers among the first ``calls`` calls.
    calls : int
        K, recorded calls used per (example, component).
    dataset : str
        Label of the data set.
    """

    names: tuple[str, ...]
    example_ids: tuple[str, ...]
    successes: np.ndarray
    calls: int
    dataset: str = ""

    @property
    def n(self) -> int:
        return len(self.example_ids)

    def subset(self, names) -> MixtureData:
        """The same examples restricted to the components ``names`` (in that order)."""
        idx = [self._index(c) for c in names]
        return MixtureData(tuple(names), self.example_ids, self.successes[:, idx], self.calls, self.dataset)

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"component {name!r} not among {', '.join(self.names)}") from None


def mixture_data(groups: dict, dataset: str = "") -> MixtureData:
    """Align several policies' bits on their common example ids.

    Parameters
    ----------
    groups : dict
        policy name -> :class:`certify.readers.CallBits` on the same data set.
    dataset : str
        Label kept with the result.

    Returns
    -------
    MixtureData
        K is the smallest call count any example has in any policy (ragged-count rule).
    """
    if not groups:
        raise InputError("a mixture needs at least one policy")
    items = list(groups.items())
    for name, bits in items:
        if not isinstance(bits, CallBits):
            raise InputError(f"policy {name!r}: expected CallBits, got {type(bits).__name__}")
    common = set(items[0][1].example_ids)
    for _, bits in items[1:]:
        common &= set(bits.example_ids)
    ids = tuple(x for x in items[0][1].example_ids if x in common)
    if len(ids) < 2:
        raise InputError(f"the policies {', '.join(groups)} share {len(ids)} example id(s); mixtures need at least 2")
    k = min(bits.calls for _, bits in items)
    cols = []
    for _, bits in items:
        pos = {x: i for i, x in enumerate(bits.example_ids)}
        rows = [pos[x] for x in ids]
        cols.append(np.nansum(bits.bits[rows, :k], axis=1).astype(int))
    return MixtureData(tuple(groups), ids, np.stack(cols, axis=1), int(k), dataset)


def allocations(votes: int, components: int) -> np.ndarray:
    """Every allocation (a_1, ..., a_C) of ``votes`` calls to ``components`` components, shape (A, C)."""
    if votes < 0 or components < 1:
        raise InputError(f"allocations of {votes} calls to {components} components are undefined")
    out = [c for c in itertools.product(range(votes + 1), repeat=components) if sum(c) == votes]
    return np.array(out, dtype=int).reshape(-1, components)


def allocation_probabilities(weights, alloc: np.ndarray) -> np.ndarray:
    """Multinomial probabilities Mult(a; m, w) of each allocation, for one or many weight vectors.

    Parameters
    ----------
    weights : array_like, shape (C,) or (W, C)
    alloc : ndarray, shape (A, C)

    Returns
    -------
    ndarray, shape (A,) or (W, A)
    """
    w = np.asarray(weights, dtype=float)
    m = int(alloc[0].sum())
    coef = np.array([math.factorial(m) / math.prod(math.factorial(int(x)) for x in a) for a in alloc])
    # 0 ** 0 = 1 in numpy, as the multinomial needs.
    powers = np.prod(np.power(w[..., None, :], alloc), axis=-1)
    return coef * powers


def _majority_of(dist: np.ndarray, votes: int) -> np.ndarray:
    """P(strict majority), fair ties for even budgets, from success distributions (n, votes + 1)."""
    win = dist[:, votes // 2 + 1 :].sum(axis=1)
    if votes % 2 == 0:
        win = win + 0.5 * dist[:, votes // 2]
    return win


def allocation_majority(data: MixtureData, votes: int) -> tuple[np.ndarray, np.ndarray]:
    """M_i(a): majority probability of every example under every allocation (module docstring).

    Returns
    -------
    alloc : ndarray, shape (A, C)
    table : ndarray, shape (n, A)
    """
    m = _check_votes(votes, data)
    alloc = allocations(m, data.successes.shape[1])
    k, s = data.calls, data.successes
    pmfs = {}  # (component, a) -> (n, a + 1) hypergeometric pmf of correct answers among a drawn calls
    table = np.empty((data.n, len(alloc)))
    for j, a in enumerate(alloc):
        dist = np.ones((data.n, 1))
        for c, ac in enumerate(a):
            if ac == 0:
                continue
            if (c, ac) not in pmfs:
                pmfs[c, ac] = hypergeometric_pmf(np.full(data.n, k), s[:, c], ac)
            p = pmfs[c, ac]
            new = np.zeros((data.n, dist.shape[1] + ac))
            for x in range(ac + 1):  # convolution of independent counts
                new[:, x : x + dist.shape[1]] += dist * p[:, x : x + 1]
            dist = new
        table[:, j] = _majority_of(dist, m)
    return alloc, table


def _check_votes(votes, data: MixtureData) -> int:
    return check_votes(
        votes, data.calls, f"votes={votes} exceeds the K = {data.calls} recorded calls per example and component"
    )


def _check_weights(weights, c: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if (
        w.shape[-1:] != (c,)
        or not np.all(np.isfinite(w))
        or np.any(w < 0)
        or not np.allclose(w.sum(axis=-1), 1.0, atol=1e-9)
    ):
        raise InputError(f"weights={np.asarray(weights).tolist()!r} must be {c} non-negative numbers summing to 1")
    return w


def per_example_mixture_accuracy(data: MixtureData, weights, votes: int) -> np.ndarray:
    """h_m(i; w) for every example (exact; module docstring). Shape (n,) or (n, W) for (W, C) weights."""
    w = _check_weights(weights, data.successes.shape[1])
    alloc, table = allocation_majority(data, votes)
    return table @ allocation_probabilities(w, alloc).T


def per_example_mixture_moments(data: MixtureData, weights) -> tuple[np.ndarray, np.ndarray]:
    """Per-example (mu_i, nu_i) of the mixture's two-call law (module docstring)."""
    if data.calls < 2:
        raise InputError("mixture moments need K >= 2 calls per example and component")
    w = _check_weights(weights, data.successes.shape[1])
    k = data.calls
    p = data.successes / k
    same = data.successes * (data.successes - 1) / (k * (k - 1))
    mu = p @ w
    nu = mu * mu - (p * p) @ (w * w) + same @ (w * w)
    return mu, nu


def mixture_estimates(data: MixtureData, weights) -> TwoCallEstimates:
    """Two-call estimates of a mixture (Section 4.4) from the per-example X_i = (mu_i, nu_i).

    ``pair_counts`` holds the expected numbers of examples whose two calls are both
    right, disagree, both wrong, rounded to integers (the mixture has no single
    recorded pair per example).
    """
    mu_i, nu_i = per_example_mixture_moments(data, weights)
    x = np.stack([mu_i, nu_i], axis=1)
    mu, nu = (float(v) for v in x.mean(axis=0))
    cov = np.cov(x, rowvar=False, ddof=1)
    n11 = int(round(float(nu_i.sum())))
    n00 = int(round(float((1 - 2 * mu_i + nu_i).sum())))
    return TwoCallEstimates(
        n=data.n,
        mu=mu,
        nu=nu,
        rho=float(rho_from_nu(mu, nu)),
        cov=((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1]))),
        pair_counts=(n11, data.n - n11 - n00, n00),
    )


@dataclass(frozen=True)
class Mixture:
    """One randomized mixture policy with its moments and exact empirical vote accuracies.

    Attributes
    ----------
    dataset : str
    components : tuple of str
    weights : tuple of float
    mu, nu, rho : float
        Mixture moments (module docstring; eq. (rho-main)).
    votes : tuple of int
        Budgets evaluated (always including 1).
    accuracy : tuple of float
        Exact empirical V for each budget in ``votes``.
    se : tuple of float
        Example-level standard errors of ``accuracy``.
    """

    dataset: str
    components: tuple[str, ...]
    weights: tuple[float, ...]
    mu: float
    nu: float
    rho: float
    votes: tuple[int, ...]
    accuracy: tuple[float, ...]
    se: tuple[float, ...]

    @property
    def label(self) -> str:
        """``0.35*a + 0.65*b`` (a single component is just its name)."""
        live = [(c, w) for c, w in zip(self.components, self.weights) if w > 0]
        if len(live) == 1:
            return live[0][0]
        return " + ".join(f"{w:.2f}*{c}" for c, w in live)

    def value(self, votes: int) -> float:
        """Empirical V at ``votes`` calls."""
        return self.accuracy[self.votes.index(votes)]

    def gain(self, votes: int) -> float:
        """Empirical V_votes - V(1 call)."""
        return self.value(votes) - self.value(1)

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "components": list(self.components),
            "weights": list(self.weights),
            "label": self.label,
            "mu": self.mu,
            "nu": self.nu,
            "rho": self.rho,
            "votes": list(self.votes),
            "accuracy": list(self.accuracy),
            "se": list(self.se),
        }


def _votes_list(votes) -> tuple[int, ...]:
    return tuple(sorted({1, *(int(v) for v in votes)}))


def evaluate_mixture(data: MixtureData, weights, votes=(3, 5)) -> Mixture:
    """Moments and exact empirical vote accuracies of one mixture (module docstring)."""
    w = _check_weights(weights, data.successes.shape[1])
    vs = _votes_list(votes)
    mu_i, nu_i = per_example_mixture_moments(data, w)
    mu, nu = float(mu_i.mean()), float(nu_i.mean())
    acc, se = [], []
    for v in vs:
        h = per_example_mixture_accuracy(data, w, v)
        acc.append(float(h.mean()))
        se.append(float(np.std(h, ddof=1) / math.sqrt(len(h))))
    return Mixture(
        data.dataset,
        data.names,
        tuple(float(x) for x in w),
        mu,
        nu,
        float(rho_from_nu(mu, nu)),
        vs,
        tuple(acc),
        tuple(se),
    )


def weight_grid(components: int, step: float = 0.05) -> np.ndarray:
    """Weights on the grid of ``step`` with every component strictly positive, shape (W, C)."""
    if not (isinstance(step, (int, float)) and 0 < step <= 0.5):
        raise InputError(f"step={step!r} must be in (0, 0.5]")
    units = round(1.0 / step)
    if abs(units * step - 1.0) > 1e-9:
        raise InputError(f"step={step!r} must divide 1 (e.g. 0.05, 0.1, 0.25)")
    if components > units:
        return np.zeros((0, components))
    pts = [a for a in itertools.product(range(1, units + 1), repeat=components) if sum(a) == units]
    return np.array(pts, dtype=float).reshape(-1, components) / units


def _grid_values(data: MixtureData, w: np.ndarray, votes: tuple[int, ...]) -> dict:
    """Mean accuracy per budget and moments for many weight vectors at once."""
    out: dict[int | str, np.ndarray] = {}
    for v in votes:
        alloc, table = allocation_majority(data, v)
        out[v] = allocation_probabilities(w, alloc) @ table.mean(axis=0)
    k = data.calls
    p = data.successes / k
    same = data.successes * (data.successes - 1) / (k * (k - 1))
    cross = p.T @ p / data.n
    mom2 = cross - np.diag(np.diag(cross)) + np.diag(same.mean(axis=0))
    out["mu"] = w @ p.mean(axis=0)
    out["nu"] = np.einsum("wc,cd,wd->w", w, mom2, w)
    return out


@dataclass(frozen=True)
class MixtureSearch:
    """Result of :func:`search_mixtures` on one data set.

    Attributes
    ----------
    dataset : str
    step : float
    votes : int
        Selection budget (the paper uses five votes, V_2).
    grid : tuple of Mixture
        Every evaluated mixture (pairs and triples on the grid).
    best : tuple of tuple
        ``(kind, criterion, Mixture)`` with kind ``"pair"``/``"triple"`` and criterion
        ``"gain"`` (largest V_votes - V(1 call)) or ``"accuracy"`` (largest V_votes).
    """

    dataset: str
    step: float
    votes: int
    grid: tuple[Mixture, ...]
    best: tuple[tuple[str, str, Mixture], ...]

    def selected(self, kind: str, criterion: str) -> Mixture | None:
        return next((m for k, c, m in self.best if k == kind and c == criterion), None)

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "step": self.step,
            "votes": self.votes,
            "size": len(self.grid),
            "best": [{"kind": k, "criterion": c, "mixture": m.to_dict()} for k, c, m in self.best],
        }


_KINDS = {2: "pair", 3: "triple"}


def search_mixtures(data: MixtureData, *, step: float = 0.05, votes: int = 5, sizes=(2, 3)) -> MixtureSearch:
    """The paper's mixture grid (Appendix "Randomized mixture policies").

    Every set of 2 (pairs) and 3 (triples) components, with weights on the grid of
    ``step`` (all weights positive), is evaluated exactly; the best of each kind is
    selected by five-vote gain V_2 - V_0 and by absolute five-vote accuracy V_2
    (``votes`` calls; ties go to the first in grid order, which is deterministic).

    Returns
    -------
    MixtureSearch
    """
    _check_votes(votes, data)
    vs = _votes_list((votes,) + tuple(v for v in (3, 5) if v <= data.calls))
    grid: list[Mixture] = []
    best = []
    for size in sizes:
        if size not in _KINDS:
            raise InputError(f"sizes={sizes!r}: only pairs (2) and triples (3) are searched")
        kind_rows: list[Mixture] = []
        for combo in itertools.combinations(data.names, size):
            sub = data.subset(combo)
            w = weight_grid(size, step)
            if not len(w):
                continue
            vals = _grid_values(sub, w, vs)
            for j in range(len(w)):
                mu, nu = float(vals["mu"][j]), float(vals["nu"][j])
                kind_rows.append(
                    Mixture(
                        data.dataset,
                        combo,
                        tuple(float(x) for x in w[j]),
                        mu,
                        nu,
                        float(rho_from_nu(mu, nu)),
                        vs,
                        tuple(float(vals[v][j]) for v in vs),
                        tuple(float("nan") for _ in vs),
                    )
                )
        grid.extend(kind_rows)
        if not kind_rows:
            continue
        for criterion, key in (("gain", lambda m: m.gain(votes)), ("accuracy", lambda m: m.value(votes))):
            top = max(kind_rows, key=key)
            # Recompute the winner with its standard errors.
            best.append((_KINDS[size], criterion, evaluate_mixture(data.subset(top.components), top.weights, vs[1:])))
    return MixtureSearch(data.dataset, float(step), int(votes), tuple(grid), tuple(best))


@dataclass(frozen=True)
class MixtureOptimum:
    """Result of :func:`optimize_mixture`.

    Attributes
    ----------
    objective : str
        ``"certified"`` (sharp lower bound L at the mixture's (mu-hat, nu-hat),
        Theorem 4.1) or ``"empirical"`` (exact empirical V).
    votes : int
    value : float
        The maximized objective.
    lower : float
        L at the optimum's point estimate (also reported for ``"empirical"``).
    mixture : Mixture
    certificate : Certificate
        Exact certificate of ``lower`` (Theorem 4.1 dual), verified.
    evaluations : int
        Weight vectors evaluated.
    """

    objective: str
    votes: int
    value: float
    lower: float
    mixture: Mixture
    certificate: Certificate
    evaluations: int

    def to_dict(self) -> dict:
        return {
            "objective": self.objective,
            "votes": self.votes,
            "value": self.value,
            "lower": self.lower,
            "mixture": self.mixture.to_dict(),
            "certificate_value": float(self.certificate.value),
            "evaluations": self.evaluations,
        }


def _objective_values(data: MixtureData, w: np.ndarray, votes: int, objective: str) -> np.ndarray:
    vals = _grid_values(data, w, (votes,) if objective == "empirical" else ())
    if objective == "empirical":
        return vals[votes]
    mu = np.clip(vals["mu"], 0.0, 1.0)
    nu = np.clip(vals["nu"], mu * mu, mu)
    return sharp_bound_arrays(votes, mu=mu, nu=nu).lower


def optimize_mixture(
    data: MixtureData,
    *,
    votes: int = 5,
    objective: str = "certified",
    samples: int = 256,
    seed: int = 20260601,
    tol: float = 1e-6,
) -> MixtureOptimum:
    """Maximize the certified lower bound L (or empirical V) over the whole weight simplex.

    Deterministic search: the vertices, the centre, the grid of step 0.1 (when small)
    and ``samples`` Dirichlet(1) points from a fixed ``seed`` are evaluated at once
    (:func:`certify.sharp_bound_arrays`, Theorem 4.1, for ``"certified"``); the best
    is refined by a pairwise-transfer pattern search (move mass between two
    components, halving the step down to ``tol``). The optimum's lower bound L at
    its (mu-hat, nu-hat) is then certified exactly with :func:`certify.certify_bound`.

    Returns
    -------
    MixtureOptimum
    """
    if objective not in ("certified", "empirical"):
        raise InputError(f"objective={objective!r} must be 'certified' or 'empirical'")
    votes = _check_votes(votes, data)
    c = data.successes.shape[1]
    rng = np.random.default_rng(seed)
    cand = [np.eye(c), np.full((1, c), 1.0 / c), rng.dirichlet(np.ones(c), size=samples)]
    if c <= 4:
        for size in range(1, c + 1):
            for combo in itertools.combinations(range(c), size):
                g = weight_grid(size, 0.1)
                full = np.zeros((len(g), c))
                full[:, combo] = g
                cand.append(full)
    w = np.concatenate(cand)
    vals = _objective_values(data, w, votes, objective)
    evaluations = len(w)
    j = int(np.argmax(vals))
    best_w, best_v = w[j], float(vals[j])
    step = 0.05
    pairs = [(a, b) for a in range(c) for b in range(c) if a != b]
    while step >= tol and pairs:
        candidates = []
        for a, b in pairs:
            t = min(step, best_w[b])
            if t > 0:
                nw = best_w.copy()
                nw[a] += t
                nw[b] -= t
                candidates.append(nw)
        if not candidates:
            break
        moves = np.array(candidates)
        mv = _objective_values(data, moves, votes, objective)
        evaluations += len(moves)
        k = int(np.argmax(mv))
        if mv[k] > best_v + 1e-15:
            best_w, best_v = moves[k], float(mv[k])
        else:
            step /= 2
    best_w = np.clip(best_w, 0.0, 1.0)
    best_w = best_w / best_w.sum()
    mix = evaluate_mixture(data, best_w, tuple(v for v in (3, 5, votes) if v <= data.calls))
    mu = min(max(mix.mu, 0.0), 1.0)
    nu = min(max(mix.nu, mu * mu), mu)
    cert = certify_bound(votes, "lower", mu=mu, nu=nu)
    lower = float(cert.value)
    value = lower if objective == "certified" else mix.value(votes)
    return MixtureOptimum(objective, votes, float(value), lower, mix, cert, evaluations)
