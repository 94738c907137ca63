"""The embedded backend: choice-mode probabilities and draws, a real run, generate mode."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from certify.experiment import (
    TASKS,
    RunStore,
    build_prompt,
    choice_probability,
    draw_answer,
    export_bits,
    load_config,
    load_model,
    run_experiment,
    status,
)
from exp_helpers import BUILTIN_DATASET, EMBEDDED_CHOICE, policy, write_config


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_choice_probability_applies_top_p_then_temperature():
    # untempered P(Yes) = sigmoid(1) = 0.731 < 0.95: both answers stay, temperature sharpens
    assert choice_probability(3.0, 2.0, 0.5, 0.95) == pytest.approx(_sigmoid(2.0))
    assert choice_probability(2.0, 3.0, 2.0, 0.95) == pytest.approx(_sigmoid(-0.5))
    # untempered P(Yes) = sigmoid(4) = 0.982 >= 0.95: the nucleus holds Yes alone
    assert choice_probability(5.0, 1.0, 2.0, 0.95) == 1.0
    assert choice_probability(1.0, 5.0, 2.0, 0.99) == pytest.approx(_sigmoid(-2.0))
    assert choice_probability(1.0, 5.0, 2.0, 0.98) == 0.0
    assert choice_probability(0.1, 0.0, 0.0, 1.0) == 1.0  # greedy


def test_draws_follow_p_and_are_fixed_by_the_seed():
    draws = [draw_answer(0.3, s) for s in range(4000)]
    assert abs(draws.count("Yes") / 4000 - 0.3) < 0.03
    assert draws == [draw_answer(0.3, s) for s in range(4000)]
    assert draw_answer(0.3, 5) == ("Yes" if np.random.default_rng(5).random() < 0.3 else "No")


def test_prompt_pass_does_not_depend_on_what_ran_before(gguf):
    model = load_model("gemma3:270m", 1024, 1)
    a = build_prompt(TASKS["parity"], {"number": "42"})
    b = build_prompt(TASKS["qqp"], {"question1": "How old is Rome?", "question2": "When was Rome founded?"})
    first, n = model.choice_logits(a, "answer", ("Yes", "No"))
    model.choice_logits(b, "answer", ("Yes", "No"))
    model.generate(b, None, 0.0, 1.0, 2, 1)
    again, m = model.choice_logits(a, "answer", ("Yes", "No"))
    assert first == again and n == m
    # the answers are single tokens and the law is a real next-token law
    logits, _ = model.next_logits(model.render(a) + '{"answer": "')
    top = [model.llm.detokenize([int(t)]).decode() for t in np.argsort(logits)[::-1][:5]]
    assert "Yes" in top or "No" in top


def test_choice_run_records_latent_q_and_consistent_bits(tmp_path, gguf):
    cfg_path = write_config(
        tmp_path / "c.toml", store=str(tmp_path / "s.sqlite"), repeats=4,
        datasets=BUILTIN_DATASET.format(n=6), backends=EMBEDDED_CHOICE,
        policies=policy("cold", "embedded", "gemma3:270m", 0.2, 11) + policy("hot", "embedded", "gemma3:270m", 2.0, 12),
    )
    cfg = load_config(cfg_path)
    summary = run_experiment(cfg, progress=False)
    assert (summary.recorded, summary.skipped, summary.invalid) == (48, 0, 0)
    with RunStore(cfg.store) as store:
        lat = store.query("SELECT l.policy, l.p_yes, l.q, l.logit_yes, l.logit_no, e.label FROM latent l "
                          "JOIN examples e USING (dataset, example_id)")
        assert len(lat) == 12
        for pol, p_yes, q, ly, ln, label in lat:
            assert p_yes == pytest.approx(choice_probability(ly, ln, 0.2 if pol == "cold" else 2.0, 0.95))
            assert q == pytest.approx(p_yes if label == "Yes" else 1 - p_yes)
        calls = store.query("SELECT c.seed, c.answer, c.correct, c.raw_output, l.p_yes, e.label FROM calls c "
                            "JOIN latent l USING (dataset, policy, example_id) JOIN examples e USING (dataset, example_id)")
        for seed, answer, correct, raw, p_yes, label in calls:
            assert answer == draw_answer(p_yes, seed) and json.loads(raw) == {"answer": answer}
            assert correct == (answer == label)
        rows = {(r.policy, r.recorded, r.expected) for r in status(store)}
        assert rows == {("cold", 24, 24), ("hot", 24, 24)}
        assert export_bits(store, tmp_path / "w.csv") == 12
    header, *lines = (tmp_path / "w.csv").read_text().splitlines()
    assert header == "dataset,policy,example_id,position,label,q,b0,b1,b2,b3"
    assert all(set(line.split(",")[-4:]) <= {"0", "1"} for line in lines)
    assert run_experiment(cfg, progress=False).skipped == 48


def test_generate_mode_is_schema_constrained(gguf):
    model = load_model("gemma3:270m", 1024, 1)
    schema = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
              "required": ["answer"], "additionalProperties": False}
    out = model.generate(build_prompt(TASKS["parity"], {"number": "7"}), schema, 1.0, 0.95, 16, 3)
    assert json.loads(out["text"])["answer"] in ("Yes", "No")
    assert out["stop_reason"] == "stop" and out["completion_tokens"] > 0
