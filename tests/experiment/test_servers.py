"""Real servers on loopback: certify serve-ollama (with the official ollama client) and llama-cpp-python's OpenAI server."""

from __future__ import annotations

import csv
import json
import sqlite3

import ollama
import pyarrow.parquet as pq
import pytest

from certify.experiment import ANSWER_SCHEMA, TASKS, build_prompt
from exp_helpers import BUILTIN_DATASET, EMBEDDED_CHOICE, cli, free_port, policy, write_config

SCHEMA = json.loads(json.dumps(dict(ANSWER_SCHEMA)))


def _calls(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT example_id, repeat, seed, answer, valid, parse, endpoint, prompt_tokens "
                          "FROM calls ORDER BY example_id, repeat").fetchall()
    finally:
        db.close()


def test_official_ollama_client_lists_and_generates(ollama_choice_server):
    client = ollama.Client(host=ollama_choice_server, timeout=60)
    assert [m.model for m in client.list().models] == ["gemma3:270m"]
    prompt = build_prompt(TASKS["parity"], {"number": "12"})
    opts = {"temperature": 1.0, "top_p": 0.95, "num_predict": 16, "seed": 4}
    r = client.generate(model="gemma3:270m", prompt=prompt, format=SCHEMA, options=opts, keep_alive="30m")
    assert r.done and r.done_reason == "stop" and json.loads(r.response)["answer"] in ("Yes", "No")
    assert r.prompt_eval_count > 20
    # same seed, same answer; the streaming form works too
    again = list(client.generate(model="gemma3:270m", prompt=prompt, format=SCHEMA, options=opts, stream=True))
    assert again[-1].done and again[-1].response == r.response
    with pytest.raises(ollama.ResponseError) as err:
        client.generate(model="llama3.1:8b", prompt="hi")
    assert err.value.status_code == 404 and "not found" in err.value.error


def _same_policy_over_ollama_and_embedded(tmp_path, server: str, datasets: str, repeats: int, seed_base: int,
                                          concurrency: int) -> None:
    """Write o.toml (the policy over ``server``) and e.toml (the same policy embedded, choice mode)."""
    write_config(tmp_path / "o.toml", store=str(tmp_path / "o.sqlite"), datasets=datasets, repeats=repeats,
                 backends=f'[backends.ollama]\nendpoints = ["{server}"]\nconcurrency = {concurrency}\n',
                 policies=policy("gemma3-t1", "ollama", "gemma3:270m", 1.0, seed_base))
    write_config(tmp_path / "e.toml", store=str(tmp_path / "e.sqlite"), datasets=datasets, repeats=repeats,
                 backends=EMBEDDED_CHOICE, policies=policy("gemma3-t1", "embedded", "gemma3:270m", 1.0, seed_base))


