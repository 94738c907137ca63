"""Certify many (objective, moments, side) at once (paper Theorem 4.1, batch form).

Used by the statistics and experiment layers, which need exact certificates at
many moment points (e.g. over a projected Wald region, eq. (projected-set-main)).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .._bounds import as_moments, as_objective
from .._errors import CertifyError, InputError
from .._moments import Moments
from ._build import build_certificate
from ._certificate import Certificate, describe_inputs

__all__ = ["BatchItem", "certify_many"]


@dataclass(frozen=True)
class BatchItem:
    """One outcome of :func:`certify_many`: a certificate, or the error that stopped it."""

    index: int
    certificate: Certificate | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.certificate is not None


def _spec(task) -> dict:
    if isinstance(task, dict):
        return dict(task)
    objective, moments, side = task
    return {"objective": objective, "moments": moments, "side": side}


def certify_many(
    tasks: Iterable, *, digits: int | None = None, method: str = "exact", errors: str = "raise"
) -> list[BatchItem]:
    """Certificates for many bounds, in order.

    Parameters
    ----------
    tasks : iterable
        Each a tuple ``(objective, moments, side)`` -- moments a :class:`Moments`,
        a sequence (m_1, ..., m_m) or a dict of ``mu``/``nu``/``rho`` -- or a dict
        with keys ``objective``, ``side`` and ``mu``/``nu``/``rho``/``moments``.
        ``side`` may be ``"both"`` for two certificates.
    digits : int, optional
        As for :func:`certify_bound`.
    method : str
        Engine method.
    errors : {"raise", "collect"}
        ``collect`` records a failing task's one-line error and goes on.

    Returns
    -------
    list of BatchItem
        One per certificate (two for ``side="both"``), with the task's index.
    """
    if errors not in ("raise", "collect"):
        raise InputError(f"errors={errors!r} must be 'raise' or 'collect'")
    out: list[BatchItem] = []
    objectives: dict = {}
    for index, task in enumerate(tasks):
        spec = _spec(task)
        try:
            mom_arg = spec.get("moments")
            if isinstance(mom_arg, dict):
                spec.update(mom_arg)
                mom_arg = None
            kw = {k: spec.get(k) for k in ("mu", "nu", "rho")}
            mom = mom_arg if isinstance(mom_arg, Moments) else as_moments(moments=mom_arg, **kw)
            given = describe_inputs(moments=mom_arg, **kw)
            key = spec["objective"] if isinstance(spec["objective"], (str, int)) else id(spec["objective"])
            obj = objectives.setdefault(key, as_objective(spec["objective"]))
            sides = ("lower", "upper") if spec.get("side") == "both" else (spec.get("side"),)
            for side in sides:
                out.append(
                    BatchItem(index, build_certificate(obj, mom, side, given=given, digits=digits, method=method))
                )
        except CertifyError as exc:
            if errors == "raise":
                raise
            out.append(BatchItem(index, None, f"task {index}: {exc}"))
    return out
