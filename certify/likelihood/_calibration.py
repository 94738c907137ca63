"""How far the likelihood may drop: the threshold c of each interval (eqs. (L6), (L13), (S1)).

**Calibrations (L6).** The interval of an objective g is [min, max] of E_pi[g] over
C = {pi : l(pi) >= l(pi-hat) - c} (:mod:`._intervals`); c is chosen per objective (by default;
written below with its asymptotic chi-square value):

* **profile** -- c = chi2_{1, 1-alpha} / 2 for an identified g (deg g <= K_max, eq. (L13)): E[g] is
  then a linear function of the cell probabilities and each end is the Wilks bound of its profile
  likelihood ratio;
* **projection** -- c = chi2_{df, 1-alpha} / 2 for a g that is not identified (deg g > K_max, V_inf),
  with df the number of identified cell probabilities: K for one K (the K+1 cells of a
  multinomial sum to 1), K_max for ragged counts (every p_c is linear in the moments
  m_1..m_{K_max}). The profile calibration is not valid there: when the true moments are on
  the boundary of the moment space (few atoms; a constant q is the extreme case) the identified
  set of E[g] collapses to a point and its bounds are not smooth in the moments, and the measured
  coverage of chi2_1 fell to 0.916 (V_101 from K = 3 calls, constant q, N = 50, 500 data sets)
  and, as N grows, to 0.85 (K = 10, N = 8192, 100 data sets): the profile ratio's limit there is
  not chi2_1 (``benchmarks/bench_likelihood_coverage.py --beyond``). With df the whole identified dimension the
  likelihood-ratio region of the cell probabilities covers the true ones with asymptotic
  probability 1-alpha (sup_C l <= the unrestricted multinomial maximum, whose ratio is chi2_df
  also on the boundary), C then contains the true law, and the interval holds its value.

With ``simultaneous=True`` every objective uses the projection value, so that all intervals
(every objective, both ends, V_inf included) hold jointly.

**Face calibration (beyond K, selectable: ``beyond="face"``).** The projection value spends
the level on all K identified directions, and the measured coverage of objectives beyond K is
1.000 in most cells. What the interval needs is weaker. Write Lambda(v) = 2 (l(pi-hat) -
sup {l(pi) : E_pi[g] = v}) for the profile ratio of the value v; the likelihood is concave
and the constraint linear in pi, so the interval at drop c is exactly {v : Lambda(v) <= 2c}
and it covers the true value g* = E_pi0[g] iff Lambda(g*) <= 2c. Since pi0 is one law with
E[g] = g*, Lambda(g*) <= 2 (l(pi-hat) - l(pi0)), the ratio of the simple hypothesis pi = pi0,
whose limit is a chi-bar-square bounded by chi2_K (the projection's argument). When the ends
are attained by laws with few atoms, the ends move (to first order) only within the face of
the moment space those laws span: r atoms inside (0, 1) and b at 0 or 1 have
d = 2r + b - 1 free parameters (locations inside, weights summing to 1), so a d-parameter
regular family holds the extremal laws, and Wilks' theorem in that family gives chi2_d. The
face calibration takes d = max over the two ends of that count, at the ends of the
projection level, clipped to [1, K], and solves both ends again at c of chi2_d (F-form as
below); where d = K it is the projection value. With d = 1 (a single interior atom, an
identified-set point) it is the profile value. **This argument is heuristic, not a
theorem:** Wilks in the face assumes the true law lies in a fixed regular family with d
parameters; at laws on the boundary of the moment space (few atoms, a constant q) the full
NPMLE can leave the face, the ratio is a chi-bar-square mixing chi2_d..chi2_K, and nothing
bounds its quantile by chi2_d's. Its coverage is what ``benchmarks/bench_likelihood_coverage.py
--beyond`` measures; it is therefore not the default.

**Why the projection stays.** No calibration can be much narrower than the projection in every
case, for a reason that has nothing to do with chi-square values. With one K the law of the data
depends on pi only through m_1..m_K (eq. (L2)), so every value v of the identified set
I(m) = [L_K(m), U_K(m)] is the objective of some law that produces the same data; an interval
that covers 1 - beta at every law then holds each such v with probability >= 1 - beta, and by
Fubini its mean width is at least (1 - beta) |I(m)|. Where the identified set is most of the
projection's width (V_inf of a uniform q at K = 5, N = 8192: |I| = 0.444 against a width of
0.50), no valid interval is 25 % narrower (``benchmarks/bench_width_floor.py``). A constant
value (one chi-square value per K) must cover the boundary laws: at a constant q the 0.95
quantile of the profile ratio of the true value grows with N (6.19 at K = 5, N = 8192), under
the limit of the simple-hypothesis ratio at a point mass (the chi-bar-square of the tangent cone
of the moment space, Shapiro 1985: 6.6-6.9 at K = 5, 7.6-8.0 at K = 10). The smallest such value
the grid allows at K = 5 (6.19) makes intervals only 18 % narrower on average, since where the
identified set is wide the level buys little (``bench_width_floor.py --constant``, ``--cone``).

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

**Small-sample correction.** The chi-square values are limits; at N = 50 the profile
calibration covered 0.938 (V_3 from 3 calls, a Beta mixture). So chi2_{df, 1-alpha} is replaced by
its F-form: c = (N/2) log(1 + df F_{df, N-d, 1-alpha} / (N - d)), d the identified dimension --
the exact likelihood-ratio cutoff of a Gaussian linear model with d parameters, larger than
chi2_{df}/2 at every N and equal to it in the limit (:func:`critical_value`). All calibrations
remain asymptotic; their coverage at finite N is measured by simulation, not assumed.

**Small-count calibration.** N is not the whole story: the gain V_3 - V_1 from 3 calls is
(p_2 - p_1)/3, and when the latent law sits near 0 and 1 the cells S = 1, 2 expect a handful of
examples even at N = 200 (with rho about 0.97, 0.8 and 2.1 examples); the likelihood ratio then
lives on a lattice and its upper quantile is not chi2's. The coverage of a likelihood-ratio
interval for a Poisson mean dips to 0.84 at mean 1.9 and stays below 0.94 up to a mean of
about 5; the measured coverage of that gain interval was 0.906
(``benchmarks/bench_likelihood_coverage.py``; 0.906 also by enumerating the counts).
For one K and an identified objective, the cells S = 0..K are multinomial and
E_pi[g] = sum_S a_S p_S(pi), with a the Bernstein coefficients of g at degree K
(:class:`LatticeProblem`). The saturated likelihood ratio of the linear functional a.p = v
(eq. (S1) below) reproduces the lattice: at the true law of that example its exceedance of
chi2_{1, 0.95} is 0.094, the miss rate of the interval itself. Its (1 - alpha) quantile is a
jagged function of the law, so the threshold is the largest quantile over a path of laws near
the data (a Berger-Boos style supremum over nuisance values rather than a plug-in): the NPMLE
p-hat and p-hat + s (p_end - p-hat) for both ends of the interval and s in PATH_STEPS (s = 2
reaches as far again beyond each end, the laws a sampling draw of the data could come from).
Quantiles are simulated with DRAWS multinomial draws from a stream seeded by the counts, so
the result is a deterministic function of the data (compiled, with its own generator:
:mod:`._calibration_kernels`). The threshold used is max(c, that
quantile / 2), and both ends are solved again at it (``LikelihoodInterval.small_count``). It is
applied only where the lattice matters: when cells with fewer than SMALL_COUNT expected
examples carry more than SMALL_SHARE of the variance of a.n / N under p-hat. Elsewhere, and for
ragged call counts, the chi-square value stands, unchanged.

**Saturated ratio (S1).** For counts n over K+1 cells and v inside [min a, max a],

    sup {sum_S n_S log p_S : p in the simplex, a.p = v} is attained at
    p_S = n_S / (N + t (a_S - v)),  with t the root of sum_S n_S (a_S - v) / (N + t (a_S - v)) = 0

on the interval where every N + t (a_S - v) >= 0 (a cell with no examples may then take the
remaining mass, at the end of that interval). The sum decreases in t; its root is found by
Newton's method from t = 0, safeguarded by bisection. W = 2 (sum n log(n/N) - sum n log p).
The calibration stays approximate -- it is measured, with the rest, by simulation.
"""

