"""Build the exact :class:`EndpointCertificate` of one side of the V_inf bound (schema 3).

Upper side, moments d interior to the moment space (the lower side is the upper side of
the reflected moments E[(1 - Q)^k], mapped back by q -> 1 - q, since V_inf(1 - q) =
1 - V_inf(q)):

1. **Dual.** The canonical representation sigma of d through 1/2 (:mod:`certify._canonical`)
   has nodes 1/2, some endpoints and free nodes; the polynomial p of degree <= m with
   p = 1{q >= 1/2} at every node and p' = 0 at the free nodes (m + 1 conditions) is its
   Chebyshev-Markov-Stieltjes majorant. The free nodes are rounded to NODE_BITS dyadics
   and p is the exact Hermite interpolant there: it touches the step to second order at
   each rounded node, so rounding moves E_d[p] by far less than the enclosure target.
2. **Primal.** A law of the class, exactly: the canonical law through s = 1/2 + SHIFT of
   the moments d' = (d - LAMBDA u) / (1 - LAMBDA), where u are the moments of the uniform
   law on EXTRA points, mixed back with weight LAMBDA on those points. With the rounded
   nodes and the extra points (m + 1 in all) the weights solve the Vandermonde system
   exactly; they are the mixture's weights up to the rounding, so they stay >= 0 (LAMBDA
   grows if not). No node sits at 1/2, so V_inf(law) is the mass above s, which tends to
   the supremum as SHIFT and LAMBDA shrink.
3. The certificate is accepted only if the independent checker accepts it.
"""

from __future__ import annotations

import time
from fractions import Fraction
from math import comb

import flint

from .._canonical import canonical_law, is_interior
from .._errors import InputError, SolverError
from .._moments import Moments
from ._certificate import Provenance, moments_given
from ._endpoint_certificate import EndpointCertificate
from ._kernel import coefficients, now, poly, solve, version
from ._verify_endpoint import endpoint_value, verify_endpoint_dict

__all__ = ["build_endpoint_certificate"]

#: Free nodes of the dual are rounded to multiples of 2^-NODE_BITS: short numbers in the
#: file, and a dual value within about 2^-(2 NODE_BITS) of the unrounded one.
NODE_BITS = 80
#: The primal law's threshold node sits at 1/2 + SHIFT: its V_inf is within O(SHIFT) of the supremum.
SHIFT = Fraction(1, 2**64)
#: First weight of the uniform law on the extra points; multiplied by 2^16 while a weight is negative.
LAMBDA = Fraction(1, 2**64)
MAX_LAMBDA = Fraction(1, 2**8)

#: Highest moment order certified: the exact weights of the primal law solve an
#: (m+1)-Vandermonde system whose denominators grow like 2^(NODE_BITS m^2 / 2); at order 20
#: a certificate is about 90 kB and takes 0.2 s, at order 40 its numbers pass the 4300
#: digits Python converts to text.
MAX_ORDER = 20

_HALF = Fraction(1, 2)


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """The exact solution of a square interpolation system; SolverError when it is singular."""
    x = solve(rows, rhs)
    if x is None:
        raise SolverError("canonical", "singular", "the exact interpolation system of the V_inf certificate")
    return x


def _round(x: Fraction) -> Fraction:
    return Fraction(round(x * 2**NODE_BITS), 2**NODE_BITS)


def _dual(d: list[Fraction]) -> tuple[list[Fraction], list[tuple[Fraction, int]], Fraction]:
    """Coefficients of the Hermite majorant p, its contacts, and the supremum's estimate (step 1)."""
    m = len(d)
    sigma = canonical_law(d, _HALF)
    rows, rhs, contacts = [], [], []
    for x in sigma.exact_atoms:
        free = x not in (0, 1, _HALF)
        x = _round(x) if free else x
        rows.append([x**k for k in range(m + 1)])
        rhs.append(Fraction(1) if x >= _HALF else Fraction(0))
        if free:
            rows.append([k * x ** (k - 1) if k else Fraction(0) for k in range(m + 1)])
            rhs.append(Fraction(0))
        contacts.append((x, 2 if free else 1))
    # Where a free node falls exactly on 0 or 1 (a border between the two shapes) it gets
    # no tangency condition; the interpolant of lower degree is then the majorant (its
    # law is the canonical law of fewer moments too), so the degree follows the count.
    size = len(rows)
    if size > m + 1:
        raise SolverError("canonical", "inconsistent", f"{size} interpolation conditions for a degree-{m} dual")
    return _solve([r[:size] for r in rows], rhs), contacts, Fraction(sigma.mass_at_least_t)


def _extra_points(m: int, avoid: list[Fraction]) -> list[Fraction]:
    """Rational points of (0, 1), none at 1/2, spread out and away from the nodes ``avoid``."""
    q = 2 * m + 7  # odd: j/q is never 1/2
    gap = Fraction(1, 4 * q)
    return [Fraction(j, q) for j in range(1, q) if all(abs(Fraction(j, q) - a) > gap for a in avoid)]


