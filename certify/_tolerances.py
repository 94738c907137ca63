"""Tolerances and grid sizes of the math core, named, with why.

Each layer keeps its own tolerances (:mod:`certify.solvers._tolerances`,
:mod:`certify.likelihood._tolerances`, ...); most here belong to the one screen that
the solvers, the likelihood engine and the certificate builders share
(:mod:`certify._screen`). Its grid size and Newton's stopping step depend on what the
screen is for, so each purpose has its own, under names that say which
(:data:`certify._screen.POLICIES` puts them together). Grid sizes count cells: a grid
of c cells on an interval has c + 1 points.
"""

# -- the majority polynomials (:mod:`certify._majority`) -------------------------------------

#: Decimal digits of the one mpmath evaluation of log P_n'(1/2) per n: 30 digits leave the
#: double correctly rounded (it needs 17) after the cancellation in log B(n+1, n+1) + n log 4.
DENSITY_DIGITS = 30

# -- the moment-space check (:func:`certify._moments._check_general`) -------------------------

#: The Hankel conditions are checked on the first 16 moments, then on twice as many, up to all
#: of them: those of a prefix are necessary for the whole vector, and moments estimated from
#: data mostly fail there (4 examples x 2000 calls: at order 8), where a matrix has 9 rows
#: instead of 1001. 16 is about where an interior law's smallest eigenvalue meets the
#: tolerance (the uniform law's: 3.5e-12 at order 16), the last order at which a pass still
#: means nearly what it says.
HANKEL_FIRST_ORDER = 16

# -- Newton on r' (all purposes) -----------------------------------------------------------

#: Safeguarded Newton iterations at most: a bisection step halves the bracket, so 80 of
#: them reach the resolution of doubles from any grid cell; Newton needs about five.
NEWTON_MAX_ITER = 80

# -- the solvers' contact grid (the maxima of f - p, Theorem 4.1) -----------------------------

#: Chebyshev-Lobatto cells per unit of degree: enough to resolve every local extremum of
#: f - p for a degree-d objective, and what the grid cell bounds of the majorant screen
#: (:func:`certify.solvers._contact.cell_bounds`) assume (r'' changes by less than a factor
#: two within a cell).
CONTACT_CELLS_PER_DEGREE = 4
#: At least 256 cells (small degrees: the acceptance gates want maxima located well), at
#: most 16384 (beyond, sampling the objective costs more than the solve).
CONTACT_MIN_CELLS = 256
CONTACT_MAX_CELLS = 16384
#: A maximum of f - p is located when a Newton step is at most 1e-14: in the quadratic
#: regime the error left is its square, and the value is exact to rounding for the
#: acceptance gates (1e-12 relative). Tighter than the likelihood's step: these maxima
#: are the violations and contact points a certificate is judged by.
CONTACT_STEP_TOL = 1e-14

# -- the likelihood screen (the minima of psi = g - lambda h, eq. (L4)) -----------------------

#: Equispaced cells per unit length and per degree of psi, and at least 4096 per unit
#: length: the binomial kernels of degree K have features no narrower than ~1/sqrt(8 K)
#: (0.035 for V_101), across which this puts tens of points. Finer than the contact grid
#: (whose Chebyshev points are dense only near the ends) because psi's features sit anywhere.
LIKELIHOOD_CELLS_PER_DEGREE = 8
LIKELIHOOD_MIN_CELLS = 4096
#: A minimum of psi is located when a Newton step is at most 1e-12: convergence is
#: quadratic, so the remaining error is ~1e-24 and psi is off by ~psi'' 1e-48; the screened
#: points are starting atoms that Newton on (L9) polishes again.
LIKELIHOOD_STEP_TOL = 1e-12

# -- the likelihood certificate builder (the minimum of its Lagrangian) --------------------

#: Equispaced cells per degree, at least 2000, on each piece: the builder lowers the
#: Lagrangian by a margin below its minimum, and a missed minimum costs a failed exact
#: check and a larger margin, so the screen is made generous where exact arithmetic, not
#: the screen, dominates the cost.
CERTIFICATE_CELLS_PER_DEGREE = 20
CERTIFICATE_MIN_CELLS = 2000
#: A minimum is located when a Newton step is at most 1e-15 (a few float spacings at 1):
#: the exact value there exceeds the minimum by ~ f'' 1e-30, far below the builder's margins.
CERTIFICATE_STEP_TOL = 1e-15
