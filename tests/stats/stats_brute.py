"""Brute-force reference for projected intervals (independent of certify.stats._region's search).

The region's boundary is split into its three natural pieces, each parametrized
directly -- the Wald ellipse by its own angle (theta-hat + A (cos t, sin t)), the
parabola nu = mu^2 and the line nu = mu by mu -- and filtered by membership
(quadratic form and the inequalities of F). Each piece is evaluated densely with
the public vectorized engine (sharp_bound_arrays / endpoint_bounds) and zoomed
around its best point. A coarse 2-d grid of the interior is evaluated too, so
an interior optimum (which convexity rules out) would show up as a mismatch.
"""

import numpy as np

from certify import endpoint_bounds, sharp_bound_arrays


def values(objective, mu, nu):
    mu = np.clip(mu, 0, 1)
    nu = np.clip(nu, mu * mu, mu)
    if objective == "inf":
        e = [endpoint_bounds(mu=m, nu=v) for m, v in zip(mu, nu)]
        return np.array([x.lower for x in e]), np.array([x.upper for x in e])
    b = sharp_bound_arrays(objective, mu=mu, nu=nu)
    return b.lower, b.upper


def _inside(region, mu, nu, tol=1e-12):
    d = np.stack([mu - region.theta_hat[0], nu - region.theta_hat[1]], 1)
    u = np.linalg.solve(region.shape, d.T).T
    return (np.sum(u * u, 1) <= 1 + tol) & (nu >= mu * mu - tol) & (nu <= mu + tol) & (mu >= 0) & (mu <= 1)


def _pieces(region):
    th, A = np.asarray(region.theta_hat), region.shape
    ell = lambda t: th + np.stack([np.cos(t), np.sin(t)], 1) @ A.T  # noqa: E731
    par = lambda s: np.stack([s, s * s], 1)  # noqa: E731
    lin = lambda s: np.stack([s, s], 1)  # noqa: E731
    return [(ell, 0.0, 2 * np.pi), (par, 0.0, 1.0), (lin, 0.0, 1.0)]


def brute_interval(region, objective, size=2001, zooms=5, interior=60):
    """(min L, max U) over the region: dense zoomed 1-d scans of its boundary pieces + a 2-d interior grid."""
    res = []
    for side in (0, 1):
        sgn = 1.0 if side == 0 else -1.0
        best = np.inf
        for curve, a, b in _pieces(region):
            lo, hi = a, b
            for _ in range(zooms + 1):
                t = np.linspace(lo, hi, size)
                p = curve(t)
                ok = _inside(region, p[:, 0], p[:, 1])
                if not np.any(ok):
                    break
                v = sgn * values(objective, p[ok, 0], p[ok, 1])[side]
                i = int(np.argmin(v))
                best = min(best, float(v[i]))
                h = (hi - lo) / (size - 1)
                lo, hi = t[ok][i] - 3 * h, t[ok][i] + 3 * h
        # interior grid (polar in the ellipse)
        r = np.linspace(0, 1, interior)[:, None]
        ang = np.linspace(0, 2 * np.pi, interior, endpoint=False)[None, :]
        p = np.asarray(region.theta_hat) + np.stack([(r * np.cos(ang)).ravel(), (r * np.sin(ang)).ravel()], 1) @ region.shape.T
        ok = _inside(region, p[:, 0], p[:, 1])
        if np.any(ok):
            best = min(best, float(np.min(sgn * values(objective, p[ok, 0], p[ok, 1])[side])))
        res.append(sgn * best)
    return tuple(res)
