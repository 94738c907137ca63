"""Machine-readable outputs: every ``--json`` output and ``report.json`` against its shipped JSON Schema.

Each command runs for real on data written here; its output must be strict JSON (no
``NaN`` / ``Infinity`` tokens), name its schema in ``"$schema"``, and validate. Cases
with undefined or infinite numbers (mu = 1, boundary completions, uncomputed gaps)
show those numbers become null exactly where the Python results are non-finite. The
schemas are strict: a renamed field, a changed type or a null where the schema does
not allow one fails validation.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from certify.certificates import SCHEMA_DIR
from certify import _json as _output
from certify.cli.main import main

from .fuzz_inputs import GENUINE_LIKELIHOOD

SCHEMAS = {p.name: json.loads(p.read_text()) for p in sorted(SCHEMA_DIR.glob("*.json"))}
REGISTRY = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in SCHEMAS.values())
OUTPUTS = ("bounds-v1.json", "region-v1.json", "complete-v1.json", "analyze-v3.json", "report-v2.json", "plan-v3.json")


def _reject_constant(token: str):
    raise AssertionError(f"bare {token} in JSON output")


def strict_loads(text: str):
    """``json.loads`` that fails on the non-standard tokens NaN, Infinity and -Infinity."""
    return json.loads(text, parse_constant=_reject_constant)


def schema_errors(doc: dict) -> list[str]:
    """Validation errors of ``doc`` against the schema its ``"$schema"`` names."""
    schema = REGISTRY.contents(doc["$schema"])
    validator = Draft202012Validator(schema, registry=REGISTRY)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


def assert_valid(doc: dict, name: str) -> None:
    assert doc["$schema"] == f"certify/schemas/{name}" == _output.schema_id(*name[:-5].rsplit("-v", 1))
    assert SCHEMAS[name]["properties"]["schema_version"]["const"] == doc["schema_version"]
    assert schema_errors(doc) == []


def cli_json(*args) -> tuple[str, dict]:
    """Run ``certify ARGS --json`` in process; its stdout and the parsed, schema-checked object."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in args] + ["--json"])
    assert code == 0
    text = out.getvalue()
    return text, strict_loads(text)


