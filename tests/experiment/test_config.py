"""Config validation: every mistake is one line naming the key, the value and the rule."""

from __future__ import annotations

import pytest

from certify._errors import InputError
from certify.experiment import ExperimentConfig, load_config
from exp_helpers import ROOT, cli

GOOD = {
    "experiment": {"name": "e", "store": "runs/e.sqlite", "repeats": 3},
    "datasets": [{"name": "parity", "n": 4}],
    "backends": {"local": {"kind": "ollama", "endpoints": ["http://127.0.0.1:1"], "concurrency": 2}},
    "defaults": {"backend": "local", "top_p": 0.9},
    "policies": [{"name": "p", "model": "m", "temperature": 1.0, "seed_base": 5}],
}


def _with(path: str, value):
    import copy

    doc = copy.deepcopy(GOOD)
    *keys, last = path.split(".")
    node = doc
    for k in keys:
        node = node[int(k)] if k.isdigit() else node[k]
    key = int(last) if last.isdigit() else last
    if value is _DELETE:
        del node[key]
    else:
        node[key] = value
    return doc


_DELETE = object()


def test_round_trip_and_defaults():
    cfg = ExperimentConfig.from_dict(GOOD)
    assert cfg.policies[0].top_p == 0.9 and cfg.policies[0].num_predict == 16
    assert cfg.datasets[0].task == "parity" and cfg.datasets[0].draw_file == "runs/draws/parity_main_4.jsonl"
    assert cfg.backend("local").concurrency == 2
    assert cfg.backend("local").response_format == "auto"  # settled against the server at run time
    again = ExperimentConfig.from_dict(cfg.to_dict())
    assert again == cfg


@pytest.mark.parametrize(
    "path, value, message",
    [
        ("policies.0.temperature", -1, "policies[0].temperature = -1: must be a number from 0 to 100"),
        ("policies.0.top_p", 0, "policies[0].top_p = 0: must be a number in (0, 1]"),
        ("policies.0.seed_base", "x", "policies[0].seed_base = 'x': must be an integer from 0 to 2**63 - 1"),
        ("policies.0.tempreature", 1, "unknown key policies[0].tempreature"),
        ("policies.0.backend", "nowhere", "policies[0].backend = 'nowhere': no [backends.nowhere] table"),
        ("policies.0.model", _DELETE, "missing key policies[0].model"),
        ("experiment.repeats", 0, "experiment.repeats = 0: must be an integer from 1 to 1000"),
        ("datasets.0.n", 20000, "datasets[0].n = 20000: must be at most pool = 10000"),
        ("datasets.0.task", "mnli", "datasets[0].task = 'mnli': must be one of"),
        ("datasets.0.source", "file", "datasets[0].task = 'parity': source file needs qnli or qqp"),
        ("datasets.0", {"name": "qnli", "source": "file", "n": 2}, "missing key datasets[0].path"),
        ("backends.local.concurrency", 0, "backends.local.concurrency = 0: must be an integer from 1 to 256"),
        ("backends.local.endpoints", ["localhost:1"], "backends.local.endpoints = ['localhost:1']: must be a list of http"),
        ("backends.local.mode", "choice", "backends.local.mode = 'choice': choice mode needs the embedded backend"),
        ("backends.local.kind", "vllm", "backends.local.kind = 'vllm': must be ollama, openai or embedded"),
        ("backends.local.response_format", "json", "backends.local.response_format = 'json': must be auto, json_schema,"),
        ("policies", [], "missing key policies"),
        ("extra", 1, "unknown top-level key 'extra'"),
    ],
)
def test_bad_values_name_the_key(path, value, message):
    with pytest.raises(InputError) as err:
        ExperimentConfig.from_dict(_with(path, value))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_embedded_backend_rules():
    doc = _with("backends", {"embedded": {"concurrency": 2}})
    doc["defaults"]["backend"] = "embedded"
    with pytest.raises(InputError, match="concurrency = 2: must be 1 for the embedded backend"):
        ExperimentConfig.from_dict(doc)


def test_duplicate_policy_names():
    doc = _with("policies", GOOD["policies"] * 2)
    with pytest.raises(InputError, match=r"policies\[1\].name = 'p': names must be unique"):
        ExperimentConfig.from_dict(doc)


def test_files(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_config(tmp_path / "none.toml")
    (tmp_path / "bad.toml").write_text("[experiment\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_config(tmp_path / "bad.toml")


def test_example_configs_are_valid():
    paper = load_config(ROOT / "examples" / "paper.toml")
    assert [(d.name, d.n) for d in paper.datasets] == [("qnli", 8192), ("qqp", 8192)]
    assert paper.repeats == 5 and len(paper.policies) == 9
    assert sorted(p.seed_base for p in paper.policies) == [
        20263001, 20263002, 20263003, 20263011, 20263012, 20263013, 20263021, 20263022, 20263023]
    assert {p.top_p for p in paper.policies} == {0.95} and {p.num_predict for p in paper.policies} == {16}
    assert {p.temperature for p in paper.policies} == {0.2, 1.0, 2.0}
    emb = load_config(ROOT / "examples" / "embedded.toml")
    assert emb.repeats == 5 and emb.backends[0].mode == "choice" and len({p.temperature for p in emb.policies}) >= 3


def test_cli_bad_config_is_exit_2_and_one_line(tmp_path):
    (tmp_path / "c.toml").write_text('[experiment]\nname = "e"\nstore = "s.sqlite"\nrepeats = -2\n')
    out = cli("experiment", "run", str(tmp_path / "c.toml"), cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "certify experiment: error: experiment.repeats = -2: must be an integer from 1 to 1000"
    ]
    out = cli("experiment", "status", str(tmp_path / "nothing.sqlite"), cwd=tmp_path)
    assert out.returncode == 2 and "no such file" in out.stderr and "Traceback" not in out.stderr
