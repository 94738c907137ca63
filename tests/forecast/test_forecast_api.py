"""The public API of certify.forecast: results, JSON against its schema, targets, errors, layering."""

import ast
import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

import certify.forecast as fc
from certify import InputError
from certify._aggregate_bounds import PASS_INF
from certify._objective import V_INF, parse_objective
from certify.certificates import SCHEMA_DIR
from certify.likelihood import CellCounts, cell_counts, npmle

SCHEMA = json.loads((SCHEMA_DIR / "forecast-v1.json").read_text())
REGISTRY = Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))


def _errors(doc):
    validator = Draft202012Validator(SCHEMA, registry=REGISTRY)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


def _strict(doc):
    """The document through strict JSON (no NaN or Infinity tokens)."""
    def reject(token):
        raise AssertionError(f"bare {token} in JSON")

    return json.loads(json.dumps(doc), parse_constant=reject)


@pytest.fixture(scope="module")
def cells():
    rng = np.random.default_rng(21)
    return cell_counts(np.full(400, 6), rng.binomial(6, rng.beta(0.9, 1.6, 400)))


@pytest.fixture(scope="module")
def result(cells):
    return fc.forecast(cells, [9, "pass@50", "inf", "pass@inf", "V9 - V1", "pass@50 - V1", "1 - (1-q)**8"], bootstrap=20)


def test_the_forecast_names_its_family_guard_and_targets(result, cells):
    assert result.family == result.fit.label and result.guard.family == result.family
    assert result.candidates[0 if not result.rejected else len(result.rejected)] == result.fit
    bic = [c.bic for c in result.candidates]
    assert bic == sorted(bic) and result.criterion == "bic"
    assert [t.target for t in result.targets] == ["V9", "pass@50", "V_inf", "pass@inf", "V9 - V1", "pass@50 - V1",
                                                  "1 - (1-q)**8"]
    for t in result.targets:
        assert t.estimate == pytest.approx(result.fit.value(t.target), abs=1e-15)
        assert t.level == 0.95 and "parametric bootstrap percentile" in t.method and "not certified" in t.method
    assert result.target("pass@inf").estimate == pytest.approx(1.0 - result.fit.params.get("w0", 0.0))
    assert "not certified" in result.note
    assert result.schema_version == fc.FORECAST_SCHEMA_VERSION == "1"
    with pytest.raises(KeyError):
        result.target("V11")


def test_to_dict_validates_against_the_schema(result):
    doc = _strict(result.to_dict())
    assert doc["$schema"] == "certify/schemas/forecast-v1.json"
    assert _errors(doc) == []
    Draft202012Validator.check_schema(SCHEMA)
    for mutate in (lambda d: d.update(extra=1), lambda d: d["targets"][0].update(estimate="x"),
                   lambda d: d.update(schema_version="2"), lambda d: d["guard"].pop("p_value"),
                   lambda d: d["fit"].update(family="gamma")):
        bad = copy.deepcopy(doc)
        mutate(bad)
        assert _errors(bad), mutate


def test_bootstrap_none_is_the_default(cells):
    fit = fc.fit_family(cells, "beta")
    check = fc.check_family(cells, fit, [9], bootstrap=None)
    # B = 200 draws for the intervals, the guard's LR on the first 99 of them
    assert "200 draws" in check.targets[0].method and check.guard.draws == 99


def test_the_guard_reads_the_first_draws_and_the_intervals_all_of_them(cells):
    """The draws are one seeded stream: with B = 150 and B = 99 the guard sees the same 99 draws
    (equal p-values), while the intervals of B = 150 use 51 more refits; alpha = 0.01 needs 200."""
    fit = fc.fit_family(cells, "beta")
    long, short = (fc.check_family(cells, fit, [9, "pass@20"], bootstrap=b, seed=3) for b in (150, 99))
    assert long.guard == short.guard and long.guard.draws == 99
    assert long.targets != short.targets
    assert fc.check_family(cells, fit, bootstrap=39).guard.draws == 39
    assert fc.check_family(cells, fit, alpha=0.01, bootstrap=300).guard.draws == 200


