"""Point completions of the vote curve from (mu, nu) (paper Sec. 4).

Paper labels: ``prop:maxent-main`` with ``eq:maxent-psi-main``, ``eq:maxent-density-main``,
``eq:maxent-dual-main``; ``prop:ldgp-main`` with ``eq:ldgp-model-main``.

* Maximum entropy (Proposition 5.1): the density f(q) proportional to
  exp{lambda (q - 1/2) + kappa (q - 1/2)^2} on [0, 1] (eq. (maxent-density-main)) whose parameters
  minimize the strictly convex dual J(lambda, kappa) = psi - lambda (mu - 1/2)
  - kappa (nu - mu + 1/4) (eq. (maxent-dual-main)). Solved by damped Newton in a reparametrization
  adapted to the nearer boundary curve of F (see :func:`_maxent_stats`),
  started from the better of the uniform law and an asymptotic guess: a
  truncated Gaussian near nu = mu^2, two end masses near nu = mu.
* LDGP (Proposition 5.2): Q = Phi(eta - gamma Z); t = Phi^-1(mu) and r solves
  Phi_2(t, t; r) = nu. By Plackett's identity Phi_2(t,t;r) - mu^2 = int_0^r phi_2(t,t;s) ds,
  and s = sin(a) turns it into (1/2pi) int_0^{asin r} exp(-t^2/(1 + sin a)) da, a
  smooth integrand that Gauss-Legendre integrates to machine precision even as r -> 1.
  Then gamma = sqrt(r/(1-r)), eta = t/sqrt(1-r), and V_inf = Phi(eta/gamma) = Phi(t/sqrt(r)).

All integrals over q or z use composite Gauss-Legendre rules on panels graded
geometrically (ratio 2, down to 2^-52) towards every point where the integrand
can be sharp: the ends of [0, 1], q = 1/2 (the step of P_n for large n and of
V_inf), and the mode of the density. This resolves densities of any width, so
the solution stays accurate next to the boundary of the moment region.

Boundary inputs are limits of the completions: nu = mu^2 (rho = 0) is the point
mass at mu (V_n = P_n(mu)), nu = mu (rho = 1) the law on {0, 1} (V_n = mu for
every n, V_inf = mu).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy.optimize import brentq

from .._errors import InputError, SolverError
from .._majority import majority_index, majority_polynomial
from .._moments import moments as make_moments
from .._numbers import float_or_nan
from .._objective import V_INF, parse_vote_budget
from ._tolerances import (
    EDGE,
    GL_NODES,
    GRADING_STEPS,
    LDGP_MAX_ITER,
    LDGP_RTOL,
    LDGP_XTOL,
    MAXENT_ACCEPT_ATOL,
    MAXENT_ACCEPT_RTOL,
    MAXENT_ARMIJO,
    MAXENT_MAX_ITER,
    MAXENT_MIN_STEP,
    MAXENT_TOL,
    NORMAL_RANGE,
)

__all__ = ["Completion", "maxent_completion", "ldgp_completion", "complete", "COMPLETION_METHODS"]

COMPLETION_METHODS = ("maxent", "ldgp")
_GL_X, _GL_W = np.polynomial.legendre.leggauss(GL_NODES)


def _graded_rule(a: float, b: float, points) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes and weights on [a, b], panels graded towards `points`."""
    steps = 2.0 ** -np.arange(0, GRADING_STEPS + 1)
    ends = [a, b]
    span = b - a
    for p in points:
        if a <= p <= b:
            ends.append(p)
            ends.extend(p + span * steps)
            ends.extend(p - span * steps)
    br = np.unique(np.clip(ends, a, b))
    lo, hi = br[:-1], br[1:]
    keep = hi - lo > 0
    lo, hi = lo[keep], hi[keep]
    half, mid = (hi - lo) / 2, (hi + lo) / 2
    x = (mid[:, None] + half[:, None] * _GL_X[None, :]).ravel()
    w = (half[:, None] * _GL_W[None, :]).ravel()
    return x, w


def _vote_value(votes, q: np.ndarray, w: np.ndarray) -> float:
    """E[P_n(Q)] (or V_inf) for a density given by nodes q and normalized weights w."""
    if votes is V_INF:
        return float(np.sum(w[q > 0.5]) + 0.5 * np.sum(w[q == 0.5]))
    return float(np.sum(w * majority_polynomial(majority_index(votes), q)))


