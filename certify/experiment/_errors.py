"""Errors specific to the experiment runner.

Everything derives from :mod:`certify._errors`, so the CLI dispatcher maps a
configuration mistake (:class:`~certify._errors.InputError`) to exit code 2 and
an operational failure (:class:`BackendError`, :class:`StoreError`,
:class:`DatasetError`) to exit code 1, each as a single line on stderr.

A data *file* the readers cannot read is :class:`certify.readers.DataError` (an
input error, exit 2); a data *set* the experiment cannot fetch or read is
:class:`DatasetError` (operational, exit 1): one class per meaning.
"""

from __future__ import annotations

from .._errors import CertifyError, InputError

__all__ = [
    "BackendError",
    "DatasetError",
    "EndpointError",
    "InputError",
    "NotAStoreError",
    "RequestRejected",
    "StoreError",
    "StoreInUseError",
]


class BackendError(CertifyError, RuntimeError):
    """A model backend could not serve a call: unreachable, missing model, or bad reply.

    The message is one line naming the endpoint (or model) and what went wrong.
    """


class RequestRejected(BackendError):
    """A server refused a request for good (retrying will not help), e.g. an unsupported option.

    Parameters
    ----------
    url : str
        The URL posted to.
    status : int
        The HTTP status of the refusal.
    message : str
        The server's own error text, one line.
    """

    def __init__(self, url: str, status: int, message: str):
        self.url, self.status, self.message = url, status, message
        super().__init__(f"{url} answered HTTP {status}: {message}")


class EndpointError(InputError):
    """A configured endpoint does not speak the backend's API (a wrong base URL, most likely)."""


class StoreInUseError(InputError):
    """Another process is running an experiment on the same store (one writer per store)."""


class StoreError(CertifyError, RuntimeError):
    """The run store cannot be used as asked (it belongs to another experiment, or is damaged)."""


class NotAStoreError(StoreError, InputError):
    """The file given as a run store is not a SQLite run store (bad input: exit 2)."""


class DatasetError(CertifyError, RuntimeError):
    """A data set could not be read or fetched (hub unreachable, file damaged): exit code 1.

    Not an input error: the readers' unreadable-file error is :class:`certify.readers.DataError`.
    """