def test_a_given_npmle_is_the_one_computed(cells, result):
    again = fc.forecast(cells, [9, "pass@50", "inf", "pass@inf", "V9 - V1", "pass@50 - V1", "1 - (1-q)**8"],
                        bootstrap=20, reference=npmle(cells))
    assert again == result and result.guard.npmle_loglik == npmle(cells).loglik


def test_the_schema_documents_every_field():
    def undocumented(node, where):
        if isinstance(node, list):
            return [m for i, child in enumerate(node) for m in undocumented(child, f"{where}[{i}]")]
        if not isinstance(node, dict):
            return []
        missing = [f"{where}/{key}" for key, prop in node.get("properties", {}).items()
                   if "description" not in prop and "$ref" not in prop]
        return missing + [m for child in node.values() for m in undocumented(child, where)]

    assert undocumented(SCHEMA, "forecast-v1.json") == []
    assert "null" in SCHEMA["description"] and "not certified" in SCHEMA["description"]


def test_to_dict_of_no_forecast_has_nulls_and_validates():
    rng = np.random.default_rng(7)
    cells = cell_counts(np.full(1000, 20), rng.binomial(20, rng.choice([0.05, 0.35, 0.65, 0.95], 1000)))
    none = fc.forecast(cells, [9], bootstrap=20, families=["beta", "ldgp"])
    doc = _strict(none.to_dict())
    assert doc["family"] is None and doc["fit"] is None and doc["guard"] is None
    assert doc["targets"][0]["estimate"] is None and len(doc["rejected"]) == 2
    assert _errors(doc) == []


def test_targets_in_every_form():
    assert fc.parse_target(9).objective == parse_objective("V9")
    assert fc.parse_target("pass@10") == fc.ForecastTarget("pass@10", "pass", calls=10)
    assert fc.parse_target(V_INF).kind == fc.parse_target("Vinf").kind == fc.parse_target(math.inf).kind == "vote_limit"
    assert fc.parse_target(PASS_INF).kind == fc.parse_target("P(Q > 0)").kind == "pass_limit"
    assert fc.parse_target("pass@inf - q") == fc.ForecastTarget("pass@inf - V1", "pass_limit", gain=True)
    assert fc.parse_target("inf - V1").gain
    assert fc.parse_target([0, 3, -2]).objective.bernstein == parse_objective("3*q - 2*q**2").bernstein


def test_values_of_the_targets_agree_with_each_other(cells):
    fit = fc.fit_family(cells, "beta")
    mean = fit.params["a"] / (fit.params["a"] + fit.params["b"])
    assert fit.value(1) == pytest.approx(mean, abs=1e-15)
    assert fit.value("pass@1") == pytest.approx(mean, abs=1e-15)
    assert fit.value("pass@8") == pytest.approx(fit.value("1 - (1-q)**8"), abs=1e-13)
    assert fit.value(3) == pytest.approx(fit.value("3*q**2 - 2*q**3"), abs=1e-14)
    assert fit.value(4) == pytest.approx(fit.value(3), abs=1e-15)  # fair ties: V_2n = V_2n-1
    assert fit.value("V5 - V1") == pytest.approx(fit.value(5) - mean, abs=1e-15)
    assert fit.value("inf - V1") == pytest.approx(fit.value("inf") - mean, abs=1e-15)
    votes = [fit.value(k) for k in (1, 3, 9, 21, 101, 1001)]
    assert np.all(np.diff(votes) < 0) == (fit.value("inf") < mean)  # monotone towards V_inf
    assert fit.value(1001) == pytest.approx(fit.value("inf"), abs=0.01)


