"""The independent checker of likelihood-ratio bound certificates (schema version 2).

Like :mod:`certify.certificates._verify`, this module and the kernel modules it
imports are the whole trusted base of its certificates: only the standard library,
python-flint and the kernel (exact pairs, the objective polynomial with the check
that its name denotes exactly that polynomial, the refusal of unknown keys, the
positivity proof on [0, 1]); everything is re-derived from the file.

The statement. Cells c = (K_c, S_c, n_c): n_c examples had K_c calls, S_c of them
correct; N = sum_c n_c, B_c(q) = C(K_c, S_c) q^S_c (1 - q)^(K_c - S_c). For a law
pi on [0, 1], p_c(pi) = E_pi[B_c(Q)] and l(pi) = sum_c n_c log p_c(pi). With side
s = +1 (lower) or -1 (upper), the certificate states that every law pi with
l(pi) >= l(pi_ref) - c has s E_pi[g] >= s * bound.

The proof, for the certificate's law pi*, multiplier lambda >= 0 and constant a:

1. concavity of log (log x <= log y + (x - y) / y) gives, for any pi,
   l(pi) <= l(pi*) - N + E_pi[h] with h = sum_c n_c B_c / p_c(pi*); so every pi
   in the set has E_pi[h] >= b := l(pi_ref) - c - l(pi*) + N;
2. s (g - a) - lambda h >= 0 on [0, 1] (proven exactly) integrates to
   s E_pi[g] >= s a + lambda E_pi[h] >= s a + lambda b;
   for the infinite budget V_inf (a step, eq. (L12)) it is proven on the two closed
   halves with g = 0 on [0, 1/2] and g = 1 on [1/2, 1] (:data:`INFINITE_PIECES`), which
   gives it for V_inf itself: off 1/2 the halves are V_inf, and V_inf(1/2) = 1/2 lies
   between their values (the half with g = 0 serves s = +1, the one with g = 1 s = -1);
   for pass@inf = P(Q > 0), the step 1{q > 0}, it is proven on the point {0} with g = 0
   and on [0, 1] with g = 1 (:data:`POSITIVE_PIECES`), which gives it for the step: every
   q lies in a piece whose value is g(q) ({0} for q = 0, [0, 1] for q > 0), and the
   inequality is proven on every piece;
3. the claimed bound must satisfy s * bound <= s a + lambda b, checked with
   rigorous ball arithmetic (the logarithms in b are irrational).

For step 2 the coefficients u_c = n_c / p_c(pi*) (rationals with very long
numerators) are first rounded *up* to short dyadic rationals u'_c >= u_c: since
B_c >= 0 on [0, 1], s (g - a) - lambda sum_c u'_c B_c is a lower bound of the
polynomial of step 2, so proving it nonnegative proves step 2, with integers far
shorter for the Descartes bisection.
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import comb

import flint

from ._budget import MAX_CALLS, check_budget
from ._checking import (
    CheckFailed,
    VerificationResult,
    checked,
    field,
    read_exact,
    read_exact_list,
    require_keys,
    rounded,
    show,
)
from ._kernel import (
    ENDPOINT_DEFINITION,
    ENDPOINT_NAME,
    LIKELIHOOD_KIND,
    LIKELIHOOD_SCHEMA_VERSION,
    poly,
    to_fmpq,
    workprec,
)
from ._objective_check import objective_polynomial
from ._proofs import on_piece, positive_on_closed_unit_interval

__all__ = [
    "CHECKS",
    "DEFINED_OBJECTIVES",
    "INFINITE_PIECES",
    "POSITIVE_PIECES",
    "cell_probabilities",
    "lagrangian_polynomial",
    "likelihood_ball",
    "near_contacts",
    "verify_likelihood_dict",
]

#: The checks, in the order they run; a result names the first that failed.
CHECKS = (
    "json",
    "schema_version",
    "work_limit",
    "structure",
    "readable_floats",
    "objective",
    "objective_name",
    "cells",
    "threshold",
    "reference_law",
    "law",
    "multiplier",
    "cell_probabilities",
    "lagrangian_sign",
    "likelihood_ball",
    "bound",
)

#: Longest calibration label accepted. The label is the producer's unverified note on how c was
#: chosen: never printed in the verdict, but shown by readers of the file, so kept one short line.
MAX_LABEL = 200

#: u_c is rounded up with this relative precision (2^-128): far below any margin the
#: builder leaves (>= 1e-12 of the objective scale), so rounding never decides a proof.
ROUND_BITS = 128

#: Working precisions (bits) of the ball computation of b, tried in turn: 128 bits
#: leaves every realistic b (|b| <= 1e9, terms n_c |log ratio| <= 1e9) with a radius
#: below 1e-20; the larger one is only for extreme files.
PRECISIONS = (128, 512)

#: The ball of b counts as narrow when its radius is below 2^-64 * (1 + |b|): far below
#: the builder's outward rounding of the bound, so a wide ball signals a broken file.
NARROW_BITS = 64

#: V_inf as polynomial pieces (start, end, value of g there) covering [0, 1] (module docstring, step 2).
INFINITE_PIECES = ((Fraction(0), Fraction(1, 2), Fraction(0)), (Fraction(1, 2), Fraction(1), Fraction(1)))

#: pass@inf = P(Q > 0) as polynomial pieces: the point {0} with g = 0 and [0, 1] with g = 1 (module docstring, step 2).
POSITIVE_PIECES = ((Fraction(0), Fraction(0), Fraction(0)), (Fraction(0), Fraction(1), Fraction(1)))

#: The objectives a file gives by name and definition instead of polynomial terms: name -> (definition, pieces).
DEFINED_OBJECTIVES = {ENDPOINT_NAME: (ENDPOINT_DEFINITION, INFINITE_PIECES), "pass_inf": ("P(Q > 0)", POSITIVE_PIECES)}

_TOP = (
    "schema_version",
    "kind",
    "side",
    "objective",
    "cells",
    "threshold",
    "reference_law",
    "law",
    "lagrangian",
    "bound",
    "provenance",
)
_PROVENANCE = ("package", "version", "margin", "seconds", "created")
#: The optional top-level ``source`` (group and data file; not part of the proof, compared with
#: a folder's index.json by ``certify verify DIR``).
_SOURCE = ("group", "data_sha256")
_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)


def _integer(data: dict, key: str, where: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckFailed("structure", f"{where}.{key}={show(value)} must be an integer")
    return value


# -- exact pieces shared with the builder --------------------------------------------


def cell_probabilities(cells, atoms, weights) -> list[flint.fmpq]:
    """Exact p_c = sum_j w_j C(K_c, S_c) x_j^S_c (1 - x_j)^(K_c - S_c) for each cell."""
    top = max(k for k, _, _ in cells)
    probs = [flint.fmpq(0)] * len(cells)
    for x, w in zip(atoms, weights):
        if w == 0:
            continue
        x, w = to_fmpq(x), to_fmpq(w)
        up, down = [flint.fmpq(1)], [flint.fmpq(1)]
        for _ in range(top):
            up.append(up[-1] * x)
            down.append(down[-1] * (1 - x))
        for i, (k, s, _) in enumerate(cells):
            probs[i] += w * comb(k, s) * up[s] * down[k - s]
    return probs


def _round_up(x: flint.fmpq) -> flint.fmpq:
    """A dyadic y >= x > 0 with y - x <= x 2^-ROUND_BITS (short numerator and denominator)."""
    p, q = int(x.p), int(x.q)
    e = ROUND_BITS + q.bit_length() - p.bit_length()  # y = m / 2^e with m of about ROUND_BITS bits
    if e >= 0:
        return flint.fmpq(-((-p << e) // q), 2**e)
    return flint.fmpq(-((-p) // (q << -e)) << -e)


def lagrangian_polynomial(g: flint.fmpq_poly, s: int, a: Fraction, lam: Fraction, cells, p_star) -> flint.fmpq_poly:
    """s (g - a) - lambda sum_c u'_c B_c, a lower bound of s (g - a) - lambda h on [0, 1] (module docstring)."""
    f = (g - to_fmpq(a)) * s
    if lam == 0:
        return f
    one_minus = flint.fmpq_poly([1, -1])
    h = flint.fmpq_poly([])
    for (k, s_c, n), p in zip(cells, p_star):
        u = _round_up(flint.fmpq(n) / p)
        h += flint.fmpq_poly([0] * s_c + [u * comb(k, s_c)]) * one_minus ** (k - s_c)
    return f - h * to_fmpq(lam)


