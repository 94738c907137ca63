"""The paper's protocol: exact prompt text, schema, parsing and the seed hash."""

from __future__ import annotations

import hashlib
import json

from certify.experiment import ANSWER_SCHEMA, TASKS, YES_NO, answer_schema, build_prompt, call_seed, parse_answer

PREFIX = "Answer the task with Yes or No. Return only valid JSON with key 'answer' and value 'Yes' or 'No'."


def test_qnli_prompt_is_prefix_two_blank_lines_body_and_newline():
    got = build_prompt(TASKS["qnli"], {"question": "Who wrote it?", "sentence": "Ann wrote it."})
    assert got == (
        PREFIX + "\n\n\n"
        "Question:\nWho wrote it?\n\nSentence:\nAnn wrote it.\n\n"
        "Does the sentence entail an answer to the question?\n"
    )


def test_qqp_prompt_matches_the_paper_template():
    got = build_prompt(TASKS["qqp"], {"question1": "A?", "question2": "B?"})
    assert got == PREFIX + "\n\n\nQuestion 1:\nA?\n\nQuestion 2:\nB?\n\nDo these two questions ask the same thing?\n"



def test_lookup_prompts_are_prefix_table_and_question():
    fields = {"answers": "Anna: No, Ben: Yes, Carl: No", "name": "Ben"}
    for task in ("lookup3", "lookup5"):
        assert TASKS[task].fields == ("answers", "name")
        assert build_prompt(TASKS[task], fields) == (
            PREFIX + "\n\n\nAnswers:\nAnna: No, Ben: Yes, Carl: No\n\nWhat is the answer of Ben?\n"
        )


def test_tally_prompt_names_its_five_answers_in_the_instruction_and_schema():
    task = TASKS["tally5"]
    assert task.fields == ("votes",) and task.answers == ("red", "blue", "green", "yellow", "white")
    assert build_prompt(task, {"votes": "red, blue, red"}) == (
        "Answer the task with red, blue, green, yellow or white. Return only valid JSON with key 'answer' "
        "and value 'red', 'blue', 'green', 'yellow' or 'white'.\n\n\nVotes:\nred, blue, red\n\n"
        "Which color has the most votes?\n"
    )
    assert json.loads(json.dumps(dict(answer_schema(task.answers)))) == {
        "type": "object", "properties": {"answer": {"type": "string", "enum": list(task.answers)}},
        "required": ["answer"], "additionalProperties": False,
    }
    # every other task is a yes/no task with the paper's instruction and schema
    assert all(t.answers == YES_NO and t.instruction == PREFIX for name, t in TASKS.items() if name != "tally5")
    assert answer_schema(YES_NO) == ANSWER_SCHEMA


def test_generated_fields_fit_their_caps():
    # a field longer than its cap would be cut by normalize() and lose names or votes
    from certify.experiment._datasets import builtin_examples

    for task in ("lookup3", "lookup5", "tally5"):
        for e in builtin_examples(task, 3, 500):
            for name, cap in zip(TASKS[task].fields, TASKS[task].caps):
                assert 0 < len(e.fields[name]) < cap


def test_schema_is_the_papers_schema():
    paper = json.loads(
        '{"type": "object", "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},'
        ' "required": ["answer"], "additionalProperties": false}'
    )
    assert json.loads(json.dumps(dict(ANSWER_SCHEMA))) == paper


def test_parse_json_first():
    p = parse_answer('{"answer": "No"}')
    assert (p.answer, p.method, p.valid) == ("No", "json", True)


def test_parse_falls_back_to_regex_for_non_json_and_off_schema_json():
    assert (parse_answer("Yes, it does.").answer, parse_answer("Yes, it does.").method) == ("Yes", "regex")
    assert parse_answer('{"answer": "no"}').answer == "No"
    assert parse_answer('{"answer": "no"}').method == "regex"
    # the first yes/no token wins
    assert parse_answer("no... well, yes").answer == "No"


def test_parse_reads_a_task_s_own_answers():
    colors = TASKS["tally5"].answers
    p = parse_answer('{"answer": "green"}', colors)
    assert (p.answer, p.method, p.valid) == ("green", "json", True)
    # off-schema JSON and free text: the first word-bounded answer, in the task's spelling
    assert (parse_answer('{"answer": "Green"}', colors).answer, parse_answer('{"answer": "Green"}', colors).method) == (
        "green", "regex")
    assert parse_answer("Most votes: WHITE, then red.", colors).answer == "white"
    assert parse_answer("reddish blue", colors).answer == "blue"
    for raw in ('{"answer": "Yes"}', "greenish", "purple", ""):
        p = parse_answer(raw, colors)
        assert (p.answer, p.method, p.valid) == (None, "none", False), raw
    # the yes/no answers are not a color task's
    assert parse_answer('{"answer": "red"}').answer is None


def test_parse_invalid_outputs_have_no_answer():
    for raw in ("", "banana", "nothing is known", '{"answer": "Maybe"}', '{"answer": "', "noyes"):
        p = parse_answer(raw)
        assert (p.answer, p.method, p.valid) == (None, "none", False), raw


def test_seed_is_sha256_of_the_four_pieces_mod_mersenne_prime():
    expected = int(hashlib.sha256(b"20263001|llama3.1-8b-t0.2|42|3").hexdigest(), 16) % 2147483647
    assert call_seed(20263001, "llama3.1-8b-t0.2", "42", 3) == expected


def test_seeds_differ_across_each_piece_and_fit_int32():
    seeds = {
        call_seed(b, c, e, r)
        for b in (20263001, 20263002)
        for c in ("a", "b")
        for e in ("1", "2")
        for r in range(5)
    }
    assert len(seeds) == 40
    assert all(0 <= s < 2**31 - 1 for s in seeds)
