"""Nonparametric likelihood for repeated calls: the NPMLE of the latent law and likelihood-ratio intervals.

Paper context: the hierarchy of eq. (hierarchy-main) -- calls B_ij ~ Bernoulli(q_i) independently
given q_i, q_i ~ pi -- with the law pi left completely unspecified. Equations of this module
are labelled (L1)-(L13).

**Cells (L1).** Example i has K_i >= 1 recorded calls, S_i of them correct. Given q_i,
S_i ~ Bin(K_i, q_i), so the data enter only through the counts n_c = #{i : (K_i, S_i) = c}
of the cells c = (K_c, S_c) -- at most sum_K (K+1) of them, whatever N = sum_c n_c is.
Every computation below runs over cells, never over examples. (The number of calls may vary
between examples; it must not depend on q_i -- the usual missing-at-random condition.)

**Likelihood (L2).** With the binomial kernel B_c(q) = C(K_c, S_c) q^S_c (1-q)^(K_c - S_c),

    p_c(pi) = E_pi[B_c(Q)],      l(pi) = sum_c n_c log p_c(pi)      (binomial coefficients kept).

pi -> p(pi) is linear and p -> sum_c n_c log p_c is strictly concave, so l is concave on the
convex set of laws on [0, 1], and all maximizers share one vector of cell probabilities.

**NPMLE (L3)-(L5).** pi-hat maximizes l over *all* laws on [0, 1] (Kiefer-Wolfowitz; Lindsay
1983). The directional derivative of l at pi towards a point mass delta_q is

    D_pi(q) = d/de l((1-e) pi + e delta_q)|_{e=0} = h_pi(q) - N,   h_pi(q) = sum_c n_c B_c(q) / p_c(pi),   (L4)

and E_pi[h_pi] = N. By concavity l(pi') <= l(pi) + E_pi'[D_pi] <= l(pi) + max_q D_pi(q) for every
law pi', so pi-hat is an NPMLE iff

    D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi-hat) - N <= 0   for all q in [0, 1]          (L5)

(with equality on its support), and max D bounds the gap to the supremum in any case. The
intervals use l(pi-hat) as computed; it is at most max D below the supremum, which only makes
the set C of (L6) (slightly) larger: conservative.
D is a polynomial of degree K_max; its maximum over [0, 1] is found by a fine grid screen
(endpoints included) and safeguarded Newton on D' from every grid local maximum. pi-hat is
computed on a continuous support, not a grid: the constrained Newton method (CNM, Wang 2007)
adds the local maxima of D as atoms and re-weights by a Newton step of l in the weights (a
quadratic program over the simplex, (L8)) with an Armijo line search; then Newton's method on
the optimality equations (L9) moves atoms and weights together to machine precision. Atoms may
sit at 0 or 1 exactly: all calls correct gives pi-hat = delta_1, all wrong delta_0.

**Likelihood-ratio intervals (L6).** For an objective g (a polynomial in q: V_k, P_n, their
combinations, any polynomial), the interval is

    [ min E_pi[g],  max E_pi[g] ]   over   C = {pi : l(pi) >= l(pi-hat) - c},                    (L6)

c is chosen per objective (by default; written below with its asymptotic chi-square value):

* **profile** -- c = chi2_{1, 1-alpha} / 2 for an identified g (deg g <= K_max, eq. (L13)): E[g] is
  then a linear function of the cell probabilities and each end is the Wilks bound of its profile
  likelihood ratio;
* **projection** -- c = chi2_{df, 1-alpha} / 2 for a g that is not identified (deg g > K_max, V_inf),
  with df the number of identified cell probabilities: K for one K (the K+1 cells of a
  multinomial sum to 1), K_max for ragged counts (every p_c is linear in the moments
  m_1..m_{K_max}). The profile calibration is not valid there: when the true moments are on
  the boundary of the moment space (few atoms; a constant q is the extreme case) the identified
  set of E[g] collapses to a point and its bounds are not smooth in the moments, and the measured
  coverage of chi2_1 fell to 0.90 (V_101 from K = 3 calls, constant q, N = 50;
  ``benchmarks/bench_likelihood_coverage.py``). With df the whole identified dimension the
  likelihood-ratio region of the cell probabilities covers the true ones with asymptotic
  probability 1-alpha (sup_C l <= the unrestricted multinomial maximum, whose ratio is chi2_df
  also on the boundary), C then contains the true law, and the interval holds its value.

With ``simultaneous=True`` every objective uses the projection value, so that all intervals
(every objective, both ends, V_inf included) hold jointly.

**Small-sample correction.** The chi-square values are limits; at N = 50 the profile
calibration covered 0.938 (V_3 from 3 calls, a Beta mixture). So chi2_{df, 1-alpha} is replaced by
its F-form: c = (N/2) log(1 + df F_{df, N-d, 1-alpha} / (N - d)), d the identified dimension --
the exact likelihood-ratio cutoff of a Gaussian linear model with d parameters, larger than
chi2_{df}/2 at every N and equal to it in the limit (:func:`critical_value`). All calibrations
remain asymptotic; their coverage at finite N is measured by simulation, not assumed.

**Small-count calibration.** N is not the whole story: the gain V_3 - V_1 from 3 calls is
(p_2 - p_1)/3, and when the latent law sits near 0 and 1 the cells S = 1, 2 expect a handful of
examples even at N = 200; the likelihood ratio then lives on a lattice, and that interval
covered 0.906. For one K and an identified objective whose estimate rests on such cells, c is
raised to half the largest simulated (1 - alpha) quantile of the saturated multinomial ratio
over a path of laws through the NPMLE and both ends, and both ends are solved again
(:mod:`certify.stats._small_counts`; ``LikelihoodInterval.small_count``). Ragged call counts keep
the chi-square value.

**Lagrangian (L7)-(L9).** The lower end (the upper end is the same with -g) is the convex program
min E_pi[g] subject to l(pi) >= level := l(pi-hat) - c. For lambda > 0 let

    F_lambda(pi) = E_pi[g] - lambda l(pi)        (convex in pi).                                 (L7)

Its derivative at pi towards delta_q is psi(q) - E_pi[psi] with psi = g - lambda h_pi, so pi_lambda
minimizes F_lambda iff psi >= a := E_pi[psi] on [0, 1], and for any pi, F(pi) - min F <=
E_pi[psi] - min psi (the duality gap used to stop CNM). CNM for F_lambda is the NPMLE algorithm with
the linear term: on atoms theta_j with current probabilities p, the Newton model of F/lambda in the
weights is (1/2) w'A'Aw + (g/lambda - 2 h)'w, A_cj = sqrt(n_c) B_c(theta_j) / p_c, minimized over the
simplex by an active-set method (L8). On a fixed support the optimality conditions are

    psi(theta_j) = a,  psi'(theta_j) = 0 (interior atoms),  sum_j w_j = 1,   [l(pi) = level],     (L9)

a square system in (w, theta, a) -- and in t = log lambda with the bracketed equation -- solved by
Newton's method (watchdog line search, trust region on t and theta). When psi is flat at the
optimum (deg g <= K with optimal cell probabilities inside the moment space; the saturated
NPMLE) the optimal law is not unique and this system is singular; Newton then solves for the
weights on fixed atoms, which at most C distinct atoms determine. l(pi_lambda) increases with
lambda from the largest log-likelihood of a law on argmin g (lambda -> 0) to l(pi-hat)
(lambda -> infinity), so lambda with l(pi_lambda) = level exists and is unique; it is found by
Newton on the full system (L9), warm-started from the previous objective of a batch or from
pi-hat with lambda ~ sd_{pi-hat}(g) / sqrt(2 c N) (the envelope theorem: d value / d c = lambda),
and, if that fails, by Brent's method on log lambda with inner solves of (L7) (fixed-lambda
Newton from the previous solution, CNM when that fails), polished by Newton on (L9).

**Certificate (L10)-(L11).** Let pi* solve (L7) at lambda, h = h_{pi*}, and a = min_[0,1] psi. For
any pi in C, log x <= x - 1 gives

    E_pi[h] = sum_c n_c p_c(pi) / p_c(pi*) >= N + l(pi) - l(pi*) >= N + level - l(pi*) =: b,      (L10)

    E_pi[g] = E_pi[psi] + lambda E_pi[h] >= a + lambda b.                                          (L11)

At the solution l(pi*) = level and psi = a on the support of pi*, so E_pi*[g] = a + lambda N =
a + lambda b: the bound is attained and certifies the minimum. Each reported end carries
(lambda, a, b, level) and is checked: a from the global screen of psi, |value - (a + lambda b)|
<= CERT_TOL (plus the rounding allowance CERT_RTOL lambda N), l(pi*) >= level up to rounding --
otherwise :class:`~certify.SolverError`.
(L11) holds for any lambda >= 0 and any law pi* with all p_c > 0; exactness only needs a <= psi.
lambda = 0: when some law supported on argmin g lies in C, the minimum is min g, certified by
a = min g (b then plays no role). This is decided before any Lagrangian solve, by the largest
log-likelihood of a law on {g <= min g + ARGMIN_TOL} (bounded above first through max_x B_c(x),
attained at x = S_c/K_c); the near-minimal set rather than argmin g because V_101 is below
1e-13 on a whole interval, where the exact multiplier would be astronomically small -- the
reported value then exceeds its certificate min g by at most ARGMIN_TOL.

**V_inf (L12).** V_inf(q) = 1{q > 1/2} + 1{q = 1/2}/2 = lim_k V_k(q) is not continuous. C is
weakly compact (each B_c is continuous, so l is weakly continuous), hence inf_C E[V_inf] =
min_C E[1{Q > 1/2}] (the lower semicontinuous envelope) and sup_C E[V_inf] = max_C E[1{Q >= 1/2}]:
">=" as V_inf >= 1{q > 1/2}; "<=" by moving an atom at 1/2 of a minimizer to 1/2 - eps and mixing
in a share t(eps) -> 0 of pi-hat, which keeps l >= level because l is concave and c > 0.
The same Lagrangian applies to a g that is smooth on closed pieces ([0, 1/2] and [1/2, 1] with
constant values): a = min over the pieces, each with its own continuous extension, which is the
minimum of the lsc envelope. An end is ``attained`` unless pi* has an atom at 1/2, where the
envelope and V_inf differ; then the extreme is only approached, by the laws just described.

**Identification (L13).** If deg g = d <= K (one K; K_max for ragged counts, whose K_max-cells
identify m_1..m_{K_max}), degree elevation writes g = sum_S beta_S B_{K,S}
in the Bernstein basis of degree K, so E_pi[g] = sum_S beta_S p_{K,S}(pi) is a function of the
cell probabilities: identified, and the interval shrinks like N^{-1/2} (the LR region of p does).
For d > K (budgets beyond the recorded calls), E_pi[g] is not a function of p: together with any
law, C contains every law with the same cell probabilities, i.e. the same moments m_1..m_K, so the
interval contains the sharp K-moment bounds [L_K(m), U_K(m)] of every moment vector in the region
and converges to the identified set, not to a point. Its extremal laws are principal
representations of that moment problem, with several atoms. With all K_i = 1 only m_1 = E[Q] is
identified; at least one example with K_i >= 2 is required.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import optimize, special
from scipy.stats import chi2
from scipy.stats import f as f_dist

from .._errors import InputError, SolverError
from .._bernstein import monomial_to_bernstein
from .._objective import V_INF, Objective, VoteLimit, is_vote_limit, parse_objective, vote_accuracy
from .._results import Law
from .._calls import CallBits
from ._small_counts import on_lattice, small_count_drop

__all__ = [
    "CellCounts",
    "LatentLaw",
    "LikelihoodEnd",
    "LikelihoodInterval",
    "cell_counts",
    "critical_value",
    "gradient_function",
    "identified_df",
    "is_infinite_budget",
    "likelihood_bound",
    "likelihood_interval",
    "likelihood_intervals",
    "log_likelihood",
    "npmle",
]

# ----------------------------------------------------------------------------------------------
# Tolerances. psi-scale below means s_psi = max|g| + lambda * N, the size of the terms of
# psi = g - lambda h near the support (h = N there, eq. (L4)); loglik-scale is max(1, |l|).

#: Minimum screening grid points on [0, 1]. psi has degree max(deg g, K_max); 4096 cells put
#: tens of grid points across the steepest feature of V_101 (width ~ 1/sqrt(8 * 101) ~ 0.035).
GRID_POINTS = 4097
#: Grid points per unit length and per degree, for objectives of high degree: a polynomial of
#: degree d has features no narrower than ~ 1/sqrt(d), so 8 d points per unit resolve them.
GRID_PER_DEGREE = 8
#: At most this many grid local minima per piece are polished (the lowest ones): psi has at most
#: deg/2 local minima, and only spurious plateau points of underflowed values exceed this.
MAX_CANDIDATES = 256
#: Safeguarded Newton iterations when polishing a local minimum (bisection fallback halves the
#: bracket each time, so 80 steps reach the resolution of doubles from a grid cell).
POLISH_MAX_ITER = 80
#: A grid minimum is polished when it may lie below the lowest grid value: when its grid
#: value minus this many second differences (psi'' h^2, the within-cell drop is ~ 1/2 of one)
#: is below it. 8 leaves a wide margin for psi'' varying across the cell.
POLISH_MARGIN = 8.0
#: Newton step at which a polished minimum is final: convergence is quadratic, so the
#: remaining error is ~1e-24 and psi is off by ~psi'' * 1e-48 (bisection steps stop at 1e-12 too,
#: off by psi'' * 1e-24 at most).
POLISH_XTOL = 1e-12
#: Constrained-Newton-method (CNM, Wang 2007) iterations; it usually needs fewer than 20.
CNM_MAX_ITER = 400
#: Restarts of the NPMLE's last CNM from its merged support. CNM stops when its step no longer
#: improves the objective in floating point; with many nearly collinear atoms (K = 10, N = 8192,
#: smooth laws) that can happen at max D ~ 1e-5 > the tolerance; restarts from the merged atoms
#: take the data sets seen so far to the target (the tests keep two of them).
CNM_RESTARTS = 3
#: Armijo constant of the CNM line search (standard sufficient-decrease value).
ARMIJO = 1e-4
#: Eigenvalues of the CNM model on a face below this fraction of the largest are zero curvature
#: (the model is then linear along them); 1e-12 is far above rounding of Q ~ N / p^2 entries.
QP_NULL_RTOL = 1e-12
#: Newton iterations on the KKT equations (quadratic convergence: about 5 from a warm start;
#: a start that needs more than 30 is better served by CNM first).
NEWTON_MAX_ITER = 30
#: Scaled KKT residual accepted by Newton (psi-scale for psi = a, loglik-scale for l = level):
#: psi sums C terms lambda n_c B_c / p_c of size up to lambda N, so it is rounded to ~ C eps
#: (~ 2e-15 relative for C = 11); 1e-14 sits above that and keeps |value - certified|
#: (~ NEWTON_TOL * lambda N) below CERT_TOL up to lambda N ~ 1e4 (N ~ 1e7 for V_101).
NEWTON_TOL = 1e-14
#: Optimality gap (psi-scale) at which an inner CNM solve hands over to Newton polishing.
INNER_LOOSE_GAP = 1e-7
#: Duality gap (relative) of the CNM that only finds the support for Newton's method: Newton
#: converges quadratically once the atoms are in the right basins, which needs far less.
START_GAP = 1e-4
#: Optimality gap (psi-scale) of a finished inner solve (duality gap of min E g - lambda l).
INNER_TIGHT_GAP = 1e-12
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
#: A screened local minimum below the current value a by more than this (psi-scale) means the
#: support is incomplete; below it, it is rounding of sums of lambda N-sized terms.
SCREEN_TOL = 1e-12
#: |value - certified| allowed for a reported end: CERT_TOL max(1, max|g|) + CERT_RTOL lambda N.
#: The identity holds exactly at the optimum; the second part is the rounding of psi and of
#: lambda l, which carry terms of size lambda N (it matters only beyond N ~ 1e6).
CERT_TOL = 1e-10
CERT_RTOL = 1e-14
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
#: Brent's tolerance on t = log lambda; Newton on the full KKT system then finishes the job.
BRENT_XTOL = 1e-10
#: Bracket expansion steps for log lambda (factor e^2 each: covers lambda in e^(+-80)).
BRACKET_STEPS = 40
#: Weight below which a V_inf extremal law is said to have no atom at the jump q = 1/2.
ATTAINED_WEIGHT_TOL = 1e-9
#: Largest K for the direct binomial pmf C(K, S) q^S (1-q)^(K-S) on the screening grids;
#: beyond it C(K, S) can overflow a double and logarithms are used there too.
DIRECT_PMF_MAX_CALLS = 1000
#: Relaxed (non-monotone) full Newton steps allowed before reverting to a line search: Newton's
#: first steps from a warm start often raise the max-norm residual before converging fast.
WATCHDOG_STEPS = 4
#: Largest change of log lambda and of an atom location in one Newton step (trust region).
MAX_LOG_LAMBDA_STEP = 1.0
MAX_ATOM_STEP = 0.1
#: A screened minimum this close to a current atom of the same piece is that atom (adding it
#: again would give the CNM quadratic program two identical columns).
DUPLICATE_TOL = 1e-12
#: Atoms farther apart than this are never merged (CNM leaves pairs much closer than this
#: around one minimum; distant atoms on a flat stretch of psi are a non-unique law, not a pair).
MERGE_DISTANCE = 0.02
#: An inner solve whose start gives some cell less than WARM_FLOOR times its probability under
#: pi-hat starts from the mixture with WARM_MIX of pi-hat instead (CNM's model of log p is good
#: within a few orders of magnitude of p; 1e-3 costs a few Newton steps to undo).
WARM_FLOOR = 1e-8
WARM_MIX = 1e-3
#: Newton / CNM alternations of the warm-started solver before it gives way to Brent's method.
FAST_ROUNDS = 4
#: Weight given to each atom added by a vertex-exchange step before Newton re-weights: small
#: enough to stay near the current law (its cell probabilities change by at most ~1 %), large
#: enough that Newton does not drop the atom at once.
EXCHANGE_WEIGHT = 1e-2

#: (dk, ds) of the binomial tables b_{K-dk}(S-ds) behind B, B' and B''.
_SHIFTS = ((0, 0), (1, 1), (1, 0), (2, 2), (2, 1), (2, 0))


# ----------------------------------------------------------------------------------------------
# Cells


def _int_array(values, what: str) -> np.ndarray:
    """A 1-d integer array from integer-valued input, or an InputError naming the entry."""
    if isinstance(values, (str, bytes)):
        raise InputError(f"{what}={values!r} must be a sequence of integers")
    try:
        arr = np.asarray(values)
    except Exception:  # ragged nested input and the like
        raise InputError(f"{what} must be a 1-d sequence of integers") from None
    if arr.ndim != 1:
        raise InputError(f"{what} must be a 1-d sequence of integers; got shape {arr.shape}")
    if arr.dtype == bool:
        raise InputError(f"{what} must hold integers, not booleans")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    try:
        f = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError(f"{what} must hold integers") from None
    bad = np.flatnonzero(~np.isfinite(f) | (f != np.round(f)))
    if len(bad):
        i = int(bad[0])
        v = arr[i].item() if isinstance(arr[i], np.generic) else arr[i]
        raise InputError(f"{what}[{i}]={v!r} is not an integer")
    return f.astype(np.int64)


@dataclass(frozen=True, eq=False)
class CellCounts:
    """Counts n_{K,S} of examples with K recorded calls of which S are correct (eq. (L1)).

    The likelihood depends on the data only through these counts, so every computation of
    this module works on the (at most sum_K (K+1)) cells instead of the N examples.

    Attributes
    ----------
    calls : ndarray of int, shape (C,)
        K of each cell (>= 1).
    successes : ndarray of int, shape (C,)
        S of each cell, 0 <= S <= K.
    multiplicity : ndarray of int, shape (C,)
        n_{K,S} >= 1, the number of examples in the cell.
    """

    calls: np.ndarray
    successes: np.ndarray
    multiplicity: np.ndarray

    def __post_init__(self):
        k = _int_array(self.calls, "calls")
        s = _int_array(self.successes, "successes")
        n = _int_array(self.multiplicity, "multiplicity")
        if not (len(k) == len(s) == len(n)):
            raise InputError(f"calls, successes and multiplicity have lengths {len(k)}, {len(s)}, {len(n)}; they must be equal")
        _check_calls_successes(k, s, ("calls", "successes"))
        if len(n) and n.min() < 1:
            i = int(np.argmin(n))
            raise InputError(f"multiplicity[{i}]={int(n[i])} must be at least 1 (a cell holds at least one example)")
        keys = k * (int(k.max(initial=0)) + 2) + s
        if len(np.unique(keys)) != len(keys):
            raise InputError("cells (calls, successes) must be distinct; add the multiplicities of repeated cells")
        _check_sample(k, n)
        for name, arr in (("calls", k), ("successes", s), ("multiplicity", n)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def n(self) -> int:
        """N, the number of examples."""
        return int(self.multiplicity.sum())

    @property
    def max_calls(self) -> int:
        """K_max, the largest number of calls of an example."""
        return int(self.calls.max())

    @property
    def size(self) -> int:
        """C, the number of distinct cells."""
        return len(self.calls)

    @classmethod
    def from_bits(cls, bits: CallBits, calls: int | None = None) -> "CellCounts":
        """Cells of :class:`~certify.stats.CallBits`, optionally from the first ``calls`` calls only.

        Parameters
        ----------
        bits : CallBits
            Correctness bits (NaN past an example's K_i calls).
        calls : int, optional
            Use only the first ``calls`` calls of each example (an example with fewer calls
            keeps all of its K_i). Default: every recorded call.

        Returns
        -------
        CellCounts
        """
        if not isinstance(bits, CallBits):
            raise InputError(f"bits={type(bits).__name__} must be a CallBits (see certify.stats.read_bits)")
        b = np.asarray(bits.bits, dtype=float)
        counts = np.asarray(bits.counts, dtype=np.int64)
        if calls is not None:
            if isinstance(calls, bool) or not isinstance(calls, (int, np.integer)) or calls < 1:
                raise InputError(f"calls={calls!r} must be a positive integer number of calls per example")
            b = b[:, : int(calls)]
            counts = np.minimum(counts, int(calls))
        return cell_counts(counts, np.nansum(b, axis=1).astype(np.int64))


def _check_calls_successes(k: np.ndarray, s: np.ndarray, names: tuple[str, str]) -> None:
    kn, sn = names
    if len(k) and k.min() < 1:
        i = int(np.argmin(k))
        raise InputError(f"{kn}[{i}]={int(k[i])} breaks K_i >= 1: every example needs at least one recorded call")
    if len(s) and s.min() < 0:
        i = int(np.argmin(s))
        raise InputError(f"{sn}[{i}]={int(s[i])} breaks S_i >= 0: a count of correct calls cannot be negative")
    over = np.flatnonzero(s > k)
    if len(over):
        i = int(over[0])
        raise InputError(f"{sn}[{i}]={int(s[i])} exceeds {kn}[{i}]={int(k[i])}: 0 <= S_i <= K_i must hold")


def _check_sample(k: np.ndarray, n: np.ndarray) -> None:
    total = int(n.sum())
    if total < 2:
        raise InputError(f"N={total} example(s): a likelihood interval needs at least 2 examples")
    if int(k.max()) < 2:
        raise InputError(
            "every example has K_i = 1 call: one call per example identifies only the mean E[Q]; "
            "at least one example needs K_i >= 2 calls"
        )


def cell_counts(calls_per_example, successes_per_example) -> CellCounts:
    """Aggregate per-example (K_i, S_i) into cell counts n_{K,S}.

    Parameters
    ----------
    calls_per_example : sequence of int
        K_i >= 1, recorded calls of each example.
    successes_per_example : sequence of int
        S_i, correct calls of each example, 0 <= S_i <= K_i.

    Returns
    -------
    CellCounts
        Cells sorted by (K, S).

    Raises
    ------
    InputError
        If the lengths differ, a value is not an integer or breaks 1 <= K_i, 0 <= S_i <= K_i,
        there are fewer than 2 examples, or no example has K_i >= 2.
    """
    k = _int_array(calls_per_example, "calls_per_example")
    s = _int_array(successes_per_example, "successes_per_example")
    if len(k) != len(s):
        raise InputError(f"calls_per_example has {len(k)} entries and successes_per_example {len(s)}; they must match")
    if len(k) == 0:
        raise InputError("N=0 examples: a likelihood interval needs at least 2 examples")
    _check_calls_successes(k, s, ("calls_per_example", "successes_per_example"))
    keys, counts = np.unique(np.stack([k, s], axis=1), axis=0, return_counts=True)
    return CellCounts(keys[:, 0].copy(), keys[:, 1].copy(), counts.astype(np.int64))


def _as_cells(cells) -> CellCounts:
    if isinstance(cells, CellCounts):
        return cells
    if isinstance(cells, CallBits):
        return CellCounts.from_bits(cells)
    raise InputError(f"cells={type(cells).__name__} must be CellCounts (see cell_counts) or CallBits")


# ----------------------------------------------------------------------------------------------
# Objectives as piecewise-smooth functions on closed pieces


class _Piece:
    """A closed interval [lo, hi] and a smooth function on it (an Objective or a constant)."""

    __slots__ = ("lo", "hi", "objective", "constant")

    def __init__(self, lo: float, hi: float, objective: Objective | None = None, constant: float = 0.0):
        self.lo, self.hi, self.objective, self.constant = float(lo), float(hi), objective, float(constant)

    def values(self, q: np.ndarray, derivative: int = 0) -> np.ndarray:
        return self.jet(q, (derivative,))[0]

    def jet(self, q: np.ndarray, derivatives=(0, 1, 2)) -> list[np.ndarray]:
        if self.objective is None or len(q) == 0:
            return [np.full(q.shape, self.constant if d == 0 else 0.0) for d in derivatives]
        return self.objective.evaluate_jet(q, derivatives)


class _Target:
    """The function minimized at one end: sign * g on closed pieces covering the domain.

    A polynomial objective is one piece [0, 1]. V_inf is the step 1{q > 1/2}: two constant
    pieces [0, 1/2] and [1/2, 1]. Minimizing over closed pieces with each piece's own
    continuous extension minimizes the lower semicontinuous envelope of sign * g (eq. (L12)).
    """

    def __init__(self, name: str, pieces: list[_Piece], degree: int, kind: str, sign: int,
                 mirror: "_Target | None" = None):
        self.name, self.pieces, self.degree, self.kind, self.sign = name, pieces, degree, kind, sign
        # the other side's target, -g on the same pieces: its grid values, negated, are these
        # (negation is exact), so the two ends of one objective evaluate g on the grid once
        self.mirror = mirror
        self._grid_values: dict = {}

    def jet(self, q: np.ndarray, piece: np.ndarray, derivatives=(0, 1, 2)) -> list[np.ndarray]:
        out = [np.empty(len(q)) for _ in derivatives]
        for k in np.unique(piece):
            mask = piece == k
            for o, v in zip(out, self.pieces[int(k)].jet(q[mask], derivatives)):
                o[mask] = v
        return out

    def grid_values(self, k: int, grid: np.ndarray) -> np.ndarray:
        key = (k, len(grid))
        if key not in self._grid_values:
            self._grid_values[key] = (-self.mirror.grid_values(k, grid) if self.mirror is not None
                                      else self.pieces[k].values(grid, 0))
        return self._grid_values[key]

    def scale(self) -> float:
        """max |g| over the screening data seen so far (>= 1e-300), for relative tolerances."""
        vals = [np.max(np.abs(v)) for v in self._grid_values.values() if len(v)]
        vals += [abs(p.constant) for p in self.pieces if p.objective is None]
        return max(max(vals, default=0.0), 1e-300)


def _zero_target(pieces=((0.0, 1.0),)) -> _Target:
    return _Target("0", [_Piece(lo, hi, None, 0.0) for lo, hi in pieces], 0, "zero", 1)


def is_infinite_budget(spec) -> bool:
    """True for the infinite budget V_inf (:data:`certify.V_INF`, ``"inf"``, ``"Vinf"``, ``float('inf')``: every spelling
    :func:`certify.parse_vote_budget` reads), a step function, not a polynomial."""
    return is_vote_limit(spec)


def _objective(spec) -> Objective | VoteLimit:
    """V_INF for V_inf, else the parsed Objective (an int is a vote count)."""
    if is_vote_limit(spec):
        return V_INF
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        return vote_accuracy(int(spec))
    return parse_objective(spec)


def _target(obj: Objective | VoteLimit, side: str, mirror: _Target | None = None) -> _Target:
    """The target of one end; ``mirror``, the other end's target of the same objective, shares its grid values."""
    sign = 1 if side == "lower" else -1
    if obj is V_INF:
        if sign > 0:  # inf E[V_inf]: lsc envelope 1{q > 1/2}
            pieces = [_Piece(0.0, 0.5, None, 0.0), _Piece(0.5, 1.0, None, 1.0)]
        else:  # sup E[V_inf] = -inf E[-V_inf]: -(usc envelope 1{q >= 1/2})
            pieces = [_Piece(0.0, 0.5, None, 0.0), _Piece(0.5, 1.0, None, -1.0)]
        return _Target("Vinf", pieces, 0, "vinf", sign)
    g = obj if sign > 0 else obj.scaled(-1, name=f"-({obj.name})")
    return _Target(obj.name, [_Piece(0.0, 1.0, g)], obj.degree, "polynomial", sign, mirror)


# ----------------------------------------------------------------------------------------------
# Result objects


@dataclass(frozen=True)
class LatentLaw:
    """The NPMLE pi-hat of the latent law (eq. (L3)) and its optimality check (eq. (L5)).

    Attributes
    ----------
    atoms, weights : tuple of float
        Support points in [0, 1] (sorted) and their probabilities.
    loglik : float
        l(pi-hat) = sum_c n_c log p_c(pi-hat), binomial coefficients included.
    max_gradient : float
        max over [0, 1] of D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi-hat) - N (0 at the
        optimum); by concavity sup_pi l(pi) <= loglik + max(max_gradient, 0).
    argmax_gradient : float
        Where D attains that maximum.
    n : int
        Examples N.
    """

    atoms: tuple[float, ...]
    weights: tuple[float, ...]
    loglik: float
    max_gradient: float
    argmax_gradient: float
    n: int

    def law(self) -> Law:
        """The law as a :class:`certify.Law` (atoms, weights)."""
        return Law(atoms=self.atoms, weights=self.weights)


@dataclass(frozen=True)
class LikelihoodEnd:
    """One end of a likelihood-ratio interval with its Lagrangian certificate (eqs. (L9)-(L11)).

    For ``side="lower"``: g(q) - lam h(q) >= a on [0, 1], and every law pi with
    l(pi) >= reference - c has E_pi[g] >= a + lam b = ``certified``.
    For ``side="upper"``: g(q) + lam h(q) <= a on [0, 1], and every such law has
    E_pi[g] <= a - lam b = ``certified``. Here h(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi*).
    For V_inf, g in these inequalities is 1{q > 1/2} (lower) and 1{q >= 1/2} (upper), the
    envelopes that bound V_inf from below and above (eq. (L12)).

    Attributes
    ----------
    objective : str
        Name of g (``"Vinf"`` for the infinite-vote accuracy).
    side : str
        ``"lower"`` or ``"upper"``.
    value : float
        The optimum: min (lower) or max (upper) of E_pi[g] over the set (inf/sup for V_inf).
    atoms, weights : tuple of float
        The extremal law pi*.
    lam : float
        The Lagrange multiplier lambda >= 0 (0: the constraint is slack).
    a : float
        min over [0, 1] of g - lam h (lower), max of g + lam h (upper).
    b : float
        reference - c - loglik + N, the lower bound on E_pi[h] over the set (eq. (L10)).
    reference : float
        The reference log-likelihood l(pi-hat) used to define the set.
    c : float
        The likelihood drop allowed: the set is {pi : l(pi) >= reference - c}.
    certified : float
        a + lam b (lower) or a - lam b (upper); equals ``value`` up to rounding.
    loglik : float
        l(pi*).
    attained : bool
        Whether pi* itself has E[g] = value. False only for V_inf when pi* has an atom at
        the jump q = 1/2: the extreme is then approached by moving that atom to 1/2 -+ eps.
    """

    objective: str
    side: str
    value: float
    atoms: tuple[float, ...]
    weights: tuple[float, ...]
    lam: float
    a: float
    b: float
    reference: float
    c: float
    certified: float
    loglik: float
    attained: bool = True

    @property
    def level(self) -> float:
        """reference - c, the log-likelihood threshold of the set."""
        return self.reference - self.c

    def law(self) -> Law:
        """The extremal law as a :class:`certify.Law`."""
        return Law(atoms=self.atoms, weights=self.weights)


@dataclass(frozen=True)
class LikelihoodInterval:
    """Likelihood-ratio interval [min, max] of E_pi[g] over {pi : l(pi) >= l(pi-hat) - c}.

    Attributes
    ----------
    objective : str
        Name of g.
    lower, upper : LikelihoodEnd
        The two ends with their certificates.
    alpha : float or None
        1 - confidence level (None when ``c`` was given directly).
    c : float
        chi2_{df, 1-alpha} / 2, or the given c.
    df : int
        Degrees of freedom of c: 1 (profile), or the identified dimension (projection,
        simultaneous); 0 when ``c`` was given directly.
    simultaneous : bool
        Whether c is the simultaneous (all objectives at once) value.
    calibration : str
        How c was chosen (eq. (L6)): ``"profile"`` (identified objective, chi2_1),
        ``"projection"`` (objective not identified by the recorded calls, chi2_df),
        ``"simultaneous"`` (chi2_df for every objective) or ``"given"`` (c passed directly).
    reference : LatentLaw
        The NPMLE defining the set.
    small_count : bool
        Whether c was raised above the chi-square value by the small-count calibration
        (:mod:`certify.stats._small_counts`): the estimate rests on cells with few examples.
    """

    objective: str
    lower: LikelihoodEnd
    upper: LikelihoodEnd
    alpha: float | None
    c: float
    df: int
    simultaneous: bool
    calibration: str
    reference: LatentLaw
    small_count: bool = False

    @property
    def width(self) -> float:
        return self.upper.value - self.lower.value

    def as_tuple(self) -> tuple[float, float]:
        return (self.lower.value, self.upper.value)

    def calibration_text(self) -> str:
        """One line saying how c was chosen, e.g. ``asymptotic, profile likelihood ratio, chi2(1, 0.95) ...``."""
        if self.calibration == "given":
            return f"likelihood ratio, c = {self.c:g} given"
        if self.small_count:
            return (f"approximate, {self.calibration} likelihood ratio, c = {self.c:.4g} from the small-count "
                    f"calibration (simulated lattice quantile at {1 - self.alpha:g}; above chi2({self.df}))")
        return (f"asymptotic, {self.calibration} likelihood ratio, chi2({self.df}, {1 - self.alpha:g}) "
                f"with the F small-sample correction (c = {self.c:.4g})")


# ----------------------------------------------------------------------------------------------
# The problem: cells, binomial kernel, screening, CNM and Newton


class _Law:
    """Mutable working law: atoms, weights, piece index of each atom."""

    __slots__ = ("atoms", "weights", "piece")

    def __init__(self, atoms, weights, piece):
        self.atoms = np.asarray(atoms, dtype=float)
        self.weights = np.asarray(weights, dtype=float)
        self.piece = np.asarray(piece, dtype=np.int64)

    @classmethod
    def unassigned(cls, atoms, weights) -> "_Law":
        """A law with every atom on piece 0 (:func:`_pieces_law` assigns them for a target)."""
        return cls(atoms, weights, np.zeros(len(atoms), dtype=np.int64))

    def copy(self) -> "_Law":
        return _Law(self.atoms.copy(), self.weights.copy(), self.piece.copy())

    def sorted(self) -> "_Law":
        o = np.lexsort((self.piece, self.atoms))
        return _Law(self.atoms[o], self.weights[o], self.piece[o])


class _Screen:
    """Polished local minima of psi over all pieces."""

    __slots__ = ("q", "piece", "psi")

    def __init__(self, q, piece, psi):
        self.q, self.piece, self.psi = q, piece, psi

    def argmin(self) -> int:
        return int(np.argmin(self.psi))


class _Problem:
    """Everything that depends only on the cells: kernel tables and screening grids."""

    def __init__(self, cells: CellCounts):
        self.cells = cells
        self.K = cells.calls.astype(np.int64)
        self.S = cells.successes.astype(np.int64)
        self.n = cells.multiplicity.astype(float)
        self.N = float(self.n.sum())
        self.sqrt_n = np.sqrt(self.n)
        self.kmax = int(self.K.max())
        self.log_pmf = self.kmax > DIRECT_PMF_MAX_CALLS
        self._grids: dict = {}
        # stacked tables of b_{K-dk}(S-ds) for (dk, ds) in _SHIFTS: B, B' and B'' need all six
        ks, ss, valid = [], [], []
        for dk, ds in _SHIFTS:
            k, s = self.K - dk, self.S - ds
            v = (s >= 0) & (s <= k)
            ks.append(np.where(v, k, 0))
            ss.append(np.where(v, s, 0))
            valid.append(v)
        k, s, v = np.concatenate(ks), np.concatenate(ss), np.concatenate(valid)
        self._s = s[:, None].astype(float)
        self._r = (k - s)[:, None].astype(float)
        # log C(k, s) correctly rounded from the exact integer (math.log takes big ints)
        self._logcoef = np.array([math.log(math.comb(int(a), int(b))) if ok else -math.inf for a, b, ok in zip(k, s, v)])[:, None]
        self._coef = np.array([float(math.comb(int(a), int(b))) if ok and not self.log_pmf else 0.0 for a, b, ok in zip(k, s, v)])[:, None]
        self._kf = self.K[:, None].astype(float)

    # -- binomial kernel B_c(q) = Bin(S_c; K_c, q) and derivatives (eq. (L2)) --------------
    def _tables(self, q: np.ndarray, rows: int) -> np.ndarray:
        """b_{K-dk}(S-ds; q) for the first ``rows`` stacked tables, by one exp of logs.

        Relative error ~ eps * |log b|, below 1e-14 where b is not negligible; exact zeros
        and ones at q = 0 and 1 (``xlogy`` takes 0 log 0 as 0).
        """
        return np.exp(self._logcoef[:rows] + special.xlogy(self._s[:rows], q) + special.xlog1py(self._r[:rows], -q))

    def kernel(self, q: np.ndarray) -> np.ndarray:
        """B_c(q) for cells c (rows) and points q (columns)."""
        return self._tables(np.asarray(q, dtype=float), len(self.K))

    def kernel_exact(self, q: np.ndarray) -> np.ndarray:
        """B_c(q) by direct products C(K, S) q^S (1-q)^(K-S) (a few ulps; for the cached grids)."""
        q = np.asarray(q, dtype=float)
        if self.log_pmf:
            return self.kernel(q)
        c = len(self.K)
        return self._coef[:c] * q[None, :] ** self._s[:c] * (1.0 - q[None, :]) ** self._r[:c]

    def kernel_jet(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """B, B' = K [b_{K-1}(S-1) - b_{K-1}(S)] and B'' = K(K-1) [b_{K-2}(S-2) - 2 b_{K-2}(S-1) + b_{K-2}(S)]."""
        c = len(self.K)
        t = self._tables(np.asarray(q, dtype=float), 6 * c)
        k = self._kf
        d1 = k * (t[c: 2 * c] - t[2 * c: 3 * c])
        d2 = k * (k - 1.0) * (t[3 * c: 4 * c] - 2.0 * t[4 * c: 5 * c] + t[5 * c:])
        return t[:c], d1, d2

    def kernel_derivatives(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.kernel_jet(q)[1:]

    def loglik(self, p: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            return float(self.n @ np.log(p))

    def probabilities(self, law: _Law) -> np.ndarray:
        return self.kernel(law.atoms) @ law.weights

    # -- screening: global minimum of psi = g - lam h over the pieces ----------------------
    def density(self, tgt: _Target) -> float:
        return max(GRID_POINTS - 1, GRID_PER_DEGREE * max(tgt.degree, self.kmax))

    def grid(self, lo: float, hi: float, density: float) -> tuple[np.ndarray, np.ndarray]:
        key = (lo, hi, density)
        if key not in self._grids:
            points = 1 if hi <= lo else max(3, int(math.ceil((hi - lo) * density)) + 1)
            g = np.linspace(lo, hi, points)
            self._grids[key] = (g, self.kernel_exact(g))
        return self._grids[key]

    def _dpsi(self, pc: _Piece, lam: float, u: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d1, d2 = self.kernel_derivatives(x)
        g1, g2 = pc.jet(x, (1, 2))
        return g1 - lam * (u @ d1), g2 - lam * (u @ d2)

    def _psi(self, pc: _Piece, lam: float, u: np.ndarray, x: np.ndarray) -> np.ndarray:
        return pc.values(x, 0) - lam * (u @ self.kernel(x))

    def screen(self, tgt: _Target, lam: float, u: np.ndarray, known: _Law | None = None) -> _Screen:
        """Every local minimum of psi on a fine grid of each piece, polished by safeguarded Newton.

        ``known``: atoms already solved by Newton (psi' = 0 there, or an endpoint); a grid
        minimum whose bracket holds one of them is that atom, and is not polished again.
        """
        qs, ks, vs = [], [], []
        density = self.density(tgt)
        for k, pc in enumerate(tgt.pieces):
            grid, bg = self.grid(pc.lo, pc.hi, density)
            psi = tgt.grid_values(k, grid) - lam * (u @ bg) if lam != 0 else tgt.grid_values(k, grid).copy()
            m = len(grid)
            if m == 1:
                idx = np.zeros(1, dtype=np.int64)
            else:
                left = np.ones(m, dtype=bool)
                right = np.ones(m, dtype=bool)
                left[1:] = psi[1:] < psi[:-1]  # strict on the left: one candidate per plateau
                right[:-1] = psi[:-1] <= psi[1:]
                idx = np.flatnonzero(left & right)
                if len(idx) > MAX_CANDIDATES:
                    idx = idx[np.argsort(psi[idx], kind="stable")[:MAX_CANDIDATES]]
            x, v = self._polish(pc, lam, u, grid, idx, psi, None if known is None else known.atoms[known.piece == k])
            qs.append(x)
            vs.append(v)
            ks.append(np.full(len(x), k, dtype=np.int64))
        q, piece, psi = np.concatenate(qs), np.concatenate(ks), np.concatenate(vs)
        # the same minimum reached from two grid points
        keys = np.round(q, 14) + 2.0 * piece
        _, first = np.unique(keys, return_index=True)
        return _Screen(q[first], piece[first], psi[first])

    def _polish(self, pc, lam, u, grid, idx, psi_grid, known=None):
        """Polish the grid minima that can be the lowest; the others keep their grid values.

        Within a grid cell psi falls below its grid value by at most ~ psi'' h^2 / 2, which
        the second difference |psi[i+1] - 2 psi[i] + psi[i-1]| ~ psi'' h^2 estimates; a
        candidate above the lowest grid value by more than POLISH_MARGIN such differences
        cannot be the global minimum. A minimum whose bracket holds a ``known`` atom is that atom.
        """
        x0, v0 = grid[idx], psi_grid[idx]
        m = len(grid)
        if m == 1 or (pc.objective is None and lam == 0):
            return x0.copy(), v0.copy()
        x_all, v_all = x0.copy(), v0.copy()
        sd = np.abs(psi_grid[np.minimum(idx + 1, m - 1)] - 2.0 * v0 + psi_grid[np.maximum(idx - 1, 0)])
        keep = v0 - POLISH_MARGIN * sd <= float(v0.min()) + 1e-12 * (float(np.max(np.abs(psi_grid))) + 1e-300)
        if known is not None and len(known):
            lo_x, hi_x = grid[np.maximum(idx - 1, 0)], grid[np.minimum(idx + 1, m - 1)]
            inside = (known[None, :] >= lo_x[:, None]) & (known[None, :] <= hi_x[:, None])
            hit = inside.any(axis=1)
            if hit.any():
                xk = known[np.argmax(inside[hit], axis=1)]
                x_all[hit], v_all[hit] = xk, self._psi(pc, lam, u, xk)
                keep &= ~hit
        sub = np.flatnonzero(keep)
        if len(sub):
            x_all[sub], v_all[sub] = self._polish_all(pc, lam, u, grid, idx[sub], psi_grid)
        return x_all, v_all

    def _polish_all(self, pc, lam, u, grid, idx, psi_grid):
        x0, v0 = grid[idx], psi_grid[idx]
        m = len(grid)
        lo_i, hi_i = np.maximum(idx - 1, 0), np.minimum(idx + 1, m - 1)
        left, right = grid[lo_i], grid[hi_i]
        d, _ = self._dpsi(pc, lam, u, np.concatenate([left, right]))
        d_left, d_right = d[: len(idx)], d[len(idx):]
        x = x0.copy()
        at_lo = (idx == 0) & (d_left >= 0)
        at_hi = (idx == m - 1) & (d_right <= 0)
        x[at_lo], x[at_hi] = pc.lo, pc.hi
        inner = (d_left < 0) & (d_right > 0) & ~at_lo & ~at_hi
        if inner.any():
            x[inner] = self._root(pc, lam, u, left[inner], right[inner], x0[inner])
        v = self._psi(pc, lam, u, x)
        worse = ~(v <= v0)  # never report a point worse than its grid point
        x[worse], v[worse] = x0[worse], v0[worse]
        return x, v

    def _root(self, pc, lam, u, a, b, x):
        """Safeguarded Newton for psi'(x) = 0 with psi'(a) < 0 < psi'(b)."""
        a, b, x = a.copy(), b.copy(), x.copy()
        for _ in range(POLISH_MAX_ITER):
            f, fp = self._dpsi(pc, lam, u, x)
            a = np.where(f < 0, x, a)
            b = np.where(f > 0, x, b)
            with np.errstate(divide="ignore", invalid="ignore"):
                xn = x - f / fp
            bad = ~(fp > 0) | ~(xn > a) | ~(xn < b)
            xn = np.where(bad, 0.5 * (a + b), xn)
            xn = np.where(f == 0, x, xn)
            done = np.abs(xn - x) <= POLISH_XTOL
            x = xn
            if done.all():
                break
        return x

    # -- the inner convex problem: min E g - lam l over laws (eq. (L7)), by CNM -------------
    def psi_at(self, tgt: _Target, law: _Law, lam: float, u: np.ndarray) -> np.ndarray:
        (g0,) = tgt.jet(law.atoms, law.piece, (0,))
        return g0 - lam * (u @ self.kernel(law.atoms))

    def cnm(self, tgt: _Target, lam: float, law: _Law, tol: float, max_iter: int = CNM_MAX_ITER):
        """Constrained Newton method: add every local minimum of psi below its mean, reweight.

        Minimizes F(w) = E g / lam - l on a growing support. Returns (law, gap, screen) where
        gap = E_pi psi - min psi >= F(pi) - min F (times lam), eq. (L8). Use :meth:`merge`
        on the law before Newton's method.
        """
        law = law.copy()
        last_f = math.inf
        stall = 0
        for _ in range(max_iter):
            bm = self.kernel(law.atoms)
            p = bm @ law.weights
            u = self.n / p
            scr = self.screen(tgt, lam, u)
            (g_at,) = tgt.jet(law.atoms, law.piece, (0,))
            psi_at = g_at - lam * (u @ bm)
            mean = float(law.weights @ psi_at)
            best = scr.argmin()
            gap = mean - float(scr.psi[best])
            if gap <= tol:
                return law, gap, scr
            add = scr.psi < mean
            for x, k in zip(law.atoms, law.piece):  # a current atom again would duplicate a column
                add &= ~((scr.piece == k) & (np.abs(scr.q - x) <= DUPLICATE_TOL))
            new = _Law(np.concatenate([law.atoms, scr.q[add]]), np.concatenate([law.weights, np.zeros(int(add.sum()))]),
                       np.concatenate([law.piece, scr.piece[add]]))
            bnew = np.concatenate([bm, self.kernel(scr.q[add])], axis=1)
            (gnew,) = tgt.jet(new.atoms, new.piece, (0,))
            h = u @ bnew
            a = (self.sqrt_n / p)[:, None] * bnew
            qmat = a.T @ a
            lin = gnew / lam - 2.0 * h  # model of F around the current weights, eq. (L8)
            wq = _simplex_qp(qmat, lin, new.weights)
            d = wq - new.weights
            slope = float((gnew / lam - h) @ d)
            f0 = float(gnew @ new.weights) / lam - self.loglik(p)
            if not slope < 0:
                stall += 1
                if stall > 2:
                    return law, gap, scr
                continue
            step = 1.0
            while step > 1e-14:
                w = new.weights + step * d
                pn = bnew @ w
                if np.all(pn > 0):
                    fn = float(gnew @ w) / lam - self.loglik(pn)
                    if fn <= f0 + ARMIJO * step * slope:
                        break
                step *= 0.5
            else:
                return law, gap, scr
            w = np.where(np.abs(w) <= 1e-300, 0.0, w)
            keep = w > 0
            law = _Law(new.atoms[keep], w[keep] / w[keep].sum(), new.piece[keep])
            stall = stall + 1 if fn >= last_f - 1e-15 * abs(last_f) else 0
            last_f = fn
            if stall > 5:
                return law, gap, scr
        return law, gap, scr

    # -- Newton on the KKT equations (L9) of a fixed support ------------------------------------
    def merge(self, law: _Law, tgt: _Target, lam: float) -> _Law:
        """Merge neighbouring atoms of one piece that lie in the same basin of psi.

        An optimal law sits on global minimizers of psi, at most one per basin (the stretch
        between two local maxima). CNM often leaves two atoms on either side of one minimum;
        they make the KKT matrix singular, so they are merged (weighted mean location) unless
        psi rises above both of them somewhere between them on the screening grid.
        """
        law = law.sorted()
        if len(law.atoms) < 2:
            return law
        u = self.n / self.probabilities(law)
        # (CNM pairs straddle a minimum at distances ~ sqrt(gap / psi''), far below MERGE_DISTANCE)
        psi_at = self.psi_at(tgt, law, lam, u)
        density = self.density(tgt)
        groups = [[0]]
        for i in range(1, len(law.atoms)):
            j = groups[-1][-1]
            k = int(law.piece[i])
            same = False
            if law.piece[j] == k and law.atoms[i] - law.atoms[j] <= MERGE_DISTANCE:
                pc = tgt.pieces[k]
                grid, bg = self.grid(pc.lo, pc.hi, density)
                inside = np.flatnonzero((grid > law.atoms[j]) & (grid < law.atoms[i]))
                if len(inside) == 0:
                    same = True
                else:
                    sl = slice(inside[0], inside[-1] + 1)
                    between = tgt.grid_values(k, grid)[sl] - lam * (u @ bg[:, sl])
                    tol = SCREEN_TOL * (tgt.scale() + lam * self.N)
                    no_rise = float(between.max()) <= max(psi_at[i], psi_at[j]) + tol
                    # a flat stretch (psi constant: the saturated NPMLE, a non-unique law) is no basin
                    flat = abs(psi_at[i] - psi_at[j]) <= tol and float(between.min()) >= min(psi_at[i], psi_at[j]) - tol
                    same = no_rise and not flat
            if same:
                groups[-1].append(i)
            else:
                groups.append([i])
        if len(groups) == len(law.atoms):
            return law
        atoms, weights, piece = [], [], []
        for grp in groups:
            pc = tgt.pieces[int(law.piece[grp[0]])]
            xs, ws, vs = law.atoms[grp], law.weights[grp], psi_at[grp]
            lowest = int(np.argmin(vs))
            if len(grp) > 1 and xs[lowest] in (pc.lo, pc.hi):
                x = float(xs[lowest])  # the basin's minimum is the endpoint: Newton keeps it there
            else:
                x = float(np.dot(xs, ws) / ws.sum())
            atoms.append(x)
            weights.append(float(ws.sum()))
            piece.append(int(law.piece[grp[0]]))
        merged = _Law(atoms, weights, piece)
        return merged if np.all(self.probabilities(merged) > 0) else law

    def newton(self, tgt: _Target, law: _Law, lam: float, level: float | None = None, fixed: bool = False):
        """Solve the KKT equations (L9) by Newton's method on the current support.

        Unknowns: weights, interior atom locations, a (and t = log lam when ``level`` is given,
        with the extra equation l = level). Atoms at a piece endpoint stay there. A weight that
        Newton drives to zero removes its atom; an atom that reaches an endpoint is fixed there.
        Steps are accepted by a watchdog rule on the scaled max-norm residual. Returns
        (law, lam, a) or None when Newton does not converge.

        ``fixed``: keep every atom where it is (weights, a, t only). When psi is flat at the
        optimum (deg g <= K with the optimal cell probabilities inside the moment space, or
        the saturated NPMLE) the optimal law is not unique and the full system is singular,
        while the weights on at most C distinct atoms are determined.
        """
        lo = np.array([tgt.pieces[int(k)].lo for k in law.piece])
        hi = np.array([tgt.pieces[int(k)].hi for k in law.piece])
        if fixed:  # every atom behaves as if on an endpoint: no location unknowns
            lo, hi = law.atoms.copy(), law.atoms.copy()
        gscale = tgt.scale()
        t = math.log(lam) if level is not None else 0.0
        a = self._kkt(tgt, law, lam, None, level, lo, hi, gscale, jacobian=False, mean_only=True)
        if a is None:
            return None
        best, relaxed = None, 0
        res = None
        for _ in range(NEWTON_MAX_ITER):
            if res is None:
                res = self._kkt(tgt, law, lam, a, level, lo, hi, gscale, jacobian=True)
                if res is None:
                    return None
            r, jac, scale, free = res
            res = None
            merit = float(np.max(np.abs(r / scale)))
            if merit <= NEWTON_TOL:
                return law, lam, a
            if best is None or merit < (1.0 - ARMIJO) * best[-1]:
                best, relaxed = (law, t, lam, a, lo, hi, merit), 0
            try:
                dx = np.linalg.solve(jac, -r)
            except np.linalg.LinAlgError:
                return None
            if not np.all(np.isfinite(dx)):
                return None
            m, f = len(law.atoms), len(free)
            # trust region: far from the solution Newton's steps in log lambda and in the atom
            # locations can be wild; shorten the whole step (the direction stays Newton's)
            cap = 1.0
            if level is not None and abs(dx[-2]) > MAX_LOG_LAMBDA_STEP:
                cap = MAX_LOG_LAMBDA_STEP / abs(dx[-2])
            if f and np.max(np.abs(dx[m: m + f])) > MAX_ATOM_STEP:
                cap = min(cap, MAX_ATOM_STEP / float(np.max(np.abs(dx[m: m + f]))))
            dx = dx * cap
            dw, dth = dx[:m], dx[m: m + f]
            # largest step keeping weights >= 0 and atoms inside their pieces
            step, block = 1.0, None
            for i in np.flatnonzero(dw < 0):
                s = -law.weights[i] / dw[i]
                if s < step:
                    step, block = s, ("w", i)
            for j, i in enumerate(free):
                if dth[j] < 0 and law.atoms[i] + dth[j] < lo[i]:
                    s = (lo[i] - law.atoms[i]) / dth[j]
                    if s < step:
                        step, block = s, ("lo", i)
                elif dth[j] > 0 and law.atoms[i] + dth[j] > hi[i]:
                    s = (hi[i] - law.atoms[i]) / dth[j]
                    if s < step:
                        step, block = s, ("hi", i)
            if block is not None:
                new = self._step(law, dx, free, step)
                kind, i = block
                if kind == "w":
                    keep = np.ones(m, dtype=bool)
                    keep[i] = False
                    if not keep.any():
                        return None
                    new = _Law(new.atoms[keep], new.weights[keep], new.piece[keep])
                    lo, hi = lo[keep], hi[keep]
                else:
                    new.atoms[i] = lo[i] if kind == "lo" else hi[i]
                law = new
                if level is not None:
                    t += step * dx[-2]
                    lam = math.exp(t)
                a = a + step * dx[-1]
                best, relaxed = None, 0
                continue
            # full step; non-monotone (watchdog) acceptance, else a line search from the best point
            new = self._step(law, dx, free, 1.0)
            t_new = t + dx[-2] if level is not None else t
            lam_new = math.exp(t_new) if level is not None else lam
            a_new = a + dx[-1]
            trial = self._kkt(tgt, new, lam_new, a_new, level, lo, hi, gscale, jacobian=True)
            mn = float(np.max(np.abs(trial[0] / trial[2]))) if trial is not None else math.inf
            # relaxed >= 0: watchdog steps taken since the last real decrease; -1: line-search mode
            if mn < (1.0 - ARMIJO) * merit or mn <= NEWTON_TOL or (math.isfinite(mn) and 0 <= relaxed < WATCHDOG_STEPS):
                if not mn < (1.0 - ARMIJO) * merit:
                    relaxed = relaxed + 1 if relaxed >= 0 else relaxed
                law, t, lam, a, res = new, t_new, lam_new, a_new, trial
                continue
            if relaxed > 0:  # the relaxed steps did not pay off: back to the best point, line search
                law, t, lam, a, lo, hi, merit = best
                relaxed = -1
                continue
            accepted = False
            step = 0.5
            for _k in range(40):
                new = self._step(law, dx, free, step)
                t_new = t + step * dx[-2] if level is not None else t
                lam_new = math.exp(t_new) if level is not None else lam
                a_new = a + step * dx[-1]
                rn = self._kkt(tgt, new, lam_new, a_new, level, lo, hi, gscale, jacobian=False)
                if rn is not None:
                    mn = float(np.max(np.abs(rn[0] / rn[1])))
                    if mn < (1.0 - ARMIJO * step) * merit or mn <= NEWTON_TOL:
                        accepted = True
                        break
                step *= 0.5
            if not accepted:
                return (law, lam, a) if merit <= 100 * NEWTON_TOL else None
            law, t, lam, a = new, t_new, lam_new, a_new
        return None

    def _step(self, law: _Law, dx: np.ndarray, free: np.ndarray, step: float) -> _Law:
        m = len(law.atoms)
        w = np.maximum(law.weights + step * dx[:m], 0.0)
        atoms = law.atoms.copy()
        atoms[free] = atoms[free] + step * dx[m: m + len(free)]
        return _Law(atoms, w, law.piece.copy())

    def _kkt(self, tgt, law, lam, a, level, lo, hi, gscale, jacobian, mean_only=False):
        """Residuals of (L9) (and l = level), their scales and optionally the Jacobian.

        ``mean_only``: just E_pi psi, the starting value of a.
        """
        atoms, w = law.atoms, law.weights
        bm, b1, b2 = self.kernel_jet(atoms)
        p = bm @ w
        if not np.all(p > 0):
            return None
        u = self.n / p
        g0, g1, g2 = tgt.jet(atoms, law.piece)
        free = np.flatnonzero((atoms > lo) & (atoms < hi))
        h0, h1 = u @ bm, u @ b1
        psi0 = g0 - lam * h0
        if mean_only:
            return float(w @ psi0)
        spsi = gscale + lam * self.N
        r = [psi0 - a, g1[free] - lam * h1[free], [w.sum() - 1.0]]
        sc = [np.full(len(atoms), spsi), np.full(len(free), spsi * max(self.kmax, tgt.degree, 1)), [1.0]]
        if level is not None:
            ll = self.loglik(p)
            r.append([ll - level])
            sc.append([max(1.0, abs(level))])
        r, sc = np.concatenate(r), np.concatenate(sc)
        if not jacobian:
            return r, sc
        m, f = len(atoms), len(free)
        e = np.concatenate([bm, b1[:, free] * w[free]], axis=1)  # dp / d(w, theta_free)
        tmat = np.concatenate([bm, b1[:, free]], axis=1)
        size = m + f + 1 + (1 if level is not None else 0)
        jac = np.zeros((size, size))
        # n / p^2 as (n / p) (1 / p): p * p underflows when a cell is nearly impossible (K in
        # the thousands), while u = n / p and e / p stay finite
        jac[: m + f, : m + f] = lam * (tmat.T @ (u[:, None] * (e / p[:, None])))
        h2 = u @ b2
        cols = m + np.arange(f)
        jac[free, cols] += g1[free] - lam * h1[free]
        jac[cols, cols] += g2[free] - lam * h2[free]
        jac[m + f, :m] = 1.0
        jac[:m, -1] = -1.0  # d/da
        if level is not None:
            # t = log lam: d psi / dt = -lam h
            jac[:m, -2] = -lam * h0
            jac[m: m + f, -2] = -lam * h1[free]
            jac[m + f + 1, : m + f] = u @ e
        return r, jac, sc, free


def _simplex_qp(qmat: np.ndarray, lin: np.ndarray, w0: np.ndarray) -> np.ndarray:
    """min 1/2 w'Qw + lin'w over the simplex for a positive semidefinite Q (primal active set).

    Q = A'A is singular whenever there are more atoms than cells. On the current face
    {w_F : sum w_F = 1} (Z an orthonormal basis of sum d = 0, E = Z'Q_FF Z = V diag(mu) V'):
    a direction of zero curvature along which the model decreases is followed to the boundary
    of the simplex (the model is linear there); otherwise the Newton step of the face is
    taken with the pseudo-inverse of E, shortened at the first weight that reaches zero.
    Finite termination as for the usual active-set method; w0 must be feasible.
    """
    m = len(lin)
    w = w0.copy()
    free = w > 0
    for _ in range(20 * m + 20):
        fidx = np.flatnonzero(free)
        f = len(fidx)
        grad = qmat @ w + lin
        gf = grad[fidx]
        if f > 1:
            z_basis = np.linalg.svd(np.ones((1, f)))[2][1:].T  # f x (f-1), orthonormal, sums to 0
            mu, vec = np.linalg.eigh(z_basis.T @ qmat[np.ix_(fidx, fidx)] @ z_basis)
            flat = mu <= QP_NULL_RTOL * max(float(mu[-1]), 1e-300)
            rg = z_basis.T @ gf
            d = -(z_basis @ (vec[:, flat] @ (vec[:, flat].T @ rg)))
            if float(gf @ d) < -QP_NULL_RTOL * float(np.abs(gf).max()) * float(np.abs(d).sum()):
                neg = d < 0
                ratios = w[fidx][neg] / -d[neg]
                k = int(np.argmin(ratios))
                w[fidx] = w[fidx] + float(ratios[k]) * d
                w[fidx[np.flatnonzero(neg)[k]]] = 0.0
                w[w < 0] = 0.0
                free = w > 0
                continue
            coef = np.where(flat, 0.0, -(vec.T @ rg) / np.where(flat, 1.0, mu))
            target = w[fidx] + z_basis @ (vec @ coef)
        else:
            target = w[fidx].copy()
        if np.all(target >= 0):
            w = np.zeros(m)
            w[fidx] = target
            qw = qmat @ w
            grad = qw + lin
            gamma = float(np.mean(grad[fidx]))  # on the face the gradient is constant
            mult = grad - gamma
            mult[fidx] = np.inf
            j = int(np.argmin(mult))
            # rounding of each entry, not of the largest: Q spans dozens of orders of magnitude
            # when some cell probability is tiny
            if mult[j] >= -1e-13 * (abs(lin[j]) + abs(qw[j]) + abs(gamma)):
                return w
            free[j] = True
        else:
            wf = w[fidx]
            neg = target < 0
            ratios = wf[neg] / (wf[neg] - target[neg])
            k = int(np.argmin(ratios))
            w[fidx] = wf + float(ratios[k]) * (target - wf)
            w[fidx[np.flatnonzero(neg)[k]]] = 0.0
            w[w < 0] = 0.0
            free = w > 0
    return w


# ----------------------------------------------------------------------------------------------
# NPMLE


def _initial_law(prob: _Problem) -> _Law:
    """The empirical law of S_i / K_i: every observed cell has positive probability under it."""
    x = prob.S / prob.K
    atoms, inv = np.unique(x, return_inverse=True)
    w = np.bincount(inv, weights=prob.n) / prob.N
    return _Law.unassigned(atoms, w)


def _npmle(prob: _Problem) -> tuple[_Law, float, float]:
    """NPMLE law, max D and argmax D."""
    zero = _zero_target()
    tol = NPMLE_GRADIENT_TOL + NPMLE_GRADIENT_RTOL * prob.N
    law, gap, _ = prob.cnm(zero, 1.0, _initial_law(prob), INNER_LOOSE_GAP * prob.N)
    # Newton on the merged CNM support; where it converges on too few atoms (D > 0 somewhere),
    # one vertex-exchange step adds the maxima of D and Newton runs again. Last, the CNM
    # atoms fixed (the saturated, flat case); CNM to the tolerance finishes what is left.
    starts = [(prob.merge(law, zero, 1.0), False)] * FAST_ROUNDS + [(law, True)]
    for i, (start, fixed) in enumerate(starts):
        polished = prob.newton(zero, start, 1.0, fixed=fixed)
        if polished is None or not np.all(polished[0].weights > 0):
            if not fixed:
                starts[i + 1:] = starts[-1:]  # Newton failed on this support: to the fixed atoms
            continue
        cand = polished[0]
        scr = prob.screen(zero, 1.0, prob.n / prob.probabilities(cand))
        if -float(scr.psi.min()) - prob.N <= tol:
            law = cand
            break
        if not fixed and i + 1 < FAST_ROUNDS:
            starts[i + 1] = (prob.merge(_exchange(cand, scr, -prob.N), zero, 1.0), False)
    law, gap, scr = prob.cnm(zero, 1.0, law, tol)
    for _ in range(CNM_RESTARTS):  # gap = max D here (E_pi psi = -N for g = 0, lambda = 1)
        if gap <= tol:
            break
        law, gap, scr = prob.cnm(zero, 1.0, prob.merge(law, zero, 1.0), tol)
    u = prob.n / prob.probabilities(law)
    scr = prob.screen(zero, 1.0, u)
    i = scr.argmin()
    dmax = -float(scr.psi[i]) - prob.N
    if not dmax <= max(tol, NPMLE_ACCEPT_GAP):
        raise SolverError("npmle", "not converged",
                          f"max of the gradient function {dmax:.3g} > {max(tol, NPMLE_ACCEPT_GAP):.3g} on {prob.cells.size} cells")
    return law.sorted(), dmax, float(scr.q[i])


def npmle(cells) -> LatentLaw:
    """Nonparametric maximum-likelihood estimate of the latent law (eq. (L3)).

    Continuous support, no grid: the constrained Newton method (CNM, Wang 2007) adds the
    local maxima of the gradient function D as atoms and re-weights by a Newton step on
    the weights; Newton's method on the optimality equations then polishes the atom
    locations and weights together.

    Parameters
    ----------
    cells : CellCounts or CallBits

    Returns
    -------
    LatentLaw
        Atoms, weights, l(pi-hat) and the maximum of D over [0, 1] (<= tolerance).

    Raises
    ------
    SolverError
        If the optimality condition max D <= tolerance (eq. (L5)) is not reached.
    """
    prob = _Problem(_as_cells(cells))
    return _latent(prob, *_npmle(prob))


def _latent(prob: _Problem, law: _Law, dmax: float, where: float) -> LatentLaw:
    return LatentLaw(
        atoms=tuple(float(x) for x in law.atoms),
        weights=tuple(float(x) for x in law.weights),
        loglik=prob.loglik(prob.probabilities(law)),
        max_gradient=dmax,
        argmax_gradient=where,
        n=int(prob.N),
    )


def log_likelihood(cells, atoms, weights) -> float:
    """l(pi) = sum_c n_c log p_c(pi) for the law with the given atoms and weights (eq. (L2))."""
    prob = _Problem(_as_cells(cells))
    a, w = np.asarray(atoms, dtype=float), np.asarray(weights, dtype=float)
    if a.ndim != 1 or a.shape != w.shape or np.any((a < 0) | (a > 1)) or np.any(w < 0):
        raise InputError("atoms and weights must be 1-d of equal length, atoms in [0, 1], weights >= 0")
    return prob.loglik(prob.kernel(a) @ w)


def gradient_function(cells, law, q) -> np.ndarray:
    """D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(law) - N at points q (eq. (L4)).

    ``law`` is a :class:`LatentLaw`, a :class:`certify.Law` or an (atoms, weights) pair.
    """
    prob = _Problem(_as_cells(cells))
    atoms, weights = (law.atoms, law.weights) if hasattr(law, "atoms") else law
    p = prob.kernel(np.asarray(atoms, dtype=float)) @ np.asarray(weights, dtype=float)
    return (prob.n / p) @ prob.kernel(np.atleast_1d(np.asarray(q, dtype=float))) - prob.N


# ----------------------------------------------------------------------------------------------
# Likelihood-ratio ends


def identified_df(cells) -> int:
    """Dimension of the identified cell probabilities: K for one K (K+1 cells summing to 1).

    For ragged call counts the cell probabilities of every K_i <= K_max are linear in the
    first K_max moments of pi, so the identified dimension is K_max.
    """
    return _as_cells(cells).max_calls


def critical_value(alpha: float = 0.05, df: int = 1, n: int | None = None, dim: int | None = None) -> float:
    """The log-likelihood drop c of a likelihood-ratio interval (eq. (L6)).

    Without ``n``: c = chi2_{df, 1-alpha} / 2 (Wilks). With ``n`` examples and ``dim`` identified
    parameters: the small-sample form c = (n / 2) log(1 + df F_{df, n-dim, 1-alpha} / (n - dim)),
    which is the exact likelihood-ratio cutoff of a Gaussian linear model with dim parameters
    (W = n log(1 + df F / (n - dim)), F ~ F(df, n - dim)) and tends to chi2_{df} / 2 as n grows;
    it corrects the chi-square calibration's shortfall at small N (measured in
    ``benchmarks/bench_likelihood_coverage.py``) and is larger than it at every n.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < float(alpha) < 1:
        raise InputError(f"alpha={alpha!r} must be a number strictly between 0 and 1")
    if isinstance(df, bool) or not isinstance(df, (int, np.integer)) or df < 1:
        raise InputError(f"df={df!r} must be a positive integer")
    if n is None:
        return float(chi2.ppf(1.0 - float(alpha), int(df))) / 2.0
    dim = int(df if dim is None else dim)
    resid = max(int(n) - dim, 1)  # n <= dim: one residual degree, a very wide (honest) interval
    quant = float(f_dist.ppf(1.0 - float(alpha), int(df), resid))
    return 0.5 * int(n) * math.log1p(int(df) * quant / resid)


class _Context:
    """Shared state of a batch of ends: problem, NPMLE and the threshold of one calibration."""

    def __init__(self, cells, alpha, simultaneous, c, reference):
        self.cells = _as_cells(cells)
        self.prob = _Problem(self.cells)
        self.simultaneous = bool(simultaneous)
        if c is None:
            self.alpha = float(alpha)
            critical_value(alpha)  # validates alpha once, before any solve
        else:
            if isinstance(c, bool) or not isinstance(c, (int, float, np.floating)) or not (0 < float(c) < math.inf):
                raise InputError(f"c={c!r} must be a positive finite log-likelihood drop")
            self.alpha = None
        self.given_c = None if c is None else float(c)
        if reference is None:
            law, dmax, where = _npmle(self.prob)
            self.reference = _latent(self.prob, law, dmax, where)
            self.ref_law = law
        else:
            if not isinstance(reference, LatentLaw):
                raise InputError(f"reference={type(reference).__name__} must be the LatentLaw returned by npmle()")
            if reference.n != int(self.prob.N):
                raise InputError(f"reference has n={reference.n} examples but the cells have {int(self.prob.N)}")
            self.reference = reference
            self.ref_law = _Law.unassigned(reference.atoms, reference.weights)
        self.calibrate("given" if c is not None else "simultaneous" if self.simultaneous else "profile")

    def calibration_of(self, obj: Objective | VoteLimit) -> str:
        """The calibration of one objective (eq. (L6)): profile if identified (eq. (L13)), else projection."""
        if self.given_c is not None:
            return "given"
        if self.simultaneous:
            return "simultaneous"
        identified = obj is not V_INF and obj.degree <= self.cells.max_calls
        return "profile" if identified else "projection"

    def calibrate(self, calibration: str) -> "_Context":
        """Set c, df and the level for ``calibration``; returns self."""
        self.calibration = calibration
        if calibration == "given":
            self.df, self.c = 0, self.given_c
        else:
            self.df = 1 if calibration == "profile" else identified_df(self.cells)
            self.c = critical_value(self.alpha, self.df, n=int(self.prob.N), dim=identified_df(self.cells))
        self.level = self.reference.loglik - self.c
        return self

    def set_drop(self, c: float) -> "_Context":
        """Use the drop ``c`` (the small-count threshold) with the current calibration; returns self."""
        self.c = float(c)
        self.level = self.reference.loglik - self.c
        return self


def _pieces_law(law: _Law, tgt: _Target) -> _Law:
    """Assign the atoms of a law (from another target) to pieces of ``tgt``.

    An atom on the boundary of two pieces goes to the piece with the smaller value there,
    as the lower semicontinuous envelope does.
    """
    piece = np.zeros(len(law.atoms), dtype=np.int64)
    best = np.full(len(law.atoms), np.inf)
    for k, pc in enumerate(tgt.pieces):
        inside = (law.atoms >= pc.lo) & (law.atoms <= pc.hi)
        if inside.any():
            vals = np.full(len(law.atoms), np.inf)
            vals[inside] = pc.values(law.atoms[inside], 0)
            better = vals < best
            piece[better], best[better] = k, vals[better]
    return _Law(law.atoms.copy(), law.weights.copy(), piece)


def _best_cell_probabilities(prob: _Problem, pieces) -> np.ndarray:
    """max over x in the union of [lo, hi] of B_c(x), per cell (B_c is unimodal, mode S_c/K_c)."""
    best = np.zeros(prob.cells.size)
    mode = prob.S / prob.K
    for lo, hi in pieces:
        best = np.maximum(best, np.diag(prob.kernel(np.clip(mode, lo, hi))))
    return best


def _near_min_may_fit(ctx: _Context, tgt: _Target, density: float) -> bool:
    """Quick test before the lambda = 0 test: could a law near min g reach the level at all?

    Every minimizer of g lies within one grid cell of a grid point whose value is at most
    the lowest grid value plus the largest one-cell drop (bounded by the largest second
    difference, as in the polishing rule); the likelihood bound over those cells decides.
    """
    prob = ctx.prob
    pieces, lows = [], []
    for k, pc in enumerate(tgt.pieces):
        grid, _ = prob.grid(pc.lo, pc.hi, density)
        values = tgt.grid_values(k, grid)
        lows.append((grid, values))
    gmin = min(float(v.min()) for _, v in lows)
    for grid, values in lows:
        if len(grid) < 3:
            pieces += [(float(grid[0]), float(grid[-1]))]
            continue
        drop = POLISH_MARGIN * float(np.max(np.abs(np.diff(values, 2)))) + ARGMIN_TOL * max(1.0, tgt.scale())
        near = values <= gmin + drop
        near[1:] |= near[:-1].copy()  # one grid cell on either side
        near[:-1] |= near[1:].copy()
        pieces += _runs(grid, near)
    return prob.loglik(_best_cell_probabilities(prob, pieces)) >= ctx.level


def _runs(grid: np.ndarray, mask: np.ndarray) -> list[tuple[float, float]]:
    """The intervals [grid[i], grid[j]] of maximal runs of True in ``mask``."""
    edge = np.concatenate([[False], mask, [False]])
    starts = np.flatnonzero(edge[1:] & ~edge[:-1])
    ends = np.flatnonzero(~edge[1:] & edge[:-1]) - 1
    return [(float(grid[i]), float(grid[j])) for i, j in zip(starts, ends)]


def _lambda_zero(ctx: _Context, tgt: _Target):
    """The lambda = 0 case (eq. (L11)): is some law on {g <= min g + ARGMIN_TOL} inside the set?

    The near-minimal set, not just argmin g: V_101 is below 1e-13 on a whole interval, and a
    law there is optimal to that accuracy while the exact lambda would be astronomically small.
    Returns (law, min g) or None.
    """
    prob = ctx.prob
    density = prob.density(tgt)
    if not _near_min_may_fit(ctx, tgt, density):
        return None
    scr = prob.screen(tgt, 0.0, np.zeros(prob.cells.size))
    gmin = float(scr.psi.min())
    tol = ARGMIN_TOL * max(1.0, tgt.scale())
    pieces: list[tuple[float, float]] = []
    for k, pc in enumerate(tgt.pieces):
        grid, _ = prob.grid(pc.lo, pc.hi, prob.density(tgt))
        values = tgt.grid_values(k, grid)
        if pc.objective is None:
            if pc.constant <= gmin + tol:
                pieces.append((pc.lo, pc.hi))
            continue
        pieces += _runs(grid, values <= gmin + tol)  # runs of near-minimal grid points
    for x, v in zip(scr.q, scr.psi):
        if v <= gmin + tol and not any(lo <= x <= hi for lo, hi in pieces):
            pieces.append((float(x), float(x)))
    zero = _zero_target(pieces)
    init_atoms, init_piece = [], []
    for k, (lo, hi) in enumerate(pieces):
        pts = [lo] if hi == lo else list(np.linspace(lo, hi, 7))
        init_atoms += pts
        init_piece += [k] * len(pts)
    # l(pi) <= sum_c n_c log max_{x in the set} B_c(x), and B_c is unimodal with mode S_c/K_c:
    # when this bound is below the level (the usual case) no law on the near-minimal set is in C
    if not prob.loglik(_best_cell_probabilities(prob, pieces)) >= ctx.level:
        return None
    init = _Law(init_atoms, np.full(len(init_atoms), 1.0 / len(init_atoms)), init_piece)
    # the restricted NPMLE: l(law) <= max l <= l(law) + gap (eq. (L5) on that set), so a loose
    # solve usually decides; the tight one only when the level lies within the gap
    law = init
    for gap_tol in (1e-3 * ctx.c, NPMLE_GRADIENT_TOL + NPMLE_GRADIENT_RTOL * prob.N):
        law, gap, _ = prob.cnm(zero, 1.0, law, gap_tol)
        ll = prob.loglik(prob.probabilities(law))
        if ll >= ctx.level or ll + gap < ctx.level:
            break
    if not ll >= ctx.level:  # the best law on the near-minimal set is outside C: lambda > 0
        return None
    # map the atoms back to the pieces of the target (a point piece lies in some target piece)
    return _pieces_law(law, tgt), gmin


class _EndState:
    """A solved end: the working law and lambda, for warm starts."""

    __slots__ = ("law", "lam")

    def __init__(self, law: _Law, lam: float):
        self.law, self.lam = law, lam


def _extrapolated(warm: _EndState, before: _EndState | None, tgt: _Target) -> _EndState:
    """A start for the next objective of a sequence (a vote curve) by linear extrapolation.

    Along a curve V_3, V_5, ... the extremal laws and multipliers move smoothly; when the last
    two solutions have the same support structure, continuing their difference (atoms and
    weights linearly, lambda geometrically) puts Newton's start closer than the last solution
    alone. Atoms stay inside their pieces and weights positive; otherwise the last solution.
    """
    if before is None or len(before.law.atoms) != len(warm.law.atoms) \
            or not np.array_equal(before.law.piece, warm.law.piece) or before.lam <= 0:
        return warm
    atoms = 2.0 * warm.law.atoms - before.law.atoms
    weights = 2.0 * warm.law.weights - before.law.weights
    lo = np.array([tgt.pieces[int(k)].lo for k in warm.law.piece])
    hi = np.array([tgt.pieces[int(k)].hi for k in warm.law.piece])
    if np.any(atoms < lo) or np.any(atoms > hi) or np.any(weights <= 0):
        return warm
    lam = warm.lam * min(max(warm.lam / before.lam, 0.5), 2.0)
    return _EndState(_Law(atoms, weights / weights.sum(), warm.law.piece.copy()), lam)


def _solve_end(ctx: _Context, tgt: _Target, warm: _EndState | None):
    """Minimize E[sign g] over {l >= level}: (law, lam, screen) at a verified KKT point.

    Tries, in order: lambda = 0 (eq. (L11)); Newton from the previous objective's solution;
    Newton from the NPMLE with the perturbative guess of lambda; Brent's method on log lambda
    with inner solves, starting at the last lambda reached (slower, but it converges from
    anywhere: l(pi_lambda) is monotone in lambda).
    The screen is None when the caller must compute it.
    """
    zero = _lambda_zero(ctx, tgt)
    if zero is not None:
        return zero[0], 0.0, None
    if warm is not None and warm.lam > 0:
        got = _fast(ctx, tgt, _pieces_law(warm.law, tgt), warm.lam)
        if got[0] is not None:
            return got
    got = _fast(ctx, tgt, _pieces_law(ctx.ref_law, tgt), _lambda_guess(ctx, tgt), cnm_first=True)
    if got[0] is not None:
        return got
    lam = got[2] if 0 < got[2] < math.inf else _lambda_guess(ctx, tgt)
    return (*_robust(ctx, tgt, lam), None)


def _lambda_guess(ctx: _Context, tgt: _Target) -> float:
    """lambda ~ d value / d c = (half-width) / (2 c), half-width ~ sd_{pi-hat}(g) sqrt(2 c / N)."""
    law = _pieces_law(ctx.ref_law, tgt)
    (g,) = tgt.jet(law.atoms, law.piece, (0,))
    mean = float(law.weights @ g)
    sd = math.sqrt(max(float(law.weights @ (g - mean) ** 2), 0.0))
    if not sd > 1e-6 * tgt.scale():
        sd = tgt.scale()
    return sd / math.sqrt(2.0 * ctx.c * ctx.prob.N)


def _screened(prob: _Problem, tgt: _Target, law: _Law, lam: float, a: float) -> tuple[_Screen | None, bool]:
    """The screen of psi at a candidate solution and whether psi >= a on [0, 1] (up to rounding)."""
    if not np.all(law.weights > 0):
        return None, False
    scr = prob.screen(tgt, lam, prob.n / prob.probabilities(law), known=law)
    return scr, float(scr.psi.min()) >= a - SCREEN_TOL * (tgt.scale() + lam * prob.N)


def _checked(prob: _Problem, tgt: _Target, law: _Law, lam: float, a: float) -> _Screen | None:
    """The screen of psi at a candidate solution, or None if psi < a somewhere on [0, 1]."""
    scr, ok = _screened(prob, tgt, law, lam, a)
    return scr if ok else None


def _exchange(law: _Law, scr: _Screen, a: float) -> _Law:
    """Add the minima of psi below a to the support (vertex exchange), each with weight EXCHANGE_WEIGHT.

    Moving mass towards a point where psi < a decreases F_lambda (eq. (L7)); Newton's method on
    (L9) then sets the weights and positions. The mass comes from the current atoms in proportion.
    """
    add = scr.psi < a
    for x, k in zip(law.atoms, law.piece):  # a current atom again would duplicate a column
        add &= ~((scr.piece == k) & (np.abs(scr.q - x) <= DUPLICATE_TOL))
    m = int(add.sum())
    if m == 0:
        return law
    return _Law(np.concatenate([law.atoms, scr.q[add]]),
                np.concatenate([(1.0 - m * EXCHANGE_WEIGHT) * law.weights, np.full(m, EXCHANGE_WEIGHT)]),
                np.concatenate([law.piece, scr.piece[add]]))


def _polished(ctx: _Context, tgt: _Target, law: _Law, lam: float):
    """Newton on the full system (L9) with l = level; if it fails, with the atoms fixed.

    Returns (law, lam, screen) verified by the screen, or None.
    """
    prob = ctx.prob
    for fixed in (False, True):
        got = prob.newton(tgt, law, lam, ctx.level, fixed=fixed)
        if got is not None:
            scr = _checked(prob, tgt, *got)
            if scr is not None:
                return got[0], got[1], scr
    return None


def _fast(ctx: _Context, tgt: _Target, law: _Law, lam: float, cnm_first: bool = False):
    """Newton on the full KKT system (L9) from a start; CNM at the current lambda completes the support.

    Returns (law, lam, screen), or (None, law, lam) with the last state when Newton does not
    converge (the start is too far: Brent's method takes over from there).
    """
    prob = ctx.prob
    start = law
    exchanged = False
    if cnm_first:
        law, _, _ = prob.cnm(tgt, lam, law, START_GAP * (tgt.scale() + lam * prob.N), max_iter=50)
        start = prob.merge(law, tgt, lam)
    for _ in range(FAST_ROUNDS):
        got = prob.newton(tgt, start, lam, ctx.level)
        if got is None:  # singular when psi is flat at the optimum: the weights alone
            got = prob.newton(tgt, start, lam, ctx.level, fixed=True)
        if got is None:
            return None, law, lam
        scr, ok = _screened(prob, tgt, *got)
        if ok:
            return got[0], got[1], scr
        # converged on an incomplete support: the first time, add the screen's minima below a
        # (one vertex-exchange step); after that, CNM adds the missing atoms
        law, lam = got[0], got[1]
        if exchanged or scr is None:
            law, _, _ = prob.cnm(tgt, lam, law, INNER_LOOSE_GAP * (tgt.scale() + lam * prob.N), max_iter=50)
            start = prob.merge(law, tgt, lam)
        else:
            start = _exchange(law, scr, got[2])
        exchanged = True
    return None, law, lam


def _inner(prob: _Problem, tgt: _Target, lam: float, law: _Law, ref: _Law) -> _Law:
    """Solve min E g - lam l (eq. (L7)) to a tight duality gap.

    Newton on (L9) at fixed lambda from the previous solution (Brent's steps in lambda are
    small), else CNM then Newton, else CNM to the tight gap alone. A start under which some
    observed cell is nearly impossible is first mixed with a little of ``ref`` (pi-hat): the
    quadratic model of log p behind CNM is poor far from p, and it would crawl back.
    """
    spsi = tgt.scale() + lam * prob.N
    p, p_ref = prob.probabilities(law), prob.probabilities(ref)
    if not np.all(p >= WARM_FLOOR * p_ref):
        law = _Law(np.concatenate([law.atoms, ref.atoms]),
                   np.concatenate([(1.0 - WARM_MIX) * law.weights, WARM_MIX * ref.weights]),
                   np.concatenate([law.piece, ref.piece]))
    got = prob.newton(tgt, prob.merge(law, tgt, lam), lam)
    if got is not None and _checked(prob, tgt, *got) is not None:
        return got[0]
    law, gap, _ = prob.cnm(tgt, lam, law, INNER_LOOSE_GAP * spsi)
    got = prob.newton(tgt, prob.merge(law, tgt, lam), lam)
    if got is not None and _checked(prob, tgt, *got) is not None:
        return got[0]
    law, gap, _ = prob.cnm(tgt, lam, law, INNER_TIGHT_GAP * spsi)
    return law


def _robust(ctx: _Context, tgt: _Target, lam0: float):
    """Brent's method on t = log lam for l(pi_lam) = level (monotone in lam), with inner solves."""
    prob = ctx.prob
    ref = _pieces_law(ctx.ref_law, tgt)
    state = {"law": ref}
    cache: dict[float, tuple[_Law, float]] = {}

    def phi(t: float) -> float:
        if t not in cache:  # memoized: Brent re-evaluates the bracket ends
            law = _inner(prob, tgt, math.exp(t), state["law"], ref)
            state["law"] = law
            cache[t] = (law, prob.loglik(prob.probabilities(law)) - ctx.level)
        return cache[t][1]

    t0 = math.log(lam0)
    f0 = phi(t0)
    lo = hi = None
    if f0 < 0:
        lo, t = (t0, f0), t0
        for _ in range(BRACKET_STEPS):
            t += 2.0
            f = phi(t)
            if f >= 0:
                hi = (t, f)
                break
            lo = (t, f)
    else:
        hi, t = (t0, f0), t0
        for _ in range(BRACKET_STEPS):
            t -= 2.0
            f = phi(t)
            if f < 0:
                lo = (t, f)
                break
            hi = (t, f)
    if lo is None or hi is None:
        span = 2.0 * BRACKET_STEPS
        raise SolverError("likelihood", "no bracket",
                          f"l(pi_lambda) - level kept its sign for log lambda in [{t0 - span:.0f}, {t0 + span:.0f}] ({tgt.name})")
    if hi[1] == 0:
        t_star = hi[0]
    else:
        try:
            t_star = optimize.brentq(phi, lo[0], hi[0], xtol=BRENT_XTOL, rtol=4 * np.finfo(float).eps, maxiter=200)
        except (ValueError, RuntimeError) as exc:
            raise SolverError("likelihood", "brent failed", f"{exc} ({tgt.name})") from None
    if phi(t_star) < -LEVEL_RTOL * max(1.0, abs(ctx.level)):
        # l(pi_lambda) jumps across the root: at lambda* the inner optimum switches support, and
        # the end is a mixture of the laws on both sides (both optimal at lambda*, so any mixture is).
        # (A shortfall within LEVEL_RTOL is rounding of a continuous root: that law is the end.)
        t_star = min(t for t, (_, gap) in cache.items() if gap >= 0)
        law = _mixed_to_level(prob, ctx.level, cache[max(t for t, (_, gap) in cache.items() if gap < 0)][0],
                              cache[t_star][0])
    else:
        law = cache[t_star][0]
    lam = math.exp(t_star)
    # merged first (CNM leaves pairs around one minimum); then as it is, in case the merge joined
    # two genuine atoms closer than MERGE_DISTANCE (an interior atom next to an endpoint atom)
    positive = _Law(law.atoms[law.weights > 0], law.weights[law.weights > 0], law.piece[law.weights > 0])
    for start in (prob.merge(law, tgt, lam), positive):
        got = _polished(ctx, tgt, start, lam)
        if got is not None:
            return got[0], got[1]
    return law, lam


def _mixed_to_level(prob: _Problem, level: float, below: _Law, above: _Law) -> _Law:
    """The mixture (1 - theta) below + theta above whose log-likelihood is the level.

    l is concave along the segment, negative-then-nonnegative against the level at its ends, so
    the crossing is unique; Brent's method finds it and the feasible end of its bracket is kept.
    """
    def mixture(theta: float) -> _Law:
        return _Law(np.concatenate([below.atoms, above.atoms]),
                    np.concatenate([(1.0 - theta) * below.weights, theta * above.weights]),
                    np.concatenate([below.piece, above.piece]))

    def gap(theta: float) -> float:
        return prob.loglik(prob.probabilities(mixture(theta))) - level

    if gap(0.0) >= 0:
        return below
    theta = optimize.brentq(gap, 0.0, 1.0, xtol=BRENT_XTOL, rtol=4 * np.finfo(float).eps, maxiter=200)
    while gap(theta) < 0 and theta < 1.0:  # Brent returns either side of the root: step to the feasible one
        theta = min(1.0, theta + BRENT_XTOL)
    return mixture(theta)


def _finish(ctx: _Context, tgt: _Target, law: _Law, lam: float, side: str, scr: _Screen | None = None) -> LikelihoodEnd:
    """Certificate (eqs. (L9)-(L11)) of a solved end, with the checks that make it trustworthy.

    ``scr`` is the screen of psi for this law and lambda when the solver already has it.
    """
    prob = ctx.prob
    law = law.sorted()
    if not (np.all(law.weights >= 0) and abs(law.weights.sum() - 1.0) <= 1e-12):
        raise SolverError("likelihood", "invalid law", f"weights {law.weights} ({tgt.name}, {side})")
    p = prob.probabilities(law)
    u = prob.n / p
    ll = prob.loglik(p)
    if scr is None:
        scr = prob.screen(tgt, lam, u)
    (g_at,) = tgt.jet(law.atoms, law.piece, (0,))
    psi_at = g_at - lam * (u @ prob.kernel(law.atoms))
    a = min(float(scr.psi.min()), float(psi_at.min()))
    value = float(law.weights @ g_at)
    b = ctx.level - ll + prob.N
    certified = a + lam * b
    allowed = CERT_TOL * max(1.0, tgt.scale()) + CERT_RTOL * lam * prob.N
    if not abs(value - certified) <= allowed:
        raise SolverError(
            "likelihood", "not converged",
            f"{tgt.name} {side}: value {value!r} and certified bound {certified!r} "
            f"differ by {abs(value - certified):.3g} > {allowed:.3g}",
        )
    if not ll >= ctx.level - LEVEL_RTOL * max(1.0, abs(ctx.level)):
        raise SolverError("likelihood", "infeasible", f"{tgt.name} {side}: l(pi*) = {ll!r} < level {ctx.level!r}")
    attained = True
    if tgt.kind == "vinf":
        attained = not bool(np.any((law.atoms == 0.5) & (law.weights > ATTAINED_WEIGHT_TOL)))
    s = tgt.sign
    return LikelihoodEnd(
        objective=tgt.name,
        side=side,
        value=s * value,
        atoms=tuple(float(x) for x in law.atoms),
        weights=tuple(float(x) for x in law.weights),
        lam=float(lam),
        a=s * a,
        b=float(b),
        reference=ctx.reference.loglik,
        c=ctx.c,
        certified=s * certified,
        loglik=ll,
        attained=attained,
    )


def _ends(ctx: _Context, objectives: list, sides: Sequence[str] = ("lower", "upper")) -> list[dict]:
    """Both ends of every objective, each from the previous solution of its side (a warm start).

    Then the small-count calibration (:mod:`certify.stats._small_counts`): an identified
    objective whose estimate rests on cells with few expected examples gets the larger
    threshold, and both its ends are solved again at it.
    """
    out = [dict() for _ in objectives]
    targets = []
    for obj in objectives:  # the second side mirrors the first: g is evaluated on the grid once
        first = _target(obj, sides[0])
        targets.append({sides[0]: first, **{side: _target(obj, side, first) for side in sides[1:]}})
    groups: dict[str, list[int]] = {}
    for i, obj in enumerate(objectives):
        groups.setdefault(ctx.calibration_of(obj), []).append(i)
    for side in sides:
        warm = before = None  # carried across calibrations too: a nearby level is still a good start
        for calibration, members in groups.items():
            ctx.calibrate(calibration)
            for i in members:
                tgt = targets[i][side]
                start = None if warm is None else _extrapolated(warm, before, tgt)
                law, lam, scr = _solve_end(ctx, tgt, start)
                out[i][side] = _finish(ctx, tgt, law, lam, side, scr)
                out[i]["calibration"] = (calibration, ctx.df, ctx.c)
                if lam > 0:
                    warm, before = _EndState(law, lam), warm
                else:
                    before = None
    for i in groups.get("profile", []):
        ctx.calibrate("profile")
        drop = _small_count_drop(ctx, objectives[i], out[i]) if len(sides) == 2 else None
        if drop is None or drop <= ctx.c:
            continue
        ctx.set_drop(drop)
        for side in ("lower", "upper"):
            tgt = targets[i][side]
            end = out[i][side]
            start = _EndState(_Law.unassigned(end.atoms, end.weights), end.lam) if end.lam > 0 else None
            law, lam, scr = _solve_end(ctx, tgt, start)  # it assigns the warm law's atoms to tgt's pieces
            out[i][side] = _finish(ctx, tgt, law, lam, side, scr)
        out[i]["calibration"] = ("profile", ctx.df, ctx.c)
        out[i]["small_count"] = True
    return out


class LatticeProblem:
    """An identified objective on single-K cells as a multinomial functional: E_pi[g] = coef . p(pi).

    Attributes
    ----------
    counts : ndarray of int, shape (K+1,)
        Examples with S = 0..K correct calls, the empty cells included.
    coef : ndarray, shape (K+1,)
        Bernstein coefficients of g at degree K (eq. (L13)).
    """

    def __init__(self, cells: CellCounts, obj: Objective):
        self.calls = int(cells.calls[0])
        self.counts = np.bincount(cells.successes, weights=cells.multiplicity, minlength=self.calls + 1).astype(np.int64)
        self.coef = np.array([float(b) for b in monomial_to_bernstein(obj.monomial_coefficients(), self.calls)])
        # every cell S = 0..K, the empty ones included, through the one binomial kernel
        support = np.arange(self.calls + 1)
        self._every_cell = _Problem(CellCounts(np.full(len(support), self.calls), support, np.ones(len(support), dtype=np.int64)))

    @staticmethod
    def applies(cells: CellCounts, obj) -> bool:
        """One K for every example (ragged counts are not one multinomial) and g identified."""
        return len(np.unique(cells.calls)) == 1 and obj is not V_INF and obj.degree <= int(cells.calls[0])

    def probabilities(self, atoms, weights) -> np.ndarray:
        """p_S of a law for every S = 0..K."""
        return self._every_cell.kernel(np.asarray(atoms, dtype=float)) @ np.asarray(weights, dtype=float)

    def on_lattice(self, reference: LatentLaw) -> bool:
        """Whether the small-count calibration runs for these data (:func:`~certify.stats._small_counts.on_lattice`)."""
        return on_lattice(int(self.counts.sum()), self.coef, self.probabilities(reference.atoms, reference.weights))


def _small_count_drop(ctx: _Context, obj: Objective, ends: dict) -> float | None:
    """The small-count threshold of an identified objective (one K only), or None."""
    if ctx.alpha is None or not LatticeProblem.applies(ctx.cells, obj):
        return None  # given c; or ragged call counts, whose saturated model is not one multinomial
    lattice = LatticeProblem(ctx.cells, obj)
    ref = ctx.reference
    return small_count_drop(lattice.counts, lattice.coef, lattice.probabilities(ref.atoms, ref.weights),
                            lattice.probabilities(ends["lower"].atoms, ends["lower"].weights),
                            lattice.probabilities(ends["upper"].atoms, ends["upper"].weights), ctx.alpha)


def _parse_all(objectives) -> list:
    if isinstance(objectives, (str, bytes, Objective)) or not hasattr(objectives, "__iter__"):
        objectives = [objectives]
    parsed = [_objective(o) for o in objectives]
    if not parsed:
        raise InputError("objectives=[] must name at least one objective")
    return parsed


def likelihood_bound(cells, objective, side: str, *, alpha: float = 0.05, simultaneous: bool = False,
                     c: float | None = None, reference: LatentLaw | None = None) -> LikelihoodEnd:
    """One end of the likelihood-ratio interval of E_pi[g]; see :func:`likelihood_interval`.

    Parameters
    ----------
    side : {"lower", "upper"}
    """
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    ctx = _Context(cells, alpha, simultaneous, c, reference)
    obj = _objective(objective)
    # the small-count threshold needs both ends; whether it runs is decided by the NPMLE
    # alone (LatticeProblem.on_lattice), so elsewhere one side is enough
    small = (ctx.alpha is not None and ctx.calibration_of(obj) == "profile" and LatticeProblem.applies(ctx.cells, obj)
             and LatticeProblem(ctx.cells, obj).on_lattice(ctx.reference))
    return _ends(ctx, [obj], ("lower", "upper") if small else (side,))[0][side]


def likelihood_intervals(cells, objectives, *, alpha: float = 0.05, simultaneous: bool = False,
                         c: float | None = None, reference: LatentLaw | None = None) -> list[LikelihoodInterval]:
    """Likelihood-ratio intervals of E_pi[g] for many objectives sharing one NPMLE.

    Each side is solved objective after objective, warm-starting from the previous
    objective's extremal law and multiplier, so a curve (``[3, 5, ..., 101]``) costs
    little more than one end per budget.

    Parameters
    ----------
    cells : CellCounts or CallBits
    objectives : sequence
        Vote counts (``3`` is V_3), objective strings (``"V5 - V1"``, ``"3*q**2 - 2*q**3"``),
        :class:`~certify.Objective` objects, or :data:`certify.V_INF` (``"inf"``) for V_inf = Pr(Q > 1/2) + Pr(Q = 1/2)/2.
        A monomial coefficient list is one objective: wrap it, ``[[0, 3, -2]]``.
    alpha : float
        1 - confidence level; c = chi2_{df, 1-alpha} / 2 with df = 1 for an objective the
        calls identify (degree <= K_max) and df = :func:`identified_df` (K, or K_max for ragged
        counts) for one they do not (degree > K_max, V_inf), eq. (L6).
    simultaneous : bool
        Use df = :func:`identified_df` for every objective, so that all intervals (every
        objective, both ends) hold jointly.
    c : float, optional
        The log-likelihood drop directly (overrides ``alpha`` and ``simultaneous``).
    reference : LatentLaw, optional
        A precomputed :func:`npmle` of the same cells.

    Returns
    -------
    list of LikelihoodInterval
    """
    ctx = _Context(cells, alpha, simultaneous, c, reference)
    parsed = _parse_all(objectives)
    ends = _ends(ctx, parsed)
    return [
        LikelihoodInterval(
            objective=e["lower"].objective, lower=e["lower"], upper=e["upper"], alpha=ctx.alpha,
            c=e["calibration"][2], df=e["calibration"][1], simultaneous=ctx.simultaneous,
            calibration=e["calibration"][0], reference=ctx.reference, small_count=e.get("small_count", False),
        )
        for e in ends
    ]


def likelihood_interval(cells, objective, *, alpha: float = 0.05, simultaneous: bool = False,
                        c: float | None = None, reference: LatentLaw | None = None) -> LikelihoodInterval:
    """Likelihood-ratio interval [min, max] of E_pi[g] over {pi : l(pi) >= l(pi-hat) - c} (eq. (L6)).

    Parameters
    ----------
    cells : CellCounts or CallBits
    objective : int, str, Objective or VoteLimit
        See :func:`likelihood_intervals`.
    alpha, simultaneous, c, reference
        See :func:`likelihood_intervals`.

    Returns
    -------
    LikelihoodInterval
        Both ends with their extremal laws and Lagrangian certificates.

    Raises
    ------
    InputError
        For unusable cells, objective or alpha.
    SolverError
        If an optimization does not reach its tolerance (never a silently wrong number).
    """
    return likelihood_intervals(cells, [objective], alpha=alpha, simultaneous=simultaneous, c=c, reference=reference)[0]
