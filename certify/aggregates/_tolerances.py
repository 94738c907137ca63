"""Tolerances, tuning constants and work caps of :mod:`certify.aggregates`, each with why.

Only the answer model has any: the U-statistics of plurality and pass@k are exact sums, and
their intervals take their tolerances from :mod:`certify.likelihood`.
"""

from __future__ import annotations

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
