"""Likelihood-ratio intervals of E_pi[g]: batches of objectives, both ends, one NPMLE (eq. (L6)).

**Likelihood-ratio intervals (L6).** For an objective g (a polynomial in q: V_k, P_n, their
combinations, any polynomial; or V_inf), the interval is

    [ min E_pi[g],  max E_pi[g] ]   over   C = {pi : l(pi) >= l(pi-hat) - c},                    (L6)

with pi-hat the NPMLE (eq. (L3), :mod:`._npmle`) and c chosen per objective by
:mod:`._calibration` (profile, projection, simultaneous or given; raised by the small-count
calibration where the estimate rests on cells with few examples). Each end is the convex
program of :mod:`._ends`, solved with its Lagrangian certificate (L10)-(L11).

A batch shares one problem (:mod:`._problem`) and one NPMLE. Each side is solved objective
after objective, warm-started from the previous objective's extremal law and multiplier
(linearly extrapolated along a curve such as ``[3, 5, ..., 101]``), so a curve costs little
more than one end per budget.

**Envelopes.** A quantity that is not E_pi[g] for one g but lies between E_pi[g_lo] and
E_pi[g_up] for every law (plurality accuracy between E[V_k] and E[U_k]) gets
[min_C E[g_lo], max_C E[g_up]] from one set C (:func:`likelihood_envelope`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import InputError
from ._calibration import LatticeProblem, _Context, _small_count_drop, face_df
from ._cells import _as_cells
from ._ends import _EndState, _extrapolated, _finish, _solve_end
from ._problem import admit
from ._results import LatentLaw, LikelihoodEnd, LikelihoodInterval
from ._targets import _is_polynomial, _Law, _objective, _parse_all, _target
from ._warm import WarmStarts

__all__ = ["likelihood_bound", "likelihood_envelope", "likelihood_interval", "likelihood_intervals"]


def _all_ends(
    ctx: _Context,
    objectives: list,
    sides: Sequence[str] = ("lower", "upper"),
    starts: WarmStarts | None = None,
    wanted: Sequence[str] = ("lower", "upper"),
) -> list[dict]:
    """Both ends of every objective, each from the previous solution of its side (a warm start).

    Then the small-count calibration (:mod:`._calibration`): an identified
    objective whose estimate rests on cells with few expected examples gets the larger
    threshold, and both its ends are solved again at it.

    ``wanted``: the ends that are returned; an end solved only for the small-count threshold
    (which needs both) is not solved again at it unless wanted.

    ``starts``: solutions of a previous, similar data set (:class:`WarmStarts`); the first end
    of each side starts from there (the later ones from the previous objective, which is
    closer: measured 11 ms against 15 ms per end at N = 1000, K = 10), and every end leaves
    its solution there.
    """
    out: list[dict] = [dict() for _ in objectives]
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
                key = (tgt.name, side, calibration)
                start: _EndState | None
                if warm is not None:
                    start = _extrapolated(warm, before, tgt)
                else:
                    start = None if starts is None else starts.end(key)
                law, lam, scr = _solve_end(ctx, tgt, start, same_data=warm is not None)
                if starts is not None:
                    starts.keep(key, law, lam)
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
        _resolve(ctx.set_drop(drop), targets[i], out[i], starts, "small-count", wanted)
        out[i]["small_count"] = True
    for i in groups.get("face", []) if len(sides) == 2 else []:
        ctx.calibrate("face")  # the ends above are at the projection level, where the face is read
        df = face_df([out[i]["lower"], out[i]["upper"]], ctx.df)
        if df < ctx.df:
            _resolve(ctx.set_df(df), targets[i], out[i], starts, "face")
    return out


def _resolve(
    ctx: _Context,
    targets: dict,
    ends: dict,
    starts: WarmStarts | None,
    kind: str,
    sides: Sequence[str] = ("lower", "upper"),
) -> None:
    """The ends of one objective again at the context's current c (``kind``: ``"small-count"`` or ``"face"``).

    Each end starts from the previous data set's solution of the same re-solve when ``starts``
    has one, else from this objective's end at the first threshold.
    """
    for side in sides:
        tgt = targets[side]
        end = ends[side]
        key = (tgt.name, side, kind)
        start = None if starts is None else starts.end(key)
        same_data = start is None
        if start is None and end.lam > 0:
            start = _EndState(_Law.unassigned(end.atoms, end.weights), end.lam)
        law, lam, scr = _solve_end(ctx, tgt, start, same_data)  # it assigns the warm law's atoms to tgt's pieces
        if starts is not None:
            starts.keep(key, law, lam)
        ends[side] = _finish(ctx, tgt, law, lam, side, scr)
    ends["calibration"] = (ctx.calibration, ctx.df, ctx.c)


def likelihood_bound(
    cells,
    objective,
    side: str,
    *,
    alpha: float = 0.05,
    simultaneous: bool = False,
    c: float | None = None,
    reference: LatentLaw | None = None,
    warm: WarmStarts | None = None,
) -> LikelihoodEnd:
    """One end of the likelihood-ratio interval of E_pi[g]; see :func:`likelihood_interval`.

    It is that interval's end (same calibration); the other end is solved only where the
    small-count calibration needs it.

    Parameters
    ----------
    side : {"lower", "upper"}
    warm : WarmStarts, optional
        As in :func:`likelihood_intervals`: a simulation study's previous solutions.
    """
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    _check_warm(warm)
    obj = _objective(objective)
    cells = _as_cells(cells)
    admit(cells, [obj])
    if warm is not None and reference is None:
        reference = warm.npmle(cells)
    ctx = _Context(cells, alpha, simultaneous, c, reference)
    # the small-count threshold needs both ends; whether it runs is decided by the NPMLE
    # alone (LatticeProblem.on_lattice), so elsewhere one side is enough
    small = (
        ctx.alpha is not None
        and ctx.calibration_of(obj) == "profile"
        and _is_polynomial(obj)  # implied by the profile calibration; narrows obj to an Objective
        and LatticeProblem.applies(ctx.cells, obj)
        and LatticeProblem(ctx.cells, obj).on_lattice(ctx.reference)
    )
    return _all_ends(ctx, [obj], ("lower", "upper") if small else (side,), starts=warm, wanted=(side,))[0][side]


def _check_warm(warm) -> None:
    if warm is not None and not isinstance(warm, WarmStarts):
        raise InputError(f"warm={type(warm).__name__} must be a WarmStarts")


def likelihood_intervals(
    cells,
    objectives,
    *,
    alpha: float = 0.05,
    simultaneous: bool = False,
    c: float | None = None,
    reference: LatentLaw | None = None,
    warm: WarmStarts | None = None,
    beyond: str = "projection",
) -> list[LikelihoodInterval]:
    """Likelihood-ratio intervals of E_pi[g] for many objectives sharing one NPMLE.

    Each side is solved objective after objective, warm-starting from the previous
    objective's extremal law and multiplier, so a curve (``[3, 5, ..., 101]``) costs
    little more than one end per budget.

    Parameters
    ----------
    cells : CellCounts or CallBits
    objectives : sequence
        Vote counts (``3`` is V_3), objective strings (``"V5 - V1"``, ``"3*q**2 - 2*q**3"``),
        :class:`~certify.Objective` objects, or :data:`certify.V_INF` (``"inf"``) for
        V_inf = Pr(Q > 1/2) + Pr(Q = 1/2)/2.
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
    warm : WarmStarts, optional
        Solutions of a previous, similar data set to start from (a simulation study); it is
        updated with this data set's solutions. The results are checked as without it.
    beyond : {"projection", "face"}
        Calibration of the objectives the calls do not identify: the projection (chi2_K, valid
        asymptotically) or the face (chi2_d, d the free parameters of the extremal laws at the
        projection level; heuristic, its coverage measured in
        ``benchmarks/bench_likelihood_coverage.py``), :mod:`certify.likelihood._calibration`.

    Returns
    -------
    list of LikelihoodInterval
    """
    _check_warm(warm)
    parsed = _parse_all(objectives)
    cells = _as_cells(cells)
    admit(cells, parsed)  # before any solve, the NPMLE of a warm start included
    if warm is not None and reference is None:
        reference = warm.npmle(cells)
    ctx = _Context(cells, alpha, simultaneous, c, reference, beyond)
    ends = _all_ends(ctx, parsed, starts=warm)
    return [
        LikelihoodInterval(
            objective=e["lower"].objective,
            lower=e["lower"],
            upper=e["upper"],
            alpha=ctx.alpha,
            c=e["calibration"][2],
            df=e["calibration"][1],
            simultaneous=ctx.simultaneous,
            calibration=e["calibration"][0],
            reference=ctx.reference,
            small_count=e.get("small_count", False),
            identified=_is_polynomial(obj) and obj.degree <= cells.max_calls,
        )
        for obj, e in zip(parsed, ends)
    ]


def likelihood_interval(
    cells,
    objective,
    *,
    alpha: float = 0.05,
    simultaneous: bool = False,
    c: float | None = None,
    reference: LatentLaw | None = None,
    beyond: str = "projection",
) -> LikelihoodInterval:
    """Likelihood-ratio interval [min, max] of E_pi[g] over {pi : l(pi) >= l(pi-hat) - c} (eq. (L6)).

    Parameters
    ----------
    cells : CellCounts or CallBits
    objective : int, str, Objective or VoteLimit
        See :func:`likelihood_intervals`.
    alpha, simultaneous, c, reference, beyond
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
    return likelihood_intervals(
        cells, [objective], alpha=alpha, simultaneous=simultaneous, c=c, reference=reference, beyond=beyond
    )[0]


