"""The embedded backend: choice-mode probabilities and draws, a real run, generate mode."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from certify.experiment import (
    TASKS,
    YES_NO,
    RunStore,
    build_prompt,
    choice_probability,
    draw_answer,
    draw_examples,
    export_bits,
    load_config,
    load_model,
    run_experiment,
    status,
)
from exp_helpers import BUILTIN_DATASET, EMBEDDED_CHOICE, policy, write_config


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def _p_yes(ly, ln, temperature, top_p):
    return choice_probability((ly, ln), temperature, top_p)[0]


def test_choice_probability_applies_top_p_then_temperature():
    # untempered P(Yes) = sigmoid(1) = 0.731 < 0.95: both answers stay, temperature sharpens
    assert _p_yes(3.0, 2.0, 0.5, 0.95) == pytest.approx(_sigmoid(2.0))
    assert _p_yes(2.0, 3.0, 2.0, 0.95) == pytest.approx(_sigmoid(-0.5))
    # untempered P(Yes) = sigmoid(4) = 0.982 >= 0.95: the nucleus holds Yes alone
    assert _p_yes(5.0, 1.0, 2.0, 0.95) == 1.0
    assert _p_yes(1.0, 5.0, 2.0, 0.99) == pytest.approx(_sigmoid(-2.0))
    assert _p_yes(1.0, 5.0, 2.0, 0.98) == 0.0
    assert _p_yes(0.1, 0.0, 0.0, 1.0) == 1.0  # greedy


def _two_answer_reference(logit_yes, logit_no, temperature, top_p):
    """The two-answer law as the embedded backend computed it before it took any number of answers."""
    diff = float(logit_yes) - float(logit_no)
    if temperature == 0:
        return 1.0 if diff >= 0 else 0.0
    p_top = 1.0 / (1.0 + np.exp(-abs(diff)))
    if p_top >= top_p:
        return 1.0 if diff >= 0 else 0.0
    with np.errstate(over="ignore"):
        return float(1.0 / (1.0 + np.exp(-diff / temperature)))


def test_two_answers_give_the_two_answer_law_bit_for_bit():
    rng = np.random.default_rng(3)
    grid = [*np.linspace(-30.0, 30.0, 41), *rng.normal(0.0, 4.0, 30), 0.0, 1e-9, -1e-9]
    for ly, ln in itertools.product(grid, repeat=2):
        for t in (0.0, 0.01, 0.05, 0.5, 1.0, 2.0):
            for top_p in (0.5, 0.95, 1.0):
                p_yes, p_no = choice_probability((ly, ln), t, top_p)
                assert p_yes == _two_answer_reference(ly, ln, t, top_p), (ly, ln, t, top_p)
                assert 0.0 <= p_no <= 1.0 and abs(p_yes + p_no - 1.0) <= 2 * np.finfo(float).eps


def _softmax(logits, temperature):
    z = np.asarray(logits, dtype=float) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def test_several_answers_are_a_tempered_softmax_over_the_nucleus():
    logits = [1.0, 2.5, -0.5, 2.0, 0.3]
    for t in (0.3, 1.0, 2.5):
        # top-p 1 keeps every answer: the law is the softmax of the logits over T
        np.testing.assert_allclose(choice_probability(logits, t, 1.0), _softmax(logits, t), rtol=1e-12)
    # untempered softmax: 0.111, 0.497, 0.025, 0.301, 0.055 (sorted: answers 1, 3, 0, 4, 2);
    # top-p 0.85 keeps answers 1, 3 and 0 (0.497 + 0.301 = 0.798 < 0.85 <= 0.909)
    untempered = _softmax(logits, 1.0)
    assert untempered[1] + untempered[3] < 0.85 <= untempered[1] + untempered[3] + untempered[0]
    law = choice_probability(logits, 0.7, 0.85)
    kept = _softmax([logits[1], logits[3], logits[0]], 0.7)
    np.testing.assert_allclose([law[1], law[3], law[0]], kept, rtol=1e-12)
    assert law[2] == law[4] == 0.0
    # the likeliest answer alone reaches top-p: it is certain
    assert choice_probability([0.0, 9.0, 1.0], 5.0, 0.95) == (0.0, 1.0, 0.0)
    # greedy: the first of tied maxima
    assert choice_probability([1.0, 3.0, 3.0], 0.0, 0.95) == (0.0, 1.0, 0.0)
    # ties in the nucleus keep answer order: top-p 0.4 is reached by the first of two equal answers
    assert choice_probability([2.0, 2.0, -5.0], 1.0, 0.4) == (1.0, 0.0, 0.0)


def test_draws_follow_p_and_are_fixed_by_the_seed():
    draws = [draw_answer((0.3, 0.7), YES_NO, s) for s in range(4000)]
    assert abs(draws.count("Yes") / 4000 - 0.3) < 0.03
    assert draws == [draw_answer((0.3, 0.7), YES_NO, s) for s in range(4000)]
    assert draw_answer((0.3, 0.7), YES_NO, 5) == ("Yes" if np.random.default_rng(5).random() < 0.3 else "No")


def test_draws_over_several_answers_invert_the_cumulative_law():
    law, answers = (0.5, 0.0, 0.3, 0.2), ("a", "b", "c", "d")
    draws = [draw_answer(law, answers, s) for s in range(6000)]
    for answer, p in zip(answers, law):
        assert abs(draws.count(answer) / 6000 - p) < 0.025
    for s in range(200):
        u = np.random.default_rng(s).random()
        assert draw_answer(law, answers, s) == ("a" if u < 0.5 else "c" if u < 0.8 else "d")
    # a law whose total rounds below 1 still gives the last answer it allows
    assert draw_answer((0.0, 1e-300), ("a", "b"), 1) == "b"


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
            assert p_yes == _p_yes(ly, ln, 0.2 if pol == "cold" else 2.0, 0.95)
            assert q == pytest.approx(p_yes if label == "Yes" else 1 - p_yes)
        calls = store.query("SELECT c.seed, c.answer, c.correct, c.raw_output, l.p_yes, e.label FROM calls c "
                            "JOIN latent l USING (dataset, policy, example_id) JOIN examples e USING (dataset, example_id)")
        for seed, answer, correct, raw, p_yes, label in calls:
            assert answer == draw_answer((p_yes, 1 - p_yes), YES_NO, seed) and json.loads(raw) == {"answer": answer}
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


def test_several_answer_task_run_draws_from_the_law_of_one_prompt_pass(tmp_path, gguf):
    ds = '[[datasets]]\nname = "tally5"\nn = 3\nseed = 5\npool = 50\n'
    pol = policy("warm", "embedded", "gemma3:270m", 1.0, 21)
    store = str(tmp_path / "s.sqlite")
    first = load_config(write_config(tmp_path / "a.toml", store=store, repeats=1, datasets=ds,
                                     backends=EMBEDDED_CHOICE, policies=pol))
    assert run_experiment(first, progress=False).recorded == 3
    # a second repeat is a resumed run: the law is read again, not taken from the store
    cfg = load_config(write_config(tmp_path / "b.toml", store=store, repeats=2, datasets=ds,
                                   backends=EMBEDDED_CHOICE, policies=pol))
    summary = run_experiment(cfg, progress=False)
    assert (summary.recorded, summary.skipped, summary.invalid) == (3, 3, 0)
    task = TASKS["tally5"]
    model = load_model("gemma3:270m", 1024, 1)
    with RunStore(cfg.store) as db:
        labels = dict(db.query("SELECT example_id, label FROM examples"))
        examples = {e.example_id: e for e in draw_examples(cfg.datasets[0])}
        latent = {r[0]: r[1:] for r in db.query("SELECT example_id, p_yes, q, logit_yes, logit_no FROM latent")}
        calls = db.query("SELECT example_id, seed, raw_output, answer, parse, correct FROM calls")
    assert len(calls) == 6 and set(latent) == set(labels) == set(examples)
    for example_id, seed, raw, answer, parse, correct in calls:
        logits, _ = model.choice_logits(build_prompt(task, examples[example_id].fields), "answer", task.answers)
        law = choice_probability(logits, 1.0, 0.95)
        k = task.answers.index(labels[example_id])
        assert answer == draw_answer(law, task.answers, seed) and json.loads(raw) == {"answer": answer}
        assert parse == "json" and correct == (answer == labels[example_id])
        # the latent row: a right call against a wrong one
        others = [v for i, v in enumerate(logits) if i != k]
        assert latent[example_id] == pytest.approx(
            (law[k], law[k], logits[k], max(others) + math.log(sum(math.exp(v - max(others)) for v in others))),
            rel=1e-12)
