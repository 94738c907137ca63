"""Canonical representations of a moment sequence on [0, 1] through a point t.

The sharp bounds of the infinite-vote endpoint V_inf = P(Q > 1/2) + P(Q = 1/2)/2 over a
moment class of any order m are the Chebyshev-Markov-Stieltjes bounds at t = 1/2. For
moments s = (1, m_1, ..., m_m) interior to the moment space of [0, 1] and t in (0, 1),
exactly one law with an atom at t has index at most (m + 2)/2 (an interior atom counts 1,
an atom at 0 or 1 counts 1/2): the canonical representation sigma_t through t (Karlin and
Studden 1966, Ch. IV; Krein and Nudelman 1977, Ch. III, Thm. 2.1). For every law pi with
these moments,

    sigma_t([0, t)) <= pi([0, t))  and  pi([0, t]) <= sigma_t([0, t]),

so sup Pr(Q >= t) = sigma_t([t, 1]) and inf Pr(Q > t) = sigma_t((t, 1]). With t = 1/2 these
are the supremum and infimum of E[V_inf] (paper eq. (main-vinf); for m <= 2 they reduce to
Theorem 4.3, which the tests check).

Construction (Gauss-Radau-Lobatto quadrature with a prescribed node). sigma_t has the node
t, a set E of endpoints and n free nodes, with 1 + |E| + 2n = m + 1 unknowns: E is empty or
{0, 1} for even m, {0} or {1} for odd m, and n = (m - |E|) / 2. The free nodes are the
zeros of the monic degree-n polynomial omega orthogonal to all polynomials of degree < n
under the functional p -> E_s[r(Q) p(Q)] with r(q) = (q - t) prod_{e in E} (q - e); then
the quadrature on these nodes is exact up to degree m, so its weights (a Vandermonde
system) reproduce every moment. omega is exact (rational arithmetic on the exact moments);
its zeros and the weights are arb balls whose precision doubles until every decision
(nodes in [0, 1], weights >= 0, each node's side of t) is proven. Of the two choices of E,
the canonical one is the one whose nodes and weights are admissible; where both are
(a weight vanishing on the border between them), they are the same law.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from ._errors import InputError

__all__ = ["CanonicalLaw", "boundary_law", "canonical_law", "is_interior"]

#: Working precision (bits) of the first attempt, plus this many bits per moment: the
#: Vandermonde and Hankel systems lose roughly a fixed number of bits per order.
START_PREC_BITS = 128
PREC_BITS_PER_MOMENT = 16
#: Largest working precision tried before giving up; far above what order 100 needs.
MAX_PREC_BITS = 1 << 15


def _fmpq(x: Fraction | int) -> flint.fmpq:
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def _sequence(moments: Sequence[Fraction]) -> list[flint.fmpq]:
    """s = (1, m_1, ..., m_m) as exact flint rationals."""
    return [flint.fmpq(1)] + [_fmpq(m) for m in moments]


def _leading_rank(rows: list[list[flint.fmpq]]) -> tuple[int, int]:
    """(r, sign) from exact Gaussian elimination without pivoting of a symmetric matrix.

    r is the size of the largest leading block that is positive definite; sign is +1 if
    that is the whole matrix, 0 if the next pivot is zero (the leading (r+1)-block is
    singular) and -1 if it is negative (the matrix is not positive semidefinite).
    """
    a = [list(r) for r in rows]
    size = len(a)
    for k in range(size):
        pivot = a[k][k]
        if pivot <= 0:
            return k, (0 if pivot == 0 else -1)
        for i in range(k + 1, size):
            f = a[i][k] / pivot
            if f != 0:
                row_i, row_k = a[i], a[k]
                for j in range(k + 1, size):
                    row_i[j] -= f * row_k[j]
    return size, 1


def _hankel(seq: list[flint.fmpq], size: int) -> list[list[flint.fmpq]]:
    return [[seq[i + j] for j in range(size)] for i in range(size)]


def _localizing(moments: Sequence[Fraction], a: Fraction | int, b: Fraction | int):
    """The two (multiplier, sequence, size) of the Markov-Lukacs conditions on [a, b].

    For m = 2k: multipliers 1 and (q - a)(b - q), sizes k + 1 and k; for m = 2k + 1:
    (q - a) and (b - q), both of size k + 1 (Karlin and Studden 1966, Thm. II.2.3 / IV.1.1).
    """
    s = _sequence(moments)
    m = len(s) - 1
    qa, qb = _fmpq(a), _fmpq(b)
    if m % 2 == 0:
        k = m // 2
        second = [(qa + qb) * s[i + 1] - s[i + 2] - qa * qb * s[i] for i in range(m - 1)]
        return [(flint.fmpq_poly([1]), s, k + 1), (flint.fmpq_poly([-qa * qb, qa + qb, -1]), second, k)]
    k = (m - 1) // 2
    return [
        (flint.fmpq_poly([-qa, 1]), [s[i + 1] - qa * s[i] for i in range(m)], k + 1),
        (flint.fmpq_poly([qb, -1]), [qb * s[i] - s[i + 1] for i in range(m)], k + 1),
    ]


def is_interior(moments: Sequence[Fraction], a: Fraction = Fraction(0), b: Fraction = Fraction(1)) -> bool:
    """Whether (m_1, ..., m_m) lies in the interior of the moment space of [a, b], exactly.

    The interior is where both Hankel matrices of the Markov-Lukacs representation
    (:func:`_localizing`) are positive definite: for m = 2k, (s_{i+j})_{i,j<=k} and
    ((a+b) s_{i+j+1} - s_{i+j+2} - ab s_{i+j})_{i,j<k}; for m = 2k+1,
    (s_{i+j+1} - a s_{i+j})_{i,j<=k} and (b s_{i+j} - s_{i+j+1})_{i,j<=k}.
    """
    return all(_leading_rank(_hankel(seq, size))[1] > 0 for _, seq, size in _localizing(moments, a, b))


@dataclass(frozen=True)
class CanonicalLaw:
    """The canonical representation sigma_t of an interior moment sequence.

    Attributes
    ----------
    t : Fraction
        The prescribed node.
    atoms, weights : tuple of float
        Nodes (sorted, t among them) and weights, each the midpoint of a proven ball.
    mass_at_least_t, mass_above_t : float
        sigma_t([t, 1]) = sup Pr(Q >= t) and sigma_t((t, 1]) = inf Pr(Q > t); exactly 1.0
        or 0.0 when every node lies on one side.
    radius : float
        Largest radius of the balls behind the two masses (an error bound on them).
    endpoints : tuple of int
        The endpoints among the nodes (the set E of the construction).
    exact_atoms : tuple of Fraction
        The nodes as dyadic rationals: t and the endpoints exactly, every other node the
        midpoint of its ball (for certificates, which rebuild weights exactly).
    """

    t: Fraction
    atoms: tuple[float, ...]
    weights: tuple[float, ...]
    mass_at_least_t: float
    mass_above_t: float
    radius: float
    endpoints: tuple[int, ...]
    exact_atoms: tuple[Fraction, ...] = ()


class _Undecided(Exception):
    """A ball straddles a decision at this precision: retry with more bits."""


def _orthogonal(seq: list[flint.fmpq], n: int) -> flint.fmpq_poly | None:
    """Monic degree-n polynomial orthogonal to degree < n under p -> sum_i p_i seq_i; None if singular."""
    if n == 0:
        return flint.fmpq_poly([1])
    h = flint.fmpq_mat(n, n, [seq[i + j] for i in range(n) for j in range(n)])
    rhs = flint.fmpq_mat(n, 1, [-seq[n + j] for j in range(n)])
    try:
        coef = h.solve(rhs)
    except ZeroDivisionError:
        return None
    return flint.fmpq_poly([coef[i, 0] for i in range(n)] + [1])


def _real_roots(p: flint.fmpq_poly, ends: tuple[int, ...] = ()) -> list | None:
    """The zeros of p as arb balls in [0, 1] if all are real, simple, there and off ``ends``; else None.

    A zero exactly at 0 or 1 is returned as that exact point. Raises _Undecided when a
    ball straddles 0 or 1 while p does not vanish there.
    """
    roots: list[flint.arb] = []
    if p.degree() <= 0:
        return roots
    exact_ends = [e for e in (0, 1) if p(flint.fmpq(e)) == 0]
    if any(e in ends for e in exact_ends):
        return None  # a free node on a prescribed endpoint: the other shape is the canonical one
    # (root, multiplicity) pairs, which python-flint's stub types as list[acb]
    found: list[tuple[flint.acb, int]] = p.numer().complex_roots()  # type: ignore[assignment]  # stub is wrong
    for root, mult in found:
        if mult != 1 or not root.imag.is_zero():
            return None  # a complex or repeated zero: no law of this shape
        x = root.real
        if x < 0 or x > 1:
            return None
        on_end = [e for e in exact_ends if x.overlaps(flint.arb(e))]
        if on_end:
            x = flint.arb(on_end[0])
        elif not (x >= 0 and x <= 1):
            raise _Undecided
        roots.append(x)
    return roots


def _weights(nodes: list, s: list[flint.fmpq]) -> list:
    """Weights reproducing s_0, ..., s_{N-1} on N distinct nodes (arb Vandermonde solve)."""
    size = len(nodes)
    vander = flint.arb_mat(size, size, [nodes[i] ** j for j in range(size) for i in range(size)])
    rhs = flint.arb_mat(size, 1, [flint.arb(s[j]) for j in range(size)])
    try:
        w = vander.solve(rhs)
    except ZeroDivisionError:
        raise _Undecided from None
    return [w[i, 0] for i in range(size)]


def _candidate(s: list[flint.fmpq], t: flint.fmpq, ends: tuple[int, ...]):
    """(nodes, weights, sides) of the representation through t with endpoints ``ends``, or None.

    None when the shape is inadmissible (a zero outside [0, 1], complex, or on t; a
    negative weight). Raises _Undecided when a ball straddles a decision.
    """
    m = len(s) - 1
    r = flint.fmpq_poly([-t, 1])
    for e in ends:
        r *= flint.fmpq_poly([0, 1]) if e == 0 else flint.fmpq_poly([1, -1])
    rc = [r[i] for i in range(r.degree() + 1)]
    n = (m - len(ends)) // 2
    localized = [sum((rc[i] * s[i + j] for i in range(len(rc))), flint.fmpq(0)) for j in range(m + 1 - len(rc) + 1)]
    omega = _orthogonal(localized, n)
    if omega is None or omega(t) == 0:
        return None  # singular, or a free node on t: not a law with distinct nodes
    roots = _real_roots(omega, ends)
    if roots is None:
        return None
    nodes = [flint.arb(t)] + [flint.arb(e) for e in ends] + roots
    weights = _weights(nodes, s)
    if any(w < 0 for w in weights):
        return None
    sides = _sides(nodes, t, [True] + [False] * (len(nodes) - 1))
    return nodes, weights, sides


def _resolve(attempt, m: int, what: str):
    """Run ``attempt()`` at doubling arb precision until no ball straddles a decision."""
    prec = START_PREC_BITS + PREC_BITS_PER_MOMENT * m
    while prec <= MAX_PREC_BITS:
        try:
            with flint.ctx.workprec(prec):
                return attempt()
        except _Undecided:
            prec *= 2
    raise InputError(f"{what} of moments of order {m} was not resolved within {MAX_PREC_BITS} bits")


def _sides(nodes, t: flint.fmpq, on_t) -> list[int]:
    """Side of t (-1 below, 0 on, +1 above) of each node ball; ``on_t[i]``: node i is t exactly."""
    sides = []
    for x, exact in zip(nodes, on_t):
        if exact:
            sides.append(0)
        elif x < t:
            sides.append(-1)
        elif x > t:
            sides.append(1)
        else:
            raise _Undecided  # not t exactly, so more bits separate it from t
    return sides


def _masses(weights, sides) -> tuple[float, float, float]:
    """(mass >= t, mass > t, radius) of the balls; exactly 1 or 0 when one side is empty."""
    zero = flint.arb(0)
    at_least = sum((w for w, sd in zip(weights, sides) if sd >= 0), zero)
    above = sum((w for w, sd in zip(weights, sides) if sd > 0), zero)
    radius = max(float(at_least.rad()), float(above.rad()))
    m_at_least = 1.0 if min(sides) >= 0 else (0.0 if max(sides) < 0 else float(at_least.mid()))
    m_above = 1.0 if min(sides) > 0 else (0.0 if max(sides) <= 0 else float(above.mid()))
    return m_at_least, m_above, radius


def canonical_law(moments: Sequence[Fraction], t: Fraction) -> CanonicalLaw:
    """The canonical representation sigma_t of interior moments through t in (0, 1).

    Parameters
    ----------
    moments : sequence of Fraction
        (m_1, ..., m_m), exact, interior to the moment space of [0, 1] (see :func:`is_interior`).
    t : Fraction
        The prescribed node, 0 < t < 1.

    Returns
    -------
    CanonicalLaw
    """
    t = Fraction(t)
    if not (0 < t < 1):
        raise InputError(f"t={t} must lie in (0, 1)")
    s = _sequence(moments)
    m = len(s) - 1
    shapes = [(), (0, 1)] if m % 2 == 0 else [(0,), (1,)]
    tq = _fmpq(t)

    def attempt():
        found = [(ends, c) for ends in shapes if (c := _candidate(s, tq, ends)) is not None]
        if not found:
            raise InputError(
                f"moments={tuple(float(x) for x in moments)!r} have no canonical representation "
                "through t: they are not interior to the moment space of [0, 1]"
            )
        # Both shapes are admissible only where a weight vanishes (the same law): take
        # the one whose smallest weight is largest.
        ends, (nodes, weights, sides) = max(found, key=lambda f: min(float(w.mid()) for w in f[1][1]))
        at_least, above, radius = _masses(weights, sides)
        atoms, masses, exact_atoms = _sorted(nodes, weights)
        return CanonicalLaw(t, atoms, masses, at_least, above, radius, tuple(ends), exact_atoms)

    return _resolve(attempt, m, f"the canonical representation through t={t}")


def boundary_law(moments: Sequence[Fraction], t: Fraction) -> CanonicalLaw | None:
    """The unique law of moments on the boundary of the moment space of [0, 1], else None.

    On the boundary one Markov-Lukacs matrix (:func:`_localizing`) of the multiplier r is
    singular: if its leading r-block is positive definite and the (r+1)-block is not, the
    measure r(q) dpi has exactly r atoms, the zeros of the degree-r orthogonal polynomial
    of that block; pi adds at most the endpoints 0 and 1, where r vanishes. The weights
    solve the Vandermonde system, and every moment up to m is checked to lie in the balls.
    None when the moments are interior, or outside the moment space (a negative pivot).

    The returned law's ``mass_at_least_t`` and ``mass_above_t`` are Pr(Q >= t) and Pr(Q > t)
    of the one law in the class; ``endpoints`` lists 0 and 1 when they are nodes.
    """
    t = Fraction(t)
    s = _sequence(moments)
    m = len(s) - 1
    ranks = [(seq, *_leading_rank(_hankel(seq, size))) for _, seq, size in _localizing(moments, 0, 1)]
    if any(sign < 0 for _, _, sign in ranks) or all(sign > 0 for _, _, sign in ranks):
        return None
    seq, r, _ = next(x for x in ranks if x[2] == 0)
    kernel = _orthogonal(seq, r)
    tq = _fmpq(t)

    def attempt():
        roots = _real_roots(kernel)
        if roots is None:
            return None
        ends = [e for e in (0, 1) if kernel(flint.fmpq(e)) != 0]
        nodes = list(roots) + [flint.arb(e) for e in ends]
        on_t = [False] * len(roots) + [False] * len(ends)
        if kernel(tq) == 0:
            on_t[min(range(len(roots)), key=lambda i: abs(float(roots[i].mid()) - float(t)))] = True
        weights = _weights(nodes, s)
        if weights is None or any(w < 0 for w in weights):
            return None
        for j in range(m + 1):  # the law must reproduce every moment, not only the first len(nodes)
            if not sum((w * x**j for w, x in zip(weights, nodes)), flint.arb(0)).overlaps(flint.arb(s[j])):
                return None
        sides = _sides(nodes, tq, on_t)
        at_least, above, radius = _masses(weights, sides)
        # An endpoint whose weight's ball holds 0 is not shown as an atom (it may carry
        # at most the ball's radius, which the masses' radius already covers).
        keep = [i for i in range(len(nodes)) if i < len(roots) or not weights[i].contains(0)]
        atoms, masses, exact_atoms = _sorted([nodes[i] for i in keep], [weights[i] for i in keep])
        shown_ends = tuple(e for i, e in enumerate(ends) if len(roots) + i in keep)
        return CanonicalLaw(t, atoms, masses, at_least, above, radius, shown_ends, exact_atoms)

    return _resolve(attempt, m, "the boundary law")


def _dyadic(x: flint.arb) -> Fraction:
    """The midpoint of a ball, exactly."""
    fman, fexp = x.mid().man_exp()
    man, exp = int(fman), int(fexp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _sorted(nodes, weights) -> tuple:
    """Atoms and weights as floats, and the atoms as exact dyadics, in increasing order."""
    order = sorted(range(len(nodes)), key=lambda i: float(nodes[i].mid()))
    return (
        tuple(float(nodes[i].mid()) for i in order),
        tuple(max(float(weights[i].mid()), 0.0) for i in order),
        tuple(_dyadic(nodes[i]) for i in order),
    )
