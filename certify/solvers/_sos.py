"""The ``sos`` method: the dual of the sharp bound as an exact sum-of-squares program.

By Theorem 4.1 (label ``thm:general-odd-main``; see also Appendix B) the sharp
upper bound of E[f], f = sign * g, over laws on [0, 1] with moments theta is

    min  y . theta   s.t.   p(q) = sum_k y_k q^k >= f(q)  for all q in [0, 1].

A polynomial h of degree <= D is nonnegative on [0, 1] exactly when it has a
Markov-Lukacs representation

* D = 2k:     h = s0 + q (1 - q) s1,   s0 SOS of degree 2k, s1 of degree 2k - 2;
* D = 2k + 1: h = q s0 + (1 - q) s1,   s0, s1 SOS of degree 2k,

and an SOS s of degree 2j is b(q)^T Q b(q) for a PSD Gram matrix Q and a basis
b of polynomials of degree <= j. With h = p - f and D = max(deg f, m) the
program above becomes a semidefinite program *without* discretization.

Conditioning. Monomials (and the monomial coefficients of P_n) are useless
beyond a few dozen votes, so the identity ``p - f = representation`` is imposed
in the *sampling* form: at the D + 1 Chebyshev points of [0, 1] (two polynomials
of degree <= D that agree at D + 1 distinct points are identical), with f
evaluated stably by :meth:`Objective.evaluate` and the Gram matrices written in
the shifted Chebyshev basis T_i(2q - 1), bounded by 1 on [0, 1]. Only p itself,
of the small degree m, uses monomials, as theta does.

Cost. The Gram matrices have about D/2 rows, so the program has about D^2/4
unknowns, but an interior-point solver such as Clarabel factors the KKT system
with a dense block of that size per PSD cone: time grows like D^6 and memory
like D^4. Measured (one bound, Clarabel, 2 shared cores): 21 votes 0.04 s, 51
votes 0.4 s / 150 MB, 101 votes 13 s / 400 MB; 151 votes takes minutes and over
a gigabyte, which is where the method stops being practical, and degrees above
:data:`MAX_DEGREE` are refused. SCS has cheap iterations but needs tens of
thousands of them at the accuracy used here (20 s at 51 votes, often ending
``optimal_inaccurate``). The default ``exact`` method has no such growth.

Accuracy. Clarabel runs at its default tolerances (gap and feasibility 1e-8):
a tighter gap (1e-10) makes values ~10x more accurate but ends ``AlmostSolved``
(refused by :mod:`._status`) on a few percent of five-vote instances. Instances
whose optimal law sits where g is extremely flat (e.g. lower bounds of 51+
votes with mu < 0.1, value ~1e-7) make the Gram matrices nearly singular and
also end inaccurate, as do some ordinary instances at 101 votes (P_50 is flat
to ~1e-20 near both ends); they raise :class:`SolverError`.

Recovery. An interior-point optimum determines y only to about the square root
of the solver tolerance along the directions that slide a tangency point, so
contact points (:func:`._contact.contact_points`) are accurate to ~1e-5, and a
law on them alone cannot meet the moments exactly. The law is therefore solved
by :func:`._contact.law_on_points` over the contact points *and* their
neighbours at +-offset: the basic solution straddles each true atom, meets the
moments exactly and loses only ~|f''| offset^2 in value (~1e-8 overall).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.polynomial import chebyshev

from .._errors import InputError, SolverError
from ._contact import contact_points, law_on_points, max_violation, poly, target
from ._grid import check_solver, solve_checked
from ._solution import Solution
from ._tolerances import SOS_CONTACT_TOL

__all__ = ["solve_sos", "SOS_SOLVERS", "MAX_DEGREE"]

#: Accepted cvxpy solvers -> accuracy settings (see "Accuracy" above). SCS's
#: defaults (1e-4) would leave contact points too vague to recover a law.
SOS_SOLVERS = {
    "CLARABEL": {},
    "SCS": {"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iters": 200_000},
}

#: Largest degree D accepted (see "Cost" above: beyond it minutes and gigabytes).
MAX_DEGREE = 151

#: Offsets tried, smallest first, around the interior contact points (see module docstring).
OFFSETS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 1e-2)


def chebyshev_nodes(count: int) -> np.ndarray:
    """The ``count`` Chebyshev points of the first kind mapped to (0, 1), increasing."""
    return 0.5 * (1.0 - np.cos((2.0 * np.arange(count) + 1.0) * np.pi / (2.0 * count)))


def markov_lukacs_blocks(degree: int, nodes: np.ndarray):
    """Multipliers and SOS half-degrees of the Markov-Lukacs representation.

    Returns
    -------
    list of (ndarray, int)
        For each SOS term: the multiplier (1, q, 1 - q or q (1 - q)) at ``nodes``
        and the degree j of its Gram basis (the SOS has degree 2j); terms with
        j < 0 are dropped (degree 0 has no q (1 - q) term).
    """
    k = degree // 2
    if degree % 2 == 0:
        blocks = [(np.ones_like(nodes), k), (nodes * (1.0 - nodes), k - 1)]
    else:
        blocks = [(nodes, k), (1.0 - nodes, k)]
    return [(mult, j) for mult, j in blocks if j >= 0]


def _sos_program(objective, sign: int, m1: int):
    """The sampled SOS program with theta as a cvxpy Parameter (compiled once per target).

    The program is kept in ``Target.programs`` and reused across calls (only theta
    changes), so concurrent calls from several threads must not share it.
    """
    T = target(objective, sign)
    return T.program(("sos", m1), lambda: _compile_sos_program(T, objective, m1))


def _compile_sos_program(T, objective, m1: int):
    degree = max(objective.degree, m1 - 1)
    nodes = chebyshev_nodes(degree + 1)
    fvals = np.asarray(T(nodes), dtype=float)
    y = cp.Variable(m1)
    theta = cp.Parameter(m1)
    residual = np.vander(nodes, m1, increasing=True) @ y
    for mult, j in markov_lukacs_blocks(degree, nodes):
        basis = chebyshev.chebvander(2.0 * nodes - 1.0, j)  # (D + 1) x (j + 1)
        # Row i of ``gram_map`` is mult_i * kron(b_i, b_i): <Q, b_i b_i^T> = row_i . vec(Q).
        gram_map = (mult[:, None, None] * basis[:, :, None] * basis[:, None, :]).reshape(len(nodes), -1)
        gram = cp.Variable((j + 1, j + 1), PSD=True)
        residual = residual - gram_map @ cp.vec(gram, order="F")
    problem = cp.Problem(cp.Minimize(theta @ y), [residual == fvals])
    return problem, y, theta, degree


def _candidate_sets(T, coeffs: np.ndarray, contacts: np.ndarray):
    """Candidate supports for the recovered law, most accurate first.

    First the contact points with each interior one flanked at +-offset, for
    growing offsets (the true atom lies within the contacts' error, ~1e-5, of a
    computed contact). Last every grid point where f - p is within
    :data:`~._tolerances.SOS_CONTACT_TOL` of 0: when deg g <= m the optimal p equals f and *every*
    point is a contact, which isolated local maxima cannot represent.
    """
    inner = contacts[(contacts > 0.0) & (contacts < 1.0)]
    for offset in OFFSETS:
        yield np.concatenate([contacts, inner - offset, inner + offset])
    flat = T.grid[T.values - poly(coeffs, T.grid) >= -SOS_CONTACT_TOL * T.scale]
    yield np.concatenate([contacts, flat])


def _recover_law(T, coeffs: np.ndarray, contacts: np.ndarray, theta: np.ndarray, solver_name: str):
    """Basic law (at most m + 1 atoms) on the first candidate set that meets the moments.

    A law straddling a true atom at +-offset loses only about |f''| offset^2 in
    value. Endpoint contacts are exact (:func:`._contact.maxima_at` returns 0.0
    or 1.0) and get no offsets.
    """
    failure = None
    for points in _candidate_sets(T, coeffs, contacts):
        points = np.unique(np.clip(points, 0.0, 1.0))
        try:
            return law_on_points(points, theta, np.asarray(T(points), dtype=float), solver_name)
        except SolverError as exc:  # the moments are outside the hull of these candidates
            failure = exc
    assert failure is not None  # _candidate_sets yields at least one set, and each one failed
    raise SolverError(
        solver_name, "law recovery failed", f"contacts {np.round(contacts, 6).tolist()}; last: {failure.detail}"
    )


def solve_sos(
    objective, theta: np.ndarray, sign: int, solver: str = "CLARABEL", max_iter=None, time_limit=None
) -> Solution:
    """Maximize E[sign * g] over laws on [0, 1] with moments ``theta``, by an SOS program.

    Parameters
    ----------
    objective, theta, sign
        As for :func:`._exact.solve_exact`: the objective g, the validated
        moments (1, m_1, ..., m_m), and +1 (upper bound) or -1 (lower bound).
    solver : {"CLARABEL", "SCS"}
        cvxpy solver for the semidefinite program (case-insensitive).
    max_iter, time_limit : optional
        Iteration and wall-time (seconds) limits, see :func:`._grid.solve_checked`.

    Returns
    -------
    Solution
        The SOS dual polynomial p >= f (its measured ``violation`` is the solver's
        infeasibility, ~1e-8 with Clarabel) and a law with at most m + 1 atoms
        recovered from the contact points of p.

    Raises
    ------
    InputError
        For an unknown solver, a degree above :data:`MAX_DEGREE`, or an unusable
        ``max_iter`` / ``time_limit``.
    SolverError
        Naming the solver and its status when the program is not solved to
        optimality or no law can be recovered from the contact points.
    """
    name = check_solver(solver, "sos", SOS_SOLVERS)
    m1 = len(theta)
    degree = max(objective.degree, m1 - 1)
    if degree > MAX_DEGREE:
        raise InputError(
            f"objective {objective.name!r} has degree {degree} > {MAX_DEGREE}, too large for method 'sos'; "
            f"use method='exact'"
        )
    problem, y, theta_param, degree = _sos_program(objective, int(sign), m1)
    theta = np.asarray(theta, dtype=float)
    theta_param.value = theta
    solve_checked(
        problem,
        name,
        f"SOS program, degree {degree}, objective {objective.name}",
        max_iter,
        time_limit,
        **SOS_SOLVERS[name],
    )
    coeffs = np.asarray(y.value, dtype=float)
    T = target(objective, sign)
    contacts = contact_points(T, coeffs, SOS_CONTACT_TOL)
    if len(contacts) == 0:
        raise SolverError(f"sos/{name}", "no contact points", f"max(f - p) = {max_violation(T, coeffs)[0]:.3g}")
    atoms, weights = _recover_law(T, coeffs, contacts, theta, f"sos/{name}")
    violation = max_violation(T, coeffs)[0]
    return Solution(atoms, weights, coeffs, f"sos/{name}", int(problem.solver_stats.num_iters or 0), violation, "sos")
