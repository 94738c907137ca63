"""Every tolerance and tuning constant of the likelihood engine, named, with why it has its value.

Scales. psi-scale below means s_psi = max|g| + lambda N, the size of the terms of
psi = g - lambda h near the support (h = N there, eq. (L4) of :mod:`._npmle`); loglik-scale
is max(1, |l|). Doubles carry about 1.1e-16 relative precision; the gates sit a few ulps to
a few hundred ulps above the rounding of the sums they test, so that a correct solution is
never refused for rounding while a wrong one (off by far more) never passes.
"""

import numpy as np

# -- screening: the global minimum of psi on [0, 1] (:mod:`._problem`) ----------------------

#: The screening grid and Newton's stopping step are the core's likelihood policy
#: (:data:`certify._screen.POLICIES`): one grid policy for every screen of the package.

#: At most this many grid local minima per piece are polished (the lowest ones): psi has at most
#: deg/2 local minima, and only spurious plateau points of underflowed values exceed this.
MAX_CANDIDATES = 256
#: A grid minimum is polished when it may lie below the lowest grid value: when its grid
#: value minus this many second differences (psi'' h^2, the within-cell drop is ~ 1/2 of one)
#: is below it. 8 leaves a wide margin for psi'' varying across the cell.
POLISH_MARGIN = 8.0
#: ... and "below the lowest grid value" allows this much rounding (relative to max|psi| on
#: the grid): grid values of psi are sums of lambda N-sized terms, rounded to ~ C eps.
POLISH_ROUNDING = 1e-12
#: Polished minima that agree to this many decimals (on one piece) are one minimum reached from
#: two grid points: their distance is then far below the resolution of the screen's Newton
#: (steps of 1e-12, quadratic convergence).
SAME_MINIMUM_DECIMALS = 14
#: A screened local minimum below the current value a by more than this (psi-scale) means the
#: support is incomplete; below it, it is rounding of sums of lambda N-sized terms.
SCREEN_TOL = 1e-12
#: A screened minimum this close to a current atom of the same piece is that atom (adding it
#: again would give the CNM quadratic program two identical columns).
DUPLICATE_TOL = 1e-12
#: Largest K for the direct binomial pmf C(K, S) q^S (1-q)^(K-S) on the screening grids;
#: beyond it C(K, S) can overflow a double and logarithms are used there too.
DIRECT_PMF_MAX_CALLS = 1000
#: Floor of a scale that divides or multiplies a tolerance (max|g|, the largest eigenvalue):
#: the smallest normal doubles are ~2.2e-308, so 1e-300 keeps a zero scale from giving 0/0
#: while changing no scale that is not itself negligible.
TINY = 1e-300

# -- the constrained Newton method (:mod:`._cnm`, eq. (L8)) ----------------------------------

