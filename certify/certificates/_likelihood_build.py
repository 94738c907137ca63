"""Turn one end of a likelihood-ratio interval (floats from a solver) into a :class:`LikelihoodCertificate`.

Steps, for side s = +1 (lower) or -1 (upper):

1. The laws and lambda are rationalized to short decimals (atoms and weights to
   10^-17, the weights' rounding residual put on the largest weight so they sum to
   1 exactly, lambda to 16 significant digits). Any law pi* and any lambda >= 0
   give a valid certificate, so rounding only costs tightness.
2. The minimum m of f = s g - lambda h' over [0, 1] (h' the polynomial the checker
   uses, see :func:`~certify.certificates._verify_likelihood.lagrangian_polynomial`)
   is located in floats -- a dense grid, then safeguarded Newton on f' from every
   grid local minimum and every atom of pi* (:func:`~._minimize.grid_minimizers`) --
   and evaluated exactly at those points;
   for V_inf and pass@inf, on each of their pieces (``DEFINED_OBJECTIVES``: V_inf g = 0 on
   [0, 1/2], 1 on [1/2, 1]; pass@inf g = 0 at the point 0, 1 on [0, 1]).
3. a is set so that s a = m - margin, rounded down to a multiple of margin / 16:
   f - s a is then strictly positive, its near-double roots (at the atoms of pi*)
   lifted by about the margin, which the exact positivity proof needs.
4. The bound s a + lambda b is computed in ball arithmetic and its lower end is
   rounded down to a multiple of margin / 16 (for the upper side all of this is in
   s-units, so the bound is rounded up).
5. The certificate is returned only if the independent checker accepts it; when
   the positivity proof fails the margin grows (x 100, up to 1e-6, then relative to
   |m| for badly scaled problems) before giving up.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction
from math import comb

import flint
import numpy as np

from .._aggregate_bounds import PASS_INF, is_pass_limit
from .._bernstein import bernstein_eval
from .._bounds import as_objective
from .._errors import InputError, SolverError
from .._numbers import exact_number
from .._objective import Objective, is_vote_limit
from .._validation import check_alpha
from ._kernel import ENDPOINT_NAME, now, poly, to_fmpq, version, workprec
from ._likelihood_certificate import DataSource, LikelihoodCertificate, LikelihoodProvenance
from ._minimize import exact_minimum, grid_minimizers
from ._verify_likelihood import (
    DEFINED_OBJECTIVES,
    cell_probabilities,
    lagrangian_polynomial,
    likelihood_ball,
    verify_likelihood_dict,
)

__all__ = ["build_likelihood_certificate"]

#: Atoms and weights are rounded to multiples of 10^-17, below the spacing of floats
#: near 1: moving pi* costs the bound to first order (~ lambda N K |dx|, since the
#: minimum of g - lambda h over the support is not smooth in pi*), 1e-12 already
#: ~1e-9 for N = 8192, K = 10; 1e-17 keeps that below 1e-13.
ATOM_DIGITS = 17
WEIGHT_DIGITS = 17
#: Significant digits kept of lambda (all a float has); the exact minimum is then
#: computed for that value, so rounding lambda only costs ~ |dlambda| max|h - N|.
LAMBDA_DIGITS = 16
#: A float law's atoms may leave [0, 1] and its weights miss 1 by this much (rounding
#: of a solver); beyond it the input is refused as a bug upstream.
LAW_TOL = 1e-9
#: Margins tried in turn (objective units): 1e-12 is far below any statistical
#: precision yet above the error of the float minimizer (the exact value there exceeds
#: the minimum by ~ eps^2 |f|, about 1e-27 for |f| ~ 1e4); larger ones only help the
#: positivity proof in near-degenerate cases. For badly scaled problems (a p_c(pi*)
#: near 0 makes |f| huge) they are then tried relative to |min f| (see :func:`_margins`).
MARGINS = (Fraction(1, 10**12), Fraction(1, 10**10), Fraction(1, 10**8), Fraction(1, 10**6))


# -- inputs ------------------------------------------------------------------------


def _cells(cells) -> tuple[tuple[int, int, int], ...]:
    """(K, S, n) triples from a CellCounts-like object or a sequence of triples; sorted."""
    if all(hasattr(cells, name) for name in ("calls", "successes", "multiplicity")):
        cells = zip(cells.calls, cells.successes, cells.multiplicity)
    try:
        out = [tuple(int(v) for v in cell) for cell in cells]
        if any(len(cell) != 3 for cell in out) or not out:
            raise ValueError
    except (TypeError, ValueError):
        raise InputError(
            f"cells={cells!r} must be a CellCounts or a non-empty sequence of (K, S, n) integer triples"
        ) from None
    for k, s, n in out:
        if k < 1 or not 0 <= s <= k or n < 1:
            raise InputError(f"cell (K={k}, S={s}, n={n}) needs K >= 1, 0 <= S <= K and n >= 1")
    if len({(k, s) for k, s, _ in out}) != len(out):
        raise InputError("cells repeat a (K, S) pair; add their counts")
    return tuple(sorted((k, s, n) for k, s, n in out))


def _law(law, what: str) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """Short rational atoms and weights summing exactly to 1 (module docstring, step 1)."""
    atoms, weights = (law.atoms, law.weights) if hasattr(law, "atoms") else law
    x = np.asarray(atoms, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    if len(x) != len(w) or not len(x) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(w))):
        raise InputError(f"{what}: atoms and weights must be finite, non-empty and of equal length")
    if x.min() < -LAW_TOL or x.max() > 1 + LAW_TOL or w.min() < -LAW_TOL or abs(w.sum() - 1) > LAW_TOL:
        raise InputError(f"{what}: atoms must lie in [0, 1] and weights be >= 0 with sum 1 (sum {w.sum()!r})")
    unit_x, unit_w = 10**ATOM_DIGITS, 10**WEIGHT_DIGITS
    merged: dict[int, int] = {}
    for xi, wi in zip(x, np.clip(w, 0, None) / np.clip(w, 0, None).sum()):
        key = min(max(round(xi * unit_x), 0), unit_x)
        merged[key] = merged.get(key, 0) + round(wi * unit_w)
    top = max(merged, key=merged.__getitem__)
    merged[top] += unit_w - sum(merged.values())  # exact total 1; the residual is ~ atoms * 1e-17
    pairs = sorted((k, v) for k, v in merged.items() if v > 0)
    return tuple(Fraction(k, unit_x) for k, _ in pairs), tuple(Fraction(v, unit_w) for _, v in pairs)


def _multiplier(lam) -> Fraction:
    lam = float(lam)
    if not math.isfinite(lam) or lam < 0:
        raise InputError(f"lam={lam!r} must be a finite number >= 0")
    return Fraction(f"{lam:.{LAMBDA_DIGITS - 1}e}")


# -- step 2: the minimum of s g - lambda h' -----------------------------------------


def _float_lagrangian(g, s: int, lam: float, cells, u: list[float]):
    """q -> (f, f', f'') for f = s g - lambda sum_c u_c B_c, in floats; ``g(q, d)`` is g^(d)(q).

    sum_c u_c B_c is one Bernstein polynomial of degree K_max (cells with fewer calls
    are degree-elevated), evaluated stably with its derivatives by :func:`bernstein_eval`.
    """
    top = max(k for k, _, _ in cells)
    beta = np.zeros(top + 1)
    for (k, sc, _), uc in zip(cells, u):
        for j in range(sc, sc + top - k + 1):  # B_{k,s} = sum_j C(k,s) C(top-k, j-s) / C(top, j) B_{top,j}
            beta[j] += uc * (comb(k, sc) * comb(top - k, j - sc) / comb(top, j))

    def jet(q: np.ndarray):
        return [s * g(q, d) - lam * bernstein_eval(beta, q, d) for d in range(3)]

    return jet


def _pieces(obj, name: str) -> list[tuple[float, float, flint.fmpq_poly, object]]:
    """(start, end, exact g, float g(q, d)) covering [0, 1]: one piece for a polynomial
    objective, the constant pieces of ``DEFINED_OBJECTIVES[name]`` for V_inf and pass@inf (``obj`` None)."""
    if obj is not None:
        return [(0.0, 1.0, poly(obj.monomial_coefficients()), obj.evaluate)]
    return [
        (float(lo), float(hi), poly([v]), lambda q, d, v=float(v): np.full_like(q, v if d == 0 else 0.0))
        for lo, hi, v in DEFINED_OBJECTIVES[name][1]
    ]


def _margins(m: Fraction) -> list[Fraction]:
    """MARGINS, then the same relative to |m| where that is larger (|m| >> 1: badly scaled)."""
    scale = abs(m)
    return list(MARGINS) + [x * scale for x in MARGINS if x * scale > MARGINS[-1]]


def _floor(x: Fraction, unit: Fraction) -> Fraction:
    return (x // unit) * unit


def _arb_lower(ball: flint.arb) -> Fraction:
    """The lower end of a ball, exactly."""
    man, exp = ball.lower().man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# -- assembly ------------------------------------------------------------------------


def build_likelihood_certificate(
    objective,
    side: str,
    cells,
    c,
    reference_law,
    law,
    lam,
    *,
    alpha=None,
    calibration=None,
    source: DataSource | None = None,
) -> LikelihoodCertificate:
    """Exact certificate of one end of a likelihood-ratio bound on E_pi[g(Q)].

    Parameters
    ----------
    objective : Objective, int, str or sequence
        As for :func:`certify.certificates.certify_bound` (an int is a vote budget);
        ``"inf"`` is V_inf, certified on its two constant pieces; ``PASS_INF`` (or ``"pass_inf"``)
        is pass@inf = P(Q > 0), certified on the point {0} and on [0, 1].
    side : {"lower", "upper"}
    cells : CellCounts or sequence of (K, S, n)
        The data: n examples had K calls of which S were correct.
    c : float, Fraction or str
        Allowed log-likelihood drop (> 0); floats are taken bit for bit.
    reference_law : (atoms, weights) or object with ``atoms`` and ``weights``
        pi_ref (e.g. the NPMLE); any law is valid, a lower l(pi_ref) only enlarges the set.
    law : (atoms, weights) or object with ``atoms`` and ``weights``
        pi* of the Lagrangian certificate (the extremal law); any law with all p_c > 0 is valid.
    lam : float
        The multiplier lambda >= 0.
    alpha : float, optional
        1 - confidence level behind c (recorded, not checked).
    calibration : str, optional
        How c was chosen, e.g. ``"chi2(1)/2"`` (recorded, not checked).
    source : DataSource, optional
        The group and data file behind ``cells`` (recorded, not proven).

    Returns
    -------
    LikelihoodCertificate
        Already accepted by the independent checker.

    Raises
    ------
    InputError
        Unusable inputs (a law outside [0, 1], negative lambda, a cell with probability 0 under pi*).
    SolverError
        The positivity proof did not succeed even with the largest margin.
    """
    started = time.perf_counter()
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    if alpha is not None:
        alpha = check_alpha(alpha)
    if calibration is not None and not isinstance(calibration, str):
        raise InputError(f"calibration={calibration!r} must be a string")
    if source is not None and not isinstance(source, DataSource):
        raise InputError(f"source={source!r} must be a DataSource or None")
    step = ENDPOINT_NAME if is_vote_limit(objective) else PASS_INF.name if is_pass_limit(objective) else None
    obj: Objective | None = None
    if step is None:
        obj = as_objective(objective)
        name = obj.name
    else:
        name = step
    cells = _cells(cells)
    c = exact_number(c, "c")
    if c <= 0:
        raise InputError(f"c={c} must be positive")
    ref_atoms, ref_weights = _law(reference_law, "reference_law")
    atoms, weights = _law(law, "law")
    lam = _multiplier(lam)
    s = 1 if side == "lower" else -1

    p_ref = cell_probabilities(cells, ref_atoms, ref_weights)
    p_star = cell_probabilities(cells, atoms, weights)
    for (k, sc, _), r, t in zip(cells, p_ref, p_star):
        if r <= 0 or t <= 0:
            raise InputError(f"{'reference_law' if r <= 0 else 'law'} gives probability 0 to the cell K={k}, S={sc}")
    try:  # floats locate the minimum; n_c / p_c(pi*) beyond their range cannot be handled
        u = [float(flint.fmpq(n) / p) if lam else 0.0 for (_, _, n), p in zip(cells, p_star)]
    except OverflowError:
        raise SolverError(
            "certificate", "badly scaled", f"law gives some cell a probability below 1e-300 ({name}, {side} side)"
        ) from None
    m = None
    for start, end, g, g_float in _pieces(obj, name):
        f = lagrangian_polynomial(g, s, Fraction(0), lam, cells, p_star)  # s g - lambda h' on the piece
        jet = _float_lagrangian(g_float, s, float(lam), cells, u)
        piece_min = exact_minimum(f, grid_minimizers(jet, max(f.degree(), 1), [float(x) for x in atoms], start, end))
        m = piece_min if m is None else min(m, piece_min)
    assert m is not None  # _pieces covers [0, 1] with at least one piece
    bits, b, narrow = likelihood_ball(cells, p_ref, p_star, c)
    if not narrow:
        raise SolverError("certificate", "wide ball", f"b = l(pi_ref) - c - l(pi*) + N is not narrow: {b}")

    failure = "no margin tried"
    for margin in _margins(m):
        unit = margin / 16
        sa = _floor(m - margin, unit)
        with workprec(bits):  # s a + lambda b rounded down; s a stays exact (it may be huge)
            s_bound = _floor(sa + _arb_lower(flint.arb(to_fmpq(lam)) * b), unit)
        prov = LikelihoodProvenance(version(), float(margin), 0.0, now())
        cert = LikelihoodCertificate(
            side=side,
            objective_name=name,
            majority=() if obj is None else tuple(obj.majority),
            bernstein=() if obj is None else tuple(obj.bernstein),
            degree=0 if obj is None else obj.degree,
            cells=cells,
            c=c,
            alpha=None if alpha is None else float(alpha),
            calibration=calibration,
            reference_atoms=ref_atoms,
            reference_weights=ref_weights,
            atoms=atoms,
            weights=weights,
            lam=lam,
            a=s * sa,
            bound=s * s_bound,
            provenance=prov,
            source=source,
        )
        result = verify_likelihood_dict(cert.to_dict())
        if result.ok:
            seconds = round(time.perf_counter() - started, 6)
            return replace(cert, provenance=replace(prov, seconds=seconds))
        failure = result.message
        if result.check != "lagrangian_sign":
            break
    raise SolverError("certificate", "not certified", f"{name}, {side} side: {failure}")
