"""Strict JSON: the one serializer behind every JSON output (no NaN, schema names).

Core layer: statistics, reports and the CLI all write JSON through :func:`to_json`.
"""

from __future__ import annotations

import json
import math


def schema_id(kind: str, version: str) -> str:
    """The ``$id`` of the JSON Schema of one kind of output, also written as its ``"$schema"`` field.

    Parameters
    ----------
    kind : str
        ``"bounds"``, ``"region"``, ``"complete"``, ``"analyze"``, ``"report"`` or ``"plan"``.
    version : str
        The output's ``schema_version``.

    Returns
    -------
    str
        ``certify/schemas/<kind>-v<version>.json``: the schema's path inside the
        installed package, as for ``certificate-v1.json``.
    """
    return f"certify/schemas/{kind}-v{version}.json"


def json_ready(obj):
    """A copy of ``obj`` that strict JSON can hold: non-finite floats become None.

    JSON has no NaN or infinity; Python's ``json`` would write the bare tokens
    ``NaN`` / ``Infinity``, which strict parsers (JavaScript, jq, Go, Rust) reject.
    Every undefined or infinite number (an undefined correlation, a gap that was not
    computed, a boundary parameter) is therefore written as ``null``; the schemas
    say which fields may be null. NumPy scalars and arrays become Python numbers and
    lists (by module name, so the CLI does not import NumPy just to print), tuples
    become lists.

    Parameters
    ----------
    obj : object
        Dicts, lists, tuples, numbers, strings, bools, None and NumPy values, nested.

    Returns
    -------
    object
        The same structure with only JSON types and finite floats.
    """
    if type(obj).__module__ == "numpy" and hasattr(obj, "tolist"):
        obj = obj.tolist()
    if isinstance(obj, float):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k.tolist() if type(k).__module__ == "numpy" else k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    return obj


def to_json(obj, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """Strict JSON text of ``obj`` (floats at full precision, non-finite ones as null; :func:`json_ready`).

    ``allow_nan=False`` makes a non-finite float that escaped :func:`json_ready`
    raise ``ValueError`` instead of writing an invalid file.
    """
    return json.dumps(json_ready(obj), indent=indent, sort_keys=sort_keys, allow_nan=False)
