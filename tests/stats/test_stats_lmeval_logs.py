"""lm-evaluation-harness samples files written by lm-eval itself, read by certify.

Once per module, ``lm_eval.simple_evaluate`` runs a fake LM (a subclass of
``lm_eval.api.model.LM`` whose answer to document i, repeat j is programmed below) on
tiny tasks defined by YAML files in a temporary directory, over a local JSON data set,
and lm-eval's ``EvaluationTracker`` writes the ``samples_<task>_<date>.jsonl`` files
exactly as ``lm_eval --log_samples`` does. The expected bits are computed here from the
program, not by the reader's rule. Nothing reaches the network: DNS lookups raise and
Hugging Face libraries are told to stay offline.
"""

import json
import random
import socket

import numpy as np
import pytest

pytest.importorskip("lm_eval")

from certify.readers import DataError  # noqa: E402
from certify.readers._lmeval import is_lmeval_samples, read_lmeval_samples  # noqa: E402
from stats_helpers import plurality_by_subsets  # noqa: E402

N_DOCS = 8
REPEATS = 5
#: document i's target: numbers for even i, words for odd i (case folding matters only for words)
TARGETS = [str(10 + 7 * i) if i % 2 == 0 else ["Blue", "Paris", "Seven", "Oak"][i // 2] for i in range(N_DOCS)]
#: the fake LM's answer kinds; answer(i, j) uses kind (3 i + j) mod 6
KINDS = ("exact", "padded", "sentence", "wrong", "upper", "unsure")


def kind(i: int, j: int) -> str:
    return KINDS[(3 * i + j) % len(KINDS)]


def answer(i: int, j: int) -> str:
    """The fake LM's response to document i at repeat j (0-based)."""
    t = TARGETS[i]
    wrong = str(int(t) + 1) if t.isdigit() else "Green"
    return {"exact": t, "padded": f"  {t} \n", "sentence": f"The answer is: {t}.", "wrong": wrong,
            "upper": t.upper(), "unsure": "I don't\u2028know"}[kind(i, j)]  # U+2028: a line separator for str.splitlines


def expected(correct_kinds) -> np.ndarray:
    """Bits from the program: the kinds that are correct, and "upper" for a number (it is the number)."""
    return np.array([[1.0 if kind(i, j) in correct_kinds or (kind(i, j) == "upper" and TARGETS[i].isdigit()) else 0.0
                      for j in range(REPEATS)] for i in range(N_DOCS)])


#: The "certify_answers" task: the fake LM's responses to documents 0-2 (targets "10", "Blue", "24"):
#: tied wrong answers, an empty and a blank response, padding, a case variant, a number written
#: otherwise; the other documents get answer(i, j).
ANSWERS = {0: ["10", "11", "12", "11", "12"], 1: ["", "Red", " Red ", "blue", "Blue"],
           2: ["  ", "24.0", "24", "x", "24.0"]}
#: The "certify_cot" task: chain-of-thought responses whose last number is the answer (17 + i, or
#: one more at repeats 1 and 3); lm-eval's own filter extracts it, certify's default rule does not.
COT_REGEX = r"answer is ([0-9]+)"


def cot(i: int, j: int) -> str:
    return f"Let me think: {i} and 17 make {17 + i}. So the answer is {17 + i + (j in (1, 3))}."


PLAIN = expected({"exact", "padded"})                      # whole response, stripped, case-sensitive
CASEFOLD = expected({"exact", "padded", "upper"})          # ... ignoring case
# an anchored regex with one group: reads exact, padded, sentence, wrong and upper answers; "unsure" does not parse
ANCHORED = r"^\s*(?:The answer is: )?([A-Za-z0-9]+)\.?\s*$"
ANCHORED_BITS = expected({"exact", "padded", "sentence"})
ANCHORED_UNPARSED = sum(kind(i, j) == "unsure" for i in range(N_DOCS) for j in range(REPEATS))


def _task_yaml(name, data, *, output_type="generate_until", repeats=REPEATS, extra=""):
    lines = [f"task: {name}", "dataset_path: json", "dataset_kwargs:", "  data_files:", f"    test: {data}",
             f"  cache_dir: {data.parent / 'hf_cache'}", f"output_type: {output_type}", "test_split: test",
             'doc_to_text: "Question {{id}}:"', f"repeats: {repeats}", "metadata:", "  version: 1.0"]
    if output_type == "generate_until":
        lines += ['doc_to_target: "{{target}}"', "generation_kwargs:", '  until: ["\\n\\n"]',
                  "metric_list:", "  - metric: exact_match"]
    else:
        lines += ['doc_to_choice: ["a", "b", "c"]', "doc_to_target: 1"]
    return "\n".join(lines) + "\n" + extra


COT_FILTER = """filter_list:
  - name: strict
    filter:
      - function: regex
        regex_pattern: "answer is ([0-9]+)"
      - function: take_first
"""

FILTERS = """filter_list:
  - name: digits-all
    filter:
      - function: regex
        regex_pattern: "([0-9]+)"
  - name: first
    filter:
      - function: take_first
"""


def _no_network(*args, **kwargs):
    raise OSError("network access is disabled in the certify tests")


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """task name -> the samples file lm-eval wrote for it."""
    root = tmp_path_factory.mktemp("lmeval")
    data = root / "data.json"
    data.write_text(json.dumps([{"id": i, "target": t} for i, t in enumerate(TARGETS)]))
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / "gen.yaml").write_text(_task_yaml("certify_gen", data))
    (tasks / "filters.yaml").write_text(_task_yaml("certify_filters", data, extra=FILTERS))
    (tasks / "once.yaml").write_text(_task_yaml("certify_once", data, repeats=1))
    (tasks / "mc.yaml").write_text(_task_yaml("certify_mc", data, output_type="multiple_choice", repeats=2))
    (tasks / "answers.yaml").write_text(_task_yaml("certify_answers", data))
    cot_data = root / "cot.json"  # another data set: its documents have other fields
    cot_data.write_text(json.dumps([{"id": i, "question": f"{i} + 17?", "target": str(17 + i)} for i in range(N_DOCS)]))
    (tasks / "cot.yaml").write_text(_task_yaml("certify_cot", cot_data, extra=COT_FILTER))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket, "getaddrinfo", _no_network)
        mp.setattr(socket, "create_connection", _no_network)
        for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
            mp.setenv(var, "1")
        mp.setenv("HF_HOME", str(root / "hf_home"))
        mp.setenv("HF_XET_HIGH_PERFORMANCE", "1")  # lm_eval's import sets it for good; this way it is undone
        mp.chdir(root)  # lm-eval asks git for a commit hash of the working directory
        rng_states = random.getstate(), np.random.get_state()  # simple_evaluate seeds the global generators
        from lm_eval import simple_evaluate
        from lm_eval.api.model import LM
        from lm_eval.loggers import EvaluationTracker
        from lm_eval.tasks import TaskManager

        class Programmed(LM):
            """Answers document i at its j-th repeat with answer(i, j); log-likelihoods are constant."""

            def __init__(self):
                super().__init__()
                self.seen = {}

            def generate_until(self, requests):
                out = []
                for r in requests:  # lm-eval passes each request once per repeat, in repeat order
                    j = self.seen.get((r.task_name, r.doc_id), 0)
                    self.seen[(r.task_name, r.doc_id)] = j + 1
                    if r.task_name == "certify_cot":
                        out.append(cot(r.doc_id, j))
                    elif r.task_name == "certify_answers" and r.doc_id in ANSWERS:
                        out.append(ANSWERS[r.doc_id][j])
                    else:
                        out.append(answer(r.doc_id, j))
                return out

            def loglikelihood(self, requests):
                return [(-1.0, False)] * len(requests)

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

        tracker = EvaluationTracker(output_path=str(root / "out"))
        results = simple_evaluate(model=Programmed(), tasks=["certify_gen", "certify_filters", "certify_once", "certify_mc",
                                                             "certify_answers", "certify_cot"],
                                  task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
                                  log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0)
        logged = results.pop("samples")  # what lm_eval's CLI does before saving (lm_eval/_cli/run.py)
        tracker.save_results_aggregated(results=results, samples=logged)
        for task in results["configs"]:
            tracker.save_results_samples(task_name=task, samples=logged[task])
        random.setstate(rng_states[0])
        np.random.set_state(rng_states[1])
    files = {}
    for path in (root / "out").rglob("samples_*.jsonl"):
        files[next(t for t in results["configs"] if path.name.startswith(f"samples_{t}_"))] = path
    assert sorted(files) == ["certify_answers", "certify_cot", "certify_filters", "certify_gen", "certify_mc", "certify_once"]
    return files


