"""The K-call likelihood: the NPMLE of the latent law and certified likelihood-ratio intervals.

Paper context: the hierarchy of eq. (hierarchy-main) -- calls B_ij ~ Bernoulli(q_i) independently
given q_i, q_i ~ pi -- with the law pi left completely unspecified. From every recorded call of
every example, the package estimates pi by nonparametric maximum likelihood and bounds E_pi[g]
(a vote accuracy V_k, V_inf, a gain V_k - V_1, pass@k = 1 - (1-q)^k, pass@inf = P(Q > 0), any
polynomial) over the laws whose likelihood is
within c of the maximum; each end of such an interval carries a Lagrangian certificate that an
independent exact checker re-proves (:mod:`certify.certificates`).

Cells
-----

* :func:`~certify.cell_counts` -- aggregate per-example (K_i, S_i) into cell counts n_{K,S}.
* :class:`CellCounts` -- counts n_{K,S} of examples with K calls of which S are correct (eq. (L1)).

The NPMLE
---------

* :func:`~certify.npmle` -- nonparametric maximum-likelihood estimate of the latent law (eq. (L3)).
* :class:`LatentLaw` -- the NPMLE pi-hat and its optimality check (eqs. (L3), (L5)).
* :func:`log_likelihood` -- l(pi) = sum_c n_c log p_c(pi) for a law's atoms and weights (eq. (L2)).
* :func:`gradient_function` -- D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(law) - N at points q (eq. (L4)).

Intervals
---------

* :func:`likelihood_interval` -- likelihood-ratio interval [min, max] of E_pi[g] over {l(pi) >= l(pi-hat) - c} (L6).
* :func:`~certify.likelihood_intervals` -- likelihood-ratio intervals of many objectives sharing one NPMLE.
* :func:`likelihood_bound` -- one end of the likelihood-ratio interval of E_pi[g].
* :func:`likelihood_envelope` -- min of one objective, max of another, over one likelihood set.
* :class:`LikelihoodInterval` -- a likelihood-ratio interval: two :class:`LikelihoodEnd`.
* :class:`LikelihoodEnd` -- one end with its Lagrangian certificate (eqs. (L9)-(L11)).
* :func:`is_infinite_budget` -- True for the infinite budget V_inf in any spelling (a step function).
* :class:`WarmStarts` -- starts carried from one data set to the next, for simulation studies.
* :func:`witness_below` -- a law of the set that puts a lower end below a value (no end solved).

Calibration
-----------

* :func:`critical_value` -- the log-likelihood drop c of a likelihood-ratio interval (eq. (L6)).
* :func:`identified_df` -- dimension of the identified cell probabilities (K for one K).
* :func:`profile_drop` -- D(v) of eq. (P1): the smallest drop c whose interval holds a value.

A latent law on a finite grid (the answer model of :mod:`certify.stats`)
------------------------------------------------------------------------

* :class:`FiniteModel` -- a latent law on J grid points: the kernel of the observed cells and their counts.
* :func:`finite_interval` -- (estimate, lower, upper) of E_pi[g] over the grid's likelihood set (not certified).

Exact certificates of the ends
------------------------------

* :func:`certify_interval` -- exact certificates of both ends of an interval already solved.
* :func:`certified_intervals` -- likelihood-ratio intervals with an exact certificate for each end.
* :func:`certified_envelope` -- :func:`likelihood_envelope` with an exact certificate for each end.

The implementation
------------------

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
``_end_starts``        (L7) on a grid: starting laws and multipliers for Newton from the end
                       among laws on a grid (compiled CNM, regula falsi on log lambda).
``_cnm_kernels``       (L8) compiled (numba): the simplex quadratic program of CNM, CNM on a
                       grid (the NPMLE's start) and the end on a grid (the ends' starts).
``_npmle``             (L3)-(L5): pi-hat and the check max D <= tolerance.
``_calibration``       (L6), (L13), (S1): the drop c -- profile / projection / face / simultaneous,
                       identified df, the F small-sample form, the small-count (lattice)
                       calibration -- and ``_Context``, the set C of one batch.
``_profile``           (P1): the profile drop D(v), the smallest c whose interval holds a value v
                       (Newton in c; one D per data set gives the coverage of every calibration).
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
builds the analysis report and study plans on these names, without re-exporting them).
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
