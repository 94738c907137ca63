"""Feasible Wald regions (eq. (wald-region-main)) projected through the sharp bounds (eq. (projected-set-main)).

Paper labels: ``eq:wald-region-main``, ``eq:projected-set-main`` (Section 4.4,
``sec:finite-sample-main``) and Appendix B, "Projection of sampling uncertainty".

The region is

    C_alpha = {theta in F : N (theta - theta-hat)' Sigma^dagger (theta - theta-hat) <= chi2_{2, 1-alpha}},
    F = {(mu, nu) : 0 <= mu <= 1, mu^2 <= nu <= mu},

and the reported interval is the hull [min_{C} L, max_{C} U] of the projected set.

**Singular covariance.** Sigma^dagger is the Moore-Penrose inverse computed in the
eigenbasis of Sigma-hat. With ``singular="floor"`` (default) eigenvalues below
tau = 1/N are raised to tau first -- a ridge acting only on the (near-)null
directions. tau is the variance p(1 - p) of an event observed once in N examples,
so a direction in which the data show no variation (no disagreements at all,
every call correct) is still given the uncertainty of roughly one example rather
than none; the region stays bounded in every direction. With ``singular="pinv"``
the plain Moore-Penrose inverse leaves null directions unconstrained and only
theta in F bounds the region there (conservative).

**Exact projection.** L is convex and U concave in theta (each is the value of a
moment problem whose right-hand side is theta). A convex L attains its minimum
over the compact convex C on the boundary of C: an interior minimizer would be a
global minimizer over F, and those are (convex hulls of) moment points
(q, q^2) of minimizers of g, which lie on the boundary of F. So each endpoint
is a one-dimensional problem on the closed convex curve dC, parametrized by the
angle phi of rays from an interior point of C (in the whitened coordinates where
the Wald ellipse is the unit disk). A scan over phi that includes every corner
of dC (ellipse meets nu = mu or nu = mu^2, and the corners (0,0), (1,1) of F)
is refined by a safeguarded parabolic bracket search until the bracket is below
1e-8 rad or flat to 1e-14. All
evaluations of all problems in a round go through the vectorized engine
(:func:`certify.sharp_bound_arrays`' batch path) at once.

**Certificate.** With ``certify=True`` the exact dual (a, b, c) at the optimum
theta* gives the supporting plane l(theta) = a + b mu + c nu <= L(theta) for all
theta, hence min_C L >= L(theta*) - gap with
gap = b.theta* - min_{theta in C} b.theta, the minimum of a linear function over C
being computed in closed form (tangent point of the ellipse, stationary point on
the parabola, corners). ``gap`` is reported per endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._bounds import as_objective, sharp_bound_arrays, sharp_bounds
from .._distributions import chi2_quantile
from .._endpoint import endpoint_bounds
from .._errors import InputError
from .._objective import V_INF, budget_json, is_vote_limit
from .._records import Record
from .._validation import check_alpha
from ..solvers import Faces
from ._estimators import TwoCallEstimates
from ._tolerances import (
    CENTER_GRIDS,
    CENTER_MARGIN,
    CORNER_TOL,
    FLAT_TOL,
    GAP_RETRY,
    MEMBERSHIP_TOL,
    NULL_EIGENVALUE_RTOL,
    PHI_TOL,
    PROJECTION_POINTS,
    QUADRATIC_ROOT_IMAG,
    QUARTIC_ROOT_IMAG,
    TINY,
    VERTEX_OFFSET,
)

__all__ = ["WaldRegion", "ProjectedInterval", "EmptyRegionError", "wald_region", "project", "project_many"]

#: Extent used for unconstrained (pinv null) directions: larger than the diameter of F.
_UNBOUNDED = 4.0


class EmptyRegionError(InputError):
    """The Wald region misses the feasible set F: the data reject the repeated-call model."""


@dataclass(frozen=True, eq=False)
class WaldRegion:
    """The feasible Wald moment region C_alpha of eq. (wald-region-main).

    Attributes
    ----------
    theta_hat : tuple of float
        (mu-hat, nu-hat).
    sigma : tuple of tuple of float
        Sigma-hat, the sample covariance of X_i.
    n : int
        Examples N.
    alpha : float
        1 - confidence level.
    radius2 : float
        chi2_{2, 1-alpha}.
    singular : str
        ``"floor"`` or ``"pinv"``: rule for (near-)singular Sigma-hat.
    floored : int
        Number of eigenvalues raised to the floor tau = 1/N (0: plain inverse).
    shape : ndarray, shape (2, 2)
        A with theta = theta-hat + A u, ``|u| <= 1`` the Wald ellipse.
    center : ndarray
        An interior point of C (origin of the boundary rays).
    degenerate : bool
        True if C is too thin to contain any interior grid point; it is then
        replaced by its closest feasible point ``center``.
    """

    theta_hat: tuple[float, float]
    sigma: tuple[tuple[float, float], tuple[float, float]]
    n: int
    alpha: float
    radius2: float
    singular: str
    floored: int
    shape: np.ndarray
    center: np.ndarray
    degenerate: bool = False

    def quad(self, mu, nu) -> np.ndarray:
        """``|u|^2`` for theta = (mu, nu): <= 1 inside the Wald ellipse."""
        d = np.stack([np.asarray(mu, float) - self.theta_hat[0], np.asarray(nu, float) - self.theta_hat[1]], axis=-1)
        u = np.linalg.solve(self.shape, d.reshape(-1, 2).T).T
        return np.sum(u * u, axis=1).reshape(np.shape(mu))

    def contains(self, mu, nu, tol: float = MEMBERSHIP_TOL) -> np.ndarray:
        """Membership in C_alpha (ellipse and F)."""
        mu, nu = np.asarray(mu, float), np.asarray(nu, float)
        return (self.quad(mu, nu) <= 1 + tol) & (nu >= mu * mu - tol) & (nu <= mu + tol)

    def boundary(self, phi) -> np.ndarray:
        """Points of dC on the rays from ``center`` at whitened angles ``phi``, shape (len(phi), 2)."""
        phi = np.asarray(phi, float)
        return _boundary_points(
            np.repeat(self.center[None, :], len(phi), 0),
            np.repeat(self._uc[None, :], len(phi), 0),
            np.repeat(self.shape[None], len(phi), 0),
            phi,
        )

    @property
    def _uc(self) -> np.ndarray:
        """Whitened coordinates of ``center``."""
        return np.linalg.solve(self.shape, self.center - np.asarray(self.theta_hat))

    def to_dict(self) -> dict:
        return {
            "theta_hat": list(self.theta_hat),
            "sigma": [list(r) for r in self.sigma],
            "n": self.n,
            "alpha": self.alpha,
            "radius2": self.radius2,
            "singular": self.singular,
            "floored": self.floored,
            "degenerate": self.degenerate,
        }


def _ray_exit(center: np.ndarray, uc: np.ndarray, e: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Distance t along center + t d at which each ray leaves C (ellipse, nu = mu, nu = mu^2).

    Row-wise: ``center`` (an interior point), ``uc`` (its whitened coordinates),
    ``e`` (unit direction in whitened coordinates) and ``d = A e``, all (P, 2).
    """
    b = np.sum(e * uc, axis=1)
    t_ell = -b + np.sqrt(np.maximum(b * b - (np.sum(uc * uc, axis=1) - 1.0), 0.0))
    cm, cn = center[:, 0], center[:, 1]
    dm, dn = d[:, 0], d[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        # nu = mu: (c_nu - c_mu) + t (d_nu - d_mu) = 0
        t_line = np.where(dn - dm > 0, (cm - cn) / (dn - dm), np.inf)
        # nu = mu^2: dm^2 t^2 + (2 c_mu dm - dn) t + (c_mu^2 - c_nu) = 0, one positive root (c is inside)
        a, bb, c0 = dm * dm, 2 * cm * dm - dn, cm * cm - cn
        disc = np.sqrt(np.maximum(bb * bb - 4 * a * c0, 0.0))
        t_par = np.where(bb > 0, -2 * c0 / (bb + disc), (-bb + disc) / (2 * a))
        t_par = np.where(np.isfinite(t_par) & (t_par > 0), t_par, np.inf)
    return np.minimum(t_ell, np.minimum(t_line, t_par))


def _boundary_points(center, uc, shape, phi) -> np.ndarray:
    """Row-wise boundary points for per-row regions (center, uc: (P, 2); shape: (P, 2, 2))."""
    e = np.stack([np.cos(phi), np.sin(phi)], axis=1)
    d = np.einsum("pij,pj->pi", shape, e)
    return center + _ray_exit(center, uc, e, d)[:, None] * d


def _in_f(mu, nu, margin=0.0):
    return (nu - mu * mu > margin) & (mu - nu > margin)


def wald_region(estimates: TwoCallEstimates, alpha: float = 0.05, *, singular: str = "floor") -> WaldRegion:
    """The feasible Wald region C_alpha of eq. (wald-region-main) from the two-call estimates.

    Parameters
    ----------
    estimates : TwoCallEstimates
        theta-hat, Sigma-hat and N (from data or :func:`two_call_from_summary`).
    alpha : float
        Level: the region has asymptotic coverage 1 - alpha for theta.
    singular : {"floor", "pinv"}
        Rule for (near-)singular Sigma-hat (module docstring).

    Raises
    ------
    EmptyRegionError
        When no feasible theta lies in the Wald ellipse.
    """
    alpha = check_alpha(alpha)
    if singular not in ("floor", "pinv"):
        raise InputError(f"singular={singular!r} must be 'floor' or 'pinv'")
    n = estimates.n
    sigma = estimates.sigma
    r2 = chi2_quantile(1.0 - alpha, 2)
    lam, vec = np.linalg.eigh(sigma)
    if singular == "floor":
        tau = 1.0 / n
        floored = int(np.sum(lam < tau))
        lam = np.maximum(lam, tau)
        half = np.sqrt(lam * r2 / n)
    else:
        tiny = lam <= NULL_EIGENVALUE_RTOL * max(float(lam.max()), TINY)
        floored = int(np.sum(tiny))
        half = np.where(tiny, _UNBOUNDED, np.sqrt(np.maximum(lam, 0.0) * r2 / n))
    shape = vec * half  # columns: principal axes scaled to the ellipse's half-lengths
    th = np.array([estimates.mu, estimates.nu])
    center, degenerate = _center(th, shape)
    return WaldRegion(
        (float(th[0]), float(th[1])),
        ((float(sigma[0, 0]), float(sigma[0, 1])), (float(sigma[1, 0]), float(sigma[1, 1]))),
        n,
        float(alpha),
        r2,
        singular,
        floored,
        shape,
        center,
        degenerate,
    )


def _center(th: np.ndarray, shape: np.ndarray) -> tuple[np.ndarray, bool]:
    """An interior point of C: theta-hat if strictly feasible, else a centroid of interior grid points."""
    scale = float(np.max(np.abs(shape)))
    if _in_f(th[0], th[1], CENTER_MARGIN * scale) and scale > 0:
        return th.copy(), False
    for nr, na in CENTER_GRIDS:
        r = (np.arange(1, nr + 1) / nr)[:, None]
        a = np.linspace(0, 2 * np.pi, na, endpoint=False)[None, :]
        u = np.stack([(r * np.cos(a)).ravel(), (r * np.sin(a)).ravel()], axis=1)
        pts = th + u @ shape.T
        ok = _in_f(pts[:, 0], pts[:, 1], 0.0)
        if np.sum(ok) >= 3:
            return pts[ok].mean(axis=0), False
    # No interior grid point: project theta-hat onto F in the Wald metric (dense search over dF).
    s = np.linspace(0.0, 1.0, PROJECTION_POINTS)
    cand = np.concatenate([np.stack([s, s * s], 1), np.stack([s, s], 1)])
    u = np.linalg.solve(shape, (cand - th).T).T
    q = np.sum(u * u, axis=1)
    i = int(np.argmin(q))
    if q[i] > 1.0:
        raise EmptyRegionError(
            f"the Wald region around (mu-hat, nu-hat)=({th[0]:.6g}, {th[1]:.6g}) contains no feasible (mu, nu) "
            f"(closest has squared Wald distance {q[i]:.3g} > 1 in units of the radius): the data contradict the "
            "repeated-call model (calls independent given the example)"
        )
    return cand[i], True


# ----------------------------------------------------------------------------------------------
# Objective evaluation on batches of points


def _key(objective):
    """Hashable objective key: V_INF for V_inf, else the parsed Objective."""
    if is_vote_limit(objective):
        return V_INF
    return as_objective(objective)


def _vinf(mu: np.ndarray, nu: np.ndarray, sign: int) -> np.ndarray:
    out = np.empty(len(mu))
    for i, (m, v) in enumerate(zip(mu, nu)):
        e = endpoint_bounds(mu=float(m), nu=float(v))
        out[i] = e.upper if sign > 0 else -e.lower
    return out


def _values(key, mu: np.ndarray, nu: np.ndarray, sign: int, faces: Faces) -> np.ndarray:
    """sign = +1: U(theta); sign = -1: -L(theta) (so that both sides are maximized); ``faces`` shared by the
    projection."""
    mu = np.clip(mu, 0.0, 1.0)
    nu = np.clip(nu, mu * mu, mu)
    if key is V_INF:
        return _vinf(mu, nu, sign)
    if sign > 0:
        return sharp_bound_arrays(key, mu=mu, nu=nu, side="upper", faces=faces).upper
    return -sharp_bound_arrays(key, mu=mu, nu=nu, side="lower", faces=faces).lower


# ----------------------------------------------------------------------------------------------
# Corners of dC and linear minimization over C (for the certificate)


def _corners(region: WaldRegion) -> np.ndarray:
    """Points where the ellipse meets nu = mu or nu = mu^2, and corners of F inside the ellipse."""
    th = np.asarray(region.theta_hat)
    minv = np.linalg.inv(region.shape)
    m = minv.T @ minv  # (theta - th)' m (theta - th) = 1 on the ellipse
    pts = []
    # nu = mu: theta = (s, s)
    w = np.array([1.0, 1.0])
    a, b, c = w @ m @ w, -2 * w @ m @ th, th @ m @ th - 1
    for s in np.roots([a, b, c]):
        if abs(s.imag) < QUADRATIC_ROOT_IMAG:
            pts.append((s.real, s.real))
    # nu = mu^2: quartic in s
    dx, dy = (-th[0], -th[1])
    # (s + dx, s^2 + dy) m (.) = 1
    m11, m12, m22 = m[0, 0], m[0, 1], m[1, 1]
    poly = np.polynomial.Polynomial
    x, y = poly([dx, 1.0]), poly([dy, 0.0, 1.0])
    quart = m11 * x * x + 2 * m12 * x * y + m22 * y * y - 1
    for s in quart.roots():
        if abs(s.imag) < QUARTIC_ROOT_IMAG:
            pts.append((s.real, s.real**2))
    for p in ((0.0, 0.0), (1.0, 1.0)):
        if region.quad(np.array([p[0]]), np.array([p[1]]))[0] <= 1:
            pts.append(p)
    inside = np.array([p for p in pts if 0 <= p[0] <= 1], dtype=float).reshape(-1, 2)
    return inside[region.contains(inside[:, 0], inside[:, 1], CORNER_TOL)] if len(inside) else inside


def _linear_max(region: WaldRegion, g: np.ndarray, corners: np.ndarray) -> float:
    """max over C of g . theta, exactly (extreme points: tangencies and corners)."""
    th = np.asarray(region.theta_hat)
    cand = [corners] if len(corners) else []
    ag = region.shape.T @ g
    if np.linalg.norm(ag) > 0:
        cand.append((th + region.shape @ ag / np.linalg.norm(ag))[None, :])
    if g[1] < 0:  # stationary point of g1 s + g2 s^2 along the parabola (a maximum)
        s = -g[0] / (2 * g[1])
        cand.append(np.array([[s, s * s]]))
    pts = np.concatenate(cand) if cand else np.zeros((0, 2))
    ok = region.contains(pts[:, 0], pts[:, 1], CORNER_TOL) if len(pts) else np.zeros(0, bool)
    return float(np.max(pts[ok] @ g)) if np.any(ok) else float("nan")


# ----------------------------------------------------------------------------------------------
# Projection


@dataclass(frozen=True)
class ProjectedInterval(Record):
    """Interval hull of the projected identified region (eq. (projected-set-main)) for one objective.

    Attributes
    ----------
    objective : str
        ``"V3"``, ``"P3 - P1"``, ``"inf"`` ...
    lower, upper : float
        min over C_alpha of L and max over C_alpha of U.
    lower_at, upper_at : tuple of float
        The (mu, nu) attaining them.
    lower_gap, upper_gap : float
        Certified optimality gaps from the supporting planes (NaN when not
        computed: ``certify=False`` or V_inf, whose bounds have no dual plane).
    alpha : float
    """

    objective: str
    lower: float
    upper: float
    lower_at: tuple[float, float]
    upper_at: tuple[float, float]
    lower_gap: float
    upper_gap: float
    alpha: float


class _Search:
    """State of one endpoint search: maximize h(phi) = sign * bound along dC.

    ``brackets`` holds (phi_lo, phi_hi, h_lo, h_hi) with the end values known.
    """

    def __init__(self, region, key, sign, phis, corners):
        self.region, self.key, self.sign, self.corners = region, key, sign, corners
        self.phi = np.sort(np.mod(phis, 2 * np.pi))
        self.brackets: list[tuple] = []
        self.others: list[tuple] = []
        self.best = (-np.inf, None, None)


def _angles_of(region: WaldRegion, pts: np.ndarray) -> np.ndarray:
    if not len(pts):
        return np.zeros(0)
    u = np.linalg.solve(region.shape, (pts - region.center).T).T
    return np.arctan2(u[:, 1], u[:, 0])


def _run_round(tasks: list, faces: Faces) -> list:
    """Boundary points and values for all (search, angles) tasks: geometry in one vectorized pass,
    values in one engine call per (objective, side)."""
    sizes = [len(phi) for _, phi in tasks]
    phi = np.concatenate([phi for _, phi in tasks])
    regs = [s.region for s, _ in tasks]
    rep = lambda f: np.repeat(np.stack([f(r) for r in regs]), sizes, axis=0)  # noqa: E731
    pts = _boundary_points(rep(lambda r: r.center), rep(lambda r: r._uc), rep(lambda r: r.shape), phi)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    groups: dict = {}
    for j, (s, _) in enumerate(tasks):
        groups.setdefault((s.key if s.key is V_INF else s.key.name, s.sign), (s.key, s.sign, []))[2].append(j)
    out: list = [None] * len(tasks)
    for key, sign, items in groups.values():
        idx = np.concatenate([np.arange(starts[j], starts[j + 1]) for j in items])
        vals = _values(key, pts[idx, 0], pts[idx, 1], sign, faces)
        k = 0
        for j in items:
            out[j] = (pts[starts[j] : starts[j + 1]], vals[k : k + sizes[j]])
            k += sizes[j]
    return out


def project_many(
    regions, objectives, *, certify: bool = True, scan: int = 24, refine: int = 3, faces: Faces | None = None
) -> list[list[ProjectedInterval]]:
    """Projected interval hulls for several regions and objectives at once (eq. (projected-set-main)).

    Parameters
    ----------
    regions : sequence of WaldRegion
    objectives : sequence
        Vote counts (``3`` is V_1), :data:`certify.V_INF` (or ``"inf"``), or objective strings (``"V5 - V1"``).
    certify : bool
        Compute the supporting-plane optimality gap of every endpoint (one exact
        dual per endpoint). The best local optimum of the scan is refined first;
        with ``certify=True`` the others are refined only if the gap of the first
        exceeds GAP_RETRY (1e-9), without it every local optimum of the scan is.
    scan : int
        Angles in the first scan (plus every corner of the boundary).
    refine : int
        Points per bracket in a bisection-type round (the parabolic rounds use 3).
    faces : certify.solvers.Faces, optional
        Faces of the moment problem shared by every sharp bound of the projection (its
        rounds revisit nearby points) and with the caller's other solves; by default the
        projection keeps its own, so its result depends on its arguments alone.

    Returns
    -------
    list of list of ProjectedInterval
        ``[i][j]`` for region i and objective j.
    """
    keys = [_key(o) for o in objectives]
    faces = Faces() if faces is None else faces
    searches = []
    for reg in regions:
        corners = _corners(reg) if not reg.degenerate else np.zeros((0, 2))
        base = np.concatenate([np.linspace(0, 2 * np.pi, scan, endpoint=False), _angles_of(reg, corners)])
        for key in keys:
            for sign in (-1, 1):
                searches.append(_Search(reg, key, sign, base, corners))
    todo = [s for s in searches if not s.region.degenerate]
    for s in searches:
        if s.region.degenerate:
            p = s.region.center[None, :]
            s.best = (float(_values(s.key, p[:, 0], p[:, 1], s.sign, faces)[0]), float("nan"), p[0])
    if todo:
        for s, (pts, vals) in zip(todo, _run_round([(s, s.phi) for s in todo], faces)):
            s.others = _seed(s, vals, pts)
            if not certify:  # no certificate to detect a missed basin: refine every local optimum now
                s.brackets += s.others
                s.others = []
        _refine(todo, refine, faces)
    gaps = {id(s): (_gap(s, faces) if certify else float("nan")) for s in searches}
    retry = [s for s in todo if s.others and not gaps[id(s)] <= GAP_RETRY]
    if retry:
        for s in retry:
            s.brackets, s.others = s.others, []
        _refine(retry, refine, faces)
        gaps.update({id(s): _gap(s, faces) for s in retry})
    out = []
    it = iter(searches)
    for reg in regions:
        row = []
        for key in keys:
            lo_s, up_s = next(it), next(it)
            name = budget_json(key) if key is V_INF else key.name
            lo_at, up_at = lo_s.best[2], up_s.best[2]  # points (mu, nu) of dC
            row.append(
                ProjectedInterval(
                    name,
                    -lo_s.best[0],
                    up_s.best[0],
                    (float(lo_at[0]), float(lo_at[1])),
                    (float(up_at[0]), float(up_at[1])),
                    gaps[id(lo_s)],
                    gaps[id(up_s)],
                    reg.alpha,
                )
            )
        out.append(row)
    return out


def _parabola_vertex(x, y) -> float:
    """Abscissa of the vertex of the parabola through three points (NaN if degenerate)."""
    (x0, x1, x2), (y0, y1, y2) = x, y
    den = (x0 - x1) * (x0 - x2) * (x1 - x2)
    if den == 0:
        return float("nan")
    a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den
    b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den
    return -b / (2 * a) if a < 0 else float("nan")


def _proposals(br, refine: int) -> np.ndarray:
    """New angles for a bracket (lo, mid, hi): the parabolic vertex and two points beside it,
    or `refine` evenly spaced points when the parabola is unusable or the last step stalled."""
    lo, mid, hi, vlo, vmid, vhi, stalled = br
    p = _parabola_vertex((lo, mid, hi), (vlo, vmid, vhi))
    if stalled or not lo < p < hi:
        return np.linspace(lo, hi, refine + 2)[1:-1]
    room = min(p - lo, hi - p)
    h = min(max(0.25 * abs(p - mid), VERTEX_OFFSET), 0.5 * room)
    return np.array([p - h, p, p + h])


def _refine(searches, refine: int, faces: Faces) -> None:
    """Safeguarded parabolic search on every bracket (lo, mid, hi) with h(mid) >= h(lo), h(hi).

    Each round evaluates the vertex of the parabola through the bracket and two
    points beside it (superlinear on smooth maxima), or -- if the parabola is
    unusable or the previous round shrank the bracket by less than half --
    `refine` evenly spaced points (linear, guaranteed shrinkage). The bracket
    becomes the best point and its two neighbours. It is finished when narrower
    than PHI_TOL (1e-8 rad), or when both neighbours are within FLAT_TOL (1e-14) of the best value.
    """
    while True:
        live = [(s, br) for s in searches for br in s.brackets]
        if not live:
            return
        tasks = [(s, _proposals(br, refine)) for s, br in live]
        res = _run_round(tasks, faces)
        for s in searches:
            s.brackets = []
        for (s, br), (_, phi_new), (pts, vals) in zip(live, tasks, res):
            lo, mid, hi, vlo, vmid, vhi, _stalled = br
            phi = np.concatenate([[lo, mid, hi], phi_new])
            v = np.concatenate([[vlo, vmid, vhi], vals])
            order = np.argsort(phi, kind="stable")
            phi, v = phi[order], v[order]
            i = int(np.argmax(v))
            if order[i] >= 3 and v[i] > s.best[0]:
                s.best = (float(v[i]), float(phi[i]), pts[order[i] - 3])
            if i == 0 or i == len(v) - 1:  # cannot happen for a true bracket; keep the old one narrowed
                i = min(max(i, 1), len(v) - 2)
            j, k = i - 1, i + 1
            width = phi[k] - phi[j]
            if width > PHI_TOL and v[i] - min(v[j], v[k]) > FLAT_TOL:
                s.brackets.append((phi[j], phi[i], phi[k], v[j], v[i], v[k], width > 0.5 * (hi - lo)))


def _seed(s: _Search, vals: np.ndarray, pts: np.ndarray) -> list:
    """Bracket the best local maximum of the cyclic scan; return brackets of the other local maxima."""
    m = len(vals)
    is_local = (vals >= np.roll(vals, 1)) & (vals >= np.roll(vals, -1))
    i0 = int(np.argmax(vals))
    s.best = (float(vals[i0]), float(s.phi[i0]), pts[i0])

    def bracket(i):
        lo = s.phi[i - 1] if i > 0 else s.phi[-1] - 2 * np.pi
        hi = s.phi[i + 1] if i < m - 1 else s.phi[0] + 2 * np.pi
        return (
            float(lo),
            float(s.phi[i]),
            float(hi),
            float(vals[i - 1]),
            float(vals[i]),
            float(vals[(i + 1) % m]),
            False,
        )

    s.brackets = [bracket(i0)]
    # Plateaus (e.g. V_inf saturated at 1) make many equal local maxima: one per distinct value suffices.
    others, seen = [], {float(vals[i0])}
    for i in np.argsort(-vals):
        if is_local[i] and i != i0 and float(vals[i]) not in seen:
            seen.add(float(vals[i]))
            others.append(bracket(int(i)))
    return others


def _gap(s: _Search, faces: Faces) -> float:
    """Supporting-plane optimality gap of a finished search (0 = certified optimal)."""
    if s.key is V_INF:
        return float("nan")
    mu, nu = (float(x) for x in s.best[2])
    mu = min(max(mu, 0.0), 1.0)
    nu = min(max(nu, mu * mu), mu)
    b = sharp_bounds(s.key, mu=mu, nu=nu, faces=faces)
    side = b.upper if s.sign > 0 else b.lower
    g = s.sign * np.array(side.dual[1:])
    if s.region.degenerate:
        return 0.0
    best = _linear_max(s.region, g, s.corners)
    return max(float(best - g @ np.array([mu, nu])), 0.0)


def project(region: WaldRegion, objective, *, certify: bool = True) -> ProjectedInterval:
    """Interval hull [min_C L, max_C U] of the projected region (eq. (projected-set-main)) for one objective.

    Parameters
    ----------
    region : WaldRegion
    objective : int, str or Objective
        ``3`` is three votes (V_1); :data:`certify.V_INF` (or ``"inf"``) the infinite-vote endpoint
        (Theorem 4.3); strings such as ``"V5 - V1"`` are polynomial objectives.
    certify : bool
        Report supporting-plane optimality gaps.
    """
    return project_many([region], [objective], certify=certify)[0][0]
