"""Hostile server replies (issue "Nothing breaks it, part two", items 16 and 17).

A real HTTP server on loopback answers one call of a run with a field out of range, of
the wrong type, a lone surrogate, or 300 MB; every other call gets a good reply. The run
ends with one line naming the field, its value and the rule; every good call it was
served is recorded (none of the batch is lost), and a huge reply is dropped after the
reply limit, never read or stored whole.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from certify.experiment import BackendError, load_config, run_experiment
from certify.experiment._backends._http import MAX_REPLY_BYTES
from exp_helpers import BUILTIN_DATASET, cli, policy, write_config
from hostile_server import GOOD, Stream, good_completion, hostile  # noqa: F401 (a fixture)

BAD_HIT = 5  # the call answered badly: later calls are in flight with it (two workers)
COUNT_RULE = "must be an integer from 0 to 2147483647"


def _ollama_cfg(tmp_path, url, n=5, repeats=2):
    return write_config(
        tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=repeats, datasets=BUILTIN_DATASET.format(n=n),
        backends=f'[backends.ollama]\nendpoints = ["{url}"]\nconcurrency = 2\nmax_retries = 0\n',
        policies=policy("p", "ollama", "m", 1.0, 3),
    )


def _rows(store) -> list[tuple]:
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT raw_output, prompt_tokens, completion_tokens, stop_reason FROM calls").fetchall()
    finally:
        db.close()


def _one_bad(bad):
    """Good replies, but ``bad`` at call BAD_HIT."""
    return lambda hit, path, body: bad if hit == BAD_HIT else GOOD


OLLAMA_CASES = {
    "count 10**30": ({**GOOD, "prompt_eval_count": 10**30},
                     "reply field prompt_eval_count = 1000000000000000000000000000000: "
                     "must be an integer from 0 to 2147483647"),
    "count a list": ({**GOOD, "eval_count": [1, 2]}, f"reply field eval_count = [1, 2]: {COUNT_RULE}"),
    "count an object": ({**GOOD, "prompt_eval_count": {"n": 1}},
                        f'reply field prompt_eval_count = {{"n": 1}}: {COUNT_RULE}'),
    "count negative": ({**GOOD, "eval_count": -1}, f"reply field eval_count = -1: {COUNT_RULE}"),
    "count a boolean": ({**GOOD, "eval_count": True}, f"reply field eval_count = true: {COUNT_RULE}"),
    "count a float": ({**GOOD, "eval_count": 4.5}, f"reply field eval_count = 4.5: {COUNT_RULE}"),
    "lone surrogate": ({**GOOD, "response": '{"answer": "Yes"}\ud800'},
                       "reply field response holds a lone surrogate ('\\ud800' at character 17): must be Unicode text"),
    "text a list": ({**GOOD, "response": ["Yes"]}, 'reply field response = ["Yes"]: must be a string'),
    "reason an object": ({**GOOD, "done_reason": {"why": "stop"}},
                         'reply field done_reason = {"why": "stop"}: must be a string'),
    "reason too long": ({**GOOD, "done_reason": "s" * 65},
                        f'reply field done_reason = "{"s" * 56}...: must be at most 64 characters'),
    "no response": ({k: v for k, v in GOOD.items() if k != "response"}, "reply has no field 'response'"),
    "not UTF-8": (b'{"response": "\xff\xfe", "done": true}', "reply is not UTF-8 text (byte 14: invalid start byte)"),
    "nested too deeply": (b"[" * 100_000 + b"]" * 100_000, "reply is JSON nested too deeply"),
    "not an object": (b"[1, 2]", "reply is not a JSON object: [1, 2]"),
}


@pytest.mark.parametrize("hostile,why", [(_one_bad(bad), why) for bad, why in OLLAMA_CASES.values()],
                         ids=list(OLLAMA_CASES), indirect=["hostile"])
def test_a_bad_ollama_reply_is_one_line_and_the_good_calls_are_kept(tmp_path, hostile, why):
    cfg = load_config(_ollama_cfg(tmp_path, hostile.url))
    with pytest.raises(BackendError) as err:
        run_experiment(cfg, progress=False)
    assert str(err.value) == f"{hostile.url}/api/generate: {why} (gave up after 1 attempt)"
    # every good reply the server delivered is in the store, with its fields as sent
    good = [out for hit, out in hostile.delivered if hit != BAD_HIT]
    assert len(good) >= BAD_HIT - 1
    assert _rows(cfg.store) == [('{"answer": "Yes"}', 50, 4, "stop")] * len(good)


def test_a_bad_reply_on_the_cli_is_one_line_exit_1_and_a_rerun_resumes(tmp_path):
    from hostile_server import start_server, stop_server

    srv = start_server(_one_bad({**GOOD, "prompt_eval_count": 10**30}))
    try:
        cfg = _ollama_cfg(tmp_path, srv.url)
        out = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
        assert out.returncode == 1
        assert out.stderr.splitlines() == [
            f"certify experiment: failed: {srv.url}/api/generate: reply field prompt_eval_count = "
            "1000000000000000000000000000000: must be an integer from 0 to 2147483647 (gave up after 1 attempt)"
        ]
        kept = len(_rows(tmp_path / "s.sqlite"))
        assert kept == len(srv.delivered) - 1 >= BAD_HIT - 1
        again = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)  # the server is good from now on
        assert again.returncode == 0, again.stderr
        assert f"recorded {10 - kept} calls (0 invalid), {kept} already in" in again.stdout
    finally:
        stop_server(srv)


def _openai_one_bad(bad):
    # the first POST is the probe that settles the response format: answered well
    return lambda hit, path, body: bad if hit == BAD_HIT + 1 else good_completion()


OPENAI_CASES = {
    "usage count 10**30": ({**good_completion(), "usage": {"prompt_tokens": 10**30, "completion_tokens": 4}},
                           "reply field usage.prompt_tokens = 1000000000000000000000000000000: "
                           "must be an integer from 0 to 2147483647"),
    "usage a list": ({**good_completion(), "usage": [50, 4]}, "reply field usage = [50, 4]: must be an object"),
    "content a list": ({**good_completion(), "choices": [{"message": {"content": [{"type": "text", "text": "Yes"}]}}]},
                       'reply field choices[0].message.content = [{"type": "text", "text": "Yes"}]: must be a string'),
    "finish reason a lone surrogate": (
        {**good_completion(), "choices": [{"message": {"content": "Yes"}, "finish_reason": "\udc80"}]},
        "reply field choices[0].finish_reason holds a lone surrogate ('\\udc80' at character 0): must be Unicode text"),
    "choices an object": ({**good_completion(), "choices": {"0": 1}}, "reply field choices is not a list"),
}


@pytest.mark.parametrize("hostile,why", [(_openai_one_bad(bad), why) for bad, why in OPENAI_CASES.values()],
                         ids=list(OPENAI_CASES), indirect=["hostile"])
def test_a_bad_openai_reply_is_one_line_and_the_good_calls_are_kept(tmp_path, hostile, why):
    cfg = load_config(write_config(
        tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=2, datasets=BUILTIN_DATASET.format(n=5),
        backends=f'[backends.openai]\nendpoints = ["{hostile.url}/v1"]\nconcurrency = 2\nmax_retries = 0\n',
        policies=policy("p", "openai", "m", 1.0, 3),
    ))
    with pytest.raises(BackendError) as err:
        run_experiment(cfg, progress=False)
    assert str(err.value) == f"{hostile.url}/v1/chat/completions: {why} (gave up after 1 attempt)"
    good = [out for hit, out in hostile.delivered if hit not in (1, BAD_HIT + 1)]
    assert len(good) >= BAD_HIT - 1
    assert _rows(cfg.store) == [('{"answer": "Yes"}', 50, 4, "stop")] * len(good)


def test_a_bad_probe_reply_is_one_line(tmp_path):
    """The probe that settles the response format is read as strictly as a call (on the main thread)."""
    from hostile_server import start_server, stop_server

    srv = start_server(lambda hit, path, body: b"[" * 100_000)
    try:
        cfg = write_config(
            tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), datasets=BUILTIN_DATASET.format(n=2),
            backends=f'[backends.openai]\nendpoints = ["{srv.url}/v1"]\nmax_retries = 0\n',
            policies=policy("p", "openai", "m", 1.0, 3))
        out = cli("experiment", "run", str(cfg), "--no-progress", cwd=tmp_path)
        assert out.returncode == 1
        assert out.stderr.splitlines() == [
            f"certify experiment: failed: {srv.url}/v1/chat/completions: reply is JSON nested too deeply "
            "(gave up after 1 attempt)"]
    finally:
        stop_server(srv)


HUGE = 300 << 20
HEAD = b'{"done": true, "response": "'


@pytest.mark.parametrize("hostile,declared", [
    (lambda hit, path, body: Stream(HEAD, HUGE) if hit == BAD_HIT else GOOD, False),
    (lambda hit, path, body: Stream(HEAD, HUGE, declared=True) if hit == BAD_HIT else GOOD, True),
], ids=["streamed", "declared"], indirect=["hostile"])
def test_a_300_mb_reply_is_dropped_at_the_limit_never_read_whole(tmp_path, hostile, declared):
    cfg = load_config(_ollama_cfg(tmp_path, hostile.url))
    with pytest.raises(BackendError) as err:
        run_experiment(cfg, progress=False)
    limit = f"larger than the limit of {MAX_REPLY_BYTES >> 20} MiB for a reply (gave up after 1 attempt)"
    if declared:  # refused from its Content-Length, before the body is read
        assert str(err.value) == f"{hostile.url}/api/generate: reply of {HUGE} bytes, {limit}"
    else:
        assert str(err.value) == f"{hostile.url}/api/generate: reply {limit}"
    # the client stopped reading at the limit: what left the server is the limit plus socket buffers
    assert hostile.sent < MAX_REPLY_BYTES + (24 << 20)
    rows = _rows(cfg.store)
    assert rows == [('{"answer": "Yes"}', 50, 4, "stop")] * len(hostile.delivered)
    assert len(rows) >= BAD_HIT - 1
    assert (tmp_path / "s.sqlite").stat().st_size < 1 << 20


def test_a_reply_just_under_the_limit_is_read(tmp_path):
    from hostile_server import start_server, stop_server

    text = '{"answer": "No"}' + " " * (MAX_REPLY_BYTES - 200)
    srv = start_server(lambda hit, path, body: {**GOOD, "response": text})
    try:
        cfg = load_config(_ollama_cfg(tmp_path, srv.url, n=1, repeats=1))
        assert run_experiment(cfg, progress=False).recorded == 1
        assert json.loads(_rows(cfg.store)[0][0]) == {"answer": "No"}
    finally:
        stop_server(srv)
