"""inspect_ai logs written by inspect_ai itself (mockllm model, several epochs), read through
inspect's reader and through the built-in fallback reader (zstd-compressed .eval members).

The logs are written once per module. Nothing reaches the network: tiktoken (which the mock
model uses for token counts) gets a fake encoder, and DNS lookups raise.
"""

import json
import os
import re
import socket
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inspect_ai's own, from its retry settings

from certify.cli.main import main  # noqa: E402
from certify.readers import DataError, read_bits  # noqa: E402
from certify.readers._inspect import read_inspect_log  # noqa: E402
from certify.readers._zip import ZIP_ZSTD  # noqa: E402
from stats_helpers import plurality_by_subsets  # noqa: E402

IDS = [f"q{i}" for i in range(5)]
EPOCHS = 3


def answer(i: int, epoch: int) -> str:
    """The mock model's answer to sample i at an epoch: some samples right, some wrong, varying by epoch."""
    return "Yes" if (i + epoch) % 3 else "No"


EXPECTED = np.array([[1.0 if answer(i, e) == "Yes" else 0.0 for e in range(1, EPOCHS + 1)] for i in range(5)])
GRADES = {(1, 1): "Maybe", (2, 2): "Partly", (3, 3): "Partly"}  # (id, epoch) -> an N or P answer

#: The "answers" logs: what the mock model writes for sample a<i> at epoch e (index e - 1), the
#: target being 7: several wrong answers per sample, ties (8 and 9 twice each), empty outputs,
#: outputs without an answer, and padding that the default normalization strips.
COMPLETIONS = [
    ["The answer is 7", "The answer is 8", "The answer is 8", "The answer is 9", "The answer is 9", ""],
    ["answer is 5", "no idea", "The answer is 7", "answer is  5 ", "", "The answer is 6"],
    ["The answer is 3", "The answer is 4", "The answer is 3", "The answer is 4", "The answer is 7", "The answer is 7"],
    ["", "", "The answer is 7", "The answer is 2", "The answer is 2", "nothing"],
]
ANSWER_EPOCHS = len(COMPLETIONS[0])
ANSWER_REGEX = r"answer is\s+(-?\d+)"


class _FakeEncoding:
    def encode(self, text, **_):
        return text.split()


