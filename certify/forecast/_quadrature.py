"""Families given by a density: ``maxent`` (exp of a polynomial) and ``ldgp`` (the paper's probit law).

Both are integrated by Gauss-Legendre quadrature with :data:`QUADRATURE_NODES` nodes on each of two
halves, split where V_inf = P(Q > 1/2) has its step, so the law becomes a finite set of nodes x_j
with weights w_j(u) and the cell probabilities p_c = sum_j w_j Bin(S_c; K_c, x_j) are one
matrix-vector product. Each family also gives dw/du, so d log p_c / du = (B dw/du)_c / p_c
exactly (for the quadrature rule). Simulation draws from the same nodes and weights, so the
bootstrap simulates exactly the law whose likelihood is computed.

* **MaxEnt of degree d** (the paper's Proposition 5.1 is d = 2): density proportional to
  exp(sum_{j=1}^d theta_j P_j(2q - 1)) on [0, 1], with P_j the Legendre polynomials (the same family
  as exp(theta_1' q + ... + theta_d' q^d), better conditioned; the reported parameters are the
  monomial coefficients theta'_j). Nodes fixed on [0, 1/2] and [1/2, 1]; weights w_j = g_j
  exp(theta . T(x_j)) / Z and dw_j/dtheta = w_j (T(x_j) - E[T]).
* **LDGP** (Proposition 5.2): Q = Phi(eta - gamma Z), Z ~ N(0, 1): t = Phi^-1(Q) ~ N(eta, gamma^2).
  Nodes in t on [eta - R gamma, eta + R gamma] cut to |t| <= :data:`PROBIT_RANGE`, split at t = 0;
  the mass beyond each cut is one atom there. In t, the kernel Bin(S; K, Phi(t)) has a width
  ~ 1/sqrt(K) whatever gamma is, and the normal density a width gamma that the range scales
  with: both resolved. Weights w_j = g_j phi(u_j) / gamma (u_j = (t_j - eta)/gamma) with
  dw/deta = w u / gamma and dw/dgamma = w (u^2 - 1) / gamma (the score of the normal; the nodes'
  dependence on the parameters moves no mass); the two end atoms have mass Phi(a), Phi(-b) with
  their exact derivatives. Coordinates u = (m, log gamma) with m = eta / sqrt(1 + gamma^2) =
  Phi^-1(E[Q]).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numpy.polynomial import Legendre, Polynomial
from numpy.polynomial.legendre import leggauss, legvander
from scipy.special import log_ndtr, ndtr, ndtri

from .._objective import Objective
from ._families import Family, FitData, Model
from ._tolerances import (
    GAMMA_MAX,
    GAMMA_MIN,
    LDGP_START_GAMMAS,
    MEAN_PROBIT_MAX,
    NORMAL_RANGE,
    PROB_FLOOR,
    PROBIT_RANGE,
    QUADRATURE_NODES,
    START_MEAN_MARGIN,
    THETA_MAX,
)

__all__ = ["Ldgp", "MaxEnt"]


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# the Gauss-Legendre rule on [-1, 1], computed once (an eigenvalue problem of its size): constants
_GL_X, _GL_W = (_read_only(a) for a in leggauss(QUADRATURE_NODES))


def _kernel(data: FitData, logq: np.ndarray, log1mq: np.ndarray) -> np.ndarray:
    """Bin(S_c; K_c, x_j), shape (C, nodes), from log x_j and log(1 - x_j) (both finite)."""
    s, k = data.successes[:, None], data.calls[:, None]
    return np.exp(data.log_binom[:, None] + s * logq[None, :] + (k - s) * log1mq[None, :])


def _model_from(kernel: np.ndarray, w: np.ndarray, dw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.maximum(kernel @ w, PROB_FLOOR)
    return np.log(p), (kernel @ dw) / p[:, None]


class _Discrete(Family):
    """A family integrated on nodes: ``law(u)`` -> (log x, log(1 - x), side of 1/2, w, dw/du)."""

    @abstractmethod
    def law(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The nodes of the law at u: log x, log(1 - x), side of 1/2, weights, weights' derivative."""

    def sample(self, u, size, rng):
        logq, _, _, w, _ = self.law(u)
        return np.exp(logq)[rng.choice(len(w), size=size, p=w / w.sum())]

    def polynomial(self, u, obj: Objective):
        logq, _, _, w, _ = self.law(u)
        return float(w @ obj.evaluate(np.exp(logq)))

    def pass_at(self, u, k):
        _, log1mq, _, w, _ = self.law(u)
        return float(w @ -np.expm1(k * log1mq))

    def upper_half(self, u):
        _, _, side, w, _ = self.law(u)
        return float(w[side > 0].sum() + 0.5 * w[side == 0].sum())