def _lines(path):
    # split at "\n" only: str.splitlines would also split at the U+2028 inside a response
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _read(path, **kw):
    (label, bits), = read_lmeval_samples(path, **kw).items()
    return label, bits


def test_the_file_is_what_lm_eval_documents(samples):
    """The format the reader relies on, as lm-eval wrote it: one request, the repeats in order."""
    lines = _lines(samples["certify_gen"])
    assert [d["doc_id"] for d in lines] == list(range(N_DOCS))
    for d in lines:
        assert d["resps"] == [[answer(d["doc_id"], j) for j in range(REPEATS)]]
        assert d["target"] == TARGETS[d["doc_id"]] and d["filter"] == "none"
    assert all(is_lmeval_samples(p) for p in samples.values())
    assert "\u2028" in samples["certify_gen"].read_text(encoding="utf-8")  # written unescaped, inside a line


def test_plain_exact_match_per_repeat(samples):
    label, bits = _read(samples["certify_gen"])
    assert label == "certify_gen" and bits.group == "certify_gen"
    assert bits.example_ids == tuple(str(i) for i in range(N_DOCS))
    assert bits.counts.tolist() == [REPEATS] * N_DOCS
    np.testing.assert_array_equal(bits.bits, PLAIN)
    info = bits.read_info
    assert info.form == "lm-eval samples" and info.id == "doc_id" and info.notes == ()
    assert info.correct == "resps vs target (exact match after stripping whitespace, case-sensitive)"


