"""The ``exact`` method's two-moment routes run on whole arrays of (mu, nu).

For grids of (mu, nu) -- identified-width maps, projections over confidence
regions -- the per-point solver's Python overhead dominates. The routes of
:func:`._exact.solve_exact` that need no linear program run here on arrays, with
the same functions the per-point routes call (a float is one point, an array many):

0. "boundary": the unique law in closed form;
1. "face": faces found by the pointwise solves of this batch, or of the computation
   that passes its :class:`._exact.Faces` (none else: the values do not depend on
   earlier calls), with :func:`._two_moments.face_weights`;
2. "endpoint": the two-atom laws with one endpoint atom
   (:func:`._two_moments.endpoint_law`), the better of the two per point;
3. "bitangent": two interior contacts (:func:`._two_moments.bitangent_law`), started
   from the endpoint law's interior atom and its most violated grid point, then, for
   rows whose start failed, from the contacts of the nearest solved row.

The counts per route (the names of :data:`._solution.ROUTES`, plus "pointwise") are
returned with the values.

Every dual passes the array majorant screen :func:`_check` (the grid cell bounds of
:func:`._contact.cell_bounds`, the same as the per-point screen's); rows it cannot
decide get the per-point :func:`._contact.max_violation`. Points that no array route
certifies go to :func:`._exact.solve_exact`, so every value is certified the same way.
"""

from __future__ import annotations

import numpy as np

from .._moments import snap_two_moments
from ._contact import Target, accept_tolerance, cell_bounds, max_violation, rounding, target
from ._exact import Faces, solve_exact
from ._tolerances import FINE_FACTOR
from ._two_moments import bitangent_law, endpoint_law, face_weights

#: Rows per block of the (points x grid) residual matrix.
BLOCK = 4096


