"""The installed distribution's version, read without importing the package root.

The root (:mod:`certify`) resolves its names lazily into every layer, so a module of a lower
layer that imported it for the version would close a circle the layer test cannot see; the
version is read here instead, from the package metadata that pyproject.toml writes once.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["package_version"]


def package_version() -> str:
    """The version of the installed ``certify`` distribution (``[project] version``).

    Returns
    -------
    str
        The version string, or ``"0+unknown"`` for a source tree on ``sys.path`` that was never
        installed.
    """
    try:
        return version("certify")
    except PackageNotFoundError:
        return "0+unknown"
