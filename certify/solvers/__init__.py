"""Solvers for the sharp-bound moment programs: a map for a newcomer.

Every public bound (``certify.sharp_bounds``, ``certify.sharp_bound_arrays``) maximizes
E[f] with f = sign * g over laws on [0, 1] with moments theta = (1, m_1, ..., m_m), and
returns a law and a polynomial p >= f of degree m that touch at the law's atoms
(Theorem 4.1). Three methods; ``exact`` is the default::

    sharp_bounds(method=...)
      |- "sos"   -> _sos.solve_sos      dual as an SOS program (cvxpy + Clarabel / SCS)
      |- "grid"  -> _grid.solve_grid    primal LP on a grid of atoms (cvxpy + Clarabel / HiGHS)
      '- "exact" -> _exact.solve_exact  exact routes below, each ending in _exact._accept

    solve_exact(objective, theta, sign), first route that is accepted wins:
      0. boundary of the moment space  -> _boundary.unique_law (+ its Hermite dual)
      1. m = 2:
         a. a face found before         -> Target.faces (three contacts fix the dual)
         b. the grid hull's facet        -> _hull.grid_hull(T).locate(mu, nu): contact pattern
              two interior contacts       -> _two_moments.bitangent_law (2 x 2 Newton)
              an endpoint contact         -> _two_moments.endpoint_law (closed form)
              otherwise                   -> _exact._polish (Newton on the KKT system)
      1'. m != 2: a face found before    -> Target.faces
      2. the exchange (revised simplex) on the grid of T, then _polish on the merged
         contacts; failing that, the continuous exchange at tighter tolerances
         (_tolerances.EXCHANGE_TOLS) and _polish again.
      Accepted (``_accept``): the law has the moments to MOMENT_TOL with weights >=
      -WEIGHT_TOL, and max(f - p) on [0, 1] <= ACCEPT_TOL (_contact.max_violation, a
      grid scan with Newton-refined maxima). A law with m + 1 well-separated contacts
      is remembered in Target.faces.

    sharp_bound_arrays (m = 2, many points) -> _batch.batch_upper, the same routes on arrays:
      faces, the endpoint candidates (screened on the grid with a cell margin),
      two interior contacts by a batched Newton, the boundary in closed form, and every
      point left over through solve_exact.

Modules: ``_contact`` (the Target, residual maxima, violations), ``_tolerances`` (every
tolerance of the exact solver, with why), ``_two_moments`` (closed forms for m = 2),
``_hull``, ``_boundary``, ``_exact``, ``_batch``, ``_sos``, ``_grid``, ``_status`` (solver
statuses in one table), ``_solution``.

State: the solvers keep what they learn about an objective (grid hull, faces of the
moment problem, compiled cvxpy programs) in its :class:`Target`, and the targets in
use in :data:`TARGETS`; ``TARGETS.clear()`` resets them all, and nothing else is kept
between calls.

Known duplication (issue: one pipeline): the batch's two-contact Newton (7 x 7 KKT,
arrays) and ``bitangent_law`` (2 x 2, one point) solve the same equations, and the
batch's majorant screen repeats ``_contact``'s; batch and per-point values agree to a
few 1e-15 (benchmarks/RESULTS.md).
"""

import importlib

from ._contact import TARGETS, Target, TargetCache, max_violation, target

__all__ = ["TARGETS", "Target", "TargetCache", "batch_upper", "max_violation", "solve_exact", "solve_grid",
           "solve_sos", "target"]

#: Solver entry points, imported on first use: ``sos`` and ``grid`` load cvxpy, which a
#: command that never calls them should not pay for.
_LAZY = {"solve_exact": "._exact", "solve_sos": "._sos", "solve_grid": "._grid", "batch_upper": "._batch"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
