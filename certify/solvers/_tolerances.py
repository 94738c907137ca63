"""Every tolerance of the exact solver (:mod:`._exact`), named, with why it has its value.

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

#: Newton from a wrong pattern wanders: give up after NEWTON_STALL_AFTER iterations once a
#: step is more than NEWTON_STALL_RATIO of the previous one, or when a weight exceeds
#: NEWTON_MAX_WEIGHT (a law of probabilities has weights <= 1).
NEWTON_STALL_AFTER = 6
NEWTON_STALL_RATIO = 0.5
NEWTON_MAX_WEIGHT = 1e6

# -- the exchange (simplex) step ------------------------------------------------------

#: Cost of an artificial column, times T.scale: far above any objective value, so every
#: artificial column leaves the basis while the moments are feasible.
ARTIFICIAL_COST = 1e4

#: An artificial column still carrying this much weight at the grid optimum means the
#: moments are outside the moment space of the grid.
ARTIFICIAL_WEIGHT = 1e-12

#: Entries of the entering direction below this fraction of its largest entry are zero
#: for the ratio test (rounding of the basis solve).
PIVOT_TOL = 1e-13

#: Ratios within this of the smallest are ties (artificial columns leave first).
TIE_TOL = 1e-15

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
