"""What one end minimizes, and over what: objective targets on closed pieces and working laws (eq. (L12)).

An interval end minimizes E_pi[sign * g] (the upper end is the lower end of -g). A target is
sign * g written on closed pieces covering [0, 1], each with a smooth function: a polynomial
objective (V_k, P_n, their combinations, any polynomial, pass@k = 1 - (1-q)^k) is one piece;
V_inf and pass@inf are constant pieces. A working law is a law whose atoms each sit on one
piece of the target being solved.

**V_inf (L12).** V_inf(q) = 1{q > 1/2} + 1{q = 1/2}/2 = lim_k V_k(q) is not continuous. The set
C = {pi : l(pi) >= l(pi-hat) - c} of eq. (L6) is weakly compact (each B_c is continuous, so l is
weakly continuous), hence inf_C E[V_inf] = min_C E[1{Q > 1/2}] (the lower semicontinuous
envelope) and sup_C E[V_inf] = max_C E[1{Q >= 1/2}]: ">=" as V_inf >= 1{q > 1/2}; "<=" by
moving an atom at 1/2 of a minimizer to 1/2 - eps and mixing in a share t(eps) -> 0 of
pi-hat, which keeps l >= level because l is concave and c > 0. The same Lagrangian (eq. (L7)
of :mod:`._ends`) applies to a g that is smooth on closed pieces ([0, 1/2] and [1/2, 1] with
constant values): a = min over the pieces, each with its own continuous extension, which is
the minimum of the lsc envelope. An end is ``attained`` unless pi* has an atom at 1/2, where
the envelope and V_inf differ; then the extreme is only approached, by the laws just described.

**pass@inf.** pass@inf(q) = 1{q > 0} = lim_k (1 - (1-q)^k) (:data:`~certify._aggregate_bounds.PASS_INF`)
is lower semicontinuous, so inf_C P(Q > 0) = min_C E[1{Q > 0}] is attained; its pieces are the
point {0} (value 0) and [0, 1] (value 1), an atom at 0 taking the smaller value. The upper end
is 1 by definition, not by a computation: take any pi in C (pi-hat) and move its mass at 0
(if any) to eps > 0; l is continuous in the atoms and c > 0, so for small eps the law stays in
C and has P(Q > 0) = 1. Its target is the constant -1 on [0, 1] (the usc envelope 1{q >= 0}),
which every law attains, pi-hat included (:mod:`._ends` takes pi-hat with lambda = 0); the
end is ``attained`` by pi-hat itself only when pi-hat has no atom at 0.

**Reported values.** E_pi[g] lies in the range of g, so an end reported outside an enclosure
of that range (the sum of the weights one ulp above 1 gives E[V_inf] = 1.0000000000000002) is
moved onto it (:func:`_range`): the clamped number is still a valid bound, since no law has
E_pi[g] outside the range, and the end's certificate keeps its own exact value.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeGuard

import numpy as np

from .._aggregate_bounds import PASS_INF, PassLimit, is_pass_limit
from .._errors import InputError
from .._objective import V_INF, Objective, VoteLimit, is_vote_limit, parse_objective, vote_accuracy
from ._tolerances import TINY

__all__ = ["is_infinite_budget"]


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
    ``jump`` is the point where that envelope and sign * g differ (1/2 for V_inf, 0 for the
    upper end of pass@inf), None where they agree; ``bounds`` encloses the range of g
    (unsigned), onto which a reported end is clamped.
    """

    def __init__(
        self,
        name: str,
        pieces: list[_Piece],
        degree: int,
        sign: int,
        bounds: tuple[float, float],
        jump: float | None = None,
        mirror: _Target | None = None,
    ):
        self.name, self.pieces, self.degree, self.sign = name, pieces, degree, sign
        self.bounds, self.jump = bounds, jump
        # the other side's target, -g on the same pieces: its grid values, negated, are these
        # (negation is exact), so the two ends of one objective evaluate g on the grid once
        self.mirror = mirror
        self._grid_values: dict = {}

    @property
    def constant(self) -> float | None:
        """The value of a constant target (one constant piece: the upper end of pass@inf), else None."""
        if len(self.pieces) == 1 and self.pieces[0].objective is None:
            return self.pieces[0].constant
        return None

    def jet(self, q: np.ndarray, piece: np.ndarray, derivatives=(0, 1, 2)) -> list[np.ndarray]:
        if len(self.pieces) == 1:  # a polynomial: every atom is on the one piece (Newton's hot path)
            return self.pieces[0].jet(q, derivatives)
        out = [np.empty(len(q)) for _ in derivatives]
        for k in np.unique(piece):
            mask = piece == k
            for o, v in zip(out, self.pieces[int(k)].jet(q[mask], derivatives)):
                o[mask] = v
        return out

    def grid_values(self, k: int, grid: np.ndarray) -> np.ndarray:
        key = (k, len(grid))
        if key not in self._grid_values:
            self._grid_values[key] = (
                -self.mirror.grid_values(k, grid) if self.mirror is not None else self.pieces[k].values(grid, 0)
            )
        return self._grid_values[key]

    def scale(self) -> float:
        """max |g| over the screening data seen so far (>= TINY), for relative tolerances."""
        vals = [np.max(np.abs(v)) for v in self._grid_values.values() if len(v)]
        vals += [abs(p.constant) for p in self.pieces if p.objective is None]
        return max(max(vals, default=0.0), TINY)


