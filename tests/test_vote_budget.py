"""The infinite vote budget is one typed value (issue 14), read by one parser everywhere.

Every function and command that takes a vote budget accepts the same spellings of V_inf
and refuses the same bad budgets with the same one-line message naming the value; JSON
still writes V_inf as ``"inf"``. A source walk keeps string tests of ``"inf"`` from
coming back.
"""

from __future__ import annotations

import ast
import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

from certify import V_INF, InputError, VoteLimit, parse_vote_budget
from certify._objective import INFINITE_SPELLINGS, budget_json, parse_vote_budgets, votes_label
from certify.cli.main import main

ROOT = Path(__file__).resolve().parent.parent / "certify"

SPELLINGS = ["inf", "INF", "infinity", "vinf", "V_inf", "v_inf", " Infinity ", "v-inf"]
#: Bad budgets, each with how the message names it.
BAD = [("x", "'x'"), ("0", "0"), ("-3", "-3"), ("+3", "'+3'"), ("3.5", "'3.5'"), ("1e3", "'1e3'"),
       ("infinite", "'infinite'"), ("", "''"), ("\u0663", "'\u0663'"), ("1000001", "1000001"),
       ("9" * 40, "'" + "9" * 40 + "'")]


# ---- the typed value and the parser ------------------------------------------------------------


def test_one_instance_that_survives_copies_and_pickles():
    assert VoteLimit() is V_INF and V_INF.name == "V_inf" and repr(V_INF) == "V_INF"
    assert pickle.loads(pickle.dumps(V_INF)) is V_INF
    assert copy.copy(V_INF) is V_INF and copy.deepcopy({V_INF: 1}) == {V_INF: 1}
    assert V_INF != "inf" and V_INF != float("inf")  # a value of its own, not a string


@pytest.mark.parametrize("spelling", [*SPELLINGS, float("inf"), V_INF])
def test_parser_reads_every_spelling(spelling):
    assert parse_vote_budget(spelling) is V_INF


def test_spellings_are_the_union_of_those_accepted_before():
    # certificates: inf vinf v_inf infinity; statistics: inf infinity vinf v_inf v-inf; CLI: inf infinity
    assert set(INFINITE_SPELLINGS) == {"inf", "infinity", "vinf", "v_inf", "v-inf"}


def test_parser_reads_counts():
    assert parse_vote_budget("0003") == 3 and parse_vote_budget(4) == 4 and parse_vote_budget(np.int64(5)) == 5
    assert parse_vote_budget(" 7 ") == 7 and parse_vote_budget(10**6) == 10**6
    assert parse_vote_budgets(["3", 5, "inf"]) == (3, 5, V_INF) and parse_vote_budgets("inf") == (V_INF,)


@pytest.mark.parametrize("bad, shown", BAD + [(True, "True"), (3.0, "3.0"), (None, "None"), (0, "0"), (10**7, "10000000")])
def test_parser_refuses_with_one_line_naming_the_value(bad, shown):
    with pytest.raises(InputError) as err:
        parse_vote_budget(bad)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"votes={shown} ")


def test_at_least_one_budget():
    with pytest.raises(InputError, match="at least one vote budget"):
        parse_vote_budgets([])


def test_json_writes_inf_and_reads_back():
    assert budget_json(V_INF) == "inf" and budget_json(np.int64(3)) == 3 and type(budget_json(np.int64(3))) is int
    assert parse_vote_budget(budget_json(V_INF)) is V_INF


# ---- every function that takes a budget --------------------------------------------------------


@pytest.fixture(scope="module")
def bits():
    from certify.readers import bits_from_array

    rng = np.random.default_rng(3)
    q = rng.beta(2.0, 1.0, 60)
    return bits_from_array(rng.random((60, 4)) < q[:, None])