def _primal(d: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """A law with rational atoms reproducing (1, d) exactly, close to the supremum (step 2)."""
    m = len(d)
    s = _HALF + SHIFT
    nodes = list(canonical_law(d, s).exact_atoms)
    pool = _extra_points(m, nodes)
    lam = LAMBDA
    while lam <= MAX_LAMBDA:
        count = m + 1 - len(nodes)
        for _ in range(2):  # the mixture's canonical law may take the other shape, with another node count
            extras = pool[:: max(1, len(pool) // max(count, 1))][:count] if count > 0 else []
            u = [sum((x**k for x in extras), Fraction(0)) / len(extras) for k in range(1, m + 1)] if extras else list(d)
            moved = [(c - lam * uk) / (1 - lam) for c, uk in zip(d, u)]
            sigma = canonical_law(moved, s) if is_interior(moved) else None
            if sigma is None or len(sigma.exact_atoms) + count == m + 1:
                break
            count = m + 1 - len(sigma.exact_atoms)
        if sigma is not None:
            support = sorted({(x if x in (0, 1, s) else _round(x)) for x in sigma.exact_atoms} | set(extras))
            if len(support) == m + 1:
                weights = _solve([[x**k for x in support] for k in range(m + 1)], [Fraction(1)] + list(d))
                if min(weights) >= 0:
                    return support, weights
        lam *= 2**16
    raise SolverError(
        "canonical", "no law", "no law with rational atoms and nonnegative weights for the V_inf certificate"
    )


def _reflected(c: list[Fraction]) -> list[Fraction]:
    """E[(1 - Q)^k] for k = 1..m from E[Q^k]."""
    full = [Fraction(1)] + list(c)
    return [sum(comb(k, i) * (-1) ** i * full[i] for i in range(k + 1)) for k in range(1, len(c) + 1)]


def _reflect_poly(coeffs: list[Fraction]) -> list[Fraction]:
    """Coefficients of 1 - p(1 - q)."""
    r = 1 - poly(coeffs)(flint.fmpq_poly([1, -1]))
    return coefficients(r, len(coeffs))


def build_endpoint_certificate(mom: Moments, side: str, *, given=None) -> EndpointCertificate:
    """Exact certificate of the supremum (``upper``) or infimum (``lower``) of E[V_inf] over the class.

    Parameters
    ----------
    mom : Moments
        The moment class (any order; interior to the moment space).
    side : {"lower", "upper"}
    given : tuple of (str, str, str), optional
        The inputs as given (:func:`~certify.certificates._certificate.describe_inputs`).

    Returns
    -------
    EndpointCertificate
        Accepted by the independent checker before it is returned.

    Raises
    ------
    InputError
        For moments on the boundary of the moment space (the class is one law; its V_inf
        is what ``certify bounds`` prints) or a bad side.
    """
    if side not in ("lower", "upper"):
        raise InputError(f"side={side!r} must be 'lower' or 'upper'")
    start = time.perf_counter()
    c = list(mom.exact)
    if len(c) > MAX_ORDER:
        raise InputError(
            f"moment order {len(c)} is above {MAX_ORDER}, the highest order of a V_inf certificate "
            "(its exact numbers grow with the square of the order); 'certify bounds' gives the bounds"
        )
    if not is_interior(c):
        raise InputError(
            f"moments={mom.values!r} lie on the boundary of the moment space: the class is one law, whose "
            "V_inf 'certify bounds' prints; a V_inf certificate needs moments inside the moment space"
        )
    d = c if side == "upper" else _reflected(c)
    coeffs, contacts, estimate = _dual(d)
    atoms, weights = _primal(d)
    primal = endpoint_value(atoms, weights)
    if side == "lower":
        coeffs = _reflect_poly(coeffs)
        contacts = [(1 - x, k) for x, k in contacts]
        atoms, weights = [1 - x for x in reversed(atoms)], list(reversed(weights))
        primal = endpoint_value(atoms, weights)
        estimate = 1 - estimate
    dual_value = sum((k * t for k, t in zip(coeffs, [Fraction(1)] + c)), Fraction(0))
    lo, hi = (primal, dual_value) if side == "upper" else (dual_value, primal)
    prov = Provenance(
        method="canonical",
        construction="hermite",
        version=version(),
        seconds=round(time.perf_counter() - start, 6),
        digits=None,
        created=now(),
    )
    cert = EndpointCertificate(
        side=side,
        moments_given=moments_given(mom, given),
        moments=tuple(c),
        atoms=tuple(atoms),
        weights=tuple(weights),
        dual=tuple(coeffs),
        contacts=tuple(sorted(contacts)),
        primal_value=primal,
        dual_value=dual_value,
        value=min(max(estimate, lo), hi),
        provenance=prov,
    )
    result = verify_endpoint_dict(cert.to_dict())
    if not result.ok:
        raise SolverError("canonical", "not certified", f"V_inf, {side} side: {result.message}")
    return cert