def _gap(cells, p_ref, p_star, c: Fraction) -> flint.arb:
    """Ball of b = l(pi_ref) - c - l(pi*) + N = sum_c n_c log(p_c(pi_ref) / p_c(pi*)) - c + N, at the working precision.

    The ratio is formed exactly first: its logarithm is small and well conditioned,
    while l(pi_ref) and l(pi*) separately are large and nearly cancel.
    """
    total = flint.arb(0)
    for (_, _, n), r, t in zip(cells, p_ref, p_star):
        total += flint.arb(r / t).log() * n
    return total - flint.arb(to_fmpq(c)) + sum(n for _, _, n in cells)


def _narrow(b: flint.arb) -> bool:
    """The ball's radius is below 2^-NARROW_BITS (1 + |b|)."""
    return b.is_finite() and b.rad() < flint.arb(2) ** -NARROW_BITS * (1 + abs(b.mid()))


def likelihood_ball(cells, p_ref, p_star, c: Fraction) -> tuple[int, flint.arb, bool]:
    """The ball of b (module docstring, step 1) at the first precision of PRECISIONS where it is narrow.

    Returns
    -------
    bits : int
        The precision that gave the ball (the largest tried when none was narrow); later
        arithmetic with the ball belongs at this precision (:func:`~._kernel.workprec`).
    b : flint.arb
    narrow : bool
        Whether the ball's radius is below 2^-NARROW_BITS (1 + |b|).
    """
    for bits in PRECISIONS:
        with workprec(bits):
            b = _gap(cells, p_ref, p_star, c)
            if _narrow(b):
                return bits, b, True
    return bits, b, False