def _region():
    from certify.stats import two_call_from_summary, wald_region

    return wald_region(two_call_from_summary(0.78, 500, rho=0.55), 0.05)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_function_reads_every_spelling(spelling, bits):
    from certify import certify_bound
    from certify.report._table_format import votes_text
    from certify.stats import complete, project
    from certify.analysis import analyze, parse_votes
    from certify.likelihood import is_infinite_budget

    assert parse_votes([3, spelling]) == (3, V_INF) and is_infinite_budget(spelling)
    assert votes_label(spelling) == votes_label(V_INF) == "infinitely many votes"
    assert votes_text(spelling) == votes_text(V_INF) == "infinitely many votes"
    c = complete(mu=0.7, rho=0.2)
    assert c.value(spelling) == c.value(V_INF)
    got, typed = (project(_region(), v, certify=False) for v in (spelling, V_INF))
    assert (got.objective, got.lower, got.upper) == (typed.objective, typed.lower, typed.upper) == ("inf", typed.lower, typed.upper)
    rep = analyze(bits, votes=(3, spelling), method="two-call")
    doc = rep.to_dict()
    assert [b.votes for b in rep.budgets] == [3, V_INF] and [r.target.votes for r in rep.rows()] == [3, V_INF]
    assert doc["rows"][1]["target"]["votes"] == "inf" and doc["details"][1]["votes"] == "inf"
    assert certify_bound(spelling, "upper", mu="0.7", rho="0.2").objective_name == "Vinf"


@pytest.mark.parametrize("spelling", [*SPELLINGS, V_INF])
def test_polynomial_bounds_point_v_inf_to_its_own_solver(spelling):
    from certify import ObjectiveError, endpoint_bounds, sharp_bounds

    with pytest.raises(ObjectiveError, match="infinite budget V_inf, not a polynomial.*endpoint_bounds") as err:
        sharp_bounds(spelling, mu=0.7, rho=0.2)
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
    assert endpoint_bounds(0.7, rho=0.2).upper == pytest.approx(1.0)  # the named solver answers


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_likelihood_reads_every_spelling(spelling):
    from certify.likelihood import cell_counts, likelihood_interval

    cells = cell_counts(np.full(30, 4), np.arange(30) % 5)
    assert likelihood_interval(cells, spelling).objective == likelihood_interval(cells, V_INF).objective == "Vinf"


@pytest.mark.parametrize("bad, shown", BAD)
def test_every_function_refuses_the_same_budgets(bad, shown, bits):
    from certify.stats import complete
    from certify.analysis import analyze, parse_votes

    c = complete(mu=0.7, rho=0.2)
    for call in (lambda: parse_votes([bad]), lambda: c.value(bad), lambda: analyze(bits, votes=(3, bad), method="two-call")):
        with pytest.raises(InputError) as err:
            call()
        assert "\n" not in str(err.value) and str(err.value).startswith(f"votes={shown} ")


# ---- every command that takes --votes ----------------------------------------------------------


@pytest.fixture(scope="module")
def calls_csv(tmp_path_factory):
    rng = np.random.default_rng(4)
    q = rng.beta(2.0, 1.0, 60)
    bits = rng.random((60, 4)) < q[:, None]
    path = tmp_path_factory.mktemp("budgets") / "calls.csv"
    path.write_text("example_id,b0,b1,b2,b3\n" + "".join(f"x{i}," + ",".join(str(int(b)) for b in row) + "\n"
                                                         for i, row in enumerate(bits)))
    return path


def _commands(csv):
    moments = ["--mu", "0.7", "--rho", "0.2"]
    return {
        "bounds": (["bounds", *moments, "--votes", "3"], True),
        "complete": (["complete", *moments, "--votes", "3"], True),
        "region": (["region", "--mu-hat", "0.78", "--rho-hat", "0.55", "--n", "500", "--votes", "3"], True),
        "analyze": (["analyze", str(csv), "--method", "two-call", "--votes", "3"], True),
        "certificate": (["certificate", *moments, "--side", "upper", "--votes"], False),
    }


