"""Vectorized sharp-bound values for many two-moment points at once.

For grids of (mu, nu) -- identified-width maps, projections over confidence
regions -- the per-point solver's Python overhead dominates. Here every step
of the ``exact`` method that has a closed form runs on whole arrays:

1. faces already found for the objective (rigid three-contact certificates):
   a point is covered when its weights on the face's atoms are nonnegative;
2. the two-atom candidates with one endpoint atom (the three-vote extremizers),
   whose dual quadratic is explicit, checked on the grid with a margin that
   covers excursions between grid points;
3. two interior contacts, by Newton's method on the KKT system run on all
   remaining points at once, started from the failed candidate's interior atom
   and its most violated grid point.

Points that no vectorized step certifies (pattern changes, inconclusive checks)
go to the per-point solver, so every returned value is certified the same way.
"""

from __future__ import annotations

import numpy as np

from .._moments import snap_two_moments
from ._contact import Target, max_violation, rounding, target
from ._exact import solve_exact
from ._two_moments import endpoint_pattern, tangent_quadratic

#: Rows per block of the (points x grid) residual matrix.
BLOCK = 4096


def _check(T: Target, Y: np.ndarray, contacts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classify quadratics p = Y[:, 0] + Y[:, 1] q + Y[:, 2] q^2 as majorants of f.

    ``contacts`` (rows x k, NaN for none) are where p touches f: tangency at
    interior points, value at 0 or 1. Every grid cell away from the contacts
    must stay below 0 by its own bound (the larger end value of r = f - p plus
    h^2/8 times twice the larger sampled |r''|, as in
    :func:`~._contact.max_violation`); next to an interior contact r'' < 0 is
    required, next to an endpoint contact r must leave 0 downhill.
    Returns (valid, invalid); rows that are neither are inconclusive.
    """
    valid, invalid = _check_on(T, Y, contacts, T.grid, T.values, T.second, T.cell_band2)
    unsure = ~valid & ~invalid
    if np.any(unsure):
        # A finer grid shrinks the cell bounds 64-fold for the inconclusive rows.
        X, F, F2, band2 = _fine_grid(T)
        v2, i2 = _check_on(T, Y[unsure], contacts[unsure], X, F, F2, band2)
        valid[unsure], invalid[unsure] = v2, i2
    return valid, invalid


def _fine_grid(T: Target):
    if T.fine is None:
        X = np.linspace(0.0, 1.0, 8 * len(T.grid) + 1)
        T.fine = (X, T(X), T(X, 2), 0.25 * np.diff(X) ** 2)
    return T.fine


def _check_on(T: Target, Y, contacts, X, F, F2, band2):
    tol = 1e-12 * (T.scale + np.sum(np.abs(Y), axis=1))
    slack = rounding(T)
    reach = 2.0 * float(np.max(np.diff(X)))  # two of the widest cells
    valid = np.zeros(len(Y), bool)
    invalid = np.zeros(len(Y), bool)
    C = np.nan_to_num(contacts, nan=-9.0)
    for s in range(0, len(Y), BLOCK):
        sl = slice(s, s + BLOCK)
        y, c = Y[sl], C[sl]
        R = F[None, :] - (y[:, :1] + y[:, 1:2] * X[None, :] + y[:, 2:3] * X[None, :] ** 2)
        A = np.abs(F2[None, :] - 2.0 * y[:, 2:3])
        cells = np.maximum(R[:, :-1], R[:, 1:]) + band2[None, :] * np.maximum(A[:, :-1], A[:, 1:])
        dist = np.abs(X[None, :, None] - c[:, None, :])
        near = np.any(dist <= reach, axis=2)
        near_inner = np.any((dist <= reach) & (c[:, None, :] > 0) & (c[:, None, :] < 1), axis=2)
        near_cells = near[:, :-1] | near[:, 1:]
        far_bound = np.max(np.where(near_cells, -np.inf, cells), axis=1)
        far_value = np.max(np.where(near, -np.inf, R), axis=1)
        curv = np.max(np.where(near_inner, F2[None, :] - 2.0 * y[:, 2:3], -np.inf), axis=1)
        slope_ok = np.ones(len(y), bool)
        for end, sgn in ((0.0, 1.0), (1.0, -1.0)):
            rows = np.any(c == end, axis=1)
            if np.any(rows):
                d = T.first_at(end) - (y[rows, 1] + 2.0 * y[rows, 2] * end)
                slope_ok[rows] = sgn * d <= 0.0
        valid[sl] = (far_bound <= slack) & (curv < 0) & slope_ok
        invalid[sl] = (far_value > tol[sl]) | ~slope_ok
    return valid, invalid


def _worst_points(T: Target, Y: np.ndarray) -> np.ndarray:
    """Grid point of largest f - p for each row (where a missing contact lies)."""
    X = T.grid
    out = np.empty(len(Y))
    for s in range(0, len(Y), BLOCK):
        y = Y[s : s + BLOCK]
        R = T.values[None, :] - (y[:, :1] + y[:, 1:2] * X[None, :] + y[:, 2:3] * X[None, :] ** 2)
        out[s : s + BLOCK] = X[np.argmax(R, axis=1)]
    return out


def _newton_two_inner(T: Target, theta: np.ndarray, x: np.ndarray, Y: np.ndarray, iters: int = 30):
    """Vectorized Newton for laws on two interior contacts x1 < x2 (m = 2).

    Unknowns per row: y0, y1, y2, w1, w2, x1, x2; equations: the three moment
    equations, p = f and p' = f' at both atoms. Returns (x, w, Y, ok).
    """
    P = len(x)
    x = np.sort(x, axis=1)
    w2 = (theta[:, 1] - x[:, 0]) / (x[:, 1] - x[:, 0])
    w = np.stack([1.0 - w2, w2], axis=1)
    Y = Y.copy()
    ok = np.ones(P, bool)
    active = np.ones(P, bool)
    for _ in range(iters):
        a = np.nonzero(active)[0]
        if not len(a):
            break
        xa, wa, ya, th = x[a], w[a], Y[a], theta[a]
        f0, f1, f2 = T(xa), T(xa, 1), T(xa, 2)
        p0 = ya[:, :1] + ya[:, 1:2] * xa + ya[:, 2:3] * xa**2
        p1 = ya[:, 1:2] + 2.0 * ya[:, 2:3] * xa
        p2 = 2.0 * ya[:, 2:3]
        pw = np.stack([np.ones_like(xa), xa, xa**2], axis=1)  # (n, 3, 2)
        R = np.concatenate([np.einsum("nkj,nj->nk", pw, wa) - th, p0 - f0, p1 - f1], axis=1)
        J = np.zeros((len(a), 7, 7))
        J[:, 0:3, 3:5] = pw
        J[:, 0:3, 5:7] = np.stack([np.zeros_like(xa), wa, 2.0 * wa * xa], axis=1)
        J[:, 3:5, 0:3] = np.transpose(pw, (0, 2, 1))
        J[:, 5:7, 0:3] = np.stack([np.zeros_like(xa), np.ones_like(xa), 2.0 * xa], axis=2)
        J[:, 3, 5], J[:, 4, 6] = (p1 - f1)[:, 0], (p1 - f1)[:, 1]
        J[:, 5, 5], J[:, 6, 6] = (p2 - f2)[:, 0], (p2 - f2)[:, 1]
        try:
            dz = np.linalg.solve(J, -R[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            dz = np.stack([np.linalg.lstsq(Jr, -Rr, rcond=None)[0] for Jr, Rr in zip(J, R)])
        Y[a] += dz[:, 0:3]
        w[a] += dz[:, 3:5]
        x[a] += dz[:, 5:7]
        bad = ~np.all(np.isfinite(dz), axis=1) | np.any((x[a] <= 0) | (x[a] >= 1), axis=1)
        ok[a[bad]] = False
        done = np.max(np.abs(dz), axis=1) <= 1e-9 * (1.0 + np.max(np.abs(Y[a]), axis=1))
        active[a[bad | done]] = False
    ok &= ~active & np.all(w >= -1e-13, axis=1)
    # moment residual after the last step
    res = np.abs(np.einsum("nkj,nj->nk", np.stack([np.ones_like(x), x, x**2], axis=1), w) - theta)
    ok &= np.max(res, axis=1) <= 1e-13
    return x, w, Y, ok


def _candidates(T: Target, mu: np.ndarray, nu: np.ndarray):
    """Per point, the better of the two endpoint candidates: (dual, inner atom, end, value)."""
    rows = []
    for end in (0.0, 1.0):
        x, w = endpoint_pattern(mu, nu, end)
        f_end = float(T(end))
        fx = T(x)
        Y = np.stack(np.broadcast_arrays(*tangent_quadratic(end, f_end, x, fx, T(x, 1))), axis=1)
        rows.append((Y, x, (1.0 - w) * f_end + w * fx))
    (Ya, xa, va), (Yb, xb, vb) = rows
    use_a = va >= vb
    return np.where(use_a[:, None], Ya, Yb), np.where(use_a, xa, xb), np.where(use_a, 0.0, 1.0), np.where(use_a, va, vb)


def _faces(T: Target, theta: np.ndarray, todo: np.ndarray, out: np.ndarray) -> None:
    for atoms, _y, _v in T.faces.get(3, ()):
        if not np.any(todo):
            return
        try:
            W = np.linalg.solve(np.vander(atoms, 3, increasing=True).T, theta[todo].T).T
        except np.linalg.LinAlgError:  # pragma: no cover - faces are kept well separated
            continue
        hit = np.all(W >= -1e-15, axis=1)
        rows = np.nonzero(todo)[0][hit]
        out[rows] = np.maximum(W[hit], 0.0) @ T(atoms)
        todo[rows] = False


def _two_inner_round(T: Target, theta, rows, start, Y0, out, todo, xs, ys) -> np.ndarray:
    """One vectorized Newton round for two interior contacts.

    Certified rows get their value in ``out``, leave ``todo``, and keep their
    contacts and dual in ``xs`` / ``ys`` as starts for their neighbours.
    """
    x2, w2, Y2, ok = _newton_two_inner(T, theta[rows], start, Y0)
    if not np.any(ok):
        return np.zeros(0, int)
    x2, w2, Y2 = x2[ok], w2[ok], Y2[ok]
    good, bad = _check(T, Y2, x2)
    for j in np.nonzero(~good & ~bad)[0]:  # a per-row Newton-refined check settles the rest
        viol, _ = max_violation(T, Y2[j], contacts=x2[j])
        good[j] = viol <= 1e-12 * (T.scale + np.sum(np.abs(Y2[j])))
    done = rows[ok][good]
    out[done] = np.einsum("nj,nj->n", w2[good], T(x2[good]))
    todo[done] = False
    xs[done], ys[done] = x2[good], Y2[good]
    return done


def batch_upper(objective, mu: np.ndarray, nu: np.ndarray, sign: int) -> tuple[np.ndarray, dict]:
    """Sharp max of E[sign * g] for every (mu, nu); returns (values of f = sign*g, path counts)."""
    T = target(objective, sign)
    mu, nu = snap_two_moments(np.asarray(mu, dtype=float), np.asarray(nu, dtype=float))
    P = len(mu)
    out = np.full(P, np.nan)
    theta = np.stack([np.ones(P), mu, nu], axis=1)
    boundary = (mu <= 0) | (mu >= 1) | (nu <= mu * mu) | (nu >= mu)
    todo = ~boundary
    counts = {"face": 0, "candidate": 0, "two_inner": 0, "pointwise": 0}
    n0 = int(np.sum(todo))
    _faces(T, theta, todo, out)
    counts["face"] += n0 - int(np.sum(todo))
    idx = np.nonzero(todo)[0]
    if len(idx):
        Y, inner, end, value = _candidates(T, mu[idx], nu[idx])
        valid, _invalid = _check(T, Y, np.stack([inner, end], axis=1))
        out[idx[valid]] = value[valid]
        todo[idx[valid]] = False
        counts["candidate"] += int(np.sum(valid))
        # Two interior contacts: start from the candidate's interior atom and the
        # point where its quadratic fails worst (one exchange step), then Newton.
        rest = ~valid
        if np.any(rest):
            r_idx = idx[rest]
            start = np.stack([inner[rest], _worst_points(T, Y[rest])], axis=1)
            xs, ys = np.zeros((P, 2)), np.zeros((P, 3))
            solved = _two_inner_round(T, theta, r_idx, start, Y[rest], out, todo, xs, ys)
            counts["two_inner"] += len(solved)
            # Continuation: rows whose start failed restart from the nearest solved row.
            left = r_idx[todo[r_idx]]
            if len(solved) and len(left):
                from scipy.spatial import cKDTree

                src = solved
                _, near = cKDTree(theta[src, 1:]).query(theta[left, 1:])
                more = _two_inner_round(T, theta, left, xs[src[near]], ys[src[near]], out, todo, xs, ys)
                counts["two_inner"] += len(more)
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
        sol = solve_exact(objective, theta[i], sign)
        out[i] = float(np.dot(sol.weights, T(sol.atoms)))
        todo[i] = False
        counts["pointwise"] += 1
        faces = T.faces.get(3, ())
        if len(sol.atoms) == 3 and len(faces) and faces[0][0].tolist() == sorted(sol.atoms.tolist()):
            before = int(np.sum(todo))
            _faces(T, theta, todo, out)  # a new face may cover many of the rest
            counts["face"] += before - int(np.sum(todo))
    return out, counts
