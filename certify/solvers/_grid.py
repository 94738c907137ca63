"""The ``grid`` method: the primal moment LP over a fixed grid of atoms (cvxpy).

This is the baseline a user would write by hand for the sharp bound of
Theorem 4.1 (label ``thm:general-odd-main``; computations as in Appendix B):
restrict the latent law to ``size`` equispaced atoms x_i of [0, 1] and solve

    max  sum_i w_i f(x_i)   s.t.   sum_i w_i x_i^k = m_k  (k = 0..m),  w >= 0,

for f = sign * g. Restricting the atoms can only lose mass placement, so the grid
value is an *inner* bound (below the sharp upper bound of f). The LP's equality
multipliers y form a polynomial p = sum_k y_k q^k with p >= f on the grid only;
its violation max_[0,1] (f - p) measured between grid points gives an *outer*
bound, so

    grid value  <=  sharp value  <=  y . theta + violation,

and y . theta equals the grid value up to the LP solver's tolerance. For a
spacing h the violation is at most h^2/8 max|(f - p)''|, i.e. it grows with the
curvature of g: about 1e-7 for three votes and 2001 atoms, 1e-5 at 1001 votes.

The module also holds the cvxpy plumbing shared with :mod:`._sos` (solver-name
validation, iteration limits, the solve call mapped through :mod:`._status`).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection

import cvxpy as cp
import numpy as np

from .._errors import InputError, SolverError
from ._contact import law_on_points, max_violation, target
from ._solution import Solution
from ._status import check_cvxpy
from ._tolerances import GRID_SUPPORT_TOL

__all__ = ["solve_grid", "check_solver", "solve_checked", "GRID_SOLVERS", "LIMIT_OPTIONS", "DEFAULT_SIZE"]

#: Default number of equispaced atoms (spacing 1/2000).
DEFAULT_SIZE = 2001

#: cvxpy solver -> its own option names for an iteration limit and a time limit (s).
LIMIT_OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "CLARABEL": {"max_iter": ("max_iter",), "time_limit": ("time_limit",)},
    "HIGHS": {"max_iter": ("simplex_iteration_limit", "ipm_iteration_limit"), "time_limit": ("time_limit",)},
    "SCS": {"max_iter": ("max_iters",), "time_limit": ("time_limit_secs",)},
}

#: Accepted cvxpy solvers for the grid LP.
GRID_SOLVERS = ("CLARABEL", "HIGHS")


def check_solver(solver, method: str, allowed: Collection[str]) -> str:
    """Upper-cased solver name, or :class:`InputError` naming the value and the choices."""
    name = solver.upper() if isinstance(solver, str) else None
    if name is None or name not in allowed:
        raise InputError(
            f"solver={solver!r} is not available for method {method!r}; choose one of {', '.join(allowed)}"
        )
    return name


def solve_checked(problem: cp.Problem, solver: str, detail: str, max_iter=None, time_limit=None, **settings) -> None:
    """Solve ``problem`` with cvxpy and raise :class:`SolverError` unless optimal.

    Parameters
    ----------
    problem : cvxpy.Problem
    solver : str
        A validated cvxpy solver name (a key of :data:`LIMIT_OPTIONS`).
    detail : str
        Context for the error message (method, size, objective).
    max_iter : int, optional
        Iteration limit, translated to the solver's own option name(s). A small
        value forces a non-optimal status, which is refused like any other.
    time_limit : float, optional
        Wall-clock limit in seconds, likewise translated.
    **settings
        Further solver options (tolerances).
    """
    limits = {"max_iter": max_iter, "time_limit": time_limit}
    for key, value in limits.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value >= 0:
            raise InputError(f"{key}={value!r} must be a nonnegative number")
        cast = int if key == "max_iter" else float
        settings.update({opt: cast(value) for opt in LIMIT_OPTIONS[solver][key]})
    try:
        with warnings.catch_warnings():
            # cvxpy warns "Solution may be inaccurate"; such statuses raise below instead.
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=solver, **settings)
    except cp.error.SolverError as exc:
        # cvxpy raises instead of returning a status when the solver itself fails.
        raise SolverError(solver, cp.SOLVER_ERROR, f"{detail}: {exc}") from None
    check_cvxpy(problem, solver, detail)


def _grid_lp(objective, sign: int, m1: int, size: int):
    """The grid LP with the moment vector as a cvxpy Parameter, compiled once per target.

    Only theta changes between calls, so cvxpy's parametrized canonicalization
    is reused (the first solve of each (objective, side, order, size) pays it; the
    program is kept in ``Target.programs``); concurrent calls from several threads
    must therefore not share it.
    """
    T = target(objective, sign)
    return T.program(("grid", m1, size), lambda: _compile_grid_lp(T, m1, size))


def _compile_grid_lp(T, m1: int, size: int):
    x = np.linspace(0.0, 1.0, size)
    fvals = np.asarray(T(x), dtype=float)
    weights = cp.Variable(size, nonneg=True)
    theta = cp.Parameter(m1)
    moments = np.vander(x, m1, increasing=True).T @ weights == theta
    problem = cp.Problem(cp.Maximize(fvals @ weights), [moments])
    return problem, weights, theta, moments, x, fvals


def solve_grid(
    objective,
    theta: np.ndarray,
    sign: int,
    size: int = DEFAULT_SIZE,
    solver: str = "CLARABEL",
    max_iter=None,
    time_limit=None,
) -> Solution:
    """Maximize E[sign * g] over laws on ``size`` equispaced atoms with moments ``theta``.

    Parameters
    ----------
    objective, theta, sign
        As for :func:`._exact.solve_exact`: the objective g, the validated
        moments (1, m_1, ..., m_m), and +1 (upper bound) or -1 (lower bound).
    size : int, default 2001
        Number of grid atoms, at least 2 (0 and 1 are always atoms).
    solver : {"CLARABEL", "HIGHS"}
        cvxpy solver for the LP (case-insensitive).
    max_iter, time_limit : optional
        Iteration and wall-time (seconds) limits, see :func:`solve_checked`.

    Returns
    -------
    Solution
        A basic law (at most m+1 grid atoms) and the LP dual polynomial, whose
        ``violation`` on [0, 1] bounds the discretization error (module docstring).

    Raises
    ------
    InputError
        For an unknown solver or an unusable ``size`` / ``max_iter`` / ``time_limit``.
    SolverError
        Naming the solver and its status when the LP is not solved to optimality
        (e.g. moments on the boundary that no grid law matches exactly).
    """
    name = check_solver(solver, "grid", GRID_SOLVERS)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 2:
        raise InputError(f"size={size!r} must be an integer number of grid atoms >= 2")
    m1 = len(theta)
    problem, weights, theta_param, moments, x, fvals = _grid_lp(objective, int(sign), m1, int(size))
    theta_param.value = np.asarray(theta, dtype=float)
    detail = f"grid LP, {size} atoms, objective {objective.name}"
    solve_checked(problem, name, detail, max_iter, time_limit)
    # For ``Maximize`` cvxpy's multiplier of ``A w == theta`` is y with
    # A^T y >= f on the grid and y . theta = optimum (checked in the tests).
    y = np.asarray(moments.dual_value, dtype=float)
    support = np.nonzero(np.asarray(weights.value) > GRID_SUPPORT_TOL)[0]
    atoms, w = law_on_points(x[support], np.asarray(theta, dtype=float), fvals[support], f"grid/{name}")
    violation = max_violation(target(objective, sign), y)[0]
    return Solution(atoms, w, y, f"grid/{name}", int(problem.solver_stats.num_iters or 0), violation, "grid")
