"""Solvers for the sharp-bound moment programs: a map for a newcomer.

Every public bound (``certify.sharp_bounds``, ``certify.sharp_bound_arrays``) maximizes
E[f] with f = sign * g over laws on [0, 1] with moments theta = (1, m_1, ..., m_m), and
returns a law and a polynomial p >= f of degree m that touch at the law's atoms
(Theorem 4.1).

Solvers
-------

* :func:`solve_exact` -- maximize E[sign * g] over laws on [0, 1] with moments ``theta`` (the default method).
* :func:`solve_sos` -- the same by an SOS program (cvxpy).
* :func:`solve_grid` -- the same over laws on ``size`` equispaced atoms (cvxpy).
* :func:`batch_upper` -- sharp max of E[sign * g] for every (mu, nu) of an array (m = 2), with path counts.
* :class:`Faces` -- faces of the moment problem that the solves of one computation share.

Targets and contacts
--------------------

* :func:`target` -- the :class:`Target` of an objective and a side (+1 upper, -1 lower), from :data:`TARGETS`.
* :class:`Target` -- f = sign * g sampled on a Chebyshev-Lobatto grid of [0, 1], and what the solvers build from it.
* :class:`TargetCache` -- the :class:`Target` of each (objective, side) in use, least recently used dropped first.
* :data:`TARGETS` -- the process's one solver cache (a :class:`TargetCache`); no result depends on it.
* :func:`kkt_system` -- residual and Jacobian of the optimality (KKT) system of a contact pattern.
* :func:`max_violation` -- largest value of f - p on [0, 1] and where it occurs.

How a bound is solved
---------------------

Three methods; ``exact`` is the default::

    sharp_bounds(method=...)
      |- "sos"   -> _sos.solve_sos      dual as an SOS program (cvxpy + Clarabel / SCS)
      |- "grid"  -> _grid.solve_grid    primal LP on a grid of atoms (cvxpy + Clarabel / HiGHS)
      '- "exact" -> _exact.solve_exact  the routes below, each ending in _exact._accept

    solve_exact(objective, theta, sign): one pipeline (_exact._solve). Proposers, in
    this order, each yield candidates; the first candidate that _exact._finish polishes
    and accepts wins, and its route is recorded (Solution.route, _solution.ROUTES):
      0. _boundary_law: the boundary of the moment space -> "boundary"
         (_boundary.unique_law + its Hermite dual; the only law, so a refusal raises)
      1. _known_face: a face found before (the caller's Faces) -> "face"
      2. _grid_hull_patterns (m = 2): the facet of _hull.grid_hull(T) above (mu, nu)
           two interior contacts  -> "bitangent" (_two_moments.bitangent_law, 2 x 2 Newton)
           both endpoint laws     -> "endpoint"  (_two_moments.endpoint_law, closed form)
           an end contact's neighbour as an interior start -> "bitangent"
           the hull's pattern     -> "hull"      (KKT Newton)
      3. _exchange_patterns: the exchange (revised simplex) on the grid, then on [0, 1]
         at tighter tolerances (_tolerances.EXCHANGE_TOLS); each basis yields its
         merged contacts (MERGE_GAPS), then itself -> "exchange". Generators: the
         continuous exchange runs only if everything before was refused. Moments
         outside the grid's moment space (atoms closer than grid points) leave
         artificial columns in the grid basis; the exchange on [0, 1] removes them.
         One left after that means their cost was too small against the duals (10
         moments near the edge of the moment space): a first phase proper
         (_feasible_basis) finds an atoms-only basis and the exchange runs again.
      _finish, the one end of every route: a pattern is polished by Newton on
      _contact.kkt_system (which the exact certificates also polish in mpmath), and a
      result with two interior contacts (m = 2) is finished by bitangent_law, so every
      route to that pattern ends at the same law. Accepted (_exact._accept): the law
      has the moments to MOMENT_TOL with weights >= -WEIGHT_TOL, and max(f - p) on
      [0, 1] <= _contact.accept_tolerance: ACCEPT_TOL (scale + sum|p|), the rounding of
      evaluating p, capped at ACCEPT_MAX_VIOLATION (scale) for the large coefficients of
      high moment orders (_contact.max_violation, a grid screen with Newton-refined
      maxima). Faces skip it: their dual was accepted, to the tighter
      FACE_MAX_VIOLATION, when remembered, and face_weights checks their moments. A
      law with m + 1 well-separated contacts is remembered in the caller's Faces.

    sharp_bound_arrays (m = 2, many points) -> _batch.batch_upper, the same proposers
    on arrays with the same functions (a float is one point, an array many), counted by
    route in BoundArrays.paths: boundary (closed form), face (face_weights, faces found
    by this batch's own pointwise solves: one Faces per call), endpoint
    (the better endpoint law per point), bitangent (started from the endpoint law's
    interior atom and its worst grid point, then from the nearest solved point); every
    dual screened by _batch._check (the grid cell bounds of _contact.cell_bounds, as
    in the per-point screen, then max_violation), and every point left over through
    solve_exact ("pointwise"). On the same (mu, nu), batch and per-point values agree
    to 1e-15 (tests/test_bound_arrays.py).

Modules: ``_contact`` (the Target, polynomial evaluation, residual maxima, violations,
the KKT system), ``_tolerances`` (every tolerance of the exact solver, with why),
``_two_moments`` (the m = 2 patterns, for points and arrays), ``_hull``, ``_boundary``,
``_exact``, ``_batch``, ``_sos``, ``_grid``, ``_status`` (solver statuses in one table),
``_solution``.

Two implementations remain on purpose: the majorant screen near the contacts is a
scalar loop for one point (``_contact._screen``, the hot path of every per-point
solve) and an array pass for many (``_batch._check_on``); both bound the grid cells
with ``cell_bounds`` and leave what they cannot decide to ``max_violation``. The
array pass on a one-row array costs 2 to 5 times the scalar screen per dual (3 to
1001 votes, ``benchmarks/bench_pipeline.py``, table in ``benchmarks/RESULTS.md``),
and the screen is most of a per-point solve, so one array-first screen would break
the 1.2x per-pair budget.

State
-----

All of it is visible:

* the targets, :data:`TARGETS` (a :class:`TargetCache`): per (objective, side), at most 128 of them,
  the objective sampled on its contact grid, its grid hull, a finer sampling for the
  batch screen and compiled cvxpy programs. Each is a deterministic function of the
  objective and the side, so it saves time and never changes a result;
  ``TARGETS.clear()`` empties it.
* faces, :class:`Faces`: faces of the moment problem that solves found, reused by later solves
  given the same object. Only a caller that creates one has one: ``sharp_bound_arrays``
  and ``certify.stats.project_many`` make one per call, ``certify.analysis.analyze`` one for
  all the bounds of an analysis, a single solve none. So the route a call takes, and its
  floats, depend on its inputs alone, never on what ran before in the process
  (``tests/test_solver_state.py``).
* In the math core, ``functools.lru_cache`` memoizes two integer-keyed tables of the
  majority polynomials (``certify._majority``) and the parsed objectives
  (``certify._objective``): bounded, and pure (their docstrings say why).

Nothing else is kept between calls.
"""

import importlib

from ._contact import TARGETS, Target, TargetCache, kkt_system, max_violation, target

__all__ = [
    "TARGETS",
    "Faces",
    "Target",
    "TargetCache",
    "batch_upper",
    "kkt_system",
    "max_violation",
    "solve_exact",
    "solve_grid",
    "solve_sos",
    "target",
]

#: Solver entry points (and the exact method's :class:`Faces`), imported on first use:
#: ``sos`` and ``grid`` load cvxpy, which a command that never calls them should not pay for.
_LAZY = {
    "Faces": "._exact",
    "solve_exact": "._exact",
    "solve_sos": "._sos",
    "solve_grid": "._grid",
    "batch_upper": "._batch",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
