"""Every tolerance, tuning constant and work cap of the forecasts, named, with why it has its value.

Probabilities and log-likelihoods are of order one per example; a log-likelihood sums N terms.
Doubles carry about 1.1e-16 relative precision.
"""

# -- quadrature (:mod:`._quadrature`) ------------------------------------------------------------

#: Gauss-Legendre nodes on each half of the integration range (q in [0, 1/2] and [1/2, 1] for
#: MaxEnt; t = Phi^-1(q) below and above 0 for LDGP): split there so that V_inf = P(Q > 1/2) is
#: a sum of whole halves. Measured against a 4000-panel, 20-node composite rule: every cell
#: probability of K = 10, 100 and 1000 calls agrees to 5e-13 (absolute) at the corners of the
#: parameter boxes below (gamma from 1e-3 to 50; |theta| up to THETA_MAX at degrees 1, 2 and 6).
QUADRATURE_NODES = 200
#: LDGP: t = Phi^-1(q) = eta + gamma Z is integrated on [eta - R gamma, eta + R gamma] with
#: R = NORMAL_RANGE standard deviations (the mass outside, 2 Phi(-8.5) = 2e-17, is below rounding)...
NORMAL_RANGE = 8.5
#: ... cut to |t| <= PROBIT_RANGE: beyond it q = Phi(t) is within 1.2e-16 of 0 or 1, where a
#: kernel Bin(S; K, q) moves by at most K 1.2e-16 from its value there; the mass beyond is one atom at
#: Phi(-PROBIT_RANGE) or Phi(PROBIT_RANGE) (so q > 0 stays true: P(Q > 0) = 1 for LDGP).
PROBIT_RANGE = 8.2

# -- parameter bounds (the optimizer's box, :mod:`._families`, :mod:`._quadrature`) -------------

#: Beta shapes a, b in [SHAPE_MIN, SHAPE_MAX]: below 1e-3 a Beta is a two-point law {0, 1} to
#: every recorded count (P(0 < S < K) ~ a K); above 1e5 a point mass (sd < 0.002).
SHAPE_MIN = 1e-3
SHAPE_MAX = 1e5
#: Mixture logits (weights exp(l) / sum exp) in [-LOGIT_MAX, LOGIT_MAX]: a weight of e^-25 ~ 1e-11
#: is no mass for any N a study holds.
LOGIT_MAX = 25.0
#: MaxEnt: coefficients of the shifted Legendre polynomials P_j(2q - 1) in [-THETA_MAX, THETA_MAX]:
#: exp(300 (2q - 1)) puts 99 % of its mass within 0.008 of an end, closer than K <= 100 calls can
#: tell from an atom there, and its width is still ~ 20 Gauss-Legendre nodes.
THETA_MAX = 300.0
#: MaxEnt degrees chosen from: MAXENT_MIN_DEGREE .. min(K_max, MAXENT_MAX_DEGREE). The paper's MaxEnt
#: is d = 2, the fewest parameters of every family: two calls identify a mean and a spread, and a
#: one-parameter law fixes the spread by the mean. Measured (benchmarks/bench_forecast.py): with
#: d = 1 allowed, BIC chose exp(theta q) for most data sets from Beta(0.8, 1.5) at N = 400, K = 10,
#: and the forecast's pass@100 intervals covered 4 of 20 times (a bounded density misses the mass
#: near 0).
#: On the development data (fit on 5 or 10 calls) BIC chose d <= 4 and AIC d <= 6.
MAXENT_MIN_DEGREE = 2
MAXENT_MAX_DEGREE = 6
#: LDGP: m = Phi^-1(E[Q]) in [-MEAN_PROBIT_MAX, MEAN_PROBIT_MAX] (E[Q] within 1e-15 of 0 or 1) and
#: gamma in [GAMMA_MIN, GAMMA_MAX] (gamma = 50: all but 1.6 % of the mass within Phi(+-8.2) ~ 1e-16
#: of 0 or 1, a two-point law to every count; gamma = 1e-3: a point mass).
MEAN_PROBIT_MAX = 8.0
GAMMA_MIN = 1e-3
GAMMA_MAX = 50.0

# -- starting points of the likelihood search (:mod:`._families`, :mod:`._quadrature`) ----------

#: Moment starts use the mean clipped to [START_MEAN_MARGIN, 1 - START_MEAN_MARGIN] (all calls wrong
#: or all right gives no Beta of that mean) and, where the moments are no Beta's (variance <= 0 or
#: above the two-point law's), the concentration a + b = START_CONCENTRATION.
START_MEAN_MARGIN = 1e-3
START_CONCENTRATION = 2.0
#: beta01 starts with half the shares of the cells S = 0 and S = K at the end atoms, and with
#: START_END_WEIGHT at each; weights are floored at START_WEIGHT_FLOOR (a logit of log 1e-6 ~ -14,
#: well inside the box).
START_END_WEIGHT = 1e-3
START_WEIGHT_FLOOR = 1e-6
#: beta2 starts: the Beta of the moments with weight START_MAIN_WEIGHT beside a component near 0
#: (Beta(0.3, 10): mean 0.03) or near 1 (Beta(10, 0.3)); two components at means 1/4 and 3/4
#: (Beta(1, 3), Beta(3, 1)); the two halves of the examples split at the median of S/K, each with
#: its moments (concentration START_SPLIT_CONCENTRATION where they are no Beta's).
START_MAIN_WEIGHT = 0.8
START_EDGE_SHAPES = (0.3, 10.0)
START_SPLIT_CONCENTRATION = 4.0
#: LDGP starts at m = Phi^-1(mean) and each of these gamma (intra-example correlations r =
#: gamma^2 / (1 + gamma^2) of 0.08, 0.5 and 0.9).
LDGP_START_GAMMAS = (0.3, 1.0, 3.0)

