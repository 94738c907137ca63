"""Data sets: GLUE files in three layouts, label mapping, caps, built-in tasks, the draw."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from certify._errors import InputError
from certify.experiment import DatasetConfig, DatasetError, draw_examples, load_population, normalize
from certify.experiment._datasets import BUILTIN_GENERATED, builtin_examples


def _cfg(tmp_path, **kw) -> DatasetConfig:
    d = {"name": "x", "n": 2, "seed": 3, "draw_file": str(tmp_path / "draw.jsonl"), **kw}
    return DatasetConfig.from_dict(d)


def test_normalize_collapses_whitespace_then_caps():
    assert normalize("  a\t\tb\n\nc  ", 100) == "a b c"
    assert normalize("ab  cd", 4) == "ab c"


def test_qnli_glue_tsv_layout_maps_entailment_to_yes_and_caps_fields(tmp_path):
    long_q = "why " * 400  # 1600 characters before normalization
    (tmp_path / "train.tsv").write_text(
        "index\tquestion\tsentence\tlabel\n"
        f"0\t{long_q}\tIt is \"quoted.\tentailment\n"
        "1\tWhat?\tNothing.\tnot_entailment\n"
    )
    pop = load_population(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "train.tsv")))
    assert [(e.example_id, e.label) for e in pop] == [("0", "Yes"), ("1", "No")]
    assert len(pop[0].fields["question"]) == 1200
    assert pop[0].fields["sentence"] == 'It is "quoted.'


def test_qqp_tsv_jsonl_and_parquet_agree(tmp_path):
    rows = [
        {"id": "10", "qid1": "1", "qid2": "2", "question1": "How do I cook?", "question2": "How to cook?", "is_duplicate": "1"},
        {"id": "11", "qid1": "3", "qid2": "4", "question1": "Why  is   it?", "question2": "When?", "is_duplicate": "0"},
    ]
    cols = list(rows[0])
    (tmp_path / "q.tsv").write_text("\t".join(cols) + "\n" + "".join("\t".join(r[c] for c in cols) + "\n" for r in rows))
    hub_rows = [{"idx": int(r["id"]), "question1": r["question1"], "question2": r["question2"],
                 "label": int(r["is_duplicate"])} for r in rows]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in hub_rows))
    pq.write_table(pa.Table.from_pylist(hub_rows), tmp_path / "q.parquet")
    got = []
    for ext in ("tsv", "jsonl", "parquet"):
        pop = load_population(_cfg(tmp_path, name="qqp", source="file", path=str(tmp_path / f"q.{ext}")))
        got.append([(e.example_id, e.label, e.fields["question1"]) for e in pop])
    assert got[0] == got[1] == got[2] == [("10", "Yes", "How do I cook?"), ("11", "No", "Why is it?")]


def test_bad_files_are_input_errors(tmp_path):
    (tmp_path / "bad.tsv").write_text("index\tquestion\tsentence\tlabel\n0\tonly two\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: wrong number"):
        load_population(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "bad.tsv")))
    (tmp_path / "u.jsonl").write_text('{"question": "a", "sentence": "b", "label": -1}\n')
    with pytest.raises(InputError, match=r"label -1 is not a qnli label"):
        load_population(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "u.jsonl")))
    with pytest.raises(InputError, match="is not a file"):
        load_population(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "missing.tsv")))
    (tmp_path / "d.csv").write_text("x")
    with pytest.raises(InputError, match="extension must be"):
        load_population(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "d.csv")))


@pytest.mark.parametrize("task", ["compare", "membership", "parity"])
def test_builtin_labels_are_true_and_balanced(tmp_path, task):
    pop = load_population(_cfg(tmp_path, name=task, pool=2000))
    assert len({e.example_id for e in pop}) == 2000
    for e in pop:
        f = e.fields
        truth = {
            "compare": lambda: int(f["first"]) > int(f["second"]),
            "membership": lambda: f["item"] in f["items"].split(", "),
            "parity": lambda: int(f["number"]) % 2 == 0,
        }[task]()
        assert (e.label == "Yes") == truth
    yes = sum(e.label == "Yes" for e in pop) / len(pop)
    assert 0.45 < yes < 0.55
    assert load_population(_cfg(tmp_path, name=task, pool=2000)) == pop  # deterministic


@pytest.mark.parametrize(("task", "size"), [("lookup3", 3), ("lookup5", 5)])
def test_lookup_tasks_are_deterministic_balanced_and_labelled_by_their_rule(task, size):
    pop = builtin_examples(task, 20260011, 2000)
    assert [e.example_id for e in pop] == [f"{task}-{i:05d}" for i in range(2000)]
    for e in pop:
        # the rule, read back from the text: the queried name's own answer is the label,
        # and every other name answered No
        entries = [entry.split(": ") for entry in e.fields["answers"].split(", ")]
        answers = dict(entries)
        assert len(entries) == len(answers) == size and set(answers.values()) <= {"Yes", "No"}
        assert e.label == answers[e.fields["name"]]
        assert all(a == "No" for name, a in answers.items() if name != e.fields["name"])
    yes = sum(e.label == "Yes" for e in pop) / len(pop)
    assert 0.45 < yes < 0.55
    # the queried name sits at every position, so position alone does not give the answer
    positions = {[n for n, _ in (x.split(": ") for x in e.fields["answers"].split(", "))].index(e.fields["name"])
                 for e in pop}
    assert positions == set(range(size))
    assert builtin_examples(task, 20260011, 2000) == pop  # same seed, same examples
    assert builtin_examples(task, 20260012, 50) != pop[:50]


def test_tally_task_is_deterministic_balanced_and_labelled_by_the_most_votes():
    colors = ("red", "blue", "green", "yellow", "white")
    pop = builtin_examples("tally5", 20260013, 2000)
    assert [e.example_id for e in pop] == [f"tally5-{i:05d}" for i in range(2000)]
    first_positions = set()
    for e in pop:
        votes = e.fields["votes"].split(", ")
        counts = sorted(((votes.count(c), c) for c in colors), reverse=True)
        assert set(votes) <= set(colors)
        # the rule, read back from the text: the label has the most votes (4 to 6), at least two ahead
        assert counts[0][1] == e.label and 4 <= counts[0][0] <= 6 and counts[0][0] - counts[1][0] >= 2
        first_positions.add(votes.index(e.label))
    # every color wins about as often: the color alone does not give the answer
    for c in colors:
        assert 0.17 < sum(e.label == c for e in pop) / len(pop) < 0.23
    # the winner's first vote is anywhere in the list, not first or last by construction
    assert set(range(8)) <= first_positions
    assert builtin_examples("tally5", 20260013, 2000) == pop  # same seed, same examples
    assert builtin_examples("tally5", 20260014, 50) != pop[:50]


def test_draw_file_keeps_a_several_answer_label_and_refuses_a_foreign_one(tmp_path):
    cfg = _cfg(tmp_path, name="tally5", n=20, pool=100, seed=4)
    drawn = draw_examples(cfg)
    assert draw_examples(cfg) == drawn and {e.label for e in drawn} <= {"red", "blue", "green", "yellow", "white"}
    line = json.loads((tmp_path / "draw.jsonl").read_text().splitlines()[0])
    (tmp_path / "draw.jsonl").write_text(json.dumps({**line, "label": "Yes"}) + "\n")
    with pytest.raises(InputError, match="needs id, a label of red, blue, green, yellow, white and fields votes"):
        draw_examples(DatasetConfig.from_dict({**cfg.to_dict(), "n": 1}))


def test_every_generated_task_is_a_configurable_builtin_task():
    # a generator the config refuses, or a config name without a generator, is a dead end
    from certify.experiment._config import BUILTIN_TASKS

    assert set(BUILTIN_TASKS) == set(BUILTIN_GENERATED)


def test_builtin_population_is_the_generator_output_and_unknown_tasks_are_refused(tmp_path):
    assert load_population(_cfg(tmp_path, name="parity", pool=300, seed=5)) == builtin_examples("parity", 5, 300)
    with pytest.raises(InputError, match=r"^task 'qnli': not a built-in task \(one of compare, membership, parity, "):
        builtin_examples("qnli", 1, 3)


def test_draw_is_sha256_order_without_replacement_and_reused(tmp_path):
    cfg = _cfg(tmp_path, name="parity", n=50, pool=300, seed=11)
    drawn = draw_examples(cfg)
    pop = load_population(cfg)
    expected = sorted(pop, key=lambda e: hashlib.sha256(f"11|{e.example_id}".encode()).hexdigest())[:50]
    assert [e.example_id for e in drawn] == [e.example_id for e in expected]
    assert len({e.example_id for e in drawn}) == 50
    lines = (tmp_path / "draw.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"id": drawn[0].example_id, "label": drawn[0].label, **drawn[0].fields}
    # the draw file is authoritative: a different seed does not redraw it
    again = draw_examples(DatasetConfig.from_dict({**cfg.to_dict(), "seed": 12}))
    assert again == drawn
    with pytest.raises(InputError, match="holds 50 examples"):
        draw_examples(DatasetConfig.from_dict({**cfg.to_dict(), "n": 40}))


def test_n_larger_than_population_is_refused(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"question": "a", "sentence": "b", "label": 0}\n')
    with pytest.raises(InputError, match="exceeds the 1 examples"):
        draw_examples(_cfg(tmp_path, name="qnli", source="file", path=str(tmp_path / "a.jsonl"), n=2))


def test_hub_offline_is_one_clear_error(tmp_path):
    # a subprocess, so the offline switch is read fresh by the datasets library
    code = (
        "from certify.experiment import DatasetConfig, load_population, DatasetError\n"
        "try:\n load_population(DatasetConfig.from_dict({'name': 'qnli', 'source': 'hub', 'n': 2}))\n"
        "except DatasetError as e:\n print('ERR', e)\n"
    )
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    line = out.stdout.strip()
    assert line.startswith("ERR dataset 'qnli': cannot load nyu-mll/glue/qnli split train from the hub"), out
    assert "\n" not in line and 'source = "file"' in line
    assert DatasetError.__mro__[1].__name__ == "CertifyError"