#: Constrained-Newton-method (CNM, Wang 2007) iterations; it usually needs fewer than 20.
CNM_MAX_ITER = 400
#: CNM iterations when CNM only completes a support for Newton's method (:mod:`._ends`): a
#: handful of iterations place the atoms in their basins; more are Brent's job.
CNM_SUPPORT_ITER = 50
#: Restarts of the NPMLE's last CNM from its merged support. CNM stops when its step no longer
#: improves the objective in floating point; with many nearly collinear atoms (K = 10, N = 8192,
#: smooth laws) that can happen at max D ~ 1e-5 > the tolerance; restarts from the merged atoms
#: take the data sets seen so far to the target (the tests keep two of them).
CNM_RESTARTS = 3
#: Armijo constant of the CNM line search and of Newton's acceptance rule (standard
#: sufficient-decrease value).
ARMIJO = 1e-4
#: The CNM line search gives up below this step: the weights then move by ~1e-14, the
#: rounding of the weights themselves.
CNM_MIN_STEP = 1e-14
#: Weights of at most this size after a CNM step are rounding residue of a weight the step
#: sets to zero (the step length is a ratio of weights), not mass.
CNM_ZERO_WEIGHT = 1e-300
#: A CNM step that lowers the objective F by less than this (relative to |F|) is a stall:
#: F is a sum of N-sized terms, rounded to ~ 1e-16 |F|.
CNM_STALL_RTOL = 1e-15
#: CNM counts unproductive iterations (its model gives no descent direction, or a step lowers F
#: by less than CNM_STALL_RTOL; a productive step resets the count) and gives up when the count
#: exceeds CNM_MAX_FLAT at an iteration without a descent direction (rounding has taken over
#: the quadratic model), or CNM_MAX_STALLS after a step (more steps only repeat the rounding).
CNM_MAX_FLAT = 2
CNM_MAX_STALLS = 5
#: Eigenvalues of the CNM model on a face below this fraction of the largest are zero curvature
#: (the model is then linear along them); 1e-12 is far above rounding of Q ~ N / p^2 entries.
QP_NULL_RTOL = 1e-12
#: A Lagrange multiplier of the simplex QP counts as negative (the weight is freed) below
#: -QP_MULTIPLIER_RTOL times the size of the terms it is computed from: a few hundred ulps.
QP_MULTIPLIER_RTOL = 1e-13
#: Largest entry of A = sqrt(n) B / p kept unscaled in the CNM model Q = A'A: above it (a cell
#: probability below ~1e-100, e.g. one example with 100 calls that the current law barely
#: explains) A'A could overflow, so A is divided by its largest entry and the linear term by its
#: square -- the same model up to a positive factor, so the same minimizer. 1e100 keeps every
#: realistic problem unscaled (its numbers unchanged) and A'A far below the largest double.
QP_SCALE_LIMIT = 1e100
#: Active-set iterations of the simplex QP per atom (each frees or fixes one weight; the
#: method terminates in finitely many, far fewer in practice).
QP_ITER_PER_ATOM = 20
#: Work limit: QP iterations that the fallback of one end (Brent's method on log lambda, its
#: CNM inner solves) or the lambda = 0 test's restricted NPMLE may spend in all, before a
#: SolverError. An iteration costs 0.1-0.5 ms, so the limit is 10-20 s. The grid of the coverage
#: benchmark never came near it; V101's lower end from K = 1000 calls (N = 50, q ~ Beta(2, 8)),
#: whose multiplier is about 1e-11 and whose QPs cycle at their cap, ran for over ten minutes
#: before it (and is now solved by the NEAR_MIN_TOL rule below).
CNM_WORK_LIMIT = 50_000
#: A law of the set whose E[g] is within NEAR_MIN_TOL (times max(1, max |g|)) of min g, found by
#: an inner solve at a multiplier below NEAR_MIN_LAMBDA, ends the search for a lower end (of max g
#: for an upper end): the end is reported as min g with lambda = 0, a certified bound that is
#: conservative by at most NEAR_MIN_TOL (:func:`._ends._robust`). V101's lower end from 500 or more
#: calls of skewed data has a multiplier below 1e-7, where every inner solve of Brent's method
#: costs thousands of QP iterations, while its value is already below 1e-6. The multiplier bound
#: keeps ends with an ordinary multiplier exact (V_inf's upper end just below its switch to 1 has
#: lambda = 0.029 and lies 3e-7 below 1).
NEAR_MIN_TOL = 1e-6
NEAR_MIN_LAMBDA = 1e-6
#: Weight given to each atom added by a vertex-exchange step before Newton re-weights: small
#: enough to stay near the current law (its cell probabilities change by at most ~1 %), large
#: enough that Newton does not drop the atom at once.
EXCHANGE_WEIGHT = 1e-2

# -- Newton's method on the KKT equations (:mod:`._newton`, eq. (L9)) -----------------------

