"""Realistic inputs for likelihood certificates without the statistics module.

* :func:`simulate` -- cells (K, S, n) of simulated data, q ~ Beta(2, 1);
* :func:`em_reference` -- pi_ref by EM on a fine grid: a valid explicit law whose
  log-likelihood is a little below the maximum (which only enlarges the set);
* :func:`lagrangian_law` -- a crude (lambda, pi*) for a fixed lambda: the law on a grid
  minimizing s E_pi[g] - lambda l(pi), by an EM-like fixed-point iteration;
* :func:`grid_optimum` -- a nearly optimal (lambda, pi*): the likelihood-constrained
  problem on a grid solved by cvxpy, lambda its dual value.

Nothing here needs to be accurate: a certificate is valid for any pi* and lambda >= 0,
only weaker when they are far from the optimum.
"""

from __future__ import annotations

from math import comb

import numpy as np


def simulate(n: int = 300, calls=5, seed: int = 1) -> list[tuple[int, int, int]]:
    """Cells (K, S, count) for ``n`` examples; ``calls`` is one K or a list drawn from uniformly."""
    rng = np.random.default_rng(seed)
    q = rng.beta(2.0, 1.0, n)
    k = np.full(n, calls) if np.isscalar(calls) else rng.choice(np.asarray(calls), n)
    s = rng.binomial(k, q)
    keys, counts = np.unique(np.stack([k, s], axis=1), axis=0, return_counts=True)
    return [(int(a), int(b), int(c)) for (a, b), c in zip(keys, counts)]


def kernel(cells, x: np.ndarray) -> np.ndarray:
    """Matrix B[c, j] = C(K_c, S_c) x_j^S_c (1 - x_j)^(K_c - S_c)."""
    return np.array([comb(k, s) * x**s * (1 - x) ** (k - s) for k, s, _ in cells])


def loglik(cells, atoms, weights) -> float:
    counts = np.array([n for _, _, n in cells], dtype=float)
    return float(counts @ np.log(kernel(cells, np.asarray(atoms, float)) @ np.asarray(weights, float)))


def em_reference(cells, points: int = 501, iterations: int = 2000):
    """EM for the NPMLE restricted to a grid (tiny weights dropped, then renormalized)."""
    x = np.linspace(0.0, 1.0, points)
    b = kernel(cells, x)
    counts = np.array([n for _, _, n in cells], dtype=float)
    w = np.full(points, 1.0 / points)
    for _ in range(iterations):
        w *= (counts / (b @ w)) @ b / counts.sum()
    keep = w > 1e-10
    return x[keep], w[keep] / w[keep].sum()


def lagrangian_law(cells, g, side: str, lam: float = 0.01, points: int = 201, iterations: int = 400):
    """pi* on a grid minimizing s E_pi[g] - lam l(pi) (s = +1 lower, -1 upper).

    Fixed point of w_j <- w_j h_j / (N + s (g_j - E_w g) / lam), h_j = sum_c n_c B_c(x_j) / p_c:
    at a fixed point lam h - s g is constant on the support, the optimality condition.
    """
    s = 1.0 if side == "lower" else -1.0
    x = np.linspace(0.0, 1.0, points)
    gx = np.asarray(g(x), dtype=float)
    b = kernel(cells, x)
    counts = np.array([n for _, _, n in cells], dtype=float)
    total = counts.sum()
    w = np.full(points, 1.0 / points)
    for _ in range(iterations):
        h = (counts / (b @ w)) @ b
        w = w * h / np.maximum(total + s * (gx - w @ gx) / lam, 1e-3 * total)
        w /= w.sum()
    keep = w > 1e-12
    return lam, (x[keep], w[keep] / w[keep].sum())



def grid_optimum(cells, g, side: str, level: float, points: int = 201):
    """(lambda, pi*) of min s E_pi[g] s.t. l(pi) >= level over laws on a grid (cvxpy, Clarabel).

    lambda is the dual value of the likelihood constraint, so the pair is nearly optimal
    and the certificate built from it nearly tight (up to the grid and solver accuracy).
    """
    import cvxpy as cp

    s = 1.0 if side == "lower" else -1.0
    x = np.linspace(0.0, 1.0, points)
    counts = np.array([n for _, _, n in cells], dtype=float)
    w = cp.Variable(points, nonneg=True)
    constraint = counts @ cp.log(kernel(cells, x) @ w) >= level
    cp.Problem(cp.Minimize(s * np.asarray(g(x), dtype=float) @ w), [cp.sum(w) == 1, constraint]).solve(solver="CLARABEL")
    wv = np.clip(w.value, 0.0, None)
    keep = wv > 1e-9
    return float(constraint.dual_value), (x[keep], wv[keep] / wv[keep].sum())
