"""The ``exact`` method: contact patterns proposed in turn, polished by Newton, accepted by one check.

The sharp bound sup E[f] over laws with moments theta is a semi-infinite LP whose
columns are phi(x) = (1, x, ..., x^m), x in [0, 1] (Theorem 4.1). :func:`solve_exact`
tries the routes drawn in the map of :mod:`certify.solvers`, in its order: the boundary
law, faces found before, the grid hull's pattern with the two-moment polishers, the
exchange (revised simplex, the classical Remez step) on the grid and then on [0, 1],
whose contact pattern Newton's method on the KKT system polishes. Each route is a
generator of candidates (a proposer); every candidate ends in :func:`_finish`, which
polishes it and passes it through :func:`_accept`, and the winning route is recorded on
the :class:`~._solution.Solution`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.polynomial import polynomial as npoly

from .._errors import SolverError
from .._support import free_atoms, merge_close
from ._boundary import unique_law, unique_law_dual
from ._contact import Target, accept_tolerance, ascent_from, hermite, kkt_system, max_violation, maxima_at, target
from ._hull import grid_hull
from ._solution import Solution
from ._tolerances import (
    ARTIFICIAL_COST,
    ARTIFICIAL_WEIGHT,
    CONTINUOUS_ITER,
    ENDPOINT_TOL,
    EXCHANGE_ITER,
    EXCHANGE_TOLS,
    FACE_MAX_VIOLATION,
    FACE_MIN_GAP,
    FACE_MIN_WEIGHT,
    FACE_SAME,
    FACE_WEIGHT_TOL,
    MERGE_GAPS,
    MERGE_WEIGHT_FLOOR,
    MOMENT_TOL,
    NEWTON_MAX_ITER,
    NEWTON_MAX_WEIGHT,
    NEWTON_RESIDUAL_DONE,
    NEWTON_RESIDUAL_FINAL,
    NEWTON_RESIDUAL_FLOOR,
    NEWTON_STALL_AFTER,
    NEWTON_STALL_RATIO,
    NEWTON_STEP_DONE,
    NEWTON_STEP_FLOOR,
    PATTERN_DECIMALS,
    PIVOT_TOL,
    SUPPORT_FLOOR,
    TIE_TOL,
    WEIGHT_TOL,
)
from ._two_moments import bitangent_law, endpoint_law, face_weights


def _phi(x, m1: int) -> np.ndarray:
    return np.vander(np.atleast_1d(np.asarray(x, dtype=float)), m1, increasing=True)


def _newton_kkt(T: Target, theta: np.ndarray, atoms: np.ndarray, weights: np.ndarray, y: np.ndarray):
    """Solve the KKT system (:func:`~._contact.kkt_system`) of a contact pattern by Newton's method.

    Atoms within ENDPOINT_TOL of 0 or 1 are endpoint contacts; only the others are
    location unknowns (:func:`certify._support.free_atoms`, which also says how this
    Newton and the likelihood's differ). An atom that a step carries out of (0, 1) is
    clipped onto the end and Newton starts again on that pattern.

    Returns (atoms, weights, y, converged).
    """
    m1 = len(theta)
    atoms = atoms.astype(float).copy()
    atoms[atoms <= ENDPOINT_TOL] = 0.0
    atoms[atoms >= 1 - ENDPOINT_TOL] = 1.0
    inner = free_atoms(atoms)
    s = len(atoms)
    w = weights.astype(float).copy()
    y = y.astype(float).copy()
    prev = np.inf
    for it in range(NEWTON_MAX_ITER):
        R, J = kkt_system(
            atoms.tolist(), w.tolist(), y.tolist(), theta.tolist(), lambda k, x: float(T(x, k)), inner.tolist()
        )
        R, J = np.array(R), np.array(J)
        try:
            dz = np.linalg.solve(J, -R)
        except np.linalg.LinAlgError:
            dz = np.linalg.lstsq(J, -R, rcond=None)[0]
        y += dz[:m1]
        w += dz[m1 : m1 + s]
        new_inner = atoms[inner] + dz[m1 + s :]
        out = (new_inner <= 0) | (new_inner >= 1)
        if np.any(out):
            # The contact reached an endpoint: continue with it as an endpoint contact.
            atoms[inner] = np.clip(new_inner, 0.0, 1.0)
            return _newton_kkt(T, theta, atoms, w, y)
        atoms[inner] = new_inner
        step = np.max(np.abs(dz)) / (1.0 + np.max(np.abs(y)))
        if step <= NEWTON_STEP_DONE and np.max(np.abs(R)) <= NEWTON_RESIDUAL_DONE * T.scale:
            return atoms, w, y, True
        if step <= NEWTON_STEP_FLOOR:
            return atoms, w, y, bool(np.max(np.abs(R)) <= NEWTON_RESIDUAL_FLOOR * T.scale)
        # Newton from a wrong pattern wanders: give up once steps stop shrinking.
        if (it >= NEWTON_STALL_AFTER and step > NEWTON_STALL_RATIO * prev) or np.max(np.abs(w)) > NEWTON_MAX_WEIGHT:
            return atoms, w, y, False
        prev = step
    R_norm = np.max(np.abs(R))
    return atoms, w, y, bool(R_norm <= NEWTON_RESIDUAL_FINAL * T.scale)


def _accept(T: Target, atoms, weights, y, theta) -> tuple[bool, float, float]:
    """Is (law, p) an optimal pair: a law with the moments, p >= f on [0, 1]?"""
    A, W = np.asarray(atoms, dtype=float).tolist(), np.asarray(weights, dtype=float).tolist()
    if min(W) < -WEIGHT_TOL:
        return False, np.inf, np.nan
    moment = [max(w, 0.0) for w in W]
    for t in theta.tolist():
        if abs(sum(moment) - t) > MOMENT_TOL:
            return False, np.inf, np.nan
        moment = [m * a for m, a in zip(moment, A)]
    viol, where = max_violation(T, y, contacts=A)
    tol = float(accept_tolerance(T, y))
    # and the pair must be optimal: the law's value equals the dual's (complementary slackness).
    # A dual that is feasible but not tight does not make the law extremal -- at 20 moments the
    # boundary route returned a law with a gap of 47 while its dual failed by only 2e-5.
    gap = abs(
        float(np.dot(np.maximum(W, 0.0), T(np.asarray(A, dtype=float))))
        - float(np.dot(np.asarray(y, dtype=float), theta))
    )
    return -np.inf < viol <= tol and gap <= tol, viol, where  # a dual with inf or nan gives -inf or nan


def _merge(atoms: np.ndarray, weights: np.ndarray, gap, grid: np.ndarray):
    """Merge atoms that straddle one contact point into their weighted mean (:func:`certify._support.merge_close`).

    With ``gap == "grid"``, atoms that are neighbouring grid points are merged (the grid
    LP splits an off-grid contact between its two neighbours); otherwise atoms at most
    ``gap`` apart. Atoms below MERGE_WEIGHT_FLOOR are dropped first.
    """
    if gap == "grid":
        return merge_close(atoms, weights, 1, MERGE_WEIGHT_FLOOR, positions=lambda a: np.searchsorted(grid, a))
    return merge_close(atoms, weights, gap, MERGE_WEIGHT_FLOOR)


def _basis_matrix(basis: list, m1: int) -> np.ndarray:
    """The columns of a basis: phi(x) for an atom x, the unit vector e_i for the artificial ("art", i)."""
    B = np.zeros((m1, m1))
    for j, col in enumerate(basis):
        if isinstance(col, tuple):
            B[col[1], j] = 1.0
        else:
            B[:, j] = _phi(col, m1)[0]
    return B


def _simplex(
    T: Target,
    theta: np.ndarray,
    basis: list,
    max_iter: int,
    continuous: bool = False,
    tol: float = EXCHANGE_TOLS[-1],
    phase_one: bool = False,
):
    """Revised simplex over the columns phi(x), x on the grid or anywhere in [0, 1].

    ``basis`` holds m+1 entries, each an atom position (float) or an artificial
    column ``("art", i)`` with cost -BIG. With ``continuous`` the entering atom is
    the Newton-refined local maximum of the reduced cost near the grid's best
    point, so the iteration solves the semi-infinite LP itself; the first phase
    on the grid alone is a finite LP. Stops when the largest reduced cost is at
    most ``tol`` (relative). Returns (basis, weights, dual, iterations).

    With ``phase_one`` (on the grid only) the objective is dropped: atoms cost 0 and
    artificial columns -1, so the iteration minimizes the artificial weight alone. It
    is what :func:`_feasible_basis` runs where -BIG was not big enough.
    """
    m1 = len(theta)
    big = 1.0 if phase_one else ARTIFICIAL_COST * T.scale
    scale = 1.0 if phase_one else T.scale
    values = np.zeros_like(T.values) if phase_one else T.values
    cost: dict[float, float] = {}
    for it in range(max_iter):
        B = _basis_matrix(basis, m1)
        c = np.zeros(m1)
        for j, col in enumerate(basis):
            if isinstance(col, tuple):
                c[j] = -big
            else:
                if col not in cost:
                    cost[col] = 0.0 if phase_one else float(T(float(col)))
                c[j] = cost[col]
        try:
            w = np.linalg.solve(B, theta)
            yv = np.linalg.solve(B.T, c)
        except np.linalg.LinAlgError:
            raise SolverError("exact", "singular basis in the exchange step") from None
        r = values - npoly.polyval(T.grid, yv)
        i = int(np.argmax(r))
        x_in, r_in = float(T.grid[i]), float(r[i])
        if continuous:
            x_in, r_in = maxima_at(T, yv, i, r)
            for col in basis:
                if not isinstance(col, tuple) and 0.0 < col < 1.0:
                    x_c, r_c = ascent_from(T, yv, col)
                    if r_c > r_in:
                        x_in, r_in = x_c, r_c
        if r_in <= tol * (scale + np.sum(np.abs(yv))):
            return basis, w, yv, it
        d = np.linalg.solve(B, _phi(x_in, m1)[0])
        pos = d > PIVOT_TOL * np.max(np.abs(d))
        if not np.any(pos):
            raise SolverError("exact", "unbounded exchange step (moments outside the moment space?)")
        ratios = np.where(pos, np.maximum(w, 0.0) / np.where(pos, d, 1.0), np.inf)
        # prefer evicting artificial columns on ties, then the smallest ratio
        is_art = np.array([isinstance(col, tuple) for col in basis])
        rmin = np.min(ratios)
        ties = np.nonzero(ratios <= rmin + TIE_TOL)[0]
        leave = next((j for j in ties if is_art[j]), ties[0])
        basis = list(basis)
        basis[leave] = x_in
    raise SolverError("exact", f"exchange did not converge in {max_iter} iterations")


def solve_exact(objective, theta: np.ndarray, sign: int, faces: Faces | None = None) -> Solution:
    """Maximize E[sign * g] over laws on [0, 1] with moments ``theta``.

    Parameters
    ----------
    objective : Objective
    theta : ndarray
        (1, m_1, ..., m_m), validated.
    sign : {+1, -1}
        +1 for the upper bound of E[g], -1 for the lower bound.
    faces : Faces, optional
        Faces found by earlier solves of the same computation, to reuse, and where this
        solve's face is remembered. Without it the route and the result depend on
        ``objective``, ``theta`` and ``sign`` alone.

    Returns
    -------
    Solution
        For f = sign * g: the law and a polynomial p >= f on [0, 1], with the route
        that won (:data:`._solution.ROUTES`).
    """
    T = target(objective, sign)
    try:
        sol = _solve(T, objective, theta, faces)
    except np.linalg.LinAlgError as exc:  # never a traceback: a singular system is a solver failure
        raise SolverError("exact", "singular linear system", str(exc)) from None
    if faces is not None:
        faces.remember(T, sol, len(theta))
    return sol


def _solve(T: Target, objective, theta: np.ndarray, faces: Faces | None) -> Solution:
    """The pipeline: every proposer's candidates, in the map's order, through :func:`_finish`.

    Proposers are generators, so a later candidate (the continuous exchange, say) is
    only computed once every earlier one was refused.
    """
    proposers = [_boundary_law(T, theta), _known_face(T, theta, faces)]
    if len(theta) == 3:
        proposers.append(_grid_hull_patterns(T, theta))
    proposers.append(_exchange_patterns(T, theta))
    for proposer in proposers:
        for candidate in proposer:
            found = _finish(T, theta, *candidate)
            if found is not None:
                return found
    raise SolverError("exact", "no convergence", f"objective {objective.name}")


def _finish(T: Target, theta: np.ndarray, route: str, kind: str, *data) -> Solution | None:
    """Polish a candidate and accept it, or None: the one end of every route.

    ``kind`` says what the proposer hands over:

    * ``"law"``: (atoms, weights, dual, iterations), already exact (closed forms);
    * ``"bitangent"``: two interior contacts (x1, x2) of the m = 2 pattern, polished by
      :func:`~._two_moments.bitangent_law`;
    * ``"pattern"``: (atoms, weights, iterations) of any contact pattern, polished by
      Newton on the KKT system (:func:`_polish`); a result with two interior contacts
      (m = 2) is finished by ``bitangent_law``, so that every route to that pattern (and
      the array path) ends at the same law;
    * ``"face"``: (atoms, weights, dual, violation) on a face found before: its dual
      passed the acceptance check, tighter (FACE_MAX_VIOLATION), when it was
      remembered, and :func:`~._two_moments.face_weights` checked the moments to
      FACE_RESIDUAL, so nothing is left to check.
    """
    if kind == "face":
        atoms, weights, y, viol = data
        return Solution(atoms, weights, y, "exact", 0, viol, route)
    if kind == "bitangent":
        found = bitangent_law(T, float(theta[1]), float(theta[2]), *data)
        if found is None:
            return None
        atoms, weights, _value, y, its = found
    elif kind == "pattern":
        A, W, its = data
        found = _polish(T, theta, A, W)
        if found is None:
            return None
        atoms, weights, y = found
        inner = (weights > SUPPORT_FLOOR) & (atoms > 0.0) & (atoms < 1.0)
        if len(theta) == 3 and np.sum(weights > SUPPORT_FLOOR) == 2 and np.sum(inner) == 2:
            done = _finish(T, theta, route, "bitangent", *sorted(atoms[inner].tolist()))
            if done is not None:
                return replace(done, iterations=its)
    else:
        atoms, weights, y, its = data
    ok, viol, _ = _accept(T, atoms, weights, y, theta)
    if not ok:
        return None
    if min(weights.tolist()) <= SUPPORT_FLOOR:  # rounding residue of a polished or exchanged law
        good = weights > SUPPORT_FLOOR
        atoms, weights = atoms[good], weights[good]
    return Solution(atoms, weights, y, "exact", its, viol, route)


def _boundary_law(T: Target, theta: np.ndarray):
    """Proposer 0: on the boundary of the moment space the one law with the moments."""
    m1 = len(theta)
    if m1 == 3:
        mu, nu = theta[1], theta[2]
        on_boundary = mu <= 0 or mu >= 1 or nu <= mu * mu or nu >= mu
    elif m1 == 2:
        on_boundary = theta[1] <= 0 or theta[1] >= 1
    else:
        on_boundary = True  # decided by the Hankel test of unique_law
    found = unique_law(theta) if on_boundary else None
    if found is None:
        return
    atoms, weights = found
    y = unique_law_dual(T, atoms, m1)
    yield "boundary", "law", atoms, weights, y, 0
    # Resumed only when refused: no other law has these moments, so no other route can help.
    viol = max_violation(T, y, contacts=atoms)[0]
    raise SolverError("exact", "boundary dual not accepted", f"objective {T.objective.name}: max(f - p) = {viol:.3g}")


class Faces:
    """Faces of the moment problem that the solves of one computation share (Theorem 4.1).

    A law with m + 1 contact points fixes its dual polynomial independently of the
    moments, so its certificate serves every moment vector inside the simplex spanned by
    its atoms' moment curves (only the weights change), and a batch of nearby points is
    solved much faster when later points reuse the faces of earlier ones. A reused face is
    another route to the value, which may differ from a fresh solve's in the last bits; so
    faces are shared only where a caller asks for it, by creating a ``Faces`` and passing it
    to every solve of one computation (:func:`._batch.batch_upper` creates one per call). A
    solve without one starts from no faces, and its route and result depend on nothing
    solved before.

    Kept: per (objective, side, m + 1), the newest MAX_FACES faces (sorted atoms, dual,
    violation) found by the solves given this object; only well-separated ones
    (FACE_MIN_WEIGHT, FACE_MIN_GAP) whose dual is a majorant to FACE_MAX_VIOLATION.
    """

    def __init__(self):
        self._faces: dict[tuple, list] = {}

    def of(self, T: Target, m1: int) -> list:
        """The faces of T's objective and side for m + 1 moments, newest first."""
        return self._faces.get((T.objective, T.sign, m1), [])

    def remember(self, T: Target, sol: Solution, m1: int) -> None:
        """Keep the face of ``sol`` if it is a new, well-separated face with a tight dual."""
        if len(sol.atoms) != m1 or sol.route in ("face", "boundary"):  # not a face, or one reused
            return
        atoms = np.sort(sol.atoms)
        if (
            np.all(sol.weights > FACE_MIN_WEIGHT)
            and np.min(np.diff(atoms)) > FACE_MIN_GAP
            and sol.violation <= FACE_MAX_VIOLATION * T.scale
        ):
            faces = self._faces.setdefault((T.objective, T.sign, m1), [])
            if not any(np.max(np.abs(f[0] - atoms)) <= FACE_SAME for f in faces):
                faces.insert(0, (atoms, sol.dual, sol.violation))
                del faces[MAX_FACES:]

    def __len__(self) -> int:
        return sum(len(f) for f in self._faces.values())


#: Faces kept per objective, side and order (:class:`Faces`): the newest MAX_FACES.
MAX_FACES = 32


def _known_face(T: Target, theta: np.ndarray, faces: Faces | None):
    """Proposer 1: the first face found before (in ``faces``) whose simplex holds ``theta``."""
    m1 = len(theta)
    for atoms, y, viol in faces.of(T, m1) if faces is not None else ():
        if m1 == 3:
            w, serves = face_weights(atoms.tolist(), float(theta[1]), float(theta[2]))
            if not serves:
                continue
            w = np.array(w)
        else:
            try:
                w = np.linalg.solve(_phi(atoms, m1).T, theta)
            except np.linalg.LinAlgError:  # pragma: no cover - faces are kept well separated
                continue
            if w.min() < -FACE_WEIGHT_TOL:
                continue
        good = w > 0
        yield "face", "face", atoms[good], np.maximum(w[good], 0.0), y, viol
        return


def _grid_hull_patterns(T: Target, theta: np.ndarray):
    """Proposer 2 (m = 2): the contact pattern of the grid optimum, and the endpoint laws.

    The pattern comes from the facet of :func:`~._hull.grid_hull` above (mu, nu); two
    interior contacts go to ``bitangent_law``, an endpoint contact to the closed-form
    endpoint law, and any other pattern to the KKT Newton.
    """
    mu, nu = float(theta[1]), float(theta[2])
    hull = grid_hull(T)
    contacts = hull.locate(mu, nu)  # empty when f is a quadratic: any law is optimal
    kinds = [k for _, _, k in contacts]
    later = []
    if len(contacts) == 2:
        x1, x2 = contacts[0][0], contacts[1][0]
        if kinds == ["inner", "inner"]:
            yield "bitangent", "bitangent", x1, x2
        elif "inner" in kinds:
            # The end contact may be an interior tangency between the end and
            # its neighbouring grid point: start there if the endpoint law fails.
            later.append((hull.grid_list[1], x2) if kinds[1] == "inner" else (x1, hull.grid_list[-2]))
    # A contact at (or merged with) an end vertex is most likely the end itself.
    # Where f is flat to rounding, or (mu, nu) is closer to the parabola than
    # the grid resolves, the grid's pattern says little, and the endpoint laws
    # are the ones that certify.
    ends = [e for e, k in zip((0.0, 1.0), (kinds[:1] + kinds[-1:]) if kinds else ()) if k != "inner"]
    for end in ends + [e for e in (0.0, 1.0) if e not in ends]:
        atoms, weights, _value, y = endpoint_law(T, mu, nu, end)
        yield "endpoint", "law", atoms, weights, y, 1
    for x1, x2 in later:
        yield "bitangent", "bitangent", x1, x2
    if contacts:  # "end" contacts sit exactly on grid point 0 or 1
        yield "hull", "pattern", np.array([x for x, _, _ in contacts]), np.array([w for _, w, _ in contacts]), 1


def _exchange_patterns(T: Target, theta: np.ndarray):
    """Proposer 3: the exchange on the grid, then on [0, 1] to tighter tolerances.

    The grid phase starts from artificial columns (m != 2); moments inside the moment
    space of [0, 1] but not of the grid (two atoms between neighbouring grid points) keep
    some in its basis, and the exchange on [0, 1] finishes the first phase off the grid.
    Where an artificial column still carries weight after that, its cost -BIG was not
    big enough (near the boundary of a moment space of high order the duals of the
    monomial moments exceed it: 8e4 against 2e4 for V101 at 10 Beta moments), so a first
    phase proper (:func:`_feasible_basis`) looks for an atoms-only basis on the grid and
    the exchange runs again from it. Only moments that leaves outside are infeasible.

    Each optimal basis yields its atoms merged at coarse gaps first, then finer ones
    (neighbouring atoms may straddle one contact point, or be two genuine contacts close
    together), then the basis law itself: where f is flat to rounding (e.g. P_n near 0)
    no pattern is well posed, but the basis may already be a certificate.
    """
    m1 = len(theta)
    basis: list[float | tuple[str, int]]  # atom positions and artificial columns ("art", i)
    if m1 == 3:
        basis = [0.0, float(theta[2] / theta[1]), 1.0]
    else:
        basis = [0.0, 1.0] if m1 == 2 else [("art", i) for i in range(m1)]
    basis, w, yv, total = _simplex(T, theta, basis, max_iter=EXCHANGE_ITER[0] * m1 + EXCHANGE_ITER[1])
    basis, w, total = yield from _exchange_tolerances(T, theta, basis, w, yv, total)
    if _artificial(basis, w):
        basis = _feasible_basis(T, theta, basis)
        basis, w, yv, its = _simplex(T, theta, basis, max_iter=EXCHANGE_ITER[0] * m1 + EXCHANGE_ITER[1])
        basis, w, total = yield from _exchange_tolerances(T, theta, basis, w, yv, total + its)
    if _artificial(basis, w):
        raise SolverError("exact", "infeasible", "moments are outside the moment space of [0, 1]")


def _exchange_tolerances(T: Target, theta: np.ndarray, basis: list, w: np.ndarray, yv: np.ndarray, total: int):
    """The exchange's passes from a grid optimum: the grid basis, then the exchange on [0, 1] at each of
    EXCHANGE_TOLS; yields each feasible basis's patterns (:func:`_exchange_patterns`) and returns the
    last (basis, weights, iterations)."""
    m1 = len(theta)
    for tol in (None, *EXCHANGE_TOLS):
        if tol is not None:
            basis, w, yv, its = _simplex(
                T, theta, basis, max_iter=CONTINUOUS_ITER[0] * m1 + CONTINUOUS_ITER[1], continuous=True, tol=tol
            )
            total += its
        if _artificial(basis, w):  # still in the first phase: only the exchange on [0, 1] can finish it
            continue
        atoms = np.array([np.nan if isinstance(col, tuple) else col for col in basis])
        keep = ~np.isnan(atoms)
        tried = set()
        for gap in MERGE_GAPS:
            A, W = _merge(atoms[keep], w[keep], gap, T.grid)
            key = tuple(np.round(A, PATTERN_DECIMALS))
            if key not in tried:
                tried.add(key)
                yield "exchange", "pattern", A, W, total + 1
        yield "exchange", "law", atoms[keep], w[keep], yv, total + 1
    return basis, w, total


def _feasible_basis(T: Target, theta: np.ndarray, basis: list) -> list:
    """A basis of grid atoms only whose weights solve the moments: the first phase proper.

    The simplex minimizes the artificial weight (``phase_one``) from ``basis``; if some
    is left the moments are outside the grid's moment space: infeasible. An artificial
    column left in the basis at weight zero (a degenerate basis) is then pivoted out for
    the grid atom with the largest entry in its row of B^-1 phi(x), which leaves the
    weights unchanged, so that the exchange that follows never prices an artificial column.
    """
    m1 = len(theta)
    # a finite LP on the grid: the loosest tolerance decides whether artificial weight is left
    basis, w, _, _ = _simplex(
        T, theta, basis, max_iter=EXCHANGE_ITER[0] * m1 + EXCHANGE_ITER[1], tol=EXCHANGE_TOLS[0], phase_one=True
    )
    if _artificial(basis, w):
        raise SolverError("exact", "infeasible", "moments are outside the moment space of [0, 1]")
    columns = _phi(T.grid, m1).T  # one column phi(x) per grid atom
    for j in [j for j, col in enumerate(basis) if isinstance(col, tuple)]:
        row = np.linalg.solve(_basis_matrix(basis, m1), columns)[
            j
        ]  # the entries of B^-1 phi(x) that a pivot on row j divides by
        row[np.isin(T.grid, [col for col in basis if not isinstance(col, tuple)])] = 0.0
        basis = list(basis)
        basis[j] = float(T.grid[int(np.argmax(np.abs(row)))])
    return basis


def _artificial(basis: list, w: np.ndarray) -> bool:
    """Does an artificial column still carry weight: are the moments outside the columns' moment space?"""
    return any(isinstance(col, tuple) and wj > ARTIFICIAL_WEIGHT for col, wj in zip(basis, w))


def _polish(T: Target, theta: np.ndarray, A: np.ndarray, W: np.ndarray):
    """Newton on a contact pattern, dropping atoms that get negative weight.

    Returns (atoms, weights, dual) once Newton converges with weights >= -WEIGHT_TOL,
    else None; :func:`_finish` accepts.
    """
    m1 = len(theta)
    for _drop in range(m1):
        A2, W2, y2, conv = _newton_kkt(T, theta, A, W, hermite(T, A, m1))
        if not conv:
            return None
        if np.min(W2) >= -WEIGHT_TOL:
            return A2, W2, y2
        # The pattern holds an atom the optimum does not use: drop it.
        j = int(np.argmin(W2))
        A, W = np.delete(A2, j), np.delete(W2, j)
    return None
