"""Solvers for the sharp-bound moment programs: one interface per module.

* :mod:`._exact` -- contact-point exchange with Newton polishing of the KKT system;
* :mod:`._sos` -- the dual as a sum-of-squares program (cvxpy + Clarabel);
* :mod:`._grid` -- the primal LP over a grid of atoms (cvxpy + Clarabel or HiGHS).

Every solver returns a :class:`certify.solvers._solution.Solution`; statuses of
external solvers are mapped in :mod:`._status`.
"""
