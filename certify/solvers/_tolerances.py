"""Every tolerance of the solvers, named, with why it has its value.

Values are relative to the target's scale T.scale = 1 + max|f| on the grid where they
say so, else absolute on quantities of order one (weights, moments, atoms in [0, 1]).
Doubles carry about 1.1e-16 relative precision; most gates sit a few hundred ulps above
that, so that a correct solution is never refused for rounding while a wrong contact
pattern (off by far more) never passes.
"""

# -- contact patterns ---------------------------------------------------------------

#: Atoms this close to 0 or 1 are endpoint contacts (no tangency condition): closer
#: than that, the tangency equation p'(x) = f'(x) is ill-conditioned and the endpoint
#: pattern is the one that certifies.
ENDPOINT_TOL = 1e-12

#: Merging neighbouring atoms of a basis into one contact: coarse gaps first (a grid
#: optimum splits one off-grid contact between neighbours), then finer ones (two genuine
#: contacts close together), then none.
MERGE_GAPS = ("grid", 1e-3, 1e-5, 1e-7, 0.0)

#: Atoms with less weight than this are dropped before merging: they are rounding
#: residue of the simplex, not contacts.
MERGE_WEIGHT_FLOOR = 1e-14

#: Atoms with less weight than this are left out of a returned law (pure rounding).
SUPPORT_FLOOR = 1e-16

# -- acceptance: the one check every route passes ----------------------------------

#: A dual p is accepted as a majorant when max(f - p) on [0, 1] is at most this times
#: (T.scale + sum|coefficients of p|): the rounding of evaluating p and f in doubles.
ACCEPT_TOL = 1e-12

#: ... and at most this times T.scale whatever its coefficients. At high moment orders the
#: monomial coefficients of a dual reach 1e12 (10 atoms, 20 moments of a Beta law), so the
#: relative rule alone accepted a dual failing by 3.2 -- a "sharp bound" that certifies
#: nothing. A dual failing by more than this is refused (the solve ends in SolverError); one
#: within it is reported with its violation (1e-5 at 10 moments of Beta(6.2, 2)), which the
#: CLI prints beside the bounds whenever it exceeds their last printed digit.
ACCEPT_MAX_VIOLATION = 1e-4

#: A law is accepted when no weight is below -WEIGHT_TOL and every moment equation
#: holds to MOMENT_TOL (absolute; moments and weights are of order one).
WEIGHT_TOL = 1e-13
MOMENT_TOL = 1e-13

# -- Newton on the KKT system --------------------------------------------------------

#: Converged: a relative step below NEWTON_STEP_DONE while the residual is below
#: NEWTON_RESIDUAL_DONE * T.scale. In the quadratic regime a step of 1e-9 leaves an error
#: near 1e-18, so another round of evaluations would change nothing.
NEWTON_STEP_DONE = 1e-9
NEWTON_RESIDUAL_DONE = 1e-6

#: Steps this small cannot improve further: converged if the residual is below
#: NEWTON_RESIDUAL_FLOOR * T.scale, else the pattern is wrong.
NEWTON_STEP_FLOOR = 1e-15
NEWTON_RESIDUAL_FLOOR = 1e-11

#: Iterations of the two-contact Newton (:func:`._two_moments.bitangent_law`): from the
#: grid's pattern it converges in a few, so more mean a wrong pattern.
BITANGENT_MAX_ITER = 16

#: After the iteration limit, converged only if the residual is this small (relative).
NEWTON_RESIDUAL_FINAL = 1e-13

#: Iterations of the KKT Newton (:func:`._exact._newton_kkt`): from a good pattern it
#: converges in a few; the stall rules below usually stop a wrong one much earlier.
NEWTON_MAX_ITER = 40

#: Newton from a wrong pattern wanders: give up after NEWTON_STALL_AFTER iterations once a
#: step is more than NEWTON_STALL_RATIO of the previous one, or when a weight exceeds
#: NEWTON_MAX_WEIGHT (a law of probabilities has weights <= 1).
NEWTON_STALL_AFTER = 6
NEWTON_STALL_RATIO = 0.5
NEWTON_MAX_WEIGHT = 1e6

# -- the exchange (simplex) step ------------------------------------------------------

#: Cost of an artificial column, times T.scale: far above any objective value, so every
#: artificial column leaves the basis while the moments are feasible -- unless the duals of
#: the monomial moments outgrow it (8e4 for V101 at 10 Beta moments): the exchange then
#: runs a first phase proper (_exact._feasible_basis) instead of trusting a larger constant.
ARTIFICIAL_COST = 1e4

#: An artificial column still carrying this much weight at the grid optimum means the
#: moments are outside the moment space of the grid.
ARTIFICIAL_WEIGHT = 1e-12

#: Entries of the entering direction below this fraction of its largest entry are zero
#: for the ratio test (rounding of the basis solve).
PIVOT_TOL = 1e-13

#: Ratios within this of the smallest are ties (artificial columns leave first).
TIE_TOL = 1e-15

#: Iterations of the exchange: EXCHANGE_ITER[0] * (m + 1) + EXCHANGE_ITER[1] on the grid
#: (from artificial columns, every moment needs a few pivots), CONTINUOUS_ITER likewise on
#: [0, 1] (from the grid's optimal basis, a few pivots per moment). More mean cycling.
EXCHANGE_ITER = (50, 200)
CONTINUOUS_ITER = (30, 60)