def near_contacts(f: flint.fmpq_poly, atoms) -> list[Fraction]:
    """The atoms of pi* where f nearly touches zero: hints for the positivity proof.

    At the optimum, f vanishes to second order at the atoms of pi* (lifted by the
    builder's margin); there Descartes bisection would need many steps and a Taylor
    window settles the neighbourhood at once. A window can only succeed where the
    quadratic Taylor model f + f' t + f'' t^2 / 2 has no real root, and a failed
    attempt is expensive, so only such atoms are passed on (at a short dyadic point
    near the atom, like the windows themselves). The choice affects speed only:
    every piece of [0, 1] is still proven exactly.
    """
    d1 = f.derivative()
    d2 = d1.derivative()
    hints = []
    for x in sorted({x for x in atoms if 0 < x < 1}):
        c = flint.fmpq(round(x * 2**32), 2**32)
        v0, v1, v2 = f(c), d1(c), d2(c)
        if v0 > 0 and v1 * v1 < 2 * v0 * v2:
            hints.append(x)
    return hints


# -- reading the file ------------------------------------------------------------------


def _read_law(data, where: str) -> tuple[list[Fraction], list[Fraction]]:
    law = require_keys(data, where, ("atoms", "weights"))
    atoms = read_exact_list(field(law, "atoms", list, where), f"{where}.atoms")
    weights = read_exact_list(field(law, "weights", list, where), f"{where}.weights")
    return atoms, weights


def _read(cert: dict) -> dict:
    """Layout, types and every exact pair (checks structure / readable_floats)."""
    require_keys(cert, "certificate", _TOP, ("source",))
    if "source" in cert:
        source = require_keys(cert["source"], "source", _SOURCE)
        field(source, "group", str, "source")
        if not _SHA256.fullmatch(field(source, "data_sha256", str, "source")):
            raise CheckFailed(
                "structure", f"source.data_sha256={show(source['data_sha256'])} must be 64 lowercase hexadecimal digits"
            )
    side = field(cert, "side", str, "certificate")
    if side not in ("lower", "upper"):
        raise CheckFailed("structure", f"side={show(side)} must be 'lower' or 'upper'")
    obj = cert["objective"]
    cells = []
    for i, cell in enumerate(field(cert, "cells", list, "certificate")):
        require_keys(cell, f"cells[{i}]", ("calls", "successes", "count"))
        cells.append(tuple(_integer(cell, key, f"cells[{i}]") for key in ("calls", "successes", "count")))
    thr = require_keys(cert["threshold"], "threshold", ("c", "alpha", "calibration"))
    alpha, label = thr["alpha"], thr["calibration"]
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1):
        raise CheckFailed("structure", f"threshold.alpha={show(alpha)} must be null or a number in (0, 1)")
    # The label is never printed in the verdict, but readers show it: one short printable line, no control characters.
    if label is not None and not (isinstance(label, str) and label.isprintable() and len(label) <= MAX_LABEL):
        raise CheckFailed(
            "structure",
            f"threshold.calibration={show(label)} must be null or a printable string of at most {MAX_LABEL} characters",
        )
    lag = require_keys(cert["lagrangian"], "lagrangian", ("lambda", "a"))
    require_keys(cert["provenance"], "provenance", _PROVENANCE)
    return {
        "side": side,
        "objective": obj,
        "cells": cells,
        "c": read_exact(thr["c"], "threshold.c"),
        "alpha": alpha,
        "calibration": label,
        "reference": _read_law(cert["reference_law"], "reference_law"),
        "law": _read_law(cert["law"], "law"),
        "lam": read_exact(lag["lambda"], "lagrangian.lambda"),
        "a": read_exact(lag["a"], "lagrangian.a"),
        "bound": read_exact(cert["bound"], "bound"),
    }