#: Newton iterations on the KKT equations (quadratic convergence: about 5 from a warm start;
#: a start that needs more than 30 is better served by CNM first).
NEWTON_MAX_ITER = 30
#: Scaled KKT residual accepted by Newton (psi-scale for psi = a, loglik-scale for l = level):
#: psi sums C terms lambda n_c B_c / p_c of size up to lambda N, so it is rounded to ~ C eps
#: (~ 2e-15 relative for C = 11); 1e-14 sits above that and keeps |value - certified|
#: (~ NEWTON_TOL * lambda N) below CERT_TOL up to lambda N ~ 1e4 (N ~ 1e7 for V_101).
NEWTON_TOL = 1e-14
#: A residual Newton's line search can no longer reduce is accepted up to this: the last
#: digits of the residual are then rounding, and every answer is still checked by the screen
#: and the certificate.
NEWTON_STALLED_TOL = 100 * NEWTON_TOL
#: Halvings of Newton's line search. A direction that needs a step below 2^-16 ~ 1.5e-5 of its
#: length is no use: Newton then fails and the next start is tried. Measured on two data sets
#: of every cell of the coverage grid (5 objectives each): 40 halvings spent 6 % more residual
#: evaluations, mostly on starts that failed anyway, and every end agreed to 1.2e-14.
LINE_SEARCH_HALVINGS = 16
#: Relaxed (non-monotone) full Newton steps allowed before reverting to a line search: Newton's
#: first steps from a warm start often raise the max-norm residual before converging fast.
WATCHDOG_STEPS = 4
#: Largest change of log lambda and of an atom location in one Newton step (trust region).
MAX_LOG_LAMBDA_STEP = 1.0
MAX_ATOM_STEP = 0.1
#: Atoms farther apart than this are never merged (CNM leaves pairs much closer than this
#: around one minimum; distant atoms on a flat stretch of psi are a non-unique law, not a pair).
MERGE_DISTANCE = 0.02

# -- the NPMLE (:mod:`._npmle`, eqs. (L3)-(L5)) ----------------------------------------------

#: NPMLE optimality: max over [0, 1] of D(q) = h(q) - N bounds l_sup - l(pi-hat) (eq. (L5)),
#: so the reference log-likelihood is within this of the supremum -- far below the chi-square
#: scale c ~ 1 of the intervals, which use l(pi-hat) and are conservative by at most that much.
#: The relative part absorbs rounding: D = sum_c (n_c / p_c - N) B_c amplifies a relative error
#: e of the p_c into ~ N e (saturated data: p-hat = n / N, D = 0 exactly, computed ~ 1e-6 at N = 1e4).
NPMLE_GRADIENT_TOL = 1e-9
NPMLE_GRADIENT_RTOL = 1e-9
#: max D the NPMLE is accepted with when CNM can go no further (the tolerance above is its
#: target). By concavity l-hat - l(pi) <= max D, so the reference is then at most this far below
#: the maximum: the level l(pi) - c is lower by that much and the sets and intervals are larger
#: (valid; c ~ 2 grows by 5e-5 at most). Seen before the restarts: max D 1e-5 at N = 8192,
#: K = 10, 11 cells, where CNM's quadratic step no longer resolves the gain (~D^2 / N) from rounding.
NPMLE_ACCEPT_GAP = 1e-4

# -- one end of an interval (:mod:`._ends`, eqs. (L7), (L10)-(L12)) -------------------------