# -- the maximum-likelihood fits (:mod:`._fit`) ---------------------------------------------------

#: L-BFGS-B on -l / N: stop when the projected gradient is below FIT_GTOL (per example: l moves by
#: less than ~1e-9 N over the last steps) or the relative decrease below FIT_FTOL.
FIT_GTOL = 1e-9
FIT_FTOL = 1e-14
#: Iterations of one L-BFGS-B start; fits on the development data took at most ~150.
FIT_MAX_ITER = 1000
#: Floor of a cell probability inside the optimizer (a far-off start can underflow it to 0; the
#: floor keeps log p finite and the start is abandoned by the search, never reported).
PROB_FLOOR = 1e-300

# -- the guard and the intervals (:mod:`._bootstrap`) --------------------------------------------

#: Default number of parametric bootstrap draws: the p-value has resolution 1 / (B + 1) ~ 0.005,
#: and the 2.5 % and 97.5 % percentiles sit on the 5th and 196th order statistics.
DEFAULT_BOOTSTRAP = 200
#: Draws the guard's likelihood ratio is recomputed on: the first min(B, max(GUARD_DRAWS, 2 / alpha))
#: of the B draws. Each needs an NPMLE of the simulated data (75-80 % of a draw's time; the
#: family's refit is 2-3 ms), while the guard only decides p < alpha: 99 draws resolve p to 0.01,
#: and 2 / alpha keeps a smaller alpha decidable. The percentile intervals use all B refits.
GUARD_DRAWS = 99
#: Fewest and most draws accepted: fewer than 20 cannot reject at 0.05 (p >= 1/(B+1), and a family
#: is rejected when p < alpha; a smaller alpha needs B + 1 > 1/alpha, checked with it); the most
#: bounds the work (each draw is one family fit and one NPMLE, ~5-20 ms).
MIN_BOOTSTRAP = 20
MAX_BOOTSTRAP = 10_000
#: A bootstrap LR* counts as at least the observed LR when LR* >= LR - LR_TIE_TOL: both are
#: differences of two maxima solved to ~1e-8 in log-likelihood, so a saturated family (LR = 0 to
#: rounding) has p = 1, not a p-value of rounding noise.
LR_TIE_TOL = 1e-6
#: Share of bootstrap draws whose fit or NPMLE may fail before the guard gives no answer (the
#: p-value and percentiles use the draws that succeeded; failures are counted in the result).
MAX_FAILED_SHARE = 0.1

#: Largest pool margin of :func:`forecast` (criterion units): 2 log-likelihood units per parameter
#: of the richest family over the smallest; beyond it a family is no competitor of the chosen one.
MAX_POOL = 20.0
#: The default pool margin: every family within MAX_POOL of the best and not rejected joins the
#: intervals. Families the data cannot tell apart extrapolate differently far beyond the calls;
#: the chosen family's interval alone ignores that choice. Measured
#: (``benchmarks/bench_forecast_coverage.py``, N = 400, K in {3, 5, 10, 20}, nine laws, 6 data
#: sets each): pass@100 covered 0.54-0.89 by K with the chosen family alone, 0.94-1.00 at K >= 5
#: with the pool; V_k 0.85-0.98 alone, 0.93-1.00 pooled. The price: one bootstrap per family pooled.
DEFAULT_POOL = MAX_POOL
#: Fewest calls per example (K_max) from which pass@k and pass@inf are forecast. From 3 calls only
#: two-parameter families are eligible and the guard has 3 degrees of freedom: in the same
#: simulation the pooled pass@10 and pass@100 intervals covered 0.81 and 0.62 at K = 3 (0.94 at K = 5),
#: below the 0.90 a forecast aims at, so below this many calls pass@k gets no forecast, with the reason.
PASS_MIN_CALLS = 5

# -- work caps (:mod:`._forecast`) --------------------------------------------------------------

#: Most cells (distinct (K, S)): the quadrature kernels hold cells x 2 QUADRATURE_NODES doubles
#: (10,000 cells: 32 MB), and K = 1000 calls for every example is 1001 cells.
MAX_CELLS = 10_000
#: Most targets of one forecast: each is evaluated at every bootstrap draw.
MAX_TARGETS = 200
#: Largest degree of a polynomial target (V_k with k votes, pass@k): its expectation under a Beta
#: sums k + 1 beta-binomial terms per draw; beyond, V_inf and pass@inf are the limits.
MAX_TARGET_DEGREE = 100_001
