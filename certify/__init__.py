"""certify: sharp two-moment certificates for majority voting over repeated LLM calls."""

from ._errors import CertifyError, InfeasibleMomentsError, InputError, ObjectiveError, SolverError

__version__ = "0.1.0"