def _zero_target(pieces=((0.0, 1.0),)) -> _Target:
    return _Target("0", [_Piece(lo, hi, None, 0.0) for lo, hi in pieces], 0, 1, (0.0, 0.0))


def is_infinite_budget(spec) -> bool:
    """True for the infinite budget V_inf (:data:`certify.V_INF`, ``"inf"``, ``"Vinf"``, ``float('inf')``: every
    spelling :func:`certify.parse_vote_budget` reads), a step function, not a polynomial."""
    return is_vote_limit(spec)


def _is_polynomial(obj) -> TypeGuard[Objective]:
    """Whether a parsed objective is a polynomial (not V_inf or pass@inf, the steps)."""
    return isinstance(obj, Objective)


def _objective(spec) -> Objective | VoteLimit | PassLimit:
    """V_INF for V_inf, PASS_INF for pass@inf, else the parsed Objective (an int is a vote count)."""
    if is_vote_limit(spec):
        return V_INF
    if is_pass_limit(spec):
        return PASS_INF
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        return vote_accuracy(int(spec))
    return parse_objective(spec)


def _range(obj: Objective) -> tuple[float, float]:
    """An enclosure of the range of a polynomial objective on [0, 1].

    c P_n lies between 0 and c (0 <= P_n <= 1), and a Bernstein polynomial between its smallest
    and largest coefficient; the sum of these intervals holds g. For an accuracy (V_k, pass@k,
    U_k) it is [0, 1]; for a gain V_k - V_1 [-1, 1].
    """
    lo = sum(min(c, Fraction(0)) for c, _ in obj.majority) + min(obj.bernstein, default=0)
    hi = sum(max(c, Fraction(0)) for c, _ in obj.majority) + max(obj.bernstein, default=0)
    return float(lo), float(hi)


def _target(obj: Objective | VoteLimit | PassLimit, side: str, mirror: _Target | None = None) -> _Target:
    """The target of one end; ``mirror``, the other end's target of the same objective, shares its grid values."""
    sign = 1 if side == "lower" else -1
    if obj is V_INF:
        if sign > 0:  # inf E[V_inf]: lsc envelope 1{q > 1/2}
            pieces = [_Piece(0.0, 0.5, None, 0.0), _Piece(0.5, 1.0, None, 1.0)]
        else:  # sup E[V_inf] = -inf E[-V_inf]: -(usc envelope 1{q >= 1/2})
            pieces = [_Piece(0.0, 0.5, None, 0.0), _Piece(0.5, 1.0, None, -1.0)]
        return _Target("Vinf", pieces, 0, sign, (0.0, 1.0), jump=0.5)
    if obj is PASS_INF:
        if sign > 0:  # inf P(Q > 0): 1{q > 0} is lsc, its own envelope (module docstring)
            return _Target(obj.name, [_Piece(0.0, 0.0, None, 0.0), _Piece(0.0, 1.0, None, 1.0)], 0, sign, (0.0, 1.0))
        # sup P(Q > 0) = -inf E[-(usc envelope 1{q >= 0} = 1)]: 1, by definition
        return _Target(obj.name, [_Piece(0.0, 1.0, None, -1.0)], 0, sign, (0.0, 1.0), jump=0.0)
    assert isinstance(obj, Objective)  # V_INF and PASS_INF are the only VoteLimit and PassLimit
    if not obj.majority and len(set(obj.bernstein)) <= 1:
        # a constant polynomial (all Bernstein coefficients equal): E_pi[g] is that constant for
        # every law, so its ends are too, with no search (as pass@inf's upper end); solved as a
        # polynomial, the lambda = 0 test needed a full NPMLE and failed at K = 2000
        value = float(obj.bernstein[0]) if obj.bernstein else 0.0
        return _Target(obj.name, [_Piece(0.0, 1.0, None, sign * value)], 0, sign, (value, value))
    g = obj if sign > 0 else obj.scaled(-1, name=f"-({obj.name})")
    return _Target(obj.name, [_Piece(0.0, 1.0, g)], obj.degree, sign, _range(obj), mirror=mirror)


def _parse_all(objectives) -> list:
    """The objectives of a batch, parsed (one objective alone is a batch of one)."""
    if isinstance(objectives, (str, bytes, Objective)) or not hasattr(objectives, "__iter__"):
        objectives = [objectives]
    parsed = [_objective(o) for o in objectives]
    if not parsed:
        raise InputError("objectives=[] must name at least one objective")
    return parsed


# ----------------------------------------------------------------------------------------------
# Working laws: atoms on the pieces of a target


class _Law:
    """Mutable working law: atoms, weights, piece index of each atom."""

    __slots__ = ("atoms", "weights", "piece")

    def __init__(self, atoms, weights, piece):
        self.atoms = np.asarray(atoms, dtype=float)
        self.weights = np.asarray(weights, dtype=float)
        self.piece = np.asarray(piece, dtype=np.int64)

    @classmethod
    def unassigned(cls, atoms, weights) -> _Law:
        """A law with every atom on piece 0 (:func:`_pieces_law` assigns them for a target)."""
        return cls(atoms, weights, np.zeros(len(atoms), dtype=np.int64))

    def copy(self) -> _Law:
        return _Law(self.atoms.copy(), self.weights.copy(), self.piece.copy())

    def sorted(self) -> _Law:
        o = np.lexsort((self.piece, self.atoms))
        return _Law(self.atoms[o], self.weights[o], self.piece[o])


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