# -- the checks ------------------------------------------------------------------------


def _objective_pieces(obj) -> tuple[list[tuple[Fraction, Fraction, flint.fmpq_poly]], str]:
    """The objective as exact polynomial pieces (start, end, g) covering [0, 1], and its name.

    A polynomial objective (checks objective, objective_name as in schema 1) is one piece;
    a step written ``{"name": ..., "definition": ...}`` is its entry of
    :data:`DEFINED_OBJECTIVES` (V_inf: :data:`INFINITE_PIECES`; pass@inf: :data:`POSITIVE_PIECES`).
    """
    if isinstance(obj, dict) and "definition" in obj:
        require_keys(obj, "objective", ("name", "definition"))
        name = obj["name"]
        entry = DEFINED_OBJECTIVES.get(name) if isinstance(name, str) else None
        if entry is None or obj["definition"] != entry[0]:
            known = " or ".join(f"{n!r} = {d!r}" for n, (d, _) in DEFINED_OBJECTIVES.items())
            raise CheckFailed(
                "objective",
                f"objective {show(name)} = {show(obj['definition'])} must be "
                f"{known}, the objectives given by a definition",
            )
        return [(lo, hi, poly([v])) for lo, hi, v in entry[1]], name
    g, name = objective_polynomial(require_keys(obj, "objective", ("name", "degree", "majority", "bernstein")))
    return [(Fraction(0), Fraction(1), g)], name


def _check_cells(cells) -> None:
    if not cells:
        raise CheckFailed("cells", "cells is empty: a likelihood needs at least one example")
    for i, (k, s, n) in enumerate(cells):
        if not 1 <= k <= MAX_CALLS or not 0 <= s <= k or n < 1:
            raise CheckFailed(
                "cells", f"cells[{i}] = (K={k}, S={s}, n={n}) needs 1 <= K <= {MAX_CALLS}, 0 <= S <= K, n >= 1"
            )
    if len({(k, s) for k, s, _ in cells}) != len(cells):
        raise CheckFailed("cells", "cells repeat a (calls, successes) pair; a cell's count must be listed once")


def _check_law(atoms, weights, check: str) -> None:
    if not atoms or len(atoms) != len(weights):
        raise CheckFailed(
            check, f"{check} has {len(atoms)} atoms and {len(weights)} weights; need at least one of each, equal counts"
        )
    for j, x in enumerate(atoms):
        if not 0 <= x <= 1:
            raise CheckFailed(check, f"{check}.atoms[{j}]={x} is outside [0, 1]")
    for j, w in enumerate(weights):
        if w < 0:
            raise CheckFailed(check, f"{check}.weights[{j}]={w} is negative")
    if sum(weights) != 1:
        raise CheckFailed(check, f"{check}.weights sum to {sum(weights)}, not exactly 1")


