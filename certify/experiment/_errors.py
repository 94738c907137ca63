"""Errors specific to the experiment runner.

Everything derives from :mod:`certify._errors`, so the CLI dispatcher maps a
configuration mistake (:class:`~certify._errors.InputError`) to exit code 2 and
an operational failure (:class:`BackendError`, :class:`StoreError`) to exit
code 1, each as a single line on stderr.
"""

from __future__ import annotations

from .._errors import CertifyError, InputError

__all__ = ["BackendError", "DataError", "InputError", "StoreError"]


class BackendError(CertifyError, RuntimeError):
    """A model backend could not serve a call: unreachable, missing model, or bad reply.

    The message is one line naming the endpoint (or model) and what went wrong.
    """


class StoreError(CertifyError, RuntimeError):
    """The run store cannot be used as asked (it belongs to another experiment, or is damaged)."""


class DataError(CertifyError, RuntimeError):
    """A data set could not be read or fetched (hub unreachable, file damaged)."""