from __future__ import annotations

import math

import numpy as np

from .._aggregate_bounds import PassLimit
from .._bernstein import monomial_to_bernstein
from .._compiled import interrupts_held
from .._distributions import chi2_quantile, f_quantile, hypergeometric_pmf
from .._errors import InputError
from .._objective import Objective, VoteLimit
from .._validation import check_alpha
from ._cells import CellCounts, _as_cells
from ._npmle import _latent, _npmle
from ._problem import _Problem
from ._results import LatentLaw
from ._targets import _is_polynomial, _Law
from ._tolerances import (
    BINOMIAL_INVERSION_MEAN,
    CATEGORICAL_DRAWS,
    DENOMINATOR_FLOOR,
    DRAWS,
    PATH_STEPS,
    SATURATED_NEWTON_STEPS,
    SATURATED_STEP_TOL,
    SMALL_COUNT,
    SMALL_SHARE,
    VALUE_SNAP,
)

#: Calibrations of objectives beyond the recorded calls: the projection (chi2_K, the default)
#: or the face (chi2_d, d the free parameters of the extremal laws; measured, not proven).
BEYOND = ("projection", "face")

__all__ = [
    "LatticeProblem",
    "critical_value",
    "face_df",
    "identified_df",
    "on_lattice",
    "saturated_ratio",
    "small_count_drop",
]


