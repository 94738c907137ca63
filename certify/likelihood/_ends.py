"""One end of a likelihood-ratio interval: the convex program, its solvers and its certificate (eqs. (L7), (L10)-(L11)).

**Lagrangian (L7).** The lower end (the upper end is the same with -g) is the convex program
min E_pi[g] subject to l(pi) >= level := l(pi-hat) - c (the set C of eq. (L6)). For lambda > 0 let

    F_lambda(pi) = E_pi[g] - lambda l(pi)        (convex in pi).                                 (L7)

Its derivative at pi towards delta_q is psi(q) - E_pi[psi] with psi = g - lambda h_pi, so pi_lambda
minimizes F_lambda iff psi >= a := E_pi[psi] on [0, 1], and for any pi, F(pi) - min F <=
E_pi[psi] - min psi (the duality gap used to stop CNM, :mod:`._cnm`, eq. (L8)). On a fixed support
the optimality conditions are the square system (L9) of :mod:`._newton`. l(pi_lambda) increases
with lambda from the largest log-likelihood of a law on argmin g (lambda -> 0) to l(pi-hat)
(lambda -> infinity), so lambda with l(pi_lambda) = level exists and is unique; it is found by
Newton on the full system (L9), started from the previous objective of a batch, else from the
law and multiplier of the end among laws on a grid (:mod:`._end_starts`, compiled CNM with a
search for lambda), else from the previous data set's solution (:class:`WarmStarts`), else from pi-hat with
lambda ~ sd_{pi-hat}(g) / sqrt(2 c N) (the envelope theorem: d value / d c = lambda), and, if that
fails, by Brent's method on log lambda with inner solves of (L7) (fixed-lambda Newton from the
previous solution, CNM when that fails), polished by Newton on (L9). Every start only saves time:
the answer is Newton's, checked below.

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
reported value then exceeds its certificate min g by at most ARGMIN_TOL. Where Brent's method
reaches multipliers below NEAR_MIN_LAMBDA with a law of C (or its mixture with pi-hat at the
level) whose E[g] is within NEAR_MIN_TOL of min g, the end is min g, lambda = 0, its certified
bound, conservative by at most NEAR_MIN_TOL (V101 from hundreds of calls of data far below 1/2:
the exact multiplier is 1e-8 to 1e-11, and each inner solve there costs thousands of QP steps).
For V_inf the same holds on the closed pieces of its envelopes (eq. (L12), :mod:`._targets`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .._errors import SolverError
from ._calibration import _Context
from ._cnm import WorkBudget, _exchange, cnm
from ._end_starts import end_start
from ._newton import merge, newton
from ._npmle import npmle_gap
from ._problem import _Problem, _Screen
from ._results import LikelihoodEnd
from ._targets import _Law, _pieces_law, _Target, _zero_target
from ._tolerances import (
    ARGMIN_TOL,
    ATTAINED_WEIGHT_TOL,
    BRACKET_STEP,
    BRACKET_STEPS,
    BRENT_MAX_ITER,
    BRENT_RTOL,
    BRENT_XTOL,
    CERT_RTOL,
    CERT_TOL,
    CNM_SUPPORT_ITER,
    CNM_WORK_LIMIT,
    EXTRAPOLATION_RATIO,
    FAST_ROUNDS,
    INNER_LOOSE_GAP,
    INNER_TIGHT_GAP,
    LAMBDA_GUESS_SD_FLOOR,
    LEVEL_RTOL,
    NEAR_MIN_LAMBDA,
    NEAR_MIN_TOL,
    POLISH_MARGIN,
    SCREEN_TOL,
    START_GAP,
    WARM_FLOOR,
    WARM_MIX,
    WEIGHT_SUM_TOL,
    ZERO_TEST_ATOMS,
    ZERO_TEST_GAP,
)


def _best_cell_probabilities(prob: _Problem, pieces) -> np.ndarray:
    """max over x in the union of [lo, hi] of B_c(x), per cell (B_c is unimodal, mode S_c/K_c)."""
    best = np.zeros(prob.cells.size)
    mode = prob.S / prob.K
    for lo, hi in pieces:
        best = np.maximum(best, np.diag(prob.kernel(np.clip(mode, lo, hi))))
    return best


def _near_min_may_fit(ctx: _Context, tgt: _Target) -> bool:
    """Quick test before the lambda = 0 test: could a law near min g reach the level at all?

    Every minimizer of g lies within one grid cell of a grid point whose value is at most
    the lowest grid value plus the largest one-cell drop (bounded by the largest second
    difference, as in the polishing rule); the likelihood bound over those cells decides.
    """
    prob = ctx.prob
    pieces, lows = [], []
    for k, pc in enumerate(tgt.pieces):
        grid, _ = prob.grid(pc.lo, pc.hi, prob.degree(tgt))
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


def _near_min_set(prob: _Problem, tgt: _Target) -> tuple[list[tuple[float, float]], float]:
    """The near-minimal set {g <= min g + ARGMIN_TOL} as closed pieces, and min g (from the screen)."""
    scr = prob.screen(tgt, 0.0, np.zeros(prob.cells.size))
    gmin = float(scr.psi.min())
    tol = ARGMIN_TOL * max(1.0, tgt.scale())
    pieces: list[tuple[float, float]] = []
    for k, pc in enumerate(tgt.pieces):
        grid, _ = prob.grid(pc.lo, pc.hi, prob.degree(tgt))
        values = tgt.grid_values(k, grid)
        if pc.objective is None:
            if pc.constant <= gmin + tol:
                pieces.append((pc.lo, pc.hi))
            continue
        pieces += _runs(grid, values <= gmin + tol)  # runs of near-minimal grid points
    for x, v in zip(scr.q, scr.psi):
        if v <= gmin + tol and not any(lo <= x <= hi for lo, hi in pieces):
            pieces.append((float(x), float(x)))
    return pieces, gmin


def _best_on(prob: _Problem, pieces: list[tuple[float, float]], gap_tols, level: float | None = None):
    """The NPMLE restricted to laws on ``pieces`` (CNM, eq. (L5) on that set): (law, l, gap).

    l(law) <= max l <= l(law) + gap, so a loose solve usually decides against a ``level``; the
    next tolerance of ``gap_tols`` runs only when the level lies within the gap.
    """
    zero = _zero_target(pieces)
    init_atoms, init_piece = [], []
    for k, (lo, hi) in enumerate(pieces):
        pts = [lo] if hi == lo else list(np.linspace(lo, hi, ZERO_TEST_ATOMS))
        init_atoms += pts
        init_piece += [k] * len(pts)
    law = _Law(init_atoms, np.full(len(init_atoms), 1.0 / len(init_atoms)), init_piece)
    budget = WorkBudget(CNM_WORK_LIMIT, "the restricted NPMLE of the lambda = 0 test")
    for gap_tol in gap_tols:
        law, gap, _ = cnm(prob, zero, 1.0, law, gap_tol, budget=budget)
        ll = prob.loglik(prob.probabilities(law))
        if level is not None and (ll >= level or ll + gap < level):
            break
    return law, ll, gap


def near_min_loglik(prob: _Problem, tgt: _Target) -> float:
    """The largest log-likelihood of a law on the near-minimal set of ``tgt`` (to the NPMLE's gap)."""
    pieces, _ = _near_min_set(prob, tgt)
    return _best_on(prob, pieces, (npmle_gap(prob),))[1]


def _lambda_zero(ctx: _Context, tgt: _Target):
    """The lambda = 0 case (eq. (L11)): is some law on {g <= min g + ARGMIN_TOL} inside the set?

    The near-minimal set, not just argmin g: V_101 is below 1e-13 on a whole interval, and a
    law there is optimal to that accuracy while the exact lambda would be astronomically small.
    Returns (law, min g) or None.
    """
    prob = ctx.prob
    if not _near_min_may_fit(ctx, tgt):
        return None
    pieces, gmin = _near_min_set(prob, tgt)
    # l(pi) <= sum_c n_c log max_{x in the set} B_c(x), and B_c is unimodal with mode S_c/K_c:
    # when this bound is below the level (the usual case) no law on the near-minimal set is in C
    if not prob.loglik(_best_cell_probabilities(prob, pieces)) >= ctx.level:
        return None
    law, ll, gap = _best_on(prob, pieces, (ZERO_TEST_GAP * ctx.c, npmle_gap(prob)), ctx.level)
    # the best law on the near-minimal set is outside C: lambda > 0. A level within the tight
    # gap counts as reached: C itself is known only to that accuracy (l(pi-hat) is the NPMLE's,
    # to the same gap), and deciding otherwise leaves a window of c, 1e-6 wide at N = 1000, in
    # which neither this test nor the Lagrangian finds the end (l(pi_lambda) > level down to
    # lambda = e^-85: the inner solves are not that accurate) -- min g is a bound in any case
    # (only a converged solve's gap: an unconverged one's could admit a law far below the level)
    if not (ll >= ctx.level or (gap <= npmle_gap(prob) and ll + gap >= ctx.level)):
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
    if (
        before is None
        or len(before.law.atoms) != len(warm.law.atoms)
        or not np.array_equal(before.law.piece, warm.law.piece)
        or before.lam <= 0
    ):
        return warm
    atoms = 2.0 * warm.law.atoms - before.law.atoms
    weights = 2.0 * warm.law.weights - before.law.weights
    lo = np.array([tgt.pieces[int(k)].lo for k in warm.law.piece])
    hi = np.array([tgt.pieces[int(k)].hi for k in warm.law.piece])
    if np.any(atoms < lo) or np.any(atoms > hi) or np.any(weights <= 0):
        return warm
    lam = warm.lam * min(max(warm.lam / before.lam, EXTRAPOLATION_RATIO[0]), EXTRAPOLATION_RATIO[1])
    return _EndState(_Law(atoms, weights / weights.sum(), warm.law.piece.copy()), lam)


def _solve_end(ctx: _Context, tgt: _Target, warm: _EndState | None, same_data: bool = True):
    """Minimize E[sign g] over {l >= level}: (law, lam, screen) at a verified KKT point.

    A constant target (the upper end of pass@inf) is attained by every law, pi-hat included:
    lambda = 0 and pi-hat, no search. Otherwise tries, in order: lambda = 0 (eq. (L11));
    Newton from ``warm`` when it is a solution for these data (``same_data``: the previous
    objective of a batch, or this objective at another threshold); Newton from the end among
    laws on a grid (:mod:`._end_starts`, up to END_START_MAX_CELLS cells), and after CNM at its
    lambda where two optimal atoms share one grid atom; Newton from ``warm``
    when it comes from another data set (a simulation study; at K = 10, N = 1000 the conic start
    that preceded the grid's took 8.6 ms per end against 17 ms from the previous study's solution);
    Newton from the NPMLE with the perturbative guess of lambda; Brent's method on log lambda
    with inner solves, starting at the last lambda reached (slower, but it converges from
    anywhere: l(pi_lambda) is monotone in lambda).
    The screen is None when the caller must compute it.
    """
    if tgt.constant is not None:
        return _pieces_law(ctx.ref_law, tgt), 0.0, None
    zero = _lambda_zero(ctx, tgt)
    if zero is not None:
        return zero[0], 0.0, None
    warm = warm if warm is not None and warm.lam > 0 else None
    if warm is not None and same_data:
        got = _fast(ctx, tgt, _pieces_law(warm.law, tgt), warm.lam)
        if got[0] is not None:
            return got
    start = end_start(ctx.prob, tgt, ctx.level, ctx.ref_law, _lambda_guess(ctx, tgt))
    if start is not None:
        got = _fast(ctx, tgt, _pieces_law(start[0], tgt), start[1], fixed=start[2])
        if got[0] is not None:
            return got
        # two optimal atoms within a grid step or two show as one atom of the grid law; CNM at the
        # grid's lambda (accurate to a few digits) splits it before Newton runs again
        got = _fast(ctx, tgt, _pieces_law(start[0], tgt), start[1], cnm_first=True)
        if got[0] is not None:
            return got
    if warm is not None and not same_data:
        got = _fast(ctx, tgt, _pieces_law(warm.law, tgt), warm.lam)
        if got[0] is not None:
            return got
    got = _fast(ctx, tgt, _pieces_law(ctx.ref_law, tgt), _lambda_guess(ctx, tgt), cnm_first=True)
    if got[0] is not None:
        return got
    lam = got[2] if 0 < got[2] < math.inf else _lambda_guess(ctx, tgt)
    try:
        return (*_robust(ctx, tgt, lam), None)
    except _NearMinimum as near:  # within NEAR_MIN_TOL of min g: reported as min g, lambda = 0
        return near.law, 0.0, None


def _lambda_guess(ctx: _Context, tgt: _Target) -> float:
    """lambda ~ d value / d c = (half-width) / (2 c), half-width ~ sd_{pi-hat}(g) sqrt(2 c / N)."""
    law = _pieces_law(ctx.ref_law, tgt)
    (g,) = tgt.jet(law.atoms, law.piece, (0,))
    mean = float(law.weights @ g)
    sd = math.sqrt(max(float(law.weights @ (g - mean) ** 2), 0.0))
    if not sd > LAMBDA_GUESS_SD_FLOOR * tgt.scale():
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


def _polished(ctx: _Context, tgt: _Target, law: _Law, lam: float):
    """Newton on the full system (L9) with l = level; if it fails, with the atoms fixed.

    Returns (law, lam, screen) verified by the screen, or None.
    """
    prob = ctx.prob
    for fixed in (False, True):
        got = newton(prob, tgt, law, lam, ctx.level, fixed=fixed)
        if got is not None:
            scr = _checked(prob, tgt, *got)
            if scr is not None:
                return got.law, got.lam, scr
    return None


def _fast(ctx: _Context, tgt: _Target, law: _Law, lam: float, cnm_first: bool = False, fixed: bool = False):
    """Newton on the full KKT system (L9) from a start; CNM at the current lambda completes the support.

    ``fixed``: the start's atoms are known to be optimal wherever they are (psi flat, see
    :func:`._end_starts.end_start`): Newton first solves for the weights on them alone.
    Returns (law, lam, screen), or (None, law, lam) with the last state when Newton does not
    converge (the start is too far: Brent's method takes over from there).
    """
    prob = ctx.prob
    start = law
    exchanged = False
    if cnm_first:
        law, _, _ = cnm(prob, tgt, lam, law, START_GAP * (tgt.scale() + lam * prob.N), max_iter=CNM_SUPPORT_ITER)
        start = merge(prob, law, tgt, lam)
    for _ in range(FAST_ROUNDS):
        got = newton(prob, tgt, start, lam, ctx.level, fixed=fixed)
        fixed = False  # the next rounds' supports come from the screen: atoms move again
        if got is None:  # singular when psi is flat at the optimum: the weights alone
            got = newton(prob, tgt, start, lam, ctx.level, fixed=True)
        if got is None:
            return None, law, lam
        scr, ok = _screened(prob, tgt, *got)
        if ok:
            return got.law, got.lam, scr
        # converged on an incomplete support: the first time, add the screen's minima below a
        # (one vertex-exchange step); after that, CNM adds the missing atoms
        law, lam = got.law, got.lam
        if exchanged or scr is None:
            law, _, _ = cnm(
                prob, tgt, lam, law, INNER_LOOSE_GAP * (tgt.scale() + lam * prob.N), max_iter=CNM_SUPPORT_ITER
            )
            start = merge(prob, law, tgt, lam)
        else:
            start = _exchange(law, scr, got.a)
        exchanged = True
    return None, law, lam


def _inner(prob: _Problem, tgt: _Target, lam: float, law: _Law, ref: _Law, budget: WorkBudget) -> _Law:
    """Solve min E g - lam l (eq. (L7)) to a tight duality gap.

    Newton on (L9) at fixed lambda from the previous solution (Brent's steps in lambda are
    small), else CNM then Newton, else CNM to the tight gap alone. A start under which some
    observed cell is nearly impossible is first mixed with a little of ``ref`` (pi-hat): the
    quadratic model of log p behind CNM is poor far from p, and it would crawl back.
    """
    spsi = tgt.scale() + lam * prob.N
    p, p_ref = prob.probabilities(law), prob.probabilities(ref)
    if not np.all(p >= WARM_FLOOR * p_ref):
        law = _Law(
            np.concatenate([law.atoms, ref.atoms]),
            np.concatenate([(1.0 - WARM_MIX) * law.weights, WARM_MIX * ref.weights]),
            np.concatenate([law.piece, ref.piece]),
        )
    got = newton(prob, tgt, merge(prob, law, tgt, lam), lam)
    if got is not None and _checked(prob, tgt, *got) is not None:
        return got.law
    law, gap, _ = cnm(prob, tgt, lam, law, INNER_LOOSE_GAP * spsi, budget=budget)
    got = newton(prob, tgt, merge(prob, law, tgt, lam), lam)
    if got is not None and _checked(prob, tgt, *got) is not None:
        return got.law
    law, gap, _ = cnm(prob, tgt, lam, law, INNER_TIGHT_GAP * spsi, budget=budget)
    return law


class _NearMinimum(Exception):
    """A law of the set with E[g] within NEAR_MIN_TOL of min g: the search stops (:func:`_robust`)."""

    def __init__(self, law: _Law):
        super().__init__()
        self.law = law


def _robust(ctx: _Context, tgt: _Target, lam0: float):
    """Brent's method on t = log lam for l(pi_lam) = level (monotone in lam), with inner solves.

    An inner solution at a multiplier below NEAR_MIN_LAMBDA whose E[g] is within NEAR_MIN_TOL of
    min g ends the search with lambda = 0 when it is inside the set, or when its mixture with
    pi-hat that reaches the level still is that close: :func:`_finish` reports min g, its
    certified bound (smaller multipliers make every inner solve slower, while the end is
    already that close to min g).
    """
    prob = ctx.prob
    ref = _pieces_law(ctx.ref_law, tgt)
    state = {"law": ref}
    budget = WorkBudget(CNM_WORK_LIMIT, f"{tgt.name}, Brent's method on log lambda")
    cache: dict[float, tuple[_Law, float]] = {}
    floor = float(prob.screen(tgt, 0.0, np.zeros(prob.cells.size)).psi.min()) + NEAR_MIN_TOL * max(1.0, tgt.scale())

    def mean(law: _Law) -> float:
        return float(law.weights @ tgt.jet(law.atoms, law.piece, (0,))[0])

    def phi(t: float) -> float:
        if t not in cache:  # memoized: Brent re-evaluates the bracket ends
            law = _inner(prob, tgt, math.exp(t), state["law"], ref, budget)
            state["law"] = law
            cache[t] = (law, prob.loglik(prob.probabilities(law)) - ctx.level)
            if math.exp(t) <= NEAR_MIN_LAMBDA and mean(law) <= floor:
                if cache[t][1] >= 0:
                    raise _NearMinimum(law)
                # outside the set but near min g: the mixture with pi-hat (inside) that reaches the
                # level may still be near min g (l is concave along the segment)
                mixed = _mixed_to_level(prob, ctx.level, law, ref)
                if mean(mixed) <= floor:
                    raise _NearMinimum(mixed)
        return cache[t][1]

    t0 = math.log(lam0)
    f0 = phi(t0)
    lo = hi = None
    if f0 < 0:
        lo, t = (t0, f0), t0
        for _ in range(BRACKET_STEPS):
            t += BRACKET_STEP
            f = phi(t)
            if f >= 0:
                hi = (t, f)
                break
            lo = (t, f)
    else:
        hi, t = (t0, f0), t0
        for _ in range(BRACKET_STEPS):
            t -= BRACKET_STEP
            f = phi(t)
            if f < 0:
                lo = (t, f)
                break
            hi = (t, f)
    if lo is None or hi is None:
        span = BRACKET_STEP * BRACKET_STEPS
        raise SolverError(
            "likelihood",
            "no bracket",
            f"l(pi_lambda) - level kept its sign for log lambda in [{t0 - span:.0f}, {t0 + span:.0f}] ({tgt.name})",
        )
    if hi[1] == 0:
        t_star = hi[0]
    else:
        try:
            t_star = optimize.brentq(phi, lo[0], hi[0], xtol=BRENT_XTOL, rtol=BRENT_RTOL, maxiter=BRENT_MAX_ITER)
        except (ValueError, RuntimeError) as exc:
            raise SolverError("likelihood", "brent failed", f"{exc} ({tgt.name})") from None
    if abs(phi(t_star)) > LEVEL_RTOL * max(1.0, abs(ctx.level)):
        # l(pi_lambda) jumps across the root: at lambda* the inner optimum switches support, and
        # the end is a mixture of the laws on both sides (both optimal at lambda*, so any mixture is).
        # Brent returns either side of the jump: a law below the level is outside C, one above it
        # leaves the constraint slack (value > a + lambda b: e.g. one example with 100 calls next to
        # 2-call examples, whose law keeps or drops a small atom near its success rate).
        # (A gap within LEVEL_RTOL is rounding of a continuous root: that law is the end.)
        t_star = min(t for t, (_, gap) in cache.items() if gap >= 0)
        law = _mixed_to_level(
            prob, ctx.level, cache[max(t for t, (_, gap) in cache.items() if gap < 0)][0], cache[t_star][0]
        )
    else:
        law = cache[t_star][0]
    lam = math.exp(t_star)
    # merged first (CNM leaves pairs around one minimum); then as it is, in case the merge joined
    # two genuine atoms closer than MERGE_DISTANCE (an interior atom next to an endpoint atom)
    positive = _Law(law.atoms[law.weights > 0], law.weights[law.weights > 0], law.piece[law.weights > 0])
    for start in (merge(prob, law, tgt, lam), positive):
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
        return _Law(
            np.concatenate([below.atoms, above.atoms]),
            np.concatenate([(1.0 - theta) * below.weights, theta * above.weights]),
            np.concatenate([below.piece, above.piece]),
        )

    def gap(theta: float) -> float:
        return prob.loglik(prob.probabilities(mixture(theta))) - level

    if gap(0.0) >= 0:
        return below
    theta = optimize.brentq(gap, 0.0, 1.0, xtol=BRENT_XTOL, rtol=BRENT_RTOL, maxiter=BRENT_MAX_ITER)
    while gap(theta) < 0 and theta < 1.0:  # Brent returns either side of the root: step to the feasible one
        theta = min(1.0, theta + BRENT_XTOL)
    return mixture(theta)


def _finish(ctx: _Context, tgt: _Target, law: _Law, lam: float, side: str, scr: _Screen | None = None) -> LikelihoodEnd:
    """Certificate (eqs. (L9)-(L11)) of a solved end, with the checks that make it trustworthy.

    ``scr`` is the screen of psi for this law and lambda when the solver already has it.
    """
    prob = ctx.prob
    law = law.sorted()
    if not (np.all(law.weights >= 0) and abs(law.weights.sum() - 1.0) <= WEIGHT_SUM_TOL):
        raise SolverError("likelihood", "invalid law", f"weights {law.weights} ({tgt.name}, {side})")
    p = prob.probabilities(law)
    # with lambda = 0, psi = g: h does not enter (and n / p may overflow where pi* is far from a cell)
    with np.errstate(divide="ignore"):
        u = prob.n / p if lam > 0 else np.zeros(prob.cells.size)
    ll = prob.loglik(p)
    if scr is None:
        scr = prob.screen(tgt, lam, u)
    (g_at,) = tgt.jet(law.atoms, law.piece, (0,))
    psi_at = g_at - lam * (u @ prob.kernel(law.atoms))
    a = min(float(scr.psi.min()), float(psi_at.min()))
    # a constant has E_pi[g] = that constant for every law, exactly (not the weights' rounded sum)
    value = float(law.weights @ g_at) if tgt.constant is None else tgt.constant
    b = ctx.level - ll + prob.N
    certified = a + lam * b if lam > 0 else a  # lambda = 0: the bound is a alone, whatever b
    allowed = CERT_TOL * max(1.0, tgt.scale()) + CERT_RTOL * lam * prob.N
    attained = True
    if lam == 0 and allowed < value - certified <= NEAR_MIN_TOL * max(1.0, tgt.scale()):
        # a law of the set within NEAR_MIN_TOL of min g (_robust): the end reported is min g,
        # its certified bound, which pi* does not attain (conservative by value - certified)
        value, attained = certified, False
    if not abs(value - certified) <= allowed:
        raise SolverError(
            "likelihood",
            "not converged",
            f"{tgt.name} {side}: value {value!r} and certified bound {certified!r} "
            f"differ by {abs(value - certified):.3g} > {allowed:.3g}",
        )
    # a lambda = 0 end may fall short of the level by the restricted NPMLE's gap (_lambda_zero)
    shortfall = LEVEL_RTOL * max(1.0, abs(ctx.level)) + (npmle_gap(prob) if lam == 0 else 0.0)
    if not ll >= ctx.level - shortfall:
        raise SolverError("likelihood", "infeasible", f"{tgt.name} {side}: l(pi*) = {ll!r} < level {ctx.level!r}")
    if tgt.jump is not None:  # the envelope differs from g at the jump: an atom there does not attain it
        attained = attained and not bool(np.any((law.atoms == tgt.jump) & (law.weights > ATTAINED_WEIGHT_TOL)))
    s = tgt.sign
    return LikelihoodEnd(
        objective=tgt.name,
        side=side,
        value=min(max(s * value, tgt.bounds[0]), tgt.bounds[1]),  # onto the range of g: still a bound (_targets)
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
