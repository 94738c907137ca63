"""Independent exact checker of schema-version-3 certificates (the infinite-vote bound).

For side s = +1 (upper) or -1 (lower) with dual polynomial p and moments m_1..m_m:

1. the law reproduces (1, m_1, ..., m_m) exactly, with atoms in [0, 1] and weights >= 0;
   ``primal_value`` is V_inf(law) = (mass above 1/2) + (mass at 1/2)/2, exactly, or a
   value on the side that only widens the enclosure;
2. ``dual_value`` = sum_k c_k m_k and deg p <= m;
3. s p >= 0 on [0, 1/2] and s (p - 1) >= 0 on [1/2, 1], proven exactly on the halves
   mapped onto [0, 1] (q -> q/2 and q -> (1 + q)/2) after dividing out the stated
   contacts; then 1{q > 1/2} <= V_inf <= 1{q >= 1/2} gives E[V_inf] <= E[p] (s = +1) or
   >= E[p] (s = -1) for every law of the class;
4. the enclosure is [primal, dual] (upper) or [dual, primal] (lower), with the value inside.

Nothing is solved; every number is an exact rational.
"""

from __future__ import annotations

from fractions import Fraction

import flint

from ._budget import check_budget
from ._checking import (
    CheckFailed,
    VerificationResult,
    check_dual_value,
    check_enclosure,
    check_header,
    check_law,
    check_primal_value,
    checked,
    describe_moments,
    divide_contacts,
    enclosure_text,
    read_bound,
    require_keys,
    show,
)
from ._kernel import ENDPOINT_DEFINITION, ENDPOINT_KIND, ENDPOINT_NAME, ENDPOINT_SCHEMA_VERSION, poly
from ._proofs import on_piece, positive_on_closed_unit_interval
from ._verify import CHECKS as SHARP_CHECKS

__all__ = ["CHECKS", "endpoint_value", "verify_endpoint_dict"]

#: The checks, in the order they run: those of schema 1 but the name binding (the
#: objective is fixed, so its two fields are compared with the constants).
CHECKS = tuple(c for c in SHARP_CHECKS if c != "objective_name")

_HALF = Fraction(1, 2)


def endpoint_value(atoms: list[Fraction], weights: list[Fraction]) -> Fraction:
    """V_inf of a finite law, exactly: mass above 1/2 plus half the mass at 1/2 (eq. (main-vinf))."""
    return (
        sum((w for x, w in zip(atoms, weights) if x > _HALF), Fraction(0))
        + sum((w for x, w in zip(atoms, weights) if x == _HALF), Fraction(0)) / 2
    )


def _halves(p: flint.fmpq_poly, s: int, contacts) -> None:
    """Prove s p >= 0 on [0, 1/2] and s (p - 1) >= 0 on [1/2, 1] (check dual_sign)."""
    left = on_piece(p, Fraction(0), _HALF) * s  # s p(q / 2), q in [0, 1]
    right = (on_piece(p, _HALF, Fraction(1)) - 1) * s  # s (p((1 + q) / 2) - 1)
    on_left, on_right = [], []
    for point, mult in contacts:
        if point < _HALF:
            on_left.append((2 * point, mult))
        elif point > _HALF:
            on_right.append((2 * point - 1, mult))
        elif left(flint.fmpq(1)) == 0:  # x = 1/2 is the end of the half where the gap vanishes
            on_left.append((Fraction(1), mult))
        else:
            on_right.append((Fraction(0), mult))
    for name, f, touching in (("[0, 1/2]", left, on_left), ("[1/2, 1]", right, on_right)):
        f = divide_contacts(f, touching, f"the gap on {name}")
        if f.is_zero():
            continue
        ok, why = positive_on_closed_unit_interval(f, [x for x, _ in touching])
        if not ok:
            level = "0" if name == "[0, 1/2]" else "1"
            relation = ">=" if s > 0 else "<="
            raise CheckFailed("dual_sign", f"p {relation} {level} on {name} fails: {why}")


def _run(cert) -> VerificationResult:
    check_budget(cert)
    side, s = check_header(cert, (ENDPOINT_SCHEMA_VERSION,), ENDPOINT_KIND)
    obj = require_keys(cert["objective"], "objective", ("name", "definition"))
    if obj["name"] != ENDPOINT_NAME or obj["definition"] != ENDPOINT_DEFINITION:
        raise CheckFailed(
            "objective",
            f"objective {show(obj['name'])} = {show(obj['definition'])} must be "
            f"{ENDPOINT_NAME!r} = {ENDPOINT_DEFINITION!r}, the only objective of this kind",
        )
    theta, given, atoms, weights, coeffs, contacts, primal, dual_value, enclosure, width, value = read_bound(cert)

    check_law(atoms, weights, theta)
    check_primal_value(primal, endpoint_value(atoms, weights), s, "V_inf(law)")
    check_dual_value(coeffs, theta, dual_value)
    _halves(poly(coeffs), s, contacts)
    lo, hi = check_enclosure(enclosure, width, value, primal, dual_value, s)
    what = "supremum" if s > 0 else "infimum"
    msg = (
        f"{what} of E[{ENDPOINT_NAME}] (infinitely many votes: {ENDPOINT_DEFINITION}) in {enclosure_text(lo, hi)} "
        f"over all laws on [0, 1] with {given} (exactly {describe_moments(theta)})"
    )
    return VerificationResult(True, None, msg, side, ENDPOINT_NAME, (lo, hi))


def verify_endpoint_dict(cert) -> VerificationResult:
    """Check a schema-version-3 certificate given as a parsed JSON object; never raises on bad data."""
    return checked(_run, cert)
