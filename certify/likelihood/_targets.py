"""What one end minimizes, and over what: objective targets on closed pieces and working laws (eq. (L12)).

An interval end minimizes E_pi[sign * g] (the upper end is the lower end of -g). A target is
sign * g written on closed pieces covering [0, 1], each with a smooth function: a polynomial
objective (V_k, P_n, their combinations, any polynomial) is one piece; V_inf is two constant
pieces. A working law is a law whose atoms each sit on one piece of the target being solved.

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
"""

from __future__ import annotations

import numpy as np

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
        """max |g| over the screening data seen so far (>= TINY), for relative tolerances."""
        vals = [np.max(np.abs(v)) for v in self._grid_values.values() if len(v)]
        vals += [abs(p.constant) for p in self.pieces if p.objective is None]
        return max(max(vals, default=0.0), TINY)


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
    def unassigned(cls, atoms, weights) -> "_Law":
        """A law with every atom on piece 0 (:func:`_pieces_law` assigns them for a target)."""
        return cls(atoms, weights, np.zeros(len(atoms), dtype=np.int64))

    def copy(self) -> "_Law":
        return _Law(self.atoms.copy(), self.weights.copy(), self.piece.copy())

    def sorted(self) -> "_Law":
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