def _boundary_value(votes, mu: float, kind: str) -> float:
    if kind == "two-point":
        return mu  # law on {0, 1}: P_n(0) = 0, P_n(1) = 1 for every budget
    if votes is V_INF:
        return 1.0 if mu > 0.5 else (0.5 if mu == 0.5 else 0.0)
    return float(majority_polynomial(majority_index(votes), mu))


@dataclass(frozen=True)
class Completion:
    """A completed latent law and its vote curve.

    Attributes
    ----------
    method : str
        ``"maxent"`` or ``"ldgp"``.
    mu, nu : float
        The matched moments.
    parameters : tuple of (str, float)
        maxent: lambda, kappa (eq. (maxent-density-main)); ldgp: eta, gamma, t, r (Proposition 5.2).
        Infinite for boundary limits.
    boundary : str
        ``""`` (interior), ``"point"`` (nu = mu^2: point mass at mu) or
        ``"two-point"`` (nu = mu: law on {0, 1}).
    """

    method: str
    mu: float
    nu: float
    parameters: tuple[tuple[str, float], ...]
    boundary: str = ""

    @property
    def params(self) -> dict:
        return dict(self.parameters)

    def _rule(self) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        if self.method == "maxent":
            lam, kap = p["lambda"], p["kappa"]
            x, w = _graded_rule(-0.5, 0.5, _maxent_points(lam, kap))
            e = _maxent_exponent(x, lam, kap)
            w = w * np.exp(e - e.max())
            return x + 0.5, w / w.sum()
        eta, gamma = p["eta"], p["gamma"]
        z, w = _graded_rule(-NORMAL_RANGE, NORMAL_RANGE, [0.0, eta / gamma])
        w = w * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        return special.ndtr(eta - gamma * z), w

    def value(self, votes) -> float:
        """V for a vote count (``3`` is V_1; even counts have fair ties) or :data:`certify.V_INF` (``"inf"``)."""
        v = parse_vote_budget(votes)
        if self.boundary:
            return _boundary_value(v, self.mu, self.boundary)
        if v is V_INF and self.method == "ldgp":
            return float(special.ndtr(self.params["t"] / math.sqrt(self.params["r"])))
        q, w = self._rule()
        return _vote_value(v, q, w)

    def values(self, votes) -> list[float]:
        return [self.value(v) for v in votes]

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "mu": self.mu,
            "nu": self.nu,
            "parameters": dict(self.parameters),
            "boundary": self.boundary,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Completion:
        return cls(
            d["method"],
            float(d["mu"]),
            float(d["nu"]),
            tuple((k, float_or_nan(v)) for k, v in d["parameters"].items()),
            d.get("boundary", ""),
        )


def _moments_of(mu, nu, rho) -> tuple[float, float]:
    m = make_moments(mu=mu, nu=nu, rho=rho)
    if m.order != 2:
        raise InputError("completions need mu with nu or rho (two moments)")
    return m.mu, m.nu


def _boundary_kind(mu: float, nu: float) -> str:
    if mu <= EDGE or mu >= 1 - EDGE or nu - mu * mu <= EDGE:
        return "point"
    if mu - nu <= EDGE:
        return "two-point"
    return ""


# ----------------------------------------------------------------------------------------------
# Maximum entropy


def _maxent_exponent(x: np.ndarray, lam: float, kap: float) -> np.ndarray:
    """lambda x + kappa x^2 up to a constant, in a form without cancellation for large |kappa|.

    kappa < 0: kappa (x - x0)^2 about the mode x0 = -lambda / (2 kappa);
    kappa > 0: lambda x - kappa (1/2 - x)(1/2 + x), exact next to the end masses.
    """
    if kap < 0:
        d = x + lam / (2 * kap)
        return kap * d * d
    return lam * x - kap * (0.5 - x) * (0.5 + x)


def _maxent_points(lam: float, kap: float) -> list[float]:
    pts = [-0.5, 0.0, 0.5]
    if kap != 0:
        pts.append(min(max(-lam / (2 * kap), -0.5), 0.5))
    return pts


