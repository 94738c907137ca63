"""JSON schemas checked and bounded before llama.cpp turns them into a grammar.

llama-cpp-python turns a JSON schema into a GBNF grammar in Python, and llama.cpp
parses that grammar in C at every call. Neither checks what it is given: an empty
``enum``, ``anyOf`` or ``type`` list, or a ``$ref`` that points at itself, gives a
grammar llama.cpp cannot parse, and llama-cpp-python then installs the null sampler
it got back, which ends the process with SIGSEGV; ``minItems: 1000000`` spells out
a million copies of a rule; a remote ``$ref`` would be fetched. So a schema goes
through :func:`checked_schema` first, which either refuses it with one line naming
the place and the rule it breaks, or returns a plain copy holding only what the
grammar enforces:

* every ``$ref`` is a local JSON pointer (``#/...``) to a schema, and is inlined;
  recursive schemas (a ``$ref`` reached again through its own target) are refused;
* ``enum``, ``anyOf``, ``oneOf``, ``allOf``, ``prefixItems`` and ``type`` lists are
  non-empty, and every subschema is a JSON object;
* a keyword the grammar would not enforce is refused rather than dropped in
  silence: the keywords of :data:`UNSUPPORTED` (``pattern``, ``minimum``,
  ``not``...), and keywords that the grammar builder ignores in their combination
  (``maxLength`` beside a ``type`` list, ``minItems`` without ``items``, a
  ``required`` name that is not a property...);
* sizes are bounded (:data:`MAX_SCHEMA_VALUES`, :data:`MAX_SCHEMA_DEPTH`,
  :data:`MAX_NAME_CHARS`, :data:`MAX_COUNT`, :data:`MAX_COUNT_TOTAL`) before any
  grammar is built, and the grammar text by :data:`MAX_GRAMMAR_CHARS` before
  llama.cpp parses it.

Annotations (``title``, ``description``, ``default``...) and unknown keywords that
constrain nothing are left out of the copy.
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

from .._errors import InputError

__all__ = [
    "MAX_COUNT",
    "MAX_COUNT_TOTAL",
    "MAX_GRAMMAR_CHARS",
    "MAX_NAME_CHARS",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_VALUES",
    "SchemaError",
    "checked_schema",
    "grammar_text",
]

#: JSON values (objects, arrays, strings, numbers...) in a schema once its ``$ref`` are inlined.
MAX_SCHEMA_VALUES = 2000
#: Nesting depth of a schema once its ``$ref`` are inlined (each ``$ref`` followed counts as one level).
MAX_SCHEMA_DEPTH = 32
#: Characters in a property name (the grammar builder names rules after property paths).
MAX_NAME_CHARS = 128
#: Largest ``minItems``, ``maxItems``, ``minLength`` or ``maxLength``: the grammar spells out
#: one copy of the item per unit, and llama.cpp refuses much deeper nesting of optional items.
MAX_COUNT = 1000
#: Largest sum of those counts over the whole schema.
MAX_COUNT_TOTAL = 4000
#: Characters of the grammar built from a schema (checked before llama.cpp parses it).
MAX_GRAMMAR_CHARS = 256 * 1024

#: Keywords that constrain a value but that llama-cpp-python's grammar builder ignores
#: (its regular-expression translation, ``pattern``, also garbles common expressions
#: such as ``\d``): a schema using one is refused, since its answers would not obey it.
UNSUPPORTED = frozenset(
    {
        "pattern",
        "patternProperties",
        "not",
        "if",
        "then",
        "else",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "minProperties",
        "maxProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "$dynamicRef",
        "$recursiveRef",
    }
)

_TYPES = ("string", "number", "integer", "boolean", "null", "object", "array")
#: The ``format`` values the grammar builder turns into a rule (every other format is an annotation).
_GRAMMAR_FORMAT = re.compile(r"uuid[1-5]?|date|time|date-time")
#: Keywords that constrain a value and that the grammar can enforce, in some combinations.
_CONSTRAINTS = (
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "anyOf",
    "oneOf",
    "allOf",
    "format",
)
#: Keywords that may stand beside ``$ref`` (they say something about the schema, constrain nothing).
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "$defs",
        "definitions",
    }
)


#: Characters llama-cpp-python's grammar builder cannot write into a literal: it escapes ``"``
#: but not the backslashes of ``json.dumps``, so a quote, a backslash or a control character
#: gives a grammar that does not parse or that writes invalid JSON, and a character beyond
#: U+FFFF (or a lone surrogate) becomes surrogate escapes llama.cpp takes as code points.
_UNWRITABLE = re.compile(r'["\\\x00-\x1f\ud800-\udfff\U00010000-\U0010ffff]')


class SchemaError(InputError):
    """A ``format`` schema that the server refuses: the message names the place and the rule."""


def _where(path: str) -> str:
    """Where in the ``format`` schema (a JSON-pointer-like path, shortened in the middle if long)."""
    if len(path) > 120:
        path = f"{path[:50]}...{path[-60:]}"
    return f"format at {path}" if path else "format"


def _is_type(value, name: str) -> bool:
    """Whether the JSON ``value`` is of JSON-schema type ``name``."""
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    classes: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "null": type(None),
        "object": dict,
        "array": list,
    }
    return isinstance(value, classes[name])


def _writable(text: str, path: str) -> None:
    """Refuse a string the grammar builder would write wrongly (see :data:`_UNWRITABLE`)."""
    bad = _UNWRITABLE.search(text)
    if bad:
        raise SchemaError(
            f"{_where(path)}: {_short(text)} holds {_short(bad.group())}: a quote, a backslash, a "
            f"control character or a character beyond U+FFFF cannot be written into the grammar"
        )


def _short(value) -> str:
    """A JSON value for an error message: one line of reasonable length (a container by its size only)."""
    if isinstance(value, dict):
        return f"an object of {len(value)} member{'s' * (len(value) != 1)}"
    if isinstance(value, list):
        return "[]" if not value else f"a list of {len(value)} value{'s' * (len(value) != 1)}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**60:
        return f"an integer of {value.bit_length()} bits"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


class _Checker:
    """One schema's check: the running counts and the document ``$ref`` pointers resolve in."""

    def __init__(self, document):
        self.document = document
        self.values = 0
        self.counts = 0

    def _tally(self, n: int, path: str) -> None:
        self.values += n
        if self.values > MAX_SCHEMA_VALUES:
            raise SchemaError(
                f"{_where(path)}: the schema has more than {MAX_SCHEMA_VALUES} JSON values "
                f"(after its $ref are inlined), the limit"
            )

    def _value(self, value, path: str, depth: int) -> None:
        """Count and bound a ``const`` or ``enum`` JSON value (iteratively: it may be deep)."""
        stack = [(value, depth)]
        while stack:
            item, level = stack.pop()
            self._tally(1, path)
            if level > MAX_SCHEMA_DEPTH:
                raise SchemaError(f"{_where(path)}: nested more than {MAX_SCHEMA_DEPTH} levels deep, the limit")
            if isinstance(item, dict):
                if "$ref" in item:
                    # The grammar builder rewrites every "$ref" member it meets, values included.
                    raise SchemaError(f'{_where(path)}: a value with a "$ref" member is not supported')
                for key in item:
                    _writable(key, path)
                stack.extend((v, level + 1) for v in item.values())
            elif isinstance(item, list):
                stack.extend((v, level + 1) for v in item)
            elif isinstance(item, str):
                _writable(item, path)

    def _count(self, node: dict, key: str, path: str) -> int | None:
        if key not in node:
            return None
        value = node[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise SchemaError(f"{_where(path)}: {key}={_short(value)} must be an integer from 0 to {MAX_COUNT}")
        self.counts += value
        if self.counts > MAX_COUNT_TOTAL:
            raise SchemaError(
                f"{_where(path)}: minItems, maxItems, minLength and maxLength add up to more than "
                f"{MAX_COUNT_TOTAL} over the schema, the limit"
            )
        return value

    def _bounds(self, node: dict, low: str, high: str, path: str, out: dict) -> None:
        least, most = self._count(node, low, path), self._count(node, high, path)
        if least is not None and most is not None and least > most:
            raise SchemaError(f"{_where(path)}: {low}={least} is above {high}={most}")
        out.update({k: node[k] for k in (low, high) if k in node})

    def _resolve(self, ref, path: str):
        if not isinstance(ref, str):
            raise SchemaError(f"{_where(path)}: $ref={_short(ref)} must be a string")
        if ref != "#" and not ref.startswith("#/"):
            raise SchemaError(
                f"{_where(path)}: $ref {_short(ref)} is not supported: only a reference into the same schema (#/...) is"
            )
        target = self.document
        for raw in ref[2:].split("/") if ref != "#" else ():
            step = unquote(raw).replace("~1", "/").replace("~0", "~")  # RFC 6901, in a URI fragment
            if isinstance(target, dict) and step in target:
                target = target[step]
            elif isinstance(target, list) and re.fullmatch(r"0|[1-9][0-9]{0,5}", step) and int(step) < len(target):
                target = target[int(step)]
            else:
                raise SchemaError(f"{_where(path)}: $ref {_short(ref)} does not resolve ({_short(step)} not found)")
        return target

    def schema(self, node, path: str, depth: int, refs: tuple[str, ...] = ()) -> dict:
        """The checked copy of the subschema ``node`` found at ``path``."""
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaError(
                f"{_where(path)}: nested more than {MAX_SCHEMA_DEPTH} levels deep "
                f"(after its $ref are inlined), the limit"
            )
        if not isinstance(node, dict):
            raise SchemaError(f"{_where(path)}: {_short(node)} is not a schema (a JSON object)")
        self._tally(1 + len(node), path)
        if "$ref" in node:
            beside = sorted(set(node) - _ANNOTATIONS - {"$ref"})
            if beside:
                raise SchemaError(
                    f"{_where(path)}: {', '.join(beside)} beside $ref is not supported (the grammar would ignore it)"
                )
            ref = node["$ref"]
            if ref in refs:
                loop = " -> ".join(_short(r) for r in refs[refs.index(ref) :] + (ref,))
                raise SchemaError(
                    f"{_where(path)}: $ref {_short(ref)} refers to itself (through {loop}); "
                    f"recursive schemas are not supported"
                )
            return self.schema(self._resolve(ref, path), path, depth + 1, refs + (ref,))
        unsupported = sorted(set(node) & UNSUPPORTED)
        if unsupported:
            raise SchemaError(
                f"{_where(path)}: {', '.join(unsupported)} is not supported by this server "
                f"(llama.cpp's grammar would not enforce it)"
            )
        kind = node.get("type")
        if isinstance(kind, list):
            if not kind or not all(isinstance(k, str) and k in _TYPES for k in kind) or len(set(kind)) < len(kind):
                raise SchemaError(
                    f"{_where(path)}: type={_short(kind)} must be one of {', '.join(_TYPES)} "
                    f"or a non-empty list of distinct ones"
                )
        elif kind is not None and kind not in _TYPES:
            raise SchemaError(f"{_where(path)}: type={_short(kind)} must be one of {', '.join(_TYPES)}")
        fmt = node.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise SchemaError(f"{_where(path)}: format={_short(fmt)} must be a string")
        used, out = self._dispatch(node, kind, fmt, path, depth, refs)
        # A keyword the grammar ignores in this combination would be dropped in silence.
        present = {k for k in _CONSTRAINTS if k in node}
        if fmt is not None and not _GRAMMAR_FORMAT.fullmatch(fmt):
            present.discard("format")  # an annotation: JSON Schema does not require it to be checked
        ignored = sorted(present - used)
        if ignored:
            beside = sorted(present & used)
            raise SchemaError(
                f"{_where(path)}: {', '.join(ignored)} is not enforced "
                f"{'beside ' + ', '.join(beside) if beside else 'here'} (the grammar would ignore it)"
            )
        return out

    def _dispatch(self, node: dict, kind, fmt, path: str, depth: int, refs) -> tuple[set, dict]:
        """Which keywords the grammar builder uses for ``node`` (its order of cases), and the checked copy."""
        if "anyOf" in node or "oneOf" in node:
            if "anyOf" in node and "oneOf" in node:
                raise SchemaError(f"{_where(path)}: give anyOf or oneOf, not both")
            key = "anyOf" if "anyOf" in node else "oneOf"
            return {key}, {key: self._schemas(node[key], f"{path}/{key}", depth, refs)}
        if isinstance(kind, list):
            return {"type"}, {"type": list(kind)}
        if "const" in node:
            value = node["const"]
            self._value(value, f"{path}/const", depth + 1)
            self._typed([value], kind, f"{path}/const")
            used = {"const", "type"}
            if "enum" in node:
                if not isinstance(node["enum"], list) or value not in node["enum"]:
                    raise SchemaError(f"{_where(path)}: const {_short(value)} is not among its enum values")
                used.add("enum")
            return used, {"const": value}
        if "enum" in node:
            values = node["enum"]
            if not isinstance(values, list) or not values:
                raise SchemaError(f"{_where(path)}: enum={_short(values)} must be a non-empty list")
            self._value(values, f"{path}/enum", depth + 1)
            self._typed(values, kind, f"{path}/enum")
            return {"enum", "type"}, {"enum": list(values)}
        extra = node.get("additionalProperties")
        closed = "additionalProperties" in node and extra is not True
        if kind in (None, "object") and ("properties" in node or closed):
            return {"type", "properties", "required", "additionalProperties"}, self._object(node, path, depth, refs)
        if kind in (None, "object") and "allOf" in node:
            return {"type", "allOf"}, self._all_of(node, path, depth, refs)
        if kind in (None, "array") and ("items" in node or "prefixItems" in node):
            return self._array(node, kind, path, depth, refs)
        if kind in (None, "string") and fmt is not None and _GRAMMAR_FORMAT.fullmatch(fmt):
            return {"type", "format"}, {**({"type": kind} if kind else {}), "format": fmt}
        if kind == "string" and ("minLength" in node or "maxLength" in node):
            out = {"type": "string"}
            self._bounds(node, "minLength", "maxLength", path, out)
            return {"type", "minLength", "maxLength"}, out
        # "additionalProperties": true is what the grammar of any object allows anyway.
        loose = {"additionalProperties"} if extra is True and kind in (None, "object") else set()
        if kind is None:
            # No type and nothing that constrains: the grammar builder writes any JSON object.
            return loose, {}
        return {"type"} | loose, {"type": kind}

    def _schemas(self, items, path: str, depth: int, refs) -> list[dict]:
        if not isinstance(items, list) or not items:
            raise SchemaError(f"{_where(path)}: must be a non-empty list of schemas, not {_short(items)}")
        return [self.schema(s, f"{path}/{i}", depth + 1, refs) for i, s in enumerate(items)]

    def _typed(self, values: list, kind, path: str) -> None:
        if kind is None:
            return
        for value in values:
            if not _is_type(value, kind):
                raise SchemaError(f"{_where(path)}: {_short(value)} is not of type {kind!r}")

    def _object(self, node: dict, path: str, depth: int, refs) -> dict:
        props = node.get("properties", {})
        if not isinstance(props, dict):
            raise SchemaError(f"{_where(path)}: properties must be an object mapping names to schemas")
        out: dict = {"type": "object"} if node.get("type") == "object" else {}
        checked = {}
        for name, sub in props.items():
            if not name:
                # The grammar builder names a rule after its property, and an empty name is its root rule's.
                raise SchemaError(f"{_where(path)}: an empty property name is not supported")
            _writable(name, path)
            if len(name) > MAX_NAME_CHARS:
                raise SchemaError(
                    f"{_where(path)}: property name {_short(name)} is longer than {MAX_NAME_CHARS} "
                    f"characters, the limit"
                )
            checked[name] = self.schema(sub, f"{path}/properties/{name}", depth + 1, refs)
        out["properties"] = checked
        required = node.get("required", [])
        if (
            not isinstance(required, list)
            or not all(isinstance(r, str) for r in required)
            or len(set(required)) < len(required)
        ):
            raise SchemaError(f"{_where(path)}: required={_short(required)} must be a list of distinct names")
        missing = [r for r in required if r not in props]
        if missing:
            raise SchemaError(
                f"{_where(path)}: required name {_short(missing[0])} is not in properties "
                f"(the grammar would not ask for it)"
            )
        if required:
            out["required"] = list(required)
        if "additionalProperties" in node:
            extra = node["additionalProperties"]
            if not isinstance(extra, bool):
                extra = self.schema(extra, f"{path}/additionalProperties", depth + 1, refs)
            out["additionalProperties"] = extra
        return out

    def _all_of(self, node: dict, path: str, depth: int, refs) -> dict:
        parts = self._schemas(node["allOf"], f"{path}/allOf", depth, refs)
        if len(parts) == 1 and node.get("type") is None:
            return parts[0]  # one component: the schema is that component
        # Several: objects whose properties the grammar merges.
        props: dict[str, dict] = {}
        required: list[str] = []
        for i, part in enumerate(parts):
            if set(part) - {"type", "properties", "required"} or part.get("type", "object") != "object":
                raise SchemaError(
                    f"{_where(f'{path}/allOf/{i}')}: allOf of several schemas is supported for objects "
                    f"with properties (and required) only"
                )
            for name, sub in part.get("properties", {}).items():
                if name in props and props[name] != sub:
                    raise SchemaError(
                        f"{_where(f'{path}/allOf/{i}')}: property {_short(name)} is given twice, differently"
                    )
                props[name] = sub
            required += [r for r in part.get("required", []) if r not in required]
        return {"type": "object", "properties": props, **({"required": required} if required else {})}

    def _array(self, node: dict, kind, path: str, depth: int, refs) -> tuple[set, dict]:
        items, prefix = node.get("items"), node.get("prefixItems")
        head = {"type": kind} if kind else {}
        if isinstance(items, dict) and prefix is None:
            # The builder takes an empty items schema (falsy) for a missing one; {} means any object to it anyway.
            out = {**head, "items": self.schema(items, f"{path}/items", depth + 1, refs) or {"type": "object"}}
            self._bounds(node, "minItems", "maxItems", path, out)
            return {"type", "items", "minItems", "maxItems"}, out
        if prefix is not None and items in (None, False):
            prefixed = self._schemas(prefix, f"{path}/prefixItems", depth, refs)
            return {"type", "items", "prefixItems"}, {**head, "prefixItems": prefixed}
        if isinstance(items, list) and prefix is None:
            return {"type", "items"}, {**head, "items": self._schemas(items, f"{path}/items", depth, refs)}
        raise SchemaError(
            f"{_where(path)}: items must be a schema (or prefixItems a non-empty list of schemas, "
            f"with items absent or false)"
        )


def checked_schema(schema) -> dict:
    """The schema as the grammar will enforce it, after the checks of this module.

    Parameters
    ----------
    schema : dict
        A JSON schema, as decoded from JSON.

    Returns
    -------
    dict
        A new schema without ``$ref`` (inlined), annotations, or keywords that the
        grammar builder ignores in its case; its grammar is the given schema's.

    Raises
    ------
    SchemaError
        One line naming where in the schema and the rule it breaks.
    """
    if not isinstance(schema, dict):
        raise SchemaError(f'format={_short(schema)} must be "json" or a JSON schema object')
    return _Checker(schema).schema(schema, "", 0)


def grammar_text(schema: dict) -> str:
    """The GBNF grammar of a :func:`checked_schema` result, through llama-cpp-python's builder.

    Raises
    ------
    SchemaError
        The builder refused the schema, or its grammar is longer than :data:`MAX_GRAMMAR_CHARS`.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        text = json_schema_to_gbnf(json.dumps(schema))
    except (AssertionError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as exc:
        # The builder signals what it cannot translate with assertions and lookup errors.
        detail = " ".join(str(exc).split())[:120]
        raise SchemaError(
            f"format: llama.cpp's grammar builder cannot translate it ({type(exc).__name__}: {detail})"
        ) from None
    if len(text) > MAX_GRAMMAR_CHARS:
        raise SchemaError(f"format: its grammar is {len(text)} characters, more than the limit of {MAX_GRAMMAR_CHARS}")
    return text
