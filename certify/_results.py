"""Result objects: extremal laws, dual polynomials, one-sided bounds, bound pairs.

All are frozen dataclasses with ``to_dict`` / ``from_dict``; floats are written
as JSON numbers with repr precision, so they round-trip bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._errors import InputError

__all__ = ["Law", "Bound", "SharpBounds", "SCHEMA_VERSION"]

SCHEMA_VERSION = "1"


def _floats(seq) -> tuple[float, ...]:
    return tuple(float(x) for x in seq)


@dataclass(frozen=True)
class Law:
    """A finitely supported law on [0, 1]: atoms and their weights."""

    atoms: tuple[float, ...]
    weights: tuple[float, ...]

    def __post_init__(self):
        if len(self.atoms) != len(self.weights):
            raise InputError(f"law has {len(self.atoms)} atoms but {len(self.weights)} weights")

    def moments(self, order: int) -> np.ndarray:
        """Raw moments m_1..m_order of the law."""
        a = np.asarray(self.atoms)
        w = np.asarray(self.weights)
        return np.array([np.dot(w, a**k) for k in range(1, order + 1)])

    def expect(self, objective) -> float:
        """E[g(Q)] under the law, for any callable objective g."""
        # atom by atom: a law has a handful of atoms, and scalar evaluation is fast
        return float(sum(w * float(objective(a)) for a, w in zip(self.atoms, self.weights)))

    def to_dict(self) -> dict:
        return {"atoms": list(self.atoms), "weights": list(self.weights)}

    @classmethod
    def from_dict(cls, data: dict) -> Law:
        return cls(atoms=_floats(data["atoms"]), weights=_floats(data["weights"]))


@dataclass(frozen=True)
class Bound:
    """One side of a sharp bound of E[g(Q)] over a moment class (Theorem 4.1).

    Attributes
    ----------
    side : {"lower", "upper"}
    value : float
        E[g] under :attr:`law`: the sharp bound is attained by this law.
    law : Law
        Extremal law with at most m+1 atoms and the class's moments.
    dual : tuple of float
        Monomial coefficients (c_0, ..., c_m) of the dual polynomial: a minorant
        of g on [0, 1] for the lower side, a majorant for the upper side.
    dual_value : float
        sum_k c_k m_k, the dual objective; equals ``value`` at optimality.
    violation : float
        Largest amount by which the dual polynomial fails to be a minorant
        (majorant) on [0, 1], as measured numerically; 0 for a valid certificate.
        The dual touches g at the law's atoms.
    """

    side: str
    value: float
    law: Law
    dual: tuple[float, ...]
    dual_value: float
    violation: float = 0.0

    @property
    def gap(self) -> float:
        """``|dual value - primal value|``: the optimality gap of the pair."""
        return abs(self.dual_value - self.value)

    def to_dict(self) -> dict:
        return {
            "side": self.side,
            "value": self.value,
            "law": self.law.to_dict(),
            "dual": list(self.dual),
            "dual_value": self.dual_value,
            "violation": self.violation,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Bound:
        return cls(
            side=str(data["side"]),
            value=float(data["value"]),
            law=Law.from_dict(data["law"]),
            dual=_floats(data["dual"]),
            dual_value=float(data["dual_value"]),
            violation=float(data.get("violation", 0.0)),
        )


@dataclass(frozen=True)
class SharpBounds:
    """The sharp interval [lower, upper] of E[g(Q)] over a moment class.

    Attributes
    ----------
    objective : str
        Readable name of the objective.
    moments : tuple of float
        (m_1, ..., m_m) after validation.
    method : str
        ``"exact"``, ``"sos"`` or ``"grid"``.
    lower, upper : Bound
    """

    schema_version: ClassVar[str] = SCHEMA_VERSION

    objective: str
    moments: tuple[float, ...]
    method: str
    lower: Bound
    upper: Bound

    @property
    def width(self) -> float:
        return self.upper.value - self.lower.value

    @property
    def order(self) -> int:
        return len(self.moments)

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "objective": self.objective,
            "moments": list(self.moments),
            "method": self.method,
            "lower": self.lower.to_dict(),
            "upper": self.upper.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> SharpBounds:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise InputError(f"schema_version={version!r} is not supported (expected {SCHEMA_VERSION!r})")
        return cls(
            objective=str(data["objective"]),
            moments=_floats(data["moments"]),
            method=str(data["method"]),
            lower=Bound.from_dict(data["lower"]),
            upper=Bound.from_dict(data["upper"]),
        )
