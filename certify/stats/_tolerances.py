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

# -- the answer model (:mod:`._answer_model`) -------------------------------------------------

#: Grid step 1/MODEL_GRID of the latent (q, m), for each L: 2583 points with MODEL_BINS. At
#: 10,000 examples x 40 calls (10 read), step 1/40 (10,328 points) moved the intervals of 41, 101
#: and infinitely many calls by at most 0.02 and took twice the time, 4.4 s against 2.2 s
#: (benchmarks/RESULTS.md); the laws of the issue (q = 0.2 beside eight wrong answers of 0.1,
#: q = 0.25 beside five of 0.15) are grid points.
MODEL_GRID = 20
#: Most calls per example the answer model reads (the first ones): the answer-count patterns of
#: K calls number 139 at K = 10, 272 at 12 and 2714 at 20, the projection's chi-square and the
#: work with them. At 10,000 examples x 40 calls the intervals of 41 and 101 calls were 0.155 and
#: 0.200 wide reading 7 or 9 calls, 0.164 and 0.208 reading 10, 0.184 and 0.230 reading 12, 0.358
#: and 0.402 reading 19, in 1.6, 2.0, 2.2, 2.8 and 8.1 s (benchmarks/RESULTS.md). The rule below
#: reaches 10 at 19,044 examples; the cap bounds the work beyond.
MODEL_MAX_CALLS = 10
#: The model reads fewer calls when the patterns' identified dimension df (the degrees of freedom
#: of its interval's chi-square) exceeds this times the square root of the number of examples N.
#: More calls tell more about each example's answers but add patterns faster, and the best
#: trade grows with N: the intervals of 21 and 101 calls were narrowest at df = 6 for N = 100,
#: 11-18 at 400, 18-29 at 2000 (simulated laws; ESC, N = 500: df = 6) and 44-96 at 10,000, and
#: df <= sqrt(N) came within 14 % of the narrowest in each case, where a fixed 4 examples per
#: dimension (the rule of the model of one dominant wrong answer: 9 calls of 400 or 500
#: examples) was 1.4 (N = 400) and 2.2 (ESC) times as wide (benchmarks/RESULTS.md). It reads 3
#: calls of 100 examples, 5 of 400, 7 of 2000 and 9 of 10,000.
MODEL_DIMENSION_PER_ROOT = 1.0
#: The family's numbers L of equal wrong answers beside the strongest one (with L = infinity,
#: every such call distinct): every L up to 8 (laws of a few equally likely wrong answers, such
#: as eight of 0.1 beside q = 0.2, are grid points), then roughly geometric. Each L adds 105-200
#: grid points (m >= r / L); the tie tables of g_k cost about max(L) k^3 / 6 steps (g_101 on the
#: whole grid: 0.3 s).
MODEL_BINS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 64)
#: Two probabilities of grid points (multiples of 1 / (MODEL_GRID L)) within this are equal
#: when g_inf decides who is likeliest: their floating-point quotients differ by a few ulps.
MODEL_TIE_TOL = 1e-12
#: Fewest parametric bootstrap draws of the answer model's goodness-of-fit guard
#: (:mod:`._answer_guard`): B = max(19, ceil(1 / alpha) - 1), so that p = (1 + #exceed) / (B + 1)
#: can reach alpha (19 at alpha = 0.05 or 0.1, 99 at 0.01). Each draw refits the model.
MODEL_GUARD_DRAWS = 19
#: A draw's deviance counts as at least the recorded one when within this of it: both are
#: differences of two log-likelihoods of order N, solved to ~1e-10 relative, so a perfect fit
#: (deviance 0 to rounding) gets p = 1, not a p-value of rounding noise.
MODEL_GUARD_TIE = 1e-6