def nonfinite_paths(obj, path=()) -> set:
    """Paths of the non-finite floats in a nested dict/list."""
    if isinstance(obj, float):
        return set() if math.isfinite(obj) else {path}
    if isinstance(obj, dict):
        return set().union(*(nonfinite_paths(v, path + (k,)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return set().union(*(nonfinite_paths(v, path + (i,)) for i, v in enumerate(obj)))
    return set()


def at(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def write_calls(path, blocks) -> None:
    """A wide CSV: ``blocks`` is [(dataset, policy, bits array)], one row per example."""
    k = blocks[0][2].shape[1]
    lines = ["dataset,policy,example_id," + ",".join(f"b{j}" for j in range(k))]
    for ds, pol, bits in blocks:
        lines += [f"{ds},{pol},x{i}," + ",".join(str(int(b)) for b in row) for i, row in enumerate(bits)]
    path.write_text("\n".join(lines) + "\n")


def simulated(seed: int, n: int, a: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.beta(a, 1.0, n)
    return rng.random((n, 5)) < q[:, None]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("json_schemas")
    write_calls(d / "two.csv", [("ds", "p1", simulated(1, 200, 2.0)), ("ds", "p2", simulated(2, 200, 1.0))])
    # every call correct: mu-hat = 1, so rho-hat, its SE and the completions' parameters are undefined or infinite
    write_calls(d / "ones.csv", [("ds", "all", np.ones((40, 3), dtype=bool))])
    return d


# ---- the schemas themselves ------------------------------------------------------------------


def test_every_schema_is_valid_draft_2020_12_and_named_by_its_file():
    assert set(OUTPUTS) <= set(SCHEMAS)
    for name, schema in SCHEMAS.items():
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"certify/schemas/{name}"


def test_output_schemas_document_every_field():
    """Field names are documented once, in the schemas: every field has a description (or is a $ref to one)."""

    def undocumented(node, where):
        if isinstance(node, list):
            return [m for i, child in enumerate(node) for m in undocumented(child, f"{where}[{i}]")]
        if not isinstance(node, dict):
            return []
        missing = [f"{where}/{key}" for key, prop in node.get("properties", {}).items()
                   if "description" not in prop and "$ref" not in prop]
        # if/then/else only constrain fields defined elsewhere
        return missing + [m for key, child in node.items() if key not in ("if", "then", "else")
                          for m in undocumented(child, f"{where}/{key}")]

    for name in OUTPUTS:
        assert undocumented(SCHEMAS[name], name) == []
        assert "null" in SCHEMAS[name]["description"]  # the NaN/infinity rule is stated in every output schema


# ---- the one JSON writer ---------------------------------------------------------------------


def test_json_ready_turns_every_nonfinite_float_into_null_and_numpy_into_python():
    obj = {"a": math.nan, "b": [math.inf, -math.inf, 1.5], "c": (np.float32(np.nan), np.float64(2.0)),
           "d": {"e": np.array([1.0, np.inf]), "f": np.int64(3), np.int64(4): np.bool_(True)}, "g": "inf", "h": None}
    out = _output.json_ready(obj)
    assert out == {"a": None, "b": [None, None, 1.5], "c": [None, 2.0], "d": {"e": [1.0, None], "f": 3, 4: True},
                   "g": "inf", "h": None}
    assert type(out["d"]["f"]) is int and type(out["c"][1]) is float and type(out["d"][4]) is bool
    text = _output.to_json(obj)
    assert strict_loads(text) == json.loads(json.dumps(out))
    assert "NaN" not in text and "Infinity" not in text


def test_to_json_raises_instead_of_writing_nan_if_the_cleaning_step_is_bypassed(monkeypatch):
    monkeypatch.setattr(_output, "json_ready", lambda obj: obj)
    with pytest.raises(ValueError, match="Out of range float"):
        _output.to_json({"rho": math.nan})


# ---- certify bounds --------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["--mu", "0.7", "--rho", "0.2", "--votes", "3", "4", "101", "inf", "--objective", "P3 - P1"],
    ["--mu", "0.7", "--votes", "3", "inf"],
    ["--moments", "0.5", "0.3", "0.2", "--votes", "5", "--objective", "V5 - V1"],
])
def test_bounds_json_validates(args):
    _, doc = cli_json("bounds", *args)
    assert_valid(doc, "bounds-v1.json")
    assert ("nu" in doc) == ("rho" in doc) == (len(doc["moments"]) >= 2)


def test_bounds_json_undefined_rho_is_null():
    text, doc = cli_json("bounds", "--mu", "1", "--nu", "1", "--votes", "3", "inf")
    assert_valid(doc, "bounds-v1.json")
    assert doc["rho"] is None and '"rho": null' in text  # 0/0: mu(1 - mu) = 0
    assert [r["votes"] for r in doc["results"]] == [3, "inf"] and doc["results"][0]["lower"] == pytest.approx(1.0)


# ---- certify region --------------------------------------------------------------------------


def test_region_json_from_file_validates(files):
    _, doc = cli_json("region", files / "two.csv", "--group", "ds/p1", "--votes", "3", "inf", "--objective", "V5 - V1")
    assert_valid(doc, "region-v1.json")
    assert [("votes" in r, "objective" in r) for r in doc["results"]] == [(True, False), (True, False), (False, True)]
    assert doc["results"][0]["lower_gap"] is not None  # a finite budget's gap is computed; V_inf's is not
    assert doc["results"][1]["lower_gap"] is None and doc["results"][1]["upper_gap"] is None


def test_region_json_undefined_correlation_is_null():
    _, doc = cli_json("region", "--mu-hat", "1", "--nu-hat", "1", "--n", "10", "--votes", "3")
    assert_valid(doc, "region-v1.json")
    assert doc["rho_hat"] is None and doc["se_rho"] is None and doc["se_mu"] == 0.0


# ---- certify complete ------------------------------------------------------------------------


def test_complete_json_interior_validates():
    _, doc = cli_json("complete", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "5", "inf")
    assert_valid(doc, "complete-v1.json")
    assert doc["boundary"] == "" and set(doc["parameters"]) == {"lambda", "kappa"}
    assert all(isinstance(v, float) for v in doc["parameters"].values())


def test_complete_json_boundary_parameters_are_null():
    from certify.stats import complete

    _, doc = cli_json("complete", "--mu", "0.7", "--rho", "1", "--method", "ldgp")
    assert_valid(doc, "complete-v1.json")
    params = dict(complete(mu=0.7, rho=1.0, method="ldgp").parameters)
    assert {k for k, v in params.items() if not math.isfinite(v)} == {"eta", "gamma"}  # the case is non-finite in Python
    assert doc["boundary"] == "two-point" and doc["parameters"]["eta"] is None and doc["parameters"]["gamma"] is None
    assert doc["parameters"]["t"] == pytest.approx(params["t"]) and doc["parameters"]["r"] == 1.0


# ---- certify analyze -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def analyze_likelihood(files):
    return cli_json("analyze", files / "two.csv", "--votes", "3", "5", "9", "inf", "--baseline", "ds/p1")[1]


def test_analyze_json_likelihood_validates(analyze_likelihood):
    doc = analyze_likelihood
    assert_valid(doc, "analyze-v3.json")
    report = doc["reports"][0]
    assert report["method"] == "likelihood" and report["all_calls"]["order"] == 5
    rows = {r["target"]["votes"]: r for r in report["rows"] if r["target"]["aggregate"] == "majority"}
    assert {v: r["interval"]["calls"] for v, r in rows.items()} == {3: 5, 5: 5, 9: 5, "inf": 5}
    routes = {v: r["interval"]["route"] for v, r in rows.items()}
    assert routes == {3: "identified", 5: "identified", 9: "beyond the calls", "inf": "beyond the calls"}
    # the empirical estimate exists for budgets up to K = 5 calls only, and is the identified interval's
    details = {b["votes"]: b for b in report["details"]}
    assert details[5]["empirical"]["votes"] == 5 and details[9]["empirical"] is None and details["inf"]["empirical"] is None
    assert rows[5]["interval"]["estimate"] == details[5]["empirical"]["value"] and rows[9]["interval"]["estimate"] is None
    assert doc["policy_comparisons"] and doc["columns"]["form"] == "wide"


def test_analyze_json_two_call_validates(files):
    _, doc = cli_json("analyze", files / "two.csv", "--group", "ds/p2", "--votes", "3", "--method", "two-call")
    assert_valid(doc, "analyze-v3.json")
    (row,) = doc["reports"][0]["rows"]
    assert row["interval"]["method"] == row["verdict"]["gain"]["method"] == "two-call"
    assert row["interval"]["calls"] == 2 and row["interval"]["route"] == "beyond the calls"  # V3 from two calls


def test_analyze_json_nulls_are_exactly_the_nonfinite_numbers(files):
    """All calls correct: NaN correlation and SE, infinite completion parameters, uncomputed gaps -> null."""
    from certify.analysis import analyze
    from certify.readers import read_bits

    text, doc = cli_json("analyze", files / "ones.csv", "--votes", "3", "inf")
    assert_valid(doc, "analyze-v3.json")
    api = analyze(read_bits(files / "ones.csv"), votes=(3, "inf")).to_dict()
    bad = nonfinite_paths(api)
    assert {("two_call", "rho"), ("two_call", "se_rho")} <= bad
    # a record's JSON is derived from its fields, non-finite numbers already as null: no gap computed
    assert api["details"][0]["projected"]["lower_gap"] is None
    assert any(p[:1] == ("completions",) for p in bad)
    report = doc["reports"][0]
    for p in bad:
        assert at(report, p) is None, p
    assert strict_loads(text)["reports"][0] == _output.json_ready(api)


def test_analyze_json_without_a_wald_region_validates(tmp_path):
    """Every example's calls read 1, 0, 1: the two-call region is empty, the likelihood intervals stand
    and the two-call fields are null."""
    write_calls(tmp_path / "alt.csv", [("ds", "alt", np.tile([True, False, True], (30, 1)))])
    _, doc = cli_json("analyze", tmp_path / "alt.csv", "--votes", "3", "inf")
    assert_valid(doc, "analyze-v3.json")
    report = doc["reports"][0]
    assert report["region"] is None and all(b["projected"] is None for b in report["details"])
    assert all(r["interval"]["method"] == "likelihood" for r in report["rows"])


# ---- report.json -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_doc(files):
    from certify.report._build import analyze_store, report_json

    results = analyze_store(files / "two.csv", step=0.5)
    return results, report_json(files / "two.csv", results)


def test_report_json_validates_with_nulls_for_nonfinite(report_doc):
    results, text = report_doc
    doc = strict_loads(text)
    assert_valid(doc, "report-v2.json")
    assert list(doc) == sorted(doc) and doc["store"] == "two.csv" and set(doc["reports"]) == {"ds/p1", "ds/p2"}
    assert doc["mixtures"] and doc["optima"]
    for group, rep in results["reports"].items():
        bad = nonfinite_paths(rep.to_dict())
        assert doc["reports"][group]["details"][0]["projected"]["lower_gap"] is None  # two-call analyses compute no gaps
        for p in bad:
            assert at(doc["reports"][group], p) is None, p


# ---- strictness: renamed fields, changed types, unexpected nulls ------------------------------


@pytest.fixture(scope="module")
def plan_doc(tmp_path_factory) -> dict:
    """``certify plan --json`` from a 5-call pilot, with one design beyond the pilot's calls."""
    path = tmp_path_factory.mktemp("plan") / "pilot.csv"
    write_calls(path, [("ds", "p", simulated(4, 120, 2.0))])
    return cli_json("plan", path, "--votes", "3", "--examples", "60", "--calls", "3", "6", "--reps", "10")[1]


def test_plan_json_validates_and_marks_designs_beyond_the_pilot(plan_doc):
    assert_valid(plan_doc, "plan-v3.json")
    assert plan_doc["pilot_calls"] == 5
    assert [(r["calls"], r["beyond_pilot"]) for r in plan_doc["rows"]] == [(3, False), (6, True)] * 2


@pytest.fixture(scope="module")
def documents(analyze_likelihood, report_doc, plan_doc):
    """One valid document per output."""
    return {
        "plan-v3.json": plan_doc,
        "bounds-v1.json": cli_json("bounds", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "inf")[1],
        "region-v1.json": cli_json("region", "--mu-hat", "0.7", "--rho-hat", "0.2", "--n", "100", "--votes", "3")[1],
        "complete-v1.json": cli_json("complete", "--mu", "0.7", "--rho", "0.2")[1],
        "analyze-v3.json": analyze_likelihood,
        "report-v2.json": strict_loads(report_doc[1]),
    }


MUTATION_SITES = [
    ("bounds-v1.json", ("mu",)),
    ("bounds-v1.json", ("results", 0, "lower")),
    ("bounds-v1.json", ("results", 1, "upper")),  # the V_inf entry
    ("region-v1.json", ("results", 0, "upper")),
    ("region-v1.json", ("region", "radius2")),
    ("complete-v1.json", ("results", 0, "value")),
    ("complete-v1.json", ("mu",)),
    ("analyze-v3.json", ("reports", 0, "details", 0, "sharp_lower")),
    ("analyze-v3.json", ("reports", 0, "details", 1, "empirical", "value")),
    ("analyze-v3.json", ("reports", 0, "two_call", "mu")),
    ("analyze-v3.json", ("reports", 0, "rows", 0, "verdict", "votes")),
    ("report-v2.json", ("reports", "ds/p1", "details", 0, "sharp_lower")),
    ("report-v2.json", ("mixtures", 0, "best", 0, "mixture", "mu")),
    ("report-v2.json", ("optima", 0, "lower")),
    ("plan-v3.json", ("pilot_calls",)),
    ("plan-v3.json", ("rows", 1, "p_certified")),
    ("plan-v3.json", ("scenarios", "npmle", "gain")),
]


@pytest.mark.parametrize("name,path", MUTATION_SITES)
@pytest.mark.parametrize("mutation", ["rename", "string", "null", "drop"])
def test_schema_rejects_a_changed_field(documents, name, path, mutation):
    doc = copy.deepcopy(documents[name])
    assert schema_errors(doc) == []
    parent, key = at(doc, path[:-1]), path[-1]
    assert isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool)
    if mutation == "rename":
        parent[key + "_renamed"] = parent.pop(key)
    elif mutation == "drop":
        del parent[key]
    else:
        parent[key] = str(parent[key]) if mutation == "string" else None
    assert schema_errors(doc), f"{name} {path}: {mutation} went unnoticed"


@pytest.mark.parametrize("name,path", [(name, ()) for name in OUTPUTS] + [(name, path[:-1]) for name, path in MUTATION_SITES])
def test_schema_rejects_an_unknown_field(documents, name, path):
    doc = copy.deepcopy(documents[name])
    at(doc, path)["extra"] = 1
    assert schema_errors(doc), f"{name} {path}: an unknown field went unnoticed"


@pytest.mark.parametrize("name", OUTPUTS)
def test_schema_rejects_another_version(documents, name):
    doc = copy.deepcopy(documents[name])
    doc["schema_version"] = str(int(doc["schema_version"]) + 1)
    assert schema_errors(doc)


# ---- certificate folders: index.json and the optional source of a likelihood certificate ------------


def _index_doc() -> dict:
    entry = {"file": "d_gpt_4-0123abcd_V3_lower.json", "sha256": "ab" * 32, "group": "d/gpt-4", "objective": "V3", "side": "lower"}
    return {"$schema": "certify/schemas/certificate-index-v1.json", "schema_version": "1", "kind": "certificate-index",
            "data_sha256": "0f" * 32, "certificates": [entry]}


@pytest.mark.parametrize("edit", [
    lambda d: d.update(extra=1),
    lambda d: d.update(schema_version="2"),
    lambda d: d.update(data_sha256="ABCD"),
    lambda d: d["certificates"][0].update(side="middle"),
    lambda d: d["certificates"][0].update(file="../escape.json"),
    lambda d: d["certificates"][0].update(file="notes.txt"),
    lambda d: d["certificates"][0].update(sha256=None),
    lambda d: d["certificates"][0].pop("group"),
    lambda d: d["certificates"][0].update(note="x"),
])
def test_certificate_index_schema_is_strict(edit):
    doc = _index_doc()
    assert schema_errors(doc) == []
    edit(doc)
    assert schema_errors(doc)


def test_certificate_index_schema_documents_every_field():
    schema = SCHEMAS["certificate-index-v1.json"]
    entry = schema["properties"]["certificates"]["items"]["properties"]
    assert all("description" in prop for prop in (*schema["properties"].values(), *entry.values()))


def test_likelihood_certificate_source_is_optional_and_strict():
    doc = copy.deepcopy(GENUINE_LIKELIHOOD)
    validator = Draft202012Validator(SCHEMAS["certificate-v2.json"], registry=REGISTRY)
    assert list(validator.iter_errors(doc)) == []  # files written before the field stay valid
    doc["source"] = {"group": "d/gpt 4", "data_sha256": "0f" * 32}
    assert list(validator.iter_errors(doc)) == []
    for bad in ({"group": "g"}, {"group": "g", "data_sha256": "x" * 64}, {"group": 4, "data_sha256": "0f" * 32},
                {"group": "g", "data_sha256": "0f" * 32, "file": "a.csv"}):
        doc["source"] = bad
        assert list(validator.iter_errors(doc)), bad