def test_cells_from_bits_are_accepted():
    from certify import CallBits

    matrix = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [1, 0, 0]] * 20, dtype=float)
    bits = CallBits(tuple(f"e{i}" for i in range(80)), matrix, np.full(80, 3))
    assert fc.fit_family(bits, "beta").loglik == fc.fit_family(cell_counts([3] * 80, matrix.sum(1)), "beta").loglik


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda c: fc.forecast(c, [9], alpha=0.0), "alpha=0.0"),
        (lambda c: fc.forecast(c, [9], alpha=1.5), "alpha=1.5"),
        (lambda c: fc.forecast(c, [9], alpha=True), "alpha=True"),
        (lambda c: fc.forecast(c, [9], families=["gamma"]), "family='gamma' is unknown"),
        (lambda c: fc.forecast(c, [9], families=[]), "families=[]"),
        (lambda c: fc.forecast(c, [9], bootstrap=5), "bootstrap=5"),
        (lambda c: fc.forecast(c, [9], bootstrap=10**6), "bootstrap=1000000"),
        (lambda c: fc.forecast(c, [9], alpha=0.01, bootstrap=50), "cannot reject at alpha=0.01"),
        (lambda c: fc.forecast(c, [9], seed=-1), "seed=-1"),
        (lambda c: fc.forecast(c, [9], criterion="hqic"), "criterion='hqic'"),
        (lambda c: fc.forecast(c, [9], pool=-1), "pool=-1"),
        (lambda c: fc.forecast(c, [9], pool=math.nan), "pool=nan"),
        (lambda c: fc.forecast(c, ["pass@0"]), "pass@0"),
        (lambda c: fc.forecast(c, [10**7]), "10000000"),
        (lambda c: fc.forecast(c, ["V3 + log(q)"]), "V3 + log(q)"),
        (lambda c: fc.forecast(c, [object()]), "must be a vote count"),
        (lambda c: fc.forecast(c, [1] * 201), "201 targets exceed"),
        (lambda c: fc.forecast("cells", [9]), "cells=str"),
        (lambda c: fc.fit_family(c, "maxent", degree=7), "maxent degree=7"),
        (lambda c: fc.fit_family(c, "beta", degree=2), "degree=2 applies to the maxent family only"),
        (lambda c: fc.fit_family(cell_counts([3, 3, 3], [0, 1, 3]), "beta01"), "more than K_max=3"),
        (lambda c: fc.fit_family(cell_counts([2, 2, 2], [0, 1, 2]), "maxent", degree=3), "exceeds K_max=2"),
        (lambda c: fc.check_family(c, "beta"), "fit=str"),
        (lambda c: fc.forecast(c, [9], reference="npmle"), "reference=str"),
        (lambda c: fc.forecast(c, [9], reference=npmle(cell_counts([2, 2], [0, 1]))), "give the NPMLE of these cells"),
        (lambda c: fc.check_family(cell_counts([2, 2], [0, 1]), fc.fit_family(c, "beta")), "check a fit on the data"),
    ],
)
def test_bad_input_raises_one_line_input_errors(cells, call, words):
    with pytest.raises(InputError) as err:
        call(cells)
    message = str(err.value)
    assert words in message and "\n" not in message


@pytest.mark.parametrize("calls, successes, words", [([1, 1, 1], [0, 1, 1], "K_i = 1"), ([], [], "N=0")])
def test_data_without_two_calls_or_examples_is_refused(calls, successes, words):
    with pytest.raises(InputError, match=words):
        fc.forecast(cell_counts(calls, successes), [9])


def test_too_many_cells_are_refused():
    k = np.repeat(np.arange(2, 200), np.arange(3, 201))
    s = np.concatenate([np.arange(j + 1) for j in range(2, 200)])
    cells = CellCounts(k, s, np.ones(len(k), dtype=np.int64))
    assert cells.size > 10_000
    with pytest.raises(InputError, match="exceed the limit of 10000"):
        fc.fit_families(cells)


def test_only_families_with_at_most_k_max_parameters_are_fitted():
    rng = np.random.default_rng(2)
    cells = cell_counts(np.full(300, 2), rng.binomial(2, rng.beta(1, 1, 300)))
    fits = fc.fit_families(cells)
    assert {f.family for f in fits} == {"beta", "ldgp", "maxent"}
    assert all(f.size <= 2 for f in fits)


def test_the_forecast_package_imports_no_sibling_statistics_module():
    """certify.forecast sits beside certify.stats (tests/test_layers.py) and imports neither it nor anything above."""
    root = Path(fc.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                assert not module.startswith(("stats", "cli", "report", "experiment")), (path, module)
                assert "certify.stats" not in module, (path, module)
