"""The K-call likelihood: the NPMLE of the latent law and certified likelihood-ratio intervals.

Paper context: the hierarchy of eq. (hierarchy-main) -- calls B_ij ~ Bernoulli(q_i) independently
given q_i, q_i ~ pi -- with the law pi left completely unspecified. From every recorded call of
every example, the package estimates pi by nonparametric maximum likelihood and bounds E_pi[g]
(a vote accuracy V_k, V_inf, a gain V_k - V_1, pass@k = 1 - (1-q)^k, pass@inf = P(Q > 0), any
polynomial) over the laws whose likelihood is
within c of the maximum; each end of such an interval carries a Lagrangian certificate that an
independent exact checker re-proves (:mod:`certify.certificates`).

Public names:

* cells: :func:`cell_counts` -> :class:`CellCounts` (``CellCounts.from_bits`` for
  :class:`~certify.CallBits`);
* the NPMLE: :func:`npmle` -> :class:`LatentLaw`; :func:`log_likelihood`, :func:`gradient_function`;
* intervals: :func:`likelihood_interval`, :func:`likelihood_intervals`, :func:`likelihood_bound`
  -> :class:`LikelihoodInterval` of two :class:`LikelihoodEnd`; :func:`likelihood_envelope`
  (min of one objective, max of another, from one set); :func:`is_infinite_budget`;
  :class:`WarmStarts` (starts carried from one data set to the next, for simulation studies);
  :func:`witness_below` (a law of the set that puts a lower end below a value, no end solved);
* calibration: :func:`critical_value`, :func:`identified_df`;
* a latent law on a finite grid of a model (the answer model of :mod:`certify.stats`):
  :class:`FiniteModel`, :func:`finite_interval` (floating point, not certified);
* exact certificates of the ends: :func:`certify_interval` (of an interval already solved),
  :func:`certified_intervals` (solve and certify), :func:`certified_envelope`.

Where each step lives (equations (L1)-(L13) and (S1), each with the module that implements it):

=====================  ==========================================================================
``_cells``             (L1)-(L2): per-example (K_i, S_i) -> cell counts n_{K,S}; the data model.
``_targets``           (L12): what one end minimizes -- sign * g on closed pieces (V_inf and
                       pass@inf: constant pieces, their semicontinuous envelopes) -- and working
                       laws on them; the clamp of reported ends onto the range of g.
``_problem``           (L2), (L4): the binomial kernel of the cells and its derivatives; the global
                       screen of psi = g - lambda h on [0, 1] (the core screen,
                       :mod:`certify._screen`: grid + safeguarded Newton).
``_cnm``               (L8): the constrained Newton method and its simplex quadratic program;
                       the vertex-exchange step.
``_newton``            (L9): Newton's method on the optimality equations of a fixed support
                       (watchdog line search, trust region); merging of CNM's atom pairs.
``_conic``             (L3), (L7) dual: starting laws for Newton from the conic duals of the
                       NPMLE and of one end (the inequality on [0, 1] on a grid; Clarabel).
``_npmle``             (L3)-(L5): pi-hat and the check max D <= tolerance.
``_calibration``       (L6), (L13), (S1): the drop c -- profile / projection / face / simultaneous,
                       identified df, the F small-sample form, the small-count (lattice)
                       calibration -- and ``_Context``, the set C of one batch.
``_ends``              (L7), (L10)-(L11): one end -- lambda = 0 test, Newton from warm starts,
                       Brent's method on log lambda -- and its checked certificate.
``_intervals``         (L6): batches of objectives, both ends, one NPMLE; the public solvers;
                       envelopes of two objectives.
``_finite``            (L6)-(L11) for a latent law on a finite grid with a given kernel (a model of
                       more than one latent coordinate): CNM with psi at every point, bisection
                       on log lambda, each end the Lagrangian bound (L11).
``_warm``              :class:`WarmStarts`: the last NPMLE and ends of a sequence of similar data
                       sets, to start the next one's solves (a study plan's simulations).
``_witness``           (L6): a law of C with E[g] below a value proves the lower end below it.
``_results``           :class:`LatentLaw`, :class:`LikelihoodEnd`, :class:`LikelihoodInterval`.
``_certificates``      ends -> version-2 certificates (:func:`certify_interval`, :func:`certified_intervals`,
                       :func:`certified_envelope`).
``_tolerances``        every tolerance and tuning constant, with why its value.
=====================  ==========================================================================

How data walk from calls to certified interval ends:

1. correctness bits or (K_i, S_i) -> :class:`CellCounts` (``_cells``); every later step works on
   the at most sum_K (K+1) cells, never on the N examples;
2. the cells -> ``_Problem`` (``_problem``): kernel tables and screening grids, built once;
3. -> pi-hat (``_npmle``): CNM (``_cnm``) then Newton (``_newton``) until max D is below its
   tolerance (eq. (L5));
4. -> per objective, c and the level l(pi-hat) - c (``_calibration``);
5. -> each end (``_ends``): min E_pi[sign g] over {l >= level} by Newton on (L9) from a warm start,
   else Brent's method on log lambda with CNM inner solves; then a = min psi from the screen
   and the checks ``|value - (a + lambda b)| <= tolerance`` and l(pi*) >= level (eqs. (L10)-(L11));
6. -> where the small-count calibration raises c, or the face calibration (``beyond="face"``)
   lowers it for an objective beyond K, both ends again at the new level (``_intervals``);
7. -> optionally, each end -> an exact certificate (``_certificates``).

Layering: above :mod:`certify.certificates` and the core, below :mod:`certify.stats` (which
re-exports these names and builds the analysis report and study plans on them).
"""

from ._calibration import critical_value, identified_df
from ._cells import CellCounts, cell_counts
from ._certificates import certified_envelope, certified_intervals, certify_interval
from ._finite import FiniteModel, finite_interval
from ._intervals import likelihood_bound, likelihood_envelope, likelihood_interval, likelihood_intervals
from ._npmle import gradient_function, log_likelihood, npmle
from ._profile import profile_drop
from ._results import LatentLaw, LikelihoodEnd, LikelihoodInterval
from ._targets import is_infinite_budget
from ._warm import WarmStarts
from ._witness import witness_below

__all__ = [
    "CellCounts",
    "FiniteModel",
    "LatentLaw",
    "LikelihoodEnd",
    "LikelihoodInterval",
    "WarmStarts",
    "cell_counts",
    "certified_envelope",
    "certified_intervals",
    "certify_interval",
    "critical_value",
    "finite_interval",
    "gradient_function",
    "identified_df",
    "is_infinite_budget",
    "likelihood_bound",
    "likelihood_envelope",
    "likelihood_interval",
    "likelihood_intervals",
    "log_likelihood",
    "npmle",
    "profile_drop",
    "witness_below",
]