#: Optimality gap (psi-scale) at which an inner CNM solve hands over to Newton polishing.
INNER_LOOSE_GAP = 1e-7
#: Duality gap (relative) of the CNM that only finds the support for Newton's method: Newton
#: converges quadratically once the atoms are in the right basins, which needs far less.
START_GAP = 1e-4
#: Optimality gap (psi-scale) of a finished inner solve (duality gap of min E g - lambda l).
INNER_TIGHT_GAP = 1e-12
#: First duality gap (as a fraction of c) of the restricted NPMLE in the lambda = 0 test: the
#: level is then decided unless it lies within 1e-3 c of the restricted maximum, when the
#: tight solve (NPMLE_GRADIENT_TOL) decides.
ZERO_TEST_GAP = 1e-3
#: Atoms per near-minimal stretch of the start of that restricted NPMLE (CNM adds what is
#: missing; a few spread atoms only give every cell of the stretch some probability).
ZERO_TEST_ATOMS = 7
#: |value - certified| allowed for a reported end: CERT_TOL max(1, max|g|) + CERT_RTOL lambda N.
#: The identity holds exactly at the optimum; the second part is the rounding of psi and of
#: lambda l, which carry terms of size lambda N (it matters only beyond N ~ 1e6).
CERT_TOL = 1e-10
CERT_RTOL = 1e-14
#: The weights of a reported law sum to 1 within this (they are normalized sums of doubles).
WEIGHT_SUM_TOL = 1e-12
#: l(pi*) may fall short of the level l_ref - c by this much (loglik-scale, relative). A shortfall
#: delta raises the certified bound a + lambda b by lambda delta above the law's value, which the
#: CERT_TOL check already bounds; this check only catches a pi* grossly outside the set when
#: lambda is tiny. 1e-13 was too tight: Newton stops on the level equation at ~5e-13 relative
#: (seen at N = 50, K = 3, mass near 0 and 1, l ~ -39: shortfall 1.9e-11 with |value - certified|
#: far below CERT_TOL).
LEVEL_RTOL = 1e-9
#: Points of g within this (objective units) of min g count as minimizers in the lambda = 0 test:
#: a law there reports a value at most this far above its certified bound min g (< CERT_TOL).
ARGMIN_TOL = 1e-13
#: Weight below which a V_inf extremal law is said to have no atom at the jump q = 1/2.
ATTAINED_WEIGHT_TOL = 1e-9
#: sd_{pi-hat}(g) below this fraction of max|g| is no scale for the first guess of lambda
#: (g is nearly constant on pi-hat's support); max|g| is used instead.
LAMBDA_GUESS_SD_FLOOR = 1e-6
#: Brent's tolerance on t = log lambda; Newton on the full KKT system then finishes the job.
BRENT_XTOL = 1e-10
#: Brent's relative tolerance: four ulps, scipy's smallest allowed value.
BRENT_RTOL = 4 * np.finfo(float).eps
#: Brent's iterations at most (it needs a few dozen at these tolerances).
BRENT_MAX_ITER = 200
#: Bracket expansion steps for log lambda, each BRACKET_STEP long (factor e^2 each: covers
#: lambda in e^(+-80)).
BRACKET_STEPS = 40
BRACKET_STEP = 2.0
#: The multiplier extrapolated along a curve of objectives changes by at most these factors
#: per objective (a ratio outside them is no smooth trend; the warm start then suffices).
EXTRAPOLATION_RATIO = (0.5, 2.0)
#: An inner solve whose start gives some cell less than WARM_FLOOR times its probability under
#: pi-hat starts from the mixture with WARM_MIX of pi-hat instead (CNM's model of log p is good
#: within a few orders of magnitude of p; 1e-3 costs a few Newton steps to undo).
WARM_FLOOR = 1e-8
WARM_MIX = 1e-3
#: Newton / CNM alternations of the warm-started solver before it gives way to Brent's method.
FAST_ROUNDS = 4
#: Two Newton answers of the NPMLE's exchange rounds are the same support when their atoms agree
#: to this: Newton converges to 1e-14 (NEWTON_TOL), so two runs that undo the same exchange
#: land within rounding of each other, while a genuinely new support moves an atom by far more.
SAME_SUPPORT_TOL = 1e-9
#: A weight of the saturated NPMLE's grid law (:func:`._npmle._saturated_law`) within this of 0
#: is 0: the linear solve on the (K + 1)-point grid is accurate to about 1e-15 x its condition
#: number (below 1e3 for K <= 10), and dropping such a weight moves a cell probability by as
#: little, far inside the NPMLE's tolerance.
SATURATED_ZERO_WEIGHT = 1e-12

# -- witnesses (:mod:`._witness`) -------------------------------------------------------------

#: A witness must have E[g] at least this far (times 1 + max |g|) below the value: 10x the
#: certificate's tolerance CERT_TOL, so that the solved end would be below the value as well.
WITNESS_MARGIN = 1e-9
#: Shares s of pi-hat mixed into a candidate witness, (1 - s) w + s pi-hat: s = 0 is the
#: candidate itself; l is concave along the segment, so a candidate just outside C (a previous
#: data set's extremal law, the simulated truth) is pulled inside it at a cost in E[g] of s
#: times the gap to E_pi-hat[g].
WITNESS_MIX = (0.0, 0.25, 0.5, 0.75)
#: A candidate witness given by the caller is a law when its weights sum to 1 within this (a law
#: written out to 9 or more digits passes; its E[g] and l are then those of the law to that accuracy).
WITNESS_WEIGHT_SUM_TOL = 1e-9

# -- a latent law on a finite grid (:mod:`._finite`, the answer model) ------------------------

