"""Tolerances of the certificate builders, named, with why (the checkers' own rules live with them).

The builders only choose candidates; every certificate is accepted by an independent
exact checker (:mod:`._verify`, :mod:`._verify_likelihood`), so these values trade
tightness and speed, never validity.
"""

from fractions import Fraction

# -- the sharp-bound builder (:mod:`._build`, schema 1) ------------------------------------

#: Atoms of a ``grid`` or ``sos`` law at most CLUSTER_DISTANCE apart are one contact (an
#: interior-point solution spreads one atom over a few neighbouring grid points, 5e-4 apart
#: on the default 2001-point grid); weights at most CLUSTER_WEIGHT_FLOOR are solver residue.
CLUSTER_DISTANCE = 2e-3
CLUSTER_WEIGHT_FLOOR = 1e-12
#: The mpmath KKT polish works at the requested digits + POLISH_GUARD_DIGITS and stops at
#: a step below 10^-(digits + POLISH_STEP_DIGITS): Newton's quadratic convergence then
#: leaves errors far below 10^-digits. It gets POLISH_MAX_ITER iterations from a float
#: solution already correct to ~1e-12 (a few suffice).
POLISH_GUARD_DIGITS = 15
POLISH_STEP_DIGITS = 10
POLISH_MAX_ITER = 40
#: A rationalized dual touches g at an end atom when |p - g| there is below END_CONTACT
#: (far above the float dual's rounding, far below any real gap): only then is it made
#: exact there; other end atoms were added by a solver to absorb rounding.
END_CONTACT = Fraction(1, 10**8)
#: Exact Newton steps of the lift's minimizer (:func:`._minimize.newton_minimum`) from each
#: atom: quadratic convergence from a near-optimal dual needs a handful.
LIFT_NEWTON_STEPS = 60