def _maxent_stats(theta: np.ndarray, basis: tuple[float, float, float, float]):
    """Dual pieces for the statistics T = (X - m, c0 + c1 X + c2 X^2) of X = Q - 1/2.

    The exponent lambda x + kappa x^2 of eq. (4.2) is written theta . T(x) + const,
    an affine reparametrization that leaves the dual (eq. (maxent-dual-main)) strictly convex but
    makes its Hessian Cov(T) well conditioned: near nu = mu^2 T2 = (X - m)^2 (the
    density is a narrow bump), near nu = mu T2 = 1/4 - X^2 = Q(1 - Q) (two end
    masses); with Cov(X, X^2) both regimes are singular to working precision.
    Returns log int exp(theta . T), E T, Cov T.
    """
    m, c0, c1, c2 = basis
    lam, kap = theta[0] + theta[1] * c1, theta[1] * c2
    x, w = _graded_rule(-0.5, 0.5, _maxent_points(lam, kap))
    t1 = x - m
    # T2 in product form: expanding c0 + c1 x + c2 x^2 would cancel catastrophically
    # exactly where T2 is small, and kappa ~ 1/T2 would amplify the rounding.
    t2 = t1 * t1 if c2 > 0 else (0.5 - x) * (0.5 + x)
    e = theta[0] * t1 + theta[1] * t2
    emax = e.max()
    w = w * np.exp(e - emax)
    z = w.sum()
    p = w / z
    m1, m2 = p @ t1, p @ t2
    d1, d2 = t1 - m1, t2 - m2
    cov = np.array([[p @ (d1 * d1), p @ (d1 * d2)], [p @ (d1 * d2), p @ (d2 * d2)]])
    return emax + math.log(z), np.array([m1, m2]), cov


def maxent_completion(
    mu=None, nu=None, rho=None, *, tol: float = MAXENT_TOL, max_iter: int = MAXENT_MAX_ITER
) -> Completion:
    """Maximum-entropy completion (Proposition 5.1): solve the dual (eq. (maxent-dual-main)) by damped Newton.

    The dual is minimized in the parametrization of :func:`_maxent_stats` (the same
    strictly convex function up to an affine change of variables), in variables
    scaled by the distance of (mu, nu) to the boundary of F.

    Parameters
    ----------
    mu : float
    nu, rho : float
        Give one.
    tol : float
        Stop when the moment residuals, relative to the distance to the boundary, are below tol.

    Returns
    -------
    Completion
        ``parameters`` = (("lambda", ...), ("kappa", ...)) of eq. (4.2).
    """
    mu, nu = _moments_of(mu, nu, rho)
    kind = _boundary_kind(mu, nu)
    if kind:
        inf = math.inf
        lam = 0.0 if mu == 0.5 else math.copysign(inf, mu - 0.5)
        return Completion("maxent", mu, nu, (("lambda", lam), ("kappa", -inf if kind == "point" else inf)), kind)
    m = mu - 0.5
    var, spread = nu - mu * mu, mu - nu  # distances to the two boundary curves of F
    if var <= spread:  # near the point masses: T2 = (X - m)^2, target var
        basis = (m, m * m, -2 * m, 1.0)
        target = np.array([0.0, var])
        # starts: uniform; the truncated Gaussian with this variance
        starts = [np.zeros(2), np.array([0.0, -0.5 / var])]
    else:  # near the two-point laws: T2 = 1/4 - X^2 = Q(1 - Q), target mu - nu
        basis = (m, 0.25, 0.0, -1.0)
        target = np.array([0.0, spread])
        # starts: uniform; end masses with tilt logit((1/2 + m)/(1/2 - m)) and decay 1/(mu - nu)
        starts = [np.zeros(2), np.array([math.log((0.5 + m) / (0.5 - m)), -1.0 / spread])]
    scale = np.array([math.sqrt(min(var, spread)), target[1]])

    def dual(th):
        psi, mom, cov = _maxent_stats(th, basis)
        return psi - th @ target, mom - target, cov

    th = min(starts, key=lambda q: dual(q)[0])
    val, grad, hess = dual(th)
    for _ in range(max_iter):
        if np.max(np.abs(grad) / scale) <= tol:
            break
        try:
            step = -np.linalg.solve(hess / np.outer(scale, scale), grad / scale) / scale
        except np.linalg.LinAlgError:
            step = -grad
        t = 1.0
        res = np.max(np.abs(grad) / scale)
        while True:
            # Backtracking: accept on Armijo decrease of the convex dual, or on a
            # decrease of the scaled moment residual -- near the boundary the dual
            # changes by less than its rounding error while the residual still
            # converges quadratically.
            cand = th + t * step
            cval, cgrad, chess = dual(cand)
            if (
                cval <= val + MAXENT_ARMIJO * t * (grad @ step)
                or np.max(np.abs(cgrad) / scale) <= (1 - MAXENT_ARMIJO * t) * res
                or t < MAXENT_MIN_STEP
            ):
                break
            t *= 0.5
        if t < MAXENT_MIN_STEP and np.max(np.abs(cgrad) / scale) >= res:
            break  # no further progress at working precision
        th, val, grad, hess = cand, cval, cgrad, chess
    resid = float(np.max(np.abs(grad) / scale))
    if not (resid <= MAXENT_ACCEPT_RTOL or float(np.max(np.abs(grad))) <= MAXENT_ACCEPT_ATOL):
        raise SolverError("maxent", f"relative moment residual {resid:.2e}", f"mu={mu!r}, nu={nu!r}")
    lam, kap = th[0] + th[1] * basis[2], th[1] * basis[3]
    return Completion("maxent", mu, nu, (("lambda", float(lam)), ("kappa", float(kap))))