#: Grid points offered to CNM per iteration: the lowest values of psi (psi is known at every
#: point, so no screen is needed); the deepest is always among them, which is all CNM's
#: convergence needs, and 16 place the few atoms of a solution in a handful of iterations.
FINITE_CANDIDATES = 16
#: CNM stops when E_pi psi - min psi is below this fraction of max|g| + lambda N (the size of
#: psi's terms): the end is then within about this fraction of its optimum, far below the
#: statistical width of a model interval.
FINITE_GAP_RTOL = 1e-10
#: One end brackets log lambda from lambda_0 by steps of FINITE_LAMBDA_STEP (a factor e), at
#: most FINITE_BRACKET_STEPS of them (e^40: lambda_0 is within a few factors of the answer, and a
#: lambda far below it makes cell probabilities tiny and CNM slow), then closes the bracket in at
#: most FINITE_SEARCH_STEPS steps of regula falsi (Illinois), with a bisection whenever two steps
#: did not halve the bracket (so at least 2^-40 of it, as 40 bisections), stopping when the
#: Lagrangian lower bound and the value of a law in C are within FINITE_END_TOL: a thousandth of a
#: percentage point, below
#: the three decimals a model estimate is shown with. The reported bound is valid at every step.
FINITE_LAMBDA_STEP = 1.0
FINITE_BRACKET_STEPS = 40
FINITE_SEARCH_STEPS = 120
FINITE_END_TOL = 1e-5

# -- the NPMLE's start on a grid (:func:`._npmle.grid_start`) -----------------------------------

#: Equispaced points of the grid on which the NPMLE's start is fitted: its atoms are then within
#: 1/256 of the NPMLE's, from where Newton converges in a few steps (as the ends' starts' grid).
NPMLE_START_GRID = 129
#: Gap (relative to N) to which the grid law is solved: the start needs its atoms in the right
#: cells of the grid, not its weights to rounding; Newton's method sets both.
NPMLE_START_GAP = 1e-9
#: CNM iterations of the grid fit at most (each adds the grid maxima of h; tens suffice).
NPMLE_START_MAX_ITER = 200
#: The grid law is flat (the frequencies nearly saturated, no start) where h >= N (1 - this) on
#: the whole grid: the ends' starts' rule END_START_ZERO_TOL on psi - a, which for the
#: NPMLE's Lagrangian divided by N (g = 0, lambda = 1 / N) is 1 - h / N.
NPMLE_START_FLAT = 1e-3

# -- the ends' starts on a grid (:mod:`._end_starts`) ------------------------------------------

#: Equispaced points of the grid on which an end's start is solved: its atoms are then within
#: 1/256 of the optimal ones, from where Newton converges in a few steps, and the grid includes
#: 1/2 (the jump of V_inf).
END_START_GRID = 129
#: Most cells for which a start is searched (each CNM iteration on the grid costs cells x points).
END_START_MAX_CELLS = 64
#: Duality gap (relative to N) of each Lagrangian solve on the grid: l(w_lambda) is then known
#: far more accurately than END_START_LEVEL_TOL.
END_START_GAP = 1e-9
#: CNM iterations of one Lagrangian solve on the grid at most.
END_START_MAX_ITER = 200
#: The search for lambda stops where the grid law's log-likelihood is this close to the level
#: (nats): a start needs lambda to a few digits; Newton's method on (L9) sets it.
END_START_LEVEL_TOL = 1e-3
#: Lagrangian solves of one start's search for lambda at most (bracket and regula falsi).
END_START_MAX_SOLVES = 60
#: A grid point where psi - a (scaled to max(1, max|g|)) is at most this is a candidate atom of
#: the start; a candidate too many gets weight 0 from the least squares.
END_START_ZERO_TOL = 1e-3
#: An atom of a start whose least-squares weight is below this times the largest is dropped: the
#: upper end of V101 from 1000 examples of constant q = 0.7 at K = 5 had one at 1.6e-16, and
#: Newton's Jacobian (L9) with it was singular (the end then fell to Brent's method, 3x slower).
END_START_MIN_WEIGHT = 1e-12
#: Iterations of scipy's NNLS per candidate atom of an end's start (scipy's default is 3): at
#: K = 1000 the kernel columns differ by hundreds of orders of magnitude relative to the cell
#: probabilities, and 3 per column ran out (the start was lost and the end fell to Brent's method).
NNLS_ITER_PER_COLUMN = 30

# -- small-count calibration (:mod:`._calibration`, eq. (S1)) --------------------------------

