"""certify: sharp bounds and exact certificates for voting over repeated LLM calls.

The top-level namespace holds what docs/reference/objectives.md lists; everything else lives in its
subpackage (:mod:`certify.readers`, :mod:`certify.likelihood`, :mod:`certify.stats`,
:mod:`certify.aggregates`, :mod:`certify.forecast`, :mod:`certify.planning`, :mod:`certify.analysis`,
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
* the analysis of a file (:mod:`certify.analysis`): :func:`analyze`;
* statistics (Section 4.4, Section 5; :mod:`certify.stats`): :func:`two_call_estimates`,
  :func:`wald_region`, :func:`project_many` (projected Wald intervals), :func:`maxent_completion`,
  :func:`ldgp_completion`;
* the K-call likelihood (:mod:`certify.likelihood`): :func:`cell_counts`, :func:`npmle`,
  :func:`likelihood_intervals`;
* results: :class:`Interval`, the one interval type every result row carries (its ends, level,
  route -- identified by the calls, beyond them, or model-based --, calibration, and whether
  exact certificates prove it);
* errors: :class:`CertifyError` and its subclasses :class:`InputError` (also a
  ``ValueError``), :class:`InfeasibleMomentsError`, :class:`ObjectiveError`,
  :class:`DataError`, :class:`SolverError`.
"""

import importlib as _importlib

from ._errors import CertifyError, InfeasibleMomentsError, InputError, ObjectiveError, SolverError
from ._version import package_version as _package_version

# Every name loads its module on first use (PEP 562): `import certify` itself loads nothing
# heavy, so that the `certify` command has its interrupt handling in place before numpy and
# scipy load (0.4 s), and `certify bounds` starts fast.
_LAZY = {
    **{
        name: ("certify._bounds", name) for name in ("BoundArrays", "sharp_bound", "sharp_bound_arrays", "sharp_bounds")
    },
    **{
        name: ("certify._closed_forms", name)
        for name in ("ThreeVoteBounds", "improvement_threshold", "one_call_three_vote_envelope", "three_vote_bounds")
    },
    **{name: ("certify._endpoint", name) for name in ("EndpointBounds", "endpoint_bounds")},
    "majority_polynomial": ("certify._majority", "majority_polynomial"),
    **{name: ("certify._moments", name) for name in ("Moments", "nu_from_rho", "rho_from_nu")},
    "moment_class": ("certify._moments", "moments"),
    **{
        name: ("certify._objective", name)
        for name in ("V_INF", "Objective", "VoteLimit", "parse_objective", "parse_vote_budget", "vote_accuracy")
    },
    **{name: ("certify._results", name) for name in ("Bound", "Law", "SharpBounds")},
    "Interval": ("certify._interval", "Interval"),
    "certify_bound": ("certify.certificates", "certify_bound"),
    "certify_many": ("certify.certificates", "certify_many"),
    "dump_certificate": ("certify.certificates", "dump"),
    "load_certificate": ("certify.certificates", "load"),
    "verify_certificate": ("certify.certificates", "verify"),
    **{name: ("certify.readers", name) for name in ("CallBits", "DataError", "read_bits")},
    **{name: ("certify.likelihood", name) for name in ("cell_counts", "likelihood_intervals", "npmle")},
    "analyze": ("certify.analysis", "analyze"),
    **{
        name: ("certify.stats", name)
        for name in (
            "ldgp_completion",
            "maxent_completion",
            "project_many",
            "two_call_estimates",
            "wald_region",
        )
    },
}


def __getattr__(name: str):
    if name == "__version__":  # read from the package metadata on first use (PEP 562)
        value = globals()["__version__"] = _package_version()
        return value
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(_importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'certify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


__all__ = [*_LAZY, "CertifyError", "InfeasibleMomentsError", "InputError", "ObjectiveError", "SolverError"]