def test_ollama_backend_run_equals_embedded_choice_and_exports(tmp_path, ollama_choice_server):
    _same_policy_over_ollama_and_embedded(tmp_path, ollama_choice_server, BUILTIN_DATASET.format(n=5), 3, 77, 2)
    out = cli("experiment", "run", str(tmp_path / "o.toml"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "recorded 15 calls (0 invalid)" in out.stdout
    assert cli("experiment", "run", str(tmp_path / "e.toml"), "--no-progress", cwd=tmp_path).returncode == 0
    over_http, in_process = _calls(tmp_path / "o.sqlite"), _calls(tmp_path / "e.sqlite")
    # the server's choice path is the embedded computation: same seeds, same answers
    assert [r[:6] for r in over_http] == [r[:6] for r in in_process]
    assert {r[6] for r in over_http} == {ollama_choice_server} and {r[5] for r in over_http} == {"json"}

    st = cli("experiment", "status", str(tmp_path / "o.sqlite"))
    assert st.returncode == 0 and "15/15" in st.stdout and "(complete)" in st.stdout
    assert cli("experiment", "export", str(tmp_path / "o.sqlite"), "-o", str(tmp_path / "w.csv")).returncode == 0
    assert cli("experiment", "export", str(tmp_path / "o.sqlite"), "--format", "parquet", "--layout", "long",
               "-o", str(tmp_path / "l.parquet")).returncode == 0
    wide = list(csv.DictReader((tmp_path / "w.csv").open()))
    long = pq.read_table(tmp_path / "l.parquet").to_pylist()
    assert len(wide) == 5 and len(long) == 15
    labels = {r["example_id"]: r["label"] for r in wide}
    for r in long:
        answer = next(c[3] for c in over_http if c[0] == r["example_id"] and c[1] == r["repeat"])
        assert r["correct"] == int(answer == labels[r["example_id"]])
        assert wide[[w["example_id"] for w in wide].index(r["example_id"])][f"b{r['repeat']}"] == str(r["correct"])


def test_several_answer_task_over_ollama_equals_embedded_choice(tmp_path, ollama_choice_server):
    # the backend sends the task's five answers as the schema's enum; the server answers it the choice way
    ds = '[[datasets]]\nname = "tally5"\nn = 3\nseed = 8\npool = 40\n'
    _same_policy_over_ollama_and_embedded(tmp_path, ollama_choice_server, ds, 2, 78, 1)
    for name in ("o.toml", "e.toml"):
        out = cli("experiment", "run", str(tmp_path / name), "--no-progress", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
    over_http, in_process = _calls(tmp_path / "o.sqlite"), _calls(tmp_path / "e.sqlite")
    assert len(over_http) == 6 and [r[:6] for r in over_http] == [r[:6] for r in in_process]
    assert {r[3] for r in over_http} <= set(TASKS["tally5"].answers) and {r[5] for r in over_http} == {"json"}


def test_generate_mode_server_answers_with_schema(ollama_generate_server):
    client = ollama.Client(host=ollama_generate_server, timeout=120)
    r = client.generate(model="gemma3:270m", prompt=build_prompt(TASKS["compare"], {"first": "30", "second": "7"}),
                        format=SCHEMA, options={"temperature": 1.0, "top_p": 0.95, "num_predict": 16, "seed": 9})
    assert json.loads(r.response)["answer"] in ("Yes", "No") and r.eval_count > 1


def _ollama_run_stderr(tmp_path, endpoint: str, model: str) -> list[str]:
    """Run a 2-example config against ``endpoint``; expect exit 1 and return the stderr lines."""
    write_config(tmp_path / "m.toml", store=str(tmp_path / "m.sqlite"), datasets=BUILTIN_DATASET.format(n=2),
                 backends=f'[backends.ollama]\nendpoints = ["{endpoint}"]\n',
                 policies=policy("p", "ollama", model, 1.0, 1))
    out = cli("experiment", "run", str(tmp_path / "m.toml"), cwd=tmp_path)
    assert out.returncode == 1
    return out.stderr.strip().splitlines()


def test_missing_model_is_a_one_line_error(tmp_path, ollama_choice_server):
    assert _ollama_run_stderr(tmp_path, ollama_choice_server, "qwen2.5:7b") == [
        f"certify experiment: failed: model 'qwen2.5:7b' not found on {ollama_choice_server}; pull it first (ollama pull qwen2.5:7b)"
    ]


def test_server_down_is_a_one_line_error(tmp_path):
    down = f"http://127.0.0.1:{free_port()}"
    assert _ollama_run_stderr(tmp_path, down, "gemma3:270m") == [
        f"certify experiment: failed: ollama endpoint {down} unreachable: connection refused or host unreachable"
    ]


def test_openai_backend_against_llama_cpp_server(tmp_path, llama_openai_server):
    ds = BUILTIN_DATASET.format(n=2)
    backend = f'[backends.llamacpp]\nkind = "openai"\nendpoints = ["{llama_openai_server}"]\nresponse_format = "json_object"\n'
    write_config(tmp_path / "a.toml", store=str(tmp_path / "a.sqlite"), datasets=ds, repeats=1, backends=backend,
                 policies=policy("g", "llamacpp", "gemma3-270m", 1.0, 5))
    out = cli("experiment", "run", str(tmp_path / "a.toml"), "--no-progress", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = sqlite3.connect(tmp_path / "a.sqlite").execute(
        "SELECT raw_output, answer, parse, stop_reason, prompt_tokens, completion_tokens, endpoint FROM calls").fetchall()
    assert len(rows) == 2
    for raw, answer, parse, stop_reason, pt, ct, ep in rows:
        assert json.loads(raw)["answer"] == answer and parse == "json" and stop_reason == "stop"
        assert pt > 20 and ct > 1 and ep == llama_openai_server
    write_config(tmp_path / "b.toml", store=str(tmp_path / "b.sqlite"), datasets=ds, backends=backend,
                 policies=policy("g", "llamacpp", "gpt-4o", 1.0, 5))
    out = cli("experiment", "run", str(tmp_path / "b.toml"), cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert f"model 'gpt-4o' not served by {llama_openai_server}" in out.stderr
