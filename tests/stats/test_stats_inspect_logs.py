"""inspect_ai logs written by inspect_ai itself (mockllm model, several epochs), read through
inspect's reader and through the built-in fallback reader (zstd-compressed .eval members).

The logs are written once per module. Nothing reaches the network: tiktoken (which the mock
model uses for token counts) gets a fake encoder, and DNS lookups raise.
"""

import json
import os
import socket
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inspect_ai's own, from its retry settings

from certify.cli.main import main  # noqa: E402
from certify.stats import DataError, read_bits  # noqa: E402
from certify.readers._inspect import read_inspect_log  # noqa: E402
from certify.readers._zip import ZIP_ZSTD  # noqa: E402

IDS = [f"q{i}" for i in range(5)]
EPOCHS = 3


def answer(i: int, epoch: int) -> str:
    """The mock model's answer to sample i at an epoch: some samples right, some wrong, varying by epoch."""
    return "Yes" if (i + epoch) % 3 else "No"


EXPECTED = np.array([[1.0 if answer(i, e) == "Yes" else 0.0 for e in range(1, EPOCHS + 1)] for i in range(5)])
GRADES = {(1, 1): "Maybe", (2, 2): "Partly", (3, 3): "Partly"}  # (id, epoch) -> an N or P answer


class _FakeEncoding:
    def encode(self, text, **_):
        return text.split()


def _no_network(*args, **kwargs):
    raise OSError("network access is disabled in the certify tests")


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """name -> path of logs inspect_ai writes: ok.eval/ok.json, error.eval/error.json, unscored.eval, np.eval, failed.eval."""
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

        def reply(messages, tools, tool_choice, config):
            sid, epoch, *grades = messages[-1].text.split()
            i, e = int(sid.lstrip("q")), int(epoch)
            return ModelOutput.from_content(model="mockllm", content=GRADES.get((i, e), answer(i, e)) if grades else answer(i, e))

        model = get_model("mockllm/model", custom_outputs=reply)
        str_ids = [Sample(id=s, input="?", target="Yes") for s in IDS]
        int_ids = [Sample(id=i, input="?", target="Yes") for i in range(1, 5)]
        runs = {
            "ok.eval": (str_ids, tag(), match(), "eval", {}),
            "ok.json": (str_ids, tag(), match(), "json", {}),
            "error.eval": (str_ids, tag(lambda s, e: s == "q3" and e == 3), match(), "eval", {"max_samples": 1}),
            "error.json": (str_ids, tag(lambda s, e: s == "q3" and e == 3), match(), "json", {"max_samples": 1}),
            "unscored.eval": (str_ids, tag(lambda s, e: s == "q1" and e == 2), match(), "eval", {"fail_on_error": False}),
            "failed.eval": (str_ids, tag(lambda s, e: True), match(), "eval", {}),
            "np.eval": (int_ids, tag(grades=True), graded(), "eval", {}),
        }
        paths = {}
        for name, (samples, solve, score, fmt, kw) in runs.items():
            task = Task(dataset=samples, solver=[solve, generate()], scorer=score, epochs=EPOCHS, name=name.split(".")[0])
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