def test_first_repeat_agrees_with_lm_eval_exact_match(samples):
    """lm-eval scores the first repeat (its default filter takes the first) without stripping."""
    _, bits = _read(samples["certify_gen"])
    for d in _lines(samples["certify_gen"]):
        i = d["doc_id"]
        if kind(i, 0) != "padded":  # lm-eval's exact_match does not strip; certify's rule does
            assert d["exact_match"] == bits.bits[i, 0], i


def test_ignore_case(samples):
    _, bits = _read(samples["certify_gen"], ignore_case=True)
    np.testing.assert_array_equal(bits.bits, CASEFOLD)
    assert "ignoring case" in bits.read_info.correct


def test_answer_regex_first_group_and_unparsed_responses(samples):
    _, bits = _read(samples["certify_gen"], answer_regex=ANCHORED)
    np.testing.assert_array_equal(bits.bits, ANCHORED_BITS)
    assert ANCHORED_UNPARSED > 0
    assert bits.read_info.notes == (f"{ANCHORED_UNPARSED} of {N_DOCS * REPEATS} responses did not match the answer "
                                    f"regex '{ANCHORED}' and count as incorrect",)
    assert bits.read_info.correct.startswith(f"first group of '{ANCHORED}' in resps vs target")


def test_answer_regex_without_group_uses_the_whole_match(samples):
    _, bits = _read(samples["certify_gen"], answer_regex=r"[0-9]+")
    want = np.array([[1.0 if TARGETS[i].isdigit() and kind(i, j) in ("exact", "padded", "sentence", "upper") else 0.0
                      for j in range(REPEATS)] for i in range(N_DOCS)])
    np.testing.assert_array_equal(bits.bits, want)
    unparsed = sum(not TARGETS[i].isdigit() or kind(i, j) == "unsure" for i in range(N_DOCS) for j in range(REPEATS))
    assert bits.read_info.notes[0].startswith(f"{unparsed} of {N_DOCS * REPEATS} responses did not match")
    assert bits.read_info.correct.startswith("match of '[0-9]+' in resps")