def _check(T: Target, Y: np.ndarray, contacts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the quadratics p = Y[:, 0] + Y[:, 1] q + Y[:, 2] q^2 are accepted majorants of f.

    ``contacts`` (rows x k) are where p touches f: tangency at interior points,
    value at 0 or 1. Every grid cell away from the contacts must stay below 0 by
    :func:`~._contact.cell_bounds`; next to an interior contact r'' < 0 is required,
    next to an endpoint contact r must leave 0 downhill. Rows that this neither
    accepts nor refutes are screened again on a grid FINE_FACTOR times finer, and what is
    still undecided by :func:`~._contact.max_violation` with the acceptance
    tolerance of every route. Returns (valid, the grid point of largest f - p per row:
    where a missing contact lies).
    """
    valid, invalid, worst = _check_on(T, Y, contacts, T.grid, T.values, T.second, T.cell_band2)
    unsure = np.nonzero(~valid & ~invalid)[0]
    if len(unsure):
        if T.fine is None:
            X = np.linspace(0.0, 1.0, FINE_FACTOR * len(T.grid) + 1)
            T.fine = (X, T(X), T(X, 2), 0.25 * np.diff(X) ** 2)
        v2, i2, _ = _check_on(T, Y[unsure], contacts[unsure], *T.fine)
        valid[unsure] = v2
        for j in unsure[~v2 & ~i2]:
            viol, _ = max_violation(T, Y[j], contacts=contacts[j])
            valid[j] = viol <= accept_tolerance(T, Y[j])
    return valid, worst


def _check_on(T: Target, Y, contacts, X, F, F2, band2):
    """(valid, invalid, worst) of :func:`_check` on the samples (X, F = f(X), F2 = f''(X))."""
    tol = accept_tolerance(T, Y)
    reach = 2.0 * float(np.max(np.diff(X)))  # two of the widest cells
    valid = np.zeros(len(Y), bool)
    invalid = np.zeros(len(Y), bool)
    worst = np.empty(len(Y))
    for s in range(0, len(Y), BLOCK):
        sl = slice(s, s + BLOCK)
        y, c = Y[sl], contacts[sl]
        R = F[None, :] - (y[:, :1] + y[:, 1:2] * X[None, :] + y[:, 2:3] * X[None, :] ** 2)
        worst[sl] = X[np.argmax(R, axis=1)]
        cells = cell_bounds(R, np.abs(F2[None, :] - 2.0 * y[:, 2:3]), band2[None, :])
        dist = np.abs(X[None, :, None] - c[:, None, :])
        near = np.any(dist <= reach, axis=2)
        near_inner = np.any((dist <= reach) & (c[:, None, :] > 0) & (c[:, None, :] < 1), axis=2)
        far_bound = np.max(np.where(near[:, :-1] | near[:, 1:], -np.inf, cells), axis=1)
        far_value = np.max(np.where(near, -np.inf, R), axis=1)
        curv = np.max(np.where(near_inner, F2[None, :] - 2.0 * y[:, 2:3], -np.inf), axis=1)
        slope_ok = np.ones(len(y), bool)
        for end, sgn in ((0.0, 1.0), (1.0, -1.0)):
            rows = np.any(c == end, axis=1)
            if np.any(rows):
                d = T.first_at(end) - (y[rows, 1] + 2.0 * y[rows, 2] * end)
                slope_ok[rows] = sgn * d <= 0.0
        valid[sl] = (far_bound <= rounding(T)) & (curv < 0) & slope_ok
        invalid[sl] = (far_value > tol[sl]) | ~slope_ok
    return valid, invalid, worst


def _endpoint_laws(T: Target, mu: np.ndarray, nu: np.ndarray):
    """Per point, the better of the two endpoint laws: (dual, atoms, value)."""
    (A0, _, v0, Y0), (A1, _, v1, Y1) = (endpoint_law(T, mu, nu, end) for end in (0.0, 1.0))
    first = v0 >= v1
    return np.where(first[:, None], Y0, Y1), np.where(first[:, None], A0, A1), np.where(first, v0, v1)


def _faces(T: Target, faces: Faces, mu, nu, todo: np.ndarray, out: np.ndarray) -> int:
    """Values of the points in ``todo`` that a face found before serves; how many."""
    before = int(np.sum(todo))
    for atoms, _y, _v in faces.of(T, 3):
        rows = np.nonzero(todo)[0]
        if not len(rows):
            break
        w, serves = face_weights(atoms.tolist(), mu[rows], nu[rows])
        f = T(atoms)
        out[rows[serves]] = (w[0] * f[0] + w[1] * f[1] + w[2] * f[2])[serves]
        todo[rows[serves]] = False
    return before - int(np.sum(todo))


def _two_inner(T: Target, mu, nu, rows, x1, x2, out, todo, contacts) -> np.ndarray:
    """Two interior contacts from (x1, x2) for ``rows``: the certified rows leave ``todo``.

    Certified rows get their value in ``out`` and keep their contacts in ``contacts``
    as starts for their neighbours; returns them.
    """
    atoms, _w, value, dual, ok = bitangent_law(T, mu[rows], nu[rows], np.minimum(x1, x2), np.maximum(x1, x2))
    ok[ok] = _check(T, dual[ok], atoms[ok])[0]
    done = rows[ok]
    out[done], contacts[done] = value[ok], atoms[ok]
    todo[done] = False
    return done


def batch_upper(
    objective, mu: np.ndarray, nu: np.ndarray, sign: int, faces: Faces | None = None
) -> tuple[np.ndarray, dict]:
    """Sharp max of E[sign * g] for every (mu, nu); returns (values of f = sign*g, path counts).

    ``faces``: shared with the other calls of one computation; without it the batch keeps
    its own (the faces its pointwise solves find serve its later points).
    """
    T = target(objective, sign)
    faces = Faces() if faces is None else faces
    mu, nu = snap_two_moments(np.asarray(mu, dtype=float), np.asarray(nu, dtype=float))
    P = len(mu)
    out = np.full(P, np.nan)
    boundary = (mu <= 0) | (mu >= 1) | (nu <= mu * mu) | (nu >= mu)
    todo = ~boundary
    counts = {"face": _faces(T, faces, mu, nu, todo, out), "endpoint": 0, "bitangent": 0, "pointwise": 0}
    idx = np.nonzero(todo)[0]
    if len(idx):
        Y, atoms, value = _endpoint_laws(T, mu[idx], nu[idx])
        valid, worst = _check(T, Y, atoms)
        out[idx[valid]] = value[valid]
        todo[idx[valid]] = False
        counts["endpoint"] += int(np.sum(valid))
        # Two interior contacts: start from the endpoint law's interior atom and the
        # point where its quadratic fails worst (one exchange step).
        rest = ~valid
        if np.any(rest):
            r_idx = idx[rest]
            contacts = np.zeros((P, 2))
            inner = np.where(atoms[rest, 0] > 0.0, atoms[rest, 0], atoms[rest, 1])
            solved = _two_inner(T, mu, nu, r_idx, inner, worst[rest], out, todo, contacts)
            counts["bitangent"] += len(solved)
            # Continuation: rows whose start failed restart from the nearest solved row.
            left = r_idx[todo[r_idx]]
            if len(solved) and len(left):
                from scipy.spatial import cKDTree

                _, near = cKDTree(np.stack([mu[solved], nu[solved]], axis=1)).query(
                    np.stack([mu[left], nu[left]], axis=1)
                )
                start = contacts[solved[near]]
                counts["bitangent"] += len(_two_inner(T, mu, nu, left, start[:, 0], start[:, 1], out, todo, contacts))
    # On the boundary the law is unique (a point mass, or atoms at 0 and 1).
    point = boundary & ((nu <= mu * mu) | (mu <= 0) | (mu >= 1))
    out[point] = T(mu[point])
    ends = boundary & ~point
    out[ends] = (1.0 - mu[ends]) * float(T(0.0)) + mu[ends] * float(T(1.0))
    counts["boundary"] = int(np.sum(boundary))
    # Whatever is left (other contact patterns, inconclusive checks) is
    # certified point by point; new faces then serve the rest.
    for i in np.nonzero(todo)[0]:
        if not todo[i]:
            continue
        sol = solve_exact(objective, np.array([1.0, mu[i], nu[i]]), sign, faces)
        out[i] = float(np.dot(sol.weights, T(sol.atoms)))
        todo[i] = False
        counts["pointwise"] += 1
        found = faces.of(T, 3)
        if len(sol.atoms) == 3 and len(found) and found[0][0].tolist() == sorted(sol.atoms.tolist()):
            counts["face"] += _faces(T, faces, mu, nu, todo, out)  # a new face may cover many of the rest
    return out, counts