# ----------------------------------------------------------------------------------------------
# LDGP


def _plackett_excess(t: float, angle: float) -> float:
    """Phi_2(t, t; sin(angle)) - Phi(t)^2 = (1/2pi) int_0^angle exp(-t^2 / (1 + sin a)) da."""
    if angle <= 0:
        return 0.0
    a = angle / 2 * (_GL_X + 1)
    return float(angle / 2 * (_GL_W @ np.exp(-t * t / (1 + np.sin(a)))) / (2 * math.pi))


def ldgp_completion(mu=None, nu=None, rho=None) -> Completion:
    """LDGP completion (Proposition 5.2): t = Phi^-1(mu), r from Phi_2(t, t; r) = nu.

    Returns
    -------
    Completion
        ``parameters`` = eta, gamma (eq. (ldgp-model-main)), t = eta / sqrt(1 + gamma^2) and
        r = gamma^2 / (1 + gamma^2).
    """
    mu, nu = _moments_of(mu, nu, rho)
    kind = _boundary_kind(mu, nu)
    t = float(special.ndtri(mu)) if 0 < mu < 1 else math.copysign(math.inf, mu - 0.5)
    if kind:
        r = 0.0 if kind == "point" else 1.0
        eta = t if kind == "point" else math.copysign(math.inf, t) if t != 0 else 0.0
        gamma = 0.0 if kind == "point" else math.inf
        return Completion("ldgp", mu, nu, (("eta", eta), ("gamma", gamma), ("t", t), ("r", r)), kind)
    excess = nu - mu * mu
    top = _plackett_excess(t, math.pi / 2)  # = mu - mu^2 in exact arithmetic
    if excess >= top:
        return ldgp_completion(mu=mu, nu=mu)
    angle = brentq(
        lambda a: _plackett_excess(t, a) - excess,
        0.0,
        math.pi / 2,
        xtol=LDGP_XTOL,
        rtol=LDGP_RTOL,
        maxiter=LDGP_MAX_ITER,
    )
    r = math.sin(angle)
    one_minus_r = math.cos(angle) ** 2 / (1 + r)  # 1 - sin(a) without cancellation as r -> 1
    if one_minus_r == 0.0:
        return ldgp_completion(mu=mu, nu=mu)
    gamma = math.sqrt(r / one_minus_r)
    eta = t / math.sqrt(one_minus_r)
    return Completion("ldgp", mu, nu, (("eta", eta), ("gamma", gamma), ("t", t), ("r", r)))


def complete(mu=None, nu=None, rho=None, *, method: str = "maxent") -> Completion:
    """The ``method`` completion of (mu, nu) (``"maxent"`` or ``"ldgp"``); see :class:`Completion`."""
    if method not in COMPLETION_METHODS:
        raise InputError(f"method={method!r} must be one of {', '.join(COMPLETION_METHODS)}")
    return (maxent_completion if method == "maxent" else ldgp_completion)(mu=mu, nu=nu, rho=rho)