def test_last_number_regex_from_the_docstring():
    from certify.readers import _lmeval
    from certify.readers._answer_regex import AnswerRegex

    for last_number in (r"(?s).*(?<![0-9-])(-?[0-9]+)", r"(?r)(?<![0-9-])(-?[0-9]+)"):
        assert last_number in _lmeval.__doc__
        assert AnswerRegex(last_number).answer("First 12, then 3 and finally\n-457.", "here") == "-457"


def test_several_filters_read_once(samples):
    lines = _lines(samples["certify_filters"])
    assert len(lines) == 2 * N_DOCS and {d["filter"] for d in lines} == {"digits-all", "first"}
    _, bits = _read(samples["certify_filters"])
    np.testing.assert_array_equal(bits.bits, PLAIN)
    assert bits.read_info.notes == ("the file lists each document under 2 filters ('digits-all', 'first'); the raw "
                                    "responses ('resps') are the same under each and are read once",)


def test_run_without_repeats_is_refused(samples):
    with pytest.raises(DataError, match=r"every document has 1 response: the task ran without repeats; .*repeats: K"):
        read_lmeval_samples(samples["certify_once"])


def test_multiple_choice_is_refused(samples):
    with pytest.raises(DataError, match=r"line 1 \(doc_id 0\): 'resps' holds 3 request\(s\) of \[log-likelihood, "
                                        r"is-greedy\] pairs: a multiple_choice or loglikelihood task"):
        read_lmeval_samples(samples["certify_mc"])


def test_regex_errors(samples):
    with pytest.raises(DataError, match=r"--answer-regex \(answer_regex=\) '\(' is not a valid Python regular expression"):
        read_lmeval_samples(samples["certify_gen"], answer_regex="(")
    with pytest.raises(DataError, match=rf"--answer-regex 'zzz' matches none of the {N_DOCS * REPEATS} responses "
                                        r"\(e.g. '.*'\); fix the regex"):
        read_lmeval_samples(samples["certify_gen"], answer_regex="zzz")


# ---- files changed by hand, starting from lm-eval's own lines -----------------------------------


def test_file_appended_twice_is_refused(samples, tmp_path):
    """lm-eval opens the samples file in append mode: two saves with one date_id duplicate every line."""
    path = tmp_path / "samples_certify_gen_2026-01-01T00-00-00.000001.jsonl"
    text = samples["certify_gen"].read_text(encoding="utf-8")
    path.write_text(text + text, encoding="utf-8")
    with pytest.raises(DataError, match=rf"line {N_DOCS + 1} \(doc_id 0\): doc_id 0 under filter 'none' already on "
                                        r"line 1"):
        read_lmeval_samples(path)


def _rewrite(samples, tmp_path, change, task="certify_gen", name="edited.jsonl"):
    lines = _lines(samples[task])
    change(lines)
    path = tmp_path / name
    path.write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    return path


def test_filters_that_disagree_on_resps_are_refused(samples, tmp_path):
    def change(lines):
        later = next(d for d in lines if d["filter"] == "first" and d["doc_id"] == 3)
        later["resps"][0][2] = "something else"

    path = _rewrite(samples, tmp_path, change, task="certify_filters")
    with pytest.raises(DataError, match=r"\(doc_id 3\): 'resps' differs from line \d+ of the same doc_id under another filter"):
        read_lmeval_samples(path)


@pytest.mark.parametrize("target, rule", [("['a', 'b']", "a list written as text"), ("  ", "empty after stripping"),
                                          (7, "is not a string")])
def test_unusable_targets_are_refused(samples, tmp_path, target, rule):
    def change(lines):
        lines[2]["target"] = target

    with pytest.raises(DataError, match=rf"line 3 \(doc_id 2\): target .*{rule}"):
        read_lmeval_samples(_rewrite(samples, tmp_path, change))