#: Two merged contact patterns of one basis are the same pattern when their atoms agree
#: to PATTERN_DECIMALS decimals (far below any merge gap): Newton is not run twice on it.
PATTERN_DECIMALS = 12

#: Relative reduced-cost tolerances of the continuous exchange, tightened in turn when
#: polishing the grid optimum fails (the first pass is the grid LP itself).
EXCHANGE_TOLS = (1e-9, 1e-12, 1e-15)

# -- faces found before (Target.faces) ----------------------------------------------------

#: A face is reused only where its weights are >= -FACE_WEIGHT_TOL and reproduce the
#: moments to FACE_RESIDUAL: as tightly as a freshly solved law.
FACE_WEIGHT_TOL = 1e-15
FACE_RESIDUAL = 1e-15

#: Only well-separated faces are remembered (weights above FACE_MIN_WEIGHT, atoms at
#: least FACE_MIN_GAP apart), so their weight systems stay well conditioned; atoms within
#: FACE_SAME of a remembered face are the same face.
FACE_MIN_WEIGHT = 1e-9

#: Only faces whose dual is a majorant to rounding (max(f - p) at most this times T.scale)
#: are remembered: a face serves many points, and a larger violation, though within
#: ACCEPT_TOL, would let their values differ from a fresh solve's by as much.
FACE_MAX_VIOLATION = 1e-14
FACE_MIN_GAP = 1e-6
FACE_SAME = 1e-12

# -- the majorant screen and the residual maxima (:mod:`._contact`) ------------------

#: An interior contact is a tangency when |f' - p'| there is at most this times
#: T.scale (1 + sum|coefficients of p|): the rounding of the two slopes, so a genuine
#: tangency always passes and a crossing (slope of order one) never does.
TANGENCY_TOL = 1e-13

#: The residual's local maxima are polished by the core screen (:mod:`certify._screen`);
#: its contact policy (``POLICIES[CONTACT]``) sets the grid and Newton's stopping step.

#: The batch screen's second, equispaced grid, for the rows the contact grid leaves
#: undecided, has FINE_FACTOR times as many cells: the cell bound of f - p shrinks with the
#: square of the cell width, so 8 times narrower cells bound it 64 times more tightly.
FINE_FACTOR = 8

#: Sampled f - p carries rounding of about one ulp of T.scale (2^-52 relative):
#: differences below ROUNDING * T.scale are not searched (:func:`._contact.rounding`).
ROUNDING = 2.0**-52

#: Contact points of a dual that agree to CONTACT_DECIMALS decimals are one (the same
#: maximum reached from two grid points; Newton locates it to ~1e-14).
CONTACT_DECIMALS = 14

#: Added (times T.scale) to the band below the sampled maximum where a larger local
#: maximum may hide (:meth:`._contact.Target.band`): the rounding of the samples.
BAND_SLACK = 1e-9

# -- recovering a law from a dual's contacts (``grid`` and ``sos`` methods) ----------

#: HiGHS's basic solution: columns with weight above this are the support.
RECOVERY_SUPPORT = 1e-15

#: A law re-solved on that support is kept if it meets the moments to this: looser
#: than MOMENT_TOL because the contacts of an interior-point dual are known only to
#: about 1e-5, and the law straddles them.
RECOVERY_MOMENT_TOL = 1e-12

#: Grid LP weights above this are its support (``grid`` method); an interior-point
#: solution also spreads ~1e-6 mass next to each contact, which the basic-solution
#: step removes.
GRID_SUPPORT_TOL = 1e-10

#: Relative tolerance (of T.scale) on f - p for a contact candidate of an SOS dual.
#: Generous on purpose: a spurious candidate only enlarges the recovery LP.
SOS_CONTACT_TOL = 1e-5

# -- the boundary of the moment space (:mod:`._boundary`) ----------------------------

#: Relative size of the smallest Hankel eigenvalue that marks a boundary point: moment
#: vectors within FEASIBILITY_TOL (1e-12) of the boundary are snapped onto it, so
#: genuine interior points have eigenvalues far above this.
BOUNDARY_TOL = 1e-11

#: Roots of the Hankel null vector's polynomial count as atoms when their imaginary
#: part is below ROOT_IMAG and they lie within ROOT_SLACK of [0, 1] (eigenvector
#: rounding moves double roots by about sqrt(1e-16)); roots closer than ROOT_SAME are
#: one atom.
ROOT_IMAG = 1e-6
ROOT_SLACK = 1e-9
ROOT_SAME = 1e-12

#: The boundary law's nonnegative least-squares weights must meet the moments to
#: BOUNDARY_RESIDUAL; weights at or below BOUNDARY_WEIGHT_FLOOR are rounding residue.
BOUNDARY_RESIDUAL = 1e-13
BOUNDARY_WEIGHT_FLOOR = 1e-14

#: sup (f - h) / omega: grid points closer than RATIO_FAR to an atom are left to the
#: l'Hopital limits there (the ratio is 0/0 to rounding); the refined maximum is
#: located to RATIO_XATOL; RATIO_SLACK (relative) keeps p = h + C omega a majorant
#: between samples.
RATIO_FAR = 1e-6
RATIO_XATOL = 1e-14
RATIO_SLACK = 1e-13

# -- the grid hull (:mod:`._hull`) ------------------------------------------------------

#: Facets whose outward normal has an f-component above this (relative to the normal's
#: length) are upper facets; the facet over the chord from (0, 0) to (1, 1) is vertical
#: (component 0 to rounding) and belongs to neither side.
UPPER_FACET = 1e-9