def identified_df(cells) -> int:
    """Dimension of the identified cell probabilities: K for one K (K+1 cells summing to 1).

    For ragged call counts the cell probabilities of every K_i <= K_max are linear in the
    first K_max moments of pi, so the identified dimension is K_max.
    """
    return _as_cells(cells).max_calls


def face_df(ends, calls: int) -> int:
    """Free parameters d of the extremal laws of an interval (the face calibration above).

    Parameters
    ----------
    ends : sequence of LikelihoodEnd
        The extremal laws (``atoms``, ``weights``) of the ends.
    calls : int
        The identified dimension K (:func:`identified_df`), the largest value returned.

    Returns
    -------
    int
        max over the ends of 2 r + b - 1 (r atoms with weight inside (0, 1), b at 0 or 1),
        clipped to [1, calls].
    """
    counts = []
    for end in ends:
        atoms = np.asarray(end.atoms, dtype=float)[np.asarray(end.weights, dtype=float) > 0]
        inside = int(np.count_nonzero((atoms > 0.0) & (atoms < 1.0)))
        counts.append(2 * inside + (len(atoms) - inside) - 1)
    return int(min(max(max(counts), 1), int(calls)))


def critical_value(alpha: float = 0.05, df: int = 1, n: int | None = None, dim: int | None = None) -> float:
    """The log-likelihood drop c of a likelihood-ratio interval (eq. (L6)).

    Without ``n``: c = chi2_{df, 1-alpha} / 2 (Wilks). With ``n`` examples and ``dim`` identified
    parameters: the small-sample form c = (n / 2) log(1 + df F_{df, n-dim, 1-alpha} / (n - dim)),
    which is the exact likelihood-ratio cutoff of a Gaussian linear model with dim parameters
    (W = n log(1 + df F / (n - dim)), F ~ F(df, n - dim)) and tends to chi2_{df} / 2 as n grows;
    it corrects the chi-square calibration's shortfall at small N (measured in
    ``benchmarks/bench_likelihood_coverage.py``) and is larger than it at every n.
    """
    alpha = check_alpha(alpha)
    if isinstance(df, bool) or not isinstance(df, (int, np.integer)) or df < 1:
        raise InputError(f"df={df!r} must be a positive integer")
    if n is None:
        return chi2_quantile(1.0 - float(alpha), int(df)) / 2.0
    dim = int(df if dim is None else dim)
    resid = max(int(n) - dim, 1)  # n <= dim: one residual degree, a very wide (honest) interval
    quant = f_quantile(1.0 - float(alpha), int(df), resid)
    return 0.5 * int(n) * math.log1p(int(df) * quant / resid)


def saturated_ratio(counts: np.ndarray, coef: np.ndarray, value: float) -> np.ndarray:
    """Saturated multinomial likelihood ratio W of ``coef . p = value`` (eq. (S1)), per row.

    Parameters
    ----------
    counts : ndarray of int, shape (M, C)
        M count vectors over the C cells.
    coef : ndarray, shape (C,)
        The functional's coefficients a.
    value : float
        v; W is +inf for v outside [min a, max a].

    Returns
    -------
    ndarray, shape (M,)
        W >= 0 (compiled: :func:`._calibration_kernels.saturated_ratios`).
    """
    with interrupts_held():
        from ._calibration_kernels import saturated_ratios  # numba loads with the first simulation

        return saturated_ratios(
            np.ascontiguousarray(counts, dtype=np.int64),
            _differences(coef, value),
            SATURATED_STEP_TOL,
            SATURATED_NEWTON_STEPS,
            DENOMINATOR_FLOOR,
        )


