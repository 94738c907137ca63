"""One table mapping external solver statuses to what ``certify`` does with them.

Only an optimal status yields a number; every other status raises
:class:`certify.SolverError` naming the solver and its status.
"""

from __future__ import annotations

import cvxpy as cp
from cvxpy import settings as cps

from .._errors import SolverError

#: cvxpy status -> accepted?  (``optimal_inaccurate`` is refused: an inaccurate
#: number must never be reported as a sharp bound.)
CVXPY_STATUS = {
    cp.OPTIMAL: True,
    cp.OPTIMAL_INACCURATE: False,
    cp.INFEASIBLE: False,
    cp.INFEASIBLE_INACCURATE: False,
    cp.UNBOUNDED: False,
    cp.UNBOUNDED_INACCURATE: False,
    cps.INFEASIBLE_OR_UNBOUNDED: False,
    cp.USER_LIMIT: False,
    cp.SOLVER_ERROR: False,
}


def check_cvxpy(problem: cp.Problem, solver: str, detail: str = "") -> None:
    """Raise :class:`SolverError` unless ``problem`` was solved to optimality."""
    status = problem.status
    if not CVXPY_STATUS.get(status, False):
        raise SolverError(solver, str(status), detail)
