"""The problem of one set of cells: the binomial kernel (eq. (L2)) and the global screen of psi.

Everything here depends on the cells alone (and, for the screen, on the target and the
current law): the kernel tables are built once per problem and shared by every solve of a
batch.

**Kernel (L2).** B_c(q) = Bin(S_c; K_c, q) = C(K_c, S_c) q^S_c (1-q)^(K_c - S_c), with

    B_c'(q)  = K [b_{K-1}(S-1) - b_{K-1}(S)],
    B_c''(q) = K (K-1) [b_{K-2}(S-2) - 2 b_{K-2}(S-1) + b_{K-2}(S)],

b_k(s) = Bin(s; k, q): six stacked binomial tables, evaluated by one exp of logarithms (or by
direct products on the cached screening grids). p_c(pi) = E_pi[B_c(Q)] and
l(pi) = sum_c n_c log p_c(pi).

**Screen.** Every solver of the package needs the global minimum over [0, 1] of

    psi(q) = g(q) - lambda h(q),      h(q) = sum_c n_c B_c(q) / p_c(pi)                    (eq. (L4))

on each closed piece of the target (eq. (L12)): the NPMLE's optimality condition (L5) is
max D = max (h - N) <= 0, i.e. the screen of psi for g = 0, lambda = 1; the Lagrangian
condition of an end (L7) is psi >= a. psi is a polynomial of degree max(deg g, K_max) on each
piece; its minimum is found by the core screen (:mod:`certify._screen`, likelihood grid policy):
a fine grid (endpoints included) and safeguarded Newton on psi' from every grid local minimum
that can be the lowest.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._errors import InputError
from .._objective import V_INF
from .._screen import LIKELIHOOD, POLICIES, grid, grid_minima, grid_points, polish
from ..certificates import MAX_CALLS as CHECKER_MAX_CALLS
from ._cells import CellCounts
from ._targets import _Law, _Piece, _Target
from ._tolerances import (
    DIRECT_PMF_MAX_CALLS,
    MAX_CANDIDATES,
    POLISH_MARGIN,
    POLISH_ROUNDING,
    SAME_MINIMUM_DECIMALS,
    TINY,
)

#: Work limit: calls per example (K) of any likelihood computation, the certificate checker's
#: (:data:`certify.certificates.MAX_CALLS`, defined there once), so every interval within it can
#: be certified. The kernel tables, the screening grids (LIKELIHOOD_CELLS_PER_DEGREE points per
#: degree K) and the small-count calibration's draws (DRAWS x (K + 1) counts) grow with K;
#: measured with 5 examples, one interval of V3 took 3 s at K = 2000 and 87 s at K = 10,000, and
#: at K = 200,000 the draws alone would need 3 GB.
MAX_CALLS = CHECKER_MAX_CALLS
#: Work limit of the V_inf interval, lower: its ends are the steepest of all objectives (a jump
#: at 1/2 that every example's binomial kernel resolves more sharply as K grows), and beyond
#: about 256 calls Newton's method failed there and the fallback ran for minutes (measured: V_inf
#: at K = 300, N = 100 did not finish in 90 s; K = 256 took under 4 s per end for N = 20 to 1000).
STEP_MAX_CALLS = 200
#: A k whose C(k, s) is wanted at more values of s than this is built by the recurrence.
RECURRENCE_MIN_COUNTS = 16

#: (dk, ds) of the binomial tables b_{K-dk}(S-ds) behind B, B' and B''.
_SHIFTS = ((0, 0), (1, 1), (1, 0), (2, 2), (2, 1), (2, 0))


class _Screen:
    """Polished local minima of psi over all pieces."""

    __slots__ = ("q", "piece", "psi")

    def __init__(self, q, piece, psi):
        self.q, self.piece, self.psi = q, piece, psi

    def argmin(self) -> int:
        return int(np.argmin(self.psi))


def admit(cells: CellCounts, objectives) -> None:
    """Refuse, before any solve, work beyond the limits: V_inf on more than STEP_MAX_CALLS calls
    per example (MAX_CALLS is checked by every :class:`_Problem`)."""
    kmax = int(cells.calls.max())
    if kmax > STEP_MAX_CALLS and any(obj is V_INF for obj in objectives):
        raise InputError(
            f"K={kmax} calls of one example exceeds the work limit of {STEP_MAX_CALLS} calls per example "
            f"of the V_inf interval; use the first {STEP_MAX_CALLS} calls of each example (certify analyze "
            f"--calls {STEP_MAX_CALLS}) or leave inf out of the votes"
        )


def _binomial_coefficients(k: np.ndarray, s: np.ndarray, valid: np.ndarray) -> list[int]:
    """The exact integers C(k, s) (0 where not ``valid``).

    A k wanted at more than RECURRENCE_MIN_COUNTS values of s (the every-cell problem of the
    small-count calibration has all s = 0..K) gets its row by the exact recurrence
    C(k, s + 1) = C(k, s) (k - s) / (s + 1), one small multiplication per s, instead of a
    math.comb of a many-digit integer for each (K = 2000: 0.3 s per problem before).
    """
    wanted: dict[int, set[int]] = {}
    for a, b, ok in zip(k.tolist(), s.tolist(), valid.tolist()):
        if ok:
            wanted.setdefault(a, set()).add(b)
    rows: dict[int, list[int]] = {}
    for a, ss in wanted.items():
        if len(ss) > RECURRENCE_MIN_COUNTS:
            row = [1]
            for j in range(max(ss)):
                row.append(row[-1] * (a - j) // (j + 1))
            rows[a] = row
    return [
        (rows[a][b] if a in rows else math.comb(a, b)) if ok else 0
        for a, b, ok in zip(k.tolist(), s.tolist(), valid.tolist())
    ]


class _Problem:
    """Everything that depends only on the cells: kernel tables and screening grids."""

    def __init__(self, cells: CellCounts):
        kmax = int(cells.calls.max())
        if kmax > MAX_CALLS:
            raise InputError(
                f"K={kmax} calls of one example exceeds the likelihood's work limit of {MAX_CALLS} calls per "
                f"example (its kernel, screens and small-count draws grow with K); use the first {MAX_CALLS} calls "
                f"of each example (certify analyze --calls {MAX_CALLS}, CellCounts.from_bits(bits, calls={MAX_CALLS}))"
            )
        self.cells = cells
        self.K = cells.calls.astype(np.int64)
        self.S = cells.successes.astype(np.int64)
        self.n = cells.multiplicity.astype(float)
        self.N = float(self.n.sum())
        self.sqrt_n = np.sqrt(self.n)
        self.kmax = int(self.K.max())
        self.log_pmf = self.kmax > DIRECT_PMF_MAX_CALLS
        self._grids: dict = {}
        # stacked tables of b_{K-dk}(S-ds) for (dk, ds) in _SHIFTS: B, B' and B'' need all six
        ks, ss, valid = [], [], []
        for dk, ds in _SHIFTS:
            k, s = self.K - dk, self.S - ds
            v = (s >= 0) & (s <= k)
            ks.append(np.where(v, k, 0))
            ss.append(np.where(v, s, 0))
            valid.append(v)
        k, s, v = np.concatenate(ks), np.concatenate(ss), np.concatenate(valid)
        self._s = s[:, None].astype(float)
        self._r = (k - s)[:, None].astype(float)
        # log C(k, s) correctly rounded from the exact integer (math.log takes big ints)
        exact = _binomial_coefficients(k, s, v)
        self._logcoef = np.array([math.log(c) if c else -math.inf for c in exact])[:, None]
        self._coef = np.array([float(c) if c and not self.log_pmf else 0.0 for c in exact])[:, None]
        self._kf = self.K[:, None].astype(float)

    # -- binomial kernel B_c(q) = Bin(S_c; K_c, q) and derivatives (eq. (L2)) --------------
    def _tables(self, q: np.ndarray, rows: int) -> np.ndarray:
        """b_{K-dk}(S-ds; q) for the first ``rows`` stacked tables, by one exp of logs.

        Relative error ~ eps * |log b|, below 1e-14 where b is not negligible; exact zeros
        and ones at q = 0 and 1 (``xlogy`` takes 0 log 0 as 0).
        """
        return np.exp(self._logcoef[:rows] + special.xlogy(self._s[:rows], q) + special.xlog1py(self._r[:rows], -q))

    def kernel(self, q: np.ndarray) -> np.ndarray:
        """B_c(q) for cells c (rows) and points q (columns)."""
        return self._tables(np.asarray(q, dtype=float), len(self.K))

    def kernel_exact(self, q: np.ndarray) -> np.ndarray:
        """B_c(q) by direct products C(K, S) q^S (1-q)^(K-S) (a few ulps; for the cached grids)."""
        q = np.asarray(q, dtype=float)
        if self.log_pmf:
            return self.kernel(q)
        c = len(self.K)
        return self._coef[:c] * q[None, :] ** self._s[:c] * (1.0 - q[None, :]) ** self._r[:c]

    def kernel_jet(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """B, B' = K [b_{K-1}(S-1) - b_{K-1}(S)] and B'' = K(K-1) [b_{K-2}(S-2) - 2 b_{K-2}(S-1) + b_{K-2}(S)]."""
        c = len(self.K)
        t = self._tables(np.asarray(q, dtype=float), 6 * c)
        k = self._kf
        d1 = k * (t[c : 2 * c] - t[2 * c : 3 * c])
        d2 = k * (k - 1.0) * (t[3 * c : 4 * c] - 2.0 * t[4 * c : 5 * c] + t[5 * c :])
        return t[:c], d1, d2

    def kernel_derivatives(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.kernel_jet(q)[1:]

    def loglik(self, p: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            return float(self.n @ np.log(p))

    def probabilities(self, law: _Law) -> np.ndarray:
        return self.kernel(law.atoms) @ law.weights

    # -- screening: global minimum of psi = g - lam h over the pieces ----------------------
    def degree(self, tgt: _Target) -> int:
        """Degree of psi = g - lambda h for the target: it sets the screening grid."""
        return max(tgt.degree, self.kmax)

    def grid(self, lo: float, hi: float, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """The screening grid of [lo, hi] (:func:`certify._screen.grid`) and the kernel on it, built once.

        Kept by its points, not its degree: every degree up to 512 gets the same 4097 points
        (LIKELIHOOD_MIN_CELLS), so a vote curve V3, ..., V101 builds its kernel once, not 50 times.
        """
        key = (lo, hi, grid_points(degree, LIKELIHOOD, hi - lo))
        if key not in self._grids:
            g = grid(degree, LIKELIHOOD, lo, hi)
            self._grids[key] = (g, self.kernel_exact(g))
        return self._grids[key]

    def _dpsi(self, pc: _Piece, lam: float, u: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d1, d2 = self.kernel_derivatives(x)
        g1, g2 = pc.jet(x, (1, 2))
        return g1 - lam * (u @ d1), g2 - lam * (u @ d2)

    def _psi(self, pc: _Piece, lam: float, u: np.ndarray, x: np.ndarray) -> np.ndarray:
        return pc.values(x, 0) - lam * (u @ self.kernel(x))

    def screen(self, tgt: _Target, lam: float, u: np.ndarray, known: _Law | None = None) -> _Screen:
        """Every local minimum of psi on a fine grid of each piece, polished by safeguarded Newton.

        The grid's local minima (:func:`certify._screen.grid_minima`, ends included), at most
        MAX_CANDIDATES of them, the lowest; those that can be the lowest are polished
        (:meth:`_polish`). ``known``: atoms already solved by Newton (psi' = 0 there, or an
        endpoint); a grid minimum whose bracket holds one of them is that atom, and is not
        polished again.
        """
        qs, ks, vs = [], [], []
        degree = self.degree(tgt)
        for k, pc in enumerate(tgt.pieces):
            grid, bg = self.grid(pc.lo, pc.hi, degree)
            psi = tgt.grid_values(k, grid) - lam * (u @ bg) if lam != 0 else tgt.grid_values(k, grid).copy()
            idx = grid_minima(psi)
            if len(idx) > MAX_CANDIDATES:
                idx = idx[np.argsort(psi[idx], kind="stable")[:MAX_CANDIDATES]]
            x, v = self._polish(pc, lam, u, grid, idx, psi, None if known is None else known.atoms[known.piece == k])
            qs.append(x)
            vs.append(v)
            ks.append(np.full(len(x), k, dtype=np.int64))
        q, piece, psi = np.concatenate(qs), np.concatenate(ks), np.concatenate(vs)
        # the same minimum reached from two grid points
        keys = np.round(q, SAME_MINIMUM_DECIMALS) + 2.0 * piece
        _, first = np.unique(keys, return_index=True)
        return _Screen(q[first], piece[first], psi[first])

    def _polish(self, pc, lam, u, grid, idx, psi_grid, known=None):
        """Polish the grid minima that can be the lowest; the others keep their grid values.

        Within a grid cell psi falls below its grid value by at most ~ psi'' h^2 / 2, which
        the second difference |psi[i+1] - 2 psi[i] + psi[i-1]| ~ psi'' h^2 estimates; a
        candidate above the lowest grid value by more than POLISH_MARGIN such differences
        cannot be the global minimum. A minimum whose bracket holds a ``known`` atom is that
        atom. The rest go through :func:`certify._screen.polish` with brackets of one grid
        cell on either side.
        """
        x0, v0 = grid[idx], psi_grid[idx]
        m = len(grid)
        if m == 1 or (pc.objective is None and lam == 0):
            return x0.copy(), v0.copy()
        x_all, v_all = x0.copy(), v0.copy()
        lo_x, hi_x = grid[np.maximum(idx - 1, 0)], grid[np.minimum(idx + 1, m - 1)]
        sd = np.abs(psi_grid[np.minimum(idx + 1, m - 1)] - 2.0 * v0 + psi_grid[np.maximum(idx - 1, 0)])
        keep = v0 - POLISH_MARGIN * sd <= float(v0.min()) + POLISH_ROUNDING * (float(np.max(np.abs(psi_grid))) + TINY)
        if known is not None and len(known):
            inside = (known[None, :] >= lo_x[:, None]) & (known[None, :] <= hi_x[:, None])
            hit = inside.any(axis=1)
            if hit.any():
                xk = known[np.argmax(inside[hit], axis=1)]
                x_all[hit], v_all[hit] = xk, self._psi(pc, lam, u, xk)
                keep &= ~hit
        sub = np.flatnonzero(keep)
        if len(sub):
            x_all[sub], v_all[sub] = polish(
                lambda x: self._dpsi(pc, lam, u, x),
                lambda x: self._psi(pc, lam, u, x),
                lo_x[sub],
                hi_x[sub],
                x0[sub],
                v0[sub],
                POLICIES[LIKELIHOOD].step_tol,
            )
        return x_all, v_all

    def psi_at(self, tgt: _Target, law: _Law, lam: float, u: np.ndarray) -> np.ndarray:
        """psi = g - lam h at the atoms of ``law``, h from u = n / p (eq. (L4))."""
        (g0,) = tgt.jet(law.atoms, law.piece, (0,))
        return g0 - lam * (u @ self.kernel(law.atoms))
