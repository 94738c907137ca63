"""The constrained Newton method compiled: its quadratic program over the simplex, and CNM on a grid.

:func:`._cnm.cnm` re-weights the atoms of each iteration by minimizing the Newton model (L8)
over the simplex (an active-set method). Its matrices are tiny (one row and column per atom,
a few dozen at most), so in numpy nearly all of its time was call overhead: an SVD, an
eigendecomposition and a dozen small array operations per active-set iteration, about 70 of
them per NPMLE at K = 10 (half of an NPMLE's time). Here the iteration is compiled (numba,
``cache=True``) and is the only implementation of the step (:func:`simplex_qp`), as is CNM
among laws on a grid (:func:`grid_lagrangian`), which fits the NPMLE's start
(:func:`._npmle.grid_start`) and, inside the search for the multiplier of :func:`grid_end`,
the ends' starts (:mod:`._end_starts`). ``benchmarks/bench_npmle.py`` and
``benchmarks/bench_cold_end.py`` measure them.

All are written in loops but for the eigendecomposition: numba compiles array expressions,
boolean masks and fancy indexing slowly (11.3 s with an empty cache as arrays, 6.2 s as loops),
and on matrices this small loops run as fast.

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
lives); this module is imported by :func:`._cnm._simplex_qp`, :func:`._npmle.grid_start` and
:func:`._end_starts.end_start` when they first run, so that the commands that never fit a law do not load numba.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import compiled

__all__ = ["grid_end", "grid_lagrangian", "simplex_qp"]


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
def _quadratic_form(z: np.ndarray, q: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Z' Q[idx, idx] Z (loops: the matrices are a few dozen wide, and loops compile fast)."""
    f, r = z.shape
    qz = np.zeros((f, r))
    for a in range(f):
        for k in range(r):
            acc = 0.0
            for b in range(f):
                acc += q[idx[a], idx[b]] * z[b, k]
            qz[a, k] = acc
    e = np.zeros((r, r))
    for k in range(r):
        for m in range(r):
            acc = 0.0
            for a in range(f):
                acc += z[a, k] * qz[a, m]
            e[k, m] = acc
    return e


