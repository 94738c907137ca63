"""certify: sharp two-moment certificates for majority voting over repeated LLM calls.

Public namespace (everything else lives in private ``_module.py`` files):

* objectives: :func:`vote_accuracy`, :func:`majority_objective`, :func:`parse_objective`,
  :class:`Objective`, :func:`majority_polynomial`, :func:`majority_index`;
* vote budgets: :data:`V_INF` (the infinite budget, a :class:`VoteLimit`) and
  :func:`parse_vote_budget`, which reads a count or any spelling of infinity;
* moment classes: :func:`moment_class`, :class:`Moments`, :func:`nu_from_rho`,
  :func:`rho_from_nu`, :func:`pair_table`;
* sharp bounds (Theorem 4.1): :func:`sharp_bounds`, :func:`sharp_bound`, the vectorized
  :func:`sharp_bound_arrays`, with results
  :class:`SharpBounds`, :class:`Bound`, :class:`Law`;
* closed forms: :func:`three_vote_bounds` (Theorem 4.2), :func:`one_call_three_vote_envelope`
  (eq. (onecall-envelope-main), Appendix A.3), :func:`improvement_threshold`, :func:`endpoint_bounds` (Theorem 4.3);
* certificates: :func:`certify_bound`, :func:`certify_many` build exact, auditable
  :class:`Certificate` objects; :func:`verify_certificate` re-checks one with the
  independent exact checker; :func:`dump_certificate` / :func:`load_certificate`;
* data and statistics (Section 4.4, Section 5): :func:`read_bits`, :func:`two_call_estimates`,
  :func:`wald_region`, :func:`project` / :func:`project_many` (projected Wald intervals),
  :func:`empirical_vote_accuracy`, :func:`maxent_completion`, :func:`ldgp_completion`,
  :func:`analyze`;
* the K-call likelihood (:mod:`certify.likelihood`): :func:`cell_counts`, :func:`npmle`,
  :func:`likelihood_interval`, :func:`likelihood_intervals`;
* errors: :class:`CertifyError` and its subclasses.
"""

import importlib as _importlib

# Readers, statistics and certificates load numpy, scipy.stats and the checker on
# first use (PEP 562), so that `import certify` and `certify bounds` start fast.
_LAZY = {
    **{name: ("certify.certificates", name) for name in ("BatchItem", "Certificate", "VerificationResult", "certify_bound", "certify_many")},
    "dump_certificate": ("certify.certificates", "dump"),
    "load_certificate": ("certify.certificates", "load"),
    "verify_certificate": ("certify.certificates", "verify"),
    **{name: ("certify.readers", name) for name in ("CallBits", "DataError", "read_bits", "read_groups")},
    **{name: ("certify.likelihood", name) for name in ("cell_counts", "likelihood_interval", "likelihood_intervals", "npmle")},
    **{
        name: ("certify.stats", name)
        for name in (
            "AllCallEstimates",
            "AnalysisReport",
            "Completion",
            "EmptyRegionError",
            "ProjectedInterval",
            "TwoCallEstimates",
            "WaldRegion",
            "all_call_estimates",
            "analyze",
            "compare_budgets",
            "compare_policies",
            "complete",
            "empirical_vote_accuracy",
            "ldgp_completion",
            "maxent_completion",
            "project",
            "project_many",
            "two_call_estimates",
            "two_call_from_summary",
            "wald_region",
        )
    },
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


from ._bounds import METHODS, BoundArrays, sharp_bound, sharp_bound_arrays, sharp_bounds
from ._closed_forms import ThreeVoteBounds, improvement_threshold, one_call_three_vote_envelope, three_vote_bounds
from ._endpoint import EndpointBounds, endpoint_bounds, endpoint_value
from ._errors import CertifyError, InfeasibleMomentsError, InputError, ObjectiveError, SolverError
from ._majority import majority_index, majority_polynomial
from ._moments import Moments, PairTable, nu_from_rho, pair_table, rho_from_nu
from ._moments import moments as moment_class
from ._objective import V_INF, Objective, VoteLimit, majority_objective, parse_objective, parse_vote_budget, vote_accuracy
from ._results import SCHEMA_VERSION, Bound, Law, SharpBounds

__all__ = [
    *_LAZY,
    "METHODS",
    "SCHEMA_VERSION",
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
    "PairTable",
    "SharpBounds",
    "SolverError",
    "ThreeVoteBounds",
    "V_INF",
    "VoteLimit",
    "endpoint_bounds",
    "endpoint_value",
    "improvement_threshold",
    "majority_index",
    "majority_objective",
    "majority_polynomial",
    "moment_class",
    "nu_from_rho",
    "one_call_three_vote_envelope",
    "pair_table",
    "parse_objective",
    "parse_vote_budget",
    "rho_from_nu",
    "sharp_bound",
    "sharp_bound_arrays",
    "sharp_bounds",
    "three_vote_bounds",
    "vote_accuracy",
]
