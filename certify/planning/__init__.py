"""Planning a study from pilot data: how many examples and calls certify that k votes beat one.

Paper context: a study of N examples with K calls each reports the likelihood-ratio interval of
V_k and of the gain V_k - V_1 (:mod:`certify.likelihood`, eqs. (L6)-(L11)). Before the study is
run, a pilot's cells give two scenarios for the latent law (its NPMLE and the least favourable
law of its likelihood set); each design (N, K) is simulated under each, and the plan reports the
probability of certifying the gain and the mean width of the V_k interval, with their Monte Carlo
standard errors. These are simulation estimates under the conditional-i.i.d. model, not
guarantees (:mod:`._planning` has the design of the simulation and its cost).

Planning
--------

* :func:`plan_study` -- simulated width and probability of certifying a gain, per design.
* :class:`StudyPlan` -- result of :func:`plan_study` (``to_dict`` / ``from_dict``).
* :class:`PlanRow` -- one design under one scenario.
* :data:`DEFAULT_PLAN_REPS` -- simulated studies per default design.
* :data:`DEFAULT_WIDTH_REPS` -- studies per default design whose interval is solved for the mean width.
* :data:`PLAN_SCHEMA_VERSION` -- schema version of a study plan's JSON.

Layering: at the level of :mod:`certify.stats`; a client of :mod:`certify.likelihood` and the
core, it imports nothing from :mod:`certify.stats`. ``certify plan`` (:mod:`certify.cli.plan`)
parses, calls :func:`plan_study` and prints.
"""

from ._planning import DEFAULT_PLAN_REPS, DEFAULT_WIDTH_REPS, PLAN_SCHEMA_VERSION, PlanRow, StudyPlan, plan_study

__all__ = ["DEFAULT_PLAN_REPS", "DEFAULT_WIDTH_REPS", "PLAN_SCHEMA_VERSION", "PlanRow", "StudyPlan", "plan_study"]