def _no_network(*args, **kwargs):
    raise OSError("network access is disabled in the certify tests")


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """name -> path of logs inspect_ai writes: ok.eval/ok.json, error.eval/error.json, unscored.eval, np.eval, failed.eval,
    answers.eval/answers.json (COMPLETIONS, scored by extracted())."""
    out = tmp_path_factory.mktemp("inspect_logs")
    home = tmp_path_factory.mktemp("inspect_home")
    with pytest.MonkeyPatch.context() as mp:
        import tiktoken

        mp.setattr(tiktoken, "get_encoding", lambda name: _FakeEncoding())
        mp.setattr(socket, "getaddrinfo", _no_network)
        mp.setattr(socket, "create_connection", _no_network)
        mp.setenv("XDG_DATA_HOME", str(home / "data"))  # inspect's traces and sample buffers
        mp.setenv("XDG_CACHE_HOME", str(home / "cache"))
        mp.setenv("INSPECT_LOG_DIR", str(out))
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput, get_model
        from inspect_ai.scorer import Score, accuracy, match, scorer
        from inspect_ai.solver import generate, solver

        @solver
        def tag(fail=None, grades=False):
            async def solve(state, generate):
                if fail is not None and fail(str(state.sample_id), state.epoch):
                    raise RuntimeError(f"boom on {state.sample_id} epoch {state.epoch}")
                state.user_prompt.text = f"{state.sample_id} {state.epoch}" + (" graded" if grades else "")
                return state

            return solve

        @scorer(metrics=[accuracy()])
        def graded():
            async def score(state, target):
                return Score(value={"Yes": "C", "No": "I", "Maybe": "N", "Partly": "P"}[state.output.completion])

            return score

        @solver
        def ask():
            async def solve(state, generate):
                state.user_prompt.text = f"answers {state.sample_id} {state.epoch}"
                return state

            return solve

        @scorer(metrics=[accuracy()])
        def extracted():
            """C when the number after 'answer is' is the target; samples a0 and a2 also set Score.answer
            (written '#<number>', unlike the completion; None where there is no number)."""

            async def score(state, target):
                m = re.search(ANSWER_REGEX, state.output.completion)
                got = m.group(1) if m else None
                given = (f"#{got}" if got is not None else None) if state.sample_id in ("a0", "a2") else None
                return Score(value="C" if got == target.text else "I", answer=given)

            return score

        def reply(messages, tools, tool_choice, config):
            if messages[-1].text.startswith("answers "):
                _, sid, epoch = messages[-1].text.split()
                return ModelOutput.from_content(model="mockllm", content=COMPLETIONS[int(sid[1:])][int(epoch) - 1])
            sid, epoch, *grades = messages[-1].text.split()
            i, e = int(sid.lstrip("q")), int(epoch)
            return ModelOutput.from_content(model="mockllm", content=GRADES.get((i, e), answer(i, e)) if grades else answer(i, e))

        model = get_model("mockllm/model", custom_outputs=reply)
        str_ids = [Sample(id=s, input="?", target="Yes") for s in IDS]
        int_ids = [Sample(id=i, input="?", target="Yes") for i in range(1, 5)]
        answer_ids = [Sample(id=f"a{i}", input="?", target="7") for i in range(len(COMPLETIONS))]
        runs = {
            "ok.eval": (str_ids, tag(), match(), "eval", {}),
            "ok.json": (str_ids, tag(), match(), "json", {}),
            "error.eval": (str_ids, tag(lambda s, e: s == "q3" and e == 3), match(), "eval", {"max_samples": 1}),
            "error.json": (str_ids, tag(lambda s, e: s == "q3" and e == 3), match(), "json", {"max_samples": 1}),
            "unscored.eval": (str_ids, tag(lambda s, e: s == "q1" and e == 2), match(), "eval", {"fail_on_error": False}),
            "failed.eval": (str_ids, tag(lambda s, e: True), match(), "eval", {}),
            "np.eval": (int_ids, tag(grades=True), graded(), "eval", {}),
            "answers.eval": (answer_ids, ask(), extracted(), "eval", {}),
            "answers.json": (answer_ids, ask(), extracted(), "json", {}),
        }
        paths = {}
        for name, (samples, solve, score, fmt, kw) in runs.items():
            epochs = ANSWER_EPOCHS if name.startswith("answers") else EPOCHS
            task = Task(dataset=samples, solver=[solve, generate()], scorer=score, epochs=epochs, name=name.split(".")[0])
            (log,) = inspect_eval(task, model=model, log_dir=str(out / name), log_format=fmt, display="none", **kw)
            paths[name] = log.location
    return paths


def _both(path, **kw):
    """The same log through inspect's reader and the built-in one: they must agree exactly."""
    (a,) = read_inspect_log(path, use_inspect=True, **kw).items()
    (b,) = read_inspect_log(path, use_inspect=False, **kw).items()
    assert a[0] == b[0] and a[1].example_ids == b[1].example_ids
    np.testing.assert_array_equal(a[1].bits, b[1].bits)
    np.testing.assert_array_equal(a[1].counts, b[1].counts)
    np.testing.assert_array_equal(a[1].answers, b[1].answers)
    assert a[1].read_info.reader.startswith("inspect_ai ") and b[1].read_info.reader.startswith("the built-in")
    assert a[1].read_info.notes == b[1].read_info.notes and a[1].read_info.skipped == b[1].read_info.skipped
    return a[1]


