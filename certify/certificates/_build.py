"""Turn a numerical sharp bound into an exact :class:`Certificate` (Theorem 4.1).

Steps, for side s = +1 (upper) or -1 (lower):

1. The engine (:func:`certify.sharp_bound`) returns a float law and a float dual
   (atoms that the grid / SOS engines spread over neighbouring points are merged).
   With ``digits=D`` (or when the float solution misses the 1e-12 width target) the KKT
   system of Theorem 4.1 -- moment equations, contact
   p(x_j) = g(x_j), tangency p'(x_j) = g'(x_j) at interior atoms -- is polished
   by Newton's method in mpmath at D + 15 digits, g evaluated exactly.
2. Exact primal law: atoms are rationalized; with m+1 atoms the weights solve
   the square Vandermonde system exactly; with m atoms one atom is freed and
   recomputed as t = E[pi(Q) Q] / E[pi(Q)], pi = prod over the other atoms of
   (q - x_i), which makes the moment equations hold exactly.
3. Exact dual: first Hermite interpolation of g at the rational atoms (value at
   every atom, slope at interior ones); when that square system is consistent
   and valid the gap is exactly zero. Otherwise the rationalized dual is made to
   touch g exactly at atoms 0 and 1 and lifted by delta * B(q), B = q, 1 - q or
   their product (or 1), with delta the exact value of -min (s (p - g) / B) at its
   Newton-refined minimizer plus a margin far below the width target.
4. Each candidate is accepted only if the independent checker accepts it.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace
from fractions import Fraction

import flint
import mpmath
import numpy as np

from .._bounds import as_objective, sharp_bound
from .._errors import InputError, SolverError
from .._moments import Moments
from .._support import free_atoms, merge_close
from ..solvers import kkt_system
from ._certificate import Certificate, Provenance, moments_given
from ._kernel import coefficients, now, poly, solve, to_fmpq, value_at, version, workprec
from ._minimize import newton_minimum
from ._tolerances import (
    CLUSTER_DISTANCE,
    CLUSTER_WEIGHT_FLOOR,
    END_CONTACT,
    POLISH_GUARD_DIGITS,
    POLISH_MAX_ITER,
    POLISH_STEP_DIGITS,
)
from ._verify import verify_dict

__all__ = ["DEFAULT_DIGITS", "build_certificate"]

#: Without ``digits`` the enclosure width is at most 10^-DEFAULT_DIGITS.
DEFAULT_DIGITS = 12

#: Longest numerator or denominator (decimal digits) written to a certificate;
#: Python refuses to convert integers above 4300 digits to or from text.
MAX_DIGITS = 1000


def _mpf_fraction(x) -> Fraction:
    """The exact binary value of an mpmath number."""
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    value = Fraction(int(man)) * Fraction(2) ** int(exp) if man else Fraction(0)
    return -value if sign else value


def _short(x: Fraction, limit: int = MAX_DIGITS) -> bool:
    """Numerator and denominator have at most about ``limit`` decimal digits."""
    return max(abs(x.numerator), x.denominator).bit_length() <= 3.32 * limit


def _round_toward(x: Fraction, down: bool, digits: int) -> Fraction:
    """x itself when short, else rounded down (or up) to a multiple of 10^-(digits + 20)."""
    if _short(x, digits + 40):
        return x
    scale = 10 ** (digits + 20)
    n = (x.numerator * scale) // x.denominator if down else -((-x.numerator * scale) // x.denominator)
    return Fraction(n, scale)


def _rationalize(x, digits: int) -> Fraction:
    """A short rational within about 10^-(digits + 16) of x (0 and 1 stay exact)."""
    return Fraction(x).limit_denominator(10 ** (digits // 2 + 8))


# -- step 1: high-precision polishing ----------------------------------------------


def _polish(g: flint.fmpq_poly, atoms, weights, dual, theta: list[Fraction], digits: int):
    """Newton on the KKT system of Theorem 4.1 (:func:`certify.solvers.kkt_system`) at digits + POLISH_GUARD_DIGITS
    decimal digits.

    Interior atoms are the location unknowns (:func:`certify._support.free_atoms`, as in
    the float KKT Newton).
    """
    m1 = len(theta)
    derivs = [g, g.derivative(), g.derivative().derivative()]
    inner = free_atoms(np.asarray(atoms, dtype=float)).tolist()
    n = len(atoms)
    # mpmath's own conversion of decimal digits to bits: mpmath.mp.dps is digits + POLISH_GUARD_DIGITS inside.
    with workprec(mpmath.libmp.dps_to_prec(digits + POLISH_GUARD_DIGITS), mpmath.mp):
        x = [mpmath.mpf(a) for a in atoms]
        w = [mpmath.mpf(v) for v in weights]
        c = [mpmath.mpf(v) for v in dual] + [mpmath.mpf(0)] * (m1 - len(dual))
        th = [mpmath.mpf(t.numerator) / t.denominator for t in theta]
        tol = mpmath.mpf(10) ** (-(digits + POLISH_STEP_DIGITS))

        def gk(k, xx):
            v = derivs[k](to_fmpq(_mpf_fraction(xx)))
            return mpmath.mpf(int(v.p)) / int(v.q)

        for _ in range(POLISH_MAX_ITER):
            # the same KKT system as the float solver's, in mpmath arithmetic
            F, J = kkt_system(x, w, c, th, gk, inner, fsum=mpmath.fsum)
            F, J = mpmath.matrix(F), mpmath.matrix(J)
            try:
                step = mpmath.lu_solve(J, -F)
            except ZeroDivisionError:
                raise SolverError("mpmath", "singular KKT system", "cannot polish to the requested digits") from None
            c = [c[k] + step[k] for k in range(m1)]
            w = [w[j] + step[m1 + j] for j in range(n)]
            for i, j in enumerate(inner):
                x[j] += step[m1 + n + i]
            if mpmath.norm(step) < tol:
                break
        else:
            raise SolverError("mpmath", "no convergence", f"Newton polishing to {digits} digits")
        return [_mpf_fraction(v) for v in x], [_mpf_fraction(v) for v in w], [_mpf_fraction(v) for v in c]


# -- step 2: exact primal law ----------------------------------------------------


def _laws_on(xs: list[Fraction], theta: list[Fraction]):
    n, m1 = len(xs), len(theta)
    if n == m1:
        w = solve([[x**k for x in xs] for k in range(m1)], theta)
        if w is not None:
            yield xs, w
        return
    order = sorted(range(n), key=lambda i: xs[i] in (0, 1))  # free an interior atom first
    for i in order:
        fixed = xs[:i] + xs[i + 1 :]
        pi = coefficients(flint.fmpq_poly([1]) if not fixed else _prod(fixed), n)
        e0 = sum(p * theta[k] for k, p in enumerate(pi))
        e1 = sum(p * theta[k + 1] for k, p in enumerate(pi))
        if e0 == 0:
            continue
        atoms = fixed + [e1 / e0]
        w = solve([[x**k for x in atoms] for k in range(m1)], theta)
        if w is not None:
            yield atoms, w


def _prod(points: list[Fraction]) -> flint.fmpq_poly:
    out = flint.fmpq_poly([1])
    for x in points:
        out *= poly([-x, 1])
    return out


def _exact_law(atoms: list[Fraction], weights: list[float], theta: list[Fraction]):
    """Rational atoms and weights with exactly the moments theta (see module docstring)."""
    by_weight = sorted(range(len(atoms)), key=lambda j: -float(weights[j]))
    subsets = [sorted(atoms[j] for j in by_weight[:keep]) for keep in range(len(atoms), 0, -1)]
    # Irrational atoms with fewer than m atoms (e.g. Gauss-Radau nodes for m >= 3): add
    # rational atoms that take up the rounding residual with a tiny nonnegative weight.
    spare = [Fraction(k, 8) for k in (0, 8, 4, 2, 6, 1, 7, 3, 5)]
    for extra in range(1, len(theta) - len(atoms) + 1):
        for combo in itertools.combinations([y for y in spare if y not in atoms], extra):
            subsets.append(sorted(list(atoms) + list(combo)))
    for xs in subsets:
        for cand, w in _laws_on(xs, theta):
            if len(set(cand)) == len(cand) and all(0 <= x <= 1 for x in cand) and all(v >= 0 for v in w):
                pairs = sorted((x, v) for x, v in zip(cand, w) if v != 0)
                return [x for x, _ in pairs], [v for _, v in pairs]
    raise SolverError(
        "certificate", "no exact law", f"atoms {[float(a) for a in atoms]} do not rationalize onto the moments"
    )


# -- step 3: exact dual ------------------------------------------------------------


def _hermite(g, atoms, m1, p0: list[Fraction], s: int, margin: Fraction):
    """Dual touching g at every atom (tangent inside); None when inconsistent.

    When the contact conditions leave freedom (a law on the boundary of the
    moment space), the top coefficients are taken from the numerical dual p0 and
    s * margin * B is added, B the product of the contact factors: the contacts
    stay exact, so the gap is still zero.
    """
    g1 = g.derivative()
    rows, rhs = [], []
    for x in atoms:
        rows.append([x**k for k in range(m1)])
        rhs.append(value_at(g, x))
        if 0 < x < 1:
            rows.append([k * x ** (k - 1) if k else Fraction(0) for k in range(m1)])
            rhs.append(value_at(g1, x))
    free = m1 - len(rows)
    if free <= 0 and margin:
        return None
    for k in range(m1 - 1, m1 - 1 - free, -1):
        rows.append([Fraction(int(i == k)) for i in range(m1)])
        rhs.append(p0[k] if k < len(p0) else Fraction(0))
    coeffs = solve(rows, rhs)
    if coeffs is None:
        return None
    contacts = [(x, 2 if 0 < x < 1 else 1) for x in atoms]
    if free > 0 and margin:
        B = poly([1])
        for x, k in contacts:
            B *= (poly([-x, 1]) ** k) if x < 1 else poly([1, -1])
        if B.degree() >= m1:
            return None
        coeffs = coefficients(poly(coeffs) + B * poly([s * margin]), m1)
    return coeffs, contacts


def _lifted(g, atoms, p0: list[Fraction], s: int, m1: int, margin: Fraction, bits: int):
    """Rationalized dual made exact at atoms 0 and 1, lifted by delta * B (module docstring)."""
    p = poly(p0)
    # Only end atoms the numerical dual really touches (not atoms added to absorb rounding).
    ends = [x for x in atoms if x in (0, 1) and abs(value_at(p - g, x)) < END_CONTACT]
    if len(ends) > m1 - 1:
        ends = []
    B = poly([1])
    for e in ends:
        B *= poly([0, 1]) if e == 0 else poly([1, -1])
    if len(ends) == 1:
        p += poly([value_at(g, ends[0]) - value_at(p, ends[0])])
    elif len(ends) == 2:
        a = value_at(g, Fraction(0)) - value_at(p, Fraction(0))
        b = value_at(g, Fraction(1)) - value_at(p, Fraction(1)) - a
        p += poly([a, b])
    h, rem = divmod((p - g) * s, B)
    if not rem.is_zero():
        return None
    delta = max(Fraction(0), -newton_minimum(h, [x for x in atoms if 0 < x < 1], bits)) + margin
    unit = margin / 16
    delta = -((-delta) // unit) * unit  # rounded up to a short rational
    p += B * poly([s * delta])
    return coefficients(p, m1), [(e, 1) for e in ends]


def _duals(g, atoms, p0, s, m1, target, bits):
    """Candidate exact duals, best first (lazily: later ones are built only if needed)."""
    for margin in (Fraction(0), target / 1000):
        yield "hermite", _hermite(g, atoms, m1, p0, s, margin)
    for margin in (target / 1000, target / 4):
        yield "lift", _lifted(g, atoms, p0, s, m1, margin, bits)


# -- assembly ----------------------------------------------------------------------


def build_certificate(
    objective, mom: Moments, side: str | None, *, given=None, digits: int | None = None, method: str = "exact"
) -> Certificate:
    """Exact certificate of one side of the sharp bound of E[g(Q)] (Theorem 4.1).

    Parameters
    ----------
    objective : Objective or anything :func:`certify.parse_objective` accepts
    mom : Moments
        Validated moments; their exact values are what the certificate proves for.
    side : {"lower", "upper"}
    given : tuple of (name, text, exact_from), optional
        The inputs as the user gave them (see :func:`~certify.certificates._certificate.describe_inputs`).
    digits : int, optional
        Enclosure width at most 10^-digits (default 12, reached without polishing
        when the float solution suffices).
    method : str
        Engine method for the numerical solution.

    Returns
    -------
    Certificate
        Already accepted by the independent checker.
    """
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 200):
        raise InputError(f"digits={digits!r} must be an integer from 1 to 200")
    start = time.perf_counter()
    obj = as_objective(objective)
    g = poly(obj.monomial_coefficients())
    theta = [Fraction(1)] + list(mom.exact)
    s = 1 if side == "upper" else -1
    bound = sharp_bound(obj, side, moments=mom, method=method)
    target = Fraction(1, 10 ** (digits or DEFAULT_DIGITS))
    plans = [digits] if digits is not None else [None, DEFAULT_DIGITS + 4]
    failure = "no candidate"
    for dps in plans:
        start_x, start_w = bound.law.atoms, list(bound.law.weights)
        if method != "exact":  # grid and SOS solvers spread one atom over neighbours
            start_x, start_w = (
                v.tolist() for v in merge_close(start_x, start_w, CLUSTER_DISTANCE, CLUSTER_WEIGHT_FLOOR)
            )
        if dps is None:
            atoms, weights, dual = start_x, start_w, [Fraction(c) for c in bound.dual]
        else:
            atoms, weights, dual = _polish(g, start_x, start_w, bound.dual, theta, dps)
        law_x, law_w = _exact_law([_rationalize(a, dps or DEFAULT_DIGITS) for a in atoms], weights, theta)
        exact_primal = sum(w * value_at(g, x) for x, w in zip(law_x, law_w))
        # Outward rounding keeps the file short: upper side P <= U, so round P down.
        primal = _round_toward(exact_primal, side == "upper", dps or DEFAULT_DIGITS)
        bits = int(3.33 * ((dps or 16) + 20))
        for construction, made in _duals(g, law_x, dual, s, len(theta), target, bits):
            if made is None:
                continue
            coeffs, contacts = made
            gap = (poly(coeffs) - g) * s
            contacts = sorted(
                contacts
                + [
                    (e, 1)
                    for e in (Fraction(0), Fraction(1))
                    if e not in {c for c, _ in contacts} and value_at(gap, e) == 0
                ]
            )
            while len(coeffs) > 1 and coeffs[-1] == 0:
                coeffs.pop()
            if not all(_short(c) for c in coeffs):
                failure = f"{construction} dual has coefficients over {MAX_DIGITS} digits"
                continue
            dual_value = sum(c * t for c, t in zip(coeffs, theta))
            cert = Certificate(
                side=side,
                objective_name=obj.name,
                majority=tuple(obj.majority),
                bernstein=tuple(obj.bernstein),
                degree=obj.degree,
                moments_given=moments_given(mom, given),
                moments=tuple(mom.exact),
                atoms=tuple(law_x),
                weights=tuple(law_w),
                dual=tuple(coeffs),
                contacts=tuple(contacts),
                primal_value=primal,
                dual_value=dual_value,
                value=primal,
                provenance=Provenance(method, construction, version(), 0.0, digits, now()),
            )
            result = verify_dict(cert.to_dict())
            if not result.ok:
                failure = result.message
                continue
            if cert.width > target:
                failure = f"width {float(cert.width):.3g} exceeds 10^-{digits or DEFAULT_DIGITS}"
                continue
            prov = Provenance(method, construction, version(), round(time.perf_counter() - start, 6), digits, now())
            return replace(cert, provenance=prov)
    raise SolverError("certificate", "not certified", f"{obj.name}, {side} side: {failure}")