#: Expected count under which a cell is on the lattice: the Poisson likelihood-ratio
#: interval covers less than 0.94 for some mean below 5 and at least 0.939 above 20.
SMALL_COUNT = 20.0
#: Share of the variance of a.n / N from such cells above which the calibration runs.
SMALL_SHARE = 0.2
#: Multinomial draws per law: the 0.95 quantile of W to about +-0.1 (its density there ~0.03).
DRAWS = 2000
#: A binomial of the draws whose mean (of the smaller of p and 1 - p) is below this is drawn by
#: inversion from 0 (cost ~ the mean), above it by inversion outwards from the mode (cost ~ the
#: standard deviation). Both draw the same law, but they couple the nine laws' draws (common
#: random numbers) differently, and the threshold is the maximum of nine noisy quantiles, so its
#: mean moves with the coupling: over 100 streams it differed from the old code's by -0.026 to
#: +0.014 on the six data sets of benchmarks/bench_compiled_calibration.py (standard deviations
#: 0.05-0.14), while numpy's switch at 30 (every binomial there inverted from 0, monotone in its
#: uniform: a tighter coupling) lowered the quiz log's V3 from 2.036 to 1.990. The old
#: generator's coupling was loose: its rejection sampler above a mean of 30 takes a varying
#: number of uniforms, which unaligns the laws' streams.
BINOMIAL_INVERSION_MEAN = 10.0
#: A draw places each example in its cell by bisection (N log2 C steps) instead of C conditional
#: binomials when N log2 C <= CATEGORICAL_DRAWS x C: few examples against many cells (N = 4,
#: K = 2000: 44 steps against 2001 binomials). For speed: both draw the same law.
CATEGORICAL_DRAWS = 4.0
#: Steps s of the laws p-hat + s (p_end - p-hat) on each side.
PATH_STEPS = (0.5, 1.0, 1.5, 2.0)
#: Relative size below which a_S - v counts as 0 (v from a . p carries a few ulps of rounding).
VALUE_SNAP = 1e-12
#: Safeguarded Newton steps for t at most: from t = 0 Newton converges in a few; a step that
#: leaves the bracket is a bisection, and 2^-80 of the bracket is exact enough.
SATURATED_NEWTON_STEPS = 80
#: A row has converged when Newton moves t by at most this fraction of its initial bracket;
#: W is stationary in t at the root (dW/dt = -2 phi = 0), so its error is second order: against
#: 1e-14, W moved by at most 7e-14 on 2000 draws at K = 10, N = 200 (the quantile not at all),
#: with one or two Newton steps fewer (20 % of the ratio's time).
SATURATED_STEP_TOL = 1e-8
#: Floor of N + t (a_S - v) in the saturated ratio: a cell at its barrier has 0 there; an empty
#: one must contribute 0 (not 0 * inf) and one with examples a huge term of the right sign.
DENOMINATOR_FLOOR = 1e-300

# -- the profile drop of a value (:mod:`._profile`, eq. (P1)) ---------------------------------

#: Newton in c starts at chi2_{1, 0.95} / 2, where calibrations live: a value near an end of the
#: usual intervals is then reached in a few steps.
PROFILE_DROP_START = 1.920729410347062
#: Drops below this are reported as 0: 2 D = 2e-4 is a chi-square p-value above 0.98 at one
#: degree, far from any critical value, and below it the multiplier grows like c^(-1/2).
PROFILE_DROP_FLOOR = 1e-4
#: The end holds v when L(c) - v is at most this (relative to max(1, max|g|)): the ends are
#: certified to CERT_TOL, so a smaller excess is rounding.
PROFILE_VALUE_TOL = 1e-10
#: The drop is reported once the root is bracketed to this relative width: critical values are
#: read to 3-4 digits, and at N = 8192 the ends' rounding (CERT_RTOL lambda N ~ 1e-10) is as
#: large as PROFILE_VALUE_TOL, so the value test alone could alternate around the root forever.
PROFILE_DROP_RTOL = 1e-9
#: After this many steps the search bisects its bracket: Newton takes 3-8 steps here, and 40
#: bisections of a bracket reach PROFILE_DROP_RTOL from any start.
PROFILE_BISECT_AFTER = 20
#: Steps at most (Newton, then bisection); more means the ends themselves are failing, and the
#: caller gets a SolverError rather than a wrong drop.
PROFILE_NEWTON_STEPS = 60