class MaxEnt(_Discrete):
    """Density proportional to exp(theta_1 P_1(2q - 1) + ... + theta_d P_d(2q - 1)) on [0, 1]."""

    name = "maxent"

    def __init__(self, degree: int):
        self.degree = int(degree)
        self.names = tuple(f"theta{j}" for j in range(1, self.degree + 1))
        x, g = _GL_X, _GL_W
        self._x = np.concatenate([0.25 + 0.25 * x, 0.75 + 0.25 * x])
        self._g = np.concatenate([0.25 * g, 0.25 * g])
        self._basis = legvander(2 * self._x - 1, self.degree)[:, 1:]

    def bounds(self):
        return [(-THETA_MAX, THETA_MAX)] * self.degree

    def natural(self, u):
        mono = Legendre(np.concatenate([[0.0], u]), domain=[0, 1]).convert(kind=Polynomial).coef
        mono = np.concatenate([mono, np.zeros(self.degree + 1 - len(mono))])
        return tuple(float(c) for c in mono[1:])

    def starts(self, data):
        return [np.zeros(self.degree)]

    def _weights(self, u) -> tuple[np.ndarray, np.ndarray]:
        e = self._basis @ np.asarray(u, dtype=float)
        v = self._g * np.exp(e - e.max())
        w = v / v.sum()
        return w, w[:, None] * (self._basis - w @ self._basis)

    def law(self, u):
        w, dw = self._weights(u)
        return np.log(self._x), np.log1p(-self._x), np.sign(self._x - 0.5), w, dw

    def model(self, data) -> Model:
        kernel = _kernel(data, np.log(self._x), np.log1p(-self._x))  # fixed nodes: built once per fit

        def f(u):
            return _model_from(kernel, *self._weights(u))

        return f


def _normal_pdf(x):
    return np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)


class Ldgp(_Discrete):
    """Q = Phi(eta - gamma Z), Z ~ N(0, 1) (the paper's LDGP, Proposition 5.2)."""

    name = "ldgp"
    names = ("eta", "gamma")

    def bounds(self):
        return [(-MEAN_PROBIT_MAX, MEAN_PROBIT_MAX), (float(np.log(GAMMA_MIN)), float(np.log(GAMMA_MAX)))]

    @staticmethod
    def _eta_gamma(u) -> tuple[float, float]:
        g = float(np.exp(u[1]))
        return float(u[0]) * float(np.sqrt(1 + g * g)), g

    def natural(self, u):
        return self._eta_gamma(u)

    def starts(self, data):
        m1, _ = data.moments()
        m = float(ndtri(min(max(m1, START_MEAN_MARGIN), 1 - START_MEAN_MARGIN)))
        return [np.array([m, np.log(g)]) for g in LDGP_START_GAMMAS]

    def _nodes(self, u):
        """t nodes (end atoms first and last), weights, d weights / d(eta, gamma), gamma, eta."""
        eta, g = self._eta_gamma(u)
        lo, hi = max(eta - NORMAL_RANGE * g, -PROBIT_RANGE), min(eta + NORMAL_RANGE * g, PROBIT_RANGE)
        cut = 0.0 if lo < 0 < hi else 0.5 * (lo + hi)
        x, gw = _GL_X, _GL_W
        t = np.concatenate([[lo], cut + (cut - lo) * 0.5 * (x - 1), cut + (hi - cut) * 0.5 * (x + 1), [hi]])
        z = (t - eta) / g
        phi = _normal_pdf(z)
        w = np.empty(len(t))
        w[1:-1] = np.concatenate([0.5 * (cut - lo) * gw, 0.5 * (hi - cut) * gw]) * phi[1:-1] / g
        w[0], w[-1] = ndtr(z[0]), ndtr(-z[-1])
        d = np.empty((len(t), 2))
        d[1:-1, 0] = w[1:-1] * z[1:-1] / g
        d[1:-1, 1] = w[1:-1] * (z[1:-1] ** 2 - 1) / g
        d[0] = -phi[0] / g, -phi[0] * z[0] / g
        d[-1] = phi[-1] / g, phi[-1] * z[-1] / g
        return t, w, d, g, eta

    def _law(self, u):
        t, w, d, g, eta = self._nodes(u)
        root = np.sqrt(1 + g * g)
        # chain rule to u = (m, log gamma): eta = m sqrt(1 + gamma^2)
        du = np.column_stack([root * d[:, 0], (float(u[0]) * g * g / root) * d[:, 0] + g * d[:, 1]])
        return t, w, du

    def law(self, u):
        t, w, du = self._law(u)
        return log_ndtr(t), log_ndtr(-t), np.sign(t), w, du

    def model(self, data) -> Model:
        def f(u):
            t, w, du = self._law(u)
            return _model_from(_kernel(data, log_ndtr(t), log_ndtr(-t)), w, du)

        return f

    def upper_half(self, u):
        eta, g = self._eta_gamma(u)
        return float(ndtr(eta / g))  # P(Phi(eta - gamma Z) > 1/2) = P(Z < eta / gamma)
