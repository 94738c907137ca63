"""Contact-point geometry shared by the solvers.

Every sharp bound is a pair (law, polynomial p >= f on [0, 1]) touching at the
law's atoms (Theorem 4.1). This module holds what all solvers need to work with
such pairs: the target f = sign * g sampled on a fine grid, polynomial evaluation
(:func:`horner`, floats or arrays), local maximization of the residual f - p, the
numerical violation of a candidate dual (:func:`max_violation`, with the grid cell
bounds :func:`cell_bounds` that the array screen shares), the KKT system of a contact
pattern (:func:`kkt_system`) and its Hermite start (:func:`hermite`), and recovery of
an extremal law from the contact points of a dual.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from typing import TYPE_CHECKING, cast, overload

import numpy as np

from .._errors import SolverError
from .._screen import CONTACT, POLICIES, Extrema, grid, grid_minima, polish
from .._support import Support
from ._tolerances import (
    ACCEPT_MAX_VIOLATION,
    ACCEPT_TOL,
    BAND_SLACK,
    CONTACT_DECIMALS,
    RECOVERY_MOMENT_TOL,
    RECOVERY_SUPPORT,
    ROUNDING,
    TANGENCY_TOL,
)

if TYPE_CHECKING:
    from ._hull import GridHull


class Target:
    """f = sign * g sampled on a Chebyshev-Lobatto grid of [0, 1], and what the solvers build from it.

    The grid is the core's contact grid (:func:`certify._screen.grid`): about four points
    per unit of degree, enough to resolve every local extremum of a polynomial of that
    degree; it is refined by Newton steps.

    Besides the samples, a target memoizes what the solvers build from (objective, sign)
    alone, on first use, dropped by :meth:`clear`:

    * ``hull`` -- the grid hull of the two-moment problem (:func:`._hull.grid_hull`);
    * ``fine`` -- a finer sampling for the batch screen (:mod:`._batch`);
    * ``programs`` -- compiled cvxpy programs with the moments as a parameter, by
      (method, m + 1, size) (:mod:`._grid`, :mod:`._sos`).

    Each is a deterministic function of (objective, sign), rebuilt identically after a
    :meth:`clear`, so a target never changes a result, only how long it takes. What solves
    learn from each other (faces of the moment problem) is not kept here but in a
    :class:`._exact.Faces` that a caller passes (a batch does).
    """

    def __init__(self, objective, sign: int):
        self.objective = objective
        self.sign = float(sign)
        x = grid(objective.degree, CONTACT)
        self.grid = x
        self.values = self.sign * np.asarray(objective.evaluate(x), dtype=float)
        self.scale = 1.0 + float(np.max(np.abs(self.values)))
        # Between grid points f - p can exceed its sampled values by at most
        # h^2/8 max|f'' - p''|: local maxima within that band must be refined.
        self.h = float(np.max(np.diff(x)))
        self.cell_band2 = 0.25 * np.diff(x) ** 2  # twice h^2/8: see _cell_bounds
        self.vander2 = np.vander(x, 3, increasing=True)
        self.second = self.sign * np.asarray(objective.evaluate(x, 2), dtype=float)
        self.curvature = float(np.max(np.abs(self.second)))
        # Python lists for the scalar loops of the hot path
        self.grid_list = x.tolist()
        self.second_list = self.second.tolist()
        self._ends = (float(self(0.0, 1)), float(self(1.0, 1)))
        self.hull: GridHull | None = None
        # the batch screen's finer sampling (X, f(X), f''(X), cell bands), see ._batch
        self.fine: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.programs: dict[tuple, tuple] = {}

    def program(self, key: tuple, build):
        """The compiled program ``key``, built by ``build()`` on first use and kept in ``programs``."""
        if key not in self.programs:
            self.programs[key] = build()
        return self.programs[key]

    def clear(self) -> None:
        """Forget the hull, the fine grid and the compiled programs."""
        self.hull = None
        self.fine = None
        self.programs = {}

    def first_at(self, end: float) -> float:
        """f'(0) or f'(1), cached."""
        return self._ends[0] if end == 0.0 else self._ends[1]

    def band(self, y) -> float:
        """Height below the sampled maximum within which a local maximum may hide a larger one."""
        c2 = float(np.sum(np.abs(np.arange(len(y)) * (np.arange(len(y)) - 1) * np.asarray(y))))
        return 0.125 * self.h**2 * (self.curvature + c2) + BAND_SLACK * self.scale

    def __call__(self, x, derivative: int = 0):
        return self.sign * self.objective.evaluate(x, derivative)

    def jet(self, x: float) -> tuple[float, float, float]:
        """f(x), f'(x), f''(x) at one point."""
        s = self.sign
        f0, f1, f2 = self.objective.jet(float(x))
        return s * f0, s * f1, s * f2

    def jets(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """f, f' and f'' on an array (the array twin of :meth:`jet`), from one jet of the objective."""
        f0, f1, f2 = self.objective.evaluate_jet(x)
        return self.sign * f0, self.sign * f1, self.sign * f2


class TargetCache:
    """The :class:`Target` of each (objective, side) in use, least recently used dropped first.

    Kept: at most ``maxsize`` targets (128 by default), each holding the objective sampled on
    its contact grid and what :class:`Target` memoizes (grid hull, fine grid, compiled
    programs). Why: an objective's grid and hull cost more than most solves, and the same
    objective is solved at many moments. It cannot change a result: every entry is a
    deterministic function of (objective, side), rebuilt identically after :meth:`clear`
    or eviction. ``len`` says how many targets are kept.
    """

    def __init__(self, maxsize: int = 128):
        self.maxsize = maxsize
        self._targets: OrderedDict[tuple, Target] = OrderedDict()

    def get(self, objective, sign: int) -> Target:
        key = (objective, float(sign))
        found = self._targets.get(key)
        if found is None:
            found = self._targets[key] = Target(objective, sign)
            while len(self._targets) > self.maxsize:
                self._targets.popitem(last=False)
        else:
            self._targets.move_to_end(key)
        return found

    def clear(self) -> None:
        self._targets.clear()

    def __len__(self) -> int:
        return len(self._targets)


#: The targets the solvers use: the process's one solver cache (:class:`TargetCache` says what
#: it keeps and why no result depends on it); ``certify.solvers.TARGETS.clear()`` empties it.
TARGETS = TargetCache()


def target(objective, sign: int) -> Target:
    """The :class:`Target` of an objective and a side (+1 upper, -1 lower), from :data:`TARGETS`."""
    return TARGETS.get(objective, sign)


def poly(y: np.ndarray, x, derivative: int = 0):
    """Value or derivative of the polynomial with monomial coefficients ``y`` (float or array ``x``)."""
    return horner(_derivs(y)[derivative], x)


def horner(c: list, x):
    """The polynomial with coefficients ``c`` (lowest first) at a float or an array."""
    acc = 0.0
    for coef in reversed(c):
        acc = acc * x + coef
    return acc


def _derivs(y) -> tuple[list, list, list]:
    """Coefficient lists of a polynomial and its first two derivatives (floats: the scalar hot path)."""
    c0 = list(map(float, y))
    c1 = [k * c0[k] for k in range(1, len(c0))] or [0.0]
    c2 = [k * c1[k] for k in range(1, len(c1))] or [0.0]
    return c0, c1, c2


def _residual(T: Target, y: np.ndarray):
    """r = f - p as :func:`certify._screen.polish` takes it: (slopes, value), for a float or an array.

    Evaluated point by point with the scalar jet of the objective: the solvers polish a
    few points at a time (one cell, one contact), where an array evaluation of a majority
    polynomial costs tens of times a scalar one.
    """
    c0, c1, c2 = _derivs(y)

    def slope(t: float) -> tuple[float, float]:
        _, f1, f2 = T.jet(t)
        return f1 - horner(c1, t), f2 - horner(c2, t)

    def slopes(x):
        if not isinstance(x, np.ndarray):
            return slope(x)
        pairs = [slope(t) for t in x.tolist()]
        return np.array([d1 for d1, _ in pairs]), np.array([d2 for _, d2 in pairs])

    def value(x):
        if not isinstance(x, np.ndarray):
            return float(T(x)) - horner(c0, x)
        return np.array([float(T(t)) - horner(c0, t) for t in x.tolist()])

    return slopes, value


@overload
def maxima_at(T: Target, y: np.ndarray, idx: int, r: np.ndarray) -> tuple[float, float]: ...
@overload
def maxima_at(T: Target, y: np.ndarray, idx: np.ndarray, r: np.ndarray) -> Extrema: ...
def maxima_at(T: Target, y: np.ndarray, idx, r: np.ndarray) -> Extrema | tuple[float, float]:
    """Local maxima of r = f - p from the grid points ``idx`` (an array, or one index: floats back).

    ``r`` holds r on the grid. The core screen's polish (:func:`certify._screen.polish`),
    brackets one grid cell on either side: an end of [0, 1] that r leaves downhill is a
    maximum as it is.
    """
    slopes, value = _residual(T, y)
    g, n = T.grid, len(T.grid)
    lo, hi = g[np.maximum(idx - 1, 0)], g[np.minimum(idx + 1, n - 1)]
    x0, v0 = g[idx], r[idx]
    if np.ndim(idx) == 0:
        lo, hi, x0, v0 = float(lo), float(hi), float(x0), float(v0)
    return polish(slopes, value, lo, hi, x0, v0, POLICIES[CONTACT].step_tol, maximize=True)


def maximum_in(T: Target, y: np.ndarray, a: float, b: float, x: float) -> tuple[float, float]:
    """Local maximum of r = f - p in [a, b] from ``x`` (the core screen's polish); (x, r(x))."""
    slopes, value = _residual(T, y)
    found = polish(slopes, value, a, b, x, value(x), POLICIES[CONTACT].step_tol, maximize=True)
    # one candidate (floats in): the Extrema holds floats, though its fields are annotated as arrays
    return cast(float, found.points), cast(float, found.values)


def ascent_from(T: Target, y: np.ndarray, x: float) -> tuple[float, float]:
    """Local maximum of r = f - p reached from ``x`` by moving uphill.

    Used at interior contact points of a basis, where r = 0 but r' may not
    vanish: the grid can miss the narrow uphill side. At a genuine tangency
    (r' = 0 to rounding, r'' < 0) the point itself is the local maximum.
    """
    c0, c1, c2 = _derivs(y)
    s1 = float(T(x, 1)) - horner(c1, x)
    s2 = float(T(x, 2)) - horner(c2, x)
    if abs(s1) <= TANGENCY_TOL * T.scale * (1.0 + float(np.sum(np.abs(y)))) and s2 < 0:
        return x, float(T(x) - horner(c0, x))
    g = T.grid
    j = int(np.searchsorted(g, x))
    if s1 > 0:
        b = float(g[min(j + 1, len(g) - 1)])
        return maximum_in(T, y, x, b, 0.5 * (x + b))
    a = float(g[max(j - 2, 0)])
    return maximum_in(T, y, a, x, 0.5 * (a + x))


#: Grid cells on each side of a contact judged by the curvature of f - p, not its value.
WINDOW = 2


def cell_bounds(r: np.ndarray, curvature: np.ndarray, band2: np.ndarray) -> np.ndarray:
    """Upper bound of r = f - p on each grid cell, from samples of r and |r''| (last axis).

    On a cell of width h, r exceeds the larger of its end values by at most
    h^2/8 max|r''|; max|r''| over the cell is taken as twice the larger sampled
    |r''| at its ends (the grid has about four points per unit of degree, so
    r'' cannot change by more than that within a cell): ``band2`` = h^2/4 per cell.
    One row per polynomial for the array screen of :mod:`._batch`.
    """
    return np.maximum(r[..., :-1], r[..., 1:]) + band2 * np.maximum(curvature[..., :-1], curvature[..., 1:])


def _cell_bounds(T: Target, r: np.ndarray, c2: list) -> np.ndarray:
    """:func:`cell_bounds` on the target's grid for one polynomial with second-derivative coefficients ``c2``."""
    return cell_bounds(r, np.abs(T.second - (c2[0] if len(c2) == 1 else horner(c2, T.grid))), T.cell_band2)


def _screen(T: Target, c: tuple, r: np.ndarray, bound: np.ndarray, contacts) -> tuple[float, float] | None:
    """(max of f - p, where) when the grid alone decides it; None otherwise.

    The grid decides when every cell away from the contacts provably stays
    below 0 (:func:`_cell_bounds`) and on a window of cells around each
    contact r has one curvature sign, so that its maximum there is at the
    contact or at a sampled point: concave around an interior tangency, concave
    or convex around an endpoint contact that r leaves downhill. This is the
    hot path of every accepted certificate. ``bound`` is overwritten.
    """
    g, second = T.grid_list, T.second_list
    last = len(g) - 1
    c0, c1, c2 = c
    best_x, best = float("nan"), -np.inf
    tangency = TANGENCY_TOL * T.scale * (1.0 + sum(map(abs, c0)))
    for x in contacts:
        x = float(x)
        f0, f1, f2 = T.jet(x)
        slope = f1 - horner(c1, x)
        if x <= 0.0:
            lo, hi, inner = 0, WINDOW, False
            if slope > 0.0:  # f - p leaves 0 uphill
                return None
        elif x >= 1.0:
            lo, hi, inner = last - WINDOW, last, False
            if slope < 0.0:
                return None
        else:
            j = bisect.bisect_left(g, x)
            lo, hi, inner = max(j - WINDOW, 0), min(j + WINDOW - 1, last), True
            if abs(slope) > tangency or f2 - horner(c2, x) >= 0.0:
                return None
        # grid points lo..hi span the window's cells lo..hi-1
        curv = [second[k] - horner(c2, g[k]) for k in range(lo, hi + 1)]
        if not (all(v < 0.0 for v in curv) or (not inner and all(v > 0.0 for v in curv))):
            return None
        bound[lo:hi] = -np.inf
        k = max(range(lo, hi + 1), key=lambda i: r[i])
        for xv, v in ((x, f0 - horner(c0, x)), (g[k], float(r[k]))):
            if v > best:
                best_x, best = xv, v
    if np.max(bound) > rounding(T):
        return None
    return best, best_x


def rounding(T: Target) -> float:
    """Size of rounding errors in sampled f - p: differences below it are not searched."""
    return ROUNDING * T.scale


def accept_tolerance(T: Target, y: np.ndarray):
    """The largest max(f - p) on [0, 1] at which a dual with coefficients ``y`` (one per row for
    a batch) is accepted: the rounding of evaluating it, ACCEPT_TOL (T.scale + sum|y|), capped at
    ACCEPT_MAX_VIOLATION T.scale (the one rule of every route)."""
    rounding_bound = ACCEPT_TOL * (T.scale + np.sum(np.abs(np.asarray(y, dtype=float)), axis=-1))
    return np.minimum(rounding_bound, ACCEPT_MAX_VIOLATION * T.scale)


def max_violation(T: Target, y: np.ndarray, contacts=None) -> tuple[float, float]:
    """Largest value of f - p on [0, 1] and where it occurs.

    When the caller knows the contact points of p (where p = f), the grid
    usually decides alone (:func:`_screen`). Otherwise a branch and bound over
    the grid cells: every cell whose bound (:func:`_cell_bounds`) exceeds the
    best value found so far is searched by safeguarded Newton, largest bound
    first, so excursions between grid points are found and cells where f - p
    is flat to rounding cost nothing. The value is exact up to rounding
    (:func:`rounding`).
    """
    c = _derivs(y)
    r = T.values - (T.vander2 @ y if len(c[0]) == 3 else horner(c[0], T.grid))
    bound = _cell_bounds(T, r, c[2])
    if contacts is not None and len(contacts):
        found = _screen(T, c, r, bound, contacts)
        if found is not None:
            return found
        bound = _cell_bounds(T, r, c[2])  # the screen masked its windows
    i_top = int(np.argmax(r))
    best_x, best = float(T.grid[i_top]), float(r[i_top])
    # Cells that cannot beat the best value by more than rounding are not searched:
    # where f - p is flat to rounding (f = 1 to all digits, say) that is most of them.
    slack = rounding(T)
    cells = np.nonzero(bound > best + slack)[0]
    g = T.grid_list
    for i in cells[np.argsort(-bound[cells])].tolist():
        if bound[i] <= best + slack:
            break
        x, v = maximum_in(T, y, g[i], g[i + 1], 0.5 * (g[i] + g[i + 1]))
        if v > best:
            best_x, best = x, v
    return best, best_x


def contact_points(T: Target, y: np.ndarray, tol: float) -> np.ndarray:
    """Points of [0, 1] where f - p comes within ``tol`` (relative) of its maximum 0.

    Grid local maxima are screened with :meth:`Target.band`, not with ``tol``: a
    tangency between grid points shows on the grid up to the band below its
    true height, so only refined values are held to ``tol``.
    """
    r = T.values - poly(y, T.grid)
    idx = grid_minima(-r)
    idx = idx[r[idx] > -tol * T.scale - T.band(y)]
    found = maxima_at(T, y, idx, r)
    pts = found.points[found.values >= -tol * T.scale]
    return np.unique(np.round(pts, CONTACT_DECIMALS))


def kkt_system(x: list, w: list, c: list, theta: list, f, inner: list, fsum=sum):
    """Residual and Jacobian of the optimality (KKT) system of a contact pattern (Theorem 4.1).

    Unknowns, in this order: the dual coefficients c (p = sum_k c_k q^k), the weights
    w_j of the atoms x_j, the interior atoms x_j (j in ``inner``). Equations: the moment
    equations sum_j w_j x_j^k = theta_k, contact p(x_j) = f(x_j) at every atom, and
    tangency p'(x_j) = f'(x_j) at interior atoms. ``f(k, x)`` is f^(k)(x). Written in
    plain arithmetic so that one system serves floats (:func:`._exact._newton_kkt`) and
    mpmath numbers (the exact certificates' polishing, with ``fsum=mpmath.fsum``).

    Returns
    -------
    (F, J)
        Lists: F[i] the residuals, J[i][j] the Jacobian.
    """
    m1, n = len(theta), len(x)
    size = m1 + n + len(inner)
    zero = 0 * theta[0]
    F = [zero] * size
    J = [[zero] * size for _ in range(size)]
    for k in range(m1):
        F[k] = fsum(w[j] * x[j] ** k for j in range(n)) - theta[k]
        for j in range(n):
            J[k][m1 + j] = x[j] ** k
            J[m1 + j][k] = x[j] ** k
        for i, j in enumerate(inner):
            J[k][m1 + n + i] = k * w[j] * x[j] ** (k - 1) if k else zero
    for j in range(n):
        F[m1 + j] = fsum(c[k] * x[j] ** k for k in range(m1)) - f(0, x[j])
    for i, j in enumerate(inner):
        row = m1 + n + i
        F[row] = fsum(k * c[k] * x[j] ** (k - 1) for k in range(1, m1)) - f(1, x[j])
        J[m1 + j][row] = F[row]
        J[row][row] = fsum(k * (k - 1) * c[k] * x[j] ** (k - 2) for k in range(2, m1)) - f(2, x[j])
        for k in range(1, m1):
            J[row][k] = k * x[j] ** (k - 1)
    return F, J


def hermite(T: Target, atoms: np.ndarray, size: int, square: bool = False) -> np.ndarray:
    """Coefficients (``size`` of them) of the polynomial with p = f at ``atoms`` and p' = f' at the interior ones.

    Least squares (a start for Newton's method, whatever the pattern), or with ``square``
    the exact solution of a square system (the boundary duals of :mod:`._boundary` need
    p = f to rounding at the atoms).
    """
    inner = atoms[(atoms > 0.0) & (atoms < 1.0)]
    slopes = np.zeros((len(inner), size))
    slopes[:, 1:] = np.vander(inner, size - 1, increasing=True) * np.arange(1, size)
    A = np.vstack([np.vander(atoms, size, increasing=True), slopes])
    b = np.concatenate([np.atleast_1d(T(atoms)), np.atleast_1d(T(inner, 1))])
    return np.linalg.solve(A, b) if square else np.linalg.lstsq(A, b, rcond=None)[0]


def law_on_points(points: np.ndarray, theta: np.ndarray, fvals: np.ndarray, solver_name: str) -> Support:
    """A basic (at most m+1 atoms) law on ``points`` with moments ``theta`` maximizing E[f].

    HiGHS's dual simplex picks the vertex (an optimal basic solution has at most
    len(theta) atoms); the weights are then re-solved on that support by least
    squares, because HiGHS meets the moments only to its 1e-7 feasibility
    tolerance.

    Raises
    ------
    SolverError
        If no law on ``points`` has these moments (residual above RECOVERY_MOMENT_TOL).
    """
    from scipy import optimize  # only the cvxpy methods recover laws this way

    m1 = len(theta)
    A = np.vander(points, m1, increasing=True).T
    res = optimize.linprog(-fvals, A_eq=A, b_eq=theta, bounds=(0, None), method="highs-ds")
    if res.status != 0:
        raise SolverError(solver_name, "law recovery failed", str(res.message))
    atoms = points[res.x > RECOVERY_SUPPORT]
    vander = np.vander(atoms, m1, increasing=True).T
    weights = np.linalg.lstsq(vander, theta, rcond=None)[0]
    residual = float(np.max(np.abs(vander @ weights - theta)))
    if residual > RECOVERY_MOMENT_TOL or np.any(weights < 0.0):
        raise SolverError(
            solver_name, "law recovery failed", f"moment residual {residual:.2g}, smallest weight {np.min(weights):.2g}"
        )
    return Support(atoms, weights)