@pytest.mark.parametrize("name", ["ok.eval", "ok.json"])
def test_logs_inspect_writes_read_by_both_readers(logs, name):
    bits = _both(logs[name])
    assert bits.example_ids == tuple(IDS) and bits.group == "ok/mockllm/model"
    np.testing.assert_array_equal(bits.bits, EXPECTED)
    assert bits.read_info.status == "success" and bits.read_info.correct == "scores.match.value"
    assert read_bits(logs[name]).bits.tolist() == EXPECTED.tolist()  # the public entry point


def test_eval_members_are_zstd_and_stdlib_zipfile_cannot_read_them(logs):
    with zipfile.ZipFile(logs["ok.eval"]) as zf:
        assert {i.compress_type for i in zf.infolist()} == {ZIP_ZSTD}


def _cli(*args, hide=()):
    """`certify ...` in a fresh interpreter where the modules in `hide` cannot be imported."""
    code = ("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in hide)
            + "from certify.cli.main import main\nsys.exit(main(sys.argv[1:]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


def test_cli_without_inspect_ai_uses_the_builtin_zstd_reader(logs):
    r = _cli("analyze", logs["ok.eval"], "--votes", "3", "--json", hide=("inspect_ai",))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["columns"]["reader"] == "the built-in .eval reader" and data["reports"][0]["n"] == 5
    r = _cli("analyze", logs["ok.eval"], hide=("inspect_ai", "zstandard"))
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "compressed with zstd" in r.stderr and "pip install zstandard" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("name", ["error.eval", "error.json"])
def test_error_log_refused_then_read_with_allow_incomplete(logs, name):
    for use in (True, False):
        with pytest.raises(DataError, match=r"the run did not finish: the log's status is 'error'.*--allow-incomplete.*"
                                            r"boom on q3 epoch 3") as info:
            read_inspect_log(logs[name], use_inspect=use)
        assert "\n" not in str(info.value)
    bits = _both(logs[name], allow_incomplete=True)
    assert bits.read_info.status == "error" and bits.read_info.skipped >= 1
    assert any(n.startswith(f"skipped {bits.read_info.skipped} of ") for n in bits.read_info.notes)
    for i, sid in enumerate(bits.example_ids):  # every used call is the one the mock model answered
        k = bits.counts[i]
        np.testing.assert_array_equal(bits.bits[i, :k], EXPECTED[IDS.index(sid), :k])


def test_run_that_failed_before_scoring_says_so(logs):
    with pytest.raises(DataError, match=r"the run did not finish: the log's status is 'error'.*boom on q"):
        read_bits(logs["failed.eval"])  # not "the log has scorers none; choose one with scorer="
    with pytest.raises(DataError, match=r"no sample of the log has a score \(status 'error'"):
        read_bits(logs["failed.eval"], allow_incomplete=True)


def test_successful_log_with_an_unscored_sample(logs):
    with pytest.raises(DataError, match=r"\(id 'q1', epoch 2\) has no 'match' score \(sample error: .*boom on q1 epoch 2.*"
                                        r"1 of 15 samples have none; pass --allow-incomplete"):
        read_bits(logs["unscored.eval"])
    bits = _both(logs["unscored.eval"], allow_incomplete=True)
    assert bits.read_info.status == "success" and bits.read_info.skipped == 1
    assert list(bits.counts) == [3, 2, 3, 3, 3]
    np.testing.assert_array_equal(bits.bits[1, :2], EXPECTED[1, [0, 2]])  # q1's epochs 1 and 3


def test_no_answer_and_partial_scores_need_a_mapping(logs):
    path = logs["np.eval"]
    for use in (True, False):
        with pytest.raises(DataError, match=r"\(id 1, epoch 1\), column 'scores.graded.value': value 'N' is not binary "
                                            r"\(N = no answer\); 1 of 12 scored samples have it, other unmapped values: "
                                            r"'P' \(2\); map it explicitly, e.g. --score-map N=0"):
            read_inspect_log(path, use_inspect=use)
        with pytest.raises(DataError, match=r"\(id 2, epoch 2\), column 'scores.graded.value': value 'P' is not binary "
                                            r"\(P = partial credit\); 2 of 12"):
            read_inspect_log(path, use_inspect=use, score_map={"N": 0})
    bits = _both(path, score_map={"n": 0, "P": 1})
    assert bits.example_ids == ("1", "2", "3", "4")
    expected = EXPECTED[1:5].copy()
    expected[0, 0], expected[1, 1], expected[2, 2] = 0, 1, 1
    np.testing.assert_array_equal(bits.bits, expected)
    assert bits.read_info.notes == ("score value 'N' read as 0 (score map, 1 sample)", "score value 'P' read as 1 (score map, 2 samples)",
                                    "12 of 12 calls have no Score.answer from the scorer: their answer is the output "
                                    "completion, the whole completion (pass --answer-regex to extract it)")


def test_cli_score_map_allow_incomplete_and_first_lines(logs, capsys):
    code = main(["analyze", str(logs["np.eval"]), "--votes", "3", "--score-map", "N=0", "P=0"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("columns: id = sample id; call = epoch; correct = scores.graded.value (inspect_ai log, "
                               "status 'success', read with inspect_ai ")
    assert lines[1:3] == ["note: score value 'N' read as 0 (score map, 1 sample)",
                          "note: score value 'P' read as 0 (score map, 2 samples)"]
    code = main(["analyze", str(logs["error.eval"]), "--votes", "3", "--allow-incomplete", "--json"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["columns"]["status"] == "error" and data["columns"]["skipped_samples"] >= 1
    code = main(["analyze", str(logs["error.eval"])])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "status is 'error'" in err
    code = main(["analyze", str(logs["np.eval"]), "--score-map", "N"])
    out, err = capsys.readouterr()
    assert code == 2 and "--score-map 'N' must be VALUE=BIT" in err


def test_builtin_reader_names_an_unsupported_zip_method(logs, tmp_path):
    """An .eval member compressed with a method neither zstd nor the stdlib handles (PPMd, 98):
    the built-in reader says which method and what to install, in one line."""
    import struct

    import zstandard

    stored = tmp_path / "stored.eval"
    with zipfile.ZipFile(logs["ok.eval"]) as src, zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            with open(logs["ok.eval"], "rb") as fh:  # zipfile cannot decompress method 93: do it by hand
                fh.seek(info.header_offset + 26)
                name_len, extra_len = struct.unpack("<HH", fh.read(4))
                fh.seek(info.header_offset + 30 + name_len + extra_len)
                raw = zstandard.ZstdDecompressor().stream_reader(fh.read(info.compress_size), read_across_frames=True).read()
            dst.writestr(info.filename, raw)
    data = bytearray(stored.read_bytes())
    for sig, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):  # compression method in local and central headers
        start = 0
        while (i := data.find(sig, start)) >= 0:
            data[i + at: i + at + 2] = struct.pack("<H", 98)
            start = i + 4
    bad = tmp_path / "ppmd.eval"
    bad.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"uses zip compression method 98, which the built-in reader cannot read") as info:
        read_inspect_log(bad, use_inspect=False)
    assert "\n" not in str(info.value)


# ---- answers (CallBits.answers) -----------------------------------------------------------------


def _log_samples(path) -> list[dict]:
    """The samples of a log as inspect_ai wrote them, read here with json/zipfile/zstandard only."""
    if str(path).endswith(".json"):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)["samples"]
    import zstandard

    out = []
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fh:
        for info in zf.infolist():
            if info.filename.startswith("samples/"):
                fh.seek(info.header_offset + 26)
                name_len, extra_len = struct.unpack("<HH", fh.read(4))
                fh.seek(info.header_offset + 30 + name_len + extra_len)
                raw = zstandard.ZstdDecompressor().stream_reader(fh.read(info.compress_size), read_across_frames=True).read()
                out.append(json.loads(raw))
    return out


def _expected_codes(path, example_ids, scorer, regex=None, strip=True) -> np.ndarray:
    """Answer codes from the log's JSON by the rule written out: Score.answer, else the completion
    (through the regex); empty is no answer; scored C -> 0; wrong answers numbered 1, 2, ... per
    sample in epoch order."""
    by_id = {}
    for s in _log_samples(path):
        by_id.setdefault(str(s["id"]), []).append(s)
    rows = []
    for sid in example_ids:
        wrong, row = {}, []
        for s in sorted(by_id[sid], key=lambda s: s["epoch"]):
            score = s["scores"][scorer]
            text = score.get("answer")
            if text is None:
                text = s["output"]["completion"]
                if regex is not None:
                    m = re.search(regex, text)
                    text = m.group(1) if m else None
            if text is not None and strip:
                text = text.strip()
            if score["value"] == "C":
                row.append(0)
            elif not text:
                row.append(-1)
            else:
                row.append(wrong.setdefault(text, len(wrong) + 1))
        rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("name", ["answers.eval", "answers.json"])
def test_answers_from_score_answer_else_the_completion(logs, name):
    path = logs[name]
    samples = _log_samples(path)
    given = {(s["id"], s["epoch"]): s["scores"]["extracted"].get("answer") for s in samples}
    assert given[("a0", 2)] == "#8" and given[("a1", 1)] is None  # the log holds both kinds
    assert any(s["output"]["completion"] == "" for s in samples)  # and empty outputs
    bits = _both(path, answer_regex=ANSWER_REGEX)
    assert bits.example_ids == ("a0", "a1", "a2", "a3")
    want = _expected_codes(path, bits.example_ids, "extracted", ANSWER_REGEX)
    np.testing.assert_array_equal(bits.answers, want)
    # the rule by hand for sample a0: epoch 1 right; 8, 8, 9, 9 two tied wrong answers; an empty output
    assert bits.answers[0].tolist() == [0, 1, 1, 2, 2, -1]
    assert bits.answers[1].tolist() == [1, -1, 0, 1, -1, 2]  # "5" and " 5 " are one answer after strip
    assert bits.abstentions == int((want == -1).sum())
    n_from_completion = sum(a is None for a in given.values())
    assert bits.read_info.notes == (
        f"{n_from_completion} of {len(samples)} calls have no Score.answer from the scorer: their answer is the output "
        f"completion, extracted by the answer regex '{ANSWER_REGEX}'",
        f"{bits.abstentions} of {len(samples)} calls gave no answer (empty, or no match of the answer regex) and are "
        f"scored incorrect: they cast no vote")


def test_answers_without_a_regex_are_whole_completions(logs):
    path = logs["answers.eval"]
    bits = _both(path)
    np.testing.assert_array_equal(bits.answers, _expected_codes(path, bits.example_ids, "extracted"))
    assert bits.answers[1].tolist() == [1, 2, 0, 3, -1, 4]  # "answer is 5" and "answer is  5 " differ as wholes
    assert "the whole completion (pass --answer-regex to extract it)" in bits.read_info.notes[0]
    exact = _both(path, answer_normalize="exact")  # nothing stripped: "answer is  5 " keeps its spaces
    np.testing.assert_array_equal(exact.answers, _expected_codes(path, exact.example_ids, "extracted", strip=False))


def test_answer_options_through_read_bits_and_the_cli(logs, capsys):
    bits = read_bits(logs["answers.json"], answer_regex=ANSWER_REGEX, answer_normalize="number")
    np.testing.assert_array_equal(bits.answers, _expected_codes(logs["answers.json"], bits.example_ids, "extracted",
                                                                ANSWER_REGEX))
    with pytest.raises(DataError, match=r"--answer-normalize 'loose' \(answer_normalize=\): use one of exact, strip, casefold, number"):
        read_bits(logs["answers.json"], answer_normalize="loose")
    code = main(["analyze", str(logs["answers.eval"]), "--votes", "3", "--answer-regex", "(", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "--answer-regex (answer_regex=) '(' is not a valid" in err


@pytest.mark.parametrize("name", ["answers.eval", "answers.json"])
def test_answers_of_a_log_inspect_wrote_reach_analyze_aggregate_plurality(logs, capsys, name):
    """certify analyze --aggregate plurality on a log inspect_ai wrote: the plurality accuracy it
    reports for k calls is the one enumerated over every k-subset of the answers the log holds."""
    path = logs[name]
    code = main(["analyze", str(path), "--aggregate", "plurality", "--votes", "3", "5", "--answer-regex", ANSWER_REGEX,
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    (report,) = json.loads(out)["reports"]
    ids = tuple(f"a{i}" for i in range(len(COMPLETIONS)))
    codes = _expected_codes(path, ids, "extracted", ANSWER_REGEX)
    plurality = {r["target"]["votes"]: r["interval"] for r in report["rows"] if r["target"]["aggregate"] == "plurality"}
    assert sorted(plurality) == [3, 5]
    for k, interval in plurality.items():
        assert interval["route"] == "identified"
        assert interval["estimate"] == pytest.approx(plurality_by_subsets(codes, k), abs=1e-12)
        assert interval["lower"] <= interval["estimate"] <= interval["upper"]
    verdicts = [r["verdict"] for r in report["rows"] if r["verdict"] is not None]
    assert {(v["aggregate"], v["votes"]) for v in verdicts} >= {("plurality", 3), ("plurality", 5)}
    # the text output labels the plurality rows
    assert main(["analyze", str(path), "--aggregate", "plurality", "--votes", "3", "--answer-regex", ANSWER_REGEX]) == 0
    assert "plurality" in capsys.readouterr().out


def test_a_backtracking_regex_is_one_line_not_a_hang(logs):
    from certify.readers._answer_regex import REGEX_SECONDS

    with pytest.raises(DataError, match=rf"--answer-regex '\(\?s\)\(\.\*\?,\)\{{15\}}z' took more than {REGEX_SECONDS:g} s on "
                                        r"the response '.*\(\d+ characters\): it backtracks") as info:
        from certify.readers._answer_regex import AnswerRegex

        AnswerRegex("(?s)(.*?,){15}z").answer("a," * 3000, f"{logs['answers.eval']}: sample 1")
    assert "\n" not in str(info.value)


# ---- damaged and hostile logs: refused by both readers in one line -------------------------------


def _rewrite_eval(src, dst, change_member, method=zipfile.ZIP_DEFLATED):
    """A copy of an .eval log with each member's bytes passed through ``change_member(name, data)``
    (deflated: inspect_ai reads every method stdlib zipfile writes)."""
    import zstandard

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", method) as zout, open(src, "rb") as fh:
        for info in zin.infolist():
            fh.seek(info.header_offset + 26)
            name_len, extra_len = struct.unpack("<HH", fh.read(4))
            fh.seek(info.header_offset + 30 + name_len + extra_len)
            raw = zstandard.ZstdDecompressor().stream_reader(fh.read(info.compress_size), read_across_frames=True).read()
            data = change_member(info.filename, raw)
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


def _refused_by_both(path, match):
    for use in (True, False):
        with pytest.raises(DataError, match=match) as info:
            read_inspect_log(path, use_inspect=use)
        assert "\n" not in str(info.value), str(info.value)


def test_a_rewritten_archive_is_read_like_the_original(logs, tmp_path):
    """The edits below start from this copy: deflated members, otherwise the same log."""
    path = _rewrite_eval(logs["ok.eval"], tmp_path / "copy.eval", lambda name, data: data)
    bits = _both(path)
    np.testing.assert_array_equal(bits.bits, EXPECTED)


def test_a_flipped_byte_is_refused_by_both_readers(logs, tmp_path):
    """A stored member with one letter changed: inspect_ai's reader alone reads it (it checks no CRC)."""
    from inspect_ai.log import read_eval_log

    path = _rewrite_eval(logs["ok.eval"], tmp_path / "flipped.eval", lambda name, data: data, zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    at = data.index(b'"completion":"Yes"') if b'"completion":"Yes"' in data else data.index(b'"completion": "Yes"')
    at = data.index(b"Yes", at)
    data[at] = ord("X")
    path.write_bytes(bytes(data))
    assert any(s.output.completion == "Xes" for s in read_eval_log(str(path)).samples)
    _refused_by_both(path, r"flipped\.eval: member 'samples/.*' of the \.eval archive is corrupt \(.*CRC")


def test_repeated_keys_are_refused(logs, tmp_path):
    text = open(logs["ok.json"], encoding="utf-8").read()
    assert text.count('"status": "success"') == 1
    twice = tmp_path / "twice.json"
    twice.write_text(text.replace('"status": "success"', '"status": "error", "status": "success"'), encoding="utf-8")
    assert json.loads(twice.read_text())["status"] == "success"  # what Python's json would read
    _refused_by_both(twice, r"twice\.json: the file is not a JSON document certify reads: the key 'status' appears "
                            r"twice in one object")

    def header_twice(name, data):
        return data.replace(b'"status":"success"', b'"status":"error","status":"success"', 1) if name == "header.json" else data

    path = _rewrite_eval(logs["ok.eval"], tmp_path / "twice.eval", header_twice)
    _refused_by_both(path, r"member 'header\.json' is not a JSON document certify reads: the key 'status' appears twice")


@pytest.mark.parametrize("epochs", [0, -2, "3", True])
def test_epochs_that_are_not_a_positive_count_are_refused(logs, tmp_path, epochs):
    doc = json.loads(open(logs["ok.json"], encoding="utf-8").read())
    doc["eval"]["config"]["epochs"] = epochs
    path = tmp_path / "epochs.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    # inspect's pydantic model refuses the string itself and reads True as 1 (then epoch 2 is refused)
    uses = (False,) if isinstance(epochs, (str, bool)) else (True, False)
    for use in uses:
        with pytest.raises(DataError, match=rf"eval\.config\.epochs is {re.escape(repr(epochs))}; a log runs a positive"):
            read_inspect_log(path, use_inspect=use)


@pytest.mark.parametrize("epoch, rule", [(4, r"the log ran 3 epochs \(eval\.config\.epochs\)"), (0, "epochs count from 1"),
                                         (-1, "epochs count from 1")])
def test_samples_beyond_the_logs_epochs_are_refused(logs, tmp_path, epoch, rule):
    doc = json.loads(open(logs["ok.json"], encoding="utf-8").read())
    doc["samples"][4]["epoch"] = epoch
    path = tmp_path / "beyond.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    sid = doc["samples"][4]["id"]
    _refused_by_both(path, rf"sample \d+ \(id '{sid}'\): epoch {epoch} is outside the log's epochs: {rule}")


@pytest.mark.parametrize("edit, says", [
    (lambda t: t.replace('"status": "success"', '"status": "success", "deep": ' + "[" * 100_000 + "]" * 100_000, 1),
     "arrays and objects nest 100001 levels deep, deeper than the limit of 100"),
    (lambda t: t.replace('"status": "success"', '"status": "success", "n": ' + "9" * 5000, 1),
     "a number has more than 4300 digits, more than Python reads"),
    (lambda t: t.replace('"status": "success"', '"status": "success", "x": NaN', 1), "NaN is not a JSON number"),
    (lambda t: t.replace('"status": "success"', '"status": "success", "x": [' + ",".join(["[]"] * 2**22) + "]", 1),
     "more than the limit of 8388608 JSON values"),
])
def test_json_past_the_limits_is_refused_in_one_line(logs, tmp_path, edit, says):
    path = tmp_path / "hostile.json"
    path.write_text(edit(open(logs["ok.json"], encoding="utf-8").read()), encoding="utf-8")
    _refused_by_both(path, rf"hostile\.json: the file is not a JSON document certify reads: {re.escape(says)}")


def _bomb(path, members, method=zipfile.ZIP_DEFLATED):
    """An archive whose members (name -> (bytes of one block, repeats)) are written block by block."""
    with zipfile.ZipFile(path, "w", method, compresslevel=1) as zf:
        for name, (block, repeats) in members.items():
            with zf.open(name, "w", force_zip64=True) as fh:
                for _ in range(repeats):
                    fh.write(block)
    return path


def test_decompression_bombs_are_refused_from_their_declared_sizes(tmp_path):
    from certify.readers._log_limits import MAX_LOG_ARCHIVE_BYTES, MAX_LOG_DOCUMENT_BYTES

    big = _bomb(tmp_path / "big.eval", {"header.json": (b"{}", 1), "samples/1_epoch_1.json": (b" " * 2**20, 700)})
    assert big.stat().st_size < 2**22  # 700 MiB of spaces in under 4 MiB
    _refused_by_both(big, rf"member 'samples/1_epoch_1\.json' of the \.eval archive declares {700 * 2**20} bytes "
                          rf"decompressed, more than the limit of {MAX_LOG_DOCUMENT_BYTES // 2**20} MiB for one log document")
    many = _bomb(tmp_path / "many.eval", {"header.json": (b"{}", 1),
                                          **{f"samples/{i}_epoch_1.json": (b" " * 2**20, 100) for i in range(3)}})
    _refused_by_both(many, rf"the members of the \.eval archive declare {300 * 2**20 + 2} bytes decompressed, more than the "
                           rf"limit of {MAX_LOG_ARCHIVE_BYTES // 2**20} MiB for one log")


def test_a_member_larger_than_it_declares_is_refused_at_its_declared_size(tmp_path):
    """The central header says 1000 bytes; the deflated stream holds 300 MiB."""
    path = _bomb(tmp_path / "liar.eval", {"header.json": (b"{}", 1), "samples/1_epoch_1.json": (b" " * 2**20, 300)})
    data = bytearray(path.read_bytes())
    central = data.rindex(b"samples/1_epoch_1.json") - 46  # the central header readers take the sizes from
    assert data[central: central + 4] == b"PK\x01\x02" and struct.unpack_from("<I", data, central + 24)[0] == 300 * 2**20
    struct.pack_into("<I", data, central + 24, 1000)
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as zf:
        assert zf.getinfo("samples/1_epoch_1.json").file_size == 1000
    _refused_by_both(path, r"member 'samples/1_epoch_1\.json' of the \.eval archive is corrupt \(.*CRC")


def test_hostile_logs_stay_within_2_gb_and_one_line(tmp_path):
    """The CLI in a process whose address space is capped at 2 GiB: the 700 MB bomb that once took
    1.5 GB, and a log of 100 MiB of JSON values, each refused in one line."""
    bomb = _bomb(tmp_path / "bomb.eval", {"header.json": (b"{}", 1), "samples/1_epoch_1.json": (b" " * 2**20, 700)})
    wide = tmp_path / "wide.json"
    with open(wide, "w") as fh:
        fh.write('{"samples": [' + ",".join(["[]"] * 2**23) + "]}")
    code = ("import resource, sys\nresource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))\n"
            "from certify.cli.main import main\nsys.exit(main(sys.argv[1:]))")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    for path, says in ((bomb, "more than the limit of 128 MiB"), (wide, "JSON values")):
        r = subprocess.run([sys.executable, "-c", code, "analyze", str(path)], capture_output=True, text=True, env=env,
                           timeout=120)
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr[-2000:]
        assert says in r.stderr