def likelihood_envelope(
    cells,
    lower,
    upper,
    *,
    alpha: float = 0.05,
    simultaneous: bool = False,
    c: float | None = None,
    reference: LatentLaw | None = None,
) -> LikelihoodInterval:
    """[min E_pi[g_lo], max E_pi[g_up]] over one set C = {pi : l(pi) >= l(pi-hat) - c} (eq. (L6)).

    For a quantity A(pi) with E_pi[g_lo] <= A(pi) <= E_pi[g_up] for every law (plurality
    accuracy of k calls between E[V_k] and E[U_k]): whenever the true law lies in C, A lies
    in the interval. Both ends use one c: the projection calibration when either objective
    is not identified by the calls (then both ends hold on the one event {pi_true in C},
    jointly at the stated level), else the profile one (each end is one side of a two-sided
    1 - alpha interval and misses with probability about alpha / 2, so the interval misses
    with at most about alpha). The small-count calibration, which needs both ends of one
    identified objective, is not applied.

    Parameters
    ----------
    cells : CellCounts or CallBits
    lower, upper : int, str, Objective, VoteLimit or PassLimit
        g_lo (its minimum is the lower end) and g_up (its maximum is the upper end), as in
        :func:`likelihood_intervals`; ``PASS_INF`` as ``upper`` gives the upper end 1, by definition.
    alpha, simultaneous, c, reference
        See :func:`likelihood_intervals`.

    Returns
    -------
    LikelihoodInterval
        ``lower`` is the end of g_lo, ``upper`` that of g_up; ``objective`` names both.
    """
    lo_obj, up_obj = _objective(lower), _objective(upper)
    cells = _as_cells(cells)
    admit(cells, [lo_obj, up_obj])
    ctx = _Context(cells, alpha, simultaneous, c, reference)
    calibrations = {ctx.calibration_of(lo_obj), ctx.calibration_of(up_obj)}
    ctx.calibrate("projection" if "projection" in calibrations else calibrations.pop())
    ends = {}
    for obj, side in ((lo_obj, "lower"), (up_obj, "upper")):
        tgt = _target(obj, side)
        law, lam, scr = _solve_end(ctx, tgt, None)
        ends[side] = _finish(ctx, tgt, law, lam, side, scr)
    return LikelihoodInterval(
        objective=f"{ends['lower'].objective} .. {ends['upper'].objective}",
        lower=ends["lower"],
        upper=ends["upper"],
        alpha=ctx.alpha,
        c=ctx.c,
        df=ctx.df,
        simultaneous=ctx.simultaneous,
        calibration=ctx.calibration,
        reference=ctx.reference,
        identified=all(_is_polynomial(o) and o.degree <= cells.max_calls for o in (lo_obj, up_obj)),
    )