def _run(cert) -> VerificationResult:
    if not isinstance(cert, dict):
        raise CheckFailed("structure", "a certificate must be a JSON object")
    if cert.get("schema_version") != LIKELIHOOD_SCHEMA_VERSION:
        raise CheckFailed(
            "schema_version", f"schema_version={show(cert.get('schema_version'))} is not {LIKELIHOOD_SCHEMA_VERSION!r}"
        )
    check_budget(cert)
    if cert.get("kind") != LIKELIHOOD_KIND:
        raise CheckFailed("structure", f"kind={show(cert.get('kind'))} must be {LIKELIHOOD_KIND!r}")
    d = _read(cert)
    side, cells, c, lam, a, bound = d["side"], d["cells"], d["c"], d["lam"], d["a"], d["bound"]
    s = 1 if side == "lower" else -1
    pieces, name = _objective_pieces(d["objective"])
    _check_cells(cells)
    if c <= 0:
        raise CheckFailed("threshold", f"threshold.c={show(c)} must be positive")
    ref_atoms, ref_weights = d["reference"]
    _check_law(ref_atoms, ref_weights, "reference_law")
    law_atoms, law_weights = d["law"]
    _check_law(law_atoms, law_weights, "law")
    if lam < 0:
        raise CheckFailed("multiplier", f"lagrangian.lambda={show(lam)} must be >= 0")

    p_ref = cell_probabilities(cells, *d["reference"])
    p_star = cell_probabilities(cells, *d["law"])
    for (k, s_c, _), r, t in zip(cells, p_ref, p_star):
        if r <= 0 or t <= 0:
            which = "reference_law" if r <= 0 else "law"
            raise CheckFailed(
                "cell_probabilities",
                f"{which} gives probability 0 to the cell K={k}, S={s_c}: its log-likelihood is -infinity",
            )

    for start, end, g in pieces:
        f = lagrangian_polynomial(g, s, a, lam, cells, p_star)
        if f.is_zero():
            continue
        # a point piece maps onto a constant: no contact hints (and no division by its length 0)
        hints = (
            [(x - start) / (end - start) for x in near_contacts(f, d["law"][0]) if start <= x <= end]
            if start < end
            else []
        )
        ok, why = positive_on_closed_unit_interval(on_piece(f, start, end), hints)
        if not ok:
            form = "g - a - lambda h" if s > 0 else "a - g - lambda h"
            where = (
                "[0, 1]"
                if len(pieces) == 1
                else f"[{start}, {end}] (g = {g(0)})"
                + ("" if (start, end) == (0, 1) else ", mapped onto [0, 1]" if start < end else ", a point")
            )
            raise CheckFailed("lagrangian_sign", f"{form} >= 0 on {where} is not proven: {why}")

    bits, b, narrow = likelihood_ball(cells, p_ref, p_star, c)
    if not narrow:
        raise CheckFailed(
            "likelihood_ball", f"the ball of b = l(pi_ref) - c - l(pi*) + N is too wide at {bits} bits: {b}"
        )
    with workprec(bits):  # s a - s bound exactly: a and the bound may be huge and nearly cancel
        slack = flint.arb(to_fmpq(s * (a - bound))) + flint.arb(to_fmpq(lam)) * b
    if not slack >= 0:
        rel, form = ("<=", "a + lambda b") if s > 0 else (">=", "a - lambda b")
        raise CheckFailed(
            "bound",
            f"bound={float(bound)!r} is not {rel} {form} (b = {b.mid().str(12, radius=False)}; "
            f"difference {slack.mid().str(5, radius=False)})",
        )

    n = sum(m for _, _, m in cells)
    ks = sorted({k for k, _, _ in cells})
    calls = f"K = {ks[0]}" if len(ks) == 1 else f"K = {ks[0]}..{ks[-1]}"
    rel = ">=" if s > 0 else "<="
    # Only what was proven: the bound (rounded outward), the drop c (rounded down: a smaller set,
    # a weaker and still true statement) and the data. alpha and the calibration label say how
    # the producer chose c; they are not checked, so they are not printed.
    msg = (
        f"{side} bound of E[{name}] {rel} {rounded(bound, s > 0, 10)} for every law with log-likelihood "
        f">= l(reference) - {rounded(c, True, 7)} on {n} examples ({calls})"
    )
    return VerificationResult(True, None, msg, side, name, None, bound)


def verify_likelihood_dict(cert) -> VerificationResult:
    """Check a schema-version-2 certificate given as a parsed JSON object; never raises on bad data.

    Parameters
    ----------
    cert : dict
        The certificate as loaded from JSON (``certify/schemas/certificate-v2.json``).

    Returns
    -------
    VerificationResult
        ``ok`` with the proven bound in :attr:`~VerificationResult.bound`, or the name
        of the first failed check of :data:`CHECKS`.
    """
    return checked(_run, cert)