@compiled
def _gradient(q: np.ndarray, v: np.ndarray, lin: np.ndarray) -> np.ndarray:
    """Q v + lin."""
    m = lin.shape[0]
    g = np.empty(m)
    for a in range(m):
        acc = lin[a]
        for b in range(m):
            acc += q[a, b] * v[b]
        g[a] = acc
    return g


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
    iterations the current feasible point is returned. Written in loops but for the
    eigendecomposition: the arrays are small, and numba compiles loops far faster than
    array expressions (seconds of the first call with an empty cache).
    """
    m = lin.shape[0]
    c = np.ones(m)
    for a in range(m):
        if qmat[a, a] > 0:
            c[a] = 1.0 / math.sqrt(qmat[a, a])
    qs = np.empty((m, m))
    ls = np.empty(m)
    v = np.empty(m)
    for a in range(m):
        ls[a] = c[a] * lin[a]
        v[a] = w0[a] / c[a]
        for b in range(m):
            qs[a, b] = c[a] * qmat[a, b] * c[b]
    fidx = np.empty(m, dtype=np.int64)
    isfree = np.empty(m, dtype=np.bool_)
    for a in range(m):
        isfree[a] = v[a] > 0
    spent = max_iter
    for it in range(max_iter):
        f = 0
        for a in range(m):
            if isfree[a]:
                fidx[f] = a
                f += 1
        free = fidx[:f]
        grad = _gradient(qs, v, ls)
        target = np.empty(f)
        if f > 1:
            cf = np.empty(f)
            for a in range(f):
                cf[a] = c[free[a]]
            z = _face_basis(cf)
            mu, vec = np.linalg.eigh(_quadratic_form(z, qs, free))
            r = f - 1
            top = max(mu[r - 1], tiny)
            # the face gradient in the basis, rg = Z' g_F, and in the eigenvectors, vg = V' rg
            rg = np.zeros(r)
            for k in range(r):
                for a in range(f):
                    rg[k] += z[a, k] * grad[free[a]]
            vg = np.zeros(r)
            for k in range(r):
                for j in range(r):
                    vg[k] += vec[j, k] * rg[j]
            # a descent direction of zero curvature: d = -Z V_flat V_flat' Z' g_F
            y = np.zeros(r)
            for k in range(r):
                if mu[k] <= null_rtol * top:
                    for j in range(r):
                        y[j] -= vec[j, k] * vg[k]
            d = np.zeros(f)
            for a in range(f):
                for j in range(r):
                    d[a] += z[a, j] * y[j]
            slope, gmax, dsum = 0.0, 0.0, 0.0
            for a in range(f):
                slope += grad[free[a]] * d[a]
                gmax = max(gmax, abs(grad[free[a]]))
                dsum += abs(d[a])
            if slope < -null_rtol * gmax * dsum:
                k, best = -1, math.inf
                for a in range(f):
                    if d[a] < 0 and v[free[a]] / -d[a] < best:
                        k, best = a, v[free[a]] / -d[a]
                for a in range(f):
                    v[free[a]] = max(v[free[a]] + best * d[a], 0.0)
                v[free[k]] = 0.0
                for a in range(m):
                    isfree[a] = v[a] > 0
                continue
            # the Newton step of the face with the pseudo-inverse of Z'Q_FF Z
            y[:] = 0.0
            for k in range(r):
                if mu[k] > null_rtol * top:
                    for j in range(r):
                        y[j] -= vec[j, k] * vg[k] / mu[k]
            for a in range(f):
                target[a] = v[free[a]]
                for j in range(r):
                    target[a] += z[a, j] * y[j]
        else:
            for a in range(f):
                target[a] = v[free[a]]
        inside = True
        for a in range(f):
            if target[a] < 0:
                inside = False
        if inside:
            v[:] = 0.0
            for a in range(f):
                v[free[a]] = target[a]
            grad = _gradient(qs, v, ls)
            num, den = 0.0, 0.0
            for a in range(f):
                num += c[free[a]] * grad[free[a]]
                den += c[free[a]] * c[free[a]]
            gamma = num / den  # on the face the gradient is gamma c
            j, low = -1, math.inf
            for a in range(m):
                if not isfree[a] and grad[a] - gamma * c[a] < low:
                    j, low = a, grad[a] - gamma * c[a]
            # rounding of each entry, not of the largest: Q spans dozens of orders of magnitude
            # when some cell probability is tiny
            if j < 0 or low >= -multiplier_rtol * (abs(ls[j]) + abs(grad[j] - ls[j]) + abs(gamma * c[j])):
                spent = it + 1
                break
            isfree[j] = True  # on the face with weight 0 until the next step moves it
        else:
            k, best = -1, math.inf
            for a in range(f):
                if target[a] < 0:
                    ratio = v[free[a]] / (v[free[a]] - target[a])
                    if ratio < best:
                        k, best = a, ratio
            for a in range(f):
                v[free[a]] = max(v[free[a]] + best * (target[a] - v[free[a]]), 0.0)
            v[free[k]] = 0.0
            for a in range(m):
                isfree[a] = v[a] > 0
    w = c * v
    return w / w.sum(), spent  # back onto the simplex: c'v = 1 holds only to the rounding of c


@compiled
def grid_lagrangian(
    kernel: np.ndarray,
    n: np.ndarray,
    cost: np.ndarray,
    w0: np.ndarray,
    gap_tol: float,
    max_iter: int,
    steps: tuple,
) -> tuple[np.ndarray, float]:
    """min over laws w on a grid of cost'w - l(w), by the constrained Newton method (eq. (L8)).

    ``kernel``: B_c at the grid points (cells x points); ``n``: the cells' counts; ``cost``: a
    linear term at the grid points, g / lambda for the Lagrangian F_lambda / lambda of one end
    (eq. (L7)) and 0 for the NPMLE; ``w0``: a start on the grid that gives every cell a positive
    probability; ``steps``: the settings of each CNM step (:func:`._end_starts.grid_steps`: the
    quadratic program's iterations per atom and tolerances, the overflow guard, the line search's
    Armijo constant and shortest step, the weight counted as zero).

    CNM (:func:`._cnm.cnm`) on the grid instead of [0, 1]: with the drive d = h - cost
    (h = sum_c n_c B_c / p_c, the negative gradient), each iteration adds the grid's local maxima
    of d above its mean under w (ends included) to the support, re-weights by the quadratic
    program (L8) and an Armijo line search, and falls back on the vertex direction towards the
    grid's maximum of d where the program gives no descent. Stops when max d - E_w d <=
    ``gap_tol`` (the duality gap among grid laws; max h - N for the NPMLE) or after ``max_iter``
    iterations. Returns (weights on the grid, the last gap).
    """
    qp_iter_per_atom, null_rtol, multiplier_rtol, tiny, scale_limit, armijo, min_step, zero_weight = steps
    cells, points = kernel.shape
    w = w0.copy()
    p = np.empty(cells)
    u = np.empty(cells)
    drive = np.empty(points)
    support = np.empty(points, dtype=np.int64)
    gap = math.inf
    for _ in range(max_iter):
        # cell probabilities p = B w, u = n / p, the drive h - cost and the objective at w
        f0 = 0.0
        for c in range(cells):
            acc = 0.0
            for j in range(points):
                acc += kernel[c, j] * w[j]
            p[c] = acc
            u[c] = n[c] / acc
            f0 -= n[c] * math.log(acc)
        top = 0
        mean = 0.0
        for j in range(points):
            acc = -cost[j]
            for c in range(cells):
                acc += u[c] * kernel[c, j]
            drive[j] = acc
            mean += w[j] * acc
            f0 += cost[j] * w[j]
            if acc > drive[top]:
                top = j
        gap = drive[top] - mean
        if gap <= gap_tol:
            break
        s = 0
        for j in range(points):
            left = drive[j - 1] if j > 0 else -math.inf
            right = drive[j + 1] if j + 1 < points else -math.inf
            if w[j] > 0 or (drive[j] > mean and drive[j] >= left and drive[j] >= right):
                support[s] = j
                s += 1
        # the model (L8) of cost'w - l around the current weights: A_ck = sqrt(n_c) B_ck / p_c,
        # and Q w = h at the current weights, so the linear term is cost - 2 h
        a = np.empty((cells, s))
        big = 0.0
        for c in range(cells):
            for k in range(s):
                a[c, k] = math.sqrt(n[c]) / p[c] * kernel[c, support[k]]
                big = max(big, abs(a[c, k]))
        shrink = big if big > scale_limit else 1.0  # the same model divided by big^2: A'A cannot overflow
        qmat = np.empty((s, s))
        for k in range(s):
            for m in range(k, s):
                acc = 0.0
                for c in range(cells):
                    acc += (a[c, k] / shrink) * (a[c, m] / shrink)
                qmat[k, m] = acc
                qmat[m, k] = acc
        lin = np.empty(s)
        ws = np.empty(s)
        for k in range(s):
            j = support[k]
            lin[k] = (cost[j] - 2.0 * (drive[j] + cost[j])) / shrink / shrink
            ws[k] = w[j]
        wq, _ = simplex_qp(qmat, lin, ws, qp_iter_per_atom * (s + 1), null_rtol, multiplier_rtol, tiny)
        d = wq - ws
        slope = 0.0
        for k in range(s):
            slope -= drive[support[k]] * d[k]
        if not slope < 0:  # the vertex direction towards the maximum of the drive: slope -gap < 0
            slope = 0.0
            for k in range(s):
                d[k] = (1.0 if support[k] == top else 0.0) - ws[k]
                slope -= drive[support[k]] * d[k]
        step = 1.0
        moved = False
        wn = np.empty(s)
        while step > min_step:
            for k in range(s):
                wn[k] = ws[k] + step * d[k]
            fn = 0.0
            for k in range(s):
                fn += cost[support[k]] * wn[k]
            for c in range(cells):
                acc = 0.0
                for k in range(s):
                    acc += kernel[c, support[k]] * wn[k]
                if not acc > 0:
                    fn = math.inf
                    break
                fn -= n[c] * math.log(acc)
            if fn <= f0 + armijo * step * slope:
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
        for j in range(points):
            w[j] /= mass
    return w, gap


@compiled
def _loglik(kernel: np.ndarray, n: np.ndarray, w: np.ndarray) -> float:
    """l(w) = sum_c n_c log p_c(w) of a law on the grid (-inf where an observed cell is impossible)."""
    cells, points = kernel.shape
    out = 0.0
    for c in range(cells):
        acc = 0.0
        for j in range(points):
            acc += kernel[c, j] * w[j]
        if not acc > 0:
            return -math.inf
        out += n[c] * math.log(acc)
    return out


@compiled
def grid_end(
    kernel: np.ndarray,
    n: np.ndarray,
    g: np.ndarray,
    level: float,
    w0: np.ndarray,
    lam0: float,
    level_tol: float,
    max_solves: int,
    bracket_step: float,
    gap_rtol: float,
    max_iter: int,
    steps: tuple,
) -> tuple[np.ndarray, float, bool]:
    """One end (L7) among laws on a grid: min g'w subject to l(w) >= ``level``.

    l(w_lambda) of the Lagrangian's minimizer w_lambda (:func:`grid_lagrangian` with cost
    g / lambda) increases with lambda (:mod:`._ends`), so lambda with l(w_lambda) = level is
    bracketed from ``lam0`` by steps of ``bracket_step`` in log lambda and found by regula falsi
    (Illinois) on log lambda, each solve started from the last one's weights, until
    |l - level| <= ``level_tol`` or ``max_solves`` solves. Each solve's duality gap is at most
    ``gap_rtol`` times N, in at most ``max_iter`` CNM iterations of ``steps`` (those of
    :func:`grid_lagrangian`). Returns (weights, lambda, whether the level was reached to
    ``level_tol``); ``w0`` must give every observed cell a positive probability.
    """
    total = 0.0
    for c in range(n.shape[0]):
        total += n[c]
    cost = np.empty(g.shape[0])
    gap_tol = gap_rtol * total
    t = math.log(lam0)
    w, f = _lagrangian_at(kernel, n, g, level, t, w0, cost, gap_tol, max_iter, steps)
    solves = 1
    if abs(f) <= level_tol:
        return w, math.exp(t), True
    # the bracket [t_lo, t_hi] with f(t_lo) < 0 <= f(t_hi)
    t_lo, f_lo, t_hi, f_hi = t, f, t, f
    w_lo, w_hi = w, w
    up = f < 0
    while (f < 0) == up:
        if solves >= max_solves:
            return w, math.exp(t), False
        t += bracket_step if up else -bracket_step
        w, f = _lagrangian_at(kernel, n, g, level, t, w, cost, gap_tol, max_iter, steps)
        solves += 1
        if f < 0:
            t_lo, f_lo, w_lo = t, f, w
        else:
            t_hi, f_hi, w_hi = t, f, w
    if abs(f) <= level_tol:
        return w, math.exp(t), True
    side = 0  # which end the last step replaced: -1 the lower, +1 the upper
    while solves < max_solves:
        t = (t_lo * f_hi - t_hi * f_lo) / (f_hi - f_lo)
        w, f = _lagrangian_at(kernel, n, g, level, t, w_lo if side < 0 else w_hi, cost, gap_tol, max_iter, steps)
        solves += 1
        if abs(f) <= level_tol:
            return w, math.exp(t), True
        if f < 0:
            t_lo, f_lo, w_lo = t, f, w
            if side < 0:
                f_hi *= 0.5  # Illinois: an end kept twice in a row counts half
            side = -1
        else:
            t_hi, f_hi, w_hi = t, f, w
            if side > 0:
                f_lo *= 0.5
            side = 1
    return w_hi, math.exp(t_hi), False


@compiled
def _lagrangian_at(kernel, n, g, level, t, w, cost, gap_tol, max_iter, steps):
    """The grid Lagrangian's minimizer at lambda = e^t from ``w``, and l(w_lambda) - level."""
    lam = math.exp(t)
    for j in range(g.shape[0]):
        cost[j] = g[j] / lam
    wt, _ = grid_lagrangian(kernel, n, cost, w, gap_tol, max_iter, steps)
    return wt, _loglik(kernel, n, wt) - level