COMMANDS = ["bounds", "complete", "region", "analyze", "certificate"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_command_reads_every_spelling(command, spelling, calls_csv, capsys):
    args, json = _commands(calls_csv)[command]
    assert main([*args, spelling] + (["--json"] if json else [])) == 0
    out = capsys.readouterr().out
    assert '"inf"' in out if json else '"Vinf"' in out


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("bad, shown", BAD)
def test_every_command_refuses_the_same_budgets(command, bad, shown, calls_csv, capsys):
    args, _ = _commands(calls_csv)[command]
    assert main([*args, bad]) == 2
    err = capsys.readouterr().err
    assert err == f"certify {command}: error: votes={shown}" + err.split(f"votes={shown}", 1)[1]
    assert err.count("\n") == 1


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_plan_names_v_inf_and_refuses_it(spelling, calls_csv, capsys):
    # planning is for a finite gain V_k - V_1: V_inf is recognized, and refused with its reason
    assert main(["plan", str(calls_csv), "--votes", spelling]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"certify plan: error: votes={spelling!r} is V_inf") and err.count("\n") == 1


# ---- no string tests of "inf" in the source ------------------------------------------------------

#: The one place that knows how V_inf is spelled: the parser and the JSON serializer.
PARSER = ROOT / "_objective.py"
#: Comparisons with a spelling that are not about a vote budget, each with its reason.
NOT_BUDGETS = {("likelihood/_ends.py", "vinf"): "a tag of the likelihood solver's target kinds (polynomial, vinf, zero)"}


def _spelling(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().lower() in INFINITE_SPELLINGS:
        return node.value.strip().lower()
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return next((s for s in map(_spelling, node.elts) if s is not None), None)
    return None


def _docstrings(tree) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _not_a_budget(parents: list) -> bool:
    """A --votes default or DEFAULT_VOTES (command-line text, read by the parser like the user's), or
    the float ``float("inf")``."""
    first = parents[0] if parents else None
    if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "float":
        return True
    for node in parents:
        if isinstance(node, ast.keyword) and node.arg == "default":
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DEFAULT_VOTES" for t in node.targets):
            return True
    return False


def string_tests_of_infinity(root: Path = ROOT) -> list[str]:
    """Comparisons with a spelling of V_inf, and any other use of ``"inf"`` / ``"infinity"`` as a value."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == PARSER:
            continue
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                for operand in (node.left, *node.comparators):
                    s = _spelling(operand)
                    if s is not None and (rel, s) not in NOT_BUDGETS:
                        found.append(f"certify/{rel}:{node.lineno}: compares with the string {s!r}; use `is V_INF`")
            elif isinstance(node, ast.Constant) and id(node) not in docs and isinstance(node.value, str) \
                    and node.value.strip().lower() in ("inf", "infinity"):
                chain, up = [], parents.get(id(node))
                while up is not None:
                    chain.append(up)
                    up = parents.get(id(up))
                if not _not_a_budget(chain) and not any(isinstance(up, ast.Compare) for up in chain):
                    found.append(f"certify/{rel}:{node.lineno}: the string {node.value!r} as a value; use V_INF "
                                 "(budget_json writes JSON)")
    return found


def test_no_string_tests_of_infinity():
    found = string_tests_of_infinity()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("source", ['if v == "inf":\n    pass\n', 'ok = t.lower() in ("inf", "infinity")\n',
                                    'x = "V_inf" != y\n', 'votes = (3, "inf")\n'])
def test_the_walk_finds_string_tests(source, tmp_path):
    (tmp_path / "_x.py").write_text(source)
    assert len(string_tests_of_infinity(tmp_path)) == 1


def test_the_walk_leaves_command_line_defaults_and_floats(tmp_path):
    (tmp_path / "_x.py").write_text('p.add_argument("--votes", default=["3", "inf"])\nz = float("inf") > t\n')
    assert string_tests_of_infinity(tmp_path) == []
