"""One serialization for the frozen result records: JSON dicts derived from the dataclass fields.

A record's ``to_dict`` is :func:`record_dict` and its ``from_dict`` is :func:`record_from_dict`, so
that adding a field changes what is written and read in one place, and the two cannot disagree:

* a field is written under its own name, in field order; a nested record by its own ``to_dict``,
  a tuple as a list, a :class:`fractions.Fraction` as a ``"p/q"`` string (exact numbers travel
  exactly), a non-finite float as ``null`` (strict JSON, :func:`certify._json.json_ready`);
* it is read back by its annotation: ``float``, ``int``, ``str``, ``bool``, a record type, a
  tuple, or ``X | None``; a ``null`` read into a ``float`` that cannot be None is NaN (the
  non-finite number it was written from), into ``X | None`` it is None;
* a field whose value is not of a JSON type names its converters in its metadata:
  ``field(metadata={"write": budget_json, "read": parse_vote_budget})`` (a vote budget, whose
  infinite value is written ``"inf"``).

Core layer: it imports nothing of the package.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from fractions import Fraction
from typing import Self

__all__ = ["Record", "record_dict", "record_from_dict", "flat_columns", "flat_record"]


class Record:
    """Base of a frozen result record whose JSON is derived from its fields (module docstring)."""

    def to_dict(self) -> dict:
        """The record as JSON writes it (:func:`record_dict`)."""
        return record_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Self:
        """The record :meth:`to_dict` wrote (:func:`record_from_dict`)."""
        return record_from_dict(cls, d)


def _write(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict() if hasattr(value, "to_dict") else record_dict(value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (tuple, list)):
        return [_write(v) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return _write(value.tolist())
    return value


def record_dict(record) -> dict:
    """The JSON dict of a frozen record: every field under its name, in field order (module docstring)."""
    out = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        write = f.metadata.get("write")
        out[f.name] = None if value is None else (write(value) if write is not None else _write(value))
    return out


def _read(hint, value):
    """``value`` (from JSON) as the annotation ``hint`` says (module docstring)."""
    if value is None:
        return math.nan if hint is float else None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [h for h in typing.get_args(hint) if h is not type(None)]
        return _read(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        items = typing.get_args(hint)
        if len(items) == 2 and items[1] is Ellipsis or len(items) == 1:
            return tuple(_read(items[0], v) for v in value)
        return tuple(_read(h, v) for h, v in zip(items, value))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint.from_dict(value) if hasattr(hint, "from_dict") else record_from_dict(hint, value)
    if hint is float:
        return float(value)
    if hint is int:
        return int(value)
    if hint is str:
        return str(value)
    if hint is bool:
        return bool(value)
    if hint is Fraction:
        return Fraction(value)
    return value


def record_from_dict(cls, d: dict):
    """The record of type ``cls`` that :func:`record_dict` wrote as ``d`` (module docstring).

    A field missing from ``d`` takes its default (a newer field read from an older file); a
    field without a default must be present.
    """
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in d:
            continue  # its default, or the constructor's error naming the field
        read = f.metadata.get("read")
        value = d[f.name]
        kwargs[f.name] = read(value) if read is not None and value is not None else _read(hints[f.name], value)
    return cls(**kwargs)


def flat_columns(cls, prefix: str = "") -> list[str]:
    """The dotted leaf names of a record type (``interval.lower``): a tidy table's columns.

    A nested record contributes its own leaves under its field's name, so that the columns are
    the keys of the flattened JSON dict (:func:`flat_record`) whatever is present.
    """
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        nested = _record_type(hints[f.name])
        name = f"{prefix}{f.name}"
        out += flat_columns(nested, name + ".") if nested is not None else [name]
    return out


def flat_record(record, cls=None, prefix: str = "") -> dict:
    """The JSON dict of ``record`` flattened to :func:`flat_columns` (a missing nested record: its leaves None)."""
    cls = type(record) if cls is None else cls
    hints = typing.get_type_hints(cls)
    written = {} if record is None else record_dict(record)
    out = {}
    for f in dataclasses.fields(cls):
        nested = _record_type(hints[f.name])
        name = f"{prefix}{f.name}"
        if nested is not None:
            out.update(flat_record(None if record is None else getattr(record, f.name), nested, name + "."))
        else:
            out[name] = written.get(f.name)
    return out


def _record_type(hint):
    """The record type a field holds (``Interval | None`` -> Interval), or None for a leaf."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        options = [h for h in typing.get_args(hint) if h is not type(None)]
        hint = options[0] if len(options) == 1 else None
    return hint if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None
