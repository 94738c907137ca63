"""Finite supports on contact points: the (atoms, weights) type, merging nearby atoms, the frozen-endpoint rule.

The solvers (Theorem 4.1), the certificate builders and the likelihood engine all pass
laws on a few contact points between their steps, and all of them at some point join
atoms that lie too close together to be told apart: a grid optimum splits one off-grid
contact between neighbouring grid points, an interior-point method spreads an atom over
its neighbours, CNM leaves two atoms on either side of one minimum of psi. The one merge
is :func:`merge_runs` (neighbours flagged as one contact become their weighted mean),
with :func:`merge_close` for the usual flag, "closer than a distance".

Both Newton methods on contact points -- the KKT Newton of the sharp bounds
(:mod:`certify.solvers`, eq. of Theorem 4.1) and the Newton on (L9) of the likelihood
engine -- share :func:`free_atoms`, the frozen-endpoint rule.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Support", "free_atoms", "merge_close", "merge_runs"]


class Support(NamedTuple):
    """A finitely supported law: atoms (sorted where a merge returns it) and their weights."""

    atoms: np.ndarray
    weights: np.ndarray


def merge_runs(atoms: np.ndarray, weights: np.ndarray, close: np.ndarray) -> tuple[Support, list[np.ndarray]]:
    """Join runs of neighbouring atoms into their weighted mean.

    Parameters
    ----------
    atoms, weights : ndarray
        Sorted atoms and their (positive) weights.
    close : ndarray of bool
        ``close[i]``: atoms i and i + 1 are one contact (len(atoms) - 1 entries).

    Returns
    -------
    (Support, groups)
        The merged support (each run at its weighted mean location, with the summed
        weight) and the indices of each run, for callers that place a run elsewhere.
    """
    groups = np.split(np.arange(len(atoms)), np.nonzero(~close)[0] + 1) if len(atoms) else []
    merged = Support(
        np.array([np.dot(atoms[g], weights[g]) / np.sum(weights[g]) for g in groups]),
        np.array([np.sum(weights[g]) for g in groups]),
    )
    return merged, groups


def merge_close(atoms, weights, distance: float, floor: float = 0.0, positions=None) -> Support:
    """Merge atoms no farther than ``distance`` apart into their weighted mean (:func:`merge_runs`).

    Parameters
    ----------
    atoms, weights : array_like
        Any order.
    distance : float
        Neighbours (after sorting) this close or closer are one contact; runs chain.
    floor : float
        Atoms with weight at most this are dropped first (rounding residue, not contacts).
    positions : callable, optional
        Measure the distance between ``positions(atoms)`` instead of the atoms (e.g. their
        grid indices: neighbouring grid points are one cell apart).
    """
    atoms, weights = np.asarray(atoms, dtype=float), np.asarray(weights, dtype=float)
    order = np.argsort(atoms)
    atoms, weights = atoms[order], weights[order]
    keep = weights > floor
    atoms, weights = atoms[keep], weights[keep]
    where = atoms if positions is None else positions(atoms)
    return merge_runs(atoms, weights, np.diff(where) <= distance)[0]


def free_atoms(atoms: np.ndarray, lo=0.0, hi=1.0) -> np.ndarray:
    """Indices of the atoms strictly inside their intervals [lo, hi]: the location unknowns of a Newton on
    contact points.

    The frozen-endpoint rule of both Newtons on contact points. At an end of its interval
    an atom has no stationarity condition (the tangency p' = f' of Theorem 4.1, psi' = 0
    of (L9)), so its location is no unknown; an atom that a step carries onto or past an
    end is put on that end and stays there.

    How each method takes such a step differs with the math around it. The KKT Newton of
    the sharp bounds (:func:`certify.solvers._exact._newton_kkt`) polishes a proposed
    pattern with no merit function: it clips the atoms that left [0, 1] and starts again
    on the new pattern, and gives up quickly when Newton wanders (another route proposes
    the next pattern). The Newton on (L9) (:func:`certify.likelihood._newton.newton`)
    follows one path under a merit function and needs every iterate feasible (weights >= 0
    and atoms in their pieces, so that every cell probability stays positive): it shortens
    the whole step to the first end an atom reaches, with the weights' ratio test.
    """
    return np.flatnonzero((atoms > lo) & (atoms < hi))
