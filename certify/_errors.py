"""The package's exception tree.

Every error raised on purpose by :mod:`certify` derives from :class:`CertifyError`.
Errors caused by the caller's input also derive from :class:`ValueError`, so that
generic ``except ValueError`` code keeps working; the CLI maps them to exit code 2.
"""

from __future__ import annotations

__all__ = [
    "CertifyError",
    "InputError",
    "InfeasibleMomentsError",
    "ObjectiveError",
    "SolverError",
]


class CertifyError(Exception):
    """Base class of every error raised on purpose by ``certify``."""


class InputError(CertifyError, ValueError):
    """An argument is unusable: the message names the value and the rule it breaks."""


class InfeasibleMomentsError(InputError):
    """The given moments are not the moments of any law on [0, 1]."""


class ObjectiveError(InputError):
    """An objective could not be parsed or is not a polynomial in ``q``."""


class SolverError(CertifyError, RuntimeError):
    """A numerical solver did not return an optimal, trustworthy solution.

    Parameters
    ----------
    solver : str
        Name of the solver (``"clarabel"``, ``"highs"``, ``"exact"``, ...).
    status : str
        The solver's own status string, as reported.
    detail : str, optional
        Extra context (problem size, objective name).
    """

    def __init__(self, solver: str, status: str, detail: str = ""):
        self.solver = solver
        self.status = status
        self.detail = detail
        msg = f"solver {solver!r} returned status {status!r}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)