def _differences(coef: np.ndarray, value: float) -> np.ndarray:
    """a - v, with the differences within VALUE_SNAP of 0 set to 0.

    v = a . p computed in floating point can sit an ulp beyond an extreme of a: without the
    snap a cell with a_S = max a would read as excluded and W as +inf.
    """
    coef = np.asarray(coef, dtype=float)
    d = coef - float(value)
    d[np.abs(d) <= VALUE_SNAP * max(1.0, float(np.max(np.abs(coef))))] = 0.0
    return d


def on_lattice(total: int, coef: np.ndarray, p_hat: np.ndarray) -> bool:
    """Whether cells with fewer than SMALL_COUNT expected examples carry more than SMALL_SHARE
    of the variance of a . n / N under p-hat (the test that turns the calibration on)."""
    coef = np.asarray(coef, dtype=float)
    p_hat = np.asarray(p_hat, dtype=float)
    spread = (coef - coef @ p_hat) ** 2 * p_hat
    return bool(spread.sum() > 0 and spread[total * p_hat < SMALL_COUNT].sum() > SMALL_SHARE * spread.sum())


def small_count_drop(
    counts: np.ndarray, coef: np.ndarray, p_hat: np.ndarray, p_lower: np.ndarray, p_upper: np.ndarray, alpha: float
) -> float | None:
    """The small-count threshold c for one identified objective, or None where it does not apply.

    Parameters
    ----------
    counts : ndarray of int, shape (K+1,)
        Examples with S = 0..K correct calls (one K).
    coef : ndarray, shape (K+1,)
        Bernstein coefficients a of g at degree K (E_pi[g] = a . p(pi)).
    p_hat, p_lower, p_upper : ndarray, shape (K+1,)
        Cell probabilities of the NPMLE and of the two extremal laws of the interval.
    alpha : float
        1 - confidence level.

    Returns
    -------
    float or None
        Half the largest (1 - alpha) quantile of W over the path of laws (the projection value
        chi2_K, F-form, where that quantile is infinite); None when cells with few expected
        examples carry at most SMALL_SHARE of the variance (the chi-square value stands).
    """
    counts = np.asarray(counts, dtype=np.int64)
    coef = np.asarray(coef, dtype=float)
    total = int(counts.sum())
    if not on_lattice(total, coef, p_hat):
        return None
    laws = np.array([p_hat] + [p_hat + s * (end - p_hat) for end in (p_lower, p_upper) for s in PATH_STEPS])
    laws = np.clip(laws, 0.0, None)
    laws /= laws.sum(axis=1, keepdims=True)
    diffs = np.array([_differences(coef, float(np.clip(coef @ p, coef.min(), coef.max()))) for p in laws])
    # four words of the counts' seed sequence start the compiled stream, the same for every law
    seed = np.random.SeedSequence([int(x) for x in counts]).generate_state(4, dtype=np.uint64)
    cells = len(counts)
    with interrupts_held():
        from ._calibration_kernels import lattice_quantile  # numba loads with the first simulation

        best = lattice_quantile(
            laws,
            diffs,
            total,
            seed,
            DRAWS,
            # numpy's method="higher": the order statistic at ceil((DRAWS - 1) (1 - alpha))
            min(math.ceil((DRAWS - 1) * (1.0 - alpha)), DRAWS - 1),
            total * max(math.log2(cells), 1.0) <= CATEGORICAL_DRAWS * cells,
            BINOMIAL_INVERSION_MEAN,
            SATURATED_STEP_TOL,
            SATURATED_NEWTON_STEPS,
            DENOMINATOR_FLOOR,
        )
    if not math.isfinite(best):
        # more than alpha of some law's draws cannot reach its value at all (seen at K = 1000 with
        # V101: a path law at an extreme of the coefficients): no finite lattice quantile, and
        # the projection value, valid for every objective, stands in
        return critical_value(alpha, len(counts) - 1, n=total, dim=len(counts) - 1)
    return best / 2.0


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
        self.counts = np.bincount(cells.successes, weights=cells.multiplicity, minlength=self.calls + 1).astype(
            np.int64
        )
        self.coef = _elevated(obj, self.calls)
        # every cell S = 0..K, the empty ones included, through the one binomial kernel
        support = np.arange(self.calls + 1)
        self._every_cell = _Problem(
            CellCounts(np.full(len(support), self.calls), support, np.ones(len(support), dtype=np.int64))
        )

    @staticmethod
    def applies(cells: CellCounts, obj) -> bool:
        """One K for every example (ragged counts are not one multinomial) and g identified."""
        return len(np.unique(cells.calls)) == 1 and _is_polynomial(obj) and obj.degree <= int(cells.calls[0])

    def probabilities(self, atoms, weights) -> np.ndarray:
        """p_S of a law for every S = 0..K."""
        return self._every_cell.kernel(np.asarray(atoms, dtype=float)) @ np.asarray(weights, dtype=float)

    def on_lattice(self, reference: LatentLaw) -> bool:
        """Whether the small-count calibration runs for these data (:func:`on_lattice`)."""
        return on_lattice(int(self.counts.sum()), self.coef, self.probabilities(reference.atoms, reference.weights))


