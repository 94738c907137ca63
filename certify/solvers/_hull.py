"""The grid program of the two-moment class, solved for every (mu, nu) at once.

Restricted to atoms on a grid x_0 < ... < x_N of [0, 1], the sharp bound
max E[f] over laws with moments (1, mu, nu) is a linear program (the primal of
Theorem 4.1 on finitely many columns). Its value, as a function of (mu, nu), is
the upper concave envelope of the lifted points (x_k, x_k^2, f(x_k)): the upper
part of their convex hull in R^3. Each upper facet is an optimal basis of the
grid program for every moment vector below it, and its plane is the optimal
dual quadratic there. One Qhull run per target therefore replaces a simplex
solve per point, and locating a moment vector is an argmin over facet planes
(the envelope is the minimum of its supporting planes).

The facet's vertices tell the exact method which contact pattern to polish:
two adjacent vertices sample one contact point between them, so a facet with
three vertices far apart samples a face of the continuous hull (three
contacts), and a facet with two adjacent vertices samples a ruled piece (two
contacts).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._screen import chebyshev_lobatto
from ._contact import Target
from ._tolerances import UPPER_FACET
from ._two_moments import lagrange_weights

#: Points of the hull's grid. Qhull's time grows faster than linearly (about
#: 4 ms here, 60 ms at 2049 points); Newton's method only needs the pattern.
HULL_SIZE = 513


@dataclass(frozen=True, eq=False)
class GridHull:
    """Upper facets of the lifted grid: planes (a, b, c) and sorted vertex indices."""

    grid: np.ndarray
    planes: np.ndarray
    vertices: np.ndarray

    @cached_property
    def grid_list(self) -> list:
        return self.grid.tolist()

    def locate(self, mu: float, nu: float) -> list[tuple[float, float, str]]:
        """Contact points of the grid optimum at (mu, nu).

        Returns
        -------
        list of (position, weight, kind)
            One entry per contact: adjacent facet vertices are merged into
            their weighted mean. ``kind`` is ``"end"`` for the single vertex 0
            or 1, ``"inner"`` for a contact away from both ends, and ``"edge"``
            for a merged contact that includes an end vertex (interior or not).
            Empty when the hull has no upper facet (f is itself a quadratic,
            so every law with the moments is optimal).
        """
        if not len(self.planes):
            return []
        idx = self.vertices[int((self.planes @ np.array((1.0, mu, nu))).argmin())].tolist()
        a, b, c = (self.grid_list[v] for v in idx)
        w = lagrange_weights(a, b, c, 1.0, mu, nu)  # a start: no refinement needed
        groups = [[0]]
        for t in (1, 2):
            if idx[t] - idx[groups[-1][-1]] == 1:
                groups[-1].append(t)
            else:
                groups.append([t])
        last = len(self.grid) - 1
        out = []
        for g in groups:
            weight = sum(w[t] for t in g)
            pos = sum(w[t] * (a, b, c)[t] for t in g) / weight if len(g) > 1 and weight > 0 else (a, b, c)[g[0]]
            ends = [idx[t] for t in g if idx[t] in (0, last)]
            kind = "inner" if not ends else ("end" if len(g) == 1 else "edge")
            out.append((float(pos), float(weight), kind))
        return out


def _build(T: Target) -> GridHull:
    n = min(len(T.grid), HULL_SIZE)
    if n == len(T.grid):
        x, f = T.grid, T.values
    else:
        x = chebyshev_lobatto(n)
        f = np.asarray(T(x), dtype=float)
    from scipy.spatial import ConvexHull, QhullError  # on first use only

    try:
        hull = ConvexHull(np.stack([x, x * x, f], axis=1))
    except QhullError:  # the lifted points are coplanar: f is a quadratic
        return GridHull(x, np.zeros((0, 3)), np.zeros((0, 3), int))
    # Outward normals with a positive f-component: the upper facets.
    upper = hull.equations[:, 2] > UPPER_FACET * np.linalg.norm(hull.equations[:, :3], axis=1)
    vertices = np.sort(hull.simplices[upper], axis=1)
    V = np.stack([np.ones_like(x[vertices]), x[vertices], x[vertices] ** 2], axis=2)
    planes = np.linalg.solve(V, f[vertices][:, :, None])[:, :, 0]
    return GridHull(x, planes, vertices)


def grid_hull(T: Target) -> GridHull:
    """The :class:`GridHull` of a target, built on first use and kept in ``T.hull``."""
    if T.hull is None:
        T.hull = _build(T)
    return T.hull
