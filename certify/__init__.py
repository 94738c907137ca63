"""certify: sharp bounds and exact certificates for voting over repeated LLM calls.

The top-level namespace holds what the README documents; everything else lives in its
subpackage (:mod:`certify.readers`, :mod:`certify.likelihood`, :mod:`certify.stats`,
:mod:`certify.certificates`, :mod:`certify.solvers`, :mod:`certify.experiment`,
:mod:`certify.report`), each with its own curated namespace.

* objectives: :func:`vote_accuracy`, :func:`parse_objective`, :class:`Objective`,
  :func:`majority_polynomial`; vote budgets: :data:`V_INF` (the infinite budget, a
  :class:`VoteLimit`) and :func:`parse_vote_budget`;
* moment classes: :func:`moment_class` -> :class:`Moments`, :func:`nu_from_rho`, :func:`rho_from_nu`;
* sharp bounds (Theorem 4.1): :func:`sharp_bounds`, :func:`sharp_bound`, the vectorized
  :func:`sharp_bound_arrays`, with results :class:`SharpBounds`, :class:`Bound`, :class:`Law`,
  :class:`BoundArrays`;
* closed forms: :func:`three_vote_bounds` (Theorem 4.2) -> :class:`ThreeVoteBounds`,
  :func:`one_call_three_vote_envelope` (eq. (onecall-envelope-main), Appendix A.3),
  :func:`improvement_threshold`, :func:`endpoint_bounds` (Theorem 4.3) -> :class:`EndpointBounds`;
* certificates: :func:`certify_bound`, :func:`certify_many` build exact, auditable
  certificates; :func:`verify_certificate` re-checks one with the independent exact checker;
  :func:`dump_certificate` / :func:`load_certificate`;
* data (:mod:`certify.readers`): :func:`read_bits` -> :class:`CallBits`;
* statistics (Section 4.4, Section 5; :mod:`certify.stats`): :func:`analyze`,
  :func:`two_call_estimates`, :func:`wald_region`, :func:`project_many` (projected Wald
  intervals), :func:`maxent_completion`, :func:`ldgp_completion`;
* the K-call likelihood (:mod:`certify.likelihood`): :func:`cell_counts`, :func:`npmle`,
  :func:`likelihood_intervals`;
* errors: :class:`CertifyError` and its subclasses :class:`InputError` (also a
  ``ValueError``), :class:`InfeasibleMomentsError`, :class:`ObjectiveError`,
  :class:`DataError`, :class:`SolverError`.
"""

import importlib as _importlib

# Readers, statistics and certificates load numpy, scipy.stats and the checker on
# first use (PEP 562), so that `import certify` and `certify bounds` start fast.
_LAZY = {
    "certify_bound": ("certify.certificates", "certify_bound"),
    "certify_many": ("certify.certificates", "certify_many"),
    "dump_certificate": ("certify.certificates", "dump"),
    "load_certificate": ("certify.certificates", "load"),
    "verify_certificate": ("certify.certificates", "verify"),
    **{name: ("certify.readers", name) for name in ("CallBits", "DataError", "read_bits")},
    **{name: ("certify.likelihood", name) for name in ("cell_counts", "likelihood_intervals", "npmle")},
    **{name: ("certify.stats", name) for name in ("analyze", "ldgp_completion", "maxent_completion", "project_many",
                                                  "two_call_estimates", "wald_region")},
}


def _version() -> str:
    """The installed distribution's version: written once, in pyproject.toml ([project] version)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("certify")
    except PackageNotFoundError:  # a source tree on sys.path that was never installed
        return "0+unknown"


def __getattr__(name: str):
    if name == "__version__":  # read from the package metadata on first use (PEP 562)
        value = globals()["__version__"] = _version()
        return value
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(_importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'certify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


from ._bounds import BoundArrays, sharp_bound, sharp_bound_arrays, sharp_bounds
from ._closed_forms import ThreeVoteBounds, improvement_threshold, one_call_three_vote_envelope, three_vote_bounds
from ._endpoint import EndpointBounds, endpoint_bounds
from ._errors import CertifyError, InfeasibleMomentsError, InputError, ObjectiveError, SolverError
from ._majority import majority_polynomial
from ._moments import Moments, nu_from_rho, rho_from_nu
from ._moments import moments as moment_class
from ._objective import V_INF, Objective, VoteLimit, parse_objective, parse_vote_budget, vote_accuracy
from ._results import Bound, Law, SharpBounds

__all__ = [
    *_LAZY,
    "Bound",
    "BoundArrays",
    "CertifyError",
    "EndpointBounds",
    "InfeasibleMomentsError",
    "InputError",
    "Law",
    "Moments",
    "Objective",
    "ObjectiveError",
    "SharpBounds",
    "SolverError",
    "ThreeVoteBounds",
    "V_INF",
    "VoteLimit",
    "endpoint_bounds",
    "improvement_threshold",
    "majority_polynomial",
    "moment_class",
    "nu_from_rho",
    "one_call_three_vote_envelope",
    "parse_objective",
    "parse_vote_budget",
    "rho_from_nu",
    "sharp_bound",
    "sharp_bound_arrays",
    "sharp_bounds",
    "three_vote_bounds",
    "vote_accuracy",
]
