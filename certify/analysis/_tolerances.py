"""The analysis's tolerances, each named once (as cvxpy's ``settings.py`` names its own)."""

#: Slack when comparing a gain interval with the one-moment range of V_k - V_1: the two come
#: from different solvers (the likelihood or the projection, and the sharp bound), whose
#: rounding differs.
RANGE_TOL = 1e-9
