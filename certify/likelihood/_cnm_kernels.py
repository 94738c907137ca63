"""The constrained Newton method's quadratic program over the simplex, compiled.

:func:`._cnm.cnm` re-weights the atoms of each iteration by minimizing the Newton model (L8)
over the simplex (an active-set method). Its matrices are tiny (one row and column per atom,
a few dozen at most), so in numpy nearly all of its time was call overhead: an SVD, an
eigendecomposition and a dozen small array operations per active-set iteration, about 70 of
them per NPMLE at K = 10 (half of an NPMLE's time, ``benchmarks/bench_cnm_qp.py``). Here the
iteration is compiled (numba, ``cache=True``) and is the only implementation of the step.

**Jacobi scaling.** The program is solved in the variables v_j = w_j sqrt(Q_jj), in which the
columns of A (Q = A'A) have unit norm. Where some cell is nearly impossible under the current
law, Q spans dozens of orders of magnitude (1e-145 to 1e30 at K = 1000); unscaled, the
eigenvalues of a face below 1e-12 times the largest (1e18 there) counted as flat, the
zero-curvature steps were not flat, and the method cycled between two faces until its
iteration limit (84 of the 326 programs of one V101 interval from 1000 calls of 50 examples,
49,714 iterations; scaled: none, 2,310 iterations, and a lower objective than the unscaled
method's in 276 of them, never a higher one). On 400 random programs whose columns span up to
40 orders of magnitude: no iteration limit reached (5 unscaled), a lower objective in 58, a
higher one in 2.
The faces' directions {d : c_F'd = 0} are spanned by the closed-form basis of
:func:`_face_basis`; the face's Newton step is the same in any basis (E = Z'QZ, its
pseudo-inverse on the range of E).

Everything here takes and returns arrays, floats and ints only; the tolerances come in as
arguments from :mod:`._tolerances` at the call site, so a function cached on disk never keeps
an old constant. The cache follows numba's rules (:mod:`._calibration_kernels` says where it
lives); this module is imported by :func:`._cnm._simplex_qp` when it first runs, so that the
commands that never fit a law do not load numba.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import compiled

__all__ = ["simplex_qp"]


@compiled
def _face_basis(c: np.ndarray) -> np.ndarray:
    """An f x (f - 1) basis of {d in R^f : c'd = 0} (c > 0): d_i = e_i - (c_i / c_p) e_p, i != p.

    p is the largest c, so every entry lies in [-1, 1] and the basis holds an identity block:
    well conditioned (singular values between 1 and sqrt(f)), and c'd = 0 to the rounding of one
    ratio however widely c is spread. (An orthonormal basis, a Householder reflection's columns,
    lost the constraint where c spanned 24 orders of magnitude: the weights summed to 2.6.)
    """
    f = c.shape[0]
    p = int(np.argmax(c))
    z = np.zeros((f, f - 1))
    k = 0
    for i in range(f):
        if i != p:
            z[i, k] = 1.0
            z[p, k] = -c[i] / c[p]
            k += 1
    return z


@compiled
def simplex_qp(
    qmat: np.ndarray,
    lin: np.ndarray,
    w0: np.ndarray,
    max_iter: int,
    null_rtol: float,
    multiplier_rtol: float,
    tiny: float,
) -> tuple[np.ndarray, int]:
    """min 1/2 w'Qw + lin'w over the simplex for a positive semidefinite Q (primal active set).

    The method of :func:`._cnm._simplex_qp`, which documents it, in the variables v = w / D
    with D_j = Q_jj^(-1/2) (Jacobi scaling): the columns of A in Q = A'A then have unit norm,
    the constraint is c'v = 1 with c = D, and a face's directions {c_F'd = 0} have the basis of
    :func:`_face_basis`. Returns (w, the active-set iterations spent); after ``max_iter``
    iterations the current feasible point is returned.
    """
    m = lin.shape[0]
    c = np.ones(m)
    for a in range(m):
        if qmat[a, a] > 0:
            c[a] = 1.0 / math.sqrt(qmat[a, a])
    qs = np.empty((m, m))
    for a in range(m):
        for b in range(m):
            qs[a, b] = c[a] * qmat[a, b] * c[b]
    ls = c * lin
    v = w0 / c
    free = v > 0
    spent = max_iter
    for it in range(max_iter):
        fidx = np.flatnonzero(free)
        f = fidx.shape[0]
        grad = qs @ v + ls
        gf = grad[fidx]
        vf = v[fidx]
        if f > 1:
            z = _face_basis(c[fidx])
            qff = np.empty((f, f))
            for a in range(f):
                for b in range(f):
                    qff[a, b] = qs[fidx[a], fidx[b]]
            mu, vec = np.linalg.eigh(z.T @ qff @ z)
            flat = mu <= null_rtol * max(mu[-1], tiny)
            rg = z.T @ gf
            vflat = np.ascontiguousarray(vec[:, flat])
            d = -(z @ (vflat @ (vflat.T @ rg)))
            if gf @ d < -null_rtol * np.abs(gf).max() * np.abs(d).sum():
                k, best = -1, math.inf
                for a in range(f):
                    if d[a] < 0:
                        r = vf[a] / -d[a]
                        if r < best:
                            k, best = a, r
                for a in range(f):
                    v[fidx[a]] = vf[a] + best * d[a]
                v[fidx[k]] = 0.0
                for a in range(m):
                    if v[a] < 0:
                        v[a] = 0.0
                free = v > 0
                continue
            coef = np.empty(f - 1)
            vg = vec.T @ rg
            for a in range(f - 1):
                coef[a] = 0.0 if flat[a] else -vg[a] / mu[a]
            target = vf + z @ (vec @ coef)
        else:
            target = vf.copy()
        if np.all(target >= 0):
            v = np.zeros(m)
            v[fidx] = target
            qv = qs @ v
            grad = qv + ls
            cf = c[fidx]
            gamma = (cf @ grad[fidx]) / (cf @ cf)  # on the face the gradient is gamma c
            j, low = -1, math.inf
            for a in range(m):
                if not free[a] and grad[a] - gamma * c[a] < low:
                    j, low = a, grad[a] - gamma * c[a]
            # rounding of each entry, not of the largest: Q spans dozens of orders of magnitude
            # when some cell probability is tiny
            if j < 0 or low >= -multiplier_rtol * (abs(ls[j]) + abs(qv[j]) + abs(gamma * c[j])):
                spent = it + 1
                break
            free[j] = True
        else:
            k, best = -1, math.inf
            for a in range(f):
                if target[a] < 0:
                    r = vf[a] / (vf[a] - target[a])
                    if r < best:
                        k, best = a, r
            for a in range(f):
                v[fidx[a]] = vf[a] + best * (target[a] - vf[a])
            v[fidx[k]] = 0.0
            for a in range(m):
                if v[a] < 0:
                    v[a] = 0.0
            free = v > 0
    w = c * v
    return w / w.sum(), spent  # back onto the simplex: c'v = 1 holds only to the rounding of c


@compiled
def grid_npmle(
    kernel: np.ndarray,
    n: np.ndarray,
    w0: np.ndarray,
    gap_tol: float,
    max_iter: int,
    qp_iter_per_atom: int,
    null_rtol: float,
    multiplier_rtol: float,
    tiny: float,
    scale_limit: float,
    armijo: float,
    min_step: float,
    zero_weight: float,
) -> tuple[np.ndarray, float]:
    """The NPMLE among laws on a grid of points, by the constrained Newton method (eq. (L8)).

    ``kernel``: B_c at the grid points (cells x points); ``n``: the cells' counts; ``w0``: a
    start on the grid that gives every cell a positive probability. CNM with g = 0 and
    lambda = 1 (:func:`._cnm.cnm`), on the grid instead of [0, 1]: each iteration adds the grid's
    local maxima of h = sum_c n_c B_c / p_c above N (ends included) to the support, re-weights by
    the quadratic program (L8) and an Armijo line search, and falls back on the vertex direction
    towards the grid's maximum of h where the program gives no descent. Stops when
    max h - N <= ``gap_tol`` on the grid (the gap of eq. (L5) among grid laws) or after
    ``max_iter`` iterations. Returns (weights on the grid, the last gap).
    """
    cells, points = kernel.shape
    w = w0.copy()
    total = n.sum()
    sqrt_n = np.sqrt(n)
    gap = math.inf
    for _ in range(max_iter):
        p = kernel @ w
        u = n / p
        h = u @ kernel
        top = int(np.argmax(h))
        gap = h[top] - total
        if gap <= gap_tol:
            break
        support = np.empty(points, dtype=np.int64)
        s = 0
        for j in range(points):
            left = h[j - 1] if j > 0 else -math.inf
            right = h[j + 1] if j + 1 < points else -math.inf
            if w[j] > 0 or (h[j] > total and h[j] >= left and h[j] >= right):
                support[s] = j
                s += 1
        support = support[:s]
        b = np.empty((cells, s))
        a = np.empty((cells, s))
        for c in range(cells):
            for k in range(s):
                b[c, k] = kernel[c, support[k]]
                a[c, k] = sqrt_n[c] / p[c] * b[c, k]
        hs = h[support]
        lin = -2.0 * hs  # the model (L8) of F = -l around the current weights, g = 0
        big = np.abs(a).max()
        if big > scale_limit:  # the same model divided by big^2: A'A cannot overflow
            a = a / big
            lin = lin / big / big
        ws = w[support]
        wq, _ = simplex_qp(a.T @ a, lin, ws, qp_iter_per_atom * (s + 1), null_rtol, multiplier_rtol, tiny)
        d = wq - ws
        slope = -(hs @ d)
        if not slope < 0:  # the vertex direction towards the maximum of h: slope -gap < 0
            d = -ws
            for k in range(s):
                if support[k] == top:
                    d[k] += 1.0
            slope = -(hs @ d)
        f0 = -(n @ np.log(p))
        step = 1.0
        moved = False
        while step > min_step:
            wn = ws + step * d
            pn = b @ wn
            if np.all(pn > 0):
                if -(n @ np.log(pn)) <= f0 + armijo * step * slope:
                    moved = True
                    break
            step *= 0.5
        if not moved:
            break
        mass = 0.0
        for k in range(s):
            v = wn[k] if abs(wn[k]) > zero_weight and wn[k] > 0 else 0.0
            w[support[k]] = v
            mass += v
        w /= mass
    return w, gap
