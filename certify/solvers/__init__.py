"""Solvers for the sharp-bound moment programs: one interface per module.

* :mod:`._exact` -- contact-point exchange with Newton polishing of the KKT system;
* :mod:`._sos` -- the dual as a sum-of-squares program (cvxpy + Clarabel);
* :mod:`._grid` -- the primal LP over a grid of atoms (cvxpy + Clarabel or HiGHS).

Every solver returns a :class:`certify.solvers._solution.Solution`; statuses of
external solvers are mapped in :mod:`._status`.

State: the solvers keep what they learn about an objective (grid hull, faces of the
moment problem, compiled cvxpy programs) in its :class:`Target`, and the targets in
use in :data:`TARGETS`; ``TARGETS.clear()`` resets them all, and nothing else is kept
between calls.
"""

from ._contact import TARGETS, Target, TargetCache

__all__ = ["TARGETS", "Target", "TargetCache"]