def _elevated(obj: Objective, calls: int) -> np.ndarray:
    """Bernstein coefficients of g at degree ``calls`` (eq. (L13)), as doubles.

    Exact at g's own degree d (rationals, (d + 1)^2 terms), then raised to degree K by the
    hypergeometric weights of degree elevation, a_S = sum_j b_j C(S, j) C(K - S, d - j) / C(K, d):
    a convex combination of the b_j, so its rounding is a few ulps of max |b_j| (d + 1 terms),
    with no cancellation of large terms. The rationals at degree K cost (K + 1)(d + 1) operations
    on many-digit integers (86 ms for V3 at K = 2000, seconds for V101).
    """
    exact = monomial_to_bernstein(obj.monomial_coefficients())
    weights = hypergeometric_pmf(np.full(calls + 1, calls), np.arange(calls + 1), len(exact) - 1)
    return weights @ np.array([float(b) for b in exact])


def _small_count_drop(ctx: _Context, obj: Objective, ends: dict) -> float | None:
    """The small-count threshold of an identified objective (one K only), or None."""
    if ctx.alpha is None or not LatticeProblem.applies(ctx.cells, obj):
        return None  # given c; or ragged call counts, whose saturated model is not one multinomial
    lattice = LatticeProblem(ctx.cells, obj)
    ref = ctx.reference
    return small_count_drop(
        lattice.counts,
        lattice.coef,
        lattice.probabilities(ref.atoms, ref.weights),
        lattice.probabilities(ends["lower"].atoms, ends["lower"].weights),
        lattice.probabilities(ends["upper"].atoms, ends["upper"].weights),
        ctx.alpha,
    )


class _Context:
    """Shared state of a batch of ends: problem, NPMLE and the threshold of one calibration.

    It defines the set C = {pi : l(pi) >= level}, level = l(pi-hat) - c, of eq. (L6) whose ends
    :mod:`._ends` solves; :meth:`calibrate` switches c (and the level) between the
    calibrations of the objectives of a batch, :meth:`set_drop` raises it to a small-count
    threshold.
    """

    def __init__(self, cells, alpha, simultaneous, c, reference, beyond="projection"):
        self.cells = _as_cells(cells)
        self.prob = _Problem(self.cells)
        self.simultaneous = bool(simultaneous)
        if beyond not in BEYOND:
            raise InputError(f"beyond={beyond!r} must be one of {', '.join(map(repr, BEYOND))}")
        self.beyond = beyond
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

    def calibration_of(self, obj: Objective | VoteLimit | PassLimit) -> str:
        """The calibration of one objective (eq. (L6)): profile if identified (eq. (L13)), else
        ``self.beyond`` -- projection or face (the steps V_inf and pass@inf are never identified)."""
        if self.given_c is not None:
            return "given"
        if self.simultaneous:
            return "simultaneous"
        identified = _is_polynomial(obj) and obj.degree <= self.cells.max_calls
        return "profile" if identified else self.beyond

    def calibrate(self, calibration: str) -> _Context:
        """Set c, df and the level for ``calibration``; returns self.

        The face calibration starts at the projection value: its df is read off the extremal
        laws at that level (:func:`face_df`) and set with :meth:`set_df`.
        """
        self.calibration = calibration
        if calibration != "given":
            return self.set_df(1 if calibration == "profile" else identified_df(self.cells))
        self.df, self.c = 0, self.given_c
        self.level = self.reference.loglik - self.c
        return self

    def set_df(self, df: int) -> _Context:
        """Use chi2_df (F-form) with the current calibration (the face calibration's d); returns self."""
        self.df = int(df)
        self.c = critical_value(self.alpha, self.df, n=int(self.prob.N), dim=identified_df(self.cells))
        self.level = self.reference.loglik - self.c
        return self

    def set_drop(self, c: float) -> _Context:
        """Use the drop ``c`` (the small-count threshold) with the current calibration; returns self."""
        self.c = float(c)
        self.level = self.reference.loglik - self.c
        return self
