"""Tolerances of the statistics layer (the Wald-region projection and the completions), named, with why.

Values are absolute on quantities of order one (moments, probabilities, angles in
radians) unless they say otherwise. Doubles carry about 1.1e-16 relative precision.
"""

# -- the projected Wald region (:mod:`._region`, eq. (projected-set-main)) ------------------

#: Membership in C_alpha: points this far outside the ellipse (in its squared radius) or F
#: count as inside, so that points computed on the boundary (rounding of a few ulps of
#: quantities of order one) are never refused.
MEMBERSHIP_TOL = 1e-12
#: Corners and tangent points of C (roots of a quadratic and a quartic, solved in floats)
#: are kept when within this of C: the quartic's roots are accurate to ~1e-10 only.
CORNER_TOL = 1e-9
#: Roots of the quadratic (ellipse meets nu = mu) and the quartic (ellipse meets
#: nu = mu^2) are real when their imaginary part is below these: np.roots of a quartic
#: splits a double root into a pair ~sqrt(eps) ~ 1e-8 apart, and 1e-9 keeps a tangency.
QUADRATIC_ROOT_IMAG = 1e-12
QUARTIC_ROOT_IMAG = 1e-9
#: ``singular="pinv"``: eigenvalues of Sigma-hat at most this fraction of the largest are
#: zero (a sample covariance of order-one variables is rounded to ~1e-16 relative).
NULL_EIGENVALUE_RTOL = 1e-12
#: Floor of the largest eigenvalue in that test: keeps an all-zero Sigma-hat from 0 * 0.
TINY = 1e-300
#: theta-hat is the region's centre when it lies this fraction of the ellipse's size inside
#: F; closer to the boundary of F the boundary rays from it are ill-conditioned.
CENTER_MARGIN = 1e-3
#: Polar grids (radii, angles) searched for interior points of C when theta-hat is too
#: close to the boundary of F, coarse first; then PROJECTION_POINTS points on each boundary
#: curve of F for the closest feasible point in the Wald metric.
CENTER_GRIDS = ((24, 96), (160, 720))
PROJECTION_POINTS = 200001
#: The angular search on dC stops when its bracket is narrower than PHI_TOL radians
#: (moments move by ~1e-8 times the region's size, values by less) or when both
#: neighbours are within FLAT_TOL of the best value (objective values of order one:
#: a hundred ulps, below which a parabola through them is rounding).
PHI_TOL = 1e-8
FLAT_TOL = 1e-14
#: Points beside the parabolic vertex are at least this far from it (radians): far below
#: PHI_TOL, yet distinct angles in doubles.
VERTEX_OFFSET = 1e-3 * PHI_TOL
#: With ``certify=True``, the other local optima of the scan are refined only when the best
#: one's supporting-plane gap exceeds this: a gap of 1e-9 is far below the statistical
#: precision of a Wald interval and at the accuracy of the gap computation itself.
GAP_RETRY = 1e-9

# -- the completions (:mod:`._completions`, Propositions 5.1 and 5.2) ------------------------

#: Gauss-Legendre nodes per panel of the graded rule (exact for polynomials of degree 39
#: on each panel; the panels resolve the rest).
GL_NODES = 20
#: Panels are graded geometrically towards singular points, ratio 2 down to 2^-GRADING_STEPS
#: of the span: the resolution of doubles on [-1/2, 1/2].
GRADING_STEPS = 52
#: LDGP: Z ~ N(0, 1) is integrated over [-NORMAL_RANGE, NORMAL_RANGE]: the tails beyond
#: 40 standard deviations have mass ~1e-350, zero in doubles.
NORMAL_RANGE = 40.0
#: Distance to the boundary of F below which a completion is the boundary limit: closer,
#: the maxent dual is flat to rounding of moments of order one.
EDGE = 1e-14
#: Maximum entropy: Newton on the convex dual stops when the scaled moment residual is below
#: MAXENT_TOL (about ten ulps of moments of order one), after MAXENT_MAX_ITER iterations at most.
MAXENT_TOL = 1e-15
MAXENT_MAX_ITER = 200
#: Armijo constant of its backtracking (standard sufficient-decrease value), which gives up
#: below a step of MAXENT_MIN_STEP (the iterate then moves by rounding only).
MAXENT_ARMIJO = 1e-4
MAXENT_MIN_STEP = 1e-12
#: A maxent solution is accepted with a scaled residual below MAXENT_ACCEPT_RTOL (of the
#: distance to the boundary of F) or an absolute one below MAXENT_ACCEPT_ATOL: for laws
#: squeezed against q = 0 or 1 (mu ~ 1e-9) the nodes x = q - 1/2 carry absolute precision
#: ~1e-17 only, and an absolute 1e-14 moves V_n by ~1e-14.
MAXENT_ACCEPT_RTOL = 1e-9
MAXENT_ACCEPT_ATOL = 1e-14
#: LDGP: Brent's method on the Plackett angle to LDGP_XTOL (radians; angles of order one,
#: so ~1e-17 is their last bit) and LDGP_RTOL relative, in at most LDGP_MAX_ITER iterations.
LDGP_XTOL = 1e-17
LDGP_RTOL = 1e-15
LDGP_MAX_ITER = 200
