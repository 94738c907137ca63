"""The ``schema-fields`` directive: one JSON Schema of ``certify/schemas/`` as a table of fields.

    ```{schema-fields} analyze-v3
    ```

renders the schema's title, ``$id`` and description, then one row per field reachable from
the root (``results[].lower_law.atoms``: ``[]`` is an array's items), with its JSON type,
whether it is required, and its ``description`` from the schema, which is where every field
is documented. ``$ref`` to the schema's ``$defs`` is followed once per path; a reference to
another schema (``report-v2`` refers to ``analyze-v3``) is named, not expanded.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

SCHEMAS = Path(__file__).resolve().parents[2] / "certify" / "schemas"


def load(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))


def _type(node: dict) -> str:
    if "const" in node:
        return f"const {json.dumps(node['const'])}"
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v) for v in node["enum"])
    t = node.get("type")
    if isinstance(t, list):
        return " or ".join(t)
    if t:
        return t
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type(n) or "object" for n in node[key])
    return ""


def _resolve(node: dict, root: dict, seen: frozenset) -> tuple[dict, frozenset, str | None]:
    """Follow a local ``$ref`` (once per path); an external one is returned as its name."""
    ref = node.get("$ref")
    if ref is None:
        return node, seen, None
    if not ref.startswith("#/$defs/"):
        return node, seen, ref
    name = ref[len("#/$defs/"):]
    if name in seen:
        return {"description": node.get("description", f"(see {name} above)")}, seen, None
    target = dict(root["$defs"][name])
    if "description" in node:
        target["description"] = node["description"]
    return target, seen | {name}, None


def rows(node: dict, root: dict, path: str = "", seen: frozenset = frozenset(), required: bool = True):
    """(path, type, required, description) for the node and everything below it."""
    node, seen, external = _resolve(node, root, seen)
    desc = node.get("description", "")
    if external is not None:
        desc = (desc + " " if desc else "") + f"(schema {external})"
    if path:
        yield path, _type(node), required, desc
    props = node.get("properties", {})
    need = set(node.get("required", ()))
    for key, sub in props.items():
        yield from rows(sub, root, f"{path}.{key}" if path else key, seen, key in need)
    if isinstance(node.get("items"), dict):
        yield from rows(node["items"], root, f"{path}[]", seen, True)
    if isinstance(node.get("additionalProperties"), dict):
        yield from rows(node["additionalProperties"], root, f"{path}.<key>", seen, False)
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(key, ()):
            if isinstance(sub, dict) and ("properties" in sub or "$ref" in sub):
                for row in rows(sub, root, path, seen, required):
                    if row[0] != path:
                        yield row


def _table(header: list[str], body: list[list[str]], widths: list[int]) -> nodes.table:
    """A docutils table of plain text cells (no markup is parsed inside them)."""
    table = nodes.table(classes=["schema-fields"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    tbody = nodes.tbody()
    group += tbody
    for target, cells in ((head, [header]), (tbody, body)):
        for cells_row in cells:
            row = nodes.row()
            for i, text in enumerate(cells_row):
                entry = nodes.entry()
                para = nodes.paragraph()
                para += nodes.literal(text, text) if (i == 0 and target is tbody) else nodes.Text(text)
                entry += para
                row += entry
            target += row
    return table


class SchemaFields(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        name = self.arguments[0]
        schema = load(name)
        intro = nodes.paragraph()
        intro += nodes.emphasis(text=schema.get("title", name))
        intro += nodes.Text(" ($id ")
        intro += nodes.literal(text=schema["$id"])
        intro += nodes.Text(", JSON Schema draft 2020-12)")
        out = [intro]
        if schema.get("description"):
            out.append(nodes.paragraph(text=" ".join(schema["description"].split())))
        body, seen_paths = [], set()
        for path, typ, req, desc in rows(schema, schema):
            if path not in seen_paths:
                seen_paths.add(path)
                body.append([path, typ, "yes" if req else "no", " ".join(desc.split())])
        out.append(_table(["field", "type", "required", "description"], body, [28, 14, 9, 49]))
        return out


def setup(app):
    app.add_directive("schema-fields", SchemaFields)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
