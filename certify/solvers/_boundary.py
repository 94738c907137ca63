"""Moment vectors on the boundary of the moment space: one law, explicit duals.

On the boundary of the moment space of [0, 1] (nu = mu^2 or nu = mu for two
moments; a singular Hankel matrix in general) exactly one law has the given
moments, so both sharp bounds equal its expectation. The dual is the Hermite
interpolant h of f at the law's atoms (values everywhere, slopes at interior
atoms) plus C * omega, where omega = prod (q - x_j)^2 over interior atoms times q
and/or (1 - q) for endpoint atoms is nonnegative on [0, 1] and vanishes exactly
there; C = sup (f - h) / omega makes p = h + C omega a majorant.
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import polynomial as npoly

from .._support import Support
from ._contact import Target, hermite
from ._tolerances import (
    BOUNDARY_RESIDUAL,
    BOUNDARY_TOL,
    BOUNDARY_WEIGHT_FLOOR,
    ENDPOINT_TOL,
    RATIO_FAR,
    RATIO_SLACK,
    RATIO_XATOL,
    ROOT_IMAG,
    ROOT_SAME,
    ROOT_SLACK,
)


def _hankels(theta: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The Hausdorff Hankel matrices of ``theta`` with their multiplier polynomials."""
    s = list(theta)
    m = len(s) - 1
    one, q, oneminus, qq = np.array([1.0]), np.array([0.0, 1.0]), np.array([1.0, -1.0]), np.array([0.0, 1.0, -1.0])
    if m % 2 == 0:
        k = m // 2
        return [
            (np.array([[s[i + j] for j in range(k + 1)] for i in range(k + 1)]), one),
            (np.array([[s[i + j + 1] - s[i + j + 2] for j in range(k)] for i in range(k)]), qq),
        ]
    k = (m - 1) // 2
    return [
        (np.array([[s[i + j + 1] for j in range(k + 1)] for i in range(k + 1)]), q),
        (np.array([[s[i + j] - s[i + j + 1] for j in range(k + 1)] for i in range(k + 1)]), oneminus),
    ]


def unique_law(theta: np.ndarray) -> Support | None:
    """The law of a boundary moment vector, or None for an interior one.

    A singular Hankel matrix has a null vector v; the support of every
    representing law lies among the roots of sum v_i q^i times the matrix's
    multiplier (q, 1 - q or q (1 - q)), so we solve for nonnegative weights there.
    """
    theta = np.asarray(theta, dtype=float)
    m1 = len(theta)
    for H, mult in _hankels(theta):
        if H.size == 0:
            continue
        lam, vec = np.linalg.eigh(H)
        if lam[0] > BOUNDARY_TOL * max(1.0, lam[-1]):
            continue
        v = vec[:, 0]
        roots = npoly.polyroots(npoly.polymul(v, mult))
        real_roots = [
            float(r.real)
            for r in np.atleast_1d(roots)
            if abs(r.imag) < ROOT_IMAG and -ROOT_SLACK <= r.real <= 1 + ROOT_SLACK
        ]
        pts = np.sort(np.clip(real_roots, 0.0, 1.0))
        # A root a rounding error inside an end is the end: left at 1 - 1e-16, say, it would
        # count as an interior atom and the dual would lose its (1 - q) factor.
        pts[pts <= ENDPOINT_TOL] = 0.0
        pts[pts >= 1.0 - ENDPOINT_TOL] = 1.0
        if len(pts) > 1:  # roots that coincide to rounding are one atom
            pts = pts[np.concatenate(([True], np.diff(pts) > ROOT_SAME))]
        if len(pts) == 0:
            continue
        A = np.vander(pts, m1, increasing=True).T
        from scipy import optimize  # on first use: scipy.optimize costs 0.1 s to import

        w, res = optimize.nnls(A, theta)
        if res <= BOUNDARY_RESIDUAL:
            keep = w > BOUNDARY_WEIGHT_FLOOR
            if np.count_nonzero(keep) == 1:
                # a point mass: all of m_0 at the mean m_1 / m_0, exactly (theta = (m_0, m_1, ...)).
                # The root of the null vector carries rounding: 0.5 came out as 0.5 + 2 ulp on an
                # AVX-512 machine, and V3 of that point mass as 0.5000000000000004
                return Support(np.array([float(theta[1] / theta[0])]), np.array([float(theta[0])]))
            return Support(pts[keep], w[keep])
    return None


def unique_law_dual(T: Target, atoms: np.ndarray, m1: int) -> np.ndarray:
    """A majorant p of f of degree < m1 touching f at ``atoms`` (see module doc)."""
    atoms = np.asarray(atoms, dtype=float)
    inner = atoms[(atoms > 0) & (atoms < 1)]
    h = hermite(T, atoms, len(atoms) + len(inner), square=True)  # the Hermite interpolant, of the lowest degree
    omega = np.array([1.0])
    for x in inner:
        omega = npoly.polymul(omega, npoly.polymul([-x, 1.0], [-x, 1.0]))
    if np.any(atoms == 0.0):
        omega = npoly.polymul(omega, [0.0, 1.0])
    if np.any(atoms == 1.0):
        omega = npoly.polymul(omega, [1.0, -1.0])
    if len(omega) > m1:
        return np.pad(h, (0, max(0, m1 - len(h))))[:m1]
    C = _sup_ratio(T, h, omega, atoms)
    p = npoly.polyadd(h, C * omega)
    return np.pad(p, (0, m1 - len(p)))


def _sup_ratio(T: Target, h: np.ndarray, omega: np.ndarray, atoms: np.ndarray) -> float:
    """sup over [0, 1] of (f - h) / omega, including its limits at the atoms."""
    g = T.grid
    far = np.min(np.abs(g[:, None] - atoms[None, :]), axis=1) > RATIO_FAR
    x = g[far]
    ratio = (T.values[far] - npoly.polyval(x, h)) / npoly.polyval(x, omega)
    best = float(np.max(ratio)) if len(ratio) else -np.inf
    if len(ratio):
        i = int(np.argmax(ratio))
        lo, hi = x[max(i - 1, 0)], x[min(i + 1, len(x) - 1)]

        def neg(z):
            return -(float(T(z)) - npoly.polyval(z, h)) / npoly.polyval(z, omega)

        if hi > lo:
            from scipy import optimize

            res = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded", options={"xatol": RATIO_XATOL})
            best = max(best, -float(res.fun))
    for a in atoms:
        # l'Hopital: f - h and omega vanish to the same order r at an atom.
        r = 2 if 0.0 < a < 1.0 else 1
        num = float(T(float(a), r)) - npoly.polyval(a, npoly.polyder(h, r))
        den = npoly.polyval(a, npoly.polyder(omega, r))
        if den != 0:
            best = max(best, num / den)
    best = max(best, 0.0) if len(omega) > 1 and np.all(omega == 0) else best
    return best + RATIO_SLACK * (1.0 + abs(best))