def test_missing_keys_bad_json_and_ragged_repeats(samples, tmp_path):
    def drop(lines):
        del lines[1]["resps"]

    with pytest.raises(DataError, match=r"line 2: no 'resps' key"):
        read_lmeval_samples(_rewrite(samples, tmp_path, drop))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(samples["certify_gen"].read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"line {N_DOCS + 1}: not valid JSON"):
        read_lmeval_samples(bad)

    def shorten(lines):
        lines[4]["resps"] = [lines[4]["resps"][0][:3]]

    _, bits = _read(_rewrite(samples, tmp_path, shorten))
    assert bits.counts.tolist() == [REPEATS] * 4 + [3] + [REPEATS] * 3
    np.testing.assert_array_equal(bits.bits[4, :3], PLAIN[4, :3])
    assert np.isnan(bits.bits[4, 3:]).all()
    assert bits.read_info.notes == ("documents have 3 to 5 responses each (ragged repeats)",)

    def single(lines):
        lines[4]["resps"] = [lines[4]["resps"][0][:1]]

    with pytest.raises(DataError, match=r"line 5 \(doc_id 4\): 1 response recorded; at least 2 calls"):
        read_lmeval_samples(_rewrite(samples, tmp_path, single))


def test_group_label_needs_lm_evals_file_name(samples, tmp_path):
    path = _rewrite(samples, tmp_path, lambda lines: None, name="renamed.jsonl")
    label, bits = _read(path)
    assert label == "" and bits.group == ""
    np.testing.assert_array_equal(bits.bits, PLAIN)


def test_recognized_by_content_not_by_name(samples, tmp_path):
    table = tmp_path / "samples_certify_gen_2026-01-01T00-00-00.000001.jsonl"  # lm-eval's name, a certify table inside
    table.write_text('{"doc_id": 0, "repeat": 0, "correct": 1}\n', encoding="utf-8")
    assert not is_lmeval_samples(table)
    no_resps = tmp_path / "x.jsonl"
    no_resps.write_text('{"doc_id": 0, "doc": {}, "target": "a"}\n', encoding="utf-8")
    assert not is_lmeval_samples(no_resps)
    renamed = tmp_path / "anything.jsonl"
    renamed.write_text("\n" + samples["certify_gen"].read_text(encoding="utf-8"), encoding="utf-8")
    assert is_lmeval_samples(renamed)


# ---- through certify analyze ---------------------------------------------------------------------


