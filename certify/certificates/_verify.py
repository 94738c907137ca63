"""The independent checker of sharp-bound certificates (paper Theorem 4.1, eqs. (dual-L-main)-(dual-U-main)).

This module and the kernel modules it imports (:mod:`._kernel`, :mod:`._checking`,
:mod:`._budget`, :mod:`._objective_check`, :mod:`._proofs`) are the whole trusted base of a
certificate. They are meant to be read in one sitting: they import only the standard
library and python-flint, share no code with the solvers or the certificate
builders, and use exact rational arithmetic only. Everything the check needs -- the
objective polynomial, the moments, the law and the dual polynomial -- is re-derived
from the certificate's own data, and the objective's name must denote exactly the
certified polynomial (:func:`~certify.certificates._objective_check.name_polynomial`).

What it proves, for side ``s = +1`` (upper) or ``s = -1`` (lower):

1. the law is a probability law on [0, 1] with at most m+1 atoms whose moments
   are exactly the certificate's moments, so its value P = sum w_j g(x_j) is
   attained inside the moment class: P <= U (upper) or P >= L (lower); the
   recorded primal value may be P rounded away from the dual side (to keep the
   file short), so the check is recorded <= P (upper) or recorded >= P (lower);
2. ``s * (p - g) >= 0`` on all of [0, 1] for the dual polynomial p of degree
   <= m, so D = sum_k c_k m_k bounds E g(Q) for every law of the class
   (weak duality, the easy half of Theorem 4.1): U <= D or L >= D;
3. hence the sharp bound lies in the enclosure [min(P, D), max(P, D)].

The sign in (2) is proven by dividing out the listed contact factors
(x, 1 - x, or (x - c)^2 for interior rational c) exactly, and showing the
quotient is strictly positive on [0, 1] (:mod:`._proofs`).
"""

from __future__ import annotations

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
)
from ._kernel import SCHEMA_VERSION, SHARP_KIND, poly, value_at
from ._objective_check import objective_polynomial
from ._proofs import positive_on_closed_unit_interval

__all__ = ["CHECKS", "verify_dict"]

#: The checks, in the order they run; a result names the first that failed
#: ("json" is reported by :func:`certify.certificates.verify` for unparsable text).
CHECKS = (
    "json",
    "schema_version",
    "work_limit",
    "structure",
    "readable_floats",
    "objective",
    "objective_name",
    "moments",
    "atom_count",
    "atoms_in_unit_interval",
    "weights_nonnegative",
    "moment_equations",
    "primal_value",
    "dual_degree",
    "dual_value",
    "contacts",
    "dual_sign",
    "enclosure",
    "value_in_enclosure",
)


def _run(cert) -> VerificationResult:
    check_budget(cert)
    side, s = check_header(cert, (SCHEMA_VERSION,), SHARP_KIND)
    obj = require_keys(cert["objective"], "objective", ("name", "degree", "majority", "bernstein"))
    g, name = objective_polynomial(obj)
    theta, given, atoms, weights, coeffs, contacts, primal, dual_value, enclosure, width, value = read_bound(cert)

    check_law(atoms, weights, theta)
    check_primal_value(primal, sum(w * value_at(g, x) for x, w in zip(atoms, weights)), s, "sum_j w_j g(x_j)")
    check_dual_value(coeffs, theta, dual_value)

    f = divide_contacts((poly(coeffs) - g) * s, contacts, "s*(p - g)")
    if not f.is_zero():
        ok, why = positive_on_closed_unit_interval(f, atoms)
        if not ok:
            raise CheckFailed(
                "dual_sign", f"the {'majorant' if s > 0 else 'minorant'} property s*(p - g) >= 0 on [0, 1] fails: {why}"
            )

    lo, hi = check_enclosure(enclosure, width, value, primal, dual_value, s)
    msg = (
        f"{side} bound of E[{name}] in {enclosure_text(lo, hi)} "
        f"over all laws on [0, 1] with {given} (exactly {describe_moments(theta)})"
    )
    return VerificationResult(True, None, msg, side, name, (lo, hi))


def verify_dict(cert) -> VerificationResult:
    """Check a schema-version-1 certificate given as a parsed JSON object; never raises on bad data.

    Parameters
    ----------
    cert : dict
        The certificate as loaded from JSON (see ``certify/schemas/certificate-v1.json``).

    Returns
    -------
    VerificationResult
        ``ok`` with the certified interval, or the name of the first failed check.
    """
    return checked(_run, cert)