def test_cli_analyze_reads_lm_eval_samples(samples, capsys, tmp_path):
    from certify.cli.main import main
    from certify.readers import read_bits

    np.testing.assert_array_equal(read_bits(samples["certify_gen"]).bits, PLAIN)  # dispatch by content
    code = main(["analyze", str(samples["certify_gen"]), "--votes", "3", "--answer-regex", ANCHORED])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"columns: id = doc_id; call = repeat (position in resps); correct = first group of "
                               f"'{ANCHORED}' in resps vs target")
    assert lines[1] == (f"note: {ANCHORED_UNPARSED} of {N_DOCS * REPEATS} responses did not match the answer regex "
                        f"'{ANCHORED}' and count as incorrect")
    code = main(["analyze", str(samples["certify_gen"]), "--votes", "3", "--json", "--answer-ignore-case"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["reports"][0]["n"] == N_DOCS and data["columns"]["form"] == "lm-eval samples"
    assert data["reports"][0]["all_calls"]["moments"][0] == pytest.approx(CASEFOLD.mean(), abs=1e-12)
    table = tmp_path / "table.csv"
    table.write_text("b0,b1\n1,0\n0,1\n", encoding="utf-8")
    code = main(["analyze", str(table), "--answer-regex", "x"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "applies to logs only" in err
    code = main(["analyze", str(samples["certify_mc"])])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "multiple_choice" in err


# ---- answers, checks against the file's own scores, mixed files, bounded regex work ------------


def _expected_codes(path, casefold=False) -> np.ndarray:
    """Answer codes from the file's lines by the rule written out: the response stripped (and
    casefolded), empty is no answer, equal to the target is code 0, other answers numbered 1, 2, ...
    per document in repeat order."""
    rows = []
    for d in sorted(_lines(path), key=lambda d: d["doc_id"]):
        fold = (lambda t: t.casefold()) if casefold else (lambda t: t)
        target, wrong, row = fold(d["target"].strip()), {}, []
        for r in d["resps"][0]:
            a = fold(r.strip())
            row.append(0 if a == target else -1 if not a else wrong.setdefault(a, len(wrong) + 1))
        rows.append(row)
    return np.array(rows)


def test_answers_of_each_repeat(samples):
    path = samples["certify_answers"]
    assert _lines(path)[1]["resps"] == [ANSWERS[1]]  # the empty response is in the file as written
    _, bits = _read(path)
    want = _expected_codes(path)
    np.testing.assert_array_equal(bits.answers, want)
    assert bits.answers[:3].tolist() == [[0, 1, 2, 1, 2], [-1, 1, 1, 2, 0], [-1, 1, 0, 2, 1]]  # by hand
    np.testing.assert_array_equal(bits.answers == 0, bits.bits == 1)
    assert bits.abstentions == 2
    _, folded = _read(path, ignore_case=True)  # "blue" is then the target, and "Red" / "red" one answer
    np.testing.assert_array_equal(folded.answers, _expected_codes(path, casefold=True))
    assert folded.answers[1].tolist() == [-1, 1, 1, 0, 0]


def test_answers_through_the_regex_and_normalizations(samples):
    path = samples["certify_answers"]
    _, bits = _read(path, answer_regex=r"[0-9]+(?:\.[0-9]+)?")
    # documents 0 and 2 by hand: every response with a number gives it; "x" and "  " give none
    assert bits.answers[0].tolist() == [0, 1, 2, 1, 2] and bits.answers[2].tolist() == [-1, 1, 0, -1, 1]
    _, numbers = _read(path, answer_normalize="number")
    # "24.0" is still wrong by the exact-match rule (bits decide); as a number it is one answer with itself
    assert numbers.answers[2].tolist() == [-1, 1, 0, 2, 1]
    with pytest.raises(DataError, match="--answer-normalize 'x'"):
        read_lmeval_samples(path, answer_normalize="x")


def test_answers_of_a_file_lm_eval_wrote_reach_analyze_aggregate_plurality(samples, capsys):
    """certify analyze --aggregate plurality on a samples file lm-eval wrote: the plurality accuracy
    it reports for k calls is the one enumerated over every k-subset of the file's responses."""
    from certify.cli.main import main

    path = samples["certify_answers"]
    code = main(["analyze", str(path), "--aggregate", "plurality", "--votes", "3", "5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    (report,) = json.loads(out)["reports"]
    codes = _expected_codes(path)
    plurality = {r["target"]["votes"]: r["interval"] for r in report["rows"] if r["target"]["aggregate"] == "plurality"}
    assert sorted(plurality) == [3, 5]
    for k, interval in plurality.items():
        assert interval["route"] == "identified"
        assert interval["estimate"] == pytest.approx(plurality_by_subsets(codes, k), abs=1e-12)
        assert interval["lower"] <= interval["estimate"] <= interval["upper"]
    # the file holds what makes plurality differ from a bit majority: two wrong answers, each twice
    assert codes[0].tolist() == [0, 1, 2, 1, 2]
    verdicts = [r["verdict"] for r in report["rows"] if r["verdict"] is not None]
    assert {(v["aggregate"], v["votes"]) for v in verdicts} >= {("plurality", 3), ("plurality", 5)}


def test_chain_of_thought_notes_name_the_files_own_metric(samples):
    path = samples["certify_cot"]
    lines = _lines(path)
    file_mean = sum(d["exact_match"] for d in lines) / len(lines)
    assert file_mean > 0 and {d["filter"] for d in lines} == {"strict"}
    _, bits = _read(path)
    assert (bits.bits == 0).all()  # whole responses are never the number alone
    rule = "exact match after stripping whitespace, case-sensitive"
    assert bits.read_info.notes == (
        f"no response equals its target ({rule}): chain-of-thought responses need --answer-regex to extract the "
        f"answer, e.g. '(?r)(?<![0-9-])(-?[0-9]+)' for the last number",
        f"the file's own 'exact_match' (filter 'strict') averages {file_mean:.3f} over its {N_DOCS} documents, the "
        f"calls read here 0.000; {sum(d['exact_match'] > 0 for d in lines)} document(s) it scores above 0 have no call "
        f"read as correct (the first: doc_id 0): the answers are extracted differently; pass --answer-regex (and "
        f"--answer-ignore-case) to read them as the task does")
    _, read = _read(path, answer_regex=COT_REGEX)
    want = np.array([[1.0 if j not in (1, 3) else 0.0 for j in range(REPEATS)] for _ in range(N_DOCS)])
    np.testing.assert_array_equal(read.bits, want)
    assert read.read_info.notes == (f"0 of {N_DOCS * REPEATS} responses did not match the answer regex "
                                    f"'{COT_REGEX}' and count as incorrect",)
    for d in lines:  # the file's own score is its filter's: the first repeat, extracted
        assert d["exact_match"] == read.bits[d["doc_id"], 0]


def _joined(samples, tmp_path, *tasks, keep=lambda d: True):
    path = tmp_path / "samples_joined_2026-01-01T00-00-00.000001.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for t in tasks for d in _lines(samples[t]) if keep(d)), encoding="utf-8")
    return path


def test_files_joining_tasks_are_refused(samples, tmp_path):
    """Two tasks' files joined were read as one task with a false note about '2 filters'."""
    with pytest.raises(DataError, match=rf"line {N_DOCS + 1} \(doc_id 0\): its 'doc' has the fields \['id', 'question', "
                                        r"'target'\], line 1's \['id', 'target'\]: documents of two data sets"):
        read_lmeval_samples(_joined(samples, tmp_path, "certify_gen", "certify_cot"))
    with pytest.raises(DataError, match=rf"line {N_DOCS + 1} \(doc_id 0\): doc_id 0 under filter 'none' already on line 1; "
                                        r".*are two tasks' samples files joined\?"):
        read_lmeval_samples(_joined(samples, tmp_path, "certify_gen", "certify_answers"))
    # the same data set under other filters, with other responses
    with pytest.raises(DataError, match=r"'resps' differs from line 1 of the same doc_id under another filter"):
        read_lmeval_samples(_joined(samples, tmp_path, "certify_answers", "certify_filters"))
    # filters that do not list the same documents
    path = _joined(samples, tmp_path, "certify_filters", keep=lambda d: d["filter"] == "digits-all" or d["doc_id"] < 4)
    with pytest.raises(DataError, match=r"filter 'first' lists 4 documents and filter 'digits-all' 8, not the same ones "
                                        r"\(doc_id 4 only under 'digits-all', line \d+\): .*mixes tasks or runs"):
        read_lmeval_samples(path)


def test_answer_regex_work_is_bounded(samples, tmp_path):
    from certify.readers._answer_regex import MAX_REGEX_CHARS

    def long_response(text):
        def change(lines):
            lines[3]["resps"][0][2] = text

        return _rewrite(samples, tmp_path, change)

    # the usual last-number regex on 60,000 characters without a digit: no answer, at once
    # (Python's re backtracks quadratically here, for minutes)
    _, bits = _read(long_response("no digits here " * 4000), answer_regex=r"(?s).*(?<![0-9-])(-?[0-9]+)")
    assert bits.answers[3, 2] == -1 and bits.bits[3, 2] == 0
    with pytest.raises(DataError, match=r"line 4 \(doc_id 3\), repeat 3: --answer-regex '\(\?s\)\(\.\*\?,\)\{15\}z' took "
                                        r"more than 1 s on the response 'a,a,.*\.\.\. \(6000 characters\): it backtracks "
                                        r"without bound") as info:
        read_lmeval_samples(long_response("a," * 3000), answer_regex="(?s)(.*?,){15}z")
    assert "\n" not in str(info.value)
    with pytest.raises(DataError, match=rf"line 4 \(doc_id 3\), repeat 3: the response has {MAX_REGEX_CHARS + 1} "
                                        rf"characters, more than the limit of {MAX_REGEX_CHARS}"):
        read_lmeval_samples(long_response("7" * (MAX_REGEX_CHARS + 1)), answer_regex="7")
